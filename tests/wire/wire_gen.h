/* SPDX-License-Identifier: MIT */
/* wire_gen.h - random but valid RoCEv2 packets for the wire tests. */
#ifndef WQE_TEST_WIRE_GEN_H
#define WQE_TEST_WIRE_GEN_H

#include "testutil.h"
#include "wqe/wire.h"

/* Every opcode in the table, in ascending order; returns the count. */
int gen_opcodes(uint8_t *ops, int max);

/*
 * Fill @p with random fields for @opcode over @ipver (has_vlan and the UDP
 * checksum option random too), and @payload with a random payload of at
 * most @max bytes (0 for opcodes without payload); *@payload_len gets its
 * length.
 */
void gen_pkt(struct test_rng *r, uint8_t opcode, int ipver, struct wqe_pkt *p, uint8_t *payload,
	     uint32_t max, uint32_t *payload_len);

/* Build @p into @out (cap @cap) and return the frame length (0 on error). */
size_t gen_frame(const struct wqe_pkt *p, const uint8_t *payload, uint32_t payload_len,
		 uint8_t *out, size_t cap);

/* Compare every field two packets carry after a build/parse round trip. */
void gen_check_same(const struct wqe_pkt *a, const struct wqe_pkt *b);

#endif
