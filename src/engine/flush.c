/* SPDX-License-Identifier: MIT */
#include "engine/flush.h"

#include <string.h>

#include "engine/srq.h"

enum wqe_wc_opcode wc_opcode_of(enum wqe_op op)
{
	switch (op) {
	case WQE_OP_RDMA_WRITE:
	case WQE_OP_RDMA_WRITE_WITH_IMM: return WQE_WC_RDMA_WRITE;
	case WQE_OP_RDMA_READ: return WQE_WC_RDMA_READ;
	case WQE_OP_ATOMIC_CMP_AND_SWP: return WQE_WC_COMP_SWAP;
	case WQE_OP_ATOMIC_FETCH_AND_ADD: return WQE_WC_FETCH_ADD;
	default: return WQE_WC_SEND;
	}
}

void sq_retire(struct sq_ring *sq, uint32_t nblocks)
{
	uint32_t ci = atomic_load_explicit(&sq->ci, memory_order_relaxed);
	uint32_t n = atomic_load_explicit(&sq->ci_wqes, memory_order_relaxed);

	atomic_store_explicit(&sq->ci_wqes, n + 1, memory_order_relaxed);
	/* Release: the engine is done reading these blocks. Every caller
	 * retires before it writes the completion, so that a completion
	 * software has polled always finds its blocks free. */
	atomic_store_explicit(&sq->ci, ci + nblocks, memory_order_release);
}

/* Size in blocks of the WQE at @counter, from its first block. A WQE whose
 * size cannot be read (a raw ring writer's garbage) is taken as one block. */
static uint32_t wqe_blocks_at(const struct qpc *q, uint32_t counter, uint32_t avail,
			      enum wqe_op *op)
{
	uint8_t buf[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];
	struct wqe_decode_ctx dctx = {.qp_type = q->type, .max_bytes = 0, .qpn = q->qpn};
	struct wqe_desc d;
	uint32_t size = 0, nb;

	*op = WQE_OP_SEND;
	if (q->sq->slot_blocks)
		size = q->sq->slot_blocks * WQE_BLOCK_SIZE;
	else if (wqe_peek_size(q->format, sq_ring_block(q->sq, counter), WQE_BLOCK_SIZE, &size) ||
		 size == 0)
		return 1;
	nb = size / WQE_BLOCK_SIZE;
	if (nb > avail || nb > WQE_MAX_BLOCKS)
		return 1;
	for (uint32_t i = 0; i < nb; i++)
		memcpy(buf + i * WQE_BLOCK_SIZE, sq_ring_block(q->sq, counter + i),
		       WQE_BLOCK_SIZE);
	dctx.max_bytes = nb * WQE_BLOCK_SIZE;
	if (wqe_decode(q->format, &dctx, buf, dctx.max_bytes, &d) == WQE_DEC_OK)
		*op = d.op;
	return nb;
}

static int flush_sq(struct qpc *q)
{
	struct sq_ring *sq = q->sq;
	uint32_t ci = atomic_load_explicit(&sq->ci, memory_order_relaxed);
	uint32_t pi = sq_ring_producer(sq, ci);

	uint32_t record = pi;
	int n = 0;

	/* A doorbell record more than a ring ahead is a driver's bug (or a raw
	 * writer's): flush one ring, the most the ring can hold, then move the
	 * consumer counter to the record, so nothing flushes twice and no call
	 * runs long. */
	if (pi - ci > sq->nblocks)
		pi = ci + sq->nblocks;

	while (ci != pi) {
		enum wqe_op op;
		uint32_t nb = wqe_blocks_at(q, ci, pi - ci, &op);
		struct cqe e = {.qpn = q->qpn, .wqe_counter = ci,
				.status = WQE_WC_WR_FLUSH_ERR, .opcode = (uint8_t)wc_opcode_of(op)};

		sq_retire(sq, nb);
		nic_push_cqe(q->eng->nic, q->send_cq, &e);
		q->eng->stats.flushed++;
		ci += nb;
		n++;
	}
	if (record != pi) {
		atomic_store_explicit(&sq->ci, record, memory_order_release);
		ci = record;
	}
	/* Nothing is in flight any more: the requester starts after these. */
	q->eng->req.fetch = ci;
	q->eng->req.fl_head = q->eng->req.fl_tail = 0;
	q->eng->req.tx_open = false;
	q->eng->req.rd_atomic = 0;
	return n;
}

static int flush_rq(struct nic *nic, struct qpc *q)
{
	struct rq_ring *rq = q->rq;
	uint32_t pi, ci;
	int n = 0;

	if (q->srq) {
		/* The SRQ's WQEs are still every other QP's: only the one this
		 * QP holds is flushed. Then Last WQE Reached, once per entry
		 * to ERR (IBTA 11.6.3.1; rxe's flush_recv_queue()). */
		n = srq_release(q);
		if (!q->eng->resp.last_wqe) {
			q->eng->resp.last_wqe = true;
			nic_event(nic, NIC_EV_QP_LAST_WQE_REACHED, q->qpn, NULL);
		}
		return n;
	}
	if (!rq)
		return 0;
	ci = atomic_load_explicit(&rq->ci, memory_order_relaxed);
	pi = rq_ring_producer(rq, ci);
	for (; ci != pi; ci++, n++) {
		struct cqe e = {.qpn = q->qpn, .wqe_counter = ci, .is_recv = 1,
				.status = WQE_WC_WR_FLUSH_ERR, .opcode = WQE_WC_RECV};

		atomic_store_explicit(&rq->ci, ci + 1, memory_order_release);
		nic_push_cqe(q->eng->nic, q->recv_cq, &e);
	}
	return n;
}

int flush_qp(struct nic *n, struct qpc *q)
{
	return flush_sq(q) + flush_rq(n, q);
}
