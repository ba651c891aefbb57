/* SPDX-License-Identifier: MIT */
/*
 * Decoding an rxe slot into the neutral description. Nothing past @len is
 * read; every count is checked against the slot before it is used.
 */
#include <string.h>

#include "common/bytes.h"
#include "fmt/rxe.h"
#include "tables/catalog.h"

#define SEND_FLAGS_ALL (WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED | WQE_SEND_INLINE)

static void get_av(const uint8_t *av, struct wqe_desc_ud *ud)
{
	memcpy(ud->dmac, av + RXE_AV_DMAC, 6);
	memcpy(ud->dgid.raw, av + RXE_AV_DGID, 16);
	ud->flow_label = get_le32(av + RXE_AV_FLOW_LABEL) & 0xfffff;
	ud->sgid_index = av[RXE_AV_SGID_INDEX];
	ud->hop_limit = av[RXE_AV_HOP_LIMIT];
	ud->tclass = av[RXE_AV_TCLASS];
}

/* The rxe_send_wr part: opcode, flags, the union for this opcode. */
static enum wqe_decode_err get_wr(const struct wqe_decode_ctx *ctx, const uint8_t *w,
				  struct wqe_desc *d)
{
	uint32_t opc = get_le32(w + RXE_WR_OPCODE), flags = get_le32(w + RXE_WR_SEND_FLAGS);

	if (opc > 0xff || !catalog_op_from_wr((enum wqe_wr_opcode)opc, &d->op))
		return WQE_DEC_BAD_OPCODE;
	if (flags & ~(uint32_t)SEND_FLAGS_ALL)
		return WQE_DEC_BAD_FIELD;
	d->fence = flags & WQE_SEND_FENCE;
	d->signaled = flags & WQE_SEND_SIGNALED;
	d->solicited = flags & WQE_SEND_SOLICITED;
	d->is_inline = flags & WQE_SEND_INLINE;
	/* imm_data is big-endian bytes; invalidate_rkey a host-order word. */
	if (d->op == WQE_OP_SEND_WITH_INV)
		d->imm = get_le32(w + RXE_WR_EX);
	else if (catalog_op_has_imm(d->op))
		d->imm = get_be32(w + RXE_WR_EX);
	if (catalog_op_is_atomic(d->op)) {
		d->remote_addr = get_le64(w + RXE_WR_ATOMIC_ADDR);
		d->compare = get_le64(w + RXE_WR_ATOMIC_COMPARE_ADD);
		d->swap_add = get_le64(w + RXE_WR_ATOMIC_SWAP);
		d->rkey = get_le32(w + RXE_WR_ATOMIC_RKEY);
		/* FETCH_ADD adds compare_add: the neutral form keeps the addend
		 * in swap_add, as the wire's AtomicETH does. */
		if (d->op == WQE_OP_ATOMIC_FETCH_AND_ADD) {
			d->swap_add = d->compare;
			d->compare = 0;
		}
	} else if (d->op == WQE_OP_RDMA_WRITE || d->op == WQE_OP_RDMA_WRITE_WITH_IMM ||
		   d->op == WQE_OP_RDMA_READ) {
		d->remote_addr = get_le64(w + RXE_WR_RDMA_ADDR);
		d->rkey = get_le32(w + RXE_WR_RDMA_RKEY);
	} else if (ctx->qp_type == WQE_QPT_UD) {
		d->ud.dqpn = get_le32(w + RXE_WR_UD_QPN);
		d->ud.qkey = get_le32(w + RXE_WR_UD_QKEY);
		d->ud.ah_num = get_le32(w + RXE_WR_UD_AH_NUM);
		if (d->ud.dqpn > 0xffffff)
			return WQE_DEC_BAD_FIELD;
		if (!d->ud.ah_num)
			get_av(w + RXE_WR_UD_AV, &d->ud);
	}
	return WQE_DEC_OK;
}

/* The dma part: the SGE array or the inline bytes. */
static enum wqe_decode_err get_dma(const uint8_t *w, size_t len, struct wqe_desc *d)
{
	uint32_t length = get_le32(w + RXE_DMA_LENGTH), nsge = get_le32(w + RXE_DMA_NUM_SGE);
	size_t room = len - RXE_WQE_FIXED;
	uint64_t sum = 0;

	/* A posted WQE: resid = length, nothing consumed yet. */
	if (get_le32(w + RXE_DMA_RESID) != length || get_le32(w + RXE_DMA_CUR_SGE) ||
	    get_le32(w + RXE_DMA_SGE_OFFSET))
		return WQE_DEC_BAD_FIELD;
	d->total_len = length;
	if (d->is_inline) {
		if (length > room)
			return WQE_DEC_BAD_INLINE;
		d->inline_data = w + RXE_WQE_FIXED;
		d->inline_len = length;
		d->num_sge = 0;
		return WQE_DEC_OK;
	}
	if (nsge > WQE_DESC_MAX_SGE)
		return WQE_DEC_TOO_MANY_SGE;
	if ((size_t)nsge * RXE_SGE_BYTES > room)
		return WQE_DEC_BAD_SEGMENTS;
	for (uint32_t i = 0; i < nsge; i++) {
		const uint8_t *s = w + RXE_WQE_FIXED + (size_t)i * RXE_SGE_BYTES;

		d->sge[i].addr = get_le64(s);
		d->sge[i].length = get_le32(s + 8);
		d->sge[i].lkey = get_le32(s + 12);
		sum += d->sge[i].length;
	}
	d->num_sge = nsge;
	if (sum != length)
		return WQE_DEC_BAD_SEGMENTS;
	if (catalog_op_is_atomic(d->op) && (nsge != 1 || length != 8))
		return WQE_DEC_BAD_SEGMENTS;
	return WQE_DEC_OK;
}

enum wqe_decode_err rxe_decode(const struct wqe_decode_ctx *ctx, const uint8_t *wqe, size_t len,
			       struct wqe_desc *out)
{
	struct wqe_desc *d = out;
	enum wqe_decode_err e;

	if (len < RXE_WQE_FIXED)
		return WQE_DEC_TRUNCATED;
	if (ctx->max_bytes && len > ctx->max_bytes)
		len = ctx->max_bytes;
	if (len < RXE_WQE_FIXED)
		return WQE_DEC_BAD_SIZE;
	memset(d, 0, offsetof(struct wqe_desc, sge));
	d->format = WQE_FORMAT_RXE;
	d->qpn = ctx->qpn;
	d->nblocks = (uint8_t)(len / WQE_BLOCK_SIZE > 255 ? 255 : len / WQE_BLOCK_SIZE);
	/* Only a WQE the poster has just written: state 0 (posted), status 0. */
	if (get_le32(wqe + RXE_STATE) || get_le32(wqe + RXE_STATUS))
		return WQE_DEC_BAD_FIELD;
	e = get_wr(ctx, wqe, d);
	if (e)
		return e;
	e = get_dma(wqe, len, d);
	if (e)
		return e;
	d->size = RXE_WQE_FIXED + (d->is_inline ? d->inline_len : d->num_sge * RXE_SGE_BYTES);
	d->inline_data = d->is_inline ? wqe + RXE_WQE_FIXED : NULL;
	return WQE_DEC_OK;
}
