/* SPDX-License-Identifier: MIT */
#include "wire_gen.h"

#include <string.h>

int gen_opcodes(uint8_t *ops, int max)
{
	struct wqe_wire_opinfo info;
	int n = 0;

	for (unsigned op = 0; op < 256 && n < max; op++)
		if (wqe_wire_opcode_info((uint8_t)op, &info) == 0)
			ops[n++] = (uint8_t)op;
	return n;
}

static uint32_t rnd(struct test_rng *r, unsigned bits)
{
	return (uint32_t)(test_rng_next(r) & ((1ull << bits) - 1));
}

static void gen_addr(struct test_rng *r, struct wqe_pkt *p)
{
	test_rng_fill(r, p->dmac, 6);
	test_rng_fill(r, p->smac, 6);
	test_rng_fill(r, p->src.raw, 16);
	test_rng_fill(r, p->dst.raw, 16);
	if (p->ipver == 4) {
		memset(p->src.raw, 0, 10);
		memset(p->src.raw + 10, 0xff, 2);
		memset(p->dst.raw, 0, 10);
		memset(p->dst.raw + 10, 0xff, 2);
	}
	p->has_vlan = (uint8_t)rnd(r, 1);
	if (p->has_vlan) {
		p->vlan_tpid = rnd(r, 1) ? 0x8100 : 0x88a8;
		p->vlan_tci = (uint16_t)rnd(r, 16);
	}
	p->tos = (uint8_t)rnd(r, 8);
	p->ttl = (uint8_t)rnd(r, 8);
	p->flow_label = p->ipver == 6 ? rnd(r, 20) : 0;
	p->ip_id = p->ipver == 4 ? (uint16_t)rnd(r, 16) : 0;
	p->ip_flags = p->ipver == 4 ? (uint8_t)(rnd(r, 1) << 1) : 0;
	p->sport = (uint16_t)(0xc000u | rnd(r, 14)); /* rxe: 49152-65535 */
	p->dport = WQE_ROCEV2_PORT;
	if (rnd(r, 1))
		p->opts |= WQE_PKT_OPT_UDP_CSUM;
}

static void gen_bth(struct test_rng *r, uint8_t opcode, struct wqe_bth *b)
{
	b->opcode = opcode;
	b->se = (uint8_t)rnd(r, 1);
	b->migreq = (uint8_t)rnd(r, 1);
	b->tver = (uint8_t)rnd(r, 4);
	b->pkey = (uint16_t)rnd(r, 16);
	b->fecn = (uint8_t)rnd(r, 1);
	b->becn = (uint8_t)rnd(r, 1);
	b->resv6 = (uint8_t)rnd(r, 6);
	b->destqp = rnd(r, 24);
	b->ackreq = (uint8_t)rnd(r, 1);
	b->resv7 = (uint8_t)rnd(r, 7);
	b->psn = rnd(r, 24);
}

static void gen_ext(struct test_rng *r, struct wqe_pkt *p)
{
	p->reth.va = test_rng_next(r);
	p->reth.rkey = rnd(r, 32);
	p->reth.dma_len = rnd(r, 32);
	p->aeth.syndrome = (uint8_t)rnd(r, 8);
	p->aeth.msn = rnd(r, 24);
	p->atomiceth.va = test_rng_next(r);
	p->atomiceth.rkey = rnd(r, 32);
	p->atomiceth.swap_add = test_rng_next(r);
	p->atomiceth.compare = test_rng_next(r);
	p->atomicacketh.orig = test_rng_next(r);
	p->immdt.imm = rnd(r, 32);
	p->ieth.rkey = rnd(r, 32);
	p->deth.qkey = rnd(r, 32);
	p->deth.resv8 = (uint8_t)rnd(r, 8);
	p->deth.srcqp = rnd(r, 24);
	test_rng_fill(r, p->cnp.rsvd, sizeof(p->cnp.rsvd));
}

void gen_pkt(struct test_rng *r, uint8_t opcode, int ipver, struct wqe_pkt *p, uint8_t *payload,
	     uint32_t max, uint32_t *payload_len)
{
	struct wqe_wire_opinfo info;

	memset(p, 0, sizeof(*p));
	p->ipver = (uint8_t)ipver;
	gen_addr(r, p);
	gen_bth(r, opcode, &p->bth);
	gen_ext(r, p);
	*payload_len = 0;
	if (wqe_wire_opcode_info(opcode, &info) == 0 && info.has_payload && max)
		*payload_len = (uint32_t)test_rng_below(r, (uint64_t)max + 1);
	test_rng_fill(r, payload, *payload_len);
	p->bth.padcnt = (uint8_t)((0u - *payload_len) & 3u);
}

size_t gen_frame(const struct wqe_pkt *p, const uint8_t *payload, uint32_t payload_len,
		 uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (wqe_pkt_build(p, payload, payload_len, out, cap, &n))
		return 0;
	return n;
}

static void check_bth(const struct wqe_bth *a, const struct wqe_bth *b)
{
	CHECK_EQ(a->opcode, b->opcode);
	CHECK_EQ(a->se, b->se);
	CHECK_EQ(a->migreq, b->migreq);
	CHECK_EQ(a->padcnt, b->padcnt);
	CHECK_EQ(a->tver, b->tver);
	CHECK_EQ(a->pkey, b->pkey);
	CHECK_EQ(a->fecn, b->fecn);
	CHECK_EQ(a->becn, b->becn);
	CHECK_EQ(a->resv6, b->resv6);
	CHECK_EQ(a->destqp, b->destqp);
	CHECK_EQ(a->ackreq, b->ackreq);
	CHECK_EQ(a->resv7, b->resv7);
	CHECK_EQ(a->psn, b->psn);
}

static void check_ext(const struct wqe_pkt *a, const struct wqe_pkt *b)
{
	uint32_t m = a->hdrs | b->hdrs;

	if (m & WQE_HDR_RETH) {
		CHECK_EQ(a->reth.va, b->reth.va);
		CHECK_EQ(a->reth.rkey, b->reth.rkey);
		CHECK_EQ(a->reth.dma_len, b->reth.dma_len);
	}
	if (m & WQE_HDR_AETH) {
		CHECK_EQ(a->aeth.syndrome, b->aeth.syndrome);
		CHECK_EQ(a->aeth.msn, b->aeth.msn);
	}
	if (m & WQE_HDR_ATOMICETH) {
		CHECK_EQ(a->atomiceth.va, b->atomiceth.va);
		CHECK_EQ(a->atomiceth.rkey, b->atomiceth.rkey);
		CHECK_EQ(a->atomiceth.swap_add, b->atomiceth.swap_add);
		CHECK_EQ(a->atomiceth.compare, b->atomiceth.compare);
	}
	if (m & WQE_HDR_ATOMICACKETH)
		CHECK_EQ(a->atomicacketh.orig, b->atomicacketh.orig);
	if (m & WQE_HDR_IMMDT)
		CHECK_EQ(a->immdt.imm, b->immdt.imm);
	if (m & WQE_HDR_IETH)
		CHECK_EQ(a->ieth.rkey, b->ieth.rkey);
	if (m & WQE_HDR_DETH) {
		CHECK_EQ(a->deth.qkey, b->deth.qkey);
		CHECK_EQ(a->deth.resv8, b->deth.resv8);
		CHECK_EQ(a->deth.srcqp, b->deth.srcqp);
	}
	if (m & WQE_HDR_CNP)
		CHECK_MEM(a->cnp.rsvd, b->cnp.rsvd, 16);
}

void gen_check_same(const struct wqe_pkt *a, const struct wqe_pkt *b)
{
	CHECK_MEM(a->dmac, b->dmac, 6);
	CHECK_MEM(a->smac, b->smac, 6);
	CHECK_EQ(a->has_vlan, b->has_vlan);
	if (a->has_vlan && b->has_vlan)
		CHECK_EQ(a->vlan_tci, b->vlan_tci);
	CHECK_EQ(a->ipver, b->ipver);
	CHECK_MEM(a->src.raw, b->src.raw, 16);
	CHECK_MEM(a->dst.raw, b->dst.raw, 16);
	CHECK_EQ(a->tos, b->tos);
	CHECK_EQ(a->ttl, b->ttl);
	CHECK_EQ(a->flow_label, b->flow_label);
	CHECK_EQ(a->ip_id, b->ip_id);
	CHECK_EQ(a->ip_flags, b->ip_flags);
	CHECK_EQ(a->sport, b->sport);
	CHECK_EQ(a->dport, b->dport);
	check_bth(&a->bth, &b->bth);
	check_ext(a, b);
}
