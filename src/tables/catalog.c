/* SPDX-License-Identifier: MIT */
/*
 * catalog.c - the operation catalog: names, legality per transport, inline.
 *
 * The legality table is the one of DESIGN.md ("Which operation is legal on
 * which transport"): UC has no wire opcode for SEND_WITH_INV, READ or the
 * atomics; UD carries SEND and SEND_WITH_IMM only.
 */
#include "tables/catalog.h"

#include <assert.h>
#include <stddef.h>

const struct catalog_entry catalog_ops[WQE_OP_COUNT] = {
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

static_assert(WQE_WR_SEND_WITH_INV < CATALOG_WR_SLOTS, "every WR opcode has a slot");

/* The wr_op column above, inverted; catalog_wr_from_op() round-trips it
 * (tests/fmt/test_catalog.c walks every slot). */
const uint8_t catalog_wr_ops[CATALOG_WR_SLOTS] = {
	[WQE_WR_RDMA_WRITE] = WQE_OP_RDMA_WRITE,
	[WQE_WR_RDMA_WRITE_WITH_IMM] = WQE_OP_RDMA_WRITE_WITH_IMM,
	[WQE_WR_SEND] = WQE_OP_SEND,
	[WQE_WR_SEND_WITH_IMM] = WQE_OP_SEND_WITH_IMM,
	[WQE_WR_RDMA_READ] = WQE_OP_RDMA_READ,
	[WQE_WR_ATOMIC_CMP_AND_SWP] = WQE_OP_ATOMIC_CMP_AND_SWP,
	[WQE_WR_ATOMIC_FETCH_AND_ADD] = WQE_OP_ATOMIC_FETCH_AND_ADD,
	[7] = CATALOG_NO_OP,
	[8] = CATALOG_NO_OP,
	[WQE_WR_SEND_WITH_INV] = WQE_OP_SEND_WITH_INV,
	[10] = CATALOG_NO_OP,
	[11] = CATALOG_NO_OP,
	[12] = CATALOG_NO_OP,
	[13] = CATALOG_NO_OP,
	[14] = CATALOG_NO_OP,
	[15] = CATALOG_NO_OP,
};

bool catalog_wr_from_op(enum wqe_op op, enum wqe_wr_opcode *wr_op)
{
	if (!catalog_op_valid(op))
		return false;
	*wr_op = catalog_ops[op].wr_op;
	return true;
}

WQE_API const char *wqe_op_str(enum wqe_op op)
{
	return catalog_op_valid(op) ? catalog_ops[op].name : "unknown";
}

WQE_API int wqe_op_legal(enum wqe_op op, enum wqe_qp_type t)
{
	return catalog_op_legal(op, t);
}

WQE_API int wqe_op_inline_ok(enum wqe_op op)
{
	return catalog_op_inline_ok(op);
}
