/* SPDX-License-Identifier: MIT */
/*
 * The responder's SEND family on RC and UC: every message length against
 * every path MTU, scattered across three SGEs of one receive WQE with
 * canaries around them; SEND_WITH_IMM and SEND_WITH_INV (the rkey is
 * invalidated, the CQE says so); the ACK of an RC message (MSN, PSN) and
 * ACK coalescing by AckReq; a receive buffer too small (LOC_LEN_ERR; RC:
 * NAK invalid request, QP to ERR, RQ flushed; UC: the QP stays up); a bad
 * receive lkey (LOC_PROT_ERR, NAK remote operational error); an invalid
 * SEND_WITH_INV rkey; FIRST/MIDDLE packets shorter than the MTU.
 */
#include <string.h>

#include "engine/services.h"
#include "engine/rx.h"
#include "resp_util.h"
#include "testutil.h"

#define REGION 20000u
#define CANARY 0xa5

static uint8_t dst[REGION], src[REGION], expect[REGION];
static struct test_rng rng;

struct layout {
	struct wqe_sge sg[3];
	uint32_t off[3];
};

/* Three SGEs of @mr holding @cap bytes: 7 bytes, then half, then the rest,
 * 16 canary bytes apart. */
static void layout_of(struct layout *l, const struct wqe_mr *mr, uint32_t cap)
{
	uint32_t len[3];

	len[0] = cap < 7 ? cap : 7;
	len[1] = (cap - len[0]) / 2;
	len[2] = cap - len[0] - len[1];
	l->off[0] = 32;
	l->off[1] = l->off[0] + len[0] + 16;
	l->off[2] = l->off[1] + len[1] + 16;
	for (int i = 0; i < 3; i++) {
		l->sg[i].addr = (uint64_t)(uintptr_t)dst + l->off[i];
		l->sg[i].length = len[i];
		l->sg[i].lkey = mr->lkey;
	}
}

/* What @dst must hold after @len bytes of @src were scattered over @l. */
static void expected_image(const struct layout *l, uint32_t len)
{
	uint32_t done = 0;

	memset(expect, CANARY, REGION);
	for (int i = 0; i < 3 && done < len; i++) {
		uint32_t n = l->sg[i].length < len - done ? l->sg[i].length : len - done;

		memcpy(expect + l->off[i], src + done, n);
		done += n;
	}
}

static void desc_send(struct wqe_desc *d, enum wqe_op op, uint32_t len, uint32_t imm)
{
	memset(d, 0, sizeof(*d));
	d->op = op;
	d->total_len = len;
	d->imm = imm;
}

static void one_case(enum wqe_qp_type type, enum wqe_mtu mtu, enum wqe_op op, uint32_t len)
{
	struct rt t;
	struct wqe_mr *mr, *victim;
	struct layout l;
	struct wqe_desc d;
	struct wqe_wc wc[4];
	uint32_t mtub = wqe_mtu_to_bytes(mtu), imm = 0x01020304, npsn;
	uint8_t *host;

	rt_open(&t, type, mtu);
	mr = rt_reg(t.pd, dst, REGION, WQE_ACCESS_LOCAL_WRITE);
	victim = rt_reg(t.pd, src, REGION, RT_ALL_ACCESS);
	memset(dst, CANARY, REGION);
	test_rng_fill(&rng, src, REGION);
	layout_of(&l, mr, len + 13);
	rt_post_recv(&t, 0x5000 + len, l.sg, 3);
	if (op == WQE_OP_SEND_WITH_INV)
		imm = victim->rkey;
	desc_send(&d, op, len, imm);
	npsn = rt_msg(&t, &d, src, RT_FIRST_PSN, 0);
	CHECK_EQ(npsn, len ? (len + mtub - 1) / mtub : 1);
	expected_image(&l, len);
	CHECK_MEM(dst, expect, REGION);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 0x5000 + len);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, WQE_WC_RECV);
	CHECK_EQ(wc[0].byte_len, len);
	CHECK_EQ(wc[0].qp_num, wqe_qp_num(t.qp));
	if (op == WQE_OP_SEND_WITH_IMM) {
		const uint8_t want[4] = {1, 2, 3, 4};

		CHECK_EQ(wc[0].wc_flags, WQE_WC_WITH_IMM);
		CHECK_MEM(&wc[0].imm_data, want, 4);
	} else if (op == WQE_OP_SEND_WITH_INV) {
		CHECK_EQ(wc[0].wc_flags, WQE_WC_WITH_INV);
		CHECK_EQ(wc[0].invalidated_rkey, victim->rkey);
		CHECK_EQ(keys_check(&t.ctx->nic->keys, victim->rkey, true, t.pd->handle,
				    (uint64_t)(uintptr_t)src, 1, 0, &host),
			 KEY_ERR_INVALID);
		/* The lkey view of the same region still works. */
		CHECK_EQ(keys_check(&t.ctx->nic->keys, victim->lkey, false, t.pd->handle,
				    (uint64_t)(uintptr_t)src, 1, 0, &host),
			 KEY_OK);
	} else {
		CHECK_EQ(wc[0].wc_flags, 0);
	}
	if (type == WQE_QPT_RC) {
		/* One ACK: the packetizer asks for one on the last packet. */
		CHECK_EQ(rt_nresp(&t), 1);
		rt_check_ack(&t, 0, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN + npsn - 1, 1);
		CHECK_EQ(rt_resp(&t)->stats.acks, 1);
	} else {
		CHECK_EQ(rt_nresp(&t), 0);
	}
	CHECK_EQ(rt_resp(&t)->epsn, RT_FIRST_PSN + npsn);
	CHECK_EQ(rt_resp(&t)->msn, 1);
	CHECK_EQ(rt_resp(&t)->stats.bytes_placed, len);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_RTS);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(victim), 0);
	rt_close(&t);
}

static void config_loop(void)
{
	static const enum wqe_mtu mtus[] = {WQE_MTU_256, WQE_MTU_1024, WQE_MTU_4096};
	static const enum wqe_op ops[] = {WQE_OP_SEND, WQE_OP_SEND_WITH_IMM,
					  WQE_OP_SEND_WITH_INV};

	for (int ti = 0; ti < 2; ti++) {
		enum wqe_qp_type type = ti ? WQE_QPT_UC : WQE_QPT_RC;

		for (size_t mi = 0; mi < 3; mi++) {
			uint32_t m = wqe_mtu_to_bytes(mtus[mi]);
			uint32_t lens[] = {0, 1, m - 1, m, m + 1, 3 * m + 7};

			for (size_t oi = 0; oi < 3; oi++) {
				if (type == WQE_QPT_UC && ops[oi] == WQE_OP_SEND_WITH_INV)
					continue;
				for (size_t li = 0; li < 6; li++)
					one_case(type, mtus[mi], ops[oi], lens[li]);
			}
		}
	}
}

/* ACKs only for AckReq: three SENDs without it, then one with it. */
static void ack_coalescing(void)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_sge sg;
	struct wqe_pkt p;
	struct wqe_wc wc[8];

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	mr = rt_reg(t.pd, dst, REGION, WQE_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < 4; i++) {
		sg = (struct wqe_sge){(uint64_t)(uintptr_t)dst + 100u * (uint32_t)i, 100, mr->lkey};
		rt_post_recv(&t, (uint64_t)i, &sg, 1);
	}
	for (uint32_t i = 0; i < 4; i++) {
		rt_req(&t, &p, WQE_WIRE_RC_SEND_ONLY, RT_FIRST_PSN + i);
		p.bth.ackreq = i == 3;
		rt_feed(&t, &p, src, 10 + i);
		CHECK_EQ(rt_nresp(&t), i == 3 ? 1u : 0u);
	}
	rt_check_ack(&t, 0, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN + 3, 4);
	CHECK_EQ(rt_poll(&t, wc, 8), 4);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(wc[i].wr_id, (uint64_t)i);
		CHECK_EQ(wc[i].byte_len, 10u + (uint32_t)i);
	}
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

/* Posts @n receive WQEs of @cap bytes each (wr_id 100 + i). */
static void post_n(struct rt *t, const struct wqe_mr *mr, int n, uint32_t cap)
{
	for (int i = 0; i < n; i++) {
		struct wqe_sge sg = {(uint64_t)(uintptr_t)dst + 64u + 5000u * (uint32_t)i, cap,
				     mr->lkey};

		rt_post_recv(t, 100u + (uint64_t)i, &sg, 1);
	}
}

/* A SEND larger than the 300-byte receive buffer. */
static void too_small(enum wqe_qp_type type, enum wqe_mtu mtu, uint32_t len)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_desc d;
	struct wqe_wc wc[8];
	uint32_t npsn, mtub = wqe_mtu_to_bytes(mtu), bad_pkt = 300 / mtub;
	int n;

	rt_open(&t, type, mtu);
	mr = rt_reg(t.pd, dst, REGION, WQE_ACCESS_LOCAL_WRITE);
	memset(dst, CANARY, REGION);
	post_n(&t, mr, 3, 300);
	desc_send(&d, WQE_OP_SEND, len, 0);
	npsn = rt_msg(&t, &d, src, RT_FIRST_PSN, 0);
	n = rt_poll(&t, wc, 8);
	CHECK(n >= 1);
	CHECK_EQ(wc[0].wr_id, 100);
	CHECK_EQ(wc[0].status, WQE_WC_LOC_LEN_ERR);
	/* The packets before the one that did not fit were placed; that one
	 * and the rest were not. */
	CHECK_MEM(dst + 64, src, bad_pkt * mtub);
	CHECK_EQ(rt_canary_bad(dst, REGION, 64, bad_pkt * mtub, CANARY), 0);
	if (type == WQE_QPT_RC) {
		/* NAK invalid request on the packet that did not fit, QP to
		 * ERR, the two other receive WQEs flushed. */
		CHECK_EQ(rt_nresp(&t), 1);
		rt_check_ack(&t, 0, WQE_AETH_NAK_INVALID_REQ, RT_FIRST_PSN + bad_pkt, 0);
		CHECK_EQ(rt_resp(&t)->stats.naks[RESP_NAK_INV_REQ], 1);
		CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
		CHECK_EQ(n, 3);
		CHECK_EQ(wc[1].wr_id, 101);
		CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[2].wr_id, 102);
		CHECK_EQ(wc[2].status, WQE_WC_WR_FLUSH_ERR);
	} else {
		/* UC: no answer; the rest of the message is dropped and the
		 * QP stays up: the next message lands in the next WQE. */
		CHECK_EQ(rt_nresp(&t), 0);
		CHECK_EQ(n, 1);
		CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_RTS);
		desc_send(&d, WQE_OP_SEND, 200, 0);
		rt_msg(&t, &d, src + 1, RT_FIRST_PSN + npsn, 0);
		CHECK_EQ(rt_poll(&t, wc, 8), 1);
		CHECK_EQ(wc[0].wr_id, 101);
		CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[0].byte_len, 200);
		CHECK_MEM(dst + 64 + 5000, src + 1, 200);
	}
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

/* A receive WQE the NIC cannot write: another PD's lkey, a region without
 * LOCAL_WRITE, an SGE past its region. */
static void bad_recv_sge(int which)
{
	struct rt t;
	struct wqe_mr *mr, *other;
	struct wqe_sge sg;
	struct wqe_pkt p;
	struct wqe_wc wc[4];

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	memset(dst, CANARY, REGION);
	mr = rt_reg(t.pd, dst, 1000, WQE_ACCESS_LOCAL_WRITE);
	other = which == 0 ? rt_reg(t.pd2, dst + 1000, 1000, WQE_ACCESS_LOCAL_WRITE)
			   : rt_reg(t.pd, dst + 1000, 1000, which == 1 ? 0 : WQE_ACCESS_LOCAL_WRITE);
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)dst + 1000 + (which == 2 ? 990u : 0u), 100,
			      other->lkey};
	rt_post_recv(&t, 7, &sg, 1);
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)dst, 100, mr->lkey};
	rt_post_recv(&t, 8, &sg, 1);
	rt_req(&t, &p, WQE_WIRE_RC_SEND_ONLY, RT_FIRST_PSN);
	p.bth.ackreq = 1;
	rt_feed(&t, &p, src, 50);
	CHECK_EQ(rt_poll(&t, wc, 4), 2);
	CHECK_EQ(wc[0].wr_id, 7);
	CHECK_EQ(wc[0].status, WQE_WC_LOC_PROT_ERR);
	CHECK_EQ(wc[1].wr_id, 8);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, WQE_AETH_NAK_REM_OP_ERR, RT_FIRST_PSN, 0);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
	CHECK_EQ(rt_canary_bad(dst, REGION, 0, 0, CANARY), 0);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(other), 0);
	rt_close(&t);
}

/* SEND_WITH_INV naming a key that is not live, or of another PD. */
static void bad_invalidate(int other_pd)
{
	struct rt t;
	struct wqe_mr *mr, *victim;
	struct wqe_sge sg;
	struct wqe_pkt p;
	struct wqe_wc wc[4];

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	mr = rt_reg(t.pd, dst, REGION, WQE_ACCESS_LOCAL_WRITE);
	victim = rt_reg(other_pd ? t.pd2 : t.pd, src, 64, RT_ALL_ACCESS);
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)dst, 100, mr->lkey};
	rt_post_recv(&t, 9, &sg, 1);
	rt_req(&t, &p, WQE_WIRE_RC_SEND_ONLY_WITH_INVALIDATE, RT_FIRST_PSN);
	p.ieth.rkey = other_pd ? victim->rkey : victim->rkey ^ 0x55;
	p.bth.ackreq = 1;
	rt_feed(&t, &p, src, 8);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].status, WQE_WC_REM_INV_REQ_ERR);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, WQE_AETH_NAK_INVALID_REQ, RT_FIRST_PSN, 0);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(victim), 0);
	rt_close(&t);
}

/* A FIRST (or MIDDLE) shorter than the path MTU, or a LAST longer. */
static void bad_packet_length(enum wqe_qp_type type, int which)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_sge sg;
	struct wqe_pkt p;
	struct wqe_wc wc[4];
	uint8_t base = type == WQE_QPT_RC ? 0x00 : 0x20;

	rt_open(&t, type, WQE_MTU_256);
	mr = rt_reg(t.pd, dst, REGION, WQE_ACCESS_LOCAL_WRITE);
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)dst, 4000, mr->lkey};
	rt_post_recv(&t, 11, &sg, 1);
	rt_req(&t, &p, base + WQE_WIRE_RC_SEND_FIRST, RT_FIRST_PSN);
	rt_feed(&t, &p, src, which == 0 ? 252 : 256);
	if (which > 0) {
		rt_req(&t, &p, (uint8_t)(base + (which == 1 ? WQE_WIRE_RC_SEND_MIDDLE
							    : WQE_WIRE_RC_SEND_LAST)),
		       RT_FIRST_PSN + 1);
		p.bth.ackreq = 1;
		rt_feed(&t, &p, src, which == 1 ? 260 : 260);
	}
	if (type == WQE_QPT_RC) {
		CHECK_EQ(rt_nresp(&t), 1);
		rt_check_ack(&t, 0, WQE_AETH_NAK_INVALID_REQ, RT_FIRST_PSN + (which ? 1u : 0u), 0);
		CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
		/* The WQE in progress completes in error. */
		CHECK_EQ(rt_poll(&t, wc, 4), 1);
		CHECK_EQ(wc[0].status, WQE_WC_REM_INV_REQ_ERR);
	} else {
		CHECK_EQ(rt_nresp(&t), 0);
		CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_LENGTH], 1);
		CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_RTS);
		CHECK_EQ(rt_poll(&t, wc, 4), 0);
	}
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

int main(void)
{
	test_rng_seed(&rng, 0x5e4d);
	test_rng_fill(&rng, src, REGION);
	config_loop();
	ack_coalescing();
	for (int ti = 0; ti < 2; ti++) {
		enum wqe_qp_type type = ti ? WQE_QPT_UC : WQE_QPT_RC;

		too_small(type, WQE_MTU_256, 301);
		too_small(type, WQE_MTU_256, 700);
		too_small(type, WQE_MTU_1024, 301);
		too_small(type, WQE_MTU_1024, 3000);
	}
	for (int i = 0; i < 3; i++)
		bad_recv_sge(i);
	bad_invalidate(0);
	bad_invalidate(1);
	for (int i = 0; i < 3; i++) {
		bad_packet_length(WQE_QPT_RC, i);
		bad_packet_length(WQE_QPT_UC, i);
	}
	return test_finish();
}
