/* SPDX-License-Identifier: MIT */
/* pktz_int.h - the packetizer as the requester calls it (private). */
#ifndef WQE_ENGINE_PKTZ_INT_H
#define WQE_ENGINE_PKTZ_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/mem.h"
#include "wqe/packetize.h"

/*
 * wqe_pktz_init() for a caller that has written z->qp itself: the QP facts
 * are not built on the stack and then copied (a copy of a struct just
 * written field by field stalls on store forwarding, once per WQE).
 */
int pktz_init_here(struct wqe_pktz *z, const struct wqe_desc *d, uint32_t first_psn,
		   const struct wqe_iov *iov, uint32_t niov, uint16_t ip_id);

/*
 * The request template (struct wqe_pktz_tmpl) as the requester's fast path
 * uses it too. pktz_tmpl_fits(): the template's headers are the ones a
 * packet on this path would get. pktz_tmpl_begin(): copies them into
 * @buf and sets the lengths, the IPv4 identification and checksum and the
 * UDP source port for a transport part (BTH to ICRC) of @tlen bytes;
 * returns the frame's length, or 0 (nothing of use written) if it would
 * not fit @cap or an IP length. The transport headers start at
 * buf + t->len. pktz_tmpl_seal(): zeroes the pad (@padcnt, 0 to 3) and
 * writes the ICRC of a frame whose payload is in place.
 */
static inline bool pktz_tmpl_fits(const struct wqe_pktz_tmpl *t, uint8_t tclass,
				  uint8_t hop_limit, uint32_t flow_label, const uint8_t dmac[6],
				  const uint8_t smac[6], const union wqe_gid *sgid,
				  const union wqe_gid *dgid)
{
	return t->valid && t->tclass == tclass && t->hop_limit == hop_limit &&
	       t->flow_label == flow_label && memeq6(t->dmac, dmac) && memeq6(t->smac, smac) &&
	       memeq16(t->sgid.raw, sgid->raw) && memeq16(t->dgid.raw, dgid->raw);
}
size_t pktz_tmpl_begin(const struct wqe_pktz_tmpl *t, uint8_t *buf, size_t cap, uint32_t tlen,
		       uint16_t ip_id, uint16_t udp_sport);
void pktz_tmpl_seal(const struct wqe_pktz_tmpl *t, uint8_t *buf, size_t frame_len,
		    uint32_t padcnt);

#endif
