# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034 # (S, C, PORT: for the scripts that source this)
# What exec_pair.sh (the verbs programs) and exec_rdmacm.sh (the rdma_cm
# programs) share; sourced after tests/cli/lib.sh, with CASE set:
#   S, C, PORT        the server's and the client's address, a port
#   SERVER            the server's pid while it runs (ended on exit)
#   wexec ARGS...     wqe exec ARGS within WEXEC_TIMEOUT seconds (120)
#   need PROGRAM PKG  PROGRAM is installed, or the test fails here
#   capture_ok SIDE "OPCODES"  the checks every capture $TMP/SIDE.pcap gets
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=${WQE_PYTHON:-/usr/bin/python3}

# 127.X.Y.21 and .22 and a port from this shell's pid, as
# tests/udp/peer_lo.sh: parallel runs never meet.
X=$((16 + ($$ >> 8) % 200))
Y=$(($$ & 255))
S=127.$X.$Y.21
C=127.$X.$Y.22
PORT=$((20000 + ($$ * 7) % 20000))
SERVER=
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

# wqe exec within WEXEC_TIMEOUT (120) s, with the sanitizers' runtime
# preloaded in a sanitized build (WQE_TEST_PRELOAD): the programs are not
# built with it, the drop-in is.
WEXEC_TIMEOUT=120
wexec() {
	if [ -n "${WQE_TEST_PRELOAD:-}" ]; then
		timeout "$WEXEC_TIMEOUT" env LD_PRELOAD="$WQE_TEST_PRELOAD" \
			ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "$WQE" exec "$@"
	else
		timeout "$WEXEC_TIMEOUT" "$WQE" exec "$@"
	fi
}

need() {
	command -v "$1" >/dev/null || { fail "$1 is not installed (Debian: $2)"; finish; exit 1; }
}

# capture_ok SIDE "OPCODES": every ICRC of $TMP/SIDE.pcap right (scapy),
# each BTH opcode of OPCODES in it and nothing malformed (tshark), and
# every packet, sent or received, with the route's hop limit, whatever the
# program asked (the pingpongs ask 1), as the kernel's RoCE address
# resolution gives it.
capture_ok() {
	local side=$1 ops=$2
	expect_rc 0 "$PY" "$HERE/../wire/roce_scapy.py" "$TMP/$side.pcap"
	expect_re "$TMP/out" "^[0-9]+ frames, [0-9]+ RoCEv2, 0 bad$"
	# shellcheck disable=SC2086
	expect_rc 0 "$PY" "$HERE/check_capture.py" "$TMP/$side.pcap" $ops
	[ -s "$TMP/out" ] && sed 's/^/  /' "$TMP/out" >&2
	tshark -r "$TMP/$side.pcap" -T fields -e ip.ttl 2>/dev/null | sort -u >"$TMP/ttl"
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$TMP/ttl")" = "$(cat /proc/sys/net/ipv4/ip_default_ttl)" ] ||
		fail "$side: IPv4 TTLs $(tr '\n' ' ' <"$TMP/ttl"), not the route's $(cat /proc/sys/net/ipv4/ip_default_ttl)"
}
