#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wqe against the Linux kernel's Soft-RoCE (rdma_rxe) in a qemu guest:
#   rxe_harness.sh WQE [CASE...]
# Boots Debian's stock kernel once (TCG: KVM cannot run it on these
# machines) from an initramfs built here (tests/interop/guest.sh), in a
# network namespace with a bridge and a tap; the guest is 192.0.2.2 and
# 2001:db8::2 with rxe0 on eth0, the host side runs `WQE exec --local
# 192.0.2.1` or `--local 2001:db8::1`. Each CASE (all when none is given:
# the matrix in cases()) runs one unmodified verbs program on both sides;
# one capture of the bridge is split per case and every part checked with
# tests/ibverbs/check_capture.py and tests/wire/roce_scapy.py. Root is
# needed (netns, tap); a missing package fails the test, never skips it.
# See docs/interop.md.
#
# wqe runs with no option: rxe writes non-zero IPv4 identifications, which
# a UDP socket hides and the ICRC covers; as root the link reads them with
# each datagram (raw socket) and checks the whole ICRC.
set -euo pipefail

WQE=$(readlink -f "${1:?usage: $0 path/to/wqe [CASE...]}")
shift
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${WQE_PYTHON:-/usr/bin/python3}
HOST=192.0.2.1
GUEST=192.0.2.2
HOST6=2001:db8::1
GUEST6=2001:db8::2
NS=wqerxe$$
TMP=$(mktemp -d /tmp/wqe-interop.XXXXXX)
CAP_PID=
T0=$(date +%s.%N)

die() {
	echo "FAIL: $*" >&2
	exit 1
}
. "$HERE/guest.sh"

# Everything the run made goes on every exit path: qemu, the capture, the
# namespace (its bridge and tap go with it), the temp dir.
cleanup() {
	local rc=$?
	# Each step may find nothing to undo (an early failure): none may stop
	# the others under set -e.
	set +e
	[ -n "$CAP_PID" ] && kill "$CAP_PID" 2>/dev/null
	[ -n "$GUEST_PID" ] && kill "$GUEST_PID" 2>/dev/null && wait "$GUEST_PID" 2>/dev/null
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
[ -x "$WQE" ] || die "$WQE is not an executable (the wqe binary of a build: build/wqe)"
guest_host_check
guest_need ip iproute2
guest_need ethtool ethtool
guest_need tcpdump tcpdump
guest_need tshark tshark
PROGS=(ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong)
for p in ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong; do guest_need "$p" ibverbs-utils; done
for p in write read send atomic; do
	for k in bw lat; do
		guest_need "ib_${p}_$k" perftest
		PROGS+=("ib_${p}_$k")
	done
done

# --- the matrix -----------------------------------------------------------
# One line a program and transport:
#   id|arguments on both sides|opcodes at MTU 1024|at 4096|loss|alt args|alt opcodes
# @G@ is the GID index (wqe's 0; rxe's from sysfs in the guest), @MTU@ the
# MTU of the case. loss: the drop rate of the case that runs with loss on
# the wqe side (lower for the bandwidth tests: go-back-N resends up to a
# window of 16 KiB messages for each drop). Only on the RC programs where
# one side requests and the other only responds and stays up until the
# closing TCP exchange: in the symmetric ones (the pingpongs, write_lat,
# send_lat) a side exits as soon as its last completion is in, so a lost
# ACK of the peer's last message is answered by nobody and the peer fails
# (seen: srq_pp at 5 %, one run in four).
# read and atomic tests take -o 16: perftest gives the requester the
# responder's max_qp_rd_atom as max_rd_atomic, rxe's 128, which wqe's QP
# refuses above its own 16 (EINVAL at RTS).
# "alt" replaces the opcodes (and adds the arguments) on variants 1 and 3.
# BTH opcodes (IBTA table 38): RC 0-2 SEND first/middle/last, 4 SEND
# only, 6-8 RDMA WRITE first/middle/last, 10 WRITE only, 12 READ request,
# 13-16 READ response first/middle/last/only, 17 ACK, 18 ATOMIC ACK, 19
# CMP_SWAP, 20 FETCH_ADD; UC 32-34 SEND first/middle/last, 36 SEND only,
# 38-40 RDMA WRITE first/middle/last, 42 WRITE only; UD 100 SEND only.
configs() {
	cat <<'EOF'
rc_pp|ibv_rc_pingpong -g @G@ -m @MTU@ -c -n 50|0 1 2 17|4 17|||
uc_pp|ibv_uc_pingpong -g @G@ -m @MTU@ -c -n 50|32 33 34|36|||
ud_pp|ibv_ud_pingpong -g @G@ -s @MTU@ -c -n 50|100|100|||
srq_pp|ibv_srq_pingpong -g @G@ -m @MTU@ -c -n 50|0 1 2 17|4 17|||
write_bw_rc|ib_write_bw -F -x @G@ -m @MTU@ -c RC -s 16384 -n 50|6 7 8 17|6 7 8 17|0.005|-q 4|6 7 8 17
write_bw_uc|ib_write_bw -F -x @G@ -m @MTU@ -c UC -s 16384 -n 50|38 39 40|38 39 40|||
write_lat_rc|ib_write_lat -F -x @G@ -m @MTU@ -c RC -n 100|10|10|||
write_lat_uc|ib_write_lat -F -x @G@ -m @MTU@ -c UC -n 100|42|42|||
read_bw|ib_read_bw -F -x @G@ -m @MTU@ -o 16 -s 16384 -n 50|12 13 14 15|12 13 14 15|0.005|-q 4|12 13 14 15
read_lat|ib_read_lat -F -x @G@ -m @MTU@ -o 16 -n 100|12 16|12 16|0.02||
send_bw_rc|ib_send_bw -F -x @G@ -m @MTU@ -c RC -s 16384 -n 50|0 1 2 17|0 1 2 17|0.005|-q 4|0 1 2 17
send_bw_uc|ib_send_bw -F -x @G@ -m @MTU@ -c UC -s 4096 -n 100|32 33 34|36|||
send_bw_ud|ib_send_bw -F -x @G@ -m @MTU@ -c UD -s @MTU@ -n 100|100|100|||
send_lat_rc|ib_send_lat -F -x @G@ -m @MTU@ -c RC -n 100|4|4|||
send_lat_uc|ib_send_lat -F -x @G@ -m @MTU@ -c UC -n 100|36|36|||
send_lat_ud|ib_send_lat -F -x @G@ -m @MTU@ -c UD -n 100|100|100|||
atomic_bw|ib_atomic_bw -F -x @G@ -m @MTU@ -o 16 -n 100 -A FETCH_AND_ADD|20 18|20 18|0.02|-A CMP_AND_SWAP|19 18
atomic_lat|ib_atomic_lat -F -x @G@ -m @MTU@ -o 16 -n 100 -A FETCH_AND_ADD|20 18|20 18|0.02|-A CMP_AND_SWAP|19 18
EOF
}

# Four cases a line, a half fraction of direction x MTU x IP version in
# which every pair of the three comes once:
#   0 wqe serves, MTU 1024, IPv4     1 wqe serves, MTU 4096, IPv6
#   2 rxe serves, MTU 1024, IPv6     3 rxe serves, MTU 4096, IPv4
# The wqe side's WQE format is rxe's (`--format rxe`) on every other case
# (line k, variant v: k + v odd), so each variant has both formats; on the
# RC lines variant 2 + k mod 2 runs with loss (`--fault drop=RATE,seed=k+1`):
# one where rxe serves, so wqe is the requester of the perftest lines and
# must retransmit what the injector drops (loss of a responder's ACKs
# alone is covered by the next, cumulative one).
# Case lines: name|server (wqe|rxe)|ip (4|6)|mtu|format|fault|ops|args
# (args with @G@ left for each side), port 19000 + case number.
cases() {
	local k=0 v id args ops1 ops4 loss altargs altops srv ip mtu ops a fmt flt
	while IFS='|' read -r id args ops1 ops4 loss altargs altops; do
		for v in 0 1 2 3; do
			case $v in
			0) srv=wqe mtu=1024 ip=4 ;;
			1) srv=wqe mtu=4096 ip=6 ;;
			2) srv=rxe mtu=1024 ip=6 ;;
			3) srv=rxe mtu=4096 ip=4 ;;
			esac
			[ "$mtu" = 1024 ] && ops=$ops1 || ops=$ops4
			a=${args//@MTU@/$mtu}
			if [ $((v % 2)) = 1 ] && [ -n "$altops" ]; then
				ops=$altops
				a="$a $altargs"
			fi
			fmt=mlx5
			[ $(((k + v) % 2)) = 1 ] && fmt=rxe
			flt=
			[ -n "$loss" ] && [ "$v" = $((2 + k % 2)) ] && flt="drop=$loss,seed=$((k + 1))"
			echo "${id}_${srv}_m${mtu}_v${ip}|$srv|$ip|$mtu|$fmt|$flt|$ops|$a"
		done
		k=$((k + 1))
	done < <(configs)
}
ALL=$(cases | cut -d'|' -f1)
# shellcheck disable=SC2086 # one case a word
if [ "$#" -eq 0 ]; then set -- $ALL; fi
for c in "$@"; do
	grep -qx "$c" <<<"$ALL" || die "unknown case $c (cases: ${ALL//$'\n'/ })"
done
declare -A SEL=()
for c in "$@"; do SEL[$c]=1; done
# The selected cases, numbered for their TCP ports.
n=0
: >"$TMP/cases"
while IFS= read -r line; do
	n=$((n + 1))
	[ -n "${SEL[${line%%|*}]:-}" ] && echo "$((19000 + n))|$line" >>"$TMP/cases"
done < <(cases)

# --- the initramfs --------------------------------------------------------
ROOT=$TMP/root
guest_root "$ROOT"
guest_programs "$ROOT" "${PROGS[@]}"

# The guest's script: its halves of the selected cases, baked into the
# initramfs (no share or second disk to set up: the image is built per run).
# Each case prints its output framed by markers on the serial console.
# A client retries while its server does not listen yet: a refused TCP
# connection costs the server nothing (a probe would take its one accept).
{
	echo 'run() {'
	echo '	name=$1 role=$2; shift 2'
	echo '	echo "@@WQE-CASE-BEGIN $name"'
	echo '	i=0'
	echo '	while :; do'
	echo '		timeout 30 "$@" >/tmp/out 2>&1; rc=$?'
	echo '		[ "$role" = client ] || break'
	echo '		grep -qiE "couldn.t connect|unable to open file descriptor" /tmp/out || break'
	echo '		i=$((i + 1)); [ $i -lt 300 ] || break; sleep 0.2'
	echo '	done'
	echo '	sed "s/^/@@ /" /tmp/out'
	echo '	echo "@@WQE-CASE-END $name rc=$rc"'
	echo '}'
	while IFS='|' read -r port name server ip _mtu _fmt _flt _ops args; do
		a="${args//@G@/\$G$ip} -p $port"
		if [ "$server" = wqe ]; then
			echo "run $name client $a $HOST"
		else
			echo "run $name server $a"
		fi
	done <"$TMP/cases"
} >"$ROOT/cases.sh"

{
	echo '#!/bin/busybox sh'
	echo '/bin/busybox --install -s /bin'
	echo 'export PATH=/usr/bin:/bin'
	echo 'mount -t proc proc /proc'
	echo 'mount -t sysfs sys /sys'
	echo 'mount -t devtmpfs dev /dev'
	guest_init_modules
	cat <<EOF
ip link set lo up
ip link set eth0 mtu 9000
ip link set eth0 up
ip addr add $GUEST/24 dev eth0
# No duplicate address detection (busybox's ip has no nodad): the
# address is usable at once.
echo 0 >/proc/sys/net/ipv6/conf/eth0/accept_dad
ip -6 addr add $GUEST6/64 dev eth0
rdma link add rxe0 type rxe netdev eth0 || echo "@@WQE-GUEST-ERROR rdma link add"
# rxe0's GID index of an address: the RoCE v2 entry that holds it (rxe
# adds a RoCE v1 and a v2 entry an address, at indexes not fixed).
gid_of() {
	for n in \$(seq 0 15); do
		grep -q "\$1" /sys/class/infiniband/rxe0/ports/1/gids/\$n 2>/dev/null || continue
		[ "\$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/\$n 2>/dev/null)" = "RoCE v2" ] &&
			{ echo \$n; return; }
	done
}
# rxe0 is ready when both addresses have their GID.
i=0
while :; do
	G4=\$(gid_of 0000:0000:0000:0000:0000:ffff:c000:0202)
	G6=\$(gid_of 2001:0db8:0000:0000:0000:0000:0000:0002)
	[ -n "\$G4" ] && [ -n "\$G6" ] && break
	i=\$((i + 1)); [ \$i -lt 200 ] || { echo "@@WQE-GUEST-ERROR no GID (IPv4 '\$G4', IPv6 '\$G6')"; break; }
	sleep 0.1
done
# The host's neighbour entries before the first case: rxe resolves a
# peer's MAC at RTR and fails the modify when the neighbour is not
# resolved in time (seen once, on a loaded machine, the first IPv6 case).
ping -c 1 -W 5 $HOST >/dev/null 2>&1 || echo "@@WQE-GUEST-ERROR no reply from $HOST"
ping -6 -c 1 -W 5 $HOST6 >/dev/null 2>&1 || echo "@@WQE-GUEST-ERROR no reply from $HOST6"
echo "@@WQE-GUEST-READY \$(cut -d' ' -f1 /proc/uptime) G4=\$G4 G6=\$G6"
. /cases.sh
echo "@@WQE-GUEST-DONE \$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
echo o >/proc/sysrq-trigger
EOF
} >"$ROOT/init"
chmod +x "$ROOT/init"
guest_pack "$ROOT" "$TMP/initrd.gz"

# --- the network ----------------------------------------------------------
ip netns add "$NS"
nsx() { ip netns exec "$NS" "$@"; }
nsx ip link set lo up
nsx ip link add br0 type bridge
nsx ip tuntap add dev tap0 mode tap
nsx ip link set tap0 mtu 9000
nsx ip link set tap0 master br0
nsx ip link set br0 mtu 9000
nsx ip addr add "$HOST/24" dev br0
nsx ip -6 addr add "$HOST6/64" dev br0 nodad
nsx ip link set tap0 up
nsx ip link set br0 up
# Without this the capture holds the partial UDP sums the kernel leaves for
# an offload that never happens on a bridge.
nsx ethtool -K br0 tx off >/dev/null 2>&1 || true
nsx ethtool -K tap0 tx off >/dev/null 2>&1 || true

# --- the guest ------------------------------------------------------------
GUEST_NETNS=$NS
guest_boot "$TMP/initrd.gz" "$TMP/serial.log" \
	-netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
	-device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:02,host_mtu=9000
SERIAL=$GUEST_SERIAL

# One capture for the run, started while the guest boots; each case's
# frames are those from its start to the next case's (split_pcap.py).
# --immediate-mode: without it libpcap hands frames over in blocks, up to
# a second late, and the last case's could miss the file.
# ip netns exec directly (not nsx), so that $! is tcpdump itself; TERM,
# not INT: a background job of a script ignores SIGINT.
ip netns exec "$NS" tcpdump -i br0 --immediate-mode -U -n -s 0 -w "$TMP/all.pcap" udp port 4791 \
	2>"$TMP/tcpdump.err" &
CAP_PID=$!

guest_wait '@@WQE-GUEST-READY|@@WQE-GUEST-ERROR' 90 || {
	guest_show serial <"$SERIAL"
	die "the guest did not bring rxe0 up within 90 s"
}
grep -qa '@@WQE-GUEST-ERROR' "$SERIAL" && { grep -a '@@WQE-GUEST-ERROR' "$SERIAL" | guest_show guest; die "guest setup failed"; }
grep -q "listening on" "$TMP/tcpdump.err" || die "tcpdump does not capture: $(cat "$TMP/tcpdump.err")"
BOOT=$(elapsed "$T0")
echo "guest ready after ${BOOT} s ($(grep -ao '@@WQE-GUEST-READY .*' "$SERIAL" | tr -d '\r' | cut -d' ' -f2-))"

# --- the cases ------------------------------------------------------------
FAILS=0
PASSED=0
: >"$TMP/windows"
host_run() {
	# The host's side, within 30 s; a client retries while the guest's
	# server does not listen yet.
	local role=$1 out=$2 i rc
	shift 2
	for i in $(seq 300); do
		rc=0
		# A sanitized build's drop-in needs its runtime preloaded into
		# the unmodified program (WQE_TEST_PRELOAD, as exec_pair.sh).
		nsx timeout 30 env ${WQE_TEST_PRELOAD:+LD_PRELOAD=$WQE_TEST_PRELOAD} \
			${WQE_TEST_PRELOAD:+ASAN_OPTIONS=detect_leaks=0:abort_on_error=1} \
			"$WQE" exec "$@" >"$out" 2>&1 || rc=$?
		[ "$role" = client ] || return "$rc"
		grep -qiE "couldn.t connect|unable to open file descriptor" "$out" || return "$rc"
		sleep 0.2
	done
	return "$rc"
}
# case_fail NAME WHY: counted once a case, its outputs shown once.
declare -A BAD=()
case_fail() {
	echo "FAIL: $1: $2" >&2
	BAD[$1]=1
}
show_sides() {
	echo "     $1: wqe side:" >&2
	tail -8 "$TMP/$1.host" | guest_show wqe
	echo "     $1: rxe side:" >&2
	tail -8 "$TMP/$1.guest" | guest_show rxe
}
while IFS='|' read -r -u 3 port name server ip _mtu fmt flt _ops args; do
	t=$(date +%s.%N)
	echo "$name $t" >>"$TMP/windows"
	if [ "$ip" = 6 ]; then local_addr=$HOST6; else local_addr=$HOST; fi
	opts=(--local "$local_addr" --format "$fmt")
	# A loss run also captures on the wqe side, where the frames the
	# injector drops and the retransmissions are seen.
	[ -n "$flt" ] && opts+=(--fault "$flt" --pcap "$TMP/$name.wqe.pcap")
	a=${args//@G@/0}
	hrc=0
	# shellcheck disable=SC2086
	if [ "$server" = wqe ]; then
		host_run server "$TMP/$name.host" "${opts[@]}" -- $a -p "$port" || hrc=$?
	else
		host_run client "$TMP/$name.host" "${opts[@]}" -- $a -p "$port" "$GUEST" || hrc=$?
	fi
	guest_wait "@@WQE-CASE-END $name rc=" 40 || case_fail "$name" "the guest did not finish"
	grc=$(grep -ao "@@WQE-CASE-END $name rc=[0-9]*" "$SERIAL" | sed 's/.*rc=//')
	# The serial console ends lines with CR LF.
	tr -d '\r' <"$SERIAL" | sed -n "/^@@WQE-CASE-BEGIN $name\$/,/^@@WQE-CASE-END $name /p" |
		{ grep -a '^@@ ' || true; } | sed 's/^@@ //' >"$TMP/$name.guest"
	[ "$hrc" -eq 0 ] || case_fail "$name" "wqe side exit $hrc"
	[ "${grc:-x}" = 0 ] || case_fail "$name" "rxe side exit ${grc:-none}"
	case $name in
	*_pp_*)
		for f in host guest; do
			grep -qE "^[0-9]+ iters in [0-9.]+ seconds" "$TMP/$name.$f" ||
				case_fail "$name" "no pingpong report on the $f side"
		done
		;;
	*)
		grep -qE "^ *[0-9]+ +[0-9]+ +[0-9.]+" "$TMP/$name.guest" "$TMP/$name.host" ||
			case_fail "$name" "no perftest result line"
		;;
	esac
	echo "ran  $name ($(elapsed "$t") s)"
	[ -n "${BAD[$name]:-}" ] && show_sides "$name"
done 3<"$TMP/cases"
CASES_END=$(date +%s.%N)

guest_wait '@@WQE-GUEST-DONE' 60 || echo "note: the guest did not finish its script" >&2
# The last frames in flight are in the file before tcpdump goes
# (immediate mode and -U write each at once; the guest is done).
sleep 0.5
kill -TERM "$CAP_PID" 2>/dev/null || true
wait "$CAP_PID" 2>/dev/null || true
CAP_PID=
# The guest powers off by itself; if qemu stays, it is ended (cleanup).
for _ in $(seq 50); do kill -0 "$GUEST_PID" 2>/dev/null || break; sleep 0.2; done

# --- the captures, two checks at a time (qemu is gone: both cores) -------
mkdir -p "$TMP/cap"
"$PY" "$HERE/split_pcap.py" "$TMP/all.pcap" "$TMP/windows" "$TMP/cap" || die "cannot split the capture"
check_case() {
	local name=$1 ip=$2 ops=$3 flt=$4 pcap=$TMP/cap/$1.pcap src4 src6 w r
	{
		# shellcheck disable=SC2086
		if ! "$PY" "$HERE/../ibverbs/check_capture.py" "$pcap" $ops >"$TMP/$name.check" 2>&1; then
			echo "capture: $(tr -c '[:print:]\n' '?' <"$TMP/$name.check")"
		fi
		if ! "$PY" "$HERE/../wire/roce_scapy.py" "$pcap" >"$TMP/$name.scapy" 2>&1 ||
			! grep -qE "^[0-9]+ frames, [0-9]+ RoCEv2, 0 bad$" "$TMP/$name.scapy"; then
			echo "ICRC (scapy): $(tr -c '[:print:]\n' '?' <"$TMP/$name.scapy" | grep -v ': ok ' | tail -3)"
		fi
		if [ -n "$flt" ]; then
			# Loss on the wqe side must have made someone retransmit:
			# wqe (its own capture holds what the injector dropped) or
			# rxe (the bridge's).
			src4=$HOST src6=$GUEST
			[ "$ip" = 6 ] && src4=$HOST6 src6=$GUEST6
			# (exit 1 means none: the verdict is on both counts)
			w=$({ "$PY" "$HERE/retransmits.py" "$TMP/$name.wqe.pcap" "$src4" 2>&1 || true; } | tail -1)
			r=$({ "$PY" "$HERE/retransmits.py" "$pcap" "$src6" 2>&1 || true; } | tail -1)
			echo "$w" >"$TMP/$name.retrans"
			echo "$r" >>"$TMP/$name.retrans"
			case "$w$r" in
			0\ retransmitted*0\ retransmitted*) echo "loss $flt but no retransmission (wqe: $w; rxe: $r)" ;;
			esac
		fi
	} >"$TMP/$name.verdict"
}
while IFS='|' read -r _port name _server ip _mtu _fmt flt ops _args; do
	[ "$(jobs -rp | wc -l)" -lt 2 ] || wait -n || true
	check_case "$name" "$ip" "$ops" "$flt" &
done <"$TMP/cases"
wait

while IFS='|' read -r _port name _server _ip mtu fmt flt _ops _args; do
	while IFS= read -r why; do case_fail "$name" "$why"; done <"$TMP/$name.verdict"
	if [ -z "${BAD[$name]:-}" ]; then
		extra=
		[ -n "$flt" ] && extra="; $flt: wqe $(head -1 "$TMP/$name.retrans" 2>&1), rxe $(tail -1 "$TMP/$name.retrans" 2>&1)"
		echo "ok   $name (MTU $mtu, $fmt; $(tail -1 "$TMP/$name.scapy")$extra)"
		PASSED=$((PASSED + 1))
	else
		FAILS=$((FAILS + 1))
		if [ -n "${WQE_INTEROP_KEEP:-}" ]; then cp "$TMP/cap/$name.pcap" "${WQE_INTEROP_KEEP}/" 2>/dev/null || true; fi
	fi
done <"$TMP/cases"
echo "$PASSED passed, $FAILS failed; boot ${BOOT} s, cases $(elapsed "$T0" | awk -v b="$BOOT" -v e="$(elapsed "$CASES_END")" '{printf "%.1f", $1 - e - b}') s, total $(elapsed "$T0") s"
[ "$FAILS" -eq 0 ]
