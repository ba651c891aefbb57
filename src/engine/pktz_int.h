/* SPDX-License-Identifier: MIT */
/* pktz_int.h - the packetizer as the requester calls it (private). */
#ifndef WQE_ENGINE_PKTZ_INT_H
#define WQE_ENGINE_PKTZ_INT_H

#include "wqe/packetize.h"

/*
 * wqe_pktz_init() for a caller that has written z->qp itself: the QP facts
 * are not built on the stack and then copied (a copy of a struct just
 * written field by field stalls on store forwarding, once per WQE).
 */
int pktz_init_here(struct wqe_pktz *z, const struct wqe_desc *d, uint32_t first_psn,
		   const struct wqe_iov *iov, uint32_t niov, uint16_t ip_id);

#endif
