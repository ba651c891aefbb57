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
		copy = malloc(len);
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

static size_t loop_rx_poll(void *port, uint8_t *buf, size_t cap)
{
	struct link_port *p = port;
	struct link_frame *f;
	size_t len;

	if (p->tail == p->head)
		return 0;
	f = &p->q[p->tail % LINK_QUEUE];
	len = f->len <= cap ? f->len : 0;
	if (len)
		memcpy(buf, f->data, len);
	free(f->data);
	f->data = NULL;
	p->tail++;
	return len;
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
	l->rx_poll = loop_rx_poll;
	return l;
}
