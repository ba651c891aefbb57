/* SPDX-License-Identifier: MIT */
/*
 * responder.h - the receive side of a QP: request packets in, data placed,
 * receive WQEs consumed, ACK/NAK/READ response/atomic ACK out.
 *
 * This header must not include engine/nic.h (nic.h embeds struct eng_resp).
 */
#ifndef WQE_ENGINE_RESPONDER_H
#define WQE_ENGINE_RESPONDER_H

#include <stdbool.h>
#include <stdint.h>

struct nic;
struct qpc;
struct wqe_pkt;

/* The responder's state for one QP. */
struct eng_resp {
	uint32_t epsn;   /* expected PSN */
	uint32_t msn;    /* message sequence number, 24 bits */
};

/* The QP enters RTR: start expecting rq_psn. */
void resp_start(struct nic *n, struct qpc *q);

/* One request packet for @q that passed the receive filters. */
void resp_rx(struct nic *n, struct qpc *q, const struct wqe_pkt *p);

#endif
