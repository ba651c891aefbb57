/* SPDX-License-Identifier: MIT */
/* Completion queues: creating, destroying and polling them. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/verbs_int.h"

struct wqe_cq *wqe_create_cq_ex(struct wqe_context *ctx, const struct wqe_cq_init_attr_ex *attr)
{
	struct wqe_cq *cq;

	if (!ctx || !attr || attr->cqe < 1 || attr->cqe > 65536 || attr->comp_vector ||
	    attr->comp_mask || (attr->channel && attr->channel->context != ctx)) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq || cqc_init(&cq->cqc, attr->cqe)) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	if (verbs_async_reserve(ctx, ASYNC_CQ_ROOM)) {
		cqc_fini(&cq->cqc);
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->context = ctx;
	cq->cq_context = attr->cq_context;
	if (attr->channel) {
		cq->channel = channel_of(attr->channel);
		cq->cqc.event = verbs_cq_event;
		verbs_channel_ref(cq->channel);
	}
	ctx->ncq++;
	return cq;
}

struct wqe_cq *wqe_create_cq(struct wqe_context *ctx, int cqe)
{
	struct wqe_cq_init_attr_ex attr = {.cqe = cqe > 0 ? (uint32_t)cqe : 0};

	return wqe_create_cq_ex(ctx, &attr);
}

int wqe_destroy_cq(struct wqe_cq *cq)
{
	struct nic *n;
	int busy;

	if (!cq)
		return EINVAL;
	if (cq->refs || verbs_async_busy_cq(cq))
		return EBUSY;
	/* No QP uses it: the NIC writes nothing into it; the bracket keeps a
	 * NIC thread's event for it (CQ_ERR, a completion event) from
	 * overlapping its removal. */
	n = cq->context->nic;
	nic_cmd_begin(n);
	busy = verbs_async_busy_cq(cq) || verbs_cq_detach(cq);
	if (!busy)
		verbs_async_detach_cq(cq);
	nic_cmd_end(n);
	if (busy)
		return EBUSY;
	cq->context->ncq--;
	cqc_fini(&cq->cqc);
	free(cq);
	return 0;
}

static void fill_wc(struct wqe_qp *qp, struct wqe_srq *srq, const struct cqe *e,
		    struct wqe_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	if (e->is_recv && srq)
		wc->wr_id = verbs_srq_complete(srq, e);
	else if (e->is_recv)
		wc->wr_id = qp->rq_wrid[e->wqe_counter & (qp->rq.nslots - 1)];
	else
		wc->wr_id = qp->sq_wrid[e->wqe_counter & (qp->sq.nblocks - 1)];
	wc->status = (enum wqe_wc_status)e->status;
	wc->opcode = (enum wqe_wc_opcode)e->opcode;
	wc->byte_len = e->byte_len;
	/* The CQE holds the immediate as a big-endian value; ibv_wc gives it
	 * in network order, i.e. the same four bytes in memory. */
	if (e->flags & WQE_WC_WITH_IMM) {
		uint8_t b[4] = {(uint8_t)(e->imm >> 24), (uint8_t)(e->imm >> 16),
				(uint8_t)(e->imm >> 8), (uint8_t)e->imm};
		memcpy(&wc->imm_data, b, 4);
	} else if (e->flags & WQE_WC_WITH_INV) {
		wc->invalidated_rkey = e->imm;
	}
	wc->qp_num = e->qpn;
	wc->src_qp = e->src_qp;
	wc->wc_flags = e->flags;
	wc->pkey_index = e->pkey_index;
	wc->sl = e->sl;
}

void *wqe_cq_context(const struct wqe_cq *cq)
{
	return cq ? cq->cq_context : NULL;
}

int wqe_poll_cq(struct wqe_cq *cq, int num_entries, struct wqe_wc *wc)
{
	const struct wqe_context *ctx;
	bool assisted = false;
	uint32_t pi;
	int n = 0;

	if (!cq || num_entries < 0 || (num_entries && !wc))
		return -EINVAL;
	ctx = cq->context;
	nic_progress(ctx->nic); /* NIC_THREAD: nothing */
again:
	/* Acquire pairs with the engine's release in cqc_push(). */
	pi = atomic_load_explicit(&cq->cqc.pi_pub, memory_order_acquire);
	while (n < num_entries && cq->ci != pi) {
		const struct cqe *e = &cq->cqc.ring[cq->ci & (cq->cqc.nslots - 1)];
		struct wqe_qp *qp = verbs_qp_find(ctx, e->qpn);
		struct wqe_srq *srq = e->srqn ? verbs_srq_find(ctx, e->srqn) : NULL;

		cq->ci++;
		if (!qp) {
			/* The QP was destroyed: its completions go with it, but an
			 * SRQ's slot comes back (mlx5's cq clean frees it). */
			if (srq)
				verbs_srq_complete(srq, e);
			continue;
		}
		fill_wc(qp, srq, e, &wc[n++]);
	}
	atomic_store_explicit(&cq->cqc.ci, cq->ci, memory_order_release);
	if (n == 0 && atomic_load_explicit(&cq->cqc.overrun, memory_order_relaxed) && cq->ci == pi)
		return -EOVERFLOW;
	/* An empty poll with the NIC on a thread: a program that busy-polls
	 * (perftest, the pingpongs without -e) would otherwise hold the core the
	 * NIC thread needs whenever there are fewer cores than spinning threads
	 * (valgrind runs one thread at a time: udp_ops_nicthread took 100 s
	 * instead of 3 s). So the poll runs a pass of the NIC itself when the
	 * NIC is free (nic_assist()), and looks again if it did work; else it
	 * yields, which on an idle core returns at once. */
	if (n == 0 && nic_mode_of(ctx->nic) == NIC_THREAD) {
		if (!assisted && nic_assist(ctx->nic) > 0) {
			assisted = true;
			goto again;
		}
		sched_yield();
	}
	return n;
}
