/* SPDX-License-Identifier: MIT */
/* Queue pairs: create, destroy, modify (the state machine), query. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/mlx5_wqe.h"
#include "tables/qp_state.h"
#include "verbs/verbs_int.h"


/* The rings, as wqe_calc_sq() and wqe_calc_rq() sized them. */
static int init_queues(struct wqe_qp *qp, uint32_t ring_blocks, uint32_t rq_slots,
		       uint32_t rq_stride)
{
	bool rxe = qp->context->attr.format == WQE_FORMAT_RXE;

	if (sq_ring_init(&qp->sq, ring_blocks))
		return ENOMEM;
	if (rxe)
		qp->sq.slot_blocks = qp->wqe_bytes / WQE_BLOCK_SIZE;
	qp->sq_wrid = calloc(ring_blocks, sizeof(*qp->sq_wrid));
	if (!qp->sq_wrid)
		return ENOMEM;
	if (qp->srq) /* a QP of an SRQ has no receive ring of its own */
		return 0;
	if (rq_ring_init(&qp->rq, rq_slots, rq_stride, rxe))
		return ENOMEM;
	qp->rq_wrid = calloc(rq_slots, sizeof(*qp->rq_wrid));
	if (!qp->rq_wrid)
		return ENOMEM;
	return 0;
}

static bool state_accepts_send(enum wqe_qp_state s)
{
	/* IBTA C10-29 (as mlx5 and kernel rxe enforce): no posting below RTS;
	 * SQD, SQE and ERR accept, and ERR flushes. */
	return s == WQE_QPS_RTS || s == WQE_QPS_SQD || s == WQE_QPS_SQE || s == WQE_QPS_ERR;
}

/* The common shape of @op's WQEs on @qp (verbs_int.h), or NONE; the
 * segments are the ones mlx5_transports gives the operation. Only where
 * the state and opcode checks pass: under WQE_CHECKS_IN_ENGINE an illegal
 * opcode, or a post in a state below RTS, takes the general path. */
static uint8_t op_shape(const struct wqe_qp *qp, enum wqe_op op)
{
	const struct qpc *q = &qp->qpc;

	if (q->format != WQE_FORMAT_MLX5 || !catalog_op_legal(op, q->type) ||
	    !state_accepts_send(qp->sw_state) || qp->cap.max_send_sge < 1 ||
	    catalog_op_is_atomic(op) || op == WQE_OP_SEND_WITH_INV)
		return POST_SHAPE_NONE;
	switch (mlx5_transport_segs(q->type, op)) {
	case 0:
		return POST_SHAPE_PLAIN;
	case MLX5_SEG_RADDR:
		return POST_SHAPE_RADDR;
	case MLX5_SEG_DGRAM:
		return POST_SHAPE_DGRAM;
	default:
		return POST_SHAPE_NONE;
	}
}

void verbs_qp_post_setup(struct wqe_qp *qp)
{
	const struct qpc *q = &qp->qpc;
	/* With WQE_CHECKS_IN_ENGINE the state and opcode checks are the NIC's
	 * (LOC_QP_OP_ERR): every state and every operation pass at post. */
	bool at_post = !q->checks_in_engine;

	for (unsigned int i = 0; i < CATALOG_WR_SLOTS; i++) {
		struct post_op *po = &qp->post_op[i];
		enum wqe_op op;

		po->op = 0;
		po->flags = 0;
		po->shape = POST_SHAPE_NONE;
		po->opcode = 0;
		if (!catalog_op_from_wr((enum wqe_wr_opcode)i, &op))
			continue;
		po->op = (uint8_t)op;
		if (!at_post || catalog_op_legal(op, q->type))
			po->flags |= POST_OP_OK;
		if (catalog_op_inline_ok(op))
			po->flags |= POST_OP_INLINE_OK;
		if (catalog_op_is_atomic(op))
			po->flags |= POST_OP_ATOMIC;
		if (q->type == WQE_QPT_UD && catalog_op_legal(op, WQE_QPT_UD))
			po->flags |= POST_OP_UD_AH;
		if (catalog_op_has_imm(op))
			po->flags |= POST_OP_IMM;
		po->shape = op_shape(qp, op);
		po->opcode = po->shape ? mlx5_opcode_of(op) : 0;
	}
	qp->eqp.qp_type = q->type;
	qp->eqp.qpn = q->qpn;
	qp->eqp.max_send_sge = qp->cap.max_send_sge;
	qp->eqp.max_inline_data = qp->cap.max_inline_data;
	qp->eqp.sq_sig_all = q->sq_sig_all;
	for (unsigned int f = 0; f <= MLX5_FLAGS_CTRL_MASK; f++) {
		const struct wqe_send_wr wr = {.send_flags = f};

		qp->post_fm_ce_se[f] = mlx5_ctrl_fm_ce_se(&qp->eqp, &wr);
	}
	qp->post_room_blocks = 0; /* a reset may have changed the counters */
	qp->post_room_wqes = 0;
	qp->post_state_ok = !at_post || state_accepts_send(qp->sw_state);
	qp->post_mlx5 = q->format == WQE_FORMAT_MLX5;
}

static void free_qp(struct wqe_qp *qp)
{
	sq_ring_fini(&qp->sq);
	rq_ring_fini(&qp->rq);
	free(qp->sq_wrid);
	free(qp->rq_wrid);
	free(qp);
}

struct wqe_qp *wqe_create_qp(struct wqe_pd *pd, struct wqe_qp_init_attr *attr)
{
	struct wqe_qp_cap cap;
	struct wqe_qp *qp;
	uint32_t wqe_bytes, ring_blocks, rq_stride, rq_slots;
	int err;

	if (!pd || !attr || !attr->send_cq || !attr->recv_cq ||
	    attr->send_cq->context != pd->context || attr->recv_cq->context != pd->context ||
	    (attr->qp_type != WQE_QPT_RC && attr->qp_type != WQE_QPT_UC &&
	     attr->qp_type != WQE_QPT_UD) ||
	    (attr->srq && attr->srq->context != pd->context) ||
	    (attr->create_flags & ~WQE_QP_CREATE_GSI) ||
	    ((attr->create_flags & WQE_QP_CREATE_GSI) &&
	     (attr->qp_type != WQE_QPT_UD || attr->srq)) ||
	    (!attr->srq &&
	     (attr->cap.max_recv_sge < 1 || attr->cap.max_recv_sge > WQE_DESC_MAX_SGE))) {
		errno = EINVAL;
		return NULL;
	}
	cap = attr->cap;
	rq_stride = rq_slots = 0;
	if (attr->srq) { /* sized as if for the least receive queue */
		cap.max_recv_wr = 1;
		cap.max_recv_sge = 1;
	}
	if (wqe_calc_sq(pd->context->attr.format, attr->qp_type, &cap, &wqe_bytes, &ring_blocks) ||
	    (!attr->srq && wqe_calc_rq(pd->context->attr.format, &cap, &rq_stride, &rq_slots))) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->srq) {
		/* rdma-core reports no receive queue for a QP of an SRQ */
		cap.max_recv_wr = 0;
		cap.max_recv_sge = 0;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->context = pd->context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->qp_context = attr->qp_context;
	qp->srq = attr->srq;
	qp->cap = cap;
	qp->wqe_bytes = wqe_bytes;
	err = init_queues(qp, ring_blocks, rq_slots, rq_stride);
	if (!err) {
		struct qpc *q = &qp->qpc;

		q->type = attr->qp_type;
		q->format = pd->context->attr.format;
		q->pd = pd->handle;
		q->sq_sig_all = attr->sq_sig_all != 0;
		q->checks_in_engine = pd->context->attr.checks == WQE_CHECKS_IN_ENGINE;
		q->sq = &qp->sq;
		q->rq = qp->srq ? NULL : &qp->rq;
		q->srq = qp->srq ? &qp->srq->srqc : NULL;
		q->send_cq = &attr->send_cq->cqc;
		q->recv_cq = &attr->recv_cq->cqc;
		q->path_mtu = WQE_MTU_1024;
		q->port = 1;
		if (attr->create_flags & WQE_QP_CREATE_GSI) {
			q->gsi = true;
			q->qkey = WQE_GSI_QKEY;
		}
		err = verbs_async_reserve(pd->context, ASYNC_QP_ROOM);
		if (!err) {
			nic_cmd_begin(pd->context->nic);
			err = nic_qp_create(pd->context->nic, q);
			if (!err) {
				q->av.udp_sport = verbs_default_sport(q->qpn);
				err = verbs_qp_register(pd->context, qp);
				if (err)
					nic_qp_destroy(pd->context->nic, q);
			}
			nic_cmd_end(pd->context->nic);
			if (err)
				verbs_async_unreserve(pd->context, ASYNC_QP_ROOM);
		}
	}
	if (err) {
		free_qp(qp);
		errno = err;
		return NULL;
	}
	qp->sw_state = WQE_QPS_RESET;
	verbs_qp_post_setup(qp);
	attr->cap = qp->cap;
	pd->refs++;
	attr->send_cq->refs++;
	attr->recv_cq->refs++;
	if (qp->srq)
		qp->srq->refs++;
	pd->context->nqp++;
	return qp;
}

int wqe_destroy_qp(struct wqe_qp *qp)
{
	struct nic *n;

	if (!qp)
		return EINVAL;
	n = qp->context->nic;
	nic_cmd_begin(n);
	if (verbs_async_detach_qp(qp)) {
		nic_cmd_end(n);
		return EBUSY;
	}
	verbs_qp_unregister(qp->context, qp);
	nic_qp_destroy(n, &qp->qpc);
	nic_cmd_end(n);
	qp->pd->refs--;
	qp->send_cq->refs--;
	qp->recv_cq->refs--;
	if (qp->srq)
		qp->srq->refs--;
	qp->context->nqp--;
	free_qp(qp);
	return 0;
}

uint32_t wqe_qp_num(const struct wqe_qp *qp)
{
	return qp ? qp->qpc.qpn : 0;
}

void *wqe_qp_context(const struct wqe_qp *qp)
{
	return qp ? qp->qp_context : NULL;
}

static int check_values(const struct wqe_qp *qp, const struct wqe_qp_attr *a, unsigned int m)
{
	const struct wqe_context *ctx = qp->context;
	const unsigned int remote = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ |
				    WQE_ACCESS_REMOTE_ATOMIC | WQE_ACCESS_LOCAL_WRITE;

	if ((m & WQE_QP_CUR_STATE) && a->cur_qp_state != qp->qpc.state)
		return EINVAL;
	if ((m & WQE_QP_PATH_MTU) && (a->path_mtu < WQE_MTU_256 || a->path_mtu > WQE_MTU_4096))
		return EINVAL;
	if (((m & WQE_QP_RQ_PSN) && a->rq_psn > 0xffffff) ||
	    ((m & WQE_QP_SQ_PSN) && a->sq_psn > 0xffffff) ||
	    ((m & WQE_QP_DEST_QPN) && a->dest_qp_num > 0xffffff))
		return EINVAL;
	if ((m & WQE_QP_PORT) && a->port_num != 1)
		return EINVAL;
	if ((m & WQE_QP_PKEY_INDEX) && a->pkey_index >= ctx->attr.num_pkeys)
		return EINVAL;
	if ((m & WQE_QP_ACCESS_FLAGS) && (a->qp_access_flags & ~remote))
		return EINVAL;
	if ((m & WQE_QP_AV) && verbs_check_ah_attr(ctx, &a->ah_attr))
		return EINVAL;
	if (((m & WQE_QP_TIMEOUT) && a->timeout > 31) ||
	    ((m & WQE_QP_RETRY_CNT) && a->retry_cnt > 7) ||
	    ((m & WQE_QP_RNR_RETRY) && a->rnr_retry > 7) ||
	    ((m & WQE_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31) ||
	    ((m & WQE_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > 16) ||
	    ((m & WQE_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > 16))
		return EINVAL;
	return 0;
}

static void set_av(struct wqe_qp *qp, const struct wqe_ah_attr *a)
{
	struct qpc_addr *av = &qp->qpc.av;

	qp->ah_attr = *a;
	av->dgid = a->grh.dgid;
	memcpy(av->dmac, a->dmac, 6);
	av->flow_label = a->grh.flow_label;
	av->sgid_index = a->grh.sgid_index;
	av->hop_limit = a->grh.hop_limit ? a->grh.hop_limit : 64;
	av->tclass = a->grh.traffic_class;
	av->sl = a->sl;
	av->udp_sport = a->udp_sport ? a->udp_sport : verbs_default_sport(qp->qpc.qpn);
}

static void apply(struct wqe_qp *qp, const struct wqe_qp_attr *a, unsigned int m)
{
	struct qpc *q = &qp->qpc;

	if (m & WQE_QP_PATH_MTU)
		q->path_mtu = a->path_mtu;
	if (m & WQE_QP_QKEY)
		q->qkey = a->qkey;
	if (m & WQE_QP_RQ_PSN)
		q->rq_psn = a->rq_psn;
	if (m & WQE_QP_SQ_PSN)
		q->sq_psn = a->sq_psn;
	if (m & WQE_QP_DEST_QPN)
		q->dest_qpn = a->dest_qp_num;
	if (m & WQE_QP_ACCESS_FLAGS)
		q->access = a->qp_access_flags;
	if (m & WQE_QP_AV)
		set_av(qp, &a->ah_attr);
	if (m & WQE_QP_PKEY_INDEX)
		q->pkey_index = a->pkey_index;
	if (m & WQE_QP_PORT)
		q->port = a->port_num;
	if (m & WQE_QP_MAX_QP_RD_ATOMIC)
		q->max_rd_atomic = a->max_rd_atomic;
	if (m & WQE_QP_MAX_DEST_RD_ATOMIC)
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (m & WQE_QP_MIN_RNR_TIMER)
		q->min_rnr_timer = a->min_rnr_timer;
	if (m & WQE_QP_TIMEOUT)
		q->timeout = a->timeout;
	if (m & WQE_QP_RETRY_CNT)
		q->retry_cnt = a->retry_cnt;
	if (m & WQE_QP_RNR_RETRY)
		q->rnr_retry = a->rnr_retry;
}

/* RESET empties both queues with no completions (IBTA 10.3.1). */
static void reset_queues(struct wqe_qp *qp)
{
	uint32_t sq_blocks = qp->sq.nblocks, rq_slots = qp->rq.nslots, stride = qp->rq.stride;
	uint32_t slot_blocks = qp->sq.slot_blocks;
	bool rq_masked = qp->rq.masked;
	uint8_t *sb = qp->sq.buf, *rb = qp->rq.buf;

	memset(sb, 0, (size_t)sq_blocks * 64u);
	if (rb) /* none for a QP of an SRQ */
		memset(rb, 0, (size_t)rq_slots * stride);
	memset(&qp->sq, 0, sizeof(qp->sq));
	memset(&qp->rq, 0, sizeof(qp->rq));
	qp->sq.buf = sb;
	qp->sq.nblocks = sq_blocks;
	qp->sq.slot_blocks = slot_blocks;
	qp->rq.buf = rb;
	qp->rq.nslots = rq_slots;
	qp->rq.stride = stride;
	qp->rq.masked = rq_masked;
}

/* wqe_modify_qp() inside the command bracket: the QP context is read and
 * written as the NIC reads it. */
static int modify(struct wqe_qp *qp, const struct wqe_qp_attr *attr, unsigned int m)
{
	enum wqe_qp_state cur, next;
	const char *why = NULL;
	int err;

	cur = qp->qpc.state;
	next = (m & WQE_QP_STATE) ? attr->qp_state : cur;
	if (!qp_transition_ok(qp->qpc.type, cur, next, m, &why))
		return EINVAL;
	/* SQD is where attributes change once nothing is in flight: while
	 * the drain runs, only RESET and ERR (reachable from every state) may
	 * leave it or change it (rxe: rxe_qp_chk_attr refuses all but ERR). */
	if ((m & WQE_QP_STATE) && cur == WQE_QPS_SQD && next != WQE_QPS_ERR &&
	    next != WQE_QPS_RESET && nic_qp_sq_draining(&qp->qpc))
		return EINVAL;
	err = check_values(qp, attr, m);
	if (err)
		return err;
	if (qp->qpc.type == WQE_QPT_UD)
		m &= ~(unsigned)WQE_QP_PATH_MTU;
	if (m & WQE_QP_MAX_DEST_RD_ATOMIC) {
		err = nic_qp_reserve(qp->context->nic, &qp->qpc, attr->max_dest_rd_atomic);
		if (err)
			return err;
	}
	apply(qp, attr, m);
	if (m & WQE_QP_EN_SQD_ASYNC_NOTIFY)
		qp->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (next == WQE_QPS_RESET)
		reset_queues(qp);
	nic_qp_set_state(qp->context->nic, &qp->qpc, next);
	qp->sw_state = next;
	verbs_qp_post_setup(qp);
	/* Both the mask bit and the field, as mlx4 and mthca read them (rxe
	 * stores the field and raises the event whatever it says). */
	if (cur == WQE_QPS_RTS && next == WQE_QPS_SQD && (m & WQE_QP_EN_SQD_ASYNC_NOTIFY) &&
	    attr->en_sqd_async_notify)
		nic_qp_sqd_notify(qp->context->nic, &qp->qpc);
	return 0;
}

int wqe_modify_qp(struct wqe_qp *qp, const struct wqe_qp_attr *attr, int attr_mask)
{
	unsigned int m = (unsigned int)attr_mask;
	int err;

	if (!qp || !attr || attr_mask < 0 || (m & ~((1u << 21) - 1)))
		return EINVAL;
	/* the GSI QP's Q_Key is the well-known one, for good */
	if (qp->qpc.gsi && (m & WQE_QP_QKEY) && attr->qkey != WQE_GSI_QKEY)
		return EINVAL;
	nic_cmd_begin(qp->context->nic);
	err = modify(qp, attr, m);
	nic_cmd_end(qp->context->nic);
	return err;
}

int wqe_query_qp(struct wqe_qp *qp, struct wqe_qp_attr *attr, int attr_mask,
		 struct wqe_qp_init_attr *init_attr)
{
	const struct qpc *q;

	(void)attr_mask;
	if (!qp || !attr)
		return EINVAL;
	q = &qp->qpc;
	memset(attr, 0, sizeof(*attr));
	nic_cmd_begin(qp->context->nic);
	attr->qp_state = q->state;
	attr->cur_qp_state = q->state;
	attr->path_mtu = q->path_mtu;
	attr->qkey = q->qkey;
	attr->rq_psn = q->rq_psn;
	attr->sq_psn = q->sq_psn;
	attr->dest_qp_num = q->dest_qpn;
	attr->qp_access_flags = q->access;
	attr->cap = qp->cap;
	attr->ah_attr = qp->ah_attr;
	attr->ah_attr.udp_sport = q->av.udp_sport;
	attr->pkey_index = q->pkey_index;
	attr->en_sqd_async_notify = qp->en_sqd_async_notify;
	attr->sq_draining = nic_qp_sq_draining(q) ? 1 : 0;
	attr->max_rd_atomic = q->max_rd_atomic;
	attr->max_dest_rd_atomic = q->max_dest_rd_atomic;
	attr->min_rnr_timer = q->min_rnr_timer;
	attr->port_num = q->port;
	attr->timeout = q->timeout;
	attr->retry_cnt = q->retry_cnt;
	attr->rnr_retry = q->rnr_retry;
	nic_cmd_end(qp->context->nic);
	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->cap = qp->cap;
		init_attr->qp_type = q->type;
		init_attr->sq_sig_all = q->sq_sig_all;
		init_attr->create_flags = q->gsi ? WQE_QP_CREATE_GSI : 0;
	}
	return 0;
}
