/* SPDX-License-Identifier: MIT */
/*
 * text_int.h - what the parser and the formatter of the request text form
 * share: the opcode and key tables. Private to src/text.
 */
#ifndef WQE_TEXT_INT_H
#define WQE_TEXT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "wqe/text.h"

enum text_key {
	TK_ID = 0,
	TK_SGE,
	TK_INLINE,
	TK_RADDR,
	TK_RKEY,
	TK_IMM,
	TK_INV,
	TK_SWAP,
	TK_COMPARE,
	TK_ADD,
	TK_DQPN,
	TK_QKEY,
	TK_SPORT,
	TK_DGID,
	TK_DMAC,
	TK_HOP,
	TK_TCLASS,
	TK_FLOW,
	TK_SL,
	TK_SGID_INDEX,
	TK_FLAGS,
	TK_COUNT
};

#define TK_BIT(k) (1u << (k))
/* Keys every opcode takes. */
#define TK_COMMON (TK_BIT(TK_ID) | TK_BIT(TK_SGE) | TK_BIT(TK_INLINE) | TK_BIT(TK_FLAGS))
/* The UD address keys (send family on a UD QP). */
#define TK_UD                                                                                      \
	(TK_BIT(TK_DQPN) | TK_BIT(TK_QKEY) | TK_BIT(TK_SPORT) | TK_BIT(TK_DGID) |                  \
	 TK_BIT(TK_DMAC) | TK_BIT(TK_HOP) | TK_BIT(TK_TCLASS) | TK_BIT(TK_FLOW) | TK_BIT(TK_SL) | \
	 TK_BIT(TK_SGID_INDEX))
#define TK_REMOTE (TK_BIT(TK_RADDR) | TK_BIT(TK_RKEY))

struct text_opcode {
	const char *name;
	enum wqe_wr_opcode opcode;
	uint32_t keys; /* TK_BIT mask of the keys it takes (UD keys: on UD only) */
};

struct text_keydef {
	const char *name;
	unsigned int bits; /* range of a plain number; 0 for other syntaxes */
};

extern const struct text_opcode text_opcodes[];
extern const unsigned int text_num_opcodes;
/* The receive request's opcode: recv, which takes id= and sge= only. */
extern const struct text_opcode text_recv_opcode;
extern const struct text_keydef text_keys[TK_COUNT];

/* The table entry of @op, or NULL. */
const struct text_opcode *text_opcode_find(enum wqe_wr_opcode op);

/* The WQE printers' pieces (print.c), shared by the receive printer. */
/* @len bytes of @p from @off, 16 a line; @squeeze: a run of all-zero full
 * lines after the first is one "*" line. */
void text_print_hex_lines(FILE *f, const uint8_t *p, uint32_t off, uint32_t len,
			  const char *indent, bool squeeze);
/* One field: its offset, name, first bytes and meaning. */
void text_print_field(FILE *f, const struct wqe_field *fd, const uint8_t *wqe);

#endif /* WQE_TEXT_INT_H */
