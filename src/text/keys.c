/* SPDX-License-Identifier: MIT */
/*
 * The tables of the request text form: opcodes, the keys each takes, the
 * keys' names and ranges. Shared by the parser and the formatter.
 */
#include "text/text_int.h"

const struct text_opcode text_opcodes[] = {
	{"send", WQE_WR_SEND, TK_COMMON | TK_UD},
	{"send_imm", WQE_WR_SEND_WITH_IMM, TK_COMMON | TK_UD | TK_BIT(TK_IMM)},
	{"send_inv", WQE_WR_SEND_WITH_INV, TK_COMMON | TK_UD | TK_BIT(TK_INV)},
	{"write", WQE_WR_RDMA_WRITE, TK_COMMON | TK_REMOTE},
	{"write_imm", WQE_WR_RDMA_WRITE_WITH_IMM, TK_COMMON | TK_REMOTE | TK_BIT(TK_IMM)},
	{"read", WQE_WR_RDMA_READ, TK_COMMON | TK_REMOTE},
	{"cas", WQE_WR_ATOMIC_CMP_AND_SWP,
	 TK_COMMON | TK_REMOTE | TK_BIT(TK_SWAP) | TK_BIT(TK_COMPARE)},
	{"faa", WQE_WR_ATOMIC_FETCH_AND_ADD, TK_COMMON | TK_REMOTE | TK_BIT(TK_ADD)},
};
const unsigned int text_num_opcodes = sizeof(text_opcodes) / sizeof(text_opcodes[0]);
/* The opcode field is unused: a receive has none. */
const struct text_opcode text_recv_opcode = {"recv", WQE_WR_SEND, TK_BIT(TK_ID) | TK_BIT(TK_SGE)};

const struct text_keydef text_keys[TK_COUNT] = {
	[TK_ID] = {"id", 64},        [TK_SGE] = {"sge", 0},       [TK_INLINE] = {"inline", 0},
	[TK_RADDR] = {"raddr", 64},  [TK_RKEY] = {"rkey", 32},    [TK_IMM] = {"imm", 32},
	[TK_INV] = {"inv", 32},      [TK_SWAP] = {"swap", 64},    [TK_COMPARE] = {"compare", 64},
	[TK_ADD] = {"add", 64},      [TK_DQPN] = {"dqpn", 24},    [TK_QKEY] = {"qkey", 32},
	[TK_SPORT] = {"sport", 16},  [TK_DGID] = {"dgid", 0},     [TK_DMAC] = {"dmac", 0},
	[TK_HOP] = {"hop", 8},       [TK_TCLASS] = {"tclass", 8}, [TK_FLOW] = {"flow", 20},
	[TK_SL] = {"sl", 3},         [TK_SGID_INDEX] = {"sgid_index", 8},
	[TK_FLAGS] = {"flags", 0},
};

const struct text_opcode *text_opcode_find(enum wqe_wr_opcode op)
{
	for (unsigned int i = 0; i < text_num_opcodes; i++)
		if (text_opcodes[i].opcode == op)
			return &text_opcodes[i];
	return NULL;
}

const char *wqe_text_ref_str(enum wqe_text_ref kind)
{
	switch (kind) {
	case WQE_TEXT_REF_ADDR: return "address";
	case WQE_TEXT_REF_LKEY: return "local key";
	case WQE_TEXT_REF_RKEY: return "remote key";
	}
	return "unknown";
}
