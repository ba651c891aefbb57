/* SPDX-License-Identifier: MIT */
/*
 * Posting: post-time validation, WQE encoding into the ring, the doorbell.
 * Everything knowable from the request and the QP alone is checked before a
 * byte of the request reaches the ring; lkeys are not (the key table is
 * judged when the WQE is processed).
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "common/bytes.h"
#include "common/limits.h"
#include "fmt/fmt.h"
#include "fmt/mlx5_wqe.h"
#include "tables/catalog.h"
#include "verbs/verbs_int.h"

#define SEND_FLAGS_ALL (WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED | WQE_SEND_INLINE)

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

static_assert(POST_SHAPE_PLAIN == MLX5_CTRL_BYTES / MLX5_DS_BYTES &&
		      POST_SHAPE_RADDR == (MLX5_CTRL_BYTES + MLX5_RADDR_BYTES) / MLX5_DS_BYTES &&
		      POST_SHAPE_DGRAM == (MLX5_CTRL_BYTES + MLX5_DGRAM_BYTES) / MLX5_DS_BYTES,
	      "a shape's value is the DS of its control and transport segments");

static_assert(sizeof(((struct wqe_qp *)0)->post_fm_ce_se) == MLX5_FLAGS_CTRL_MASK + 1,
	      "post_fm_ce_se has an entry per combination of the control flags");

/* Where the next WQE goes: the ring and the room, as post_mlx5 keeps them
 * in locals. */
struct sq_at {
	uint8_t *buf;
	uint32_t mask; /* ring blocks - 1 */
	uint32_t pi;
	struct sq_room room;
};

/* Whether @nb blocks fit the room and, contiguous, the ring after @at->pi. */
static inline bool shape_fits(const struct sq_at *at, uint32_t nb)
{
	return at->room.wqes && nb <= at->room.blocks && nb - 1 <= at->mask - (at->pi & at->mask);
}

/*
 * @wr as a WQE of shape @shape (its transport segments @segs, constant),
 * @po its opcode's facts: writes it at @at->pi and returns its blocks, if
 * it passes every post-time check, fits as shape_fits() says and has one
 * SGE of non-zero length, at most 2^31 bytes; else 0, having written
 * nothing. The tests are cheaper than validate_send()'s and accept only
 * what it accepts (the inline and UD address rules, no unknown flag; the
 * state and opcode checks are in @shape, verbs_int.h): whatever is
 * refused here, valid or not, takes the general path, which checks it in
 * the documented order.
 */
static inline __attribute__((always_inline)) uint32_t
post_shape(const struct wqe_qp *qp, const struct wqe_send_wr *wr, struct post_op po,
	   const struct sq_at *at, uint8_t shape, unsigned int segs)
{
	const struct wqe_sge *sg = wr->sg_list;
	unsigned int flags = wr->send_flags;
	unsigned int extra = flags & ~(unsigned int)MLX5_FLAGS_CTRL_MASK;
	uint8_t *wqe;
	uint32_t len, ds, nb;

	if (wr->num_sge != 1 || !sg)
		return 0;
	len = sg->length;
	if (len - 1 >= MAX_MSG) /* 0, or over 2^31 */
		return 0;
	if (segs & MLX5_SEG_DGRAM) {
		const struct wqe_ah *ah = wr->wr.ud.ah;

		if (!ah || ah->pd != qp->pd || wr->wr.ud.remote_qpn > 0xffffff)
			return 0;
	}
	if (!extra) {
		ds = shape + 1u;
		nb = (ds * MLX5_DS_BYTES + WQE_BLOCK_SIZE - 1) / WQE_BLOCK_SIZE;
		if (!shape_fits(at, nb))
			return 0;
		wqe = at->buf + (size_t)(at->pi & at->mask) * WQE_BLOCK_SIZE;
		mlx5_write_shape(wqe, qp->eqp.qpn, wr, segs, false, po.opcode,
				 (po.flags & POST_OP_IMM) != 0,
				 qp->post_fm_ce_se[flags & MLX5_FLAGS_CTRL_MASK], ds, nb, at->pi);
		return nb;
	}
	if (extra != WQE_SEND_INLINE || !(po.flags & POST_OP_INLINE_OK) ||
	    len > qp->eqp.max_inline_data || !sg->addr)
		return 0;
	ds = shape + (len + MLX5_INL_HDR_BYTES + MLX5_DS_BYTES - 1) / MLX5_DS_BYTES;
	nb = (ds * MLX5_DS_BYTES + WQE_BLOCK_SIZE - 1) / WQE_BLOCK_SIZE;
	if (ds > MLX5_MAX_DS || !shape_fits(at, nb))
		return 0;
	wqe = at->buf + (size_t)(at->pi & at->mask) * WQE_BLOCK_SIZE;
	mlx5_write_shape(wqe, qp->eqp.qpn, wr, segs, true, po.opcode, (po.flags & POST_OP_IMM) != 0,
			 qp->post_fm_ce_se[flags & MLX5_FLAGS_CTRL_MASK], ds, nb, at->pi);
	return nb;
}

/* @wr through post_shape() if its opcode has a common shape on @qp: its
 * blocks, or 0. One call per shape, so that each is compiled for its
 * segments. */
static inline uint32_t post_common(const struct wqe_qp *qp, const struct wqe_send_wr *wr,
				   const struct sq_at *at)
{
	unsigned int code = (unsigned int)wr->opcode;
	struct post_op po;

	if (code >= CATALOG_WR_SLOTS)
		return 0;
	po = qp->post_op[code];
	switch (po.shape) {
	case POST_SHAPE_PLAIN:
		return post_shape(qp, wr, po, at, POST_SHAPE_PLAIN, 0);
	case POST_SHAPE_RADDR:
		return post_shape(qp, wr, po, at, POST_SHAPE_RADDR, MLX5_SEG_RADDR);
	case POST_SHAPE_DGRAM:
		return post_shape(qp, wr, po, at, POST_SHAPE_DGRAM, MLX5_SEG_DGRAM);
	default:
		return 0;
	}
}

/* Any request, through validate_send() and the plan, at the QP's producer
 * counter; out of line, to keep the common shapes' loop small. */
static __attribute__((noinline)) int post_one_mlx5(struct wqe_qp *qp,
						    const struct wqe_send_wr *wr,
						    struct sq_room *room, uint32_t *nb)
{
	const struct wqe_ring_view ring = {qp->sq.buf, qp->sq.nblocks};
	struct send_scan s;
	int err;

	err = validate_send(qp, wr, &s);
	if (err)
		return err;
	return encode_mlx5(qp, &ring, qp->sq.pi, wr, &s, room, nb);
}

/*
 * The post loop for mlx5 QPs. A request of a common shape is written here
 * with no call; any other, and a common one that does not fit the room or
 * would run past the ring's end, goes through post_one_mlx5(). The
 * producer counter is kept in a local (the byte stores into the ring may
 * alias any field of the QP) and stored back before that call, which may
 * read the room again, and at the end. The room is the QP's lower bound
 * (post_room_*), carried from call to call.
 */
static __attribute__((noinline)) int post_mlx5(struct wqe_qp *qp, struct wqe_send_wr *wr,
						struct wqe_send_wr **bad_wr)
{
	struct sq_at at = {qp->sq.buf, qp->sq.nblocks - 1, qp->sq.pi,
			   {qp->post_room_blocks, qp->post_room_wqes}};
	uint64_t *wrid = qp->sq_wrid;
	/* WQEs posted since posted_wqes was last brought up to date: wqes0
	 * less the room's WQEs, so that the loop counts only one of them */
	uint32_t last_start = at.pi, wqes0 = at.room.wqes;
	uint8_t db[8];
	int err = 0;

	for (; wr; wr = wr->next) {
		uint32_t nb = post_common(qp, wr, &at);

		if (!nb) {
			/* a copy: the room stays in registers on the path above */
			struct sq_room room = at.room;

			qp->sq.pi = at.pi;
			qp->sq.posted_wqes += wqes0 - at.room.wqes;
			err = post_one_mlx5(qp, wr, &room, &nb);
			if (err) {
				wqes0 = at.room.wqes;
				break;
			}
			at.room = room;
			wqes0 = room.wqes;
		}
		wrid[at.pi & at.mask] = wr->wr_id;
		last_start = at.pi;
		at.pi += nb;
		at.room.blocks -= nb;
		at.room.wqes--;
	}
	qp->sq.pi = at.pi;
	qp->sq.posted_wqes += wqes0 - at.room.wqes;
	qp->post_room_blocks = at.room.blocks;
	qp->post_room_wqes = at.room.wqes;
	if (err)
		*bad_wr = wr;
	if (at.pi == last_start)
		return err;
	/* The doorbell: the record (release), then the first 8 bytes of the
	 * last WQE's control segment: opcode and index, QP number and size. */
	sq_ring_publish(&qp->sq);
	memcpy(db, at.buf + (size_t)(last_start & at.mask) * WQE_BLOCK_SIZE, 8);
	nic_doorbell(qp->context->nic, db);
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
	const struct fmt_ops *ops;
	struct rq_ring *rq;
	bool posted = false;
	int err = 0;

	if (!qp || !wr || !bad_wr)
		return EINVAL;
	if (qp->srq) { /* rxe_post_recv(): its receives come from the SRQ */
		*bad_wr = wr;
		return EINVAL;
	}
	rq = &qp->rq;
	ops = fmt_get(qp->qpc.format);
	for (; wr; wr = wr->next) {
		err = ops ? validate_recv(qp, wr) : EINVAL;
		/* max_recv_wr is the ring's slots (mlx5) or one fewer (rxe:
		 * one slot is kept empty, as rxe's queue_full() does). */
		if (!err && rq->pi - atomic_load_explicit(&rq->ci, memory_order_acquire) >=
				    qp->cap.max_recv_wr)
			err = ENOMEM;
		/* The format's writer (fmt/mlx5_recv.c, fmt/rxe_recv.c) clears
		 * the slot and fills it; it cannot refuse a validated request
		 * for a slot sized by wqe_calc_rq(). */
		if (!err)
			err = ops->encode_recv(wr, rq_ring_slot(rq, rq->pi), rq->stride);
		if (err)
			break;
		qp->rq_wrid[rq->pi & (rq->nslots - 1)] = wr->wr_id;
		rq->pi++;
		posted = true;
	}
	if (err)
		*bad_wr = wr;
	if (posted) {
		rq_ring_publish(rq);
		nic_rq_doorbell(qp->context->nic, &qp->qpc);
	}
	return err;
}
