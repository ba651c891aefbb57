/* SPDX-License-Identifier: MIT */
/* pktz_int.h - the packetizer as the requester calls it (private). */
#ifndef WQE_ENGINE_PKTZ_INT_H
#define WQE_ENGINE_PKTZ_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/mem.h"
#include "wqe/packetize.h"
#include "wqe/wire.h"

/*
 * The BTH rules of a request packet, as the packetizer (bth_of()) and the
 * requester's fast path (send_simple()) both apply them.
 *
 * pktz_role(): the place of packet @i (from 0) in a message of @n packets.
 * pktz_opcode(): the wire opcode of a packet of operation @op (below
 * WQE_OP_COUNT) with role @role on transport @t: the RC opcode of
 * pktz_rc_opcodes[] (packetize.c) moved to @t's range (UC 0x20-, UD 0x60-;
 * the operations a transport does not carry give opcodes no row of the
 * opcode table holds).
 * pktz_se(): SE, only on the last packet of a solicited SEND or RDMA WRITE
 * with immediate (IBA 9.2.3: the requester sets it as the WQE asks).
 * pktz_ackreq(): AckReq, on RC only: on the last packet of every request
 * (RDMA READ requests and atomics included: each is one packet), and every
 * WQE_PKTS_PER_ACKREQ packets of a long message. The IBTA leaves the
 * choice to the requester; this is what the kernel's rxe puts on the wire
 * (init_req_packet(): every END packet), as hfi1 and qib do. A responder
 * answers a READ with its responses and an atomic with its ATOMIC
 * ACKNOWLEDGE whatever the bit says: no separate ACK.
 */
extern const uint8_t pktz_rc_opcodes[WQE_OP_COUNT][4];

static inline enum wqe_wire_role pktz_role(uint32_t i, uint32_t n)
{
	bool first = i == 0, last = i + 1 == n;

	return first && last ? WQE_ROLE_ONLY : first ? WQE_ROLE_FIRST
					 : last  ? WQE_ROLE_LAST
						 : WQE_ROLE_MIDDLE;
}

static inline uint8_t pktz_opcode(enum wqe_qp_type t, enum wqe_op op, enum wqe_wire_role role)
{
	uint8_t base = t == WQE_QPT_RC	 ? 0
		       : t == WQE_QPT_UC ? WQE_WIRE_UC_SEND_FIRST - WQE_WIRE_RC_SEND_FIRST
					 : WQE_WIRE_UD_SEND_ONLY - WQE_WIRE_RC_SEND_ONLY;

	return (uint8_t)(base + pktz_rc_opcodes[op][role]);
}

static inline bool pktz_se(enum wqe_op op, bool solicited, bool last)
{
	return last && solicited &&
	       (op == WQE_OP_SEND || op == WQE_OP_SEND_WITH_IMM || op == WQE_OP_SEND_WITH_INV ||
		op == WQE_OP_RDMA_WRITE_WITH_IMM);
}

static inline bool pktz_ackreq(enum wqe_qp_type t, uint32_t i, bool last)
{
	return t == WQE_QPT_RC && (last || i % WQE_PKTS_PER_ACKREQ == WQE_PKTS_PER_ACKREQ - 1);
}

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
