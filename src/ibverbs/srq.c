/* SPDX-License-Identifier: MIT */
/*
 * The drop-in's shared receive queues: ibv_create_srq() (and
 * ibv_create_srq_ex() of the basic type), ibv_modify_srq(),
 * ibv_query_srq(), ibv_destroy_srq(), and ops.post_srq_recv, over
 * wqe_create_srq() and the calls after it. XRC SRQs are refused
 * (EOPNOTSUPP): wqe has no XRC domains.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/ibv_int.h"

_Static_assert(IBV_SRQ_MAX_WR == (int)WQE_SRQ_MAX_WR && IBV_SRQ_LIMIT == (int)WQE_SRQ_LIMIT,
	       "SRQ attribute mask values");

static struct ibv_srq *srq_new(struct ibv_context *context, struct ibv_pd *pd,
			       void *srq_context, struct ibv_srq_attr *attr)
{
	struct wqe_srq_init_attr w;
	struct wi_srq *s;

	if (!pd || !attr || pd->context != context) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&w, 0, sizeof(w));
	w.srq_context = s;
	w.attr.max_wr = attr->max_wr;
	w.attr.max_sge = attr->max_sge ? attr->max_sge : 1;
	w.attr.srq_limit = attr->srq_limit;
	s->w = wqe_create_srq(((struct wi_pd *)(void *)pd)->w, &w);
	if (!s->w) {
		free(s);
		return NULL;
	}
	attr->max_wr = w.attr.max_wr;
	attr->max_sge = w.attr.max_sge;
	s->srq.context = context;
	s->srq.srq_context = srq_context;
	s->srq.pd = pd;
	s->srq.handle = (uint32_t)(uintptr_t)s;
	pthread_mutex_init(&s->srq.mutex, NULL);
	pthread_cond_init(&s->srq.cond, NULL);
	wi_obj_add(wi_ctx(context), &s->obj, WI_SRQ);
	return &s->srq;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	if (!pd || !srq_init_attr) {
		errno = EINVAL;
		return NULL;
	}
	return srq_new(pd->context, pd, srq_init_attr->srq_context, &srq_init_attr->attr);
}

/* verbs_context.create_srq_ex: the basic type only. */
struct ibv_srq *wi_create_srq_ex(struct ibv_context *context,
				 struct ibv_srq_init_attr_ex *a)
{
	if (!context || !a) {
		errno = EINVAL;
		return NULL;
	}
	if ((a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && a->srq_type != IBV_SRQT_BASIC) {
		errno = EOPNOTSUPP; /* XRC, tag matching */
		return NULL;
	}
	if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_PD) ||
	    (a->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD))) {
		errno = (a->comp_mask & IBV_SRQ_INIT_ATTR_PD) ? EOPNOTSUPP : EINVAL;
		return NULL;
	}
	return srq_new(context, a->pd, a->srq_context, &a->attr);
}

int wi_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	/* ibv_recv_wr and wqe_recv_wr have one layout (datapath.c asserts
	 * it); wqe_post_srq_recv() locks the SRQ itself. */
	return wqe_post_srq_recv(((struct wi_srq *)(void *)srq)->w,
				 (struct wqe_recv_wr *)(void *)wr, (struct wqe_recv_wr **)(void *)bad);
}

int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)
{
	struct wqe_srq_attr a;

	if (!srq || !srq_attr)
		return EINVAL;
	memset(&a, 0, sizeof(a));
	a.max_wr = srq_attr->max_wr;
	a.max_sge = srq_attr->max_sge;
	a.srq_limit = srq_attr->srq_limit;
	return wqe_modify_srq(((struct wi_srq *)(void *)srq)->w, &a, srq_attr_mask);
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	struct wqe_srq_attr a;
	int err;

	if (!srq || !srq_attr)
		return EINVAL;
	err = wqe_query_srq(((struct wi_srq *)(void *)srq)->w, &a);
	if (err)
		return err;
	srq_attr->max_wr = a.max_wr;
	srq_attr->max_sge = a.max_sge;
	srq_attr->srq_limit = a.srq_limit;
	return 0;
}

int wi_srq_free(struct wi_srq *s, bool closing)
{
	struct ibv_srq *srq = &s->srq;
	int err;

	/* As ibv_destroy_srq(): wait until every event returned is
	 * acknowledged; ibv_close_device() counts them acknowledged. */
	pthread_mutex_lock(&srq->mutex);
	while (!closing && srq->events_completed != s->async_delivered)
		pthread_cond_wait(&srq->cond, &srq->mutex);
	if (closing) {
		while (srq->events_completed != s->async_delivered) {
			struct wqe_async_event e = {.element.srq = s->w,
						    .event_type = WQE_EVENT_SRQ_LIMIT_REACHED};

			wqe_ack_async_event(&e);
			srq->events_completed++;
		}
	}
	pthread_mutex_unlock(&srq->mutex);
	err = wqe_destroy_srq(s->w);
	if (err)
		return err;
	wi_obj_del(wi_ctx(srq->context), &s->obj);
	pthread_mutex_destroy(&srq->mutex);
	pthread_cond_destroy(&srq->cond);
	free(s);
	return 0;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	return srq ? wi_srq_free((struct wi_srq *)(void *)srq, false) : EINVAL;
}
