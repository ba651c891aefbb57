/* SPDX-License-Identifier: MIT */
/*
 * Post-time validation of wqe_post_send(): for every error path, the errno,
 * *bad_wr, that the requests before the bad one were posted (ring bytes,
 * doorbell record, doorbell register) and that the ring holds nothing of the
 * bad one or of those after it. Also: posting in ERR is accepted and
 * flushed, inline payload is copied at post time, the ring wraps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "engine/services.h"
#include "verbs/verbs_int.h"
#include "wqe/model.h"

static struct wqe_context *ctx;
static struct wqe_pd *pd, *pd2;
static struct wqe_cq *cq;
static uint8_t mem[4096];
static struct wqe_mr *mr;

static struct wqe_qp *make_qp(enum wqe_qp_type t, uint32_t max_wr, int to_rts)
{
	struct wqe_qp_init_attr ia;
	struct wqe_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = t;
	ia.cap.max_send_wr = max_wr;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 1;
	qp = wqe_create_qp(pd, &ia);
	CHECK(qp != NULL);
	if (qp && to_rts)
		CHECK_EQ(test_qp_to_rts(qp, t, 0x33, WQE_MTU_1024), 0);
	return qp;
}

static void wr_init(struct wqe_send_wr *wr, struct wqe_sge *sge, enum wqe_wr_opcode op,
		    uint64_t id)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uint64_t)(uintptr_t)mem;
	sge->length = 64;
	sge->lkey = mr->lkey;
	wr->wr_id = id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = op;
	wr->send_flags = WQE_SEND_SIGNALED;
	wr->wr.rdma.remote_addr = 0x1000;
	wr->wr.rdma.rkey = 0x1234;
}

/* Expected ring after posting @n good requests: encode them into a copy. */
static void expect_ring(struct wqe_qp *qp, struct wqe_send_wr *wrs, int n, uint8_t *exp,
			uint32_t start_pi)
{
	struct wqe_encode_qp eqp = {qp->qpc.type, qp->qpc.qpn, qp->cap.max_send_sge,
				    qp->cap.max_inline_data, qp->qpc.sq_sig_all};
	struct wqe_ring_view v = {exp, qp->sq.nblocks};
	uint32_t pi = start_pi, nb;

	for (int i = 0; i < n; i++) {
		CHECK_EQ(wqe_encode(qp->qpc.format, &eqp, &wrs[i], &v, pi, pi, &nb), 0);
		pi += nb;
	}
}

/* Posts [good, good, BAD, good] and checks the whole contract. */
static void check_bad(struct wqe_qp *qp, struct wqe_send_wr *bad, int expect_err)
{
	struct wqe_send_wr wrs[4], *badp = NULL;
	struct wqe_sge sges[4];
	size_t ring_bytes = (size_t)qp->sq.nblocks * 64u;
	uint8_t *before = malloc(ring_bytes), *exp = malloc(ring_bytes);
	uint32_t pi0 = qp->sq.pi;
	uint64_t db0 = qp->context->nic->db.writes;
	enum wqe_wr_opcode good = qp->qpc.type == WQE_QPT_UD ? WQE_WR_SEND : WQE_WR_RDMA_WRITE;
	struct wqe_ah_attr aa;
	struct wqe_ah *ah = NULL;

	if (qp->qpc.type == WQE_QPT_UD) {
		memset(&aa, 0, sizeof(aa));
		aa.port_num = 1;
		ah = wqe_create_ah(pd, &aa);
	}
	for (int i = 0; i < 4; i++) {
		wr_init(&wrs[i], &sges[i], good, 100 + (uint64_t)i);
		if (ah)
			wrs[i].wr.ud.ah = ah;
		wrs[i].next = i < 3 ? &wrs[i + 1] : NULL;
	}
	wrs[2] = *bad;
	wrs[2].next = &wrs[3];
	memcpy(before, qp->sq.buf, ring_bytes);
	memcpy(exp, qp->sq.buf, ring_bytes);
	expect_ring(qp, wrs, 2, exp, pi0);

	CHECK_EQ(wqe_post_send(qp, &wrs[0], &badp), expect_err);
	CHECK(badp == &wrs[2]);
	/* The two good ones are in the ring, nothing else changed. */
	CHECK_MEM(qp->sq.buf, exp, ring_bytes);
	CHECK_EQ(atomic_load(&qp->sq.dbrec), qp->sq.pi);
	CHECK_EQ(qp->sq.pi - pi0, qp->qpc.type == WQE_QPT_UD ? 4 : 2);
	CHECK_EQ(qp->context->nic->db.writes, db0 + 1);
	/* The doorbell register got the second WQE's first 8 bytes. */
	{
		struct doorbell_reg *d = &qp->context->nic->db;
		const uint8_t *last = d->val[(d->head - 1) % DB_MAILBOX];
		uint32_t second = pi0 + (qp->qpc.type == WQE_QPT_UD ? 2u : 1u);

		CHECK_MEM(last, sq_ring_block(&qp->sq, second), 8);
	}
	free(before);
	free(exp);
	if (ah)
		wqe_destroy_ah(ah);
}

static void test_errors(void)
{
	struct wqe_qp *rc = make_qp(WQE_QPT_RC, 64, 1), *uc = make_qp(WQE_QPT_UC, 64, 1);
	struct wqe_qp *ud = make_qp(WQE_QPT_UD, 64, 1);
	struct wqe_send_wr w;
	struct wqe_sge s[3];
	struct wqe_ah_attr aa;
	struct wqe_ah *ah2;

	/* opcode illegal on the transport, or unknown */
	wr_init(&w, s, WQE_WR_RDMA_READ, 1);
	check_bad(uc, &w, EINVAL);
	wr_init(&w, s, WQE_WR_SEND_WITH_INV, 1);
	check_bad(uc, &w, EINVAL);
	wr_init(&w, s, WQE_WR_ATOMIC_CMP_AND_SWP, 1);
	s[0].length = 8;
	check_bad(uc, &w, EINVAL);
	wr_init(&w, s, WQE_WR_RDMA_WRITE, 1);
	check_bad(ud, &w, EINVAL);
	wr_init(&w, s, WQE_WR_RDMA_READ, 1);
	check_bad(ud, &w, EINVAL);
	wr_init(&w, s, (enum wqe_wr_opcode)7, 1);
	check_bad(rc, &w, EINVAL);
	/* num_sge */
	wr_init(&w, s, WQE_WR_SEND, 1);
	w.num_sge = 3;
	check_bad(rc, &w, EINVAL);
	w.num_sge = -1;
	check_bad(rc, &w, EINVAL);
	w.num_sge = 1;
	w.sg_list = NULL;
	check_bad(rc, &w, EINVAL);
	/* total length over 2^31 */
	wr_init(&w, s, WQE_WR_SEND, 1);
	s[0].length = 0x80000000u;
	s[1] = s[0];
	s[1].length = 1;
	w.num_sge = 2;
	check_bad(rc, &w, EINVAL);
	/* inline on READ, inline over max_inline_data */
	wr_init(&w, s, WQE_WR_RDMA_READ, 1);
	w.send_flags |= WQE_SEND_INLINE;
	s[0].length = 4;
	check_bad(rc, &w, EINVAL);
	wr_init(&w, s, WQE_WR_SEND, 1);
	w.send_flags |= WQE_SEND_INLINE;
	s[0].length = rc->cap.max_inline_data + 1;
	check_bad(rc, &w, EINVAL);
	/* atomics: one SGE of 8 bytes, 8-byte aligned remote address */
	wr_init(&w, s, WQE_WR_ATOMIC_FETCH_AND_ADD, 1);
	s[0].length = 4;
	check_bad(rc, &w, EINVAL);
	s[0].length = 8;
	w.wr.atomic.remote_addr = 0x1004;
	check_bad(rc, &w, EINVAL);
	w.wr.atomic.remote_addr = 0x1000;
	s[1] = s[0];
	w.num_sge = 2;
	check_bad(rc, &w, EINVAL);
	/* UD address */
	wr_init(&w, s, WQE_WR_SEND, 1);
	w.wr.ud.ah = NULL;
	check_bad(ud, &w, EINVAL);
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	ah2 = wqe_create_ah(pd2, &aa);
	w.wr.ud.ah = ah2;
	check_bad(ud, &w, EINVAL);
	wqe_destroy_ah(ah2);
	/* unknown send flag */
	wr_init(&w, s, WQE_WR_RDMA_WRITE, 1);
	w.send_flags |= 1u << 4;
	check_bad(rc, &w, EINVAL);
	/* NULL arguments */
	{
		struct wqe_send_wr *b = NULL;

		CHECK_EQ(wqe_post_send(NULL, &w, &b), EINVAL);
		CHECK_EQ(wqe_post_send(rc, NULL, &b), EINVAL);
		CHECK_EQ(wqe_post_send(rc, &w, NULL), EINVAL);
		CHECK(b == NULL);
	}
	wqe_destroy_qp(rc);
	wqe_destroy_qp(uc);
	wqe_destroy_qp(ud);
}

static void test_state(void)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_RC, 8, 0);
	struct wqe_send_wr w, *bad = NULL;
	struct wqe_sge s;
	static const enum wqe_qp_state steps[] = {WQE_QPS_INIT, WQE_QPS_RTR};

	wr_init(&w, &s, WQE_WR_SEND, 1);
	CHECK_EQ(wqe_post_send(qp, &w, &bad), EINVAL); /* RESET */
	CHECK(bad == &w);
	for (int i = 0; i < 2; i++) {
		struct wqe_qp_attr a;
		int mask;

		test_qp_attr_for(WQE_QPT_RC, steps[i], &a, &mask, 1, WQE_MTU_1024);
		CHECK_EQ(wqe_modify_qp(qp, &a, mask), 0);
		bad = NULL;
		CHECK_EQ(wqe_post_send(qp, &w, &bad), EINVAL);
		CHECK(bad == &w);
	}
	CHECK_EQ(qp->sq.pi, 0);
	CHECK_EQ(atomic_load(&qp->sq.dbrec), 0);
	wqe_destroy_qp(qp);
}

static void test_full(void)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_RC, 4, 1);
	uint32_t n = qp->cap.max_send_wr;
	struct wqe_send_wr *w = calloc(n + 1, sizeof(*w)), *bad = NULL;
	struct wqe_sge *s = calloc(n + 1, sizeof(*s));

	/* The ring is at least WQE_MAX_BLOCKS blocks: 16 one-block WQEs. */
	CHECK_EQ(n, 16);
	for (uint32_t i = 0; i <= n; i++) {
		wr_init(&w[i], &s[i], WQE_WR_RDMA_WRITE, i);
		w[i].next = i < n ? &w[i + 1] : NULL;
	}
	CHECK_EQ(wqe_post_send(qp, &w[0], &bad), ENOMEM);
	CHECK(bad == &w[n]);
	CHECK_EQ(qp->sq.posted_wqes, n);
	bad = NULL;
	w[n].next = NULL;
	CHECK_EQ(wqe_post_send(qp, &w[n], &bad), ENOMEM);
	CHECK(bad == &w[n]);
	free(w);
	free(s);
	wqe_destroy_qp(qp);
}

/* In ERR, posts are accepted and complete with WR_FLUSH_ERR, signaled or
 * not; the ring wraps many times; wr_ids come back in order. */
static void test_err_flush_and_wrap(void)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_RC, 4, 1);
	struct wqe_qp_attr a;
	struct wqe_wc wc[8];
	uint64_t next_id = 0, seen = 0;

	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_ERR;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
	for (int round = 0; round < 50; round++) {
		struct wqe_send_wr w[3], *bad = NULL;
		struct wqe_sge s[6];
		uint32_t pi0 = qp->sq.pi;
		uint8_t exp[64 * 64];

		for (int i = 0; i < 3; i++) {
			wr_init(&w[i], &s[2 * i], WQE_WR_SEND, next_id++);
			/* Sizes vary: 1 or 2 SGEs, signaled or not. */
			s[2 * i + 1] = s[2 * i];
			w[i].num_sge = 1 + (round + i) % 2;
			w[i].send_flags = (round + i) % 3 ? WQE_SEND_SIGNALED : 0;
			w[i].next = i < 2 ? &w[i + 1] : NULL;
		}
		CHECK(qp->sq.nblocks <= 64);
		memcpy(exp, qp->sq.buf, (size_t)qp->sq.nblocks * 64u);
		expect_ring(qp, w, 3, exp, pi0);
		CHECK_EQ(wqe_post_send(qp, &w[0], &bad), 0);
		CHECK_MEM(qp->sq.buf, exp, (size_t)qp->sq.nblocks * 64u);
		for (int got; (got = wqe_poll_cq(cq, 8, wc)) > 0;)
			for (int i = 0; i < got; i++) {
				CHECK_EQ(wc[i].status, WQE_WC_WR_FLUSH_ERR);
				CHECK_EQ(wc[i].wr_id, seen);
				CHECK_EQ(wc[i].qp_num, wqe_qp_num(qp));
				CHECK_EQ(wc[i].opcode, WQE_WC_SEND);
				seen++;
			}
	}
	CHECK_EQ(seen, next_id);
	CHECK(qp->sq.pi > 4 * qp->sq.nblocks);
	wqe_destroy_qp(qp);
}

/* Inline payload is copied at post time: the buffer is reusable at once. */
static void test_inline_copy(void)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_RC, 4, 1);
	struct wqe_send_wr w, *bad = NULL;
	struct wqe_sge s;
	uint8_t payload[16];
	const uint8_t *blk;

	for (int i = 0; i < 16; i++)
		payload[i] = (uint8_t)(0xa0 + i);
	wr_init(&w, &s, WQE_WR_SEND, 7);
	s.addr = (uint64_t)(uintptr_t)payload;
	s.length = 16;
	s.lkey = 0xdeadbe00; /* never checked for inline data */
	w.send_flags |= WQE_SEND_INLINE;
	CHECK_EQ(wqe_post_send(qp, &w, &bad), 0);
	memset(payload, 0, sizeof(payload));
	blk = sq_ring_block(&qp->sq, 0);
	/* ctrl (16) then inline header (4) then the bytes. */
	CHECK_EQ(blk[16], 0x80);
	CHECK_EQ(blk[19], 16);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(blk[20 + i], 0xa0 + i);
	wqe_destroy_qp(qp);
}

int main(void)
{
	ctx = wqe_open_context(NULL);
	pd = wqe_alloc_pd(ctx);
	pd2 = wqe_alloc_pd(ctx);
	cq = wqe_create_cq(ctx, 4096);
	mr = wqe_reg_mr(pd, mem, sizeof(mem), WQE_ACCESS_LOCAL_WRITE);
	CHECK(ctx && pd && pd2 && cq && mr);
	test_errors();
	test_state();
	test_full();
	test_err_flush_and_wrap();
	test_inline_copy();
	wqe_dereg_mr(mr);
	wqe_destroy_cq(cq);
	wqe_dealloc_pd(pd);
	wqe_dealloc_pd(pd2);
	CHECK_EQ(wqe_close_context(ctx), 0);
	return test_finish();
}
