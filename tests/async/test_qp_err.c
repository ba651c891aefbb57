/* SPDX-License-Identifier: MIT */
/*
 * The QP error events: an error the NIC finds raises an asynchronous
 * event only when no completion can report it (IBTA 11.6.3 affiliated
 * asynchronous errors; the responder's class C table):
 *  - retries run out over a dead link (fault link, drop 1.0): the
 *    RETRY_EXC_ERR completion tells, no event on either side; but with
 *    that completion lost to a full send CQ: CQ_ERR, then QP_FATAL;
 *  - RC responder, no receive WQE in progress: an RDMA WRITE or READ with
 *    a bad rkey raises QP_ACCESS_ERR on the responder's QP (in ERR), an
 *    RDMA WRITE the QP's access flags refuse raises QP_REQ_ERR; the
 *    requester has its REM_*_ERR completion and no event;
 *  - UC: a bad rkey is dropped (class D): no event, the QP stays up;
 *  - a SEND too long for its receive WQE: the WQE completes with
 *    LOC_LEN_ERR, no event; a local error (bad lkey): its completion, no
 *    event; but with that completion lost to a full CQ: CQ_ERR, QP_FATAL;
 *  - a receive completion lost to a full CQ (class G): CQ_ERR, QP_FATAL;
 *  - mlx5: a doorbell record more than a ring ahead: QP_FATAL;
 *  - the application moves QPs to ERR or RESET: no event.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "async_util.h"
#include "testutil.h"
#include "engine/services.h"
#include "verbs/verbs_int.h"

static void retry_exhausted(void)
{
	struct pair_opts o = pair_defaults;
	struct wqe_fault_cfg f = {.drop = 1.0, .seed = 3};
	enum wqe_wc_status st;
	struct as_env e;

	o.timeout = 1; /* 8.192 us */
	o.retry_cnt = 3;
	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, &f, &o), 0);
	as_rdma(&e, e.p.a.qp, WQE_WR_RDMA_WRITE, 3000, 0, 1);
	CHECK_EQ(as_wait(&e, e.p.a.scq, 1, 5.0, &st), 1);
	CHECK_EQ(st, WQE_WC_RETRY_EXC_ERR);
	CHECK_EQ(as_state(e.p.a.qp), WQE_QPS_ERR);
	pair_spin(&e.p, 5);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

/* Two QPs of A share a send CQ of one entry: X's bad-lkey WQE fills it
 * (its LOC_PROT_ERR completion: no event), then Y's retries run out over
 * the dead link and its RETRY_EXC_ERR completion is lost: the CQ is in
 * error (CQ_ERR), and Y went to ERR with nothing to say why (QP_FATAL). */
static void retry_exhausted_lost(void)
{
	struct pair_opts o = pair_defaults;
	struct wqe_fault_cfg f = {.drop = 1.0, .seed = 4};
	struct wqe_sge s;
	struct wqe_send_wr w, *bad;
	struct wqe_qp *x, *y, *xb, *yb;
	struct wqe_cq *cq;
	struct wqe_wc wc[2];
	struct as_env e;

	o.timeout = 1;
	o.retry_cnt = 2;
	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, &f, &o), 0);
	cq = wqe_create_cq(e.p.a.ctx, 1);
	x = as_qp(&e, &e.p.a, cq, NULL);
	y = as_qp(&e, &e.p.a, cq, NULL);
	xb = as_qp(&e, &e.p.b, NULL, NULL);
	yb = as_qp(&e, &e.p.b, NULL, NULL);
	CHECK(cq && x && y && xb && yb);
	CHECK_EQ(as_connect(&e, x, 1, wqe_qp_num(xb), WQE_QPS_RTS, 0x10, 0x10), 0);
	CHECK_EQ(as_connect(&e, xb, 2, wqe_qp_num(x), WQE_QPS_RTS, 0x10, 0x10), 0);
	CHECK_EQ(as_connect(&e, y, 1, wqe_qp_num(yb), WQE_QPS_RTS, 0x10, 0x10), 0);
	CHECK_EQ(as_connect(&e, yb, 2, wqe_qp_num(y), WQE_QPS_RTS, 0x10, 0x10), 0);

	memset(&w, 0, sizeof(w));
	s = (struct wqe_sge){(uint64_t)(uintptr_t)e.a_buf, 8, e.a_mr->lkey ^ 0x5500};
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_RDMA_WRITE;
	w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)e.b_buf;
	w.wr.rdma.rkey = e.b_mr->rkey;
	CHECK_EQ(wqe_post_send(x, &w, &bad), 0);
	pair_spin(&e.p, 3);
	CHECK_EQ(as_state(x), WQE_QPS_ERR);
	AS_NONE(e.p.a.ctx); /* the completion says why */

	as_rdma(&e, y, WQE_WR_RDMA_WRITE, 100, 0, 9);
	for (int i = 0; i < 100000 && as_state(y) != WQE_QPS_ERR; i++)
		pair_spin(&e.p, 1);
	CHECK_EQ(as_state(y), WQE_QPS_ERR);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_CQ_ERR, cq);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_QP_FATAL, y);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	CHECK_EQ(wqe_poll_cq(cq, 2, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_LOC_PROT_ERR);
	CHECK_EQ(wc[0].qp_num, wqe_qp_num(x));
	CHECK_EQ(wqe_poll_cq(cq, 2, wc), -EOVERFLOW);
	CHECK_EQ(wqe_destroy_qp(x), 0);
	CHECK_EQ(wqe_destroy_qp(y), 0);
	CHECK_EQ(wqe_destroy_qp(xb), 0);
	CHECK_EQ(wqe_destroy_qp(yb), 0);
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	as_close(&e);
}

/* RC: an RDMA WRITE or READ naming a bad rkey; or a WRITE the responder
 * QP's access flags refuse. */
enum remote { BAD_RKEY_WRITE, BAD_RKEY_READ, NO_REMOTE_WRITE };

static void remote_error(enum remote how)
{
	enum wqe_wc_status st;
	struct as_env e;

	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, NULL, NULL), 0);
	if (how == NO_REMOTE_WRITE) {
		struct wqe_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = WQE_QPS_RTS;
		a.qp_access_flags = WQE_ACCESS_REMOTE_READ;
		CHECK_EQ(wqe_modify_qp(e.p.b.qp, &a, WQE_QP_STATE | WQE_QP_ACCESS_FLAGS), 0);
	}
	as_rdma(&e, e.p.a.qp, how == BAD_RKEY_READ ? WQE_WR_RDMA_READ : WQE_WR_RDMA_WRITE, 300,
		how == NO_REMOTE_WRITE ? 0 : 0x7700, 1);
	CHECK_EQ(as_wait(&e, e.p.a.scq, 1, 2.0, &st), 1);
	CHECK_EQ(st, how == NO_REMOTE_WRITE ? WQE_WC_REM_INV_REQ_ERR : WQE_WC_REM_ACCESS_ERR);
	pair_spin(&e.p, 3);
	CHECK_EQ(as_state(e.p.a.qp), WQE_QPS_ERR);
	CHECK_EQ(as_state(e.p.b.qp), WQE_QPS_ERR);
	AS_NONE(e.p.a.ctx); /* the requester's completion says it */
	AS_EXPECT(e.p.b.ctx,
		  how == NO_REMOTE_WRITE ? WQE_EVENT_QP_REQ_ERR : WQE_EVENT_QP_ACCESS_ERR,
		  e.p.b.qp);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

/* UC drops a WRITE with a bad rkey (class D): nothing goes to ERR. */
static void uc_bad_rkey(void)
{
	struct as_env e;

	CHECK_EQ(as_open(&e, WQE_QPT_UC, WQE_MTU_1024, NULL, NULL), 0);
	as_rdma(&e, e.p.a.qp, WQE_WR_RDMA_WRITE, 300, 0x7700, 1);
	CHECK_EQ(as_wait(&e, e.p.a.scq, 1, 2.0, NULL), 1);
	pair_spin(&e.p, 3);
	CHECK_EQ(as_state(e.p.b.qp), WQE_QPS_RTS);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

/* RC SEND longer than its receive WQE: the responder completes the WQE
 * with LOC_LEN_ERR and goes to ERR; the completion reports it. */
static void recv_too_short(void)
{
	struct wqe_wc wc;
	enum wqe_wc_status st;
	struct as_env e;

	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, NULL, NULL), 0);
	as_recv(&e, e.p.b.qp, 100, 5);
	as_send(&e, e.p.a.qp, 200, 0, 1);
	CHECK_EQ(as_wait(&e, e.p.a.scq, 1, 2.0, &st), 1);
	CHECK_EQ(st, WQE_WC_REM_INV_REQ_ERR);
	CHECK_EQ(wqe_poll_cq(e.p.b.rcq, 1, &wc), 1);
	CHECK_EQ(wc.status, WQE_WC_LOC_LEN_ERR);
	CHECK_EQ(as_state(e.p.b.qp), WQE_QPS_ERR);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

/* A local error (bad lkey): LOC_PROT_ERR, ERR, no event. */
static void local_error(enum wqe_qp_type t)
{
	struct wqe_sge s;
	struct wqe_send_wr w, *bad;
	enum wqe_wc_status st;
	struct as_env e;

	CHECK_EQ(as_open(&e, t, WQE_MTU_1024, NULL, NULL), 0);
	memset(&w, 0, sizeof(w));
	s = (struct wqe_sge){(uint64_t)(uintptr_t)e.a_buf, 8, e.a_mr->lkey ^ 0x5500};
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND;
	if (t == WQE_QPT_UD) {
		w.wr.ud.ah = e.p.a.ah;
		w.wr.ud.remote_qpn = wqe_qp_num(e.p.b.qp);
		w.wr.ud.remote_qkey = 0x11111111;
	}
	CHECK_EQ(wqe_post_send(e.p.a.qp, &w, &bad), 0);
	CHECK_EQ(as_wait(&e, e.p.a.scq, 1, 2.0, &st), 1);
	CHECK_EQ(st, WQE_WC_LOC_PROT_ERR);
	CHECK_EQ(as_state(e.p.a.qp), WQE_QPS_ERR);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

/* Two QPs of A share a send CQ of one entry; each posts a WQE with a bad
 * lkey. X's LOC_PROT_ERR completion fills the CQ (no event); Y's is lost:
 * CQ_ERR, then QP_FATAL for Y. */
static void local_error_lost(enum wqe_qp_type t)
{
	struct wqe_qp *q[2], *peer[2];
	struct wqe_cq *cq;
	struct wqe_wc wc[2];
	struct as_env e;

	CHECK_EQ(as_open(&e, t, WQE_MTU_1024, NULL, NULL), 0);
	cq = wqe_create_cq(e.p.a.ctx, 1);
	CHECK(cq != NULL);
	for (int i = 0; i < 2; i++) {
		struct wqe_sge s;
		struct wqe_send_wr w, *bad;

		q[i] = as_qp(&e, &e.p.a, cq, NULL);
		peer[i] = as_qp(&e, &e.p.b, NULL, NULL);
		CHECK(q[i] && peer[i]);
		CHECK_EQ(as_connect(&e, q[i], 1, wqe_qp_num(peer[i]), WQE_QPS_RTS, 0x10, 0x10), 0);
		CHECK_EQ(as_connect(&e, peer[i], 2, wqe_qp_num(q[i]), WQE_QPS_RTS, 0x10, 0x10), 0);
		memset(&w, 0, sizeof(w));
		s = (struct wqe_sge){(uint64_t)(uintptr_t)e.a_buf, 8, e.a_mr->lkey ^ 0x5500};
		w.sg_list = &s;
		w.num_sge = 1;
		w.opcode = WQE_WR_SEND;
		if (t == WQE_QPT_UD) {
			w.wr.ud.ah = e.p.a.ah;
			w.wr.ud.remote_qpn = wqe_qp_num(peer[i]);
			w.wr.ud.remote_qkey = 0x11111111;
		}
		CHECK_EQ(wqe_post_send(q[i], &w, &bad), 0);
		pair_spin(&e.p, 3);
		CHECK_EQ(as_state(q[i]), WQE_QPS_ERR);
	}
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_CQ_ERR, cq);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_QP_FATAL, q[1]);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	CHECK_EQ(wqe_poll_cq(cq, 2, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_LOC_PROT_ERR);
	CHECK_EQ(wc[0].qp_num, wqe_qp_num(q[0]));
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(wqe_destroy_qp(q[i]), 0);
		CHECK_EQ(wqe_destroy_qp(peer[i]), 0);
	}
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	as_close(&e);
}

/* B's receive CQ holds one entry: the second SEND's receive completion is
 * lost (class G): B's CQ is in error and its QP goes to ERR. */
static void recv_cqe_lost(enum wqe_qp_type t)
{
	struct wqe_qp *qb;
	struct wqe_cq *rcq;
	struct wqe_wc wc[2];
	struct as_env e;

	CHECK_EQ(as_open(&e, t, WQE_MTU_1024, NULL, NULL), 0);
	rcq = wqe_create_cq(e.p.b.ctx, 1);
	qb = as_qp(&e, &e.p.b, NULL, rcq);
	CHECK(rcq && qb);
	/* Swap B's QP for the one on the small CQ; A's QP is connected to
	 * it afresh (RC and UC), or sends to it by number (UD). */
	CHECK_EQ(as_modify(e.p.a.qp, WQE_QPS_RESET), 0);
	CHECK_EQ(as_connect(&e, e.p.a.qp, 1, wqe_qp_num(qb), WQE_QPS_RTS, 0x20, 0x20), 0);
	CHECK_EQ(as_connect(&e, qb, 2, wqe_qp_num(e.p.a.qp), WQE_QPS_RTS, 0x20, 0x20), 0);
	for (int i = 0; i < 3; i++)
		as_recv(&e, qb, 64, (uint64_t)i);
	as_send(&e, e.p.a.qp, 64, wqe_qp_num(qb), 1);
	as_send(&e, e.p.a.qp, 64, wqe_qp_num(qb), 2);
	pair_spin(&e.p, 10);
	CHECK_EQ(as_state(qb), WQE_QPS_ERR);
	AS_EXPECT(e.p.b.ctx, WQE_EVENT_CQ_ERR, rcq);
	AS_EXPECT(e.p.b.ctx, WQE_EVENT_QP_FATAL, qb);
	AS_NONE(e.p.b.ctx);
	AS_NONE(e.p.a.ctx);
	CHECK_EQ(wqe_poll_cq(rcq, 2, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wqe_poll_cq(rcq, 2, wc), -EOVERFLOW);
	CHECK_EQ(wqe_destroy_qp(qb), 0);
	CHECK_EQ(wqe_destroy_cq(rcq), 0);
	as_close(&e);
}

/* mlx5: a doorbell record more than a ring ahead (a driver's bug): the
 * QP goes to ERR, its WQEs flushed, and nothing reports why but the
 * event. */
static void dbrec_far_ahead(void)
{
	struct wqe_qp *qp;
	struct as_env e;
	uint32_t ci;

	if (test_format() != WQE_FORMAT_MLX5)
		return;
	CHECK_EQ(as_open(&e, WQE_QPT_RC, WQE_MTU_1024, NULL, NULL), 0);
	qp = e.p.a.qp;
	ci = atomic_load(&qp->sq.ci);
	atomic_store(&qp->sq.dbrec, ci + 0x40000000u);
	nic_kick(&qp->qpc);
	pair_spin(&e.p, 4);
	CHECK_EQ(as_state(qp), WQE_QPS_ERR);
	AS_EXPECT(e.p.a.ctx, WQE_EVENT_QP_FATAL, qp);
	AS_NONE(e.p.a.ctx);
	while (wqe_poll_cq(e.p.a.scq, 1, (struct wqe_wc[1]){0}) > 0)
		;
	as_close(&e);
}

/* The application's own moves to ERR and RESET raise nothing. */
static void app_modify(enum wqe_qp_type t)
{
	struct as_env e;

	CHECK_EQ(as_open(&e, t, WQE_MTU_1024, NULL, NULL), 0);
	as_recv(&e, e.p.b.qp, 64, 1);
	as_recv(&e, e.p.b.qp, 64, 2);
	as_send(&e, e.p.a.qp, 64, wqe_qp_num(e.p.b.qp), 1);
	as_send(&e, e.p.a.qp, 64, wqe_qp_num(e.p.b.qp), 2);
	CHECK_EQ(as_modify(e.p.a.qp, WQE_QPS_ERR), 0);
	CHECK_EQ(as_modify(e.p.b.qp, WQE_QPS_ERR), 0);
	pair_spin(&e.p, 5);
	CHECK_EQ(as_wait(&e, e.p.a.scq, 2, 2.0, NULL), 2);
	CHECK_EQ(as_wait(&e, e.p.b.rcq, 2, 2.0, NULL), 2);
	CHECK_EQ(as_modify(e.p.a.qp, WQE_QPS_RESET), 0);
	pair_spin(&e.p, 3);
	AS_NONE(e.p.a.ctx);
	AS_NONE(e.p.b.ctx);
	as_close(&e);
}

int main(void)
{
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};

	retry_exhausted();
	retry_exhausted_lost();
	remote_error(BAD_RKEY_WRITE);
	remote_error(BAD_RKEY_READ);
	remote_error(NO_REMOTE_WRITE);
	uc_bad_rkey();
	recv_too_short();
	for (size_t i = 0; i < 3; i++) {
		local_error(types[i]);
		local_error_lost(types[i]);
		recv_cqe_lost(types[i]);
		app_modify(types[i]);
	}
	dbrec_far_ahead();
	return test_finish();
}
