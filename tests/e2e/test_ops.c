/* SPDX-License-Identifier: MIT */
/*
 * End to end: each of the eight operation families on each transport where
 * it is legal, at several sizes and path MTUs, between two contexts on a
 * loopback link. Checks the bytes moved (against the source, canaries
 * around every target untouched) and the completions on both sides.
 */
#include <stdlib.h>
#include <string.h>

#include "pair.h"
#include "testutil.h"

#define REGION 40000u
#define OFF 64u
#define CANARY 0xc5

static uint8_t a_src[REGION], a_dst[REGION], b_src[REGION], b_dst[REGION];
static struct test_rng rng;

static uint8_t *const bufs[4] = {a_src, a_dst, b_src, b_dst};

static void reg(struct pair *p, struct test_mrs *m)
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

static void post_recv_b(struct pair *p, struct test_mrs *m, uint32_t len)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)b_dst + OFF, len, m->b_dst->lkey};
	struct wqe_recv_wr r = {.wr_id = 900, .sg_list = &s, .num_sge = 1}, *bad;

	CHECK_EQ(wqe_post_recv(p->b.qp, &r, &bad), 0);
}

static void run_op(enum wqe_qp_type t, enum wqe_mtu mtu, enum wqe_wr_opcode op, uint32_t len,
		   int inl)
{
	struct pair p;
	struct test_mrs m;
	struct wqe_send_wr wr, *bad;
	struct wqe_sge s;
	struct wqe_wc wc[4], rc[4];
	int is_send = op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_SEND_WITH_INV;
	int is_atomic = op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
	int needs_recv = is_send || op == WQE_WR_RDMA_WRITE_WITH_IMM;
	uint32_t grh = t == WQE_QPT_UD ? 40 : 0;
	uint64_t before = 0;

	CHECK_EQ(pair_open(&p, t, mtu, NULL, 64), 0);
	reg(&p, &m);
	fill();
	if (needs_recv)
		post_recv_b(&p, &m, len + grh + 16);
	memset(&wr, 0, sizeof(wr));
	s.addr = (uint64_t)(uintptr_t)(op == WQE_WR_RDMA_READ || is_atomic ? a_dst : a_src) + OFF;
	s.length = is_atomic ? 8 : len;
	s.lkey = op == WQE_WR_RDMA_READ || is_atomic ? m.a_dst->lkey : m.a_src->lkey;
	wr.wr_id = 0x77;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = WQE_SEND_SIGNALED | (inl ? WQE_SEND_INLINE : 0);
	wr.imm_data = 0x44332211;
	if (op == WQE_WR_SEND_WITH_INV)
		wr.invalidate_rkey = m.b_src->rkey;
	if (t == WQE_QPT_UD) {
		wr.wr.ud.ah = p.a.ah;
		wr.wr.ud.remote_qpn = wqe_qp_num(p.b.qp);
		wr.wr.ud.remote_qkey = 0x11111111;
	} else if (is_atomic) {
		memcpy(&before, b_dst + OFF, 8);
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)b_dst + OFF;
		wr.wr.atomic.rkey = m.b_dst->rkey;
		wr.wr.atomic.compare_add = op == WQE_WR_ATOMIC_CMP_AND_SWP ? before : 5;
		wr.wr.atomic.swap = 0x0102030405060708ull;
	} else {
		wr.wr.rdma.remote_addr =
			(uint64_t)(uintptr_t)(op == WQE_WR_RDMA_READ ? b_src : b_dst) + OFF;
		wr.wr.rdma.rkey = op == WQE_WR_RDMA_READ ? m.b_src->rkey : m.b_dst->rkey;
	}
	CHECK_EQ(wqe_post_send(p.a.qp, &wr, &bad), 0);
	CHECK_EQ(pair_wait(&p, p.a.scq, 1, wc, 200000), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].wr_id, 0x77);
	if (needs_recv) {
		CHECK_EQ(pair_wait(&p, p.b.rcq, 1, rc, 200000), 1);
		CHECK_EQ(rc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(rc[0].wr_id, 900);
		CHECK_EQ(rc[0].byte_len, len + grh);
		CHECK_EQ(rc[0].opcode, is_send ? WQE_WC_RECV : WQE_WC_RECV_RDMA_WITH_IMM);
		if (op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_RDMA_WRITE_WITH_IMM) {
			CHECK(rc[0].wc_flags & WQE_WC_WITH_IMM);
			CHECK_EQ(rc[0].imm_data, 0x44332211);
		}
		if (op == WQE_WR_SEND_WITH_INV) {
			CHECK(rc[0].wc_flags & WQE_WC_WITH_INV);
			CHECK_EQ(rc[0].invalidated_rkey, m.b_src->rkey);
		}
		if (t == WQE_QPT_UD)
			CHECK_EQ(rc[0].src_qp, wqe_qp_num(p.a.qp));
	}
	/* A UC send completion says the last packet has left, not that the
	 * peer has placed it: let the peer take what is still on the link. */
	if (t == WQE_QPT_UC)
		pair_spin(&p, 2);
	if (op == WQE_WR_RDMA_READ) {
		CHECK_MEM(a_dst + OFF, b_src + OFF, len);
		check_canaries(a_dst, OFF, len);
	} else if (is_atomic) {
		uint64_t after, orig;

		memcpy(&after, b_dst + OFF, 8);
		memcpy(&orig, a_dst + OFF, 8);
		CHECK_EQ(orig, before);
		CHECK_EQ(after, op == WQE_WR_ATOMIC_CMP_AND_SWP ? 0x0102030405060708ull : before + 5);
		check_canaries(a_dst, OFF, 8);
		check_canaries(b_dst, OFF, 8);
	} else if (op != WQE_WR_RDMA_WRITE || len) {
		CHECK_MEM(b_dst + OFF + grh, a_src + OFF, len);
		check_canaries(b_dst, OFF, len + grh);
	}
	pair_spin(&p, 4);
	test_unreg4(&m);
	pair_close(&p);
}

int main(void)
{
	static const enum wqe_wr_opcode rc_ops[] = {
		WQE_WR_SEND, WQE_WR_SEND_WITH_IMM, WQE_WR_SEND_WITH_INV, WQE_WR_RDMA_WRITE,
		WQE_WR_RDMA_WRITE_WITH_IMM, WQE_WR_RDMA_READ, WQE_WR_ATOMIC_CMP_AND_SWP,
		WQE_WR_ATOMIC_FETCH_AND_ADD};
	static const enum wqe_wr_opcode uc_ops[] = {WQE_WR_SEND, WQE_WR_SEND_WITH_IMM,
						    WQE_WR_RDMA_WRITE, WQE_WR_RDMA_WRITE_WITH_IMM};
	static const enum wqe_mtu mtus[] = {WQE_MTU_256, WQE_MTU_1024, WQE_MTU_4096};

	test_rng_seed(&rng, 42);
	for (size_t mi = 0; mi < 3; mi++) {
		uint32_t b = wqe_mtu_to_bytes(mtus[mi]);
		const uint32_t sizes[] = {0, 1, 60, b - 1, b, b + 1, 3 * b + 5, 30000};

		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			uint32_t len = sizes[si];

			for (size_t k = 0; k < sizeof(rc_ops) / sizeof(rc_ops[0]); k++) {
				if ((rc_ops[k] == WQE_WR_ATOMIC_CMP_AND_SWP ||
				     rc_ops[k] == WQE_WR_ATOMIC_FETCH_AND_ADD) && si)
					continue;
				run_op(WQE_QPT_RC, mtus[mi], rc_ops[k], len, 0);
			}
			for (size_t k = 0; k < sizeof(uc_ops) / sizeof(uc_ops[0]); k++)
				run_op(WQE_QPT_UC, mtus[mi], uc_ops[k], len, 0);
			if (len <= 4096 - 40) {
				run_op(WQE_QPT_UD, mtus[mi], WQE_WR_SEND, len, 0);
				run_op(WQE_QPT_UD, mtus[mi], WQE_WR_SEND_WITH_IMM, len, 0);
			}
			if (len <= 64) {
				run_op(WQE_QPT_RC, mtus[mi], WQE_WR_SEND, len, 1);
				run_op(WQE_QPT_UC, mtus[mi], WQE_WR_RDMA_WRITE, len, 1);
			}
		}
	}
	return test_finish();
}
