/* SPDX-License-Identifier: MIT */
/*
 * WQE_EVENT_SQ_DRAINED (IBTA 11.6.3 "Send Queue Drained"; ibv_modify_qp(3)
 * IBV_QP_EN_SQD_ASYNC_NOTIFY with ibv_qp_attr.en_sqd_async_notify):
 *  - a 60000-byte RDMA WRITE at MTU 256 (235 packets, several progress
 *    passes) cut short by RTS -> SQD: with the notification asked for, the
 *    event is waiting exactly from the pass where sq_draining turns 0,
 *    never before, the WRITE's completion already written; once;
 *  - without EN_SQD_ASYNC_NOTIFY, or with it and the field 0: never;
 *  - UC: the event when the last packet has left;
 *  - the drain already over at the modify (an idle QP, and a WQE posted
 *    but not yet started): the event during wqe_modify_qp(); again after
 *    SQD -> RTS -> SQD; not for SQD -> SQD;
 *  - the QP leaves SQD before the drain ends (the NIC's retries run out,
 *    or the application moves it to ERR): no event;
 *  - back to RTS, or SQD -> SQD with attributes, while draining: EINVAL
 *    (as rxe), nothing changed, the drain's event still comes; the next
 *    trip to SQD without asking raises nothing.
 */
#include <errno.h>
#include <string.h>

#include "async_util.h"
#include "testutil.h"

enum mode { NO_MASK, FIELD_ZERO, NOTIFY };

/* Spins until @qp's drain ends; after every pass, an event is waiting
 * exactly when the drain is over (and only with NOTIFY), and the WRITE's
 * completion is already in the CQ by then. */
static void watch_drain(struct as_env *e, struct wqe_qp *qp, enum mode m)
{
	struct wqe_wc wc;
	int done = 0, i;

	for (i = 0; i < 2000; i++) {
		int draining, ready, r;

		pair_spin(&e->p, 1);
		ready = as_readable(e->p.a.ctx);
		draining = as_draining(qp);
		r = wqe_poll_cq(e->p.a.scq, 1, &wc);
		if (r == 1) {
			CHECK_EQ(wc.wr_id, 1);
			CHECK_EQ(wc.status, WQE_WC_SUCCESS);
			done++;
		}
		CHECK_EQ(ready, m == NOTIFY && !draining);
		if (ready)
			CHECK_EQ(done, 1); /* the completion came no later */
		if (!draining)
			break;
	}
	CHECK(i < 2000);
	CHECK_EQ(done, 1);
}

static void long_message(enum wqe_qp_type t, enum mode m)
{
	struct pair_opts o = pair_defaults;
	struct wqe_qp_stats st;
	struct as_env e;
	struct wqe_qp *qp;

	o.timeout = 20; /* 4.3 s: no retransmission however slow the run */
	CHECK_EQ(as_open(&e, t, WQE_MTU_256, NULL, &o), 0);
	qp = e.p.a.qp;
	as_rdma(&e, qp, WQE_WR_RDMA_WRITE, 60000, 0, 1);
	wqe_progress(e.p.a.ctx); /* one pass: the first 64 packets */
	CHECK_EQ(wqe_query_qp_stats(qp, &st), 0);
	CHECK(st.packets_sent > 0 && st.packets_sent < 235);
	CHECK_EQ(as_sqd(qp, m != NO_MASK, m == NOTIFY), 0);
	CHECK_EQ(as_draining(qp), 1);
	AS_NONE(e.p.a.ctx);
	watch_drain(&e, qp, m);
	CHECK_EQ(wqe_query_qp_stats(qp, &st), 0);
	CHECK_EQ(st.packets_sent, 235);
	CHECK_MEM(e.b_buf, e.a_buf, 60000);
	if (m == NOTIFY)
		AS_EXPECT(e.p.a.ctx, WQE_EVENT_SQ_DRAINED, qp);
	pair_spin(&e.p, 20);
	AS_NONE(e.p.a.ctx); /* once */
	AS_NONE(e.p.b.ctx); /* B was in RTS: nothing for it either */
	CHECK_EQ(as_modify(qp, WQE_QPS_RTS), 0);
	pair_spin(&e.p, 5);
	AS_NONE(e.p.a.ctx);
	as_close(&e);
}

static void already_drained(enum wqe_qp_type t)
{
	struct wqe_qp_attr a;
	struct as_env e;
	struct wqe_qp *qp;
	enum wqe_wc_status stat;

	CHECK_EQ(as_open(&e, t, WQE_MTU_1024, NULL, NULL), 0);
	qp = e.p.a.qp;
	/* Idle: the drain is over at the modify, so the event is there when
	 * wqe_modify_qp() returns, before any progress. */
	CHECK_EQ(as_sqd(qp, 1, 1), 0);
	CHECK_EQ(wqe_query_qp(qp, &a, 0, NULL), 0);
	CHECK_EQ(a.en_sqd_async_notify, 1);
	CHECK_EQ(a.sq_draining, 0);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_SQ_DRAINED, qp);
	/* SQD -> SQD changes attributes; no second drain, no second event. */
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_SQD;
	a.min_rnr_timer = 2;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE | (t == WQE_QPT_RC ? WQE_QP_MIN_RNR_TIMER : 0)),
		 0);
	pair_spin(&e.p, 5);
	AS_NONE(e.p.a.ctx);
	/* A new trip to SQD is a new drain. */
	CHECK_EQ(as_modify(qp, WQE_QPS_RTS), 0);
	CHECK_EQ(as_sqd(qp, 1, 1), 0);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_SQ_DRAINED, qp);
	CHECK_EQ(as_modify(qp, WQE_QPS_RTS), 0);
	/* A request posted but not yet started when the QP leaves RTS is not
	 * part of the drain: drained at once; it goes in RTS. */
	if (t == WQE_QPT_UD) {
		as_recv(&e, e.p.b.qp, 64, 1);
		as_send(&e, qp, 64, wqe_qp_num(e.p.b.qp), 1);
	} else {
		as_rdma(&e, qp, WQE_WR_RDMA_WRITE, 64, 0, 1);
	}
	CHECK_EQ(as_sqd(qp, 1, 1), 0);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_SQ_DRAINED, qp);
	pair_spin(&e.p, 10);
	CHECK_EQ(wqe_poll_cq(e.p.a.scq, 1, (struct wqe_wc[1]){0}), 0);
	CHECK_EQ(as_modify(qp, WQE_QPS_RTS), 0);
	CHECK_EQ(as_wait(&e, e.p.a.scq, 1, 2.0, &stat), 1);
	CHECK_EQ(stat, WQE_WC_SUCCESS);
	pair_spin(&e.p, 5);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

/* While the drain runs the QP stays in SQD: back to RTS, and SQD -> SQD
 * with attributes, are refused (EINVAL, as rxe) and change nothing; the
 * drain asked to notify still does, once. The next trip to SQD, without
 * asking, raises nothing: the request is not carried over. */
static void refused_while_draining(void)
{
	struct pair_opts o = pair_defaults;
	struct wqe_qp_attr a;
	struct as_env e;
	struct wqe_qp *qp;

	o.timeout = 20;
	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_256, NULL, &o), 0);
	qp = e.p.a.qp;
	as_rdma(&e, qp, WQE_WR_RDMA_WRITE, 60000, 0, 1);
	wqe_progress(e.p.a.ctx);
	CHECK_EQ(as_sqd(qp, 1, 1), 0);
	CHECK_EQ(as_draining(qp), 1);
	CHECK_EQ(as_modify(qp, WQE_QPS_RTS), EINVAL);
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_SQD;
	a.min_rnr_timer = 2;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_MIN_RNR_TIMER), EINVAL);
	CHECK_EQ(wqe_query_qp(qp, &a, 0, NULL), 0);
	CHECK_EQ(a.qp_state, WQE_QPS_SQD);
	CHECK_EQ(a.sq_draining, 1);
	CHECK_EQ(a.min_rnr_timer, pair_defaults.min_rnr_timer);
	CHECK_EQ(a.en_sqd_async_notify, 1);
	AS_NONE(e.p.a.ctx);
	watch_drain(&e, qp, NOTIFY);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_SQ_DRAINED, qp);
	/* Drained: now it may go back. */
	CHECK_EQ(as_modify(qp, WQE_QPS_RTS), 0);
	as_rdma(&e, qp, WQE_WR_RDMA_WRITE, 60000, 0, 1);
	wqe_progress(e.p.a.ctx);
	CHECK_EQ(as_sqd(qp, 0, 0), 0);
	CHECK_EQ(as_draining(qp), 1);
	watch_drain(&e, qp, NO_MASK);
	pair_spin(&e.p, 5);
	AS_NONE(e.p.a.ctx);
	as_close(&e);
}

/* The retries run out in SQD (a dead link): the QP goes to ERR with
 * RETRY_EXC_ERR, which its completion reports; the drain never ends, so
 * no SQ_DRAINED, and no error event either. */
static void dead_in_sqd(void)
{
	struct pair_opts o = pair_defaults;
	struct wqe_fault_cfg f = {.drop = 1.0, .seed = 7};
	enum wqe_wc_status st;
	struct as_env e;

	o.timeout = 1;
	o.retry_cnt = 1;
	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, &f, &o), 0);
	as_rdma(&e, e.p.a.qp, WQE_WR_RDMA_WRITE, 100, 0, 7);
	pair_spin(&e.p, 2); /* sent, timer armed */
	CHECK_EQ(as_sqd(e.p.a.qp, 1, 1), 0);
	CHECK_EQ(as_draining(e.p.a.qp), 1);
	AS_NONE(e.p.a.ctx);
	CHECK_EQ(as_wait(&e, e.p.a.scq, 1, 5.0, &st), 1);
	CHECK_EQ(st, WQE_WC_RETRY_EXC_ERR);
	CHECK_EQ(as_state(e.p.a.qp), WQE_QPS_ERR);
	pair_spin(&e.p, 5);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

/* The application moves a draining QP to ERR: no event at all. */
static void err_while_draining(void)
{
	struct pair_opts o = pair_defaults;
	struct as_env e;

	o.timeout = 20;
	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_256, NULL, &o), 0);
	as_rdma(&e, e.p.a.qp, WQE_WR_RDMA_WRITE, 60000, 0, 1);
	wqe_progress(e.p.a.ctx);
	CHECK_EQ(as_sqd(e.p.a.qp, 1, 1), 0);
	CHECK_EQ(as_draining(e.p.a.qp), 1);
	CHECK_EQ(as_modify(e.p.a.qp, WQE_QPS_ERR), 0);
	pair_spin(&e.p, 20);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

int main(void)
{
	long_message(WQE_QPT_RC, NO_MASK);
	long_message(WQE_QPT_RC, FIELD_ZERO);
	long_message(WQE_QPT_RC, NOTIFY);
	long_message(WQE_QPT_UC, NO_MASK);
	long_message(WQE_QPT_UC, NOTIFY);
	already_drained(WQE_QPT_RC);
	already_drained(WQE_QPT_UC);
	already_drained(WQE_QPT_UD);
	refused_while_draining();
	dead_in_sqd();
	err_while_draining();
	return test_finish();
}
