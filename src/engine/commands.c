/* SPDX-License-Identifier: MIT */
/*
 * commands.c - the NIC's command interface (engine/device.h): creating
 * and destroying the NIC, the command lock, QP, address-handle and key
 * commands, attaching a link, tap, clock and trace, statistics queries.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/nic.h"
#include "engine/responder.h"
#include "engine/sched.h"
#include "engine/services.h"
#include "engine/srq.h"

#define NIC_KEYS 65536u

struct nic *nic_create(const struct nic_config *cfg)
{
	struct nic *n = calloc(1, sizeof(*n));
	int err;

	if (!n) {
		errno = ENOMEM;
		return NULL;
	}
	n->format = cfg->format;
	n->mode = cfg->mode;
	n->port = cfg->port;
	n->no_fast_path = cfg->no_fast_path;
	n->frame = n->frame_store + NIC_FRAME_SHIFT;
	n->timer_min = UINT64_MAX;
	n->tx.link.fd = -1;
	n->thr.wake_fd = -1;
	/* Each port numbers its QPs from its own base (from its MAC unless
	 * given), so two endpoints' QPs are told apart on the wire and in
	 * traces. */
	if (keys_init(&n->keys, NIC_KEYS) ||
	    qp_table_init(&n->qps, cfg->qpn_base ? cfg->qpn_base
						 : QPN_BASE + ((uint32_t)(cfg->port.mac[5] & 0x7f) << 8))) {
		keys_fini(&n->keys);
		free(n);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&n->lock, NULL);
	if (n->mode == NIC_THREAD) {
		err = sched_start(n);
		if (err) {
			nic_destroy(n);
			errno = err;
			return NULL;
		}
	}
	return n;
}

void nic_destroy(struct nic *n)
{
	if (!n)
		return;
	if (n->mode == NIC_THREAD)
		sched_stop(n);
	pthread_mutex_destroy(&n->lock);
	free(n->ah);
	free(n->active);
	free(n->timed);
	keys_fini(&n->keys);
	qp_table_fini(&n->qps);
	free(n);
}

enum nic_mode nic_mode_of(const struct nic *n)
{
	return n->mode;
}

void nic_cmd_begin(struct nic *n)
{
	/* Counted so that a NIC thread that finds work pass after pass
	 * still lets the command in (sched.c). */
	atomic_fetch_add_explicit(&n->thr.cmd_waiting, 1, memory_order_relaxed);
	pthread_mutex_lock(&n->lock);
	atomic_fetch_sub_explicit(&n->thr.cmd_waiting, 1, memory_order_relaxed);
}

void nic_cmd_end(struct nic *n)
{
	/* A command may have given the NIC work (a modify to RTS, a frame
	 * handed in): the thread looks again before it sleeps. */
	if (n->mode == NIC_THREAD)
		sched_wake(n);
	pthread_mutex_unlock(&n->lock);
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
	if (q->srq && q->srq->format != WQE_FORMAT_MLX5) {
		q->eng->srq_copy = calloc(1, q->srq->rq->stride);
		if (!q->eng->srq_copy) {
			free(q->eng);
			q->eng = NULL;
			return ENOMEM;
		}
	}
	if (q->gsi ? qp_table_add_gsi(&n->qps, q) : qp_table_add(&n->qps, q)) {
		free(q->eng->srq_copy);
		free(q->eng);
		q->eng = NULL;
		return q->gsi ? EBUSY : ENOMEM;
	}
	qpc_set_state(q, WQE_QPS_RESET);
	return 0;
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
		nic_timer_drop(n, q->eng->timed_idx);
	qp_table_remove(&n->qps, q->qpn);
	if (q->srq) /* its completion lets software have the slot back */
		srq_release(q);
	resp_destroy(&q->eng->resp);
	free(q->eng->srq_copy);
	free(q->eng);
	q->eng = NULL;
}

void nic_srq_create(struct nic *n, struct srqc *s)
{
	(void)n;
	s->head = 0;
	s->limit = 0;
}

void nic_srq_destroy(struct nic *n, struct srqc *s)
{
	(void)n;
	(void)s; /* the NIC keeps nothing of an SRQ outside its context */
}

void nic_srq_arm(struct nic *n, struct srqc *s, uint32_t limit)
{
	(void)n;
	s->limit = limit;
}

uint32_t nic_srq_count(const struct srqc *s)
{
	uint32_t ci = atomic_load_explicit(&s->rq->ci, memory_order_relaxed);

	return rq_ring_producer(s->rq, ci) - ci;
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
		e->req.retry_started = false;
	}
	if (s == WQE_QPS_RTR && q->state == WQE_QPS_INIT)
		resp_start(n, q);
	if (s == WQE_QPS_SQD && q->state == WQE_QPS_RTS)
		e->req.sqd_end = e->req.fetch; /* past a WQE left open, too */
	if (s != WQE_QPS_SQD)
		e->req.sqd_notify = false; /* left SQD: no drain to report */
	resp_modified(q);
	qpc_set_state(q, s);
	if (s == WQE_QPS_RESET) {
		bool active = e->active, timed = e->timed;
		uint32_t timed_idx = e->timed_idx;
		uint32_t nfl = e->req.nflight;
		struct resp_res *res = e->resp.res;
		uint32_t cap = e->resp.res_cap;
		uint8_t *srq_copy = e->srq_copy;

		if (q->srq)
			srq_release(q);
		memset(e, 0, sizeof(*e));
		e->srq_copy = srq_copy;
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

void nic_qp_sqd_notify(struct nic *n, struct qpc *q)
{
	q->eng->req.sqd_notify = true;
	nic_sqd_check(n, q);
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

uint32_t nic_ah_create(struct nic *n, uint32_t pd, const struct qpc_addr *addr)
{
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
	n->ah[i].valid = true;
	n->ah[i].pd = pd;
	n->ah[i].addr = *addr;
	return i + 1;
}

void nic_ah_destroy(struct nic *n, uint32_t ah_num)
{
	if (ah_num && ah_num <= n->nah)
		n->ah[ah_num - 1].valid = false;
}

uint32_t nic_key_add(struct nic *n, uint8_t *host, uint64_t iova, uint64_t length, uint32_t pd,
		     uint32_t access)
{
	return keys_add(&n->keys, host, iova, length, pd, access);
}

void nic_key_remove(struct nic *n, uint32_t key)
{
	keys_remove(&n->keys, key);
}

void nic_set_event(struct nic *n, nic_event_fn fn, void *arg)
{
	n->event = fn;
	n->event_arg = arg;
}

int nic_set_link(struct nic *n, const struct nic_link *l)
{
	if (l && n->mode == NIC_THREAD && l->fd < 0)
		return EINVAL;
	nic_tx_flush(n); /* nothing left behind in the old link */
	if (l)
		n->tx.link = *l;
	else
		n->tx.link = (struct nic_link){.fd = -1};
	return 0;
}

struct wqe_pcap *nic_set_tap(struct nic *n, struct wqe_pcap *tap)
{
	struct wqe_pcap *old = n->tx.tap;

	n->tx.tap = tap;
	return old;
}

void nic_set_clock(struct nic *n, uint64_t (*now)(void *arg), void *arg)
{
	n->tx.now = now;
	n->tx.now_arg = arg;
}

void nic_set_trace(struct nic *n, wqe_trace_fn fn, void *arg)
{
	n->trace = fn;
	n->trace_arg = arg;
}

void nic_query_port(const struct nic *n, struct nic_port_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->tx_frames = n->tx_frames;
	c->rx_frames = n->rx_frames;
	c->rx_accepted = n->rx_accepted;
	memcpy(c->rx_drops, n->rx_drops, sizeof(c->rx_drops));
	c->progress_calls = n->progress_calls;
}

void nic_query_qp(const struct qpc *q, struct nic_qp_counters *c)
{
	c->req = q->eng->stats;
	c->msg = q->eng->req.msg;
	c->rx_requests = q->eng->rx_requests;
	c->resp = q->eng->resp.stats;
}
