# SPDX-License-Identifier: MIT
# Sourced by tests/interop/rxe_harness.sh and bench/rxe_guest.sh: a qemu
# guest (TCG) running Debian's stock kernel from an initramfs built here,
# with the kernel's rdma_rxe and Debian's verbs programs in it.
#
#   guest_host_check          the host has what a guest needs (dies if not)
#   guest_root ROOT [MODULE...]  busybox, the modules, the rxe provider in
#                             ROOT; MODULEs (and what they need) loaded after
#   guest_add ROOT FILE...    FILE and the libraries ldd lists, at their paths
#   guest_programs ROOT P...  programs found on PATH, on the guest's PATH
#   guest_pack ROOT INITRD    the initramfs (ROOT/init is the caller's)
#   guest_boot INITRD SERIAL QEMU_NET_ARGS...   qemu in the background
#                             (GUEST_PID), in namespace GUEST_NETNS if set
#   guest_init_modules [norxe]  the /init lines that load the modules
#   guest_wait REGEX SECONDS  until the serial log has a line matching REGEX
#   guest_show LABEL          stdin with non-printable bytes replaced, to stderr
#
# The caller defines die() and ends GUEST_PID on exit. KVER (the kernel
# version, the newest in /boot unless set) and PROV (the rxe provider) are
# set by guest_host_check.

GUEST_PID=
GUEST_SERIAL=

guest_need() {
	command -v "$1" >/dev/null || die "$1 is not installed (Debian package $2; scripts/deps.sh)"
}

guest_host_check() {
	guest_need qemu-system-x86_64 qemu-system-x86
	guest_need busybox busybox-static
	guest_need cpio cpio
	guest_need gzip gzip
	guest_need modinfo kmod
	guest_need rdma iproute2
	busybox --list >/dev/null 2>&1 || die "busybox does not run"
	file -L "$(command -v busybox)" 2>/dev/null | grep -q "statically linked" ||
		ldd "$(command -v busybox)" 2>&1 | grep -q "not a dynamic" ||
		die "busybox is not the static one (Debian package busybox-static)"
	KVER=${WQE_INTEROP_KERNEL:-}
	if [ -z "$KVER" ]; then
		# The newest Debian kernel installed (linux-image-amd64 pulls it in).
		KVER=$(find /boot -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' | sed 's/^vmlinuz-//' | sort -V | tail -1)
	fi
	if [ -z "$KVER" ] || [ ! -r "/boot/vmlinuz-$KVER" ]; then
		die "no kernel ${KVER:+$KVER }in /boot (Debian package linux-image-amd64)"
	fi
	[ -d "/lib/modules/$KVER" ] || die "no /lib/modules/$KVER (linux-image-$KVER)"
	PROV=$(find /usr/lib/x86_64-linux-gnu/libibverbs -name 'librxe-rdmav*.so' 2>/dev/null | head -1)
	[ -n "$PROV" ] || die "no librxe-rdmav*.so (Debian package ibverbs-providers)"
	[ -r /etc/libibverbs.d/rxe.driver ] || die "no /etc/libibverbs.d/rxe.driver (ibverbs-providers)"
}

# guest_add ROOT FILE...: FILE at its own path and what ldd lists for it
# (the loader included), at the paths ldd prints, so the guest's loader
# finds them where the host's does.
guest_add() {
	local root=$1 f l
	shift
	for f in "$@"; do
		f=$(readlink -f "$f")
		mkdir -p "$root$(dirname "$f")"
		cp -n "$f" "$root$f"
		for l in $(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+'); do
			[ -e "$root$l" ] && continue
			mkdir -p "$root$(dirname "$l")"
			cp -L "$l" "$root$l"
		done
	done
}

# guest_programs ROOT PROGRAM...: each found on the host's PATH, copied with
# its libraries and linked into the guest's /usr/bin under its own name.
guest_programs() {
	local root=$1 p b
	shift
	mkdir -p "$root/usr/bin"
	for p in "$@"; do
		b=$(command -v "$p") || die "$p is not installed"
		guest_add "$root" "$b"
		[ -e "$root/usr/bin/$p" ] || ln -s "$(readlink -f "$b")" "$root/usr/bin/$p"
	done
}

# guest_root ROOT [MODULE...]: the initramfs tree without its /init:
# busybox, the modules rdma_rxe and virtio_net need (ROOT/mods, loaded in
# the order of ROOT/mods/order), then each MODULE after what it needs (the
# connection manager's for tests/interop/rdmacm_harness.sh), the rxe
# provider and its driver file, rdma and ibv_devinfo.
guest_root() {
	local root=$1 m f
	shift
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,etc/libibverbs.d,mods}
	cp "$(command -v busybox)" "$root/bin/busybox"
	guest_programs "$root" rdma ibv_devinfo
	# The provider is found through its driver file and libibverbs' plugin dir.
	guest_add "$root" "$PROV"
	cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
	mkdir -p "$root$(dirname "$PROV")"
	cp -n "$(readlink -f "$PROV")" "$root$PROV" 2>/dev/null || true
	# Modules: what rdma_rxe and virtio_net need, after modinfo's depends,
	# each after its dependencies. The crc32 drivers are no hard dependency
	# (rxe asks the crypto API for "crc32" by name), so they are named.
	GUEST_LOADED=()
	GUEST_ORDER=()
	for m in crc32_generic crc32_pclmul virtio_pci virtio_net rdma_rxe "$@"; do guest_mod "$m"; done
	: >"$root/mods/order"
	for m in "${GUEST_ORDER[@]}"; do
		f=$(modinfo -k "$KVER" -F filename "$m")
		case $f in
		builtin | "(builtin)") continue ;;
		*.ko.xz) xz -dc "$f" >"$root/mods/$m.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$root/mods/$m.ko" ;;
		*.ko.gz) gzip -dc "$f" >"$root/mods/$m.ko" ;;
		*) cp "$f" "$root/mods/$m.ko" ;;
		esac
		echo "$m" >>"$root/mods/order"
	done
}

guest_mod() {
	local m=$1 d deps
	m=${m//-/_}
	for d in "${GUEST_LOADED[@]}"; do [ "$d" = "$m" ] && return 0; done
	GUEST_LOADED+=("$m")
	deps=$(modinfo -k "$KVER" -F depends "$m" 2>/dev/null) ||
		die "module $m not found for $KVER"
	for d in ${deps//,/ }; do guest_mod "$d"; done
	GUEST_ORDER+=("$m")
}

# The shell lines an /init runs to load ROOT/mods (all but rdma_rxe when
# the argument is "norxe": its caller loads rdma_rxe later).
guest_init_modules() {
	echo "skip=${1:-}"
	cat <<'EOF'
for m in $(cat /mods/order); do
	[ "$m" = rdma_rxe ] && [ "$skip" = norxe ] && continue
	# crc32_pclmul is an accelerator only: qemu's TCG CPU lacks PCLMULQDQ,
	# so it refuses to load and crc32_generic serves.
	insmod /mods/$m.ko 2>/dev/null || [ "$m" = crc32_pclmul ] ||
		echo "@@WQE-GUEST-ERROR insmod $m"
done
EOF
}

guest_pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}

# guest_boot INITRD SERIAL NET_ARGS...: 512 MiB, GUEST_SMP CPUs (1), serial console
# to SERIAL; NET_ARGS are qemu's -netdev/-device arguments. In network
# namespace GUEST_NETNS if set (ip netns exec execs qemu: GUEST_PID is it).
guest_boot() {
	local initrd=$1 ns=()
	GUEST_SERIAL=$2
	shift 2
	[ -n "${GUEST_NETNS:-}" ] && ns=(ip netns exec "$GUEST_NETNS")
	: >"$GUEST_SERIAL"
	"${ns[@]}" qemu-system-x86_64 -accel tcg -m 512 -smp "${GUEST_SMP:-1}" -nographic -no-reboot \
		-kernel "/boot/vmlinuz-$KVER" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic=-1 rdinit=/init" "$@" \
		-serial "file:$GUEST_SERIAL" -monitor none -display none </dev/null \
		>"$GUEST_SERIAL.qemu" 2>&1 &
	GUEST_PID=$!
}

# guest_wait REGEX SECONDS: until the guest prints a line matching REGEX
# (1 if it exits or the time runs out first).
guest_wait() {
	local end=$(($(date +%s) + $2))
	while ! grep -qaE "$1" "$GUEST_SERIAL"; do
		kill -0 "$GUEST_PID" 2>/dev/null || return 1
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

guest_show() { tr -c '[:print:]\n' '?' | sed "s/^/  $1: /" >&2; }
