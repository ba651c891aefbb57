/* SPDX-License-Identifier: MIT */
/*
 * The responder's sequence checks. RC: a packet ahead of the expected PSN
 * gets exactly one NAK PSN sequence error carrying the expected PSN, then
 * silence until the expected PSN arrives; a duplicate SEND or WRITE is
 * acknowledged again (PSN of the last request executed, current MSN) and
 * neither placed nor completed again; an empty receive queue gets an RNR
 * NAK with the packet's PSN and the retry succeeds; an opcode out of
 * sequence is an invalid request. UC: a PSN gap drops the whole message
 * and the receive WQE waits for the next one; MIDDLE/LAST with no message
 * open are dropped; a FIRST while a message is open starts over. The state
 * names of the machine are all there.
 */
#include <string.h>

#include "engine/resp_int.h"
#include "resp_util.h"
#include "testutil.h"

#define REGION 8192u
#define CANARY 0x77

static uint8_t buf[REGION], src[REGION];

static void send_only(struct rt *t, uint32_t psn, uint32_t len, bool ackreq)
{
	struct wqe_pkt p;

	rt_req(t, &p, t->type == WQE_QPT_RC ? WQE_WIRE_RC_SEND_ONLY : WQE_WIRE_UC_SEND_ONLY, psn);
	p.bth.ackreq = ackreq;
	rt_feed(t, &p, src, len);
}

static void post(struct rt *t, const struct wqe_mr *mr, uint64_t wr_id, uint32_t off,
		 uint32_t len)
{
	struct wqe_sge sg = {(uint64_t)(uintptr_t)buf + off, len, mr->lkey};

	rt_post_recv(t, wr_id, &sg, 1);
}

static void out_of_order(void)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_wc wc[8];

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	mr = rt_reg(t.pd, buf, REGION, WQE_ACCESS_LOCAL_WRITE);
	for (uint32_t i = 0; i < 4; i++)
		post(&t, mr, i, 100 * i, 100);
	send_only(&t, RT_FIRST_PSN + 2, 10, true);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, WQE_AETH_NAK_PSN_SEQ_ERR, RT_FIRST_PSN, 0);
	send_only(&t, RT_FIRST_PSN + 3, 10, true);
	send_only(&t, RT_FIRST_PSN + 1, 10, true);
	CHECK_EQ(rt_nresp(&t), 1); /* silence */
	CHECK_EQ(rt_resp(&t)->stats.out_of_seq, 3);
	CHECK_EQ(rt_resp(&t)->stats.naks[RESP_NAK_PSN_SEQ], 1);
	CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_OUT_OF_SEQ], 2);
	CHECK_EQ(rt_poll(&t, wc, 8), 0);
	/* In order again: accepted, and a later gap is a new episode. */
	send_only(&t, RT_FIRST_PSN, 10, true);
	rt_check_ack(&t, 1, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN, 1);
	send_only(&t, RT_FIRST_PSN + 5, 10, true);
	CHECK_EQ(rt_nresp(&t), 3);
	rt_check_ack(&t, 2, WQE_AETH_NAK_PSN_SEQ_ERR, RT_FIRST_PSN + 1, 1);
	CHECK_EQ(rt_poll(&t, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 0);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_RTS);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

static void duplicates(void)
{
	struct rt t;
	struct wqe_mr *mr, *wmr;
	struct wqe_pkt p;
	struct wqe_wc wc[8];
	static uint8_t wdst[64];

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	memset(buf, CANARY, REGION);
	mr = rt_reg(t.pd, buf, REGION, WQE_ACCESS_LOCAL_WRITE);
	wmr = rt_reg(t.pd, wdst, sizeof(wdst), WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	post(&t, mr, 1, 0, 100);
	post(&t, mr, 2, 200, 100);
	send_only(&t, RT_FIRST_PSN, 20, true);
	rt_req(&t, &p, WQE_WIRE_RC_RDMA_WRITE_ONLY, RT_FIRST_PSN + 1);
	p.reth = (struct wqe_reth){(uint64_t)(uintptr_t)wdst, wmr->rkey, 16};
	rt_feed(&t, &p, src, 16); /* no AckReq: no ACK */
	CHECK_EQ(rt_nresp(&t), 1);
	/* Both again, the WRITE with other bytes: re-ACKed with the last
	 * executed PSN and MSN 2, nothing placed, no second completion. */
	send_only(&t, RT_FIRST_PSN, 20, false);
	p.bth.ackreq = 0;
	rt_feed(&t, &p, src + 100, 16);
	CHECK_EQ(rt_nresp(&t), 3);
	rt_check_ack(&t, 1, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN + 1, 2);
	rt_check_ack(&t, 2, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN + 1, 2);
	CHECK_MEM(wdst, src, 16);
	CHECK_EQ(rt_canary_bad(buf, REGION, 0, 20, CANARY), 0);
	CHECK_EQ(rt_poll(&t, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_EQ(rt_resp(&t)->stats.duplicates, 2);
	CHECK_EQ(rt_resp(&t)->msn, 2);
	CHECK_EQ(rt_resp(&t)->epsn, RT_FIRST_PSN + 2);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(wmr), 0);
	rt_close(&t);
}

/* Empty receive queue: RNR NAK (RC) with the packet's PSN, nothing moves;
 * the retry after a post succeeds. UC and UD drop. */
static void rnr(enum wqe_qp_type type)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_wc wc[4];
	struct wqe_desc d;

	rt_open(&t, type, WQE_MTU_256);
	mr = rt_reg(t.pd, buf, REGION, WQE_ACCESS_LOCAL_WRITE);
	memset(&d, 0, sizeof(d));
	d.op = WQE_OP_SEND;
	d.total_len = 600;
	rt_msg(&t, &d, src, RT_FIRST_PSN, 0);
	if (type == WQE_QPT_RC) {
		/* FIRST: RNR NAK; MIDDLE, LAST: out of sequence (one PSN NAK). */
		CHECK_EQ(rt_nresp(&t), 2);
		rt_check_ack(&t, 0, wqe_aeth_rnr_nak(12), RT_FIRST_PSN, 0);
		rt_check_ack(&t, 1, WQE_AETH_NAK_PSN_SEQ_ERR, RT_FIRST_PSN, 0);
		CHECK_EQ(rt_resp(&t)->stats.rnr_naks, 1);
		CHECK_EQ(rt_resp(&t)->epsn, RT_FIRST_PSN);
	} else {
		CHECK_EQ(rt_nresp(&t), 0);
		CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_NO_WQE], 1);
	}
	post(&t, mr, 42, 0, 1000);
	rt_clear(&t);
	rt_msg(&t, &d, src, RT_FIRST_PSN + (type == WQE_QPT_UC ? 3 : 0), 0);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 42);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].byte_len, 600);
	CHECK_MEM(buf, src, 600);
	if (type == WQE_QPT_RC) {
		CHECK_EQ(rt_nresp(&t), 1);
		rt_check_ack(&t, 0, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN + 2, 1);
	}
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

/* RC opcode sequence errors: NAK invalid request with the packet's PSN,
 * the held receive WQE completes in error, the QP goes to ERR. */
static void op_sequence(int which)
{
	static const uint8_t first[] = {0xff, WQE_WIRE_RC_SEND_FIRST, WQE_WIRE_RC_SEND_FIRST,
					WQE_WIRE_RC_RDMA_WRITE_FIRST, 0xff};
	static const uint8_t second[] = {WQE_WIRE_RC_SEND_MIDDLE, WQE_WIRE_RC_SEND_ONLY,
					 WQE_WIRE_RC_RDMA_WRITE_MIDDLE,
					 WQE_WIRE_RC_RDMA_READ_REQUEST,
					 WQE_WIRE_RC_RDMA_WRITE_LAST};
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_pkt p;
	struct wqe_wc wc[4];
	uint32_t psn = RT_FIRST_PSN;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_256);
	mr = rt_reg(t.pd, buf, REGION, RT_ALL_ACCESS);
	post(&t, mr, 1, 0, 2000);
	if (first[which] != 0xff) {
		rt_req(&t, &p, first[which], psn++);
		p.reth = (struct wqe_reth){(uint64_t)(uintptr_t)buf + 4000, mr->rkey, 1024};
		rt_feed(&t, &p, src, 256);
	}
	rt_req(&t, &p, second[which], psn);
	p.reth = (struct wqe_reth){(uint64_t)(uintptr_t)buf + 4000, mr->rkey, 16};
	rt_feed(&t, &p, src, second[which] == WQE_WIRE_RC_RDMA_READ_REQUEST ? 0 : 16);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, WQE_AETH_NAK_INVALID_REQ, psn, 0);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_EQ(wc[0].status, first[which] == WQE_WIRE_RC_SEND_FIRST ? WQE_WC_REM_INV_REQ_ERR
								     : WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

/* UC: a lost MIDDLE drops the whole message, the receive WQE is kept for
 * the next message; orphan MIDDLE/LAST packets are dropped; a FIRST while
 * a message is open abandons it and starts over. */
static void uc_gap(void)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_desc d;
	struct wqe_pkt p;
	struct wqe_wc wc[4];
	uint32_t psn = RT_FIRST_PSN;

	rt_open(&t, WQE_QPT_UC, WQE_MTU_256);
	memset(buf, CANARY, REGION);
	mr = rt_reg(t.pd, buf, REGION, WQE_ACCESS_LOCAL_WRITE);
	post(&t, mr, 7, 0, 2000);
	memset(&d, 0, sizeof(d));
	d.op = WQE_OP_SEND_WITH_IMM;
	d.total_len = 1000; /* 4 packets */
	psn += rt_msg(&t, &d, src, psn, 1u << 1);
	CHECK_EQ(rt_poll(&t, wc, 4), 0);
	CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_UC_GAP], 2);
	/* A FIRST, then a new message before its LAST: the second wins. */
	rt_req(&t, &p, WQE_WIRE_UC_SEND_FIRST, psn++);
	rt_feed(&t, &p, src + 500, 256);
	d.op = WQE_OP_SEND;
	d.total_len = 300;
	psn += rt_msg(&t, &d, src + 1, psn, 0);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 7);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].byte_len, 300);
	CHECK_EQ(wc[0].wc_flags, 0);
	CHECK_MEM(buf, src + 1, 300);
	CHECK_EQ(rt_canary_bad(buf, REGION, 0, 300, CANARY), 0);
	/* Orphans: a MIDDLE with no message open, and the LAST after it. */
	post(&t, mr, 8, 3000, 2000);
	rt_req(&t, &p, WQE_WIRE_UC_SEND_MIDDLE, psn++);
	rt_feed(&t, &p, src, 256);
	rt_req(&t, &p, WQE_WIRE_UC_SEND_LAST, psn++);
	rt_feed(&t, &p, src, 10);
	CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_OP_SEQ], 1);
	CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_UC_GAP], 3);
	CHECK_EQ(rt_poll(&t, wc, 4), 0);
	CHECK_EQ(rt_canary_bad(buf, REGION, 0, 300, CANARY), 0);
	CHECK_EQ(rt_nresp(&t), 0);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

static void names(void)
{
	for (int s = 0; s < RS_COUNT; s++) {
		CHECK(strcmp(resp_state_str((enum resp_state)s), "unknown") != 0);
		for (int u = 0; u < s; u++)
			CHECK(strcmp(resp_state_str((enum resp_state)s),
				     resp_state_str((enum resp_state)u)) != 0);
	}
	CHECK(strcmp(resp_state_str(RS_COUNT), "unknown") == 0);
	for (int k = 0; k < RESP_NAK_COUNT; k++)
		CHECK(strcmp(resp_nak_str((enum resp_nak)k), "unknown") != 0);
	for (int d = 0; d < RESP_DROP_COUNT; d++)
		CHECK(strcmp(resp_drop_str((enum resp_drop)d), "unknown") != 0);
}

/* The states a clean SEND ONLY with AckReq goes through. */
static void path(void)
{
	struct rt t;
	struct wqe_mr *mr;
	uint32_t want = 1u << RS_CHK_PSN | 1u << RS_CHK_OP_SEQ | 1u << RS_CHK_OP_VALID |
			1u << RS_CHK_RESOURCE | 1u << RS_CHK_LENGTH | 1u << RS_CHK_RKEY |
			1u << RS_EXECUTE | 1u << RS_COMPLETE | 1u << RS_ACKNOWLEDGE;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	mr = rt_reg(t.pd, buf, REGION, WQE_ACCESS_LOCAL_WRITE);
	post(&t, mr, 1, 0, 100);
	send_only(&t, RT_FIRST_PSN, 5, true);
	CHECK_EQ(rt_resp(&t)->last_path, want);
	send_only(&t, RT_FIRST_PSN + 9, 5, true);
	CHECK_EQ(rt_resp(&t)->last_path, 1u << RS_CHK_PSN | 1u << RS_ERR_PSN_SEQ);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

int main(void)
{
	out_of_order();
	duplicates();
	rnr(WQE_QPT_RC);
	rnr(WQE_QPT_UC);
	for (int i = 0; i < 5; i++)
		op_sequence(i);
	uc_gap();
	names();
	path();
	return test_finish();
}
