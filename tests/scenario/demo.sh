# SPDX-License-Identifier: MIT
# wqe demo: runs with no arguments and no files, shows every operation
# family, the three transports, the four flags, both kinds of refusal and a
# summary, and writes demo.pcap, which our dissector and tshark both decode
# as InfiniBand, every frame. usage: demo.sh path/to/wqe path/to/demo.wqe
set -u
WQE=${1:?usage: $0 path/to/wqe examples/demo.wqe}
SRC=${2:?usage: $0 path/to/wqe examples/demo.wqe}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
CHECKS=0
O=$TMP/out

fail() {
	FAILS=$((FAILS + 1))
	echo "FAIL: $*" >&2
}

# expect_rc WANT CMD...: runs CMD in $TMP/run with stdout in $O, stderr in $TMP/err.
expect_rc() {
	local want=$1 rc
	shift
	CHECKS=$((CHECKS + 1))
	(cd "$TMP/run" && "$@") >"$O" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "exit $rc (want $want): $*"
		sed 's/^/  stderr: /' "$TMP/err" | head -5 >&2
	fi
}

expect_in() { # FILE TEXT: FILE holds TEXT (a fixed string)
	CHECKS=$((CHECKS + 1))
	grep -qF -- "$2" "$1" || fail "'$2' not in $(basename "$1")"
}

expect_re() { # FILE REGEX
	CHECKS=$((CHECKS + 1))
	grep -qE -- "$2" "$1" || fail "/$2/ not in $(basename "$1")"
}

fresh() {
	rm -rf "$TMP/run"
	mkdir -p "$TMP/run"
}

# --- the demo, as a user runs it: no arguments, an empty directory ---
fresh
expect_rc 0 "$WQE" demo
CHECKS=$((CHECKS + 1))
[ ! -s "$TMP/err" ] || fail "stderr is not empty: $(head -3 "$TMP/err")"
# The introduction names the three shapes.
expect_in $O "Each request appears in its three shapes:"
expect_in $O "1. the software Work Request"
expect_in $O "2. the WQE the driver wrote into the send-queue ring"
expect_in $O "3. the packets the NIC made of it"
# Every operation family: as the software Work Request names it...
for op in SEND SEND_WITH_IMM SEND_WITH_INV RDMA_WRITE RDMA_WRITE_WITH_IMM RDMA_READ \
	ATOMIC_CMP_AND_SWP ATOMIC_FETCH_AND_ADD; do
	expect_re $O "^  opcode +$op \\("
	expect_re $O "^ *[0-9]+ +[0-9]+ [a-z_]+ +RC $op "
done
# ...as the WQE's control segment encodes it, and as the wire carries it.
for opc in "SEND (0x0a)" "SEND_IMM (0x0b)" "SEND_INVAL (0x01)" "RDMA_WRITE (0x08)" \
	"RDMA_WRITE_IMM (0x09)" "RDMA_READ (0x10)" "ATOMIC_CS (0x11)" "ATOMIC_FA (0x12)"; do
	expect_in $O "$opc"
done
for w in RC_SEND_ONLY RC_SEND_ONLY_WITH_IMMEDIATE RC_SEND_ONLY_WITH_INVALIDATE \
	RC_RDMA_WRITE_FIRST RC_RDMA_WRITE_MIDDLE RC_RDMA_WRITE_LAST \
	RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE RC_RDMA_READ_REQUEST RC_RDMA_READ_RESPONSE_ONLY \
	RC_COMPARE_SWAP RC_FETCH_ADD RC_ATOMIC_ACKNOWLEDGE RC_ACKNOWLEDGE \
	UC_RDMA_WRITE_ONLY UC_SEND_ONLY UD_SEND_ONLY; do
	expect_re $O "^ +$w  PSN [0-9]+"
done
# The three transports and the four flags.
expect_re $O " UC RDMA_WRITE "
expect_re $O " UD SEND "
expect_in $O "FENCE|CQ_UPDATE"
expect_in $O "waits: FENCE"
expect_in $O "CQ_UPDATE|SOLICITED"
expect_re $O "RC_SEND_ONLY_WITH_IMMEDIATE  PSN [0-9]+  SE 1"
expect_in $O "none: unsignaled (it succeeded)"
expect_in $O "no CQE: unsignaled, and it succeeded"
expect_in $O "64 bytes, ds=4, 1 block of 64 B; inline payload of 28 bytes at offset 36"
expect_in $O "48 bytes, ds=3, 1 block of 64 B; 1 data segment naming 29 bytes"
expect_in $O "host-memory cost: 1 WQE block read + 0 payload reads = 1 transaction (the payload came with the WQE)"
expect_in $O "host-memory cost: 1 WQE block read + 1 payload read = 2 transactions"
# Refused at post time, and by the NIC at processing time.
expect_in $O "post time: REFUSED by wqe_post_send (EINVAL): inline check: 29 B inline is over max_inline_data 28"
expect_in $O "none: refused at post time, EINVAL"
expect_in $O "processing-time check FAILED"
expect_in $O "-> no packet; a LOC_PROT_ERR CQE (written even when unsignaled)"
expect_re $O "LOC_PROT_ERR \\(processing-time .* check: no packet\\)"
expect_in $O "WR_FLUSH_ERR (flushed"
# The summary, and the scenario's own verdict.
expect_in $O "== Summary: one row per request posted =="
expect_re $O "^ +#  line QP +tr opcode"
expect_re $O "all [0-9]+ expectations held"

# --- the capture: whole, every frame RoCEv2 with a good ICRC, and InfiniBand to tshark ---
P=$TMP/run/demo.pcap
CHECKS=$((CHECKS + 1))
[ -s "$P" ] || fail "demo.pcap was not written"
CHECKS=$((CHECKS + 1))
[ ! -e "$P.tmp" ] || fail "demo.pcap.tmp left behind"
CHECKS=$((CHECKS + 1))
"$WQE" dissect "$P" >"$TMP/dissect" 2>&1 || fail "wqe dissect demo.pcap failed"
FRAMES=$(sed -n 's/^\([0-9]*\) frames: \([0-9]*\) RoCEv2, 0 skipped, 0 bad$/\1 \2/p' "$TMP/dissect")
CHECKS=$((CHECKS + 1))
set -- $FRAMES
if [ $# -ne 2 ] || [ "$1" != "$2" ] || [ "$1" -lt 20 ]; then
	fail "wqe dissect: $(tail -1 "$TMP/dissect")"
fi
N=${1:-0}
CHECKS=$((CHECKS + 1))
if ! command -v tshark >/dev/null; then
	fail "tshark is missing (Debian package tshark)"
else
	tshark -r "$P" -T fields -e frame.number -e infiniband.bth.opcode \
		>"$TMP/tshark" 2>/dev/null || fail "tshark -r demo.pcap failed"
	CHECKS=$((CHECKS + 1))
	[ "$(wc -l <"$TMP/tshark")" -eq "$N" ] || fail "tshark shows $(wc -l <"$TMP/tshark") frames, expected $N"
	CHECKS=$((CHECKS + 1))
	BAD=$(awk -F'\t' '$2 == "" { print $1 }' "$TMP/tshark" | head -3)
	[ -z "$BAD" ] || fail "tshark does not decode frames $BAD as InfiniBand"
fi

# --- the built-in scenario is examples/demo.wqe, byte for byte ---
fresh
expect_rc 0 "$WQE" demo --scenario
CHECKS=$((CHECKS + 1))
cmp -s "$O" "$SRC" || fail "wqe demo --scenario differs from $SRC"

# --- options ---
fresh
expect_rc 0 "$WQE" demo --quiet
expect_in $O "== Summary: one row per request posted =="
CHECKS=$((CHECKS + 1))
! grep -qF "shape 1" $O || fail "--quiet printed the trace"
CHECKS=$((CHECKS + 1))
[ "$(wc -l <"$O")" -lt 40 ] || fail "--quiet printed $(wc -l <"$O") lines"
fresh
expect_rc 0 "$WQE" demo --no-pcap -q
CHECKS=$((CHECKS + 1))
[ -z "$(ls -A "$TMP/run")" ] || fail "--no-pcap wrote $(ls -A "$TMP/run")"
fresh
mkdir "$TMP/run/sub"
expect_rc 0 "$WQE" demo -q --pcap sub/x.pcap
CHECKS=$((CHECKS + 1))
[ -s "$TMP/run/sub/x.pcap" ] && [ ! -e "$TMP/run/demo.pcap" ] || fail "--pcap PATH was not honoured"
fresh
expect_rc 1 "$WQE" demo -q --pcap "$TMP/no/such/dir/x.pcap"
expect_rc 2 "$WQE" demo extra
expect_rc 2 "$WQE" demo --pcap
expect_rc 0 "$WQE" demo --help
expect_in $O "usage: wqe demo"

echo "$((CHECKS - FAILS)) passed, $FAILS failed"
[ "$FAILS" -eq 0 ]
