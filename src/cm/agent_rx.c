/* SPDX-License-Identifier: MIT */
/*
 * agent_rx.c - what each received CM message does to the agent's IDs
 * (IBTA Vol 1 12.9, the communication state diagrams; the kernel's
 * cm_*_handler() functions). Every handler returns WQE_CM_RX_OK after a
 * transition, or the refusal that left every ID as it was.
 */
#include <string.h>

#include "cm/agent_int.h"

static int same_gid(const union wqe_gid *a, const union wqe_gid *b)
{
	return memcmp(a->raw, b->raw, 16) == 0;
}

/* The ID a message names by our local ID @lid, from the peer it holds. */
static struct wqe_cm_id *named(struct wqe_cm_agent *a, uint32_t lid, const struct wqe_cm_addr *from,
			       int *r)
{
	struct wqe_cm_id *id = cm_find_local(a, lid);

	if (!id || id->state == WQE_CM_LISTEN) {
		*r = WQE_CM_RX_UNKNOWN_ID;
		return NULL;
	}
	if (!same_gid(&id->peer.gid, &from->gid)) {
		*r = WQE_CM_RX_MISMATCH;
		return NULL;
	}
	return id;
}

static struct wqe_cm_id *find_listener(struct wqe_cm_agent *a, uint64_t sid)
{
	for (uint32_t i = 0; i < a->attr.max_ids; i++)
		if (a->ids[i].in_use && a->ids[i].state == WQE_CM_LISTEN &&
		    a->ids[i].service_id == sid)
			return &a->ids[i];
	return NULL;
}

/* A REQ from a QP of the peer we hold a connection with (ib_cm's
 * cm_insert_remote_qpn() conflict). A connection in TIMEWAIT holds none:
 * cm_enter_timewait() takes it out of ib_cm's remote QPN table, so the
 * peer may connect that QP number again at once (wqe's NIC hands a freed
 * QP number out again). */
static int stale(struct wqe_cm_agent *a, const struct wqe_cm_addr *from, uint32_t qpn)
{
	for (uint32_t i = 0; i < a->attr.max_ids; i++) {
		const struct wqe_cm_id *id = &a->ids[i];

		if (id->in_use && id->have_remote_qpn && id->remote_qpn == qpn &&
		    id->state != WQE_CM_IDLE && id->state != WQE_CM_TIMEWAIT &&
		    same_gid(&id->peer.gid, &from->gid))
			return 1;
	}
	return 0;
}

static void rej_req(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		    const struct wqe_cm_msg *m, uint16_t reason)
{
	cm_send_rej(a, NULL, from, m->hdr.tid, 0, m->u.req.local_comm_id, WQE_CM_MSG_REQ, reason,
		    NULL, 0, NULL, 0);
}

static int rx_req(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		  const struct wqe_cm_msg *m)
{
	const struct wqe_cm_req *q = &m->u.req;
	struct wqe_cm_id *id, *l;

	id = cm_find_remote(a, q->local_comm_id, &from->gid);
	if (id && !id->active) {
		/* ib_cm's cm_dup_req_handler(): MRA again if we sent one, REJ
		 * Stale Connection from TIMEWAIT, else drop (a REP sent is
		 * retransmitted on its own timer). */
		if (id->state == WQE_CM_MRA_REQ_SENT && id->have_last)
			cm_send_raw(a, &id->peer, id->last);
		else if (id->state == WQE_CM_TIMEWAIT)
			cm_send_rej(a, id, from, 0, 0, 0, WQE_CM_MSG_REQ, WQE_CM_REJ_STALE_CONN,
				    NULL, 0, NULL, 0);
		return WQE_CM_RX_DUPLICATE;
	}
	if (stale(a, from, q->local_qpn)) {
		rej_req(a, from, m, WQE_CM_REJ_STALE_CONN);
		return WQE_CM_RX_STALE;
	}
	l = find_listener(a, q->service_id);
	if (!l) {
		rej_req(a, from, m, WQE_CM_REJ_INVALID_SERVICE_ID);
		return WQE_CM_RX_NO_LISTENER;
	}
	if (q->transport_type != WQE_CM_TRANSPORT_RC && q->transport_type != WQE_CM_TRANSPORT_UC) {
		rej_req(a, from, m, WQE_CM_REJ_INVALID_TRANSPORT_TYPE);
		return WQE_CM_RX_UNSUPPORTED;
	}
	/* The flood bound: per listener and overall, then the table. */
	if (l->pending >= l->backlog || a->st.req_rcvd >= a->attr.max_req_rcvd ||
	    !(id = cm_id_alloc(a))) {
		rej_req(a, from, m, WQE_CM_REJ_NO_RESOURCES);
		return WQE_CM_RX_NO_RESOURCES;
	}
	id->listener = l;
	id->context = l->context;
	id->remote_id = q->local_comm_id;
	id->tid = m->hdr.tid; /* the passive side answers in the REQ's transaction */
	id->peer = *from;
	id->peer.qpn = WQE_GSI_QPN;
	id->service_id = q->service_id;
	id->transport = q->transport_type;
	id->remote_qpn = q->local_qpn;
	id->remote_psn = q->starting_psn;
	id->have_remote_qpn = 1;
	id->path_mtu = (enum wqe_mtu)q->path_mtu;
	id->local_gid = a->attr.local_gid;
	id->hop_limit = q->primary.hop_limit;
	id->traffic_class = q->primary.traffic_class;
	id->flow_label = q->primary.flow_label;
	id->sl = q->primary.sl;
	/* ib_cm's cm_format_paths_from_req(): the packet life time is the
	 * REQ's local ACK timeout less one. */
	id->packet_life_time =
	    (uint8_t)(q->primary.local_ack_timeout ? q->primary.local_ack_timeout - 1 : 0);
	id->ack_timeout = (uint8_t)(id->packet_life_time + 1);
	id->retry_count = q->retry_count;
	id->rnr_retry = q->rnr_retry_count;
	id->responder_resources = q->initiator_depth;
	id->initiator_depth = q->responder_resources;
	/* ib_cm: the REP waits the requester's own CM response time. */
	id->timeout_ns = wqe_cm_timeout_ns(q->local_cm_response_timeout);
	id->max_cm_retries = q->max_cm_retries;
	cm_set_state(id, WQE_CM_REQ_RCVD);
	cm_report(id, WQE_CM_EV_REQ_RECEIVED, m, from, 0, l);
	return WQE_CM_RX_OK;
}

static int rx_rep(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		  const struct wqe_cm_msg *m)
{
	const struct wqe_cm_rep *p = &m->u.rep;
	struct wqe_cm_id *id;
	uint32_t gen;
	int r = 0;

	id = named(a, p->remote_comm_id, from, &r);
	if (!id) {
		/* A REP for no REQ of ours: refused out loud (ib_cm drops it),
		 * so the sender stops waiting for an RTU. */
		if (r == WQE_CM_RX_UNKNOWN_ID)
			cm_send_rej(a, NULL, from, m->hdr.tid, 0, p->local_comm_id, WQE_CM_MSG_REP,
				    WQE_CM_REJ_INVALID_COMM_ID, NULL, 0, NULL, 0);
		return r;
	}
	if (!id->active)
		return WQE_CM_RX_BAD_STATE;
	if (id->rep_done) {
		if (id->remote_id != p->local_comm_id)
			return WQE_CM_RX_MISMATCH;
		/* ib_cm's cm_dup_rep_handler(): RTU again when established,
		 * MRA again when we sent one. */
		if ((id->state == WQE_CM_ESTABLISHED || id->state == WQE_CM_MRA_REP_SENT) &&
		    id->have_last)
			cm_send_raw(a, &id->peer, id->last);
		return WQE_CM_RX_DUPLICATE;
	}
	if (id->state != WQE_CM_REQ_SENT && id->state != WQE_CM_MRA_REQ_RCVD)
		return WQE_CM_RX_BAD_STATE;
	if (stale(a, from, p->local_qpn)) {
		/* ib_cm's cm_rep_handler(): the peer's QP is one we hold a
		 * connection with; the ID keeps waiting (its REQ resent). */
		cm_send_rej(a, NULL, from, m->hdr.tid, p->remote_comm_id, p->local_comm_id,
			    WQE_CM_MSG_REP, WQE_CM_REJ_STALE_CONN, NULL, 0, NULL, 0);
		return WQE_CM_RX_STALE;
	}
	cm_disarm(id);
	id->remote_id = p->local_comm_id;
	id->remote_qpn = p->local_qpn;
	/* ib_cm: the QP's ACK timeout now includes the peer's ACK delay. */
	id->ack_timeout = cm_ack_timeout(p->target_ack_delay, id->packet_life_time);
	id->remote_psn = p->starting_psn;
	id->have_remote_qpn = 1;
	id->rep_done = 1;
	id->rnr_retry = p->rnr_retry_count;
	/* ib_cm: what the REP grants is what the QP gets. */
	id->initiator_depth = p->responder_resources;
	id->responder_resources = p->initiator_depth;
	cm_set_state(id, WQE_CM_REP_RCVD);
	gen = id->gen;
	cm_report(id, WQE_CM_EV_REP_RECEIVED, m, from, 0, NULL);
	/* The RTU, unless the consumer rejected, sent an MRA or its own RTU,
	 * or destroyed the ID in the callback. */
	if (id->in_use && id->gen == gen && id->state == WQE_CM_REP_RCVD &&
	    (!id->manual_rtu || id->detached))
		(void)wqe_cm_rtu(id, NULL, 0);
	return WQE_CM_RX_OK;
}

static int rx_rtu(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		  const struct wqe_cm_msg *m)
{
	struct wqe_cm_id *id;
	int r = 0;

	id = named(a, m->u.rtu.remote_comm_id, from, &r);
	if (!id)
		return r; /* ib_cm drops an RTU it cannot place */
	if (id->remote_id != m->u.rtu.local_comm_id)
		return WQE_CM_RX_MISMATCH;
	if (id->state == WQE_CM_REP_SENT || id->state == WQE_CM_MRA_REP_RCVD) {
		cm_disarm(id);
		cm_set_state(id, WQE_CM_ESTABLISHED);
		cm_report(id, WQE_CM_EV_RTU_RECEIVED, m, from, 0, NULL);
		return WQE_CM_RX_OK;
	}
	return id->active || !id->rep_done ? WQE_CM_RX_BAD_STATE : WQE_CM_RX_DUPLICATE;
}

static int rx_mra(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		  const struct wqe_cm_msg *m)
{
	const struct wqe_cm_mra *p = &m->u.mra;
	struct wqe_cm_id *id;
	enum wqe_cm_state next;
	int r = 0;

	id = named(a, p->remote_comm_id, from, &r);
	if (!id)
		return r;
	if (p->msg_mraed == WQE_CM_MSG_REQ && id->state == WQE_CM_REQ_SENT)
		next = WQE_CM_MRA_REQ_RCVD;
	else if (p->msg_mraed == WQE_CM_MSG_REP && id->state == WQE_CM_REP_SENT &&
		 id->remote_id == p->local_comm_id)
		next = WQE_CM_MRA_REP_RCVD;
	else if ((p->msg_mraed == WQE_CM_MSG_REQ && id->state == WQE_CM_MRA_REQ_RCVD) ||
		 (p->msg_mraed == WQE_CM_MSG_REP && id->state == WQE_CM_MRA_REP_RCVD))
		return WQE_CM_RX_DUPLICATE;
	else
		return WQE_CM_RX_BAD_STATE;
	/* ib_cm's cm_mra_handler(): the wait becomes the service timeout
	 * plus the path's ACK timeout; the retries left stay. */
	id->timeout_ns = wqe_cm_timeout_ns(p->service_timeout) + wqe_cm_timeout_ns(id->ack_timeout);
	id->deadline_ns = cm_now(a) + id->timeout_ns;
	cm_set_state(id, next);
	cm_report(id, WQE_CM_EV_MRA_RECEIVED, m, from, 0, NULL);
	return WQE_CM_RX_OK;
}

static int rx_rej(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		  const struct wqe_cm_msg *m)
{
	const struct wqe_cm_rej *p = &m->u.rej;
	struct wqe_cm_id *id;
	int r = 0;

	if (p->remote_comm_id) {
		id = named(a, p->remote_comm_id, from, &r);
		if (!id)
			return r;
		if (id->remote_id && id->remote_id != p->local_comm_id)
			return WQE_CM_RX_MISMATCH;
	} else {
		/* A REJ of a REQ whose sender never learnt our ID (a Timeout
		 * REJ): found by the peer's ID, as cm_acquire_rejected_id(). */
		id = cm_find_remote(a, p->local_comm_id, &from->gid);
		if (!id)
			return WQE_CM_RX_UNKNOWN_ID;
	}
	/* ib_cm's cm_rej_handler(): before the REP, back to IDLE (a stale
	 * connection waits out TIMEWAIT); once the connection may exist on
	 * the wire (REP received, established, DREQ sent), TIMEWAIT. */
	switch (id->state) {
	case WQE_CM_REQ_SENT:
	case WQE_CM_MRA_REQ_RCVD:
	case WQE_CM_REP_SENT:
	case WQE_CM_MRA_REP_RCVD:
	case WQE_CM_REQ_RCVD:
	case WQE_CM_MRA_REQ_SENT:
		cm_disarm(id);
		if (p->reason == WQE_CM_REJ_STALE_CONN) {
			cm_enter_timewait(id);
			break;
		}
		cm_set_state(id, WQE_CM_IDLE);
		if (id->detached) {
			cm_id_free(id);
			return WQE_CM_RX_OK;
		}
		break;
	case WQE_CM_REP_RCVD:
	case WQE_CM_MRA_REP_SENT:
	case WQE_CM_ESTABLISHED:
	case WQE_CM_DREQ_SENT:
		cm_enter_timewait(id);
		break;
	default:
		return WQE_CM_RX_BAD_STATE;
	}
	cm_report(id, WQE_CM_EV_REJ_RECEIVED, m, from, p->reason, NULL);
	return WQE_CM_RX_OK;
}

static void drep_stateless(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
			   const struct wqe_cm_msg *m)
{
	struct wqe_cm_msg d;

	wqe_cm_msg_init(&d, WQE_CM_ATTR_DREP, m->hdr.tid);
	d.u.drep.local_comm_id = m->u.dreq.remote_comm_id;
	d.u.drep.remote_comm_id = m->u.dreq.local_comm_id;
	(void)cm_send_msg(a, from, &d, NULL);
}

static int rx_dreq(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		   const struct wqe_cm_msg *m)
{
	const struct wqe_cm_dreq *p = &m->u.dreq;
	struct wqe_cm_id *id;
	int r = 0;

	id = named(a, p->remote_comm_id, from, &r);
	if (!id) {
		/* ib_cm's cm_issue_drep(): a DREQ for an ID we no longer have
		 * still gets its DREP, so the peer can leave DREQ_SENT. */
		if (r == WQE_CM_RX_UNKNOWN_ID)
			drep_stateless(a, from, m);
		return r;
	}
	if (id->remote_id != p->local_comm_id || p->remote_qpn != id->local_qpn)
		return WQE_CM_RX_MISMATCH;
	switch (id->state) {
	case WQE_CM_IDLE:
		/* Past TIMEWAIT but not yet destroyed: the peer missed our
		 * DREP (its retry interval outlasts our TIMEWAIT); answer as
		 * for an ID we no longer have. */
		if (!id->rep_done)
			return WQE_CM_RX_BAD_STATE;
		drep_stateless(a, from, m);
		return WQE_CM_RX_DUPLICATE;
	case WQE_CM_REP_SENT:
	case WQE_CM_MRA_REP_RCVD:
	case WQE_CM_ESTABLISHED:
	case WQE_CM_DREQ_SENT:
		break;
	case WQE_CM_TIMEWAIT:
		if (id->have_last)
			cm_send_raw(a, &id->peer, id->last); /* the DREP again */
		return WQE_CM_RX_DUPLICATE;
	case WQE_CM_DREQ_RCVD:
		return WQE_CM_RX_DUPLICATE;
	default:
		return WQE_CM_RX_BAD_STATE;
	}
	cm_disarm(id);
	cm_set_state(id, WQE_CM_DREQ_RCVD);
	if (id->detached)
		(void)wqe_cm_drep(id, NULL, 0);
	else
		cm_report(id, WQE_CM_EV_DREQ_RECEIVED, m, from, 0, NULL);
	return WQE_CM_RX_OK;
}

static int rx_drep(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		   const struct wqe_cm_msg *m)
{
	struct wqe_cm_id *id;
	int r = 0;

	id = named(a, m->u.drep.remote_comm_id, from, &r);
	if (!id)
		return r;
	if (id->remote_id != m->u.drep.local_comm_id)
		return WQE_CM_RX_MISMATCH;
	if (id->state == WQE_CM_TIMEWAIT)
		return WQE_CM_RX_DUPLICATE;
	/* ib_cm's cm_drep_handler(): DREQ_SENT, or DREQ_RCVD when both sides
	 * disconnected at once and the peer's DREP beat ours. */
	if (id->state != WQE_CM_DREQ_SENT && id->state != WQE_CM_DREQ_RCVD)
		return WQE_CM_RX_BAD_STATE;
	cm_enter_timewait(id);
	cm_report(id, WQE_CM_EV_DREP_RECEIVED, m, from, 0, NULL);
	return WQE_CM_RX_OK;
}

static void sidr_refuse(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
			const struct wqe_cm_msg *m, uint8_t status)
{
	struct wqe_cm_msg d;

	wqe_cm_msg_init(&d, WQE_CM_ATTR_SIDR_REP, m->hdr.tid);
	d.u.sidr_rep.request_id = m->u.sidr_req.request_id;
	d.u.sidr_rep.status = status;
	d.u.sidr_rep.service_id = m->u.sidr_req.service_id;
	(void)cm_send_msg(a, from, &d, NULL);
}

static int rx_sidr_req(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		       const struct wqe_cm_msg *m)
{
	const struct wqe_cm_sidr_req *q = &m->u.sidr_req;
	struct wqe_cm_id *id, *l;

	id = cm_find_remote(a, q->request_id, &from->gid);
	if (id && !id->active && id->state == WQE_CM_SIDR_REQ_RCVD)
		return WQE_CM_RX_DUPLICATE; /* ib_cm: cm_insert_remote_sidr() found it */
	l = find_listener(a, q->service_id);
	if (!l) {
		sidr_refuse(a, from, m, WQE_CM_SIDR_UNSUPPORTED);
		return WQE_CM_RX_NO_LISTENER;
	}
	if (!(id = cm_id_alloc(a))) {
		sidr_refuse(a, from, m, WQE_CM_SIDR_REJECT);
		return WQE_CM_RX_NO_RESOURCES;
	}
	id->listener = l;
	id->context = l->context;
	id->remote_id = q->request_id;
	id->tid = m->hdr.tid;
	id->peer = *from;
	id->peer.qpn = WQE_GSI_QPN;
	id->service_id = q->service_id;
	cm_set_state(id, WQE_CM_SIDR_REQ_RCVD);
	cm_report(id, WQE_CM_EV_SIDR_REQ_RECEIVED, m, from, 0, l);
	return WQE_CM_RX_OK;
}

static int rx_sidr_rep(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		       const struct wqe_cm_msg *m)
{
	struct wqe_cm_id *id;
	int r = 0;

	id = named(a, m->u.sidr_rep.request_id, from, &r);
	if (!id)
		return r;
	if (id->state != WQE_CM_SIDR_REQ_SENT)
		return id->active && id->state == WQE_CM_IDLE ? WQE_CM_RX_DUPLICATE
							      : WQE_CM_RX_BAD_STATE;
	cm_disarm(id);
	cm_set_state(id, WQE_CM_IDLE);
	if (id->detached)
		cm_id_free(id);
	else
		cm_report(id, WQE_CM_EV_SIDR_REP_RECEIVED, m, from, m->u.sidr_rep.status, NULL);
	return WQE_CM_RX_OK;
}

int cm_rx_dispatch(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		   const struct wqe_cm_msg *m)
{
	switch (m->hdr.attr_id) {
	case WQE_CM_ATTR_REQ:
		return rx_req(a, from, m);
	case WQE_CM_ATTR_MRA:
		return rx_mra(a, from, m);
	case WQE_CM_ATTR_REJ:
		return rx_rej(a, from, m);
	case WQE_CM_ATTR_REP:
		return rx_rep(a, from, m);
	case WQE_CM_ATTR_RTU:
		return rx_rtu(a, from, m);
	case WQE_CM_ATTR_DREQ:
		return rx_dreq(a, from, m);
	case WQE_CM_ATTR_DREP:
		return rx_drep(a, from, m);
	case WQE_CM_ATTR_SIDR_REQ:
		return rx_sidr_req(a, from, m);
	case WQE_CM_ATTR_SIDR_REP:
		return rx_sidr_rep(a, from, m);
	default:
		return WQE_CM_RX_MALFORMED; /* the decoder carries no other */
	}
}
