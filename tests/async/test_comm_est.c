/* SPDX-License-Identifier: MIT */
/*
 * WQE_EVENT_COMM_EST (IBTA 11.6.3 "Communication Established", as rdmavt's
 * rvt_comm_est() and mlx5 raise it): an RC or UC QP in RTR that accepts
 * its first request raises it once, before that request's completion is
 * polled; later requests, and the move to RTS, raise nothing; a new trip
 * through RESET to RTR raises it again. Not for a QP already in RTS when
 * its first request comes, not for UD, and not for a request the PSN
 * check refuses (RC: PSN ahead, NAKed).
 */
#include <string.h>

#include "async_util.h"
#include "testutil.h"

/* A's extra QP qa to RTS, B's qb only to RTR (expecting @rq_psn). */
static void open_rtr(struct as_env *e, enum wqe_qp_type t, struct wqe_qp **qa, struct wqe_qp **qb,
		     uint32_t rq_psn)
{
	CHECK_EQ(as_open(e, t, WQE_MTU_1024, NULL, NULL), 0);
	*qa = as_qp(e, &e->p.a, NULL, NULL);
	*qb = as_qp(e, &e->p.b, NULL, NULL);
	CHECK(*qa && *qb);
	CHECK_EQ(as_connect(e, *qb, 2, wqe_qp_num(*qa), WQE_QPS_RTR, 0x100, rq_psn), 0);
	CHECK_EQ(as_connect(e, *qa, 1, wqe_qp_num(*qb), WQE_QPS_RTS, 0x100, 0x100), 0);
}

static void close_rtr(struct as_env *e, struct wqe_qp *qa, struct wqe_qp *qb)
{
	CHECK_EQ(wqe_destroy_qp(qa), 0);
	CHECK_EQ(wqe_destroy_qp(qb), 0);
	as_close(e);
}

/* Sends one SEND (UD: a second one too, to the same QP) and waits for its
 * receive completion on B. */
static void one_send(struct as_env *e, struct wqe_qp *qa, struct wqe_qp *qb, uint64_t id)
{
	enum wqe_wc_status st;

	as_recv(e, qb, 64, id);
	as_send(e, qa, 64, wqe_qp_num(qb), id);
	CHECK_EQ(as_wait(e, e->p.b.rcq, 1, 2.0, &st), 1);
	CHECK_EQ(st, WQE_WC_SUCCESS);
	CHECK_EQ(as_wait(e, e->p.a.scq, 1, 2.0, &st), 1);
	CHECK_EQ(st, WQE_WC_SUCCESS);
}

static void first_request(enum wqe_qp_type t)
{
	struct wqe_qp *qa, *qb;
	struct as_env e;

	open_rtr(&e, t, &qa, &qb, 0x100);
	AS_NONE(e.p.b.ctx);
	one_send(&e, qa, qb, 1);
	if (t == WQE_QPT_UD)
		AS_NONE(e.p.b.ctx);
	else
		AS_EXPECT(e.p.b.ctx, WQE_EVENT_COMM_EST, qb);
	one_send(&e, qa, qb, 2);
	AS_NONE(e.p.b.ctx); /* once */
	if (t != WQE_QPT_UD) {
		/* An RDMA WRITE is a request too, and still nothing. */
		struct wqe_sge s = {(uint64_t)(uintptr_t)e.a_buf, 32, e.a_mr->lkey};
		struct wqe_send_wr w, *bad;

		memset(&w, 0, sizeof(w));
		w.sg_list = &s;
		w.num_sge = 1;
		w.opcode = WQE_WR_RDMA_WRITE;
		w.send_flags = WQE_SEND_SIGNALED;
		w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)e.b_buf;
		w.wr.rdma.rkey = e.b_mr->rkey;
		CHECK_EQ(wqe_post_send(qa, &w, &bad), 0);
		CHECK_EQ(as_wait(&e, e.p.a.scq, 1, 2.0, NULL), 1);
		AS_NONE(e.p.b.ctx);
	}
	/* RTR -> RTS: nothing. */
	{
		struct wqe_qp_attr a;
		int mask;

		test_qp_attr_for(t, WQE_QPS_RTS, &a, &mask, 0, WQE_MTU_1024);
		CHECK_EQ(wqe_modify_qp(qb, &a, mask), 0);
	}
	one_send(&e, qa, qb, 3);
	AS_NONE(e.p.b.ctx);
	AS_NONE(e.p.a.ctx);
	/* Through RESET back to RTR, both sides afresh: once more. */
	if (t != WQE_QPT_UD) {
		CHECK_EQ(as_modify(qa, WQE_QPS_RESET), 0);
		CHECK_EQ(as_modify(qb, WQE_QPS_RESET), 0);
		CHECK_EQ(as_connect(&e, qb, 2, wqe_qp_num(qa), WQE_QPS_RTR, 0x300, 0x300), 0);
		CHECK_EQ(as_connect(&e, qa, 1, wqe_qp_num(qb), WQE_QPS_RTS, 0x300, 0x300), 0);
		one_send(&e, qa, qb, 4);
		AS_EXPECT(e.p.b.ctx, WQE_EVENT_COMM_EST, qb);
		AS_NONE(e.p.b.ctx);
	}
	close_rtr(&e, qa, qb);
}

/* The pair's QPs were both in RTS before anything was sent: no event. */
static void already_rts(enum wqe_qp_type t)
{
	struct as_env e;

	CHECK_EQ(as_open(&e, t, WQE_MTU_1024, NULL, NULL), 0);
	one_send(&e, e.p.a.qp, e.p.b.qp, 1);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

/* RC: B in RTR expects PSN 0x80, A sends from 0x100: every request is
 * ahead, NAKed (PSN sequence error), never accepted: no event, while A
 * retries until it gives up. */
static void psn_ahead(void)
{
	struct wqe_qp *qa, *qb;
	enum wqe_wc_status st;
	struct as_env e;

	open_rtr(&e, WQE_QPT_RC, &qa, &qb, 0x80);
	as_recv(&e, qb, 64, 1);
	as_send(&e, qa, 64, 0, 1);
	CHECK_EQ(as_wait(&e, e.p.a.scq, 1, 5.0, &st), 1);
	CHECK_EQ(st, WQE_WC_RETRY_EXC_ERR);
	CHECK_EQ(as_state(qb), WQE_QPS_RTR);
	CHECK_EQ(wqe_poll_cq(e.p.b.rcq, 1, (struct wqe_wc[1]){0}), 0);
	AS_NONE(e.p.b.ctx);
	AS_NONE(e.p.a.ctx);
	close_rtr(&e, qa, qb);
}

int main(void)
{
	first_request(WQE_QPT_RC);
	first_request(WQE_QPT_UC);
	first_request(WQE_QPT_UD);
	already_rts(WQE_QPT_RC);
	already_rts(WQE_QPT_UC);
	psn_ahead();
	return test_finish();
}
