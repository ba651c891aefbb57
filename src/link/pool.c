/* SPDX-License-Identifier: MIT */
/* Recycled frame buffers: the loopback's queues and the fault injector's
 * held frames take from here and give back, so steady traffic allocates
 * nothing. */
#include <stdlib.h>

#include "link/link_int.h"

/* Buffers hand out an address POOL_SHIFT bytes past a 16-byte boundary,
 * like the NIC's own frame buffer, so a queued IPv4 payload is 8-byte
 * aligned for the copies that follow. */
#define POOL_SHIFT 2u

uint8_t *pool_get(struct frame_pool *p)
{
	uint8_t *b;

	if (p->nfree)
		return p->free[--p->nfree];
	p->allocated++;
	b = malloc(LINK_FRAME_MAX + POOL_SHIFT);
	return b ? b + POOL_SHIFT : NULL;
}

void pool_put(struct frame_pool *p, uint8_t *buf)
{
	if (!buf)
		return;
	if (p->nfree == p->cap) {
		uint32_t nc = p->cap ? p->cap * 2 : 256;
		uint8_t **n = realloc(p->free, nc * sizeof(*n));

		if (!n) {
			free(buf - POOL_SHIFT);
			return;
		}
		p->free = n;
		p->cap = nc;
	}
	p->free[p->nfree++] = buf;
}

void pool_fini(struct frame_pool *p)
{
	for (uint32_t i = 0; i < p->nfree; i++)
		free(p->free[i] - POOL_SHIFT);
	free(p->free);
	p->free = NULL;
	p->nfree = p->cap = 0;
}
