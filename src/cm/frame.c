/* SPDX-License-Identifier: MIT */
/*
 * frame.c - a CM MAD as the RoCEv2 frame that carries it to the GSI.
 *
 * IBTA Vol 1 chapter 13 (the GSI): MADs for the GSI travel in UD SEND
 * packets to QP1, with its well-known Q_Key 0x80010000 and from the
 * sender's QP1; CM MADs use the default P_Key. Annex A17 (RoCEv2) carries the same
 * BTH and DETH over UDP port 4791.
 */
#include "cm/cm_int.h"

int wqe_cm_frame_build(const struct wqe_pkt *addr, const uint8_t *mad, uint8_t *out, size_t cap,
		       size_t *out_len)
{
	struct wqe_pkt p;

	if (!addr || !mad || !out || !out_len)
		return WQE_PKT_EINVAL;
	p = *addr;
	p.bth = (struct wqe_bth){.opcode = WQE_WIRE_UD_SEND_ONLY,
				 .pkey = WQE_DEFAULT_PKEY,
				 .destqp = WQE_GSI_QPN,
				 .psn = addr->bth.psn & 0xffffffu};
	p.deth = (struct wqe_deth){.qkey = WQE_GSI_QKEY, .srcqp = WQE_GSI_QPN};
	p.pad = NULL;
	p.opts &= ~(uint32_t)(WQE_PKT_OPT_RAW_PADCNT | WQE_PKT_OPT_RAW_ICRC);
	/* RFC 8200 8.1: a zero UDP checksum is not allowed over IPv6. */
	if (p.ipver == 6)
		p.opts |= WQE_PKT_OPT_UDP_CSUM;
	return wqe_pkt_build(&p, mad, WQE_MAD_LEN, out, cap, out_len);
}
