/* SPDX-License-Identifier: MIT */
/*
 * agent_api.c - the consumer's calls on CM IDs (wqe/cm.h): listen,
 * connect, accept, reject, MRA, RTU, disconnect, DREP, SIDR, destroy, and
 * the QP attributes the exchange agreed (ib_cm_init_qp_attr()).
 */
#include <errno.h>
#include <string.h>

#include "cm/agent_int.h"

static int pdata_ok(const void *pd, size_t len, size_t max)
{
	return len <= max && (pd || !len);
}

static void put_guid(uint8_t *b, uint64_t g)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(g >> (56 - 8 * i));
}

struct wqe_cm_id *wqe_cm_listen(struct wqe_cm_agent *a, uint64_t service_id, uint32_t backlog,
				void *context)
{
	struct wqe_cm_id *id;

	if (!a) {
		errno = EINVAL;
		return NULL;
	}
	for (uint32_t i = 0; i < a->attr.max_ids; i++)
		if (a->ids[i].in_use && a->ids[i].state == WQE_CM_LISTEN &&
		    a->ids[i].service_id == service_id) {
			errno = EINVAL;
			return NULL;
		}
	id = cm_id_alloc(a);
	if (!id) {
		errno = ENOSPC;
		return NULL;
	}
	id->service_id = service_id;
	id->backlog = backlog ? backlog : a->attr.max_req_rcvd;
	id->context = context;
	cm_set_state(id, WQE_CM_LISTEN);
	return id;
}

/* A new ID on the active side (REQ or SIDR_REQ) towards @peer's GSI QP
 * (the default P_Key if it names none), or NULL with errno ENOSPC. */
static struct wqe_cm_id *active_id_alloc(struct wqe_cm_agent *a, const struct wqe_cm_addr *peer,
					 uint64_t service_id, void *context)
{
	struct wqe_cm_id *id = cm_id_alloc(a);

	if (!id) {
		errno = ENOSPC;
		return NULL;
	}
	id->active = 1;
	id->context = context;
	id->peer = *peer;
	id->peer.qpn = WQE_GSI_QPN;
	if (!id->peer.pkey)
		id->peer.pkey = WQE_DEFAULT_PKEY;
	id->service_id = service_id;
	return id;
}

static int conn_param_ok(const struct wqe_cm_conn_param *p)
{
	return (p->transport == WQE_CM_TRANSPORT_RC || p->transport == WQE_CM_TRANSPORT_UC) &&
	       p->local_qpn <= 0xffffff && p->local_qpn > 1 && p->starting_psn <= 0xffffff &&
	       p->path_mtu >= WQE_MTU_256 && p->path_mtu <= WQE_MTU_4096 &&
	       p->packet_life_time <= 30 && p->remote_cm_response_timeout <= 31 &&
	       p->local_cm_response_timeout <= 31 && p->max_cm_retries <= 15 &&
	       p->retry_count <= 7 && p->rnr_retry_count <= 7 && p->min_rnr_timer <= 31 &&
	       p->flow_label <= 0xfffff && p->sl <= 15 && p->srq <= 1 && p->e2e_flow_control <= 1 &&
	       pdata_ok(p->private_data, p->private_data_len, WQE_CM_REQ_PDATA_LEN);
}

static int gid_zero(const union wqe_gid *g)
{
	static const union wqe_gid z;

	return memcmp(g->raw, z.raw, 16) == 0;
}

struct wqe_cm_id *wqe_cm_connect(struct wqe_cm_agent *a, const struct wqe_cm_conn_param *p,
				 void *context)
{
	struct wqe_cm_id *id;
	struct wqe_cm_msg m;
	struct wqe_cm_req *r = &m.u.req;

	if (!a || !p || !conn_param_ok(p)) {
		errno = EINVAL;
		return NULL;
	}
	id = active_id_alloc(a, &p->peer, p->service_id, context);
	if (!id)
		return NULL;
	id->manual_rtu = p->manual_rtu;
	id->transport = p->transport;
	id->local_qpn = p->local_qpn;
	id->local_psn = p->starting_psn;
	id->path_mtu = p->path_mtu;
	id->local_gid = gid_zero(&p->local_gid) ? a->attr.local_gid : p->local_gid;
	id->hop_limit = p->hop_limit;
	id->traffic_class = p->traffic_class;
	id->flow_label = p->flow_label;
	id->sl = p->sl;
	id->packet_life_time = p->packet_life_time;
	id->ack_timeout = (uint8_t)(p->packet_life_time + 1); /* ib_cm's av.timeout */
	id->retry_count = p->retry_count;
	id->min_rnr_timer = p->min_rnr_timer;
	id->responder_resources = p->responder_resources;
	id->initiator_depth = p->initiator_depth;
	id->max_cm_retries = p->max_cm_retries;

	cm_msg_init(id, &m, WQE_CM_ATTR_REQ);
	r->local_comm_id = id->local_id;
	r->service_id = p->service_id;
	r->local_ca_guid = a->attr.ca_guid;
	r->local_qkey = p->qkey;
	r->local_qpn = p->local_qpn;
	r->responder_resources = p->responder_resources;
	r->initiator_depth = p->initiator_depth;
	r->remote_cm_response_timeout = p->remote_cm_response_timeout;
	r->transport_type = p->transport;
	r->starting_psn = p->starting_psn;
	r->local_cm_response_timeout = p->local_cm_response_timeout;
	r->retry_count = p->retry_count;
	r->pkey = id->peer.pkey;
	r->path_mtu = (uint8_t)p->path_mtu;
	r->rnr_retry_count = p->rnr_retry_count;
	r->max_cm_retries = p->max_cm_retries;
	r->srq = p->srq;
	r->e2e_flow_control = p->e2e_flow_control;
	/* RoCE paths carry the permissive LID (as ib_cm's cm_format_req()
	 * does for them); subnet local when the route has no router hop. */
	r->primary.local_lid = r->primary.remote_lid = 0xffff;
	r->primary.local_gid = id->local_gid;
	r->primary.remote_gid = id->peer.gid;
	r->primary.flow_label = p->flow_label;
	r->primary.traffic_class = p->traffic_class;
	r->primary.hop_limit = p->hop_limit;
	r->primary.sl = p->sl;
	r->primary.subnet_local = p->hop_limit <= 1;
	r->primary.local_ack_timeout = cm_ack_timeout(0, p->packet_life_time);
	if (p->private_data_len)
		memcpy(r->private_data, p->private_data, p->private_data_len);
	cm_set_state(id, WQE_CM_REQ_SENT);
	(void)cm_send_msg(a, &id->peer, &m, id->mad);
	/* ib_cm: twice the packet life time plus the peer's response time. */
	cm_arm(id,
	       2 * wqe_cm_timeout_ns(p->packet_life_time) +
		   wqe_cm_timeout_ns(p->remote_cm_response_timeout),
	       p->max_cm_retries);
	return id;
}

int wqe_cm_accept(struct wqe_cm_id *id, const struct wqe_cm_accept_param *p)
{
	struct wqe_cm_msg m;
	struct wqe_cm_rep *r = &m.u.rep;

	if (!id || !p || (id->state != WQE_CM_REQ_RCVD && id->state != WQE_CM_MRA_REQ_SENT) ||
	    p->local_qpn > 0xffffff || p->local_qpn <= 1 || p->starting_psn > 0xffffff ||
	    p->target_ack_delay > 31 || p->rnr_retry_count > 7 || p->min_rnr_timer > 31 ||
	    p->srq > 1 || p->e2e_flow_control > 1 ||
	    !pdata_ok(p->private_data, p->private_data_len, WQE_CM_REP_PDATA_LEN))
		return EINVAL;
	id->local_qpn = p->local_qpn;
	id->local_psn = p->starting_psn;
	id->responder_resources = p->responder_resources;
	id->initiator_depth = p->initiator_depth;
	id->min_rnr_timer = p->min_rnr_timer;
	cm_msg_init(id, &m, WQE_CM_ATTR_REP);
	r->local_comm_id = id->local_id;
	r->remote_comm_id = id->remote_id;
	r->local_qkey = p->qkey;
	r->local_qpn = p->local_qpn;
	r->starting_psn = p->starting_psn;
	r->responder_resources = p->responder_resources;
	r->initiator_depth = p->initiator_depth;
	r->target_ack_delay = p->target_ack_delay;
	r->rnr_retry_count = p->rnr_retry_count;
	r->srq = p->srq;
	r->e2e_flow_control = p->e2e_flow_control;
	r->local_ca_guid = id->agent->attr.ca_guid;
	if (p->private_data_len)
		memcpy(r->private_data, p->private_data, p->private_data_len);
	id->rep_done = 1;
	id->have_last = 0;
	cm_set_state(id, WQE_CM_REP_SENT);
	(void)cm_send_msg(id->agent, &id->peer, &m, id->mad);
	cm_arm(id, id->timeout_ns, id->max_cm_retries);
	return 0;
}

int wqe_cm_reject(struct wqe_cm_id *id, uint16_t reason, const void *ari, size_t ari_len,
		  const void *pd, size_t pd_len)
{
	uint8_t which;

	if (!id || !reason || reason > WQE_CM_REJ_REASON_MAX ||
	    !pdata_ok(ari, ari_len, WQE_CM_ARI_LEN) || !pdata_ok(pd, pd_len, WQE_CM_REJ_PDATA_LEN))
		return EINVAL;
	/* ib_cm's cm_send_rej_locked() and cm_format_rej(). */
	switch (id->state) {
	case WQE_CM_REQ_RCVD:
	case WQE_CM_MRA_REQ_SENT:
		which = WQE_CM_MSG_REQ;
		break;
	case WQE_CM_REP_RCVD:
	case WQE_CM_MRA_REP_SENT:
		which = WQE_CM_MSG_REP;
		break;
	case WQE_CM_REQ_SENT:
	case WQE_CM_MRA_REQ_RCVD:
	case WQE_CM_REP_SENT:
	case WQE_CM_MRA_REP_RCVD:
		which = WQE_CM_MSG_OTHER;
		break;
	default:
		return EINVAL;
	}
	cm_send_rej(id->agent, id, &id->peer, 0, 0, 0, which, reason, ari, ari_len, pd, pd_len);
	cm_disarm(id);
	if (id->state == WQE_CM_REP_SENT || id->state == WQE_CM_MRA_REP_RCVD)
		cm_enter_timewait(id); /* our REP may have made the connection */
	else
		cm_set_state(id, WQE_CM_IDLE);
	return 0;
}

int wqe_cm_mra(struct wqe_cm_id *id, uint8_t service_timeout, const void *pd, size_t pd_len)
{
	struct wqe_cm_msg m;
	enum wqe_cm_state next;

	if (!id || service_timeout > 31 || !pdata_ok(pd, pd_len, WQE_CM_MRA_PDATA_LEN))
		return EINVAL;
	if (id->state == WQE_CM_REQ_RCVD)
		next = WQE_CM_MRA_REQ_SENT;
	else if (id->state == WQE_CM_REP_RCVD)
		next = WQE_CM_MRA_REP_SENT;
	else
		return EINVAL;
	cm_msg_init(id, &m, WQE_CM_ATTR_MRA);
	m.u.mra.local_comm_id = id->local_id;
	m.u.mra.remote_comm_id = id->remote_id;
	m.u.mra.msg_mraed = next == WQE_CM_MRA_REQ_SENT ? WQE_CM_MSG_REQ : WQE_CM_MSG_REP;
	m.u.mra.service_timeout = service_timeout;
	if (pd_len)
		memcpy(m.u.mra.private_data, pd, pd_len);
	cm_set_state(id, next);
	(void)cm_send_msg(id->agent, &id->peer, &m, id->last);
	id->have_last = 1;
	return 0;
}

int wqe_cm_rtu(struct wqe_cm_id *id, const void *pd, size_t pd_len)
{
	struct wqe_cm_msg m;

	if (!id || (id->state != WQE_CM_REP_RCVD && id->state != WQE_CM_MRA_REP_SENT) ||
	    !pdata_ok(pd, pd_len, WQE_CM_RTU_PDATA_LEN))
		return EINVAL;
	cm_msg_init(id, &m, WQE_CM_ATTR_RTU);
	m.u.rtu.local_comm_id = id->local_id;
	m.u.rtu.remote_comm_id = id->remote_id;
	if (pd_len)
		memcpy(m.u.rtu.private_data, pd, pd_len);
	cm_set_state(id, WQE_CM_ESTABLISHED);
	(void)cm_send_msg(id->agent, &id->peer, &m, id->last);
	id->have_last = 1; /* replayed for a duplicate REP */
	return 0;
}

int wqe_cm_established(struct wqe_cm_id *id)
{
	if (!id || (id->state != WQE_CM_REP_SENT && id->state != WQE_CM_MRA_REP_RCVD))
		return EINVAL;
	cm_disarm(id);
	cm_set_state(id, WQE_CM_ESTABLISHED);
	return 0;
}

static void send_dreq(struct wqe_cm_id *id, const void *pd, size_t pd_len)
{
	struct wqe_cm_msg m;

	cm_msg_init(id, &m, WQE_CM_ATTR_DREQ);
	m.u.dreq.local_comm_id = id->local_id;
	m.u.dreq.remote_comm_id = id->remote_id;
	m.u.dreq.remote_qpn = id->remote_qpn;
	if (pd_len)
		memcpy(m.u.dreq.private_data, pd, pd_len);
	cm_set_state(id, WQE_CM_DREQ_SENT);
	(void)cm_send_msg(id->agent, &id->peer, &m, id->mad);
	cm_arm(id, id->timeout_ns, id->max_cm_retries);
}

int wqe_cm_drep(struct wqe_cm_id *id, const void *pd, size_t pd_len)
{
	struct wqe_cm_msg m;

	if (!id || id->state != WQE_CM_DREQ_RCVD || !pdata_ok(pd, pd_len, WQE_CM_DREP_PDATA_LEN))
		return EINVAL;
	cm_msg_init(id, &m, WQE_CM_ATTR_DREP);
	m.u.drep.local_comm_id = id->local_id;
	m.u.drep.remote_comm_id = id->remote_id;
	if (pd_len)
		memcpy(m.u.drep.private_data, pd, pd_len);
	(void)cm_send_msg(id->agent, &id->peer, &m, id->last);
	id->have_last = 1; /* replayed for a duplicate DREQ */
	cm_enter_timewait(id);
	return 0;
}

int wqe_cm_disconnect(struct wqe_cm_id *id, const void *pd, size_t pd_len)
{
	if (!id)
		return EINVAL;
	if (id->state == WQE_CM_DREQ_RCVD)
		return wqe_cm_drep(id, pd, pd_len);
	if (id->state != WQE_CM_ESTABLISHED || !pdata_ok(pd, pd_len, WQE_CM_DREQ_PDATA_LEN))
		return EINVAL;
	id->have_last = 0;
	send_dreq(id, pd, pd_len);
	return 0;
}

struct wqe_cm_id *wqe_cm_sidr_req(struct wqe_cm_agent *a, const struct wqe_cm_sidr_param *p,
				  void *context)
{
	struct wqe_cm_id *id;
	struct wqe_cm_msg m;

	if (!a || !p || p->timeout > 31 || p->max_cm_retries > 15 ||
	    !pdata_ok(p->private_data, p->private_data_len, WQE_CM_SIDR_REQ_PDATA_LEN)) {
		errno = EINVAL;
		return NULL;
	}
	id = active_id_alloc(a, &p->peer, p->service_id, context);
	if (!id)
		return NULL;
	cm_msg_init(id, &m, WQE_CM_ATTR_SIDR_REQ);
	m.u.sidr_req.request_id = id->local_id;
	m.u.sidr_req.pkey = id->peer.pkey;
	m.u.sidr_req.service_id = p->service_id;
	if (p->private_data_len)
		memcpy(m.u.sidr_req.private_data, p->private_data, p->private_data_len);
	cm_set_state(id, WQE_CM_SIDR_REQ_SENT);
	(void)cm_send_msg(a, &id->peer, &m, id->mad);
	cm_arm(id, wqe_cm_timeout_ns(p->timeout), p->max_cm_retries);
	return id;
}

static void send_sidr_rep(struct wqe_cm_id *id, uint8_t status, uint32_t qpn, uint32_t qkey,
			  const void *pd, size_t pd_len)
{
	struct wqe_cm_msg m;

	cm_msg_init(id, &m, WQE_CM_ATTR_SIDR_REP);
	m.u.sidr_rep.request_id = id->remote_id;
	m.u.sidr_rep.status = status;
	m.u.sidr_rep.qpn = qpn;
	m.u.sidr_rep.qkey = qkey;
	m.u.sidr_rep.service_id = id->service_id;
	if (pd_len)
		memcpy(m.u.sidr_rep.private_data, pd, pd_len);
	(void)cm_send_msg(id->agent, &id->peer, &m, NULL);
	cm_set_state(id, WQE_CM_IDLE);
}

int wqe_cm_sidr_rep(struct wqe_cm_id *id, uint8_t status, uint32_t qpn, uint32_t qkey,
		    const void *pd, size_t pd_len)
{
	if (!id || id->state != WQE_CM_SIDR_REQ_RCVD || status > WQE_CM_SIDR_STATUS_MAX ||
	    qpn > 0xffffff || !pdata_ok(pd, pd_len, WQE_CM_SIDR_REP_PDATA_LEN))
		return EINVAL;
	send_sidr_rep(id, status, qpn, qkey, pd, pd_len);
	return 0;
}

int wqe_cm_destroy_id(struct wqe_cm_id *id)
{
	struct wqe_cm_agent *a;
	uint8_t guid[8];

	if (!id || !id->in_use || id->detached)
		return EINVAL;
	a = id->agent;
	put_guid(guid, a->attr.ca_guid);
	id->detached = 1;
	/* ib_cm's cm_destroy_id(): each state's last word to the peer. */
	switch (id->state) {
	case WQE_CM_REQ_SENT:
	case WQE_CM_MRA_REQ_RCVD:
		cm_send_rej(a, id, &id->peer, 0, 0, 0, WQE_CM_MSG_REQ, WQE_CM_REJ_TIMEOUT, guid,
			    sizeof(guid), NULL, 0);
		break;
	case WQE_CM_REQ_RCVD:
	case WQE_CM_MRA_REQ_SENT:
		cm_send_rej(a, id, &id->peer, 0, 0, 0, WQE_CM_MSG_REQ, WQE_CM_REJ_CONSUMER_DEFINED,
			    NULL, 0, NULL, 0);
		break;
	case WQE_CM_REP_RCVD:
	case WQE_CM_MRA_REP_SENT:
		cm_send_rej(a, id, &id->peer, 0, 0, 0, WQE_CM_MSG_REP, WQE_CM_REJ_CONSUMER_DEFINED,
			    NULL, 0, NULL, 0);
		break;
	case WQE_CM_REP_SENT:
	case WQE_CM_MRA_REP_RCVD:
		/* our REP may have made the connection: TIMEWAIT, as
		 * cm_send_rej_locked() */
		cm_send_rej(a, id, &id->peer, 0, 0, 0, WQE_CM_MSG_OTHER,
			    WQE_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		cm_enter_timewait(id);
		return 0;
	case WQE_CM_SIDR_REQ_RCVD:
		send_sidr_rep(id, WQE_CM_SIDR_REJECT, 0, 0, NULL, 0);
		break;
	case WQE_CM_ESTABLISHED:
		send_dreq(id, NULL, 0);
		cm_enter_timewait(id);
		return 0;
	case WQE_CM_DREQ_SENT:
		cm_enter_timewait(id);
		return 0;
	case WQE_CM_DREQ_RCVD:
		(void)wqe_cm_drep(id, NULL, 0);
		return 0;
	case WQE_CM_TIMEWAIT:
		return 0; /* freed when it ends */
	default:
		break;
	}
	cm_id_free(id);
	return 0;
}

int wqe_cm_qp_attr(const struct wqe_cm_id *id, enum wqe_qp_state state, struct wqe_qp_attr *attr,
		   int *mask)
{
	enum wqe_cm_state s;
	int ok;

	if (!id || !attr || !mask)
		return EINVAL;
	s = id->state;
	switch (state) {
	case WQE_QPS_INIT:
		ok = s != WQE_CM_IDLE && s != WQE_CM_LISTEN && s != WQE_CM_TIMEWAIT &&
		     s != WQE_CM_SIDR_REQ_SENT && s != WQE_CM_SIDR_REQ_RCVD;
		break;
	case WQE_QPS_RTR:
		ok =
		    id->have_remote_qpn &&
		    (s == WQE_CM_REQ_RCVD || s == WQE_CM_MRA_REQ_SENT || s == WQE_CM_REP_SENT ||
		     s == WQE_CM_MRA_REP_RCVD || s == WQE_CM_REP_RCVD || s == WQE_CM_MRA_REP_SENT ||
		     s == WQE_CM_ESTABLISHED || s == WQE_CM_DREQ_SENT || s == WQE_CM_DREQ_RCVD);
		break;
	case WQE_QPS_RTS:
		ok = id->rep_done &&
		     (s == WQE_CM_REP_SENT || s == WQE_CM_MRA_REP_RCVD || s == WQE_CM_REP_RCVD ||
		      s == WQE_CM_MRA_REP_SENT || s == WQE_CM_ESTABLISHED ||
		      s == WQE_CM_DREQ_SENT || s == WQE_CM_DREQ_RCVD);
		break;
	default:
		ok = 0;
	}
	if (!ok)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = state;
	*mask = WQE_QP_STATE;
	if (state == WQE_QPS_INIT) {
		attr->port_num = 1;
		attr->pkey_index = 0;
		attr->qp_access_flags = WQE_ACCESS_REMOTE_WRITE;
		if (id->responder_resources && id->transport == WQE_CM_TRANSPORT_RC)
			attr->qp_access_flags |= WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;
		*mask |= WQE_QP_PORT | WQE_QP_PKEY_INDEX | WQE_QP_ACCESS_FLAGS;
	} else if (state == WQE_QPS_RTR) {
		attr->ah_attr.port_num = 1;
		attr->ah_attr.sl = id->sl;
		attr->ah_attr.grh.dgid = id->peer.gid;
		attr->ah_attr.grh.hop_limit = id->hop_limit;
		attr->ah_attr.grh.traffic_class = id->traffic_class;
		attr->ah_attr.grh.flow_label = id->flow_label;
		attr->path_mtu = id->path_mtu;
		attr->dest_qp_num = id->remote_qpn;
		/* as ib_cm: the starting PSN a side sends is the one its
		 * receive queue expects (ib_send_cm_req()/_rep() set rq_psn
		 * from it), and the peer's is where its send queue starts */
		attr->rq_psn = id->local_psn;
		*mask |= WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN;
		if (id->transport == WQE_CM_TRANSPORT_RC) {
			attr->max_dest_rd_atomic =
			    id->responder_resources > 16 ? 16 : id->responder_resources;
			attr->min_rnr_timer = id->min_rnr_timer;
			*mask |= WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER;
		}
	} else {
		attr->sq_psn = id->remote_psn;
		*mask |= WQE_QP_SQ_PSN;
		if (id->transport == WQE_CM_TRANSPORT_RC) {
			attr->timeout = id->ack_timeout;
			attr->retry_cnt = id->retry_count;
			attr->rnr_retry = id->rnr_retry;
			attr->max_rd_atomic = id->initiator_depth > 16 ? 16 : id->initiator_depth;
			*mask |= WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT | WQE_QP_RNR_RETRY |
				 WQE_QP_MAX_QP_RD_ATOMIC;
		}
	}
	return 0;
}
