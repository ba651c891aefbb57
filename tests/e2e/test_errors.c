/* SPDX-License-Identifier: MIT */
/*
 * Every error status a remote or transport fault produces, end to end, and
 * after each one every outstanding request of both queues of the failed QP
 * flushed: REM_ACCESS_ERR, REM_INV_REQ_ERR (with the responder's
 * LOC_LEN_ERR), REM_OP_ERR (with the responder's LOC_PROT_ERR),
 * RNR_RETRY_EXC_ERR, RETRY_EXC_ERR (a dead link, in bounded time, retry_cnt
 * 7 included),
 * and a UD message over the MTU, which is no error (IBTA C10-93.1.1, as rxe:
 * no packet, a successful completion, the QP and the requests behind it
 * unharmed); a receive CQ overrun that still acknowledges the SENDs
 * completed before it; and a READ whose responses are
 * lost is retried and completes, alone or 16 in flight. The retransmit timers of 80 QPs of one
 * context all fire. SQD drains: what had started is finished (the rest of
 * a message cut short, retries), nothing new starts before RTS.
 */
#include <string.h>

#include "pair.h"
#include "testutil.h"

static uint8_t a_buf[65536], b_buf[65536];

struct env {
	struct pair p;
	struct wqe_mr *a, *b;
};

static void env_open_mtu(struct env *e, enum wqe_qp_type t, const struct wqe_fault_cfg *f,
			 const struct pair_opts *o, enum wqe_mtu mtu)
{
	const unsigned all = WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
			     WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;

	CHECK_EQ(pair_open_opts(&e->p, t, mtu, f, 16, o ? o : &pair_defaults), 0);
	e->a = wqe_reg_mr(e->p.a.pd, a_buf, sizeof(a_buf), all);
	e->b = wqe_reg_mr(e->p.b.pd, b_buf, sizeof(b_buf), all);
	CHECK(e->a && e->b);
}

static void env_open(struct env *e, enum wqe_qp_type t, const struct wqe_fault_cfg *f,
		     const struct pair_opts *o)
{
	env_open_mtu(e, t, f, o, WQE_MTU_1024);
}

static void env_close(struct env *e)
{
	wqe_dereg_mr(e->a);
	wqe_dereg_mr(e->b);
	pair_close(&e->p);
}

static void recv_on(struct ep *ep, struct wqe_mr *m, uint8_t *buf, uint32_t len, uint32_t lkey_xor,
		    uint64_t id)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)buf, len, m->lkey ^ lkey_xor};
	struct wqe_recv_wr r = {.wr_id = id, .sg_list = &s, .num_sge = 1}, *bad;

	CHECK_EQ(wqe_post_recv(ep->qp, &r, &bad), 0);
}

/* Posts @first then two good SENDs behind it on A. */
static void post_three(struct env *e, struct wqe_send_wr *first)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)a_buf, 16, e->a->lkey};
	struct wqe_send_wr g[2], *bad;

	memset(g, 0, sizeof(g));
	for (int i = 0; i < 2; i++) {
		g[i].wr_id = 101 + (uint64_t)i;
		g[i].sg_list = &s;
		g[i].num_sge = 1;
		g[i].opcode = WQE_WR_SEND;
		g[i].next = i ? NULL : &g[1];
		if (e->p.type == WQE_QPT_UD) {
			g[i].wr.ud.ah = e->p.a.ah;
			g[i].wr.ud.remote_qpn = wqe_qp_num(e->p.b.qp);
			g[i].wr.ud.remote_qkey = 0x11111111;
		}
	}
	first->wr_id = 100;
	first->send_flags |= WQE_SEND_SIGNALED;
	first->next = g;
	CHECK_EQ(wqe_post_send(e->p.a.qp, first, &bad), 0);
}

static enum wqe_qp_state state(struct wqe_qp *qp)
{
	struct wqe_qp_attr a;

	wqe_query_qp(qp, &a, 0, NULL);
	return a.qp_state;
}

/* A's three sends: @st then two flushes; A's two receives flushed. */
static void check_a_failed(struct env *e, enum wqe_wc_status st, double seconds)
{
	struct wqe_wc wc[4];

	CHECK_EQ(pair_wait_time(&e->p, e->p.a.scq, 3, wc, seconds), 3);
	CHECK_EQ(wc[0].wr_id, 100);
	CHECK_EQ(wc[0].status, st);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[2].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[2].wr_id, 102);
	CHECK_EQ(pair_wait_time(&e->p, e->p.a.rcq, 2, wc, 1.0), 2);
	CHECK_EQ(wc[0].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(state(e->p.a.qp), WQE_QPS_ERR);
}

/* B's first receive completes with @st (or none if SUCCESS is given as
 * "no completion expected"), the second is flushed, B is in ERR. */
static void check_b_failed(struct env *e, int first_st)
{
	struct wqe_wc wc[3];
	int n = first_st >= 0 ? 2 : 1;

	CHECK_EQ(pair_wait_time(&e->p, e->p.b.rcq, n, wc, 1.0), n);
	if (first_st >= 0)
		CHECK_EQ(wc[0].status, (enum wqe_wc_status)first_st);
	CHECK_EQ(wc[n - 1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(state(e->p.b.qp), WQE_QPS_ERR);
}

static void arm_a_recvs(struct env *e)
{
	recv_on(&e->p.a, e->a, a_buf + 8192, 64, 0, 500);
	recv_on(&e->p.a, e->a, a_buf + 8192, 64, 0, 501);
}

static void test_rem_access(void)
{
	struct env e;
	struct wqe_sge s;
	struct wqe_send_wr w;

	env_open(&e, WQE_QPT_RC, NULL, NULL);
	arm_a_recvs(&e);
	recv_on(&e.p.b, e.b, b_buf, 64, 0, 1);
	memset(&w, 0, sizeof(w));
	s = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 64, e.a->lkey};
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_RDMA_WRITE;
	w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b_buf;
	w.wr.rdma.rkey = e.b->rkey ^ 0x100; /* no such key */
	post_three(&e, &w);
	check_a_failed(&e, WQE_WC_REM_ACCESS_ERR, 2.0);
	check_b_failed(&e, -1);
	env_close(&e);
}

static void test_rem_inv_req(void)
{
	struct env e;
	struct wqe_sge s;
	struct wqe_send_wr w;

	env_open(&e, WQE_QPT_RC, NULL, NULL);
	arm_a_recvs(&e);
	recv_on(&e.p.b, e.b, b_buf, 100, 0, 1); /* too small for 2000 bytes */
	recv_on(&e.p.b, e.b, b_buf, 100, 0, 2);
	memset(&w, 0, sizeof(w));
	s = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 2000, e.a->lkey};
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND;
	post_three(&e, &w);
	check_a_failed(&e, WQE_WC_REM_INV_REQ_ERR, 2.0);
	check_b_failed(&e, WQE_WC_LOC_LEN_ERR);
	env_close(&e);
}

static void test_rem_op(void)
{
	struct env e;
	struct wqe_sge s;
	struct wqe_send_wr w;

	env_open(&e, WQE_QPT_RC, NULL, NULL);
	arm_a_recvs(&e);
	recv_on(&e.p.b, e.b, b_buf, 100, 0x4400, 1); /* a receive WQE with a bad lkey */
	recv_on(&e.p.b, e.b, b_buf, 100, 0, 2);
	memset(&w, 0, sizeof(w));
	s = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 50, e.a->lkey};
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND;
	post_three(&e, &w);
	check_a_failed(&e, WQE_WC_REM_OP_ERR, 2.0);
	check_b_failed(&e, WQE_WC_LOC_PROT_ERR);
	env_close(&e);
}

static void test_rnr_exhausted(void)
{
	struct pair_opts o = pair_defaults;
	struct env e;
	struct wqe_sge s;
	struct wqe_send_wr w;
	struct wqe_wc wc;

	o.rnr_retry = 2;
	o.min_rnr_timer = 1; /* 10 us */
	env_open(&e, WQE_QPT_RC, NULL, &o);
	arm_a_recvs(&e);
	memset(&w, 0, sizeof(w));
	s = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 50, e.a->lkey};
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND;
	post_three(&e, &w); /* B never posts a receive */
	check_a_failed(&e, WQE_WC_RNR_RETRY_EXC_ERR, 5.0);
	/* RNR is not an error of the responder: B stays up. */
	CHECK_EQ(state(e.p.b.qp), WQE_QPS_RTS);
	CHECK_EQ(wqe_poll_cq(e.p.b.rcq, 1, &wc), 0);
	env_close(&e);
}

/* Every frame lost: the first try and @retry_cnt retries time out, then
 * RETRY_EXC_ERR. A retry_cnt of 7 is seven retries, as the IBTA has it
 * (rxe would retry forever). */
static void test_dead_link(uint8_t retry_cnt)
{
	struct pair_opts o = pair_defaults;
	struct wqe_fault_cfg f = {.drop = 1.0, .seed = 3};
	struct wqe_qp_stats st;
	struct env e;
	struct wqe_sge s;
	struct wqe_send_wr w;

	o.timeout = 1; /* 8.192 us */
	o.retry_cnt = retry_cnt;
	env_open(&e, WQE_QPT_RC, &f, &o);
	arm_a_recvs(&e);
	memset(&w, 0, sizeof(w));
	s = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 3000, e.a->lkey};
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_RDMA_WRITE;
	w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b_buf;
	w.wr.rdma.rkey = e.b->rkey;
	post_three(&e, &w);
	check_a_failed(&e, WQE_WC_RETRY_EXC_ERR, 5.0);
	CHECK_EQ(wqe_query_qp_stats(e.p.a.qp, &st), 0);
	CHECK_EQ(st.timeouts, 1u + retry_cnt); /* the first try and every retry */
	CHECK_EQ(st.retransmits, retry_cnt);
	env_close(&e);
}

static void post_write(struct env *e, struct wqe_qp *qp, uint64_t id)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)a_buf, 100, e->a->lkey};
	struct wqe_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_RDMA_WRITE;
	w.send_flags = WQE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b_buf;
	w.wr.rdma.rkey = e->b->rkey;
	CHECK_EQ(wqe_post_send(qp, &w, &bad), 0);
}

/* Many QPs of one context on a dead link: every one times out on its own
 * count (the NIC's timer list holds them all), none is forgotten; the
 * first 70 ring with no progress between (more doorbells than the NIC
 * holds before it takes them), the rest one progress call apart. */
static void test_dead_link_many(void)
{
	enum { NQP = 80 };
	struct pair_opts o = pair_defaults;
	struct wqe_fault_cfg f = {.drop = 1.0, .seed = 5};
	struct wqe_qp *qa[NQP], *qb[NQP];
	struct wqe_wc wc[NQP + 1];
	int seen[NQP] = {0};
	struct env e;

	o.timeout = 1; /* 8.192 us */
	o.retry_cnt = 2;
	env_open(&e, WQE_QPT_RC, &f, &o);
	for (int i = 0; i < NQP; i++) {
		CHECK_EQ(pair_extra(&e.p, WQE_MTU_1024, 16, &o, &qa[i], &qb[i]), 0);
		post_write(&e, qa[i], (uint64_t)i);
		if (i >= 70)
			pair_spin(&e.p, 1); /* armed at different times */
	}
	CHECK_EQ(pair_wait_time(&e.p, e.p.a.scq, NQP, wc, 5.0), NQP);
	for (int i = 0; i < NQP; i++) {
		struct wqe_qp_stats st;

		CHECK_EQ(wc[i].status, WQE_WC_RETRY_EXC_ERR);
		CHECK(wc[i].wr_id < NQP && !seen[wc[i].wr_id]);
		seen[wc[i].wr_id] = 1;
		CHECK_EQ(wqe_query_qp_stats(qa[wc[i].wr_id], &st), 0);
		CHECK_EQ(st.timeouts, 3);
	}
	pair_spin(&e.p, 10);
	CHECK_EQ(wqe_poll_cq(e.p.a.scq, 1, wc), 0);
	/* The pair's own QP still works the same way after them. */
	post_write(&e, e.p.a.qp, 99);
	CHECK_EQ(pair_wait_time(&e.p, e.p.a.scq, 1, wc, 5.0), 1);
	CHECK_EQ(wc[0].status, WQE_WC_RETRY_EXC_ERR);
	for (int i = 0; i < NQP; i++) {
		CHECK_EQ(wqe_destroy_qp(qa[i]), 0);
		CHECK_EQ(wqe_destroy_qp(qb[i]), 0);
	}
	env_close(&e);
}

/* A QP moved to SQD while its message waits for an ACK on a dead link:
 * the drain goes on with the retries, which run out there. */
static void test_sqd_drain_dead(void)
{
	struct pair_opts o = pair_defaults;
	struct wqe_fault_cfg f = {.drop = 1.0, .seed = 7};
	struct wqe_qp_attr a;
	struct wqe_wc wc;
	struct env e;

	o.timeout = 1;
	o.retry_cnt = 1;
	env_open(&e, WQE_QPT_RC, &f, &o);
	post_write(&e, e.p.a.qp, 7);
	pair_spin(&e.p, 2); /* sent, timer armed */
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_SQD;
	CHECK_EQ(wqe_modify_qp(e.p.a.qp, &a, WQE_QP_STATE), 0);
	CHECK_EQ(wqe_query_qp(e.p.a.qp, &a, 0, NULL), 0);
	CHECK_EQ(a.sq_draining, 1);
	CHECK_EQ(pair_wait_time(&e.p, e.p.a.scq, 1, &wc, 5.0), 1);
	CHECK_EQ(wc.wr_id, 7);
	CHECK_EQ(wc.status, WQE_WC_RETRY_EXC_ERR);
	CHECK_EQ(state(e.p.a.qp), WQE_QPS_ERR);
	env_close(&e);
}

/* SQD drains: a message cut short when the QP left RTS is sent to its end
 * and acknowledged there; a request posted in SQD waits for RTS. */
static void test_sqd_drain(void)
{
	struct wqe_sge s1 = {0}, s2 = {0};
	struct wqe_send_wr w1, w2, *bad;
	struct wqe_qp_stats st;
	struct pair_opts o = pair_defaults;
	struct wqe_qp_attr a;
	struct wqe_wc wc;
	struct env e;

	o.timeout = 20; /* 4.3 s: no retransmission however slow the run (valgrind) */
	env_open_mtu(&e, WQE_QPT_RC, NULL, &o, WQE_MTU_256);
	for (size_t i = 0; i < sizeof(a_buf); i++)
		a_buf[i] = (uint8_t)(i * 7 + 3);
	memset(b_buf, 0, sizeof(b_buf));
	memset(&w1, 0, sizeof(w1));
	s1 = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 60000, e.a->lkey}; /* 235 packets */
	w1.wr_id = 1;
	w1.sg_list = &s1;
	w1.num_sge = 1;
	w1.opcode = WQE_WR_RDMA_WRITE;
	w1.send_flags = WQE_SEND_SIGNALED;
	w1.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b_buf;
	w1.wr.rdma.rkey = e.b->rkey;
	CHECK_EQ(wqe_post_send(e.p.a.qp, &w1, &bad), 0);
	wqe_progress(e.p.a.ctx); /* one pass: the first 64 packets */
	CHECK_EQ(wqe_query_qp_stats(e.p.a.qp, &st), 0);
	CHECK(st.packets_sent > 0 && st.packets_sent < 235);
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_SQD;
	CHECK_EQ(wqe_modify_qp(e.p.a.qp, &a, WQE_QP_STATE), 0);
	w2 = w1;
	s2 = (struct wqe_sge){(uint64_t)(uintptr_t)(a_buf + 60000), 100, e.a->lkey};
	w2.wr_id = 2;
	w2.sg_list = &s2;
	w2.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b_buf + 60000);
	CHECK_EQ(wqe_post_send(e.p.a.qp, &w2, &bad), 0);
	CHECK_EQ(wqe_query_qp(e.p.a.qp, &a, 0, NULL), 0);
	CHECK_EQ(a.sq_draining, 1);
	CHECK_EQ(pair_wait(&e.p, e.p.a.scq, 1, &wc, 1000), 1);
	CHECK_EQ(wc.wr_id, 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_MEM(b_buf, a_buf, 60000);
	pair_spin(&e.p, 20);
	CHECK_EQ(wqe_poll_cq(e.p.a.scq, 1, &wc), 0); /* w2 waits */
	CHECK_EQ(wqe_query_qp_stats(e.p.a.qp, &st), 0);
	CHECK_EQ(st.packets_sent, 235);
	CHECK_EQ(b_buf[60000], 0);
	CHECK_EQ(wqe_query_qp(e.p.a.qp, &a, 0, NULL), 0);
	CHECK_EQ(a.qp_state, WQE_QPS_SQD);
	CHECK_EQ(a.sq_draining, 0);
	a.qp_state = WQE_QPS_RTS;
	CHECK_EQ(wqe_modify_qp(e.p.a.qp, &a, WQE_QP_STATE), 0);
	CHECK_EQ(pair_wait(&e.p, e.p.a.scq, 1, &wc, 1000), 1);
	CHECK_EQ(wc.wr_id, 2);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_MEM(b_buf + 60000, a_buf + 60000, 100);
	env_close(&e);
}

static void test_ud_too_long(void)
{
	struct env e;
	struct wqe_sge s[2];
	struct wqe_send_wr w;
	struct wqe_wc wc[4];

	env_open(&e, WQE_QPT_UD, NULL, NULL);
	for (uint64_t i = 0; i < 3; i++)
		recv_on(&e.p.b, e.b, b_buf + i * 8192, 8192, 0, 1 + i);
	memset(&w, 0, sizeof(w));
	s[0] = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 3000, e.a->lkey};
	s[1] = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf + 3000, 3000, e.a->lkey};
	w.sg_list = s;
	w.num_sge = 2;
	w.opcode = WQE_WR_SEND;
	w.wr.ud.ah = e.p.a.ah;
	w.wr.ud.remote_qpn = wqe_qp_num(e.p.b.qp);
	w.wr.ud.remote_qkey = 0x11111111;
	post_three(&e, &w);
	/* The 6000-byte message: SUCCESS, and no packet ... */
	CHECK_EQ(pair_wait_time(&e.p, e.p.a.scq, 1, wc, 1.0), 1);
	CHECK_EQ(wc[0].wr_id, 100);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	/* ... so B's first two receives take the two SENDs behind it. */
	CHECK_EQ(pair_wait_time(&e.p, e.p.b.rcq, 2, wc, 1.0), 2);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].byte_len, 40u + 16u);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_EQ(wc[1].byte_len, 40u + 16u);
	pair_spin(&e.p, 20);
	CHECK_EQ(wqe_poll_cq(e.p.b.rcq, 4, wc), 0);
	CHECK_EQ(state(e.p.a.qp), WQE_QPS_RTS);
	env_close(&e);
}

/* An empty SGE is never judged, in either format (rxe's copy_data()
 * looks up the lkey of an SGE with bytes only; mlx5 writes no segment for
 * one): a SEND of 64 bytes and an empty SGE with no such lkey succeeds. */
static void test_empty_sge(void)
{
	struct env e;
	struct wqe_sge s[3];
	struct wqe_send_wr w, *bad;
	struct wqe_wc wc[2];

	env_open(&e, WQE_QPT_RC, NULL, NULL);
	recv_on(&e.p.b, e.b, b_buf, 4096, 0, 7);
	for (int i = 0; i < 64; i++)
		a_buf[i] = (uint8_t)(i * 5 + 1);
	memset(&w, 0, sizeof(w));
	s[0] = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 0, 0xdead0001u};
	s[1] = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 64, e.a->lkey};
	s[2] = (struct wqe_sge){0, 0, 0xdead0002u};
	w.wr_id = 9;
	w.sg_list = s;
	w.num_sge = 3;
	w.opcode = WQE_WR_SEND;
	w.send_flags = WQE_SEND_SIGNALED;
	CHECK_EQ(wqe_post_send(e.p.a.qp, &w, &bad), 0);
	CHECK_EQ(pair_wait_time(&e.p, e.p.a.scq, 1, wc, 2.0), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(pair_wait_time(&e.p, e.p.b.rcq, 1, wc, 2.0), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].byte_len, 64u);
	CHECK_MEM(b_buf, a_buf, 64);
	env_close(&e);
}

/* B's receive CQ overruns on the third of three SENDs that arrive
 * together: the first two, delivered and completed, are still
 * acknowledged (their ACK was owed, coalesced, when B went to ERR); only
 * the third fails at A, with RETRY_EXC_ERR (B, in ERR, answers nothing). */
static void test_recv_cq_overrun_ack(void)
{
	struct pair p;
	struct wqe_cq *small;
	struct wqe_qp *qa, *qb;
	struct wqe_sge s = {0};
	struct wqe_send_wr w[3], *bad;
	struct wqe_wc wc[4];
	struct pair_opts o = pair_defaults;
	uint8_t *ab, *bb;
	struct wqe_mr *am, *bm;

	o.retry_cnt = 2;
	CHECK_EQ(pair_open(&p, WQE_QPT_RC, WQE_MTU_1024, NULL, 16), 0);
	CHECK_EQ(pair_reg_bufs(&p, 8192, &ab, &bb, &am, &bm), 0);
	small = wqe_create_cq(p.b.ctx, 2);
	qa = pair_new_qp(&p.a, WQE_QPT_RC, NULL, NULL, 16, &o);
	qb = pair_new_qp(&p.b, WQE_QPT_RC, NULL, small, 16, &o);
	CHECK(small && qa && qb);
	CHECK_EQ(pair_connect_qp(qa, WQE_QPT_RC, 2, wqe_qp_num(qb), WQE_MTU_1024, &o, WQE_QPS_RTS,
				 PAIR_PSN, PAIR_PSN),
		 0);
	CHECK_EQ(pair_connect_qp(qb, WQE_QPT_RC, 1, wqe_qp_num(qa), WQE_MTU_1024, &o, WQE_QPS_RTS,
				 PAIR_PSN, PAIR_PSN),
		 0);
	for (uint64_t i = 0; i < 3; i++) {
		struct wqe_sge r = {(uint64_t)(uintptr_t)(bb + i * 1024), 1024, bm->lkey};
		struct wqe_recv_wr rw = {.wr_id = i, .sg_list = &r, .num_sge = 1}, *rbad;

		CHECK_EQ(wqe_post_recv(qb, &rw, &rbad), 0);
	}
	s = (struct wqe_sge){(uint64_t)(uintptr_t)ab, 64, am->lkey};
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 3; i++) {
		w[i].wr_id = 10 + (uint64_t)i;
		w[i].sg_list = &s;
		w[i].num_sge = 1;
		w[i].opcode = WQE_WR_SEND;
		w[i].send_flags = WQE_SEND_SIGNALED;
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	CHECK_EQ(wqe_post_send(qa, w, &bad), 0);
	CHECK_EQ(pair_wait_time(&p, p.a.scq, 3, wc, 5.0), 3);
	CHECK_EQ(wc[0].wr_id, 10);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[1].wr_id, 11);
	CHECK_EQ(wc[1].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[2].wr_id, 12);
	CHECK_EQ(wc[2].status, WQE_WC_RETRY_EXC_ERR);
	CHECK_EQ(wqe_poll_cq(small, 4, wc), 2); /* the two that fitted */
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[1].status, WQE_WC_SUCCESS);
	CHECK_EQ(state(qb), WQE_QPS_ERR);
	CHECK_EQ(wqe_destroy_qp(qa), 0);
	CHECK_EQ(wqe_destroy_qp(qb), 0);
	CHECK_EQ(wqe_destroy_cq(small), 0);
	pair_free_bufs(ab, bb, am, bm);
	pair_close(&p);
}

/* A READ over a lossy link: lost responses are retried and the READ
 * completes with the right bytes. */
static void test_read_lost(void)
{
	struct wqe_fault_cfg f = {.drop = 0.2, .seed = 11};
	struct wqe_qp_stats st;
	struct env e;
	struct wqe_sge s;
	struct wqe_send_wr w, *bad;
	struct wqe_wc wc;

	env_open(&e, WQE_QPT_RC, &f, NULL);
	for (size_t i = 0; i < 16384; i++)
		b_buf[i] = (uint8_t)(i * 13 + 1);
	memset(a_buf, 0, 16384);
	memset(&w, 0, sizeof(w));
	s = (struct wqe_sge){(uint64_t)(uintptr_t)a_buf, 16384, e.a->lkey};
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_RDMA_READ;
	w.send_flags = WQE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b_buf;
	w.wr.rdma.rkey = e.b->rkey;
	CHECK_EQ(wqe_post_send(e.p.a.qp, &w, &bad), 0);
	CHECK_EQ(pair_wait_time(&e.p, e.p.a.scq, 1, &wc, 10.0), 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_MEM(a_buf, b_buf, 16384);
	CHECK_EQ(wqe_query_qp_stats(e.p.a.qp, &st), 0);
	CHECK(st.retransmits > 0);
	env_close(&e);
}

/* 16 READs in flight, 16 response packets each (4 KiB at MTU 256), over
 * a lossy link: each go-back-N resumes a READ past its first PSN, and all
 * 16 complete with the right bytes. (Driven by the caller, a pass takes
 * every response that arrived before its requester sends again, so the
 * stale responses that once each started a retry are seen only with NIC
 * threads: exec_read_bw_fault.) */
static void test_reads_lost_in_flight(void)
{
	struct wqe_fault_cfg f = {.drop = 0.05, .seed = 7};
	struct wqe_qp_stats st;
	struct env e;
	struct wqe_sge s[16];
	struct wqe_send_wr w[16], *bad;
	struct wqe_wc wc[16];

	env_open_mtu(&e, WQE_QPT_RC, &f, NULL, WQE_MTU_256);
	for (size_t i = 0; i < sizeof(b_buf); i++)
		b_buf[i] = (uint8_t)(i * 29 + 3);
	memset(a_buf, 0, sizeof(a_buf));
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 16; i++) {
		s[i] = (struct wqe_sge){(uint64_t)(uintptr_t)(a_buf + i * 4096), 4096, e.a->lkey};
		w[i].wr_id = (uint64_t)i;
		w[i].sg_list = &s[i];
		w[i].num_sge = 1;
		w[i].opcode = WQE_WR_RDMA_READ;
		w[i].send_flags = WQE_SEND_SIGNALED;
		w[i].wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b_buf + i * 4096);
		w[i].wr.rdma.rkey = e.b->rkey;
		w[i].next = i < 15 ? &w[i + 1] : NULL;
	}
	CHECK_EQ(wqe_post_send(e.p.a.qp, w, &bad), 0);
	CHECK_EQ(pair_wait_time(&e.p, e.p.a.scq, 16, wc, 20.0), 16);
	for (int i = 0; i < 16; i++) {
		CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, (uint64_t)i);
	}
	CHECK_MEM(a_buf, b_buf, sizeof(a_buf));
	CHECK_EQ(wqe_query_qp_stats(e.p.a.qp, &st), 0);
	CHECK(st.retransmits > 0);
	env_close(&e);
}

int main(void)
{
	test_rem_access();
	test_rem_inv_req();
	test_rem_op();
	test_rnr_exhausted();
	test_dead_link(3);
	test_dead_link(7);
	test_dead_link_many();
	test_sqd_drain_dead();
	test_sqd_drain();
	test_ud_too_long();
	test_empty_sge();
	test_recv_cq_overrun_ack();
	test_read_lost();
	test_reads_lost_in_flight();
	return test_finish();
}
