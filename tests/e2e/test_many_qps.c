/* SPDX-License-Identifier: MIT */
/*
 * Many QPs: 600 RC QP pairs between two contexts. Requests are posted
 * round-robin, 64 between two progress calls, so each port's queue holds
 * frames of many QPs and every doorbell batch names 64 of them: WRITEs,
 * then WRITEs and READs mixed (B's queue: WRITE and READ requests; A's:
 * ACKs and READ responses). Every completion must be SUCCESS, once per
 * request, and every byte where it belongs.
 */
#include <stdlib.h>
#include <string.h>

#include "pair.h"
#include "testutil.h"

#define NQP 600u
#define SLOT 192u /* a READ of it is one response at MTU 256 */

static struct wqe_qp *qa[NQP], *qb[NQP];
static uint8_t *a_mem, *b_mem; /* A: NQP source slots, then NQP READ slots */
static struct wqe_mr *a_mr, *b_mr;
static uint64_t expect_next[NQP]; /* the wr_id each QP completes next */

static uint8_t pattern(uint32_t qp, uint32_t round, uint32_t k)
{
	return (uint8_t)(qp * 131u + round * 29u + k * 7u + (k >> 8));
}

static uint32_t qp_index(uint32_t qpn)
{
	for (uint32_t i = 0; i < NQP; i++)
		if (wqe_qp_num(qa[i]) == qpn)
			return i;
	test_checks++;
	test_fail(__FILE__, __LINE__, "a completion names no QP of the test");
	return 0;
}

/* Round @round: QP i WRITEs its slot, or (@mixed, odd i) READs B's slot. */
static void post_round(struct pair *p, uint32_t round, int mixed)
{
	for (uint32_t i = 0; i < NQP; i++) {
		int read = mixed && (i & 1);
		struct wqe_sge s = {0};
		struct wqe_send_wr w, *bad;

		if (!read)
			for (uint32_t k = 0; k < SLOT; k++)
				a_mem[i * SLOT + k] = pattern(i, round, k);
		memset(&w, 0, sizeof(w));
		s.addr = (uint64_t)(uintptr_t)(a_mem + (read ? NQP + i : i) * SLOT);
		s.length = SLOT;
		s.lkey = a_mr->lkey;
		w.wr_id = (uint64_t)round << 32 | i;
		w.sg_list = &s;
		w.num_sge = 1;
		w.opcode = read ? WQE_WR_RDMA_READ : WQE_WR_RDMA_WRITE;
		w.send_flags = WQE_SEND_SIGNALED;
		w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b_mem + i * SLOT);
		w.wr.rdma.rkey = b_mr->rkey;
		CHECK_EQ(wqe_post_send(qa[i], &w, &bad), 0);
		expect_next[i] = w.wr_id;
		if (i % 64 == 63)
			wqe_progress(p->a.ctx);
	}
}

/* Every request of @round completes once, SUCCESS, on its own QP. */
static void complete_round(struct pair *p, uint32_t round)
{
	static struct wqe_wc wc[NQP];
	static uint8_t seen[NQP];
	int n = pair_wait(p, p->a.scq, (int)NQP, wc, 20000);

	CHECK_EQ(n, (int)NQP);
	memset(seen, 0, sizeof(seen));
	for (int j = 0; j < n; j++) {
		uint32_t i = qp_index(wc[j].qp_num);

		CHECK_EQ(wc[j].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[j].wr_id, expect_next[i]);
		CHECK_EQ(wc[j].wr_id >> 32, round);
		CHECK_EQ(seen[i], 0);
		seen[i] = 1;
	}
	pair_spin(p, 5);
	CHECK_EQ(wqe_poll_cq(p->a.scq, 1, wc), 0); /* nothing more */
}

int main(void)
{
	struct pair_opts o = pair_defaults;
	struct pair p;
	uint32_t i;

	/* 4.3 s: a progress call over 600 QPs takes more than the default
	 * 1 ms under ASan or valgrind, and the lossless run must not time out. */
	o.timeout = 20;
	CHECK_EQ(pair_open_opts(&p, WQE_QPT_RC, WQE_MTU_256, NULL, 16, &o), 0);
	CHECK_EQ(pair_reg_bufs(&p, 2 * NQP * SLOT, &a_mem, &b_mem, &a_mr, &b_mr), 0);
	qa[0] = p.a.qp;
	qb[0] = p.b.qp;
	for (i = 1; i < NQP; i++)
		CHECK_EQ(pair_extra(&p, WQE_MTU_256, 16, &o, &qa[i], &qb[i]), 0);

	/* WRITEs only. */
	post_round(&p, 1, 0);
	complete_round(&p, 1);
	for (i = 0; i < NQP; i++)
		CHECK_MEM(b_mem + i * SLOT, a_mem + i * SLOT, SLOT);

	/* Even QPs WRITE round 2's bytes, odd ones READ round 1's back. */
	post_round(&p, 2, 1);
	complete_round(&p, 2);
	for (i = 0; i < NQP; i++) {
		const uint8_t *b = b_mem + i * SLOT;

		for (uint32_t k = 0; k < SLOT; k++)
			CHECK_EQ(b[k], pattern(i, i & 1 ? 1 : 2, k));
		if (i & 1)
			CHECK_MEM(a_mem + (NQP + i) * SLOT, b, SLOT);
	}

	for (i = 1; i < NQP; i++) {
		CHECK_EQ(wqe_destroy_qp(qa[i]), 0);
		CHECK_EQ(wqe_destroy_qp(qb[i]), 0);
	}
	pair_free_bufs(a_mem, b_mem, a_mr, b_mr);
	pair_close(&p);
	return test_finish();
}
