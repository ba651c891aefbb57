/* SPDX-License-Identifier: MIT */
/*
 * mem.h - small memory operations for the hot paths.
 *
 * Equality of short fixed-size byte strings (GIDs, MACs) as a few integer
 * compares: memcmp() of a 16-byte GID was a library call on the receive
 * path (once per port GID and once for the source of every frame). And
 * clearing a struct of a few hundred bytes without "rep stos", which gcc's
 * generic tuning emits for a constant memset over 80 bytes and which costs
 * tens of cycles to start (perf: the clear of struct wqe_pkt per frame).
 */
#ifndef WQE_COMMON_MEM_H
#define WQE_COMMON_MEM_H

#include <stdbool.h>
#include <stddef.h>
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

/* memset(@p, 0, @n) as 64-byte pieces of vector stores. The empty asm
 * between pieces keeps the compiler from merging them back into one
 * memset, which it would expand as rep stos again. */
static inline void mem_clear(void *p, size_t n)
{
	uint8_t *q = p;
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		memset(q + i, 0, 64);
		__asm__ volatile("" : : "r"(q + i) : "memory");
	}
	memset(q + i, 0, n - i);
}

/* memcpy(@dst, @src, @n) for a payload, through libc's vector copy: a
 * length the compiler knows to be at most an MTU it expands inline as
 * "rep movsq", which is slower here. The empty asm hides the bound. */
static inline void mem_copy(void *dst, const void *src, size_t n)
{
	__asm__("" : "+r"(n));
	memcpy(dst, src, n);
}

#endif
