/* SPDX-License-Identifier: MIT */
/*
 * The completion channel's object rules: creation and its errors, a CQ on
 * a channel (wqe_create_cq_ex) and its errors, EBUSY while a CQ uses the
 * channel, while a channel keeps its context open, and while an event
 * taken is not acknowledged (several acknowledged at once, more than were
 * taken ignored); a destroyed CQ's events not yet taken leave the channel
 * and its fd; a blocking fd that has an event returns it at once, a
 * non-blocking one says EAGAIN when empty; the eventfd is closed on
 * destroy; a CQ without a channel may be armed and fires into nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>

#include "notify_util.h"
#include "testutil.h"

static void test_objects(void)
{
	struct wqe_context *ctx = wqe_open_context(NULL), *other = wqe_open_context(NULL);
	struct wqe_comp_channel *ch, *och;
	struct wqe_cq_init_attr_ex a = {.cqe = 16};
	struct wqe_cq *cq, *cq2, *plain;
	int fd;

	CHECK(ctx && other);
	errno = 0;
	CHECK(wqe_create_comp_channel(NULL) == NULL);
	CHECK_EQ(errno, EINVAL);
	ch = wqe_create_comp_channel(ctx);
	och = wqe_create_comp_channel(other);
	CHECK(ch && och);
	CHECK(ch->context == ctx);
	CHECK(ch->fd >= 0);
	CHECK_EQ(ch->refcnt, 0);
	CHECK_EQ(fcntl(ch->fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	CHECK(!nt_readable(ch->fd));

	/* wqe_create_cq_ex refusals. */
	CHECK(wqe_create_cq_ex(NULL, &a) == NULL);
	CHECK(wqe_create_cq_ex(ctx, NULL) == NULL);
	a.channel = och;
	errno = 0;
	CHECK(wqe_create_cq_ex(ctx, &a) == NULL);
	CHECK_EQ(errno, EINVAL);
	a.channel = ch;
	a.comp_vector = 1;
	CHECK(wqe_create_cq_ex(ctx, &a) == NULL);
	a.comp_vector = 0;
	a.comp_mask = 1;
	CHECK(wqe_create_cq_ex(ctx, &a) == NULL);
	a.comp_mask = 0;
	a.cqe = 0;
	CHECK(wqe_create_cq_ex(ctx, &a) == NULL);
	a.cqe = 65537;
	CHECK(wqe_create_cq_ex(ctx, &a) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(ch->refcnt, 0);

	a.cqe = 65536;
	a.cq_context = &a;
	cq = wqe_create_cq_ex(ctx, &a);
	a.cqe = 1;
	cq2 = wqe_create_cq_ex(ctx, &a);
	CHECK(cq && cq2);
	CHECK_EQ(ch->refcnt, 2);
	/* wqe_create_cq() keeps its rules: no channel. */
	CHECK(wqe_create_cq(ctx, 0) == NULL);
	CHECK(wqe_create_cq(ctx, 65537) == NULL);
	plain = wqe_create_cq(ctx, 4);
	CHECK(plain != NULL);

	/* The channel and the context stay while CQs or a channel use them. */
	CHECK_EQ(wqe_destroy_comp_channel(NULL), EINVAL);
	CHECK_EQ(wqe_destroy_comp_channel(ch), EBUSY);
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	CHECK_EQ(wqe_destroy_comp_channel(ch), EBUSY);
	CHECK_EQ(wqe_destroy_cq(cq2), 0);
	CHECK_EQ(wqe_destroy_cq(plain), 0);
	CHECK_EQ(ch->refcnt, 0);
	CHECK_EQ(wqe_close_context(ctx), EBUSY);

	/* Arguments. */
	CHECK_EQ(wqe_req_notify_cq(NULL, 0), EINVAL);
	errno = 0;
	CHECK_EQ(wqe_get_cq_event(NULL, &cq, &a.cq_context), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(wqe_get_cq_event(ch, NULL, &a.cq_context), -1);
	CHECK_EQ(wqe_get_cq_event(ch, &cq, NULL), -1);
	wqe_ack_cq_events(NULL, 1);

	fd = ch->fd;
	CHECK_EQ(wqe_destroy_comp_channel(ch), 0);
	/* The eventfd is closed (nothing opened a descriptor since). */
	errno = 0;
	CHECK_EQ(fcntl(fd, F_GETFD), -1);
	CHECK_EQ(errno, EBADF);
	CHECK_EQ(wqe_close_context(ctx), 0);
	CHECK_EQ(wqe_destroy_comp_channel(och), 0);
	CHECK_EQ(wqe_close_context(other), 0);
}

/* One event of B's recv CQ: armed for next, a SEND completes. */
static void recv_event(struct nt_env *e, uint64_t id)
{
	CHECK_EQ(wqe_req_notify_cq(e->p.b.rcq, 0), 0);
	nt_recv(e, &e->p.b, 64, id);
	nt_send(e, &e->p.a, WQE_WR_SEND, 64, 0, id);
	nt_complete(e, e->p.a.scq, 1, NULL);
	nt_complete(e, e->p.b.rcq, 1, NULL);
}

/*
 * Events taken must be acknowledged before their CQ goes: three taken
 * from a blocking fd (at once: they are pending), two acknowledged, then
 * five (the two beyond the one still open are ignored); a fourth taken
 * keeps the CQ (its QP gone) EBUSY until it is acknowledged too.
 */
static void test_ack(void)
{
	struct nt_env e;
	struct wqe_comp_channel *ch;
	struct wqe_cq *cq;
	void *ctx;
	int fl;

	CHECK_EQ(nt_open(&e, WQE_QPT_RC), 0);
	ch = e.p.b.ch;
	for (int i = 0; i < 3; i++)
		recv_event(&e, (uint64_t)i);
	fl = fcntl(ch->fd, F_GETFL);
	CHECK_EQ(fcntl(ch->fd, F_SETFL, fl & ~O_NONBLOCK), 0);
	for (int i = 0; i < 3; i++) {
		cq = NULL;
		CHECK_EQ(wqe_get_cq_event(ch, &cq, &ctx), 0);
		CHECK(cq == e.p.b.rcq && ctx == &e.p.b.rcq);
	}
	CHECK(!nt_readable(ch->fd));
	CHECK_EQ(nt_nonblock(ch), 0);
	errno = 0;
	CHECK_EQ(wqe_get_cq_event(ch, &cq, &ctx), -1);
	CHECK_EQ(errno, EAGAIN);

	wqe_ack_cq_events(e.p.b.rcq, 2);
	wqe_ack_cq_events(e.p.b.rcq, 0);
	wqe_ack_cq_events(e.p.b.rcq, 5);
	recv_event(&e, 3);
	CHECK_EQ(wqe_get_cq_event(ch, &cq, &ctx), 0);
	CHECK(cq == e.p.b.rcq);
	CHECK_EQ(wqe_destroy_qp(e.p.b.qp), 0);
	e.p.b.qp = NULL;
	CHECK_EQ(wqe_destroy_cq(e.p.b.rcq), EBUSY);
	CHECK_EQ(ch->refcnt, 2);
	wqe_ack_cq_events(e.p.b.rcq, 1);
	CHECK_EQ(wqe_destroy_cq(e.p.b.rcq), 0);
	e.p.b.rcq = NULL;
	CHECK_EQ(ch->refcnt, 1);
	nt_close(&e);
}

/*
 * Events pending for a CQ that is destroyed leave the channel: A's send
 * CQ and recv CQ both fire onto A's channel (scq, rcq, scq); destroying
 * the send CQ (after its QP) leaves one event, the rcq's, and the fd
 * readable for exactly it.
 */
static void test_drop_pending(void)
{
	struct nt_env e;
	struct wqe_comp_channel *ch;
	struct wqe_cq *cq;
	void *ctx;

	CHECK_EQ(nt_open(&e, WQE_QPT_RC), 0);
	ch = e.p.a.ch;
	for (int i = 0; i < 3; i++) {
		int recv = i == 1;

		CHECK_EQ(wqe_req_notify_cq(recv ? e.p.a.rcq : e.p.a.scq, 0), 0);
		if (recv) {
			nt_recv(&e, &e.p.a, 64, (uint64_t)i);
			nt_send(&e, &e.p.b, WQE_WR_SEND, 64, 0, (uint64_t)i);
			nt_complete(&e, e.p.b.scq, 1, NULL);
			nt_complete(&e, e.p.a.rcq, 1, NULL);
		} else {
			nt_recv(&e, &e.p.b, 64, (uint64_t)i);
			nt_send(&e, &e.p.a, WQE_WR_SEND, 64, 0, (uint64_t)i);
			nt_complete(&e, e.p.a.scq, 1, NULL);
			nt_complete(&e, e.p.b.rcq, 1, NULL);
		}
	}
	/* Armed again, so that the destroy also drops an arm. */
	CHECK_EQ(wqe_req_notify_cq(e.p.a.scq, 1), 0);
	CHECK_EQ(wqe_destroy_qp(e.p.a.qp), 0);
	e.p.a.qp = NULL;
	CHECK_EQ(wqe_destroy_cq(e.p.a.scq), 0);
	e.p.a.scq = NULL;
	CHECK_EQ(ch->refcnt, 1);
	CHECK(nt_readable(ch->fd));
	CHECK_EQ(nt_event(ch, &cq, &ctx), 1);
	CHECK(cq == e.p.a.rcq && ctx == &e.p.a.rcq);
	CHECK(!nt_readable(ch->fd));
	CHECK_EQ(nt_event(ch, &cq, &ctx), 0);
	nt_close(&e);
}

/* A CQ created without a channel may be armed (0, as libibverbs): its
 * event goes nowhere and acknowledging it is a no-op. */
static void test_no_channel(void)
{
	struct wqe_context *ctx = wqe_open_context(NULL);
	struct wqe_cq *cq = wqe_create_cq(ctx, 4);

	CHECK(cq != NULL);
	CHECK_EQ(wqe_req_notify_cq(cq, 0), 0);
	CHECK_EQ(wqe_req_notify_cq(cq, 1), 0);
	wqe_ack_cq_events(cq, 1);
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	CHECK_EQ(wqe_close_context(ctx), 0);
}

int main(void)
{
	test_objects();
	test_ack();
	test_drop_pending();
	test_no_channel();
	return test_finish();
}
