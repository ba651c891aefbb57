/* SPDX-License-Identifier: MIT */
/* csum.h - the Internet checksum (RFC 1071) pieces every frame needs:
 * the wire codecs build and check IPv4 headers with them, the engine's
 * receive fast path checks them. */
#ifndef WQE_COMMON_CSUM_H
#define WQE_COMMON_CSUM_H

#include <stdint.h>

#include "common/bytes.h"

/* The checksum of accumulator @sum: folded to 16 bits, complemented. */
static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * csum_fold(wire_csum_add(0, @h, 20)) (src/wire) for the 20-byte IPv4
 * header at @h, inline: every frame built or parsed sums one. Two 64-bit
 * and one 32-bit word, carries added back (2^32 is 1 modulo 0xffff).
 */
static inline uint16_t csum_ipv4(const uint8_t *h)
{
	uint64_t a = get_be64(h), b = get_be64(h + 8), s = a + b;

	s += s < a;					      /* end-around carry */
	s = (s & 0xffffffffu) + (s >> 32) + get_be32(h + 16); /* below 2^34 */
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	return csum_fold((uint32_t)s);
}

#endif
