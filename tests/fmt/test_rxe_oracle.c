/* SPDX-License-Identifier: MIT */
/*
 * The rxe format against the kernel's uapi header rdma/rdma_user_rxe.h
 * (Debian linux-libc-dev): for seeded random requests of every legal case,
 * a struct rxe_send_wqe is filled the way rdma-core's rxe provider fills it
 * at post time (convert_send_wr(), init_send_wqe()), written with the
 * header's own field names, and our encoder's slot must be identical, byte
 * for byte, over the whole ring. Then decode(encode(x)) gives back x, and
 * malformed slots are refused.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>

#include <rdma/rdma_user_rxe.h>

#include "fmt_gen.h"
#include "testutil.h"
#include "wqe/model.h"

#define SLOTS 8

_Static_assert(sizeof(struct rxe_send_wr) == 144, "uapi rxe_send_wr is 144 bytes");
_Static_assert(sizeof(struct rxe_send_wqe) == 208, "uapi rxe_send_wqe is 208 bytes");
_Static_assert(sizeof(struct rxe_av) == 88, "uapi rxe_av is 88 bytes");

static uint8_t payload[4096];

/* rdma_gid2ip() of rdma-core, into one of rxe_av's sockaddr unions. */
static void gid2ip(void *sa, const union wqe_gid *g)
{
	if (wqe_gid_is_v4(g)) {
		struct sockaddr_in in;

		memset(&in, 0, sizeof(in));
		in.sin_family = AF_INET;
		memcpy(&in.sin_addr, g->raw + 12, 4);
		memcpy(sa, &in, sizeof(in));
	} else {
		struct sockaddr_in6 in6;

		memset(&in6, 0, sizeof(in6));
		in6.sin6_family = AF_INET6;
		memcpy(&in6.sin6_addr, g->raw, 16);
		memcpy(sa, &in6, sizeof(in6));
	}
}

/* The provider's post: convert_send_wr() then init_send_wqe(). */
static void provider_fill(struct rxe_send_wqe *wqe, enum wqe_qp_type t,
			  const struct wqe_send_wr *wr)
{
	struct rxe_send_wr *kwr = &wqe->wr;
	uint32_t length = 0;

	memset(kwr, 0, sizeof(*kwr));
	kwr->wr_id = wr->wr_id;
	kwr->opcode = (uint32_t)wr->opcode;
	kwr->send_flags = wr->send_flags;
	memcpy(&kwr->ex.imm_data, &wr->imm_data, 4);
	switch (wr->opcode) {
	case WQE_WR_RDMA_WRITE:
	case WQE_WR_RDMA_WRITE_WITH_IMM:
	case WQE_WR_RDMA_READ:
		kwr->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		kwr->wr.rdma.rkey = wr->wr.rdma.rkey;
		break;
	case WQE_WR_SEND:
	case WQE_WR_SEND_WITH_IMM:
		if (t == WQE_QPT_UD) {
			kwr->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
			kwr->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
			kwr->wr.ud.ah_num = wr->wr.ud.ah->ah_num;
		}
		break;
	case WQE_WR_ATOMIC_CMP_AND_SWP:
	case WQE_WR_ATOMIC_FETCH_AND_ADD:
		kwr->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		kwr->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		kwr->wr.atomic.swap = wr->wr.atomic.swap;
		kwr->wr.atomic.rkey = wr->wr.atomic.rkey;
		break;
	default:
		break;
	}
	if (t == WQE_QPT_UD && !wr->wr.ud.ah->ah_num) {
		const struct wqe_ah *ah = wr->wr.ud.ah;
		struct rxe_av *av = &kwr->wr.ud.av;

		av->port_num = ah->attr.port_num;
		av->network_type = wqe_gid_is_v4(&ah->attr.grh.dgid) ? RXE_NETWORK_TYPE_IPV4
								       : RXE_NETWORK_TYPE_IPV6;
		memcpy(av->dmac, ah->attr.dmac, 6);
		memcpy(av->grh.dgid.raw, ah->attr.grh.dgid.raw, 16);
		av->grh.flow_label = ah->attr.grh.flow_label;
		av->grh.sgid_index = ah->attr.grh.sgid_index;
		av->grh.hop_limit = ah->attr.grh.hop_limit;
		av->grh.traffic_class = ah->attr.grh.traffic_class;
		gid2ip(&av->sgid_addr, &ah->sgid);
		gid2ip(&av->dgid_addr, &ah->attr.grh.dgid);
	}
	for (int i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	if (wr->send_flags & WQE_SEND_INLINE) {
		uint8_t *p = wqe->dma.inline_data;

		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(p, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		for (int i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	if (wr->opcode == WQE_WR_ATOMIC_CMP_AND_SWP || wr->opcode == WQE_WR_ATOMIC_FETCH_AND_ADD)
		wqe->iova = wr->wr.atomic.remote_addr;
	else
		wqe->iova = wr->wr.rdma.remote_addr;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = (uint32_t)wr->num_sge;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	wqe->state = 0;
}

struct req {
	struct wqe_encode_qp qp;
	struct wqe_send_wr wr;
	struct wqe_sge sge[32];
	struct wqe_ah ah;
};

static void random_gid(struct test_rng *r, union wqe_gid *g)
{
	test_rng_fill(r, g->raw, 16);
	if (test_rng_below(r, 2)) {
		memset(g->raw, 0, 10);
		g->raw[10] = g->raw[11] = 0xff;
	}
}

static void make(struct test_rng *r, const struct gen_case *c, struct req *q)
{
	uint32_t sges = 1 + (uint32_t)test_rng_below(r, 32), inl = (uint32_t)test_rng_below(r, 513);
	struct wqe_qp_cap cap = {16, 16, sges, 1, inl};
	uint32_t wb, rb, n;
	bool inline_ = c->flags & WQE_SEND_INLINE;

	memset(q, 0, sizeof(*q));
	CHECK_EQ(wqe_calc_sq(WQE_FORMAT_RXE, c->qpt, &cap, &wb, &rb), 0);
	q->qp = (struct wqe_encode_qp){c->qpt, (uint32_t)test_rng_below(r, 1u << 24),
				       cap.max_send_sge, cap.max_inline_data, c->sig_all};
	q->wr.wr_id = test_rng_next(r);
	q->wr.opcode = c->op;
	q->wr.send_flags = c->flags;
	q->wr.imm_data = (uint32_t)test_rng_next(r);
	n = gen_is_atomic(c->op) ? 1 : (uint32_t)test_rng_below(r, cap.max_send_sge + 1);
	for (uint32_t i = 0, left = cap.max_inline_data; i < n; i++) {
		uint32_t len = (uint32_t)test_rng_below(r, 300);

		if (gen_is_atomic(c->op))
			len = 8;
		if (inline_) {
			len = left ? (uint32_t)test_rng_below(r, left + 1) : 0;
			left -= len;
			q->sge[i].addr = (uint64_t)(uintptr_t)(payload + test_rng_below(r, 3000));
		} else {
			q->sge[i].addr = test_rng_next(r);
		}
		q->sge[i].length = len;
		q->sge[i].lkey = (uint32_t)test_rng_next(r);
	}
	q->wr.sg_list = q->sge;
	q->wr.num_sge = (int)n;
	if (c->qpt == WQE_QPT_UD) {
		q->ah.attr.port_num = 1;
		random_gid(r, &q->ah.attr.grh.dgid);
		random_gid(r, &q->ah.sgid);
		test_rng_fill(r, q->ah.attr.dmac, 6);
		q->ah.attr.grh.flow_label = (uint32_t)test_rng_below(r, 1u << 20);
		q->ah.attr.grh.sgid_index = (uint8_t)test_rng_below(r, 4);
		q->ah.attr.grh.hop_limit = (uint8_t)test_rng_next(r);
		q->ah.attr.grh.traffic_class = (uint8_t)test_rng_next(r);
		q->ah.ah_num = test_rng_below(r, 2) ? (uint32_t)test_rng_below(r, 1000) + 1 : 0;
		q->wr.wr.ud.ah = &q->ah;
		q->wr.wr.ud.remote_qpn = (uint32_t)test_rng_below(r, 1u << 24);
		q->wr.wr.ud.remote_qkey = (uint32_t)test_rng_next(r);
	} else if (gen_is_atomic(c->op)) {
		q->wr.wr.atomic.remote_addr = test_rng_next(r) & ~7ull;
		q->wr.wr.atomic.compare_add = test_rng_next(r);
		q->wr.wr.atomic.swap = test_rng_next(r);
		q->wr.wr.atomic.rkey = (uint32_t)test_rng_next(r);
	} else {
		q->wr.wr.rdma.remote_addr = test_rng_next(r);
		q->wr.wr.rdma.rkey = (uint32_t)test_rng_next(r);
	}
}

static void check_decode(const struct req *q, const uint8_t *slot, uint32_t bytes)
{
	struct wqe_decode_ctx ctx = {.qp_type = q->qp.qp_type, .max_bytes = bytes,
				     .qpn = q->qp.qpn};
	struct wqe_desc d;
	uint64_t total = 0;

	CHECK_EQ(wqe_decode(WQE_FORMAT_RXE, &ctx, slot, bytes, &d), WQE_DEC_OK);
	CHECK_EQ(d.format, WQE_FORMAT_RXE);
	CHECK_EQ(d.qpn, q->qp.qpn);
	CHECK_EQ(d.fence, !!(q->wr.send_flags & WQE_SEND_FENCE));
	CHECK_EQ(d.signaled, !!(q->wr.send_flags & WQE_SEND_SIGNALED));
	CHECK_EQ(d.solicited, !!(q->wr.send_flags & WQE_SEND_SOLICITED));
	CHECK_EQ(d.is_inline, !!(q->wr.send_flags & WQE_SEND_INLINE));
	for (int i = 0; i < q->wr.num_sge; i++)
		total += q->sge[i].length;
	CHECK_EQ(d.total_len, total);
	if (d.is_inline) {
		uint32_t off = 0;

		for (int i = 0; i < q->wr.num_sge; i++) {
			CHECK_MEM(d.inline_data + off, (const void *)(uintptr_t)q->sge[i].addr,
				  q->sge[i].length);
			off += q->sge[i].length;
		}
	} else {
		CHECK_EQ(d.num_sge, (uint32_t)q->wr.num_sge);
		for (int i = 0; i < q->wr.num_sge; i++) {
			CHECK_EQ(d.sge[i].addr, q->sge[i].addr);
			CHECK_EQ(d.sge[i].length, q->sge[i].length);
			CHECK_EQ(d.sge[i].lkey, q->sge[i].lkey);
		}
	}
	if (q->wr.opcode == WQE_WR_SEND_WITH_INV)
		CHECK_EQ(d.imm, q->wr.invalidate_rkey);
	if (q->wr.opcode == WQE_WR_SEND_WITH_IMM || q->wr.opcode == WQE_WR_RDMA_WRITE_WITH_IMM)
		CHECK_EQ(d.imm, be32toh(q->wr.imm_data));
	if (gen_is_atomic(q->wr.opcode)) {
		CHECK_EQ(d.remote_addr, q->wr.wr.atomic.remote_addr);
		CHECK_EQ(d.rkey, q->wr.wr.atomic.rkey);
		if (q->wr.opcode == WQE_WR_ATOMIC_CMP_AND_SWP) {
			CHECK_EQ(d.swap_add, q->wr.wr.atomic.swap);
			CHECK_EQ(d.compare, q->wr.wr.atomic.compare_add);
		} else {
			CHECK_EQ(d.swap_add, q->wr.wr.atomic.compare_add);
		}
	} else if (q->qp.qp_type == WQE_QPT_UD) {
		CHECK_EQ(d.ud.dqpn, q->wr.wr.ud.remote_qpn);
		CHECK_EQ(d.ud.qkey, q->wr.wr.ud.remote_qkey);
		CHECK_EQ(d.ud.ah_num, q->ah.ah_num);
		if (!q->ah.ah_num) {
			CHECK_MEM(d.ud.dgid.raw, q->ah.attr.grh.dgid.raw, 16);
			CHECK_MEM(d.ud.dmac, q->ah.attr.dmac, 6);
			CHECK_EQ(d.ud.flow_label, q->ah.attr.grh.flow_label);
			CHECK_EQ(d.ud.hop_limit, q->ah.attr.grh.hop_limit);
			CHECK_EQ(d.ud.tclass, q->ah.attr.grh.traffic_class);
			CHECK_EQ(d.ud.sgid_index, q->ah.attr.grh.sgid_index);
		}
	} else if (q->wr.opcode != WQE_WR_SEND && q->wr.opcode != WQE_WR_SEND_WITH_IMM &&
		   q->wr.opcode != WQE_WR_SEND_WITH_INV) {
		CHECK_EQ(d.remote_addr, q->wr.wr.rdma.remote_addr);
		CHECK_EQ(d.rkey, q->wr.wr.rdma.rkey);
	}
}

/* Each malformed slot is refused, and every truncation too. */
static void check_malformed(const struct req *q, const uint8_t *slot, uint32_t bytes)
{
	struct wqe_decode_ctx ctx = {.qp_type = q->qp.qp_type, .max_bytes = bytes,
				     .qpn = q->qp.qpn};
	uint8_t *b = malloc(bytes);
	struct wqe_desc d;
	static const struct {
		size_t off;
		uint32_t val;
		enum wqe_decode_err want;
	} bad[] = {
		{12, 7, WQE_DEC_BAD_OPCODE},       /* LOCAL_INV: not modelled */
		{12, 0x100, WQE_DEC_BAD_OPCODE},
		{16, 1u << 4, WQE_DEC_BAD_FIELD},  /* unknown send flag */
		{148, 1, WQE_DEC_BAD_FIELD},       /* state: not "posted" */
		{144, 5, WQE_DEC_BAD_FIELD},       /* status set */
		{192, 1, WQE_DEC_BAD_FIELD},       /* cur_sge consumed */
		{188, 12345, WQE_DEC_BAD_FIELD},   /* resid != length */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(b, slot, bytes);
		b[bad[i].off] = (uint8_t)bad[i].val;
		b[bad[i].off + 1] = (uint8_t)(bad[i].val >> 8);
		CHECK_EQ(wqe_decode(WQE_FORMAT_RXE, &ctx, b, bytes, &d), bad[i].want);
	}
	if (!(q->wr.send_flags & WQE_SEND_INLINE)) {
		memcpy(b, slot, bytes);
		b[196] = 0xff; /* num_sge far past the slot */
		CHECK(wqe_decode(WQE_FORMAT_RXE, &ctx, b, bytes, &d) != WQE_DEC_OK);
	} else {
		memcpy(b, slot, bytes);
		b[184] = 0xff; /* inline length past the slot */
		b[185] = 0xff;
		b[188] = 0xff;
		b[189] = 0xff;
		CHECK_EQ(wqe_decode(WQE_FORMAT_RXE, &ctx, b, bytes, &d), WQE_DEC_BAD_INLINE);
	}
	for (uint32_t n = 0; n < 208; n += 13)
		CHECK_EQ(wqe_decode(WQE_FORMAT_RXE, &ctx, slot, n, &d), WQE_DEC_TRUNCATED);
	free(b);
}

int main(void)
{
	static struct gen_case cases[GEN_MAX_CASES];
	size_t ncases = gen_cases(cases, GEN_MAX_CASES);
	struct test_rng rng;
	unsigned long n = 0;

	test_rng_seed(&rng, 0x5eed);
	test_rng_fill(&rng, payload, sizeof(payload));
	for (int round = 0; round < 6; round++)
		for (size_t c = 0; c < ncases; c++, n++) {
			struct req q;
			uint32_t bytes, nb, slot;
			uint8_t *ring, *exp;

			make(&rng, &cases[c], &q);
			CHECK_EQ(wqe_encoded_size(WQE_FORMAT_RXE, &q.qp, &q.wr, &bytes), 0);
			nb = bytes / WQE_BLOCK_SIZE;
			ring = aligned_alloc(64, (size_t)bytes * SLOTS);
			exp = aligned_alloc(64, (size_t)bytes * SLOTS);
			test_rng_fill(&rng, ring, (size_t)bytes * SLOTS);
			memcpy(exp, ring, (size_t)bytes * SLOTS);
			slot = (uint32_t)test_rng_below(&rng, SLOTS);
			{
				struct wqe_ring_view v = {ring, nb * SLOTS};
				uint8_t *e = exp + (size_t)slot * bytes;

				memset(e, 0, bytes);
				provider_fill((struct rxe_send_wqe *)(void *)e, q.qp.qp_type, &q.wr);
				CHECK_EQ(wqe_encode(WQE_FORMAT_RXE, &q.qp, &q.wr, &v, slot * nb,
						    (uint32_t)test_rng_next(&rng), &nb), 0);
			}
			CHECK_MEM(ring, exp, (size_t)bytes * SLOTS);
			check_decode(&q, ring + (size_t)slot * bytes, bytes);
			if (round == 0)
				check_malformed(&q, ring + (size_t)slot * bytes, bytes);
			free(ring);
			free(exp);
		}
	printf("%lu requests compared with struct rxe_send_wqe\n", n);
	CHECK(n >= 1000);
	return test_finish();
}
