/* SPDX-License-Identifier: MIT */
/*
 * The mlx5 receive WQE (unchanged by the rxe receive layout): its bytes
 * against a slot written with mlx5dv.h's own helper and constants
 * (mlx5dv_set_data_seg(), MLX5_INVALID_LKEY; header only), for seeded
 * random requests: one data segment per SGE, zero-length ones included
 * (the provider's mlx5_post_recv() skips those; the model has always
 * written them: docs/formats.md), then the end segment if the slot has
 * room, the rest zero. Then decode(encode(x)) gives back x, the ring
 * sizing, and the decoder's limits on arbitrary bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "testutil.h"
#include "wqe/model.h"

#define ROUNDS 1000

static uint32_t pow2(uint32_t v)
{
	uint32_t n = 1;

	while (n < v)
		n <<= 1;
	return n;
}

static void layout_round(struct test_rng *r)
{
	uint32_t max_sge = 1 + (uint32_t)test_rng_below(r, 64);
	struct wqe_qp_cap cap = {1, 1 + (uint32_t)test_rng_below(r, 100), 1, max_sge, 0};
	uint32_t bytes, nslots, n = (uint32_t)test_rng_below(r, max_sge + 1), j = 0;
	struct wqe_sge s[64];
	struct wqe_recv_wr w = {.wr_id = test_rng_next(r), .sg_list = s, .num_sge = (int)n};
	struct mlx5_wqe_data_seg *e;
	struct wqe_recv_desc d;
	uint8_t *slot, *exp;
	uint64_t total = 0;

	CHECK_EQ(wqe_calc_rq(WQE_FORMAT_MLX5, &cap, &bytes, &nslots), 0);
	CHECK_EQ(bytes, pow2(max_sge * 16));
	CHECK_EQ(cap.max_recv_wr, nslots);
	for (uint32_t i = 0; i < n; i++) {
		s[i].addr = test_rng_next(r);
		s[i].length =
		    (uint32_t)test_rng_below(r, 3) ? (uint32_t)test_rng_below(r, 1u << 24) : 0;
		s[i].lkey = (uint32_t)test_rng_next(r);
		if (s[i].lkey == MLX5_INVALID_LKEY)
			s[i].lkey++;
		total += s[i].length;
	}
	slot = malloc(bytes);
	exp = calloc(1, bytes);
	test_rng_fill(r, slot, bytes);
	/* As mlx5_post_recv(): an SGE of length 0 gets no segment; the
	 * terminator follows the last one written if the slot has room. */
	e = (struct mlx5_wqe_data_seg *)(void *)exp;
	for (uint32_t i = 0; i < n; i++)
		if (s[i].length)
			mlx5dv_set_data_seg(&e[j++], s[i].length, s[i].lkey, (uintptr_t)s[i].addr);
	if ((j + 1) * sizeof(*e) <= bytes)
		e[j].lkey = htobe32(MLX5_INVALID_LKEY);
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_MLX5, &w, slot, bytes), 0);
	CHECK_MEM(slot, exp, bytes);
	CHECK_EQ(wqe_decode_recv(WQE_FORMAT_MLX5, slot, bytes, &d), WQE_DEC_OK);
	CHECK_EQ(d.format, WQE_FORMAT_MLX5);
	CHECK_EQ(d.wr_id, 0);
	CHECK_EQ(d.num_sge, j);
	CHECK_EQ(d.total_len, total);
	CHECK_EQ(d.size, (j + 1) * 16 <= bytes ? (j + 1) * 16 : j * 16);
	for (uint32_t i = 0, k = 0; i < n; i++) {
		if (!s[i].length)
			continue;
		CHECK_EQ(d.sge[k].addr, s[i].addr);
		CHECK_EQ(d.sge[k].length, s[i].length);
		CHECK_EQ(d.sge[k].lkey, s[i].lkey);
		k++;
	}
	free(slot);
	free(exp);
}

/* Arbitrary bytes: every slot of at least one segment decodes (the end is
 * the first lkey 0x100 or the slot's end), nothing past @len is read. */
static void junk(struct test_rng *r)
{
	for (int k = 0; k < 2000; k++) {
		size_t len = (size_t)test_rng_below(r, 1100);
		uint8_t *b = malloc(len ? len : 1);
		struct wqe_recv_desc d;
		enum wqe_decode_err e;

		test_rng_fill(r, b, len);
		if (len >= 16 && test_rng_below(r, 2))
			memcpy(b + 16 * test_rng_below(r, len / 16) + 4, "\0\0\x01\0", 4);
		e = wqe_decode_recv(WQE_FORMAT_MLX5, b, len, &d);
		if (len < 16)
			CHECK_EQ(e, WQE_DEC_TRUNCATED);
		else if (len / 16 <= 64)
			CHECK_EQ(e, WQE_DEC_OK);
		if (e == WQE_DEC_OK) {
			CHECK(d.num_sge <= 64);
			CHECK(d.size <= len);
		}
		e = wqe_decode_recv(WQE_FORMAT_RXE, b, len, &d);
		if (e == WQE_DEC_OK)
			CHECK(d.size <= len && d.num_sge <= 64);
		free(b);
	}
}

static void limits(void)
{
	static uint8_t slot[2048];
	struct wqe_sge s[65];
	struct wqe_recv_wr w = {.sg_list = s, .num_sge = 2};
	struct wqe_recv_desc d;
	struct wqe_qp_cap c = {1, 1, 1, 65, 0};
	uint32_t bytes, n;

	memset(s, 0, sizeof(s));
	for (int i = 0; i < 65; i++)
		s[i].length = 1; /* an empty SGE would get no segment */
	CHECK_EQ(wqe_calc_rq(WQE_FORMAT_MLX5, &c, &bytes, &n), EINVAL);
	c.max_recv_sge = 64;
	c.max_recv_wr = 5;
	CHECK_EQ(wqe_calc_rq(WQE_FORMAT_MLX5, &c, &bytes, &n), 0);
	CHECK_EQ(bytes, 1024);
	CHECK_EQ(n, 8);
	CHECK_EQ(c.max_recv_wr, 8);
	/* Two SGEs fill a 32-byte slot: no end segment. */
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_MLX5, &w, slot, 32), 0);
	CHECK_EQ(wqe_decode_recv(WQE_FORMAT_MLX5, slot, 32, &d), WQE_DEC_OK);
	CHECK_EQ(d.num_sge, 2);
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_MLX5, &w, slot, 16), EINVAL);
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_MLX5, &w, slot, 40), EINVAL);
	w.num_sge = 65;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_MLX5, &w, slot, sizeof(slot)), EINVAL);
	/* 65 segments with no end in a 1040-byte slot: too many. */
	for (int i = 0; i < 65; i++)
		s[i].lkey = 7;
	w.num_sge = 64;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_MLX5, &w, slot, 1024), 0);
	memcpy(slot + 1024, slot, 16);
	CHECK_EQ(wqe_decode_recv(WQE_FORMAT_MLX5, slot, 1040, &d), WQE_DEC_TOO_MANY_SGE);
	CHECK_EQ(wqe_decode_recv(WQE_FORMAT_MLX5, slot, 1024, &d), WQE_DEC_OK);
	CHECK_EQ(d.num_sge, 64);
	CHECK_EQ(wqe_decode_recv(WQE_FORMAT_MLX5, NULL, 16, &d), WQE_DEC_TRUNCATED);
	CHECK_EQ(wqe_decode_recv(WQE_FORMAT_MLX5, slot, 16, NULL), WQE_DEC_BAD_FIELD);
	CHECK_EQ(wqe_decode_recv((enum wqe_format)7, slot, 16, &d), WQE_DEC_BAD_OPCODE);
	CHECK_EQ(wqe_encode_recv((enum wqe_format)7, &w, slot, 1024), EINVAL);
	CHECK_EQ(wqe_calc_rq((enum wqe_format)7, &c, &bytes, &n), EINVAL);
}

int main(void)
{
	struct test_rng rng;

	test_rng_seed(&rng, 0x31c5);
	for (int i = 0; i < ROUNDS; i++)
		layout_round(&rng);
	junk(&rng);
	limits();
	return test_finish();
}
