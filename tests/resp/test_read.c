/* SPDX-License-Identifier: MIT */
/*
 * The responder's RDMA READ: for every length against every path MTU, the
 * READ responses (ONLY, or FIRST/MIDDLE.../LAST), one PSN each from the
 * request's PSN, AETH (ACK 0x1f, MSN) exactly on FIRST/LAST/ONLY, payload
 * byte-exact with the source; a zero-length READ gets one ONLY without
 * payload; the MSN moves when the request is accepted and the expected PSN
 * by the number of responses. Duplicates are replayed from the responder
 * resources (whole, or from a PSN inside the range as MIDDLE/LAST), without
 * moving MSN or PSN; a duplicate that matches no resource (other rkey,
 * larger range, evicted by max_dest_rd_atomic newer READs) is dropped; a
 * replay after the region went away is an access error. Access violations
 * get NAK remote access error and the QP goes to ERR; a QP without
 * REMOTE_READ gets NAK invalid request. A READ request with AckReq set (as
 * wqe's requester and the kernel's rxe send every one) and one without get
 * the same answers: READ responses only, never a separate ACK, new or
 * duplicate; the NAK of a bad one is the only packet sent.
 */
#include <string.h>

#include "resp_util.h"
#include "testutil.h"

#define REGION 40000u
#define OFF 40u

static uint8_t mem[REGION];
static struct test_rng rng;

static void read_req_a(struct rt *t, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len,
		       bool ackreq)
{
	struct wqe_pkt p;

	rt_req(t, &p, WQE_WIRE_RC_RDMA_READ_REQUEST, psn);
	p.reth = (struct wqe_reth){va, rkey, len};
	p.bth.ackreq = ackreq;
	rt_feed(t, &p, NULL, 0);
}

/* A READ request as wqe's requester and rxe send it: AckReq set. */
static void read_req(struct rt *t, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len)
{
	read_req_a(t, psn, va, rkey, len, true);
}

/*
 * Checks responses [@from, @from + n) answer a READ of @len bytes at
 * mem + @off starting with PSN @psn; @first: from the request's first PSN.
 */
static void check_responses(struct rt *t, size_t from, uint32_t psn, uint32_t off, uint32_t len,
			    bool first, uint32_t msn)
{
	uint32_t mtu = rt_mtu_bytes(t), n = len ? (len + mtu - 1) / mtu : 1, done = 0;

	CHECK_EQ(rt_nresp(t), from + n);
	for (uint32_t i = 0; i < n; i++) {
		struct wqe_pkt p;
		bool is_first = first && i == 0, is_last = i + 1 == n;
		uint8_t want;

		rt_get(t, from + i, &p);
		if (is_first && is_last)
			want = WQE_WIRE_RC_RDMA_READ_RESPONSE_ONLY;
		else if (is_first)
			want = WQE_WIRE_RC_RDMA_READ_RESPONSE_FIRST;
		else if (is_last)
			want = WQE_WIRE_RC_RDMA_READ_RESPONSE_LAST;
		else
			want = WQE_WIRE_RC_RDMA_READ_RESPONSE_MIDDLE;
		CHECK_EQ(p.bth.opcode, want);
		CHECK_EQ(p.bth.psn, (psn + i) & 0xffffff);
		CHECK_EQ(!!(p.hdrs & WQE_HDR_AETH), want != WQE_WIRE_RC_RDMA_READ_RESPONSE_MIDDLE);
		if (p.hdrs & WQE_HDR_AETH) {
			CHECK_EQ(p.aeth.syndrome, WQE_AETH_ACK_UNLIMITED);
			CHECK_EQ(p.aeth.msn, msn);
		}
		CHECK_EQ(p.payload_len, len - done < mtu ? len - done : mtu);
		CHECK_MEM(p.payload, mem + off + done, p.payload_len);
		done += p.payload_len;
	}
	CHECK_EQ(done, len);
}

static void one_case(enum wqe_mtu mtu, uint32_t len, uint32_t first_psn, bool ackreq)
{
	struct rt t;
	struct wqe_mr *mr;
	struct wqe_pkt p;
	uint32_t m = wqe_mtu_to_bytes(mtu), n = len ? (len + m - 1) / m : 1;
	uint64_t va = (uint64_t)(uintptr_t)mem + OFF;

	rt_open_attr(&t, NULL, WQE_QPT_RC, mtu, 1, 4, first_psn);
	mr = rt_reg(t.pd, mem, REGION, WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_READ);
	read_req_a(&t, first_psn, va, mr->rkey, len, ackreq);
	check_responses(&t, 0, first_psn, OFF, len, true, 1);
	CHECK_EQ(rt_resp(&t)->epsn, (first_psn + n) & 0xffffff);
	CHECK_EQ(rt_resp(&t)->msn, 1);
	CHECK_EQ(rt_resp(&t)->stats.read_responses, n);
	CHECK_EQ(rt_resp(&t)->stats.bytes_read, len);
	/* The whole request again: the same responses, nothing moves. */
	read_req_a(&t, first_psn, va, mr->rkey, len, ackreq);
	check_responses(&t, n, first_psn, OFF, len, true, 1);
	CHECK_EQ(rt_resp(&t)->epsn, (first_psn + n) & 0xffffff);
	CHECK_EQ(rt_resp(&t)->stats.duplicates, 1);
	/* A retry from the third response on (the requester advances the
	 * RETH by whole MTUs): MIDDLE.../LAST from that PSN. */
	if (n >= 3) {
		size_t base = rt_nresp(&t);

		read_req_a(&t, first_psn + 2, va + 2 * m, mr->rkey, len - 2 * m, ackreq);
		check_responses(&t, base, first_psn + 2, OFF + 2 * m, len - 2 * m, false, 1);
	}
	/* The next request is in sequence. */
	rt_clear(&t);
	rt_req(&t, &p, WQE_WIRE_RC_RDMA_WRITE_ONLY, first_psn + n);
	p.reth = (struct wqe_reth){va, mr->rkey, 0};
	p.bth.ackreq = 1;
	rt_feed(&t, &p, NULL, 0);
	rt_check_ack(&t, 0, WQE_AETH_ACK_UNLIMITED, (first_psn + n) & 0xffffff, 2);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

static void config_loop(void)
{
	static const enum wqe_mtu mtus[] = {WQE_MTU_256, WQE_MTU_1024, WQE_MTU_4096};

	for (size_t mi = 0; mi < 3; mi++) {
		uint32_t m = wqe_mtu_to_bytes(mtus[mi]);
		uint32_t lens[] = {0, 1, m - 1, m, m + 1, 3 * m, 3 * m + 5};

		for (size_t li = 0; li < 7; li++) {
			for (int a = 0; a < 2; a++) {
				one_case(mtus[mi], lens[li], RT_FIRST_PSN, a);
				/* PSNs wrap at 2^24. */
				one_case(mtus[mi], lens[li], 0xfffffe, a);
			}
		}
	}
}

enum violation { V_BAD_RKEY, V_OTHER_PD, V_PAST_END, V_NO_REMOTE_READ, V_QP_NO_READ, V_COUNT };

static void violation(enum violation v)
{
	struct rt t;
	struct wqe_mr *mr, *other, *rmr;
	struct wqe_sge sg;
	struct wqe_wc wc[4];
	uint64_t va = (uint64_t)(uintptr_t)mem + OFF;
	uint32_t rkey;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	mr = rt_reg(t.pd, mem, 1000, v == V_NO_REMOTE_READ ? WQE_ACCESS_LOCAL_WRITE
							    : WQE_ACCESS_REMOTE_READ);
	other = rt_reg(t.pd2, mem + 1000, 1000, WQE_ACCESS_REMOTE_READ);
	rmr = rt_reg(t.pd, mem + 2000, 100, WQE_ACCESS_LOCAL_WRITE);
	rkey = v == V_BAD_RKEY ? 0x12345678u : v == V_OTHER_PD ? other->rkey : mr->rkey;
	if (v == V_QP_NO_READ)
		rt_qpc(&t)->access &= ~(uint32_t)WQE_ACCESS_REMOTE_READ;
	sg = (struct wqe_sge){(uint64_t)(uintptr_t)mem + 2000, 100, rmr->lkey};
	rt_post_recv(&t, 5, &sg, 1);
	read_req(&t, RT_FIRST_PSN, v == V_OTHER_PD ? va + 1000 : va, rkey,
		 v == V_PAST_END ? 1000 - OFF + 1 : 100);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0,
		     v == V_QP_NO_READ ? WQE_AETH_NAK_INVALID_REQ : WQE_AETH_NAK_REM_ACCESS_ERR,
		     RT_FIRST_PSN, 0);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
	CHECK_EQ(rt_poll(&t, wc, 4), 1);
	CHECK_EQ(wc[0].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(other), 0);
	CHECK_EQ(wqe_dereg_mr(rmr), 0);
	rt_close(&t);
}

/* A zero-length READ names no memory: no rkey is checked. */
static void zero_length_any_rkey(void)
{
	struct rt t;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	read_req(&t, RT_FIRST_PSN, 0x1234, 0xdead, 0);
	CHECK_EQ(rt_nresp(&t), 1);
	check_responses(&t, 0, RT_FIRST_PSN, 0, 0, true, 1);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_RTS);
	rt_close(&t);
}

/* Duplicates that match no resource are dropped; the ring holds
 * max_dest_rd_atomic (4) READs; a replay whose region went away is an
 * access error. */
static void duplicates(void)
{
	struct rt t;
	struct wqe_mr *mr;
	uint64_t va = (uint64_t)(uintptr_t)mem;
	uint32_t psn = RT_FIRST_PSN, rkey;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_256);
	mr = rt_reg(t.pd, mem, REGION, WQE_ACCESS_REMOTE_READ);
	for (uint32_t i = 0; i < 5; i++) {
		read_req(&t, psn, va + 1000 * i, mr->rkey, 300); /* two PSNs each */
		psn += 2;
	}
	CHECK_EQ(rt_nresp(&t), 10);
	rt_clear(&t);
	/* The first READ was evicted by the fifth. */
	read_req(&t, RT_FIRST_PSN, va, mr->rkey, 300);
	CHECK_EQ(rt_nresp(&t), 0);
	CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_DUP_UNKNOWN], 1);
	/* Another rkey, or more than was asked for: dropped. */
	read_req(&t, RT_FIRST_PSN + 2, va + 1000, mr->rkey + 0x100, 300);
	read_req(&t, RT_FIRST_PSN + 2, va + 1000, mr->rkey, 301);
	read_req(&t, RT_FIRST_PSN + 2, va + 999, mr->rkey, 300);
	CHECK_EQ(rt_nresp(&t), 0);
	CHECK_EQ(rt_resp(&t)->stats.drops[RESP_DROP_DUP_UNKNOWN], 4);
	/* A subset is fine: the second READ's last 44 bytes. */
	read_req(&t, RT_FIRST_PSN + 3, va + 1000 + 256, mr->rkey, 44);
	check_responses(&t, 0, RT_FIRST_PSN + 3, 1256, 44, false, 5);
	CHECK_EQ(rt_resp(&t)->msn, 5);
	CHECK_EQ(rt_resp(&t)->epsn, psn);
	/* The region is gone: the replay is an access error. */
	rt_clear(&t);
	rkey = mr->rkey;
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	read_req(&t, RT_FIRST_PSN + 4, va + 2000, rkey, 300);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, WQE_AETH_NAK_REM_ACCESS_ERR, RT_FIRST_PSN + 4, 5);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
	rt_close(&t);
}

int main(void)
{
	test_rng_seed(&rng, 0x4ead);
	test_rng_fill(&rng, mem, REGION);
	config_loop();
	for (int v = 0; v < V_COUNT; v++)
		violation((enum violation)v);
	zero_length_any_rkey();
	duplicates();
	return test_finish();
}
