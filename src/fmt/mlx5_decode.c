/* SPDX-License-Identifier: MIT */
/*
 * mlx5_decode.c - the mlx5 WQE decoder: what the NIC side recovers from
 * the bytes of one send WQE.
 *
 * ngtcp2 habit: the length is checked once against the DS the control
 * segment declares, and every later read stays below ds * 16 bytes.
 *
 * Strictness. The decoder accepts exactly what the provider can write for
 * RC/UC/UD through ibv_post_send, and rejects the rest:
 *  - opmod must be 0, bytes 9-10 (dci_stream_channel_id) 0; the signature
 *    byte may be anything (MLX5_QP_SIGNATURE sets it);
 *  - fm_ce_se may hold only FENCE (0x80), CQ_UPDATE (0x08), SOLICITED
 *    (0x02): the other fence modes (0x20 after a UMR, 0x40, 0x60) and the
 *    kernel-only CE value 0x0c are not modelled;
 *  - the immediate is 0 for an opcode that carries none;
 *  - reserved bytes of the raddr and datagram segments are 0; the datagram
 *    segment has MLX5_EXTENDED_UD_AV set, no static rate, the GRH bit 30
 *    clear (RoCE), and stat_rate_sl bit 0 clear;
 *  - a data segment's byte_count of 0 means 2 GB to the hardware; the
 *    provider never writes one (it skips empty SGEs), so it is rejected;
 *  - an inline segment of length 0 is never written (a zero total adds no
 *    DS), so it is rejected too; inline padding bytes are not checked (the
 *    provider leaves them stale);
 *  - an FAA's compare field is ignored (the provider does not write it).
 */
#include "fmt/mlx5.h"

#include <string.h>

#include "common/bytes.h"
#include "tables/catalog.h"

#define MLX5_FM_CE_SE_KNOWN (MLX5_CTRL_FENCE | MLX5_CTRL_CQ_UPDATE | MLX5_CTRL_SOLICITED)

enum wqe_decode_err mlx5_peek_size(const uint8_t *wqe, size_t len, uint32_t *size)
{
	uint8_t ds;

	if (len < MLX5_CTRL_BYTES)
		return WQE_DEC_TRUNCATED;
	ds = wqe[7]; /* the unmasked byte: bits 6-7 set are malformed */
	if (ds == 0 || ds > MLX5_MAX_DS)
		return WQE_DEC_BAD_SIZE;
	*size = (uint32_t)mlx5_align((uint64_t)ds * MLX5_DS_BYTES, WQE_BLOCK_SIZE);
	return WQE_DEC_OK;
}

static void desc_reset(struct wqe_desc *d)
{
	d->format = WQE_FORMAT_MLX5;
	d->fence = d->signaled = d->solicited = d->is_inline = false;
	d->imm = 0;
	d->remote_addr = 0;
	d->rkey = 0;
	d->swap_add = 0;
	d->compare = 0;
	memset(&d->ud, 0, sizeof(d->ud));
	d->num_sge = 0;
	d->inline_data = NULL;
	d->inline_len = 0;
	d->total_len = 0;
}

/* The control segment: opcode, index, QPN, flags, immediate. */
static enum wqe_decode_err get_ctrl_seg(const uint8_t *seg, struct wqe_desc *d)
{
	uint8_t fm_ce_se = seg[11];
	uint32_t imm = get_be32(seg + 12);

	if (!mlx5_op_of_opcode(seg[3], &d->op))
		return WQE_DEC_BAD_OPCODE;
	if (seg[0] != 0 || seg[9] != 0 || seg[10] != 0)
		return WQE_DEC_BAD_FIELD;
	if (fm_ce_se & ~MLX5_FM_CE_SE_KNOWN)
		return WQE_DEC_BAD_FIELD;
	if (!catalog_op_has_imm(d->op) && d->op != WQE_OP_SEND_WITH_INV && imm)
		return WQE_DEC_BAD_FIELD;
	d->wqe_index = get_be16(seg + 1);
	d->qpn = get_be24(seg + 4);
	d->ds = seg[7];
	d->size = (uint32_t)d->ds * MLX5_DS_BYTES;
	d->nblocks = (uint8_t)(mlx5_align(d->size, WQE_BLOCK_SIZE) / WQE_BLOCK_SIZE);
	d->fence = (fm_ce_se & MLX5_CTRL_FENCE) != 0;
	d->signaled = (fm_ce_se & MLX5_CTRL_CQ_UPDATE) != 0;
	d->solicited = (fm_ce_se & MLX5_CTRL_SOLICITED) != 0;
	d->imm = imm;
	return WQE_DEC_OK;
}

static enum wqe_decode_err get_raddr_seg(const uint8_t *seg, struct wqe_desc *d)
{
	if (get_be32(seg + 12))
		return WQE_DEC_BAD_FIELD;
	d->remote_addr = get_be64(seg);
	d->rkey = get_be32(seg + 8);
	return WQE_DEC_OK;
}

static void get_atomic_seg(const uint8_t *seg, struct wqe_desc *d)
{
	d->swap_add = get_be64(seg);
	d->compare = d->op == WQE_OP_ATOMIC_CMP_AND_SWP ? get_be64(seg + 8) : 0;
}

static enum wqe_decode_err get_dgram_seg(const uint8_t *seg, struct wqe_desc *d)
{
	uint32_t dqp_dct = get_be32(seg + 8);
	uint32_t gid_fl = get_be32(seg + 28);

	if (get_be32(seg + 4) || seg[13] || get_be32(seg + 16))
		return WQE_DEC_BAD_FIELD;
	if ((dqp_dct & ~MLX5_QPN_MASK) != MLX5_EXTENDED_UD_AV)
		return WQE_DEC_BAD_FIELD;
	if (seg[12] & ~0x0eu) /* static rate and bit 0: never written for RoCE */
		return WQE_DEC_BAD_FIELD;
	if (gid_fl & 0xf0000000u) /* GRH bit 30 and reserved bits 31, 29, 28 */
		return WQE_DEC_BAD_FIELD;
	d->ud.qkey = get_be32(seg);
	d->ud.dqpn = dqp_dct & MLX5_QPN_MASK;
	d->ud.sl = (uint8_t)((seg[12] >> 1) & 7u);
	d->ud.udp_sport = get_be16(seg + 14);
	memcpy(d->ud.dmac, seg + 20, 6);
	d->ud.tclass = seg[26];
	d->ud.hop_limit = seg[27];
	d->ud.sgid_index = (uint8_t)(gid_fl >> 20);
	d->ud.flow_label = gid_fl & MLX5_FLOW_LABEL_MASK;
	memcpy(d->ud.dgid.raw, seg + 32, 16);
	return WQE_DEC_OK;
}

/* The transport segments; *@off moves past them. */
static enum wqe_decode_err get_transport(const uint8_t *wqe, enum wqe_qp_type t,
					 struct wqe_desc *d, uint32_t *off)
{
	unsigned int segs = mlx5_transport_segs(t, d->op);
	enum wqe_decode_err err;

	if (*off + mlx5_segs_bytes(segs) > d->size)
		return WQE_DEC_BAD_SEGMENTS;
	if (segs & MLX5_SEG_RADDR) {
		err = get_raddr_seg(wqe + *off, d);
		if (err)
			return err;
		*off += MLX5_RADDR_BYTES;
	}
	if (segs & MLX5_SEG_ATOMIC) {
		get_atomic_seg(wqe + *off, d);
		*off += MLX5_ATOMIC_BYTES;
	}
	if (segs & MLX5_SEG_DGRAM) {
		err = get_dgram_seg(wqe + *off, d);
		if (err)
			return err;
		*off += MLX5_DGRAM_BYTES;
	}
	return WQE_DEC_OK;
}

/* One inline segment filling the rest of the WQE exactly. */
static enum wqe_decode_err get_inline(const uint8_t *p, uint32_t rem, struct wqe_desc *d)
{
	uint32_t len = get_be32(p) & ~MLX5_INLINE_SEG;

	if (!wqe_op_inline_ok(d->op))
		return WQE_DEC_BAD_SEGMENTS;
	if (len == 0 || len > rem - MLX5_INL_HDR_BYTES)
		return WQE_DEC_BAD_INLINE;
	if (mlx5_align((uint64_t)len + MLX5_INL_HDR_BYTES, MLX5_DS_BYTES) != rem)
		return WQE_DEC_BAD_SEGMENTS;
	d->is_inline = true;
	d->inline_data = p + MLX5_INL_HDR_BYTES;
	d->inline_len = len;
	d->total_len = len;
	return WQE_DEC_OK;
}

/* Data segments filling the rest of the WQE. */
static enum wqe_decode_err get_data(const uint8_t *p, uint32_t rem, struct wqe_desc *d)
{
	uint32_t n = rem / MLX5_DATA_BYTES, i;
	bool atomic = catalog_op_is_atomic(d->op);

	if (n > WQE_DESC_MAX_SGE)
		return WQE_DEC_TOO_MANY_SGE;
	if (atomic && n != 1)
		return WQE_DEC_BAD_SEGMENTS;
	for (i = 0; i < n; i++, p += MLX5_DATA_BYTES) {
		struct wqe_desc_sge *sge = &d->sge[i];

		sge->length = get_be32(p);
		if (sge->length == 0 || (sge->length & MLX5_INLINE_SEG))
			return WQE_DEC_BAD_SEGMENTS;
		if (atomic && sge->length != MLX5_ATOMIC_SIZE)
			return WQE_DEC_BAD_SEGMENTS;
		sge->lkey = get_be32(p + 4);
		sge->addr = get_be64(p + 8);
		d->total_len += sge->length;
	}
	d->num_sge = n;
	return WQE_DEC_OK;
}

enum wqe_decode_err mlx5_decode(const struct wqe_decode_ctx *ctx, const uint8_t *wqe,
				size_t len, struct wqe_desc *out)
{
	enum wqe_decode_err err;
	uint32_t size, off = MLX5_CTRL_BYTES, rem;

	err = mlx5_peek_size(wqe, len, &size);
	if (err)
		return err;
	if (size > ctx->max_bytes)
		return WQE_DEC_BAD_SIZE;
	if ((size_t)wqe[7] * MLX5_DS_BYTES > len)
		return WQE_DEC_TRUNCATED;
	desc_reset(out);
	err = get_ctrl_seg(wqe, out);
	if (err)
		return err;
	if (!mlx5_qpt_valid(ctx->qp_type))
		return WQE_DEC_BAD_SEGMENTS;
	err = get_transport(wqe, ctx->qp_type, out, &off);
	if (err)
		return err;
	rem = out->size - off;
	if (rem && (get_be32(wqe + off) & MLX5_INLINE_SEG))
		return get_inline(wqe + off, rem, out);
	return get_data(wqe + off, rem, out);
}

/*
 * The segment after the transport segments of a one-block WRITE/SEND, at
 * @off (a constant where inlined): none (a zero-length message, as
 * get_data() reads it), one data segment and nothing after it
 * (get_data()), or one inline segment filling the rest of the WQE, all of
 * it in this block (get_inline()). The segment's first word lies inside
 * the block whatever ds says, so it is read before ds is judged.
 */
static inline __attribute__((always_inline)) int
simple_data(const uint8_t *wqe, uint32_t off, struct wqe_desc_simple *out)
{
	uint32_t len = get_be32(wqe + off), ds = wqe[7];

	if (ds == off / MLX5_DS_BYTES) {
		len = 0;
		out->lkey = 0;
		out->addr = 0;
		out->inline_data = NULL;
	} else if (!(len & MLX5_INLINE_SEG)) {
		if (len == 0 || ds != off / MLX5_DS_BYTES + 1)
			return 0;
		out->lkey = get_be32(wqe + off + 4);
		out->addr = get_be64(wqe + off + 8);
		out->inline_data = NULL;
	} else {
		len &= ~MLX5_INLINE_SEG;
		if (len == 0 || ds > WQE_BLOCK_SIZE / MLX5_DS_BYTES ||
		    mlx5_align((uint64_t)off + MLX5_INL_HDR_BYTES + len, MLX5_DS_BYTES) !=
			    (uint64_t)ds * MLX5_DS_BYTES)
			return 0;
		out->lkey = 0;
		out->addr = 0;
		out->inline_data = wqe + off + MLX5_INL_HDR_BYTES;
	}
	out->length = len;
	return 1;
}

/*
 * The one-block WRITE/SEND (with or without an immediate) with one data
 * segment, its payload inline or no payload, with every check
 * mlx5_decode() makes of those bytes (a strict subset of what it accepts:
 * tests/fmt/test_mlx5_roundtrip.c holds it to that). RC and UC put the
 * raddr segment before the data or inline segment of a WRITE, nothing
 * before a SEND's (mlx5_transport_segs()).
 */
int mlx5_decode_simple(enum wqe_qp_type t, uint32_t qpn, const uint8_t *wqe,
		       struct wqe_desc_simple *out)
{
	uint8_t fm_ce_se = wqe[11], opc = wqe[3];
	uint32_t imm = get_be32(wqe + 12);

	if ((t != WQE_QPT_RC && t != WQE_QPT_UC) || wqe[0] || wqe[9] || wqe[10] ||
	    (fm_ce_se & ~MLX5_FM_CE_SE_KNOWN) || get_be24(wqe + 4) != qpn)
		return 0;
	switch (opc) {
	case MLX5_OPC_RDMA_WRITE:
	case MLX5_OPC_RDMA_WRITE_IMM:
		if ((imm && opc == MLX5_OPC_RDMA_WRITE) || get_be32(wqe + 28) ||
		    !simple_data(wqe, MLX5_CTRL_BYTES + MLX5_RADDR_BYTES, out))
			return 0;
		out->op =
		    opc == MLX5_OPC_RDMA_WRITE ? WQE_OP_RDMA_WRITE : WQE_OP_RDMA_WRITE_WITH_IMM;
		out->remote_addr = get_be64(wqe + 16);
		out->rkey = get_be32(wqe + 24);
		break;
	case MLX5_OPC_SEND:
	case MLX5_OPC_SEND_IMM:
		if ((imm && opc == MLX5_OPC_SEND) || !simple_data(wqe, MLX5_CTRL_BYTES, out))
			return 0;
		out->op = opc == MLX5_OPC_SEND ? WQE_OP_SEND : WQE_OP_SEND_WITH_IMM;
		out->remote_addr = 0;
		out->rkey = 0;
		break;
	default:
		return 0;
	}
	out->imm = imm;
	out->fence = (fm_ce_se & MLX5_CTRL_FENCE) != 0;
	out->signaled = (fm_ce_se & MLX5_CTRL_CQ_UPDATE) != 0;
	out->solicited = (fm_ce_se & MLX5_CTRL_SOLICITED) != 0;
	return 1;
}
