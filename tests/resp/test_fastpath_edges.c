/* SPDX-License-Identifier: MIT */
/*
 * The receive fast paths (rx.c: an RDMA WRITE ONLY straight to its
 * placement, a SEND ONLY straight to its receive WQE, each with or without
 * an immediate, an RDMA WRITE FIRST, MIDDLE or LAST straight to its
 * placement, a SEND FIRST, MIDDLE or LAST, the LAST with or without an
 * immediate, straight into the receive WQE it holds, an ACKNOWLEDGE
 * straight to the completer) against the general path, on frames made to
 * sit at the edges of what the fast paths take, RC and UC
 * (fastpath_frames.c builds and edits them; fastpath_writes.c and
 * fastpath_sends.c say what applies to the packets of a longer WRITE and
 * a longer SEND).
 * From one good frame of each kind, every header field they look at is
 * changed in turn: Ethernet type and VLAN tag, IP version, options,
 * fragment bits, lengths, protocol and addresses, UDP port, length and
 * checksum, BTH opcode (the other transport, another of the same length,
 * with or without immediate), version, SE, pad count, QP, P_Key and PSN,
 * AETH syndromes, RETH length, key and address, ImmDt (0, all ones, the
 * top bit: delivered as is; the frame ending before it), trailing bytes,
 * truncation, a frame ending after its BTH with every length agreeing.
 * The IP checksum and the ICRC are then made right again, so that only
 * the change is judged (and, in their own cases, left wrong). All of it over IPv4 and
 * again over IPv6, where the IPv4 header's edits become their IPv6
 * counterparts (payload length, next header, hop limit, traffic class and
 * flow label, an extension header) or do not apply (fragments, the header
 * checksum), and with receive WQEs in either format (mlx5, rxe). Last,
 * each good frame cut at every length, in a heap block of just that size,
 * must be taken by no path.
 *
 * Then the responder's state at the edges, for the requests: the QP still
 * in RTR (COMM_EST), without REMOTE_WRITE, a SEND or an RDMA WRITE open,
 * UC dropping a message, an outstanding PSN NAK, a zero-length request
 * (a zero-length WRITE naming a bad rkey too), one over the MTU, a pad
 * count larger than the payload; and for a SEND ONLY or a WRITE ONLY with
 * immediate its receive WQE and CQ: none posted (RNR), a bad lkey (in the
 * first SGE or the second of three), a buffer one byte too small or just
 * large enough, a slot its format refuses (mlx5: a slot of 0xff bytes, a
 * bad lkey), the payload split over three SGEs, the CQ full (the
 * completion lost, the QP to ERR), SE set on a CQ armed for solicited
 * completions. A WRITE with immediate places nothing in its receive WQE:
 * the WQE's buffers and lkeys do not matter to it, only that the slot
 * decodes. For a WRITE MIDDLE or LAST, the WRITE is first opened by its
 * earlier packets on each side's own path; then no message open or a SEND
 * open instead (UC: one that abandoned the WRITE), the region deregistered
 * or shrunk since, a payload short or long of a full MTU or of what
 * remains, a MIDDLE carrying all that remains, a LAST of a full MTU; for a
 * FIRST, a RETH range past the region or past 2^31, or no longer than its
 * payload. For a SEND FIRST, MIDDLE or LAST, its receive WQE is posted
 * first and the SEND opened likewise; then no message open, or an RDMA
 * WRITE open instead, no receive WQE (for a FIRST), SGEs one byte too
 * small for the packet or just large enough, SGE boundaries inside the
 * packets and where they end, a bad lkey in an SGE only a later packet
 * reaches, the slot rewritten since the FIRST, a payload short or long of
 * a full MTU, a LAST of a full MTU, of one byte, of none, the CQ full at
 * the LAST, SE on the LAST; and, forced, states no packet leads to: the
 * SEND open with no receive WQE held, the message reaching 2^31 bytes
 * with the packet, or passing it.
 *
 * Each frame goes to two contexts in the same state, one with the fast
 * paths and one without (struct nic no_fast_path): the frames they send
 * back (after a progress pass, so retransmissions a NAK causes are among
 * them), their completions (as polled and as the CQ holds them), the
 * bytes in the target region, the QP's state, the QP and port counters,
 * the responder's state (its counters, PSNs, MSN, open message, held
 * receive WQE, the states it went through), the receive queue's and the
 * CQ's counters and the timer left armed must be identical. The unchanged
 * frames, and the changes the general path also takes as good, must have
 * taken the fast path (the NIC's counters: a frame, a SEND, one with an
 * immediate), so the comparison is not between two general paths; every
 * other frame must not have. What the requests that take a receive WQE
 * did is also checked against what they should do: the completion's
 * opcode, length, immediate and flags, the bytes placed, the answer. Last,
 * whole SENDs of three and four packets, fed packet by packet, must have
 * placed the message where the SGEs say and completed it with its whole
 * length, with the fast paths and without (fastpath_sends.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "engine/nic.h"
#include "engine/resp_int.h"
#include "fastpath_frames.h"
#include "fastpath_sends.h"
#include "fastpath_writes.h"
#include "resp_util.h"
#include "testutil.h"

#define RECV_OFF  2048u /* a receive buffer in the region */
#define RECV_CAP 2048u
#define RECV_WRID 0x5e0du

/* Both contexts of a twin run on this frozen clock: a timer a frame arms
 * (an RNR NAK's wait, a retransmit timeout) cannot come due between the
 * frame and the progress pass after it however slow the run (valgrind),
 * and its deadline can be compared. */
static uint64_t frozen_clock(void *arg)
{
	(void)arg;
	return 1000000000ull;
}

/* One region both contexts of a twin register: each is fed in turn, the
 * region restored in between. */
static uint8_t region[REGION];
static uint8_t payload[4096];

static bool edit_applies(enum kind k, enum edit e, bool v6)
{
	if (v6 && (e == E_IP_MF || e == E_IP_FRAG_OFF || e == E_IP_DF_CLEAR || e == E_BAD_IP_CSUM))
		return false; /* no such fields */
	if (is_send_multi(k))
		return send_applies(k, e);
	if (is_multi(k) || e >= E_NOT_OPEN)
		return is_multi(k) && multi_applies(k, e);
	if (e == E_HDRS_CUT)
		return is_write(k) || has_imm(k);
	if (e >= E_RNR_NAK)
		return k == K_ACK;
	if (e >= E_RQ_EMPTY)
		return takes_wqe(k);
	if (e == E_UC_DROPPING)
		return k != K_ACK && kind_type(k) == WQE_QPT_UC;
	if (e == E_AFTER_PSN_NAK)
		return k != K_ACK && kind_type(k) == WQE_QPT_RC;
	if (e >= E_ACKREQ_OFF)
		return k != K_ACK;
	if (e >= E_IMM_ZERO)
		return has_imm(k);
	if (e >= E_RETH_LONGER)
		return is_write(k);
	return true;
}

/* The frames the fast path must take, and no other: the good ones, and
 * the changes the general path takes as good too (a SEND's pad bytes are
 * not its payload; SEND ONLY with and without immediate differ only in
 * the ImmDt; a SEND needs no REMOTE_WRITE; a WRITE with immediate does not
 * use its receive WQE's buffers, nor does mlx5 refuse a slot of 0xff
 * bytes before they are used; the completer takes an ACKNOWLEDGE of any
 * syndrome and any PSN). */
static bool goes_fast(enum kind k, enum edit e, enum wqe_format fmt)
{
	if (is_multi(k))
		return multi_goes_fast(k, e);
	if (is_send_multi(k))
		return send_goes_fast(k, e);
	switch (e) {
	case E_NONE:
	case E_SE_MIG:
	case E_SE:
	case E_FECN_BECN:
	case E_TTL_TOS:
	case E_IP_DF_CLEAR:
	case E_ZERO_LEN_BAD_RKEY:
	case E_IMM_ZERO:
	case E_IMM_ONES:
	case E_IMM_TOP:
		return true;
	case E_ACKREQ_OFF:
	case E_ZERO_LEN:
	case E_AFTER_PSN_NAK:
		return k != K_ACK;
	case E_PAD1:
	case E_PAD3:
	case E_OPCODE_IMM:
	case E_NO_REMOTE_WRITE:
		return is_send(k);
	case E_RQ_EXACT:
	case E_RQ_SGES:
	case E_CQ_FULL:
		return true;
	case E_RQ_BAD_LKEY:
	case E_RQ_BAD_SGE2:
	case E_RQ_SMALL:
		return is_write(k);
	case E_RQ_MALFORMED:
		return is_write(k) && fmt == WQE_FORMAT_MLX5;
	case E_PSN_NEXT:
	case E_PSN_PREV:
		return k == K_ACK;
	default:
		return e >= E_RNR_NAK;
	}
}

/* The frame of @k under @e carries an ImmDt. */
static bool imm_after(enum kind k, enum edit e)
{
	return has_imm(k) != (e == E_OPCODE_IMM);
}

struct twin {
	struct rt t[2]; /* [0] fast paths on, [1] off */
	struct wqe_mr *mr[2]; /* NULL once deregistered (E_RKEY_DEREG) */
	uint32_t rkey;	      /* theirs, alike */
	uint32_t sq_psn; /* of the WRITE the ACK cases acknowledge */
	uint32_t psn;	 /* of the request: the responder's expected PSN */
};

/* Feeds a request of @opcode at @psn with @len payload bytes, no AckReq. */
static void feed_req(struct rt *t, uint8_t opcode, uint32_t psn, uint32_t len)
{
	struct wqe_pkt p;

	rt_req(t, &p, opcode, psn);
	rt_feed(t, &p, payload, len);
}

/* Fills @t's CQ with the completions of SEND ONLYs from @psn on; returns
 * the PSN after them. */
static uint32_t fill_cq(struct rt *t, enum kind k, struct wqe_mr *mr, uint32_t psn)
{
	const struct cqc *cq = &t->cq->cqc;

	for (int i = 0; i < 4096 && cq->pi - atomic_load(&cq->ci) < cq->depth; i++) {
		struct wqe_sge sg = {(uint64_t)(uintptr_t)region + RECV_OFF, WLEN, mr->lkey};

		rt_post_recv(t, 1, &sg, 1);
		feed_req(t, opcode_of(k, WQE_WIRE_RC_SEND_ONLY), psn++, 16);
	}
	CHECK_EQ(cq->pi - atomic_load(&cq->ci), cq->depth);
	return psn;
}

/* The slot of the receive WQE posted last, in @fmt, rewritten into one its
 * format refuses (rxe: dma.num_sge 0xffffffff, host order) or, for mlx5,
 * which decodes anything, one whose SGEs name lkey 0xffffffff. */
static void rewrite_slot(struct rt *t, enum wqe_format fmt)
{
	struct rq_ring *rq = &t->qp->rq;
	uint8_t *slot = rq_ring_slot(rq, rq->pi - 1);
	uint32_t huge = 0xffffffffu;

	if (fmt == WQE_FORMAT_RXE)
		memcpy(slot + 28, &huge, 4);
	else
		memset(slot, 0xff, rq->stride);
}

/* Posts the receive WQE a request of @e finds (@fmt: its slot's format). */
static void post_recv_for(struct rt *t, enum edit e, enum wqe_format fmt, uint32_t lkey)
{
	uint64_t base = (uint64_t)(uintptr_t)region + RECV_OFF;
	struct wqe_sge sg[3] = {{base, RECV_CAP, lkey}};
	int n = 1;

	switch (e) {
	case E_RQ_BAD_LKEY:
		sg[0].lkey = lkey + 1;
		break;
	case E_RQ_SMALL:
		sg[0].length = WLEN - 1;
		break;
	case E_RQ_EXACT:
		sg[0].length = WLEN;
		break;
	case E_RQ_SGES:
	case E_RQ_BAD_SGE2:
		/* 7 + 20 + the rest, apart */
		sg[0].length = 7;
		sg[1] = (struct wqe_sge){base + 100, 20, e == E_RQ_BAD_SGE2 ? lkey + 1 : lkey};
		sg[2] = (struct wqe_sge){base + 200, RECV_CAP - 200, lkey};
		n = 3;
		break;
	default:
		break;
	}
	rt_post_recv(t, RECV_WRID, sg, n);
	if (e == E_RQ_MALFORMED)
		rewrite_slot(t, fmt);
}

/* Brings twin side @i to the responder state @e asks for, before the
 * request at w->psn (which it sets). */
static void prepare(struct twin *w, int i, enum kind k, enum edit e, enum wqe_format fmt)
{
	struct rt *t = &w->t[i];
	uint32_t psn = RT_FIRST_PSN;
	uint64_t fast = t->ctx->nic->fast_rx;
	struct wqe_pkt p;

	if (e == E_QP_RTR)
		rt_reconnect(t, WQE_QPS_RTR);
	/* A MIDDLE's or LAST's WRITE, opened by packets that take each
	 * side's own path: the fast one, on the side that has it. */
	multi_open(t, k, e, (uint64_t)(uintptr_t)region + VA_OFF, w->rkey, &psn);
	if (e == E_NO_REMOTE_WRITE) {
		struct wqe_qp_attr a = {.qp_access_flags = WQE_ACCESS_LOCAL_WRITE |
							   WQE_ACCESS_REMOTE_READ |
							   WQE_ACCESS_REMOTE_ATOMIC};

		CHECK_EQ(wqe_modify_qp(t->qp, &a, WQE_QP_ACCESS_FLAGS), 0);
	}
	if (e == E_CQ_FULL)
		psn = fill_cq(t, k, w->mr[i], psn);
	if (is_send_multi(k)) {
		/* its receive WQE, and the packets before it, as for a
		 * WRITE; the slot rewritten after them */
		send_open(t, k, e, region, w->mr[i]->lkey, &psn);
		if (e == E_RQ_MALFORMED)
			rewrite_slot(t, fmt);
	} else if ((takes_wqe(k) || e == E_SEND_OPEN) && e != E_RQ_EMPTY) {
		post_recv_for(t, e, fmt, w->mr[i]->lkey);
	}
	if (e == E_NONE)
		CHECK_EQ(t->ctx->nic->fast_rx - fast, i == 0 ? psn - RT_FIRST_PSN : 0);
	switch (e) {
	case E_SEND_OPEN:
		feed_req(t, opcode_of(k, WQE_WIRE_RC_SEND_FIRST), psn++, 1024);
		break;
	case E_WRITE_OPEN:
		rt_req(t, &p, opcode_of(k, WQE_WIRE_RC_RDMA_WRITE_FIRST), psn++);
		p.reth.va = (uint64_t)(uintptr_t)region + VA_OFF;
		p.reth.rkey = w->mr[i]->rkey;
		p.reth.dma_len = 2048;
		rt_feed(t, &p, payload, 1024);
		CHECK_EQ(rt_resp(t)->open, RESP_OPEN_WRITE);
		break;
	case E_UC_DROPPING:
		/* the request comes at the PSN expected still (a SEND open:
		 * a WRITE MIDDLE breaks it) */
		feed_req(t,
			 is_send_multi(k) ? WQE_WIRE_UC_RDMA_WRITE_MIDDLE : WQE_WIRE_UC_SEND_MIDDLE,
			 psn, 1024);
		CHECK(rt_resp(t)->drop_msg);
		break;
	case E_AFTER_PSN_NAK:
		feed_req(t, WQE_WIRE_RC_SEND_ONLY, psn + 1, 0);
		CHECK(rt_resp(t)->sent_psn_nak);
		break;
	default:
		break;
	}
	if (is_multi(k))
		multi_key_edit(t, k, e, &w->mr[i]);
	rt_clear(t);
	/* Armed for a solicited completion: the SE cases fire it. */
	CHECK_EQ(wqe_req_notify_cq(t->cq, 1), 0);
	w->psn = psn;
}

static void twin_open(struct twin *w, enum kind k, enum edit e, bool v6, enum wqe_format fmt)
{
	for (int i = 0; i < 2; i++) {
		struct rt *t = &w->t[i];

		rt_open_format(t, kind_type(k), WQE_MTU_1024, fmt, v6);
		t->ctx->nic->no_fast_path = i == 1;
		CHECK_EQ(wqe_context_set_clock(t->ctx, frozen_clock, NULL), 0);
		w->mr[i] = rt_reg(t->pd, region, REGION,
				  WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	}
	/* Fresh contexts number alike: one frame fits both. */
	CHECK_EQ(w->mr[0]->rkey, w->mr[1]->rkey);
	CHECK_EQ(w->mr[0]->lkey, w->mr[1]->lkey);
	CHECK_EQ(wqe_qp_num(w->t[0].qp), wqe_qp_num(w->t[1].qp));
	w->rkey = w->mr[0]->rkey;
	w->psn = RT_FIRST_PSN;
	if (k != K_ACK) {
		for (int i = 0; i < 2; i++)
			prepare(w, i, k, e, fmt);
		return;
	}
	/* A signaled WRITE in flight on both, for the ACK to complete. */
	for (int i = 0; i < 2; i++) {
		struct wqe_sge sg = {(uint64_t)(uintptr_t)region, WLEN, w->mr[i]->lkey};
		struct wqe_send_wr wr, *bad = NULL;
		const uint8_t *req;
		size_t n;
		struct wqe_pkt p;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 0xacc;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = WQE_WR_RDMA_WRITE;
		wr.send_flags = WQE_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = 0x1000;
		wr.wr.rdma.rkey = 0x1234;
		CHECK_EQ(wqe_post_send(w->t[i].qp, &wr, &bad), 0);
		wqe_progress(w->t[i].ctx);
		CHECK_EQ(rt_nresp(&w->t[i]), 1);
		CHECK_EQ(wqe_link_sink_frame(w->t[i].sink, 0, &req, &n), 0);
		CHECK_EQ(wqe_pkt_parse(req, n, &p), 0);
		w->sq_psn = p.bth.psn;
		rt_clear(&w->t[i]);
	}
}

static void twin_close(struct twin *w)
{
	for (int i = 0; i < 2; i++) {
		if (w->mr[i])
			CHECK_EQ(wqe_dereg_mr(w->mr[i]), 0);
		rt_close(&w->t[i]);
	}
}

/* The good frame of @k, before any edit, into @f; returns its length. */
static size_t base_frame(const struct twin *w, enum kind k, enum edit e, uint8_t *f)
{
	const struct frame_spec sp = {
	    .psn = k == K_ACK ? w->sq_psn : w->psn,
	    .va = (uint64_t)(uintptr_t)region + VA_OFF,
	    .rkey = w->rkey,
	    .payload = payload,
	};

	return frame_base(&w->t[0], k, e, &sp, f);
}

/* The responder's, the receive queue's and the CQ's state, by name. */
static const char *const eng_name[] = {
	"epsn", "ack_psn", "msn", "last_path", "ip_id", "open", "sent_psn_nak", "drop_msg",
	"comm_est", "wqe.valid", "wqe.ctr", "wqe.sge_i", "wqe.sge_off", "wqe.placed", "wr.va",
	"wr.rkey", "wr.len", "wr.resid", "ack_due", "ack_due_psn", "rx_requests", "rq.ci",
	"rq.pi", "cq.pi", "cq.lost", "cq.overrun", "cq.arm",
};
#define ENG_N (sizeof(eng_name) / sizeof(*eng_name))
enum {
	ENG_MSN = 2,
	ENG_LAST_PATH = 3,
	ENG_OPEN = 5,
	ENG_COMM_EST = 8,
	ENG_WQE_VALID = 9,
	ENG_WQE_PLACED = 13,
	ENG_WR_VA = 14,
	ENG_WR_LEN = 16,
	ENG_WR_RESID = 17,
	ENG_CQ_LOST = 24,
	ENG_CQ_ARM = 26
};

static void eng_state(struct rt *t, uint64_t *v)
{
	const struct eng_qp *e = t->qp->qpc.eng;
	const struct eng_resp *r = &e->resp;
	const struct cqc *cq = &t->cq->cqc;
	const uint64_t s[] = {
		r->epsn, r->ack_psn, r->msn, r->last_path, r->ip_id, r->open, r->sent_psn_nak,
		r->drop_msg, r->comm_est, r->wqe.valid, r->wqe.ctr, r->wqe.sge_i, r->wqe.sge_off,
		r->wqe.placed, r->wr.va, r->wr.rkey, r->wr.len, r->wr.resid, r->ack_due,
		r->ack_due_psn, e->rx_requests, atomic_load(&t->qp->rq.ci), t->qp->rq.pi, cq->pi,
		cq->lost, cq->overrun, cq->arm,
	};

	_Static_assert(sizeof(s) / sizeof(*s) == ENG_N, "a name per value");
	memcpy(v, s, sizeof(s));
}

/* What one context made of the frame. */
struct seen {
	uint8_t mem[REGION];
	uint8_t out[4][256];
	size_t nout, outlen[4];
	struct cqe cqe[4]; /* as the frame added them to the CQ */
	uint32_t ncqe;
	struct wqe_wc wc[4];
	int nwc;
	struct wqe_qp_stats qs;
	struct wqe_port_stats ps;
	struct resp_stats rs;
	uint64_t eng[ENG_N];
	int state;
	int armed;
	uint64_t deadline;
	/* what the fast paths took of the frame */
	uint64_t fast_rx, fast_rx_acks, fast_rx_sends, fast_rx_imm;
};

static void feed(struct rt *t, const uint8_t *f, size_t len, struct seen *s)
{
	struct nic *nic = t->ctx->nic;
	const struct cqc *cq = &t->cq->cqc;
	uint64_t fast_rx = nic->fast_rx, fast_acks = nic->fast_rx_acks;
	uint64_t fast_sends = nic->fast_rx_sends, fast_imm = nic->fast_rx_imm;
	uint32_t pi = cq->pi;
	struct wqe_qp_attr a;
	struct wqe_qp_init_attr ia;

	memset(region, 0x5c, REGION);
	memset(s, 0, sizeof(*s));
	rt_feed_raw(t, f, len);
	wqe_progress(t->ctx); /* what a NAK sends again */
	memcpy(s->mem, region, REGION);
	s->nout = rt_nresp(t);
	for (size_t i = 0; i < s->nout && i < 4; i++) {
		const uint8_t *o;
		size_t n;

		CHECK_EQ(wqe_link_sink_frame(t->sink, i, &o, &n), 0);
		CHECK(n <= sizeof(s->out[i]));
		s->outlen[i] = n;
		memcpy(s->out[i], o, n < sizeof(s->out[i]) ? n : sizeof(s->out[i]));
	}
	for (uint32_t i = pi; i != cq->pi && s->ncqe < 4; i++)
		s->cqe[s->ncqe++] = cq->ring[i & (cq->nslots - 1)];
	s->rs = rt_resp(t)->stats;
	eng_state(t, s->eng);
	s->nwc = rt_poll(t, s->wc, 4);
	CHECK_EQ(wqe_query_qp_stats(t->qp, &s->qs), 0);
	CHECK_EQ(wqe_context_port_stats(t->ctx, &s->ps), 0);
	CHECK_EQ(wqe_query_qp(t->qp, &a, 0, &ia), 0);
	s->state = (int)a.qp_state;
	s->armed = wqe_context_next_deadline(t->ctx, &s->deadline);
	s->fast_rx = nic->fast_rx - fast_rx;
	s->fast_rx_acks = nic->fast_rx_acks - fast_acks;
	s->fast_rx_sends = nic->fast_rx_sends - fast_sends;
	s->fast_rx_imm = nic->fast_rx_imm - fast_imm;
}

/* The states the general path goes through for a request it completes a
 * receive WQE for: the checks, EXECUTE and COMPLETE (RC: then
 * ACKNOWLEDGE). */
static uint32_t recv_path(enum kind k)
{
	uint32_t m = 0;

	for (int s = RS_CHK_PSN; s <= RS_EXECUTE; s++)
		m |= 1u << s;
	m |= 1u << RS_COMPLETE;
	if (kind_type(k) == WQE_QPT_RC)
		m |= 1u << RS_ACKNOWLEDGE;
	return m;
}

/* One successful receive completion of @len bytes for the frame of @k
 * under @e, whose ImmDt (or what would be) is @imm: RECV, or
 * RECV_RDMA_WITH_IMM for a WRITE, with the immediate's four bytes as the
 * frame carried them. */
static void check_done(enum kind k, enum edit e, const struct seen *s, const uint8_t imm[4],
		       uint32_t len)
{
	bool with_imm = imm_after(k, e);

	CHECK_EQ(s->nwc, 1);
	CHECK_EQ(s->ncqe, 1);
	CHECK_EQ(s->wc[0].wr_id, RECV_WRID);
	CHECK_EQ(s->wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(s->wc[0].opcode, is_write(k) ? WQE_WC_RECV_RDMA_WITH_IMM : WQE_WC_RECV);
	CHECK_EQ(s->wc[0].byte_len, len);
	CHECK_EQ((s->wc[0].wc_flags & WQE_WC_WITH_IMM) != 0, with_imm);
	if (with_imm) {
		CHECK_EQ(memcmp(&s->wc[0].imm_data, imm, 4), 0);
		CHECK_EQ(s->cqe[0].imm, get_be32(imm));
	}
	CHECK_EQ(s->state, WQE_QPS_RTS);
}

/* The receive WQE in error (@st), nothing placed. */
static void check_wqe_err(const struct seen *s, int st)
{
	CHECK(s->nwc >= 1);
	CHECK_EQ(s->wc[0].status, st);
	CHECK_EQ(s->wc[0].wr_id, RECV_WRID);
	CHECK_EQ(rt_canary_bad(s->mem, REGION, 0, 0, 0x5c), 0);
}

/* A WRITE with immediate whose receive WQE's buffers are of no use: it
 * completes all the same, its payload at the RETH VA, nothing else. */
static void check_write_anyway(enum kind k, enum edit e, const struct seen *s, const uint8_t imm[4])
{
	check_done(k, e, s, imm, WLEN);
	CHECK_EQ(rt_canary_bad(s->mem, REGION, VA_OFF, WLEN, 0x5c), 0);
	CHECK_EQ(s->mem[VA_OFF], 0xa7);
}

/* The QP without REMOTE_WRITE: a WRITE is an invalid request (RC: NAK,
 * QP to ERR) or dropped (UC), before its receive WQE is looked at. */
static void check_no_write(enum kind k, const struct seen *s)
{
	struct wqe_pkt p;

	CHECK_EQ(rt_canary_bad(s->mem, REGION, 0, 0, 0x5c), 0);
	if (kind_type(k) == WQE_QPT_UC) {
		CHECK_EQ(s->nout, 0);
		CHECK_EQ(s->nwc, 0);
		CHECK_EQ(s->rs.drops[RESP_DROP_ACCESS], 1);
		return;
	}
	CHECK(s->nout >= 1);
	CHECK_EQ(wqe_pkt_parse(s->out[0], s->outlen[0], &p), 0);
	CHECK_EQ(p.aeth.syndrome, WQE_AETH_NAK_INVALID_REQ);
	CHECK_EQ(s->state, WQE_QPS_ERR);
}

/* What the general path makes of the cases of a request that takes a
 * receive WQE, on the fast side (the twins are compared besides): each
 * case is the one it is named. @imm: the frame's ImmDt bytes. */
static void check_recv(enum kind k, enum edit e, enum wqe_format fmt, const struct seen *s,
		       const uint8_t imm[4])
{
	bool w = is_write(k), rc = kind_type(k) == WQE_QPT_RC;
	const uint8_t *m = s->mem + (w ? VA_OFF : RECV_OFF);
	struct wqe_pkt p;

	switch (e) {
	case E_NONE:
	case E_SE:
	case E_RQ_EXACT:
	case E_IMM_ZERO:
	case E_IMM_ONES:
	case E_IMM_TOP:
		check_done(k, e, s, imm, WLEN);
		CHECK_EQ(s->cqe[0].solicited, e == E_SE);
		/* a solicited completion fires the arm */
		CHECK_EQ(s->eng[ENG_CQ_ARM], e == E_SE ? CQ_ARM_NONE : CQ_ARM_SOLICITED);
		CHECK_EQ(m[0], 0xa7);
		CHECK_EQ(m[WLEN - 1], 0xa7);
		CHECK_EQ(m[WLEN], 0x5c);
		CHECK_EQ(rt_canary_bad(s->mem, REGION, (size_t)(m - s->mem), WLEN, 0x5c), 0);
		CHECK_EQ(s->eng[ENG_LAST_PATH], recv_path(k));
		CHECK_EQ(s->nout, rc);
		break;
	case E_ZERO_LEN:
	case E_ZERO_LEN_BAD_RKEY:
		check_done(k, e, s, imm, 0);
		CHECK_EQ(rt_canary_bad(s->mem, REGION, 0, 0, 0x5c), 0);
		break;
	case E_PAD3:
		/* a SEND's pad bytes are not its payload (a WRITE's payload
		 * falls short of its RETH length) */
		if (w)
			break;
		check_done(k, e, s, imm, WLEN - 3);
		CHECK_EQ(m[WLEN - 4], 0xa7);
		CHECK_EQ(m[WLEN - 3], 0x5c);
		break;
	case E_OPCODE_IMM:
		/* a SEND: the ImmDt's bytes become payload, or the payload's
		 * first four the ImmDt */
		if (!w)
			check_done(k, e, s, imm, has_imm(k) ? WLEN + 4 : WLEN - 4);
		break;
	case E_NO_REMOTE_WRITE:
		if (w)
			check_no_write(k, s);
		else
			check_done(k, e, s, imm, WLEN);
		break;
	case E_RQ_SGES:
		if (w) {
			check_write_anyway(k, e, s, imm);
			break;
		}
		check_done(k, e, s, imm, WLEN);
		CHECK(m[6] == 0xa7 && m[7] == 0x5c);
		CHECK(m[100] == 0xa7 && m[119] == 0xa7 && m[120] == 0x5c);
		CHECK(m[200] == 0xa7 && m[200 + WLEN - 28] == 0xa7 && m[200 + WLEN - 27] == 0x5c);
		break;
	case E_RQ_EMPTY:
		/* RNR: nothing placed (RC: RNR NAK; UC: dropped) */
		CHECK_EQ(s->nwc, 0);
		CHECK_EQ(s->nout, rc);
		CHECK_EQ(rt_canary_bad(s->mem, REGION, 0, 0, 0x5c), 0);
		if (rc) {
			CHECK_EQ(wqe_pkt_parse(s->out[0], s->outlen[0], &p), 0);
			CHECK_EQ(p.aeth.syndrome & 0xe0u, WQE_AETH_RNR_NAK);
		} else {
			CHECK_EQ(s->rs.drops[RESP_DROP_NO_WQE], 1);
		}
		break;
	case E_RQ_BAD_LKEY:
	case E_RQ_BAD_SGE2:
		if (w)
			check_write_anyway(k, e, s, imm);
		else
			check_wqe_err(s, WQE_WC_LOC_PROT_ERR);
		break;
	case E_RQ_SMALL:
		if (w)
			check_write_anyway(k, e, s, imm);
		else
			check_wqe_err(s, WQE_WC_LOC_LEN_ERR);
		break;
	case E_RQ_MALFORMED:
		if (fmt == WQE_FORMAT_RXE)
			check_wqe_err(s, WQE_WC_LOC_QP_OP_ERR);
		else if (w)
			check_write_anyway(k, e, s, imm);
		else
			check_wqe_err(s, WQE_WC_LOC_PROT_ERR);
		break;
	case E_CQ_FULL:
		/* placed, the completion lost, the QP to ERR */
		CHECK_EQ(s->ncqe, 0);
		CHECK_EQ(s->eng[ENG_CQ_LOST] >= 1, 1);
		CHECK_EQ(s->state, WQE_QPS_ERR);
		CHECK_EQ(m[0], 0xa7);
		break;
	case E_QP_RTR:
		CHECK_EQ(s->eng[ENG_COMM_EST], 1);
		break;
	default:
		break;
	}
}

static void one_case(enum kind k, enum edit e, bool v6, enum wqe_format fmt)
{
	static uint8_t f[FRAME_ROOM];
	static struct seen s[2];
	struct twin w;
	uint8_t imm[4];
	size_t len;
	char what[160];

	snprintf(what, sizeof(what), "%s, %s, %s", v6 ? "IPv6" : "IPv4", wqe_format_str(fmt),
		 edit_label(e, v6));
	memset(payload, 0xa7, sizeof(payload));
	twin_open(&w, k, e, v6, fmt);
	len = base_frame(&w, k, e, f);
	if (e == E_QP_ERR)
		for (int i = 0; i < 2; i++) {
			struct wqe_qp_attr a = {.qp_state = WQE_QPS_ERR};

			CHECK_EQ(wqe_modify_qp(w.t[i].qp, &a, WQE_QP_STATE), 0);
		}
	if (frame_apply(k, e, v6, f, &len))
		frame_fix_sums(f, len, L3, v6);
	memcpy(imm, f + frame_imm_off(k, v6), 4);
	for (int i = 0; i < 2; i++) {
		/* in a heap block of just its size: ASan sees a read past it */
		uint8_t *b = malloc(len);

		CHECK(b != NULL);
		if (!b)
			break;
		memcpy(b, f, len);
		feed(&w.t[i], b, len, &s[i]);
		free(b);
	}
	twin_close(&w);

#define SAME(x)                                                                              \
	do {                                                                                 \
		test_checks++;                                                               \
		if (memcmp(&s[0].x, &s[1].x, sizeof(s[0].x)))                                \
			test_fail(__FILE__, __LINE__, "%s, %s: %s differs", kind_name[k], what, \
				  #x);                                                       \
	} while (0)
	SAME(mem);
	SAME(nout);
	SAME(outlen);
	SAME(out);
	SAME(ncqe);
	SAME(cqe);
	SAME(nwc);
	SAME(wc);
	SAME(qs);
	SAME(ps);
	SAME(rs);
	SAME(state);
	SAME(armed);
	SAME(deadline);
#undef SAME
	for (size_t i = 0; i < ENG_N; i++)
		if (s[0].eng[i] != s[1].eng[i])
			test_fail(__FILE__, __LINE__, "%s, %s: %s differs: 0x%llx fast, 0x%llx not",
				  kind_name[k], what, eng_name[i], (unsigned long long)s[0].eng[i],
				  (unsigned long long)s[1].eng[i]);
	CHECK_EQ(s[1].fast_rx, 0);
	if (goes_fast(k, e, fmt)) {
		if (s[0].fast_rx != 1)
			test_fail(__FILE__, __LINE__, "%s, %s: not taken by the fast path",
				  kind_name[k], what);
		CHECK_EQ(s[0].fast_rx_acks, k == K_ACK);
		CHECK_EQ(s[0].fast_rx_sends, is_send(k) || is_send_multi(k));
		CHECK_EQ(s[0].fast_rx_imm, imm_after(k, e));
	} else if (s[0].fast_rx != 0) {
		test_fail(__FILE__, __LINE__, "%s, %s: taken by the fast path", kind_name[k], what);
	}
	/* The good frames did what they should. */
	if (e == E_NONE && k == K_ACK) {
		CHECK_EQ(s[0].nwc, 1);
		CHECK_EQ(s[0].wc[0].wr_id, 0xacc);
		CHECK_EQ(s[0].wc[0].status, WQE_WC_SUCCESS);
	}
	if (e == E_NONE && is_write(k))
		CHECK_EQ(s[0].mem[VA_OFF], 0xa7);
	if (is_multi(k) && (e == E_NONE || e == E_ACKREQ_OFF || e == E_LAST_FULL)) {
		const struct multi_seen ms = {
		    .mem = s[0].mem,
		    .nout = s[0].nout,
		    .open = s[0].eng[ENG_OPEN],
		    .msn = s[0].eng[ENG_MSN],
		    .messages = s[0].rs.messages,
		    .last_path = s[0].eng[ENG_LAST_PATH],
		    .wr_va = s[0].eng[ENG_WR_VA],
		    .wr_len = s[0].eng[ENG_WR_LEN],
		    .wr_resid = s[0].eng[ENG_WR_RESID],
		};
		unsigned long failed = test_failures;

		multi_check(k, e, &ms, (uint64_t)(uintptr_t)region);
		if (test_failures != failed)
			test_fail(__FILE__, __LINE__, "%s, %s: the checks above", kind_name[k],
				  what);
	}
	if (is_send_multi(k)) {
		const struct send_seen ss = {
		    .mem = s[0].mem,
		    .nout = s[0].nout,
		    .out = s[0].out[0],
		    .outlen = s[0].outlen[0],
		    .nwc = s[0].nwc,
		    .wc = s[0].wc,
		    .ncqe = s[0].ncqe,
		    .cqe = s[0].cqe,
		    .rs = &s[0].rs,
		    .open = s[0].eng[ENG_OPEN],
		    .msn = s[0].eng[ENG_MSN],
		    .last_path = s[0].eng[ENG_LAST_PATH],
		    .wqe_valid = s[0].eng[ENG_WQE_VALID],
		    .wqe_placed = s[0].eng[ENG_WQE_PLACED],
		    .cq_arm = s[0].eng[ENG_CQ_ARM],
		    .cq_lost = s[0].eng[ENG_CQ_LOST],
		    .state = s[0].state,
		    .imm = imm,
		};
		unsigned long failed = test_failures;

		send_check(k, e, fmt, &ss);
		if (test_failures != failed)
			test_fail(__FILE__, __LINE__, "%s, %s: the checks above", kind_name[k],
				  what);
	}
	if (takes_wqe(k)) {
		unsigned long failed = test_failures;

		check_recv(k, e, fmt, &s[0], imm);
		if (test_failures != failed)
			test_fail(__FILE__, __LINE__, "%s, %s: the checks above", kind_name[k],
				  what);
	}
	/* An RNR NAK (timer code 3: 30 us) holds the WRITE back until its
	 * wait is over, on the frozen clock. */
	if (e == E_RNR_NAK && k == K_ACK) {
		CHECK_EQ(s[0].nout, 0);
		CHECK_EQ(s[0].nwc, 0);
		CHECK_EQ(s[0].armed, 1);
		CHECK_EQ(s[0].deadline, frozen_clock(NULL) + 30000u);
	}
}

/*
 * The good frame of @k cut at every length, each in a heap block of
 * exactly its size (ASan sees a read past it), fed to a context with the
 * fast paths on: none may be taken, by the fast path or at all.
 */
static void truncations(enum kind k, bool v6)
{
	static uint8_t f[FRAME_ROOM];
	struct wqe_port_stats ps0;
	struct twin w;
	uint64_t fast;
	size_t len;

	/* (a MIDDLE's or LAST's WRITE opened by frames taken before) */
	twin_open(&w, k, E_NONE, v6, WQE_FORMAT_MLX5);
	len = base_frame(&w, k, E_NONE, f);
	fast = w.t[0].ctx->nic->fast_rx;
	CHECK_EQ(wqe_context_port_stats(w.t[0].ctx, &ps0), 0);
	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *b = malloc(cut ? cut : 1);
		struct wqe_port_stats ps;

		CHECK(b != NULL);
		if (!b)
			break;
		memcpy(b, f, cut);
		rt_feed_raw(&w.t[0], b, cut);
		free(b);
		CHECK_EQ(w.t[0].ctx->nic->fast_rx, fast);
		CHECK_EQ(wqe_context_port_stats(w.t[0].ctx, &ps), 0);
		CHECK_EQ(ps.rx_accepted, ps0.rx_accepted);
	}
	twin_close(&w);
}

int main(void)
{
	static const enum wqe_format fmts[] = {WQE_FORMAT_MLX5, WQE_FORMAT_RXE};

	for (size_t fi = 0; fi < 2; fi++)
		for (int v6 = 0; v6 < 2; v6++)
			for (int k = 0; k < K_COUNT; k++)
				for (int e = 0; e < E_COUNT; e++)
					if (edit_applies((enum kind)k, (enum edit)e, v6))
						one_case((enum kind)k, (enum edit)e, v6, fmts[fi]);
	for (int v6 = 0; v6 < 2; v6++)
		for (int k = 0; k < K_COUNT; k++)
			truncations((enum kind)k, v6);
	send_whole();
	return test_finish();
}
