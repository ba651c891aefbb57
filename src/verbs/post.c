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
#include "fmt/mlx5_wqe.h"
#include "tables/catalog.h"
#include "verbs/verbs_int.h"

#define SEND_FLAGS_ALL (WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED | WQE_SEND_INLINE)
#define MAX_MSG (1ull << 31)

/* What validating a request found out, so that the encoder need not walk
 * its SGEs again. */
struct send_scan {
	enum wqe_op op;
	uint64_t total; /* sum of the SGE lengths */
	uint32_t nseg;  /* SGEs of non-zero length (without INLINE) */
};

/*
 * The post-time checks of wqe_post_send(), in the documented order. Every
 * one of them is EINVAL, so the order shows only in which faults are
 * looked at before a pointer of the request is followed: sg_list after
 * num_sge, the address handle last. The state and opcode checks go by
 * the QP's post_state_ok and post_op[], which verbs_qp_post_setup() sets
 * for the check policy (with WQE_CHECKS_IN_ENGINE both pass: the NIC
 * fails the WQE with LOC_QP_OP_ERR).
 */
static inline int validate_send(const struct wqe_qp *qp, const struct wqe_send_wr *wr,
				struct send_scan *s)
{
	const struct wqe_sge *sg = wr->sg_list;
	unsigned int flags = wr->send_flags, code = (unsigned int)wr->opcode;
	int nsge = wr->num_sge;
	uint64_t total = 0;
	uint32_t nseg = 0;
	bool no_addr = false;
	struct post_op po;

	if (!qp->post_state_ok)
		return EINVAL;
	if (code >= CATALOG_WR_SLOTS)
		return EINVAL;
	po = qp->post_op[code];
	if (!(po.flags & POST_OP_OK))
		return EINVAL;
	/* unsigned: a negative num_sge is over any max_send_sge */
	if ((unsigned int)nsge > qp->cap.max_send_sge || (nsge && !sg))
		return EINVAL;
	/* One pass over the SGEs, shared with the encoder; one SGE is the
	 * common case, without the loop. */
	if (nsge == 1) {
		total = sg->length;
		nseg = sg->length != 0;
		no_addr = sg->length && !sg->addr;
	} else {
		for (int i = 0; i < nsge; i++) {
			total += sg[i].length;
			nseg += sg[i].length != 0;
			no_addr |= sg[i].length && !sg[i].addr;
		}
	}
	if (total > MAX_MSG)
		return EINVAL;
	/* Inline bytes are read from the SGE's address: both formats'
	 * encoders refuse a missing one the same way. */
	if ((flags & WQE_SEND_INLINE) &&
	    (!(po.flags & POST_OP_INLINE_OK) || total > qp->cap.max_inline_data || no_addr))
		return EINVAL;
	if ((po.flags & POST_OP_ATOMIC) &&
	    (nsge != 1 || total != 8 || (wr->wr.atomic.remote_addr & 7)))
		return EINVAL;
	if ((po.flags & POST_OP_UD_AH) &&
	    (!wr->wr.ud.ah || wr->wr.ud.ah->pd != qp->pd || wr->wr.ud.remote_qpn > 0xffffff))
		return EINVAL;
	if (flags & ~(unsigned)SEND_FLAGS_ALL)
		return EINVAL;
	s->op = (enum wqe_op)po.op;
	s->total = total;
	s->nseg = nseg;
	return 0;
}

/* The room for the next WQEs, read once per call and counted down as we
 * post: only the posting side fills the ring, so the engine can only have
 * made more room since; a request that does not fit reads it again. */
struct sq_room {
	uint32_t blocks; /* free blocks */
	uint32_t wqes;   /* WQEs before max_send_wr are outstanding */
};

static inline void sq_room_read(const struct wqe_qp *qp, struct sq_room *r)
{
	uint32_t out = qp->sq.posted_wqes -
		       atomic_load_explicit(&qp->sq.ci_wqes, memory_order_acquire);

	r->wqes = out >= qp->cap.max_send_wr ? 0 : qp->cap.max_send_wr - out;
	r->blocks = sq_ring_free_blocks(&qp->sq);
}

/* Whether a WQE of @nb blocks fits, reading the room again if it seems
 * not to. */
static inline bool sq_room_fits(const struct wqe_qp *qp, struct sq_room *r, uint32_t nb)
{
	if (r->wqes && nb <= r->blocks)
		return true;
	sq_room_read(qp, r);
	return r->wqes && nb <= r->blocks;
}

/* mlx5: the plan from what validation found, the room, then the WQE
 * through the writer wqe_encode() uses (fmt/mlx5_wqe.h). */
static inline int encode_mlx5(const struct wqe_qp *qp, const struct wqe_ring_view *ring,
			      uint32_t pi, const struct wqe_send_wr *wr, const struct send_scan *s,
			      struct sq_room *room, uint32_t *nb)
{
	struct mlx5_plan p;
	int err;

	err = mlx5_plan_layout(&p, qp->eqp.qp_type, s->op, (wr->send_flags & WQE_SEND_INLINE) != 0,
			       s->total, s->nseg);
	if (err)
		return err;
	if (!sq_room_fits(qp, room, p.nblocks))
		return ENOMEM;
	mlx5_write_at(ring, pi, &qp->eqp, wr, &p, pi);
	*nb = p.nblocks;
	return 0;
}

/* Any other format, through its ops: encode_room() if it has one, else
 * size, check the room, encode. */
static int encode_ops(const struct fmt_ops *ops, const struct wqe_qp *qp,
		      const struct wqe_send_wr *wr, struct sq_room *room, uint32_t *nb)
{
	const struct wqe_ring_view view = {qp->sq.buf, qp->sq.nblocks};
	uint32_t pi = qp->sq.pi, bytes;
	int err;

	if (ops->encode_room) {
		err = ops->encode_room(&qp->eqp, wr, &view, pi, pi, room->wqes ? room->blocks : 0,
				       nb);
		if (err == ENOMEM) {
			sq_room_read(qp, room);
			err = ops->encode_room(&qp->eqp, wr, &view, pi, pi,
					       room->wqes ? room->blocks : 0, nb);
		}
		return err;
	}
	err = ops->encoded_size(&qp->eqp, wr, &bytes);
	if (err)
		return err;
	if (!sq_room_fits(qp, room, bytes / WQE_BLOCK_SIZE))
		return ENOMEM;
	return ops->encode(&qp->eqp, wr, &view, pi, pi, nb);
}

static void ring_doorbell(struct wqe_qp *qp, uint32_t last_start)
{
	uint8_t db[8];

	sq_ring_publish(&qp->sq);
	if (qp->post_mlx5) {
		/* mlx5: the first 8 bytes of the last WQE's control segment:
		 * opcode and index, QP number and size. */
		memcpy(db, sq_ring_block(&qp->sq, last_start), 8);
	} else {
		/* rxe's doorbell is the POST_SEND command naming the QP; we
		 * pass its number and the producer index. */
		put_be32(db, qp->qpc.qpn);
		put_be32(db + 4, atomic_load_explicit(&qp->sq.dbrec, memory_order_relaxed));
	}
	nic_doorbell(qp->context->nic, db);
}

/*
 * The post loop for mlx5 QPs: the writer is inline, so the loop has no call
 * per request. The producer counter is kept in a local (the byte stores
 * into the ring may alias any field of the QP) and stored back before each
 * encode, which may read the room again, and at the end.
 */
static __attribute__((noinline)) int post_mlx5(struct wqe_qp *qp, struct wqe_send_wr *wr,
						struct wqe_send_wr **bad_wr)
{
	const struct wqe_ring_view ring = {qp->sq.buf, qp->sq.nblocks};
	uint64_t *wrid = qp->sq_wrid;
	uint32_t pi = qp->sq.pi, last_start = pi, posted = 0;
	struct sq_room room;
	int err = 0;

	sq_room_read(qp, &room);
	for (; wr; wr = wr->next) {
		struct send_scan s;
		uint32_t nb;

		err = validate_send(qp, wr, &s);
		if (err)
			break;
		qp->sq.pi = pi;
		qp->sq.posted_wqes += posted;
		posted = 0;
		err = encode_mlx5(qp, &ring, pi, wr, &s, &room, &nb);
		if (err)
			break;
		wrid[pi & (ring.nblocks - 1)] = wr->wr_id;
		last_start = pi;
		pi += nb;
		posted++;
		room.blocks -= nb;
		room.wqes--;
	}
	qp->sq.pi = pi;
	qp->sq.posted_wqes += posted;
	if (err)
		*bad_wr = wr;
	if (pi != last_start)
		ring_doorbell(qp, last_start);
	return err;
}

/* The post loop for every other format, through its ops; out of line, so
 * that the mlx5 loop is compiled on its own. */
static __attribute__((noinline)) int post_ops(struct wqe_qp *qp, struct wqe_send_wr *wr,
					       struct wqe_send_wr **bad_wr)
{
	const struct fmt_ops *ops = fmt_get(qp->qpc.format);
	struct sq_room room;
	uint32_t last_start = 0;
	bool posted = false;
	int err = 0;

	if (!ops) {
		*bad_wr = wr;
		return EINVAL;
	}
	sq_room_read(qp, &room);
	for (; wr; wr = wr->next) {
		struct send_scan s;
		uint32_t nb;

		err = validate_send(qp, wr, &s);
		if (err)
			break;
		err = encode_ops(ops, qp, wr, &room, &nb);
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

int wqe_post_send(struct wqe_qp *qp, struct wqe_send_wr *wr, struct wqe_send_wr **bad_wr)
{
	if (!qp || !wr || !bad_wr)
		return EINVAL;
	return qp->post_mlx5 ? post_mlx5(qp, wr, bad_wr) : post_ops(qp, wr, bad_wr);
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
