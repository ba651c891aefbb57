/* SPDX-License-Identifier: MIT */
#include "engine/nic.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "engine/flush.h"
#include "engine/requester.h"
#include "engine/completer.h"
#include "engine/rx.h"

#include <time.h>

#define NIC_KEYS 65536u

struct nic *nic_create(enum wqe_format fmt, const struct nic_port *port)
{
	struct nic *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->format = fmt;
	n->port = *port;
	n->frame = n->frame_store + NIC_FRAME_SHIFT;
	n->timer_min = UINT64_MAX;
	/* Each port numbers its QPs from its own base (from its MAC), so two
	 * endpoints' QPs are told apart on the wire and in traces. */
	if (keys_init(&n->keys, NIC_KEYS) ||
	    qp_table_init(&n->qps, QPN_BASE + ((uint32_t)(port->mac[5] & 0x7f) << 8))) {
		keys_fini(&n->keys);
		free(n);
		return NULL;
	}
	return n;
}

void nic_destroy(struct nic *n)
{
	if (!n)
		return;
	free(n->ah);
	free(n->active);
	free(n->timed);
	keys_fini(&n->keys);
	qp_table_fini(&n->qps);
	free(n);
}

/* The ranges of struct eng_qp (nic.h): a request packet's responder state
 * and rx_requests, at most three lines' worth from a multiple of 64; the
 * requester's per-message state, @doorbell to the end of req.msg, two
 * lines' worth right after, of which the first holds what the doorbell and
 * a progress pass over the QP read. */
static_assert(offsetof(struct eng_qp, resp.stats.requests) % 64 == 0 &&
		      offsetof(struct eng_qp, rx_requests) + sizeof(uint64_t) -
				      offsetof(struct eng_qp, resp.stats.requests) <=
			      3 * 64,
	      "a request packet's responder state fits three cache lines");
static_assert(offsetof(struct eng_qp, doorbell) ==
			      offsetof(struct eng_qp, resp.stats.requests) + 3 * 64 &&
		      offsetof(struct eng_qp, req.rnr_at) + sizeof(uint64_t) -
				      offsetof(struct eng_qp, doorbell) <=
			      64 &&
		      offsetof(struct eng_qp, req.msg) + sizeof(struct nic_msg_stats) -
				      offsetof(struct eng_qp, doorbell) <=
			      2 * 64,
	      "a message's requester state fits two cache lines, a progress pass's one");

/*
 * One allocation for the engine's state and the in-flight table. Not
 * aligned to 64 bytes on purpose: bench_scale at 16384 QPs (alternate
 * runs, best of 25 rounds) ran at 1.55 M msg/s with this layout at
 * malloc's 16-byte alignment and at 1.12 with it 64-byte aligned by hand
 * within a calloc block, although callgrind's cache simulation counts
 * fewer misses aligned (on an earlier tree the aligned one had been 3 %
 * ahead, and 128-byte alignment 25 % behind): measure in real time before
 * aligning anything here.
 */
static struct eng_qp *eng_alloc(uint32_t nflight)
{
	struct eng_qp *e;

	assert(nflight && !(nflight & (nflight - 1))); /* sq_ring_init() */
	e = calloc(1, sizeof(*e) + (size_t)nflight * sizeof(struct inflight));
	if (!e)
		return NULL;
	e->req.nflight = nflight;
	return e;
}

int nic_qp_create(struct nic *n, struct qpc *q)
{
	if (n->timed_cap <= n->qps.used) { /* an entry for every QP */
		uint32_t nc = n->timed_cap ? n->timed_cap * 2 : 64;
		struct nic_timer *nt = realloc(n->timed, nc * sizeof(*nt));

		if (!nt)
			return ENOMEM;
		n->timed = nt;
		n->timed_cap = nc;
	}
	q->eng = eng_alloc(q->sq->nblocks);
	if (!q->eng)
		return ENOMEM;
	q->eng->nic = n;
	if (qp_table_add(&n->qps, q)) {
		free(q->eng);
		q->eng = NULL;
		return ENOMEM;
	}
	q->state = WQE_QPS_RESET;
	return 0;
}

/* Takes entry @i off the timer list (the last one moves there). */
static void timer_drop(struct nic *n, uint32_t i)
{
	struct nic_timer *t = &n->timed[i];

	t->q->eng->timed = false;
	*t = n->timed[--n->ntimed];
	if (i < n->ntimed)
		t->q->eng->timed_idx = i;
}

void nic_qp_destroy(struct nic *n, struct qpc *q)
{
	for (uint32_t i = 0; i < n->nactive; i++)
		if (n->active[i] == q)
			n->active[i--] = n->active[--n->nactive];
	for (uint32_t i = 0; i < n->ndb_pend; i++)
		if (n->db_pend[i] == q)
			n->db_pend[i--] = n->db_pend[--n->ndb_pend];
	if (q->eng->timed)
		timer_drop(n, q->eng->timed_idx);
	qp_table_remove(&n->qps, q->qpn);
	resp_destroy(&q->eng->resp);
	free(q->eng);
	q->eng = NULL;
}

int nic_qp_reserve(struct nic *n, struct qpc *q, uint32_t max_dest_rd_atomic)
{
	(void)n;
	return resp_res_reserve(&q->eng->resp, max_dest_rd_atomic);
}

void nic_qp_set_state(struct nic *n, struct qpc *q, enum wqe_qp_state s)
{
	struct eng_qp *e = q->eng;

	if (s == WQE_QPS_RTS && q->state == WQE_QPS_RTR) {
		e->req.psn = q->sq_psn;
		e->req.comp_psn = q->sq_psn;
		e->req.retry_left = q->retry_cnt;
		e->req.rnr_left = q->rnr_retry;
	}
	if (s == WQE_QPS_RTR && q->state == WQE_QPS_INIT)
		resp_start(n, q);
	if (s == WQE_QPS_SQD && q->state == WQE_QPS_RTS)
		e->req.sqd_end = e->req.fetch; /* past a WQE left open, too */
	if (s != WQE_QPS_SQD)
		e->req.sqd_notify = false; /* left SQD: no drain to report */
	resp_modified(q);
	q->state = s;
	if (s == WQE_QPS_RESET) {
		bool active = e->active, timed = e->timed;
		uint32_t timed_idx = e->timed_idx;
		uint32_t nfl = e->req.nflight;
		struct resp_res *res = e->resp.res;
		uint32_t cap = e->resp.res_cap;

		memset(e, 0, sizeof(*e));
		if (res)
			memset(res, 0, cap * sizeof(*res));
		e->nic = n;
		e->active = active; /* still on the lists: they drop it */
		e->timed = timed;
		e->timed_idx = timed_idx;
		e->req.nflight = nfl;
		e->resp.res = res;
		e->resp.res_cap = cap;
	}
	if (s == WQE_QPS_ERR)
		nic_kick(q); /* flush what is outstanding */
	/* Back in RTS or SQD with a timer still armed: the timer list drops
	 * a QP found in any other state. */
	/* SQD: a message cut short goes on; RTS: requests posted in SQD
	 * start (their doorbells came while nothing could be started). */
	if (s == WQE_QPS_SQD || s == WQE_QPS_RTS)
		nic_kick(q);
	if ((s == WQE_QPS_RTS || s == WQE_QPS_SQD) && e->req.retrans_at)
		nic_timer_armed(n, q, e->req.retrans_at);
	if ((s == WQE_QPS_RTS || s == WQE_QPS_SQD) && e->req.rnr_at)
		nic_timer_armed(n, q, e->req.rnr_at);
}

static uint32_t doorbell_qpn(const struct nic *n, const uint8_t val[8]);

void nic_doorbell(struct nic *n, const uint8_t val[8])
{
	uint32_t qpn = doorbell_qpn(n, val);
	struct qpc *q;

	/* A trace is for tests and tools; the post path rings once per call. */
	if (__builtin_expect(n->trace != NULL, 0)) {
		struct wqe_trace_event ev = {.kind = WQE_TRACE_DOORBELL,
					     .qpn = qpn,
					     .wqe_counter = n->format == WQE_FORMAT_RXE
								    ? get_be32(val + 4)
								    : get_be32(val) >> 8 & 0xffff,
					     .frame = val, .len = 8};

		nic_trace(n, &ev);
	}
	/* The NIC takes the QP number from the write as it arrives; the
	 * mailbox only keeps the last writes for whoever wants to see them. */
	doorbell_write(&n->db, val);
	q = qp_table_find(&n->qps, qpn);
	if (!q || (n->ndb_pend && n->db_pend[n->ndb_pend - 1] == q))
		return; /* unknown, or held already: the same QP rang last */
	if (n->ndb_pend == NIC_DB_PEND)
		nic_take_doorbells(n);
	n->db_pend[n->ndb_pend++] = q;
	/* Start fetching the QP context for nic_take_doorbells() and the
	 * requester: struct qpc up to @qkey (two or three lines: the
	 * structure is 16-byte aligned). */
	__builtin_prefetch(q);
	__builtin_prefetch((const uint8_t *)q + 64);
	__builtin_prefetch((const uint8_t *)q + offsetof(struct qpc, qkey));
}

bool nic_qp_sq_draining(const struct qpc *q)
{
	const struct eng_req *r = &q->eng->req;

	return q->state == WQE_QPS_SQD &&
	       (r->tx_open || r->fl_head != r->fl_tail || req_sqd_may_fetch(r));
}

/*
 * IBTA 11.6.3 "Send Queue Drained": raised once, when a QP moved to SQD
 * with the event asked for has no message in progress left (every request
 * packet sent and, RC, acknowledged: rxe_comp.c waits for comp.psn ==
 * req.psn). Here it comes after the last WQE's completion is written.
 */
void nic_sqd_check(struct nic *n, struct qpc *q)
{
	if (q->state != WQE_QPS_SQD) {
		q->eng->req.sqd_notify = false; /* the engine moved it to ERR */
		return;
	}
	if (nic_qp_sq_draining(q))
		return;
	q->eng->req.sqd_notify = false;
	nic_event(n, NIC_EV_SQ_DRAINED, q->qpn, NULL);
}

void nic_qp_sqd_notify(struct nic *n, struct qpc *q)
{
	q->eng->req.sqd_notify = true;
	nic_sqd_check(n, q);
}

void nic_event(struct nic *n, enum nic_event ev, uint32_t qpn, struct cqc *cq)
{
	if (n->event)
		n->event(n->event_arg, ev, qpn, cq);
}

void nic_take_doorbells(struct nic *n)
{
	/* Two passes: the first starts fetching every QP's engine state
	 * (the QP contexts came with the doorbells), so that the misses
	 * overlap; the second reads it. */
	for (uint32_t i = 0; i < n->ndb_pend; i++) {
		const uint8_t *d = (const uint8_t *)&n->db_pend[i]->eng->doorbell;

		/* Its two lines' worth (the static_assert above) cross a third
		 * line unless the structure happens to be 64-byte aligned. */
		__builtin_prefetch(d, 1);
		__builtin_prefetch(d + 64, 1);
		__builtin_prefetch(d + 2 * 64 - 1, 1);
	}
	for (uint32_t i = 0; i < n->ndb_pend; i++) {
		struct qpc *q = n->db_pend[i];

		nic_kick(q);
		/* The in-flight entry its next message takes. */
		__builtin_prefetch(eng_flight(q->eng, q->eng->req.fl_head), 1);
	}
	n->ndb_pend = 0;
}

void nic_kick(struct qpc *q)
{
	struct nic *n = q->eng->nic;

	q->eng->doorbell = true;
	if (q->eng->active)
		return;
	if (n->nactive == n->active_cap) {
		uint32_t nc = n->active_cap ? n->active_cap * 2 : 64;
		struct qpc **na = realloc(n->active, nc * sizeof(*na));

		if (!na)
			return; /* stays off the list; kicked again by its next doorbell */
		n->active = na;
		n->active_cap = nc;
	}
	n->active[n->nactive++] = q;
	q->eng->active = true;
}

void nic_timer_armed(struct nic *n, struct qpc *q, uint64_t at)
{
	struct eng_qp *e = q->eng;

	if (at < n->timer_min)
		n->timer_min = at;
	if (e->timed) {
		if (at < n->timed[e->timed_idx].at)
			n->timed[e->timed_idx].at = at;
		return;
	}
	/* nic_qp_create() made room for every QP. */
	e->timed = true;
	e->timed_idx = n->ntimed;
	n->timed[n->ntimed++] = (struct nic_timer){q, at};
}

void nic_timer_update(struct nic *n, struct qpc *q)
{
	const struct eng_req *r = &q->eng->req;
	uint64_t at = UINT64_MAX;

	if (!q->eng->timed)
		return;
	if (r->retrans_at)
		at = r->retrans_at;
	if (r->rnr_at && r->rnr_at < at)
		at = r->rnr_at;
	n->timed[q->eng->timed_idx].at = at;
	if (at < n->timer_min)
		n->timer_min = at;
}

void nic_trace(struct nic *n, struct wqe_trace_event *ev)
{
	if (!n->trace)
		return;
	ev->time_ns = n->clock_ns;
	n->trace(n->trace_arg, ev);
}

bool nic_push_cqe(struct nic *n, struct cqc *cq, const struct cqe *e)
{
	if (n->trace) {
		struct wqe_trace_event ev = {.kind = WQE_TRACE_CQE, .qpn = e->qpn,
					     .wqe_counter = e->wqe_counter,
					     .status = (enum wqe_wc_status)e->status,
					     .is_recv = e->is_recv,
					     .opcode = (enum wqe_wc_opcode)e->opcode,
					     .byte_len = e->byte_len, .wc_flags = e->flags,
					     .imm = e->imm, .src_qp = e->src_qp};

		nic_trace(n, &ev);
	}
	if (__builtin_expect(cqc_push(cq, e), 1))
		return true;
	/* IBTA 11.6.3 "CQ Error": the CQ is in error from its first lost
	 * completion on; later losses are the same error. */
	if (cq->lost == 1)
		nic_event(n, NIC_EV_CQ_ERR, 0, cq);
	return false;
}

static void nic_tx_observe(struct nic *n, const uint8_t *frame, size_t len)
{
	if (n->trace) {
		struct wqe_trace_event ev = {.kind = WQE_TRACE_TX, .qpn = n->tx_qpn,
					     .wqe_counter = n->tx_counter, .frame = frame,
					     .len = len};

		nic_trace(n, &ev);
	}
	if (n->tx.tap)
		wqe_pcap_write(n->tx.tap, frame, len, n->clock_ns);
}

void nic_xmit(struct nic *n, const uint8_t *frame, size_t len)
{
	n->tx_frames++;
	nic_tx_observe(n, frame, len);
	if (n->tx.xmit)
		n->tx.xmit(n->tx.arg, frame, len);
}

uint8_t *nic_tx_buf(struct nic *n)
{
	uint8_t *b = n->tx.tx_buf ? n->tx.tx_buf(n->tx.arg) : NULL;

	return b ? b : n->frame;
}

void nic_xmit_buf(struct nic *n, uint8_t *buf, size_t len)
{
	if (buf == n->frame || !n->tx.xmit_buf) {
		nic_xmit(n, buf, len);
		return;
	}
	n->tx_frames++;
	nic_tx_observe(n, buf, len);
	n->tx.xmit_buf(n->tx.arg, buf, len);
}

void nic_tx_flush(struct nic *n)
{
	if (n->tx.flush)
		n->tx.flush(n->tx.arg);
}

/* The QP a doorbell value names: mlx5 writes the control segment's first
 * 8 bytes (qpn_ds in bytes 4-7); rxe's doorbell is the POST_SEND command,
 * modelled as the QP number (bytes 0-3) and the producer index (4-7). */
static uint32_t doorbell_qpn(const struct nic *n, const uint8_t val[8])
{
	return n->format == WQE_FORMAT_RXE ? get_be32(val) & 0xffffff : get_be32(val + 4) >> 8;
}


uint64_t nic_now(struct nic *n)
{
	if (n->tx.now) {
		n->clock_ns = n->tx.now(n->tx.now_arg);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		n->clock_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return n->clock_ns;
}

/* Frames waiting at the port, a bounded number per call. */
static int take_frames(struct nic *n)
{
	int work = 0;
	size_t len;

	if (!n->tx.rx_peek)
		return 0;
	while (work < 256) {
		const uint8_t *f = n->tx.rx_peek(n->tx.arg, &len);

		if (!f)
			break;
		nic_rx(n, f, len);
		n->tx.rx_done(n->tx.arg);
		work++;
	}
	resp_ack_flush(n);
	return work;
}

/*
 * The timers whose time has come (comp_timers()): a walk over the timer
 * list that reads a QP's state only when its entry's time has come (an
 * entry is exact after an ACK, nic_timer_update(), and early after a
 * rarer disarm: a retry, an error), drops the QPs out of RTS, and finds
 * the earliest time left. Timers armed during the walk (a retry resends,
 * the resend arms) lower n->timer_min themselves; an entry added during
 * the walk is seen by it.
 */
static int run_timers(struct nic *n, uint64_t now)
{
	int work = 0;

	n->timer_min = UINT64_MAX;
	for (uint32_t i = 0; i < n->ntimed;) {
		struct nic_timer *t = &n->timed[i];
		struct qpc *q = t->q;
		bool rts;

		if (t->at > now) {
			if (t->at < n->timer_min)
				n->timer_min = t->at;
			i++;
			continue;
		}
		rts = q->type == WQE_QPT_RC &&
		      (q->state == WQE_QPS_RTS || q->state == WQE_QPS_SQD);
		if (!rts) {
			timer_drop(n, i);
			continue;
		}
		work += comp_timers(n, q, now);
		/* Kept with no timer armed (at UINT64_MAX, skipped): a QP
		 * that sends arms again soon. */
		nic_timer_update(n, q);
		if (n->timed[i].at < n->timer_min)
			n->timer_min = n->timed[i].at;
		i++;
	}
	return work;
}

/* Doorbell work for one QP; returns whether it must stay on the active
 * list. */
static bool progress_qp(struct nic *n, struct qpc *q, int *work)
{
	struct eng_req *r = &q->eng->req;

	if (q->eng->doorbell) {
		if (q->state == WQE_QPS_RTS || q->state == WQE_QPS_SQD)
			*work += req_run(n, q, 64);
		else if (q->checks_in_engine && (q->state == WQE_QPS_RESET ||
						  q->state == WQE_QPS_INIT || q->state == WQE_QPS_RTR))
			*work += req_not_ready(n, q);
		if (q->state == WQE_QPS_ERR)
			*work += flush_qp(n, q);
		/* Keep looking while WQEs wait behind the doorbell record (in
		 * SQD: while one that had started is to be sent again). */
		q->eng->doorbell =
		    (q->state == WQE_QPS_RTS &&
		     (r->tx_open || r->fetch != sq_ring_producer(q->sq, r->fetch))) ||
		    (q->state == WQE_QPS_SQD && (r->tx_open || req_sqd_may_fetch(r)));
	}
	/* UC and UD drain when their last packet has left. */
	if (__builtin_expect(r->sqd_notify, 0))
		nic_sqd_check(n, q);
	return q->eng->doorbell;
}

int nic_progress(struct nic *n)
{
	uint64_t now = nic_now(n);
	int work;

	n->progress_calls++;
	nic_take_doorbells(n);
	work = take_frames(n);
	if (now >= n->timer_min)
		work += run_timers(n, now);
	/* Only QPs with work: the cost of a call does not grow with the
	 * number of idle QPs, nor with those that only wait for their ACKs.
	 * The list may grow while we walk it. */
	for (uint32_t i = 0; i < n->nactive;) {
		struct qpc *q = n->active[i];

		if (progress_qp(n, q, &work)) {
			i++;
			continue;
		}
		q->eng->active = false;
		n->active[i] = n->active[--n->nactive];
	}
	/* What this call sent leaves now, as one batch where the link
	 * batches: nothing stays in the link once the caller has control. */
	nic_tx_flush(n);
	return work;
}

int nic_next_deadline(const struct nic *n, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (uint32_t i = 0; i < n->ntimed; i++) {
		const struct qpc *q = n->timed[i].q;

		if (q->type != WQE_QPT_RC || (q->state != WQE_QPS_RTS && q->state != WQE_QPS_SQD))
			continue;
		if (q->eng->req.retrans_at && q->eng->req.retrans_at < best)
			best = q->eng->req.retrans_at;
		if (q->eng->req.rnr_at && q->eng->req.rnr_at < best)
			best = q->eng->req.rnr_at;
	}
	if (best == UINT64_MAX)
		return 0;
	*ns = best;
	return 1;
}

uint32_t nic_ah_create(struct nic *n, uint32_t pd, const union wqe_gid *dgid, const uint8_t dmac[6],
		       uint32_t flow_label, uint8_t sgid_index, uint8_t hop_limit, uint8_t tclass,
		       uint8_t sl, uint16_t udp_sport)
{
	struct nic_ah *a = NULL;
	uint32_t i;

	for (i = 0; i < n->nah && n->ah[i].valid; i++)
		;
	if (i == n->nah) {
		uint32_t nn = n->nah ? n->nah * 2 : 16;
		struct nic_ah *na;

		if (nn > (1u << 24))
			return 0;
		na = realloc(n->ah, nn * sizeof(*na));
		if (!na)
			return 0;
		memset(na + n->nah, 0, (nn - n->nah) * sizeof(*na));
		n->ah = na;
		n->nah = nn;
	}
	a = &n->ah[i];
	a->valid = true;
	a->pd = pd;
	a->addr.dgid = *dgid;
	memcpy(a->addr.dmac, dmac, 6);
	a->addr.flow_label = flow_label;
	a->addr.sgid_index = sgid_index;
	a->addr.hop_limit = hop_limit;
	a->addr.tclass = tclass;
	a->addr.sl = sl;
	a->addr.udp_sport = udp_sport;
	return i + 1;
}

void nic_ah_destroy(struct nic *n, uint32_t ah_num)
{
	if (ah_num && ah_num <= n->nah)
		n->ah[ah_num - 1].valid = false;
}

const struct nic_ah *nic_ah_find(const struct nic *n, uint32_t ah_num)
{
	if (!ah_num || ah_num > n->nah || !n->ah[ah_num - 1].valid)
		return NULL;
	return &n->ah[ah_num - 1];
}
