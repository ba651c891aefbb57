/* SPDX-License-Identifier: MIT */
/*
 * Arming a CQ for solicited completions (wqe_req_notify_cq(cq, 1)), end to
 * end on RC, UC and UD. ibv_req_notify_cq(3): "A CQE is solicited if it is
 * a receive completion for a message with the Solicited Event header bit
 * set, or if the status is not successful. All other successful receive
 * completions, or any successful send completion is unsolicited."
 *  - a SEND without SE completes and fires nothing; one posted with
 *    WQE_SEND_SOLICITED fires (SEND, SEND_WITH_IMM, a SEND of several
 *    packets, whose SE rides only its last one; WRITE_WITH_IMM on RC/UC);
 *  - a plain WRITE posted SOLICITED completes nothing at the receiver and
 *    fires nothing; a successful send completion never fires a
 *    solicited arm, SE or not;
 *  - an error completion fires it: a receive too small (LOC_LEN_ERR),
 *    the flushes after it, and the sender's error (RC: REM_INV_REQ_ERR);
 *  - arming for "next" over "solicited" upgrades; arming for "solicited"
 *    over "next" leaves "next" (IBTA C11-31, C11-32).
 */
#include "notify_util.h"
#include "testutil.h"

/* Sends one message of @op and @len from A to B with @flags, completes it
 * on both sides and returns the number of events B's channel got. */
static int message(struct nt_env *e, enum wqe_wr_opcode op, uint32_t len, unsigned int flags)
{
	static uint64_t id;

	id++;
	if (op != WQE_WR_RDMA_WRITE)
		nt_recv(e, &e->p.b, NT_BUF / 2, id);
	nt_send(e, &e->p.a, op, len, flags, id);
	nt_complete(e, e->p.a.scq, 1, NULL);
	nt_spin(e, 5);
	if (op != WQE_WR_RDMA_WRITE)
		nt_complete(e, e->p.b.rcq, 1, NULL);
	return nt_drain_events(e->p.b.ch);
}

static void test_solicited(enum wqe_qp_type t)
{
	struct nt_env e;
	struct wqe_cq *rcq;
	int rdma = t != WQE_QPT_UD;

	CHECK_EQ(nt_open(&e, t), 0);
	rcq = e.p.b.rcq;
	CHECK_EQ(wqe_req_notify_cq(rcq, 1), 0);
	/* Unsolicited: no event, the arm stays. */
	CHECK_EQ(message(&e, WQE_WR_SEND, 64, 0), 0);
	CHECK_EQ(message(&e, WQE_WR_SEND_WITH_IMM, 64, 0), 0);
	CHECK_EQ(message(&e, WQE_WR_SEND, 3000, 0), 0);
	if (rdma) {
		CHECK_EQ(message(&e, WQE_WR_RDMA_WRITE_WITH_IMM, 64, 0), 0);
		CHECK_EQ(message(&e, WQE_WR_RDMA_WRITE, 64, WQE_SEND_SOLICITED), 0);
	}
	/* Solicited: one event each, once re-armed. */
	CHECK_EQ(message(&e, WQE_WR_SEND, 64, WQE_SEND_SOLICITED), 1);
	CHECK_EQ(message(&e, WQE_WR_SEND, 64, WQE_SEND_SOLICITED), 0);
	CHECK_EQ(wqe_req_notify_cq(rcq, 1), 0);
	CHECK_EQ(message(&e, WQE_WR_SEND_WITH_IMM, 64, WQE_SEND_SOLICITED), 1);
	CHECK_EQ(wqe_req_notify_cq(rcq, 1), 0);
	CHECK_EQ(message(&e, WQE_WR_SEND, t == WQE_QPT_UD ? 4000 : 3000, WQE_SEND_SOLICITED), 1);
	if (rdma) {
		CHECK_EQ(wqe_req_notify_cq(rcq, 1), 0);
		CHECK_EQ(message(&e, WQE_WR_RDMA_WRITE_WITH_IMM, 2500, WQE_SEND_SOLICITED), 1);
	}

	/* The sender's CQ armed for solicited: successful send completions,
	 * with SE or without, never fire it. */
	CHECK_EQ(wqe_req_notify_cq(e.p.a.scq, 1), 0);
	CHECK_EQ(message(&e, WQE_WR_SEND, 64, WQE_SEND_SOLICITED), 0);
	CHECK_EQ(message(&e, WQE_WR_SEND, 64, 0), 0);
	CHECK_EQ(nt_drain_events(e.p.a.ch), 0);
	/* Re-arming for next upgrades it: the next send completion fires. */
	CHECK_EQ(wqe_req_notify_cq(e.p.a.scq, 0), 0);
	CHECK_EQ(message(&e, WQE_WR_SEND, 64, 0), 0);
	CHECK_EQ(nt_drain_events(e.p.a.ch), 1);

	/* Armed for next, then for solicited: still next. */
	CHECK_EQ(wqe_req_notify_cq(rcq, 0), 0);
	CHECK_EQ(wqe_req_notify_cq(rcq, 1), 0);
	CHECK_EQ(message(&e, WQE_WR_SEND, 64, 0), 1);
	/* Armed for solicited, then for next: next. */
	CHECK_EQ(wqe_req_notify_cq(rcq, 1), 0);
	CHECK_EQ(wqe_req_notify_cq(rcq, 0), 0);
	CHECK_EQ(message(&e, WQE_WR_SEND, 64, 0), 1);
	CHECK_EQ(message(&e, WQE_WR_SEND, 64, WQE_SEND_SOLICITED), 0);
	nt_close(&e);
}

/*
 * Error completions fire a solicited arm. B's receive is 16 bytes and A
 * sends 64: B completes it with LOC_LEN_ERR. On RC, B then goes to ERR
 * (its next receive is flushed) and A's SEND fails with REM_INV_REQ_ERR;
 * UC and UD write the error and stay up.
 */
static void test_errors(enum wqe_qp_type t)
{
	struct nt_env e;
	enum wqe_wc_status st;
	struct wqe_cq *cq;
	void *ctx;

	CHECK_EQ(nt_open(&e, t), 0);
	CHECK_EQ(wqe_req_notify_cq(e.p.b.rcq, 1), 0);
	CHECK_EQ(wqe_req_notify_cq(e.p.a.scq, 1), 0);
	nt_recv(&e, &e.p.b, 16, 1);
	nt_send(&e, &e.p.a, WQE_WR_SEND, 64, 0, 1);
	nt_complete(&e, e.p.b.rcq, 1, &st);
	CHECK_EQ(st, WQE_WC_LOC_LEN_ERR);
	CHECK_EQ(nt_event(e.p.b.ch, &cq, &ctx), 1);
	CHECK(cq == e.p.b.rcq && ctx == &e.p.b.rcq);
	CHECK_EQ(nt_event(e.p.b.ch, &cq, &ctx), 0);
	if (t != WQE_QPT_RC) {
		nt_complete(&e, e.p.a.scq, 1, &st);
		CHECK_EQ(st, WQE_WC_SUCCESS);
		CHECK_EQ(nt_drain_events(e.p.a.ch), 0);
		nt_close(&e);
		return;
	}
	nt_complete(&e, e.p.a.scq, 1, &st);
	CHECK_EQ(st, WQE_WC_REM_INV_REQ_ERR);
	CHECK_EQ(nt_event(e.p.a.ch, &cq, &ctx), 1);
	CHECK(cq == e.p.a.scq && ctx == &e.p.a.scq);
	/* A is in ERR too: its next send is flushed, one more event. */
	CHECK_EQ(wqe_req_notify_cq(e.p.a.scq, 1), 0);
	nt_send(&e, &e.p.a, WQE_WR_SEND, 64, WQE_SEND_SOLICITED, 2);
	nt_complete(&e, e.p.a.scq, 1, &st);
	CHECK_EQ(st, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(nt_drain_events(e.p.a.ch), 1);
	/* B is in ERR: a receive posted now is flushed, and that fires. */
	CHECK_EQ(wqe_req_notify_cq(e.p.b.rcq, 1), 0);
	nt_recv(&e, &e.p.b, 64, 3);
	nt_complete(&e, e.p.b.rcq, 1, &st);
	CHECK_EQ(st, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(nt_drain_events(e.p.b.ch), 1);
	nt_close(&e);
}

int main(void)
{
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};

	for (unsigned i = 0; i < 3; i++) {
		test_solicited(types[i]);
		test_errors(types[i]);
	}
	return test_finish();
}
