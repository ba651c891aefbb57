/* SPDX-License-Identifier: MIT */
#include "ring/ring.h"

#include <stdlib.h>
#include <string.h>

static void *alloc_aligned(size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, n))
		return NULL;
	memset(p, 0, n);
	return p;
}

int sq_ring_init(struct sq_ring *r, uint32_t nblocks)
{
	memset(r, 0, sizeof(*r));
	if (nblocks == 0 || (nblocks & (nblocks - 1)))
		return -1;
	r->buf = alloc_aligned((size_t)nblocks * 64u);
	if (!r->buf)
		return -1;
	r->nblocks = nblocks;
	atomic_init(&r->dbrec, 0);
	atomic_init(&r->ci, 0);
	atomic_init(&r->ci_wqes, 0);
	return 0;
}

void sq_ring_fini(struct sq_ring *r)
{
	free(r->buf);
	r->buf = NULL;
}

uint32_t sq_ring_producer(const struct sq_ring *r, uint32_t ref)
{
	uint32_t v = atomic_load_explicit(&r->dbrec, memory_order_acquire);
	uint32_t mask;

	if (!r->slot_blocks)
		return v;
	mask = r->nblocks / r->slot_blocks - 1;
	return ref + ((v - ref / r->slot_blocks) & mask) * r->slot_blocks;
}

int rq_ring_init(struct rq_ring *r, uint32_t nslots, uint32_t stride, bool masked)
{
	memset(r, 0, sizeof(*r));
	if (nslots == 0 || (nslots & (nslots - 1)) || stride == 0)
		return -1;
	r->buf = alloc_aligned((size_t)nslots * stride);
	if (!r->buf)
		return -1;
	r->nslots = nslots;
	r->stride = stride;
	r->masked = masked;
	atomic_init(&r->dbrec, 0);
	atomic_init(&r->ci, 0);
	return 0;
}

void rq_ring_fini(struct rq_ring *r)
{
	free(r->buf);
	r->buf = NULL;
}

uint8_t *rq_ring_slot(const struct rq_ring *r, uint32_t counter)
{
	return r->buf + (size_t)(counter & (r->nslots - 1)) * r->stride;
}

bool doorbell_read(struct doorbell_reg *d, uint8_t val[8])
{
	if (d->head == d->tail)
		return false;
	memcpy(val, d->val[d->tail % DB_MAILBOX], 8);
	d->tail++;
	return true;
}
