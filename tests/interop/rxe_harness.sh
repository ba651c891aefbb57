#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wqe against the Linux kernel's Soft-RoCE (rdma_rxe) in a qemu guest:
#   rxe_harness.sh WQE [CASE...]
# Boots Debian's stock kernel once (TCG: KVM cannot run it on these
# machines) from an initramfs built here, in a network namespace with a
# bridge and a tap; the guest is 192.0.2.2 with rxe0 on eth0, the host side
# runs `WQE exec --local 192.0.2.1`. Each CASE (all when none is given, the
# list in cases()) runs one unmodified verbs program on both sides, captures
# the bridge and checks the capture with tests/ibverbs/check_capture.py and
# tests/wire/roce_scapy.py. Root is needed (netns, tap); a missing package
# fails the test, never skips it. See docs/interop.md.
#
# wqe runs with no option: rxe writes non-zero IPv4 identifications, which
# a UDP socket hides and the ICRC covers; as root the link reads them with
# each datagram (raw socket) and checks the whole ICRC.
set -euo pipefail

WQE=$(readlink -f "${1:?usage: $0 path/to/wqe [CASE...]}")
shift
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${WQE_PYTHON:-/usr/bin/python3}
KVER=${WQE_INTEROP_KERNEL:-}
HOST=192.0.2.1
GUEST=192.0.2.2
NS=wqerxe$$
TMP=$(mktemp -d /tmp/wqe-interop.XXXXXX)
QEMU_PID=
CAP_PID=
T0=$(date +%s.%N)

die() {
	echo "FAIL: $*" >&2
	exit 1
}

# Everything the run made goes on every exit path: qemu, the capture, the
# namespace (its bridge and tap go with it), the temp dir.
cleanup() {
	local rc=$?
	# Each step may find nothing to undo (an early failure): none may stop
	# the others under set -e.
	set +e
	[ -n "$CAP_PID" ] && kill "$CAP_PID" 2>/dev/null
	[ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null && wait "$QEMU_PID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	if [ "$rc" -ne 0 ] && [ -n "${WQE_INTEROP_KEEP:-}" ]; then
		echo "kept $TMP" >&2
	else
		rm -rf "$TMP"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

elapsed() { echo "$(date +%s.%N) $1" | awk '{printf "%.1f", $1 - $2}'; }

# --- what the host must have ---------------------------------------------
[ "$(id -u)" -eq 0 ] || die "needs root (network namespace, tap device)"
need() {
	command -v "$1" >/dev/null || die "$1 is not installed (Debian package $2; scripts/deps.sh)"
}
need qemu-system-x86_64 qemu-system-x86
need busybox busybox-static
need cpio cpio
need gzip gzip
need modinfo kmod
need ip iproute2
need rdma iproute2
need ethtool ethtool
need tcpdump tcpdump
need tshark tshark
for p in ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong; do need "$p" ibverbs-utils; done
for p in ib_write_bw ib_read_bw ib_send_lat; do need "$p" perftest; done
busybox --list >/dev/null 2>&1 || die "busybox does not run"
file -L "$(command -v busybox)" 2>/dev/null | grep -q "statically linked" ||
	ldd "$(command -v busybox)" 2>&1 | grep -q "not a dynamic" ||
	die "busybox is not the static one (Debian package busybox-static)"
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

# --- the initramfs --------------------------------------------------------
ROOT=$TMP/root
mkdir -p "$ROOT"/{bin,dev,proc,sys,tmp,etc/libibverbs.d,mods}
cp "$(command -v busybox)" "$ROOT/bin/busybox"

# copy_with_libs FILE...: FILE at its own path and what ldd lists for it
# (the loader included), at the paths ldd prints, so the guest's loader
# finds them where the host's does.
copy_with_libs() {
	local f l
	for f in "$@"; do
		f=$(readlink -f "$f")
		mkdir -p "$ROOT$(dirname "$f")"
		cp -n "$f" "$ROOT$f"
		for l in $(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+'); do
			[ -e "$ROOT$l" ] && continue
			mkdir -p "$ROOT$(dirname "$l")"
			cp -L "$l" "$ROOT$l"
		done
	done
}
BINS=()
for p in rdma ibv_devinfo ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ib_write_bw ib_read_bw ib_send_lat; do
	command -v "$p" >/dev/null || die "$p is not installed"
	BINS+=("$(command -v "$p")")
done
copy_with_libs "${BINS[@]}" "$PROV"
# The programs are found on PATH under their own names.
mkdir -p "$ROOT/usr/bin"
for b in "${BINS[@]}"; do
	[ -e "$ROOT/usr/bin/$(basename "$b")" ] || ln -s "$(readlink -f "$b")" "$ROOT/usr/bin/$(basename "$b")"
done
# The provider is found through its driver file and libibverbs' plugin dir.
cp /etc/libibverbs.d/rxe.driver "$ROOT/etc/libibverbs.d/"
mkdir -p "$ROOT$(dirname "$PROV")"
cp -n "$(readlink -f "$PROV")" "$ROOT$PROV" 2>/dev/null || true

# Modules: what rdma_rxe and virtio_net need, after modinfo's depends,
# each after its dependencies. The crc32 drivers are no hard dependency
# (rxe asks the crypto API for "crc32" by name), so they are named.
declare -A LOADED=()
ORDER=()
add_mod() {
	local m=$1 d deps
	m=${m//-/_}
	[ -n "${LOADED[$m]:-}" ] && return 0
	LOADED[$m]=1
	deps=$(modinfo -k "$KVER" -F depends "$m" 2>/dev/null) ||
		die "module $m not found for $KVER"
	for d in ${deps//,/ }; do add_mod "$d"; done
	ORDER+=("$m")
}
for m in crc32_generic crc32_pclmul virtio_pci virtio_net rdma_rxe; do add_mod "$m"; done
: >"$ROOT/mods/order"
for m in "${ORDER[@]}"; do
	f=$(modinfo -k "$KVER" -F filename "$m")
	case $f in
	builtin | "(builtin)") continue ;;
	*.ko.xz) xz -dc "$f" >"$ROOT/mods/$m.ko" ;;
	*.ko.zst) zstd -qdc "$f" >"$ROOT/mods/$m.ko" ;;
	*.ko.gz) gzip -dc "$f" >"$ROOT/mods/$m.ko" ;;
	*) cp "$f" "$ROOT/mods/$m.ko" ;;
	esac
	echo "$m" >>"$ROOT/mods/order"
done

# The cases, in the order both sides run them.
cases() {
	# name|host program and args|guest program and args|who serves|opcodes
	# wqe's GID is index 0 (its only one), rxe's IPv4-mapped GID index 1.
	cat <<EOF
rc_wqe_server|ibv_rc_pingpong -g 0 -p 18515 -c -n 100|ibv_rc_pingpong -g 1 -p 18515 -c -n 100|host|0 1 2 17
rc_rxe_server|ibv_rc_pingpong -g 0 -p 18516 -c -n 100|ibv_rc_pingpong -g 1 -p 18516 -c -n 100|guest|0 1 2 17
uc_wqe_server|ibv_uc_pingpong -g 0 -p 18517 -c -n 100|ibv_uc_pingpong -g 1 -p 18517 -c -n 100|host|32 33 34
ud_wqe_server|ibv_ud_pingpong -g 0 -p 18518 -c -n 100 -s 1024|ibv_ud_pingpong -g 1 -p 18518 -c -n 100 -s 1024|host|100
write_bw_wqe_server|ib_write_bw -F -x 0 -p 18519 -n 50|ib_write_bw -F -x 1 -p 18519 -n 50|host|6 7 8 17
read_bw_wqe_server|ib_read_bw -F -x 0 -p 18520 -n 50|ib_read_bw -F -x 1 -p 18520 -n 50|host|12 13 14 15
send_lat_wqe_server|ib_send_lat -F -x 0 -p 18521 -n 100|ib_send_lat -F -x 1 -p 18521 -n 100|host|4
EOF
}
ALL=$(cases | cut -d'|' -f1)
# shellcheck disable=SC2086 # one case a word
if [ "$#" -eq 0 ]; then set -- $ALL; fi
for c in "$@"; do
	grep -qx "$c" <<<"$ALL" || die "unknown case $c (cases: ${ALL//$'\n'/ })"
done
SELECTED=("$@")

# The guest's script: its halves of the selected cases, baked into the
# initramfs (no share or second disk to set up: the image is built per run).
# Each case prints its output framed by markers on the serial console.
# A client retries while its server does not listen yet: a refused TCP
# connection costs the server nothing (a probe would take its one accept).
{
	echo 'run() {'
	echo '	name=$1 role=$2; shift 2'
	echo '	echo "@@WQE-CASE-BEGIN $name"'
	echo '	if [ "$role" = client ]; then'
	echo '		i=0'
	echo '		while :; do'
	echo '			"$@" >/tmp/out 2>&1; rc=$?'
	echo '			grep -qiE "couldn.t connect|unable to open file descriptor" /tmp/out || break'
	echo '			i=$((i + 1)); [ $i -lt 120 ] || break; sleep 0.5'
	echo '		done'
	echo '	else'
	echo '		"$@" >/tmp/out 2>&1; rc=$?'
	echo '	fi'
	echo '	sed "s/^/@@ /" /tmp/out'
	echo '	echo "@@WQE-CASE-END $name rc=$rc"'
	echo '}'
	while IFS='|' read -r name _hostcmd guestcmd server _ops; do
		for s in "${SELECTED[@]}"; do
			[ "$s" = "$name" ] || continue
			if [ "$server" = host ]; then
				echo "run $name client $guestcmd $HOST"
			else
				echo "run $name server $guestcmd"
			fi
		done
	done < <(cases)
} >"$ROOT/cases.sh"

cat >"$ROOT/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/bin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in \$(cat /mods/order); do
	# crc32_pclmul is an accelerator only: qemu's TCG CPU lacks PCLMULQDQ,
	# so it refuses to load and crc32_generic serves.
	insmod /mods/\$m.ko 2>/dev/null || [ "\$m" = crc32_pclmul ] ||
		echo "@@WQE-GUEST-ERROR insmod \$m"
done
ip link set lo up
ip link set eth0 up
ip addr add $GUEST/24 dev eth0
rdma link add rxe0 type rxe netdev eth0 || echo "@@WQE-GUEST-ERROR rdma link add"
# rxe0 is ready when its IPv4-mapped GID (index 1) holds the address.
i=0
while ! grep -q ffff:c000:0202 /sys/class/infiniband/rxe0/ports/1/gids/1 2>/dev/null; do
	i=\$((i + 1)); [ \$i -lt 100 ] || break; sleep 0.1
done
echo "@@WQE-GUEST-READY \$(cut -d' ' -f1 /proc/uptime)"
. /cases.sh
echo "@@WQE-GUEST-DONE \$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
echo o >/proc/sysrq-trigger
EOF
chmod +x "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) >"$TMP/initrd.gz"

# --- the network ----------------------------------------------------------
ip netns add "$NS"
nsx() { ip netns exec "$NS" "$@"; }
nsx ip link set lo up
nsx ip link add br0 type bridge
nsx ip tuntap add dev tap0 mode tap
nsx ip link set tap0 master br0
nsx ip addr add "$HOST/24" dev br0
nsx ip link set tap0 up
nsx ip link set br0 up
# Without this the capture holds the partial UDP sums the kernel leaves for
# an offload that never happens on a bridge.
nsx ethtool -K br0 tx off >/dev/null 2>&1 || true
nsx ethtool -K tap0 tx off >/dev/null 2>&1 || true

# --- the guest ------------------------------------------------------------
SERIAL=$TMP/serial.log
: >"$SERIAL"
ip netns exec "$NS" qemu-system-x86_64 -accel tcg -m 512 -smp 1 -nographic -no-reboot \
	-kernel "/boot/vmlinuz-$KVER" -initrd "$TMP/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init" \
	-netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
	-device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:02 \
	-serial "file:$SERIAL" -monitor none -display none </dev/null >"$TMP/qemu.out" 2>&1 &
QEMU_PID=$!

# wait_serial REGEX SECONDS: until the guest prints a line matching REGEX.
wait_serial() {
	local end=$(($(date +%s) + $2))
	while ! grep -qaE "$1" "$SERIAL"; do
		kill -0 "$QEMU_PID" 2>/dev/null || return 1
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}
# Guest output is shown with non-printable bytes replaced.
show() { tr -c '[:print:]\n' '?' | sed "s/^/  $1: /" >&2; }

wait_serial '@@WQE-GUEST-READY' 90 || {
	show serial <"$SERIAL"
	die "the guest did not bring rxe0 up within 90 s"
}
grep -qa '@@WQE-GUEST-ERROR' "$SERIAL" && { grep -a '@@WQE-GUEST-ERROR' "$SERIAL" | show guest; die "guest setup failed"; }
BOOT=$(elapsed "$T0")
echo "guest ready after ${BOOT} s ($(grep -ao '@@WQE-GUEST-READY [0-9.]*' "$SERIAL" | cut -d' ' -f2) s of guest uptime)"

# --- the cases ------------------------------------------------------------
FAILS=0
PASSED=()
host_run() {
	# The host's side, within 120 s; a client retries while the guest's
	# server does not listen yet.
	local role=$1 out=$2 i rc
	shift 2
	for i in $(seq 120); do
		rc=0
		# A sanitized build's drop-in needs its runtime preloaded into
		# the unmodified program (WQE_TEST_PRELOAD, as exec_pair.sh).
		nsx timeout 120 env ${WQE_TEST_PRELOAD:+LD_PRELOAD=$WQE_TEST_PRELOAD} \
			${WQE_TEST_PRELOAD:+ASAN_OPTIONS=detect_leaks=0:abort_on_error=1} \
			"$WQE" exec --local "$HOST" -- "$@" >"$out" 2>&1 || rc=$?
		[ "$role" = client ] || return "$rc"
		grep -qiE "couldn.t connect|unable to open file descriptor" "$out" || return "$rc"
		sleep 0.5
	done
	return "$rc"
}
while IFS='|' read -r -u 3 name hostcmd _guestcmd server ops; do
	sel=
	for s in "${SELECTED[@]}"; do [ "$s" = "$name" ] && sel=1; done
	[ -n "$sel" ] || continue
	t=$(date +%s.%N)
	pcap=$TMP/$name.pcap
	# ip netns exec directly (not nsx), so that $! is tcpdump itself;
	# TERM, not INT: a background job of a script ignores SIGINT.
	ip netns exec "$NS" tcpdump -i br0 -U -n -s 0 -w "$pcap" udp port 4791 2>"$TMP/$name.tcpdump" &
	CAP_PID=$!
	for _ in $(seq 50); do grep -q "listening on" "$TMP/$name.tcpdump" && break; sleep 0.1; done
	# "listening on" comes a moment before frames are taken: one ud run of
	# 0.04 s was missed whole without this pause.
	sleep 0.5
	hrc=0
	# shellcheck disable=SC2086
	if [ "$server" = host ]; then
		host_run server "$TMP/$name.host" $hostcmd || hrc=$?
	else
		host_run client "$TMP/$name.host" $hostcmd "$GUEST" || hrc=$?
	fi
	ok=1
	wait_serial "@@WQE-CASE-END $name rc=" 120 || { echo "FAIL: $name: the guest did not finish" >&2; ok=; }
	sleep 1
	kill -TERM "$CAP_PID" 2>/dev/null || true
	wait "$CAP_PID" 2>/dev/null || true
	CAP_PID=
	grc=$(grep -ao "@@WQE-CASE-END $name rc=[0-9]*" "$SERIAL" | sed 's/.*rc=//')
	# The serial console ends lines with CR LF.
	tr -d '\r' <"$SERIAL" | sed -n "/^@@WQE-CASE-BEGIN $name\$/,/^@@WQE-CASE-END $name /p" |
		{ grep -a '^@@ ' || true; } | sed 's/^@@ //' >"$TMP/$name.guest"
	[ "$hrc" -eq 0 ] || { echo "FAIL: $name: wqe side exit $hrc" >&2; ok=; }
	[ "${grc:-x}" = 0 ] || { echo "FAIL: $name: rxe side exit ${grc:-none}" >&2; ok=; }
	case $name in
	rc_* | uc_* | ud_*)
		for f in host guest; do
			grep -qE "^[0-9]+ iters in [0-9.]+ seconds" "$TMP/$name.$f" ||
				{ echo "FAIL: $name: no pingpong report on the $f side" >&2; ok=; }
		done
		;;
	*)
		grep -qE "^ *[0-9]+ +[0-9]+ +[0-9.]+" "$TMP/$name.guest" "$TMP/$name.host" ||
			{ echo "FAIL: $name: no perftest result line" >&2; ok=; }
		;;
	esac
	# shellcheck disable=SC2086
	if ! "$PY" "$HERE/../ibverbs/check_capture.py" "$pcap" $ops >"$TMP/$name.check" 2>&1; then
		echo "FAIL: $name: capture: $(tr -c '[:print:]\n' '?' <"$TMP/$name.check")" >&2
		ok=
	fi
	if ! "$PY" "$HERE/../wire/roce_scapy.py" "$pcap" >"$TMP/$name.scapy" 2>&1 ||
		! grep -qE "^[0-9]+ frames, [0-9]+ RoCEv2, 0 bad$" "$TMP/$name.scapy"; then
		echo "FAIL: $name: ICRC (scapy): $(tr -c '[:print:]\n' '?' <"$TMP/$name.scapy" | tail -3)" >&2
		ok=
	fi
	if [ -n "$ok" ]; then
		echo "ok   $name ($(elapsed "$t") s; $(tail -1 "$TMP/$name.scapy"))"
		PASSED+=("$name")
	else
		FAILS=$((FAILS + 1))
		echo "     $name: wqe side:" >&2
		tail -8 "$TMP/$name.host" | show wqe
		echo "     $name: rxe side:" >&2
		tail -8 "$TMP/$name.guest" | show rxe
		if [ -n "${WQE_INTEROP_KEEP:-}" ]; then cp "$pcap" "${WQE_INTEROP_KEEP}/" 2>/dev/null || true; fi
	fi
done 3< <(cases)

wait_serial '@@WQE-GUEST-DONE' 60 || echo "note: the guest did not finish its script" >&2
# The guest powers off by itself; if qemu stays, it is ended (cleanup).
for _ in $(seq 50); do kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 0.2; done
echo "${#PASSED[@]} passed, $FAILS failed; boot ${BOOT} s, total $(elapsed "$T0") s"
[ "$FAILS" -eq 0 ]
