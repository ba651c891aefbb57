/* SPDX-License-Identifier: MIT */
/* The NIC's services to the engine's stages (engine/services.h). */
#include "engine/services.h"

#include <stdlib.h>
#include <time.h>

/* Takes entry @i off the timer list (the last one moves there). */
void nic_timer_drop(struct nic *n, uint32_t i)
{
	struct nic_timer *t = &n->timed[i];

	t->q->eng->timed = false;
	*t = n->timed[--n->ntimed];
	if (i < n->ntimed)
		t->q->eng->timed_idx = i;
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

void nic_event(struct nic *n, enum nic_event ev, uint32_t qpn, struct cqc *cq)
{
	if (n->event)
		n->event(n->event_arg, ev, qpn, cq);
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
	if (n->tx.link.xmit)
		n->tx.link.xmit(n->tx.link.arg, frame, len);
}

uint8_t *nic_tx_buf(struct nic *n)
{
	uint8_t *b = n->tx.link.tx_buf ? n->tx.link.tx_buf(n->tx.link.arg) : NULL;

	return b ? b : n->frame;
}

void nic_xmit_buf(struct nic *n, uint8_t *buf, size_t len)
{
	if (buf == n->frame || !n->tx.link.xmit_buf) {
		nic_xmit(n, buf, len);
		return;
	}
	n->tx_frames++;
	nic_tx_observe(n, buf, len);
	n->tx.link.xmit_buf(n->tx.link.arg, buf, len);
}

void nic_tx_flush(struct nic *n)
{
	if (n->tx.link.flush)
		n->tx.link.flush(n->tx.link.arg);
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

const struct nic_ah *nic_ah_find(const struct nic *n, uint32_t ah_num)
{
	if (!ah_num || ah_num > n->nah || !n->ah[ah_num - 1].valid)
		return NULL;
	return &n->ah[ah_num - 1];
}
