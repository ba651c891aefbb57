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

# rxe: the 208-byte struct, its parts, the slot table beside mlx5, inline limits
expect_rc 0 "$WQE" sizes --format rxe
expect_in $O "WQE sizes of the rxe format, computed by the library"
expect_in $O "fixed part (wqe_fixed_size): 208 B for every one of the 39 opcode, transport and inline cases"
expect_re $O "^  wr +bytes +0-23 +24 B  wr_id, reserved, opcode, send_flags, ex$"
expect_re $O "^  ud +bytes +24-55 +32 B  remote_qpn, remote_qkey, pkey_index, reserved, ah_num, pad$"
expect_re $O "^  av +bytes +56-143 +88 B  port_num, network_type, dmac, dgid, "
expect_re $O "^  progress +bytes 144-183 +40 B  status, state, iova, "
expect_re $O "^  dma +bytes 184-207 +24 B  length, resid, cur_sge, num_sge, sge_offset, reserved$"
expect_re $O "^  sge\[0\] +bytes 208-223 +16 B  addr, length, lkey$"
# slot, blocks, ring, send_wr (one slot empty), send_sge, max_inline | mlx5 WQE, send_sge, max_inline
expect_re $O "^ +1 +0 +\| +256 +4 +512 +127 +1 +16 +\| +64 +2 +28$"
expect_re $O "^ +4 +0 +\| +512 +8 +1024 +127 +4 +64 +\| +128 +6 +92$"
expect_re $O "^ +32 +0 +\| +1024 +16 +2048 +127 +32 +512 +\| +576 +34 +540$"
expect_re $O "^ +1 +512 +\| +1024 +16 +2048 +127 +32 +512 +\| "
expect_re $O "^ +1 +513 +\| +refused "
expect_re $O "^ +33 +0 +\| +refused "
expect_in $O "UC and UD: the same slots"
expect_in $O "rxe:  at most 512 B (wqe_calc_sq refuses 513), copied after the 208-byte fixed part"
expect_in $O "208 + 512 = 720 B, so such a QP has 1024-byte slots"
expect_in $O "mlx5: 28 B keep the WQE in one 64-byte block (fixed part 36 B"
# receive slots: recv_sge | rxe slot, slots, ring, recv_wr (one slot empty) | mlx5 slot, slots, recv_wr
expect_in $O "struct rxe_recv_wqe is 40 B"
expect_re $O "^ +1 +\| +64 +128 +8192 +127 +\| +16 +64 +64$"
expect_re $O "^ +6 +\| +256 +128 +32768 +127 +\| +128 +64 +64$"
expect_re $O "^ +32 +\| +1024 +128 +131072 +127 +\| +512 +64 +64$"
expect_re $O "^ +33 +\| +refused "
expect_in $O "Why they differ:"
expect_in $O "the doorbell is a system call naming the QP"
expect_rc 2 "$WQE" sizes --format mlx5,rxe
expect_in "$TMP/err" "usage: wqe sizes"
expect_rc 2 "$WQE" sizes --format bogus
expect_rc 2 "$WQE" sizes extra
finish
