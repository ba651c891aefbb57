/* SPDX-License-Identifier: MIT */
/*
 * ring.h - send and receive rings in host memory, their doorbell records,
 * and the doorbell register.
 *
 * A send ring is a power-of-two array of 64-byte blocks. Its counters are
 * free-running 32-bit block counts, masked on use:
 *   - pi:       the producer counter, private to the posting side;
 *   - dbrec:    the doorbell record, pi published by one release store per
 *               post call; the engine reads it with acquire;
 *   - ci:       blocks the engine has retired (completed or flushed),
 *               published by the engine with release, read by the posting
 *               side with acquire to reclaim space;
 *   - ci_wqes:  WQEs retired, the same way.
 * A receive ring is a power-of-two array of fixed-size slots, one receive
 * WQE each (the format's: mlx5 data segments or struct rxe_recv_wqe),
 * counted in slots. pi and ci are free-running slot counters; the doorbell
 * record holds pi itself (mlx5) or, with @masked (rxe), pi masked to the
 * ring, one slot always kept empty so that a full ring and an empty one
 * differ -- the mirror of the send ring's slot_blocks.
 */
#ifndef WQE_RING_RING_H
#define WQE_RING_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sq_ring {
	uint8_t *buf;            /* nblocks x 64 bytes, 64-byte aligned */
	uint32_t nblocks;        /* power of two */
	/* 0: WQEs of any number of blocks (mlx5), the doorbell record holds
	 * the free-running block counter. Else every WQE fills one slot of
	 * this many blocks (rxe): the record holds the masked slot index and
	 * one slot is always kept empty. */
	uint32_t slot_blocks;
	uint32_t pi;             /* producer, in blocks (posting side only) */
	uint32_t posted_wqes;    /* WQEs posted (posting side only) */
	_Atomic uint32_t dbrec;  /* doorbell record: published pi */
	_Atomic uint32_t ci;     /* blocks retired by the engine */
	_Atomic uint32_t ci_wqes; /* WQEs retired by the engine */
};

struct rq_ring {
	uint8_t *buf;            /* nslots x stride bytes */
	uint32_t nslots;         /* power of two */
	uint32_t stride;         /* bytes per slot (wqe_calc_rq), power of two */
	bool masked;             /* rxe: dbrec holds pi & (nslots - 1) */
	uint32_t pi;             /* producer, in slots (posting side only) */
	_Atomic uint32_t dbrec;  /* published pi (masked with @masked) */
	_Atomic uint32_t ci;     /* slots consumed by the engine */
};

int sq_ring_init(struct sq_ring *r, uint32_t nblocks);
void sq_ring_fini(struct sq_ring *r);
/* Blocks free for the posting side (acquire on ci); with slots, one slot
 * is kept empty. Inline, as the next three: the post path calls them on
 * every post call. */
static inline uint32_t sq_ring_free_blocks(const struct sq_ring *r)
{
	/* Acquire pairs with the engine's release after it has finished
	 * reading the blocks it retires: they may be overwritten now. */
	uint32_t ci = atomic_load_explicit(&r->ci, memory_order_acquire);
	uint32_t used = r->pi - ci + r->slot_blocks;

	return used >= r->nblocks ? 0 : r->nblocks - used;
}

/* Publishes pi in the doorbell record (one release store). */
static inline void sq_ring_publish(struct sq_ring *r)
{
	/* Release: every WQE byte written before this store is visible to
	 * an engine that reads the doorbell record with acquire. */
	uint32_t v = r->pi;

	if (r->slot_blocks)
		v = (r->pi / r->slot_blocks) & (r->nblocks / r->slot_blocks - 1);
	atomic_store_explicit(&r->dbrec, v, memory_order_release);
}
/*
 * The producer counter as the engine reads it from the doorbell record
 * (acquire), as a free-running block counter. @ref is a counter the engine
 * holds (its fetch or consumer counter): with slots the record is a masked
 * index, and the producer is at most one ring ahead of @ref.
 */
uint32_t sq_ring_producer(const struct sq_ring *r, uint32_t ref);
/* Pointer to block @counter (masked). */
static inline uint8_t *sq_ring_block(const struct sq_ring *r, uint32_t counter)
{
	return r->buf + (size_t)(counter & (r->nblocks - 1)) * 64u;
}

int rq_ring_init(struct rq_ring *r, uint32_t nslots, uint32_t stride, bool masked);
void rq_ring_fini(struct rq_ring *r);
uint8_t *rq_ring_slot(const struct rq_ring *r, uint32_t counter);

/* Publishes pi in the doorbell record (one release store per post call). */
static inline void rq_ring_publish(struct rq_ring *r)
{
	/* Release: every receive WQE byte written before this store is
	 * visible to an engine that reads the record with acquire. */
	uint32_t v = r->masked ? r->pi & (r->nslots - 1) : r->pi;

	atomic_store_explicit(&r->dbrec, v, memory_order_release);
}

/*
 * The producer counter as the engine reads it from the doorbell record
 * (acquire), as a free-running slot counter. @ref is the engine's consumer
 * counter: with @masked the record is a masked index and the producer is
 * less than a ring ahead of @ref (one slot is kept empty).
 */
static inline uint32_t rq_ring_producer(const struct rq_ring *r, uint32_t ref)
{
	uint32_t v = atomic_load_explicit(&r->dbrec, memory_order_acquire);

	return r->masked ? ref + ((v - ref) & (r->nslots - 1)) : v;
}

/*
 * The doorbell register: a small mailbox of 8-byte writes the engine drains.
 * Real hardware takes one MMIO write; we keep the last writes in order so
 * the engine sees each. A full mailbox drops the oldest (the doorbell record
 * still tells the engine the truth; the register only says "look").
 */
#define DB_MAILBOX 64u
struct doorbell_reg {
	uint8_t val[DB_MAILBOX][8];
	uint32_t head;
	uint32_t tail;
	uint64_t writes;
};

static inline void doorbell_write(struct doorbell_reg *d, const uint8_t val[8])
{
	if (d->head - d->tail == DB_MAILBOX)
		d->tail++;
	memcpy(d->val[d->head % DB_MAILBOX], val, 8);
	d->head++;
	d->writes++;
}
/* Takes the oldest write into @val; false if none. */
bool doorbell_read(struct doorbell_reg *d, uint8_t val[8]);

#endif
