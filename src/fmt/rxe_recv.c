/* SPDX-License-Identifier: MIT */
/*
 * The rxe receive WQE: struct rxe_recv_wqe of rdma/rdma_user_rxe.h, one per
 * power-of-two slot of the receive queue.
 *
 * Sizing follows the kernel (rxe_qp.c rxe_init_rq(), rxe_queue.c
 * rxe_queue_init()): an element of sizeof(struct rxe_recv_wqe) +
 * max_recv_sge x sizeof(struct ib_sge), padded to a cache line and rounded
 * up to a power of two; max_recv_wr + 1 slots rounded up to a power of two,
 * one of them always empty. The encoder writes what rdma-core's provider
 * writes at post time (providers/rxe/rxe.c rxe_post_one_recv()): wr_id, the
 * SGE array as the Work Request gives it (struct ibv_sge and struct rxe_sge
 * share a layout), and the dma header of a WQE nothing has consumed yet.
 * The provider leaves reserved, padding, dma.reserved and the SGE entries
 * past num_sge as it found them; we clear the slot first, so our slot
 * equals the provider's in a freshly mapped (zeroed) queue.
 *
 * The decoder is the NIC's reading: the kernel trusts a user QP's receive
 * slot (only the SRQ path bounds num_sge, in get_srq_wqe()): a num_sge or
 * cur_sge past the slot would send copy_data() past it. The model
 * refuses any slot that is not as a poster leaves it, before reading an
 * SGE, and never reads past @len.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "common/bytes.h"
#include "fmt/rxe.h"

static_assert(RXE_DMA_RESID - RXE_DMA_LENGTH == RXE_DMAI_RESID &&
		  RXE_DMA_CUR_SGE - RXE_DMA_LENGTH == RXE_DMAI_CUR_SGE &&
		  RXE_DMA_NUM_SGE - RXE_DMA_LENGTH == RXE_DMAI_NUM_SGE &&
		  RXE_DMA_SGE_OFFSET - RXE_DMA_LENGTH == RXE_DMAI_SGE_OFFSET &&
		  RXE_DMA_RESERVED - RXE_DMA_LENGTH == RXE_DMAI_RESERVED &&
		  RXE_WQE_FIXED - RXE_DMA_LENGTH == RXE_DMAI_BYTES,
	      "struct rxe_dma_info is the same in the send and the receive WQE");
static_assert(RXE_RECV_FIXED == RXE_RECV_DMA + RXE_DMAI_BYTES,
	      "the receive WQE's SGE array follows its dma header");

int rxe_calc_rq(struct wqe_qp_cap *cap, uint32_t *slot_bytes, uint32_t *nslots)
{
	uint32_t elem;

	if (cap->max_recv_wr < 1 || cap->max_recv_wr > 32768 || cap->max_recv_sge < 1 ||
	    cap->max_recv_sge > RXE_MAX_SGE)
		return EINVAL;
	elem = RXE_RECV_FIXED + cap->max_recv_sge * RXE_SGE_BYTES;
	if (elem < RXE_CACHE_LINE)
		elem = RXE_CACHE_LINE;
	*slot_bytes = fmt_pow2(elem);
	*nslots = fmt_pow2(cap->max_recv_wr + 1);
	cap->max_recv_wr = *nslots - 1;
	return 0;
}

int rxe_encode_recv(const struct wqe_recv_wr *wr, uint8_t *slot, uint32_t slot_bytes)
{
	uint8_t *dma = slot + RXE_RECV_DMA;
	uint64_t total;
	uint32_t n;

	if (fmt_recv_check(wr, &total))
		return EINVAL;
	n = (uint32_t)wr->num_sge;
	if (slot_bytes < RXE_RECV_FIXED || n > (slot_bytes - RXE_RECV_FIXED) / RXE_SGE_BYTES)
		return EINVAL;
	memset(slot, 0, slot_bytes);
	put_le64(slot + RXE_RECV_WR_ID, wr->wr_id);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *s = slot + RXE_RECV_FIXED + (size_t)i * RXE_SGE_BYTES;

		put_le64(s, wr->sg_list[i].addr);
		put_le32(s + 8, wr->sg_list[i].length);
		put_le32(s + 12, wr->sg_list[i].lkey);
	}
	put_le32(dma + RXE_DMAI_LENGTH, (uint32_t)total);
	put_le32(dma + RXE_DMAI_RESID, (uint32_t)total);
	put_le32(dma + RXE_DMAI_CUR_SGE, 0);
	put_le32(dma + RXE_DMAI_NUM_SGE, n);
	put_le32(dma + RXE_DMAI_SGE_OFFSET, 0);
	return 0;
}

enum wqe_decode_err rxe_decode_recv(const uint8_t *wqe, size_t len, struct wqe_recv_desc *out)
{
	const uint8_t *dma = wqe + RXE_RECV_DMA;
	uint32_t length, nsge;
	uint64_t sum = 0;

	if (len < RXE_RECV_FIXED)
		return WQE_DEC_TRUNCATED;
	length = get_le32(dma + RXE_DMAI_LENGTH);
	nsge = get_le32(dma + RXE_DMAI_NUM_SGE);
	/* As posted: nothing consumed (the model keeps its cursor in the
	 * engine and never writes it back). */
	if (get_le32(dma + RXE_DMAI_RESID) != length || get_le32(dma + RXE_DMAI_CUR_SGE) ||
	    get_le32(dma + RXE_DMAI_SGE_OFFSET))
		return WQE_DEC_BAD_FIELD;
	if (nsge > WQE_DESC_MAX_SGE)
		return WQE_DEC_TOO_MANY_SGE;
	if (nsge > (len - RXE_RECV_FIXED) / RXE_SGE_BYTES)
		return WQE_DEC_BAD_SEGMENTS;
	for (uint32_t i = 0; i < nsge; i++) {
		const uint8_t *s = wqe + RXE_RECV_FIXED + (size_t)i * RXE_SGE_BYTES;
		struct wqe_desc_sge *g = &out->sge[i];

		g->addr = get_le64(s);
		g->length = get_le32(s + 8);
		g->lkey = get_le32(s + 12);
		sum += g->length;
	}
	if (sum != length)
		return WQE_DEC_BAD_SEGMENTS;
	out->format = WQE_FORMAT_RXE;
	out->wr_id = get_le64(wqe + RXE_RECV_WR_ID);
	out->num_sge = nsge;
	out->total_len = sum;
	out->size = RXE_RECV_FIXED + nsge * RXE_SGE_BYTES;
	return WQE_DEC_OK;
}
