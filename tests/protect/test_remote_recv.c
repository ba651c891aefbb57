/* SPDX-License-Identifier: MIT */
/*
 * The protection matrix, remote side: a SEND meets a receive WQE it cannot
 * use. Too small a buffer: the responder's WQE completes with LOC_LEN_ERR
 * (RC also NAKs invalid request: the requester gets REM_INV_REQ_ERR and the
 * responder goes to ERR; UC and UD stay up and the requester sees success).
 * A bad lkey in the receive WQE (no such key, another PD, a deregistered
 * region, a region without LOCAL_WRITE, an SGE past its region): the WQE
 * completes with LOC_PROT_ERR and the responder goes to ERR on every
 * transport (RC NAKs remote operational error: REM_OP_ERR at the
 * requester). Only the bytes of the receive buffer that a fitting packet
 * filled before the failing one may change.
 */
#include <string.h>

#include "protect_util.h"
#include "testutil.h"
#include "wqe/wire.h"

enum bad { TOO_SMALL, TOO_SMALL_LATER, NO_KEY, OTHER_PD, DEREG, NO_LW, PAST, NBAD };
static const char *const names[NBAD] = {
    "SEND larger than the receive buffer",
    "SEND whose second packet overflows the receive buffer",
    "receive WQE with no such lkey",
    "receive WQE with another PD's lkey",
    "receive WQE with a deregistered region's lkey",
    "receive WQE in a region without LOCAL_WRITE",
    "receive WQE whose SGE runs past its region",
};

/* The receive SGE for @b, and how many bytes of it a packet may fill
 * before the failure is found. */
static struct wqe_sge bad_sge(const struct penv *e, enum bad b, uint32_t *may_fill)
{
	struct wqe_sge s = penv_sge(e, B_RECV, 0, 100);

	*may_fill = 0;
	switch (b) {
	case TOO_SMALL:
		break;
	case TOO_SMALL_LATER:
		s.length = 1500;
		*may_fill = 1024; /* the first packet (MTU 1024) fits */
		break;
	case NO_KEY:
		s.lkey ^= 0x10000;
		break;
	case OTHER_PD:
		s = penv_sge(e, B_PD2, 0, 100);
		break;
	case DEREG:
		s = penv_sge(e, B_DEREG, 0, 100);
		break;
	case NO_LW:
		s = penv_sge(e, B_NOLW, 0, 100);
		break;
	case PAST:
		s = penv_sge(e, B_RECV, REGION_LEN - 50, 100);
		break;
	default:
		break;
	}
	return s;
}

static uint32_t send_len(enum bad b)
{
	return b == TOO_SMALL ? 200 : b == TOO_SMALL_LATER ? 2000 : 60;
}

static void rc_case(enum bad b)
{
	struct penv e;
	struct wqe_send_wr w;
	struct wqe_sge s, rs;
	uint32_t fill;
	int len_err = b == TOO_SMALL || b == TOO_SMALL_LATER;

	penv_open(&e, WQE_QPT_RC);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 0, 64), 1);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 64, 64), 2);
	rs = bad_sge(&e, b, &fill);
	penv_recv(&e, &e.p.b, rs, 1);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 2048, 64), 2);
	if (fill)
		arena_allow((void *)(uintptr_t)rs.addr, fill);
	memset(&w, 0, sizeof(w));
	s = penv_sge(&e, A_SRC, 0, send_len(b));
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND;
	CHECK_EQ(penv_post_three(&e, &w), 0);
	penv_check_remote(&e, names[b], len_err ? WQE_WC_REM_INV_REQ_ERR : WQE_WC_REM_OP_ERR,
			  len_err ? WQE_AETH_NAK_INVALID_REQ : WQE_AETH_NAK_REM_OP_ERR, WQE_QPS_ERR,
			  2, len_err ? WQE_WC_LOC_LEN_ERR : WQE_WC_LOC_PROT_ERR);
	penv_close(&e);
}

/* UC and UD: nothing is acknowledged, the requester sees success. */
static void unacked_case(enum wqe_qp_type t, enum bad b)
{
	struct penv e;
	struct wqe_send_wr w;
	struct wqe_sge s, rs;
	struct wqe_wc wc[4];
	uint32_t fill;
	int len_err = b == TOO_SMALL || b == TOO_SMALL_LATER;
	unsigned long failed = test_failures;

	penv_open(&e, t);
	rs = bad_sge(&e, b, &fill);
	if (t == WQE_QPT_UD && b == TOO_SMALL_LATER)
		rs.length = 100; /* UD is one packet: just too small */
	penv_recv(&e, &e.p.b, rs, 1);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 2048, 64), 2);
	if (fill && t == WQE_QPT_UC)
		arena_allow((void *)(uintptr_t)rs.addr, fill);
	memset(&w, 0, sizeof(w));
	s = penv_sge(&e, A_SRC, 0, send_len(b));
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND;
	CHECK_EQ(penv_post_three(&e, &w), 0);
	CHECK_EQ(penv_wait(&e, e.p.a.scq, 3, wc), 3);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
	CHECK_EQ(qp_state(e.p.a.qp), WQE_QPS_RTS);
	CHECK_EQ(e.tb.ntx, 0);
	if (len_err) {
		/* The WQE completes in error; the next message takes the next
		 * WQE; the QP stays up. */
		CHECK_EQ(penv_wait(&e, e.p.b.rcq, 2, wc), 2);
		CHECK_EQ(wc[0].status, WQE_WC_LOC_LEN_ERR);
		CHECK_EQ(wc[1].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[1].byte_len, t == WQE_QPT_UD ? 56u : 16u);
		arena_allow(e.buf[B_RECV] + 2048, 64);
		CHECK_EQ(qp_state(e.p.b.qp), WQE_QPS_RTS);
	} else {
		/* Class A: LOC_PROT_ERR, the QP to ERR, the rest flushed. */
		CHECK_EQ(penv_wait(&e, e.p.b.rcq, 2, wc), 2);
		CHECK_EQ(wc[0].status, WQE_WC_LOC_PROT_ERR);
		CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
		CHECK_EQ(qp_state(e.p.b.qp), WQE_QPS_ERR);
	}
	pair_spin(&e.p, 4);
	CHECK_EQ(wqe_poll_cq(e.p.b.rcq, 4, wc), 0);
	CHECK_EQ(arena_changed(names[b]), 0);
	if (test_failures != failed)
		fprintf(stderr, "  ^ in case: %s on %s\n", names[b], wqe_qp_type_str(t));
	penv_close(&e);
}

int main(void)
{
	for (int b = 0; b < NBAD; b++) {
		rc_case((enum bad)b);
		unacked_case(WQE_QPT_UC, (enum bad)b);
		unacked_case(WQE_QPT_UD, (enum bad)b);
	}
	return test_finish();
}
