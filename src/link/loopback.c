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

static inline void loop_enqueue(struct link_port *to, uint8_t *buf, size_t len)
{
	to->q[to->head % LINK_QUEUE].data = buf;
	to->q[to->head % LINK_QUEUE].len = len;
	to->head++;
	to->link->stats.delivered++;
	/* A threaded port whose NIC is about to sleep (mt_rx_arm()): this
	 * frame wakes it. Never set on a link no NIC thread uses. */
	if (__builtin_expect(to->armed, 0)) {
		uint64_t one = 1;
		ssize_t w;

		to->armed = false;
		w = write(to->efd, &one, sizeof(one));
		(void)w; /* fails only at a count of 2^64 - 2 */
	}
}

/* Queues a copy of @frame for the port whose MAC is the frame's destination. */
static void loop_xmit(void *port, const uint8_t *frame, size_t len)
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

static uint8_t *loop_tx_buf(void *port)
{
	struct link_port *p = port;

	if (!p->spare)
		p->spare = pool_get(&p->link->pool);
	return p->spare;
}

/* Queues the buffer loop_tx_buf handed out, as it is: no copy. A frame that
 * cannot be queued leaves the buffer with the port for the next one. */
static void loop_xmit_buf(void *port, uint8_t *buf, size_t len)
{
	struct link_port *from = port, *to;

	if (buf != from->spare) {
		loop_xmit(port, buf, len);
		return;
	}
	to = loop_route(from, buf, len);
	if (!to)
		return;
	from->spare = NULL;
	loop_enqueue(to, buf, len);
}

static const uint8_t *loop_rx_peek(void *port, size_t *len)
{
	struct link_port *p = port;

	if (p->tail == p->head)
		return NULL;
	*len = p->q[p->tail % LINK_QUEUE].len;
	return p->q[p->tail % LINK_QUEUE].data;
}

static void loop_rx_done(void *port)
{
	struct link_port *p = port;
	struct link_frame *f = &p->q[p->tail % LINK_QUEUE];

	pool_put(&p->link->pool, f->data);
	f->data = NULL;
	p->tail++;
}

/*
 * The same, for a link a NIC thread uses (loop_make_mt()): each holds the
 * link's lock. A NIC thread about to sleep arms its port (mt_rx_arm()); the
 * next frame queued for an armed port writes its eventfd, which the thread
 * sleeps on (loop_enqueue()). So a frame costs a system call only when it
 * wakes a sleeper.
 */
static void mt_xmit(void *port, const uint8_t *frame, size_t len)
{
	struct link_port *from = port;

	pthread_mutex_lock(&from->link->mu);
	loop_xmit(port, frame, len);
	pthread_mutex_unlock(&from->link->mu);
}

static uint8_t *mt_tx_buf(void *port)
{
	struct link_port *p = port;
	uint8_t *b;

	pthread_mutex_lock(&p->link->mu);
	b = loop_tx_buf(port);
	pthread_mutex_unlock(&p->link->mu);
	return b;
}

static void mt_xmit_buf(void *port, uint8_t *buf, size_t len)
{
	struct link_port *from = port;

	pthread_mutex_lock(&from->link->mu);
	loop_xmit_buf(port, buf, len);
	pthread_mutex_unlock(&from->link->mu);
}

static const uint8_t *mt_rx_peek(void *port, size_t *len)
{
	struct link_port *p = port;
	const uint8_t *f;

	pthread_mutex_lock(&p->link->mu);
	f = loop_rx_peek(port, len);
	pthread_mutex_unlock(&p->link->mu);
	return f;
}

static bool mt_rx_arm(void *port)
{
	struct link_port *p = port;
	bool empty;

	pthread_mutex_lock(&p->link->mu);
	empty = p->tail == p->head;
	if (empty && p->efd >= 0) {
		uint64_t v;
		ssize_t r = read(p->efd, &v, sizeof(v)); /* an earlier wake's count */

		(void)r; /* EAGAIN when there was none */
		p->armed = true;
	}
	pthread_mutex_unlock(&p->link->mu);
	return empty;
}

static void mt_rx_done(void *port)
{
	struct link_port *p = port;

	pthread_mutex_lock(&p->link->mu);
	loop_rx_done(port);
	pthread_mutex_unlock(&p->link->mu);
}

static void loop_make_mt(struct wqe_link *l)
{
	l->xmit = mt_xmit;
	l->tx_buf = mt_tx_buf;
	l->xmit_buf = mt_xmit_buf;
	l->rx_peek = mt_rx_peek;
	l->rx_done = mt_rx_done;
	l->rx_arm = mt_rx_arm;
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
	l->make_mt = loop_make_mt;
	return l;
}
