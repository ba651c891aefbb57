/* SPDX-License-Identifier: MIT */
/*
 * agent.c - the CM agent: its ID table, sending, timers and events
 * (wqe/cm.h). The message handlers are in agent_rx.c, the consumer's calls
 * in agent_api.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cm/agent_int.h"

static const char *const state_names[WQE_CM_STATE_COUNT] = {
    "IDLE",	 "LISTEN",   "REQ_SENT",      "REQ_RCVD",      "MRA_REQ_SENT", "MRA_REQ_RCVD",
    "REP_SENT",	 "REP_RCVD", "MRA_REP_SENT",  "MRA_REP_RCVD",  "ESTABLISHED",  "DREQ_SENT",
    "DREQ_RCVD", "TIMEWAIT", "SIDR_REQ_SENT", "SIDR_REQ_RCVD",
};

const char *wqe_cm_state_str(enum wqe_cm_state s)
{
	return (unsigned)s < WQE_CM_STATE_COUNT ? state_names[s] : "unknown";
}

static const char *const event_names[] = {
    "REQ_RECEIVED",  "REQ_ERROR",	  "REP_RECEIVED",   "REP_ERROR",	 "RTU_RECEIVED",
    "MRA_RECEIVED",  "REJ_RECEIVED",	  "DREQ_RECEIVED",  "DREQ_ERROR",	 "DREP_RECEIVED",
    "TIMEWAIT_EXIT", "SIDR_REQ_RECEIVED", "SIDR_REQ_ERROR", "SIDR_REP_RECEIVED",
};

const char *wqe_cm_event_str(enum wqe_cm_event_type t)
{
	return (unsigned)t < sizeof(event_names) / sizeof(event_names[0]) ? event_names[t]
									  : "unknown";
}

static const char *const refusal_names[WQE_CM_RX_REFUSAL_COUNT] = {
    "ok",    "malformed",   "unknown ID",   "bad state",   "duplicate",
    "stale", "no listener", "no resources", "unsupported", "mismatch",
};

const char *wqe_cm_refusal_str(enum wqe_cm_refusal r)
{
	return (unsigned)r < WQE_CM_RX_REFUSAL_COUNT ? refusal_names[r] : "unknown";
}

uint64_t wqe_cm_timeout_ns(uint8_t t)
{
	return 4096ull << (t > 31 ? 31 : t);
}

struct wqe_cm_agent *wqe_cm_agent_create(const struct wqe_cm_agent_attr *attr,
					 const struct wqe_cm_agent_ops *ops, void *ctx)
{
	struct wqe_cm_agent *a;

	if (!attr || !ops || !ops->send || !ops->event || !ops->now_ns || attr->max_ids > 65536) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	a->attr = *attr;
	if (!a->attr.max_ids)
		a->attr.max_ids = 1024;
	if (!a->attr.max_req_rcvd || a->attr.max_req_rcvd > a->attr.max_ids)
		a->attr.max_req_rcvd = a->attr.max_ids / 2 ? a->attr.max_ids / 2 : 1;
	a->ops = *ops;
	a->ctx = ctx;
	a->ids = calloc(a->attr.max_ids, sizeof(*a->ids));
	if (!a->ids) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	a->tid_seq = cm_random(a);
	return a;
}

void wqe_cm_agent_destroy(struct wqe_cm_agent *a)
{
	if (!a)
		return;
	free(a->ids);
	free(a);
}

uint32_t cm_random(struct wqe_cm_agent *a)
{
	uint32_t r = 0;

	if (a->ops.random)
		return a->ops.random(a->ctx);
	/* Unpredictable IDs (IBTA 12.6.1 asks only for uniqueness; a guessable
	 * one lets an off-path sender forge a REJ or DREQ for it). */
	while (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		;
	return r;
}

uint8_t cm_ack_timeout(uint8_t ca_ack_delay, uint8_t plt)
{
	/* The REQ's Local ACK Timeout (IBTA 12.6.5): a round trip, 2 x the
	 * packet life time (code plt + 1), plus the peer CA's ACK delay. In codes, 2^a + 2^b is
	 * 2^max(a, b), one more when the smaller is within one of the larger (the sum then reaches
	 * the next power of two, give or take); this is also what ib_cm computes. */
	unsigned t = plt + 1u, d = ca_ack_delay, hi = t > d ? t : d, lo = t > d ? d : t;

	hi += lo + 1 >= hi;
	return (uint8_t)(hi > 31 ? 31 : hi);
}

uint64_t cm_now(const struct wqe_cm_agent *a)
{
	return a->ops.now_ns(a->ctx);
}

struct wqe_cm_id *cm_find_local(struct wqe_cm_agent *a, uint32_t local_id)
{
	if (!local_id)
		return NULL;
	for (uint32_t i = 0; i < a->attr.max_ids; i++)
		if (a->ids[i].in_use && a->ids[i].local_id == local_id)
			return &a->ids[i];
	return NULL;
}

struct wqe_cm_id *cm_find_remote(struct wqe_cm_agent *a, uint32_t remote_id,
				 const union wqe_gid *gid)
{
	if (!remote_id)
		return NULL;
	for (uint32_t i = 0; i < a->attr.max_ids; i++) {
		struct wqe_cm_id *id = &a->ids[i];

		if (id->in_use && id->state != WQE_CM_LISTEN && id->remote_id == remote_id &&
		    memcmp(id->peer.gid.raw, gid->raw, 16) == 0)
			return id;
	}
	return NULL;
}

struct wqe_cm_id *cm_id_alloc(struct wqe_cm_agent *a)
{
	struct wqe_cm_id *slot = NULL;
	uint32_t lid;

	for (uint32_t i = 0; i < a->attr.max_ids && !slot; i++)
		if (!a->ids[i].in_use)
			slot = &a->ids[i];
	if (!slot)
		return NULL;
	/* A random local ID no ID of ours holds, TIMEWAIT ones included
	 * (the IBTA's TimeWait state, 12.9: not reused while the old one may
	 * still be heard). */
	for (int tries = 0;; tries++) {
		if (tries == 64) /* a random source that keeps repeating itself */
			return NULL;
		lid = cm_random(a);
		if (lid && !cm_find_local(a, lid))
			break;
	}
	{
		uint32_t gen = slot->gen + 1;

		memset(slot, 0, sizeof(*slot));
		slot->gen = gen;
	}
	slot->agent = a;
	slot->in_use = 1;
	slot->local_id = lid;
	slot->tid = (uint64_t)(++a->tid_seq) << 32 | lid;
	a->st.ids++;
	return slot;
}

static int counts_as_pending(enum wqe_cm_state s)
{
	return s == WQE_CM_REQ_RCVD || s == WQE_CM_MRA_REQ_SENT;
}

void cm_set_state(struct wqe_cm_id *id, enum wqe_cm_state s)
{
	struct wqe_cm_agent *a = id->agent;
	const int was = counts_as_pending(id->state), is = counts_as_pending(s);

	if (was != is) {
		a->st.req_rcvd = was ? a->st.req_rcvd - 1 : a->st.req_rcvd + 1;
		if (id->listener)
			id->listener->pending =
			    was ? id->listener->pending - 1 : id->listener->pending + 1;
	}
	if ((id->state == WQE_CM_TIMEWAIT) != (s == WQE_CM_TIMEWAIT))
		a->st.timewait = s == WQE_CM_TIMEWAIT ? a->st.timewait + 1 : a->st.timewait - 1;
	id->state = s;
}

void cm_id_free(struct wqe_cm_id *id)
{
	struct wqe_cm_agent *a = id->agent;

	if (id->state == WQE_CM_LISTEN) /* its passive IDs forget it */
		for (uint32_t i = 0; i < a->attr.max_ids; i++)
			if (a->ids[i].in_use && a->ids[i].listener == id)
				a->ids[i].listener = NULL;
	cm_set_state(id, WQE_CM_IDLE);
	id->in_use = 0;
	id->deadline_ns = 0;
	a->st.ids--;
}

void cm_msg_init(const struct wqe_cm_id *id, struct wqe_cm_msg *m, enum wqe_cm_attr attr)
{
	wqe_cm_msg_init(m, attr, id->tid);
}

static int attr_index(uint16_t attr)
{
	return attr >= WQE_CM_ATTR_REQ && attr <= WQE_CM_ATTR_SIDR_REP ? attr - WQE_CM_ATTR_REQ
								       : -1;
}

void cm_send_raw(struct wqe_cm_agent *a, const struct wqe_cm_addr *to, const uint8_t *mad)
{
	const int k = attr_index((uint16_t)(mad[16] << 8 | mad[17]));
	struct wqe_cm_addr dst = *to;

	dst.qpn = WQE_GSI_QPN;
	if (a->ops.send(a->ctx, &dst, mad) != 0)
		a->st.send_errors++;
	else if (k >= 0)
		a->st.tx[k]++;
}

int cm_send_msg(struct wqe_cm_agent *a, const struct wqe_cm_addr *to, const struct wqe_cm_msg *m,
		uint8_t *save)
{
	uint8_t mad[WQE_MAD_LEN];

	if (wqe_cm_encode(m, mad, sizeof(mad), NULL) != WQE_MAD_LEN)
		return -1; /* the callers validated: not reached */
	if (save)
		memcpy(save, mad, sizeof(mad));
	cm_send_raw(a, to, mad);
	return 0;
}

void cm_send_rej(struct wqe_cm_agent *a, const struct wqe_cm_id *id, const struct wqe_cm_addr *to,
		 uint64_t tid, uint32_t lid, uint32_t rid, uint8_t msg_rejected, uint16_t reason,
		 const void *ari, size_t ari_len, const void *pd, size_t pd_len)
{
	struct wqe_cm_msg m;

	wqe_cm_msg_init(&m, WQE_CM_ATTR_REJ, id ? id->tid : tid);
	/* ib_cm's cm_format_rej(): from REQ_RCVD our ID was never shown to
	 * the peer, and the REJ carries 0 in its place. */
	m.u.rej.local_comm_id = id ? (id->state == WQE_CM_REQ_RCVD ? 0 : id->local_id) : lid;
	m.u.rej.remote_comm_id = id ? id->remote_id : rid;
	m.u.rej.msg_rejected = msg_rejected;
	m.u.rej.reason = reason;
	if (ari_len > WQE_CM_ARI_LEN)
		ari_len = WQE_CM_ARI_LEN;
	if (pd_len > WQE_CM_REJ_PDATA_LEN)
		pd_len = WQE_CM_REJ_PDATA_LEN;
	m.u.rej.ari_len = (uint8_t)ari_len;
	if (ari_len)
		memcpy(m.u.rej.ari, ari, ari_len);
	if (pd_len)
		memcpy(m.u.rej.private_data, pd, pd_len);
	(void)cm_send_msg(a, to, &m, NULL);
}

void cm_arm(struct wqe_cm_id *id, uint64_t timeout_ns, uint8_t retries)
{
	id->timeout_ns = timeout_ns;
	id->retries_left = retries;
	id->deadline_ns = cm_now(id->agent) + timeout_ns;
	if (!id->deadline_ns)
		id->deadline_ns = 1;
}

void cm_disarm(struct wqe_cm_id *id)
{
	id->deadline_ns = 0;
}

void cm_enter_timewait(struct wqe_cm_id *id)
{
	/* ib_cm's cm_enter_timewait(): the local ACK timeout of the path
	 * (packet life time + 1, and the peer's ACK delay once known), during which a late packet
	 * of the old connection may still arrive (IBTA 12.9, the TimeWait state). */
	cm_set_state(id, WQE_CM_TIMEWAIT);
	id->deadline_ns = cm_now(id->agent) + wqe_cm_timeout_ns(id->ack_timeout);
	if (!id->deadline_ns)
		id->deadline_ns = 1;
}

void cm_report(struct wqe_cm_id *id, enum wqe_cm_event_type type, const struct wqe_cm_msg *msg,
	       const struct wqe_cm_addr *from, uint16_t reason, struct wqe_cm_id *listen_id)
{
	struct wqe_cm_agent *a = id->agent;
	struct wqe_cm_event ev;

	if (id->detached)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.id = id;
	ev.listen_id = listen_id;
	ev.context = id->context;
	ev.msg = msg;
	ev.reason = reason;
	if (from)
		ev.from = *from;
	a->ops.event(a->ctx, &ev);
}

/* What an unanswered message's last timeout does (ib_cm's
 * cm_process_send_error() after the MAD layer's retries). */
static void cm_timed_out(struct wqe_cm_id *id)
{
	struct wqe_cm_agent *a = id->agent;
	const uint8_t guid[8] = {
	    (uint8_t)(a->attr.ca_guid >> 56), (uint8_t)(a->attr.ca_guid >> 48),
	    (uint8_t)(a->attr.ca_guid >> 40), (uint8_t)(a->attr.ca_guid >> 32),
	    (uint8_t)(a->attr.ca_guid >> 24), (uint8_t)(a->attr.ca_guid >> 16),
	    (uint8_t)(a->attr.ca_guid >> 8),  (uint8_t)a->attr.ca_guid,
	};

	a->st.timeouts++;
	id->deadline_ns = 0;
	switch (id->state) {
	case WQE_CM_REQ_SENT:
	case WQE_CM_MRA_REQ_RCVD:
	case WQE_CM_REP_SENT:
	case WQE_CM_MRA_REP_RCVD: {
		/* IBTA 12.6.7.2: reason Timeout, the ARI our CA GUID, so a peer
		 * that did hear us lets its half go. */
		const int req = id->state == WQE_CM_REQ_SENT || id->state == WQE_CM_MRA_REQ_RCVD;

		cm_send_rej(a, id, &id->peer, 0, 0, 0, req ? WQE_CM_MSG_REQ : WQE_CM_MSG_REP,
			    WQE_CM_REJ_TIMEOUT, guid, sizeof(guid), NULL, 0);
		cm_set_state(id, WQE_CM_IDLE);
		if (id->detached)
			cm_id_free(id);
		else
			cm_report(id, req ? WQE_CM_EV_REQ_ERROR : WQE_CM_EV_REP_ERROR, NULL, NULL,
				  WQE_CM_REJ_TIMEOUT, NULL);
		break;
	}
	case WQE_CM_DREQ_SENT:
		cm_enter_timewait(id);
		cm_report(id, WQE_CM_EV_DREQ_ERROR, NULL, NULL, WQE_CM_REJ_TIMEOUT, NULL);
		break;
	case WQE_CM_SIDR_REQ_SENT:
		cm_set_state(id, WQE_CM_IDLE);
		if (id->detached)
			cm_id_free(id);
		else
			cm_report(id, WQE_CM_EV_SIDR_REQ_ERROR, NULL, NULL, WQE_CM_REJ_TIMEOUT,
				  NULL);
		break;
	default:
		break;
	}
}

static void cm_fire(struct wqe_cm_id *id)
{
	struct wqe_cm_agent *a = id->agent;

	if (id->state == WQE_CM_TIMEWAIT) {
		id->deadline_ns = 0;
		if (id->detached) {
			cm_id_free(id);
			return;
		}
		cm_set_state(id, WQE_CM_IDLE);
		cm_report(id, WQE_CM_EV_TIMEWAIT_EXIT, NULL, NULL, 0, NULL);
		return;
	}
	if (id->retries_left) {
		id->retries_left--;
		a->st.retransmits++;
		cm_send_raw(a, &id->peer, id->mad);
		id->deadline_ns = cm_now(a) + id->timeout_ns;
		if (!id->deadline_ns)
			id->deadline_ns = 1;
		return;
	}
	cm_timed_out(id);
}

uint64_t wqe_cm_agent_next_deadline(const struct wqe_cm_agent *a)
{
	uint64_t next = UINT64_MAX;

	if (!a)
		return next;
	for (uint32_t i = 0; i < a->attr.max_ids; i++)
		if (a->ids[i].in_use && a->ids[i].deadline_ns && a->ids[i].deadline_ns < next)
			next = a->ids[i].deadline_ns;
	return next;
}

int wqe_cm_agent_tick(struct wqe_cm_agent *a)
{
	uint64_t now;
	int fired = 0;

	if (!a)
		return 0;
	now = cm_now(a);
	for (uint32_t i = 0; i < a->attr.max_ids; i++) {
		struct wqe_cm_id *id = &a->ids[i];

		if (id->in_use && id->deadline_ns && id->deadline_ns <= now) {
			cm_fire(id);
			fired++;
		}
	}
	return fired;
}

void wqe_cm_agent_stats(const struct wqe_cm_agent *a, struct wqe_cm_agent_stats *s)
{
	if (a && s)
		*s = a->st;
}

int wqe_cm_agent_receive(struct wqe_cm_agent *a, const struct wqe_cm_addr *from, const uint8_t *mad,
			 size_t len)
{
	struct wqe_cm_msg m;
	int r, k;

	if (!a || !from || !mad)
		return -EINVAL;
	if (wqe_cm_decode(mad, len, &m, NULL) != 0) {
		a->st.rx_refused[WQE_CM_RX_MALFORMED]++;
		return WQE_CM_RX_MALFORMED;
	}
	r = cm_rx_dispatch(a, from, &m);
	k = attr_index(m.hdr.attr_id);
	if (r != WQE_CM_RX_OK)
		a->st.rx_refused[r]++;
	else if (k >= 0)
		a->st.rx[k]++;
	return r;
}

enum wqe_cm_state wqe_cm_id_state(const struct wqe_cm_id *id)
{
	return id ? id->state : WQE_CM_IDLE;
}

uint32_t wqe_cm_id_local_id(const struct wqe_cm_id *id)
{
	return id ? id->local_id : 0;
}

uint32_t wqe_cm_id_remote_id(const struct wqe_cm_id *id)
{
	return id ? id->remote_id : 0;
}

void *wqe_cm_id_context(const struct wqe_cm_id *id)
{
	return id ? id->context : NULL;
}

void wqe_cm_id_set_context(struct wqe_cm_id *id, void *context)
{
	if (id)
		id->context = context;
}
