/* SPDX-License-Identifier: MIT */
/*
 * The rxe receive WQE against the kernel's uapi header rdma/rdma_user_rxe.h
 * (Debian linux-libc-dev) and libibverbs' struct ibv_sge (libibverbs-dev,
 * header only).
 *
 * For seeded random receive requests (0 to max_recv_sge SGEs, lengths from
 * 0 to large, random keys, addresses and wr_ids), a struct rxe_recv_wqe is
 * filled the way rdma-core's rxe provider fills it at post time
 * (rxe_post_one_recv(): wr_id, the struct ibv_sge array copied as is, the
 * dma header of an unconsumed WQE), written with the header's own field
 * names, and our slot must be identical, byte for byte, over a whole ring
 * of random bytes: through wqe_encode_recv(), and through wqe_post_recv()
 * on a live rxe QP (the ring rxe sizes: power-of-two slots of
 * sizeof(struct rxe_recv_wqe) + max_recv_sge SGEs, one slot kept empty,
 * the doorbell record a masked index). Then decode(encode(x)) gives back x,
 * and every malformed slot is refused, read from an exact-size heap copy
 * so that a read past the slot is an ASan/valgrind error.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "testutil.h"
#include "verbs/verbs_int.h"
#include "wqe/model.h"

#define SLOTS  8
#define ROUNDS 1200

_Static_assert(sizeof(struct rxe_recv_wqe) == 40, "uapi rxe_recv_wqe is 40 bytes");
_Static_assert(offsetof(struct rxe_recv_wqe, wr_id) == 0, "wr_id at 0");
_Static_assert(offsetof(struct rxe_recv_wqe, reserved) == 8, "reserved at 8");
_Static_assert(offsetof(struct rxe_recv_wqe, padding) == 12, "padding at 12");
_Static_assert(offsetof(struct rxe_recv_wqe, dma) == 16, "dma at 16");
_Static_assert(sizeof(struct rxe_dma_info) == 24, "rxe_dma_info header is 24 bytes");
_Static_assert(sizeof(struct rxe_sge) == 16 && sizeof(struct ibv_sge) == sizeof(struct rxe_sge),
	       "the provider copies ibv_sge over rxe_sge");
_Static_assert(offsetof(struct ibv_sge, length) == offsetof(struct rxe_sge, length) &&
		   offsetof(struct ibv_sge, lkey) == offsetof(struct rxe_sge, lkey),
	       "ibv_sge and rxe_sge share a layout");

static uint32_t pow2(uint32_t v)
{
	uint32_t n = 1;

	while (n < v)
		n <<= 1;
	return n;
}

/* The slot rxe gives a QP with @max_sge receive SGEs: rxe_init_rq()'s
 * element (the kernel's struct ib_sge is struct rxe_sge's 16 bytes),
 * padded to a cache line (64 on x86-64), a power of two. */
static uint32_t kernel_slot(uint32_t max_sge)
{
	uint32_t elem = (uint32_t)(sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge));

	return pow2(elem < 64 ? 64 : elem);
}

/* The provider's post of one receive into its slot. */
static void provider_fill(struct rxe_recv_wqe *wqe, const struct ibv_recv_wr *wr)
{
	uint32_t length = 0;

	wqe->wr_id = wr->wr_id;
	memcpy(wqe->dma.sge, wr->sg_list, (size_t)wr->num_sge * sizeof(*wqe->dma.sge));
	for (int i = 0; i < wr->num_sge; i++)
		length += wqe->dma.sge[i].length;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.cur_sge = 0;
	wqe->dma.num_sge = (uint32_t)wr->num_sge;
	wqe->dma.sge_offset = 0;
}

struct req {
	struct wqe_recv_wr wr;
	struct wqe_sge sge[32];
	struct ibv_recv_wr iwr;
	struct ibv_sge isge[32];
};

/* A random request of 0 to @max_sge SGEs, at most 2^31 bytes in all. */
static void make(struct test_rng *r, uint32_t max_sge, struct req *q)
{
	uint32_t n = (uint32_t)test_rng_below(r, max_sge + 1);
	uint64_t left = 1ull << 31;

	memset(q, 0, sizeof(*q));
	for (uint32_t i = 0; i < n; i++) {
		uint64_t len;

		switch (test_rng_below(r, 4)) {
		case 0:
			len = 0;
			break;
		case 1:
			len = test_rng_below(r, 64);
			break;
		case 2:
			len = test_rng_below(r, 1u << 20);
			break;
		default:
			len = test_rng_below(r, left + 1);
			break;
		}
		if (len > left)
			len = left;
		left -= len;
		q->sge[i].addr = test_rng_next(r);
		q->sge[i].length = (uint32_t)len;
		q->sge[i].lkey = (uint32_t)test_rng_next(r);
		q->isge[i].addr = q->sge[i].addr;
		q->isge[i].length = q->sge[i].length;
		q->isge[i].lkey = q->sge[i].lkey;
	}
	q->wr.wr_id = test_rng_next(r);
	q->wr.sg_list = q->sge;
	q->wr.num_sge = (int)n;
	q->iwr.wr_id = q->wr.wr_id;
	q->iwr.sg_list = q->isge;
	q->iwr.num_sge = (int)n;
}

static void check_decode(const struct req *q, const uint8_t *slot, uint32_t bytes)
{
	uint8_t *b = malloc(bytes);
	struct wqe_recv_desc d;
	uint64_t total = 0;

	memcpy(b, slot, bytes);
	CHECK_EQ(wqe_decode_recv(WQE_FORMAT_RXE, b, bytes, &d), WQE_DEC_OK);
	CHECK_EQ(d.format, WQE_FORMAT_RXE);
	CHECK_EQ(d.wr_id, q->wr.wr_id);
	CHECK_EQ(d.num_sge, (uint32_t)q->wr.num_sge);
	CHECK_EQ(d.size, sizeof(struct rxe_recv_wqe) + d.num_sge * sizeof(struct rxe_sge));
	for (int i = 0; i < q->wr.num_sge; i++) {
		CHECK_EQ(d.sge[i].addr, q->sge[i].addr);
		CHECK_EQ(d.sge[i].length, q->sge[i].length);
		CHECK_EQ(d.sge[i].lkey, q->sge[i].lkey);
		total += q->sge[i].length;
	}
	CHECK_EQ(d.total_len, total);
	free(b);
}

/* Decodes a copy of @slot with one change made by @spoil. */
static enum wqe_decode_err spoiled(const uint8_t *slot, uint32_t bytes, size_t len,
				   void (*spoil)(struct rxe_recv_wqe *w, uint32_t arg),
				   uint32_t arg)
{
	uint8_t *b = malloc(bytes);
	struct wqe_recv_desc d;
	enum wqe_decode_err e;

	memcpy(b, slot, bytes);
	spoil((struct rxe_recv_wqe *)(void *)b, arg);
	e = wqe_decode_recv(WQE_FORMAT_RXE, b, len, &d);
	free(b);
	return e;
}

static void set_num_sge(struct rxe_recv_wqe *w, uint32_t v)
{
	w->dma.num_sge = v;
}
static void set_cur_sge(struct rxe_recv_wqe *w, uint32_t v)
{
	w->dma.cur_sge = v;
}
static void set_sge_offset(struct rxe_recv_wqe *w, uint32_t v)
{
	w->dma.sge_offset = v;
}
static void set_resid(struct rxe_recv_wqe *w, uint32_t v)
{
	w->dma.resid = w->dma.length + v;
}
static void add_length(struct rxe_recv_wqe *w, uint32_t v)
{
	w->dma.length += v;
	w->dma.resid = w->dma.length;
}
static void add_sge0(struct rxe_recv_wqe *w, uint32_t v)
{
	w->dma.sge[0].length += v;
}
static void set_unused(struct rxe_recv_wqe *w, uint32_t v)
{
	w->reserved = v;
	w->padding = ~v;
	w->dma.reserved = v ^ 0x5a5a5a5a;
}
static void all_ff(struct rxe_recv_wqe *w, uint32_t v)
{
	memset(w, 0xff, v);
}

/* Every malformed variant of a good slot is refused, with the documented
 * reason; the words nothing reads do not matter. */
static void check_malformed(const struct req *q, const uint8_t *slot, uint32_t bytes)
{
	uint32_t n = (uint32_t)q->wr.num_sge, cap = (bytes - 40) / 16;
	uint32_t used = 40 + 16 * n;

	for (size_t len = 0; len < 40; len += 7)
		CHECK_EQ(spoiled(slot, bytes, len, set_unused, 0), WQE_DEC_TRUNCATED);
	/* The SGE array cut by the end of the readable bytes. */
	for (size_t len = 40; len < used; len += 5)
		CHECK_EQ(spoiled(slot, bytes, len, set_unused, 0), WQE_DEC_BAD_SEGMENTS);
	CHECK_EQ(spoiled(slot, bytes, used, set_unused, 0x12345678), WQE_DEC_OK);
	CHECK_EQ(spoiled(slot, bytes, bytes, set_unused, 0xffffffff), WQE_DEC_OK);
	/* num_sge past what the slot holds, past 64, far past. */
	if (cap + 1 <= 64)
		CHECK_EQ(spoiled(slot, bytes, bytes, set_num_sge, cap + 1), WQE_DEC_BAD_SEGMENTS);
	CHECK_EQ(spoiled(slot, bytes, bytes, set_num_sge, 65), WQE_DEC_TOO_MANY_SGE);
	CHECK_EQ(spoiled(slot, bytes, bytes, set_num_sge, 0xffffffff), WQE_DEC_TOO_MANY_SGE);
	/* Another num_sge inside the slot: the lengths no longer add up
	 * (unless every SGE from there on is empty). */
	if (n && q->sge[n - 1].length)
		CHECK_EQ(spoiled(slot, bytes, bytes, set_num_sge, n - 1), WQE_DEC_BAD_SEGMENTS);
	/* The cursor of a WQE something has started on. */
	CHECK_EQ(spoiled(slot, bytes, bytes, set_cur_sge, 1), WQE_DEC_BAD_FIELD);
	CHECK_EQ(spoiled(slot, bytes, bytes, set_cur_sge, 0xffffffff), WQE_DEC_BAD_FIELD);
	CHECK_EQ(spoiled(slot, bytes, bytes, set_sge_offset, 1), WQE_DEC_BAD_FIELD);
	CHECK_EQ(spoiled(slot, bytes, bytes, set_resid, 1), WQE_DEC_BAD_FIELD);
	CHECK_EQ(spoiled(slot, bytes, bytes, set_resid, 0x80000000u), WQE_DEC_BAD_FIELD);
	/* dma.length that is not the sum of the SGE lengths. */
	CHECK_EQ(spoiled(slot, bytes, bytes, add_length, 1), WQE_DEC_BAD_SEGMENTS);
	CHECK_EQ(spoiled(slot, bytes, bytes, add_length, 0xffffffff), WQE_DEC_BAD_SEGMENTS);
	if (n)
		CHECK_EQ(spoiled(slot, bytes, bytes, add_sge0, 1), WQE_DEC_BAD_SEGMENTS);
	CHECK(spoiled(slot, bytes, bytes, all_ff, bytes) != WQE_DEC_OK);
	CHECK(spoiled(slot, bytes, bytes, all_ff, 40) != WQE_DEC_OK);
}

/* The encoder refuses what does not fit, writing nothing. */
static void check_refuse(void)
{
	static uint8_t slot[256];
	struct wqe_sge s[33];
	struct wqe_recv_wr w = {.wr_id = 1, .sg_list = s, .num_sge = 14};
	uint8_t before[sizeof(slot)];

	memset(s, 0, sizeof(s));
	memset(slot, 0xee, sizeof(slot));
	memcpy(before, slot, sizeof(slot));
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &w, slot, 256), EINVAL); /* 40 + 14 x 16 */
	w.num_sge = 12;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &w, slot, 231), EINVAL);
	w.num_sge = -1;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &w, slot, 256), EINVAL);
	w.num_sge = 1;
	w.sg_list = NULL;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &w, slot, 256), EINVAL);
	w.sg_list = s;
	s[0].length = 0x80000000u;
	s[1].length = 1;
	w.num_sge = 2;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &w, slot, 256), EINVAL); /* over 2^31 */
	w.num_sge = 0;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &w, slot, 39), EINVAL);
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, NULL, slot, 256), EINVAL);
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &w, NULL, 256), EINVAL);
	CHECK_MEM(slot, before, sizeof(slot));
	/* Exactly 2^31 and exactly the slot: accepted. */
	w.num_sge = 1;
	s[0].length = 0x80000000u;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &w, slot, 56), 0);
	w.num_sge = 12;
	s[0].length = 0;
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &w, slot, 232), 0);
}

/* The ring sizes of rxe_init_rq() / rxe_queue_init(), and its limits. */
static void check_sizing(void)
{
	for (uint32_t sge = 1; sge <= 32; sge++) {
		for (uint32_t wr = 1; wr <= 300; wr += 13) {
			struct wqe_qp_cap c = {1, wr, 1, sge, 0};
			uint32_t slot = 0, n = 0;

			CHECK_EQ(wqe_calc_rq(WQE_FORMAT_RXE, &c, &slot, &n), 0);
			CHECK_EQ(slot, kernel_slot(sge));
			CHECK_EQ(n, pow2(wr + 1));
			CHECK_EQ(c.max_recv_wr, n - 1);
			CHECK_EQ(c.max_recv_sge, sge);
		}
	}
	{
		struct wqe_qp_cap c = {1, 1, 1, 33, 0};
		uint32_t slot, n;

		CHECK_EQ(wqe_calc_rq(WQE_FORMAT_RXE, &c, &slot, &n), EINVAL); /* RXE_MAX_SGE */
		c.max_recv_sge = 0;
		CHECK_EQ(wqe_calc_rq(WQE_FORMAT_RXE, &c, &slot, &n), EINVAL);
		c.max_recv_sge = 1;
		c.max_recv_wr = 0;
		CHECK_EQ(wqe_calc_rq(WQE_FORMAT_RXE, &c, &slot, &n), EINVAL);
		c.max_recv_wr = 32769;
		CHECK_EQ(wqe_calc_rq(WQE_FORMAT_RXE, &c, &slot, &n), EINVAL);
	}
}

/* Encoder against the provider over a ring of random bytes. */
static unsigned long encoder_round(struct test_rng *rng, int round)
{
	uint32_t max_sge = 1 + (uint32_t)test_rng_below(rng, 32);
	struct wqe_qp_cap cap = {1, 1 + (uint32_t)test_rng_below(rng, 64), 1, max_sge, 0};
	uint32_t bytes, nslots, slot;
	uint8_t *ring, *exp;
	struct req q;

	CHECK_EQ(wqe_calc_rq(WQE_FORMAT_RXE, &cap, &bytes, &nslots), 0);
	make(rng, max_sge, &q);
	ring = malloc((size_t)bytes * SLOTS);
	exp = malloc((size_t)bytes * SLOTS);
	test_rng_fill(rng, ring, (size_t)bytes * SLOTS);
	memcpy(exp, ring, (size_t)bytes * SLOTS);
	slot = (uint32_t)test_rng_below(rng, SLOTS);
	/* The provider writes into a zeroed slot of a fresh queue; the model
	 * clears its slot first (rxe_recv.c). */
	memset(exp + (size_t)slot * bytes, 0, bytes);
	provider_fill((struct rxe_recv_wqe *)(void *)(exp + (size_t)slot * bytes), &q.iwr);
	CHECK_EQ(wqe_encode_recv(WQE_FORMAT_RXE, &q.wr, ring + (size_t)slot * bytes, bytes), 0);
	CHECK_MEM(ring, exp, (size_t)bytes * SLOTS);
	check_decode(&q, ring + (size_t)slot * bytes, bytes);
	if (round % 4 == 0)
		check_malformed(&q, ring + (size_t)slot * bytes, bytes);
	free(ring);
	free(exp);
	return 1;
}

/* Polls @n flush completions of @cq and checks their wr_ids, in order. */
static void check_flushed(struct wqe_cq *cq, uint32_t n, const uint64_t *wr_ids, uint32_t first,
			  uint32_t mask)
{
	struct wqe_wc wc[128];
	int got = wqe_poll_cq(cq, 128, wc);

	CHECK_EQ(got, (int)n);
	for (int i = 0; i < got; i++) {
		CHECK_EQ(wc[i].status, WQE_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[i].opcode, WQE_WC_RECV);
		CHECK_EQ(wc[i].wr_id, wr_ids[(first + (uint32_t)i) & mask]);
	}
}

/*
 * wqe_post_recv() on a live rxe QP: the whole ring against one the
 * provider fills, max_recv_wr posts accepted and the next refused with
 * ENOMEM (one slot kept empty), the doorbell record the masked producer
 * index. Then the QP goes to ERR (every WQE flushed, in order, the flush
 * reading the masked record) and the ring is filled again across its end.
 */
static unsigned long post_round(struct test_rng *rng, struct wqe_pd *pd, struct wqe_cq *cq)
{
	uint32_t max_sge = 1 + (uint32_t)test_rng_below(rng, 32);
	struct wqe_qp_init_attr ia = {
	    .send_cq = cq,
	    .recv_cq = cq,
	    .qp_type = WQE_QPT_RC,
	    .cap = {1, 1 + (uint32_t)test_rng_below(rng, 20), 1, max_sge, 0}};
	struct wqe_qp_attr a;
	struct wqe_qp *qp;
	uint8_t *exp;
	uint64_t wr_ids[64];
	uint32_t bytes, nslots, posted = 0, flushed = 0;
	unsigned long n = 0;
	int mask;

	qp = wqe_create_qp(pd, &ia);
	CHECK(qp != NULL);
	if (!qp)
		return 0;
	bytes = kernel_slot(max_sge);
	nslots = pow2(ia.cap.max_recv_wr + 1);
	CHECK_EQ(qp->rq.stride, bytes);
	CHECK_EQ(qp->rq.nslots, nslots);
	CHECK_EQ(ia.cap.max_recv_wr, nslots - 1);
	CHECK(nslots <= 64);
	test_qp_attr_for(WQE_QPT_RC, WQE_QPS_INIT, &a, &mask, 1, WQE_MTU_1024);
	CHECK_EQ(wqe_modify_qp(qp, &a, mask), 0);
	exp = calloc(nslots, bytes);
	for (int pass = 0; pass < 2; pass++) {
		/* No progress runs while posting: in ERR too the ring fills. */
		for (uint32_t tries = 0; tries < nslots; tries++) {
			struct req q;
			struct wqe_recv_wr *bad = NULL;
			uint8_t *e = exp + (size_t)(posted & (nslots - 1)) * bytes;
			int err;

			make(rng, max_sge, &q);
			err = wqe_post_recv(qp, &q.wr, &bad);
			if (posted - flushed == nslots - 1) {
				CHECK_EQ(err, ENOMEM);
				CHECK(bad == &q.wr);
				break;
			}
			CHECK_EQ(err, 0);
			if (err)
				break;
			memset(e, 0, bytes);
			provider_fill((struct rxe_recv_wqe *)(void *)e, &q.iwr);
			wr_ids[posted & (nslots - 1)] = q.wr.wr_id;
			posted++;
			n++;
			CHECK_EQ(atomic_load(&qp->rq.dbrec), posted & (nslots - 1));
		}
		CHECK_EQ(posted - flushed, nslots - 1);
		CHECK_MEM(qp->rq.buf, exp, (size_t)nslots * bytes);
		if (pass == 0) {
			memset(&a, 0, sizeof(a));
			a.qp_state = WQE_QPS_ERR;
			CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
		}
		check_flushed(cq, posted - flushed, wr_ids, flushed, nslots - 1);
		flushed = posted;
	}
	wqe_destroy_qp(qp);
	free(exp);
	return n;
}

int main(void)
{
	struct wqe_context_attr ca;
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *cq;
	struct test_rng rng;
	unsigned long enc = 0, post = 0;

	test_rng_seed(&rng, 0x7ec5eed);
	check_sizing();
	check_refuse();
	for (int round = 0; round < ROUNDS; round++)
		enc += encoder_round(&rng, round);
	memset(&ca, 0, sizeof(ca));
	ca.format = WQE_FORMAT_RXE;
	ca.num_gids = 1;
	test_gid_v4(&ca.gid[0], 192, 0, 2, 1);
	ctx = wqe_open_context(&ca);
	pd = ctx ? wqe_alloc_pd(ctx) : NULL;
	cq = ctx ? wqe_create_cq(ctx, 256) : NULL;
	CHECK(ctx && pd && cq);
	if (ctx && pd && cq)
		for (int i = 0; i < 40; i++)
			post += post_round(&rng, pd, cq);
	wqe_destroy_cq(cq);
	wqe_dealloc_pd(pd);
	wqe_close_context(ctx);
	printf("%lu receive requests compared with struct rxe_recv_wqe (encoder), %lu through "
	       "wqe_post_recv\n",
	       enc, post);
	CHECK(enc >= 1000);
	return test_finish();
}
