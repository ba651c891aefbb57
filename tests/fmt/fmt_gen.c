/* SPDX-License-Identifier: MIT */
#include "fmt_gen.h"

#include <string.h>

static const enum wqe_wr_opcode all_ops[] = {
	WQE_WR_RDMA_WRITE, WQE_WR_RDMA_WRITE_WITH_IMM, WQE_WR_SEND,
	WQE_WR_SEND_WITH_IMM, WQE_WR_RDMA_READ, WQE_WR_ATOMIC_CMP_AND_SWP,
	WQE_WR_ATOMIC_FETCH_AND_ADD, WQE_WR_SEND_WITH_INV,
};

static bool legal(enum wqe_qp_type t, enum wqe_wr_opcode op)
{
	switch (t) {
	case WQE_QPT_RC:
		return true;
	case WQE_QPT_UC:
		return op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM ||
		       op == WQE_WR_RDMA_WRITE || op == WQE_WR_RDMA_WRITE_WITH_IMM;
	case WQE_QPT_UD:
		return op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM;
	}
	return false;
}

bool gen_is_atomic(enum wqe_wr_opcode op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

static bool inline_ok(enum wqe_wr_opcode op)
{
	return op != WQE_WR_RDMA_READ && !gen_is_atomic(op);
}

size_t gen_cases(struct gen_case *cases, size_t max)
{
	static const enum wqe_qp_type types[] = { WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD };
	size_t n = 0, ti, oi;
	unsigned int f;
	int sig;

	for (ti = 0; ti < 3; ti++)
		for (oi = 0; oi < sizeof(all_ops) / sizeof(all_ops[0]); oi++)
			for (f = 0; f < 16; f++)
				for (sig = 0; sig < 2; sig++) {
					if (!legal(types[ti], all_ops[oi]))
						continue;
					if ((f & WQE_SEND_INLINE) && !inline_ok(all_ops[oi]))
						continue;
					if (n < max)
						cases[n] = (struct gen_case){ types[ti], all_ops[oi], f,
									      sig };
					n++;
				}
	return n;
}

uint32_t gen_transport_ds(enum wqe_qp_type t, enum wqe_wr_opcode op)
{
	switch (t) {
	case WQE_QPT_RC:
		if (gen_is_atomic(op))
			return 2;
		return op == WQE_WR_RDMA_READ || op == WQE_WR_RDMA_WRITE ||
		       op == WQE_WR_RDMA_WRITE_WITH_IMM;
	case WQE_QPT_UC:
		return op == WQE_WR_RDMA_WRITE || op == WQE_WR_RDMA_WRITE_WITH_IMM;
	case WQE_QPT_UD:
		return 3;
	}
	return 0;
}

static uint32_t rand_len(struct test_rng *r, bool strict)
{
	switch (test_rng_below(r, 6)) {
	case 0:
		return 0;
	case 1:
	case 2:
		return (uint32_t)test_rng_below(r, 64) + 1;
	case 3:
		return (uint32_t)test_rng_below(r, 65536) + 1;
	default:
		if (strict)
			return (uint32_t)test_rng_below(r, (1u << 31) - 1) + 1;
		return (uint32_t)test_rng_next(r) | 1;
	}
}

/* Splits @total over @n SGEs pointing into g->payload (some empty). */
static void gen_inline_sges(struct test_rng *r, struct gen_req *g, uint32_t total, int n)
{
	uint32_t off = 0;
	int i;

	for (i = 0; i < n; i++) {
		uint32_t left = total - off;
		uint32_t len = i == n - 1 ? left : (uint32_t)test_rng_below(r, left + 1);

		if (test_rng_below(r, 4) == 0 && i != n - 1)
			len = 0;
		g->sge[i].addr = (uint64_t)(uintptr_t)(g->payload + off);
		g->sge[i].length = len;
		g->sge[i].lkey = (uint32_t)test_rng_next(r);
		off += len;
	}
}

static uint32_t pick_total(struct test_rng *r, uint32_t max)
{
	switch (test_rng_below(r, 5)) {
	case 0:
		return 0;
	case 1:
		return max;
	case 2:
		return max < 29 ? max : 28 + (uint32_t)test_rng_below(r, 2);
	default:
		return (uint32_t)test_rng_below(r, (uint64_t)max + 1);
	}
}

static void gen_data(struct test_rng *r, const struct gen_case *c, bool strict,
		     struct gen_req *g)
{
	uint32_t room = 62 - gen_transport_ds(c->qpt, c->op);
	int i;

	g->qp.max_send_sge = 1 + (uint32_t)test_rng_below(r, room < GEN_MAX_SGE ? room : GEN_MAX_SGE);
	g->qp.max_inline_data = (uint32_t)test_rng_below(r, room * 16 - 4 + 1);
	g->wr.sg_list = g->sge;
	g->wr.num_sge = (int)test_rng_below(r, g->qp.max_send_sge + 1);
	if (c->flags & WQE_SEND_INLINE) {
		g->inline_total = pick_total(r, g->qp.max_inline_data);
		if (g->inline_total && g->wr.num_sge == 0)
			g->wr.num_sge = 1;
		gen_inline_sges(r, g, g->inline_total, g->wr.num_sge);
		return;
	}
	for (i = 0; i < g->wr.num_sge; i++) {
		g->sge[i].addr = test_rng_next(r);
		g->sge[i].length = rand_len(r, strict);
		g->sge[i].lkey = (uint32_t)test_rng_next(r);
	}
	if (strict && gen_is_atomic(c->op)) {
		g->wr.num_sge = 1;
		g->sge[0].length = 8;
	}
}

static void gen_ah(struct test_rng *r, struct wqe_ah *ah)
{
	struct wqe_ah_attr *a = &ah->attr;
	static const uint8_t v4_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(ah, 0, sizeof(*ah));
	test_rng_fill(r, a->grh.dgid.raw, sizeof(a->grh.dgid.raw));
	if (test_rng_below(r, 2))
		memcpy(a->grh.dgid.raw, v4_prefix, sizeof(v4_prefix));
	/* out-of-range values now and then: the encoder masks as the provider */
	a->grh.flow_label = (uint32_t)test_rng_next(r);
	if (test_rng_below(r, 2))
		a->grh.flow_label &= 0xfffff;
	a->grh.sgid_index = (uint8_t)test_rng_next(r);
	a->grh.hop_limit = (uint8_t)test_rng_next(r);
	a->grh.traffic_class = (uint8_t)test_rng_next(r);
	a->sl = (uint8_t)(test_rng_below(r, 4) ? test_rng_below(r, 8) : test_rng_next(r));
	a->port_num = 1;
	test_rng_fill(r, a->dmac, sizeof(a->dmac));
	a->udp_sport = (uint16_t)(0xc000 | test_rng_next(r));
}

static void gen_ring(struct test_rng *r, struct gen_req *g)
{
	static const uint32_t sizes[] = { 16, 32, 64, 128, GEN_MAX_RING_BLOCKS };

	g->ring_blocks = sizes[test_rng_below(r, 5)];
	switch (test_rng_below(r, 3)) {
	case 0: /* near the end, so that most WQEs wrap */
		g->slot = g->ring_blocks - 1 - (uint32_t)test_rng_below(r, 16);
		break;
	case 1: /* anywhere, taken modulo the ring */
		g->slot = (uint32_t)test_rng_next(r);
		break;
	default:
		g->slot = (uint32_t)test_rng_below(r, g->ring_blocks);
	}
	g->wqe_index = (uint32_t)test_rng_next(r);
}

void gen_request(struct test_rng *r, const struct gen_case *c, bool strict, struct gen_req *g)
{
	memset(g, 0, sizeof(*g));
	test_rng_fill(r, g->payload, sizeof(g->payload));
	g->qp.qp_type = c->qpt;
	g->qp.qpn = (uint32_t)test_rng_next(r) & (test_rng_below(r, 8) ? 0xffffffu : 0xffffffffu);
	if (strict)
		g->qp.qpn &= 0xffffff;
	g->qp.sq_sig_all = c->sig_all;
	g->wr.wr_id = test_rng_next(r);
	g->wr.opcode = c->op;
	g->wr.send_flags = c->flags;
	g->wr.imm_data = (uint32_t)test_rng_next(r);
	gen_data(r, c, strict, g);
	if (c->qpt == WQE_QPT_UD) {
		gen_ah(r, &g->ah);
		g->wr.wr.ud.ah = &g->ah;
		g->wr.wr.ud.remote_qpn = (uint32_t)test_rng_next(r) & 0xffffff;
		g->wr.wr.ud.remote_qkey = (uint32_t)test_rng_next(r);
	} else if (gen_is_atomic(c->op)) {
		g->wr.wr.atomic.remote_addr = test_rng_next(r);
		g->wr.wr.atomic.compare_add = test_rng_next(r);
		g->wr.wr.atomic.swap = test_rng_next(r);
		g->wr.wr.atomic.rkey = (uint32_t)test_rng_next(r);
	} else {
		g->wr.wr.rdma.remote_addr = test_rng_next(r);
		g->wr.wr.rdma.rkey = (uint32_t)test_rng_next(r);
	}
	gen_ring(r, g);
}
