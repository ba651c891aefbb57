/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events: IBTA vol. 1 11.6.3 (affiliated asynchronous events
 * and errors) as libibverbs shapes them (ibv_get_async_event(3)). The
 * engine raises them in its own terms (enum nic_event, a QP number or a CQ
 * context: engine/device.h); this file maps them to the verbs objects, queues
 * them and hands them out.
 *
 * The fd is an eventfd whose counter is the number of events waiting, as
 * a completion channel's is (event.c says why not a pipe). The queue is
 * bounded without ever losing the news: an object has at most one event
 * of each type waiting, a later one of the same type and object is merged
 * into it and counted, so the ring needs ASYNC_QP_ROOM slots per QP and
 * ASYNC_CQ_ROOM per CQ, made when the object is created.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "verbs/verbs_int.h"

/* The engine's event codes are libibverbs' values, as ours are. */
_Static_assert((int)NIC_EV_CQ_ERR == (int)WQE_EVENT_CQ_ERR &&
		   (int)NIC_EV_QP_FATAL == (int)WQE_EVENT_QP_FATAL &&
		   (int)NIC_EV_QP_REQ_ERR == (int)WQE_EVENT_QP_REQ_ERR &&
		   (int)NIC_EV_QP_ACCESS_ERR == (int)WQE_EVENT_QP_ACCESS_ERR &&
		   (int)NIC_EV_COMM_EST == (int)WQE_EVENT_COMM_EST &&
		   (int)NIC_EV_SQ_DRAINED == (int)WQE_EVENT_SQ_DRAINED &&
		   (int)NIC_EV_SRQ_LIMIT_REACHED == (int)WQE_EVENT_SRQ_LIMIT_REACHED &&
		   (int)NIC_EV_QP_LAST_WQE_REACHED == (int)WQE_EVENT_QP_LAST_WQE_REACHED &&
		   WQE_EVENT_QP_LAST_WQE_REACHED < 32,
	       "enum wqe_event_type follows enum nic_event; a bit per type fits 32 bits");
_Static_assert(ASYNC_QP_ROOM == 6 && ASYNC_CQ_ROOM == 1 && ASYNC_SRQ_ROOM == 1,
	       "a slot per event type a QP, a CQ or an SRQ can raise");

/* Most slots the ring holds: its size stays a uint32_t power of two. */

static bool is_cq_event(enum wqe_event_type t)
{
	return t == WQE_EVENT_CQ_ERR;
}

static bool is_srq_event(enum wqe_event_type t)
{
	return t == WQE_EVENT_SRQ_LIMIT_REACHED;
}

static bool is_qp_event(enum wqe_event_type t)
{
	return (t >= WQE_EVENT_QP_FATAL && t <= WQE_EVENT_SQ_DRAINED) ||
	       t == WQE_EVENT_QP_LAST_WQE_REACHED;
}

/* The object an event is of: its waiting bits and its counters. */
struct async_obj {
	struct wqe_context *ctx;
	uint32_t *waiting;
	uint32_t *got;
	uint32_t *acked;
};

static bool obj_of(const struct wqe_async_event *ev, struct async_obj *o)
{
	if (is_cq_event(ev->event_type) && ev->element.cq) {
		struct wqe_cq *cq = ev->element.cq;

		*o = (struct async_obj){cq->context, &cq->async_waiting, &cq->async_got,
					&cq->async_acked};
		return true;
	}
	if (is_srq_event(ev->event_type) && ev->element.srq) {
		struct wqe_srq *srq = ev->element.srq;

		*o = (struct async_obj){srq->context, &srq->async_waiting, &srq->async_got,
					&srq->async_acked};
		return true;
	}
	if (is_qp_event(ev->event_type) && ev->element.qp) {
		struct wqe_qp *qp = ev->element.qp;

		*o = (struct async_obj){qp->context, &qp->async_waiting, &qp->async_got,
					&qp->async_acked};
		return true;
	}
	return false;
}

/* The engine's handler (device.h, nic_event_fn): from inside the NIC, in
 * the thread driving the context or the NIC thread. No allocation: the
 * slot was made when the object was created. */
void verbs_async_raise(void *arg, enum nic_event e, uint32_t qpn, struct cqc *c)
{
	struct wqe_context *ctx = arg;
	struct async_queue *a = &ctx->async;
	struct wqe_async_event ev = {.event_type = (enum wqe_event_type)e};
	struct async_obj o;
	uint32_t bit = 1u << e;
	uint64_t one = 1;
	ssize_t w;

	if (c) {
		ev.element.cq = container_of(c, struct wqe_cq, cqc);
	} else if (e == NIC_EV_SRQ_LIMIT_REACHED) {
		ev.element.srq = verbs_srq_find(ctx, qpn);
		if (!ev.element.srq)
			return; /* cannot happen: the NIC raises it for an SRQ it holds */
	} else {
		ev.element.qp = verbs_qp_find(ctx, qpn);
		if (!ev.element.qp)
			return; /* cannot happen: the NIC raises it for a QP it holds */
	}
	if (!obj_of(&ev, &o))
		return;
	pthread_mutex_lock(&a->lock);
	a->stats.raised++;
	if (*o.waiting & bit) {
		a->stats.merged++; /* the application has yet to take the first */
	} else {
		*o.waiting |= bit;
		a->ev[(a->head + a->count) & (a->cap - 1)] = ev;
		a->count++;
		/* Adding 1 to an eventfd fails only at a count of 2^64 - 2; the
		 * entry is in the ring before its token is, so a reader that
		 * took a token always finds an entry. */
		w = write(a->fd, &one, sizeof(one));
		(void)w;
	}
	pthread_mutex_unlock(&a->lock);
}

int verbs_async_init(struct wqe_context *ctx)
{
	struct async_queue *a = &ctx->async;
	int err;

	a->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (a->fd < 0)
		return errno;
	err = pthread_mutex_init(&a->lock, NULL);
	if (err) {
		close(a->fd);
		return err;
	}
	return 0;
}

void verbs_async_fini(struct wqe_context *ctx)
{
	struct async_queue *a = &ctx->async;

	close(a->fd);
	pthread_mutex_destroy(&a->lock);
	free(a->ev);
	a->ev = NULL;
}

int verbs_async_reserve(struct wqe_context *ctx, uint32_t slots)
{
	struct async_queue *a = &ctx->async;
	uint64_t need;
	void *ring;
	int err;

	pthread_mutex_lock(&a->lock);
	need = (uint64_t)a->room + slots;
	ring = a->ev;
	err = verbs_ring_grow(&ring, &a->cap, &a->head, a->count, sizeof(*a->ev), need, 16);
	a->ev = ring;
	if (!err)
		a->room = (uint32_t)need;
	pthread_mutex_unlock(&a->lock);
	return err;
}

void verbs_async_unreserve(struct wqe_context *ctx, uint32_t slots)
{
	pthread_mutex_lock(&ctx->async.lock);
	ctx->async.room -= slots;
	pthread_mutex_unlock(&ctx->async.lock);
}

/* Drops the waiting events of the object @elem (a QP's or a CQ's) and its
 * room; under the lock. The others keep their order. */
/* What kind of object an event is of: 0 a QP, 1 a CQ, 2 an SRQ. */
static int kind_of(enum wqe_event_type t)
{
	return is_cq_event(t) ? 1 : is_srq_event(t) ? 2 : 0;
}

static void drop_events(struct async_queue *a, const void *elem, int kind, uint32_t room)
{
	uint32_t kept = 0, mask = a->cap - 1;

	for (uint32_t i = 0; i < a->count; i++) {
		struct wqe_async_event e = a->ev[(a->head + i) & mask];
		int k = kind_of(e.event_type);
		const void *el = k == 1	  ? (const void *)e.element.cq
				 : k == 2 ? (const void *)e.element.srq
					  : (const void *)e.element.qp;

		if (el != elem || k != kind)
			a->ev[(a->head + kept++) & mask] = e;
	}
	/* Gone with the object, as the kernel's uverbs drops them. */
	a->stats.dropped += a->count - kept;
	verbs_efd_drain(a->fd, a->count - kept);
	a->count = kept;
	a->room -= room;
}

/* Drops the events of a QP or SRQ (@o, of @kind, with @room slots) unless
 * one it returned is not acknowledged: 0 or EBUSY. destroy_qp() and
 * destroy_srq() of libibverbs wait for these acknowledgements; here the
 * thread that would wait may be the only one that can give them. */
static int detach(const struct async_obj *o, const void *elem, int kind, uint32_t room)
{
	struct async_queue *a = &o->ctx->async;
	int err = 0;

	pthread_mutex_lock(&a->lock);
	if (*o->got != *o->acked)
		err = EBUSY;
	else
		drop_events(a, elem, kind, room);
	pthread_mutex_unlock(&a->lock);
	return err;
}

int verbs_async_detach_qp(struct wqe_qp *qp)
{
	const struct async_obj o = {qp->context, &qp->async_waiting, &qp->async_got,
				    &qp->async_acked};

	return detach(&o, qp, 0, ASYNC_QP_ROOM);
}

int verbs_async_detach_srq(struct wqe_srq *srq)
{
	const struct async_obj o = {srq->context, &srq->async_waiting, &srq->async_got,
				    &srq->async_acked};

	return detach(&o, srq, 2, ASYNC_SRQ_ROOM);
}

bool verbs_async_busy_cq(struct wqe_cq *cq)
{
	struct async_queue *a = &cq->context->async;
	bool busy;

	pthread_mutex_lock(&a->lock);
	busy = cq->async_got != cq->async_acked;
	pthread_mutex_unlock(&a->lock);
	return busy;
}

void verbs_async_detach_cq(struct wqe_cq *cq)
{
	struct async_queue *a = &cq->context->async;

	pthread_mutex_lock(&a->lock);
	drop_events(a, cq, 1, ASYNC_CQ_ROOM);
	pthread_mutex_unlock(&a->lock);
}

int wqe_context_async_fd(const struct wqe_context *ctx)
{
	if (!ctx) {
		errno = EINVAL;
		return -1;
	}
	return ctx->async.fd;
}

int wqe_get_async_event(struct wqe_context *ctx, struct wqe_async_event *event)
{
	struct async_queue *a;

	if (!ctx || !event) {
		errno = EINVAL;
		return -1;
	}
	a = &ctx->async;
	for (;;) {
		bool got = false;

		if (verbs_efd_take(a->fd))
			return -1;
		pthread_mutex_lock(&a->lock);
		if (a->count) {
			struct async_obj o;

			*event = a->ev[a->head];
			a->head = (a->head + 1) & (a->cap - 1);
			a->count--;
			a->stats.taken++;
			if (obj_of(event, &o)) {
				*o.waiting &= ~(1u << event->event_type);
				(*o.got)++;
			}
			got = true;
		}
		pthread_mutex_unlock(&a->lock);
		if (got)
			return 0;
		/* A token with no event: its object was destroyed while this
		 * call waited (which the contract forbids); wait for the next. */
	}
}

void wqe_ack_async_event(struct wqe_async_event *event)
{
	struct async_obj o;

	if (!event || !obj_of(event, &o))
		return;
	pthread_mutex_lock(&o.ctx->async.lock);
	if (*o.acked != *o.got)
		(*o.acked)++;
	pthread_mutex_unlock(&o.ctx->async.lock);
}

int wqe_context_async_stats(struct wqe_context *ctx, struct wqe_async_stats *s)
{
	if (!ctx || !s)
		return EINVAL;
	pthread_mutex_lock(&ctx->async.lock);
	*s = ctx->async.stats;
	pthread_mutex_unlock(&ctx->async.lock);
	return 0;
}
