/* SPDX-License-Identifier: MIT */
/*
 * The responder's RDMA WRITE on RC and UC: every length against every path
 * MTU placed byte-exact with canaries around the target; WRITE_WITH_IMM
 * consumes a receive WQE (RECV_RDMA_WITH_IMM, byte_len = the WRITE's
 * length, the immediate), a plain WRITE consumes none; RNR NAK for a WRITE
 * with immediate and no receive WQE. Every access violation (unknown rkey,
 * another PD's region, out of bounds on either side, region without
 * REMOTE_WRITE, an invalidated rkey) gets NAK remote access error on RC
 * with nothing placed, the QP in ERR and its receive queue flushed; a QP
 * without REMOTE_WRITE gets NAK invalid request. UC drops the message and
 * stays up. Payloads that do not add up to the RETH length are invalid
 * requests.
 */
#include <string.h>

#include "engine/services.h"
#include "engine/rx.h"
#include "resp_util.h"
#include "testutil.h"

#define REGION 40000u
#define OFF 100u
#define CANARY 0x3c

static uint8_t dst[REGION], src[REGION], rbuf[256];
static struct test_rng rng;

static void desc_write(struct wqe_desc *d, bool imm, uint64_t va, uint32_t rkey, uint32_t len)
{
	memset(d, 0, sizeof(*d));
	d->op = imm ? WQE_OP_RDMA_WRITE_WITH_IMM : WQE_OP_RDMA_WRITE;
	d->remote_addr = va;
	d->rkey = rkey;
	d->total_len = len;
	d->imm = 0xdeadbeef;
}

static void one_case(enum wqe_qp_type type, enum wqe_mtu mtu, bool imm, uint32_t len)
{
	struct rt t;
	struct wqe_mr *mr, *rmr;
	struct wqe_desc d;
	struct wqe_sge sg;
	struct wqe_wc wc[4];
	uint32_t npsn, mtub = wqe_mtu_to_bytes(mtu);

	rt_open(&t, type, mtu);
	mr = rt_reg(t.pd, dst, REGION, WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	rmr = rt_reg(t.pd, rbuf, sizeof(rbuf), WQE_ACCESS_LOCAL_WRITE);
	memset(dst, CANARY, REGION);
	memset(rbuf, CANARY, sizeof(rbuf));
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)rbuf, sizeof(rbuf), rmr->lkey};
	rt_post_recv(&t, 0x77, &sg, 1);
	desc_write(&d, imm, (uint64_t)(uintptr_t)dst + OFF, mr->rkey, len);
	npsn = rt_msg(&t, &d, src, RT_FIRST_PSN, 0);
	CHECK_EQ(npsn, len ? (len + mtub - 1) / mtub : 1);
	CHECK_MEM(dst + OFF, src, len);
	CHECK_EQ(rt_canary_bad(dst, REGION, OFF, len, CANARY), 0);
	/* The receive buffer itself is never written by a WRITE. */
	CHECK_EQ(rt_canary_bad(rbuf, sizeof(rbuf), 0, 0, CANARY), 0);
	if (imm) {
		const uint8_t want[4] = {0xde, 0xad, 0xbe, 0xef};

		CHECK_EQ(rt_poll(&t, wc, 4), 1);
		CHECK_EQ(wc[0].wr_id, 0x77);
		CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[0].opcode, WQE_WC_RECV_RDMA_WITH_IMM);
		CHECK_EQ(wc[0].byte_len, len);
		CHECK_EQ(wc[0].wc_flags, WQE_WC_WITH_IMM);
		CHECK_MEM(&wc[0].imm_data, want, 4);
	} else {
		CHECK_EQ(rt_poll(&t, wc, 4), 0);
	}
	if (type == WQE_QPT_RC) {
		CHECK_EQ(rt_nresp(&t), 1);
		rt_check_ack(&t, 0, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN + npsn - 1, 1);
	} else {
		CHECK_EQ(rt_nresp(&t), 0);
	}
	CHECK_EQ(rt_resp(&t)->stats.bytes_placed, len);
	CHECK_EQ(rt_resp(&t)->epsn, RT_FIRST_PSN + npsn);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(rmr), 0);
	rt_close(&t);
}

static void config_loop(void)
{
	static const enum wqe_mtu mtus[] = {WQE_MTU_256, WQE_MTU_512, WQE_MTU_2048,
					    WQE_MTU_4096};

	for (int ti = 0; ti < 2; ti++) {
		for (size_t mi = 0; mi < 4; mi++) {
			uint32_t m = wqe_mtu_to_bytes(mtus[mi]);
			uint32_t lens[] = {0, 1, 3, m, m + 1, 5 * m + 3};

			for (size_t li = 0; li < 6; li++)
				for (int imm = 0; imm < 2; imm++)
					one_case(ti ? WQE_QPT_UC : WQE_QPT_RC, mtus[mi], imm,
						 lens[li]);
		}
	}
}

enum violation {
	V_BAD_RKEY,
	V_OTHER_PD,
	V_PAST_END,
	V_BEFORE_START,
	V_NO_REMOTE_WRITE,
	V_INVALIDATED,
	V_DEREGISTERED,
	V_QP_NO_WRITE,
	V_COUNT
};

/* A WRITE of 3 MTUs violating @v: nothing placed, NAK on the first packet,
 * QP to ERR, both posted receive WQEs flushed, later packets dropped by
 * the receive filter. UC: the whole message dropped, QP still up. */
static void violation(enum wqe_qp_type type, enum violation v)
{
	struct rt t;
	struct wqe_mr *mr, *other;
	struct wqe_desc d;
	struct wqe_sge sg;
	struct wqe_wc wc[4];
	const uint32_t len = 3 * 256;
	uint64_t va = (uint64_t)(uintptr_t)dst + OFF;
	uint32_t rkey;
	unsigned acc = WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE;
	uint64_t state_drops;

	rt_open(&t, type, WQE_MTU_256);
	memset(dst, CANARY, REGION);
	mr = rt_reg(t.pd, dst + OFF, len, v == V_NO_REMOTE_WRITE ? WQE_ACCESS_LOCAL_WRITE : acc);
	other = rt_reg(t.pd2, dst + 2000, 2000, acc);
	rkey = mr->rkey;
	switch (v) {
	case V_BAD_RKEY: rkey = mr->rkey + 0x1000; break;
	case V_OTHER_PD: rkey = other->rkey; va = (uint64_t)(uintptr_t)dst + 2000; break;
	case V_PAST_END: va += 1; break;
	case V_BEFORE_START: va -= 1; break;
	case V_INVALIDATED:
		CHECK(keys_invalidate_rkey(&t.ctx->nic->keys, mr->rkey));
		break;
	case V_DEREGISTERED:
		CHECK_EQ(wqe_dereg_mr(mr), 0);
		mr = NULL;
		break;
	case V_QP_NO_WRITE: rt_qpc(&t)->access &= ~(uint32_t)WQE_ACCESS_REMOTE_WRITE; break;
	default: break;
	}
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)rbuf, 64, other->lkey};
	rt_post_recv(&t, 1, &sg, 1);
	rt_post_recv(&t, 2, &sg, 1);
	desc_write(&d, false, va, rkey, len);
	rt_msg(&t, &d, src, RT_FIRST_PSN, 0);
	CHECK_EQ(rt_canary_bad(dst, REGION, 0, 0, CANARY), 0);
	if (type == WQE_QPT_RC) {
		uint8_t syn = v == V_QP_NO_WRITE ? WQE_AETH_NAK_INVALID_REQ
						  : WQE_AETH_NAK_REM_ACCESS_ERR;

		CHECK_EQ(rt_nresp(&t), 1);
		rt_check_ack(&t, 0, syn, RT_FIRST_PSN, 0);
		CHECK_EQ(rt_resp(&t)->stats.naks[v == V_QP_NO_WRITE ? RESP_NAK_INV_REQ
								     : RESP_NAK_REM_ACCESS],
			 1);
		CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
		CHECK_EQ(rt_poll(&t, wc, 4), 2);
		CHECK_EQ(wc[0].wr_id, 1);
		CHECK_EQ(wc[0].status, WQE_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[1].wr_id, 2);
		CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
		/* The QP is in ERR: the next packets never reach the responder. */
		state_drops = t.ctx->nic->rx_drops[RX_DROP_QP_STATE];
		rt_msg(&t, &d, src, RT_FIRST_PSN + 3, 0);
		CHECK_EQ(t.ctx->nic->rx_drops[RX_DROP_QP_STATE], state_drops + 3);
		CHECK_EQ(rt_nresp(&t), 1);
	} else {
		CHECK_EQ(rt_nresp(&t), 0);
		CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_RTS);
		/* FIRST dropped for access, MIDDLE and LAST with the message. */
		CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_ACCESS], 1);
		CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_UC_GAP], 2);
		CHECK_EQ(rt_poll(&t, wc, 4), 0);
	}
	if (mr)
		CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(other), 0);
	rt_close(&t);
}

/* Payloads that do not add up to the RETH DMA length. */
static void length_mismatch(int which)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_pkt p;
	uint64_t va = (uint64_t)(uintptr_t)dst;
	uint32_t bad_psn = RT_FIRST_PSN;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_256);
	mr = rt_reg(t.pd, dst, REGION, WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	memset(dst, CANARY, REGION);
	rt_req(&t, &p, which < 2 ? WQE_WIRE_RC_RDMA_WRITE_ONLY : WQE_WIRE_RC_RDMA_WRITE_FIRST,
	       RT_FIRST_PSN);
	p.reth = (struct wqe_reth){va, mr->rkey, which == 0 ? 12u : which == 1 ? 8u : 512u};
	p.bth.ackreq = which < 2;
	rt_feed(&t, &p, src, which < 2 ? 10 : 256);
	if (which >= 2) {
		/* 512 bytes announced: LAST of 252 (short), or a MIDDLE where the
		 * LAST should be. */
		rt_req(&t, &p, which == 2 ? WQE_WIRE_RC_RDMA_WRITE_LAST : WQE_WIRE_RC_RDMA_WRITE_MIDDLE,
		       RT_FIRST_PSN + 1);
		p.bth.ackreq = 1;
		rt_feed(&t, &p, src, which == 2 ? 252 : 256);
		bad_psn++;
		CHECK_MEM(dst, src, 256);
	}
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, WQE_AETH_NAK_INVALID_REQ, bad_psn, 0);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
	CHECK_EQ(rt_canary_bad(dst, REGION, 0, which >= 2 ? 256 : 0, CANARY), 0);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

/* WRITE_WITH_IMM with an empty receive queue: RNR NAK with the PSN of the
 * packet carrying the immediate; the data before it is placed; the retry
 * of that packet after a receive is posted completes the message. */
static void write_imm_rnr(void)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_desc d;
	struct wqe_sge sg;
	struct wqe_wc wc[4];
	struct wqe_pkt p;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_256);
	mr = rt_reg(t.pd, dst, REGION, WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	memset(dst, CANARY, REGION);
	desc_write(&d, true, (uint64_t)(uintptr_t)dst, mr->rkey, 600);
	rt_msg(&t, &d, src, RT_FIRST_PSN, 0);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, wqe_aeth_rnr_nak(12), RT_FIRST_PSN + 2, 0);
	CHECK_EQ(rt_resp(&t)->stats.rnr_naks, 1);
	CHECK_EQ(rt_resp(&t)->epsn, RT_FIRST_PSN + 2);
	CHECK_MEM(dst, src, 512);
	CHECK_EQ(rt_canary_bad(dst, REGION, 0, 512, CANARY), 0);
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)rbuf, 16, mr->lkey};
	rt_post_recv(&t, 3, &sg, 1);
	rt_req(&t, &p, WQE_WIRE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, RT_FIRST_PSN + 2);
	p.immdt.imm = 0x11223344;
	p.bth.ackreq = 1;
	rt_feed(&t, &p, src + 512, 88);
	CHECK_MEM(dst, src, 600);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 3);
	CHECK_EQ(wc[0].opcode, WQE_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(wc[0].byte_len, 600);
	CHECK_EQ(rt_nresp(&t), 2);
	rt_check_ack(&t, 1, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN + 2, 1);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

int main(void)
{
	test_rng_seed(&rng, 0x3717e);
	test_rng_fill(&rng, src, REGION);
	config_loop();
	for (int v = 0; v < V_COUNT; v++) {
		violation(WQE_QPT_RC, (enum violation)v);
		violation(WQE_QPT_UC, (enum violation)v);
	}
	for (int i = 0; i < 4; i++)
		length_mismatch(i);
	write_imm_rnr();
	return test_finish();
}
