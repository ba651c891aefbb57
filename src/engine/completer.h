/* SPDX-License-Identifier: MIT */
/*
 * completer.h - the requester's other half: responses (ACK, NAK, READ
 * responses, atomic ACKs) complete in-flight RC WQEs in order; the
 * retransmit and RNR timers send the requester back to the first
 * unacknowledged PSN.
 */
#ifndef WQE_ENGINE_COMPLETER_H
#define WQE_ENGINE_COMPLETER_H

#include "engine/services.h"

struct wqe_pkt;

/* One response packet for @q that passed the receive filters. */
void comp_rx(struct nic *n, struct qpc *q, const struct wqe_pkt *p);

/* An ACKNOWLEDGE packet for @q that passed the receive filters, given by
 * its BTH PSN and AETH syndrome (the receive fast path, which has no
 * struct wqe_pkt): what comp_rx() does with the same packet. */
void comp_rx_acknowledge(struct nic *n, struct qpc *q, uint32_t psn, uint8_t syndrome);

/* Checks @q's timers against @now; returns 1 if one fired. */
int comp_timers(struct nic *n, struct qpc *q, uint64_t now);

/* The requester sent packets of an RC WQE: arm the retransmit timer. */
void comp_arm(struct nic *n, struct qpc *q);

/* Nanoseconds of an IBTA RNR timer code (0..31). */
uint64_t rnr_timer_ns(uint8_t code);

#endif
