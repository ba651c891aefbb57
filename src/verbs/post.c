/* SPDX-License-Identifier: MIT */
/*
 * Posting: post-time validation, WQE encoding into the ring, the doorbell.
 * Everything knowable from the request and the QP alone is checked before a
 * byte of the request reaches the ring; lkeys are not (the key table is
 * judged when the WQE is processed).
 */
#include <errno.h>
#include <string.h>

#include "common/bytes.h"
#include "fmt/fmt.h"
#include "tables/catalog.h"
#include "verbs/verbs_int.h"

#define SEND_FLAGS_ALL (WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED | WQE_SEND_INLINE)
#define MAX_MSG (1ull << 31)

static bool state_accepts_send(enum wqe_qp_state s)
{
	/* IBTA C10-29 (as mlx5 and kernel rxe enforce): no posting below RTS;
	 * SQD, SQE and ERR accept, and ERR flushes. */
	return s == WQE_QPS_RTS || s == WQE_QPS_SQD || s == WQE_QPS_SQE || s == WQE_QPS_ERR;
}

static bool is_atomic(enum wqe_wr_opcode op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

/* The post-time checks of wqe_post_send(), in the documented order. */
static int validate_send(const struct wqe_qp *qp, const struct wqe_send_wr *wr)
{
	enum wqe_op op;
	uint64_t total = 0;

	bool post_checks = !qp->qpc.checks_in_engine;

	/* With WQE_CHECKS_IN_ENGINE these two are the NIC's (LOC_QP_OP_ERR). */
	if (post_checks && !state_accepts_send(qp->sw_state))
		return EINVAL;
	if (!catalog_op_from_wr(wr->opcode, &op) ||
	    (post_checks && !catalog_op_legal(op, qp->qpc.type)))
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge ||
	    (wr->num_sge > 0 && !wr->sg_list))
		return EINVAL;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > MAX_MSG)
		return EINVAL;
	if (wr->send_flags & WQE_SEND_INLINE) {
		if (!catalog_op_inline_ok(op) || total > qp->cap.max_inline_data)
			return EINVAL;
	}
	if (is_atomic(wr->opcode) &&
	    (wr->num_sge != 1 || total != 8 || (wr->wr.atomic.remote_addr & 7)))
		return EINVAL;
	if (qp->qpc.type == WQE_QPT_UD && catalog_op_legal(op, WQE_QPT_UD) &&
	    (!wr->wr.ud.ah || wr->wr.ud.ah->pd != qp->pd || wr->wr.ud.remote_qpn > 0xffffff))
		return EINVAL;
	if (wr->send_flags & ~(unsigned)SEND_FLAGS_ALL)
		return EINVAL;
	return 0;
}

static void ring_doorbell(struct wqe_qp *qp, uint32_t last_start)
{
	uint8_t db[8];

	sq_ring_publish(&qp->sq);
	if (qp->qpc.format == WQE_FORMAT_RXE) {
		/* rxe's doorbell is the POST_SEND command naming the QP; we
		 * pass its number and the producer index. */
		put_be32(db, qp->qpc.qpn);
		put_be32(db + 4, atomic_load_explicit(&qp->sq.dbrec, memory_order_relaxed));
	} else {
		/* mlx5: the first 8 bytes of the last WQE's control segment:
		 * opcode and index, QP number and size. */
		memcpy(db, sq_ring_block(&qp->sq, last_start), 8);
	}
	nic_doorbell(qp->context->nic, db);
}

/* The room for the next WQEs, read once per call and counted down as we
 * post: only the posting side fills the ring, so the engine can only have
 * made more room since; a request that does not fit reads it again. */
struct sq_room {
	uint32_t blocks; /* free blocks */
	uint32_t wqes;   /* WQEs before max_send_wr are outstanding */
};

static void sq_room_read(const struct wqe_qp *qp, struct sq_room *r)
{
	uint32_t out = qp->sq.posted_wqes -
		       atomic_load_explicit(&qp->sq.ci_wqes, memory_order_acquire);

	r->wqes = out >= qp->cap.max_send_wr ? 0 : qp->cap.max_send_wr - out;
	r->blocks = sq_ring_free_blocks(&qp->sq);
}

/* Validates, sizes and, if it fits in @room blocks, encodes @wr at the
 * producer: 0, EINVAL or ENOMEM (nothing written). */
static int encode_at_pi(const struct fmt_ops *ops, const struct wqe_encode_qp *eqp,
			const struct wqe_send_wr *wr, const struct wqe_ring_view *view,
			uint32_t pi, uint32_t room, uint32_t *nb)
{
	uint32_t bytes;
	int err;

	if (ops->encode_room)
		return ops->encode_room(eqp, wr, view, pi, pi, room, nb);
	err = ops->encoded_size(eqp, wr, &bytes);
	if (err)
		return err;
	if (bytes / WQE_BLOCK_SIZE > room)
		return ENOMEM;
	return ops->encode(eqp, wr, view, pi, pi, nb);
}

int wqe_post_send(struct wqe_qp *qp, struct wqe_send_wr *wr, struct wqe_send_wr **bad_wr)
{
	const struct fmt_ops *ops;
	struct wqe_encode_qp eqp;
	struct wqe_ring_view view;
	struct sq_room room;
	uint32_t last_start = 0;
	bool posted = false;
	int err = 0;

	if (!qp || !wr || !bad_wr)
		return EINVAL;
	ops = fmt_get(qp->qpc.format);
	if (!ops) {
		*bad_wr = wr;
		return EINVAL;
	}
	eqp.qp_type = qp->qpc.type;
	eqp.qpn = qp->qpc.qpn;
	eqp.max_send_sge = qp->cap.max_send_sge;
	eqp.max_inline_data = qp->cap.max_inline_data;
	eqp.sq_sig_all = qp->qpc.sq_sig_all;
	view.buf = qp->sq.buf;
	view.nblocks = qp->sq.nblocks;
	sq_room_read(qp, &room);
	for (; wr; wr = wr->next) {
		uint32_t nb;

		err = validate_send(qp, wr);
		if (err)
			break;
		err = encode_at_pi(ops, &eqp, wr, &view, qp->sq.pi, room.wqes ? room.blocks : 0,
				   &nb);
		if (err == ENOMEM) {
			sq_room_read(qp, &room);
			err = encode_at_pi(ops, &eqp, wr, &view, qp->sq.pi,
					   room.wqes ? room.blocks : 0, &nb);
		}
		if (err)
			break;
		qp->sq_wrid[qp->sq.pi & (qp->sq.nblocks - 1)] = wr->wr_id;
		last_start = qp->sq.pi;
		qp->sq.pi += nb;
		qp->sq.posted_wqes++;
		room.blocks -= nb;
		room.wqes--;
		posted = true;
	}
	if (err)
		*bad_wr = wr;
	if (posted)
		ring_doorbell(qp, last_start);
	return err;
}

/* mlx5 ends a receive WQE with fewer SGEs than its stride holds with a
 * data segment whose lkey is MLX5_INVALID_LKEY. */
#define RQ_END_LKEY 0x100u

static void write_recv_wqe(uint8_t *slot, uint32_t stride, const struct wqe_recv_wr *wr)
{
	uint32_t i;

	memset(slot, 0, stride);
	for (i = 0; i < (uint32_t)wr->num_sge; i++) {
		put_be32(slot + 16 * i, wr->sg_list[i].length);
		put_be32(slot + 16 * i + 4, wr->sg_list[i].lkey);
		put_be64(slot + 16 * i + 8, wr->sg_list[i].addr);
	}
	if (16 * i < stride)
		put_be32(slot + 16 * i + 4, RQ_END_LKEY);
}

static int validate_recv(const struct wqe_qp *qp, const struct wqe_recv_wr *wr)
{
	uint64_t total = 0;

	if (qp->sw_state == WQE_QPS_RESET)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_recv_sge ||
	    (wr->num_sge > 0 && !wr->sg_list))
		return EINVAL;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > MAX_MSG)
		return EINVAL;
	return 0;
}

int wqe_post_recv(struct wqe_qp *qp, struct wqe_recv_wr *wr, struct wqe_recv_wr **bad_wr)
{
	struct rq_ring *rq;
	bool posted = false;
	int err = 0;

	if (!qp || !wr || !bad_wr)
		return EINVAL;
	rq = &qp->rq;
	for (; wr; wr = wr->next) {
		err = validate_recv(qp, wr);
		if (!err && rq->pi - atomic_load_explicit(&rq->ci, memory_order_acquire) >=
				    qp->cap.max_recv_wr)
			err = ENOMEM;
		if (err)
			break;
		write_recv_wqe(rq_ring_slot(rq, rq->pi), rq->stride, wr);
		qp->rq_wrid[rq->pi & (rq->nslots - 1)] = wr->wr_id;
		rq->pi++;
		posted = true;
	}
	if (err)
		*bad_wr = wr;
	if (posted) {
		/* Release: the receive WQEs are written before the engine can
		 * see the new producer counter. */
		atomic_store_explicit(&rq->dbrec, rq->pi, memory_order_release);
		if (qp->qpc.state == WQE_QPS_ERR)
			nic_kick(&qp->qpc);
	}
	return err;
}
