/* SPDX-License-Identifier: MIT */
/* Links (wqe/link.h): ports, the sink, and what is common to every link. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "link/link_int.h"

static struct link_port *port_attach(struct wqe_link *l, const uint8_t mac[6], bool threaded)
{
	for (uint32_t i = 0; i < LINK_MAX_PORTS; i++) {
		struct link_port *p = &l->port[i];

		if (p->used)
			continue;
		memset(p, 0, sizeof(*p));
		p->efd = -1;
		if (l->kind == LINK_LOOPBACK) {
			p->q = calloc(LINK_QUEUE, sizeof(*p->q));
			if (!p->q) {
				errno = ENOMEM;
				return NULL;
			}
			if (threaded) {
				p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
				if (p->efd < 0) {
					free(p->q);
					p->q = NULL;
					return NULL;
				}
			}
		}
		if (l->kind == LINK_FAULT) {
			/* counted as a user of the inner link, which therefore
			 * cannot be destroyed under the fault link */
			p->inner = link_port_attach(l->inner, mac, threaded);
			if (!p->inner)
				return NULL;
			p->inner->behind_fault = true;
		}
		p->link = l;
		p->used = true;
		memcpy(p->mac, mac, 6);
		l->users++;
		return p;
	}
	errno = ENOMEM;
	return NULL;
}

int link_poll_fd(const struct link_port *p)
{
	/* A fault injector holds frames of every context attached to it:
	 * only one around a UDP link (which takes one context) has no state
	 * two NIC threads could share. */
	if (p->link->kind == LINK_FAULT)
		return p->inner->link->kind == LINK_UDP ? p->inner->link->udp.rx_fd : -1;
	if (p->link->kind == LINK_UDP)
		return p->link->udp.rx_fd;
	return p->efd;
}

struct link_port *link_port_attach(struct wqe_link *l, const uint8_t mac[6], bool threaded)
{
	/* Another NIC thread may be routing frames over the ports. */
	bool mt = l->kind == LINK_LOOPBACK && (l->mt || threaded);
	struct link_port *p;

	if (mt && !l->mt) {
		/* Its contexts' NICs hold the operations they were given at
		 * attach: a link its first port makes threaded has only ever
		 * had the locking ones. */
		if (l->users) {
			errno = ENOTSUP;
			return NULL;
		}
		pthread_mutex_init(&l->mu, NULL);
		l->make_mt(l);
		l->mt = true; /* for the link's life */
	}
	if (mt)
		pthread_mutex_lock(&l->mu);
	p = port_attach(l, mac, threaded);
	if (mt)
		pthread_mutex_unlock(&l->mu);
	return p;
}

static void port_detach(struct link_port *p)
{
	struct wqe_link *l = p->link;

	if (p->q) {
		for (uint32_t i = p->tail; i != p->head; i++)
			pool_put(&l->pool, p->q[i % LINK_QUEUE].data);
		free(p->q);
	}
	pool_put(&l->pool, p->spare);
	if (p->efd >= 0)
		close(p->efd);
	if (p->inner)
		link_port_detach(p->inner);
	memset(p, 0, sizeof(*p));
	p->efd = -1;
	l->users--;
}

void link_port_detach(struct link_port *p)
{
	struct wqe_link *l = p->link;

	if (l->mt)
		pthread_mutex_lock(&l->mu);
	port_detach(p);
	if (l->mt)
		pthread_mutex_unlock(&l->mu);
}

static void sink_xmit(void *port, const uint8_t *frame, size_t len)
{
	struct wqe_link *l = ((struct link_port *)port)->link;
	uint8_t *copy;

	l->stats.frames++;
	if (l->count == l->max) {
		l->stats.queue_full++;
		return;
	}
	copy = malloc(len ? len : 1);
	if (!copy) {
		l->stats.queue_full++;
		return;
	}
	memcpy(copy, frame, len);
	l->frames[l->count].data = copy;
	l->frames[l->count].len = len;
	l->count++;
	l->stats.delivered++;
}

static const uint8_t *no_rx(void *port, size_t *len)
{
	(void)port;
	(void)len;
	return NULL;
}

static void no_done(void *port)
{
	(void)port;
}

struct wqe_link *wqe_link_sink_create(uint32_t max_frames)
{
	struct wqe_link *l;

	if (max_frames < 1 || max_frames > (1u << 20)) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (l)
		l->frames = calloc(max_frames, sizeof(*l->frames));
	if (!l || !l->frames) {
		free(l);
		errno = ENOMEM;
		return NULL;
	}
	l->kind = LINK_SINK;
	l->max = max_frames;
	l->xmit = sink_xmit;
	l->rx_peek = no_rx;
	l->rx_done = no_done;
	return l;
}

size_t wqe_link_sink_count(const struct wqe_link *l)
{
	return l && l->kind == LINK_SINK ? l->count : 0;
}

uint64_t wqe_link_sink_dropped(const struct wqe_link *l)
{
	return l && l->kind == LINK_SINK ? l->stats.queue_full : 0;
}

int wqe_link_sink_frame(const struct wqe_link *l, size_t i, const uint8_t **frame, size_t *len)
{
	if (!l || l->kind != LINK_SINK || i >= l->count || !frame || !len)
		return EINVAL;
	*frame = l->frames[i].data;
	*len = l->frames[i].len;
	return 0;
}

void wqe_link_sink_clear(struct wqe_link *l)
{
	if (!l || l->kind != LINK_SINK)
		return;
	for (size_t i = 0; i < l->count; i++)
		free(l->frames[i].data);
	l->count = 0;
	l->stats.queue_full = 0;
}

int wqe_link_stats(const struct wqe_link *l, struct wqe_link_stats *s)
{
	if (!l || !s)
		return EINVAL;
	if (l->guard)
		l->guard(l->guard_arg, 1);
	if (l->mt)
		pthread_mutex_lock(&((struct wqe_link *)l)->mu);
	*s = l->stats;
	if (l->mt)
		pthread_mutex_unlock(&((struct wqe_link *)l)->mu);
	if (l->guard)
		l->guard(l->guard_arg, 0);
	return 0;
}

int wqe_link_destroy(struct wqe_link *l)
{
	if (!l)
		return EINVAL;
	if (l->users)
		return EBUSY;
	if (l->fini)
		l->fini(l);
	wqe_link_sink_clear(l);
	for (uint32_t i = 0; i < l->nheld; i++)
		pool_put(&l->pool, l->held[i].data);
	pool_fini(&l->pool);
	free(l->frames);
	if (l->mt)
		pthread_mutex_destroy(&l->mu);
	free(l);
	return 0;
}
