/* SPDX-License-Identifier: MIT */
/*
 * catalog.h - the operation catalog (private): the mapping between the
 * software Work Request opcode (enum wqe_wr_opcode) and the operation a WQE
 * carries (enum wqe_op). Which operation is legal on which transport and
 * which may carry inline data are public (wqe/desc.h).
 */
#ifndef WQE_TABLES_CATALOG_H
#define WQE_TABLES_CATALOG_H

#include <stdbool.h>

#include "wqe/desc.h"
#include "wqe/verbs.h"

/*
 * catalog_op_from_wr - the operation of Work Request opcode @wr_op.
 * Returns true and sets *@op, or false (leaving *@op alone) for a value
 * that is not one of the eight Work Request opcodes.
 */
bool catalog_op_from_wr(enum wqe_wr_opcode wr_op, enum wqe_op *op);

/*
 * catalog_wr_from_op - the Work Request opcode of operation @op.
 * Returns true and sets *@wr_op, or false for an @op outside the catalog.
 */
bool catalog_wr_from_op(enum wqe_op op, enum wqe_wr_opcode *wr_op);

/* true if @op is one of the eight operations (WQE_OP_SEND..FETCH_AND_ADD). */
bool catalog_op_valid(enum wqe_op op);

/* true if @op carries an immediate (SEND_WITH_IMM, RDMA_WRITE_WITH_IMM). */
bool catalog_op_has_imm(enum wqe_op op);

/* true for the two atomics. */
bool catalog_op_is_atomic(enum wqe_op op);

#endif /* WQE_TABLES_CATALOG_H */
