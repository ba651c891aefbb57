/* SPDX-License-Identifier: MIT */
/*
 * WQE_EVENT_CQ_ERR (IBTA 11.6.3 "CQ Error", ibv_get_async_event(3) "CQ is
 * in error (CQ overrun)"): the first completion lost to a full CQ raises
 * it, once, whatever is lost after; wqe_poll_cq() still returns what was
 * queued, then -EOVERFLOW. A send completion lost on success leaves the QP
 * as it was: no QP event. On RC, UC and UD, and with the CQ polled down
 * meanwhile (it stays in error).
 */
#include <errno.h>

#include "async_util.h"
#include "testutil.h"

static void overrun(enum wqe_qp_type t)
{
	struct wqe_async_stats st;
	struct wqe_wc wc[8];
	struct wqe_qp *qa, *qb;
	struct wqe_cq *cq;
	struct as_env e;

	CHECK_EQ(as_open(&e, t, WQE_MTU_1024, NULL, NULL), 0);
	cq = wqe_create_cq(e.p.a.ctx, 4);
	qa = as_qp(&e, &e.p.a, cq, NULL);
	qb = as_qp(&e, &e.p.b, NULL, NULL);
	CHECK(cq && qa && qb);
	CHECK_EQ(as_connect(&e, qa, 1, wqe_qp_num(qb), WQE_QPS_RTS, 0x40, 0x40), 0);
	CHECK_EQ(as_connect(&e, qb, 2, wqe_qp_num(qa), WQE_QPS_RTS, 0x40, 0x40), 0);
	for (int i = 0; i < 4; i++) {
		as_recv(&e, qb, 64, (uint64_t)i);
		as_send(&e, qa, 64, wqe_qp_num(qb), (uint64_t)i);
	}
	pair_spin(&e.p, 10);
	AS_NONE(e.p.a.ctx); /* full, nothing lost yet */
	as_recv(&e, qb, 64, 4);
	as_send(&e, qa, 64, wqe_qp_num(qb), 4);
	pair_spin(&e.p, 10);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_CQ_ERR, cq);
	AS_NONE(e.p.a.ctx);
	/* Polled down, still in error: more lost, no second event. */
	CHECK_EQ(wqe_poll_cq(cq, 8, wc), 4);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(wc[i].wr_id, (uint64_t)i);
	for (int i = 5; i < 8; i++) {
		as_recv(&e, qb, 64, (uint64_t)i);
		as_send(&e, qa, 64, wqe_qp_num(qb), (uint64_t)i);
	}
	pair_spin(&e.p, 10);
	AS_NONE(e.p.a.ctx);
	CHECK_EQ(wqe_poll_cq(cq, 8, wc), -EOVERFLOW);
	/* The sender's QP is unchanged: only its CQ is in error. */
	CHECK_EQ(as_state(qa), WQE_QPS_RTS);
	CHECK_EQ(wqe_poll_cq(e.p.b.rcq, 8, wc), 8);
	AS_NONE(e.p.b.ctx);
	CHECK_EQ(wqe_context_async_stats(e.p.a.ctx, &st), 0);
	CHECK_EQ(st.raised, 1);
	CHECK_EQ(st.taken, 1);
	CHECK_EQ(st.merged, 0);
	CHECK_EQ(st.dropped, 0);
	CHECK_EQ(wqe_destroy_qp(qa), 0);
	CHECK_EQ(wqe_destroy_qp(qb), 0);
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	as_close(&e);
}

int main(void)
{
	overrun(WQE_QPT_RC);
	overrun(WQE_QPT_UC);
	overrun(WQE_QPT_UD);
	return test_finish();
}
