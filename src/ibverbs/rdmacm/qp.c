/* SPDX-License-Identifier: MIT */
/*
 * QPs on IDs: rdma_create_qp() (with the CQs and channels librdmacm makes
 * when the program gives none), the state changes each step of the
 * exchange makes, from wqe_cm_qp_attr() as the kernel's from
 * ib_cm_init_qp_attr(), SRQs, and rdma_create_ep().
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_verbs.h> /* rdma_create_srq(), rdma_create_srq_ex(), rdma_destroy_srq() */

#include "ibverbs/rdmacm/ucm_int.h"

/* The attributes that take @u's QP to @st. Under ucm_lock. 0 or an errno. */
int ucm_qp_attr(struct ucm_id *u, enum ibv_qp_state st, struct ibv_qp_attr *a, int *mask)
{
	struct wqe_qp_attr w;
	int m = 0;

	memset(a, 0, sizeof(*a));
	a->qp_state = st;
	if (u->id.qp_type == IBV_QPT_UD) {
		/* cma_ib_init_qp_attr() for UD, then rdma-core's RTR and RTS */
		switch (st) {
		case IBV_QPS_INIT:
			a->port_num = 1;
			a->qkey = UCM_UDP_QKEY;
			*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
			return 0;
		case IBV_QPS_RTR:
			*mask = IBV_QP_STATE;
			return 0;
		case IBV_QPS_RTS:
			*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
			return 0;
		default:
			return EINVAL;
		}
	}
	if (!u->cm) {
		/* before any exchange: INIT with no remote access, as the
		 * kernel's cma_ib_init_qp_attr() */
		if (st != IBV_QPS_INIT)
			return EINVAL;
		a->port_num = 1;
		*mask = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		return 0;
	}
	if (wqe_cm_qp_attr(u->cm, (enum wqe_qp_state)st, &w, &m))
		return EINVAL;
	/* wqe's attribute bits and values are libibverbs' */
	a->path_mtu = (enum ibv_mtu)w.path_mtu;
	a->qkey = w.qkey;
	/* rdma_init_qp_attr() sets RTR's rq_psn to the ID's own sequence
	 * number: the passive side goes to RTR before its REP (and its
	 * starting PSN) exists */
	a->rq_psn = st == IBV_QPS_RTR ? u->seq_num : w.rq_psn;
	a->sq_psn = w.sq_psn;
	a->dest_qp_num = w.dest_qp_num;
	a->qp_access_flags = (unsigned)w.qp_access_flags;
	a->pkey_index = w.pkey_index;
	a->port_num = w.port_num;
	a->max_rd_atomic = w.max_rd_atomic;
	a->max_dest_rd_atomic = w.max_dest_rd_atomic;
	a->min_rnr_timer = w.min_rnr_timer;
	a->timeout = w.timeout;
	a->retry_cnt = w.retry_cnt;
	a->rnr_retry = w.rnr_retry;
	if (m & IBV_QP_AV) {
		a->ah_attr.is_global = 1;
		memcpy(a->ah_attr.grh.dgid.raw, w.ah_attr.grh.dgid.raw, 16);
		a->ah_attr.grh.flow_label = w.ah_attr.grh.flow_label;
		a->ah_attr.grh.sgid_index = w.ah_attr.grh.sgid_index;
		a->ah_attr.grh.hop_limit = w.ah_attr.grh.hop_limit;
		a->ah_attr.grh.traffic_class = w.ah_attr.grh.traffic_class;
		a->ah_attr.sl = w.ah_attr.sl;
		a->ah_attr.port_num = 1;
	}
	if (st == IBV_QPS_RTS && u->ack_timeout_set && (m & IBV_QP_TIMEOUT))
		a->timeout = u->ack_timeout;
	*mask = m;
	return 0;
}

/* Takes @u's QP to RTR (through INIT again, for the access the exchange
 * settled, as librdmacm) or RTS; @limit overrides max_dest_rd_atomic or
 * max_rd_atomic unless RDMA_MAX_RESP_RES. Under ucm_lock. 0 or an errno;
 * 0 with no QP. */
int ucm_qp_to(struct ucm_id *u, enum ibv_qp_state st, uint8_t limit)
{
	struct ibv_qp_attr a;
	int mask, err;

	if (!u->id.qp)
		return 0;
	if (st == IBV_QPS_RTR) {
		if ((err = ucm_qp_attr(u, IBV_QPS_INIT, &a, &mask)) ||
		    (err = ibv_modify_qp(u->id.qp, &a, mask)))
			return err;
	}
	if ((err = ucm_qp_attr(u, st, &a, &mask)))
		return err;
	if (limit != RDMA_MAX_RESP_RES) {
		if (st == IBV_QPS_RTR)
			a.max_dest_rd_atomic = limit;
		else
			a.max_rd_atomic = limit;
	}
	return ibv_modify_qp(u->id.qp, &a, mask);
}

int ucm_qp_err(struct ucm_id *u)
{
	struct ibv_qp_attr a;

	if (!u->id.qp)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	return ibv_modify_qp(u->id.qp, &a, IBV_QP_STATE);
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	int err;

	if (!id || !qp_attr || !qp_attr_mask)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	err = ucm_qp_attr(ucm_of(id), qp_attr->qp_state, qp_attr, qp_attr_mask);
	pthread_mutex_unlock(&ucm_lock);
	return err ? ucm_err(err) : 0;
}

static void destroy_cqs(struct rdma_cm_id *id)
{
	if (id->recv_cq) {
		ibv_destroy_cq(id->recv_cq);
		if (id->send_cq && id->send_cq != id->recv_cq)
			ibv_destroy_cq(id->send_cq);
	} else if (id->send_cq) {
		ibv_destroy_cq(id->send_cq);
	}
	id->recv_cq = id->send_cq = NULL;
	if (id->recv_cq_channel) {
		ibv_destroy_comp_channel(id->recv_cq_channel);
		if (id->send_cq_channel && id->send_cq_channel != id->recv_cq_channel)
			ibv_destroy_comp_channel(id->send_cq_channel);
	} else if (id->send_cq_channel) {
		ibv_destroy_comp_channel(id->send_cq_channel);
	}
	id->recv_cq_channel = id->send_cq_channel = NULL;
}

/* As librdmacm: a CQ on a channel of its own for each queue the program
 * gave no CQ for (what rdma_get_send_comp() and rdma_get_recv_comp() wait on). */
static int create_cqs(struct rdma_cm_id *id, uint32_t send_size, uint32_t recv_size)
{
	if (recv_size) {
		if (!(id->recv_cq_channel = ibv_create_comp_channel(id->verbs)) ||
		    !(id->recv_cq = ibv_create_cq(id->verbs, (int)recv_size, id, id->recv_cq_channel,
						  0)))
			goto err;
	}
	if (send_size) {
		if (!(id->send_cq_channel = ibv_create_comp_channel(id->verbs)) ||
		    !(id->send_cq = ibv_create_cq(id->verbs, (int)send_size, id, id->send_cq_channel,
						  0)))
			goto err;
	}
	return 0;
err:
	destroy_cqs(id);
	return -1;
}

int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct ucm_id *u = ucm_of(id);
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	int mask, err = 0;

	if (!id || !attr || id->qp || !id->verbs)
		return ucm_err(EINVAL);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
		attr->pd = id->pd;
	} else if (attr->pd->context != id->verbs) {
		return ucm_err(EINVAL);
	}
	if ((id->recv_cq && attr->recv_cq && id->recv_cq != attr->recv_cq) ||
	    (id->send_cq && attr->send_cq && id->send_cq != attr->send_cq))
		return ucm_err(EINVAL);
	if (attr->qp_type != id->qp_type &&
	    !(id->qp_type == IBV_QPT_RC && attr->qp_type == IBV_QPT_UC && id->ps == RDMA_PS_IB))
		return ucm_err(EINVAL);
	if (create_cqs(id, attr->send_cq || id->send_cq ? 0 : attr->cap.max_send_wr,
		       attr->recv_cq || id->recv_cq ? 0 : attr->cap.max_recv_wr))
		return -1;
	if (!attr->send_cq)
		attr->send_cq = id->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = id->recv_cq;
	if (id->srq && !attr->srq)
		attr->srq = id->srq;
	qp = ibv_create_qp_ex(id->verbs, attr);
	if (!qp) {
		err = errno;
		destroy_cqs(id);
		return ucm_err(err ? err : ENOMEM);
	}
	pthread_mutex_lock(&ucm_lock);
	if (attr->qp_type == IBV_QPT_UC)
		id->qp_type = IBV_QPT_UC;
	err = ucm_qp_attr(u, IBV_QPS_INIT, &a, &mask);
	if (!err)
		err = ibv_modify_qp(qp, &a, mask);
	if (!err && qp->qp_type == IBV_QPT_UD) {
		if (!(err = ucm_qp_attr(u, IBV_QPS_RTR, &a, &mask)))
			err = ibv_modify_qp(qp, &a, mask);
		if (!err && !(err = ucm_qp_attr(u, IBV_QPS_RTS, &a, &mask)))
			err = ibv_modify_qp(qp, &a, mask);
	}
	if (!err) {
		id->pd = qp->pd;
		id->qp = qp;
	}
	pthread_mutex_unlock(&ucm_lock);
	if (err) {
		ibv_destroy_qp(qp);
		destroy_cqs(id);
		return ucm_err(err);
	}
	return 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ax;
	int ret;

	if (!id || !qp_init_attr)
		return ucm_err(EINVAL);
	memset(&ax, 0, sizeof(ax));
	memcpy(&ax, qp_init_attr, sizeof(*qp_init_attr));
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.pd = pd ? pd : id->pd;
	ret = rdma_create_qp_ex(id, &ax);
	memcpy(qp_init_attr, &ax, sizeof(*qp_init_attr));
	return ret;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		ibv_destroy_qp(id->qp);
	id->qp = NULL;
	destroy_cqs(id);
}

int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;

	if (!id || !attr || !id->verbs || id->srq)
		return ucm_err(EINVAL);
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC)
		return ucm_err(EOPNOTSUPP); /* no XRC or tag matching on a wqe device */
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
		attr->pd = id->pd;
	}
	srq = ibv_create_srq_ex(id->verbs, attr);
	if (!srq)
		return -1;
	id->srq = srq;
	id->pd = attr->pd;
	return 0;
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ax;
	int ret;

	if (!id || !attr)
		return ucm_err(EINVAL);
	memset(&ax, 0, sizeof(ax));
	memcpy(&ax, attr, sizeof(*attr));
	ax.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	ax.srq_type = IBV_SRQT_BASIC;
	ax.pd = pd ? pd : id->pd;
	ret = rdma_create_srq_ex(id, &ax);
	memcpy(attr, &ax, sizeof(*attr));
	return ret;
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (!id || !id->srq)
		return;
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cid;
	struct ucm_id *u;
	int err;

	if (!id || !res || (!res->ai_src_addr && !res->ai_dst_addr))
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	u = ucm_id_new(NULL, NULL, (enum rdma_port_space)res->ai_port_space,
		       (enum ibv_qp_type)res->ai_qp_type);
	pthread_mutex_unlock(&ucm_lock);
	if (!u)
		return -1;
	cid = &u->id;
	if (res->ai_flags & RAI_PASSIVE) {
		if (rdma_bind_addr(cid, res->ai_src_addr))
			goto err;
		if (pd)
			cid->pd = pd;
		if (qp_init_attr) {
			u->qp_init_attr = malloc(sizeof(*qp_init_attr));
			if (!u->qp_init_attr) {
				errno = ENOMEM;
				goto err;
			}
			*u->qp_init_attr = *qp_init_attr;
			u->qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		}
		*id = cid;
		return 0;
	}
	if (rdma_resolve_addr(cid, res->ai_src_addr, res->ai_dst_addr, 2000) ||
	    rdma_resolve_route(cid, 2000))
		goto err;
	if (qp_init_attr) {
		qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		if (rdma_create_qp(cid, pd, qp_init_attr))
			goto err;
	}
	*id = cid;
	return 0;
err:
	err = errno;
	rdma_destroy_ep(cid);
	return ucm_err(err);
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}
