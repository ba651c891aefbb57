# SPDX-License-Identifier: MIT
# Debian's unmodified verbs binaries (ibverbs-utils, perftest) run through
# `wqe exec`, two processes on two addresses of 127/8 (no root):
#   exec_pair.sh WQE CASE
# CASE names one program and its options (the list at the bottom). Both
# sides must exit 0 with their usual report; the capture of each side must
# have every ICRC right (scapy: tests/wire/roce_scapy.py) and the opcodes
# the program's operation puts on the wire (tshark: check_capture.py). A
# missing program, scapy or tshark fails the test.
. "$(dirname "$0")/../cli/lib.sh"
CASE=${2:?usage: $0 WQE CASE}
. "$(dirname "$0")/exec_common.sh"

# wait_listen PORT: until a TCP socket listens on PORT (at most 20 s).
wait_listen() {
	for _ in $(seq 200); do
		ss -Htln "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	fail "nothing listens on TCP port $1"
	return 1
}

# pair "OPCODES" PROGRAM ARGS...: the server on $S, the client on $C
# connecting to it; the program gets ARGS on both sides, the client also
# the server's address (last, as the pingpongs and perftest take it). The
# server's wqe exec also gets the options in SERVER_OPTS, the client's
# those in CLIENT_OPTS (arrays).
SERVER_OPTS=()
CLIENT_OPTS=()
pair() {
	local ops=$1 prog=$2 src
	shift 2
	need "$prog" "ibverbs-utils or perftest"
	wexec --local "$S" "${SERVER_OPTS[@]}" --pcap "$TMP/server.pcap" -- "$prog" "$@" \
		>"$TMP/server.out" 2>&1 &
	SERVER=$!
	wait_listen "$PORT"
	expect_rc 0 wexec --local "$C" "${CLIENT_OPTS[@]}" --pcap "$TMP/client.pcap" -- \
		"$prog" "$@" "$S"
	cp "$TMP/out" "$TMP/client.out"
	cat "$TMP/err" >>"$TMP/client.out"
	wait "$SERVER"
	src=$?
	SERVER=
	CHECKS=$((CHECKS + 1))
	[ "$src" -eq 0 ] || { fail "server: exit $src"; sed 's/^/  server: /' "$TMP/server.out" | tail -8 >&2; }
	[ "${FAILS}" -eq 0 ] || sed 's/^/  client: /' "$TMP/client.out" | tail -8 >&2
	for side in server client; do
		capture_ok "$side" "$ops"
	done
	# Failures are counted, not returned: the report checks that follow
	# (pair ... && perftest_ok) must always run.
	return 0
}

# The pingpongs' report: the same on both sides.
pingpong_ok() {
	for side in server client; do
		expect_re "$TMP/$side.out" "^[0-9]+ bytes in [0-9.]+ seconds = "
		expect_re "$TMP/$side.out" "^[0-9]+ iters in [0-9.]+ seconds = "
	done
}

# perftest's report: a result line under its header on the client, and
# the header on the server too unless $2 is "client" (the READ and atomic
# latency tests' server is passive: it prints its addresses only).
perftest_ok() {
	expect_re "$TMP/client.out" "$1"
	expect_re "$TMP/client.out" "^ *[0-9]+ +[0-9]+ +[0-9.]+"
	[ "${2:-}" = client ] || expect_re "$TMP/server.out" "$1"
}

# BTH opcodes (IBTA table 38): RC 0-2 SEND first, middle, last, 4 SEND_ONLY, 6-10 RDMA WRITE, 12 READ
# request, 16 READ response only, 17 ACK, 18 ATOMIC ACK, 19 CMP_SWP, 20
# FETCH_ADD; UC 32-34 SEND first, middle, last, 36 SEND_ONLY; UD 100 SEND_ONLY.
case $CASE in
devinfo)
	need ibv_devinfo ibverbs-utils
	expect_rc 0 wexec --local "$S" -- ibv_devinfo -v
	expect_re "$TMP/out" "^hca_id:[[:space:]]+wqe0$"
	expect_re "$TMP/out" "transport:[[:space:]]+InfiniBand \(0\)"
	expect_re "$TMP/out" "state:[[:space:]]+PORT_ACTIVE \(4\)"
	expect_re "$TMP/out" "active_mtu:[[:space:]]+4096 \(5\)"
	expect_re "$TMP/out" "port_lid:[[:space:]]+0$"
	expect_re "$TMP/out" "link_layer:[[:space:]]+Ethernet"
	expect_re "$TMP/out" "GID\[  0\]:[[:space:]]+::ffff:$S, RoCE v2"
	expect_re "$TMP/out" "atomic_cap:[[:space:]]+ATOMIC_HCA"
	;;
devices)
	need ibv_devices ibverbs-utils
	expect_rc 0 wexec --local "$S" --local "$C" -- ibv_devices
	expect_re "$TMP/out" "^[[:space:]]+wqe0[[:space:]]+02007[0-9a-f]{11}$"
	expect_re "$TMP/out" "^[[:space:]]+wqe1[[:space:]]+02007[0-9a-f]{11}$"
	expect_rc 0 wexec --local "$S" --local "$C" -- ibv_devinfo -l
	expect_in "$TMP/out" "2 HCAs found:"
	;;
rc) pair "0 1 2 17" ibv_rc_pingpong -g 0 -p "$PORT" -c && pingpong_ok ;;
rc_64k) pair "0 1 2 17" ibv_rc_pingpong -g 0 -p "$PORT" -s 65536 -n 200 && pingpong_ok ;;
rc_events) pair "0 1 2 17" ibv_rc_pingpong -g 0 -p "$PORT" -e -c && pingpong_ok ;;
rc_new_send) pair "0 1 2 17" ibv_rc_pingpong -g 0 -p "$PORT" -N -c && pingpong_ok ;;
uc) pair "32 33 34" ibv_uc_pingpong -g 0 -p "$PORT" -c && pingpong_ok ;;
ud) pair "100" ibv_ud_pingpong -g 0 -p "$PORT" -c && pingpong_ok ;;
srq) pair "0 1 2 17" ibv_srq_pingpong -g 0 -p "$PORT" -c -n 200 && pingpong_ok ;;
write_bw) pair "6 7 8 17" ib_write_bw -F -p "$PORT" -n 50 && perftest_ok "BW peak" ;;
write_bw_q4) pair "6 7 8 17" ib_write_bw -F -p "$PORT" -n 25 -q 4 && perftest_ok "BW peak" ;;
read_bw) pair "12 13 14 15" ib_read_bw -F -p "$PORT" -n 50 && perftest_ok "BW peak" ;;
send_bw_rc) pair "0 1 2 17" ib_send_bw -F -p "$PORT" -n 50 -c RC && perftest_ok "BW peak" ;;
send_bw_uc) pair "36" ib_send_bw -F -p "$PORT" -n 200 -c UC -s 4096 && perftest_ok "BW peak" ;;
send_bw_ud) pair "100" ib_send_bw -F -p "$PORT" -n 200 -c UD -s 2048 && perftest_ok "BW peak" ;;
atomic_bw) pair "20 18" ib_atomic_bw -F -p "$PORT" -n 200 && perftest_ok "BW peak" ;;
write_lat) pair "10" ib_write_lat -F -p "$PORT" -n 200 && perftest_ok "t_avg" ;;
read_lat) pair "12 16" ib_read_lat -F -p "$PORT" -n 200 && perftest_ok "t_avg" client ;;
send_lat) pair "4" ib_send_lat -F -p "$PORT" -n 200 && perftest_ok "t_avg" ;;
atomic_lat) pair "20 18" ib_atomic_lat -F -p "$PORT" -n 200 && perftest_ok "t_avg" client ;;
fault_bad)
	# WQE_IBV_FAULT (wqe exec --fault) is parsed strictly: each bad value
	# is one line on stderr naming it, and no device (as WQE_IBV_FORMAT).
	need ibv_devinfo ibverbs-utils
	for spec in drop=2 drop=-0.1 drop=nan drop=0.02x drop= =0.1 drop bogus=1 "drop=0.1," \
		",drop=0.1" "drop=0.1,,seed=1" seed=-1 seed=0x10 seed=18446744073709551616; do
		expect_rc 0 wexec --local "$S" --fault "$spec" -- ibv_devinfo -l
		expect_in "$TMP/out" "0 HCAs found"
		expect_in "$TMP/err" "wqe: WQE_IBV_FAULT=$spec: "
		[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "--fault $spec: not one line on stderr"
	done
	for spec in drop=0.02,seed=7 "drop=0,dup=0" "drop=1e-2,dup=0.01,reorder=0.01,delay=0.01,corrupt=0.001,seed=18446744073709551615"; do
		expect_rc 0 wexec --local "$S" --fault "$spec" -- ibv_devinfo -l
		expect_in "$TMP/out" "1 HCA found"
		expect_empty "$TMP/err"
	done
	expect_rc 2 "$WQE" exec --local "$S" --fault "" -- ibv_devinfo -l
	expect_in "$TMP/err" "--fault needs a SPEC"
	# unset without --fault, whatever the caller's environment holds
	WQE_IBV_FAULT=bogus expect_rc 0 wexec --local "$S" -- ibv_devinfo -l
	expect_in "$TMP/out" "1 HCA found"
	;;
write_bw_fault)
	# 2 % of the client's frames (its RDMA WRITEs) dropped, seeded: the
	# server NAKs the gaps, the client sends again from there and the test
	# completes; the client's capture (taken before its injector) shows
	# WRITEs sent again. (Not a pingpong: there a side exits at its last
	# completion, and a lost ACK of the peer's last message would leave
	# nobody to answer its retry; perftest keeps both up until its closing
	# TCP exchange.)
	CLIENT_OPTS=(--fault drop=0.02,seed=7)
	pair "6 7 8 17" ib_write_bw -F -p "$PORT" -s 16384 -n 100 && perftest_ok "BW peak"
	expect_rc 0 "$PY" "$HERE/../interop/retransmits.py" "$TMP/client.pcap" "$C"
	expect_re "$TMP/out" "^[1-9][0-9]* retransmitted of [0-9]+ requests$"
	;;
read_bw_fault)
	# 5 % of the server's frames (its READ responses) dropped, seeded,
	# with 16 READs of 64 KiB in flight (256 response packets): the client
	# goes back to the first lost response, resuming that READ past its
	# first PSN, and completes. The responses still in flight from before
	# each go-back-N imply the same loss and must not start another (they
	# did: 4 runs of 4 ended in RETRY_EXC_ERR after 2 of 50 completions;
	# with -n 20, 3 of 5). The client's capture shows READs sent again.
	SERVER_OPTS=(--fault drop=0.05,seed=7)
	pair "12 13 14 15" ib_read_bw -F -p "$PORT" -n 50 && perftest_ok "BW peak"
	expect_rc 0 "$PY" "$HERE/../interop/retransmits.py" "$TMP/client.pcap" "$C"
	expect_re "$TMP/out" "^[1-9][0-9]* retransmitted of [0-9]+ requests$"
	;;
*)
	fail "unknown case $CASE"
	;;
esac
finish
