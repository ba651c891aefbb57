/* SPDX-License-Identifier: MIT */
/*
 * The drop-in's PDs, MRs, completion channels, CQs, AHs and asynchronous
 * events: each libibverbs call checked, translated and handed to wqe's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/ibv_int.h"

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

static void *wi_alloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p)
		errno = ENOMEM;
	return p;
}

/* ------------------------------------------------------------------------ */
/* PD and MR                                                                */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct wi_pd *p;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	p = wi_alloc(sizeof(*p));
	if (!p)
		return NULL;
	p->w = wqe_alloc_pd(wi_w(context));
	if (!p->w) {
		free(p);
		return NULL;
	}
	p->pd.context = context;
	wi_obj_add(wi_ctx(context), &p->obj, WI_PD);
	return &p->pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct wi_pd *p = (struct wi_pd *)pd;
	int err;

	if (!pd)
		return EINVAL;
	err = wqe_dealloc_pd(p->w);
	if (err)
		return err;
	wi_obj_del(wi_ctx(pd->context), &p->obj);
	free(p);
	return 0;
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
			     unsigned int access)
{
	struct wi_pd *p = (struct wi_pd *)pd;
	struct wi_mr *m;
	/* What wqe models; the optional bits (relaxed ordering) may be
	 * ignored, as libibverbs lets a provider do. */
	const unsigned int known = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	if (!pd) {
		errno = EINVAL;
		return NULL;
	}
	access &= ~(unsigned)IBV_ACCESS_OPTIONAL_RANGE;
	if (access & ~known) {
		errno = EOPNOTSUPP; /* MW binding, zero-based, on-demand paging */
		return NULL;
	}
	m = wi_alloc(sizeof(*m));
	if (!m)
		return NULL;
	m->w = wqe_reg_mr_iova(p->w, addr, length, iova, access);
	if (!m->w) {
		free(m);
		return NULL;
	}
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = length;
	m->mr.handle = m->w->handle;
	m->mr.lkey = m->w->lkey;
	m->mr.rkey = m->w->rkey;
	wi_obj_add(wi_ctx(pd->context), &m->obj, WI_MR);
	return &m->mr;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, (uint64_t)(uintptr_t)addr, (unsigned int)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
			       int access)
{
	return reg_mr(pd, addr, length, iova, (unsigned int)access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	return reg_mr(pd, addr, length, iova, access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct wi_mr *m = (struct wi_mr *)mr;
	int err;

	if (!mr)
		return EINVAL;
	err = wqe_dereg_mr(m->w);
	if (err)
		return err;
	wi_obj_del(wi_ctx(mr->context), &m->obj);
	free(m);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Completion channels and CQs                                              */

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct wi_channel *ch;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	ch = wi_alloc(sizeof(*ch));
	if (!ch)
		return NULL;
	ch->w = wqe_create_comp_channel(wi_w(context));
	if (!ch->w) {
		free(ch);
		return NULL;
	}
	ch->ch.context = context;
	ch->ch.fd = ch->w->fd;
	wi_obj_add(wi_ctx(context), &ch->obj, WI_CHANNEL);
	return &ch->ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct wi_channel *ch = (struct wi_channel *)channel;
	int err;

	if (!channel)
		return EINVAL;
	err = wqe_destroy_comp_channel(ch->w);
	if (err)
		return err;
	wi_obj_del(wi_ctx(channel->context), &ch->obj);
	free(ch);
	return 0;
}

static struct wi_cq *cq_new(struct ibv_context *context, int cqe, void *cq_context,
			    struct ibv_comp_channel *channel, int comp_vector)
{
	struct wqe_cq_init_attr_ex a = {0};
	struct wi_cq *cq;

	if (!context || cqe < 1 || comp_vector < 0 || comp_vector >= context->num_comp_vectors ||
	    (channel && channel->context != context)) {
		errno = EINVAL;
		return NULL;
	}
	cq = wi_alloc(sizeof(*cq));
	if (!cq)
		return NULL;
	a.cqe = (uint32_t)cqe;
	a.cq_context = cq;
	a.channel = channel ? ((struct wi_channel *)channel)->w : NULL;
	cq->w = wqe_create_cq_ex(wi_w(context), &a);
	if (!cq->w) {
		free(cq);
		return NULL;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->cq.context = context;
	cq->cq.channel = channel;
	cq->cq.cq_context = cq_context;
	cq->cq.cqe = cqe;
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
	if (channel)
		channel->refcnt++;
	wi_obj_add(wi_ctx(context), &cq->obj, WI_CQ);
	return cq;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct wi_cq *cq = cq_new(context, cqe, cq_context, channel, comp_vector);

	return cq ? ibv_cq_ex_to_cq(&cq->cq) : NULL;
}

struct ibv_cq_ex *wi_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *a)
{
	/* What the read_*() accessors can give: everything a wqe completion
	 * holds; no timestamps, VLAN or flow tag. */
	const uint64_t wc_ok = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM |
			       IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
			       IBV_WC_EX_WITH_DLID_PATH_BITS;
	struct wi_cq *cq;

	if (!a) {
		errno = EINVAL;
		return NULL;
	}
	if ((a->wc_flags & ~wc_ok) || (a->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    ((a->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (a->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (a->cqe > 65536) {
		errno = EINVAL;
		return NULL;
	}
	cq = cq_new(context, (int)a->cqe, a->cq_context, a->channel, (int)a->comp_vector);
	if (!cq)
		return NULL;
	wi_cq_ex_ops(cq, a->wc_flags);
	return &cq->cq;
}

/* As libibverbs: the events of @cq returned to the program are
 * acknowledged first, waited for (or, when the device closes, taken as
 * acknowledged: nobody is left to acknowledge them). */
static void cq_settle(struct wi_cq *cq, bool closing)
{
	struct ibv_cq *c = ibv_cq_ex_to_cq(&cq->cq);

	pthread_mutex_lock(&c->mutex);
	while (!closing && (c->comp_events_completed != cq->comp_delivered ||
			    c->async_events_completed != cq->async_delivered))
		pthread_cond_wait(&c->cond, &c->mutex);
	if (c->comp_events_completed != cq->comp_delivered)
		wqe_ack_cq_events(cq->w, cq->comp_delivered - c->comp_events_completed);
	if (c->async_events_completed != cq->async_delivered) {
		struct wqe_async_event e = {.element.cq = cq->w, .event_type = WQE_EVENT_CQ_ERR};

		wqe_ack_async_event(&e);
	}
	pthread_mutex_unlock(&c->mutex);
}

static int cq_free(struct wi_cq *cq, bool closing)
{
	struct ibv_comp_channel *ch = cq->cq.channel;
	int err;

	cq_settle(cq, closing);
	err = wqe_destroy_cq(cq->w);

	if (err)
		return err;
	if (ch)
		ch->refcnt--;
	wi_obj_del(wi_ctx(cq->cq.context), &cq->obj);
	pthread_spin_destroy(&cq->lock);
	pthread_mutex_destroy(&cq->cq.mutex);
	pthread_cond_destroy(&cq->cq.cond);
	free(cq);
	return 0;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	return cq ? cq_free((struct wi_cq *)(void *)cq, false) : EINVAL;
}

int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	(void)cq;
	(void)cqe;
	return EOPNOTSUPP;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct wqe_cq *wcq;
	void *wctx;
	struct wi_cq *c;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	if (wqe_get_cq_event(((struct wi_channel *)channel)->w, &wcq, &wctx))
		return -1;
	c = wctx;
	*cq = ibv_cq_ex_to_cq(&c->cq);
	*cq_context = c->cq.cq_context;
	pthread_mutex_lock(&(*cq)->mutex);
	c->comp_delivered++;
	pthread_mutex_unlock(&(*cq)->mutex);
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	struct wi_cq *c = (struct wi_cq *)(void *)cq;

	if (!cq)
		return;
	wqe_ack_cq_events(c->w, nevents);
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_broadcast(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ------------------------------------------------------------------------ */
/* Address handles                                                          */

int wi_ah_attr_in(struct wi_device *d, const struct ibv_ah_attr *in, struct wqe_ah_attr *out)
{
	int hop;

	(void)d;
	memset(out, 0, sizeof(*out));
	/* RoCE has no LIDs: an address is a GID (rxe: EINVAL) */
	if (!in->is_global || in->port_num != 1 || in->sl > 7)
		return EINVAL;
	memcpy(out->grh.dgid.raw, in->grh.dgid.raw, 16);
	out->grh.flow_label = in->grh.flow_label & 0xfffff;
	out->grh.sgid_index = in->grh.sgid_index;
	/* The route's hop limit, not the program's, as the kernel's RoCE
	 * address resolution sets it (ib_resolve_eth_dmac()): rc_pingpong
	 * asks for 1, which would not pass the first router. No route fails
	 * as there. */
	hop = wqe_udp_route_hop_limit(&out->grh.dgid);
	if (hop < 0)
		return errno ? errno : ENETUNREACH;
	out->grh.hop_limit = (uint8_t)hop;
	out->grh.traffic_class = in->grh.traffic_class;
	out->sl = in->sl;
	out->port_num = 1;
	/* The UDP link addresses by IP; a locally administered MAC from the
	 * GID's last four bytes stands in for a neighbour lookup. */
	out->dmac[0] = 0x02;
	memcpy(out->dmac + 2, in->grh.dgid.raw + 12, 4);
	return 0;
}

void wi_ah_attr_out(const struct wqe_ah_attr *in, struct ibv_ah_attr *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->grh.dgid.raw, in->grh.dgid.raw, 16);
	out->grh.flow_label = in->grh.flow_label;
	out->grh.sgid_index = in->grh.sgid_index;
	out->grh.hop_limit = in->grh.hop_limit;
	out->grh.traffic_class = in->grh.traffic_class;
	out->sl = in->sl;
	out->is_global = 1;
	out->port_num = in->port_num;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct wqe_ah_attr a;
	struct wi_ah *ah;
	int err;

	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	err = wi_ah_attr_in(wi_ctx(pd->context)->dev, attr, &a);
	if (err) {
		errno = err;
		return NULL;
	}
	ah = wi_alloc(sizeof(*ah));
	if (!ah)
		return NULL;
	ah->w = wqe_create_ah(((struct wi_pd *)pd)->w, &a);
	if (!ah->w) {
		free(ah);
		return NULL;
	}
	ah->ah.context = pd->context;
	ah->ah.pd = pd;
	ah->ah.handle = ah->w->ah_num;
	wi_obj_add(wi_ctx(pd->context), &ah->obj, WI_AH);
	return &ah->ah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	struct wi_ah *a = (struct wi_ah *)ah;
	int err;

	if (!ah)
		return EINVAL;
	err = wqe_destroy_ah(a->w);
	if (err)
		return err;
	wi_obj_del(wi_ctx(ah->context), &a->obj);
	free(a);
	return 0;
}

/* An IPv4 header with a right checksum at @h (20 bytes, no options): how
 * rdma-core tells a RoCEv2-over-IPv4 GRH from an IPv6 one. */
static bool is_ipv4_hdr(const uint8_t *h)
{
	uint32_t sum = 0;

	if (h[0] != 0x45)
		return false;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The address back to a UD sender, from the GRH the NIC put at the start of
 * the receive buffer: for RoCEv2 over IPv4 the IPv4 header in its last 20
 * bytes, else the IPv6 header (as rdma-core reads it). */
int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
			struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	const uint8_t *g = (const uint8_t *)grh;

	if (!context || !wc || !grh || !ah_attr || port_num != 1) {
		errno = EINVAL;
		return -1;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->port_num = port_num;
	ah_attr->sl = wc->sl;
	ah_attr->dlid = wc->slid;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0; /* as rdma-core: no GRH, no global address */
	ah_attr->is_global = 1;
	ah_attr->grh.sgid_index = 0;
	if (is_ipv4_hdr(g + 20)) {
		ah_attr->grh.dgid.raw[10] = ah_attr->grh.dgid.raw[11] = 0xff;
		memcpy(ah_attr->grh.dgid.raw + 12, g + 20 + 12, 4);
		ah_attr->grh.hop_limit = g[20 + 8];
		ah_attr->grh.traffic_class = g[21];
	} else if ((g[0] >> 4) == 6) {
		uint32_t vtf = ntohl(grh->version_tclass_flow);

		memcpy(ah_attr->grh.dgid.raw, grh->sgid.raw, 16);
		ah_attr->grh.flow_label = vtf & 0xfffff;
		ah_attr->grh.hop_limit = grh->hop_limit;
		ah_attr->grh.traffic_class = (uint8_t)(vtf >> 20);
	} else {
		errno = EPROTOTYPE; /* neither IPv4 nor IPv6 */
		return -1;
	}
	if (ah_attr->grh.dgid.raw[0] == 0xff) {
		errno = ENOTSUP; /* a multicast sender: no reply address */
		return -1;
	}
	return 0;
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
				     uint8_t port_num)
{
	struct ibv_ah_attr a;

	if (!pd) {
		errno = EINVAL;
		return NULL;
	}
	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &a))
		return NULL;
	return ibv_create_ah(pd, &a);
}

/* ------------------------------------------------------------------------ */
/* Asynchronous events                                                      */

int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct wqe_async_event e;

	if (!context || !event) {
		errno = EINVAL;
		return -1;
	}
	if (wqe_get_async_event(wi_w(context), &e))
		return -1;
	memset(event, 0, sizeof(*event));
	/* wqe's event types have libibverbs' values */
	event->event_type = (enum ibv_event_type)e.event_type;
	if (e.event_type == WQE_EVENT_CQ_ERR) {
		struct wi_cq *c = wqe_cq_context(e.element.cq);

		event->element.cq = ibv_cq_ex_to_cq(&c->cq);
		pthread_mutex_lock(&event->element.cq->mutex);
		c->async_delivered++;
		pthread_mutex_unlock(&event->element.cq->mutex);
	} else if (e.event_type == WQE_EVENT_SRQ_LIMIT_REACHED) {
		struct wi_srq *s = wqe_srq_context(e.element.srq);

		event->element.srq = &s->srq;
		pthread_mutex_lock(&s->srq.mutex);
		s->async_delivered++;
		pthread_mutex_unlock(&s->srq.mutex);
	} else {
		struct wi_qp *q = wqe_qp_context(e.element.qp);

		event->element.qp = &q->qpx.qp_base;
		pthread_mutex_lock(&event->element.qp->mutex);
		q->async_delivered++;
		pthread_mutex_unlock(&event->element.qp->mutex);
	}
	return 0;
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	struct wqe_async_event e;

	if (!event)
		return;
	memset(&e, 0, sizeof(e));
	e.event_type = (enum wqe_event_type)event->event_type;
	if (event->event_type == IBV_EVENT_CQ_ERR) {
		struct ibv_cq *cq = event->element.cq;

		e.element.cq = ((struct wi_cq *)(void *)cq)->w;
		wqe_ack_async_event(&e);
		pthread_mutex_lock(&cq->mutex);
		cq->async_events_completed++;
		pthread_cond_broadcast(&cq->cond);
		pthread_mutex_unlock(&cq->mutex);
	} else if (event->event_type == IBV_EVENT_SRQ_LIMIT_REACHED) {
		struct ibv_srq *srq = event->element.srq;

		e.element.srq = ((struct wi_srq *)(void *)srq)->w;
		wqe_ack_async_event(&e);
		pthread_mutex_lock(&srq->mutex);
		srq->events_completed++;
		pthread_cond_broadcast(&srq->cond);
		pthread_mutex_unlock(&srq->mutex);
	} else if (event->event_type <= IBV_EVENT_SQ_DRAINED ||
		   event->event_type == IBV_EVENT_QP_LAST_WQE_REACHED) {
		struct ibv_qp *qp = event->element.qp;

		e.element.qp = ((struct wi_qp *)(void *)qp)->w;
		wqe_ack_async_event(&e);
		pthread_mutex_lock(&qp->mutex);
		qp->events_completed++;
		pthread_cond_broadcast(&qp->cond);
		pthread_mutex_unlock(&qp->mutex);
	}
}

int wi_destroy_obj(struct wi_obj *o, bool closing)
{
	switch (o->kind) {
	case WI_QP:
		return wi_qp_free((struct wi_qp *)(void *)((char *)o - offsetof(struct wi_qp, obj)),
				  closing);
	case WI_SRQ:
		return wi_srq_free((struct wi_srq *)(void *)((char *)o - offsetof(struct wi_srq, obj)),
				   closing);
	case WI_AH:
		return ibv_destroy_ah(
		    &((struct wi_ah *)(void *)((char *)o - offsetof(struct wi_ah, obj)))->ah);
	case WI_MR:
		return ibv_dereg_mr(
		    &((struct wi_mr *)(void *)((char *)o - offsetof(struct wi_mr, obj)))->mr);
	case WI_CQ:
		return cq_free((struct wi_cq *)(void *)((char *)o - offsetof(struct wi_cq, obj)),
			       closing);
	case WI_CHANNEL:
		return ibv_destroy_comp_channel(
		    &((struct wi_channel *)(void *)((char *)o - offsetof(struct wi_channel, obj)))
			 ->ch);
	case WI_PD:
		return ibv_dealloc_pd(
		    &((struct wi_pd *)(void *)((char *)o - offsetof(struct wi_pd, obj)))->pd);
	case WI_KINDS:
		break;
	}
	return EINVAL;
}
