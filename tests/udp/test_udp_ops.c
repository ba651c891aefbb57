/* SPDX-License-Identifier: MIT */
/*
 * Over the UDP link, in one process: two contexts on UDP sockets bound to
 * two addresses of 127/8, RC connected, every operation family that RC
 * carries (WRITE, WRITE_WITH_IMM, SEND, SEND_WITH_IMM, READ, both
 * atomics) at several sizes and path MTUs, then a pipelined batch; and
 * UD SENDs. Checks the bytes moved against the source with canaries
 * around every target, the completions on both sides, that no frame the
 * kernel carried failed the receiver's ICRC check (the link recomputed
 * it over the kernel's headers), and the links' counters.
 */
#include <string.h>

#include "testutil.h"
#include "udp_pair.h"

#define REGION 70000u
#define OFF    64u
#define CANARY 0xc5
#define WAIT_S 20.0

static uint8_t a_src[REGION], a_dst[REGION], b_src[REGION], b_dst[REGION];
static struct test_rng rng;

static uint8_t *const bufs[4] = {a_src, a_dst, b_src, b_dst};

static void reg(struct upair *p, struct test_mrs *m)
{
	const unsigned all = WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
			     WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;

	test_reg4(m, p->a.pd, p->b.pd, bufs, REGION, WQE_ACCESS_LOCAL_WRITE, all);
}

static void fill(void)
{
	test_fill4(&rng, bufs, REGION, CANARY);
}

/* Every byte of @buf outside [off, off+len) is still the canary. */
static void check_canaries(const uint8_t *buf, size_t off, size_t len)
{
	CHECK_EQ(test_canary_damage(buf, REGION, off, len, CANARY), 0);
}

static void post_recv_b(struct upair *p, struct test_mrs *m, uint64_t id, size_t off, uint32_t len)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)b_dst + off, len, m->b_dst->lkey};
	struct wqe_recv_wr r = {.wr_id = id, .sg_list = &s, .num_sge = 1}, *bad;

	CHECK_EQ(wqe_post_recv(p->b.qp, &r, &bad), 0);
}

static int is_atomic(enum wqe_wr_opcode op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

/* The Work Request of one RC operation on A: @len bytes at offset @off of
 * the source (READ, atomics: the destination) to offset @off on B. */
static void rc_wr(struct test_mrs *m, enum wqe_wr_opcode op, size_t off, uint32_t len,
		  struct wqe_send_wr *wr, struct wqe_sge *s)
{
	int local_dst = op == WQE_WR_RDMA_READ || is_atomic(op);

	memset(wr, 0, sizeof(*wr));
	s->addr = (uint64_t)(uintptr_t)(local_dst ? a_dst : a_src) + off;
	s->length = is_atomic(op) ? 8 : len;
	s->lkey = local_dst ? m->a_dst->lkey : m->a_src->lkey;
	wr->sg_list = s;
	wr->num_sge = 1;
	wr->opcode = op;
	wr->send_flags = WQE_SEND_SIGNALED;
	wr->imm_data = 0x44332211;
	if (is_atomic(op)) {
		wr->wr.atomic.remote_addr = (uint64_t)(uintptr_t)b_dst + off;
		wr->wr.atomic.rkey = m->b_dst->rkey;
		wr->wr.atomic.swap = 0x0102030405060708ull;
	} else {
		wr->wr.rdma.remote_addr =
		    (uint64_t)(uintptr_t)(op == WQE_WR_RDMA_READ ? b_src : b_dst) + off;
		wr->wr.rdma.rkey = op == WQE_WR_RDMA_READ ? m->b_src->rkey : m->b_dst->rkey;
	}
}

static void check_recv(const struct wqe_wc *rc, enum wqe_wr_opcode op, uint64_t id, uint32_t len)
{
	int is_send = op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM;

	CHECK_EQ(rc->status, WQE_WC_SUCCESS);
	CHECK_EQ(rc->wr_id, id);
	CHECK_EQ(rc->byte_len, len);
	CHECK_EQ(rc->opcode, is_send ? WQE_WC_RECV : WQE_WC_RECV_RDMA_WITH_IMM);
	if (op == WQE_WR_SEND || op == WQE_WR_RDMA_WRITE) {
		CHECK(!(rc->wc_flags & WQE_WC_WITH_IMM));
	} else {
		CHECK(rc->wc_flags & WQE_WC_WITH_IMM);
		CHECK_EQ(rc->imm_data, 0x44332211);
	}
}

static void run_op(struct upair *p, struct test_mrs *m, enum wqe_wr_opcode op, uint32_t len)
{
	static uint64_t id = 1;
	int needs_recv =
	    op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_RDMA_WRITE_WITH_IMM;
	struct wqe_send_wr wr, *bad;
	struct wqe_sge s;
	struct wqe_wc wc[2], rc[2];
	uint64_t before = 0;

	fill();
	id++;
	if (needs_recv)
		post_recv_b(p, m, id + 1000000, OFF, len + 16);
	rc_wr(m, op, OFF, len, &wr, &s);
	wr.wr_id = id;
	if (is_atomic(op)) {
		memcpy(&before, b_dst + OFF, 8);
		wr.wr.atomic.compare_add = op == WQE_WR_ATOMIC_CMP_AND_SWP ? before : 5;
	}
	CHECK_EQ(wqe_post_send(p->a.qp, &wr, &bad), 0);
	CHECK_EQ(upair_wait(p, p->a.scq, 1, wc, WAIT_S), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].wr_id, id);
	CHECK_EQ(wc[0].qp_num, wqe_qp_num(p->a.qp));
	if (needs_recv) {
		CHECK_EQ(upair_wait(p, p->b.rcq, 1, rc, WAIT_S), 1);
		check_recv(&rc[0], op, id + 1000000, len);
	}
	if (op == WQE_WR_RDMA_READ) {
		CHECK_EQ(wc[0].byte_len, len);
		CHECK_MEM(a_dst + OFF, b_src + OFF, len);
		check_canaries(a_dst, OFF, len);
	} else if (is_atomic(op)) {
		uint64_t after, orig;

		memcpy(&after, b_dst + OFF, 8);
		memcpy(&orig, a_dst + OFF, 8);
		CHECK_EQ(orig, before);
		CHECK_EQ(after,
			 op == WQE_WR_ATOMIC_CMP_AND_SWP ? 0x0102030405060708ull : before + 5);
		check_canaries(a_dst, OFF, 8);
		check_canaries(b_dst, OFF, 8);
	} else {
		CHECK_MEM(b_dst + OFF, a_src + OFF, len);
		check_canaries(b_dst, OFF, len);
	}
	/* Nothing else arrived: B's send queue and A's receive queue are idle. */
	CHECK_EQ(wqe_poll_cq(p->b.scq, 2, wc), 0);
	CHECK_EQ(wqe_poll_cq(p->a.rcq, 2, wc), 0);
}

/*
 * A batch posted as one chain: WRITEs, SENDs and READs to distinct
 * places, many datagrams in the sockets at once. Completions in order,
 * every byte where it belongs.
 */
static void run_batch(struct upair *p, struct test_mrs *m)
{
	enum { N = 24, LEN = 2000, STEP = 2048 };
	static const enum wqe_wr_opcode ops[3] = {WQE_WR_RDMA_WRITE, WQE_WR_SEND, WQE_WR_RDMA_READ};
	struct wqe_send_wr wr[N], *bad;
	struct wqe_sge s[N];
	struct wqe_wc wc[N], rc[N];
	int nrecv = 0;

	fill();
	for (int i = 0; i < N; i++) {
		enum wqe_wr_opcode op = ops[i % 3];

		rc_wr(m, op, OFF + (size_t)i * STEP, LEN, &wr[i], &s[i]);
		wr[i].wr_id = 500 + (uint64_t)i;
		wr[i].next = i + 1 < N ? &wr[i + 1] : NULL;
		if (op == WQE_WR_SEND)
			post_recv_b(p, m, 700 + (uint64_t)nrecv++, OFF + (size_t)i * STEP, LEN);
	}
	CHECK_EQ(wqe_post_send(p->a.qp, wr, &bad), 0);
	CHECK_EQ(upair_wait(p, p->a.scq, N, wc, WAIT_S), N);
	CHECK_EQ(upair_wait(p, p->b.rcq, nrecv, rc, WAIT_S), nrecv);
	for (int i = 0; i < N; i++) {
		size_t off = OFF + (size_t)i * STEP;

		CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, 500 + (uint64_t)i);
		if (ops[i % 3] == WQE_WR_RDMA_READ)
			CHECK_MEM(a_dst + off, b_src + off, LEN);
		else
			CHECK_MEM(b_dst + off, a_src + off, LEN);
	}
	for (int i = 0; i < nrecv; i++)
		check_recv(&rc[i], WQE_WR_SEND, 700 + (uint64_t)i, LEN);
}

/* What every exchange leaves in the links' counters. */
static void check_links(struct upair *p)
{
	const struct uep *e[2] = {&p->a, &p->b};

	for (int i = 0; i < 2; i++) {
		struct wqe_link_stats s;

		CHECK_EQ(wqe_link_stats(e[i]->link, &s), 0);
		CHECK(s.frames > 0);
		CHECK_EQ(s.delivered + s.queue_full + s.tx_errors, s.frames);
		CHECK_EQ(s.no_destination, 0);
		CHECK_EQ(s.tx_errors, 0);
		CHECK_EQ(s.rx_frames, s.rx_datagrams);
		CHECK_EQ(s.rx_short + s.rx_truncated + s.rx_errors, 0);
		CHECK(s.rx_frames > 0);
		/* every frame the kernel carried passed the ICRC and filters */
		CHECK_EQ(e[i]->drops, 0);
		CHECK_EQ(e[i]->bad_icrc, 0);
		CHECK(e[i]->rx > 0);
	}
}

static void run_rc(enum wqe_mtu mtu)
{
	static const enum wqe_wr_opcode ops[] = {WQE_WR_RDMA_WRITE, WQE_WR_RDMA_WRITE_WITH_IMM,
						 WQE_WR_SEND, WQE_WR_SEND_WITH_IMM,
						 WQE_WR_RDMA_READ};
	uint32_t b = wqe_mtu_to_bytes(mtu);
	const uint32_t sizes[] = {1, 60, b - 1, b + 1, 3 * b + 5, 30000, 65536 + 3};
	struct upair p;
	struct test_mrs m;

	CHECK_EQ(upair_open(&p, WQE_QPT_RC, mtu, 64), 0);
	reg(&p, &m);
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			run_op(&p, &m, ops[k], sizes[si]);
	run_op(&p, &m, WQE_WR_ATOMIC_CMP_AND_SWP, 8);
	run_op(&p, &m, WQE_WR_ATOMIC_FETCH_AND_ADD, 8);
	run_batch(&p, &m);
	check_links(&p);
	test_unreg4(&m);
	upair_close(&p);
}

/* UD: one packet each, the receive buffer gets 40 bytes of GRH first. */
static void run_ud(void)
{
	const uint32_t sizes[] = {1, 1000, 4096};
	struct upair p;
	struct test_mrs m;

	CHECK_EQ(upair_open(&p, WQE_QPT_UD, WQE_MTU_4096, 64), 0);
	reg(&p, &m);
	for (size_t si = 0; si < 3; si++) {
		for (int imm = 0; imm < 2; imm++) {
			uint32_t len = sizes[si];
			struct wqe_sge s = {(uint64_t)(uintptr_t)a_src + OFF, len, m.a_src->lkey};
			struct wqe_send_wr wr, *bad;
			struct wqe_wc wc, rc;

			fill();
			post_recv_b(&p, &m, 77, OFF, len + 40);
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = 66;
			wr.sg_list = &s;
			wr.num_sge = 1;
			wr.opcode = imm ? WQE_WR_SEND_WITH_IMM : WQE_WR_SEND;
			wr.send_flags = WQE_SEND_SIGNALED;
			wr.imm_data = 0x44332211;
			wr.wr.ud.ah = p.a.ah;
			wr.wr.ud.remote_qpn = wqe_qp_num(p.b.qp);
			wr.wr.ud.remote_qkey = 0x11111111;
			CHECK_EQ(wqe_post_send(p.a.qp, &wr, &bad), 0);
			CHECK_EQ(upair_wait(&p, p.a.scq, 1, &wc, WAIT_S), 1);
			CHECK_EQ(wc.status, WQE_WC_SUCCESS);
			CHECK_EQ(upair_wait(&p, p.b.rcq, 1, &rc, WAIT_S), 1);
			CHECK_EQ(rc.status, WQE_WC_SUCCESS);
			CHECK_EQ(rc.wr_id, 77);
			CHECK_EQ(rc.byte_len, len + 40);
			CHECK_EQ(rc.src_qp, wqe_qp_num(p.a.qp));
			CHECK_EQ(rc.opcode, WQE_WC_RECV);
			CHECK_EQ(!!(rc.wc_flags & WQE_WC_WITH_IMM), imm);
			if (imm)
				CHECK_EQ(rc.imm_data, 0x44332211);
			CHECK_MEM(b_dst + OFF + 40, a_src + OFF, len);
			check_canaries(b_dst, OFF, len + 40);
		}
	}
	CHECK_EQ(p.b.drops, 0);
	test_unreg4(&m);
	upair_close(&p);
}

int main(void)
{
	test_rng_seed(&rng, 4791);
	run_rc(WQE_MTU_256);
	run_rc(WQE_MTU_1024);
	run_rc(WQE_MTU_4096);
	run_ud();
	return test_finish();
}
