# SPDX-License-Identifier: MIT
# wqe encode --packets: the request packets a WQE becomes (opcodes, PSNs,
# RETH, SE), the capture it writes (our dissector and scapy verify every
# ICRC; one flipped byte is named), bad options, and a capture that is
# complete or absent whatever happens to the run.
# usage: cli_packets.sh WQE PYTHON TESTS_WIRE_DIR
. "$(dirname "$0")/lib.sh"
PY=${2:?usage: $0 wqe python tests/wire-dir}
WIRE=${3:?usage: $0 wqe python tests/wire-dir}

# expect_field FILE LINE_REGEX FIELD WANT: on the lines of FILE matching
# LINE_REGEX, the word after FIELD, joined by spaces (one trailing), is WANT.
expect_field() {
	local got
	CHECKS=$((CHECKS + 1))
	got=$(grep -E -- "$2" "$1" | sed -E "s/.*$3 ([^ ]+).*/\1/" | tr '\n' ' ')
	[ "$got" = "$4" ] || fail "$2 / $3: got '$got', want '$4'"
}

# expect_no_capture NAME: neither NAME nor its scratch file NAME.tmp exists.
expect_no_capture() {
	local f
	for f in "$1" "$1.tmp"; do
		CHECKS=$((CHECKS + 1))
		[ ! -e "$f" ] || fail "$f left behind"
	done
}

# packet_lines FILE K: the header lines of packet K (after its heading).
packet_lines() {
	awk -v k="$2" '/^packet /{n++} n==k && /^  /' "$1"
}

# --- a 3000-byte WRITE at PMTU 1024: FIRST/MIDDLE/LAST, PSN psn..psn+2 -----
expect_rc 0 "$WQE" encode --packets --psn 100 \
	'write raddr=0x10000 rkey=0x1234 sge=0x7f0000001000:3000:0x5'
cp "$TMP/out" "$TMP/write.txt"
expect_in "$TMP/write.txt" "decoded WQE (48 bytes): RDMA_WRITE, 3000 bytes -> 3 packets, PSN 100 to 102"
expect_re "$TMP/write.txt" "^packet 1 of 3: [0-9]+ bytes, RC_RDMA_WRITE_FIRST$"
expect_re "$TMP/write.txt" "^packet 2 of 3: [0-9]+ bytes, RC_RDMA_WRITE_MIDDLE$"
expect_re "$TMP/write.txt" "^packet 3 of 3: [0-9]+ bytes, RC_RDMA_WRITE_LAST$"
expect_field "$TMP/write.txt" "^  BTH " "psn" "100 101 102 "
expect_field "$TMP/write.txt" "^  BTH " "ackreq" "0 0 1 "
expect_field "$TMP/write.txt" "^  BTH " "dqpn" "0x000456 0x000456 0x000456 "
expect_field "$TMP/write.txt" "^  PAYLOAD " "PAYLOAD" "1024 1024 952 "
expect_field "$TMP/write.txt" "^  RETH " "dmalen" "3000 "
packet_lines "$TMP/write.txt" 1 >"$TMP/p1"
expect_in "$TMP/p1" "RETH va 0x0000000000010000 rkey 0x00001234 dmalen 3000"
expect_field "$TMP/write.txt" "^  ICRC " "0x[0-9a-f]{8}" "ok ok ok "

# successive requests continue the QP's PSNs and IPv4 identifications
printf 'write raddr=0 rkey=1 sge=0:3000:1\nread raddr=0 rkey=1 sge=0:2049:1\nsend inline=01\n' |
	"$WQE" encode --packets --psn 0xfffffe >"$TMP/out" 2>"$TMP/err"
expect_field "$TMP/out" "^  BTH " "psn" "16777214 16777215 0 1 4 "
expect_field "$TMP/out" "^  IPv4 " "id" "0x0000 0x0001 0x0002 0x0003 0x0004 "
expect_in "$TMP/out" "SEND, 1 byte inline -> 1 packet, PSN 4"

# --- a 5000-byte READ: one request, 5 PSNs --------------------------------
expect_rc 0 "$WQE" encode --packets 'read raddr=0x10000 rkey=0x1234 sge=0x1000:5000:0x5'
expect_in "$TMP/out" "RDMA_READ, 5000 bytes -> 1 packet, PSN 0 to 4 (one per response packet)"
expect_re "$TMP/out" "^packet 1 of 1: [0-9]+ bytes, RC_RDMA_READ_REQUEST$"
expect_field "$TMP/out" "^packet " "packet" "1 "
expect_in "$TMP/out" "RETH va 0x0000000000010000 rkey 0x00001234 dmalen 5000"
expect_in "$TMP/out" "PAYLOAD 0 bytes pad 0"
expect_field "$TMP/out" "^  BTH " "ackreq" "1 "

# --- a solicited SEND_WITH_IMM: SE and ImmDt on the last packet only ------
expect_rc 0 "$WQE" encode --packets --qp uc \
	'send_imm imm=0x01020304 sge=0x1000:2100:5 flags=solicited'
expect_re "$TMP/out" "^packet 1 of 3: [0-9]+ bytes, UC_SEND_FIRST$"
expect_re "$TMP/out" "^packet 3 of 3: [0-9]+ bytes, UC_SEND_LAST_WITH_IMMEDIATE$"
expect_field "$TMP/out" "^  BTH " " se" "0 0 1 "
expect_field "$TMP/out" "^  BTH " "ackreq" "0 0 0 "
expect_field "$TMP/out" "^  ImmDt " "imm" "0x01020304 "
# the payload of address 0x1000 + i is (0x1000 + i) & 0xff
expect_rc 0 "$WQE" encode --packets 'send sge=0x10fe:4:1'
expect_rc 0 "$WQE" encode --packets 'send sge=0x10fe:4:1' --pcap "$TMP/pay.pcap"
expect_rc 0 "$WQE" dissect --hex "$TMP/pay.pcap"
expect_re "$TMP/out" "fe ?ff ?00 ?01"

# --- UD: the destination from the request, the source from the options ---
expect_rc 0 "$WQE" encode --packets --qp ud --qpn 0x99 --qkey 0x11112222 \
	--src-ip 2001:db8::1 'send dqpn=0x456 qkey=0x80000000 sport=49153 dgid=2001:db8::7 dmac=02:00:00:00:00:09 inline=0102'
expect_re "$TMP/out" "^packet 1 of 1: [0-9]+ bytes, UD_SEND_ONLY$"
expect_in "$TMP/out" "IPv6 2001:db8::1 > 2001:db8::7"
expect_in "$TMP/out" "DETH qkey 0x11112222 resv8 0 srcqp 0x000099"
expect_in "$TMP/out" "UDP 49153 > 4791"
expect_rc 2 "$WQE" encode --packets --qp ud 'send dgid=2001:db8::7 inline=01'
expect_in "$TMP/err" "IP family of --src-ip"
expect_rc 2 "$WQE" encode --packets --qp ud 'send dgid=192.0.2.9 sge=0:1025:1'
expect_in "$TMP/err" "over the MTU of 1024 bytes (--pmtu)"

# --- the capture: our dissector and scapy verify it; a flip is named ------
printf 'write raddr=0 rkey=1 sge=0x100:3000:1\nsend_imm imm=7 sge=0:30:1 flags=solicited\nread raddr=0 rkey=1 sge=0:9000:1\nfaa raddr=8 rkey=1 add=3 sge=0:8:1\n' >"$TMP/reqs"
expect_rc 0 "$WQE" encode --packets --pmtu 1024 --pcap "$TMP/out.pcap" <"$TMP/reqs"
expect_re "$TMP/out" "^6 packets written to .*out.pcap$"
CHECKS=$((CHECKS + 1))
[ ! -e "$TMP/out.pcap.tmp" ] || fail "out.pcap.tmp left behind"
expect_rc 0 "$WQE" dissect "$TMP/out.pcap"
expect_re "$TMP/out" "^6 frames: 6 RoCEv2, 0 skipped, 0 bad$"
expect_rc 0 "$PY" "$WIRE/roce_scapy.py" "$TMP/out.pcap"
expect_in "$TMP/out" "6 frames, 6 RoCEv2, 0 bad"
expect_rc 0 "$PY" "$WIRE/pcap_flip.py" "$TMP/out.pcap" "$TMP/flip.pcap" 2 60
expect_rc 1 "$WQE" dissect "$TMP/flip.pcap"
expect_re "$TMP/out" "^frame 2: BAD ICRC"
expect_re "$TMP/out" "1 bad \(bad frames: 2\)$"

# --- AckReq on the last packet of every RC request, READ and atomics ------
# included (as the kernel's rxe sets it), never on UC: read from the capture
# by tshark and by scapy, not by our printer.
printf 'write raddr=0 rkey=1 sge=0x100:3000:1\nread raddr=0 rkey=1 sge=0:9000:1\ncas raddr=8 rkey=1 compare=1 swap=2 sge=0:8:1\nfaa raddr=8 rkey=1 add=3 sge=0:8:1\nsend sge=0:8:1\n' >"$TMP/acks"
expect_rc 0 "$WQE" encode --packets --pmtu 1024 --pcap "$TMP/ack.pcap" <"$TMP/acks"
expect_rc 0 "$WQE" encode --packets --pmtu 1024 --qp uc --pcap "$TMP/ack_uc.pcap" \
	'write raddr=0 rkey=1 sge=0x100:2100:1'
# expect_ackreq NAME WANT: frame by frame, the opcode and A bit of
# $TMP/NAME.pcap as tshark and scapy read them are WANT ("op:a op:a ...").
expect_ackreq() {
	local got pair
	CHECKS=$((CHECKS + 1))
	if ! command -v tshark >/dev/null; then
		fail "tshark is missing (Debian package tshark)"
	else
		got=$(tshark -r "$TMP/$1.pcap" -T fields -E separator=: -e infiniband.bth.opcode \
			-e infiniband.bth.a 2>/dev/null | tr '\n' ' ')
		[ "$got" = "$2 " ] || fail "tshark on $1.pcap: opcode:A '$got', want '$2 '"
	fi
	for pair in $2; do
		printf '{"bth": {"opcode": %s, "ackreq": %s}}\n' "${pair%:*}" "${pair#*:}"
	done >"$TMP/$1.jsonl"
	expect_rc 0 "$PY" "$WIRE/roce_scapy.py" "$TMP/$1.pcap" --expect "$TMP/$1.jsonl"
}
# RC: WRITE FIRST, MIDDLE, LAST; READ request; COMPARE_SWAP; FETCH_ADD; SEND ONLY
expect_ackreq ack "6:0 7:0 8:1 12:1 19:1 20:1 4:1"
# UC: WRITE FIRST, MIDDLE, LAST
expect_ackreq ack_uc "38:0 39:0 40:0"

# --- bad options exit 2 and write nothing --------------------------------
cd "$TMP" || exit 1
for bad in "--pmtu 300" "--pmtu 0x400x" "--psn 0x1000000" "--sport 0xbfff" \
	"--smac 02:00:00:00:00" "--dst-ip 192.0.2" "--pkey 0x10000"; do
	# shellcheck disable=SC2086
	expect_rc 2 "$WQE" encode --packets $bad --pcap bad.pcap 'send sge=0:8:1'
	expect_in "$TMP/err" "bad value"
done
expect_rc 2 "$WQE" encode --packets --src-ip 192.0.2.1 --dst-ip 2001:db8::2 --pcap bad.pcap \
	'send sge=0:8:1'
expect_in "$TMP/err" "same IP family"
expect_rc 2 "$WQE" encode --packets --src-ip 2001:db8::1 --pcap bad.pcap 'send sge=0:8:1'
expect_in "$TMP/err" "same IP family"
expect_rc 2 "$WQE" encode --pmtu 256 'send sge=0:8:1'
expect_in "$TMP/err" "--pmtu needs --packets"
expect_rc 2 "$WQE" encode --packets --raw 'send sge=0:8:1'
expect_rc 2 "$WQE" encode --packets --qp ud --dqpn 5 'send sge=0:8:1'
expect_rc 2 "$WQE" encode --packets --qkey 5 'send sge=0:8:1'
expect_no_capture bad.pcap

# --- a failed or interrupted run leaves no capture ------------------------
printf 'send sge=0:8:1\nsned\n' >"$TMP/badline"
expect_rc 2 "$WQE" encode --packets --pcap bad.pcap <"$TMP/badline"
expect_no_capture bad.pcap
expect_rc 1 "$WQE" encode --packets --pcap /nonexistent/x.pcap 'send sge=0:8:1'
expect_in "$TMP/err" "x.pcap.tmp"
# stdout fails: the capture, complete as it is, is thrown away
CHECKS=$((CHECKS + 1))
"$WQE" encode --packets --pcap bad.pcap 'send sge=0:8:1' >/dev/full 2>/dev/null &&
	fail "a run whose stdout fails exits 0"
expect_no_capture bad.pcap
# the file-size limit stops the writer half-way (SIGXFSZ)
CHECKS=$((CHECKS + 1))
{ (ulimit -f 8; exec "$WQE" encode --packets --pmtu 256 --pcap bad.pcap \
	'write raddr=0 rkey=1 sge=0:100000:1') >/dev/null; } 2>/dev/null &&
	fail "over the size limit, exit 0"
expect_no_capture bad.pcap
# an old capture survives a failed run untouched
echo old >keep.pcap
expect_rc 2 "$WQE" encode --packets --pcap keep.pcap <"$TMP/badline"
CHECKS=$((CHECKS + 1))
[ "$(cat keep.pcap)" = old ] || fail "a failed run changed an existing capture"
# SIGTERM while the writer is blocked on a full stdout pipe
mkfifo pipe
"$WQE" encode --packets --pmtu 256 --pcap bad.pcap 'write raddr=0 rkey=1 sge=0:1000000:1' \
	>pipe 2>/dev/null &
pid=$!
exec 3<pipe
for _ in $(seq 100); do
	[ -s bad.pcap.tmp ] && break
	sleep 0.05
done
CHECKS=$((CHECKS + 1))
[ -s bad.pcap.tmp ] || fail "the writer never started the scratch capture"
kill -TERM "$pid"
wait "$pid"
st=$?
CHECKS=$((CHECKS + 1))
[ "$st" -eq 143 ] || fail "the interrupted writer exited $st, not of SIGTERM"
exec 3<&-
expect_no_capture bad.pcap
cd / || exit 1
finish
