/* SPDX-License-Identifier: MIT */
/*
 * cm_int.h - the layout tables behind the CM codec (wqe/cm.h).
 *
 * Each CM message is one table of named fields, each saying where its bits
 * are in the 232 bytes of attribute data and which struct member holds
 * them. One generic encoder and decoder walk the tables; whatever bit no
 * field covers is reserved. The tables are transcribed from the IBTA's
 * message tables (Vol 1, 12.6 and 12.11), whose field positions are given
 * as byte and bit offsets from the start of the attribute data.
 */
#ifndef WQE_CM_INT_H
#define WQE_CM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/cm.h"

/*
 * One field: @width bits starting at bit @bit (0 = most significant) of
 * byte @byte of the attribute data. @size is the struct member's size in
 * bytes (1, 2, 4 or 8), or 0 for a byte array (then @bit is 0 and @width a
 * multiple of 8). A member split over several places on the wire (the ECE
 * vendor IDs) has one entry per piece: the piece holds bits
 * [@vshift, @vshift + @width) of the member's value.
 */
struct cm_field {
	const char *name;
	uint16_t byte;
	uint8_t bit;
	uint16_t width;
	uint16_t member; /* offsetof in the message struct */
	uint8_t size;
	uint8_t vshift;
};

/* One message: its attribute, fields, private data size and value rules. */
struct cm_layout {
	uint16_t attr;
	const char *name;	   /* "REQ" */
	const char *reserved_name; /* "REQ.reserved": the field a set reserved bit blames */
	const struct cm_field *fields;
	size_t nfields;
	size_t pdata_len;
	/* The values the spec fixes (ranges); 0 or WQE_CM_ERANGE with *@field. */
	int (*check)(const void *msg, const char **field);
};

/* The layout of CM attribute @attr, or NULL if the codec does not carry it. */
const struct cm_layout *cm_layout_of(uint16_t attr);

/* Every layout, for the tests' table checks. */
extern const struct cm_layout *const cm_layouts[];
extern const size_t cm_nlayouts;

#endif /* WQE_CM_INT_H */
