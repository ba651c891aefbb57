/* SPDX-License-Identifier: MIT */
/*
 * The engine's request packets against oracles we did not write.
 *
 * Every operation family on every transport it is legal on (RC: all eight;
 * UC: SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM; UD: SEND,
 * SEND_WITH_IMM), PMTU 256, 1024 and 4096, messages of 0, 1, PMTU - 1,
 * PMTU, PMTU + 1 and 3 x PMTU + 2 bytes (atomics 8; UD up to 4096), inline
 * where legal and it fits and not, SOLICITED and not: each request is
 * posted on a QP of its own (no peer ever answers an RC request here) of a
 * context whose packets go to a sink link and to a pcap tap.
 *
 * This program writes the capture and a JSON-lines manifest of what every
 * frame must be (capture_expect.c); the CTest cases after it run scapy
 * (every ICRC, every listed field, the payload bytes) and tshark over them.
 * It checks here only that each case sent as many frames as expected.
 *
 * usage: capture_engine OUT.pcap OUT.jsonl
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "testutil.h"
#include "wqe/link.h"
#include "wqe/verbs.h"
#include "wqe/wire.h"

#define SRC_OFF 0u     /* message source bytes in mem[] */
#define DST_OFF 65536u /* READ and atomic destinations in mem[] */
#define UD_QKEY 0x22222222u

struct bench {
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *cq;
	struct wqe_link *sink;
	struct wqe_mr *mr;
	FILE *manifest;
	uint64_t now;
	uint32_t ncases, nframes;
};

static uint8_t mem[2 * 65536];
static uint8_t msg[CAP_MAX_MSG];

static uint64_t fake_clock(void *arg)
{
	uint64_t *now = arg;

	return *now += 1000;
}

static void set_av(struct wqe_ah_attr *a, uint32_t id, uint8_t last_ip_byte)
{
	memset(a, 0, sizeof(*a));
	a->port_num = 1;
	a->grh.dgid.raw[10] = 0xff;
	a->grh.dgid.raw[11] = 0xff;
	a->grh.dgid.raw[12] = 192;
	a->grh.dgid.raw[14] = 2;
	a->grh.dgid.raw[15] = last_ip_byte;
	a->grh.hop_limit = 64;
	a->dmac[0] = 0x02;
	a->dmac[5] = last_ip_byte;
	a->udp_sport = (uint16_t)(0xc000u | (id & 0x3fffu));
}

/* RESET -> INIT -> RTR -> RTS with the case's path, PSN and peer. */
static int to_rts(struct wqe_qp *qp, const struct cap_case *c)
{
	struct wqe_qp_attr a;
	int mask = WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT, rc = c->t == WQE_QPT_RC;

	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_INIT;
	a.port_num = 1;
	a.qkey = UD_QKEY;
	a.qp_access_flags = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ;
	mask |= c->t == WQE_QPT_UD ? WQE_QP_QKEY : WQE_QP_ACCESS_FLAGS;
	if (wqe_modify_qp(qp, &a, mask))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTR;
	mask = WQE_QP_STATE;
	if (c->t != WQE_QPT_UD) {
		a.path_mtu = c->mtu;
		a.dest_qp_num = c->destqp;
		set_av(&a.ah_attr, c->id, 2);
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		mask |= WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN |
			(rc ? WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER : 0);
	}
	if (wqe_modify_qp(qp, &a, mask))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTS;
	a.sq_psn = c->psn;
	a.timeout = 0; /* no retransmission: nobody answers */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	mask = WQE_QP_STATE | WQE_QP_SQ_PSN |
	       (rc ? WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT | WQE_QP_RNR_RETRY | WQE_QP_MAX_QP_RD_ATOMIC
		   : 0);
	return wqe_modify_qp(qp, &a, mask) ? -1 : 0;
}

static struct wqe_qp *make_qp(struct bench *b, enum wqe_qp_type t, uint32_t *max_inline)
{
	struct wqe_qp_init_attr ia;
	struct wqe_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = b->cq;
	ia.recv_cq = b->cq;
	ia.qp_type = t;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 512;
	qp = wqe_create_qp(b->pd, &ia);
	if (qp && max_inline)
		*max_inline = ia.cap.max_inline_data;
	return qp;
}

/* The request: the message from two pieces of memory (or inline), and
 * the fields its opcode uses. */
static void build_wr(const struct cap_case *c, struct wqe_send_wr *wr, struct wqe_sge *s,
		     struct wqe_ah *ah, uint32_t lkey)
{
	uint8_t imm_be[4] = {(uint8_t)(c->imm >> 24), (uint8_t)(c->imm >> 16),
			     (uint8_t)(c->imm >> 8), (uint8_t)c->imm};
	uint32_t a = c->len >= 2 ? (c->len + 2) / 3 : c->len;

	memset(wr, 0, sizeof(*wr));
	wr->opcode = c->op;
	wr->sg_list = s;
	wr->send_flags = (c->inl ? WQE_SEND_INLINE : 0u) | (c->se ? WQE_SEND_SOLICITED : 0u);
	if (c->op == WQE_WR_RDMA_READ || c->op == WQE_WR_ATOMIC_CMP_AND_SWP ||
	    c->op == WQE_WR_ATOMIC_FETCH_AND_ADD) {
		s[0] = (struct wqe_sge){(uint64_t)(uintptr_t)(mem + DST_OFF), c->len, lkey};
		wr->num_sge = c->len ? 1 : 0;
	} else if (c->inl) {
		s[0] = (struct wqe_sge){(uint64_t)(uintptr_t)msg, c->len, 0};
		wr->num_sge = 1;
	} else {
		/* Two pieces far apart, so the gather crosses an SGE boundary. */
		s[0] = (struct wqe_sge){(uint64_t)(uintptr_t)(mem + SRC_OFF + 100), a, lkey};
		s[1] = (struct wqe_sge){(uint64_t)(uintptr_t)(mem + SRC_OFF + 30000), c->len - a,
					lkey};
		wr->num_sge = c->len == 0 ? 0 : c->len == a ? 1 : 2;
	}
	memcpy(&wr->imm_data, imm_be, 4);
	if (c->op == WQE_WR_SEND_WITH_INV)
		wr->invalidate_rkey = c->imm;
	if (c->op == WQE_WR_ATOMIC_CMP_AND_SWP || c->op == WQE_WR_ATOMIC_FETCH_AND_ADD) {
		wr->wr.atomic.remote_addr = c->raddr;
		wr->wr.atomic.rkey = c->rkey;
		wr->wr.atomic.compare_add =
		    c->op == WQE_WR_ATOMIC_CMP_AND_SWP ? c->compare : c->swap_add;
		wr->wr.atomic.swap = c->op == WQE_WR_ATOMIC_CMP_AND_SWP ? c->swap_add : 0;
	} else if (c->t == WQE_QPT_UD) {
		wr->wr.ud.ah = ah;
		wr->wr.ud.remote_qpn = c->destqp;
		/* A Q_Key with bit 31 set means "the QP's own" (IBTA 10.2.5). */
		wr->wr.ud.remote_qkey = c->qkey == UD_QKEY ? 0x80000000u : c->qkey;
	} else {
		wr->wr.rdma.remote_addr = c->raddr;
		wr->wr.rdma.rkey = c->rkey;
	}
}

/* The message the request carries: the same bytes inline or gathered. */
static void fill_msg(const struct cap_case *c)
{
	uint32_t a = c->len >= 2 ? (c->len + 2) / 3 : c->len;

	memcpy(msg, mem + SRC_OFF + 100, a);
	memcpy(msg + a, mem + SRC_OFF + 30000, c->len - a);
}

/* Compares the frame count with the expectation and writes the manifest. */
static void record(struct bench *b, const struct cap_case *c)
{
	struct cap_pkt pk[CAP_MAX_PKTS];
	uint32_t n = cap_expect(c, pk);
	size_t got = wqe_link_sink_count(b->sink);
	char name[96];

	CHECK(n > 0);
	if (got != n)
		fprintf(stderr, "case %s: %zu frames, %u expected\n",
			cap_case_name(c, name, sizeof(name)), got, n);
	CHECK_EQ(got, n);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *f = NULL;
		size_t len = 0;

		if (i < got)
			CHECK_EQ(wqe_link_sink_frame(b->sink, i, &f, &len), 0);
		cap_manifest_line(b->manifest, c, &pk[i], f, len);
	}
	b->nframes += n;
	b->ncases++;
}

static void run_case(struct bench *b, struct cap_case *c)
{
	struct wqe_qp *qp = make_qp(b, c->t, NULL);
	struct wqe_ah_attr aa;
	struct wqe_ah *ah = NULL;
	struct wqe_send_wr wr, *bad = NULL;
	struct wqe_sge s[2];
	char name[96];

	CHECK(qp != NULL);
	if (!qp)
		return;
	c->srcqp = wqe_qp_num(qp);
	if (c->t == WQE_QPT_UD) {
		set_av(&aa, c->id, 3);
		ah = wqe_create_ah(b->pd, &aa);
		CHECK(ah != NULL);
	}
	fill_msg(c);
	build_wr(c, &wr, s, ah, b->mr->lkey);
	wqe_link_sink_clear(b->sink);
	CHECK_EQ(to_rts(qp, c), 0);
	if (wqe_post_send(qp, &wr, &bad) != 0)
		test_fail(__FILE__, __LINE__, "case %s: post refused",
			  cap_case_name(c, name, sizeof(name)));
	for (int i = 0; i < 100 && wqe_progress(b->ctx) > 0; i++)
		;
	record(b, c);
	CHECK_EQ(wqe_destroy_qp(qp), 0);
	if (ah)
		CHECK_EQ(wqe_destroy_ah(ah), 0);
}

/* Values that differ from case to case, so a field taken from the wrong
 * place shows. Every fifth case starts just before the PSN wraps. */
static void fill_case(struct cap_case *c)
{
	c->psn = c->id % 5 == 0 ? 0xfffffe : (c->id * 7919u) & 0xffffff;
	c->destqp = 0x100000 + c->id;
	c->raddr = 0x7f0000000000ull + (uint64_t)c->id * 0x10000 + 8;
	c->rkey = 0x1000 + c->id;
	c->imm = 0xa0000000u + c->id;
	c->swap_add = 0x1111111100000000ull + c->id;
	/* A FETCH_ADD request has no compare operand: the field is 0. */
	c->compare = c->op == WQE_WR_ATOMIC_CMP_AND_SWP ? 0x2222222200000000ull + c->id : 0;
	c->qkey = c->t != WQE_QPT_UD ? 0 : c->id & 1 ? UD_QKEY : 0x3300 + c->id;
	c->msg = msg;
}

static int legal(enum wqe_qp_type t, enum wqe_wr_opcode op)
{
	switch (t) {
	case WQE_QPT_RC:
		return 1;
	case WQE_QPT_UC:
		return op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_RDMA_WRITE ||
		       op == WQE_WR_RDMA_WRITE_WITH_IMM;
	case WQE_QPT_UD:
		return op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM;
	}
	return 0;
}

static int inline_ok(enum wqe_wr_opcode op)
{
	return op != WQE_WR_RDMA_READ && op != WQE_WR_ATOMIC_CMP_AND_SWP &&
	       op != WQE_WR_ATOMIC_FETCH_AND_ADD;
}

/* Every inline/solicited variant of one (transport, op, MTU, size). */
static void run_variants(struct bench *b, struct cap_case *c, uint32_t max_inline)
{
	for (int inl = 0; inl < 2; inl++) {
		if (inl && (!inline_ok(c->op) || c->len > max_inline))
			continue;
		for (int se = 0; se < 2; se++) {
			c->id++;
			c->inl = inl;
			c->se = se;
			fill_case(c);
			run_case(b, c);
		}
	}
}

static void run_all(struct bench *b)
{
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};
	static const enum wqe_wr_opcode ops[] = {WQE_WR_SEND,
						 WQE_WR_SEND_WITH_IMM,
						 WQE_WR_SEND_WITH_INV,
						 WQE_WR_RDMA_WRITE,
						 WQE_WR_RDMA_WRITE_WITH_IMM,
						 WQE_WR_RDMA_READ,
						 WQE_WR_ATOMIC_CMP_AND_SWP,
						 WQE_WR_ATOMIC_FETCH_AND_ADD};
	static const enum wqe_mtu mtus[] = {WQE_MTU_256, WQE_MTU_1024, WQE_MTU_4096};
	struct cap_case c = {0};

	for (size_t ti = 0; ti < 3; ti++) {
		uint32_t max_inline = 0;
		struct wqe_qp *probe = make_qp(b, types[ti], &max_inline);

		CHECK(probe != NULL);
		wqe_destroy_qp(probe);
		for (size_t oi = 0; oi < 8; oi++) {
			if (!legal(types[ti], ops[oi]))
				continue;
			for (size_t mi = 0; mi < 3; mi++) {
				uint32_t m = wqe_mtu_to_bytes(mtus[mi]);
				const uint32_t sizes[] = {0, 1, m - 1, m, m + 1, 3 * m + 2};
				int atomic = ops[oi] == WQE_WR_ATOMIC_CMP_AND_SWP ||
					     ops[oi] == WQE_WR_ATOMIC_FETCH_AND_ADD;

				for (size_t si = 0; si < (atomic ? 1 : 6); si++) {
					c.t = types[ti];
					c.op = ops[oi];
					c.mtu = mtus[mi];
					c.len = atomic ? 8 : sizes[si];
					if (c.t == WQE_QPT_UD && c.len > 4096)
						continue;
					run_variants(b, &c, max_inline);
				}
			}
		}
	}
}

static int setup(struct bench *b, const char *pcap, const char *jsonl)
{
	for (size_t i = 0; i < sizeof(mem); i++)
		mem[i] = (uint8_t)(i * 13 + 7 + (i >> 9));
	b->ctx = wqe_open_context(NULL);
	if (!b->ctx)
		return -1;
	CHECK_EQ(wqe_context_set_clock(b->ctx, fake_clock, &b->now), 0);
	b->pd = wqe_alloc_pd(b->ctx);
	b->cq = wqe_create_cq(b->ctx, 64);
	b->sink = wqe_link_sink_create(64);
	b->mr = wqe_reg_mr(b->pd, mem, sizeof(mem), WQE_ACCESS_LOCAL_WRITE);
	b->manifest = fopen(jsonl, "w");
	if (!b->pd || !b->cq || !b->sink || !b->mr || !b->manifest)
		return -1;
	CHECK_EQ(wqe_context_attach_link(b->ctx, b->sink), 0);
	return wqe_context_set_pcap(b->ctx, pcap) == 0 ? 0 : -1;
}

static void teardown(struct bench *b)
{
	if (b->ctx) {
		CHECK_EQ(wqe_context_set_pcap(b->ctx, NULL), 0);
		wqe_context_attach_link(b->ctx, NULL);
	}
	if (b->manifest)
		CHECK_EQ(fclose(b->manifest), 0);
	if (b->sink)
		CHECK_EQ(wqe_link_destroy(b->sink), 0);
	if (b->mr)
		CHECK_EQ(wqe_dereg_mr(b->mr), 0);
	if (b->cq)
		CHECK_EQ(wqe_destroy_cq(b->cq), 0);
	if (b->pd)
		CHECK_EQ(wqe_dealloc_pd(b->pd), 0);
	if (b->ctx)
		CHECK_EQ(wqe_close_context(b->ctx), 0);
}

int main(int argc, char **argv)
{
	struct bench b;

	if (argc != 3) {
		fprintf(stderr, "usage: %s OUT.pcap OUT.jsonl\n", argv[0]);
		return 2;
	}
	memset(&b, 0, sizeof(b));
	if (setup(&b, argv[1], argv[2])) {
		test_fail(__FILE__, __LINE__, "setup failed: %s", strerror(errno));
	} else {
		run_all(&b);
		printf("%u cases, %u frames expected\n", b.ncases, b.nframes);
	}
	teardown(&b);
	return test_finish();
}
