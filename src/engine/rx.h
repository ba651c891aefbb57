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

#include "engine/services.h"

/* Why a frame is dropped: enum rx_drop (engine/device.h). */

/* Takes one frame arriving at the port (copied as needed). */
void nic_rx(struct nic *n, const uint8_t *frame, size_t len);

/* nic_receive() (engine/device.h), a frame handed in on its own, is
 * nic_rx(), then the ACKs it made due (resp_ack_flush()), then the link's
 * flush (nic_tx_flush()), as at the end of a progress pass. */

#endif
