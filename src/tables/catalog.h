/* SPDX-License-Identifier: MIT */
/*
 * catalog.h - the operation catalog (private): the mapping between the
 * software Work Request opcode (enum wqe_wr_opcode) and the operation a WQE
 * carries (enum wqe_op), and what each operation may do. Which operation is
 * legal on which transport and which may carry inline data are public
 * (wqe/desc.h).
 *
 * The lookups are inline over the two tables of catalog.c because the post
 * path asks them several times per request; each is an index and a load.
 */
#ifndef WQE_TABLES_CATALOG_H
#define WQE_TABLES_CATALOG_H

#include <stdbool.h>
#include <stdint.h>

#include "wqe/desc.h"
#include "wqe/verbs.h"

/* Bits of the transport column, so that one row says it all. */
enum {
	CAT_RC = 1u << 0,
	CAT_UC = 1u << 1,
	CAT_UD = 1u << 2,
};

/* One operation: its name, its Work Request opcode and what it may do. */
struct catalog_entry {
	const char *name;
	enum wqe_wr_opcode wr_op;
	unsigned int transports; /* OR of CAT_* */
	bool inline_ok;
	bool has_imm;
	bool atomic;
};

/* The catalog, indexed by enum wqe_op. */
extern const struct catalog_entry catalog_ops[WQE_OP_COUNT];

/* The inverse of the wr_op column: indexed by Work Request opcode (all
 * below CATALOG_WR_SLOTS), the operation, or CATALOG_NO_OP for a value
 * that is not a Work Request opcode. */
#define CATALOG_WR_SLOTS 16u
#define CATALOG_NO_OP 0xffu
extern const uint8_t catalog_wr_ops[CATALOG_WR_SLOTS];

/* true if @op is one of the eight operations (WQE_OP_SEND..FETCH_AND_ADD). */
static inline bool catalog_op_valid(enum wqe_op op)
{
	return (unsigned int)op < WQE_OP_COUNT;
}

/*
 * catalog_op_from_wr - the operation of Work Request opcode @wr_op.
 * Returns true and sets *@op, or false (leaving *@op alone) for a value
 * that is not one of the eight Work Request opcodes.
 */
static inline bool catalog_op_from_wr(enum wqe_wr_opcode wr_op, enum wqe_op *op)
{
	unsigned int i = (unsigned int)wr_op;

	if (i >= CATALOG_WR_SLOTS || catalog_wr_ops[i] == CATALOG_NO_OP)
		return false;
	*op = (enum wqe_op)catalog_wr_ops[i];
	return true;
}

/*
 * catalog_wr_from_op - the Work Request opcode of operation @op.
 * Returns true and sets *@wr_op, or false for an @op outside the catalog.
 */
bool catalog_wr_from_op(enum wqe_op op, enum wqe_wr_opcode *wr_op);

/* The CAT_* bit of transport @t; 0 for a value that is not RC, UC or UD. */
static inline unsigned int catalog_transport_bit(enum wqe_qp_type t)
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

/* wqe_op_legal() for the library's own callers. */
static inline bool catalog_op_legal(enum wqe_op op, enum wqe_qp_type t)
{
	return catalog_op_valid(op) && (catalog_ops[op].transports & catalog_transport_bit(t));
}

/* wqe_op_inline_ok() for the library's own callers. */
static inline bool catalog_op_inline_ok(enum wqe_op op)
{
	return catalog_op_valid(op) && catalog_ops[op].inline_ok;
}

/* true if @op carries an immediate (SEND_WITH_IMM, RDMA_WRITE_WITH_IMM). */
static inline bool catalog_op_has_imm(enum wqe_op op)
{
	return catalog_op_valid(op) && catalog_ops[op].has_imm;
}

/* true for the two atomics. */
static inline bool catalog_op_is_atomic(enum wqe_op op)
{
	return catalog_op_valid(op) && catalog_ops[op].atomic;
}

#endif /* WQE_TABLES_CATALOG_H */
