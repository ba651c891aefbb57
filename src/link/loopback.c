/* SPDX-License-Identifier: MIT */
/* The loopback link: an in-process Ethernet segment. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mem.h"
#include "link/link_int.h"

/* The port whose MAC is the frame's destination and whose queue has room,
 * or NULL (counted as a drop). */
static struct link_port *loop_route(struct link_port *from, const uint8_t *frame, size_t len)
{
	struct wqe_link *l = from->link;

	l->stats.frames++;
	if (len < 6 || len > LINK_FRAME_MAX) {
		l->stats.no_destination++;
		return NULL;
	}
	for (uint32_t i = 0; i < LINK_MAX_PORTS; i++) {
		struct link_port *to = &l->port[i];

		if (!to->used || to == from || !memeq6(to->mac, frame))
			continue;
		if (to->head - to->tail == LINK_QUEUE) {
			l->stats.queue_full++;
			return NULL;
		}
		return to;
	}
	l->stats.no_destination++;
	return NULL;
}

static void loop_enqueue(struct link_port *to, uint8_t *buf, size_t len)
{
	to->q[to->head % LINK_QUEUE].data = buf;
	to->q[to->head % LINK_QUEUE].len = len;
	/* A NIC thread that found the queue empty sleeps on the eventfd. */
	if (to->efd >= 0 && to->head == to->tail) {
		uint64_t one = 1;
		ssize_t w = write(to->efd, &one, sizeof(one));

		(void)w; /* fails only at a count of 2^64 - 2 */
	}
	to->head++;
	to->link->stats.delivered++;
}

/* A NIC thread uses the link: every operation holds its lock. */
static void loop_lock(struct wqe_link *l)
{
	if (l->mt)
		pthread_mutex_lock(&l->mu);
}

static void loop_unlock(struct wqe_link *l)
{
	if (l->mt)
		pthread_mutex_unlock(&l->mu);
}

/* Queues a copy of @frame for the port whose MAC is the frame's destination. */
static void xmit_locked(void *port, const uint8_t *frame, size_t len)
{
	struct link_port *to = loop_route(port, frame, len);
	uint8_t *copy;

	if (!to)
		return;
	copy = pool_get(&to->link->pool);
	if (!copy) {
		to->link->stats.queue_full++;
		return;
	}
	memcpy(copy, frame, len);
	loop_enqueue(to, copy, len);
}

static void loop_xmit(void *port, const uint8_t *frame, size_t len)
{
	struct wqe_link *l = ((struct link_port *)port)->link;

	loop_lock(l);
	xmit_locked(port, frame, len);
	loop_unlock(l);
}

static uint8_t *loop_tx_buf(void *port)
{
	struct link_port *p = port;
	uint8_t *b;

	loop_lock(p->link);
	if (!p->spare)
		p->spare = pool_get(&p->link->pool);
	b = p->spare;
	loop_unlock(p->link);
	return b;
}

/* Queues the buffer loop_tx_buf handed out, as it is: no copy. A frame that
 * cannot be queued leaves the buffer with the port for the next one. */
static void loop_xmit_buf(void *port, uint8_t *buf, size_t len)
{
	struct link_port *from = port, *to;

	loop_lock(from->link);
	if (buf != from->spare) {
		xmit_locked(port, buf, len);
	} else {
		to = loop_route(from, buf, len);
		if (to) {
			from->spare = NULL;
			loop_enqueue(to, buf, len);
		}
	}
	loop_unlock(from->link);
}

static const uint8_t *loop_rx_peek(void *port, size_t *len)
{
	struct link_port *p = port;
	const uint8_t *f = NULL;

	loop_lock(p->link);
	if (p->tail != p->head) {
		*len = p->q[p->tail % LINK_QUEUE].len;
		f = p->q[p->tail % LINK_QUEUE].data;
	} else if (p->efd >= 0) {
		uint64_t v;
		ssize_t r = read(p->efd, &v, sizeof(v)); /* empty: not readable */

		(void)r; /* EAGAIN when it was not readable */
	}
	loop_unlock(p->link);
	return f;
}

static void loop_rx_done(void *port)
{
	struct link_port *p = port;
	struct link_frame *f;

	loop_lock(p->link);
	f = &p->q[p->tail % LINK_QUEUE];
	pool_put(&p->link->pool, f->data);
	f->data = NULL;
	p->tail++;
	loop_unlock(p->link);
}

struct wqe_link *wqe_link_loopback_create(void)
{
	struct wqe_link *l = calloc(1, sizeof(*l));

	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	l->kind = LINK_LOOPBACK;
	l->xmit = loop_xmit;
	l->tx_buf = loop_tx_buf;
	l->xmit_buf = loop_xmit_buf;
	l->rx_peek = loop_rx_peek;
	l->rx_done = loop_rx_done;
	return l;
}
