/* SPDX-License-Identifier: MIT */
/*
 * mlx5.c - the mlx5 WQE encoder and sizing, as rdma-core's mlx5 provider
 * (providers/mlx5/qp.c _mlx5_post_send; verbs.c mlx5_calc_send_wqe) does
 * them. Layout: shared/reference/mlx5-send-path.md sections 1-3.
 *
 * Encoding follows the liburing habit: plan (validate and size the whole
 * request, touching nothing), then one setter per segment, in order,
 * straight into the ring, then zeroes to the end of the last block. A
 * setter writes every byte of its segment, reserved ones included, in its
 * own byte order, so no byte is written twice. A WQE that would run past
 * the ring's end is written into a staging copy first (encode_at).
 */
#include "fmt/mlx5.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "common/bytes.h"
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

/* Everything the encoder decided about one request before writing. */
struct mlx5_plan {
	enum wqe_op op;
	const struct catalog_entry *cat; /* &catalog_ops[op] */
	unsigned int segs;               /* MLX5_SEG_* */
	bool is_inline;                  /* an inline segment is written (total > 0) */
	uint32_t inline_len;
	uint32_t ds;
	uint32_t nblocks;
};

/* The data part of the plan: DS of the data segments or of the inline
 * segment; 0 or EINVAL. */
static int plan_data(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		     struct mlx5_plan *p, uint32_t *data_ds)
{
	uint64_t total = 0;
	uint32_t nseg = 0;
	int i;

	p->is_inline = false;
	p->inline_len = 0;
	if (!(wr->send_flags & WQE_SEND_INLINE)) {
		for (i = 0; i < wr->num_sge; i++)
			nseg += wr->sg_list[i].length != 0;
		*data_ds = nseg;
		return 0;
	}
	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *sge = &wr->sg_list[i];

		total += sge->length;
		/* inline bytes are read from this address: it must be one */
		if (sge->length && !sge->addr)
			return EINVAL;
	}
	if (total > qp->max_inline_data)
		return EINVAL;
	/* set_data_inl_seg: a zero total adds no DS and no header */
	p->is_inline = total != 0;
	p->inline_len = (uint32_t)total;
	*data_ds = total ? (uint32_t)(mlx5_align(total + MLX5_INL_HDR_BYTES, MLX5_DS_BYTES) /
				      MLX5_DS_BYTES)
			 : 0;
	return 0;
}

/* Validates @wr for @qp and sizes its WQE; writes nothing. */
static int plan_wr(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		   struct mlx5_plan *p)
{
	const struct mlx5_transport *tr;
	uint32_t data_ds, ds;
	int err;

	if (!mlx5_qpt_valid(qp->qp_type) || !catalog_op_from_wr(wr->opcode, &p->op))
		return EINVAL;
	p->cat = &catalog_ops[p->op];
	if (wr->send_flags & ~(unsigned int)MLX5_KNOWN_SEND_FLAGS)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge)
		return EINVAL;
	if (wr->num_sge > 0 && !wr->sg_list)
		return EINVAL;
	if ((wr->send_flags & WQE_SEND_INLINE) && !p->cat->inline_ok)
		return EINVAL;
	if (qp->qp_type == WQE_QPT_UD && ud_send(wr) && !wr->wr.ud.ah)
		return EINVAL;
	err = plan_data(qp, wr, p, &data_ds);
	if (err)
		return err;
	tr = &mlx5_transports[qp->qp_type - WQE_QPT_RC][p->op];
	p->segs = tr->segs;
	ds = tr->fixed_ds + data_ds; /* data_ds <= 2^31: no wrap */
	if (ds > MLX5_MAX_DS)
		return EINVAL;
	p->ds = ds;
	p->nblocks = (uint32_t)(mlx5_align(ds * MLX5_DS_BYTES, WQE_BLOCK_SIZE) / WQE_BLOCK_SIZE);
	return 0;
}

/* The 4 immediate bytes: imm_data as it lies in memory, or the rkey. */
static void ctrl_imm(const struct wqe_send_wr *wr, const struct mlx5_plan *p, uint8_t imm[4])
{
	if (p->cat->has_imm)
		memcpy(imm, &wr->imm_data, 4); /* already network order */
	else if (p->op == WQE_OP_SEND_WITH_INV)
		put_be32(imm, wr->invalidate_rkey);
	else
		memset(imm, 0, 4);
}

static uint8_t ctrl_fm_ce_se(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr)
{
	uint8_t v = 0;

	if (wr->send_flags & WQE_SEND_FENCE)
		v |= MLX5_CTRL_FENCE;
	if ((wr->send_flags & WQE_SEND_SIGNALED) || qp->sq_sig_all)
		v |= MLX5_CTRL_CQ_UPDATE;
	if (wr->send_flags & WQE_SEND_SOLICITED)
		v |= MLX5_CTRL_SOLICITED;
	return v;
}

/* struct mlx5_wqe_ctrl_seg */
static void set_ctrl_seg(uint8_t seg[MLX5_CTRL_BYTES], uint32_t wqe_index, uint8_t opcode,
			 uint32_t qpn, uint32_t ds, uint8_t fm_ce_se, const uint8_t imm[4])
{
	put_be32(seg, 0u << 24 | (wqe_index & 0xffffu) << 8 | opcode); /* opmod 0 */
	put_be32(seg + 4, (qpn & MLX5_QPN_MASK) << 8 | ds);
	seg[8] = 0;  /* signature: MLX5_QP_SIGNATURE is not modelled */
	seg[9] = 0;  /* dci_stream_channel_id, reserved for RC/UC/UD */
	seg[10] = 0;
	seg[11] = fm_ce_se;
	memcpy(seg + 12, imm, 4);
}

/* struct mlx5_wqe_raddr_seg */
static void set_raddr_seg(uint8_t seg[MLX5_RADDR_BYTES], uint64_t raddr, uint32_t rkey)
{
	put_be64(seg, raddr);
	put_be32(seg + 8, rkey);
	put_be32(seg + 12, 0); /* reserved */
}

/* struct mlx5_wqe_atomic_seg; FAA leaves compare unwritten in the provider
 * (stale bytes), we write 0, as the provider's cleared ring holds. */
static void set_atomic_seg(uint8_t seg[MLX5_ATOMIC_BYTES], uint64_t swap_add, uint64_t compare)
{
	put_be64(seg, swap_add);
	put_be64(seg + 8, compare);
}

/*
 * struct mlx5_wqe_datagram_seg, filled as the provider fills it for a
 * RoCEv2 address: mlx5_create_ah builds the AV (rlid holds the UDP source
 * port; stat_rate_sl = static_rate << 4 | (sl & 7) << 1 on Ethernet, the
 * model has no static rate; grh_gid_fl has the GRH bit 30 clear, "reserved
 * for RoCE"), then _set_datagram_seg copies it and sets dqp_dct to
 * remote_qpn | MLX5_EXTENDED_UD_AV and the Q_Key.
 */
static void set_dgram_seg(uint8_t seg[MLX5_DGRAM_BYTES], const struct wqe_ah_attr *ah,
			  uint32_t remote_qpn, uint32_t qkey)
{
	put_be32(seg, qkey);
	put_be32(seg + 4, 0); /* key.qkey.reserved */
	put_be32(seg + 8, remote_qpn | MLX5_EXTENDED_UD_AV);
	seg[12] = (uint8_t)((ah->sl & 7u) << 1); /* stat_rate_sl */
	seg[13] = 0;                            /* fl_mlid */
	put_be16(seg + 14, ah->udp_sport);      /* rlid */
	put_be32(seg + 16, 0);                  /* reserved0 */
	memcpy(seg + 20, ah->dmac, 6);          /* rmac */
	seg[26] = ah->grh.traffic_class;
	seg[27] = ah->grh.hop_limit;
	put_be32(seg + 28, (uint32_t)ah->grh.sgid_index << 20 |
				   (ah->grh.flow_label & MLX5_FLOW_LABEL_MASK));
	memcpy(seg + 32, ah->grh.dgid.raw, 16); /* rgid */
}

/* The datagram segment of a UD request that is not a SEND: only a SEND
 * names an address handle (for any other opcode wr.ud.ah aliases
 * wr.rdma.remote_addr, and the provider would follow it). Extended AV,
 * QPN 0, the rest 0: the NIC refuses the opcode. */
static void set_dgram_seg_empty(uint8_t seg[MLX5_DGRAM_BYTES])
{
	memset(seg, 0, MLX5_DGRAM_BYTES);
	put_be32(seg + 8, MLX5_EXTENDED_UD_AV);
}

/* struct mlx5_wqe_data_seg */
static void set_data_seg(uint8_t seg[MLX5_DATA_BYTES], uint32_t byte_count, uint32_t lkey,
			 uint64_t addr)
{
	put_be32(seg, byte_count);
	put_be32(seg + 4, lkey);
	put_be64(seg + 8, addr);
}

/* The transport segments at @seg; returns the byte after them. */
static uint8_t *put_transport(uint8_t *seg, const struct mlx5_plan *p,
			      const struct wqe_send_wr *wr)
{
	bool cas = p->op == WQE_OP_ATOMIC_CMP_AND_SWP;

	if (p->segs & MLX5_SEG_ATOMIC) {
		set_raddr_seg(seg, wr->wr.atomic.remote_addr, wr->wr.atomic.rkey);
		seg += MLX5_RADDR_BYTES;
		set_atomic_seg(seg, cas ? wr->wr.atomic.swap : wr->wr.atomic.compare_add,
			       cas ? wr->wr.atomic.compare_add : 0);
		seg += MLX5_ATOMIC_BYTES;
	} else if (p->segs & MLX5_SEG_RADDR) {
		set_raddr_seg(seg, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
		seg += MLX5_RADDR_BYTES;
	}
	if (p->segs & MLX5_SEG_DGRAM) {
		if (ud_send(wr))
			set_dgram_seg(seg, &wr->wr.ud.ah->attr, wr->wr.ud.remote_qpn,
				      wr->wr.ud.remote_qkey);
		else
			set_dgram_seg_empty(seg);
		seg += MLX5_DGRAM_BYTES;
	}
	return seg;
}

/* One inline segment at @seg: header, every SGE's bytes, zero padding to
 * 16; returns the byte after it. */
static uint8_t *put_inline(uint8_t *seg, const struct mlx5_plan *p, const struct wqe_send_wr *wr)
{
	size_t len = (size_t)mlx5_align(MLX5_INL_HDR_BYTES + p->inline_len, MLX5_DS_BYTES);
	uint8_t *dst = seg + MLX5_INL_HDR_BYTES;
	int i;

	/* The padding is what the payload leaves of the last DS: clearing
	 * that DS first is one store, a memset of the remainder a call. */
	memset(seg + len - MLX5_DS_BYTES, 0, MLX5_DS_BYTES);
	put_be32(seg, p->inline_len | MLX5_INLINE_SEG);
	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *sge = &wr->sg_list[i];

		if (sge->length) {
			memcpy(dst, (const void *)(uintptr_t)sge->addr, sge->length);
			dst += sge->length;
		}
	}
	return seg + len;
}

/* One data segment per SGE of non-zero length (qp.c skips empty ones) at
 * @seg; returns the byte after them. */
static uint8_t *put_data(uint8_t *seg, const struct mlx5_plan *p, const struct wqe_send_wr *wr)
{
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *sge = &wr->sg_list[i];

		if (!sge->length)
			continue;
		set_data_seg(seg, p->cat->atomic ? MLX5_ATOMIC_SIZE : sge->length, sge->lkey,
			     sge->addr);
		seg += MLX5_DATA_BYTES;
	}
	return seg;
}

/*
 * The WQE of plan @p into @wqe, p->nblocks contiguous blocks: the segments
 * in order, then zeroes to the end of the last block.
 */
static void write_wqe(uint8_t *wqe, const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		      const struct mlx5_plan *p, uint32_t wqe_index)
{
	uint8_t imm[4], *seg = wqe + MLX5_CTRL_BYTES;
	uint8_t *end = wqe + (size_t)p->nblocks * WQE_BLOCK_SIZE;

	ctrl_imm(wr, p, imm);
	set_ctrl_seg(wqe, wqe_index, mlx5_opcodes[p->op], qp->qpn, p->ds, ctrl_fm_ce_se(qp, wr),
		     imm);
	seg = put_transport(seg, p, wr);
	if (p->is_inline)
		seg = put_inline(seg, p, wr);
	else if (!(wr->send_flags & WQE_SEND_INLINE))
		seg = put_data(seg, p, wr);
	assert(seg == wqe + (size_t)p->ds * MLX5_DS_BYTES);
	/* 0 to 3 DS: a store each, where a memset would be a call */
	for (; seg < end; seg += MLX5_DS_BYTES)
		memset(seg, 0, MLX5_DS_BYTES);
}

static bool ring_ok(const struct wqe_ring_view *ring)
{
	uint32_t n = ring->nblocks;

	/* at most 2^26 blocks, so that byte offsets fit 32 bits anywhere */
	return n >= WQE_MAX_BLOCKS && (n & (n - 1)) == 0 && n <= (1u << 26);
}

/*
 * Plans @wr and, if its WQE needs at most @room blocks, writes it at block
 * @slot of @ring (a valid one): straight into the ring, or, when it would
 * run past the ring's end, into a staging copy whose two pieces go to the
 * ring's end and to its start (the provider's WQE continues at block 0).
 * One call site of write_wqe(), so that it is inlined here.
 */
static int encode_at(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		     const struct wqe_ring_view *ring, uint32_t slot, uint32_t wqe_index,
		     uint32_t room, uint32_t *nblocks)
{
	uint8_t staging[(MLX5_MAX_DS * MLX5_DS_BYTES + WQE_BLOCK_SIZE - 1) / WQE_BLOCK_SIZE *
			WQE_BLOCK_SIZE];
	uint32_t first = slot & (ring->nblocks - 1), fit = ring->nblocks - first;
	struct mlx5_plan p;
	bool wraps;
	int err;

	err = plan_wr(qp, wr, &p);
	if (err)
		return err;
	if (p.nblocks > room)
		return ENOMEM;
	wraps = p.nblocks > fit;
	write_wqe(wraps ? staging : ring->buf + (size_t)first * WQE_BLOCK_SIZE, qp, wr, &p,
		  wqe_index);
	if (wraps) {
		memcpy(ring->buf + (size_t)first * WQE_BLOCK_SIZE, staging,
		       (size_t)fit * WQE_BLOCK_SIZE);
		memcpy(ring->buf, staging + (size_t)fit * WQE_BLOCK_SIZE,
		       (size_t)(p.nblocks - fit) * WQE_BLOCK_SIZE);
	}
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

static uint32_t roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
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
	ring = roundup_pow2(ring < WQE_MAX_BLOCKS ? WQE_MAX_BLOCKS : ring);

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
	.peek_size = mlx5_peek_size,
	.decode = mlx5_decode,
};
