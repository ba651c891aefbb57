# SPDX-License-Identifier: MIT
# wqe demo runs with no arguments and no files and shows every operation
# family, every transport, the four flags and the post-time refusals.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
expect_rc 0 "$WQE" demo
O=$TMP/out
expect_empty "$TMP/err"
for op in SEND SEND_WITH_IMM SEND_WITH_INV RDMA_WRITE RDMA_WRITE_WITH_IMM RDMA_READ \
	ATOMIC_CMP_AND_SWP ATOMIC_FETCH_AND_ADD; do
	# the software request, and what the NIC decodes
	expect_re $O "^  opcode +$op \\("
	expect_re $O "^  op +$op$"
done
for opc in "SEND (0x0a)" "SEND_IMM (0x0b)" "SEND_INVAL (0x01)" "RDMA_WRITE (0x08)" \
	"RDMA_WRITE_IMM (0x09)" "RDMA_READ (0x10)" "ATOMIC_CS (0x11)" "ATOMIC_FA (0x12)"; do
	expect_in $O "$opc"
done
expect_in $O "(mlx5, RC QP 0x000123"
expect_in $O "(mlx5, UC QP 0x000124"
expect_in $O "(mlx5, UD QP 0x000125"
# the three shapes
expect_in $O "-- shape 1: the software Work Request (struct wqe_send_wr)"
expect_in $O "-- shape 2: the WQE in the send-queue ring"
expect_in $O "-- what the NIC side decodes from those bytes (struct wqe_desc)"
# flags: fence, signaled and unsignaled, solicited, inline on both sides of 28 B
expect_in $O "FENCE|CQ_UPDATE"
expect_in $O "CQ_UPDATE|SOLICITED"
expect_in $O "none (unsignaled)"
expect_in $O "64 bytes, ds=4, 1 block of 64 B; inline payload of 28 bytes at offset 36"
expect_in $O "80 bytes, ds=5, 2 blocks of 64 B; inline payload of 29 bytes at offset 36"
expect_in $O "remote QPN 0x000456, extended AV"
expect_in $O "2001:db8::2"
# refused at post time, on real QPs
expect_in $O "Refused at post time"
CHECKS=$((CHECKS + 1))
[ "$(grep -c 'wqe_post_send -> EINVAL, \*bad_wr = this request' $O)" -eq 5 ] ||
	fail "not five EINVAL refusals"
expect_in $O "RDMA_READ on a UD QP"
expect_rc 2 "$WQE" demo extra
CHECKS=$((CHECKS + 1))
[ -z "$(ls -A "$TMP" | grep -v -e '^out$' -e '^err$')" ] || fail "demo wrote files"
finish
