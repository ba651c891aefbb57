/* SPDX-License-Identifier: MIT */
/*
 * wqe_describe_recv() on receive slots of both formats, against the
 * layouts the provider headers ship (the oracles: offsetof/sizeof of
 * rdma-core's <infiniband/mlx5dv.h> struct mlx5_wqe_data_seg and of the
 * kernel's <rdma/rdma_user_rxe.h> struct rxe_recv_wqe, rxe_dma_info and
 * rxe_sge). For seeded random receive requests (1 to 64 SGEs, slots from
 * wqe_calc_rq() with room for more SGEs or for exactly these), the fields
 * tile the used bytes in the headers' order and at their offsets, every
 * value is the bytes it covers read in the format's byte order, and the
 * values are the request's. A malformed slot, a NULL argument or an
 * unknown format is refused with the decoder's error and leaves the
 * description untouched.
 */
#include <endian.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <rdma/rdma_user_rxe.h>

#include "testutil.h"
#include "wqe/model.h"
#include "wqe/text.h"

#define ROUNDS 400

/* One expected field. */
struct want {
	char seg[24];
	const char *name;
	size_t off, len;
	int has_wr_value; /* 1: @value is what the request put there */
	uint64_t value;
};

struct wants {
	struct want w[WQE_FIELD_MAX];
	unsigned int n;
};

#define SZ(type, member) sizeof(((struct type *)0)->member)

static void want(struct wants *ws, const char *seg, const char *name, size_t off, size_t len,
		 int has, uint64_t value)
{
	struct want *w = &ws->w[ws->n++];

	snprintf(w->seg, sizeof(w->seg), "%s", seg);
	w->name = name;
	w->off = off;
	w->len = len;
	w->has_wr_value = has;
	w->value = value;
}

static uint64_t bytes_value(const uint8_t *p, size_t len, int little)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len; i++)
		v = v << 8 | p[little ? len - 1 - i : i];
	return v;
}

/* The description against the expected list, and each value against the
 * bytes it covers. */
static void compare(const struct wqe_recv_description *d, const struct wants *ws,
		    const uint8_t *slot, int little, const char *what)
{
	uint32_t end = 0;

	if (d->num_fields != ws->n) {
		test_fail(__FILE__, __LINE__, "%s: %u fields, want %u", what, d->num_fields, ws->n);
		return;
	}
	for (unsigned int i = 0; i < ws->n; i++) {
		const struct wqe_field *f = &d->field[i];
		const struct want *w = &ws->w[i];

		test_checks++;
		if (strcmp(f->segment, w->seg) || strcmp(f->name, w->name) || f->offset != w->off ||
		    f->length != w->len)
			test_fail(__FILE__, __LINE__,
				  "%s: field %u is %s.%s at %u+%u, want %s.%s at %zu+%zu", what, i,
				  f->segment, f->name, f->offset, f->length, w->seg, w->name,
				  w->off, w->len);
		CHECK_EQ(f->offset, end); /* no gap, no overlap */
		end = f->offset + f->length;
		CHECK_EQ(f->has_value, f->length <= 8);
		if (f->has_value)
			CHECK_EQ(f->value, bytes_value(slot + f->offset, f->length, little));
		if (w->has_wr_value)
			CHECK_EQ(f->value, w->value);
		CHECK(f->meaning[0] != '\0');
	}
	CHECK_EQ(end, d->desc.size);
}

static void random_wr(struct test_rng *r, struct wqe_recv_wr *wr, struct wqe_sge *sg, int n)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = test_rng_next(r);
	wr->sg_list = sg;
	wr->num_sge = n;
	for (int i = 0; i < n; i++) {
		sg[i].addr = test_rng_next(r);
		sg[i].length =
		    1 + (uint32_t)test_rng_below(r, 1u << 20); /* mlx5 skips empty ones */
		sg[i].lkey = (uint32_t)test_rng_next(r) | 1u;  /* never 0x100 */
	}
}

/* Slot bytes for @max_sge receive SGEs (wqe_calc_rq()). */
static uint32_t slot_for(enum wqe_format fmt, uint32_t max_sge)
{
	struct wqe_qp_cap cap = {.max_recv_wr = 4, .max_recv_sge = max_sge};
	uint32_t slot = 0, nslots = 0;

	CHECK_EQ(wqe_calc_rq(fmt, &cap, &slot, &nslots), 0);
	return slot;
}

/* One random receive request of 1 to @max SGEs, encoded into a slot of
 * @fmt sized for it or for more SGEs, and described. */
struct round {
	uint8_t slot[4096];
	struct wqe_recv_description d;
	struct wqe_sge sg[64];
	struct wqe_recv_wr wr;
	int n;
	uint32_t bytes;
	char what[64];
};

static void round_start(struct test_rng *r, struct round *o, enum wqe_format fmt, int max)
{
	uint32_t max_sge;

	o->n = 1 + (int)test_rng_below(r, (uint64_t)max);
	max_sge = (uint32_t)o->n + (uint32_t)test_rng_below(r, (uint64_t)(max + 1 - o->n));
	o->bytes = slot_for(fmt, max_sge);
	random_wr(r, &o->wr, o->sg, o->n);
	test_rng_fill(r, o->slot, sizeof(o->slot));
	CHECK(o->bytes <= sizeof(o->slot));
	CHECK_EQ(wqe_encode_recv(fmt, &o->wr, o->slot, o->bytes), 0);
	CHECK_EQ(wqe_describe_recv(fmt, o->slot, o->bytes, &o->d), WQE_DEC_OK);
	snprintf(o->what, sizeof(o->what), "%s, %d SGEs in a %u-byte slot", wqe_format_str(fmt),
		 o->n, o->bytes);
}

static void mlx5_round(struct test_rng *r)
{
	static struct round o;
	struct wants ws = {.n = 0};
	const struct wqe_sge *sg = o.sg;
	int n;

	round_start(r, &o, WQE_FORMAT_MLX5, 64);
	n = o.n;
	for (int i = 0; i < n; i++) {
		size_t base = (size_t)i * sizeof(struct mlx5_wqe_data_seg);
		char seg[24];

		snprintf(seg, sizeof(seg), "data[%d]", i);
		want(&ws, seg, "byte_count", base + offsetof(struct mlx5_wqe_data_seg, byte_count),
		     SZ(mlx5_wqe_data_seg, byte_count), 1, sg[i].length);
		want(&ws, seg, "lkey", base + offsetof(struct mlx5_wqe_data_seg, lkey),
		     SZ(mlx5_wqe_data_seg, lkey), 1, sg[i].lkey);
		want(&ws, seg, "addr", base + offsetof(struct mlx5_wqe_data_seg, addr),
		     SZ(mlx5_wqe_data_seg, addr), 1, sg[i].addr);
	}
	/* The end marker when the slot has room for one. */
	if ((size_t)n * sizeof(struct mlx5_wqe_data_seg) < o.bytes) {
		size_t base = (size_t)n * sizeof(struct mlx5_wqe_data_seg);

		want(&ws, "end", "byte_count",
		     base + offsetof(struct mlx5_wqe_data_seg, byte_count),
		     SZ(mlx5_wqe_data_seg, byte_count), 0, 0);
		want(&ws, "end", "lkey", base + offsetof(struct mlx5_wqe_data_seg, lkey),
		     SZ(mlx5_wqe_data_seg, lkey), 1, MLX5_INVALID_LKEY);
		want(&ws, "end", "addr", base + offsetof(struct mlx5_wqe_data_seg, addr),
		     SZ(mlx5_wqe_data_seg, addr), 0, 0);
	}
	compare(&o.d, &ws, o.slot, 0, o.what);
	CHECK_EQ(o.d.desc.num_sge, (uint32_t)n);
}

static void rxe_round(struct test_rng *r)
{
	static struct round o;
	struct wants ws = {.n = 0};
	const struct wqe_sge *sg = o.sg;
	const size_t dma = offsetof(struct rxe_recv_wqe, dma);
	uint64_t total = 0;
	int n;

	round_start(r, &o, WQE_FORMAT_RXE, 32);
	n = o.n;
	for (int i = 0; i < n; i++)
		total += sg[i].length;
	want(&ws, "wr", "wr_id", offsetof(struct rxe_recv_wqe, wr_id), SZ(rxe_recv_wqe, wr_id), 1,
	     o.wr.wr_id);
	want(&ws, "wr", "reserved", offsetof(struct rxe_recv_wqe, reserved),
	     SZ(rxe_recv_wqe, reserved), 0, 0);
	want(&ws, "wr", "padding", offsetof(struct rxe_recv_wqe, padding),
	     SZ(rxe_recv_wqe, padding), 0, 0);
	want(&ws, "dma", "length", dma + offsetof(struct rxe_dma_info, length),
	     SZ(rxe_dma_info, length), 1, total);
	want(&ws, "dma", "resid", dma + offsetof(struct rxe_dma_info, resid),
	     SZ(rxe_dma_info, resid), 1, total);
	want(&ws, "dma", "cur_sge", dma + offsetof(struct rxe_dma_info, cur_sge),
	     SZ(rxe_dma_info, cur_sge), 1, 0);
	want(&ws, "dma", "num_sge", dma + offsetof(struct rxe_dma_info, num_sge),
	     SZ(rxe_dma_info, num_sge), 1, (uint64_t)n);
	want(&ws, "dma", "sge_offset", dma + offsetof(struct rxe_dma_info, sge_offset),
	     SZ(rxe_dma_info, sge_offset), 1, 0);
	want(&ws, "dma", "reserved", dma + offsetof(struct rxe_dma_info, reserved),
	     SZ(rxe_dma_info, reserved), 0, 0);
	for (int i = 0; i < n; i++) {
		size_t base =
		    dma + offsetof(struct rxe_dma_info, sge) + (size_t)i * sizeof(struct rxe_sge);
		char seg[24];

		snprintf(seg, sizeof(seg), "sge[%d]", i);
		want(&ws, seg, "addr", base + offsetof(struct rxe_sge, addr), SZ(rxe_sge, addr), 1,
		     sg[i].addr);
		want(&ws, seg, "length", base + offsetof(struct rxe_sge, length),
		     SZ(rxe_sge, length), 1, sg[i].length);
		want(&ws, seg, "lkey", base + offsetof(struct rxe_sge, lkey), SZ(rxe_sge, lkey), 1,
		     sg[i].lkey);
	}
	compare(&o.d, &ws, o.slot, 1, o.what);
	CHECK_EQ(o.d.desc.wr_id, o.wr.wr_id);
}

/* Refusals: the decoder's error, and the description as it was. */
static void refusals(void)
{
	static struct wqe_recv_description d, before;
	uint8_t slot[64];
	struct wqe_sge sg = {0x1000, 64, 0x1234};
	struct wqe_recv_wr wr = {.wr_id = 7, .sg_list = &sg, .num_sge = 1};

	memset(&d, 0xa5, sizeof(d));
	before = d;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &wr, slot, sizeof(slot)), 0);
	CHECK_EQ(wqe_describe_recv(WQE_FORMAT_RXE, slot, sizeof(slot), NULL), WQE_DEC_BAD_FIELD);
	CHECK_EQ(wqe_describe_recv((enum wqe_format)7, slot, sizeof(slot), &d), WQE_DEC_BAD_OPCODE);
	CHECK_EQ(wqe_describe_recv(WQE_FORMAT_RXE, NULL, sizeof(slot), &d), WQE_DEC_TRUNCATED);
	CHECK_EQ(wqe_describe_recv(WQE_FORMAT_RXE, slot, 39, &d), WQE_DEC_TRUNCATED);
	CHECK_EQ(wqe_describe_recv(WQE_FORMAT_MLX5, slot, 15, &d), WQE_DEC_TRUNCATED);
	/* rxe: a consumed WQE (resid below length) is not a posted one. */
	slot[offsetof(struct rxe_recv_wqe, dma) + offsetof(struct rxe_dma_info, resid)]--;
	CHECK_EQ(wqe_describe_recv(WQE_FORMAT_RXE, slot, sizeof(slot), &d), WQE_DEC_BAD_FIELD);
	slot[offsetof(struct rxe_recv_wqe, dma) + offsetof(struct rxe_dma_info, resid)]++;
	/* rxe: an SGE array past the slot. */
	slot[offsetof(struct rxe_recv_wqe, dma) + offsetof(struct rxe_dma_info, num_sge)] = 2;
	CHECK_EQ(wqe_describe_recv(WQE_FORMAT_RXE, slot, 56, &d), WQE_DEC_BAD_SEGMENTS);
	/* mlx5: 64 data segments and no end. */
	{
		static uint8_t big[65 * 16];

		memset(big, 0x11, sizeof(big));
		CHECK_EQ(wqe_describe_recv(WQE_FORMAT_MLX5, big, sizeof(big), &d),
			 WQE_DEC_TOO_MANY_SGE);
	}
	CHECK_MEM(&d, &before, sizeof(d));
}

/* An mlx5 slot whose first segment is the end marker: no SGEs, one "end"
 * segment; and one filled by its SGEs, with no end marker. */
static void mlx5_edges(void)
{
	static struct wqe_recv_description d;
	uint8_t slot[32];
	struct wqe_sge sg[2] = {{0x1000, 64, 0x1234}, {0x2000, 32, 0x5678}};
	struct wqe_recv_wr wr = {.wr_id = 1, .sg_list = sg, .num_sge = 0};

	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_MLX5, &wr, slot, 16), 0);
	CHECK_EQ(wqe_describe_recv(WQE_FORMAT_MLX5, slot, 16, &d), WQE_DEC_OK);
	CHECK_EQ(d.num_fields, 3);
	CHECK(strcmp(d.field[0].segment, "end") == 0);
	CHECK_EQ(d.field[1].value, MLX5_INVALID_LKEY);
	wr.num_sge = 2;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_MLX5, &wr, slot, 32), 0);
	CHECK_EQ(wqe_describe_recv(WQE_FORMAT_MLX5, slot, 32, &d), WQE_DEC_OK);
	CHECK_EQ(d.num_fields, 6);
	CHECK(strcmp(d.field[5].segment, "data[1]") == 0);
	CHECK_EQ(d.desc.size, 32);
}

int main(void)
{
	struct test_rng r;

	test_rng_seed(&r, 0x5ecd);
	for (int i = 0; i < ROUNDS; i++) {
		mlx5_round(&r);
		rxe_round(&r);
	}
	mlx5_edges();
	refusals();
	return test_finish();
}
