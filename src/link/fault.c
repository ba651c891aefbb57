/* SPDX-License-Identifier: MIT */
/*
 * The fault injector: a link that wraps a loopback or a UDP link and, from
 * a seeded generator, drops, duplicates, reorders, delays and corrupts the
 * frames sent through it (on a UDP link: before they reach the socket). The same seed and the same sequence of frames give the
 * same faults.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "link/link_int.h"

static uint64_t rng_next(struct wqe_link *l)
{
	/* splitmix64 */
	uint64_t z = (l->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool chance(struct wqe_link *l, double p)
{
	if (p <= 0)
		return false;
	return (double)(rng_next(l) >> 11) * 0x1.0p-53 < p;
}

static void pass(struct link_port *from, const uint8_t *frame, size_t len)
{
	from->inner->link->xmit(from->inner, frame, len);
}

/* Releases held frames due by frame count @now (all of them with @all). */
static void release(struct wqe_link *l, uint64_t now, bool all)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < l->nheld; i++) {
		if (all || l->held[i].due_ns <= now) {
			pass(l->held_from[i], l->held[i].data, l->held[i].len);
			pool_put(&l->pool, l->held[i].data);
		} else {
			l->held[k] = l->held[i];
			l->held_from[k] = l->held_from[i];
			k++;
		}
	}
	l->nheld = k;
}

static bool hold(struct wqe_link *l, struct link_port *from, const uint8_t *frame, size_t len,
		 uint64_t due)
{
	uint8_t *copy;

	if (l->nheld == sizeof(l->held) / sizeof(l->held[0]))
		return false;
	copy = len <= LINK_FRAME_MAX ? pool_get(&l->pool) : NULL;
	if (!copy)
		return false;
	memcpy(copy, frame, len);
	l->held[l->nheld].data = copy;
	l->held[l->nheld].len = len;
	l->held[l->nheld].due_ns = due;
	l->held_from[l->nheld] = from;
	l->nheld++;
	return true;
}

static void fault_xmit(void *port, const uint8_t *frame, size_t len)
{
	struct link_port *from = port;
	struct wqe_link *l = from->link;
	uint8_t buf[LINK_FRAME_MAX];
	int copies = 1;

	l->stats.frames++;
	if (len > LINK_FRAME_MAX || chance(l, l->cfg.drop)) {
		l->stats.dropped++;
		release(l, l->stats.frames, false);
		return;
	}
	memcpy(buf, frame, len);
	if (len && chance(l, l->cfg.corrupt)) {
		uint64_t r = rng_next(l);

		buf[r % len] ^= (uint8_t)(1u << ((r >> 32) & 7));
		l->stats.corrupted++;
	}
	if (chance(l, l->cfg.duplicate)) {
		copies = 2;
		l->stats.duplicated++;
	}
	if (chance(l, l->cfg.reorder) && hold(l, from, buf, len, l->stats.frames + 1)) {
		l->stats.reordered++;
		return;
	}
	if (chance(l, l->cfg.delay) &&
	    hold(l, from, buf, len,
		 l->stats.frames + (l->cfg.delay_frames ? l->cfg.delay_frames : 8))) {
		l->stats.delayed++;
		return;
	}
	for (int i = 0; i < copies; i++)
		pass(from, buf, len);
	l->stats.delivered++;
	release(l, l->stats.frames, false);
}

static const uint8_t *fault_rx_peek(void *port, size_t *len)
{
	struct link_port *p = port;
	struct wqe_link *l = p->link;
	const uint8_t *f = l->inner->rx_peek(p->inner, len);

	/* Nothing is arriving: whatever is held goes now, so a held frame
	 * can never stall the exchange. */
	if (!f && l->nheld) {
		release(l, 0, true);
		f = l->inner->rx_peek(p->inner, len);
	}
	return f;
}

static void fault_rx_done(void *port)
{
	struct link_port *p = port;

	p->link->inner->rx_done(p->inner);
}

/* Frames passed on wait in the inner link's queue (UDP) until this. */
static void fault_flush(void *port)
{
	struct link_port *p = port;

	p->inner->link->flush(p->inner);
}

struct wqe_link *wqe_link_fault_create(struct wqe_link *inner, const struct wqe_fault_cfg *cfg)
{
	struct wqe_link *l;
	const double r[5] = {cfg ? cfg->drop : 0, cfg ? cfg->duplicate : 0,
			     cfg ? cfg->reorder : 0, cfg ? cfg->delay : 0,
			     cfg ? cfg->corrupt : 0};

	if (!inner || !cfg || (inner->kind != LINK_LOOPBACK && inner->kind != LINK_UDP)) {
		errno = EINVAL;
		return NULL;
	}
	for (int i = 0; i < 5; i++)
		if (!(r[i] >= 0 && r[i] <= 1)) {
			errno = EINVAL;
			return NULL;
		}
	l = calloc(1, sizeof(*l));
	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	l->kind = LINK_FAULT;
	l->inner = inner;
	l->cfg = *cfg;
	l->rng = cfg->seed;
	l->xmit = fault_xmit;
	l->rx_peek = fault_rx_peek;
	l->rx_done = fault_rx_done;
	l->flush = inner->flush ? fault_flush : NULL;
	return l;
}
