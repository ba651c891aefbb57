/* SPDX-License-Identifier: MIT */
/*
 * fastpath_writes.h - the RDMA WRITE FIRST, MIDDLE and LAST cases of
 * test_fastpath_edges.c (no immediate): which edits apply to them, which
 * must take the fast path, the responder state before the packet (the
 * WRITE its earlier packets opened, fed through each twin's own path, the
 * key changed since), and what a good one must leave.
 */
#ifndef WQE_TEST_FASTPATH_WRITES_H
#define WQE_TEST_FASTPATH_WRITES_H

#include <stdbool.h>
#include <stdint.h>

#include "fastpath_frames.h"

/* @e applies to a FIRST, MIDDLE or LAST @k. */
bool multi_applies(enum kind k, enum edit e);

/* The frame of @k under @e must take the fast path. */
bool multi_goes_fast(enum kind k, enum edit e);

/* Feeds @t the packets of the WRITE before the one of @k under @e (a
 * MIDDLE's FIRST; a LAST's FIRST and MIDDLE), from *@psn on, which it
 * moves past them: a WRITE of write_msg_len() bytes at @va through
 * @rkey. Nothing for a FIRST, nor under E_NOT_OPEN, nor under
 * E_SEND_OPEN on RC (UC: the SEND FIRST after it abandons the WRITE and
 * leaves its state behind). */
void multi_open(struct rt *t, enum kind k, enum edit e, uint64_t va, uint32_t rkey, uint32_t *psn);

/* The region the WRITE goes to changed since it was opened: deregistered
 * (E_RKEY_DEREG: *@mr then NULL), or its key's length cut short inside
 * the packet of @k (E_RKEY_SHRUNK); or, for a FIRST whose RETH length is
 * past 2^31 (E_RETH_HUGE), its key made long enough to cover it. The key
 * table is edited in place. */
void multi_key_edit(struct rt *t, enum kind k, enum edit e, struct wqe_mr **mr);

/* What one context left after a frame of @k: the region, frames sent, the
 * responder's state. */
struct multi_seen {
	const uint8_t *mem; /* REGION bytes, 0x5c where nothing was placed */
	size_t nout;
	uint64_t open, msn, messages, last_path, wr_va, wr_len, wr_resid;
};

/* Checks what the good frame of @k under @e (E_NONE, E_ACKREQ_OFF,
 * E_LAST_FULL) left against what it should: its payload placed after
 * the bytes before it, the WRITE open or closed and counted, the RDMA
 * WRITE state, the states it went through, an ACK if it asked (RC).
 * @base: the region's address. */
void multi_check(enum kind k, enum edit e, const struct multi_seen *s, uint64_t base);

#endif
