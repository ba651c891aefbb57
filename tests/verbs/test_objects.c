/* SPDX-License-Identifier: MIT */
/* Object lifecycles: context, PD, MR, CQ, AH, QP; EBUSY; argument errors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/nic.h"
#include "testutil.h"
#include "verbs/verbs_int.h"
#include "wqe/model.h"
#include "wqe/verbs.h"

static void test_context(void)
{
	struct wqe_context_attr a, q;
	struct wqe_context *ctx;

	memset(&a, 0, sizeof(a));
	a.format = (enum wqe_format)7;
	errno = 0;
	CHECK(wqe_open_context(&a) == NULL);
	CHECK_EQ(errno, EINVAL);
	a.format = WQE_FORMAT_MLX5;
	a.num_gids = WQE_MAX_GIDS + 1;
	CHECK(wqe_open_context(&a) == NULL);
	a.num_gids = 0;
	/* qpn_base: the first QPN given, at most 0x7fffff */
	a.qpn_base = 0x800000;
	errno = 0;
	CHECK(wqe_open_context(&a) == NULL);
	CHECK_EQ(errno, EINVAL);
	a.qpn_base = 0x7fffff;
	ctx = wqe_open_context(&a);
	CHECK(ctx != NULL);
	if (ctx) {
		struct wqe_pd *pd = wqe_alloc_pd(ctx);
		struct wqe_cq *cq = wqe_create_cq(ctx, 4);
		struct wqe_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = WQE_QPT_RC,
					      .cap = {.max_send_wr = 4, .max_recv_wr = 4,
						      .max_send_sge = 1, .max_recv_sge = 1}};
		struct wqe_qp *q1 = pd && cq ? wqe_create_qp(pd, &ia) : NULL;
		struct wqe_qp *q2 = q1 ? wqe_create_qp(pd, &ia) : NULL;

		CHECK(q1 && q2);
		CHECK_EQ(q1 ? wqe_qp_num(q1) : 0, 0x7fffff);
		CHECK_EQ(q2 ? wqe_qp_num(q2) : 0, 0x800000);
		CHECK_EQ(q1 ? wqe_destroy_qp(q1) : -1, 0);
		CHECK_EQ(q2 ? wqe_destroy_qp(q2) : -1, 0);
		CHECK_EQ(wqe_destroy_cq(cq), 0);
		CHECK_EQ(wqe_dealloc_pd(pd), 0);
		CHECK_EQ(wqe_close_context(ctx), 0);
	}
	a.qpn_base = 0;
	ctx = wqe_open_context(NULL);
	CHECK(ctx != NULL);
	CHECK_EQ(wqe_query_context(ctx, &q), 0);
	CHECK_EQ(q.num_gids, 1);
	CHECK(wqe_gid_is_v4(&q.gid[0]));
	CHECK_EQ(q.gid[0].raw[12], 192);
	CHECK_EQ(q.pkey[0], 0xffff);
	CHECK_EQ(wqe_close_context(ctx), 0);
	CHECK_EQ(wqe_close_context(NULL), EINVAL);
}

/* QPNs are handed out cyclically, as rxe's pool does: a destroyed QP's
 * number comes back only after the other free ones, so a late packet for
 * it finds no QP rather than a new one. With N QPs alive the table stays
 * within 2N slots (64 at least). */
static void test_qpn_cycle(void)
{
	struct wqe_context *ctx = wqe_open_context(NULL);
	struct wqe_pd *pd = ctx ? wqe_alloc_pd(ctx) : NULL;
	struct wqe_cq *cq = pd ? wqe_create_cq(ctx, 4) : NULL;
	struct wqe_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = WQE_QPT_RC,
				      .cap = {.max_send_wr = 4, .max_recv_wr = 4,
					      .max_send_sge = 1, .max_recv_sge = 1}};
	struct wqe_qp *live[40] = {0};
	uint32_t seen[200], first = 0;
	int bad_repeat = 0, bad_range = 0;

	CHECK(cq != NULL);
	if (!cq)
		return;
	for (int k = 0; k < 200; k++) {
		struct wqe_qp *qp = wqe_create_qp(pd, &ia);

		CHECK(qp != NULL);
		if (!qp)
			break;
		seen[k] = wqe_qp_num(qp);
		if (k == 0)
			first = seen[0];
		/* one QP alive at a time: 64 slots, each number once in 64 */
		for (int j = k - 1; j >= 0 && j > k - 64; j--)
			bad_repeat += seen[j] == seen[k];
		bad_range += seen[k] < first || seen[k] >= first + 64;
		CHECK_EQ(wqe_destroy_qp(qp), 0);
	}
	CHECK_EQ(bad_repeat, 0);
	CHECK_EQ(bad_range, 0);
	CHECK_EQ(seen[64], seen[0]); /* the cycle: back after 64 */
	/* 40 alive: the table doubles to 128 at the 33rd, and numbers freed
	 * come back only once the cursor has passed them */
	for (int k = 0; k < 40; k++) {
		live[k] = wqe_create_qp(pd, &ia);
		CHECK(live[k] != NULL);
	}
	if (live[0] && live[39]) {
		uint32_t gone = wqe_qp_num(live[0]);

		CHECK_EQ(wqe_destroy_qp(live[0]), 0);
		live[0] = wqe_create_qp(pd, &ia);
		CHECK(live[0] != NULL);
		CHECK(live[0] && wqe_qp_num(live[0]) != gone);
		CHECK(live[0] && wqe_qp_num(live[0]) < first + 128);
	}
	for (int k = 0; k < 40; k++)
		if (live[k])
			CHECK_EQ(wqe_destroy_qp(live[k]), 0);
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	CHECK_EQ(wqe_dealloc_pd(pd), 0);
	CHECK_EQ(wqe_close_context(ctx), 0);
}

/* WQE_FAST_PATH: "0" off, "1" or unset on, anything else refused. */
static void test_fast_path_env(void)
{
	static const char *const bad[] = {"", "off", "00", "2", "0 ", "yes"};
	struct wqe_context *ctx;

	CHECK_EQ(setenv("WQE_FAST_PATH", "0", 1), 0);
	ctx = wqe_open_context(NULL);
	CHECK(ctx != NULL);
	CHECK(ctx && ctx->nic->no_fast_path);
	CHECK_EQ(wqe_close_context(ctx), 0);
	CHECK_EQ(setenv("WQE_FAST_PATH", "1", 1), 0);
	ctx = wqe_open_context(NULL);
	CHECK(ctx && !ctx->nic->no_fast_path);
	CHECK_EQ(wqe_close_context(ctx), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(setenv("WQE_FAST_PATH", bad[i], 1), 0);
		errno = 0;
		CHECK(wqe_open_context(NULL) == NULL);
		CHECK_EQ(errno, EINVAL);
	}
	CHECK_EQ(unsetenv("WQE_FAST_PATH"), 0);
	ctx = wqe_open_context(NULL);
	CHECK(ctx && !ctx->nic->no_fast_path);
	CHECK_EQ(wqe_close_context(ctx), 0);
}

static void test_mr(void)
{
	struct wqe_context *ctx = wqe_open_context(NULL);
	struct wqe_pd *pd = wqe_alloc_pd(ctx), *pd2 = wqe_alloc_pd(ctx);
	uint8_t buf[256];
	struct wqe_mr *mr, *mr2;

	CHECK(pd && pd2);
	errno = 0;
	CHECK(wqe_reg_mr(pd, buf, 0, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(wqe_reg_mr(pd, NULL, 16, 0) == NULL);
	CHECK(wqe_reg_mr(NULL, buf, 16, 0) == NULL);
	CHECK(wqe_reg_mr(pd, buf, 16, 0x100) == NULL);
	/* REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE. */
	CHECK(wqe_reg_mr(pd, buf, 16, WQE_ACCESS_REMOTE_WRITE) == NULL);
	CHECK(wqe_reg_mr(pd, buf, 16, WQE_ACCESS_REMOTE_ATOMIC) == NULL);
	CHECK(wqe_reg_mr(pd, (void *)(uintptr_t)(UINTPTR_MAX - 7), 16, 0) == NULL);
	mr = wqe_reg_mr(pd, buf, sizeof(buf), WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_READ);
	CHECK(mr != NULL);
	mr2 = wqe_reg_mr(pd2, buf, sizeof(buf), 0);
	CHECK(mr2 != NULL);
	if (mr && mr2) {
		CHECK(mr->lkey != mr2->lkey);
		CHECK(mr->lkey >= 0x100 && mr->lkey != 0x100);
		CHECK_EQ(mr->lkey, mr->rkey);
		CHECK(mr->addr == buf);
		CHECK_EQ(mr->length, sizeof(buf));
		CHECK(mr->pd == pd);
	}
	CHECK_EQ(wqe_dealloc_pd(pd), EBUSY);
	CHECK_EQ(wqe_close_context(ctx), EBUSY);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(mr2), 0);
	CHECK_EQ(wqe_dereg_mr(NULL), EINVAL);
	/* A re-registration of the same slot gets a different key. */
	mr = wqe_reg_mr(pd, buf, 8, 0);
	mr2 = wqe_reg_mr(pd, buf, 8, 0);
	CHECK(mr && mr2 && mr->lkey != mr2->lkey);
	wqe_dereg_mr(mr);
	wqe_dereg_mr(mr2);
	CHECK_EQ(wqe_dealloc_pd(pd), 0);
	CHECK_EQ(wqe_dealloc_pd(pd2), 0);
	CHECK_EQ(wqe_close_context(ctx), 0);
}

static void test_cq_qp(void)
{
	struct wqe_context *ctx = wqe_open_context(NULL);
	struct wqe_pd *pd = wqe_alloc_pd(ctx);
	struct wqe_cq *cq;
	struct wqe_qp_init_attr ia;
	struct wqe_qp *qp;
	struct wqe_wc wc;

	errno = 0;
	CHECK(wqe_create_cq(ctx, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(wqe_create_cq(ctx, 65537) == NULL);
	cq = wqe_create_cq(ctx, 16);
	CHECK(cq != NULL);
	CHECK_EQ(wqe_poll_cq(cq, 1, &wc), 0);
	CHECK_EQ(wqe_poll_cq(cq, -1, &wc), -EINVAL);
	CHECK_EQ(wqe_poll_cq(NULL, 1, &wc), -EINVAL);

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = WQE_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = wqe_create_qp(pd, &ia);
	CHECK(qp != NULL);
	/* The Kong et al. figure: an RC QP with one SGE holds 28 bytes inline. */
	CHECK_EQ(ia.cap.max_inline_data, 28);
	CHECK(wqe_qp_num(qp) > 1 && wqe_qp_num(qp) <= 0xffffff);
	CHECK_EQ(wqe_destroy_cq(cq), EBUSY);
	CHECK_EQ(wqe_dealloc_pd(pd), EBUSY);

	ia.qp_type = (enum wqe_qp_type)9;
	errno = 0;
	CHECK(wqe_create_qp(pd, &ia) == NULL);
	CHECK_EQ(errno, EINVAL);
	ia.qp_type = WQE_QPT_UD;
	ia.send_cq = NULL;
	CHECK(wqe_create_qp(pd, &ia) == NULL);
	ia.send_cq = cq;
	ia.cap.max_send_wr = 0;
	CHECK(wqe_create_qp(pd, &ia) == NULL);
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_sge = 0;
	CHECK(wqe_create_qp(pd, &ia) == NULL);
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 4096; /* larger than a 1008-byte WQE holds */
	CHECK(wqe_create_qp(pd, &ia) == NULL);
	ia.cap.max_inline_data = 0;
	{
		struct wqe_qp *ud = wqe_create_qp(pd, &ia);

		CHECK(ud != NULL);
		CHECK_EQ(ia.cap.max_inline_data, 60);
		CHECK(wqe_qp_num(ud) != wqe_qp_num(qp));
		CHECK_EQ(wqe_destroy_qp(ud), 0);
	}
	CHECK_EQ(wqe_destroy_qp(qp), 0);
	CHECK_EQ(wqe_destroy_qp(NULL), EINVAL);
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	CHECK_EQ(wqe_dealloc_pd(pd), 0);
	CHECK_EQ(wqe_close_context(ctx), 0);
}

static void test_ah(void)
{
	struct wqe_context *ctx = wqe_open_context(NULL);
	struct wqe_pd *pd = wqe_alloc_pd(ctx);
	struct wqe_ah_attr a;
	struct wqe_ah *ah;

	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.sl = 8;
	errno = 0;
	CHECK(wqe_create_ah(pd, &a) == NULL);
	CHECK_EQ(errno, EINVAL);
	a.sl = 3;
	a.grh.sgid_index = 1;
	CHECK(wqe_create_ah(pd, &a) == NULL);
	a.grh.sgid_index = 0;
	a.udp_sport = 1234;
	CHECK(wqe_create_ah(pd, &a) == NULL);
	a.udp_sport = 0;
	a.port_num = 2;
	CHECK(wqe_create_ah(pd, &a) == NULL);
	a.port_num = 1;
	ah = wqe_create_ah(pd, &a);
	CHECK(ah != NULL);
	if (ah) {
		CHECK(ah->attr.udp_sport >= 0xc000);
		CHECK_EQ(ah->attr.grh.hop_limit, 64);
	}
	CHECK_EQ(wqe_dealloc_pd(pd), EBUSY);
	CHECK_EQ(wqe_destroy_ah(ah), 0);
	CHECK_EQ(wqe_dealloc_pd(pd), 0);
	CHECK_EQ(wqe_close_context(ctx), 0);
}

static void test_strs(void)
{
	CHECK(strcmp(wqe_wc_status_str(WQE_WC_WR_FLUSH_ERR), "WR_FLUSH_ERR") == 0);
	CHECK(strcmp(wqe_wc_status_str((enum wqe_wc_status)99), "unknown") == 0);
	CHECK(strcmp(wqe_qp_state_str(WQE_QPS_RTS), "RTS") == 0);
	CHECK(strcmp(wqe_qp_type_str(WQE_QPT_UD), "UD") == 0);
	CHECK(strcmp(wqe_wr_opcode_str(WQE_WR_ATOMIC_FETCH_AND_ADD), "ATOMIC_FETCH_AND_ADD") == 0);
	CHECK(strcmp(wqe_wr_opcode_str((enum wqe_wr_opcode)7), "unknown") == 0);
	CHECK(strcmp(wqe_send_flags_str(WQE_SEND_INLINE), "INLINE") == 0);
	CHECK(strcmp(wqe_qp_attr_mask_str(WQE_QP_DEST_QPN), "DEST_QPN") == 0);
	CHECK(strcmp(wqe_wc_opcode_str(WQE_WC_RECV_RDMA_WITH_IMM), "RECV_RDMA_WITH_IMM") == 0);
	CHECK(strcmp(wqe_mtu_str(WQE_MTU_4096), "4096") == 0);
	CHECK_EQ(wqe_mtu_to_bytes(WQE_MTU_256), 256);
	CHECK_EQ(wqe_mtu_to_bytes(WQE_MTU_4096), 4096);
	CHECK_EQ(wqe_mtu_to_bytes((enum wqe_mtu)0), 0);
	CHECK(strcmp(wqe_access_flags_str(WQE_ACCESS_REMOTE_ATOMIC), "REMOTE_ATOMIC") == 0);
	CHECK(strcmp(wqe_format_str(WQE_FORMAT_MLX5), "mlx5") == 0);
	CHECK(strcmp(wqe_wc_flags_str(WQE_WC_WITH_IMM), "WITH_IMM") == 0);
}

int main(void)
{
	test_context();
	test_fast_path_env();
	test_qpn_cycle();
	test_mr();
	test_cq_qp();
	test_ah();
	test_strs();
	return test_finish();
}
