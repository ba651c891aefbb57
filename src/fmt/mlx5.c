/* SPDX-License-Identifier: MIT */
/*
 * mlx5.c - the mlx5 WQE encoder and sizing, as rdma-core's mlx5 provider
 * (providers/mlx5/qp.c _mlx5_post_send; verbs.c mlx5_calc_send_wqe) does
 * them. Layout: shared/reference/mlx5-send-path.md sections 1-3.
 *
 * Encoding follows the liburing habit: plan (validate and size the whole
 * request, touching nothing), then one setter per segment, in order,
 * straight into the ring, then zeroes to the end of the last block. The
 * setters and the writer are in mlx5_wqe.h, shared with the post path; a
 * WQE that would run past the ring's end is written into a staging copy
 * first (mlx5_write_wrapped).
 */
#include "fmt/mlx5.h"
#include "fmt/mlx5_wqe.h"

#include <errno.h>
#include <string.h>

#include "tables/catalog.h"

#define MLX5_KNOWN_SEND_FLAGS                                                          \
	(WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED | WQE_SEND_INLINE)

/* A UD SEND or SEND_WITH_IMM: the only requests whose wr.ud is meaningful. */
static bool ud_send(const struct wqe_send_wr *wr)
{
	return wr->opcode == WQE_WR_SEND || wr->opcode == WQE_WR_SEND_WITH_IMM;
}

const uint8_t mlx5_opcodes[WQE_OP_COUNT] = {
	[WQE_OP_SEND] = MLX5_OPC_SEND,
	[WQE_OP_SEND_WITH_IMM] = MLX5_OPC_SEND_IMM,
	[WQE_OP_SEND_WITH_INV] = MLX5_OPC_SEND_INVAL,
	[WQE_OP_RDMA_WRITE] = MLX5_OPC_RDMA_WRITE,
	[WQE_OP_RDMA_WRITE_WITH_IMM] = MLX5_OPC_RDMA_WRITE_IMM,
	[WQE_OP_RDMA_READ] = MLX5_OPC_RDMA_READ,
	[WQE_OP_ATOMIC_CMP_AND_SWP] = MLX5_OPC_ATOMIC_CS,
	[WQE_OP_ATOMIC_FETCH_AND_ADD] = MLX5_OPC_ATOMIC_FA,
};

/* mlx5_opcodes inverted, so that the decoder finds an opcode by index. */
const uint8_t mlx5_ops_of_opcode[MLX5_OPC_SLOTS] = {
	[0x00] = MLX5_NO_OP,
	[MLX5_OPC_SEND_INVAL] = WQE_OP_SEND_WITH_INV,
	[0x02] = MLX5_NO_OP, [0x03] = MLX5_NO_OP, [0x04] = MLX5_NO_OP,
	[0x05] = MLX5_NO_OP, [0x06] = MLX5_NO_OP, [0x07] = MLX5_NO_OP,
	[MLX5_OPC_RDMA_WRITE] = WQE_OP_RDMA_WRITE,
	[MLX5_OPC_RDMA_WRITE_IMM] = WQE_OP_RDMA_WRITE_WITH_IMM,
	[MLX5_OPC_SEND] = WQE_OP_SEND,
	[MLX5_OPC_SEND_IMM] = WQE_OP_SEND_WITH_IMM,
	[0x0c] = MLX5_NO_OP, [0x0d] = MLX5_NO_OP, [0x0e] = MLX5_NO_OP, [0x0f] = MLX5_NO_OP,
	[MLX5_OPC_RDMA_READ] = WQE_OP_RDMA_READ,
	[MLX5_OPC_ATOMIC_CS] = WQE_OP_ATOMIC_CMP_AND_SWP,
	[MLX5_OPC_ATOMIC_FA] = WQE_OP_ATOMIC_FETCH_AND_ADD,
};

#define SEGS(s) { (s), (MLX5_CTRL_BYTES + MLX5_SEGS_BYTES(s)) / MLX5_DS_BYTES }
#define NONE SEGS(0)
#define RADDR SEGS(MLX5_SEG_RADDR)
#define ATOMIC SEGS(MLX5_SEG_RADDR | MLX5_SEG_ATOMIC)
#define DGRAM SEGS(MLX5_SEG_DGRAM)
/*
 * By transport (RC, UC, UD) and operation: what the transport's switch in
 * _mlx5_post_send writes. RC: raddr for READ/WRITE/WRITE_IMM, raddr +
 * atomic for the atomics; UC: raddr for WRITE/WRITE_IMM only (an opcode
 * illegal on UC gets nothing extra); UD: the datagram segment whatever the
 * opcode.
 */
const struct mlx5_transport mlx5_transports[3][WQE_OP_COUNT] = {
	[WQE_QPT_RC - WQE_QPT_RC] = {
		[WQE_OP_SEND] = NONE,
		[WQE_OP_SEND_WITH_IMM] = NONE,
		[WQE_OP_SEND_WITH_INV] = NONE,
		[WQE_OP_RDMA_WRITE] = RADDR,
		[WQE_OP_RDMA_WRITE_WITH_IMM] = RADDR,
		[WQE_OP_RDMA_READ] = RADDR,
		[WQE_OP_ATOMIC_CMP_AND_SWP] = ATOMIC,
		[WQE_OP_ATOMIC_FETCH_AND_ADD] = ATOMIC,
	},
	[WQE_QPT_UC - WQE_QPT_RC] = {
		[WQE_OP_SEND] = NONE,
		[WQE_OP_SEND_WITH_IMM] = NONE,
		[WQE_OP_SEND_WITH_INV] = NONE,
		[WQE_OP_RDMA_WRITE] = RADDR,
		[WQE_OP_RDMA_WRITE_WITH_IMM] = RADDR,
		[WQE_OP_RDMA_READ] = NONE,
		[WQE_OP_ATOMIC_CMP_AND_SWP] = NONE,
		[WQE_OP_ATOMIC_FETCH_AND_ADD] = NONE,
	},
	[WQE_QPT_UD - WQE_QPT_RC] = {
		DGRAM, DGRAM, DGRAM, DGRAM, DGRAM, DGRAM, DGRAM, DGRAM,
	},
};
#undef SEGS
#undef NONE
#undef RADDR
#undef ATOMIC
#undef DGRAM

/* Sums the SGEs of @wr and counts the non-empty ones; for an INLINE
 * request also checks that each non-empty one has an address to copy from
 * and that the total fits max_inline_data. 0 or EINVAL. */
static int scan_sges(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		     uint64_t *total, uint32_t *nseg)
{
	uint64_t sum = 0;
	uint32_t n = 0;
	int i;

	if (!(wr->send_flags & WQE_SEND_INLINE)) {
		for (i = 0; i < wr->num_sge; i++)
			n += wr->sg_list[i].length != 0;
		*total = 0; /* not needed without INLINE */
		*nseg = n;
		return 0;
	}
	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *sge = &wr->sg_list[i];

		sum += sge->length;
		/* inline bytes are read from this address: it must be one */
		if (sge->length && !sge->addr)
			return EINVAL;
	}
	if (sum > qp->max_inline_data)
		return EINVAL;
	*total = sum;
	*nseg = 0;
	return 0;
}

/* Validates @wr for @qp and sizes its WQE; writes nothing. */
static int plan_wr(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		   struct mlx5_plan *p)
{
	const struct catalog_entry *cat;
	enum wqe_op op;
	uint64_t total;
	uint32_t nseg;
	int err;

	if (!mlx5_qpt_valid(qp->qp_type) || !catalog_op_from_wr(wr->opcode, &op))
		return EINVAL;
	cat = &catalog_ops[op];
	if (wr->send_flags & ~(unsigned int)MLX5_KNOWN_SEND_FLAGS)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge)
		return EINVAL;
	if (wr->num_sge > 0 && !wr->sg_list)
		return EINVAL;
	if ((wr->send_flags & WQE_SEND_INLINE) && !cat->inline_ok)
		return EINVAL;
	if (qp->qp_type == WQE_QPT_UD && ud_send(wr) && !wr->wr.ud.ah)
		return EINVAL;
	err = scan_sges(qp, wr, &total, &nseg);
	if (err)
		return err;
	return mlx5_plan_layout(p, qp->qp_type, op, (wr->send_flags & WQE_SEND_INLINE) != 0, total,
				nseg);
}

static bool ring_ok(const struct wqe_ring_view *ring)
{
	uint32_t n = ring->nblocks;

	/* at most 2^26 blocks, so that byte offsets fit 32 bits anywhere */
	return n >= WQE_MAX_BLOCKS && (n & (n - 1)) == 0 && n <= (1u << 26);
}

const uint8_t mlx5_ctrl_of_flags[MLX5_FLAGS_CTRL_MASK + 1] = {
	[WQE_SEND_FENCE] = MLX5_CTRL_FENCE,
	[WQE_SEND_SIGNALED] = MLX5_CTRL_CQ_UPDATE,
	[WQE_SEND_SOLICITED] = MLX5_CTRL_SOLICITED,
	[WQE_SEND_FENCE | WQE_SEND_SIGNALED] = MLX5_CTRL_FENCE | MLX5_CTRL_CQ_UPDATE,
	[WQE_SEND_FENCE | WQE_SEND_SOLICITED] = MLX5_CTRL_FENCE | MLX5_CTRL_SOLICITED,
	[WQE_SEND_SIGNALED | WQE_SEND_SOLICITED] = MLX5_CTRL_CQ_UPDATE | MLX5_CTRL_SOLICITED,
	[WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED] =
		MLX5_CTRL_FENCE | MLX5_CTRL_CQ_UPDATE | MLX5_CTRL_SOLICITED,
};

void mlx5_write_wrapped(const struct wqe_ring_view *ring, uint32_t slot,
			const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
			const struct mlx5_plan *p, uint32_t wqe_index)
{
	uint8_t staging[(MLX5_MAX_DS * MLX5_DS_BYTES + WQE_BLOCK_SIZE - 1) / WQE_BLOCK_SIZE *
			WQE_BLOCK_SIZE];
	uint32_t first = slot & (ring->nblocks - 1), fit = ring->nblocks - first;

	mlx5_write_wqe(staging, qp, wr, p, wqe_index);
	memcpy(ring->buf + (size_t)first * WQE_BLOCK_SIZE, staging, (size_t)fit * WQE_BLOCK_SIZE);
	memcpy(ring->buf, staging + (size_t)fit * WQE_BLOCK_SIZE,
	       (size_t)(p->nblocks - fit) * WQE_BLOCK_SIZE);
}

/*
 * Plans @wr and, if its WQE needs at most @room blocks, writes it at block
 * @slot of @ring (a valid one).
 */
static int encode_at(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		     const struct wqe_ring_view *ring, uint32_t slot, uint32_t wqe_index,
		     uint32_t room, uint32_t *nblocks)
{
	struct mlx5_plan p;
	int err;

	err = plan_wr(qp, wr, &p);
	if (err)
		return err;
	if (p.nblocks > room)
		return ENOMEM;
	mlx5_write_at(ring, slot, qp, wr, &p, wqe_index);
	*nblocks = p.nblocks;
	return 0;
}

static int mlx5_encoded_size(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
			     uint32_t *bytes)
{
	struct mlx5_plan p;
	int err = plan_wr(qp, wr, &p);

	if (err)
		return err;
	*bytes = p.nblocks * WQE_BLOCK_SIZE;
	return 0;
}

static int mlx5_encode(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		       const struct wqe_ring_view *ring, uint32_t slot, uint32_t wqe_index,
		       uint32_t *nblocks)
{
	uint32_t nb;

	if (!ring_ok(ring))
		return EINVAL;
	return encode_at(qp, wr, ring, slot, wqe_index, UINT32_MAX, nblocks ? nblocks : &nb);
}

/* The ring is a QP's own, valid by construction (fmt.h): not checked. */
static int mlx5_encode_room(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
			    const struct wqe_ring_view *ring, uint32_t slot, uint32_t wqe_index,
			    uint32_t room, uint32_t *nblocks)
{
	return encode_at(qp, wr, ring, slot, wqe_index, room, nblocks);
}

static uint32_t mlx5_fixed_size(enum wqe_qp_type t, enum wqe_wr_opcode wr_op, int is_inline)
{
	enum wqe_op op;

	if (!mlx5_qpt_valid(t) || !catalog_op_from_wr(wr_op, &op))
		return 0;
	if (is_inline && !catalog_op_inline_ok(op))
		return 0;
	return MLX5_CTRL_BYTES + mlx5_segs_bytes(mlx5_transport_segs(t, op)) +
	       (is_inline ? MLX5_INL_HDR_BYTES : 0);
}

static bool cap_in_range(const struct wqe_qp_cap *cap)
{
	return cap->max_send_wr >= 1 && cap->max_send_wr <= 32768 &&
	       cap->max_recv_wr >= 1 && cap->max_recv_wr <= 32768 &&
	       cap->max_recv_sge >= 1 && cap->max_recv_sge <= WQE_DESC_MAX_SGE;
}

/*
 * mlx5_calc_send_wqe with the overheads of the QP's own operations (as
 * ibv_create_qp_ex with send_ops_flags of exactly those): data-carrying
 * fixed part RC/UC ctrl + raddr, UD ctrl + datagram; RC at least an atomic
 * with its data segment. Unlike the provider, the inline term counts even
 * when no inline is asked for: that only changes a UD QP with no SGE, where
 * the provider's 64-byte WQE leaves max_inline_data = 64 - 64 - 4 < 0.
 */
static int mlx5_calc_sq(enum wqe_qp_type t, struct wqe_qp_cap *cap, uint32_t *wqe_bytes,
			uint32_t *ring_blocks)
{
	uint64_t fixed, data, inl, need, size, usable, sge;
	uint32_t wqe_blocks, ring;

	if (!mlx5_qpt_valid(t) || !cap_in_range(cap))
		return EINVAL;
	fixed = MLX5_CTRL_BYTES + (t == WQE_QPT_UD ? MLX5_DGRAM_BYTES : MLX5_RADDR_BYTES);
	data = fixed + (uint64_t)cap->max_send_sge * MLX5_DATA_BYTES;
	if (t == WQE_QPT_RC && data < MLX5_CTRL_BYTES + MLX5_RADDR_BYTES + MLX5_ATOMIC_BYTES +
					      MLX5_DATA_BYTES)
		data = MLX5_CTRL_BYTES + MLX5_RADDR_BYTES + MLX5_ATOMIC_BYTES + MLX5_DATA_BYTES;
	inl = fixed + mlx5_align(MLX5_INL_HDR_BYTES + (uint64_t)cap->max_inline_data,
				 MLX5_DS_BYTES);
	need = data > inl ? data : inl;
	if (need > WQE_MLX5_MAX_WQE_BYTES)
		return EINVAL;
	size = mlx5_align(need, WQE_BLOCK_SIZE);
	usable = size < WQE_MLX5_MAX_WQE_BYTES ? size : WQE_MLX5_MAX_WQE_BYTES;
	sge = (usable - fixed) / MLX5_DATA_BYTES;
	wqe_blocks = (uint32_t)(size / WQE_BLOCK_SIZE);
	ring = cap->max_send_wr * wqe_blocks;
	ring = fmt_pow2(ring < WQE_MAX_BLOCKS ? WQE_MAX_BLOCKS : ring);

	cap->max_inline_data = (uint32_t)(usable - fixed - MLX5_INL_HDR_BYTES);
	cap->max_send_sge = (uint32_t)(sge < WQE_DESC_MAX_SGE ? sge : WQE_DESC_MAX_SGE);
	cap->max_send_wr = ring / wqe_blocks;
	*wqe_bytes = (uint32_t)size;
	*ring_blocks = ring;
	return 0;
}

const struct fmt_ops mlx5_fmt_ops = {
	.format = WQE_FORMAT_MLX5,
	.encoded_size = mlx5_encoded_size,
	.encode = mlx5_encode,
	.encode_room = mlx5_encode_room,
	.fixed_size = mlx5_fixed_size,
	.calc_sq = mlx5_calc_sq,
	.calc_rq = mlx5_calc_rq,
	.encode_recv = mlx5_encode_recv,
	.decode_recv = mlx5_decode_recv,
	.peek_size = mlx5_peek_size,
	.decode = mlx5_decode,
	.decode_simple = mlx5_decode_simple,
};
