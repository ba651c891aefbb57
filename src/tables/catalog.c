/* SPDX-License-Identifier: MIT */
/*
 * catalog.c - the operation catalog: names, legality per transport, inline.
 *
 * The legality table is the one of DESIGN.md ("Which operation is legal on
 * which transport"): UC has no wire opcode for SEND_WITH_INV, READ or the
 * atomics; UD carries SEND and SEND_WITH_IMM only.
 */
#include "tables/catalog.h"

#include <stddef.h>

/* Bits of the transport column, so that one row says it all. */
enum {
	CAT_RC = 1u << 0,
	CAT_UC = 1u << 1,
	CAT_UD = 1u << 2,
};

struct catalog_entry {
	const char *name;
	enum wqe_wr_opcode wr_op;
	unsigned int transports; /* OR of CAT_* */
	bool inline_ok;
	bool has_imm;
	bool atomic;
};

static const struct catalog_entry catalog[WQE_OP_COUNT] = {
	[WQE_OP_SEND] = { "SEND", WQE_WR_SEND, CAT_RC | CAT_UC | CAT_UD,
			  true, false, false },
	[WQE_OP_SEND_WITH_IMM] = { "SEND_WITH_IMM", WQE_WR_SEND_WITH_IMM,
				   CAT_RC | CAT_UC | CAT_UD, true, true, false },
	[WQE_OP_SEND_WITH_INV] = { "SEND_WITH_INV", WQE_WR_SEND_WITH_INV, CAT_RC,
				   true, false, false },
	[WQE_OP_RDMA_WRITE] = { "RDMA_WRITE", WQE_WR_RDMA_WRITE, CAT_RC | CAT_UC,
				true, false, false },
	[WQE_OP_RDMA_WRITE_WITH_IMM] = { "RDMA_WRITE_WITH_IMM", WQE_WR_RDMA_WRITE_WITH_IMM,
					 CAT_RC | CAT_UC, true, true, false },
	[WQE_OP_RDMA_READ] = { "RDMA_READ", WQE_WR_RDMA_READ, CAT_RC,
			       false, false, false },
	[WQE_OP_ATOMIC_CMP_AND_SWP] = { "ATOMIC_CMP_AND_SWP", WQE_WR_ATOMIC_CMP_AND_SWP,
					CAT_RC, false, false, true },
	[WQE_OP_ATOMIC_FETCH_AND_ADD] = { "ATOMIC_FETCH_AND_ADD", WQE_WR_ATOMIC_FETCH_AND_ADD,
					  CAT_RC, false, false, true },
};

bool catalog_op_valid(enum wqe_op op)
{
	return (unsigned int)op < WQE_OP_COUNT;
}

static unsigned int transport_bit(enum wqe_qp_type t)
{
	switch (t) {
	case WQE_QPT_RC:
		return CAT_RC;
	case WQE_QPT_UC:
		return CAT_UC;
	case WQE_QPT_UD:
		return CAT_UD;
	}
	return 0;
}

bool catalog_op_from_wr(enum wqe_wr_opcode wr_op, enum wqe_op *op)
{
	unsigned int i;

	for (i = 0; i < WQE_OP_COUNT; i++) {
		if (catalog[i].wr_op == wr_op) {
			*op = (enum wqe_op)i;
			return true;
		}
	}
	return false;
}

bool catalog_wr_from_op(enum wqe_op op, enum wqe_wr_opcode *wr_op)
{
	if (!catalog_op_valid(op))
		return false;
	*wr_op = catalog[op].wr_op;
	return true;
}

bool catalog_op_has_imm(enum wqe_op op)
{
	return catalog_op_valid(op) && catalog[op].has_imm;
}

bool catalog_op_is_atomic(enum wqe_op op)
{
	return catalog_op_valid(op) && catalog[op].atomic;
}

WQE_API const char *wqe_op_str(enum wqe_op op)
{
	return catalog_op_valid(op) ? catalog[op].name : "unknown";
}

WQE_API int wqe_op_legal(enum wqe_op op, enum wqe_qp_type t)
{
	if (!catalog_op_valid(op))
		return 0;
	return (catalog[op].transports & transport_bit(t)) != 0;
}

WQE_API int wqe_op_inline_ok(enum wqe_op op)
{
	return catalog_op_valid(op) && catalog[op].inline_ok;
}
