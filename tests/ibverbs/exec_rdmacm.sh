# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2054 # (commas inside options, not between elements)
# Debian's unmodified rdma_cm programs (rdmacm-utils, perftest's -R) run
# through `wqe exec` on the drop-in librdmacm, two processes on two
# addresses of 127/8 (no root), connected by rdma_cm's CM MADs over the
# UDP link:
#   exec_rdmacm.sh WQE CASE
# CASE names the programs and their options (the list at the bottom). Both
# sides must exit 0 with their usual report; the capture of each side must
# have every ICRC right (scapy: tests/wire/roce_scapy.py), the opcodes the
# programs put on the wire (tshark: check_capture.py), and CM MADs that
# tshark decodes, with paired communication IDs and the messages of the
# case (tests/cm/cm_capture_check.py). A missing program, scapy or tshark
# fails the test.
. "$(dirname "$0")/../cli/lib.sh"
CASE=${2:?usage: $0 WQE CASE}
. "$(dirname "$0")/exec_common.sh"
CMCHECK=$HERE/../cm/cm_capture_check.py
. "$HERE/../cm/perftest_retry.sh"

# Readiness. An rdma_cm listener opens no socket of its own (the drop-in's
# CM takes its MADs from the device's UDP port 4791), so exec_pair.sh's
# wait for a listening TCP port cannot tell when the server is ready; and
# the programs print nothing once they listen (rping, rdma_server), or
# print just before (ucmatose, perftest). Instead:
# 1. wait_device: until the server's device is up, its UDP socket bound on
#    $S:4791 (ss). A REQ sent before that would go unanswered and cost
#    the client the CM's retry timeout (seconds); once it is bound, the
#    listen is a few calls away.
# 2. client: run the client; while it fails with what its program prints
#    for a refusal (REFUSED: the server's CM answers a REQ for a port
#    nobody listens on yet with REJ Invalid Service ID, a SIDR_REQ with
#    SIDR_REP Unsupported, which rdma_cm reports as UNREACHABLE) and the
#    server still runs, run it again 0.2 s later, 50 tries at most.
#    perftest does the same for its second connection
#    (rdma_cm_client_connection(): 10 tries 100 ms apart).
# A refused client leaves nothing behind on the server. What retrying
# cannot mend: ucmatose -c 4 connecting just as the server starts to
# listen, some of its connections refused and some taken (the client then
# waits for disconnections that never come, and fails at its timeout);
# waiting for the device first narrows that to the server's few calls
# between bind and listen.
REFUSED='RDMA_CM_EVENT_REJECTED|RDMA_CM_EVENT_UNREACHABLE|rdma_connect: Connection refused|Unexpected CM event bl blka [78]$'
TRIES_MAX=50

SERVER_OPTS=()
CLIENT_OPTS=()
SRV=()
CLI=()

# show LABEL FILE: the last lines of FILE on stderr, cut short, with
# whatever is not printable escaped (rping prints the bytes it received).
show() {
	[ -s "$2" ] && tail -8 "$2" | cut -c1-200 | cat -v | sed "s/^/  $1: /" >&2
	return 0
}

# start_server: SRV on $S (wqe exec options SERVER_OPTS), its capture in
# $TMP/server.pcap, its stdout and stderr apart (rping's 4 KiB lines must
# stay whole). SERVER is the pid of `timeout` itself (the subshell execs
# it), so that ending SERVER ends the program.
start_server() {
	need "${SRV[0]}" "$PKG"
	need ss iproute2
	touch "$TMP/server.out" "$TMP/server.err" "$TMP/client.out" "$TMP/client.err"
	(
		if [ -n "${WQE_TEST_PRELOAD:-}" ]; then
			exec timeout "$WEXEC_TIMEOUT" env LD_PRELOAD="$WQE_TEST_PRELOAD" \
				ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "$WQE" exec \
				--local "$S" "${SERVER_OPTS[@]}" --pcap "$TMP/server.pcap" -- "${SRV[@]}"
		fi
		exec timeout "$WEXEC_TIMEOUT" "$WQE" exec \
			--local "$S" "${SERVER_OPTS[@]}" --pcap "$TMP/server.pcap" -- "${SRV[@]}"
	) >"$TMP/server.out" 2>"$TMP/server.err" &
	SERVER=$!
}

# wait_device: until the server's device listens on UDP $S:4791 (20 s).
wait_device() {
	CHECKS=$((CHECKS + 1))
	for _ in $(seq 200); do
		ss -Huln "src = $S:4791" | grep -q . && return 0
		if ! kill -0 "$SERVER" 2>/dev/null; then
			fail "the server ended before its device came up on $S:4791"
			return 1
		fi
		sleep 0.1
	done
	fail "the server's device never came up on $S:4791"
	return 1
}

# client: CLI on $C (CLIENT_OPTS) until the server takes it (above); its
# capture in $TMP/client.pcap (the last try's), its output in
# $TMP/client.out and .err; TRIES the tries it took. A perftest client
# that met its own retry bug (perftest_retry_crash) is not run again: its
# server is past the point a new client could start from. RERUN is then
# 1 (the case may run again, server too; cm_pair) and nothing is counted.
client() {
	local rc
	need "${CLI[0]}" "$PKG"
	TRIES=0
	RERUN=0
	while :; do
		TRIES=$((TRIES + 1))
		wexec --local "$C" "${CLIENT_OPTS[@]}" --pcap "$TMP/client.pcap" -- "${CLI[@]}" \
			>"$TMP/client.out" 2>"$TMP/client.err"
		rc=$?
		[ "$rc" -eq 0 ] && break
		if [ "$PKG" = perftest ] && perftest_retry_crash "$TMP/client.out" "$TMP/client.err"; then
			RERUN=1
			return 0
		fi
		if [ "$TRIES" -ge "$TRIES_MAX" ] || ! kill -0 "$SERVER" 2>/dev/null ||
			! grep -qE "$REFUSED" "$TMP/client.out" "$TMP/client.err"; then
			break
		fi
		sleep 0.2
	done
	CHECKS=$((CHECKS + 1))
	if [ "$rc" -ne 0 ]; then
		fail "client: exit $rc (try $TRIES): ${CLI[*]}"
	elif [ "$TRIES" -gt 1 ]; then
		echo "client: taken at try $TRIES" >&2
	fi
}

# stop_server: ends the server if it still runs; its exit status.
stop_server() {
	local src
	kill "$SERVER" 2>/dev/null
	wait "$SERVER"
	src=$?
	SERVER=
	return $src
}

# end_server: the server's exit status must be 0. It has 20 s to end after
# a client that succeeded, 3 s after one that did not (then it is ended).
end_server() {
	local src n=200
	[ "$FAILS" -eq 0 ] || n=30
	for _ in $(seq $n); do
		kill -0 "$SERVER" 2>/dev/null || break
		sleep 0.1
	done
	stop_server
	src=$?
	CHECKS=$((CHECKS + 1))
	[ "$src" -eq 0 ] || fail "server: exit $src: ${SRV[*]}"
}

# cm_pair "OPCODES" CM_CHECK_OPTIONS...: the server SRV on $S, the client
# CLI on $C; both must exit 0; each capture gets capture_ok with OPCODES
# and the CM check (cm_capture_check.py with CM_CHECK_OPTIONS, port $PORT
# unless they name another) of both captures together. Failures are
# counted, not returned: the report checks that follow must always run.
# A perftest case whose client met perftest's retry bug runs again, server
# and all, PERFTEST_TRIES times at most (the last one's failure counts).
cm_pair() {
	local ops=$1 run=1
	shift
	while :; do
		start_server
		RERUN=0
		wait_device && client
		[ "$RERUN" -eq 1 ] || break
		stop_server
		if [ "$run" -ge "$PERFTEST_TRIES" ]; then
			CHECKS=$((CHECKS + 1))
			fail "client: perftest's RDMA CM retry bug in all $run runs: ${CLI[*]}"
			break
		fi
		echo "note: run $run met perftest's RDMA CM retry bug (perftest_retry_crash); the case runs again" >&2
		run=$((run + 1))
	done
	[ -z "$SERVER" ] || end_server
	if [ "$FAILS" -ne 0 ]; then
		for f in server.out server.err client.out client.err; do
			show "$f" "$TMP/$f"
		done
	fi
	captures_ok "$ops" server client && cm_ok "$@" "$TMP/server.pcap" "$TMP/client.pcap"
	return 0
}

# captures_ok "OPCODES" SIDE...: capture_ok for each SIDE; 1 if a capture
# is missing (its program never opened its device).
captures_ok() {
	local ops=$1 side ret=0
	shift
	for side in "$@"; do
		CHECKS=$((CHECKS + 1))
		if [ -e "$TMP/$side.pcap" ]; then
			capture_ok "$side" "$ops"
		else
			fail "$side: no capture"
			ret=1
		fi
	done
	return $ret
}

# cm_ok OPTIONS... FILE...: cm_capture_check.py, its report on stderr.
cm_ok() {
	local port=(--port "$PORT")
	case " $* " in *" --port "*) port=() ;; esac
	expect_rc 0 "$PY" "$CMCHECK" "${port[@]}" "$@"
	sed 's/^/  /' "$TMP/out" >&2
}

# What rping -v prints, ping after ping, each line PREFIX (1) then the
# text the client put in its buffer for ping N (rping_test_client()):
# "rdma-ping-N: " and letters from 'A' + N % 58 on, through ASCII 65-122
# and round again, SIZE (3) - 1 characters in all.
rping_data() {
	awk -v p="$1" -v n="$2" -v size="$3" 'BEGIN {
		for (c = 65; c <= 122; c++)
			cyc = cyc sprintf("%c", c)
		for (rep = cyc; length(rep) < size + 58; )
			rep = rep rep
		for (i = 0; i < n; i++) {
			s = sprintf("rdma-ping-%d: ", i)
			print p s substr(rep, i % 58 + 1, size - 1 - length(s))
		}
	}'
}

# rping_ok COUNT SIZE: both sides printed their COUNT pings, in order.
rping_ok() {
	local side prefix
	for side in client server; do
		prefix="ping data: "
		[ "$side" = server ] && prefix="server ping data: "
		rping_data "$prefix" "$1" "$2" >"$TMP/want"
		grep -a "^$prefix" "$TMP/$side.out" >"$TMP/got"
		CHECKS=$((CHECKS + 1))
		cmp -s "$TMP/want" "$TMP/got" ||
			fail "$side: $(wc -l <"$TMP/got") '$prefix' lines, not rping's $1 in order ($(cmp "$TMP/want" "$TMP/got" 2>&1 | head -1 | cut -c1-80))"
	done
}

# rping CM checks: the client connects, then disconnects (DREQ) and the
# server answers it (DREP) once rping_test_server() sees DISCONNECTED.
RPING_CM=(--each REQ,REP,RTU --expect DREQ,DREP)

# perf_ok: perftest's report: a result line under its header on the
# client, the header on the server too.
perf_ok() {
	expect_re "$TMP/client.out" "BW peak"
	expect_re "$TMP/client.out" "^ *[0-9]+ +[0-9]+ +[0-9.]+"
	expect_re "$TMP/server.out" "BW peak"
}

# lines_ok SIDE LINE...: SIDE's stdout has each LINE, whole.
lines_ok() {
	local side=$1 l
	shift
	for l in "$@"; do
		CHECKS=$((CHECKS + 1))
		grep -qxF -- "$l" "$TMP/$side.out" || fail "$side: no line '$l'"
	done
}

# ud_data_ok SIDE N: at least N UD SEND ONLY frames (with or without an
# immediate: udaddy sends its QPN in one) to a QP other than the GSI's (the
# programs' own datagrams, not the CM's) in SIDE's capture.
ud_data_ok() {
	local n
	n=$(tshark -r "$TMP/$1.pcap" -Y "(infiniband.bth.opcode == 100 || infiniband.bth.opcode == 101) && infiniband.bth.destqp != 1" \
		-T fields -e frame.number 2>/dev/null | wc -l)
	CHECKS=$((CHECKS + 1))
	[ "$n" -ge "$2" ] || fail "$1: $n UD datagrams outside the CM, at least $2 expected"
}

# BTH opcodes (IBTA table 38): RC 0-2 SEND first, middle, last, 4 SEND
# only, 6-8 RDMA WRITE first, middle, last, 10 RDMA WRITE only, 12 READ
# request, 16 READ response only, 17 ACK; UD 100 SEND only (the CM's MADs
# to QP 1 too). rping's exchange: SEND (its buffer's address and rkey),
# the server's RDMA READ of the client's buffer and RDMA WRITE back, with
# one packet each up to the path MTU (4096: the device's active MTU, as
# the kernel's RoCE route resolution takes the smaller of it and the
# netdevice's, lo's 65536).
RPING_OPS="4 10 12 16 17"
PKG=rdmacm-utils
case $CASE in
rping)
	SRV=(rping -s -a "$S" -v -C 100 -p "$PORT")
	CLI=(rping -c -a "$S" -v -C 100 -p "$PORT")
	cm_pair "$RPING_OPS" "${RPING_CM[@]}" && rping_ok 100 64
	;;
rping_verify_4k)
	# -V: the client compares what came back with what it sent.
	SRV=(rping -s -a "$S" -v -V -S 4096 -C 100 -p "$PORT")
	CLI=(rping -c -a "$S" -v -V -S 4096 -C 100 -p "$PORT")
	cm_pair "$RPING_OPS" "${RPING_CM[@]}" && rping_ok 100 4096
	;;
rping_rxe)
	SERVER_OPTS=(--format rxe)
	CLIENT_OPTS=(--format rxe)
	SRV=(rping -s -a "$S" -v -V -C 100 -p "$PORT")
	CLI=(rping -c -a "$S" -v -V -C 100 -p "$PORT")
	cm_pair "$RPING_OPS" "${RPING_CM[@]}" && rping_ok 100 64
	;;
rping_loss)
	# 5 % of the client's frames dropped, seeded: lost MADs are sent again
	# by the CM (its REQ, RTU, DREQ; the server's REP when the RTU is
	# lost), lost packets of the QP by the requester; rping passes all the
	# same. The client's capture, taken before its injector, shows RC
	# requests sent again.
	CLIENT_OPTS=(--fault drop=0.05,seed=11)
	SRV=(rping -s -a "$S" -v -C 100 -p "$PORT")
	CLI=(rping -c -a "$S" -v -C 100 -p "$PORT")
	cm_pair "$RPING_OPS" "${RPING_CM[@]}" && rping_ok 100 64
	expect_rc 0 "$PY" "$HERE/../interop/retransmits.py" "$TMP/client.pcap" "$C"
	expect_re "$TMP/out" "^[1-9][0-9]* retransmitted of [0-9]+ requests$"
	;;
rping_dead_port)
	# A client to a port nobody listens on, at an address whose CM is up
	# (a rping server's, on $PORT): the CM answers REJ Invalid Service ID
	# (8), rping reports the refusal and exits (cm_thread(): exit(-1),
	# status 255) within seconds, and leaves no crash or hang behind. The
	# server, untouched, then serves a client to its port as usual.
	DEAD=$((PORT + 1))
	SRV=(rping -s -a "$S" -v -C 10 -p "$PORT")
	CLI=(rping -c -a "$S" -v -C 10 -p "$PORT")
	need rping rdmacm-utils
	start_server
	if wait_device; then
		t0=$(date +%s%N)
		WEXEC_TIMEOUT=20 expect_rc 255 wexec --local "$C" --pcap "$TMP/dead.pcap" -- \
			rping -c -a "$S" -v -C 10 -p "$DEAD"
		ms=$((($(date +%s%N) - t0) / 1000000))
		CHECKS=$((CHECKS + 1))
		[ "$ms" -lt 10000 ] || fail "the refusal took $ms ms"
		expect_re "$TMP/err" "cma event RDMA_CM_EVENT_(REJECTED|UNREACHABLE), error|rdma_connect: Connection refused"
		show "dead port client" "$TMP/err"
		captures_ok 100 dead &&
			cm_ok --port "$DEAD" --each REQ,REJ --none REP,RTU --rej-reason 8 "$TMP/dead.pcap"
		client
	fi
	end_server
	[ "$FAILS" -eq 0 ] || for f in server.out server.err client.out client.err; do show "$f" "$TMP/$f"; done
	captures_ok "$RPING_OPS" server client &&
		cm_ok --port "$PORT,$DEAD" --expect REQ:2,REJ,REP,RTU,DREQ,DREP "$TMP/server.pcap"
	rping_ok 10 64
	;;
rping_hostile)
	# Hostile MADs from a third address, F, at the server's CM
	# (tests/cm/cm_forge.py, which says what each must draw): before the
	# client, the wrong lengths, bad headers, MADs naming IDs the server
	# has not, a REQ replayed, SIDR_REQs nobody serves and a burst of 2000
	# REQs refused (their IP CM header names another address; sent while
	# the server is stopped, so that its CM thread takes them in one long
	# run), then each of them again; then the same, with a burst of 32,
	# over and over while the client runs. Every answer is checked as it
	# comes; the client and the server must do as in case rping; the
	# server's capture must show nothing accepted, no REJ beyond its REQ,
	# and F's frames between the client's REQ and DREQ (cm_forge.py
	# count); without F's frames it gets the checks of case rping.
	F=127.$X.$Y.23
	FORGE=$HERE/../cm/cm_forge.py
	SRV=(rping -s -a "$S" -v -C 100 -p "$PORT")
	CLI=(rping -c -a "$S" -v -C 100 -p "$PORT")
	need rping rdmacm-utils
	start_server
	if wait_device; then
		"$PY" "$FORGE" run --server "$S" --from "$F" --port "$PORT" --flood 2000 \
			--hold "$(pgrep -P "$SERVER")" --summary "$TMP/forge.json" \
			--go "$TMP/go" --stop "$TMP/stop" >"$TMP/forge.out" 2>&1 &
		FORGER=$!
		# (exec_common.sh's, and the forger's end too)
		trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; [ -n "$FORGER" ] && kill "$FORGER" 2>/dev/null; rm -rf "$TMP"' EXIT
		for _ in $(seq 600); do
			grep -qsx ready "$TMP/forge.out" && break
			kill -0 "$FORGER" 2>/dev/null || break
			sleep 0.1
		done
		touch "$TMP/go"
		client
		touch "$TMP/stop"
		wait "$FORGER"
		frc=$?
		FORGER=
		CHECKS=$((CHECKS + 1))
		[ "$frc" -eq 0 ] || fail "cm_forge.py run: exit $frc"
		grep -v '^ready$' "$TMP/forge.out" | cut -c1-200 | sed 's/^/  forge: /' >&2
	fi
	end_server
	# (a sanitized drop-in aborts on its first report, so its exit status
	# says it too; this names it)
	for f in server.err client.err; do
		CHECKS=$((CHECKS + 1))
		! grep -qE "ERROR: AddressSanitizer|runtime error:" "$TMP/$f" || fail "$f: a sanitizer report"
	done
	[ "$FAILS" -eq 0 ] || for f in server.out server.err client.out client.err; do show "$f" "$TMP/$f"; done
	if [ -e "$TMP/server.pcap" ] && [ -e "$TMP/forge.json" ]; then
		expect_rc 0 "$PY" "$FORGE" count --server "$S" --from "$F" --summary "$TMP/forge.json" \
			--genuine "$TMP/genuine.pcap" "$TMP/server.pcap"
		sed 's/^/  /' "$TMP/out" >&2
	fi
	captures_ok "$RPING_OPS" genuine client &&
		cm_ok "${RPING_CM[@]}" "$TMP/genuine.pcap" "$TMP/client.pcap"
	rping_ok 100 64
	;;
ucmatose)
	# The server sends (10 messages of 100 bytes a connection), the
	# client replies, the server disconnects (DREQ) and the client answers
	# (DREP).
	SRV=(ucmatose -b "$S" -p "$PORT")
	CLI=(ucmatose -s "$S" -p "$PORT")
	cm_pair "4 17" --each REQ,REP,RTU,DREQ,DREP &&
		lines_ok server "cmatose: starting server" "initiating data transfers" "completing sends" \
			"receiving data transfers" "data transfers complete" "cmatose: disconnecting" \
			"disconnected" "test complete" "return status 0" &&
		lines_ok client "cmatose: starting client" "cmatose: connecting" "receiving data transfers" \
			"sending replies" "data transfers complete" "test complete" "return status 0"
	;;
ucmatose_c4)
	SRV=(ucmatose -b "$S" -p "$PORT" -c 4 -C 100)
	CLI=(ucmatose -s "$S" -p "$PORT" -c 4 -C 100)
	cm_pair "4 17" --each REQ:4,REP:4,RTU:4,DREQ:4,DREP:4 &&
		lines_ok server "cmatose: starting server" "data transfers complete" "disconnected" \
			"test complete" "return status 0" &&
		lines_ok client "cmatose: starting client" "data transfers complete" "test complete" \
			"return status 0"
	;;
rdma_server)
	# One 16-byte inline SEND each way; both sides disconnect on their own.
	SRV=(rdma_server -s "$S" -p "$PORT")
	CLI=(rdma_client -s "$S" -p "$PORT")
	cm_pair "4 17" --each REQ,REP,RTU --expect DREQ &&
		lines_ok server "rdma_server: start" "rdma_server: end 0" &&
		lines_ok client "rdma_client: start" "rdma_client: end 0"
	;;
udaddy)
	# UD through SIDR (SIDR_REQ, SIDR_REP), then 10 datagrams each way.
	# udaddy has no port option (its -p is the port space): it is always
	# 7174, which the addresses of this run keep apart from other runs.
	SRV=(udaddy -b "$S")
	CLI=(udaddy -s "$S")
	cm_pair "101" --port 7174 --each SIDR_REQ,SIDR_REP --none REQ,REP,RTU,DREQ,DREP &&
		lines_ok server "udaddy: starting server" "receiving data transfers" "sending replies" \
			"data transfers complete" "test complete" "return status 0" &&
		lines_ok client "udaddy: starting client" "udaddy: connecting" "initiating data transfers" \
			"receiving data transfers" "data transfers complete" "test complete" "return status 0"
	ud_data_ok server 20
	ud_data_ok client 20
	;;
# perftest -R: its own exchange first runs over an rdma_cm connection (RC
# SENDs of its parameters, opcode 4), then the test's QPs are connected by
# rdma_cm too: 1 + the QP count connections in all. At the end the client
# disconnects the test's connections (DREQ) and waits until each is
# answered (DREP; rdma_cm_disconnect_nodes()).
write_bw_R)
	PKG=perftest
	SRV=(ib_write_bw -R -F -n 50 -p "$PORT")
	CLI=(ib_write_bw -R -F -n 50 -p "$PORT" "$S")
	cm_pair "4 6 7 8 17" --each REQ:2,REP:2,RTU:2 --expect DREQ,DREP && perf_ok
	;;
write_bw_R_q2)
	PKG=perftest
	SRV=(ib_write_bw -R -F -n 50 -q 2 -p "$PORT")
	CLI=(ib_write_bw -R -F -n 50 -q 2 -p "$PORT" "$S")
	cm_pair "4 6 7 8 17" --each REQ:3,REP:3,RTU:3 --expect DREQ:2,DREP:2 && perf_ok
	;;
send_bw_R)
	PKG=perftest
	SRV=(ib_send_bw -R -F -n 50 -p "$PORT")
	CLI=(ib_send_bw -R -F -n 50 -p "$PORT" "$S")
	cm_pair "0 1 2 4 17" --each REQ:2,REP:2,RTU:2 --expect DREQ,DREP && perf_ok
	;;
*)
	CHECKS=$((CHECKS + 1))
	fail "unknown case $CASE"
	;;
esac
finish
