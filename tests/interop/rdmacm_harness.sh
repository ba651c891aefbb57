#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wqe's librdmacm against the Linux kernel's rdma_cm (ib_cm, rdma_cm and
# rdma_ucm over rdma_rxe) in a qemu guest:
#   rdmacm_harness.sh [--guest-only] WQE [CASE...]
# Boots Debian's stock kernel once (TCG) from an initramfs built here
# (tests/interop/guest.sh) with the connection manager's modules, Debian's
# librdmacm and the rdmacm-utils and perftest programs, in the network of
# rxe_harness.sh: a namespace with a bridge and a tap, the guest 192.0.2.2
# and 2001:db8::2 with rxe0 on eth0, the host side `WQE exec --local
# 192.0.2.1` or `--local 2001:db8::1`. Each CASE (all when none is given:
# the matrix in cases()) runs one unmodified rdma_cm program, its server
# on one side and its client on the other, in both directions; one
# capture of the guest's tap is cut per case, every CM MAD in it checked
# with tshark (tests/interop/cm_capture_check.py) and every ICRC with
# scapy (tests/wire/roce_scapy.py).
#
# --guest-only runs both halves of each program in the guest, to prove the
# guest's side and the checker without wqe: the server on rxe0, the client
# on rxe1 (a second NIC on the same bridge, 192.0.2.3), routed so that the
# guest's traffic to its own other address leaves by the wire (IPv4); the
# IPv6 cases run the client on rxe0 too, through rxe's loopback, as the
# kernel's rdma_cm rejects an IPv6 REQ from the guest's own other address
# (see docs/interop.md). WQE is then not run.
#
# Root is needed (netns, tap); a missing package fails the test, never
# skips it. WQE_RDMACM_SIDR=0 leaves the SIDR cases (udaddy) out of the
# default set. See docs/interop.md.
set -euo pipefail

GUEST_ONLY=
if [ "${1:-}" = --guest-only ]; then
	GUEST_ONLY=1
	shift
fi
WQE=$(readlink -f "${1:?usage: $0 [--guest-only] path/to/wqe [CASE...]}")
shift
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${WQE_PYTHON:-/usr/bin/python3}
HOST=192.0.2.1
GUEST=192.0.2.2
PEER=192.0.2.3
HOST6=2001:db8::1
GUEST6=2001:db8::2
PEER6=2001:db8::3
CTL=18999
NS=wqecm$$
TMP=$(mktemp -d /tmp/wqe-rdmacm.XXXXXX)
CAP_PID=
T0=$(date +%s.%N)

die() {
	echo "FAIL: $*" >&2
	exit 1
}
. "$HERE/guest.sh"

# Everything the run made goes on every exit path: the host's programs,
# qemu, the capture, the namespace (its bridge and taps with it), the
# temp dir.
HPID=
cleanup() {
	local rc=$?
	set +e
	[ -n "$HPID" ] && kill "$HPID" 2>/dev/null
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
[ -n "$GUEST_ONLY" ] || [ -x "$WQE" ] ||
	die "$WQE is not an executable (the wqe binary of a build: build/wqe)"
guest_host_check
guest_need ip iproute2
guest_need ethtool ethtool
guest_need tcpdump tcpdump
guest_need nft nftables
guest_need tshark tshark
guest_need ldconfig libc-bin
"$PY" -c 'import scapy.all' 2>/dev/null || die "$PY has no scapy (Debian package python3-scapy)"
PROGS=(rping ucmatose rdma_server rdma_client udaddy)
for p in "${PROGS[@]}"; do guest_need "$p" rdmacm-utils; done
for p in ib_write_bw ib_send_bw; do
	guest_need "$p" perftest
	PROGS+=("$p")
done
# The guest's rdma_cm library is Debian's (ldd finds it for the programs);
# its device is /dev/infiniband/rdma_cm (rdma_ucm, devtmpfs).
for m in configfs ib_cm iw_cm rdma_cm rdma_ucm; do
	modinfo -k "$KVER" -F filename "$m" >/dev/null 2>&1 || die "no module $m for $KVER"
done
# glibc loads libgcc_s when a thread exits (rping ends its threads with
# pthread_exit): no program lists it, and without it they abort.
LIBGCC=$(ldconfig -p | awk '$1 == "libgcc_s.so.1" && /x86-64/ && !f {print $NF; f = 1}')
[ -r "${LIBGCC:-/nonexistent}" ] || die "no libgcc_s.so.1 (Debian package libgcc-s1)"

# --- the matrix -----------------------------------------------------------
# One line a program:
#   id|kind|IP versions|port|server|client
# kind: rc (a connection: REQ, REP, RTU on the wire) or sidr (SIDR_REQ,
# SIDR_REP: leave out with WQE_RDMACM_SIDR=0). @A@ is the server's address
# (the server binds it, the client connects to it), @P@ the case's port,
# 19000 + its number unless the line fixes one.
# perftest 4.5's rdma_cm client resolves its server as IPv4 only ("Address
# family for hostname not supported", with or without --ipv6): IPv4 cases
# only. udaddy has no port option (its -p is the port space): it always
# uses 7174, which is free again when the previous case's server is gone.
programs() {
	cat <<'EOF'
rping|rc|4 6||rping -s -a @A@ -v -C 100 -p @P@|rping -c -a @A@ -v -C 100 -p @P@
ucmatose|rc|4 6||ucmatose -b @A@ -p @P@|ucmatose -s @A@ -p @P@
rdma_cs|rc|4 6||rdma_server -s @A@ -p @P@|rdma_client -s @A@ -p @P@
write_bw|rc|4||ib_write_bw -R -F -n 50 -p @P@|ib_write_bw -R -F -n 50 -p @P@ @A@
send_bw|rc|4||ib_send_bw -R -F -n 50 -p @P@|ib_send_bw -R -F -n 50 -p @P@ @A@
udaddy|sidr|4 6|7174|udaddy -b @A@|udaddy -s @A@
EOF
}

# Case lines: name|program|kind|who serves (rxe: the guest, wqe: the host;
# self: both halves in the guest)|ip|port|server command|client command.
cases() {
	local id kind ips port srv cli ip who n=0 a p s c
	while IFS='|' read -r id kind ips port srv cli; do
		for ip in $ips; do
			if [ -n "$GUEST_ONLY" ]; then set -- self; else set -- rxe wqe; fi
			for who in "$@"; do
				n=$((n + 1))
				case $who$ip in
				wqe4) a=$HOST ;;
				wqe6) a=$HOST6 ;;
				*4) a=$GUEST ;;
				*6) a=$GUEST6 ;;
				esac
				p=${port:-$((19000 + n))}
				s=${srv//@A@/$a} c=${cli//@A@/$a}
				echo "${id}_${who}_v$ip|$id|$kind|$who|$ip|$p|${s//@P@/$p}|${c//@P@/$p}"
			done
		done
	done < <(programs)
}
ALL=$(cases | cut -d'|' -f1)
if [ "$#" -eq 0 ]; then
	# shellcheck disable=SC2046 # one case a word
	set -- $(cases | awk -F'|' -v sidr="${WQE_RDMACM_SIDR:-1}" 'sidr != "0" || $3 != "sidr" {print $1}')
fi
for c in "$@"; do
	grep -qx "$c" <<<"$ALL" || die "unknown case $c (cases: ${ALL//$'\n'/ })"
done
declare -A SEL=()
for c in "$@"; do SEL[$c]=1; done
: >"$TMP/cases"
while IFS= read -r line; do
	[ -n "${SEL[${line%%|*}]:-}" ] && echo "$line" >>"$TMP/cases"
done < <(cases)

# --- the initramfs --------------------------------------------------------
ROOT=$TMP/root
# The connection manager's modules after their dependencies (modinfo -F
# depends: rdma_cm needs ib_cm, iw_cm and configfs; rdma_ucm rdma_cm and
# ib_uverbs).
guest_root "$ROOT" configfs ib_cm iw_cm rdma_cm rdma_ucm
guest_programs "$ROOT" "${PROGS[@]}"
guest_add "$ROOT" "$LIBGCC"

# The guest's script: its halves of the selected cases. Each case starts
# when the host says so on TCP port $CTL (busybox nc, one message a
# connection), so that the host knows when its frames begin; the guest
# prints each program's output framed by markers on the serial console.
{
	cat <<EOF
ctl() { timeout "\$1" nc -l -p $CTL </dev/null 2>/dev/null; }
EOF
	cat <<'EOF'
# srv_start CMD...: the server in the background; /tmp/s.rc appears when
# it ends (a finished child stays a zombie here, which kill -0 cannot tell).
srv_start() {
	rm -f /tmp/s.rc /tmp/s.pid
	( timeout 60 "$@" >/tmp/s 2>&1 & echo $! >/tmp/s.pid; wait $!; echo $? >/tmp/s.rc ) &
}
# wait_listen PORT: until rdma_cm lists the server's ID listening on PORT
# (1 if the server ended or 20 s went by first).
wait_listen() {
	i=0
	while [ $i -lt 200 ]; do
		[ -e /tmp/s.rc ] && return 1
		rdma res show cm_id 2>/dev/null | grep -qE "state LISTEN .*src-addr [^ ]*:$1( |\$)" && return 0
		i=$((i + 1)); sleep 0.1
	done
	return 1
}
# srv_end SECONDS: the server's exit status, waiting that long for it to
# end by itself; then it is ended (status 143: timeout's TERM).
srv_end() {
	i=0
	while [ ! -e /tmp/s.rc ] && [ $i -lt $(($1 * 10)) ]; do i=$((i + 1)); sleep 0.1; done
	[ -e /tmp/s.rc ] || kill "$(cat /tmp/s.pid)" 2>/dev/null
	i=0
	while [ ! -e /tmp/s.rc ] && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
	cat /tmp/s.rc 2>/dev/null || echo none
}
show() { sed "s/^/@@$2 /" "$1"; }
# A client retries while its server does not listen yet: rdma_cm's REJ
# "invalid service ID" (8) or SIDR_REP "not supported" (1).
RETRY='REJECTED, error:? 8$|CM event bl blka 8$|rdma_connect: Connection refused|UNREACHABLE, error: 1$'
# self NAME PORT SERVER CLIENT: both halves here.
self() {
	echo "@@WQE-CASE-BEGIN $1"
	ctl 90 >/dev/null
	srv_start $3
	: >/tmp/c
	crc=-
	if wait_listen "$2"; then
		timeout 30 $4 >/tmp/c 2>&1
		crc=$?
	fi
	src=$(srv_end 10)
	show /tmp/s S; show /tmp/c C
	echo "@@WQE-CASE-END $1 srv=$src cli=$crc"
}
# rxe NAME PORT SERVER: the guest serves; the host's client runs once the
# guest says LISTEN, and the host says "done RC" when it has ended.
rxe() {
	echo "@@WQE-CASE-BEGIN $1"
	ctl 90 >/dev/null
	srv_start $3
	grace=0
	if wait_listen "$2"; then
		echo "@@WQE-CASE-LISTEN $1"
		msg=$(ctl 90)
		# A server whose client failed waits for nobody: no grace.
		[ "$msg" = "done 0" ] && grace=15
	fi
	src=$(srv_end $grace)
	show /tmp/s S
	echo "@@WQE-CASE-END $1 srv=$src cli=-"
}
# wqe NAME PORT CLIENT: the host serves; it says "go" once its server
# runs ("skip": it ended already).
wqe() {
	echo "@@WQE-CASE-BEGIN $1"
	msg=$(ctl 90)
	: >/tmp/c
	crc=-
	i=0
	while [ "$msg" = go ]; do
		timeout 30 $3 >/tmp/c 2>&1
		crc=$?
		[ $crc = 0 ] && break
		grep -qE "$RETRY" /tmp/c || break
		i=$((i + 1)); [ $i -lt 20 ] || break; sleep 0.5
	done
	show /tmp/c C
	echo "@@WQE-CASE-END $1 srv=- cli=$crc"
}
EOF
	while IFS='|' read -r name _id _kind who _ip port srv cli; do
		case $who in
		self) echo "self $name $port '$srv' '$cli'" ;;
		rxe) echo "rxe $name $port '$srv'" ;;
		wqe) echo "wqe $name $port '$cli'" ;;
		esac
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
[ -c /dev/infiniband/rdma_cm ] || echo "@@WQE-GUEST-ERROR no /dev/infiniband/rdma_cm"
ip link set lo up
ip link set eth0 mtu 9000
# No duplicate address detection (busybox's ip has no nodad): the
# address is usable at once.
echo 0 >/proc/sys/net/ipv6/conf/eth0/accept_dad
ip link set eth0 up
ip addr add $GUEST/24 dev eth0
ip -6 addr add $GUEST6/64 dev eth0
rdma link add rxe0 type rxe netdev eth0 || echo "@@WQE-GUEST-ERROR rdma link add rxe0"
EOF
	if [ -n "$GUEST_ONLY" ]; then
		cat <<EOF
# --guest-only: eth1 on the same bridge, $PEER/32 and rxe1, the client's.
# A packet to a local address never leaves a Linux host: the local table
# is looked up first. Here it goes after two rules for what this host
# sends (iif lo): to $GUEST out of eth1 from $PEER, to $PEER out of eth0
# from $GUEST; so rxe1's client reaches rxe0's server by the wire and the
# answers come back the same way. eth0 takes packets from an address of
# its own host (accept_local; no reverse-path filter), and each NIC
# answers ARP for its own address only (arp_ignore).
ip link set eth1 mtu 9000
echo 0 >/proc/sys/net/ipv6/conf/eth1/accept_dad
ip link set eth1 up
ip addr add $PEER/32 dev eth1
for i in all eth0 eth1; do
	echo 1 >/proc/sys/net/ipv4/conf/\$i/accept_local
	echo 0 >/proc/sys/net/ipv4/conf/\$i/rp_filter
	echo 1 >/proc/sys/net/ipv4/conf/\$i/arp_ignore
done
ip route add $GUEST dev eth1 src $PEER table 13
ip route add $PEER dev eth0 src $GUEST table 12
ip rule add pref 10 iif lo to $GUEST lookup 13
ip rule add pref 11 iif lo to $PEER lookup 12
ip rule add pref 100 lookup local
ip rule del pref 0
rdma link add rxe1 type rxe netdev eth1 || echo "@@WQE-GUEST-ERROR rdma link add rxe1"
EOF
	fi
	cat <<EOF
# rxe0 is ready when both addresses have a RoCE v2 GID.
gid_ready() {
	for n in \$(seq 0 15); do
		grep -q "\$1" /sys/class/infiniband/rxe0/ports/1/gids/\$n 2>/dev/null &&
			[ "\$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/\$n 2>/dev/null)" = "RoCE v2" ] &&
			return 0
	done
	return 1
}
i=0
until gid_ready 0000:0000:0000:0000:0000:ffff:c000:0202 && gid_ready 2001:0db8:0000:0000:0000:0000:0000:0002; do
	i=\$((i + 1)); [ \$i -lt 200 ] || { echo "@@WQE-GUEST-ERROR no RoCE v2 GID on rxe0"; break; }
	sleep 0.1
done
# The neighbour entries before the first case (rxe resolves a peer's MAC
# at RTR, rdma_cm at address resolution).
ping -c 1 -W 5 $HOST >/dev/null 2>&1 || echo "@@WQE-GUEST-ERROR no reply from $HOST"
ping -6 -c 1 -W 5 $HOST6 >/dev/null 2>&1 || echo "@@WQE-GUEST-ERROR no reply from $HOST6"
echo "@@WQE-GUEST-READY \$(cut -d' ' -f1 /proc/uptime)"
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
TAPS=(tap0)
[ -n "$GUEST_ONLY" ] && TAPS+=(tap1)
for t in "${TAPS[@]}"; do
	nsx ip tuntap add dev "$t" mode tap
	nsx ip link set "$t" mtu 9000
	nsx ip link set "$t" master br0
	nsx ip link set "$t" up
	nsx ethtool -K "$t" tx off >/dev/null 2>&1 || true
done
nsx ip link set br0 mtu 9000
nsx ip addr add "$HOST/24" dev br0
nsx ip -6 addr add "$HOST6/64" dev br0 nodad
nsx ip link set br0 up
# Without this the capture holds the partial UDP sums the kernel leaves for
# an offload that never happens on a bridge.
nsx ethtool -K br0 tx off >/dev/null 2>&1 || true

# --- the guest ------------------------------------------------------------
# shellcheck disable=SC2054 # qemu's options have commas
NET=(-netdev tap,id=n0,ifname=tap0,script=no,downscript=no
	-device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:02,host_mtu=9000)
# shellcheck disable=SC2054
[ -n "$GUEST_ONLY" ] && NET+=(-netdev tap,id=n1,ifname=tap1,script=no,downscript=no
	-device virtio-net-pci,netdev=n1,mac=52:54:00:00:02:03,host_mtu=9000)
export GUEST_NETNS=$NS
guest_boot "$TMP/initrd.gz" "$TMP/serial.log" "${NET[@]}"
SERIAL=$GUEST_SERIAL

# One capture for the run, on tap0: every frame to or from the guest's
# eth0 passes there, those between the guest's two NICs (--guest-only)
# too, which the bridge forwards between its ports without br0 seeing
# them. Cut per case afterwards (split_pcap.py, cm_capture_check.py).
ip netns exec "$NS" tcpdump -i tap0 --immediate-mode -U -n -s 0 -w "$TMP/all.pcap" udp port 4791 \
	2>"$TMP/tcpdump.err" &
CAP_PID=$!

guest_wait '@@WQE-GUEST-READY|@@WQE-GUEST-ERROR' 90 || {
	guest_show serial <"$SERIAL"
	die "the guest did not bring rxe0 up within 90 s"
}
grep -qa '@@WQE-GUEST-ERROR' "$SERIAL" && {
	grep -a '@@WQE-GUEST-ERROR' "$SERIAL" | guest_show guest
	die "guest setup failed"
}
grep -q "listening on" "$TMP/tcpdump.err" || die "tcpdump does not capture: $(tr -c '[:print:]\n' '?' <"$TMP/tcpdump.err")"
BOOT=$(elapsed "$T0")
echo "guest ready after ${BOOT} s (guest uptime $(grep -ao '@@WQE-GUEST-READY .*' "$SERIAL" | tr -d '\r' | cut -d' ' -f2))"

# --- the cases ------------------------------------------------------------
# ctl_send MESSAGE: to the guest's ctl (retried while it does not listen).
ctl_send() {
	for _ in $(seq 200); do
		nsx bash -c "exec 3<>/dev/tcp/$GUEST/$CTL && echo '$1' >&3" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# wqe_cmd SECONDS ADDRESS PROGRAM...: the host's side as WQE_CMD, run
# directly by the caller (so that $! of a background one is timeout's).
wqe_cmd() {
	# A sanitized build's drop-in needs its runtime preloaded into the
	# unmodified program (WQE_TEST_PRELOAD, as rxe_harness.sh).
	WQE_CMD=(ip netns exec "$NS" timeout "$1" env
		${WQE_TEST_PRELOAD:+LD_PRELOAD=$WQE_TEST_PRELOAD}
		${WQE_TEST_PRELOAD:+ASAN_OPTIONS=detect_leaks=0:abort_on_error=1}
		"$WQE" exec --local "$2" -- "${@:3}")
}
# rej8_drop on | off NAME: drop, or stop dropping, the guest's REJs
# "invalid service ID" (8) at tap0's ingress (nftables, a netdev table of
# the namespace), and say how many went. Debian's perftest 4.5-0.17 with
# -R listens for its test connection only after the handshake on its
# first one; a client faster than its server (wqe's, against the TCG
# guest's, is always) sends the test's REQ before that listen and gets
# rdma_cm's REJ 8, as a kernel client would, and perftest's retry after a
# REJ then uses the CM nodes it has just freed (tests/cm/perftest_retry.sh)
# and crashes. With the REJ lost, wqe's CM sends the REQ again after its
# response timeout (docs/rdma-cm.md), which finds the server listening:
# the same exchange as a REJ lost on the wire. Only for the perftest cases
# the guest serves (IPv4 only, as they are), only REJ 8, so no other
# refusal is hidden; the capture on tap0 still holds the REJ (the
# capture taps come before ingress). The rule: rej8_drop.nft.
rej8_drop() {
	if [ "$1" = on ]; then
		nsx nft -f "$HERE/rej8_drop.nft" || die "nft cannot add the REJ 8 drop on tap0"
		return
	fi
	local n
	n=$(nsx nft list counter netdev wqe_rej8 dropped | awk '$1 == "packets" {print $2}')
	nsx nft delete table netdev wqe_rej8 || die "nft cannot remove the REJ 8 drop"
	[ "${n:-0}" = 0 ] ||
		echo "note: $2: $n REJ 8 of the guest's (its server did not listen yet) dropped at tap0; wqe's CM sent its REQ again"
}
declare -A BAD=()
case_fail() {
	echo "FAIL: $1: $2" >&2
	BAD[$1]=1
}
# guest_part NAME S|C: that program's output in the guest (the serial
# console ends lines with CR LF).
guest_part() {
	tr -d '\r' <"$SERIAL" | sed -n "/^@@WQE-CASE-BEGIN $1\$/,/^@@WQE-CASE-END $1 /p" |
		{ grep -a "^@@$2 " || true; } | sed "s/^@@$2 //"
}
# ran_ok PROGRAM ROLE FILE: the program's usual success in its output.
ran_ok() {
	local f=$3
	case $1:$2 in
	rping:server) [ "$(grep -c '^server ping data: rdma-ping-' "$f")" = 100 ] ;;
	rping:client) [ "$(grep -c '^ping data: rdma-ping-' "$f")" = 100 ] ;;
	ucmatose:* | udaddy:*) grep -qx 'test complete' "$f" && grep -qx 'return status 0' "$f" ;;
	rdma_cs:server) grep -qx 'rdma_server: end 0' "$f" ;;
	rdma_cs:client) grep -qx 'rdma_client: end 0' "$f" ;;
	*_bw:*) grep -qE '^ *#bytes +#iterations +BW peak' "$f" && grep -qE '^ *65536 +50 +[0-9.]+ +[0-9.]+' "$f" ;;
	*) return 1 ;;
	esac
}
show_out() {
	[ -s "$2" ] || { echo "     $1: (nothing)" >&2; return; }
	echo "     $1:" >&2
	tail -6 "$2" | guest_show "$1"
}

: >"$TMP/windows"
: >"$TMP/expect"
while IFS='|' read -r -u 3 name prog kind who ip _port srv cli; do
	t=$(date +%s.%N)
	echo "$name $t" >>"$TMP/windows"
	exp=$kind
	[ "$who$ip" = self6 ] && exp=none
	echo "$name $exp" >>"$TMP/expect"
	if [ "$ip" = 6 ]; then local_addr=$HOST6; else local_addr=$HOST; fi
	hs=- hc=-
	: >"$TMP/$name.host"
	case $who in
	self)
		ctl_send go || case_fail "$name" "the guest does not take the start"
		guest_wait "@@WQE-CASE-END $name " 120 || case_fail "$name" "the guest did not finish"
		;;
	rxe)
		ctl_send go || case_fail "$name" "the guest does not take the start"
		guest_wait "@@WQE-CASE-(LISTEN|END) ${name}[[:space:]]" 40 || true
		if grep -qaE "@@WQE-CASE-LISTEN ${name}[[:space:]]" "$SERIAL"; then
			case $prog in *_bw) rej8_drop on ;; esac
			hc=0
			# shellcheck disable=SC2086 # the command's words
			wqe_cmd 30 "$local_addr" $cli
			"${WQE_CMD[@]}" >"$TMP/$name.host" 2>&1 || hc=$?
			case $prog in *_bw) rej8_drop off "$name" ;; esac
			ctl_send "done $hc" || case_fail "$name" "the guest does not take the end"
		else
			case_fail "$name" "the guest's server does not listen"
		fi
		guest_wait "@@WQE-CASE-END $name " 40 || case_fail "$name" "the guest did not finish"
		;;
	wqe)
		# shellcheck disable=SC2086
		wqe_cmd 60 "$local_addr" $srv
		"${WQE_CMD[@]}" >"$TMP/$name.host" 2>&1 &
		HPID=$!
		# No way to see wqe's listen from outside: a second to start,
		# then the guest's client retries while it is refused.
		sleep 1
		if kill -0 "$HPID" 2>/dev/null; then msg=go; else msg=skip; fi
		ctl_send "$msg" || case_fail "$name" "the guest does not take the start"
		guest_wait "@@WQE-CASE-END $name " 60 || case_fail "$name" "the guest did not finish"
		for _ in $(seq 150); do kill -0 "$HPID" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$HPID" 2>/dev/null; then
			kill "$HPID" 2>/dev/null
			case_fail "$name" "the wqe server did not end within 15 s of its client"
		fi
		hs=0
		wait "$HPID" || hs=$?
		HPID=
		;;
	esac
	end=$(tr -d '\r' <"$SERIAL" | grep -ao "^@@WQE-CASE-END $name .*" || true)
	gs=$(sed -n 's/.* srv=\([^ ]*\).*/\1/p' <<<"$end")
	gc=$(sed -n 's/.* cli=\([^ ]*\).*/\1/p' <<<"$end")
	guest_part "$name" S >"$TMP/$name.gsrv"
	guest_part "$name" C >"$TMP/$name.gcli"
	# Each side that ran: exit 0 and its usual report.
	for side in "rxe server|$gs|$TMP/$name.gsrv" "rxe client|$gc|$TMP/$name.gcli" \
		"wqe server|$hs|$TMP/$name.host" "wqe client|$hc|$TMP/$name.host"; do
		IFS='|' read -r label rc f <<<"$side"
		[ "$rc" = - ] && continue
		role=${label#* }
		if [ "$rc" = 143 ]; then
			case_fail "$name" "$label did not end by itself (ended after its peer, exit 143)"
		elif [ "$rc" = 124 ]; then
			case_fail "$name" "$label timed out (exit 124)"
		elif [ "$rc" != 0 ]; then
			case_fail "$name" "$label exit ${rc:-none}"
		elif ! ran_ok "$prog" "$role" "$f"; then
			case_fail "$name" "$label: no $prog $role report"
		fi
	done
	echo "ran  $name ($(elapsed "$t") s)"
	if [ -n "${BAD[$name]:-}" ]; then
		case $who in
		self) show_out "rxe0 server" "$TMP/$name.gsrv"; show_out "rxe1 client" "$TMP/$name.gcli" ;;
		rxe) show_out "rxe server" "$TMP/$name.gsrv"; show_out "wqe client" "$TMP/$name.host" ;;
		wqe) show_out "wqe server" "$TMP/$name.host"; show_out "rxe client" "$TMP/$name.gcli" ;;
		esac
	fi
done 3<"$TMP/cases"
CASES_END=$(date +%s.%N)

guest_wait '@@WQE-GUEST-DONE' 60 || echo "note: the guest did not finish its script" >&2
# The last frames are in the file before tcpdump goes (immediate mode and
# -U write each at once; the guest is done).
sleep 0.5
kill -TERM "$CAP_PID" 2>/dev/null || true
wait "$CAP_PID" 2>/dev/null || true
CAP_PID=
for _ in $(seq 50); do kill -0 "$GUEST_PID" 2>/dev/null || break; sleep 0.2; done

# --- the capture ----------------------------------------------------------
# One tshark pass over the whole capture for all cases (a pass a case
# would cost a second of tshark start-up each); the per-case files are
# for a kept run (WQE_INTEROP_KEEP).
mkdir -p "$TMP/cap"
"$PY" "$HERE/split_pcap.py" "$TMP/all.pcap" "$TMP/windows" "$TMP/cap" || die "cannot split the capture"
"$PY" "$HERE/cm_capture_check.py" --zero-csum-from "$GUEST6" --zero-csum-from "$PEER6" \
	"$TMP/all.pcap" "$TMP/windows" "$TMP/expect" >"$TMP/check.out" 2>&1 || true
# Its output is already escaped; shown whole (a few lines a case).
sed 's/^/  capture: /' "$TMP/check.out"
grep -q '^ok  \|^FAIL' "$TMP/check.out" || die "the capture checker failed: $(tail -3 "$TMP/check.out")"
while read -r why; do
	n=${why#FAIL }
	n=${n%%:*}
	if grep -qx "$n" <(cut -d'|' -f1 "$TMP/cases"); then BAD[$n]=1; else FAILALL=1; fi
done < <(grep '^FAIL' "$TMP/check.out")

# Every ICRC, by scapy and the spec's computation (tests/wire/roce_scapy.py),
# a case's capture at a time, two at a time (qemu is gone: both cores).
scapy_case() {
	local name=$1 out=$TMP/$1.scapy
	if ! "$PY" "$HERE/../wire/roce_scapy.py" "$TMP/cap/$name.pcap" >"$out" 2>&1 ||
		! grep -qE '^[0-9]+ frames, [0-9]+ RoCEv2, 0 bad$' "$out"; then
		echo "ICRC (scapy): $(grep -v ': ok ' "$out" | tail -3 | tr -c '[:print:]\n' '?' | tr '\n' ' ')" >"$TMP/$name.verdict"
	fi
}
while IFS='|' read -r name _rest; do
	: >"$TMP/$name.verdict"
	# (a case with no frame is the capture checker's to judge)
	[ "$(stat -c %s "$TMP/cap/$name.pcap")" -gt 24 ] || continue
	[ "$(jobs -rp | wc -l)" -lt 2 ] || wait -n || true
	scapy_case "$name" &
done <"$TMP/cases"
wait
while IFS='|' read -r name _rest; do
	while IFS= read -r why; do case_fail "$name" "$why"; done <"$TMP/$name.verdict"
done <"$TMP/cases"

FAILS=0
PASSED=0
while IFS='|' read -r name _rest; do
	if [ -z "${BAD[$name]:-}" ]; then
		echo "ok   $name ($(tail -1 "$TMP/$name.scapy" 2>/dev/null || echo "no frame"))"
		PASSED=$((PASSED + 1))
	else
		echo "FAIL $name"
		FAILS=$((FAILS + 1))
		if [ -n "${WQE_INTEROP_KEEP:-}" ]; then cp "$TMP/cap/$name.pcap" "${WQE_INTEROP_KEEP}/" 2>/dev/null || true; fi
	fi
done <"$TMP/cases"
[ -z "${FAILALL:-}" ] || { echo "FAIL: the capture as a whole (above)"; FAILS=$((FAILS + 1)); }
echo "$PASSED passed, $FAILS failed; boot ${BOOT} s, cases $(elapsed "$T0" | awk -v b="$BOOT" -v e="$(elapsed "$CASES_END")" '{printf "%.1f", $1 - e - b}') s, total $(elapsed "$T0") s"
[ "$FAILS" -eq 0 ]
