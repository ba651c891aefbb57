/* SPDX-License-Identifier: MIT */
/* link_int.h - what every link is (private). */
#ifndef WQE_LINK_INT_H
#define WQE_LINK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/link.h"

enum link_kind { LINK_SINK = 1 };

struct link_frame {
	uint8_t *data;
	size_t len;
};

struct wqe_link {
	enum link_kind kind;
	uint32_t users;   /* contexts attached */
	void (*xmit)(void *arg, const uint8_t *frame, size_t len);
	/* sink */
	struct link_frame *frames;
	size_t count;
	size_t max;
	uint64_t dropped;
};

#endif
