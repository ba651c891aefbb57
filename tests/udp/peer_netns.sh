# SPDX-License-Identifier: MIT
# wqe peer between two network namespaces joined by a veth pair: the
# server in one, the client in the other, WRITE, READ and SEND, over IPv4
# and then IPv6 addresses of the same veth. dumpcap records the real wire
# in the client's namespace; then
#   - wqe dissect checks the ICRC of every RoCEv2 frame: the IP and UDP
#     headers there are the kernel's, so the UDP link's recomputed ICRC
#     must verify over them;
#   - Wireshark's RoCE dissector (tshark) must find the same number of
#     InfiniBand packets, with the opcodes each operation makes;
#   - every datagram leaves from UDP port 4791, and over IPv4 with
#     identification 0 and DF set (what the link's ICRC assumes).
# Needs root (CAP_NET_ADMIN) for the namespaces: without it the test fails
# when CI=true, and otherwise reports that it could not run (exit 77).
. "$(dirname "$0")/../cli/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "udp_peer_netns: needs root (ip netns, veth) and cannot run as uid $(id -u)"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
for tool in ip dumpcap tshark timeout; do
	command -v "$tool" >/dev/null || { echo "udp_peer_netns: $tool is not installed"; exit 1; }
done

# Names unique per run (the suite runs tests in parallel).
tag=$$$RANDOM
tag=${tag:0:9}
NSA=wqe${tag}a
NSB=wqe${tag}b
VA=wq${tag}a
VB=wq${tag}b
BG=()
cleanup() {
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null; done
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP # a killed test cleans up too

if ! ip netns add "$NSA" || ! ip netns add "$NSB" ||
	! ip link add "$VA" type veth peer name "$VB" ||
	! ip link set "$VA" netns "$NSA" || ! ip link set "$VB" netns "$NSB"; then
	echo "udp_peer_netns: cannot make network namespaces and a veth pair here"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
ip -n "$NSA" link set lo up
ip -n "$NSB" link set lo up
# 9000 bytes: room for PMTU 4096 packets
ip -n "$NSA" link set "$VA" mtu 9000 up
ip -n "$NSB" link set "$VB" mtu 9000 up
ip -n "$NSA" addr add 10.79.0.1/24 dev "$VA"
ip -n "$NSB" addr add 10.79.0.2/24 dev "$VB"
ip -n "$NSA" -6 addr add fd79::1/64 dev "$VA" nodad
ip -n "$NSB" -6 addr add fd79::2/64 dev "$VB" nodad

# start_capture FILE: dumpcap on the client's end of the veth, ready.
start_capture() {
	ip netns exec "$NSA" timeout 120 dumpcap -q -P -i "$VA" -w "$1" 2>"$TMP/dumpcap.err" &
	DUMPCAP=$!
	BG+=("$DUMPCAP")
	for _ in $(seq 100); do
		grep -q "Capturing on" "$TMP/dumpcap.err" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "dumpcap did not start: $(cat "$TMP/dumpcap.err")"
}

stop_capture() {
	kill -INT "$DUMPCAP"
	wait "$DUMPCAP"
}

# run_pair SERVER_ADDR CLIENT_ADDR OP SIZE COUNT MTU [client options...]
run_pair() {
	local srv=$1 cli=$2 op=$3 size=$4 count=$5 mtu=$6 sp src
	shift 6
	ip netns exec "$NSB" timeout 60 "$WQE" peer --local "$srv" --timeout 40 \
		>"$TMP/server.out" 2>&1 &
	sp=$!
	BG+=("$sp")
	expect_rc 0 ip netns exec "$NSA" timeout 60 "$WQE" peer --local "$cli" --connect "$srv" \
		--timeout 40 --op "$op" --size "$size" --count "$count" --mtu "$mtu" "$@"
	cp "$TMP/out" "$TMP/client.out"
	wait "$sp"
	src=$?
	CHECKS=$((CHECKS + 1))
	[ "$src" -eq 0 ] || { fail "server of $op over $srv exited $src"; sed 's/^/  server: /' "$TMP/server.out" >&2; }
	expect_re "$TMP/client.out" "^wqe peer: client $op, ok: $count messages"
	expect_re "$TMP/server.out" "^wqe peer: server $op, ok: $count messages"
	expect_in "$TMP/server.out" "data: checked, ok"
}

# check_wire FILE IPVER: the capture, by our dissector and by Wireshark's.
check_wire() {
	local cap=$1 ipver=$2 n roce
	expect_rc 0 "$WQE" dissect "$cap"
	expect_re "$TMP/out" "^[0-9]+ frames: [0-9]+ RoCEv2, [0-9]+ skipped, 0 bad$"
	roce=$(sed -nE 's/^[0-9]+ frames: ([0-9]+) RoCEv2.*/\1/p' "$TMP/out")
	CHECKS=$((CHECKS + 1))
	[ "${roce:-0}" -gt 100 ] || fail "only ${roce:-0} RoCEv2 frames on the wire"
	tshark -r "$cap" -Y infiniband -T fields -e infiniband.bth.opcode 2>/dev/null \
		>"$TMP/opcodes"
	n=$(wc -l <"$TMP/opcodes")
	CHECKS=$((CHECKS + 1))
	[ "$n" -eq "${roce:-0}" ] || fail "tshark sees $n InfiniBand packets, wqe dissect $roce"
	# WRITE first/middle/last, READ request and responses, SEND
	# first/middle/last, ACK (tshark prints opcodes in decimal)
	for op in 6 7 8 12 13 14 15 0 1 2 17; do
		CHECKS=$((CHECKS + 1))
		grep -qx "$op" "$TMP/opcodes" || fail "no BTH opcode $op in the IPv$ipver capture"
	done
	if [ "$ipver" = 4 ]; then
		tshark -r "$cap" -Y "udp.port == 4791" -T fields -e ip.id -e ip.flags.df \
			-e udp.srcport -e udp.dstport 2>/dev/null | sort -u >"$TMP/hdrs"
		CHECKS=$((CHECKS + 1))
		# identification 0 and DF; each side's QP its own source
		# port, rxe's range (0xc000 up), to 4791
		awk -F'\t' '$1 != "0x0000" || $2 != 1 || $3 < 49152 || $4 != 4791 { bad = 1 }
			END { exit bad || NR < 1 || NR > 2 }' "$TMP/hdrs" ||
			fail "IPv4 headers on the wire: $(tr '\n\t' '; ' <"$TMP/hdrs")"
	else
		tshark -r "$cap" -Y "udp.port == 4791" -T fields -e udp.srcport -e udp.dstport \
			2>/dev/null | sort -u >"$TMP/hdrs"
		CHECKS=$((CHECKS + 1))
		awk -F'\t' '$1 < 49152 || $2 != 4791 { bad = 1 } END { exit bad || NR < 1 || NR > 2 }' \
			"$TMP/hdrs" || fail "UDP ports on the wire: $(tr '\n\t' '; ' <"$TMP/hdrs")"
	fi
}

for fam in 4 6; do
	if [ "$fam" = 4 ]; then S=10.79.0.2 C=10.79.0.1; else S=fd79::2 C=fd79::1; fi
	start_capture "$TMP/wire$fam.pcap"
	run_pair "$S" "$C" write 200003 20 4096
	run_pair "$S" "$C" read 100000 20 1024 --format rxe
	run_pair "$S" "$C" send 30001 40 2048
	stop_capture
	check_wire "$TMP/wire$fam.pcap" "$fam"
done
finish
