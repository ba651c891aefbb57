/* SPDX-License-Identifier: MIT */
/*
 * wqe/desc.h - the on-chip WQE as the NIC side sees it.
 *
 * A struct wqe_desc is what a decoder recovers from the bytes of one WQE in
 * a send-queue ring: the neutral description the engine works from. It is
 * deliberately not the software Work Request (wqe/verbs.h): it has no wr_id,
 * no next pointer, no address-handle pointer, only what the WQE bytes carry.
 * The engine (src/engine) includes this header and never wqe/verbs.h.
 *
 * All functions here are pure: no global state, thread-safe, callable from a
 * simulator's C interface.
 */
#ifndef WQE_DESC_H
#define WQE_DESC_H

#include <stdbool.h>
#include <stdint.h>

#include "wqe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes in one send-queue basic block (mlx5 WQEBB). */
#define WQE_BLOCK_SIZE 64u
/* Largest WQE in blocks (mlx5: MLX5_SEND_WQE_MAX_WQEBBS). */
#define WQE_MAX_BLOCKS 16u
/* Largest mlx5 WQE in bytes: the 6-bit DS field counts at most 63 x 16 B. */
#define WQE_MLX5_MAX_WQE_BYTES 1008u
/* Most scatter/gather entries a decoded WQE can hold (any format). */
#define WQE_DESC_MAX_SGE 64u

/*
 * The operation a WQE requests, as decoded from its format's opcode. These
 * are the eight operation families of the operation catalog; a NOP is not
 * modelled.
 */
enum wqe_op {
	WQE_OP_SEND = 0,
	WQE_OP_SEND_WITH_IMM,
	WQE_OP_SEND_WITH_INV,
	WQE_OP_RDMA_WRITE,
	WQE_OP_RDMA_WRITE_WITH_IMM,
	WQE_OP_RDMA_READ,
	WQE_OP_ATOMIC_CMP_AND_SWP,
	WQE_OP_ATOMIC_FETCH_AND_ADD,
	WQE_OP_COUNT
};
WQE_API const char *wqe_op_str(enum wqe_op op);

/* 1 if @op is legal on transport @t (the operation catalog), else 0. */
WQE_API int wqe_op_legal(enum wqe_op op, enum wqe_qp_type t);
/* 1 if @op may carry inline data (SEND and WRITE families), else 0. */
WQE_API int wqe_op_inline_ok(enum wqe_op op);

/* One scatter/gather entry as it sits in a WQE data segment. */
struct wqe_desc_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/* The datagram (UD address) part of a WQE, as filled for a RoCEv2 address. */
struct wqe_desc_ud {
	uint32_t qkey;
	uint32_t dqpn;        /* remote QP number, 24 bits */
	uint16_t udp_sport;   /* mlx5 carries it in the rlid field */
	uint8_t sl;
	uint8_t dmac[6];
	uint8_t tclass;
	uint8_t hop_limit;
	uint8_t sgid_index;
	uint32_t flow_label;  /* 20 bits */
	union wqe_gid dgid;
	/*
	 * rxe: the NIC's address-handle number (struct rxe_send_wr ud.ah_num).
	 * When non-zero the WQE carries no address: the NIC looks the fields
	 * above up in its address-handle table. mlx5 WQEs carry the address
	 * and leave this 0.
	 */
	uint32_t ah_num;
};

/*
 * One decoded WQE.
 *
 * @imm holds the 32-bit value of the immediate field read as big-endian: the
 * immediate data for *_WITH_IMM (so bytes 01 02 03 04 in the WQE give
 * 0x01020304, the same bytes the ImmDt header carries), or the invalidate
 * rkey for SEND_WITH_INV.
 *
 * @inline_data points into the buffer that was decoded (the fetched WQE), so
 * it is valid only as long as that buffer is. It is NULL when !is_inline.
 */
struct wqe_desc {
	enum wqe_format format;
	enum wqe_op op;
	uint32_t qpn;          /* QP number the WQE names (mlx5 ctrl qpn_ds) */
	uint16_t wqe_index;    /* index field of the WQE (mlx5: block counter) */
	uint8_t ds;            /* size in 16-byte units (mlx5); 0 for other formats */
	uint8_t nblocks;       /* 64-byte blocks the WQE occupies (mlx5) */
	uint32_t size;         /* bytes of the WQE that carry meaning */
	bool fence;
	bool signaled;
	bool solicited;
	bool is_inline;
	uint32_t imm;
	uint64_t remote_addr;
	uint32_t rkey;
	uint64_t swap_add;     /* CAS: swap value; FAA: value to add */
	uint64_t compare;      /* CAS: compare value; FAA: 0 */
	struct wqe_desc_ud ud; /* meaningful only on a UD QP */
	uint32_t num_sge;
	struct wqe_desc_sge sge[WQE_DESC_MAX_SGE];
	const uint8_t *inline_data;
	uint32_t inline_len;
	uint64_t total_len;    /* sum of SGE lengths, or inline_len */
};

/*
 * Why a decoder rejected a WQE. Each value has a fixed message from
 * wqe_decode_err_str(). WQE_DEC_OK is 0.
 */
enum wqe_decode_err {
	WQE_DEC_OK = 0,
	WQE_DEC_TRUNCATED,      /* fewer bytes than the WQE says it has */
	WQE_DEC_BAD_SIZE,       /* DS of 0, DS past 63, more blocks than posted */
	WQE_DEC_BAD_OPCODE,     /* opcode unknown to the format */
	WQE_DEC_BAD_SEGMENTS,   /* segments do not fit the opcode/transport */
	WQE_DEC_BAD_INLINE,     /* inline length larger than the WQE */
	WQE_DEC_BAD_FIELD,      /* a reserved or constrained field has a bad value */
	WQE_DEC_TOO_MANY_SGE,   /* more data segments than WQE_DESC_MAX_SGE */
};
WQE_API const char *wqe_decode_err_str(enum wqe_decode_err e);

/*
 * The QP facts a decoder needs: the format of a WQE does not say which
 * transport its QP has (the NIC knows it from the QP context).
 */
struct wqe_decode_ctx {
	enum wqe_qp_type qp_type;
	uint32_t max_bytes; /* bytes available from the first byte (posted blocks x 64) */
	uint32_t qpn;       /* rxe: the QP's number (its WQEs do not carry it) */
};

/*
 * wqe_peek_size - how many bytes the WQE starting at @wqe occupies.
 * @fmt:  the format.
 * @wqe:  at least the first 16 bytes of the WQE (mlx5: the control segment).
 * @len:  bytes readable at @wqe.
 * @size: out, the WQE's size in bytes rounded up to whole 64-byte blocks.
 * Returns WQE_DEC_OK, WQE_DEC_TRUNCATED if @len < 16, or WQE_DEC_BAD_SIZE
 * if the size field is 0 or out of range. The engine calls it on the first
 * block to know how many more blocks to fetch. An rxe WQE has no size
 * field: it fills its QP's power-of-two slot (wqe_calc_sq()), so for
 * WQE_FORMAT_RXE this returns WQE_DEC_BAD_SIZE and the engine uses the slot.
 */
WQE_API enum wqe_decode_err wqe_peek_size(enum wqe_format fmt, const uint8_t *wqe,
					  size_t len, uint32_t *size);

/*
 * wqe_decode - decode one WQE from contiguous bytes.
 * @fmt: the format the bytes are in.
 * @ctx: transport of the QP and how many bytes were posted.
 * @wqe: the WQE's first byte; it must be contiguous (the engine fetches the
 *       blocks of a WQE that wraps the ring end into one buffer first).
 * @len: bytes readable at @wqe. Nothing past @len is ever read.
 * @out: filled on success; on failure its contents are unspecified.
 * Returns WQE_DEC_OK or the reason the bytes are not a well-formed WQE of
 * @fmt for a QP of @ctx->qp_type. Legality of the opcode on the transport is
 * NOT a decode error (the engine judges it, to give the right completion
 * status); segments that do not fit the opcode are.
 */
WQE_API enum wqe_decode_err wqe_decode(enum wqe_format fmt, const struct wqe_decode_ctx *ctx,
				       const uint8_t *wqe, size_t len, struct wqe_desc *out);

/*
 * The commonest send WQE in a small fixed form: an RDMA WRITE or a SEND,
 * with or without an immediate, and either one data segment, its payload
 * inline or no payload at all, on an RC or UC QP, the whole WQE in one 64-byte block (mlx5: an
 * inline SEND of up to 44 bytes, an inline WRITE of up to 28). A NIC's
 * fast path takes this shape without the general decode (the engine's
 * requester does).
 */
struct wqe_desc_simple {
	/* WQE_OP_RDMA_WRITE, WQE_OP_RDMA_WRITE_WITH_IMM, WQE_OP_SEND or
	 * WQE_OP_SEND_WITH_IMM */
	enum wqe_op op;
	uint8_t fence;         /* as struct wqe_desc */
	uint8_t signaled;      /* the WQE's own request (not sq_sig_all) */
	uint8_t solicited;
	/* The SGE's, or the inline bytes' (1 to 2^31 - 1); 0 for a WQE with
	 * no segment after its transport segments (a zero-length message) */
	uint32_t length;
	uint32_t lkey;	       /* the SGE's; 0 when inline or zero-length */
	uint64_t addr;	       /* the SGE's; 0 when inline or zero-length */
	uint64_t remote_addr;  /* WRITE; 0 for a SEND */
	uint32_t rkey;         /* WRITE; 0 for a SEND */
	uint32_t imm;          /* *_WITH_IMM: as struct wqe_desc's @imm; else 0 */
	/* The inline payload, @length bytes inside the block passed to
	 * wqe_decode_simple(); NULL when the WQE has a data segment. */
	const uint8_t *inline_data;
};

/*
 * wqe_decode_simple - recognise the commonest send WQE (struct
 * wqe_desc_simple) in one block.
 * @fmt:   the format.
 * @t:     the QP's transport.
 * @qpn:   the QP's number (an mlx5 WQE names its QP).
 * @block: the WQE's first 64 bytes (all of them are readable).
 * @out:   filled when 1 is returned; otherwise unspecified.
 * Returns 1 when the block is such a WQE of QP @qpn: wqe_decode() would
 * then decode it with WQE_DEC_OK, in one block, into the same fields
 * (num_sge 1 and no inline data, num_sge 0 and the same inline bytes, or
 * num_sge 0 and no inline data for length 0; the same imm, qpn @qpn). Returns 0 for anything
 * else, well-formed or not (wqe_decode() says what it is), and always for
 * a format without such a shape (rxe: its slots are larger than a block)
 * or a NULL pointer. Thread-safe.
 */
WQE_API int wqe_decode_simple(enum wqe_format fmt, enum wqe_qp_type t, uint32_t qpn,
			      const uint8_t *block, struct wqe_desc_simple *out);

/*
 * One decoded receive WQE: the scatter list that a SEND's payload (on UD,
 * the 40-byte GRH area first) or a WRITE with immediate's completion takes.
 * The engine decodes the WQE at its consumer counter again for each packet
 * it places (it keeps no copy), so a rewritten slot is judged anew.
 */
struct wqe_recv_desc {
	enum wqe_format format;
	uint64_t wr_id;      /* rxe: the WQE carries it; mlx5: 0 (the provider keeps it) */
	uint32_t size;       /* bytes of the slot that carry meaning */
	uint32_t num_sge;
	uint64_t total_len;  /* sum of the SGE lengths */
	struct wqe_desc_sge sge[WQE_DESC_MAX_SGE];
};

/*
 * wqe_decode_recv - decode the receive WQE in one slot of a receive ring.
 * @fmt:  the format the bytes are in.
 * @wqe:  the slot's first byte.
 * @len:  bytes readable at @wqe: the slot's size (wqe_calc_rq()). Nothing
 *        past @len is ever read.
 * @out:  filled on success (sge[] up to num_sge only); on failure its
 *        contents are unspecified.
 *
 * mlx5: 16-byte data segments (byte_count, lkey, addr; big-endian), ended
 * by the first whose lkey is 0x100 (MLX5_INVALID_LKEY) or by the end of the
 * slot. Every byte pattern is a WQE: junk shows up later as a bad lkey or
 * a short buffer. Errors: WQE_DEC_TRUNCATED if @len < 16,
 * WQE_DEC_TOO_MANY_SGE if 64 segments pass with no end.
 *
 * rxe: struct rxe_recv_wqe (rdma/rdma_user_rxe.h) in host byte order, as
 * the rxe provider leaves it at post time. Errors, checked in this order:
 * WQE_DEC_TRUNCATED if @len < 40; WQE_DEC_BAD_FIELD if the dma cursor is
 * not the posted one (resid != length, cur_sge or sge_offset non-zero);
 * WQE_DEC_TOO_MANY_SGE if num_sge > 64; WQE_DEC_BAD_SEGMENTS if the SGE
 * array runs past @len or its lengths do not add up to dma.length. The
 * reserved and padding words are not looked at (the provider never writes
 * them; the kernel never reads them).
 */
WQE_API enum wqe_decode_err wqe_decode_recv(enum wqe_format fmt, const uint8_t *wqe, size_t len,
					    struct wqe_recv_desc *out);

#ifdef __cplusplus
}
#endif

#endif /* WQE_DESC_H */
