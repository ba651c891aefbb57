# SPDX-License-Identifier: MIT
# Bad input: request lines name input, line and column and exit 2 with no
# partial output; bad options exit 2 with usage; bad hex exits 2; bytes the
# decoder refuses exit 1 with its message.
. "$(dirname "$0")/lib.sh"

# a bad line on stdin: nothing printed, the line and column named
printf 'send sge=1:2:3\n# a comment\n\nwrite raddr=0x10 rkey=zz\nsend\n' >"$TMP/in"
expect_rc 2 "$WQE" encode <"$TMP/in"
expect_empty "$TMP/out"
expect_in "$TMP/err" "wqe: stdin:4:23: expected a number after 'rkey='"
expect_rc 2 "$WQE" encode --raw <"$TMP/in"
expect_empty "$TMP/out"

expect_rc 2 "$WQE" encode "write raddr=0x10 rkey=zz"
expect_in "$TMP/err" "wqe: argument:1:23: expected a number after 'rkey='"
expect_rc 2 "$WQE" encode "sned sge=1:2:3"
expect_in "$TMP/err" "wqe: argument:1:1: unknown opcode 'sned': expected one of send send_imm send_inv write write_imm read cas faa"
expect_rc 2 "$WQE" encode "write swap=1"
expect_in "$TMP/err" "wqe: argument:1:7: 'swap=' does not apply to write"
expect_rc 2 "$WQE" encode "send dqpn=1"
expect_in "$TMP/err" "wqe: argument:1:6: 'dqpn=' is a UD address key"
expect_rc 2 "$WQE" encode "send sge=1:2"
expect_in "$TMP/err" "wqe: argument:1:13: expected ':LKEY'"
expect_rc 2 "$WQE" encode "write raddr"
expect_in "$TMP/err" "wqe: argument:1:12: expected '=' after 'raddr'"
expect_rc 2 "$WQE" encode "write rkey=1 rkey=2"
expect_in "$TMP/err" "wqe: argument:1:14: 'rkey=' given twice"
expect_rc 2 "$WQE" encode --qp ud "send dqpn=0x1000000"
expect_in "$TMP/err" "wqe: argument:1:11: number out of range after 'dqpn='"

# post-time checks of the encoder's QP
expect_rc 2 "$WQE" encode --qp ud "read raddr=8 rkey=1 sge=1:8:1"
expect_in "$TMP/err" "wqe: argument:1:1: RDMA_READ is not legal on a UD QP"
expect_rc 2 "$WQE" encode --qp uc "  cas raddr=8 rkey=1 sge=1:8:1"
expect_in "$TMP/err" "wqe: argument:1:3: ATOMIC_CMP_AND_SWP is not legal on a UC QP"
expect_rc 2 "$WQE" encode --max-inline 8 "write raddr=8 rkey=1 inline=000102030405060708"
expect_in "$TMP/err" "wqe: argument:1:22: inline payload of 9 bytes is over max_inline_data 8"
expect_rc 0 "$WQE" encode --max-inline 9 "write raddr=8 rkey=1 inline=000102030405060708"
expect_rc 2 "$WQE" encode "write raddr=8 rkey=1 inline=$(printf '%0186d' 0)"
expect_in "$TMP/err" "inline payload of 93 bytes is over max_inline_data 92"
expect_rc 2 "$WQE" encode --max-sge 2 "send sge=1:1:1 sge=2:2:2 sge=3:3:3"
expect_in "$TMP/err" "wqe: argument:1:26: 3 SGEs, but the QP takes at most 2"
expect_rc 2 "$WQE" encode "read raddr=8 rkey=1 inline=00"
expect_in "$TMP/err" "wqe: argument:1:21: RDMA_READ cannot carry inline data"
expect_rc 2 "$WQE" encode "faa raddr=8 rkey=1 sge=1:16:1"
expect_in "$TMP/err" "wqe: argument:1:20: an atomic's SGE must be 8 bytes long, not 16"
expect_rc 2 "$WQE" encode "cas raddr=12 rkey=1 sge=1:8:1"
expect_in "$TMP/err" "wqe: argument:1:5: an atomic's remote address 0xc is not 8-byte aligned"
expect_rc 2 "$WQE" encode "faa raddr=8 rkey=1"
expect_in "$TMP/err" "an atomic takes exactly one SGE"

# no request at all
expect_rc 2 "$WQE" encode </dev/null
expect_in "$TMP/err" "wqe: stdin: no request given"
printf '# nothing\n\n' | expect_rc 2 "$WQE" encode

# bad options: exit 2 and the usage
expect_rc 2 "$WQE" encode --bogus "send"
expect_in "$TMP/err" "usage: wqe encode"
expect_rc 2 "$WQE" encode --qp xx "send"
expect_rc 2 "$WQE" encode --qpn 0x1000000 "send"
expect_rc 2 "$WQE" encode --max-sge 65 "send"
expect_rc 2 "$WQE" encode --max-sge 62 "send"
expect_in "$TMP/err" "no RC WQE holds 62 SGEs"
expect_rc 2 "$WQE" encode --format bogus "send"
expect_rc 2 "$WQE" encode --format mlx5,mlx5 "send"
expect_rc 2 "$WQE" encode --format mlx5, "send"
expect_rc 2 "$WQE" encode --format mlx5,rxe --raw "send"
expect_in "$TMP/err" "--raw takes one format"
expect_rc 2 "$WQE" encode --format mlx5,rxe --packets "send"
expect_rc 2 "$WQE" encode --format rxe --max-sge 33 "send"
expect_in "$TMP/err" "in the rxe format (at most 32)"
expect_rc 2 "$WQE" encode --format rxe --max-inline 513 "send"
expect_rc 2 "$WQE" decode --format rxe --slot 100 00
expect_rc 2 "$WQE" decode --slot 256 00
expect_rc 2 "$WQE" decode --format rxe --slot 256 --max-sge 1 00
expect_rc 2 "$WQE" decode --format rxe --max-sge 40 00
expect_rc 2 "$WQE" encode --qp
expect_in "$TMP/err" "option --qp needs a value"
expect_rc 2 "$WQE" encode "send" "send"
expect_rc 2 "$WQE" bogus
expect_rc 2 "$WQE"

# decode: bad hex exits 2, refused bytes exit 1 with the decoder's message
expect_rc 2 "$WQE" decode 00zz
expect_in "$TMP/err" "bad hex: 'z' at character 3"
expect_rc 2 "$WQE" decode 000
expect_in "$TMP/err" "bad hex"
expect_rc 2 "$WQE" decode </dev/null
expect_in "$TMP/err" "no bytes given"
expect_rc 2 "$WQE" decode --qp xx 00
expect_in "$TMP/err" "usage: wqe decode"
good=0000050a00012302000000080000000000000040000012340000""7f0000001000
expect_rc 0 "$WQE" decode $good
bad_opcode=000005ff${good:8}
expect_rc 1 "$WQE" decode $bad_opcode
expect_in "$TMP/err" "bad opcode: unknown to the format"
expect_empty "$TMP/out"
expect_rc 1 "$WQE" decode ${good:0:40}
expect_in "$TMP/err" "truncated"
bad_ds=0000050a00012300${good:16}
expect_rc 1 "$WQE" decode $bad_ds
expect_in "$TMP/err" "bad size"
expect_rc 1 "$WQE" decode --qp ud $good
expect_in "$TMP/err" "bad segments"
# a refused second WQE: nothing printed for the first either
expect_rc 1 "$WQE" decode "$good$(printf "%064d" 0) $bad_opcode"
expect_in "$TMP/err" "the WQE at byte 64 is refused: bad opcode"
expect_empty "$TMP/out"
# WQE_FAST_PATH: a bad value is a usage error before any output; 0 runs
# the same scenario on the general path alone
for v in off 2 ""; do
	expect_rc 2 env WQE_FAST_PATH="$v" "$WQE" demo
	expect_empty "$TMP/out"
	expect_in "$TMP/err" "wqe: WQE_FAST_PATH='$v': expected 0 (the NIC's fast paths off) or 1"
done
ex="$(dirname "$0")/../../examples/01-rdma-write.wqe"
expect_rc 0 env WQE_FAST_PATH=0 "$WQE" run "$ex"
expect_rc 0 env WQE_FAST_PATH=1 "$WQE" run "$ex"
# WQE_NIC_MODE: a bad value is a usage error before any output; thread is
# refused where a scenario runs (a virtual clock in the command's calls),
# caller runs it
for v in threads 1 ""; do
	expect_rc 2 env WQE_NIC_MODE="$v" "$WQE" run "$ex"
	expect_empty "$TMP/out"
	expect_in "$TMP/err" "wqe: WQE_NIC_MODE='$v': expected caller"
done
for c in run demo; do
	expect_rc 2 env WQE_NIC_MODE=thread "$WQE" $c "$ex"
	expect_empty "$TMP/out"
	expect_in "$TMP/err" "wqe $c: WQE_NIC_MODE=thread: scenarios run the NIC on a virtual clock"
done
expect_rc 0 env WQE_NIC_MODE=caller "$WQE" run "$ex"
expect_rc 0 env WQE_NIC_MODE=thread "$WQE" sizes
finish
