/* SPDX-License-Identifier: MIT */
/*
 * mlx5_wqe.h - the mlx5 WQE writer: one setter per segment and the writer
 * that composes them from a plan (private to src: the encoder of mlx5.c and
 * the post path of src/verbs/post.c).
 *
 * The setters are inline, as the mlx5dv.h helpers are, because they are the
 * post path's inner loop: wqe_post_send() writes a request of one of the
 * common shapes (one SGE; SEND, WRITE, READ) through mlx5_write_shape(),
 * with a layout fixed per shape and no plan, and any other request from
 * the plan its validation found (mlx5_plan_layout), with no call per
 * request either way; wqe_encode() makes the plan with its own checks
 * (mlx5.c plan_wr) and writes through the same setters, and
 * tests/verbs/test_post_encode.c holds the two to the same bytes.
 *
 * A setter writes every byte of its segment, reserved ones included, in its
 * own byte order, so no byte is written twice. Layout: mlx5.h.
 */
#ifndef WQE_FMT_MLX5_WQE_H
#define WQE_FMT_MLX5_WQE_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/bytes.h"
#include "fmt/mlx5.h"
#include "tables/catalog.h"

/* Everything decided about one request before writing. */
struct mlx5_plan {
	enum wqe_op op;
	const struct catalog_entry *cat; /* &catalog_ops[op] */
	unsigned int segs;               /* MLX5_SEG_* */
	bool is_inline;                  /* an inline segment is written (total > 0) */
	bool data_segs;                  /* data segments are written (not INLINE) */
	uint32_t inline_len;
	uint32_t ds;
	uint32_t nblocks;
};

/*
 * The layout of a request already validated: operation @op (valid) on
 * transport @t (RC, UC or UD); @is_inline its INLINE flag; @total the sum
 * of its SGE lengths, @nseg how many are not empty. Fills @p; EINVAL (and
 * @p partly filled) if the WQE would pass MLX5_MAX_DS.
 */
static inline int mlx5_plan_layout(struct mlx5_plan *p, enum wqe_qp_type t, enum wqe_op op,
				   bool is_inline, uint64_t total, uint32_t nseg)
{
	const struct mlx5_transport *tr = &mlx5_transports[t - WQE_QPT_RC][op];
	uint32_t data_ds = nseg, ds;

	p->op = op;
	p->cat = &catalog_ops[op];
	p->segs = tr->segs;
	p->data_segs = !is_inline;
	/* set_data_inl_seg: a zero total adds no DS and no header */
	p->is_inline = is_inline && total != 0;
	p->inline_len = is_inline ? (uint32_t)total : 0;
	if (p->is_inline)
		data_ds = (uint32_t)(mlx5_align(total + MLX5_INL_HDR_BYTES, MLX5_DS_BYTES) /
				     MLX5_DS_BYTES);
	else if (is_inline)
		data_ds = 0;
	ds = tr->fixed_ds + data_ds; /* data_ds <= 2^31: no wrap */
	if (ds > MLX5_MAX_DS)
		return EINVAL;
	p->ds = ds;
	p->nblocks = (ds * MLX5_DS_BYTES + WQE_BLOCK_SIZE - 1) / WQE_BLOCK_SIZE;
	return 0;
}

/* The 4 immediate bytes: imm_data as it lies in memory, or the rkey. */
static inline void mlx5_ctrl_imm(const struct wqe_send_wr *wr, const struct mlx5_plan *p,
				 uint8_t imm[4])
{
	if (p->cat->has_imm)
		memcpy(imm, &wr->imm_data, 4); /* already network order */
	else if (p->op == WQE_OP_SEND_WITH_INV)
		put_be32(imm, wr->invalidate_rkey);
	else
		memset(imm, 0, 4);
}

/* fm_ce_se of the send flags FENCE, SIGNALED and SOLICITED (mlx5.c):
 * FENCE, CQ_UPDATE and SOLICITED in the table's index order. */
#define MLX5_FLAGS_CTRL_MASK (WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED)
extern const uint8_t mlx5_ctrl_of_flags[MLX5_FLAGS_CTRL_MASK + 1];

static inline uint8_t mlx5_ctrl_fm_ce_se(const struct wqe_encode_qp *qp,
					 const struct wqe_send_wr *wr)
{
	uint8_t v = mlx5_ctrl_of_flags[wr->send_flags & MLX5_FLAGS_CTRL_MASK];

	return qp->sq_sig_all ? (uint8_t)(v | MLX5_CTRL_CQ_UPDATE) : v;
}

/* struct mlx5_wqe_ctrl_seg */
static inline void mlx5_set_ctrl_seg(uint8_t seg[MLX5_CTRL_BYTES], uint32_t wqe_index,
				     uint8_t opcode, uint32_t qpn, uint32_t ds, uint8_t fm_ce_se,
				     const uint8_t imm[4])
{
	/* opmod_idx_opcode (opmod 0) and qpn_ds in one store: the doorbell
	 * reads these 8 bytes back at once, and a load is forwarded from one
	 * store that covers it, not from two (a stall of some 15 cycles). */
	put_be64(seg, (uint64_t)(0u << 24 | (wqe_index & 0xffffu) << 8 | opcode) << 32 |
			      ((qpn & MLX5_QPN_MASK) << 8 | ds));
	seg[8] = 0;  /* signature: MLX5_QP_SIGNATURE is not modelled */
	seg[9] = 0;  /* dci_stream_channel_id, reserved for RC/UC/UD */
	seg[10] = 0;
	seg[11] = fm_ce_se;
	memcpy(seg + 12, imm, 4);
}

/* struct mlx5_wqe_raddr_seg */
static inline void mlx5_set_raddr_seg(uint8_t seg[MLX5_RADDR_BYTES], uint64_t raddr,
				      uint32_t rkey)
{
	put_be64(seg, raddr);
	put_be32(seg + 8, rkey);
	put_be32(seg + 12, 0); /* reserved */
}

/* struct mlx5_wqe_atomic_seg; FAA leaves compare unwritten in the provider
 * (stale bytes), we write 0, as the provider's cleared ring holds. */
static inline void mlx5_set_atomic_seg(uint8_t seg[MLX5_ATOMIC_BYTES], uint64_t swap_add,
				       uint64_t compare)
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
static inline void mlx5_set_dgram_seg(uint8_t seg[MLX5_DGRAM_BYTES],
				      const struct wqe_ah_attr *ah, uint32_t remote_qpn,
				      uint32_t qkey)
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
static inline void mlx5_set_dgram_seg_empty(uint8_t seg[MLX5_DGRAM_BYTES])
{
	memset(seg, 0, MLX5_DGRAM_BYTES);
	put_be32(seg + 8, MLX5_EXTENDED_UD_AV);
}

/* struct mlx5_wqe_data_seg */
static inline void mlx5_set_data_seg(uint8_t seg[MLX5_DATA_BYTES], uint32_t byte_count,
				     uint32_t lkey, uint64_t addr)
{
	put_be32(seg, byte_count);
	put_be32(seg + 4, lkey);
	put_be64(seg + 8, addr);
}

/* The transport segments at @seg; returns the byte after them. */
static inline uint8_t *mlx5_put_transport(uint8_t *seg, const struct mlx5_plan *p,
					  const struct wqe_send_wr *wr)
{
	bool cas = p->op == WQE_OP_ATOMIC_CMP_AND_SWP;

	if (p->segs & MLX5_SEG_ATOMIC) {
		mlx5_set_raddr_seg(seg, wr->wr.atomic.remote_addr, wr->wr.atomic.rkey);
		seg += MLX5_RADDR_BYTES;
		mlx5_set_atomic_seg(seg, cas ? wr->wr.atomic.swap : wr->wr.atomic.compare_add,
				    cas ? wr->wr.atomic.compare_add : 0);
		seg += MLX5_ATOMIC_BYTES;
	} else if (p->segs & MLX5_SEG_RADDR) {
		mlx5_set_raddr_seg(seg, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
		seg += MLX5_RADDR_BYTES;
	}
	if (p->segs & MLX5_SEG_DGRAM) {
		/* a UD SEND or SEND_WITH_IMM: the only requests whose wr.ud is
		 * meaningful */
		if (p->op == WQE_OP_SEND || p->op == WQE_OP_SEND_WITH_IMM)
			mlx5_set_dgram_seg(seg, &wr->wr.ud.ah->attr, wr->wr.ud.remote_qpn,
					   wr->wr.ud.remote_qkey);
		else
			mlx5_set_dgram_seg_empty(seg);
		seg += MLX5_DGRAM_BYTES;
	}
	return seg;
}

/* The header of an inline segment of @inline_len bytes (> 0) at @seg and
 * zeroes over its last DS, where the payload leaves padding: clearing that
 * DS first is one store, a memset of the remainder a call. Returns the
 * byte after the segment. */
static inline uint8_t *mlx5_set_inline_hdr(uint8_t *seg, uint32_t inline_len)
{
	size_t len = (size_t)mlx5_align(MLX5_INL_HDR_BYTES + inline_len, MLX5_DS_BYTES);

	memset(seg + len - MLX5_DS_BYTES, 0, MLX5_DS_BYTES);
	put_be32(seg, inline_len | MLX5_INLINE_SEG);
	return seg + len;
}

/* One inline segment at @seg: header, every SGE's bytes, zero padding to
 * 16; returns the byte after it. */
static inline uint8_t *mlx5_put_inline(uint8_t *seg, const struct mlx5_plan *p,
				       const struct wqe_send_wr *wr)
{
	uint8_t *dst = seg + MLX5_INL_HDR_BYTES, *end = mlx5_set_inline_hdr(seg, p->inline_len);
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *sge = &wr->sg_list[i];

		if (sge->length) {
			memcpy(dst, (const void *)(uintptr_t)sge->addr, sge->length);
			dst += sge->length;
		}
	}
	return end;
}

/* One data segment per SGE of non-zero length (qp.c skips empty ones) at
 * @seg; returns the byte after them. */
static inline uint8_t *mlx5_put_data(uint8_t *seg, const struct mlx5_plan *p,
				     const struct wqe_send_wr *wr)
{
	int i;

	if (wr->num_sge == 1 && wr->sg_list[0].length) { /* the common case, unrolled */
		const struct wqe_sge *sge = wr->sg_list;

		mlx5_set_data_seg(seg, p->cat->atomic ? MLX5_ATOMIC_SIZE : sge->length, sge->lkey,
				  sge->addr);
		return seg + MLX5_DATA_BYTES;
	}
	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *sge = &wr->sg_list[i];

		if (!sge->length)
			continue;
		mlx5_set_data_seg(seg, p->cat->atomic ? MLX5_ATOMIC_SIZE : sge->length, sge->lkey,
				  sge->addr);
		seg += MLX5_DATA_BYTES;
	}
	return seg;
}

/*
 * The WQE of plan @p into @wqe, p->nblocks contiguous blocks: the segments
 * in order, then zeroes to the end of the last block.
 */
static inline void mlx5_write_wqe(uint8_t *wqe, const struct wqe_encode_qp *qp,
				  const struct wqe_send_wr *wr, const struct mlx5_plan *p,
				  uint32_t wqe_index)
{
	uint8_t imm[4], *seg = wqe + MLX5_CTRL_BYTES;
	uint8_t *end = wqe + (size_t)p->nblocks * WQE_BLOCK_SIZE;

	mlx5_ctrl_imm(wr, p, imm);
	mlx5_set_ctrl_seg(wqe, wqe_index, mlx5_opcodes[p->op], qp->qpn, p->ds,
			  mlx5_ctrl_fm_ce_se(qp, wr), imm);
	seg = mlx5_put_transport(seg, p, wr);
	if (p->is_inline)
		seg = mlx5_put_inline(seg, p, wr);
	else if (p->data_segs)
		seg = mlx5_put_data(seg, p, wr);
	assert(seg == wqe + (size_t)p->ds * MLX5_DS_BYTES);
	/* 0 to 3 DS: a store each, where a memset would be a call */
	for (; seg < end; seg += MLX5_DS_BYTES)
		memset(seg, 0, MLX5_DS_BYTES);
}

/*
 * The common shapes, written without a plan: a request with one SGE of
 * non-zero length, carried by a data segment or (@inl) inline, after the
 * control segment and the transport segments @segs (0, MLX5_SEG_RADDR or
 * MLX5_SEG_DGRAM; a DGRAM request is a UD SEND or SEND_WITH_IMM). The
 * caller has validated it as wqe_post_send() does and passes what a plan
 * would hold: the mlx5 @opcode, whether it carries an immediate, the
 * control segment's @fm_ce_se (mlx5_ctrl_fm_ce_se()), its size @ds (the
 * control and transport segments, then 1 for the data segment or the
 * inline segment's DS) and @nblocks. Always inline, so that with
 * @segs and @inl constants each shape compiles to a fixed run of stores.
 */
/* Copies @len bytes, with two overlapping copies of a fixed size up to
 * 32 bytes: the inline payloads of the common shapes are small, and a
 * memcpy of a variable length is a call. */
static inline void mlx5_copy_small(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	if (len >= 16 && len <= 32) {
		memcpy(dst, src, 16);
		memcpy(dst + len - 16, src + len - 16, 16);
	} else if (len >= 8 && len < 16) {
		memcpy(dst, src, 8);
		memcpy(dst + len - 8, src + len - 8, 8);
	} else if (len >= 4 && len < 8) {
		memcpy(dst, src, 4);
		memcpy(dst + len - 4, src + len - 4, 4);
	} else if (len < 4) {
		if (len) {
			dst[0] = src[0];
			dst[len / 2] = src[len / 2];
			dst[len - 1] = src[len - 1];
		}
	} else {
		memcpy(dst, src, len);
	}
}

static inline __attribute__((always_inline)) void
mlx5_write_shape(uint8_t *wqe, uint32_t qpn, const struct wqe_send_wr *wr, unsigned int segs,
		 bool inl, uint8_t opcode, bool has_imm, uint8_t fm_ce_se, uint32_t ds,
		 uint32_t nblocks, uint32_t wqe_index)
{
	const struct wqe_sge *sge = wr->sg_list;
	uint32_t imm_val = has_imm ? wr->imm_data : 0; /* imm_data: already network order */
	uint8_t imm[4], *seg = wqe + MLX5_CTRL_BYTES;

	/* Inline, the last block is cleared first (its inline padding and
	 * the DS after the WQE, whatever the payload's length), then written
	 * over: four stores, where clearing the padding and a loop over the
	 * DS left would branch on the length. */
	if (inl)
		memset(wqe + (size_t)(nblocks - 1) * WQE_BLOCK_SIZE, 0, WQE_BLOCK_SIZE);
	memcpy(imm, &imm_val, 4);
	mlx5_set_ctrl_seg(wqe, wqe_index, opcode, qpn, ds, fm_ce_se, imm);
	if (segs & MLX5_SEG_RADDR) {
		mlx5_set_raddr_seg(seg, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
		seg += MLX5_RADDR_BYTES;
	}
	if (segs & MLX5_SEG_DGRAM) {
		mlx5_set_dgram_seg(seg, &wr->wr.ud.ah->attr, wr->wr.ud.remote_qpn,
				   wr->wr.ud.remote_qkey);
		seg += MLX5_DGRAM_BYTES;
	}
	if (inl) {
		put_be32(seg, sge->length | MLX5_INLINE_SEG);
		mlx5_copy_small(seg + MLX5_INL_HDR_BYTES, (const uint8_t *)(uintptr_t)sge->addr,
				sge->length);
		assert(seg + mlx5_align(MLX5_INL_HDR_BYTES + sge->length, MLX5_DS_BYTES) ==
		       wqe + (size_t)ds * MLX5_DS_BYTES);
		return;
	}
	mlx5_set_data_seg(seg, sge->length, sge->lkey, sge->addr);
	assert(seg + MLX5_DATA_BYTES == wqe + (size_t)ds * MLX5_DS_BYTES);
	/* by index: with constant @ds and @nblocks, unrolled */
	for (uint32_t i = ds; i < nblocks * (WQE_BLOCK_SIZE / MLX5_DS_BYTES); i++)
		memset(wqe + (size_t)i * MLX5_DS_BYTES, 0, MLX5_DS_BYTES);
}

/*
 * The WQE of plan @p at block @slot of @ring (a valid ring, the WQE no
 * larger than it) with a staging copy whose two pieces go to the ring's end
 * and to its start (the provider's WQE continues at block 0). mlx5.c.
 */
void mlx5_write_wrapped(const struct wqe_ring_view *ring, uint32_t slot,
			const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
			const struct mlx5_plan *p, uint32_t wqe_index);

/* The WQE of plan @p at block @slot of @ring: straight into the ring, or
 * through mlx5_write_wrapped() when it would run past the ring's end. */
static inline void mlx5_write_at(const struct wqe_ring_view *ring, uint32_t slot,
				 const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
				 const struct mlx5_plan *p, uint32_t wqe_index)
{
	uint32_t first = slot & (ring->nblocks - 1);

	if (p->nblocks > ring->nblocks - first) {
		/* Copies, so that the caller's ring and plan do not escape and
		 * can stay in registers: the ring's bytes may alias anything
		 * whose address is taken. */
		const struct wqe_ring_view r = *ring;
		const struct mlx5_plan pc = *p;

		mlx5_write_wrapped(&r, slot, qp, wr, &pc, wqe_index);
		return;
	}
	mlx5_write_wqe(ring->buf + (size_t)first * WQE_BLOCK_SIZE, qp, wr, p, wqe_index);
}

#endif /* WQE_FMT_MLX5_WQE_H */
