/* SPDX-License-Identifier: MIT */
/* The loopback link: an in-process Ethernet segment. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "link/link_int.h"

/* Queues a copy of @frame for the port whose MAC is the frame's destination. */
static void loop_xmit(void *port, const uint8_t *frame, size_t len)
{
	struct link_port *from = port;
	struct wqe_link *l = from->link;

	l->stats.frames++;
	if (len < 6 || len > LINK_FRAME_MAX) {
		l->stats.no_destination++;
		return;
	}
	for (uint32_t i = 0; i < LINK_MAX_PORTS; i++) {
		struct link_port *to = &l->port[i];
		uint8_t *copy;

		if (!to->used || to == from || memcmp(to->mac, frame, 6))
			continue;
		if (to->head - to->tail == LINK_QUEUE) {
			l->stats.queue_full++;
			return;
		}
		copy = pool_get(&l->pool);
		if (!copy) {
			l->stats.queue_full++;
			return;
		}
		memcpy(copy, frame, len);
		to->q[to->head % LINK_QUEUE].data = copy;
		to->q[to->head % LINK_QUEUE].len = len;
		to->head++;
		l->stats.delivered++;
		return;
	}
	l->stats.no_destination++;
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

struct wqe_link *wqe_link_loopback_create(void)
{
	struct wqe_link *l = calloc(1, sizeof(*l));

	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	l->kind = LINK_LOOPBACK;
	l->xmit = loop_xmit;
	l->rx_peek = loop_rx_peek;
	l->rx_done = loop_rx_done;
	return l;
}
