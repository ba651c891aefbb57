/* SPDX-License-Identifier: MIT */
/*
 * memeq.h - equality of short fixed-size byte strings (GIDs, MACs) as a few
 * integer compares. memcmp() of a 16-byte GID was a library call on the
 * receive path (once per port GID and once for the source of every frame).
 */
#ifndef WQE_COMMON_MEMEQ_H
#define WQE_COMMON_MEMEQ_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* 16 bytes at @a and @b equal (a GID). */
static inline bool memeq16(const void *a, const void *b)
{
	uint64_t a0, a1, b0, b1;

	memcpy(&a0, a, 8);
	memcpy(&a1, (const uint8_t *)a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, (const uint8_t *)b + 8, 8);
	return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* 6 bytes at @a and @b equal (a MAC). */
static inline bool memeq6(const void *a, const void *b)
{
	uint32_t a0, b0;
	uint16_t a1, b1;

	memcpy(&a0, a, 4);
	memcpy(&a1, (const uint8_t *)a + 4, 2);
	memcpy(&b0, b, 4);
	memcpy(&b1, (const uint8_t *)b + 4, 2);
	return a0 == b0 && a1 == b1;
}

#endif
