/* SPDX-License-Identifier: MIT */
/* The QP state machine: IBTA transitions, required and allowed attributes,
 * range checks, and that a refused modify changes nothing. */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "wqe/verbs.h"

static struct wqe_context *ctx;
static struct wqe_pd *pd;
static struct wqe_cq *cq;

static struct wqe_qp *make_qp(enum wqe_qp_type t)
{
	struct wqe_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = t;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	return wqe_create_qp(pd, &ia);
}

static enum wqe_qp_state state_of(struct wqe_qp *qp)
{
	struct wqe_qp_attr a;

	CHECK_EQ(wqe_query_qp(qp, &a, 0, NULL), 0);
	return a.qp_state;
}

/* Every required bit of the transition to @next is needed; a bit outside
 * required|allowed is refused; then the full set succeeds. */
static void step(struct wqe_qp *qp, enum wqe_qp_type t, enum wqe_qp_state next)
{
	struct wqe_qp_attr a;
	int mask;
	enum wqe_qp_state before = state_of(qp);

	test_qp_attr_for(t, next, &a, &mask, 0x77, WQE_MTU_1024);
	for (int bit = 1; bit < 21; bit++) {
		if (!(mask & (1 << bit)))
			continue;
		CHECK_EQ(wqe_modify_qp(qp, &a, mask & ~(1 << bit)), EINVAL);
		CHECK_EQ(state_of(qp), before);
	}
	/* DEST_QPN is never allowed on UD; EN_SQD_ASYNC_NOTIFY only into SQD. */
	CHECK_EQ(wqe_modify_qp(qp, &a, mask | WQE_QP_EN_SQD_ASYNC_NOTIFY), EINVAL);
	if (t == WQE_QPT_UD)
		CHECK_EQ(wqe_modify_qp(qp, &a, mask | WQE_QP_DEST_QPN), EINVAL);
	CHECK_EQ(state_of(qp), before);
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), 0);
	CHECK_EQ(state_of(qp), next);
}

static void test_walk(enum wqe_qp_type t)
{
	struct wqe_qp *qp = make_qp(t);
	struct wqe_qp_attr a, q;
	struct wqe_qp_init_attr ia;
	int mask;

	CHECK(qp != NULL);
	CHECK_EQ(state_of(qp), WQE_QPS_RESET);
	/* Illegal jumps from RESET. */
	test_qp_attr_for(t, WQE_QPS_RTR, &a, &mask, 0x77, WQE_MTU_1024);
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	test_qp_attr_for(t, WQE_QPS_RTS, &a, &mask, 0x77, WQE_MTU_1024);
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	CHECK_EQ(state_of(qp), WQE_QPS_RESET);

	step(qp, t, WQE_QPS_INIT);
	/* INIT -> INIT is allowed with nothing. */
	a.qp_state = WQE_QPS_INIT;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
	test_qp_attr_for(t, WQE_QPS_RTS, &a, &mask, 0x77, WQE_MTU_1024);
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL); /* INIT -> RTS */
	step(qp, t, WQE_QPS_RTR);
	a.qp_state = WQE_QPS_INIT;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), EINVAL); /* RTR -> INIT */
	step(qp, t, WQE_QPS_RTS);

	CHECK_EQ(wqe_query_qp(qp, &q, 0, &ia), 0);
	CHECK_EQ(q.sq_psn, 0x100);
	CHECK_EQ(ia.qp_type, t);
	if (t != WQE_QPT_UD) {
		CHECK_EQ(q.dest_qp_num, 0x77);
		CHECK_EQ(q.rq_psn, 0x100);
		CHECK_EQ(q.path_mtu, WQE_MTU_1024);
		CHECK_EQ(q.ah_attr.grh.dgid.raw[15], 2);
		CHECK_EQ(q.ah_attr.dmac[5], 2);
		CHECK(q.ah_attr.udp_sport >= 0xc000);
		CHECK_EQ(q.qp_access_flags, WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ |
						    WQE_ACCESS_REMOTE_ATOMIC);
	} else {
		CHECK_EQ(q.qkey, 0x11111111);
	}
	if (t == WQE_QPT_RC) {
		CHECK_EQ(q.timeout, 14);
		CHECK_EQ(q.retry_cnt, 7);
		CHECK_EQ(q.rnr_retry, 7);
		CHECK_EQ(q.max_rd_atomic, 4);
		CHECK_EQ(q.max_dest_rd_atomic, 4);
		CHECK_EQ(q.min_rnr_timer, 12);
	}

	/* RTS -> RTS with an allowed attribute; with a disallowed one. */
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTS;
	a.cur_qp_state = WQE_QPS_RTS;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_CUR_STATE), 0);
	a.cur_qp_state = WQE_QPS_RTR;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_CUR_STATE), EINVAL);
	a.sq_psn = 5;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_SQ_PSN), EINVAL);
	CHECK_EQ(wqe_query_qp(qp, &q, 0, NULL), 0);
	CHECK_EQ(q.sq_psn, 0x100);

	/* RTS -> SQD -> RTS. */
	a.qp_state = WQE_QPS_SQD;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_EN_SQD_ASYNC_NOTIFY), 0);
	CHECK_EQ(state_of(qp), WQE_QPS_SQD);
	a.qp_state = WQE_QPS_RTS;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);

	/* SQE -> RTS is refused on RC (it never enters SQE); any -> ERR. */
	a.qp_state = WQE_QPS_ERR;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_SQ_PSN), EINVAL);
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
	CHECK_EQ(state_of(qp), WQE_QPS_ERR);
	a.qp_state = WQE_QPS_RTS;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), EINVAL);
	a.qp_state = WQE_QPS_RESET;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
	CHECK_EQ(state_of(qp), WQE_QPS_RESET);
	CHECK_EQ(wqe_destroy_qp(qp), 0);
}

static void test_ranges(void)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_RC);
	struct wqe_qp_attr a;
	int mask;

	test_qp_attr_for(WQE_QPT_RC, WQE_QPS_INIT, &a, &mask, 1, WQE_MTU_1024);
	a.port_num = 2;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.port_num = 1;
	a.pkey_index = 1;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.pkey_index = 0;
	a.qp_access_flags = 0x40;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	CHECK_EQ(state_of(qp), WQE_QPS_RESET);
	CHECK_EQ(wqe_modify_qp(qp, &a, mask & ~WQE_QP_STATE), EINVAL); /* RESET -> RESET */
	test_qp_attr_for(WQE_QPT_RC, WQE_QPS_INIT, &a, &mask, 1, WQE_MTU_1024);
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), 0);

	test_qp_attr_for(WQE_QPT_RC, WQE_QPS_RTR, &a, &mask, 1, WQE_MTU_1024);
	a.path_mtu = (enum wqe_mtu)6;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.path_mtu = WQE_MTU_4096;
	a.rq_psn = 0x1000000;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.rq_psn = 0;
	a.dest_qp_num = 0x1000000;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.dest_qp_num = 1;
	a.max_dest_rd_atomic = 17;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 32;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.min_rnr_timer = 0;
	a.ah_attr.grh.sgid_index = 3;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.ah_attr.grh.sgid_index = 0;
	a.ah_attr.grh.flow_label = 0x100000;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.ah_attr.grh.flow_label = 0;
	CHECK_EQ(state_of(qp), WQE_QPS_INIT);
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), 0);

	test_qp_attr_for(WQE_QPT_RC, WQE_QPS_RTS, &a, &mask, 1, WQE_MTU_1024);
	a.timeout = 32;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.timeout = 0;
	a.retry_cnt = 8;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.retry_cnt = 0;
	a.rnr_retry = 8;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.rnr_retry = 0;
	a.max_rd_atomic = 17;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	a.max_rd_atomic = 0;
	a.sq_psn = 0x1000000;
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), EINVAL);
	CHECK_EQ(state_of(qp), WQE_QPS_RTR);
	CHECK_EQ(wqe_modify_qp(NULL, &a, mask), EINVAL);
	CHECK_EQ(wqe_modify_qp(qp, NULL, mask), EINVAL);
	CHECK_EQ(wqe_modify_qp(qp, &a, 1 << 25), EINVAL);
	CHECK_EQ(wqe_destroy_qp(qp), 0);
}

static void test_sqe_uc(void)
{
	/* SQE -> RTS exists for UC and UD; ERR reachable from every state. */
	struct wqe_qp *qp = make_qp(WQE_QPT_UD);
	struct wqe_qp_attr a;

	CHECK_EQ(test_qp_to_rts(qp, WQE_QPT_UD, 0, WQE_MTU_1024), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_SQD;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
	a.qp_state = WQE_QPS_SQD;
	a.qkey = 7;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_QKEY), 0);
	a.qp_state = WQE_QPS_RTS;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_QKEY), 0);
	CHECK_EQ(wqe_destroy_qp(qp), 0);
}

int main(void)
{
	ctx = wqe_open_context(NULL);
	pd = wqe_alloc_pd(ctx);
	cq = wqe_create_cq(ctx, 64);
	CHECK(ctx && pd && cq);
	test_walk(WQE_QPT_RC);
	test_walk(WQE_QPT_UC);
	test_walk(WQE_QPT_UD);
	test_ranges();
	test_sqe_uc();
	wqe_destroy_cq(cq);
	wqe_dealloc_pd(pd);
	CHECK_EQ(wqe_close_context(ctx), 0);
	return test_finish();
}
