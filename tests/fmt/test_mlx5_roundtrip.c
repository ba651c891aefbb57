/* SPDX-License-Identifier: MIT */
/*
 * test_mlx5_roundtrip.c - wqe_decode(wqe_encode(x)) gives back x; every
 * truncated prefix is rejected; every malformed WQE of the decoder's list
 * gets its error code; random bytes never crash the decoder.
 *
 * Buffers handed to the decoder are malloc'd at exactly the length given,
 * so that a read past it is caught by the sanitizer build.
 */
#include <stdlib.h>
#include <string.h>

#include "fmt_gen.h"
#include "testutil.h"
#include "wqe/model.h"

#define ROUNDS_PER_CASE 8

static uint8_t ring[GEN_MAX_RING_BLOCKS * 64];
/* Generated WQEs the simple decoder took: [0] with a data segment, [1] inline,
 * [2] with no payload; of them, with an immediate. */
static unsigned long simple_taken[3], simple_taken_imm;

/* Decodes a malloc'd copy of exactly @len bytes of @wqe. */
static enum wqe_decode_err decode_exact(enum wqe_qp_type t, uint32_t max_bytes,
					const uint8_t *wqe, size_t len, struct wqe_desc *d)
{
	struct wqe_decode_ctx ctx = {.qp_type = t, .max_bytes = max_bytes};
	uint8_t *copy = malloc(len ? len : 1);
	enum wqe_decode_err err;

	if (!copy)
		abort();
	memcpy(copy, wqe, len);
	err = wqe_decode(WQE_FORMAT_MLX5, &ctx, copy, len, d);
	free(copy);
	return err;
}

/* Copies the WQE's blocks out of the ring into @buf (the engine's fetch). */
static void fetch(const struct gen_req *g, uint32_t nblocks, uint8_t *buf)
{
	uint32_t size = g->ring_blocks * 64, start = (g->slot & (g->ring_blocks - 1)) * 64, i;

	for (i = 0; i < nblocks * 64; i++)
		buf[i] = ring[(start + i) & (size - 1)];
}

static uint32_t expected_ds(const struct gen_req *g)
{
	uint32_t ds = 1 + gen_transport_ds(g->qp.qp_type, g->wr.opcode), n = 0;
	int i;

	if (g->wr.send_flags & WQE_SEND_INLINE)
		return ds + (g->inline_total ? (g->inline_total + 4 + 15) / 16 : 0);
	for (i = 0; i < g->wr.num_sge; i++)
		n += g->sge[i].length != 0;
	return ds + n;
}

static enum wqe_op expected_op(enum wqe_wr_opcode op)
{
	switch (op) {
	case WQE_WR_SEND: return WQE_OP_SEND;
	case WQE_WR_SEND_WITH_IMM: return WQE_OP_SEND_WITH_IMM;
	case WQE_WR_SEND_WITH_INV: return WQE_OP_SEND_WITH_INV;
	case WQE_WR_RDMA_WRITE: return WQE_OP_RDMA_WRITE;
	case WQE_WR_RDMA_WRITE_WITH_IMM: return WQE_OP_RDMA_WRITE_WITH_IMM;
	case WQE_WR_RDMA_READ: return WQE_OP_RDMA_READ;
	case WQE_WR_ATOMIC_CMP_AND_SWP: return WQE_OP_ATOMIC_CMP_AND_SWP;
	case WQE_WR_ATOMIC_FETCH_AND_ADD: return WQE_OP_ATOMIC_FETCH_AND_ADD;
	}
	return WQE_OP_COUNT;
}

static uint32_t expected_imm(const struct wqe_send_wr *wr)
{
	const uint8_t *b = (const uint8_t *)&wr->imm_data;

	if (wr->opcode == WQE_WR_SEND_WITH_INV)
		return wr->invalidate_rkey;
	if (wr->opcode == WQE_WR_SEND_WITH_IMM || wr->opcode == WQE_WR_RDMA_WRITE_WITH_IMM)
		return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return 0;
}

static void check_remote(const struct gen_req *g, const struct wqe_desc *d)
{
	const struct wqe_send_wr *wr = &g->wr;
	bool atomic = gen_is_atomic(wr->opcode);
	bool raddr = g->qp.qp_type != WQE_QPT_UD && gen_transport_ds(g->qp.qp_type, wr->opcode);

	CHECK_EQ(d->remote_addr, !raddr ? 0 : atomic ? wr->wr.atomic.remote_addr
						     : wr->wr.rdma.remote_addr);
	CHECK_EQ(d->rkey, !raddr ? 0 : atomic ? wr->wr.atomic.rkey : wr->wr.rdma.rkey);
	if (wr->opcode == WQE_WR_ATOMIC_CMP_AND_SWP) {
		CHECK_EQ(d->swap_add, wr->wr.atomic.swap);
		CHECK_EQ(d->compare, wr->wr.atomic.compare_add);
	} else if (wr->opcode == WQE_WR_ATOMIC_FETCH_AND_ADD) {
		CHECK_EQ(d->swap_add, wr->wr.atomic.compare_add);
		CHECK_EQ(d->compare, 0);
	} else {
		CHECK_EQ(d->swap_add, 0);
		CHECK_EQ(d->compare, 0);
	}
}

static void check_ud(const struct gen_req *g, const struct wqe_desc *d)
{
	const struct wqe_ah_attr *a = &g->ah.attr;
	static const struct wqe_desc_ud zero;

	if (g->qp.qp_type != WQE_QPT_UD) {
		CHECK(memcmp(&d->ud, &zero, sizeof(zero)) == 0);
		return;
	}
	CHECK_EQ(d->ud.qkey, g->wr.wr.ud.remote_qkey);
	CHECK_EQ(d->ud.dqpn, g->wr.wr.ud.remote_qpn);
	CHECK_EQ(d->ud.udp_sport, a->udp_sport);
	CHECK_EQ(d->ud.sl, a->sl & 7);
	CHECK_MEM(d->ud.dmac, a->dmac, 6);
	CHECK_EQ(d->ud.tclass, a->grh.traffic_class);
	CHECK_EQ(d->ud.hop_limit, a->grh.hop_limit);
	CHECK_EQ(d->ud.sgid_index, a->grh.sgid_index);
	CHECK_EQ(d->ud.flow_label, a->grh.flow_label & 0xfffff);
	CHECK_MEM(d->ud.dgid.raw, a->grh.dgid.raw, 16);
}

static void check_data(const struct gen_req *g, const struct wqe_desc *d)
{
	const struct wqe_send_wr *wr = &g->wr;
	uint32_t n = 0, off = 0;
	uint64_t total = 0;
	int i;

	if ((wr->send_flags & WQE_SEND_INLINE) && g->inline_total) {
		CHECK(d->is_inline);
		CHECK_EQ(d->num_sge, 0);
		CHECK_EQ(d->inline_len, g->inline_total);
		CHECK_EQ(d->total_len, g->inline_total);
		for (i = 0; i < wr->num_sge && d->inline_data; i++) {
			CHECK_MEM(d->inline_data + off, (const void *)(uintptr_t)g->sge[i].addr,
				  g->sge[i].length);
			off += g->sge[i].length;
		}
		return;
	}
	CHECK(!d->is_inline);
	CHECK(d->inline_data == NULL);
	CHECK_EQ(d->inline_len, 0);
	for (i = 0; i < wr->num_sge && !(wr->send_flags & WQE_SEND_INLINE); i++) {
		const struct wqe_sge *s = &g->sge[i];

		if (!s->length)
			continue;
		CHECK_EQ(d->sge[n].addr, s->addr);
		CHECK_EQ(d->sge[n].lkey, s->lkey);
		CHECK_EQ(d->sge[n].length, gen_is_atomic(wr->opcode) ? 8 : s->length);
		total += d->sge[n].length;
		n++;
	}
	CHECK_EQ(d->num_sge, n);
	CHECK_EQ(d->total_len, total);
}

static void check_desc(const struct gen_req *g, const struct wqe_desc *d, uint32_t ds)
{
	unsigned int f = g->wr.send_flags;

	CHECK_EQ(d->format, WQE_FORMAT_MLX5);
	CHECK_EQ(d->op, expected_op(g->wr.opcode));
	CHECK_EQ(d->qpn, g->qp.qpn & 0xffffff);
	CHECK_EQ(d->wqe_index, g->wqe_index & 0xffff);
	CHECK_EQ(d->ds, ds);
	CHECK_EQ(d->size, ds * 16);
	CHECK_EQ(d->nblocks, (ds * 16 + 63) / 64);
	CHECK_EQ(d->fence, !!(f & WQE_SEND_FENCE));
	CHECK_EQ(d->signaled, (f & WQE_SEND_SIGNALED) || g->qp.sq_sig_all);
	CHECK_EQ(d->solicited, !!(f & WQE_SEND_SOLICITED));
	CHECK_EQ(d->imm, expected_imm(&g->wr));
	check_remote(g, d);
	check_ud(g, d);
	check_data(g, d);
}

/* wqe_decode_simple() agrees with wqe_decode()'s @d (decoded from the
 * same block at @dbase, of QP @qpn on @t; @s read it at @sbase) wherever
 * it takes a block: the same fields, the inline bytes at the same place. */
static void check_simple_agrees(const struct wqe_desc *d, const uint8_t *dbase,
				const struct wqe_desc_simple *s, const uint8_t *sbase, uint32_t qpn)
{
	CHECK(d->op == s->op &&
	      (s->op == WQE_OP_RDMA_WRITE || s->op == WQE_OP_RDMA_WRITE_WITH_IMM ||
	       s->op == WQE_OP_SEND || s->op == WQE_OP_SEND_WITH_IMM));
	CHECK_EQ(d->nblocks, 1);
	CHECK_EQ(d->imm, s->imm);
	CHECK_EQ(d->qpn, qpn);
	CHECK_EQ(d->fence, s->fence);
	CHECK_EQ(d->signaled, s->signaled);
	CHECK_EQ(d->solicited, s->solicited);
	CHECK_EQ(d->total_len, s->length);
	CHECK_EQ(d->remote_addr, s->remote_addr);
	CHECK_EQ(d->rkey, s->rkey);
	if (s->inline_data) {
		CHECK(d->is_inline);
		CHECK_EQ(d->num_sge, 0);
		CHECK_EQ(d->inline_len, s->length);
		CHECK_EQ(s->lkey, 0);
		CHECK_EQ(s->addr, 0);
		CHECK(d->inline_data && d->inline_data - dbase == s->inline_data - sbase);
		CHECK(s->inline_data + s->length <= sbase + 64);
		return;
	}
	CHECK(!d->is_inline);
	if (!s->length) {
		CHECK_EQ(d->num_sge, 0);
		CHECK_EQ(s->lkey, 0);
		CHECK_EQ(s->addr, 0);
		return;
	}
	CHECK_EQ(d->num_sge, 1);
	CHECK_EQ(d->sge[0].length, s->length);
	CHECK_EQ(d->sge[0].lkey, s->lkey);
	CHECK_EQ(d->sge[0].addr, s->addr);
}

/* The shape wqe_decode_simple() takes: RC or UC, a WRITE or SEND with or
 * without an immediate, and either one non-empty SGE, inline bytes (the
 * SGEs together) that fit in the first block (44 after a SEND's control
 * segment and inline header, 28 after a WRITE's raddr segment too), or no
 * bytes at all (no SGE of non-zero length, inline or not: no segment). */
static bool simple_shape(const struct gen_req *g)
{
	const struct wqe_send_wr *wr = &g->wr;
	uint32_t n = 0, total = 0, before;
	bool write;

	for (int i = 0; i < wr->num_sge; i++) {
		n += g->sge[i].length != 0;
		total += g->sge[i].length;
	}
	if ((g->qp.qp_type != WQE_QPT_RC && g->qp.qp_type != WQE_QPT_UC) ||
	    (wr->opcode != WQE_WR_RDMA_WRITE && wr->opcode != WQE_WR_RDMA_WRITE_WITH_IMM &&
	     wr->opcode != WQE_WR_SEND && wr->opcode != WQE_WR_SEND_WITH_IMM))
		return false;
	if (!(wr->send_flags & WQE_SEND_INLINE))
		return n <= 1;
	write = wr->opcode == WQE_WR_RDMA_WRITE || wr->opcode == WQE_WR_RDMA_WRITE_WITH_IMM;
	before = write ? 32 : 16;
	return total == 0 || before + 4 + total <= 64;
}

/* Every prefix shorter than the WQE is TRUNCATED; peek agrees. */
static void check_truncations(enum wqe_qp_type t, const uint8_t *buf, uint32_t ds)
{
	static struct wqe_desc d;
	uint32_t len, size = 0;

	for (len = 0; len < ds * 16; len++)
		CHECK_EQ(decode_exact(t, 1024, buf, len, &d), WQE_DEC_TRUNCATED);
	for (len = 0; len < 16; len++)
		CHECK_EQ(wqe_peek_size(WQE_FORMAT_MLX5, buf, len, &size), WQE_DEC_TRUNCATED);
	CHECK_EQ(wqe_peek_size(WQE_FORMAT_MLX5, buf, 16, &size), WQE_DEC_OK);
	CHECK_EQ(size, (ds * 16 + 63) / 64 * 64);
}

static void one_request(struct test_rng *r, const struct gen_case *c, bool truncations)
{
	static struct gen_req g;
	static struct wqe_desc d;
	static uint8_t buf[1024];
	struct wqe_ring_view view;
	struct wqe_decode_ctx ctx;
	uint32_t nblocks = 0, ds;
	uint8_t *exact;

	gen_request(r, c, true, &g);
	view.buf = ring;
	view.nblocks = g.ring_blocks;
	test_rng_fill(r, ring, g.ring_blocks * 64);
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &g.qp, &g.wr, &view, g.slot, g.wqe_index, &nblocks),
		 0);
	ds = expected_ds(&g);
	CHECK_EQ(nblocks, (ds * 16 + 63) / 64);
	fetch(&g, nblocks, buf);
	/* only the meaningful bytes: nothing past ds * 16 may be needed */
	exact = malloc(ds * 16);
	if (!exact)
		abort();
	memcpy(exact, buf, ds * 16);
	memset(&d, 0xa5, sizeof(d));
	ctx.qp_type = c->qpt;
	ctx.max_bytes = nblocks * 64;
	CHECK_EQ(wqe_decode(WQE_FORMAT_MLX5, &ctx, exact, ds * 16, &d), WQE_DEC_OK);
	check_desc(&g, &d, ds);
	{
		/* The fast path's decoder takes exactly the simple shape, and
		 * reads it as the general decoder does. */
		struct wqe_desc_simple s;
		int took = wqe_decode_simple(WQE_FORMAT_MLX5, c->qpt, g.qp.qpn & 0xffffff, buf, &s);

		CHECK_EQ(took, simple_shape(&g));
		if (took) {
			check_simple_agrees(&d, exact, &s, buf, g.qp.qpn & 0xffffff);
			simple_taken[s.inline_data ? 1 : s.length ? 0 : 2]++;
			simple_taken_imm +=
			    s.op == WQE_OP_RDMA_WRITE_WITH_IMM || s.op == WQE_OP_SEND_WITH_IMM;
		}
		CHECK_EQ(wqe_decode_simple(WQE_FORMAT_MLX5, c->qpt, (g.qp.qpn + 1) & 0xffffff, buf, &s),
			 0);
		CHECK_EQ(wqe_decode_simple(WQE_FORMAT_RXE, c->qpt, g.qp.qpn & 0xffffff, buf, &s), 0);
	}
	if (d.is_inline)
		CHECK(d.inline_data == exact + 16 * (1 + gen_transport_ds(c->qpt, c->op)) + 4);
	free(exact);
	/* fewer posted bytes than the WQE's blocks */
	CHECK_EQ(decode_exact(c->qpt, nblocks * 64 - 64, buf, nblocks * 64, &d), WQE_DEC_BAD_SIZE);
	if (truncations)
		check_truncations(c->qpt, buf, ds);
}

static void test_roundtrips(void)
{
	static struct gen_case cases[GEN_MAX_CASES];
	struct test_rng r;
	size_t n, i;
	int k;

	test_rng_seed(&r, 0x72747269u);
	n = gen_cases(cases, GEN_MAX_CASES);
	for (i = 0; i < n; i++)
		for (k = 0; k < ROUNDS_PER_CASE; k++)
			one_request(&r, &cases[i], k == 0);
	printf("generated WQEs the simple decoder took: %lu with a data segment, %lu inline, "
	       "%lu with no payload, %lu of them with an immediate\n",
	       simple_taken[0], simple_taken[1], simple_taken[2], simple_taken_imm);
	CHECK(simple_taken[0] > 10);
	CHECK(simple_taken[1] > 10);
	CHECK(simple_taken[2] > 10);
	CHECK(simple_taken_imm > 10);
}

/* Random buffers, half of them shaped like a control segment. */
static void shape(struct test_rng *r, uint8_t *b, size_t len)
{
	static const uint8_t opcodes[] = { 0x01, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12 };

	if (len < 16 || test_rng_below(r, 2))
		return;
	b[0] = 0;
	b[3] = opcodes[test_rng_below(r, sizeof(opcodes))];
	b[7] = (uint8_t)(1 + test_rng_below(r, 63));
	b[9] = b[10] = 0;
	b[11] &= 0x8a;
	if (test_rng_below(r, 2))
		memset(b + 12, 0, 4);
	if (len >= 20 && test_rng_below(r, 2))
		b[16] &= 0x7f; /* a data segment rather than inline */
}

static void check_invariants(const struct wqe_desc *d, size_t len)
{
	CHECK(d->size == (uint32_t)d->ds * 16 && d->size <= len);
	CHECK(d->num_sge <= WQE_DESC_MAX_SGE);
	CHECK(!d->is_inline || (d->inline_len + 4 <= d->size && d->total_len == d->inline_len));
}

/* A valid WQE of a random case with one to three bytes changed. */
static size_t mutated(struct test_rng *r, const struct gen_case *cases, size_t ncases,
		      uint8_t *b, enum wqe_qp_type *t)
{
	static struct gen_req g;
	struct wqe_ring_view view;
	uint32_t nblocks = 0, n, i, span;

	gen_request(r, &cases[test_rng_below(r, ncases)], true, &g);
	view.buf = ring;
	view.nblocks = g.ring_blocks;
	if (wqe_encode(WQE_FORMAT_MLX5, &g.qp, &g.wr, &view, g.slot, g.wqe_index, &nblocks))
		return 0;
	fetch(&g, nblocks, b);
	span = (uint32_t)b[7] * 16; /* before any change to the DS byte */
	n = 1 + (uint32_t)test_rng_below(r, 3);
	for (i = 0; i < n; i++)
		b[test_rng_below(r, span)] ^= (uint8_t)(1 + test_rng_below(r, 255));
	*t = g.qp.qp_type;
	return (size_t)nblocks * 64 - (size_t)test_rng_below(r, 64);
}

static void test_random_bytes(void)
{
	static const enum wqe_qp_type types[] = { WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD, 7 };
	static struct gen_case cases[GEN_MAX_CASES];
	static uint8_t b[1100];
	static struct wqe_desc d;
	struct test_rng r;
	unsigned long ok = 0, simple = 0;
	size_t ncases = gen_cases(cases, GEN_MAX_CASES);
	int i;

	test_rng_seed(&r, 0x66757a7aU);
	for (i = 0; i < 100000; i++) {
		size_t len = (size_t)test_rng_below(&r, sizeof(b) + 1);
		enum wqe_qp_type t = types[test_rng_below(&r, 4)];
		uint32_t max = test_rng_below(&r, 4) ? 1024 : (uint32_t)test_rng_below(&r, 2048);
		struct wqe_decode_ctx ctx;
		uint8_t *copy;
		enum wqe_decode_err err;

		test_rng_fill(&r, b, len);
		if (i % 2)
			len = mutated(&r, cases, ncases, b, &t);
		else
			shape(&r, b, len);
		ctx.qp_type = t;
		ctx.max_bytes = max;
		copy = malloc(len ? len : 1);
		if (!copy)
			abort();
		memcpy(copy, b, len);
		err = wqe_decode(WQE_FORMAT_MLX5, &ctx, copy, len, &d);
		if ((unsigned int)err > WQE_DEC_TOO_MANY_SGE)
			CHECK(0);
		if (len >= 64 && max >= 64) {
			/* What the fast path's decoder takes, the general one
			 * decodes to the same fields. */
			struct wqe_desc_simple s;
			uint32_t qpn = (uint32_t)b[4] << 16 | (uint32_t)b[5] << 8 | b[6];

			if (wqe_decode_simple(WQE_FORMAT_MLX5, t, qpn, b, &s)) {
				simple++;
				CHECK_EQ(err, WQE_DEC_OK);
				if (err == WQE_DEC_OK)
					check_simple_agrees(&d, copy, &s, b, qpn);
			}
		}
		if (err == WQE_DEC_OK) {
			check_invariants(&d, len);
			if (d.is_inline)
				CHECK(d.inline_data >= copy && d.inline_data + d.inline_len <= copy + len);
			ok++;
		}
		free(copy);
	}
	printf("random buffers: %lu of 100000 decoded, %lu of them by the simple decoder too\n", ok,
	       simple);
	CHECK(simple > 10);
}

int main(void)
{
	test_roundtrips();
	test_random_bytes();
	return test_finish();
}
