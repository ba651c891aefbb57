/* SPDX-License-Identifier: MIT */
/*
 * fastpath_sends.h - the SEND FIRST, MIDDLE and LAST cases of
 * test_fastpath_edges.c (no invalidate; a LAST with or without an
 * immediate): which edits apply to them, which must take the fast path,
 * the responder state before the packet (the receive WQE posted, its SGEs
 * as the edit asks, and the SEND its earlier packets opened, fed through
 * each twin's own path), and what a frame must leave; and whole SENDs,
 * packet by packet, against the bytes and the completion they must leave.
 */
#ifndef WQE_TEST_FASTPATH_SENDS_H
#define WQE_TEST_FASTPATH_SENDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/nic.h"
#include "fastpath_frames.h"

#define SEND_WRID 0x5e1du /* the receive WQE of the SEND */

/* @e applies to a SEND FIRST, MIDDLE or LAST @k. */
bool send_applies(enum kind k, enum edit e);

/* The frame of @k under @e must take the fast path. */
bool send_goes_fast(enum kind k, enum edit e);

/* Posts @t the receive WQE the SEND of @k under @e finds (none under
 * E_RQ_EMPTY), its SGEs in @region through @lkey (a bad one where @e
 * says), then feeds the packets of the SEND before the one of @k (a
 * MIDDLE's FIRST; a LAST's FIRST and MIDDLE; a full MTU each), from *@psn
 * on, which it moves past them. Nothing is fed for a FIRST, nor under
 * E_NOT_OPEN or E_WRITE_OPEN (the test opens an RDMA WRITE instead).
 * Then the responder's state is forced as E_WQE_FORGOTTEN, E_MSG_LIMIT
 * and E_MSG_HUGE ask. */
void send_open(struct rt *t, enum kind k, enum edit e, uint8_t *region, uint32_t lkey,
	       uint32_t *psn);

/* What one context left after a frame of @k. */
struct send_seen {
	const uint8_t *mem; /* the region, 0x5c where nothing was placed */
	size_t nout;	    /* frames sent; the first of them: */
	const uint8_t *out;
	size_t outlen;
	int nwc; /* completions polled */
	const struct wqe_wc *wc;
	uint32_t ncqe; /* completions the frame added; the first of them: */
	const struct cqe *cqe;
	const struct resp_stats *rs;
	uint64_t open, msn, last_path, wqe_valid, wqe_placed, cq_arm, cq_lost;
	int state;
	const uint8_t *imm; /* the frame's ImmDt (or where it would be) */
};

/* Checks what the frame of @k under @e (receive WQEs in @fmt) left against
 * what it should, for the good frames (the payload where the SGEs put it
 * after the bytes before it, the SEND open or closed and counted, the
 * WQE held with the bytes so far or completed with all of them, the
 * states it went through, the ACK asked for) and the edits of the
 * receive WQE and of the message open (the completion in error, the
 * NAK, the drop); nothing for others. */
void send_check(enum kind k, enum edit e, enum wqe_format fmt, const struct send_seen *s);

/* Whole SENDs (three and four packets, with and without an immediate,
 * over one SGE and over SGEs whose boundaries fall inside packets or
 * where they end; RC and UC, IPv4 and IPv6, mlx5 and rxe receive WQEs),
 * fed packet by packet to a context with the fast paths and to one
 * without: every packet taken by the fast path on the first, none on
 * the other, and on both the message's bytes where the SGEs put them,
 * nothing else touched, one RECV completion of the whole length. */
void send_whole(void);

#endif
