/* SPDX-License-Identifier: MIT */
/*
 * The drop-in's QPs: creation (classic and extended), the state machine
 * through wqe_modify_qp() with libibverbs' attributes translated, queries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/ibv_int.h"

/* The attribute mask bits wqe_modify_qp() knows (libibverbs' values). */
#define WI_QP_MASK_KNOWN ((int)IBV_QP_DEST_QPN * 2 - 1)

static struct ibv_qp *qp_new(struct ibv_context *context, struct ibv_qp_init_attr_ex *a,
			     bool extended, bool gsi)
{
	struct wqe_qp_init_attr w;
	struct wi_qp *q;

	if (!context || !a || !a->pd || !a->send_cq || !a->recv_cq) {
		errno = EINVAL;
		return NULL;
	}
	if (a->pd->context != context || (a->srq && a->srq->context != context)) {
		errno = EINVAL;
		return NULL;
	}
	if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC && a->qp_type != IBV_QPT_UD) {
		errno = EOPNOTSUPP; /* XRC, raw packet, driver QPs */
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&w, 0, sizeof(w));
	w.qp_context = q;
	w.send_cq = ((struct wi_cq *)(void *)a->send_cq)->w;
	w.recv_cq = ((struct wi_cq *)(void *)a->recv_cq)->w;
	w.cap.max_send_wr = a->cap.max_send_wr;
	w.cap.max_recv_wr = a->cap.max_recv_wr;
	w.cap.max_send_sge = a->cap.max_send_sge ? a->cap.max_send_sge : 1;
	w.cap.max_recv_sge = a->cap.max_recv_sge ? a->cap.max_recv_sge : 1;
	w.cap.max_inline_data = a->cap.max_inline_data;
	/* libibverbs lets a QP have an empty queue; wqe's rings hold at least one */
	if (!w.cap.max_send_wr)
		w.cap.max_send_wr = 1;
	if (!w.cap.max_recv_wr)
		w.cap.max_recv_wr = 1;
	w.qp_type = (enum wqe_qp_type)a->qp_type;
	w.sq_sig_all = a->sq_sig_all;
	w.srq = a->srq ? ((struct wi_srq *)(void *)a->srq)->w : NULL;
	w.create_flags = gsi ? WQE_QP_CREATE_GSI : 0;
	q->w = wqe_create_qp(((struct wi_pd *)a->pd)->w, &w);
	if (!q->w) {
		free(q);
		return NULL;
	}
	pthread_spin_init(&q->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&q->rq_lock, PTHREAD_PROCESS_PRIVATE);
	a->cap.max_send_wr = w.cap.max_send_wr;
	a->cap.max_recv_wr = w.cap.max_recv_wr;
	a->cap.max_send_sge = w.cap.max_send_sge;
	a->cap.max_recv_sge = w.cap.max_recv_sge;
	a->cap.max_inline_data = w.cap.max_inline_data;

	struct ibv_qp *qp = &q->qpx.qp_base;

	qp->context = context;
	qp->qp_context = a->qp_context;
	qp->pd = a->pd;
	qp->send_cq = a->send_cq;
	qp->recv_cq = a->recv_cq;
	qp->srq = a->srq;
	qp->handle = wqe_qp_num(q->w);
	qp->qp_num = wqe_qp_num(q->w);
	qp->state = IBV_QPS_RESET;
	qp->qp_type = a->qp_type;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	if (extended) {
		q->extended = true;
		q->qpx.comp_mask = 0;
		wi_qp_ex_ops(q);
	}
	wi_obj_add(wi_ctx(context), &q->obj, WI_QP);
	return qp;
}

/* A classic ibv_qp_init_attr's QP (the GSI QP if @gsi). */
static struct ibv_qp *qp_new_classic(struct ibv_pd *pd, struct ibv_qp_init_attr *attr, bool gsi)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	a.qp_context = attr->qp_context;
	a.send_cq = attr->send_cq;
	a.recv_cq = attr->recv_cq;
	a.srq = attr->srq;
	a.cap = attr->cap;
	a.qp_type = attr->qp_type;
	a.sq_sig_all = attr->sq_sig_all;
	a.pd = pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	qp = qp_new(pd->context, &a, false, gsi);
	if (qp)
		attr->cap = a.cap;
	return qp;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	return qp_new_classic(pd, attr, false);
}

/* The drop-in librdmacm's one way in (WQE_PRIVATE_1 in libibverbs.map):
 * the device's GSI QP, as the kernel's CM has it. */
struct ibv_qp *wqe_ibv_create_gsi_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	if (attr && (attr->qp_type != IBV_QPT_UD || attr->srq)) {
		errno = EINVAL;
		return NULL;
	}
	return qp_new_classic(pd, attr, true);
}

struct ibv_qp *wi_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *a)
{
	const uint64_t ops = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			     IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV;

	if (!a || !(a->comp_mask & IBV_QP_INIT_ATTR_PD)) {
		errno = EINVAL;
		return NULL;
	}
	if ((a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) ||
	    ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && (a->send_ops_flags & ~ops))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return qp_new(context, a, (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0, false);
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct wi_qp *q = (struct wi_qp *)(void *)qp;

	return q && q->extended ? &q->qpx : NULL;
}

/* As cq_settle(): the QP's returned async events acknowledged first. */
static void qp_settle(struct wi_qp *q, bool closing)
{
	struct ibv_qp *qp = &q->qpx.qp_base;

	pthread_mutex_lock(&qp->mutex);
	while (!closing && qp->events_completed != q->async_delivered)
		pthread_cond_wait(&qp->cond, &qp->mutex);
	pthread_mutex_unlock(&qp->mutex);
	/* at close, each type's unacknowledged event is acknowledged */
	for (int t = WQE_EVENT_QP_FATAL; closing && t <= WQE_EVENT_QP_LAST_WQE_REACHED; t++) {
		struct wqe_async_event e = {.element.qp = q->w, .event_type = (enum wqe_event_type)t};

		if (t <= WQE_EVENT_SQ_DRAINED || t == WQE_EVENT_QP_LAST_WQE_REACHED)
			wqe_ack_async_event(&e);
	}
}

int wi_qp_free(struct wi_qp *q, bool closing)
{
	struct ibv_qp *qp = &q->qpx.qp_base;
	int err;

	qp_settle(q, closing);
	err = wqe_destroy_qp(q->w);
	if (err)
		return err;
	wi_obj_del(wi_ctx(qp->context), &q->obj);
	pthread_spin_destroy(&q->sq_lock);
	pthread_spin_destroy(&q->rq_lock);
	pthread_mutex_destroy(&qp->mutex);
	pthread_cond_destroy(&qp->cond);
	free(q);
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	return qp ? wi_qp_free((struct wi_qp *)(void *)qp, false) : EINVAL;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct wi_qp *q = (struct wi_qp *)(void *)qp;
	struct wqe_qp_attr a;
	int err;

	if (!qp || !attr)
		return EINVAL;
	if (attr_mask & ~WI_QP_MASK_KNOWN)
		return EOPNOTSUPP; /* rate limit, ECE, ... */
	memset(&a, 0, sizeof(a));
	a.qp_state = (enum wqe_qp_state)attr->qp_state;
	a.cur_qp_state = (enum wqe_qp_state)attr->cur_qp_state;
	a.path_mtu = (enum wqe_mtu)attr->path_mtu;
	a.qkey = attr->qkey;
	a.rq_psn = attr->rq_psn;
	a.sq_psn = attr->sq_psn;
	a.dest_qp_num = attr->dest_qp_num;
	a.qp_access_flags = attr->qp_access_flags;
	a.pkey_index = attr->pkey_index;
	a.en_sqd_async_notify = attr->en_sqd_async_notify;
	a.max_rd_atomic = attr->max_rd_atomic;
	a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	a.min_rnr_timer = attr->min_rnr_timer;
	a.port_num = attr->port_num;
	a.timeout = attr->timeout;
	a.retry_cnt = attr->retry_cnt;
	a.rnr_retry = attr->rnr_retry;
	if (attr_mask & IBV_QP_AV) {
		err = wi_ah_attr_in(wi_ctx(qp->context)->dev, &attr->ah_attr, &a.ah_attr);
		if (err)
			return err;
	} else if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RTR &&
		   qp->qp_type != IBV_QPT_UD) {
		return EINVAL; /* RoCE: an RC or UC QP needs its peer's GID */
	}
	err = wqe_modify_qp(q->w, &a, attr_mask);
	if (!err && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return err;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	struct wi_qp *q = (struct wi_qp *)(void *)qp;
	struct wqe_qp_init_attr wi;
	struct wqe_qp_attr a;
	int err;

	if (!qp || !attr || !init_attr)
		return EINVAL;
	err = wqe_query_qp(q->w, &a, attr_mask, &wi);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)a.qp_state;
	qp->state = attr->qp_state; /* as rdma-core */
	attr->cur_qp_state = (enum ibv_qp_state)a.qp_state;
	attr->path_mtu = (enum ibv_mtu)a.path_mtu;
	attr->path_mig_state = IBV_MIG_MIGRATED;
	attr->qkey = a.qkey;
	attr->rq_psn = a.rq_psn;
	attr->sq_psn = a.sq_psn;
	attr->dest_qp_num = a.dest_qp_num;
	attr->qp_access_flags = a.qp_access_flags;
	attr->cap.max_send_wr = a.cap.max_send_wr;
	attr->cap.max_recv_wr = a.cap.max_recv_wr;
	attr->cap.max_send_sge = a.cap.max_send_sge;
	attr->cap.max_recv_sge = a.cap.max_recv_sge;
	attr->cap.max_inline_data = a.cap.max_inline_data;
	wi_ah_attr_out(&a.ah_attr, &attr->ah_attr);
	attr->pkey_index = a.pkey_index;
	attr->en_sqd_async_notify = a.en_sqd_async_notify;
	attr->sq_draining = a.sq_draining;
	attr->max_rd_atomic = a.max_rd_atomic;
	attr->max_dest_rd_atomic = a.max_dest_rd_atomic;
	attr->min_rnr_timer = a.min_rnr_timer;
	attr->port_num = a.port_num;
	attr->timeout = a.timeout;
	attr->retry_cnt = a.retry_cnt;
	attr->rnr_retry = a.rnr_retry;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	init_attr->cap = attr->cap;
	init_attr->qp_type = qp->qp_type;
	init_attr->sq_sig_all = wi.sq_sig_all;
	return 0;
}
