/* SPDX-License-Identifier: MIT */
/*
 * wqe_post_send() writes the bytes wqe_encode() writes: random requests of
 * every shape (operation, 0 to 3 SGEs with empty ones among them, inline
 * or not, flags, immediates, atomics, UD addresses), on RC, UC and UD, in
 * both formats and under both check policies, posted one by one and in
 * chains across the end of the ring. The post path has its own mlx5 writer
 * loop; this holds it to the encoder byte for byte, and holds a refused
 * request to writing nothing. Some requests are made bad on purpose (flag
 * bits, too many SGEs, no SGE list, an address handle of another PD, a
 * remote QPN over 24 bits, a misaligned atomic): each chain also goes to a
 * twin QP whose common-shape fast path is switched off, and both must give
 * the same verdict (errno and bad_wr) and post the same number of WQEs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "verbs/verbs_int.h"
#include "wqe/link.h"
#include "wqe/model.h"

#define CHAIN 4

static uint8_t mem[4096];

static const enum wqe_wr_opcode all_ops[] = {
	WQE_WR_SEND,	  WQE_WR_SEND_WITH_IMM,	      WQE_WR_SEND_WITH_INV,
	WQE_WR_RDMA_WRITE, WQE_WR_RDMA_WRITE_WITH_IMM, WQE_WR_RDMA_READ,
	WQE_WR_ATOMIC_CMP_AND_SWP, WQE_WR_ATOMIC_FETCH_AND_ADD,
};

static struct wqe_ah *other_pd_ah; /* an address handle of another PD */

/* Makes @w bad in one of the ways post time must refuse, now and then. */
static void maybe_spoil(struct test_rng *r, const struct wqe_qp *qp, struct wqe_send_wr *w)
{
	switch (test_rng_below(r, 24)) {
	case 0:
		w->send_flags |= 1u << (4 + test_rng_below(r, 12)); /* unknown flag */
		break;
	case 1:
		w->num_sge = (int)qp->cap.max_send_sge + 1;
		break;
	case 2:
		if (w->num_sge)
			w->sg_list = NULL;
		break;
	case 3:
		if (qp->qpc.type == WQE_QPT_UD)
			w->wr.ud.ah = other_pd_ah;
		break;
	case 4:
		if (qp->qpc.type == WQE_QPT_UD)
			w->wr.ud.remote_qpn = 1u << 24;
		break;
	case 5:
		if (w->opcode == WQE_WR_ATOMIC_CMP_AND_SWP || w->opcode == WQE_WR_ATOMIC_FETCH_AND_ADD)
			w->wr.atomic.remote_addr |= 4;
		break;
	case 6:
		w->opcode = (enum wqe_wr_opcode)(20 + test_rng_below(r, 10)); /* no such opcode */
		break;
	default:
		break;
	}
}

static void random_wr(struct test_rng *r, const struct wqe_qp *qp, struct wqe_ah *ah,
		      struct wqe_send_wr *w, struct wqe_sge *sge)
{
	enum wqe_wr_opcode op = all_ops[test_rng_below(r, 8)];
	bool atomic = op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
	int n = (int)test_rng_below(r, qp->cap.max_send_sge + 1);

	memset(w, 0, sizeof(*w));
	w->wr_id = test_rng_next(r);
	w->opcode = op;
	w->sg_list = sge;
	w->send_flags = (unsigned int)test_rng_below(r, 8); /* FENCE, SIGNALED, SOLICITED */
	if (atomic)
		n = 1;
	for (int i = 0; i < n; i++) {
		uint32_t len = test_rng_below(r, 4) == 0 ? 0 : (uint32_t)test_rng_below(r, 40);

		sge[i].addr = (uint64_t)(uintptr_t)(mem + test_rng_below(r, 1024));
		sge[i].length = atomic ? 8 : len;
		sge[i].lkey = (uint32_t)test_rng_next(r);
	}
	w->num_sge = n;
	if (!atomic && op != WQE_WR_RDMA_READ && test_rng_below(r, 3) == 0)
		w->send_flags |= WQE_SEND_INLINE;
	w->imm_data = (uint32_t)test_rng_next(r);
	if (qp->qpc.type == WQE_QPT_UD && (op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM)) {
		w->wr.ud.ah = ah;
		w->wr.ud.remote_qpn = (uint32_t)test_rng_below(r, 1u << 24);
		w->wr.ud.remote_qkey = (uint32_t)test_rng_next(r);
	} else if (atomic) {
		w->wr.atomic.remote_addr = test_rng_next(r) & ~7ull;
		w->wr.atomic.compare_add = test_rng_next(r);
		w->wr.atomic.swap = test_rng_next(r);
		w->wr.atomic.rkey = (uint32_t)test_rng_next(r);
	} else {
		w->wr.rdma.remote_addr = test_rng_next(r);
		w->wr.rdma.rkey = (uint32_t)test_rng_next(r);
	}
	maybe_spoil(r, qp, w);
}

/* Posts a chain of @n random requests and checks the ring against
 * wqe_encode() of the requests that were accepted. */
static void one_chain(struct test_rng *r, struct wqe_qp *qp, struct wqe_qp *twin,
		      struct wqe_ah *ah, int n)
{
	static struct wqe_sge sges[CHAIN][WQE_DESC_MAX_SGE];
	struct wqe_send_wr w[CHAIN], *bad = NULL;
	struct wqe_ring_view v;
	size_t bytes = (size_t)qp->sq.nblocks * 64u;
	uint8_t *exp = malloc(bytes);
	uint32_t pi = qp->sq.pi, nb;
	int err, k;

	for (k = 0; k < n; k++) {
		random_wr(r, qp, ah, &w[k], sges[k]);
		w[k].next = k + 1 < n ? &w[k + 1] : NULL;
	}
	memcpy(exp, qp->sq.buf, bytes);
	v.buf = exp;
	v.nblocks = qp->sq.nblocks;
	{
		/* The twin, general path only: the same verdict. */
		struct wqe_send_wr *tbad = NULL;
		uint32_t tpi = twin->sq.pi;
		int terr = wqe_post_send(twin, &w[0], &tbad);

		err = wqe_post_send(qp, &w[0], &bad);
		CHECK_EQ(err, terr);
		if (err && terr)
			CHECK_EQ(bad - &w[0], tbad - &w[0]);
		CHECK_EQ(qp->sq.pi - pi, twin->sq.pi - tpi);
	}
	/* Every request before the bad one (or all) is in the ring. */
	for (k = 0; k < n && (err == 0 || &w[k] != bad); k++) {
		CHECK_EQ(wqe_encode(qp->qpc.format, &qp->eqp, &w[k], &v, pi, pi, &nb), 0);
		CHECK_EQ(qp->sq_wrid[pi & (qp->sq.nblocks - 1)], w[k].wr_id);
		pi += nb;
	}
	CHECK(err == 0 || err == EINVAL);
	if (err)
		CHECK(bad >= &w[0] && bad < &w[n]);
	CHECK_EQ(qp->sq.pi, pi);
	CHECK_MEM(qp->sq.buf, exp, bytes);
	free(exp);
}

static void run(enum wqe_format fmt, enum wqe_check_policy policy, struct test_rng *r)
{
	struct wqe_context_attr ca = {.format = fmt, .checks = policy,
				      .mac = {0x02, 0, 0, 0, 0, 0x01}};
	struct wqe_context *ctx = wqe_open_context(&ca);
	struct wqe_pd *pd = ctx ? wqe_alloc_pd(ctx) : NULL;
	struct wqe_cq *cq = pd ? wqe_create_cq(ctx, 4096) : NULL;
	struct wqe_ah_attr aa;
	struct wqe_ah *ah;
	struct wqe_pd *pd2;
	struct wqe_wc wc[16];

	CHECK(cq != NULL);
	if (!cq)
		return;
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.sl = 5;
	aa.udp_sport = 0xc321;
	aa.grh.flow_label = 0x12345;
	aa.grh.hop_limit = 7;
	aa.grh.traffic_class = 0x28;
	aa.dmac[0] = 0x02;
	aa.dmac[5] = 0x09;
	aa.grh.dgid.raw[15] = 9;
	ah = wqe_create_ah(pd, &aa);
	CHECK(ah != NULL);
	pd2 = wqe_alloc_pd(ctx);
	CHECK(pd2 != NULL);
	other_pd_ah = pd2 ? wqe_create_ah(pd2, &aa) : NULL;
	CHECK(other_pd_ah != NULL);
	for (enum wqe_qp_type t = WQE_QPT_RC; t <= WQE_QPT_UD; t++) {
		struct wqe_qp_init_attr ia;
		struct wqe_qp_attr a;
		struct wqe_qp *qp, *twin;

		memset(&ia, 0, sizeof(ia));
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = t;
		ia.cap.max_send_wr = 8;
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 3;
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = 60;
		qp = wqe_create_qp(pd, &ia);
		twin = wqe_create_qp(pd, &ia);
		CHECK(qp != NULL && twin != NULL);
		if (!qp || !twin)
			continue;
		CHECK_EQ(test_qp_to_rts(qp, t, 0x33, WQE_MTU_1024), 0);
		CHECK_EQ(test_qp_to_rts(twin, t, 0x34, WQE_MTU_1024), 0);
		/* In ERR every posted WQE is flushed: the ring keeps emptying
		 * with no link, whatever the transport. */
		memset(&a, 0, sizeof(a));
		a.qp_state = WQE_QPS_ERR;
		CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
		CHECK_EQ(wqe_modify_qp(twin, &a, WQE_QP_STATE), 0);
		/* The twin takes the general path for every request. */
		for (unsigned i = 0; i < CATALOG_WR_SLOTS; i++)
			twin->post_op[i].shape = POST_SHAPE_NONE;
		for (int i = 0; i < 3000; i++) {
			one_chain(r, qp, twin, ah, 1 + (int)test_rng_below(r, CHAIN));
			while (wqe_progress(ctx) > 0 || wqe_poll_cq(cq, 16, wc) > 0)
				;
		}
		CHECK(qp->sq.pi > 8 * qp->sq.nblocks); /* wrapped many times */
		wqe_destroy_qp(qp);
		wqe_destroy_qp(twin);
	}
	wqe_destroy_ah(ah);
	wqe_destroy_ah(other_pd_ah);
	wqe_dealloc_pd(pd2);
	wqe_destroy_cq(cq);
	wqe_dealloc_pd(pd);
	wqe_close_context(ctx);
}

int main(void)
{
	struct test_rng r;

	test_rng_seed(&r, 0x706f7374u);
	for (int i = 0; i < (int)sizeof(mem); i++)
		mem[i] = (uint8_t)(i * 7 + 1);
	run(WQE_FORMAT_MLX5, WQE_CHECKS_AT_POST, &r);
	run(WQE_FORMAT_MLX5, WQE_CHECKS_IN_ENGINE, &r);
	run(WQE_FORMAT_RXE, WQE_CHECKS_AT_POST, &r);
	run(WQE_FORMAT_RXE, WQE_CHECKS_IN_ENGINE, &r);
	return test_finish();
}
