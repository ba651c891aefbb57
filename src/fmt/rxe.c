/* SPDX-License-Identifier: MIT */
/*
 * The rxe format: struct rxe_send_wqe, one WQE per power-of-two slot.
 *
 * The encoder fills a slot the way rdma-core's rxe provider does at post
 * time (convert_send_wr(), init_send_wqe()): the rxe_send_wr nearly as the
 * verbs Work Request gives it, the progress fields a poster sets (iova,
 * dma.length = dma.resid = total, dma.num_sge, state 0 = posted), then the
 * SGE array (every SGE, zero-length ones too) or the inline bytes. The
 * slot is cleared first: the provider leaves the driver's progress fields
 * of an earlier WQE in place, which no decoder may rely on.
 */
#include "fmt/rxe.h"

#include <errno.h>
#include <string.h>

#include "common/bytes.h"
#include "tables/catalog.h"

#define SEND_FLAGS_ALL (WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED | WQE_SEND_INLINE)

uint32_t rxe_slot_bytes(uint32_t max_send_sge, uint32_t max_inline)
{
	uint32_t body = max_send_sge * RXE_SGE_BYTES;

	if (max_inline > body)
		body = max_inline;
	/* rxe_queue.c: roundup_pow_of_two(max(elem_size, cache line)) */
	return fmt_pow2(RXE_WQE_FIXED + body);
}

static bool is_atomic(enum wqe_wr_opcode op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

static bool is_rdma(enum wqe_wr_opcode op)
{
	return op == WQE_WR_RDMA_WRITE || op == WQE_WR_RDMA_WRITE_WITH_IMM ||
	       op == WQE_WR_RDMA_READ;
}

static int check_wr(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		    uint64_t *total)
{
	enum wqe_op op;

	*total = 0;
	if (!catalog_op_from_wr(wr->opcode, &op) || (wr->send_flags & ~(unsigned)SEND_FLAGS_ALL))
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge ||
	    (wr->num_sge > 0 && !wr->sg_list))
		return EINVAL;
	for (int i = 0; i < wr->num_sge; i++)
		*total += wr->sg_list[i].length;
	if (wr->send_flags & WQE_SEND_INLINE) {
		if (!wqe_op_inline_ok(op) || *total > qp->max_inline_data)
			return EINVAL;
		for (int i = 0; i < wr->num_sge; i++)
			if (wr->sg_list[i].length && !wr->sg_list[i].addr)
				return EINVAL;
	}
	if (qp->qp_type == WQE_QPT_UD && !wr->wr.ud.ah &&
	    (wr->opcode == WQE_WR_SEND || wr->opcode == WQE_WR_SEND_WITH_IMM))
		return EINVAL;
	if (qp->max_send_sge > RXE_MAX_SGE || qp->max_inline_data > RXE_MAX_INLINE)
		return EINVAL;
	return 0;
}

static int rxe_encoded_size(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
			    uint32_t *bytes)
{
	uint64_t total;
	int err = check_wr(qp, wr, &total);

	if (!err)
		*bytes = rxe_slot_bytes(qp->max_send_sge, qp->max_inline_data);
	return err;
}

/* A sockaddr_in / sockaddr_in6 for @gid, as rdma_gid2ip() makes it. */
static void put_sockaddr(uint8_t *p, const union wqe_gid *gid)
{
	if (wqe_gid_is_v4(gid)) {
		put_le16(p, 2); /* AF_INET, host order; port 0 */
		memcpy(p + 4, gid->raw + 12, 4);
	} else {
		put_le16(p, 10); /* AF_INET6; port 0, flowinfo 0, scope_id 0 */
		memcpy(p + 8, gid->raw, 16);
	}
}

/* struct rxe_av of an address handle (the old-kernel path). */
static void put_av(uint8_t *av, const struct wqe_ah *ah)
{
	const struct wqe_ah_attr *a = &ah->attr;

	av[RXE_AV_PORT] = a->port_num;
	av[RXE_AV_NETWORK_TYPE] = wqe_gid_is_v4(&a->grh.dgid) ? RXE_NETWORK_IPV4 : RXE_NETWORK_IPV6;
	memcpy(av + RXE_AV_DMAC, a->dmac, 6);
	memcpy(av + RXE_AV_DGID, a->grh.dgid.raw, 16);
	put_le32(av + RXE_AV_FLOW_LABEL, a->grh.flow_label);
	av[RXE_AV_SGID_INDEX] = a->grh.sgid_index;
	av[RXE_AV_HOP_LIMIT] = a->grh.hop_limit;
	av[RXE_AV_TCLASS] = a->grh.traffic_class;
	put_sockaddr(av + RXE_AV_SGID_ADDR, &ah->sgid);
	put_sockaddr(av + RXE_AV_DGID_ADDR, &a->grh.dgid);
}

/* convert_send_wr(): the 144-byte rxe_send_wr. */
static void put_wr(uint8_t *w, const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr)
{
	put_le64(w + RXE_WR_ID, wr->wr_id);
	put_le32(w + RXE_WR_OPCODE, (uint32_t)wr->opcode);
	put_le32(w + RXE_WR_SEND_FLAGS, wr->send_flags);
	/* ex is a union of the __be32 imm_data and the host-order
	 * invalidate_rkey: its four bytes are copied as they lie. */
	memcpy(w + RXE_WR_EX, &wr->imm_data, 4);
	if (is_rdma(wr->opcode)) {
		put_le64(w + RXE_WR_RDMA_ADDR, wr->wr.rdma.remote_addr);
		put_le32(w + RXE_WR_RDMA_RKEY, wr->wr.rdma.rkey);
	} else if (is_atomic(wr->opcode)) {
		put_le64(w + RXE_WR_ATOMIC_ADDR, wr->wr.atomic.remote_addr);
		put_le64(w + RXE_WR_ATOMIC_COMPARE_ADD, wr->wr.atomic.compare_add);
		put_le64(w + RXE_WR_ATOMIC_SWAP, wr->wr.atomic.swap);
		put_le32(w + RXE_WR_ATOMIC_RKEY, wr->wr.atomic.rkey);
	} else if (qp->qp_type == WQE_QPT_UD &&
		   (wr->opcode == WQE_WR_SEND || wr->opcode == WQE_WR_SEND_WITH_IMM)) {
		put_le32(w + RXE_WR_UD_QPN, wr->wr.ud.remote_qpn);
		put_le32(w + RXE_WR_UD_QKEY, wr->wr.ud.remote_qkey);
		put_le32(w + RXE_WR_UD_AH_NUM, wr->wr.ud.ah->ah_num);
		if (!wr->wr.ud.ah->ah_num)
			put_av(w + RXE_WR_UD_AV, wr->wr.ud.ah);
	}
}

static int rxe_encode(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		      const struct wqe_ring_view *ring, uint32_t slot, uint32_t wqe_index,
		      uint32_t *nblocks)
{
	uint32_t bytes = rxe_slot_bytes(qp->max_send_sge, qp->max_inline_data);
	uint32_t nb = bytes / WQE_BLOCK_SIZE;
	uint64_t total, iova;
	uint8_t *w;
	int err = check_wr(qp, wr, &total);

	(void)wqe_index; /* an rxe WQE has no index field */
	if (err)
		return err;
	/* Slots are aligned: a WQE never wraps the ring. */
	if (ring->nblocks < nb || (ring->nblocks & (ring->nblocks - 1)) || (slot & (nb - 1)))
		return EINVAL;
	w = ring->buf + (size_t)(slot & (ring->nblocks - 1)) * WQE_BLOCK_SIZE;
	memset(w, 0, bytes);
	put_wr(w, qp, wr);
	/* init_send_wqe(): iova is wr.atomic.remote_addr for atomics and
	 * wr.rdma.remote_addr otherwise -- read through the union, so for a
	 * UD send it is the address-handle pointer, as in the provider. No
	 * NIC reads iova of a SEND. */
	if (is_atomic(wr->opcode))
		iova = wr->wr.atomic.remote_addr;
	else
		iova = wr->wr.rdma.remote_addr;
	put_le64(w + RXE_IOVA, iova);
	put_le32(w + RXE_DMA_LENGTH, (uint32_t)total);
	put_le32(w + RXE_DMA_RESID, (uint32_t)total);
	put_le32(w + RXE_DMA_NUM_SGE, (uint32_t)wr->num_sge);
	if (wr->send_flags & WQE_SEND_INLINE) {
		uint8_t *p = w + RXE_WQE_FIXED;

		for (int i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length)
				memcpy(p, (const void *)(uintptr_t)wr->sg_list[i].addr,
				       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		for (int i = 0; i < wr->num_sge; i++) {
			uint8_t *s = w + RXE_WQE_FIXED + (size_t)i * RXE_SGE_BYTES;

			put_le64(s, wr->sg_list[i].addr);
			put_le32(s + 8, wr->sg_list[i].length);
			put_le32(s + 12, wr->sg_list[i].lkey);
		}
	}
	if (nblocks)
		*nblocks = nb;
	return 0;
}

static uint32_t rxe_fixed_size(enum wqe_qp_type t, enum wqe_wr_opcode op, int is_inline)
{
	enum wqe_op o;

	if ((t != WQE_QPT_RC && t != WQE_QPT_UC && t != WQE_QPT_UD) ||
	    !catalog_op_from_wr(op, &o) || (is_inline && !wqe_op_inline_ok(o)))
		return 0;
	return RXE_WQE_FIXED;
}

static int rxe_calc_sq(enum wqe_qp_type t, struct wqe_qp_cap *cap, uint32_t *wqe_bytes,
		       uint32_t *ring_blocks)
{
	uint32_t body, slot, nslots;

	if ((t != WQE_QPT_RC && t != WQE_QPT_UC && t != WQE_QPT_UD) || cap->max_send_wr < 1 ||
	    cap->max_send_wr > 32768 || cap->max_recv_wr < 1 || cap->max_recv_wr > 32768 ||
	    cap->max_recv_sge < 1 || cap->max_recv_sge > RXE_MAX_SGE ||
	    cap->max_send_sge > RXE_MAX_SGE || cap->max_inline_data > RXE_MAX_INLINE)
		return EINVAL;
	/* rxe_init_sq(): the slot body holds max_send_sge SGEs or
	 * max_inline_data bytes, and both are reported as what it holds. */
	body = cap->max_send_sge * RXE_SGE_BYTES;
	if (cap->max_inline_data > body)
		body = cap->max_inline_data;
	if (body > RXE_MAX_INLINE)
		body = RXE_MAX_INLINE;
	slot = rxe_slot_bytes(0, body);
	/* One slot is always empty (rxe_queue.c): a queue for N WQEs has
	 * roundup_pow_of_two(N + 1) slots and reports N = slots - 1. */
	nslots = fmt_pow2(cap->max_send_wr + 1);
	cap->max_send_sge = body / RXE_SGE_BYTES;
	cap->max_inline_data = body;
	cap->max_send_wr = nslots - 1;
	*wqe_bytes = slot;
	*ring_blocks = nslots * (slot / WQE_BLOCK_SIZE);
	return 0;
}

static enum wqe_decode_err rxe_peek_size(const uint8_t *wqe, size_t len, uint32_t *size)
{
	(void)wqe;
	(void)len;
	(void)size;
	return WQE_DEC_BAD_SIZE;
}

const struct fmt_ops rxe_fmt_ops = {
	.format = WQE_FORMAT_RXE,
	.encoded_size = rxe_encoded_size,
	.encode = rxe_encode,
	.fixed_size = rxe_fixed_size,
	.calc_sq = rxe_calc_sq,
	.calc_rq = rxe_calc_rq,
	.encode_recv = rxe_encode_recv,
	.decode_recv = rxe_decode_recv,
	.peek_size = rxe_peek_size,
	.decode = rxe_decode,
};
