/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues: the driver's side (wqe/verbs.h says what the
 * user sees, tables/qpc.h's struct srqc what the NIC does with the ring).
 *
 * mlx5 keeps its free slots in a list linked through each slot's next
 * segment (rdma-core's mlx5 provider: mlx5_alloc_srq_buf() links slot i
 * to i + 1, post takes the head, poll puts the slot back after the tail),
 * so that QPs finishing their WQEs out of order never leave a hole; the
 * NIC follows the same links. rxe's ring is a plain one: the NIC copies a
 * WQE out when it takes it, so slots come back in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/limits.h"
#include "verbs/verbs_int.h"

/* The ring's sizes for @a (max_wr, max_sge) in @fmt: 0 or EINVAL. */
static int srq_size(enum wqe_format fmt, const struct wqe_srq_attr *a, uint32_t *stride,
		    uint32_t *nslots)
{
	struct wqe_qp_cap cap = {.max_recv_wr = a->max_wr, .max_recv_sge = a->max_sge};
	uint32_t s, n;

	/* The RQ's limits and rxe's sizes (rxe_srq_from_init() sizes an SRQ
	 * as rxe_init_rq() an RQ: max_wr + 1 slots). */
	if (a->max_wr < 1 || wqe_calc_rq(fmt, &cap, &s, &n))
		return EINVAL;
	if (fmt == WQE_FORMAT_MLX5) {
		/* mlx5_alloc_srq_buf(): the next segment and the data segments,
		 * at least 32 bytes; max_wr + 1 slots, one never posted. */
		uint32_t want = SRQ_MLX5_NEXT_LEN + 16u * a->max_sge;

		for (s = 32; s < want; s <<= 1)
			;
		for (n = 1; n < a->max_wr + 1; n <<= 1)
			;
	}
	*stride = s;
	*nslots = n;
	return 0;
}

/* Slot @i's next_wqe_index (mlx5_wqe_srq_next_seg, big-endian at byte 2). */
static void set_next(struct wqe_srq *srq, uint32_t i, uint32_t next)
{
	put_be16(rq_ring_slot(&srq->ring, i) + 2, (uint16_t)next);
}

static uint32_t get_next(const struct wqe_srq *srq, uint32_t i)
{
	return get_be16(rq_ring_slot(&srq->ring, i) + 2) & (srq->ring.nslots - 1);
}

/* A free slot of the context's table, and the SRQ's number: 0 or ENOMEM.
 * Under the command bracket. */
static int srq_register(struct wqe_context *ctx, struct wqe_srq *srq)
{
	for (uint32_t i = 0; i < VERBS_MAX_SRQ; i++) {
		if (atomic_load_explicit(&ctx->srqs[i], memory_order_relaxed))
			continue;
		/* A generation above the slot: a completion of an SRQ gone
		 * never finds the next SRQ in the same slot. */
		ctx->srq_gen = (ctx->srq_gen + 1) & 0x3fffffu;
		if (!ctx->srq_gen)
			ctx->srq_gen = 1;
		srq->srqc.srqn = ctx->srq_gen * VERBS_MAX_SRQ + i;
		/* Release: the SRQ is whole before poll can find it. */
		atomic_store_explicit(&ctx->srqs[i], srq, memory_order_release);
		return 0;
	}
	return ENOMEM;
}

static void free_srq(struct wqe_srq *srq)
{
	rq_ring_fini(&srq->ring);
	free(srq->wrid);
	pthread_spin_destroy(&srq->lock);
	free(srq);
}

struct wqe_srq *wqe_create_srq(struct wqe_pd *pd, struct wqe_srq_init_attr *attr)
{
	struct wqe_context *ctx;
	struct wqe_srq *srq;
	uint32_t stride, nslots;
	enum wqe_format fmt;
	int err;

	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	ctx = pd->context;
	fmt = ctx->attr.format;
	if (srq_size(fmt, &attr->attr, &stride, &nslots) || attr->attr.srq_limit > nslots - 1) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	if (pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	err = rq_ring_init(&srq->ring, nslots, stride, fmt == WQE_FORMAT_RXE) ? ENOMEM : 0;
	srq->wrid = calloc(nslots, sizeof(*srq->wrid));
	if (!err && !srq->wrid)
		err = ENOMEM;
	if (err) {
		free_srq(srq);
		errno = err;
		return NULL;
	}
	srq->context = ctx;
	srq->pd = pd;
	srq->max_wr = nslots - 1;
	srq->max_sge = attr->attr.max_sge;
	srq->srq_context = attr->srq_context;
	if (fmt == WQE_FORMAT_MLX5) {
		for (uint32_t i = 0; i < nslots; i++)
			set_next(srq, i, (i + 1) & (nslots - 1));
		srq->head = 0;
		srq->tail = nslots - 1;
	}
	srq->srqc.rq = &srq->ring;
	srq->srqc.pd = pd->handle;
	srq->srqc.format = fmt;
	err = verbs_async_reserve(ctx, ASYNC_SRQ_ROOM);
	if (!err) {
		nic_cmd_begin(ctx->nic);
		err = srq_register(ctx, srq);
		if (!err) {
			nic_srq_create(ctx->nic, &srq->srqc);
			/* rxe_srq_from_init(): the limit given at creation is armed. */
			nic_srq_arm(ctx->nic, &srq->srqc, attr->attr.srq_limit);
		}
		nic_cmd_end(ctx->nic);
		if (err)
			verbs_async_unreserve(ctx, ASYNC_SRQ_ROOM);
	}
	if (err) {
		free_srq(srq);
		errno = err;
		return NULL;
	}
	attr->attr.max_wr = srq->max_wr;
	attr->attr.max_sge = srq->max_sge;
	pd->refs++;
	ctx->nsrq++;
	return srq;
}

int wqe_modify_srq(struct wqe_srq *srq, struct wqe_srq_attr *attr, int attr_mask)
{
	if (!srq || !attr || (attr_mask & ~(WQE_SRQ_MAX_WR | WQE_SRQ_LIMIT)) ||
	    (attr_mask & WQE_SRQ_MAX_WR))
		return EINVAL;
	if (!(attr_mask & WQE_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->max_wr)
		return EINVAL;
	nic_cmd_begin(srq->context->nic);
	nic_srq_arm(srq->context->nic, &srq->srqc, attr->srq_limit);
	nic_cmd_end(srq->context->nic);
	return 0;
}

int wqe_query_srq(struct wqe_srq *srq, struct wqe_srq_attr *attr)
{
	if (!srq || !attr)
		return EINVAL;
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	nic_cmd_begin(srq->context->nic);
	attr->srq_limit = srq->srqc.limit;
	nic_cmd_end(srq->context->nic);
	return 0;
}

int wqe_destroy_srq(struct wqe_srq *srq)
{
	struct wqe_context *ctx;

	if (!srq)
		return EINVAL;
	ctx = srq->context;
	if (atomic_load(&srq->refs))
		return EBUSY;
	nic_cmd_begin(ctx->nic);
	if (verbs_async_detach_srq(srq)) {
		nic_cmd_end(ctx->nic);
		return EBUSY;
	}
	atomic_store_explicit(&ctx->srqs[srq->srqc.srqn % VERBS_MAX_SRQ], NULL,
			      memory_order_release);
	nic_srq_destroy(ctx->nic, &srq->srqc);
	nic_cmd_end(ctx->nic);
	srq->pd->refs--;
	ctx->nsrq--;
	free_srq(srq);
	return 0;
}

void *wqe_srq_context(const struct wqe_srq *srq)
{
	return srq ? srq->srq_context : NULL;
}

static int validate(const struct wqe_srq *srq, const struct wqe_recv_wr *wr)
{
	uint64_t total = 0;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge ||
	    (wr->num_sge > 0 && !wr->sg_list))
		return EINVAL;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	return total > MAX_MSG ? EINVAL : 0;
}

/* Writes @wr into the next slot and advances: 0 or ENOMEM (full). Under
 * the SRQ's lock. */
static int post_one(struct wqe_srq *srq, const struct wqe_recv_wr *wr)
{
	struct rq_ring *r = &srq->ring;
	uint32_t idx;

	if (srq->srqc.format == WQE_FORMAT_MLX5) {
		if (srq->head == srq->tail)
			return ENOMEM;
		idx = srq->head;
		/* The data segments after the next segment, which keeps its
		 * link: a validated request always fits (srq_size()). */
		if (wqe_encode_recv(WQE_FORMAT_MLX5, wr, rq_ring_slot(r, idx) + SRQ_MLX5_NEXT_LEN,
				    r->stride - SRQ_MLX5_NEXT_LEN))
			return EINVAL;
		srq->head = get_next(srq, idx);
	} else {
		/* Acquire: the NIC has copied the slots it retired. */
		if (r->pi - atomic_load_explicit(&r->ci, memory_order_acquire) >= srq->max_wr)
			return ENOMEM;
		idx = r->pi & (r->nslots - 1);
		if (wqe_encode_recv(WQE_FORMAT_RXE, wr, rq_ring_slot(r, r->pi), r->stride))
			return EINVAL;
	}
	srq->wrid[idx] = wr->wr_id;
	r->pi++;
	return 0;
}

int wqe_post_srq_recv(struct wqe_srq *srq, struct wqe_recv_wr *wr, struct wqe_recv_wr **bad_wr)
{
	bool posted = false;
	int err = 0;

	if (!srq || !wr || !bad_wr)
		return EINVAL;
	pthread_spin_lock(&srq->lock);
	for (; wr; wr = wr->next) {
		err = validate(srq, wr);
		if (!err)
			err = post_one(srq, wr);
		if (err)
			break;
		posted = true;
	}
	if (posted)
		rq_ring_publish(&srq->ring); /* release: the slots' bytes first */
	pthread_spin_unlock(&srq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

uint64_t verbs_srq_complete(struct wqe_srq *srq, const struct cqe *e)
{
	uint32_t idx = e->wqe_counter & (srq->ring.nslots - 1);
	uint64_t wr_id;

	if (srq->srqc.format != WQE_FORMAT_MLX5)
		return e->wr_id;
	pthread_spin_lock(&srq->lock);
	wr_id = srq->wrid[idx];
	/* mlx5_free_srq_wqe(): after the tail, which it becomes. */
	set_next(srq, srq->tail, idx);
	srq->tail = idx;
	pthread_spin_unlock(&srq->lock);
	return wr_id;
}
