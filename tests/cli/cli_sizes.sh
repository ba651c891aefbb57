# SPDX-License-Identifier: MIT
# wqe sizes prints the figures of the design text from the code: 36, 68, 28.
. "$(dirname "$0")/lib.sh"

expect_rc 0 "$WQE" sizes
O=$TMP/out
expect_in $O "ctrl 16, raddr 16, atomic 16, datagram 48, data 16, inline header 4"
expect_in $O "RC/UC inline WQE fixed part: 36 B (RC) / 36 B (UC)"
expect_in $O "UD inline WQE fixed part: 68 B"
expect_in $O "largest inline payload keeping an RDMA_WRITE in one 64-byte block: 28 B (RC) / 28 B (UC)"
expect_in $O "searched with wqe_encoded_size: 28 B inline -> 64 B, 29 B inline -> 128 B"
expect_in $O "a UD SEND never fits one block and keeps 60 B in two"
# the fixed-part table: RDMA_WRITE 32/32/- and inline 36/36/-; SEND inline on UD 68
expect_re $O "^  RDMA_WRITE +32 +32 +- +36 +36 +-$"
expect_re $O "^  SEND +16 +16 +64 +20 +20 +68$"
expect_re $O "^  ATOMIC_CMP_AND_SWP +48 +- +- +- +- +-$"
# QP sizing: an RC QP asking 1 SGE and 0 or 28 B inline gets 64-byte WQEs and 28 B
expect_re $O "^  RC +1 +0 +\| +64 +1 +64 +64 +2 +28$"
expect_re $O "^  RC +1 +28 +\| +64 +1 +64 +64 +2 +28$"
expect_re $O "^  UD +1 +0 +\| +128 +2 +128 +64 +4 +60$"

expect_rc 0 "$WQE" sizes --format mlx5
expect_rc 2 "$WQE" sizes --format rxe
expect_in "$TMP/err" "usage: wqe sizes"
expect_rc 2 "$WQE" sizes extra
finish
