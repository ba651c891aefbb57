/* SPDX-License-Identifier: MIT */
#include "tables/qpc.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define QPN_MAX 0xffffffu

static_assert(offsetof(struct qpc, av.dgid) + sizeof(union wqe_gid) <= 64,
	      "the receive filter's fields fit the context's first 64 bytes");
static_assert(offsetof(struct qpc, qkey) + sizeof(uint32_t) <= 128,
	      "the per-packet fields fit the context's first 128 bytes");

int cqc_init(struct cqc *c, uint32_t depth)
{
	uint32_t n = 1;

	memset(c, 0, sizeof(*c));
	while (n < depth)
		n <<= 1;
	c->ring = calloc(n, sizeof(*c->ring));
	if (!c->ring)
		return -1;
	c->nslots = n;
	c->depth = depth;
	atomic_init(&c->pi_pub, 0);
	atomic_init(&c->ci, 0);
	return 0;
}

void cqc_fini(struct cqc *c)
{
	free(c->ring);
	c->ring = NULL;
}

/*
 * Rule (IBTA vol. 1 11.4.2.2, ibv_req_notify_cq(3)): armed for the next
 * completion, any completion added fires the event; armed for a solicited
 * one, a completion fires it if it is "solicited": a receive completion
 * of a message whose last packet had SE set, or any completion whose
 * status is not success (flushes included). One event per arm.
 */
static bool arm_matches(uint8_t arm, const struct cqe *e)
{
	if (arm == CQ_ARM_NEXT)
		return true;
	return arm == CQ_ARM_SOLICITED &&
	       (e->status != WQE_WC_SUCCESS || (e->is_recv && e->solicited));
}

bool cqc_push(struct cqc *c, const struct cqe *e)
{
	uint32_t ci = atomic_load_explicit(&c->ci, memory_order_acquire);

	uint8_t arm;

	if (atomic_load_explicit(&c->overrun, memory_order_relaxed) || c->pi - ci >= c->depth) {
		atomic_store_explicit(&c->overrun, true, memory_order_relaxed);
		c->lost++;
		return false;
	}
	c->ring[c->pi & (c->nslots - 1)] = *e;
	c->pi++;
	/* Release: the entry is written before software can see it. */
	atomic_store_explicit(&c->pi_pub, c->pi, memory_order_release);
	/* The store above and the load of the arm below against software's
	 * store of the arm and its poll's load of pi_pub (cqc_arm_set()):
	 * each side stores, then loads what the other stored. Without a full
	 * fence on both sides the CPU may let each load pass its own store
	 * (x86 does: store buffers), both see the old value, and the event
	 * is lost while the CQ holds a completion: measured as a one-in-30
	 * hang of `ibv_rc_pingpong -e` on a loaded machine. */
	if (c->event)
		atomic_thread_fence(memory_order_seq_cst);
	/* One event per arm: the exchange to NONE decides, against software
	 * raising the arm at the same time (a failed exchange reloads @arm,
	 * which NEXT only ever raises). */
	arm = atomic_load_explicit(&c->arm, memory_order_acquire);
	while (arm != CQ_ARM_NONE && arm_matches(arm, e)) {
		if (atomic_compare_exchange_weak_explicit(&c->arm, &arm, CQ_ARM_NONE,
							  memory_order_acq_rel,
							  memory_order_acquire)) {
			if (c->event)
				c->event(c);
			break;
		}
	}
	return true;
}

enum cq_arm cqc_arm_raise(struct cqc *c, enum cq_arm a)
{
	uint8_t cur = atomic_load_explicit(&c->arm, memory_order_acquire);

	while (cur != CQ_ARM_NONE) {
		if (cur >= a)
			return (enum cq_arm)cur;
		if (atomic_compare_exchange_weak_explicit(&c->arm, &cur, (uint8_t)a,
							  memory_order_acq_rel,
							  memory_order_acquire)) {
			atomic_thread_fence(memory_order_seq_cst); /* cqc_push() says why */
			return a;
		}
	}
	return CQ_ARM_NONE;
}

void cqc_arm_set(struct cqc *c, enum cq_arm a)
{
	/* Seq_cst, and a full fence before the poll that follows in the
	 * usual loop (arm, poll empty, wait): they pair with the engine's
	 * fence between publishing an entry and loading the arm (cqc_push()). */
	atomic_store_explicit(&c->arm, (uint8_t)a, memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
}

bool cqc_disarm(struct cqc *c)
{
	return atomic_exchange_explicit(&c->arm, CQ_ARM_NONE, memory_order_acq_rel) != CQ_ARM_NONE;
}

int qp_table_init(struct qp_table *t, uint32_t base)
{
	memset(t, 0, sizeof(*t));
	t->base = base < QPN_BASE ? QPN_BASE : base;
	return 0;
}

void qp_table_fini(struct qp_table *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

int qp_table_add(struct qp_table *t, struct qpc *q)
{
	/* The numbers the table may reach: base .. QPN_MAX. */
	uint64_t room = (uint64_t)QPN_MAX + 1 - t->base;
	uint32_t i;

	/* At most half full before a search, so that it ends within a few
	 * slots on average: creating N QPs costs O(N). */
	if ((uint64_t)t->used * 2 >= t->cap && t->cap < room) {
		uint32_t ncap = t->cap ? t->cap * 2 : 64;
		struct qpc **ns;

		if (ncap > room)
			ncap = (uint32_t)room;
		ns = realloc(t->slot, ncap * sizeof(*ns));
		if (ns) {
			memset(ns + t->cap, 0, (ncap - t->cap) * sizeof(*ns));
			t->slot = ns;
			t->cap = ncap;
		} /* else the slots there are, if one is free */
	}
	if (t->used == t->cap)
		return -1;
	for (i = t->next < t->cap ? t->next : 0; t->slot[i]; i = i + 1 < t->cap ? i + 1 : 0)
		;
	t->slot[i] = q;
	t->used++;
	t->next = i + 1;
	q->qpn = t->base + i;
	return 0;
}

int qp_table_add_gsi(struct qp_table *t, struct qpc *q)
{
	if (t->gsi)
		return -1;
	t->gsi = q;
	q->qpn = QPN_GSI;
	return 0;
}

void qp_table_remove(struct qp_table *t, uint32_t qpn)
{
	uint32_t i = qpn - t->base;

	if (qpn == QPN_GSI) {
		t->gsi = NULL;
		return;
	}
	if (qpn >= t->base && i < t->cap && t->slot[i]) {
		t->slot[i] = NULL;
		t->used--;
	}
}
