/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues end to end (wqe_create_srq() and the calls after
 * it), in each format:
 *   - four RC QP pairs whose receivers share one SRQ: SENDs of 1 to 3
 *     packets from all four at once, 64 rounds, every WQE given back as
 *     its completion is polled (so mlx5's free list is used out of order):
 *     each completion names its QP, carries the wr_id of the buffer its
 *     bytes are in, and the bytes are the message's;
 *   - the same over UC with 10 % of the frames dropped: abandoned
 *     messages keep their WQE for the QP's next; at the end, every WQE
 *     posted is accounted for (completed, flushed when the QPs go to ERR,
 *     or still in the SRQ, which a new QP then drains exactly);
 *   - an empty SRQ is an RNR condition (RC): the SEND completes once a WQE
 *     is posted;
 *   - the limit: armed, it fires SRQ_LIMIT_REACHED once (element.srq),
 *     and query shows it disarmed; QP_LAST_WQE_REACHED when a QP of the
 *     SRQ goes to ERR, with no WQE of the SRQ flushed;
 *   - UD QPs on an SRQ (the GRH area first in the buffer);
 *   - misuse: EINVAL and ENOMEM with *bad_wr, EBUSY while a QP uses it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair.h"
#include "testutil.h"

#define NQ 4
#define BUF 4096u
#define NBUF 64u

struct srq_env {
	struct pair p;
	struct wqe_srq *srq;
	struct wqe_qp *qa[NQ], *qb[NQ];
	uint8_t *a_mem, *b_mem;
	struct wqe_mr *a_mr, *b_mr;
	uint32_t max_wr;
};

static struct srq_env env;

static int post_buf(struct srq_env *e, uint32_t i)
{
	struct wqe_sge s = {.addr = (uint64_t)(uintptr_t)(e->b_mem + i * BUF),
			    .length = BUF,
			    .lkey = e->b_mr->lkey};
	struct wqe_recv_wr r = {.wr_id = 0x5000 + i, .sg_list = &s, .num_sge = 1}, *bad;

	return wqe_post_srq_recv(e->srq, &r, &bad);
}

/* The pair (its contexts, PDs, CQs), an SRQ on B's side with @nbuf WQEs
 * posted, NQ QPs of @t on A and on B's SRQ, connected. */
static void open_env(struct srq_env *e, enum wqe_qp_type t, const struct wqe_fault_cfg *f,
		     uint32_t nbuf)
{
	struct wqe_srq_init_attr sa = {.attr = {.max_wr = NBUF, .max_sge = 2}};

	memset(e, 0, sizeof(*e));
	CHECK_EQ(pair_open(&e->p, t, WQE_MTU_1024, f, 64), 0);
	CHECK_EQ(pair_reg_bufs(&e->p, (size_t)NBUF * BUF, &e->a_mem, &e->b_mem, &e->a_mr, &e->b_mr),
		 0);
	sa.srq_context = e;
	e->srq = wqe_create_srq(e->p.b.pd, &sa);
	CHECK(e->srq != NULL);
	if (!e->srq)
		return;
	CHECK(sa.attr.max_wr >= NBUF);
	CHECK(wqe_srq_context(e->srq) == e);
	e->max_wr = sa.attr.max_wr;
	for (uint32_t i = 0; i < nbuf; i++)
		CHECK_EQ(post_buf(e, i), 0);
	for (int q = 0; q < NQ; q++) {
		struct wqe_qp_init_attr ia = {.send_cq = e->p.b.scq, .recv_cq = e->p.b.rcq,
					      .qp_type = t, .srq = e->srq,
					      .cap = {.max_send_wr = 16, .max_send_sge = 1,
						      .max_recv_wr = 99, .max_recv_sge = 99}};

		e->qa[q] = pair_new_qp(&e->p.a, t, NULL, NULL, 64, &pair_defaults);
		e->qb[q] = wqe_create_qp(e->p.b.pd, &ia);
		CHECK(e->qa[q] && e->qb[q]);
		if (!e->qa[q] || !e->qb[q])
			return;
		CHECK_EQ(ia.cap.max_recv_wr, 0u);
		CHECK_EQ(ia.cap.max_recv_sge, 0u);
		CHECK_EQ(pair_connect_qp(e->qa[q], t, 2, wqe_qp_num(e->qb[q]), WQE_MTU_1024,
					 &pair_defaults, WQE_QPS_RTS, PAIR_PSN, PAIR_PSN),
			 0);
		CHECK_EQ(pair_connect_qp(e->qb[q], t, 1, wqe_qp_num(e->qa[q]), WQE_MTU_1024,
					 &pair_defaults, WQE_QPS_RTS, PAIR_PSN, PAIR_PSN),
			 0);
	}
}

static void close_env(struct srq_env *e)
{
	for (int q = 0; q < NQ; q++) {
		if (e->qb[q])
			CHECK_EQ(wqe_destroy_qp(e->qb[q]), 0);
		if (e->qa[q])
			CHECK_EQ(wqe_destroy_qp(e->qa[q]), 0);
	}
	if (e->srq)
		CHECK_EQ(wqe_destroy_srq(e->srq), 0);
	pair_free_bufs(e->a_mem, e->b_mem, e->a_mr, e->b_mr);
	pair_close(&e->p);
}

static uint8_t pattern(uint32_t round, int q, uint32_t k)
{
	return (uint8_t)(round * 37u + (uint32_t)q * 101u + k * 13u + (k >> 8));
}

/* QP @q of A SENDs @len bytes of round @round's pattern, from its slot. */
static void send_msg(struct srq_env *e, int q, uint32_t round, uint32_t len, uint64_t wr_id,
		     struct wqe_qp *qp, struct wqe_ah *ah)
{
	uint8_t *src = e->a_mem + (size_t)q * BUF;
	struct wqe_sge s = {.addr = (uint64_t)(uintptr_t)src, .length = len,
			    .lkey = e->a_mr->lkey};
	struct wqe_send_wr w, *bad;

	for (uint32_t k = 0; k < len; k++)
		src[k] = pattern(round, q, k);
	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND;
	w.send_flags = WQE_SEND_SIGNALED;
	if (ah) {
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = wqe_qp_num(e->qb[q]);
		w.wr.ud.remote_qkey = 0x11111111;
	}
	CHECK_EQ(wqe_post_send(qp, &w, &bad), 0);
}

static int qp_index(const struct srq_env *e, uint32_t qpn)
{
	for (int q = 0; q < NQ; q++)
		if (wqe_qp_num(e->qb[q]) == qpn)
			return q;
	return -1;
}

/* A receive completion: its buffer (by wr_id) holds round @round's
 * pattern of its QP, @len bytes after @off bytes (UD: the GRH area). */
static void check_recv(struct srq_env *e, const struct wqe_wc *wc, uint32_t round,
		       const uint32_t *len, uint32_t off)
{
	int q = qp_index(e, wc->qp_num);
	uint32_t i = (uint32_t)(wc->wr_id - 0x5000);

	CHECK(q >= 0);
	CHECK(i < NBUF);
	CHECK_EQ(wc->opcode, WQE_WC_RECV);
	if (q < 0 || i >= NBUF)
		return;
	CHECK_EQ(wc->byte_len, len[q] + off);
	for (uint32_t k = 0; k < len[q]; k++)
		if (e->b_mem[(size_t)i * BUF + off + k] != pattern(round, q, k)) {
			CHECK(!"a byte of the message is not where its completion says");
			break;
		}
}

static void test_rc_rounds(void)
{
	struct srq_env *e = &env;
	struct wqe_wc wc[NQ];

	open_env(e, WQE_QPT_RC, NULL, NBUF);
	for (uint32_t round = 0; round < 64; round++) {
		uint32_t len[NQ];
		int got = 0;

		/* 1 to 3 packets each, posted together: the QPs hold their
		 * WQEs at once and finish them in another order each round. */
		for (int q = 0; q < NQ; q++) {
			len[q] = 1 + (round * 997u + (uint32_t)q * 1543u) % 3000u;
			send_msg(e, q, round, len[q], round, e->qa[q], NULL);
		}
		while (got < NQ) {
			int n = pair_wait(&e->p, e->p.b.rcq, NQ - got, wc, 4000);

			CHECK(n > 0);
			if (n <= 0)
				break;
			for (int j = 0; j < n; j++) {
				CHECK_EQ(wc[j].status, WQE_WC_SUCCESS);
				check_recv(e, &wc[j], round, len, 0);
				/* Given back at once: mlx5's list out of order. */
				CHECK_EQ(post_buf(e, (uint32_t)(wc[j].wr_id - 0x5000)), 0);
			}
			got += n;
		}
		CHECK_EQ(pair_wait(&e->p, e->p.a.scq, NQ, wc, 4000), NQ);
		for (int q = 0; q < NQ; q++)
			CHECK_EQ(wc[q].status, WQE_WC_SUCCESS);
	}
	close_env(e);
}

/* Polls @cq for @rounds progress rounds, counting completions by status. */
static void count_cq(struct pair *p, struct wqe_cq *cq, int rounds, int *ok, int *flushed)
{
	struct wqe_wc wc[16];

	for (int r = 0; r < rounds; r++) {
		int n;

		pair_spin(p, 1);
		n = wqe_poll_cq(cq, 16, wc);
		for (int j = 0; j < n; j++) {
			if (wc[j].status == WQE_WC_SUCCESS)
				(*ok)++;
			else if (wc[j].status == WQE_WC_WR_FLUSH_ERR)
				(*flushed)++;
			else
				CHECK(!"a receive completion that is neither SUCCESS nor flushed");
		}
	}
}

static void to_err(struct wqe_qp *qp)
{
	struct wqe_qp_attr a = {.qp_state = WQE_QPS_ERR};

	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
}

static void test_uc_loss(void)
{
	const struct wqe_fault_cfg f = {.drop = 0.10, .seed = 7};
	struct srq_env *e = &env;
	int ok = 0, flushed = 0, sent = 0;
	uint32_t left;
	struct wqe_wc wc[8];

	open_env(e, WQE_QPT_UC, &f, NBUF);
	for (uint32_t round = 0; round < 12; round++) {
		for (int q = 0; q < NQ; q++, sent++)
			send_msg(e, q, round, 2500, round, e->qa[q], NULL);
		count_cq(&e->p, e->p.b.rcq, 40, &ok, &flushed);
		CHECK_EQ(pair_wait(&e->p, e->p.a.scq, NQ, wc, 4000), NQ);
	}
	CHECK(ok < sent); /* some messages were lost */
	CHECK(ok > sent / 2);
	for (int q = 0; q < NQ; q++)
		to_err(e->qb[q]);
	count_cq(&e->p, e->p.b.rcq, 10, &ok, &flushed);
	CHECK(flushed <= NQ); /* only the WQEs the QPs held */
	/* What is left in the SRQ, a new RC QP pair takes exactly. */
	left = NBUF - (uint32_t)ok - (uint32_t)flushed;
	if (getenv("SRQ_DEBUG"))
		fprintf(stderr, "sent %d ok %d flushed %d left %u\n", sent, ok, flushed, left);
	{
		struct wqe_qp_init_attr ia = {.send_cq = e->p.b.scq, .recv_cq = e->p.b.rcq,
					      .qp_type = WQE_QPT_RC, .srq = e->srq,
					      .cap = {.max_send_wr = 16, .max_send_sge = 1}};
		struct wqe_qp *b = wqe_create_qp(e->p.b.pd, &ia);
		struct wqe_qp *a = pair_new_qp(&e->p.a, WQE_QPT_RC, NULL, NULL, 128, &pair_defaults);
		struct pair_opts o = pair_defaults;
		int got = 0;

		o.rnr_retry = 0; /* one WQE too few would end in RNR_RETRY_EXC_ERR */
		CHECK(a && b);
		CHECK_EQ(pair_connect_qp(a, WQE_QPT_RC, 2, wqe_qp_num(b), WQE_MTU_1024, &o,
					 WQE_QPS_RTS, PAIR_PSN, PAIR_PSN),
			 0);
		CHECK_EQ(pair_connect_qp(b, WQE_QPT_RC, 1, wqe_qp_num(a), WQE_MTU_1024, &o,
					 WQE_QPS_RTS, PAIR_PSN, PAIR_PSN),
			 0);
		for (uint32_t i = 0; i < left; i++)
			send_msg(e, 0, 99, 100, i, a, NULL);
		while (got < (int)left) {
			int n = pair_wait_time(&e->p, e->p.a.scq, 1, wc, 5.0);

			CHECK_EQ(n, 1);
			if (n != 1)
				break;
			CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
			got++;
		}
		got = 0;
		while (got < (int)left) {
			int n = pair_wait_time(&e->p, e->p.b.rcq, 1, wc, 5.0);

			CHECK_EQ(n, 1);
			if (n != 1)
				break;
			CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
			CHECK_EQ(wc[0].qp_num, wqe_qp_num(b));
			got++;
		}
		/* And nothing more: the next one finds the SRQ empty. */
		send_msg(e, 0, 99, 100, 1000, a, NULL);
		CHECK_EQ(pair_wait_time(&e->p, e->p.a.scq, 1, wc, 5.0), 1);
		CHECK_EQ(wc[0].status, WQE_WC_RNR_RETRY_EXC_ERR);
		CHECK_EQ(wqe_destroy_qp(a), 0);
		CHECK_EQ(wqe_destroy_qp(b), 0);
	}
	close_env(e);
}

static int take_event(struct wqe_context *ctx, struct wqe_async_event *ev)
{
	int fd = wqe_context_async_fd(ctx);

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return wqe_get_async_event(ctx, ev);
}

static void test_rnr_limit_last_wqe(void)
{
	struct srq_env *e = &env;
	struct wqe_async_event ev;
	struct wqe_srq_attr sa;
	struct wqe_wc wc[NQ];
	uint32_t len[NQ] = {64, 64, 64, 64};

	open_env(e, WQE_QPT_RC, NULL, 0);
	/* Empty: RNR NAKs until a WQE comes. */
	send_msg(e, 0, 1, 64, 1, e->qa[0], NULL);
	pair_spin(&e->p, 20);
	CHECK_EQ(wqe_poll_cq(e->p.b.rcq, 1, wc), 0);
	CHECK_EQ(post_buf(e, 0), 0);
	CHECK_EQ(pair_wait_time(&e->p, e->p.b.rcq, 1, wc, 5.0), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	check_recv(e, &wc[0], 1, len, 0);
	CHECK_EQ(pair_wait_time(&e->p, e->p.a.scq, 1, wc, 5.0), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);

	/* The limit: 8 posted, armed at 6; the third take leaves 5. */
	for (uint32_t i = 0; i < 8; i++)
		CHECK_EQ(post_buf(e, i), 0);
	sa.srq_limit = 6;
	CHECK_EQ(wqe_modify_srq(e->srq, &sa, WQE_SRQ_LIMIT), 0);
	CHECK_EQ(wqe_query_srq(e->srq, &sa), 0);
	CHECK_EQ(sa.srq_limit, 6u);
	CHECK_EQ(sa.max_sge, 2u);
	for (int k = 0; k < 2; k++)
		send_msg(e, k, 2, 64, 2, e->qa[k], NULL);
	CHECK_EQ(pair_wait(&e->p, e->p.b.rcq, 2, wc, 4000), 2);
	errno = 0;
	CHECK_EQ(take_event(e->p.b.ctx, &ev), -1);
	CHECK_EQ(errno, EAGAIN);
	send_msg(e, 2, 2, 64, 2, e->qa[2], NULL);
	CHECK_EQ(pair_wait(&e->p, e->p.b.rcq, 1, wc, 4000), 1);
	CHECK_EQ(take_event(e->p.b.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, WQE_EVENT_SRQ_LIMIT_REACHED);
	CHECK(ev.element.srq == e->srq);
	CHECK_EQ(wqe_destroy_srq(e->srq), EBUSY); /* QPs, and the event */
	wqe_ack_async_event(&ev);
	CHECK_EQ(wqe_query_srq(e->srq, &sa), 0);
	CHECK_EQ(sa.srq_limit, 0u); /* fired: disarmed */
	send_msg(e, 3, 2, 64, 2, e->qa[3], NULL);
	CHECK_EQ(pair_wait(&e->p, e->p.b.rcq, 1, wc, 4000), 1);
	CHECK_EQ(take_event(e->p.b.ctx, &ev), -1); /* once */
	CHECK_EQ(pair_wait(&e->p, e->p.a.scq, 4, wc, 4000), 4);

	/* QP_LAST_WQE_REACHED, once, when a QP of the SRQ enters ERR; the
	 * SRQ's 4 WQEs left are not flushed: another QP still gets them. */
	to_err(e->qb[0]);
	pair_spin(&e->p, 5);
	CHECK_EQ(take_event(e->p.b.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, WQE_EVENT_QP_LAST_WQE_REACHED);
	CHECK(ev.element.qp == e->qb[0]);
	wqe_ack_async_event(&ev);
	CHECK_EQ(take_event(e->p.b.ctx, &ev), -1);
	CHECK_EQ(wqe_poll_cq(e->p.b.rcq, NQ, wc), 0);
	for (int k = 0; k < 4; k++)
		send_msg(e, 1, 3, 64, 3, e->qa[1], NULL);
	CHECK_EQ(pair_wait(&e->p, e->p.b.rcq, 4, wc, 4000), 4);
	for (int k = 0; k < 4; k++)
		CHECK_EQ(wc[k].status, WQE_WC_SUCCESS);
	CHECK_EQ(pair_wait(&e->p, e->p.a.scq, 4, wc, 4000), 4);
	close_env(e);
}

static void test_ud(void)
{
	struct srq_env *e = &env;
	struct wqe_ah_attr aa;
	struct wqe_ah *ah;
	struct wqe_wc wc[NQ];
	uint32_t len[NQ] = {100, 900, 1000, 1};

	open_env(e, WQE_QPT_UD, NULL, NBUF);
	pair_peer_av(&aa, 2);
	ah = wqe_create_ah(e->p.a.pd, &aa);
	CHECK(ah != NULL);
	for (int q = 0; q < NQ; q++)
		send_msg(e, q, 5, len[q], 5, e->qa[q], ah);
	CHECK_EQ(pair_wait(&e->p, e->p.b.rcq, NQ, wc, 4000), NQ);
	for (int j = 0; j < NQ; j++) {
		CHECK_EQ(wc[j].status, WQE_WC_SUCCESS);
		CHECK(wc[j].wc_flags & WQE_WC_GRH);
		check_recv(e, &wc[j], 5, len, 40);
	}
	CHECK_EQ(pair_wait(&e->p, e->p.a.scq, NQ, wc, 4000), NQ);
	CHECK_EQ(wqe_destroy_ah(ah), 0);
	close_env(e);
}

static void test_misuse(void)
{
	struct srq_env *e = &env;
	struct wqe_srq_init_attr bad = {.attr = {.max_wr = 8, .max_sge = 1, .srq_limit = 99}};
	struct wqe_sge s[4] = {{0}};
	struct wqe_recv_wr r = {.wr_id = 1, .sg_list = s, .num_sge = 3}, *badwr = NULL;
	struct wqe_srq_attr sa = {.max_wr = 100, .srq_limit = 1};
	uint32_t n;

	open_env(e, WQE_QPT_RC, NULL, 0);
	errno = 0;
	CHECK(wqe_create_srq(e->p.b.pd, &bad) == NULL);
	CHECK_EQ(errno, EINVAL);
	bad.attr.srq_limit = 0;
	bad.attr.max_sge = 0;
	CHECK(wqe_create_srq(e->p.b.pd, &bad) == NULL);
	bad.attr.max_sge = 1;
	bad.attr.max_wr = 0;
	CHECK(wqe_create_srq(e->p.b.pd, &bad) == NULL);
	CHECK(wqe_create_srq(NULL, &bad) == NULL);
	CHECK_EQ(wqe_post_srq_recv(e->srq, &r, &badwr), EINVAL); /* 3 SGEs > 2 */
	CHECK(badwr == &r);
	CHECK_EQ(wqe_post_recv(e->qb[0], &r, &badwr), EINVAL); /* a QP of an SRQ */
	CHECK_EQ(wqe_modify_srq(e->srq, &sa, WQE_SRQ_MAX_WR), EINVAL);
	sa.srq_limit = e->max_wr + 1;
	CHECK_EQ(wqe_modify_srq(e->srq, &sa, WQE_SRQ_LIMIT), EINVAL);
	CHECK_EQ(wqe_modify_srq(e->srq, &sa, 1 << 5), EINVAL);
	/* Full after max_wr: ENOMEM, and the chain stops there. */
	for (n = 0; n < e->max_wr; n++)
		CHECK_EQ(post_buf(e, n % NBUF), 0);
	CHECK_EQ(post_buf(e, 0), ENOMEM);
	CHECK_EQ(wqe_destroy_srq(e->srq), EBUSY);
	CHECK_EQ(wqe_destroy_srq(NULL), EINVAL);
	close_env(e);
}

int main(void)
{
	test_rc_rounds();
	test_uc_loss();
	test_rnr_limit_last_wqe();
	test_ud();
	test_misuse();
	return test_finish();
}
