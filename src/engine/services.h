/* SPDX-License-Identifier: MIT */
/*
 * services.h - what every stage of the engine (requester, completer,
 * responder, receive path, flush) calls on the NIC: transmit, write a
 * completion, raise an event, trace, the active and timer lists, the
 * clock. They touch the NIC's state only (engine/nic.h), never a stage, so
 * the stages depend on them and not on the scheduler (engine/sched.c)
 * that calls the stages.
 */
#ifndef WQE_ENGINE_SERVICES_H
#define WQE_ENGINE_SERVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/nic.h"

/* Reports asynchronous event @ev of the QP numbered @qpn, or of @cq. */
void nic_event(struct nic *n, enum nic_event ev, uint32_t qpn, struct cqc *cq);

/* Marks @q as having work: progress will look at it. */
void nic_kick(struct qpc *q);

/* @q's requester armed a timer for @at (ns): it goes on the timer list. */
void nic_timer_armed(struct nic *n, struct qpc *q, uint64_t at);
/* @q's timers changed (an ACK re-armed or disarmed them): its timer-list
 * entry becomes exact, so that the list's walk does not read the QP. */
void nic_timer_update(struct nic *n, struct qpc *q);
/* Takes entry @i off the timer list (the last one moves there). */
void nic_timer_drop(struct nic *n, uint32_t i);

/* The drain notification is pending: raises it if the drain is over. */
void nic_sqd_check(struct nic *n, struct qpc *q);

/* Reports @ev to the trace callback, if any (stamps the time). */
void nic_trace(struct nic *n, struct wqe_trace_event *ev);

/* Writes a completion into @cq (and reports it). False on overrun; the
 * first completion lost raises NIC_EV_CQ_ERR. */
bool nic_push_cqe(struct nic *n, struct cqc *cq, const struct cqe *e);

/* Sends one frame to the link and the tap. */
void nic_xmit(struct nic *n, const uint8_t *frame, size_t len);
/* Where to build the next frame: a buffer of the link's, sent by
 * nic_xmit_buf() without a copy, or else n->frame. */
uint8_t *nic_tx_buf(struct nic *n);
/* Sends a frame built in the buffer nic_tx_buf() returned (to the tap and
 * the trace too); the buffer is the link's afterwards. */
void nic_xmit_buf(struct nic *n, uint8_t *buf, size_t len);
/* Lets the link send what it holds (tx.flush, if set): at the end of a
 * progress pass, after a frame handed in on its own, and before the link
 * is detached. */
void nic_tx_flush(struct nic *n);

/* The NIC's clock in nanoseconds (also stored in clock_ns). */
uint64_t nic_now(struct nic *n);

/* The address handle numbered @ah_num, or NULL. */
const struct nic_ah *nic_ah_find(const struct nic *n, uint32_t ah_num);

#endif
