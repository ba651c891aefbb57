/* SPDX-License-Identifier: MIT */
/*
 * test_mlx5_malformed.c - each malformed mlx5 WQE the decoder must reject,
 * crafted by editing the bytes of a well-formed one, gets its error code.
 * Every case first checks that the unedited WQE decodes.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "wqe/model.h"

struct built {
	uint8_t b[1024];
	uint32_t len; /* ds * 16 */
	enum wqe_qp_type t;
};

static uint8_t payload[1024];
static struct wqe_ah ah;

/* Encodes one request with @nsge SGEs of 100 bytes (8 for an atomic) or,
 * with INLINE, one SGE of @nsge bytes. */
static void build(enum wqe_qp_type t, enum wqe_wr_opcode op, unsigned int flags, uint32_t nsge,
		  struct built *out)
{
	static uint8_t ring[16 * 64];
	struct wqe_sge sge[64];
	struct wqe_encode_qp qp = { t, 0x123456, 64, 1000, 0 };
	struct wqe_send_wr wr;
	struct wqe_ring_view view = { ring, 16 };
	uint32_t i, nblocks = 0;
	bool inl = flags & WQE_SEND_INLINE;
	bool atomic = op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;

	memset(&wr, 0, sizeof(wr));
	for (i = 0; i < 64; i++) {
		sge[i].addr = inl ? (uint64_t)(uintptr_t)payload : 0x1000 + 0x100 * (uint64_t)i;
		sge[i].length = inl ? nsge : atomic ? 8 : 100;
		sge[i].lkey = 0x77 + i;
	}
	wr.sg_list = sge;
	wr.num_sge = inl ? 1 : (int)nsge;
	wr.opcode = op;
	wr.send_flags = flags;
	if (t == WQE_QPT_UD) {
		ah.attr.sl = 3;
		ah.attr.udp_sport = 0xc123;
		wr.wr.ud.ah = &ah;
		wr.wr.ud.remote_qpn = 0x42;
		wr.wr.ud.remote_qkey = 0x11111111;
	} else {
		wr.wr.atomic.remote_addr = 0x2000;
		wr.wr.atomic.rkey = 0xabcd;
		wr.wr.atomic.compare_add = 5;
		wr.wr.atomic.swap = 6;
	}
	memset(ring, 0, sizeof(ring));
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &qp, &wr, &view, 0, 9, &nblocks), 0);
	memcpy(out->b, ring, sizeof(ring));
	out->len = (uint32_t)ring[7] * 16;
	out->t = t;
}

static enum wqe_decode_err decode_len(const struct built *w, uint32_t len)
{
	static struct wqe_desc d;
	struct wqe_decode_ctx ctx = {.qp_type = w->t, .max_bytes = 1024};
	uint8_t *copy = malloc(len ? len : 1);
	enum wqe_decode_err err;

	if (!copy)
		abort();
	memcpy(copy, w->b, len);
	err = wqe_decode(WQE_FORMAT_MLX5, &ctx, copy, len, &d);
	free(copy);
	return err;
}

/* Decodes @w as it is now (with its declared length). */
static enum wqe_decode_err decode(const struct built *w)
{
	return decode_len(w, w->len);
}

/* Sets the DS byte and the length with it. */
static void set_ds(struct built *w, uint8_t ds)
{
	w->b[7] = ds;
	w->len = (uint32_t)ds * 16;
}

#define EXPECT(w, err)                                                                  \
	do {                                                                            \
		enum wqe_decode_err got_ = decode(w);                                   \
		CHECK_EQ(got_, err);                                                    \
		if (got_ != (err))                                                      \
			fprintf(stderr, "  got %s\n", wqe_decode_err_str(got_));        \
	} while (0)

static void test_size(void)
{
	static const uint8_t bad_ds[] = { 0, 64, 0x40 | 2, 0x80 | 2, 0xc2, 0xff };
	struct built w, e;
	struct wqe_decode_ctx ctx = {.qp_type = WQE_QPT_RC, .max_bytes = 64};
	struct wqe_desc d;
	uint32_t size;
	size_t i;

	build(WQE_QPT_RC, WQE_WR_SEND, 0, 2, &w);
	EXPECT(&w, WQE_DEC_OK);
	for (i = 0; i < sizeof(bad_ds); i++) {
		e = w;
		e.b[7] = bad_ds[i];
		CHECK_EQ(decode_len(&e, 1024), WQE_DEC_BAD_SIZE);
		CHECK_EQ(wqe_peek_size(WQE_FORMAT_MLX5, e.b, 16, &size), WQE_DEC_BAD_SIZE);
	}
	/* 5 DS = 2 blocks, but one block posted */
	build(WQE_QPT_RC, WQE_WR_SEND, 0, 4, &w);
	CHECK_EQ(wqe_decode(WQE_FORMAT_MLX5, &ctx, w.b, w.len, &d), WQE_DEC_BAD_SIZE);
	ctx.max_bytes = 0;
	CHECK_EQ(wqe_decode(WQE_FORMAT_MLX5, &ctx, w.b, w.len, &d), WQE_DEC_BAD_SIZE);
	ctx.max_bytes = 128;
	CHECK_EQ(wqe_decode(WQE_FORMAT_MLX5, &ctx, w.b, w.len, &d), WQE_DEC_OK);
	CHECK_EQ(decode_len(&w, 15), WQE_DEC_TRUNCATED);
	CHECK_EQ(decode_len(&w, w.len - 1), WQE_DEC_TRUNCATED);
}

static void test_opcode(void)
{
	static const uint8_t bad[] = { 0x00, 0x0e, 0x13, 0x14, 0x15, 0x19, 0x1b, 0x25, 0xff };
	struct built w, e;
	size_t i;

	build(WQE_QPT_RC, WQE_WR_SEND, 0, 1, &w);
	for (i = 0; i < sizeof(bad); i++) {
		e = w;
		e.b[3] = bad[i];
		EXPECT(&e, WQE_DEC_BAD_OPCODE);
	}
}

static void test_ctrl_fields(void)
{
	static const uint8_t bad_bits[] = { 0x01, 0x04, 0x10, 0x20, 0x40, 0x60, 0xa0, 0x0c };
	struct built w, e;
	size_t i;

	build(WQE_QPT_RC, WQE_WR_SEND, 0, 1, &w);
	e = w, e.b[0] = 1;
	EXPECT(&e, WQE_DEC_BAD_FIELD); /* opmod */
	e = w, e.b[9] = 1;
	EXPECT(&e, WQE_DEC_BAD_FIELD);
	e = w, e.b[10] = 0x80;
	EXPECT(&e, WQE_DEC_BAD_FIELD);
	e = w, e.b[8] = 0x5a;
	EXPECT(&e, WQE_DEC_OK); /* any signature (MLX5_QP_SIGNATURE) */
	e = w, e.b[11] = 0x8a;
	EXPECT(&e, WQE_DEC_OK);
	for (i = 0; i < sizeof(bad_bits); i++) {
		e = w;
		e.b[11] = bad_bits[i];
		EXPECT(&e, WQE_DEC_BAD_FIELD);
	}
	e = w, e.b[15] = 1;
	EXPECT(&e, WQE_DEC_BAD_FIELD); /* an immediate on a plain SEND */
	build(WQE_QPT_RC, WQE_WR_SEND_WITH_IMM, 0, 1, &w);
	w.b[15] = 1;
	EXPECT(&w, WQE_DEC_OK);
}

static void test_transport_fields(void)
{
	static const struct { uint32_t off; uint8_t v; } ud_bad[] = {
		{ 16 + 4, 1 }, { 16 + 7, 1 },   /* key.qkey.reserved */
		{ 16 + 8, 0x00 },               /* MLX5_EXTENDED_UD_AV cleared */
		{ 16 + 8, 0x81 },               /* dqp bits 24-30 */
		{ 16 + 12, 0x10 | 6 },          /* static rate */
		{ 16 + 12, 0x01 | 6 },          /* stat_rate_sl bit 0 */
		{ 16 + 13, 1 },                 /* fl_mlid */
		{ 16 + 16, 1 }, { 16 + 19, 1 }, /* reserved0 */
		{ 16 + 28, 0x40 },              /* GRH bit: reserved for RoCE */
		{ 16 + 28, 0x80 }, { 16 + 28, 0x10 },
	};
	struct built w, e;
	size_t i;

	build(WQE_QPT_RC, WQE_WR_RDMA_WRITE, 0, 1, &w);
	EXPECT(&w, WQE_DEC_OK);
	e = w, e.b[31] = 1;
	EXPECT(&e, WQE_DEC_BAD_FIELD); /* raddr reserved */
	build(WQE_QPT_UD, WQE_WR_SEND, 0, 1, &w);
	EXPECT(&w, WQE_DEC_OK);
	for (i = 0; i < sizeof(ud_bad) / sizeof(ud_bad[0]); i++) {
		e = w;
		e.b[ud_bad[i].off] = ud_bad[i].v;
		EXPECT(&e, WQE_DEC_BAD_FIELD);
	}
}

static void test_too_small(void)
{
	struct built w, e;

	build(WQE_QPT_RC, WQE_WR_RDMA_WRITE, 0, 0, &w);
	EXPECT(&w, WQE_DEC_OK);
	e = w, set_ds(&e, 1);
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS);
	build(WQE_QPT_UD, WQE_WR_SEND, 0, 0, &w);
	EXPECT(&w, WQE_DEC_OK);
	e = w, set_ds(&e, 3);
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS);
	build(WQE_QPT_RC, WQE_WR_ATOMIC_CMP_AND_SWP, 0, 1, &w);
	EXPECT(&w, WQE_DEC_OK);
	e = w, set_ds(&e, 2);
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS);
	e = w, set_ds(&e, 3); /* an atomic without its data segment */
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS);
}

static void test_data_segments(void)
{
	struct built w, e;

	build(WQE_QPT_RC, WQE_WR_RDMA_READ, 0, 1, &w);
	e = w, e.b[32] |= 0x80; /* an inline header on a READ */
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS);
	build(WQE_QPT_RC, WQE_WR_SEND, 0, 2, &w);
	EXPECT(&w, WQE_DEC_OK);
	e = w, e.b[32] |= 0x80; /* second data segment flagged inline: mixed */
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS);
	e = w, memset(e.b + 32, 0, 4); /* byte_count 0 (2 GB to the HCA) */
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS);
	build(WQE_QPT_RC, WQE_WR_ATOMIC_FETCH_AND_ADD, 0, 1, &w);
	EXPECT(&w, WQE_DEC_OK);
	e = w, e.b[51] = 16;
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS); /* atomic byte_count != 8 */
	e = w, e.b[48] |= 0x80;
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS); /* inline on an atomic */
	e = w, memcpy(e.b + 64, e.b + 48, 16), set_ds(&e, 5);
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS); /* two data segments */
	build(WQE_QPT_RC, WQE_WR_SEND, 0, 62, &w); /* 63 DS: the most SGEs mlx5 holds */
	EXPECT(&w, WQE_DEC_OK);
}

static void test_inline(void)
{
	struct built w, e;

	build(WQE_QPT_RC, WQE_WR_SEND, WQE_SEND_INLINE, 10, &w);
	CHECK_EQ(w.len, 32);
	EXPECT(&w, WQE_DEC_OK);
	e = w, e.b[19] = 13; /* 4 + 13 > 16 */
	EXPECT(&e, WQE_DEC_BAD_INLINE);
	e = w, e.b[16] = 0xff, e.b[17] = e.b[18] = e.b[19] = 0xff;
	EXPECT(&e, WQE_DEC_BAD_INLINE);
	e = w, e.b[19] = 0;
	EXPECT(&e, WQE_DEC_BAD_INLINE); /* never written: a zero total adds no DS */
	e = w, memset(e.b + 32, 0, 16), set_ds(&e, 3); /* a DS left after the inline data */
	EXPECT(&e, WQE_DEC_BAD_SEGMENTS);
	e = w, e.b[19] = 12; /* exactly one DS */
	EXPECT(&e, WQE_DEC_OK);
}

static void test_bad_args(void)
{
	struct built w;
	struct wqe_decode_ctx ctx = {.qp_type = WQE_QPT_RC, .max_bytes = 1024};
	struct wqe_desc d;
	uint32_t size;

	build(WQE_QPT_RC, WQE_WR_SEND, 0, 1, &w);
	ctx.qp_type = (enum wqe_qp_type)9;
	CHECK_EQ(wqe_decode(WQE_FORMAT_MLX5, &ctx, w.b, w.len, &d), WQE_DEC_BAD_SEGMENTS);
	ctx.qp_type = WQE_QPT_RC;
	CHECK_EQ(wqe_decode((enum wqe_format)7, &ctx, w.b, w.len, &d), WQE_DEC_BAD_OPCODE);
	CHECK_EQ(wqe_peek_size((enum wqe_format)7, w.b, w.len, &size), WQE_DEC_BAD_OPCODE);
	CHECK_EQ(wqe_decode(WQE_FORMAT_MLX5, &ctx, NULL, 0, &d), WQE_DEC_TRUNCATED);
	CHECK_EQ(wqe_decode(WQE_FORMAT_MLX5, NULL, w.b, w.len, &d), WQE_DEC_BAD_FIELD);
	CHECK_EQ(wqe_decode(WQE_FORMAT_MLX5, &ctx, w.b, w.len, NULL), WQE_DEC_BAD_FIELD);
	CHECK(strcmp(wqe_decode_err_str(WQE_DEC_BAD_INLINE), "unknown") != 0);
	CHECK(strcmp(wqe_decode_err_str((enum wqe_decode_err)99), "unknown") == 0);
}

int main(void)
{
	test_size();
	test_opcode();
	test_ctrl_fields();
	test_transport_fields();
	test_too_small();
	test_data_segments();
	test_inline();
	test_bad_args();
	return test_finish();
}
