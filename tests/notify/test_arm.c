/* SPDX-License-Identifier: MIT */
/*
 * Arming a CQ for the next completion (wqe_req_notify_cq(cq, 0)), end to
 * end on RC and UD: no event while unarmed or before a completion; exactly
 * one event on the next completion, carrying the CQ and its cq_context;
 * none again until re-armed, however many completions follow; arming
 * twice is still one event; completions already in the CQ when it is
 * armed fire nothing; the channel's fd is readable exactly while an event
 * is pending; two CQs on one channel, and events kept in the order they
 * fired, the same CQ twice included (ibv_req_notify_cq(3), IBTA 11.4.2.2).
 */
#include "notify_util.h"
#include "testutil.h"

/* One receive on B completes (A sends to it); B's recv CQ is drained. */
static void one_recv(struct nt_env *e, uint64_t id)
{
	nt_recv(e, &e->p.b, 64, id);
	nt_send(e, &e->p.a, WQE_WR_SEND, 64, 0, id);
	nt_complete(e, e->p.b.rcq, 1, NULL);
	nt_complete(e, e->p.a.scq, 1, NULL);
}

static void test_next(enum wqe_qp_type t)
{
	struct nt_env e;
	struct wqe_comp_channel *ch;
	struct wqe_cq *cq;
	void *ctx;

	CHECK_EQ(nt_open(&e, t), 0);
	ch = e.p.b.ch;

	/* Unarmed: a completion fires nothing. */
	one_recv(&e, 1);
	CHECK(!nt_readable(ch->fd));
	CHECK_EQ(nt_event(ch, &cq, &ctx), 0);

	/* Armed: nothing before a completion, however long the NIC runs. */
	CHECK_EQ(wqe_req_notify_cq(e.p.b.rcq, 0), 0);
	nt_spin(&e, 20);
	CHECK(!nt_readable(ch->fd));

	/* The next completion: one event, the CQ and its context. */
	nt_recv(&e, &e.p.b, 64, 2);
	nt_send(&e, &e.p.a, WQE_WR_SEND, 64, 0, 2);
	for (int i = 0; i < 20 && !nt_readable(ch->fd); i++)
		nt_spin(&e, 1);
	CHECK(nt_readable(ch->fd));
	CHECK_EQ(nt_event(ch, &cq, &ctx), 1);
	CHECK(cq == e.p.b.rcq);
	CHECK(ctx == &e.p.b.rcq);
	CHECK(!nt_readable(ch->fd));
	CHECK_EQ(nt_event(ch, &cq, &ctx), 0);
	nt_complete(&e, e.p.b.rcq, 1, NULL);
	nt_complete(&e, e.p.a.scq, 1, NULL);

	/* Disarmed: the following completions fire nothing. */
	one_recv(&e, 3);
	one_recv(&e, 4);
	CHECK(!nt_readable(ch->fd));

	/* Re-armed (twice: still one arm): two messages, one event. */
	CHECK_EQ(wqe_req_notify_cq(e.p.b.rcq, 0), 0);
	CHECK_EQ(wqe_req_notify_cq(e.p.b.rcq, 0), 0);
	nt_recv(&e, &e.p.b, 64, 5);
	nt_recv(&e, &e.p.b, 64, 6);
	nt_send(&e, &e.p.a, WQE_WR_SEND, 64, 0, 5);
	nt_send(&e, &e.p.a, WQE_WR_SEND, 64, 0, 6);
	nt_complete(&e, e.p.b.rcq, 2, NULL);
	nt_complete(&e, e.p.a.scq, 2, NULL);
	CHECK_EQ(nt_drain_events(ch), 1);

	/* The sender's channel saw nothing: its CQs were never armed. */
	CHECK(!nt_readable(e.p.a.ch->fd));
	nt_close(&e);
}

/* A completion already in the CQ when it is armed does not fire it; the
 * next one added does. */
static void test_queued(enum wqe_qp_type t)
{
	struct nt_env e;
	struct wqe_comp_channel *ch;
	struct wqe_cq *cq;
	void *ctx;

	CHECK_EQ(nt_open(&e, t), 0);
	ch = e.p.b.ch;
	nt_recv(&e, &e.p.b, 64, 1);
	nt_recv(&e, &e.p.b, 64, 2);
	nt_send(&e, &e.p.a, WQE_WR_SEND, 64, 0, 1);
	nt_spin(&e, 20); /* B's CQE is written, not polled */
	CHECK_EQ(wqe_req_notify_cq(e.p.b.rcq, 0), 0);
	nt_spin(&e, 20);
	CHECK(!nt_readable(ch->fd));
	nt_complete(&e, e.p.b.rcq, 1, NULL);
	CHECK(!nt_readable(ch->fd));

	nt_send(&e, &e.p.a, WQE_WR_SEND, 64, 0, 2);
	nt_complete(&e, e.p.b.rcq, 1, NULL);
	CHECK_EQ(nt_event(ch, &cq, &ctx), 1);
	CHECK(cq == e.p.b.rcq);
	CHECK_EQ(nt_event(ch, &cq, &ctx), 0);
	nt_complete(&e, e.p.a.scq, 2, NULL);
	nt_close(&e);
}

/* Both of A's CQs on A's channel: each event names its own CQ and
 * context, and events come out in the order they fired, the same CQ
 * twice in a row or apart, with the fd readable exactly while one is
 * pending. */
static void test_two_cqs(enum wqe_qp_type t)
{
	struct nt_env e;
	struct wqe_comp_channel *ch;
	struct ep *a;
	struct wqe_cq *want[5], *cq;
	void *ctx;
	int n = 0;

	CHECK_EQ(nt_open(&e, t), 0);
	a = &e.p.a;
	ch = a->ch;
	/* rcq, rcq, scq, rcq, scq: each armed, then completed. */
	for (int i = 0; i < 5; i++) {
		int recv = i != 2 && i != 4;

		CHECK_EQ(wqe_req_notify_cq(recv ? a->rcq : a->scq, 0), 0);
		if (recv) {
			nt_recv(&e, a, 64, (uint64_t)i);
			nt_send(&e, &e.p.b, WQE_WR_SEND, 64, 0, (uint64_t)i);
			nt_complete(&e, e.p.b.scq, 1, NULL);
		} else {
			nt_recv(&e, &e.p.b, 64, (uint64_t)i);
			nt_send(&e, a, WQE_WR_SEND, 64, 0, (uint64_t)i);
			nt_complete(&e, e.p.b.rcq, 1, NULL);
		}
		nt_spin(&e, 10);
		want[n++] = recv ? a->rcq : a->scq;
		CHECK(nt_readable(ch->fd));
	}
	for (int i = 0; i < n; i++) {
		CHECK(nt_readable(ch->fd));
		CHECK_EQ(nt_event(ch, &cq, &ctx), 1);
		CHECK(cq == want[i]);
		CHECK(ctx == (cq == a->rcq ? (void *)&a->rcq : (void *)&a->scq));
	}
	CHECK(!nt_readable(ch->fd));
	CHECK_EQ(nt_event(ch, &cq, &ctx), 0);
	nt_complete(&e, a->rcq, 3, NULL);
	nt_complete(&e, a->scq, 2, NULL);
	CHECK(!nt_readable(e.p.b.ch->fd));
	nt_close(&e);
}

int main(void)
{
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UD};

	for (unsigned i = 0; i < 2; i++) {
		test_next(types[i]);
		test_queued(types[i]);
		test_two_cqs(types[i]);
	}
	return test_finish();
}
