/* SPDX-License-Identifier: MIT */
/* test_catalog.c - the operation catalog: legality, inline, names. */
#include <string.h>

#include "tables/catalog.h"
#include "testutil.h"
#include "wqe/desc.h"

int main(void)
{
	/* rows: op; columns: RC UC UD inline */
	static const int table[WQE_OP_COUNT][4] = {
		[WQE_OP_SEND] = { 1, 1, 1, 1 },
		[WQE_OP_SEND_WITH_IMM] = { 1, 1, 1, 1 },
		[WQE_OP_SEND_WITH_INV] = { 1, 0, 0, 1 },
		[WQE_OP_RDMA_WRITE] = { 1, 1, 0, 1 },
		[WQE_OP_RDMA_WRITE_WITH_IMM] = { 1, 1, 0, 1 },
		[WQE_OP_RDMA_READ] = { 1, 0, 0, 0 },
		[WQE_OP_ATOMIC_CMP_AND_SWP] = { 1, 0, 0, 0 },
		[WQE_OP_ATOMIC_FETCH_AND_ADD] = { 1, 0, 0, 0 },
	};
	static const char *const names[WQE_OP_COUNT] = {
		"SEND", "SEND_WITH_IMM", "SEND_WITH_INV", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM",
		"RDMA_READ", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD",
	};
	int op;

	for (op = 0; op < WQE_OP_COUNT; op++) {
		CHECK_EQ(wqe_op_legal((enum wqe_op)op, WQE_QPT_RC), table[op][0]);
		CHECK_EQ(wqe_op_legal((enum wqe_op)op, WQE_QPT_UC), table[op][1]);
		CHECK_EQ(wqe_op_legal((enum wqe_op)op, WQE_QPT_UD), table[op][2]);
		CHECK_EQ(wqe_op_legal((enum wqe_op)op, (enum wqe_qp_type)0), 0);
		CHECK_EQ(wqe_op_inline_ok((enum wqe_op)op), table[op][3]);
		CHECK(strcmp(wqe_op_str((enum wqe_op)op), names[op]) == 0);
	}
	/* The Work Request opcode map is the catalog's wr_op column inverted:
	 * every slot, and values past the slots. */
	for (unsigned int w = 0; w < CATALOG_WR_SLOTS + 4; w++) {
		enum wqe_op o = WQE_OP_COUNT;
		enum wqe_wr_opcode back;
		int found = 0;

		for (op = 0; op < WQE_OP_COUNT; op++) {
			CHECK(catalog_wr_from_op((enum wqe_op)op, &back));
			found += back == (enum wqe_wr_opcode)w;
		}
		CHECK_EQ(catalog_op_from_wr((enum wqe_wr_opcode)w, &o), found == 1);
		if (found == 1) {
			CHECK(catalog_wr_from_op(o, &back));
			CHECK_EQ(back, (enum wqe_wr_opcode)w);
		} else {
			CHECK_EQ(o, WQE_OP_COUNT); /* left alone */
		}
	}
	CHECK_EQ(wqe_op_legal(WQE_OP_COUNT, WQE_QPT_RC), 0);
	CHECK_EQ(wqe_op_legal((enum wqe_op)-1, WQE_QPT_RC), 0);
	CHECK_EQ(wqe_op_inline_ok(WQE_OP_COUNT), 0);
	CHECK(strcmp(wqe_op_str(WQE_OP_COUNT), "unknown") == 0);
	CHECK(strcmp(wqe_op_str((enum wqe_op)-1), "unknown") == 0);
	return test_finish();
}
