/* SPDX-License-Identifier: MIT */
/* Links (wqe/link.h): the sink, attaching a link to a context, the tap. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "link/link_int.h"

static void sink_xmit(void *arg, const uint8_t *frame, size_t len)
{
	struct wqe_link *l = arg;
	uint8_t *copy;

	if (l->count == l->max) {
		l->dropped++;
		return;
	}
	copy = malloc(len ? len : 1);
	if (!copy) {
		l->dropped++;
		return;
	}
	memcpy(copy, frame, len);
	l->frames[l->count].data = copy;
	l->frames[l->count].len = len;
	l->count++;
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
	return l;
}

size_t wqe_link_sink_count(const struct wqe_link *l)
{
	return l && l->kind == LINK_SINK ? l->count : 0;
}

uint64_t wqe_link_sink_dropped(const struct wqe_link *l)
{
	return l && l->kind == LINK_SINK ? l->dropped : 0;
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
	l->dropped = 0;
}

int wqe_link_destroy(struct wqe_link *l)
{
	if (!l)
		return EINVAL;
	if (l->users)
		return EBUSY;
	wqe_link_sink_clear(l);
	free(l->frames);
	free(l);
	return 0;
}
