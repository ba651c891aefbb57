/* SPDX-License-Identifier: MIT */
/*
 * test_gid.h - the GIDs tests and fuzz targets address their contexts by,
 * header-only so that the fuzz targets (built apart, with their own
 * sanitizer flags, without testutil) share them.
 */
#ifndef WQE_TEST_GID_H
#define WQE_TEST_GID_H

#include <stdint.h>
#include <string.h>

#include "wqe/types.h"

/* @g = the IPv4-mapped GID ::ffff:@a.@b.@c.@d. */
static inline void test_gid_v4(union wqe_gid *g, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	g->raw[12] = a;
	g->raw[13] = b;
	g->raw[14] = c;
	g->raw[15] = d;
}

/* @g = 2001:db8::@last (IPv6's documentation prefix). */
static inline void test_gid_v6(union wqe_gid *g, uint8_t last)
{
	memset(g, 0, sizeof(*g));
	g->raw[0] = 0x20;
	g->raw[1] = 0x01;
	g->raw[2] = 0x0d;
	g->raw[3] = 0xb8;
	g->raw[15] = last;
}

#endif
