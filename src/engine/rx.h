/* SPDX-License-Identifier: MIT */
/*
 * rx.h - the receive path of the NIC: every frame that arrives at the port
 * is parsed, its ICRC verified, and filtered (IBTA 9.6 / rxe_recv.c) before
 * the responder (requests) or the completer (responses) sees it.
 */
#ifndef WQE_ENGINE_RX_H
#define WQE_ENGINE_RX_H

#include <stddef.h>
#include <stdint.h>

#include "engine/nic.h"

/* Why a received frame was dropped before reaching a QP. */
enum rx_drop {
	RX_DROP_NOT_ROCE = 0,  /* not a RoCEv2 frame at all */
	RX_DROP_MALFORMED,     /* RoCEv2 but malformed (lengths, opcode, pad) */
	RX_DROP_BAD_ICRC,
	RX_DROP_BAD_CSUM,      /* IPv4 header or UDP checksum wrong */
	RX_DROP_BAD_TVER,      /* BTH transport version not 0 */
	RX_DROP_NOT_FOR_US,    /* destination MAC/IP is not this port's */
	RX_DROP_UNKNOWN_QP,    /* no such QP (or QPN 0/1) */
	RX_DROP_QP_STATE,      /* QP not in RTR, RTS, SQD or SQE */
	RX_DROP_TRANSPORT,     /* opcode of another transport than the QP's */
	RX_DROP_PKEY,          /* P_Key does not match the QP's */
	RX_DROP_QKEY,          /* UD Q_Key does not match the QP's */
	RX_DROP_SRC,           /* RC/UC: source address is not the QP's peer */
	RX_DROP_COUNT
};
const char *rx_drop_str(enum rx_drop d);

/* Takes one frame arriving at the port (copied as needed). */
void nic_rx(struct nic *n, const uint8_t *frame, size_t len);

/* One frame handed in on its own (wqe_context_receive()): nic_rx(), then
 * the ACKs it made due (resp_ack_flush()), then the link's flush
 * (nic_tx_flush()), as at the end of a progress call. */
void nic_receive(struct nic *n, const uint8_t *frame, size_t len);

#endif
