/* SPDX-License-Identifier: MIT */
#include "engine/srq.h"

#include <string.h>

#include "common/bytes.h"
#include "wqe/desc.h"

const uint8_t *srq_wqe_bytes(const struct qpc *q, uint32_t ctr, uint32_t *len)
{
	const struct srqc *s = q->srq;

	if (!s) {
		*len = q->rq->stride;
		return rq_ring_slot(q->rq, ctr);
	}
	if (s->format == WQE_FORMAT_MLX5) {
		*len = s->rq->stride - SRQ_MLX5_NEXT_LEN;
		return rq_ring_slot(s->rq, ctr) + SRQ_MLX5_NEXT_LEN;
	}
	*len = s->rq->stride;
	return q->eng->srq_copy;
}

void srq_cqe(const struct qpc *q, struct cqe *e)
{
	e->srqn = q->srq->srqn;
	if (q->srq->format != WQE_FORMAT_MLX5) {
		struct wqe_recv_desc d;
		uint32_t len;
		const uint8_t *b = srq_wqe_bytes(q, e->wqe_counter, &len);

		/* A malformed copy still completes (LOC_QP_OP_ERR) with its
		 * wr_id, struct rxe_recv_wqe's first field. */
		e->wr_id = wqe_decode_recv(q->format, b, len, &d) == WQE_DEC_OK ? d.wr_id
										 : get_le64(b);
	}
}

bool srq_release(struct qpc *q)
{
	struct resp_rwqe *w = &q->eng->resp.wqe;
	struct cqe e;

	if (!w->owned)
		return false;
	/* resp_cqe_init()'s flushed receive, in the QP's terms */
	memset(&e, 0, sizeof(e));
	e.qpn = q->qpn;
	e.wqe_counter = w->ctr;
	e.is_recv = 1;
	e.status = WQE_WC_WR_FLUSH_ERR;
	e.opcode = WQE_WC_RECV;
	e.pkey_index = q->pkey_index;
	srq_cqe(q, &e);
	nic_push_cqe(q->eng->nic, q->recv_cq, &e);
	memset(w, 0, sizeof(*w));
	return true;
}
