/* SPDX-License-Identifier: MIT */
/*
 * bytes.h - explicit byte-order loads and stores, and a bounded byte cursor.
 *
 * Every multi-byte field of a WQE or a packet header is written and read
 * through these helpers: no struct overlays, no pointer casts. The cursor
 * functions never move past the end; a failed get/put leaves the cursor's
 * `ok` false and every later call a no-op, so a codec checks once at the end.
 */
#ifndef WQE_COMMON_BYTES_H
#define WQE_COMMON_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The big-endian stores swap the value with the compiler's byte-swap
 * builtin and copy it out: one bswap and one store per field. Built from
 * shifts instead (a byte array, or bytes stored through @p), gcc 12 loses
 * the swap as soon as it knows some of the value's bytes: the control
 * segment's first word, (index & 0xffff) << 8 | opcode, took ten shifts
 * and ors at -O2, and a run of byte stores can be merged by the vectorizer
 * into a vector assembled one byte at a time.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define WQE_BE16(v) (v)
#define WQE_BE32(v) (v)
#define WQE_BE64(v) (v)
#else
#define WQE_BE16(v) __builtin_bswap16(v)
#define WQE_BE32(v) __builtin_bswap32(v)
#define WQE_BE64(v) __builtin_bswap64(v)
#endif

static inline void put_be16(uint8_t *p, uint16_t v)
{
	const uint16_t b = WQE_BE16(v);

	memcpy(p, &b, sizeof(b));
}

static inline void put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	const uint32_t b = WQE_BE32(v);

	memcpy(p, &b, sizeof(b));
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	const uint64_t b = WQE_BE64(v);

	memcpy(p, &b, sizeof(b));
}

static inline void put_le16(uint8_t *p, uint16_t v)
{
	const uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};

	memcpy(p, b, sizeof(b));
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			      (uint8_t)(v >> 24)};

	memcpy(p, b, sizeof(b));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p + 4) << 32 | get_le32(p);
}

/* A bounded cursor over a byte buffer. */
struct cursor {
	uint8_t *p;
	size_t len;
	size_t off;
	bool ok;
};

static inline void cur_init(struct cursor *c, uint8_t *p, size_t len)
{
	c->p = p;
	c->len = len;
	c->off = 0;
	c->ok = true;
}

/* Returns a pointer to @n bytes at the cursor and advances, or NULL. */
static inline uint8_t *cur_take(struct cursor *c, size_t n)
{
	uint8_t *q;

	if (!c->ok || c->len - c->off < n) {
		c->ok = false;
		return NULL;
	}
	q = c->p + c->off;
	c->off += n;
	return q;
}

static inline void cur_put8(struct cursor *c, uint8_t v)
{
	uint8_t *q = cur_take(c, 1);

	if (q)
		q[0] = v;
}

static inline void cur_put16(struct cursor *c, uint16_t v)
{
	uint8_t *q = cur_take(c, 2);

	if (q)
		put_be16(q, v);
}

static inline void cur_put24(struct cursor *c, uint32_t v)
{
	uint8_t *q = cur_take(c, 3);

	if (q)
		put_be24(q, v);
}

static inline void cur_put32(struct cursor *c, uint32_t v)
{
	uint8_t *q = cur_take(c, 4);

	if (q)
		put_be32(q, v);
}

static inline void cur_put64(struct cursor *c, uint64_t v)
{
	uint8_t *q = cur_take(c, 8);

	if (q)
		put_be64(q, v);
}

static inline void cur_putmem(struct cursor *c, const void *src, size_t n)
{
	uint8_t *q = cur_take(c, n);

	if (q && n)
		memcpy(q, src, n);
}

static inline uint8_t cur_get8(struct cursor *c)
{
	const uint8_t *q = cur_take(c, 1);

	return q ? q[0] : 0;
}

static inline uint16_t cur_get16(struct cursor *c)
{
	const uint8_t *q = cur_take(c, 2);

	return q ? get_be16(q) : 0;
}

static inline uint32_t cur_get24(struct cursor *c)
{
	const uint8_t *q = cur_take(c, 3);

	return q ? get_be24(q) : 0;
}

static inline uint32_t cur_get32(struct cursor *c)
{
	const uint8_t *q = cur_take(c, 4);

	return q ? get_be32(q) : 0;
}

static inline uint64_t cur_get64(struct cursor *c)
{
	const uint8_t *q = cur_take(c, 8);

	return q ? get_be64(q) : 0;
}

#endif /* WQE_COMMON_BYTES_H */
