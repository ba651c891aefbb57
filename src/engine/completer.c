/* SPDX-License-Identifier: MIT */
/*
 * The completer (IBTA 9.7.5.1, as Linux rxe_comp.c organises it).
 *
 * In-flight RC WQEs sit in a FIFO in posting order. A response is matched
 * against the oldest: an ACK completes every SEND and WRITE whose last PSN
 * it covers (coalesced ACKs, C9-146); READ responses scatter into the READ's
 * local SGEs and complete it on its last packet; an atomic ACK writes the
 * original value to the atomic's SGE. A response whose PSN lies beyond a
 * READ or atomic that has not been answered means its responses were lost:
 * retry (C9-148). NAKs: PSN sequence error -> retry from the NAK's PSN;
 * invalid request, remote access, remote operational error -> complete with
 * REM_INV_REQ_ERR, REM_ACCESS_ERR, REM_OP_ERR and move to ERR; RNR NAK ->
 * wait the RNR time, then retry. Retries count down retry_cnt and
 * rnr_retry (7 means forever for rnr_retry, C9-131); exhaustion completes
 * with RETRY_EXC_ERR or RNR_RETRY_EXC_ERR.
 */
#include "engine/completer.h"

#include <stdatomic.h>
#include <string.h>

#include "common/bytes.h"
#include "engine/flush.h"
#include "engine/psn.h"
#include "wqe/packetize.h"
#include "wqe/wire.h"

static uint32_t last_psn(const struct inflight *f)
{
	return psn_add((uint32_t)f->first_psn, (uint32_t)f->npsn - 1);
}

static struct inflight *head(struct eng_qp *e)
{
	const struct eng_req *r = &e->req;

	return r->fl_tail == r->fl_head ? NULL : eng_flight(e, r->fl_tail);
}

uint64_t rnr_timer_ns(uint8_t code)
{
	/* IBTA table 45 (RNR NAK timer field), in microseconds x 100. */
	static const uint32_t us100[32] = {
		6553600, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
		16384, 24576, 32768, 49152,
	};

	return (uint64_t)us100[code & 31] * 10000u;
}

static uint64_t timeout_ns(const struct qpc *q)
{
	/* 4.096 us x 2^timeout (IBTA 9.7.6.1.3); 0 = no timer. */
	return q->timeout ? 4096ull << q->timeout : 0;
}

void comp_arm(struct nic *n, struct qpc *q)
{
	struct eng_req *r = &q->eng->req;

	/* From the time the current progress pass (or received frame)
	 * started: one clock read a pass, not one a message. */
	if (!r->retrans_at && timeout_ns(q)) {
		r->retrans_at = n->clock_ns + timeout_ns(q);
		nic_timer_armed(n, q, r->retrans_at);
	}
}

static void rearm(struct nic *n, struct qpc *q)
{
	struct eng_req *r = &q->eng->req;

	r->retrans_at = 0;
	if (head(q->eng))
		comp_arm(n, q);
	nic_timer_update(n, q);
}

/* Completes the oldest WQE with @st; false if its completion was lost to
 * an overrun. */
static bool complete_head(struct qpc *q, enum wqe_wc_status st)
{
	struct eng_req *r = &q->eng->req;
	struct inflight *f = head(q->eng);
	bool written = true;

	/* The ring's blocks are retired before the completion is written:
	 * a program that polls it may post again at once (sq_retire()). */
	sq_retire(q->sq, f->nblocks);
	/* The CQE only when one is written: most WQEs of a chain are not
	 * signaled. */
	if (st != WQE_WC_SUCCESS || f->signaled) {
		struct cqe c = {.qpn = q->qpn, .wqe_counter = f->start, .status = (uint8_t)st,
				.opcode = (uint8_t)wc_opcode_of((enum wqe_op)f->op),
				.byte_len = (uint32_t)f->len};

		written = nic_push_cqe(q->eng->nic, q->send_cq, &c);
	}
	if (f->op == WQE_OP_RDMA_READ || f->op == WQE_OP_ATOMIC_CMP_AND_SWP ||
	    f->op == WQE_OP_ATOMIC_FETCH_AND_ADD)
		r->rd_atomic--;
	r->comp_psn = psn_add(last_psn(f), 1);
	r->fl_tail++;
	r->stalled = false;
	return written;
}

/*
 * An error completion for the oldest WQE; the QP goes to ERR. The
 * completion tells the application why: no asynchronous event (IBTA
 * 11.6.3 affiliated errors are those a CQE cannot report; rxe raises none
 * here either), unless it was lost to an overrun (QP_FATAL).
 */
static void fail_head(struct nic *n, struct qpc *q, enum wqe_wc_status st)
{
	bool told;

	q->eng->stats.wqe_errors++;
	told = complete_head(q, st);
	qpc_set_state(q, WQE_QPS_ERR);
	q->eng->req.retrans_at = 0;
	q->eng->req.rnr_at = 0;
	flush_qp(n, q);
	if (!told)
		nic_event(n, NIC_EV_QP_FATAL, q->qpn, NULL);
}

/* Go back to @psn: the requester resends from the WQE that holds it. */
static void retry_from(struct nic *n, struct qpc *q, uint32_t psn)
{
	struct eng_req *r = &q->eng->req;
	struct inflight *f = head(q->eng);

	if (!f)
		return;
	q->eng->stats.retransmits++;
	{
		struct wqe_trace_event ev = {.kind = WQE_TRACE_RETRY, .qpn = q->qpn,
					     .wqe_counter = f->start, .psn = psn,
					     .reason = n->retry_why};

		nic_trace(n, &ev);
	}
	r->fetch = f->start;
	r->resume = true;
	r->resume_first = f->first_psn;
	r->resume_psn = psn_lt(psn, f->first_psn) ? f->first_psn : psn;
	r->psn = f->first_psn;
	r->fl_head = r->fl_tail;
	r->tx_open = false; /* a message cut short is sent again from @psn */
	r->rd_atomic = 0;
	r->stalled = false;
	r->retrans_at = 0;
	nic_kick(q);
}

/* Transport retry: count down retry_cnt (7 counts down too: only rnr_retry
 * has a "forever" value in the IBTA; rxe differs). One go-back-N a loss:
 * once one started, the responses still in flight from before it (each of
 * which implies the same loss) and a NAK for the same gap start no other
 * until forward progress; the retransmit timer always may (@timeout), as
 * rxe's completer does (started_retry, timeout_retry). Without this, a
 * responder still sending the answers to 16 READs turned each of them into
 * a retry and the QP ran out of retries without losing anything new. */
static void transport_retry(struct nic *n, struct qpc *q, uint32_t psn, bool timeout)
{
	struct eng_req *r = &q->eng->req;

	if (r->retry_started && !timeout)
		return;
	if (r->retry_left == 0) {
		fail_head(n, q, WQE_WC_RETRY_EXC_ERR);
		return;
	}
	r->retry_left--;
	r->retry_started = true;
	retry_from(n, q, psn);
}

/* Every SEND/WRITE that ends before @psn is implicitly acknowledged. */
static bool ack_before(struct nic *n, struct qpc *q, uint32_t psn)
{
	struct eng_req *r = &q->eng->req;
	struct inflight *f;

	while ((f = head(q->eng)) && psn_lt(last_psn(f), psn)) {
		if (f->op == WQE_OP_RDMA_READ || f->op == WQE_OP_ATOMIC_CMP_AND_SWP ||
		    f->op == WQE_OP_ATOMIC_FETCH_AND_ADD) {
			/* Its responses were lost (C9-148). */
			n->retry_why = "a later response implies lost READ/atomic responses";
			transport_retry(n, q, r->comp_psn, false);
			return false;
		}
		complete_head(q, WQE_WC_SUCCESS);
	}
	return true;
}

static void forward_progress(struct nic *n, struct qpc *q)
{
	q->eng->req.retry_left = q->retry_cnt;
	q->eng->req.rnr_left = q->rnr_retry;
	q->eng->req.retry_started = false;
	rearm(n, q);
}

/* Re-reads the oldest WQE from the ring and resolves its local SGEs for
 * writing (READ/atomic destinations). Returns the number of pieces, or -1
 * on a key failure. */
static int resolve_dest(struct nic *n, struct qpc *q, const struct inflight *f,
			struct wqe_iov *iov, uint8_t *buf)
{
	struct wqe_decode_ctx dctx = {.qp_type = q->type, .max_bytes = f->nblocks * WQE_BLOCK_SIZE, .qpn = q->qpn};
	struct wqe_desc d;
	int k = 0;

	for (uint32_t i = 0; i < f->nblocks; i++)
		memcpy(buf + i * WQE_BLOCK_SIZE, sq_ring_block(q->sq, f->start + i),
		       WQE_BLOCK_SIZE);
	if (wqe_decode(q->format, &dctx, buf, dctx.max_bytes, &d) != WQE_DEC_OK)
		return -1;
	for (uint32_t i = 0; i < d.num_sge; i++) {
		uint8_t *host;

		if (keys_check(&n->keys, d.sge[i].lkey, false, q->pd, d.sge[i].addr,
			       d.sge[i].length, WQE_ACCESS_LOCAL_WRITE, &host) != KEY_OK)
			return -1;
		iov[k].base = host;
		iov[k].len = d.sge[i].length;
		k++;
	}
	return k;
}

/* Writes @len bytes at byte @off of the scatter list. */
static void scatter(const struct wqe_iov *iov, int niov, uint64_t off, const uint8_t *src,
		    uint32_t len)
{
	for (int i = 0; i < niov && len; i++) {
		if (off >= iov[i].len) {
			off -= iov[i].len;
			continue;
		}
		uint32_t n = iov[i].len - (uint32_t)off;

		if (n > len)
			n = len;
		memcpy((uint8_t *)(uintptr_t)iov[i].base + off, src, n);
		src += n;
		len -= n;
		off = 0;
	}
}

static void on_read_response(struct nic *n, struct qpc *q, const struct wqe_pkt *p)
{
	static _Thread_local uint8_t wqe[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];
	struct wqe_iov iov[WQE_DESC_MAX_SGE];
	struct eng_req *r = &q->eng->req;
	struct inflight *f = head(q->eng);
	uint32_t mtu = wqe_mtu_to_bytes(q->path_mtu), k;
	uint64_t off;
	int niov;
	uint8_t op = p->bth.opcode;
	bool starts = op == 0x0d || op == 0x10, ends = op == 0x0f || op == 0x10;

	if (!f || f->op != WQE_OP_RDMA_READ || p->bth.psn != r->comp_psn)
		return; /* a duplicate or a gap: drop, the timer recovers */
	k = psn_ahead(p->bth.psn, f->first_psn);
	off = (uint64_t)k * mtu;
	/* C9-150: MIDDLE and LAST only after a FIRST; every packet but the
	 * last carries a full MTU; the last ends the READ exactly. FIRST or
	 * ONLY may start a resumed READ past its first PSN. */
	if ((!starts && k == 0) || (!ends && p->payload_len != mtu) ||
	    off + p->payload_len > f->len || (ends && off + p->payload_len != f->len)) {
		fail_head(n, q, WQE_WC_BAD_RESP_ERR);
		return;
	}
	niov = resolve_dest(n, q, f, iov, wqe);
	if (niov < 0) {
		fail_head(n, q, WQE_WC_LOC_PROT_ERR);
		return;
	}
	scatter(iov, niov, off, p->payload, p->payload_len);
	r->comp_psn = psn_add(p->bth.psn, 1);
	if (ends)
		complete_head(q, WQE_WC_SUCCESS);
	forward_progress(n, q);
}

static void on_atomic_ack(struct nic *n, struct qpc *q, const struct wqe_pkt *p)
{
	static _Thread_local uint8_t wqe[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];
	struct wqe_iov iov[WQE_DESC_MAX_SGE];
	struct inflight *f = head(q->eng);
	uint64_t orig = p->atomicacketh.orig;
	int niov;

	if (!f || (f->op != WQE_OP_ATOMIC_CMP_AND_SWP && f->op != WQE_OP_ATOMIC_FETCH_AND_ADD) ||
	    p->bth.psn != f->first_psn)
		return;
	niov = resolve_dest(n, q, f, iov, wqe);
	if (niov < 0) {
		fail_head(n, q, WQE_WC_LOC_PROT_ERR);
		return;
	}
	/* The original value lands in host byte order, as verbs programs read it. */
	scatter(iov, niov, 0, (const uint8_t *)&orig, 8);
	complete_head(q, WQE_WC_SUCCESS);
	forward_progress(n, q);
}

static void on_nak(struct nic *n, struct qpc *q, uint32_t psn, uint8_t syn)
{
	struct eng_req *r = &q->eng->req;

	switch (wqe_aeth_type(syn)) {
	case WQE_AETH_TYPE_RNR_NAK:
		q->eng->stats.rnr_naks_received++;
		if (r->rnr_left == 0) {
			fail_head(n, q, WQE_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		if (r->rnr_left != 7)
			r->rnr_left--;
		n->retry_why = "RNR NAK: the responder had no receive WQE";
		retry_from(n, q, psn);
		r->rnr_at = n->clock_ns + rnr_timer_ns(wqe_aeth_value(syn));
		nic_timer_armed(n, q, r->rnr_at);
		return;
	case WQE_AETH_TYPE_NAK:
		break;
	default:
		return;
	}
	switch (syn) {
	case WQE_AETH_NAK_PSN_SEQ_ERR:
		q->eng->stats.seq_naks_received++;
		/* The responder has every packet before the one it names (rxe
		 * moves comp.psn there): forward progress, so the retry count
		 * starts again; only retries that get no further run it down. */
		if (psn_lt(r->comp_psn, psn)) {
			r->comp_psn = psn;
			forward_progress(n, q);
		}
		n->retry_why = "NAK PSN sequence error";
		transport_retry(n, q, psn, false);
		return;
	case WQE_AETH_NAK_INVALID_REQ:
		fail_head(n, q, WQE_WC_REM_INV_REQ_ERR);
		return;
	case WQE_AETH_NAK_REM_ACCESS_ERR:
		fail_head(n, q, WQE_WC_REM_ACCESS_ERR);
		return;
	default:
		fail_head(n, q, WQE_WC_REM_OP_ERR);
		return;
	}
}

static void on_ack(struct nic *n, struct qpc *q, uint32_t psn)
{
	struct eng_req *r = &q->eng->req;
	struct inflight *f;

	if (!ack_before(n, q, psn_add(psn, 1)))
		return;
	f = head(q->eng);
	if (f && !psn_lt(psn, f->first_psn) && !psn_lt(psn, r->comp_psn))
		r->comp_psn = psn_add(psn, 1); /* part of a long message */
	forward_progress(n, q);
}

/* Whether @q takes a response with @psn at all: an RC QP not in error
 * with a WQE in flight, and a PSN already sent (a response for a PSN not
 * yet sent is bogus, or from an old life; a message cut short, tx_open,
 * has sent up to tx_psn). */
static bool comp_takes(const struct qpc *q, uint32_t psn)
{
	const struct eng_req *r = &q->eng->req;

	return q->type == WQE_QPT_RC && q->state != WQE_QPS_ERR && head(q->eng) &&
	       psn_lt(psn, r->tx_open ? r->tx_psn : r->psn);
}

/* An ACKNOWLEDGE (ACK, RNR NAK or NAK) that comp_takes(). */
static void on_acknowledge(struct nic *n, struct qpc *q, uint32_t psn, uint8_t syn)
{
	bool ack = wqe_aeth_type(syn) == WQE_AETH_TYPE_ACK;

	if (ack && psn_lt(psn, q->eng->req.comp_psn))
		return; /* a duplicate ACK */
	if (ack)
		on_ack(n, q, psn);
	else if (ack_before(n, q, psn))
		on_nak(n, q, psn, syn);
}

/* An RC QP in SQD drains with the acknowledgement of its last request. */
static void sqd_check(struct nic *n, struct qpc *q)
{
	if (__builtin_expect(q->eng->req.sqd_notify, 0))
		nic_sqd_check(n, q);
}

void comp_rx(struct nic *n, struct qpc *q, const struct wqe_pkt *p)
{
	uint8_t op = p->bth.opcode;

	if (comp_takes(q, p->bth.psn)) {
		if (op == WQE_WIRE_RC_ACKNOWLEDGE)
			on_acknowledge(n, q, p->bth.psn, p->aeth.syndrome);
		else if (ack_before(n, q, p->bth.psn)) {
			if (op == WQE_WIRE_RC_ATOMIC_ACKNOWLEDGE)
				on_atomic_ack(n, q, p);
			else
				on_read_response(n, q, p);
		}
	}
	sqd_check(n, q);
}

void comp_rx_acknowledge(struct nic *n, struct qpc *q, uint32_t psn, uint8_t syndrome)
{
	if (comp_takes(q, psn))
		on_acknowledge(n, q, psn, syndrome);
	sqd_check(n, q);
}

int comp_timers(struct nic *n, struct qpc *q, uint64_t now)
{
	struct eng_req *r = &q->eng->req;

	if (r->rnr_at && now >= r->rnr_at) {
		r->rnr_at = 0;
		nic_kick(q);
		return 1;
	}
	if (r->retrans_at && now >= r->retrans_at && head(q->eng)) {
		q->eng->stats.timeouts++;
		r->retrans_at = 0;
		n->retry_why = "retransmit timeout";
		transport_retry(n, q, r->comp_psn, true);
		return 1;
	}
	return 0;
}
