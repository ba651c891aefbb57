/* SPDX-License-Identifier: MIT */
/*
 * test_sizes.c - the mlx5 size figures: wqe_fixed_size() (Kong et al.'s
 * 36/68 bytes), the 28-byte inline limit of a one-block RDMA WRITE, and
 * wqe_calc_sq() as documented at wqe_create_qp().
 */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "wqe/model.h"

static void test_fixed_size(void)
{
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_RDMA_WRITE, 1), 36);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_UC, WQE_WR_RDMA_WRITE, 1), 36);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_UD, WQE_WR_SEND, 1), 68);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_SEND, 1), 20);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_SEND, 0), 16);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_RDMA_READ, 0), 32);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_ATOMIC_CMP_AND_SWP, 0), 48);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_UD, WQE_WR_SEND_WITH_IMM, 0), 64);
	/* cannot be encoded: inline READ/atomic, unknown opcode, transport, format */
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_RDMA_READ, 1), 0);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_ATOMIC_FETCH_AND_ADD, 1), 0);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, (enum wqe_wr_opcode)8, 0), 0);
	CHECK_EQ(wqe_fixed_size(WQE_FORMAT_MLX5, (enum wqe_qp_type)1, WQE_WR_SEND, 0), 0);
	CHECK_EQ(wqe_fixed_size((enum wqe_format)7, WQE_QPT_RC, WQE_WR_SEND, 0), 0);
}

/* wqe_encoded_size of an inline RDMA WRITE of @len bytes on @t. */
static uint32_t inline_write_size(enum wqe_qp_type t, uint32_t len)
{
	static uint8_t payload[64];
	struct wqe_sge sge = { (uint64_t)(uintptr_t)payload, len, 1 };
	struct wqe_encode_qp qp = { t, 7, 1, 1000, 0 };
	struct wqe_send_wr wr;
	uint32_t bytes = 0;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_RDMA_WRITE;
	wr.send_flags = WQE_SEND_INLINE;
	CHECK_EQ(wqe_encoded_size(WQE_FORMAT_MLX5, &qp, &wr, &bytes), 0);
	return bytes;
}

static void test_one_block_inline(void)
{
	uint32_t len;

	CHECK_EQ(64 - wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_RDMA_WRITE, 1), 28);
	for (len = 1; len <= 28; len++) {
		CHECK_EQ(inline_write_size(WQE_QPT_RC, len), 64);
		CHECK_EQ(inline_write_size(WQE_QPT_UC, len), 64);
	}
	CHECK_EQ(inline_write_size(WQE_QPT_RC, 29), 128);
	CHECK_EQ(inline_write_size(WQE_QPT_UC, 29), 128);
}

struct calc_row {
	enum wqe_qp_type t;
	uint32_t sge, inl;         /* asked */
	uint32_t wqe_bytes, max_inline, max_sge; /* got */
};

static const struct calc_row rows[] = {
	{ WQE_QPT_RC, 1, 0, 64, 28, 2 },
	{ WQE_QPT_RC, 1, 28, 64, 28, 2 },
	{ WQE_QPT_RC, 1, 29, 128, 92, 6 },
	{ WQE_QPT_RC, 1, 64, 128, 92, 6 },
	{ WQE_QPT_RC, 0, 0, 64, 28, 2 },   /* an atomic still fits */
	{ WQE_QPT_UC, 0, 0, 64, 28, 2 },   /* 32 rounded up to one block */
	{ WQE_QPT_UC, 2, 0, 64, 28, 2 },
	{ WQE_QPT_UC, 3, 0, 128, 92, 6 },
	{ WQE_QPT_UD, 0, 0, 128, 60, 4 },  /* room for the inline header */
	{ WQE_QPT_UD, 1, 0, 128, 60, 4 },
	{ WQE_QPT_UD, 1, 60, 128, 60, 4 },
	{ WQE_QPT_UD, 1, 61, 192, 124, 8 },
	{ WQE_QPT_RC, 61, 0, 1024, 972, 61 }, /* 992 B: 16 blocks, capped at 1008 */
	{ WQE_QPT_RC, 1, 972, 1024, 972, 61 },
	{ WQE_QPT_UD, 59, 0, 1024, 940, 59 },
	{ WQE_QPT_UD, 1, 940, 1024, 940, 59 },
};

static void test_calc_sq_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct wqe_qp_cap cap = { 100, 10, rows[i].sge, 1, rows[i].inl };
		uint32_t bytes = 0, blocks = 0;

		CHECK_EQ(wqe_calc_sq(WQE_FORMAT_MLX5, rows[i].t, &cap, &bytes, &blocks), 0);
		CHECK_EQ(bytes, rows[i].wqe_bytes);
		CHECK_EQ(cap.max_inline_data, rows[i].max_inline);
		CHECK_EQ(cap.max_send_sge, rows[i].max_sge);
		CHECK_EQ(blocks & (blocks - 1), 0);
		CHECK(blocks >= 100 * (bytes / 64));
		CHECK_EQ(cap.max_send_wr, blocks / (bytes / 64));
		CHECK(cap.max_send_wr >= 100);
		CHECK_EQ(cap.max_recv_wr, 10);
		CHECK_EQ(cap.max_recv_sge, 1);
		if (test_failures)
			fprintf(stderr, "  row %zu\n", i);
	}
}

static void test_calc_sq_ring(void)
{
	struct wqe_qp_cap cap = { 1, 1, 1, 1, 0 };
	uint32_t bytes, blocks, wr;

	CHECK_EQ(wqe_calc_sq(WQE_FORMAT_MLX5, WQE_QPT_RC, &cap, &bytes, &blocks), 0);
	CHECK_EQ(blocks, 16); /* at least WQE_MAX_BLOCKS */
	CHECK_EQ(cap.max_send_wr, 16);
	for (wr = 1; wr <= 32768; wr = wr * 3 + 1) {
		cap = (struct wqe_qp_cap){ wr, 1, 1, 1, 61 }; /* UD: 3 blocks */
		CHECK_EQ(wqe_calc_sq(WQE_FORMAT_MLX5, WQE_QPT_UD, &cap, &bytes, &blocks), 0);
		CHECK_EQ(bytes, 192);
		CHECK_EQ(blocks & (blocks - 1), 0);
		CHECK(blocks >= 16 && blocks >= wr * 3 && blocks < 2 * (wr * 3 < 16 ? 16 : wr * 3));
		CHECK_EQ(cap.max_send_wr, blocks / 3);
	}
	cap = (struct wqe_qp_cap){ 32768, 32768, 1, 64, 0 };
	CHECK_EQ(wqe_calc_sq(WQE_FORMAT_MLX5, WQE_QPT_RC, &cap, &bytes, &blocks), 0);
	CHECK_EQ(blocks, 32768);
}

static void calc_refused(enum wqe_qp_type t, struct wqe_qp_cap cap, int line)
{
	struct wqe_qp_cap before = cap;
	uint32_t bytes = 0xdead, blocks = 0xdead;
	int rc = wqe_calc_sq(WQE_FORMAT_MLX5, t, &cap, &bytes, &blocks);

	if (rc != EINVAL)
		test_fail(__FILE__, line, "wqe_calc_sq gave %d", rc);
	test_checks++;
	CHECK(memcmp(&cap, &before, sizeof(cap)) == 0);
	CHECK_EQ(bytes, 0xdead);
}

static void test_calc_sq_refused(void)
{
	uint32_t bytes, blocks;
	struct wqe_qp_cap ok = { 1, 1, 1, 1, 0 };

	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 0, 1, 1, 1, 0 }, __LINE__);
	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 32769, 1, 1, 1, 0 }, __LINE__);
	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 1, 0, 1, 1, 0 }, __LINE__);
	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 1, 32769, 1, 1, 0 }, __LINE__);
	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 1, 1, 1, 0, 0 }, __LINE__);
	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 1, 1, 1, 65, 0 }, __LINE__);
	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 1, 1, 62, 1, 0 }, __LINE__);
	calc_refused(WQE_QPT_UD, (struct wqe_qp_cap){ 1, 1, 60, 1, 0 }, __LINE__);
	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 1, 1, 1, 1, 973 }, __LINE__);
	calc_refused(WQE_QPT_UD, (struct wqe_qp_cap){ 1, 1, 1, 1, 941 }, __LINE__);
	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 1, 1, 1, 1, 0xffffffffu }, __LINE__);
	calc_refused(WQE_QPT_RC, (struct wqe_qp_cap){ 1, 1, 0xffffffffu, 1, 0 }, __LINE__);
	calc_refused((enum wqe_qp_type)1, ok, __LINE__);
	CHECK_EQ(wqe_calc_sq((enum wqe_format)7, WQE_QPT_RC, &ok, &bytes, &blocks), EINVAL);
	CHECK_EQ(wqe_calc_sq(WQE_FORMAT_MLX5, WQE_QPT_RC, NULL, &bytes, &blocks), EINVAL);
	CHECK_EQ(wqe_calc_sq(WQE_FORMAT_MLX5, WQE_QPT_RC, &ok, NULL, &blocks), EINVAL);
	CHECK_EQ(wqe_calc_sq(WQE_FORMAT_MLX5, WQE_QPT_RC, &ok, &bytes, NULL), EINVAL);
}

int main(void)
{
	test_fixed_size();
	test_one_block_inline();
	test_calc_sq_table();
	test_calc_sq_ring();
	test_calc_sq_refused();
	return test_finish();
}
