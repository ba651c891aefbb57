/* SPDX-License-Identifier: MIT */
/*
 * The asynchronous event calls themselves (ibv_get_async_event(3)): the fd
 * (one per context, close-on-exec, readable exactly while an event waits),
 * EAGAIN and EINVAL; events of several QPs in the order raised; one event
 * per type and object waiting at most (a second is merged and counted);
 * wqe_ack_async_event() and what wqe_destroy_qp() and wqe_destroy_cq()
 * require of it (EBUSY until acknowledged, the excess of an over-ack
 * ignored); events not taken dropped with their object;
 * wqe_event_type_str().
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "async_util.h"
#include "testutil.h"

/* An idle QP's trip to SQD with the event asked for: raised at once. */
static void drained(struct wqe_qp *qp)
{
	CHECK_EQ(as_modify(qp, WQE_QPS_RTS), 0);
	CHECK_EQ(as_sqd(qp, 1, 1), 0);
}

/* Extra connected QPs on side A (their peers on B), all in RTS. */
static void extra(struct as_env *e, int n, struct wqe_qp **qa, struct wqe_qp **qb)
{
	for (int i = 0; i < n; i++)
		CHECK_EQ(pair_extra(&e->p, WQE_MTU_1024, 16, &e->o, &qa[i], &qb[i]), 0);
}

/* A QP on A sending on @cq, connected to its own peer on B (*@peer); the
 * caller destroys both. */
static struct wqe_qp *on_cq(struct as_env *e, struct wqe_cq *cq, struct wqe_qp **peer)
{
	struct wqe_qp *x = as_qp(e, &e->p.a, cq, NULL);

	*peer = as_qp(e, &e->p.b, NULL, NULL);
	CHECK(x && *peer);
	CHECK_EQ(as_connect(e, x, 1, wqe_qp_num(*peer), WQE_QPS_RTS, 0x10, 0x10), 0);
	CHECK_EQ(as_connect(e, *peer, 2, wqe_qp_num(x), WQE_QPS_RTS, 0x10, 0x10), 0);
	return x;
}

/* Overruns @cq (one entry) with two signaled WRITEs of @x: CQ_ERR. */
static void overrun(struct as_env *e, struct wqe_qp *x)
{
	as_rdma(e, x, WQE_WR_RDMA_WRITE, 8, 0, 1);
	as_rdma(e, x, WQE_WR_RDMA_WRITE, 8, 0, 2);
	pair_spin(&e->p, 10);
}

static void unextra(int n, struct wqe_qp **qa, struct wqe_qp **qb)
{
	for (int i = 0; i < n; i++) {
		CHECK_EQ(wqe_destroy_qp(qa[i]), 0);
		CHECK_EQ(wqe_destroy_qp(qb[i]), 0);
	}
}

static void fd_and_errors(void)
{
	struct wqe_async_event ev;
	struct wqe_async_stats st;
	struct as_env e;
	int fa, fb;

	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, NULL, NULL), 0);
	fa = wqe_context_async_fd(e.p.a.ctx);
	fb = wqe_context_async_fd(e.p.b.ctx);
	CHECK(fa >= 0 && fb >= 0 && fa != fb);
	CHECK(fcntl(fa, F_GETFD) & FD_CLOEXEC);
	errno = 0;
	CHECK_EQ(wqe_context_async_fd(NULL), -1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(wqe_get_async_event(NULL, &ev), -1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(wqe_get_async_event(e.p.a.ctx, NULL), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(wqe_context_async_stats(NULL, &st), EINVAL);
	CHECK_EQ(wqe_context_async_stats(e.p.a.ctx, NULL), EINVAL);
	/* Nothing yet: not readable, EAGAIN. */
	AS_NONE(e.p.a.ctx);
	wqe_ack_async_event(NULL); /* ignored */
	ev.event_type = (enum wqe_event_type)77;
	ev.element.qp = e.p.a.qp;
	wqe_ack_async_event(&ev); /* an unknown type: ignored */
	ev.event_type = WQE_EVENT_SQ_DRAINED;
	wqe_ack_async_event(&ev); /* none was returned: ignored */
	as_close(&e);
}

/* The fd is readable exactly while events wait; they come in the order
 * raised, across QPs and types. */
static void order_and_fd(void)
{
	struct wqe_qp *qa[3], *qb[3];
	struct wqe_async_event ev;
	struct as_env e;

	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, NULL, NULL), 0);
	extra(&e, 3, qa, qb);
	drained(qa[2]);
	CHECK(as_readable(e.p.a.ctx));
	drained(qa[0]);
	drained(qa[1]);
	CHECK_EQ(as_modify(qa[2], WQE_QPS_RTS), 0);
	drained(qa[2]); /* merged: qa[2]'s first is still waiting */
	for (int i = 0; i < 3; i++) {
		static const int want[3] = {2, 0, 1};

		CHECK(as_readable(e.p.a.ctx));
		CHECK_EQ(as_take(e.p.a.ctx, &ev), 1);
		CHECK_EQ(ev.event_type, WQE_EVENT_SQ_DRAINED);
		CHECK(ev.element.qp == qa[want[i]]);
	}
	CHECK(!as_readable(e.p.a.ctx));
	AS_NONE(e.p.a.ctx);
	/* Taken, so the next one of qa[2] is queued again. */
	drained(qa[2]);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_SQ_DRAINED, qa[2]);
	{
		struct wqe_async_stats st;

		CHECK_EQ(wqe_context_async_stats(e.p.a.ctx, &st), 0);
		CHECK_EQ(st.raised, 5);
		CHECK_EQ(st.merged, 1);
		CHECK_EQ(st.taken, 4);
		CHECK_EQ(st.dropped, 0);
	}
	unextra(3, qa, qb);
	as_close(&e);
}

/* Taken and not acknowledged: the QP and the CQ cannot go (EBUSY, and
 * both still work); acknowledged, they can. An acknowledgement too many
 * is ignored: the next event must be acknowledged in its turn. */
static void ack_and_destroy(void)
{
	struct wqe_qp *qa[2], *qb[2], *x, *xb;
	struct wqe_async_event ev, ev2;
	struct wqe_cq *cq;
	struct as_env e;

	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, NULL, NULL), 0);
	extra(&e, 2, qa, qb);
	drained(qa[0]);
	CHECK_EQ(wqe_get_async_event(e.p.a.ctx, &ev), 0);
	CHECK(ev.element.qp == qa[0]);
	CHECK_EQ(wqe_destroy_qp(qa[0]), EBUSY);
	CHECK_EQ(as_state(qa[0]), WQE_QPS_SQD); /* still there */
	wqe_ack_async_event(&ev);
	wqe_ack_async_event(&ev); /* one too many: ignored */
	drained(qa[0]);
	CHECK_EQ(wqe_get_async_event(e.p.a.ctx, &ev2), 0);
	CHECK(ev2.element.qp == qa[0]);
	CHECK_EQ(wqe_destroy_qp(qa[0]), EBUSY); /* the excess did not count */
	wqe_ack_async_event(&ev2);
	CHECK_EQ(wqe_destroy_qp(qa[0]), 0);
	CHECK_EQ(wqe_destroy_qp(qb[0]), 0);

	/* A CQ with its CQ_ERR taken, not acknowledged. */
	cq = wqe_create_cq(e.p.a.ctx, 1);
	CHECK(cq != NULL);
	x = on_cq(&e, cq, &xb);
	overrun(&e, x);
	CHECK_EQ(wqe_get_async_event(e.p.a.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, WQE_EVENT_CQ_ERR);
	CHECK(ev.element.cq == cq);
	CHECK_EQ(wqe_destroy_qp(x), 0);
	CHECK_EQ(wqe_destroy_qp(xb), 0);
	CHECK_EQ(wqe_destroy_cq(cq), EBUSY);
	/* Still there (its one completion went with its QP). */
	CHECK_EQ(wqe_poll_cq(cq, 1, (struct wqe_wc[1]){0}), -EOVERFLOW);
	wqe_ack_async_event(&ev);
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	AS_NONE(e.p.a.ctx);
	CHECK_EQ(wqe_destroy_qp(qa[1]), 0);
	CHECK_EQ(wqe_destroy_qp(qb[1]), 0);
	as_close(&e);
}

/* Events not yet taken go with their QP or CQ; the others stay, in order,
 * and the fd counts only them. */
static void dropped_with_object(void)
{
	struct wqe_qp *qa[3], *qb[3], *x, *xb;
	struct wqe_async_stats st;
	struct wqe_cq *cq;
	struct as_env e;

	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, NULL, NULL), 0);
	extra(&e, 3, qa, qb);
	drained(qa[0]);
	drained(qa[1]);
	drained(qa[2]);
	CHECK_EQ(wqe_destroy_qp(qa[1]), 0);
	CHECK_EQ(wqe_destroy_qp(qb[1]), 0);
	/* A CQ_ERR waiting for a CQ that goes. */
	cq = wqe_create_cq(e.p.a.ctx, 1);
	CHECK(cq != NULL);
	x = on_cq(&e, cq, &xb);
	overrun(&e, x);
	CHECK(as_readable(e.p.a.ctx));
	CHECK_EQ(wqe_destroy_qp(x), 0);
	CHECK_EQ(wqe_destroy_qp(xb), 0);
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_SQ_DRAINED, qa[0]);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_SQ_DRAINED, qa[2]);
	AS_NONE(e.p.a.ctx);
	CHECK_EQ(wqe_context_async_stats(e.p.a.ctx, &st), 0);
	CHECK_EQ(st.raised, 4);
	CHECK_EQ(st.dropped, 2);
	CHECK_EQ(st.taken, 2);
	CHECK_EQ(wqe_destroy_qp(qa[0]), 0);
	CHECK_EQ(wqe_destroy_qp(qb[0]), 0);
	CHECK_EQ(wqe_destroy_qp(qa[2]), 0);
	CHECK_EQ(wqe_destroy_qp(qb[2]), 0);
	as_close(&e);
}

/* Many QPs, every one with an event of each type it can have waiting at
 * once in this test (SQ_DRAINED and COMM_EST): the room made when they
 * were created holds them all. */
static void many_waiting(void)
{
	enum { N = 100 };
	struct wqe_qp *qa[N], *qb[N];
	struct wqe_async_event ev;
	struct as_env e;
	int n = 0;

	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, NULL, NULL), 0);
	for (int i = 0; i < N; i++) {
		qa[i] = as_qp(&e, &e.p.a, NULL, NULL);
		qb[i] = as_qp(&e, &e.p.b, NULL, NULL);
		CHECK(qa[i] && qb[i]);
		CHECK_EQ(as_connect(&e, qa[i], 1, wqe_qp_num(qb[i]), WQE_QPS_RTR, 0x10, 0x10), 0);
		CHECK_EQ(as_connect(&e, qb[i], 2, wqe_qp_num(qa[i]), WQE_QPS_RTS, 0x10, 0x10), 0);
	}
	for (int i = 0; i < N; i++) {
		struct wqe_qp_attr a;
		int mask;

		/* B writes to A's QP in RTR: COMM_EST; then A to RTS, SQD. */
		struct wqe_sge s = {(uint64_t)(uintptr_t)e.b_buf, 8, e.b_mr->lkey};
		struct wqe_send_wr w, *bad;

		memset(&w, 0, sizeof(w));
		w.sg_list = &s;
		w.num_sge = 1;
		w.opcode = WQE_WR_RDMA_WRITE;
		w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)e.a_buf;
		w.wr.rdma.rkey = e.a_mr->rkey;
		CHECK_EQ(wqe_post_send(qb[i], &w, &bad), 0);
		pair_spin(&e.p, 2);
		test_qp_attr_for(WQE_QPT_RC, WQE_QPS_RTS, &a, &mask, 0, WQE_MTU_1024);
		CHECK_EQ(wqe_modify_qp(qa[i], &a, mask), 0);
		CHECK_EQ(as_sqd(qa[i], 1, 1), 0);
	}
	pair_spin(&e.p, 5);
	while (as_take(e.p.a.ctx, &ev)) {
		int i = n / 2;

		CHECK_EQ(ev.event_type, n % 2 ? WQE_EVENT_SQ_DRAINED : WQE_EVENT_COMM_EST);
		CHECK(i < N && ev.element.qp == qa[i]);
		n++;
	}
	CHECK_EQ(n, 2 * N);
	for (int i = 0; i < N; i++) {
		CHECK_EQ(wqe_destroy_qp(qa[i]), 0);
		CHECK_EQ(wqe_destroy_qp(qb[i]), 0);
	}
	as_close(&e);
}

static void names(void)
{
	static const char *const want[] = {"CQ_ERR",	    "QP_FATAL", "QP_REQ_ERR",
					   "QP_ACCESS_ERR", "COMM_EST", "SQ_DRAINED"};

	for (int i = 0; i < 6; i++)
		CHECK(strcmp(wqe_event_type_str((enum wqe_event_type)i), want[i]) == 0);
	CHECK(strcmp(wqe_event_type_str((enum wqe_event_type)6), "unknown") == 0);
	CHECK(strcmp(wqe_event_type_str((enum wqe_event_type)99), "unknown") == 0);
	/* libibverbs' values (enum ibv_event_type). */
	CHECK_EQ(WQE_EVENT_CQ_ERR, 0);
	CHECK_EQ(WQE_EVENT_QP_FATAL, 1);
	CHECK_EQ(WQE_EVENT_QP_REQ_ERR, 2);
	CHECK_EQ(WQE_EVENT_QP_ACCESS_ERR, 3);
	CHECK_EQ(WQE_EVENT_COMM_EST, 4);
	CHECK_EQ(WQE_EVENT_SQ_DRAINED, 5);
}

int main(void)
{
	fd_and_errors();
	order_and_fd();
	ack_and_destroy();
	dropped_with_object();
	many_waiting();
	names();
	return test_finish();
}
