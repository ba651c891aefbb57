/* SPDX-License-Identifier: MIT */
/*
 * requester.h - the send side of the engine: fetch WQEs between the
 * consumer counter and the doorbell record, check them, gather their
 * payload, packetize, transmit, and complete what needs no response.
 */
#ifndef WQE_ENGINE_REQUESTER_H
#define WQE_ENGINE_REQUESTER_H

#include "engine/services.h"

/* Processes up to @budget WQEs of @q; returns the WQEs handled. */
int req_run(struct nic *n, struct qpc *q, int budget);

/* A pass of req_run() sends at most this many packets: a longer message
 * goes on at the next pass, before any later WQE (as a NIC interleaves
 * QPs packet by packet). The frames in flight between two progress calls
 * stay within the caches, and other QPs get their turn. */
#define REQ_PKT_BUDGET 64u

/* An RC requester sends no packet while this many PSNs from the oldest
 * unacknowledged one are out (a READ's responses count): rxe's
 * RXE_MAX_UNACKED_PSNS, on the wire as rxe. Without it, perftest's 128
 * WRITEs of 64 KiB put 2048 frames at once in flight; a receiver slow to
 * drain its socket (a starved CPU, a TCG guest) lost most of them, and
 * every go-back-N sent the whole window again into the same overflow until
 * RETRY_EXC_ERR (measured: 35598 of 39566 requests sent again). A window
 * keeps each resend to what one round trip can take. */
#define REQ_WINDOW_PSNS 128u

/* With the checks left to the NIC, a WQE posted while @q is below RTS:
 * complete it with LOC_QP_OP_ERR, move the QP to ERR, flush the rest.
 * Returns 1 if there was one. */
int req_not_ready(struct nic *n, struct qpc *q);

#endif
