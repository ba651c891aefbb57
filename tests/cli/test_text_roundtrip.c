/* SPDX-License-Identifier: MIT */
/*
 * wqe_format_send_wr(): parse(format(x)) == x for random requests on every
 * transport, the format is a fixed point, the snprintf-style length, and
 * the requests it refuses.
 */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "wqe/text.h"

#define ROUNDS 20000

/* A random request and its storage. */
struct gen {
	struct wqe_send_wr wr;
	struct wqe_sge sge[WQE_DESC_MAX_SGE];
	struct wqe_ah ah;
	uint8_t payload[600];
	uint32_t payload_len;
};

static const enum wqe_wr_opcode ops[] = {
	WQE_WR_SEND,       WQE_WR_SEND_WITH_IMM,       WQE_WR_SEND_WITH_INV,
	WQE_WR_RDMA_WRITE, WQE_WR_RDMA_WRITE_WITH_IMM, WQE_WR_RDMA_READ,
	WQE_WR_ATOMIC_CMP_AND_SWP, WQE_WR_ATOMIC_FETCH_AND_ADD,
};

static int is_send(enum wqe_wr_opcode op)
{
	return op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_SEND_WITH_INV;
}

static int is_atomic(enum wqe_wr_opcode op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

static int has_imm(enum wqe_wr_opcode op)
{
	return op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_RDMA_WRITE_WITH_IMM;
}

static void gen_data(struct test_rng *r, struct gen *g)
{
	if (test_rng_below(r, 3) == 0) {
		/* inline: the payload split over up to 3 SGEs */
		uint32_t n = (uint32_t)test_rng_below(r, sizeof(g->payload) + 1), off = 0;
		int k = 1 + (int)test_rng_below(r, 3);

		test_rng_fill(r, g->payload, n);
		g->payload_len = n;
		g->wr.send_flags |= WQE_SEND_INLINE;
		for (int i = 0; i < k; i++) {
			uint32_t len = i == k - 1 ? n - off : (uint32_t)test_rng_below(r, n - off + 1);

			g->sge[i].addr = (uint64_t)(uintptr_t)(g->payload + off);
			g->sge[i].length = len;
			g->sge[i].lkey = (uint32_t)test_rng_edge(r, 32);
			off += len;
		}
		g->wr.num_sge = k;
		return;
	}
	g->wr.num_sge = (int)test_rng_below(r, 8);
	if (test_rng_below(r, 50) == 0)
		g->wr.num_sge = WQE_DESC_MAX_SGE;
	for (int i = 0; i < g->wr.num_sge; i++) {
		g->sge[i].addr = test_rng_edge(r, 64);
		g->sge[i].length = (uint32_t)test_rng_edge(r, 32);
		g->sge[i].lkey = (uint32_t)test_rng_edge(r, 32);
	}
}

static void gen_ud(struct test_rng *r, struct gen *g)
{
	struct wqe_ah_attr *a = &g->ah.attr;

	g->wr.wr.ud.ah = &g->ah;
	g->wr.wr.ud.remote_qpn = (uint32_t)test_rng_edge(r, 24);
	g->wr.wr.ud.remote_qkey = (uint32_t)test_rng_edge(r, 32);
	a->port_num = 1;
	a->udp_sport = (uint16_t)test_rng_edge(r, 16);
	a->sl = (uint8_t)test_rng_edge(r, 3);
	a->grh.hop_limit = (uint8_t)test_rng_edge(r, 8);
	a->grh.traffic_class = (uint8_t)test_rng_edge(r, 8);
	a->grh.flow_label = (uint32_t)test_rng_edge(r, 20);
	a->grh.sgid_index = (uint8_t)test_rng_edge(r, 8);
	test_rng_fill(r, a->dmac, 6);
	switch (test_rng_below(r, 3)) {
	case 0: break; /* all zero */
	case 1:
		a->grh.dgid.raw[10] = 0xff;
		a->grh.dgid.raw[11] = 0xff;
		test_rng_fill(r, a->grh.dgid.raw + 12, 4);
		break;
	default: test_rng_fill(r, a->grh.dgid.raw, 16); break;
	}
}

static void gen_remote(struct test_rng *r, struct gen *g, enum wqe_qp_type t)
{
	enum wqe_wr_opcode op = g->wr.opcode;

	if (has_imm(op))
		test_rng_fill(r, &g->wr.imm_data, 4);
	if (op == WQE_WR_SEND_WITH_INV)
		g->wr.invalidate_rkey = (uint32_t)test_rng_edge(r, 32);
	if (is_atomic(op)) {
		g->wr.wr.atomic.remote_addr = test_rng_edge(r, 64);
		g->wr.wr.atomic.rkey = (uint32_t)test_rng_edge(r, 32);
		g->wr.wr.atomic.compare_add = test_rng_edge(r, 64);
		if (op == WQE_WR_ATOMIC_CMP_AND_SWP)
			g->wr.wr.atomic.swap = test_rng_edge(r, 64);
	} else if (!is_send(op)) {
		g->wr.wr.rdma.remote_addr = test_rng_edge(r, 64);
		g->wr.wr.rdma.rkey = (uint32_t)test_rng_edge(r, 32);
	} else if (t == WQE_QPT_UD) {
		gen_ud(r, g);
	}
}

static void gen_wr(struct test_rng *r, struct gen *g, enum wqe_qp_type t)
{
	memset(g, 0, sizeof(*g));
	g->wr.opcode = ops[test_rng_below(r, sizeof(ops) / sizeof(ops[0]))];
	g->wr.wr_id = test_rng_edge(r, 64);
	g->wr.sg_list = g->sge;
	g->wr.send_flags = (unsigned int)test_rng_below(r, 8); /* fence, signaled, solicited */
	gen_data(r, g);
	gen_remote(r, g, t);
}

static void check_data(const struct gen *g, const struct wqe_text_wr *p)
{
	if (g->wr.send_flags & WQE_SEND_INLINE) {
		CHECK_EQ(p->inline_len, g->payload_len);
		CHECK_MEM(p->inline_data, g->payload, g->payload_len);
		CHECK_EQ(p->wr.num_sge, g->payload_len ? 1 : 0);
		return;
	}
	CHECK_EQ(p->wr.num_sge, g->wr.num_sge);
	for (int i = 0; i < g->wr.num_sge && i < p->wr.num_sge; i++) {
		CHECK_EQ(p->sge[i].addr, g->sge[i].addr);
		CHECK_EQ(p->sge[i].length, g->sge[i].length);
		CHECK_EQ(p->sge[i].lkey, g->sge[i].lkey);
	}
}

static void check_ud(const struct gen *g, const struct wqe_text_wr *p)
{
	const struct wqe_ah_attr *a = &g->ah.attr, *b = &p->ah.attr;

	CHECK(p->wr.wr.ud.ah == &p->ah);
	CHECK_EQ(p->wr.wr.ud.remote_qpn, g->wr.wr.ud.remote_qpn);
	CHECK_EQ(p->wr.wr.ud.remote_qkey, g->wr.wr.ud.remote_qkey);
	CHECK_EQ(b->udp_sport, a->udp_sport);
	CHECK_EQ(b->sl, a->sl);
	CHECK_EQ(b->port_num, 1);
	CHECK_EQ(b->grh.hop_limit, a->grh.hop_limit);
	CHECK_EQ(b->grh.traffic_class, a->grh.traffic_class);
	CHECK_EQ(b->grh.flow_label, a->grh.flow_label);
	CHECK_EQ(b->grh.sgid_index, a->grh.sgid_index);
	CHECK_MEM(b->dmac, a->dmac, 6);
	CHECK_MEM(b->grh.dgid.raw, a->grh.dgid.raw, 16);
}

/* The fields the opcode uses are equal; the parsed struct is self-contained. */
static void check_same(const struct gen *g, const struct wqe_text_wr *p, enum wqe_qp_type t)
{
	enum wqe_wr_opcode op = g->wr.opcode;

	CHECK_EQ(p->wr.opcode, op);
	CHECK_EQ(p->wr.wr_id, g->wr.wr_id);
	CHECK_EQ(p->wr.send_flags, g->wr.send_flags);
	CHECK(p->wr.next == NULL);
	CHECK(p->wr.sg_list == p->sge);
	check_data(g, p);
	if (has_imm(op))
		CHECK_EQ(p->wr.imm_data, g->wr.imm_data);
	if (op == WQE_WR_SEND_WITH_INV)
		CHECK_EQ(p->wr.invalidate_rkey, g->wr.invalidate_rkey);
	if (is_atomic(op)) {
		CHECK_EQ(p->wr.wr.atomic.remote_addr, g->wr.wr.atomic.remote_addr);
		CHECK_EQ(p->wr.wr.atomic.rkey, g->wr.wr.atomic.rkey);
		CHECK_EQ(p->wr.wr.atomic.compare_add, g->wr.wr.atomic.compare_add);
		if (op == WQE_WR_ATOMIC_CMP_AND_SWP)
			CHECK_EQ(p->wr.wr.atomic.swap, g->wr.wr.atomic.swap);
	} else if (!is_send(op)) {
		CHECK_EQ(p->wr.wr.rdma.remote_addr, g->wr.wr.rdma.remote_addr);
		CHECK_EQ(p->wr.wr.rdma.rkey, g->wr.wr.rdma.rkey);
	} else if (t == WQE_QPT_UD) {
		check_ud(g, p);
	}
}

static struct gen g;
static struct wqe_text_wr parsed;
static char line[WQE_TEXT_LINE_MAX], line2[WQE_TEXT_LINE_MAX];

static void round_trip(struct test_rng *r, enum wqe_qp_type t)
{
	struct wqe_text_opts opts = {t, NULL, NULL};
	struct wqe_text_err err;
	unsigned long before = test_failures;
	int n, n2;

	gen_wr(r, &g, t);
	n = wqe_format_send_wr(&g.wr, t, line, sizeof(line));
	CHECK(n > 0 && (size_t)n < sizeof(line));
	CHECK_EQ(strlen(line), (size_t)n);
	CHECK_EQ(wqe_parse_send_wr(line, (size_t)n, &opts, &parsed, &err), 0);
	check_same(&g, &parsed, t);
	/* formatting the parsed request gives the same text */
	n2 = wqe_format_send_wr(&parsed.wr, t, line2, sizeof(line2));
	CHECK_EQ(n2, n);
	CHECK(strcmp(line, line2) == 0);
	if (test_failures != before)
		fprintf(stderr, "  %s QP: %s\n  parse: %u %s\n", wqe_qp_type_str(t), line,
			err.column, err.msg);
}

static void test_limits(void)
{
	static const enum wqe_qp_type ts[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};
	static uint8_t big[WQE_TEXT_MAX_INLINE + 1];
	struct wqe_sge sge[2];
	char small[8];

	/* the longest lines the parser can produce fit WQE_TEXT_LINE_MAX */
	memset(&g, 0, sizeof(g));
	g.wr.opcode = WQE_WR_ATOMIC_CMP_AND_SWP;
	g.wr.wr_id = UINT64_MAX;
	g.wr.sg_list = g.sge;
	g.wr.num_sge = WQE_DESC_MAX_SGE;
	g.wr.send_flags = WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED;
	for (unsigned int i = 0; i < WQE_DESC_MAX_SGE; i++)
		g.sge[i] = (struct wqe_sge){UINT64_MAX, UINT32_MAX, UINT32_MAX};
	g.wr.wr.atomic.remote_addr = UINT64_MAX;
	g.wr.wr.atomic.compare_add = UINT64_MAX;
	g.wr.wr.atomic.swap = UINT64_MAX;
	g.wr.wr.atomic.rkey = UINT32_MAX;
	CHECK(wqe_format_send_wr(&g.wr, WQE_QPT_RC, NULL, 0) < (int)WQE_TEXT_LINE_MAX);
	for (size_t i = 0; i < 3; i++) {
		memset(&g, 0, sizeof(g));
		g.wr.opcode = WQE_WR_SEND_WITH_IMM;
		g.wr.wr_id = UINT64_MAX;
		g.wr.sg_list = sge;
		g.wr.num_sge = 1;
		g.wr.send_flags = 0xf;
		sge[0] = (struct wqe_sge){(uint64_t)(uintptr_t)big, WQE_TEXT_MAX_INLINE, 0};
		memset(g.ah.attr.grh.dgid.raw, 0xff, 16);
		memset(g.ah.attr.dmac, 0xff, 6);
		g.ah.attr.udp_sport = 65535;
		g.ah.attr.sl = 7;
		g.ah.attr.grh.hop_limit = 255;
		g.ah.attr.grh.traffic_class = 255;
		g.ah.attr.grh.flow_label = 0xfffff;
		g.ah.attr.grh.sgid_index = 255;
		g.wr.wr.ud.ah = &g.ah;
		g.wr.wr.ud.remote_qpn = 0xffffff;
		g.wr.wr.ud.remote_qkey = UINT32_MAX;
		CHECK(wqe_format_send_wr(&g.wr, ts[i], NULL, 0) < (int)WQE_TEXT_LINE_MAX);
	}
	/* snprintf semantics: the full length, a NUL-terminated prefix */
	memset(&g, 0, sizeof(g));
	g.wr.opcode = WQE_WR_RDMA_WRITE;
	g.wr.wr.rdma.remote_addr = 0x1000;
	CHECK_EQ(wqe_format_send_wr(&g.wr, WQE_QPT_RC, small, sizeof(small)),
		 strlen("write raddr=0x1000 rkey=0x0"));
	CHECK(strcmp(small, "write r") == 0);
	CHECK_EQ(wqe_format_send_wr(&g.wr, WQE_QPT_RC, line, sizeof(line)), 27);
	CHECK(strcmp(line, "write raddr=0x1000 rkey=0x0") == 0);

	/* refused */
	CHECK_EQ(wqe_format_send_wr(NULL, WQE_QPT_RC, line, sizeof(line)), -EINVAL);
	g.wr.opcode = (enum wqe_wr_opcode)7;
	CHECK_EQ(wqe_format_send_wr(&g.wr, WQE_QPT_RC, line, sizeof(line)), -EINVAL);
	CHECK_EQ(line[0], '\0');
	g.wr.opcode = WQE_WR_SEND;
	g.wr.send_flags = 0x10;
	CHECK_EQ(wqe_format_send_wr(&g.wr, WQE_QPT_RC, line, sizeof(line)), -EINVAL);
	g.wr.send_flags = 0;
	g.wr.num_sge = -1;
	CHECK_EQ(wqe_format_send_wr(&g.wr, WQE_QPT_RC, line, sizeof(line)), -EINVAL);
	g.wr.num_sge = WQE_DESC_MAX_SGE + 1;
	g.wr.sg_list = g.sge;
	CHECK_EQ(wqe_format_send_wr(&g.wr, WQE_QPT_RC, line, sizeof(line)), -EINVAL);
	g.wr.num_sge = 1;
	g.wr.sg_list = NULL;
	CHECK_EQ(wqe_format_send_wr(&g.wr, WQE_QPT_RC, line, sizeof(line)), -EINVAL);
	g.wr.sg_list = sge;
	g.wr.send_flags = WQE_SEND_INLINE;
	sge[0] = (struct wqe_sge){(uint64_t)(uintptr_t)big, WQE_TEXT_MAX_INLINE, 0};
	sge[1] = (struct wqe_sge){(uint64_t)(uintptr_t)big, 1, 0};
	g.wr.num_sge = 2;
	CHECK_EQ(wqe_format_send_wr(&g.wr, WQE_QPT_RC, line, sizeof(line)), -EINVAL);
	/* a UD send without an address handle still formats its QPN and Q_Key */
	memset(&g, 0, sizeof(g));
	g.wr.opcode = WQE_WR_SEND;
	g.wr.wr.ud.remote_qpn = 0x456;
	CHECK(wqe_format_send_wr(&g.wr, WQE_QPT_UD, line, sizeof(line)) > 0);
	CHECK(strcmp(line, "send dqpn=0x000456 qkey=0x0") == 0);
}

int main(void)
{
	static const enum wqe_qp_type ts[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};
	struct test_rng r;

	test_rng_seed(&r, 0x7e57fa11);
	for (int i = 0; i < ROUNDS; i++)
		round_trip(&r, ts[i % 3]);
	test_limits();
	return test_finish();
}
