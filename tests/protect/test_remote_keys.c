/* SPDX-License-Identifier: MIT */
/*
 * The protection matrix, remote side, end to end on RC: every way an RDMA
 * WRITE, READ or atomic can name memory it may not touch. Each case checks
 * the NAK the responder sends (exactly one, nothing else), the requester's
 * completion status with the two requests behind it flushed, both QPs'
 * states and receive queues, and that not one byte changed anywhere in the
 * arena (canaries around every region of both sides):
 *   wrong rkey, rkey of another PD, deregistered region, address below or
 *   past the region, length running past it (one packet and many), region
 *   without REMOTE_WRITE / REMOTE_READ / REMOTE_ATOMIC (remote access error)
 *   and QP without them (invalid request); an rkey invalidated by a
 *   SEND_WITH_INV first, and SEND_WITH_INV naming an rkey it may not.
 * UC, where nothing is acknowledged: the same violations are dropped, the
 * requester sees success, the responder stays up and writes nothing.
 */
#include <string.h>

#include "protect_util.h"
#include "testutil.h"
#include "wqe/wire.h"

enum how { OP_WRITE, OP_READ, OP_CAS, OP_FAA };

struct rcase {
	const char *name;
	enum how how;
	int region;	/* the region the remote address is in */
	int key_region; /* whose rkey is used */
	int64_t off;	/* from the region's start */
	uint32_t len;
	uint32_t key_xor;
	unsigned qp_access; /* B's qp_access_flags; 0 = all */
	enum wqe_wc_status st;
	uint8_t syndrome;
};

#define RW	WQE_ACCESS_REMOTE_WRITE
#define RR	WQE_ACCESS_REMOTE_READ
#define RA	WQE_ACCESS_REMOTE_ATOMIC
#define ACC	WQE_WC_REM_ACCESS_ERR
#define INV	WQE_WC_REM_INV_REQ_ERR
#define NAK_ACC WQE_AETH_NAK_REM_ACCESS_ERR
#define NAK_INV WQE_AETH_NAK_INVALID_REQ

static const struct rcase cases[] = {
    {"WRITE, no such rkey", OP_WRITE, B_RW, B_RW, 0, 64, 0x10000, 0, ACC, NAK_ACC},
    {"WRITE, rkey with a stale tag", OP_WRITE, B_RW, B_RW, 0, 64, 0x01, 0, ACC, NAK_ACC},
    {"WRITE, rkey of another PD", OP_WRITE, B_PD2, B_PD2, 0, 64, 0, 0, ACC, NAK_ACC},
    {"WRITE, deregistered region", OP_WRITE, B_DEREG, B_DEREG, 0, 64, 0, 0, ACC, NAK_ACC},
    {"WRITE, one byte below the region", OP_WRITE, B_RW, B_RW, -1, 64, 0, 0, ACC, NAK_ACC},
    {"WRITE, just past the region", OP_WRITE, B_RW, B_RW, REGION_LEN, 1, 0, 0, ACC, NAK_ACC},
    {"WRITE, length one byte over", OP_WRITE, B_RW, B_RW, 64, REGION_LEN - 63, 0, 0, ACC, NAK_ACC},
    {"WRITE, 3 packets, the last past the end", OP_WRITE, B_RW, B_RW, REGION_LEN - 3000, 3001, 0, 0,
     ACC, NAK_ACC},
    {"WRITE, region without REMOTE_WRITE", OP_WRITE, B_NOW, B_NOW, 0, 64, 0, 0, ACC, NAK_ACC},
    {"WRITE, QP without REMOTE_WRITE", OP_WRITE, B_RW, B_RW, 0, 64, 0, RR | RA, INV, NAK_INV},
    {"READ, no such rkey", OP_READ, B_RW, B_RW, 0, 64, 0x10000, 0, ACC, NAK_ACC},
    {"READ, rkey of another PD", OP_READ, B_PD2, B_PD2, 0, 64, 0, 0, ACC, NAK_ACC},
    {"READ, past the region", OP_READ, B_RW, B_RW, REGION_LEN - 32, 64, 0, 0, ACC, NAK_ACC},
    {"READ, below the region", OP_READ, B_RW, B_RW, -8, 64, 0, 0, ACC, NAK_ACC},
    {"READ, region without REMOTE_READ", OP_READ, B_NOR, B_NOR, 0, 64, 0, 0, ACC, NAK_ACC},
    {"READ, QP without REMOTE_READ", OP_READ, B_RW, B_RW, 0, 64, 0, RW | RA, INV, NAK_INV},
    {"CAS, region without REMOTE_ATOMIC", OP_CAS, B_NOA, B_NOA, 0, 8, 0, 0, ACC, NAK_ACC},
    {"FAA, region without REMOTE_ATOMIC", OP_FAA, B_NOA, B_NOA, 8, 8, 0, 0, ACC, NAK_ACC},
    {"FAA, rkey of another PD", OP_FAA, B_PD2, B_PD2, 0, 8, 0, 0, ACC, NAK_ACC},
    {"FAA, past the region", OP_FAA, B_RW, B_RW, REGION_LEN, 8, 0, 0, ACC, NAK_ACC},
    {"FAA, deregistered region", OP_FAA, B_DEREG, B_DEREG, 0, 8, 0, 0, ACC, NAK_ACC},
    {"CAS, QP without REMOTE_ATOMIC", OP_CAS, B_RW, B_RW, 0, 8, 0, RW | RR, INV, NAK_INV},
};

static void build(const struct penv *e, const struct rcase *c, struct wqe_send_wr *w,
		  struct wqe_sge *s)
{
	uint64_t raddr = penv_addr(e, c->region, 0) + (uint64_t)c->off;
	uint32_t rkey = e->key[c->key_region] ^ c->key_xor;

	memset(w, 0, sizeof(*w));
	w->sg_list = s;
	w->num_sge = 1;
	switch (c->how) {
	case OP_WRITE:
		*s = penv_sge(e, A_SRC, 0, c->len);
		w->opcode = WQE_WR_RDMA_WRITE;
		w->wr.rdma.remote_addr = raddr;
		w->wr.rdma.rkey = rkey;
		break;
	case OP_READ:
		*s = penv_sge(e, A_SRC, 0, c->len);
		w->opcode = WQE_WR_RDMA_READ;
		w->wr.rdma.remote_addr = raddr;
		w->wr.rdma.rkey = rkey;
		break;
	default:
		*s = penv_sge(e, A_SRC, 256, 8);
		w->opcode =
		    c->how == OP_CAS ? WQE_WR_ATOMIC_CMP_AND_SWP : WQE_WR_ATOMIC_FETCH_AND_ADD;
		w->wr.atomic.remote_addr = raddr;
		w->wr.atomic.rkey = rkey;
		w->wr.atomic.compare_add = 1;
		w->wr.atomic.swap = 2;
		break;
	}
}

static void set_b_access(struct penv *e, unsigned access)
{
	struct wqe_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_access_flags = access;
	CHECK_EQ(wqe_modify_qp(e->p.b.qp, &a, WQE_QP_ACCESS_FLAGS), 0);
}

static void rc_case(const struct rcase *c)
{
	struct penv e;
	struct wqe_send_wr w;
	struct wqe_sge s;

	penv_open(&e, WQE_QPT_RC);
	if (c->qp_access)
		set_b_access(&e, c->qp_access);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 0, 64), 1);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 64, 64), 2);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 0, 64), 1);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 64, 64), 2);
	build(&e, c, &w, &s);
	CHECK_EQ(penv_post_three(&e, &w), 0);
	/* Class C at the responder: NAK, QP to ERR, both receives flushed. */
	penv_check_remote(&e, c->name, c->st, c->syndrome, WQE_QPS_ERR, 2, WQE_WC_WR_FLUSH_ERR);
	penv_close(&e);
}

/* UC: no acknowledgement; the responder drops the message and stays up. */
static void uc_case(const struct rcase *c)
{
	struct penv e;
	struct wqe_send_wr w, *bad;
	struct wqe_sge s;
	struct wqe_wc wc[4];
	struct wqe_qp_stats st;

	penv_open(&e, WQE_QPT_UC);
	if (c->qp_access)
		set_b_access(&e, c->qp_access & RW);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 0, 64), 1);
	build(&e, c, &w, &s);
	w.wr_id = 7;
	w.send_flags = WQE_SEND_SIGNALED;
	CHECK_EQ(wqe_post_send(e.p.a.qp, &w, &bad), 0);
	CHECK_EQ(penv_wait(&e, e.p.a.scq, 1, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	pair_spin(&e.p, 8);
	CHECK_EQ(wqe_poll_cq(e.p.b.rcq, 4, wc), 0);
	CHECK_EQ(qp_state(e.p.a.qp), WQE_QPS_RTS);
	CHECK_EQ(qp_state(e.p.b.qp), WQE_QPS_RTS);
	CHECK_EQ(e.tb.ntx, 0);
	CHECK_EQ(wqe_query_qp_stats(e.p.b.qp, &st), 0);
	CHECK(st.responder_drops >= 1);
	CHECK_EQ(arena_changed(c->name), 0);
	penv_close(&e);
}

/*
 * SEND_WITH_INV invalidates B's rkey; a WRITE through it afterwards is a
 * remote access error. Only the SEND's bytes land (in B's receive buffer).
 */
static void invalidated(void)
{
	struct penv e;
	struct wqe_send_wr w, *bad;
	struct wqe_sge s;
	struct wqe_wc wc[4];

	penv_open(&e, WQE_QPT_RC);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 0, 64), 1);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 64, 64), 2);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 0, 64), 1);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 64, 64), 2);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 128, 64), 3);
	memset(&w, 0, sizeof(w));
	s = penv_sge(&e, A_SRC, 0, 16);
	w.wr_id = 50;
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND_WITH_INV;
	w.invalidate_rkey = e.key[B_INV];
	w.send_flags = WQE_SEND_SIGNALED;
	CHECK_EQ(wqe_post_send(e.p.a.qp, &w, &bad), 0);
	CHECK_EQ(penv_wait(&e, e.p.a.scq, 1, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(penv_wait(&e, e.p.b.rcq, 1, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].wc_flags & WQE_WC_WITH_INV, WQE_WC_WITH_INV);
	CHECK_EQ(wc[0].invalidated_rkey, e.key[B_INV]);
	arena_allow(e.buf[B_RECV], 16);
	e.tb.ntx = 0;
	memset(&w, 0, sizeof(w));
	s = penv_sge(&e, A_SRC, 0, 64);
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_RDMA_WRITE;
	w.wr.rdma.remote_addr = penv_addr(&e, B_INV, 0);
	w.wr.rdma.rkey = e.key[B_INV];
	CHECK_EQ(penv_post_three(&e, &w), 0);
	penv_check_remote(&e, "WRITE through an rkey invalidated by SEND_WITH_INV", ACC, NAK_ACC,
			  WQE_QPS_ERR, 2, WQE_WC_WR_FLUSH_ERR);
	penv_close(&e);
}

/* SEND_WITH_INV naming an rkey that is not a live region of the QP's PD:
 * NAK invalid request; the receive WQE it took completes in error. */
static void bad_invalidate(int which)
{
	static const char *const names[] = {"SEND_WITH_INV of no such rkey",
					    "SEND_WITH_INV of another PD's rkey",
					    "SEND_WITH_INV of a deregistered region's rkey"};
	struct penv e;
	struct wqe_send_wr w;
	struct wqe_sge s;
	uint32_t key;

	penv_open(&e, WQE_QPT_RC);
	key = which == 0 ? e.key[B_RW] ^ 0x10000 : which == 1 ? e.key[B_PD2] : e.key[B_DEREG];
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 0, 64), 1);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 64, 64), 2);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 0, 64), 1);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 64, 64), 2);
	memset(&w, 0, sizeof(w));
	s = penv_sge(&e, A_SRC, 0, 16);
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND_WITH_INV;
	w.invalidate_rkey = key;
	CHECK_EQ(penv_post_three(&e, &w), 0);
	/* The payload was placed before the key was judged (at the end of
	 * the message): the receive buffer's bytes may change. */
	arena_allow(e.buf[B_RECV], 16);
	penv_check_remote(&e, names[which], INV, NAK_INV, WQE_QPS_ERR, 2, WQE_WC_REM_INV_REQ_ERR);
	penv_close(&e);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		rc_case(&cases[i]);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cases[i].how == OP_WRITE && cases[i].region != B_PD2)
			uc_case(&cases[i]);
	invalidated();
	for (int i = 0; i < 3; i++)
		bad_invalidate(i);
	return test_finish();
}
