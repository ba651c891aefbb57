# SPDX-License-Identifier: MIT
# wqe peer in two processes on this host, over addresses of 127/8 (root
# only for the default's raw socket, which it expects): WRITE, READ and SEND, the client on the rxe WQE format in one
# run and with each --ipv4-rx mode in others; the captures of both sides checked by wqe dissect; a server started
# for other terms refuses the client; bad usage exits 2; a client without
# a server and a server without a client exit 1 at their timeout.
. "$(dirname "$0")/../cli/lib.sh"

# 127.X.Y.11 and .12, X.Y from this shell's pid (as tests/udp/udp_pair.c),
# and a TCP port of the exchange from it too: parallel runs never meet.
X=$((16 + ($$ >> 8) % 200))
Y=$(($$ & 255))
A=127.$X.$Y.11
B=127.$X.$Y.12
PORT=$((20000 + $$ % 20000))
SERVER=
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP # a killed test cleans up too

# run_pair OP SIZE COUNT MTU [client options...]: server and client, both ok.
run_pair() {
	local op=$1 size=$2 count=$3 mtu=$4 src
	shift 4
	timeout 60 "$WQE" peer --local "$B" --oob-port "$PORT" --timeout 30 \
		--pcap "$TMP/server.pcap" >"$TMP/server.out" 2>&1 &
	SERVER=$!
	expect_rc 0 timeout 60 "$WQE" peer --local "$A" --connect "$B" --oob-port "$PORT" \
		--timeout 30 --op "$op" --size "$size" --count "$count" --mtu "$mtu" \
		--pcap "$TMP/client.pcap" "$@"
	cp "$TMP/out" "$TMP/client.out"
	wait "$SERVER"
	src=$?
	SERVER=
	CHECKS=$((CHECKS + 1))
	[ "$src" -eq 0 ] || { fail "server of $op exit $src"; sed 's/^/  server: /' "$TMP/server.out" >&2; }
	expect_re "$TMP/client.out" "^wqe peer: client $op, ok: $count messages x $size B"
	expect_re "$TMP/server.out" "^wqe peer: server $op, ok: $count messages x $size B"
	expect_in "$TMP/client.out" "data: checked, ok"
	expect_in "$TMP/server.out" "data: checked, ok"
	expect_in "$TMP/client.out" "nic drops: none"
	expect_in "$TMP/server.out" "nic drops: none"
	# what each NIC sent and what its link rebuilt from the datagrams
	# that arrived: every ICRC verifies
	for side in client server; do
		expect_rc 0 "$WQE" dissect "$TMP/$side.pcap"
		expect_re "$TMP/out" "^[0-9]+ frames: [0-9]+ RoCEv2, 0 skipped, 0 bad$"
	done
}

run_pair write 100003 40 1024
# By default, with CAP_NET_RAW (these tests run as root), each datagram
# is read with the IPv4 header it arrived with.
expect_re "$TMP/client.out" "link: IPv4 headers raw: [1-9][0-9]* as they arrived, 0 found from the ICRC \\(0 of them not identification 0 and DF\\), 0 assumed; 0 malformed"
run_pair read 65536 30 4096 --format rxe
run_pair send 4097 200 256 --tx-depth 8
run_pair write 1048576 3 4096
# --ipv4-rx search on the client: the server's datagrams all carry
# identification 0 and DF (Linux's for the link's sockets), so each is
# searched and none had another; assume takes them to be 0 and DF.
run_pair write 70000 20 1024 --ipv4-rx search
expect_re "$TMP/client.out" "link: IPv4 headers search: 0 as they arrived, [1-9][0-9]* found from the ICRC \\(0 of them not identification 0 and DF\\), 0 assumed"
run_pair write 70000 20 1024 --ipv4-rx assume
expect_re "$TMP/client.out" "link: IPv4 headers assume: 0 as they arrived, 0 found from the ICRC \\(0 of them not identification 0 and DF\\), [1-9][0-9]* assumed"
expect_rc 2 "$WQE" peer --local "$A" --ipv4-rx sometimes
expect_in "$TMP/err" "bad --ipv4-rx 'sometimes'"

# A server started for other terms refuses the client; both exit 1.
timeout 60 "$WQE" peer --local "$B" --oob-port "$PORT" --timeout 30 --size 100 \
	>"$TMP/server.out" 2>&1 &
SERVER=$!
expect_rc 1 timeout 60 "$WQE" peer --local "$A" --connect "$B" --oob-port "$PORT" \
	--timeout 30 --size 200 --count 2
expect_in "$TMP/err" "the server refused"
wait "$SERVER"
src=$?
SERVER=
CHECKS=$((CHECKS + 1))
[ "$src" -eq 1 ] || fail "the server that refused exited $src, not 1"

# A hostile client: a hello holding terminal escape sequences (ESC, BEL)
# is refused, and nothing the client sent reaches the server's output raw.
timeout 60 "$WQE" peer --local "$B" --oob-port "$PORT" --timeout 30 >"$TMP/server.out" 2>&1 &
SERVER=$!
expect_rc 0 /usr/bin/python3 - "$B" "$PORT" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
        break
    except OSError:
        time.sleep(0.05)
else:
    sys.exit("no server")
s.sendall(b"wqe-peer 1 \x1b]0;owned\x07\x1b[2J\x1b[31mEVIL\n")
time.sleep(0.5)
s.close()
PY
wait "$SERVER"
src=$?
SERVER=
CHECKS=$((CHECKS + 1))
[ "$src" -eq 1 ] || fail "the server fed escape sequences exited $src, not 1"
expect_in "$TMP/server.out" "not printable ASCII (0x1b at 11 of a line)"
CHECKS=$((CHECKS + 1))
if LC_ALL=C grep -q "$(printf '[\033\007]')" "$TMP/server.out"; then
	fail "the server printed a byte the client sent raw"
fi

# Bad usage: exit 2 and a message.
expect_rc 2 "$WQE" peer
expect_in "$TMP/err" "--local ADDR is required"
expect_rc 2 "$WQE" peer --local nowhere
expect_in "$TMP/err" "is not an address"
expect_rc 2 "$WQE" peer --local "$A" --op frobnicate
expect_in "$TMP/err" "bad --op"
expect_rc 2 "$WQE" peer --local "$A" --size 0
expect_rc 2 "$WQE" peer --local "$A" --size 1048577
expect_rc 2 "$WQE" peer --local "$A" --mtu 1000
expect_rc 2 "$WQE" peer --local "$A" --count 0
expect_rc 2 "$WQE" peer --local "$A" --timeout 0
expect_rc 2 "$WQE" peer --local "$A" --connect ::1
expect_in "$TMP/err" "one address family"
expect_rc 2 "$WQE" peer --local "$A" --bogus
expect_rc 0 "$WQE" help peer
expect_in "$TMP/out" "usage: wqe peer"

# Nobody on the other side: exit 1 when the time is up, not a hang.
start=$(date +%s)
expect_rc 1 timeout 20 "$WQE" peer --local "$A" --connect "$B" --oob-port "$PORT" --timeout 1
expect_in "$TMP/err" "no server at $B"
expect_rc 1 timeout 20 "$WQE" peer --local "$B" --oob-port "$PORT" --timeout 1
expect_in "$TMP/err" "no client"
CHECKS=$((CHECKS + 1))
[ $(($(date +%s) - start)) -lt 10 ] || fail "timeouts took $(($(date +%s) - start)) s"
# A port the kernel refuses to bind: an address that is not this host's.
expect_rc 1 "$WQE" peer --local 198.51.100.7 --timeout 1
expect_in "$TMP/err" "cannot bind UDP 198.51.100.7 port 4791"
finish
