/* SPDX-License-Identifier: MIT */
/*
 * describe.h - the field builder wqe_describe() and wqe_describe_recv()
 * lay over the bytes of a WQE (private to src/fmt). A format's describer
 * names a segment, then adds its fields in byte order; the builder
 * records each field's value (fields of at most 8 bytes) read in the byte
 * order the format stores it.
 */
#ifndef WQE_FMT_DESCRIBE_H
#define WQE_FMT_DESCRIBE_H

#include <stdbool.h>
#include <stdint.h>

#include "wqe/text.h"

/* How a field's bytes make its value. */
enum db_order {
	DB_BE = 0, /* big-endian: mlx5 fields, and byte arrays of any format */
	DB_LE = 1, /* little-endian: rxe's host-order integers (x86-64) */
};

struct desc_builder {
	struct wqe_field *field; /* WQE_FIELD_MAX of them */
	uint32_t *num_fields;
	const uint8_t *wqe;
	enum db_order order; /* the order of db_add() */
	char seg[16];
};

/* Starts a segment: the fields added next belong to it (printf-style name). */
void db_segment(struct desc_builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Adds one field at @off (from the WQE start), @len bytes, its value read in
 * b->order when @len <= 8, with the meaning given printf-style. */
void db_add(struct desc_builder *b, const char *name, uint32_t off, uint32_t len, const char *fmt,
	    ...) __attribute__((format(printf, 5, 6)));

/* As db_add(), with the value read in @order whatever b->order says (an
 * rxe __be32, a byte array). */
void db_add_order(struct desc_builder *b, enum db_order order, const char *name, uint32_t off,
		  uint32_t len, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The fields of an rxe slot (describe_rxe.c); false if they do not fill
 * desc.size exactly. */
bool rxe_describe_fields(struct desc_builder *b, const struct wqe_decode_ctx *ctx,
			 const struct wqe_desc *d);

#endif /* WQE_FMT_DESCRIBE_H */
