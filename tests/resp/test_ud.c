/* SPDX-License-Identifier: MIT */
/*
 * The responder on UD: the receive buffer starts with the 40-byte GRH area
 * (IPv4: 20 zero bytes then the IPv4 header exactly as received; IPv6: the
 * IPv6 header), scattered across SGEs like the payload behind it; the CQE
 * has byte_len = 40 + payload, wc_flags GRH (and WITH_IMM), src_qp from the
 * DETH. A message larger than the receive buffer completes with
 * LOC_LEN_ERR, nothing placed, the QP still up; an empty receive queue and
 * a payload over 4096 are dropped and counted; no UD packet is answered.
 * The receive filter drops wrong Q_Key, P_Key, TVer, unknown QP, bad ICRC,
 * a destination that is not ours and (RC) a stranger's source address,
 * each counted in the NIC's rx_drops, none reaching the responder.
 */
#include <string.h>

#include "engine/services.h"
#include "engine/rx.h"
#include "resp_util.h"
#include "testutil.h"

#define REGION 12000u
#define CANARY 0xe1

static uint8_t buf[REGION], src[REGION], frame[8192];
static struct test_rng rng;

static const struct wqe_context_attr v6_attr = {
	.format = WQE_FORMAT_MLX5,
	.mac = {0x02, 0, 0, 0, 0, 0x01},
	.num_gids = 1,
	.gid = {{{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}}},
	.num_pkeys = 1,
	.pkey = {0xffff},
};

/* Builds a UD SEND ONLY [WITH_IMM] of @len bytes into frame[]. */
static size_t ud_frame(struct rt *t, int ipver, bool imm, uint32_t len)
{
	struct wqe_pkt p;
	size_t n = 0;

	rt_req(t, &p, imm ? WQE_WIRE_UD_SEND_ONLY_WITH_IMMEDIATE : WQE_WIRE_UD_SEND_ONLY, 0x777);
	if (ipver == 6) {
		p.ipver = 6;
		memset(p.src.raw, 0, 16);
		p.src.raw[0] = 0xfd;
		p.src.raw[15] = 0x02;
		p.flow_label = 0x12345;
		p.tos = 0x88;
	} else {
		p.tos = 0x10;
		p.ip_id = 0xbeef;
	}
	p.ttl = 17;
	p.immdt.imm = 0xcafef00d;
	CHECK_EQ(wqe_pkt_build(&p, src, len, frame, sizeof(frame), &n), 0);
	return n;
}

static void ud_basic(int ipver, bool imm, uint32_t split, uint32_t len)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_sge sg[2];
	struct wqe_wc wc[4];
	uint8_t grh[40], image[REGION];
	uint32_t cap = 40 + len + 9;
	size_t n;

	rt_open_attr(&t, ipver == 6 ? &v6_attr : NULL, WQE_QPT_UD, WQE_MTU_1024, 2, 8,
		     RT_FIRST_PSN);
	memset(buf, CANARY, REGION);
	mr = rt_reg(t.pd, buf, REGION, WQE_ACCESS_LOCAL_WRITE);
	sg[0] = (struct wqe_sge){(uint64_t)(uintptr_t)buf + 16, split, mr->lkey};
	sg[1] = (struct wqe_sge){(uint64_t)(uintptr_t)buf + 16 + split + 8, cap - split,
				 mr->lkey};
	rt_post_recv(&t, 0x99, sg, 2);
	n = ud_frame(&t, ipver, imm, len);
	rt_feed_raw(&t, frame, n);
	/* What the buffer must hold: GRH area then payload, across the SGEs. */
	memset(grh, 0, sizeof(grh));
	if (ipver == 4)
		memcpy(grh + 20, frame + 14, 20);
	else
		memcpy(grh, frame + 14, 40);
	memset(image, CANARY, REGION);
	{
		uint8_t msg[REGION];
		uint32_t total = 40 + len;

		memcpy(msg, grh, 40);
		memcpy(msg + 40, src, len);
		memcpy(image + 16, msg, total < split ? total : split);
		if (total > split)
			memcpy(image + 16 + split + 8, msg + split, total - split);
	}
	CHECK_MEM(buf, image, REGION);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 0x99);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, WQE_WC_RECV);
	CHECK_EQ(wc[0].byte_len, 40 + len);
	CHECK_EQ(wc[0].src_qp, RT_PEER_QPN);
	CHECK_EQ(wc[0].pkey_index, 0);
	CHECK_EQ(wc[0].wc_flags, WQE_WC_GRH | (imm ? WQE_WC_WITH_IMM : 0));
	if (imm) {
		const uint8_t want[4] = {0xca, 0xfe, 0xf0, 0x0d};

		CHECK_MEM(&wc[0].imm_data, want, 4);
	}
	CHECK_EQ(rt_nresp(&t), 0);
	CHECK_EQ(rt_resp(&t)->stats.bytes_placed, 40 + len);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

static void ud_errors(void)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_sge sg;
	struct wqe_wc wc[4];
	size_t n;

	rt_open_attr(&t, NULL, WQE_QPT_UD, WQE_MTU_1024, 1, 8, RT_FIRST_PSN);
	memset(buf, CANARY, REGION);
	mr = rt_reg(t.pd, buf, REGION, WQE_ACCESS_LOCAL_WRITE);
	/* Empty receive queue: dropped. */
	n = ud_frame(&t, 4, false, 10);
	rt_feed_raw(&t, frame, n);
	CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_NO_WQE], 1);
	/* 40 + 100 bytes into 139: LOC_LEN_ERR, nothing placed, QP up. */
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)buf, 139, mr->lkey};
	rt_post_recv(&t, 1, &sg, 1);
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)buf + 1000, 140, mr->lkey};
	rt_post_recv(&t, 2, &sg, 1);
	n = ud_frame(&t, 4, false, 100);
	rt_feed_raw(&t, frame, n);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_EQ(wc[0].status, WQE_WC_LOC_LEN_ERR);
	CHECK_EQ(rt_canary_bad(buf, REGION, 0, 0, CANARY), 0);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_RTS);
	/* More than 4096 bytes: dropped; the WQE waits. */
	n = ud_frame(&t, 4, false, 4100);
	rt_feed_raw(&t, frame, n);
	CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_LENGTH], 1);
	CHECK_EQ(rt_poll(&t, wc, 4), 0);
	/* The next fits exactly. */
	n = ud_frame(&t, 4, false, 100);
	rt_feed_raw(&t, frame, n);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 2);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].byte_len, 140);
	CHECK_MEM(buf + 1040, src, 100);
	CHECK_EQ(rt_nresp(&t), 0);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

/* Feeds @p (a UD or RC request) and checks it is dropped for @why. */
static void filtered(struct rt *t, const struct wqe_pkt *p, enum rx_drop why, bool bad_icrc)
{
	uint64_t before = t->ctx->nic->rx_drops[why];
	uint64_t reqs = rt_resp(t)->stats.requests;
	size_t n = 0;

	CHECK_EQ(wqe_pkt_build(p, src, 16, frame, sizeof(frame), &n), 0);
	if (bad_icrc)
		frame[n - 10] ^= 1;
	rt_feed_raw(t, frame, n);
	CHECK_EQ(t->ctx->nic->rx_drops[why], before + 1);
	CHECK_EQ(rt_resp(t)->stats.requests, reqs);
}

static void filters(enum wqe_qp_type type)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_sge sg;
	struct wqe_pkt p;
	struct wqe_wc wc[4];
	uint8_t op = type == WQE_QPT_UD ? WQE_WIRE_UD_SEND_ONLY : WQE_WIRE_RC_SEND_ONLY;

	rt_open(&t, type, WQE_MTU_1024);
	mr = rt_reg(t.pd, buf, REGION, WQE_ACCESS_LOCAL_WRITE);
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)buf, 200, mr->lkey};
	rt_post_recv(&t, 1, &sg, 1);
	rt_req(&t, &p, op, RT_FIRST_PSN);
	p.bth.pkey = 0x8001;
	filtered(&t, &p, RX_DROP_PKEY, false);
	rt_req(&t, &p, op, RT_FIRST_PSN);
	p.bth.tver = 1;
	filtered(&t, &p, RX_DROP_BAD_TVER, false);
	rt_req(&t, &p, op, RT_FIRST_PSN);
	p.bth.destqp = wqe_qp_num(t.qp) + 7;
	filtered(&t, &p, RX_DROP_UNKNOWN_QP, false);
	rt_req(&t, &p, op, RT_FIRST_PSN);
	filtered(&t, &p, RX_DROP_BAD_ICRC, true);
	rt_req(&t, &p, op, RT_FIRST_PSN);
	p.dst.raw[15] = 9;
	filtered(&t, &p, RX_DROP_NOT_FOR_US, false);
	rt_req(&t, &p, type == WQE_QPT_UD ? WQE_WIRE_RC_SEND_ONLY : WQE_WIRE_UD_SEND_ONLY,
	       RT_FIRST_PSN);
	filtered(&t, &p, RX_DROP_TRANSPORT, false);
	rt_req(&t, &p, op, RT_FIRST_PSN);
	if (type == WQE_QPT_UD) {
		p.deth.qkey = RT_QKEY + 1;
		filtered(&t, &p, RX_DROP_QKEY, false);
	} else {
		p.src.raw[15] = 3;
		filtered(&t, &p, RX_DROP_SRC, false);
	}
	/* And the real thing still gets through. */
	rt_req(&t, &p, op, RT_FIRST_PSN);
	rt_feed(&t, &p, src, 16);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(rt_resp(&t)->stats.requests, 1);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

int main(void)
{
	test_rng_seed(&rng, 0x0d);
	test_rng_fill(&rng, src, REGION);
	for (int v = 4; v <= 6; v += 2) {
		for (int imm = 0; imm < 2; imm++) {
			ud_basic(v, imm, 40, 100);
			ud_basic(v, imm, 30, 100);  /* GRH split across SGEs */
			ud_basic(v, imm, 50, 1000); /* payload split */
			ud_basic(v, imm, 40, 0);
			ud_basic(v, imm, 4136, 4096);
		}
	}
	ud_errors();
	filters(WQE_QPT_UD);
	filters(WQE_QPT_RC);
	return test_finish();
}
