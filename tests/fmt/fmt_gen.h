/* SPDX-License-Identifier: MIT */
/*
 * fmt_gen.h - seeded random Work Requests for the format tests.
 *
 * A case is one (transport, opcode, send_flags, sq_sig_all) combination
 * that the operation catalog allows: RC all eight opcodes, UC four, UD two,
 * every subset of FENCE/SIGNALED/SOLICITED/INLINE with INLINE only on the
 * SEND and WRITE families. The legality table here is written out by hand,
 * independently of the library's catalog.
 */
#ifndef WQE_TESTS_FMT_GEN_H
#define WQE_TESTS_FMT_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "testutil.h"
#include "wqe/model.h"

#define GEN_MAX_SGE 64
#define GEN_PAYLOAD 1024
#define GEN_MAX_CASES 512
#define GEN_MAX_RING_BLOCKS 1024

struct gen_case {
	enum wqe_qp_type qpt;
	enum wqe_wr_opcode op;
	unsigned int flags;
	int sig_all;
};

struct gen_req {
	struct wqe_encode_qp qp;
	struct wqe_send_wr wr;
	struct wqe_sge sge[GEN_MAX_SGE];
	struct wqe_ah ah;
	uint8_t payload[GEN_PAYLOAD];
	uint32_t inline_total; /* sum of SGE lengths when INLINE */
	uint32_t ring_blocks;
	uint32_t slot;
	uint32_t wqe_index;
};

/* Fills @cases with every legal case; returns how many. */
size_t gen_cases(struct gen_case *cases, size_t max);

/* DS of the transport segments the provider writes for @op on @t. */
uint32_t gen_transport_ds(enum wqe_qp_type t, enum wqe_wr_opcode op);

/* true for the two atomics. */
bool gen_is_atomic(enum wqe_wr_opcode op);

/*
 * A random request of case @c. With @strict, only what post-time
 * validation lets through (an atomic has one 8-byte SGE, lengths stay
 * below 2^31); without, what the encoder accepts (any SGE count for an
 * atomic, as the provider would encode it).
 */
void gen_request(struct test_rng *r, const struct gen_case *c, bool strict, struct gen_req *g);

#endif
