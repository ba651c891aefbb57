/* SPDX-License-Identifier: MIT */
/*
 * wqe/text.h - the three shapes as text: a one-line Work Request form,
 * an annotated WQE, and field-by-field listings.
 *
 * The request text form (one request per line):
 *
 *   OPCODE [key=value ...]            # a comment runs to the end of the line
 *
 *   OPCODE   send send_imm send_inv write write_imm read cas faa
 *            (wqe_parse_send_wr); recv, a receive request, takes id= and
 *            sge= only (wqe_parse_recv_wr, below)
 *   id=N                 wr_id (64 bits)
 *   sge=ADDR:LEN:LKEY    one scatter/gather entry; repeatable, kept in order
 *   inline=HEX           payload bytes carried in the request; sets INLINE
 *   raddr=ADDR rkey=KEY  remote address and key (write*, read, cas, faa)
 *   imm=N                send_imm, write_imm: imm=0x01020304 puts the bytes
 *                        01 02 03 04 in wr.imm_data (network order)
 *   inv=KEY              send_inv: the rkey to invalidate (host order)
 *   swap=N compare=N     cas;   add=N  faa
 *   dqpn= qkey= sport= dgid= dmac= hop= tclass= flow= sl= sgid_index=
 *                        the UD address (send family on a UD QP only)
 *   flags=fence,signaled,solicited
 *
 * Numbers are decimal or 0x hexadecimal and are range-checked per field
 * (QPN 24 bits, flow label 20, sl 3, hop/tclass/sgid_index 8, sport 16,
 * keys and lengths 32, addresses and atomic operands 64). dgid= takes an
 * IPv4 address (stored as ::ffff:a.b.c.d) or an IPv6 one; dmac= six
 * colon-separated hex pairs. Where an address or a key is expected, a
 * resolver (struct wqe_text_opts) may supply it for a name:
 *   sge=buf+16:64:buf.lkey   raddr=remote+8   rkey=remote.rkey
 * A name is [A-Za-z_][A-Za-z0-9_]*, optionally followed by .addr, .lkey or
 * .rkey, and (addresses only) +OFFSET.
 *
 * Every function here is pure and thread-safe unless it says otherwise:
 * no global state, no allocation; the caller provides all storage.
 */
#ifndef WQE_TEXT_H
#define WQE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wqe/desc.h"
#include "wqe/types.h"
#include "wqe/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most payload bytes inline=HEX may carry. */
#define WQE_TEXT_MAX_INLINE 4096u
/* A buffer of this many bytes holds wqe_format_send_wr() of any request
 * wqe_parse_send_wr() accepts, NUL included. */
#define WQE_TEXT_LINE_MAX 12288u
/* Size of the message buffer of struct wqe_text_err. */
#define WQE_TEXT_MSG_MAX 200u

/* What a name stands for where the parser asks a resolver for a value. */
enum wqe_text_ref {
	WQE_TEXT_REF_ADDR = 0, /* an address: sge= first part, raddr= */
	WQE_TEXT_REF_LKEY = 1, /* a local key: sge= last part */
	WQE_TEXT_REF_RKEY = 2, /* a remote key: rkey=, inv= */
};
WQE_API const char *wqe_text_ref_str(enum wqe_text_ref kind);

/*
 * A resolver: give *@value for the name @name (@name_len bytes, not
 * NUL-terminated; the suffix .addr/.lkey/.rkey and any +OFFSET are not
 * part of it) used as @kind. Return 0 on success, non-zero if the name is
 * unknown: the parser then fails with "cannot resolve ...". For an LKEY or
 * RKEY the value must fit 32 bits. Called from the parsing thread only.
 */
typedef int (*wqe_text_resolve_fn)(void *arg, const char *name, size_t name_len,
				   enum wqe_text_ref kind, uint64_t *value);

/* Parse options. A NULL options pointer means an RC QP and no resolver. */
struct wqe_text_opts {
	/*
	 * The transport of the QP the request is for. On UD the send family
	 * takes the address keys and wr.wr.ud.ah always points at the
	 * result's address handle (all-zero attributes, port 1, when no key
	 * is given). On RC and UC the address keys are an error.
	 */
	enum wqe_qp_type qp_type;
	wqe_text_resolve_fn resolve; /* NULL: a name where a number is expected is an error */
	void *arg;                   /* passed to @resolve */
};

/*
 * A parsed request and the storage it points into. wr.sg_list points at
 * @sge; an inline request's one SGE (lkey 0) points at @inline_data; on UD
 * wr.wr.ud.ah points at @ah. The struct therefore refers to itself: copy it
 * only by parsing again.
 */
struct wqe_text_wr {
	struct wqe_send_wr wr;
	struct wqe_sge sge[WQE_DESC_MAX_SGE];
	struct wqe_ah ah;
	uint32_t inline_len;
	uint8_t inline_data[WQE_TEXT_MAX_INLINE];
};

/* Where and why a line was refused. */
struct wqe_text_err {
	uint32_t column;            /* 1-based column where the problem starts */
	char msg[WQE_TEXT_MSG_MAX]; /* what was expected, e.g. "expected a number after 'rkey='" */
};

/*
 * wqe_parse_send_wr - parse one request line.
 * @line: the text; a '#' and what follows it are ignored. It need not be
 *        NUL-terminated: at most @len bytes are read (a NUL ends it early).
 * @opts: the QP type and the resolver; may be NULL (RC, no resolver).
 * @out:  filled on success (cleared first, so absent keys are zero).
 * @err:  on failure, the column and the message; may be NULL.
 * Returns 0, or EINVAL for: an unknown opcode, an unknown key, a key that
 * does not apply to the opcode or transport, a key given twice (only sge=
 * repeats), a missing '=', a malformed or out-of-range value, more than
 * WQE_DESC_MAX_SGE sge= entries, inline= together with sge=, an inline
 * payload over WQE_TEXT_MAX_INLINE, a name the resolver refused. The
 * parser checks syntax and ranges, not legality: a READ on a UD QP parses
 * (wqe_post_send() refuses it), its remote keys filling wr.wr.rdma, and
 * inline= parses on any opcode. INLINE is set only by inline=, so the SGE
 * of an inline request always points at @out->inline_data.
 */
WQE_API int wqe_parse_send_wr(const char *line, size_t len, const struct wqe_text_opts *opts,
			      struct wqe_text_wr *out, struct wqe_text_err *err);

/*
 * wqe_format_send_wr - write @wr as one request line (no newline), such
 * that wqe_parse_send_wr() of it gives back the same request: opcode,
 * wr_id, SGEs or inline payload, flags, and the fields the opcode uses
 * (the UD address on a UD send). Zero-valued optional keys are left out.
 * @wr:   the request; wr->next is ignored. With WQE_SEND_INLINE, the bytes
 *        the SGEs name are read and written as one inline=HEX (as
 *        wqe_post_send() would read them), so those addresses must be real.
 * @t:    the transport; it says whether wr.wr.ud applies.
 * @buf:  the output, always NUL-terminated when @cap > 0.
 * @cap:  bytes at @buf; WQE_TEXT_LINE_MAX is always enough for a request
 *        the parser made.
 * Returns the length of the whole line (excluding the NUL) as snprintf()
 * does, so a result >= @cap means truncated; or -EINVAL for an unknown
 * opcode or flag bit, num_sge < 0 or over WQE_DESC_MAX_SGE, a NULL
 * sg_list with num_sge > 0, or an inline payload over WQE_TEXT_MAX_INLINE.
 */
WQE_API int wqe_format_send_wr(const struct wqe_send_wr *wr, enum wqe_qp_type t, char *buf,
			       size_t cap);

/*
 * The receive request form (wqe_parse_recv_wr(), wqe_format_recv_wr()):
 *
 *   recv [id=N] [sge=ADDR:LEN:LKEY ...]
 *
 * id= and sge= as for a send (sge= repeats, at most WQE_DESC_MAX_SGE; a
 * name needs the resolver); no other key applies. A receive takes no
 * flags, no inline data and no address: it goes to the receive ring.
 */

/* A parsed receive request and its SGEs (wr.sg_list points at @sge). */
struct wqe_text_recv_wr {
	struct wqe_recv_wr wr;
	struct wqe_sge sge[WQE_DESC_MAX_SGE];
};

/*
 * wqe_parse_recv_wr - parse one receive request line. Arguments and
 * errors as wqe_parse_send_wr() (@opts only for its resolver; the QP type
 * does not matter): EINVAL for an opcode other than recv, an unknown key
 * or one that is not id= or sge=, a key given twice (only sge= repeats), a
 * missing '=', a malformed or out-of-range value, more than
 * WQE_DESC_MAX_SGE sge= entries, a name the resolver refused.
 */
WQE_API int wqe_parse_recv_wr(const char *line, size_t len, const struct wqe_text_opts *opts,
			      struct wqe_text_recv_wr *out, struct wqe_text_err *err);

/*
 * wqe_format_recv_wr - write @wr as one receive request line (no
 * newline), such that wqe_parse_recv_wr() of it gives it back; id= is
 * left out when wr_id is 0. wr->next is ignored. Returns as
 * wqe_format_send_wr(), or -EINVAL for num_sge < 0 or over
 * WQE_DESC_MAX_SGE, or a NULL sg_list with num_sge > 0.
 */
WQE_API int wqe_format_recv_wr(const struct wqe_recv_wr *wr, char *buf, size_t cap);

/* 1 if the first word of @line (@len bytes at most) is "recv". */
WQE_API int wqe_text_is_recv(const char *line, size_t len);

/*
 * A reader of request lines from a text buffer: yields each line that is
 * not blank or comment-only, with its 1-based line number. LF and CRLF
 * line ends are accepted. Not thread-safe for one reader; readers are
 * independent.
 */
struct wqe_text_reader {
	const char *buf;
	size_t len;
	size_t pos;
	uint32_t lineno;
};
WQE_API void wqe_text_reader_init(struct wqe_text_reader *r, const char *buf, size_t len);
/*
 * wqe_text_reader_next - the next request line.
 * Returns 1 with *@line (not NUL-terminated, line end excluded), *@len and
 * *@lineno set, or 0 at the end of the buffer.
 */
WQE_API int wqe_text_reader_next(struct wqe_text_reader *r, const char **line, size_t *len,
				 uint32_t *lineno);

/* Most fields wqe_describe() reports for one WQE. */
#define WQE_FIELD_MAX 256u

/*
 * One field of a WQE, as wqe_describe() reports it.
 *
 * @value is the field's value read in the byte order the format stores
 * that field in:
 *  - mlx5: every field is big-endian (as mlx5dv.h's __be fields), so the
 *    bytes 00 00 ab cd of an rkey give 0xabcd;
 *  - rxe: integer fields are host order, little-endian on the x86-64 the
 *    layout is taken from (the bytes cd ab 00 00 of an rkey give 0xabcd),
 *    except imm_data, a __be32, which is big-endian;
 *  - byte arrays of either format (a MAC address, an inline payload of
 *    at most 8 bytes) read as bytes in order, i.e. big-endian.
 * Segments: mlx5 "ctrl", "raddr", "atomic", "datagram", "data[i]",
 * "inline"; rxe "wr", then "rdma", "atomic", "ud" and "av", or "union"
 * (the part of struct rxe_send_wr its opcode uses), "progress", "dma",
 * "sge[i]" or "inline". Receive WQEs (wqe_describe_recv()): mlx5
 * "data[i]" and "end"; rxe "wr", "dma", "sge[i]".
 */
struct wqe_field {
	char segment[16];   /* see above */
	const char *name;   /* static: "opcode", "qpn", "rkey", "payload", ... */
	uint32_t offset;    /* from the first byte of the WQE */
	uint32_t length;    /* bytes */
	bool has_value;     /* the field fits 64 bits: @value holds it */
	uint64_t value;     /* the field's value in its own byte order (above) */
	char meaning[64];   /* short decoded meaning, e.g. "SEND (0x0a)", "ds=3 -> 48 B, 1 block" */
};

/* A WQE broken down field by field, in byte order. */
struct wqe_description {
	struct wqe_desc desc;   /* what wqe_decode() returned */
	uint32_t num_fields;
	struct wqe_field field[WQE_FIELD_MAX];
};

/*
 * wqe_describe - list the fields of one WQE.
 * @fmt, @ctx, @wqe, @len: as for wqe_decode(), which is called first: the
 * fields are laid out from its result (the segments its opcode and
 * transport have, then the data segments or the inline segment), so the
 * fields cover bytes 0 to desc.size - 1 without gaps or overlaps. For
 * WQE_FORMAT_RXE, desc.size is the bytes of the slot that carry meaning
 * (the 208-byte struct rxe_send_wqe plus its SGEs or inline bytes); the
 * rest of the slot is not described. Every byte of struct rxe_send_wr is,
 * the parts of its union the opcode does not use as one "unused" field.
 * @out: filled on success.
 * Returns WQE_DEC_OK; the decoder's error for bytes that are not a
 * well-formed WQE; WQE_DEC_BAD_SEGMENTS if the decoded description and
 * the WQE's size disagree; WQE_DEC_BAD_OPCODE for an unknown format.
 */
WQE_API enum wqe_decode_err wqe_describe(enum wqe_format fmt, const struct wqe_decode_ctx *ctx,
					 const uint8_t *wqe, size_t len,
					 struct wqe_description *out);

/* A receive WQE broken down field by field, in byte order. */
struct wqe_recv_description {
	struct wqe_recv_desc desc; /* what wqe_decode_recv() returned */
	uint32_t num_fields;
	struct wqe_field field[WQE_FIELD_MAX];
};

/*
 * wqe_describe_recv - list the fields of the receive WQE in one slot of a
 * receive ring, as wqe_describe() lists a send WQE's.
 * @fmt, @slot, @len: as for wqe_decode_recv(), which is called first: the
 * fields are laid out from its result and cover bytes 0 to desc.size - 1
 * without gaps or overlaps; the rest of the slot is not described.
 *   mlx5: per SGE a "data[i]" segment (struct mlx5_wqe_data_seg:
 *         byte_count, lkey, addr), then, when the slot had room for it, the
 *         "end" segment whose lkey is 0x100 (MLX5_INVALID_LKEY; its other
 *         words are not read by a NIC). Values big-endian.
 *   rxe:  "wr" (wr_id, reserved, padding), "dma" (length, resid, cur_sge,
 *         num_sge, sge_offset, reserved: struct rxe_dma_info), then per
 *         SGE "sge[i]" (addr, length, lkey). Values host order
 *         (little-endian on the x86-64 the layout is taken from).
 * @out: filled on success, untouched on an error.
 * Returns WQE_DEC_OK; the decoder's error for a slot that does not hold a
 * well-formed receive WQE (WQE_DEC_TRUNCATED for a NULL @slot);
 * WQE_DEC_BAD_FIELD for a NULL @out; WQE_DEC_BAD_OPCODE for an unknown
 * format. Thread-safe: it reads @slot and writes only @out.
 */
WQE_API enum wqe_decode_err wqe_describe_recv(enum wqe_format fmt, const uint8_t *slot,
					      size_t len, struct wqe_recv_description *out);

/*
 * wqe_print_wqe - print a WQE to @f, grouped by segment, 16 bytes a line,
 * each field named and decoded beside its bytes, then a summary line:
 *   mlx5: "64 bytes, ds=4, 1 block of 64 B; inline payload of 28 bytes at
 *         offset 36"
 *   rxe:  "236 bytes used of a 512-byte slot (8 blocks); inline payload of
 *         28 bytes at offset 208" (an rxe WQE has no size field: it fills
 *         its QP's slot, the @len bytes given, at most ctx->max_bytes)
 * In an rxe segment, a run of all-zero 16-byte lines after the first is
 * shown as one "*" line (as hexdump does). Arguments as for wqe_describe().
 * Returns its result (or WQE_DEC_BAD_FIELD for a NULL @f); on an error
 * nothing is printed. Uses about 30 KB of stack for the description.
 * Thread-safe as far as stdio is.
 */
WQE_API enum wqe_decode_err wqe_print_wqe(FILE *f, enum wqe_format fmt,
					  const struct wqe_decode_ctx *ctx, const uint8_t *wqe,
					  size_t len);

/*
 * wqe_print_recv_wqe - print the receive WQE in one slot of @len bytes
 * (wqe_calc_rq()) to @f, as wqe_print_wqe() prints a send WQE: grouped by
 * segment, 16 bytes a line, each field named and decoded beside its bytes,
 * the bytes of the slot after the WQE as one "unused" group (zero runs
 * shown as "*"), then a summary line, e.g. "48 bytes used of a 64-byte
 * slot: 2 data segments naming 1280 bytes, then the end marker".
 * The fields are wqe_describe_recv()'s: returns its result, or
 * WQE_DEC_BAD_FIELD for a NULL @f or @slot; on an error nothing is
 * printed. Uses about 30 KB of stack for the field list.
 * Thread-safe as far as stdio is.
 */
WQE_API enum wqe_decode_err wqe_print_recv_wqe(FILE *f, enum wqe_format fmt, const uint8_t *slot,
					       size_t len);

/*
 * wqe_print_recv_desc - print a decoded receive WQE (what the NIC side
 * sees) field by field to @f: format, wr_id (rxe; mlx5 slots carry none),
 * size, num_sge, each SGE, total_len. @slot_bytes is the slot's size.
 */
WQE_API void wqe_print_recv_desc(FILE *f, const struct wqe_recv_desc *d, uint32_t slot_bytes);

/*
 * wqe_print_desc - print a decoded WQE (what the NIC side sees) field by
 * field to @f. @t is the transport of the QP (it says whether the datagram
 * fields mean anything). The size line is the format's: "64 B (ds=4, 1
 * block)" for mlx5, "236 bytes used of a 512-byte slot (8 blocks)" for rxe,
 * whose WQEs carry no index, no QP number (the QP's, from @d) and, when
 * ud.ah_num is set, no address (the NIC's address-handle table has it).
 */
WQE_API void wqe_print_desc(FILE *f, const struct wqe_desc *d, enum wqe_qp_type t);

/*
 * wqe_print_send_wr - print a software Work Request field by field to @f:
 * wr_id, next, num_sge and each SGE, opcode, send_flags by name,
 * imm_data or invalidate_rkey, and the rdma, atomic or UD fields its
 * opcode uses on transport @t. With WQE_SEND_INLINE the payload the SGEs
 * name is read and shown. wr->next is not followed.
 * Returns 0, or EINVAL for a NULL @f or @wr.
 */
WQE_API int wqe_print_send_wr(FILE *f, const struct wqe_send_wr *wr, enum wqe_qp_type t);

#ifdef __cplusplus
}
#endif

#endif /* WQE_TEXT_H */
