/* SPDX-License-Identifier: MIT */
/*
 * psn.h - packet sequence numbers: 24-bit counters that wrap (IBTA 9.7.1),
 * for the requester, the completer and the responder alike. The MSN of an
 * AETH is a 24-bit counter too and wraps with the same mask.
 */
#ifndef WQE_ENGINE_PSN_H
#define WQE_ENGINE_PSN_H

#include <stdbool.h>
#include <stdint.h>

#define PSN_MASK 0xffffffu

/* a + n in the PSN space. */
static inline uint32_t psn_add(uint32_t a, uint32_t n)
{
	return (a + n) & PSN_MASK;
}

/* How far a is ahead of b, 0 to 2^24 - 1. */
static inline uint32_t psn_ahead(uint32_t a, uint32_t b)
{
	return (a - b) & PSN_MASK;
}

/* a - b as a signed distance in [-2^23, 2^23) (rxe's psn_compare()): the
 * responder's regions (IBTA 9.7.5.1: behind the expected PSN is a
 * duplicate, ahead is out of sequence). */
static inline int32_t psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/* a strictly before b within half the space ahead of a: the completer's
 * order of ACKs and in-flight requests (at exactly 2^23 apart neither is
 * before the other). */
static inline bool psn_lt(uint32_t a, uint32_t b)
{
	uint32_t d = psn_ahead(b, a);

	return d != 0 && d < 0x800000u;
}

#endif
