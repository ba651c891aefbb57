/* SPDX-License-Identifier: MIT */
/*
 * The responder's atomics: COMPARE_SWAP that matches and one that does not,
 * FETCH_ADD with carries across bytes and wrap-around; the target holds a
 * host-order uint64_t as a verbs program sees it, the wire carries
 * big-endian operands; ATOMIC_ACKNOWLEDGE with the original value, the
 * request's PSN and the MSN. A duplicate atomic is answered with the saved
 * original value and never executed again. A misaligned VA and a QP without
 * REMOTE_ATOMIC are invalid requests; a region without REMOTE_ATOMIC, out of
 * bounds or of another PD is a remote access error; every one moves the QP
 * to ERR with the target untouched.
 */
#include <string.h>

#include "resp_util.h"
#include "testutil.h"

static _Alignas(64) uint64_t target[16];

static void atomic_req(struct rt *t, uint8_t op, uint32_t psn, uint64_t va, uint32_t rkey,
		       uint64_t swap_add, uint64_t compare)
{
	struct wqe_pkt p;

	rt_req(t, &p, op, psn);
	p.atomiceth = (struct wqe_atomiceth){va, rkey, swap_add, compare};
	p.bth.ackreq = 1;
	rt_feed(t, &p, NULL, 0);
}

static void check_atomic_ack(struct rt *t, size_t i, uint32_t psn, uint32_t msn, uint64_t orig)
{
	struct wqe_pkt p;

	rt_get(t, i, &p);
	CHECK_EQ(p.bth.opcode, WQE_WIRE_RC_ATOMIC_ACKNOWLEDGE);
	CHECK_EQ(p.bth.psn, psn);
	CHECK_EQ(p.aeth.syndrome, WQE_AETH_ACK_UNLIMITED);
	CHECK_EQ(p.aeth.msn, msn);
	CHECK_EQ(p.atomicacketh.orig, orig);
}

static void operations(void)
{
	struct rt t;
	struct wqe_mr *mr;
	uint64_t va = (uint64_t)(uintptr_t)&target[2];
	uint32_t psn = RT_FIRST_PSN;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	mr = rt_reg(t.pd, target, sizeof(target),
		    WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_ATOMIC);
	memset(target, 0x5a, sizeof(target));
	target[2] = 0x1122334455667788ull;
	/* Compare matches: swapped. */
	atomic_req(&t, WQE_WIRE_RC_COMPARE_SWAP, psn, va, mr->rkey, 0xa0a0a0a0b0b0b0b0ull,
		   0x1122334455667788ull);
	CHECK_EQ(target[2], 0xa0a0a0a0b0b0b0b0ull);
	check_atomic_ack(&t, 0, psn++, 1, 0x1122334455667788ull);
	/* Compare does not match: unchanged, the original still returned. */
	atomic_req(&t, WQE_WIRE_RC_COMPARE_SWAP, psn, va, mr->rkey, 1, 2);
	CHECK_EQ(target[2], 0xa0a0a0a0b0b0b0b0ull);
	check_atomic_ack(&t, 1, psn++, 2, 0xa0a0a0a0b0b0b0b0ull);
	/* Fetch-add: carries across every byte, then wraps modulo 2^64. */
	target[2] = 0x00000000ffffffffull;
	atomic_req(&t, WQE_WIRE_RC_FETCH_ADD, psn, va, mr->rkey, 1, 0);
	CHECK_EQ(target[2], 0x0000000100000000ull);
	check_atomic_ack(&t, 2, psn++, 3, 0x00000000ffffffffull);
	target[2] = 0xfffffffffffffff0ull;
	atomic_req(&t, WQE_WIRE_RC_FETCH_ADD, psn, va, mr->rkey, 0x20, 0);
	CHECK_EQ(target[2], 0x10);
	check_atomic_ack(&t, 3, psn++, 4, 0xfffffffffffffff0ull);
	CHECK_EQ(rt_resp(&t)->stats.atomics, 4);
	CHECK_EQ(rt_resp(&t)->stats.atomic_acks, 4);
	/* Duplicates of the last two: the saved value, no second add. */
	atomic_req(&t, WQE_WIRE_RC_FETCH_ADD, psn - 1, va, mr->rkey, 0x20, 0);
	atomic_req(&t, WQE_WIRE_RC_FETCH_ADD, psn - 2, va, mr->rkey, 1, 0);
	CHECK_EQ(target[2], 0x10);
	check_atomic_ack(&t, 4, psn - 1, 4, 0xfffffffffffffff0ull);
	check_atomic_ack(&t, 5, psn - 2, 4, 0x00000000ffffffffull);
	CHECK_EQ(rt_resp(&t)->stats.atomics, 4);
	CHECK_EQ(rt_resp(&t)->stats.duplicates, 2);
	CHECK_EQ(rt_resp(&t)->epsn, psn);
	/* Neighbours untouched. */
	for (int i = 0; i < 16; i++)
		if (i != 2)
			CHECK_EQ(target[i], 0x5a5a5a5a5a5a5a5aull);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

enum violation { V_MISALIGNED, V_QP_NO_ATOMIC, V_NO_REMOTE_ATOMIC, V_PAST_END, V_OTHER_PD,
		 V_COUNT };

static void violation(enum violation v)
{
	struct rt t;
	struct wqe_mr *mr, *other;
	uint64_t va = (uint64_t)(uintptr_t)&target[15];
	uint32_t rkey;
	bool inv_req = v == V_MISALIGNED || v == V_QP_NO_ATOMIC;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	memset(target, 0x5a, sizeof(target));
	mr = rt_reg(t.pd, target, v == V_PAST_END ? sizeof(target) - 4 : sizeof(target),
		    WQE_ACCESS_LOCAL_WRITE |
			    (v == V_NO_REMOTE_ATOMIC ? 0 : WQE_ACCESS_REMOTE_ATOMIC));
	other = rt_reg(t.pd2, target, sizeof(target),
		       WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_ATOMIC);
	rkey = v == V_OTHER_PD ? other->rkey : mr->rkey;
	if (v == V_MISALIGNED)
		va = (uint64_t)(uintptr_t)&target[3] + 4;
	if (v == V_QP_NO_ATOMIC)
		rt_qpc(&t)->access &= ~(uint32_t)WQE_ACCESS_REMOTE_ATOMIC;
	atomic_req(&t, WQE_WIRE_RC_FETCH_ADD, RT_FIRST_PSN, va, rkey, 1, 0);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, inv_req ? WQE_AETH_NAK_INVALID_REQ : WQE_AETH_NAK_REM_ACCESS_ERR,
		     RT_FIRST_PSN, 0);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(target[i], 0x5a5a5a5a5a5a5a5aull);
	CHECK_EQ(rt_resp(&t)->stats.atomics, 0);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(other), 0);
	rt_close(&t);
}

/* A QP with max_dest_rd_atomic 0 accepts no READ or atomic. */
static void no_resources(void)
{
	struct rt t;
	struct wqe_mr *mr;

	rt_open(&t, WQE_QPT_RC, WQE_MTU_1024);
	mr = rt_reg(t.pd, target, sizeof(target),
		    WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_ATOMIC);
	rt_qpc(&t)->max_dest_rd_atomic = 0;
	atomic_req(&t, WQE_WIRE_RC_COMPARE_SWAP, RT_FIRST_PSN, (uint64_t)(uintptr_t)target,
		   mr->rkey, 1, 0);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, WQE_AETH_NAK_INVALID_REQ, RT_FIRST_PSN, 0);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

int main(void)
{
	operations();
	for (int v = 0; v < V_COUNT; v++)
		violation((enum violation)v);
	no_resources();
	return test_finish();
}
