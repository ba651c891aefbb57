/* SPDX-License-Identifier: MIT */
/* wqe_post_recv(): receive WQE bytes, every error path with *bad_wr, the
 * queue-full limit, and flushing in ERR. */
#include <errno.h>
#include <string.h>

#include "common/bytes.h"
#include "testutil.h"
#include "verbs/verbs_int.h"

static struct wqe_context *ctx;
static struct wqe_pd *pd;
static struct wqe_cq *cq;

static struct wqe_qp *make_qp(void)
{
	struct wqe_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = WQE_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 3;
	return wqe_create_qp(pd, &ia);
}

int main(void)
{
	struct wqe_qp *qp;
	struct wqe_recv_wr r[6], *bad = NULL;
	struct wqe_sge s[3] = {{0x1000, 10, 0x201}, {0x2000, 20, 0x302}, {0x3000, 30, 0x403}};
	struct wqe_qp_attr a;
	struct wqe_wc wc[8];
	const uint8_t *slot;
	int n;

	ctx = wqe_open_context(NULL);
	pd = wqe_alloc_pd(ctx);
	cq = wqe_create_cq(ctx, 64);
	qp = make_qp();
	CHECK(qp != NULL);
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 6; i++) {
		r[i].wr_id = 50 + (uint64_t)i;
		r[i].sg_list = s;
		r[i].num_sge = 1 + i % 3;
		r[i].next = i < 5 ? &r[i + 1] : NULL;
	}
	/* RESET refuses. */
	CHECK_EQ(wqe_post_recv(qp, &r[0], &bad), EINVAL);
	CHECK(bad == &r[0]);
	CHECK_EQ(qp->rq.pi, 0);
	a.qp_state = WQE_QPS_INIT;
	{
		int mask;

		test_qp_attr_for(WQE_QPT_RC, WQE_QPS_INIT, &a, &mask, 1, WQE_MTU_1024);
		CHECK_EQ(wqe_modify_qp(qp, &a, mask), 0);
	}
	/* A bad one in the middle: the first two are posted. */
	r[2].num_sge = 4;
	bad = NULL;
	CHECK_EQ(wqe_post_recv(qp, &r[0], &bad), EINVAL);
	CHECK(bad == &r[2]);
	CHECK_EQ(qp->rq.pi, 2);
	CHECK_EQ(atomic_load(&qp->rq.dbrec), 2);
	slot = rq_ring_slot(&qp->rq, 1);
	/* Slot 1: two data segments, then the end marker (lkey 0x100). */
	CHECK_EQ(get_be32(slot), 10);
	CHECK_EQ(get_be32(slot + 4), 0x201);
	CHECK_EQ(get_be64(slot + 8), 0x1000);
	CHECK_EQ(get_be32(slot + 16), 20);
	CHECK_EQ(get_be32(slot + 20), 0x302);
	CHECK_EQ(get_be64(slot + 24), 0x2000);
	CHECK_EQ(get_be32(slot + 36), 0x100);
	/* Nothing of the bad one: slot 2 is still zero. */
	for (int i = 0; i < (int)qp->rq.stride; i++)
		CHECK_EQ(rq_ring_slot(&qp->rq, 2)[i], 0);
	r[2].num_sge = -1;
	bad = NULL;
	CHECK_EQ(wqe_post_recv(qp, &r[2], &bad), EINVAL);
	CHECK(bad == &r[2]);
	r[2].num_sge = 1;
	r[2].sg_list = NULL;
	CHECK_EQ(wqe_post_recv(qp, &r[2], &bad), EINVAL);
	r[2].sg_list = s;
	/* Over 2^31 in total. */
	{
		struct wqe_sge big[2] = {{0, 0x80000000u, 1}, {0, 1, 1}};
		struct wqe_recv_wr rb = {.wr_id = 1, .sg_list = big, .num_sge = 2};

		bad = NULL;
		CHECK_EQ(wqe_post_recv(qp, &rb, &bad), EINVAL);
		CHECK(bad == &rb);
	}
	/* Full: max_recv_wr is 4, two are posted. */
	bad = NULL;
	CHECK_EQ(wqe_post_recv(qp, &r[2], &bad), ENOMEM);
	CHECK(bad == &r[4]);
	CHECK_EQ(qp->rq.pi, 4);
	/* ERR flushes all four, in order. */
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_ERR;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
	n = wqe_poll_cq(cq, 8, wc);
	CHECK_EQ(n, 4);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(wc[i].status, WQE_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[i].opcode, WQE_WC_RECV);
		CHECK_EQ(wc[i].wr_id, 50 + (uint64_t)i);
	}
	/* Still accepted in ERR, and flushed. */
	r[5].next = NULL;
	CHECK_EQ(wqe_post_recv(qp, &r[5], &bad), 0);
	CHECK_EQ(wqe_poll_cq(cq, 8, wc), 1);
	CHECK_EQ(wc[0].wr_id, 55);
	CHECK_EQ(wqe_post_recv(NULL, &r[5], &bad), EINVAL);
	CHECK_EQ(wqe_destroy_qp(qp), 0);
	wqe_destroy_cq(cq);
	wqe_dealloc_pd(pd);
	CHECK_EQ(wqe_close_context(ctx), 0);
	return test_finish();
}
