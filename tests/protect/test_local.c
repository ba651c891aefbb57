/* SPDX-License-Identifier: MIT */
/*
 * The protection matrix, local side: every way a send WQE can overreach
 * the requester's own memory or be malformed, on RC, UC and UD, in the
 * WQE format of the run (WQE_TEST_FORMAT: mlx5 or rxe).
 *   processing time (the NIC): no such lkey, an lkey of another PD, a
 *     deregistered region, an SGE past or before its region, a bad second
 *     SGE behind a good one, a READ or atomic whose destination lacks
 *     LOCAL_WRITE -> LOC_PROT_ERR;
 *     WQE bytes written straight into the ring -> LOC_QP_OP_ERR: mlx5 DS
 *     of zero, a size past the doorbell record, another QP's number; rxe an
 *     unknown send flag, 65 SGEs, SGEs that do not add up, a WQE not in the
 *     posted state, a UD WQE naming no address handle; both an unknown
 *     opcode, an inline length past the WQE, a WQE of 0xff bytes, an opcode
 *     the transport does not have
 *   post time (the driver): inline data over max_inline_data -> EINVAL,
 *     nothing written to the ring;
 *   mlx5, a doorbell record more than a ring ahead: QP to ERR, nothing
 *     sent, a bounded flush.
 * Each processing-time failure: the status (even on an unsignaled WQE),
 * the two WQEs behind it flushed, the receive queue flushed, the QP in
 * ERR, not one packet on the wire, the peer untouched, no byte changed.
 * And a raw-ring atomic at a misaligned address, which no post-time check
 * stops there: the responder NAKs invalid request (REM_INV_REQ_ERR).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "protect_util.h"
#include "testutil.h"
#include "engine/services.h"
#include "verbs/verbs_int.h"
#include "wqe/model.h"
#include "wqe/wire.h"

static const char *cur;

/* A's failure: @st for wr_id 100, two flushes, receives flushed, ERR, no
 * packet, B untouched, no byte changed. */
static void check_local(struct penv *e, enum wqe_wc_status st, enum wqe_check check)
{
	struct wqe_wc wc[8];
	unsigned long failed = test_failures;

	CHECK_EQ(penv_wait(e, e->p.a.scq, 3, wc), 3);
	CHECK_EQ(wc[0].wr_id, 100);
	CHECK_EQ(wc[0].status, st);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].wr_id, 101);
	CHECK_EQ(wc[2].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[2].wr_id, 102);
	CHECK_EQ(penv_wait(e, e->p.a.rcq, 1, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(qp_state(e->p.a.qp), WQE_QPS_ERR);
	CHECK_EQ(e->ta.ntx, 0);
	CHECK_EQ(a_packets(e), 0);
	CHECK_EQ(e->ta.ncheck_fail, 1);
	CHECK_EQ(e->ta.check, check);
	pair_spin(&e->p, 4);
	CHECK_EQ(wqe_poll_cq(e->p.b.rcq, 4, wc), 0);
	CHECK_EQ(qp_state(e->p.b.qp), WQE_QPS_RTS);
	CHECK_EQ(arena_changed(cur), 0);
	if (test_failures != failed)
		fprintf(stderr, "  ^ in case: %s on %s\n", cur, wqe_qp_type_str(e->p.type));
}

enum lcase { NO_KEY, OTHER_PD, DEREG, PAST, BEFORE, SECOND_SGE, READ_NO_LW, ATOMIC_NO_LW, NLCASE };
static const char *const lnames[NLCASE] = {"SGE with no such lkey",
					   "SGE with another PD's lkey",
					   "SGE of a deregistered region",
					   "SGE running past its region",
					   "SGE starting before its region",
					   "good SGE then a bad one",
					   "READ into a region without LOCAL_WRITE",
					   "atomic result into a region without LOCAL_WRITE"};

static void lkey_case(enum wqe_qp_type t, enum lcase c)
{
	struct penv e;
	struct wqe_send_wr w;
	struct wqe_sge s[2];

	if ((c == READ_NO_LW || c == ATOMIC_NO_LW) && t != WQE_QPT_RC)
		return;
	cur = lnames[c];
	penv_open(&e, t);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 0, 64), 1);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 0, 256), 1);
	memset(&w, 0, sizeof(w));
	w.sg_list = s;
	w.num_sge = 1;
	w.opcode = t == WQE_QPT_UD ? WQE_WR_SEND : WQE_WR_RDMA_WRITE;
	w.wr.rdma.remote_addr = penv_addr(&e, B_RW, 0);
	w.wr.rdma.rkey = e.key[B_RW];
	s[0] = penv_sge(&e, A_SRC, 0, 64);
	switch (c) {
	case NO_KEY:
		s[0].lkey ^= 0x10000;
		break;
	case OTHER_PD:
		s[0] = penv_sge(&e, A_PD2, 0, 64);
		break;
	case DEREG:
		s[0] = penv_sge(&e, A_DEREG, 0, 64);
		break;
	case PAST:
		s[0] = penv_sge(&e, A_SRC, REGION_LEN - 10, 64);
		break;
	case BEFORE:
		s[0].addr -= 1;
		break;
	case SECOND_SGE:
		s[1] = penv_sge(&e, A_PD2, 0, 64);
		w.num_sge = 2;
		break;
	case READ_NO_LW:
		w.opcode = WQE_WR_RDMA_READ;
		s[0] = penv_sge(&e, A_NOLW, 0, 64);
		break;
	case ATOMIC_NO_LW:
		w.opcode = WQE_WR_ATOMIC_FETCH_AND_ADD;
		s[0] = penv_sge(&e, A_NOLW, 8, 8);
		w.wr.atomic.remote_addr = penv_addr(&e, B_RW, 0);
		w.wr.atomic.rkey = e.key[B_RW];
		w.wr.atomic.compare_add = 1;
		break;
	default:
		break;
	}
	CHECK_EQ(penv_post_three(&e, &w), 0);
	check_local(&e, WQE_WC_LOC_PROT_ERR, WQE_CHECK_LKEY);
	penv_close(&e);
}

/* An unsignaled bad WQE still completes with its error (IBTA 10.7.3.1). */
static void unsignaled_case(void)
{
	struct penv e;
	struct wqe_send_wr w[3], *bad;
	struct wqe_sge s = {0, 64, 0}, gs;

	cur = "unsignaled WQE with no such lkey";
	penv_open(&e, WQE_QPT_RC);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 0, 64), 1);
	s = penv_sge(&e, A_SRC, 0, 64);
	s.lkey ^= 0x10000;
	gs = penv_sge(&e, A_SRC, 0, 16);
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 3; i++) {
		w[i].wr_id = 100 + (uint64_t)i;
		w[i].sg_list = i ? &gs : &s;
		w[i].num_sge = 1;
		w[i].opcode = WQE_WR_SEND;
		w[i].send_flags = i ? WQE_SEND_SIGNALED : 0;
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	CHECK_EQ(wqe_post_send(e.p.a.qp, w, &bad), 0);
	check_local(&e, WQE_WC_LOC_PROT_ERR, WQE_CHECK_LKEY);
	penv_close(&e);
}

/* Inline over the limit: refused at post time, nothing in the ring, no
 * packet, the QP stays up and the next request goes through. */
static void inline_over(enum wqe_qp_type t)
{
	struct penv e;
	struct wqe_send_wr w, *bad = NULL;
	struct wqe_sge s;
	struct wqe_qp_attr a;
	struct wqe_qp_init_attr ia;
	struct wqe_qp_dv dv0, dv1;
	struct wqe_wc wc[2];

	cur = "inline data over max_inline_data";
	penv_open(&e, t);
	CHECK_EQ(wqe_query_qp(e.p.a.qp, &a, 0, &ia), 0);
	memset(&w, 0, sizeof(w));
	s = penv_sge(&e, A_SRC, 0, a.cap.max_inline_data + 1);
	w.wr_id = 100;
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND;
	w.send_flags = WQE_SEND_INLINE | WQE_SEND_SIGNALED;
	if (t == WQE_QPT_UD) {
		w.wr.ud.ah = e.p.a.ah;
		w.wr.ud.remote_qpn = wqe_qp_num(e.p.b.qp);
		w.wr.ud.remote_qkey = 0x11111111;
	}
	CHECK_EQ(wqe_qp_dv_query(e.p.a.qp, &dv0), 0);
	CHECK_EQ(wqe_post_send(e.p.a.qp, &w, &bad), EINVAL);
	CHECK(bad == &w);
	CHECK_EQ(wqe_qp_dv_query(e.p.a.qp, &dv1), 0);
	CHECK_EQ(dv1.sq_pi, dv0.sq_pi);
	pair_spin(&e.p, 4);
	CHECK_EQ(e.ta.ntx, 0);
	CHECK_EQ(wqe_poll_cq(e.p.a.scq, 2, wc), 0);
	CHECK_EQ(qp_state(e.p.a.qp), WQE_QPS_RTS);
	/* One byte less is fine. */
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 0, 2048), 1);
	s.length = a.cap.max_inline_data;
	CHECK_EQ(wqe_post_send(e.p.a.qp, &w, &bad), 0);
	CHECK_EQ(penv_wait(&e, e.p.a.scq, 1, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(penv_wait(&e, e.p.b.rcq, 1, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	arena_allow(e.buf[B_RECV], 2048);
	CHECK_EQ(arena_changed(cur), 0);
	penv_close(&e);
}

/* ------------------------------------------------------------------------ */
/* Raw ring writes.                                                         */

enum raw {
	DS_ZERO,	   /* mlx5 */
	BAD_OPCODE,	   /* both */
	OTHER_QPN,	   /* mlx5 (an rxe WQE does not name its QP) */
	DS_PAST,	   /* mlx5 */
	INLINE_LONG,	   /* both */
	ALL_FF,		   /* both */
	BAD_FLAGS,	   /* rxe: an unknown send_flags bit */
	TOO_MANY_SGE,	   /* rxe: num_sge 65 */
	SGE_SUM,	   /* rxe: the SGE lengths do not add up to the length */
	NOT_POSTED,	   /* rxe: state not "posted" */
	BAD_AH,		   /* rxe, UD: an address-handle number the NIC does not have */
	ILLEGAL_OP,	   /* both, UC/UD: READ */
	MISALIGNED_ATOMIC, /* both, RC */
	NRAW
};
static const char *const rnames[NRAW] = {
    "ring WQE with DS 0",
    "ring WQE with an unknown opcode",
    "ring WQE naming another QP",
    "ring WQE larger than what the doorbell record covers",
    "ring WQE whose inline length runs past it",
    "ring WQE of 0xff bytes",
    "ring WQE with an unknown send flag",
    "ring WQE with 65 SGEs",
    "ring WQE whose SGEs do not add up to its length",
    "ring WQE not in the posted state",
    "ring UD WQE naming no address handle",
    "ring WQE with an opcode the transport does not have",
    "ring atomic at a misaligned address",
};

static int raw_applies(enum wqe_format f, enum wqe_qp_type t, enum raw how)
{
	switch (how) {
	case DS_ZERO:
	case OTHER_QPN:
	case DS_PAST:
		return f == WQE_FORMAT_MLX5;
	case BAD_FLAGS:
	case TOO_MANY_SGE:
	case SGE_SUM:
	case NOT_POSTED:
		return f == WQE_FORMAT_RXE;
	case BAD_AH:
		return f == WQE_FORMAT_RXE && t == WQE_QPT_UD;
	case ILLEGAL_OP:
		return t != WQE_QPT_RC;
	case MISALIGNED_ATOMIC:
		return t == WQE_QPT_RC;
	default:
		return 1;
	}
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Spoils the WQE at @w (mlx5 layout). */
static void spoil_mlx5(uint8_t *w, enum wqe_qp_type t, enum raw how)
{
	switch (how) {
	case DS_ZERO:
		w[7] = 0;
		break;
	case BAD_OPCODE:
		w[3] = 0x77;
		break;
	case OTHER_QPN:
		w[6] ^= 1;
		break;
	case DS_PAST:
		w[7] = 0x3f;
		break;
	case INLINE_LONG:
		/* The inline segment follows ctrl + raddr (RC/UC) or ctrl +
		 * datagram (UD): byte_count 0x3ff with the inline bit. */
		w[(t == WQE_QPT_UD ? 64 : 32) + 2] = 0x03;
		w[(t == WQE_QPT_UD ? 64 : 32) + 3] = 0xff;
		break;
	case ALL_FF:
		memset(w, 0xff, WQE_BLOCK_SIZE);
		break;
	default:
		break;
	}
}

/* Spoils the WQE at @w (rxe layout, struct rxe_send_wqe: opcode at 12,
 * send_flags 16, ud.ah_num 36, state 148, dma.length 184, dma.resid 188,
 * dma.num_sge 196). */
static void spoil_rxe(uint8_t *w, uint32_t slot_bytes, enum raw how)
{
	switch (how) {
	case BAD_OPCODE:
		put_le32(w + 12, 0x77);
		break;
	case BAD_FLAGS:
		put_le32(w + 16, 0x100);
		break;
	case INLINE_LONG:
		put_le32(w + 184, slot_bytes);
		put_le32(w + 188, slot_bytes);
		break;
	case ALL_FF:
		memset(w, 0xff, slot_bytes);
		break;
	case TOO_MANY_SGE:
		put_le32(w + 196, 65);
		break;
	case SGE_SUM:
		put_le32(w + 184, 65);
		put_le32(w + 188, 65);
		break;
	case NOT_POSTED:
		put_le32(w + 148, 1);
		break;
	case BAD_AH:
		put_le32(w + 36, 0x7777);
		break;
	default:
		break;
	}
}

/* Publishes the WQE at @pi of @nb blocks and rings the doorbell, as the
 * driver of @f would. */
static void publish(struct wqe_qp *qp, enum wqe_format f, uint32_t pi, uint32_t nb)
{
	uint8_t db[8];
	uint32_t qpn = wqe_qp_num(qp), rec;

	qp->sq_wrid[pi & (qp->sq.nblocks - 1)] = 100;
	qp->sq.pi = pi + nb;
	qp->sq.posted_wqes++;
	sq_ring_publish(&qp->sq);
	if (f == WQE_FORMAT_RXE) {
		rec = atomic_load(&qp->sq.dbrec);
		db[0] = (uint8_t)(qpn >> 24);
		db[1] = (uint8_t)(qpn >> 16);
		db[2] = (uint8_t)(qpn >> 8);
		db[3] = (uint8_t)qpn;
		db[4] = (uint8_t)(rec >> 24);
		db[5] = (uint8_t)(rec >> 16);
		db[6] = (uint8_t)(rec >> 8);
		db[7] = (uint8_t)rec;
	} else {
		memcpy(db, sq_ring_block(&qp->sq, pi), 8);
		db[4] = (uint8_t)(qpn >> 16);
		db[5] = (uint8_t)(qpn >> 8);
		db[6] = (uint8_t)qpn;
	}
	nic_doorbell(qp->context->nic, db);
}

static void raw_case(enum wqe_qp_type t, enum raw how)
{
	enum wqe_format f = test_format();
	struct penv e;
	struct wqe_qp *qp;
	struct wqe_send_wr w, g[2], *bad;
	struct wqe_sge s, gs;
	struct wqe_encode_qp eqp;
	struct wqe_ring_view v;
	uint32_t nb = 0, pi;

	if (!raw_applies(f, t, how))
		return;
	cur = rnames[how];
	penv_open(&e, t);
	qp = e.p.a.qp;
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 0, 64), 1);
	if (how == MISALIGNED_ATOMIC)
		penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 64, 64), 2);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 0, 256), 1);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 256, 256), 2);
	eqp = (struct wqe_encode_qp){t, wqe_qp_num(qp), qp->cap.max_send_sge,
				     qp->cap.max_inline_data, 0};
	v = (struct wqe_ring_view){qp->sq.buf, qp->sq.nblocks};
	memset(&w, 0, sizeof(w));
	s = penv_sge(&e, A_SRC, 0, 64);
	w.sg_list = &s;
	w.num_sge = 1;
	w.send_flags = WQE_SEND_SIGNALED;
	w.opcode = t == WQE_QPT_UD ? WQE_WR_SEND : WQE_WR_RDMA_WRITE;
	w.wr.rdma.remote_addr = penv_addr(&e, B_RW, 0);
	w.wr.rdma.rkey = e.key[B_RW];
	if (t == WQE_QPT_UD) {
		w.wr.ud.ah = e.p.a.ah;
		w.wr.ud.remote_qpn = wqe_qp_num(e.p.b.qp);
		w.wr.ud.remote_qkey = 0x11111111;
	}
	/*
	 * An mlx5 WQE whose size field is spoiled is retired as one block. On
	 * UD a WQE with an SGE takes two blocks; the NIC then flushes the
	 * second as a WQE of its own, a completion for a request never posted
	 * (docs/protection.md, "Known deviations"). One block here: a SEND
	 * with no SGE (control + datagram segments, 64 bytes).
	 */
	if (f == WQE_FORMAT_MLX5 && t == WQE_QPT_UD &&
	    (how == DS_ZERO || how == DS_PAST || how == ALL_FF))
		w.num_sge = 0;
	if (how == INLINE_LONG) {
		s.length = 8;
		w.send_flags |= WQE_SEND_INLINE;
	}
	if (how == ILLEGAL_OP)
		w.opcode = WQE_WR_RDMA_READ; /* encoded as the provider would */
	if (how == MISALIGNED_ATOMIC) {
		w.opcode = WQE_WR_ATOMIC_FETCH_AND_ADD;
		s = penv_sge(&e, A_SRC, 8, 8);
		w.wr.atomic.remote_addr = penv_addr(&e, B_RW, 4);
		w.wr.atomic.rkey = e.key[B_RW];
		w.wr.atomic.compare_add = 1;
	}
	pi = qp->sq.pi;
	CHECK_EQ(wqe_encode(f, &eqp, &w, &v, pi, pi, &nb), 0);
	if (f == WQE_FORMAT_RXE)
		spoil_rxe(sq_ring_block(&qp->sq, pi), nb * WQE_BLOCK_SIZE, how);
	else
		spoil_mlx5(sq_ring_block(&qp->sq, pi), t, how);
	publish(qp, f, pi, nb);
	/* Two good requests behind it. */
	gs = penv_sge(&e, A_SRC, 0, 16);
	memset(g, 0, sizeof(g));
	for (int i = 0; i < 2; i++) {
		g[i].wr_id = 101 + (uint64_t)i;
		g[i].sg_list = &gs;
		g[i].num_sge = 1;
		g[i].opcode = WQE_WR_SEND;
		g[i].send_flags = WQE_SEND_SIGNALED;
		g[i].next = i ? NULL : &g[1];
		if (t == WQE_QPT_UD) {
			g[i].wr.ud.ah = e.p.a.ah;
			g[i].wr.ud.remote_qpn = wqe_qp_num(e.p.b.qp);
			g[i].wr.ud.remote_qkey = 0x11111111;
		}
	}
	CHECK_EQ(wqe_post_send(qp, g, &bad), 0);
	if (how == MISALIGNED_ATOMIC)
		penv_check_remote(&e, cur, WQE_WC_REM_INV_REQ_ERR, WQE_AETH_NAK_INVALID_REQ,
				  WQE_QPS_ERR, 2, WQE_WC_WR_FLUSH_ERR);
	else
		check_local(&e, WQE_WC_LOC_QP_OP_ERR,
			    how == ILLEGAL_OP ? WQE_CHECK_OPCODE : WQE_CHECK_WELL_FORMED);
	penv_close(&e);
}

/*
 * mlx5: a doorbell record more than a ring ahead of the consumer counter
 * (a driver bug). Nothing in the ring can be trusted: the QP goes to ERR
 * without sending anything, and the flush is bounded (each completion
 * WR_FLUSH_ERR), however far the record claims.
 */
static void dbrec_far_ahead(void)
{
	struct penv e;
	struct wqe_qp *qp;
	struct wqe_wc wc[64];
	uint32_t n = 0, ci;
	int got;

	if (test_format() != WQE_FORMAT_MLX5)
		return;
	cur = "doorbell record more than a ring ahead";
	penv_open(&e, WQE_QPT_RC);
	qp = e.p.a.qp;
	ci = atomic_load(&qp->sq.ci);
	atomic_store(&qp->sq.dbrec, ci + 0x40000000u);
	nic_kick(&qp->qpc);
	pair_spin(&e.p, 16);
	while ((got = wqe_poll_cq(e.p.a.scq, 64, wc)) > 0)
		for (int i = 0; i < got; i++, n++)
			CHECK_EQ(wc[i].status, WQE_WC_WR_FLUSH_ERR);
	/* One ring at most, each slot once. */
	CHECK(n >= 1);
	CHECK(n <= qp->sq.nblocks);
	/* A later doorbell in ERR flushes nothing more. */
	nic_kick(&qp->qpc);
	pair_spin(&e.p, 16);
	CHECK_EQ(wqe_poll_cq(e.p.a.scq, 64, wc), 0);
	CHECK_EQ(qp_state(qp), WQE_QPS_ERR);
	CHECK_EQ(e.ta.ntx, 0);
	CHECK_EQ(a_packets(&e), 0);
	CHECK_EQ(qp_state(e.p.b.qp), WQE_QPS_RTS);
	CHECK_EQ(arena_changed(cur), 0);
	penv_close(&e);
}

int main(void)
{
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};

	for (size_t t = 0; t < 3; t++) {
		for (int c = 0; c < NLCASE; c++)
			lkey_case(types[t], (enum lcase)c);
		inline_over(types[t]);
		for (int r = 0; r < NRAW; r++)
			raw_case(types[t], (enum raw)r);
	}
	unsignaled_case();
	dbrec_far_ahead();
	return test_finish();
}
