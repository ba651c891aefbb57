/* SPDX-License-Identifier: MIT */
/*
 * mlx5.h - the mlx5 send-WQE layout (private to src/fmt).
 *
 * Layout facts from rdma-core's public providers/mlx5/mlx5dv.h and the
 * provider's post path (providers/mlx5/qp.c, _mlx5_post_send); see
 * shared/reference/mlx5-send-path.md sections 1-3. Every multi-byte field
 * is big-endian. The encoder (mlx5.c) and the decoder (mlx5_decode.c) share
 * the opcode map and the choice of transport segments below, so that what
 * one writes the other reads.
 */
#ifndef WQE_FMT_MLX5_H
#define WQE_FMT_MLX5_H

#include <stdbool.h>
#include <stdint.h>

#include "fmt/fmt.h"

/* Segment sizes in bytes. */
enum {
	MLX5_DS_BYTES = 16,     /* one DS (octoword) */
	MLX5_CTRL_BYTES = 16,   /* struct mlx5_wqe_ctrl_seg */
	MLX5_RADDR_BYTES = 16,  /* struct mlx5_wqe_raddr_seg */
	MLX5_ATOMIC_BYTES = 16, /* struct mlx5_wqe_atomic_seg */
	MLX5_DGRAM_BYTES = 48,  /* struct mlx5_wqe_datagram_seg (mlx5_wqe_av) */
	MLX5_DATA_BYTES = 16,   /* struct mlx5_wqe_data_seg */
	MLX5_INL_HDR_BYTES = 4, /* struct mlx5_wqe_inl_data_seg */
	MLX5_MAX_DS = 63,       /* the DS field is read through a 0x3f mask */
	MLX5_ATOMIC_SIZE = 8,   /* an atomic's data segment byte_count */
};

/* mlx5 opcodes (mlx5dv.h MLX5_OPCODE_*). */
enum {
	MLX5_OPC_SEND_INVAL = 0x01,
	MLX5_OPC_RDMA_WRITE = 0x08,
	MLX5_OPC_RDMA_WRITE_IMM = 0x09,
	MLX5_OPC_SEND = 0x0a,
	MLX5_OPC_SEND_IMM = 0x0b,
	MLX5_OPC_RDMA_READ = 0x10,
	MLX5_OPC_ATOMIC_CS = 0x11,
	MLX5_OPC_ATOMIC_FA = 0x12,
};

/* fm_ce_se bits (mlx5dv.h MLX5_WQE_CTRL_*). */
enum {
	MLX5_CTRL_SOLICITED = 0x02,
	MLX5_CTRL_CQ_UPDATE = 0x08,
	MLX5_CTRL_FENCE = 0x80, /* fence mode 4 << 5: small and fence */
};

#define MLX5_INLINE_SEG 0x80000000u     /* inline byte_count flag */
#define MLX5_EXTENDED_UD_AV 0x80000000u /* dqp_dct bit 31 */
#define MLX5_FLOW_LABEL_MASK 0xfffffu
#define MLX5_QPN_MASK 0xffffffu

/* Which transport segments follow the control segment. */
enum {
	MLX5_SEG_RADDR = 1u << 0,
	MLX5_SEG_ATOMIC = 1u << 1,
	MLX5_SEG_DGRAM = 1u << 2,
};

/* Bytes of the transport segments @s (OR of MLX5_SEG_*), as a constant. */
#define MLX5_SEGS_BYTES(s)                                                                     \
	(((s) & MLX5_SEG_RADDR ? MLX5_RADDR_BYTES : 0) +                                       \
	 ((s) & MLX5_SEG_ATOMIC ? MLX5_ATOMIC_BYTES : 0) +                                     \
	 ((s) & MLX5_SEG_DGRAM ? MLX5_DGRAM_BYTES : 0))

/* The transport segments of one operation on one transport, and the DS
 * the control segment and they take. */
struct mlx5_transport {
	uint8_t segs;     /* MLX5_SEG_* */
	uint8_t fixed_ds; /* control + transport segments, in DS */
};

/*
 * The tables of mlx5.c, shared with the decoder; the lookups below are
 * inline because the encoder and the decoder ask them for every WQE.
 * mlx5_transports is indexed by transport (RC, UC, UD) and operation,
 * mlx5_opcodes by operation, mlx5_ops_of_opcode by mlx5 opcode (MLX5_NO_OP
 * for a code that is no operation).
 */
#define MLX5_OPC_SLOTS (MLX5_OPC_ATOMIC_FA + 1)
#define MLX5_NO_OP 0xffu
extern const struct mlx5_transport mlx5_transports[3][WQE_OP_COUNT];
extern const uint8_t mlx5_opcodes[WQE_OP_COUNT];
extern const uint8_t mlx5_ops_of_opcode[MLX5_OPC_SLOTS];

/* true for RC, UC and UD. */
static inline bool mlx5_qpt_valid(enum wqe_qp_type t)
{
	return t == WQE_QPT_RC || t == WQE_QPT_UC || t == WQE_QPT_UD;
}

/* The mlx5 opcode of @op (@op must be valid). */
static inline uint8_t mlx5_opcode_of(enum wqe_op op)
{
	return mlx5_opcodes[op];
}

/* The operation of mlx5 opcode @opc: true and *@op, or false if unknown. */
static inline bool mlx5_op_of_opcode(uint8_t opc, enum wqe_op *op)
{
	if (opc >= MLX5_OPC_SLOTS || mlx5_ops_of_opcode[opc] == MLX5_NO_OP)
		return false;
	*op = (enum wqe_op)mlx5_ops_of_opcode[opc];
	return true;
}

/*
 * The transport segments the provider writes for @op on @t: RC raddr for
 * READ/WRITE/WRITE_IMM, raddr + atomic for the atomics; UC raddr for
 * WRITE/WRITE_IMM only; UD the datagram segment whatever the opcode. An
 * opcode illegal on the transport gets what its transport's switch in
 * _mlx5_post_send gives it: nothing extra on UC. 0 for an invalid @t, or
 * an invalid @op on RC or UC.
 */
static inline unsigned int mlx5_transport_segs(enum wqe_qp_type t, enum wqe_op op)
{
	if (t == WQE_QPT_UD)
		return MLX5_SEG_DGRAM;
	if (!mlx5_qpt_valid(t) || (unsigned int)op >= WQE_OP_COUNT)
		return 0;
	return mlx5_transports[t - WQE_QPT_RC][op].segs;
}

/* Bytes of the segments @segs (OR of MLX5_SEG_*). */
static inline uint32_t mlx5_segs_bytes(unsigned int segs)
{
	return (uint32_t)MLX5_SEGS_BYTES(segs);
}

/* Round @n up to a multiple of @a (a power of two). */
static inline uint64_t mlx5_align(uint64_t n, uint64_t a)
{
	return (n + a - 1) & ~(a - 1);
}

/* The decoder ops (mlx5_decode.c). */
enum wqe_decode_err mlx5_peek_size(const uint8_t *wqe, size_t len, uint32_t *size);
int mlx5_decode_simple(enum wqe_qp_type t, uint32_t qpn, const uint8_t *wqe,
		       struct wqe_desc_simple *out);
enum wqe_decode_err mlx5_decode(const struct wqe_decode_ctx *ctx, const uint8_t *wqe,
				size_t len, struct wqe_desc *out);

/* The mlx5 format: what fmt_get(WQE_FORMAT_MLX5) returns. */
extern const struct fmt_ops mlx5_fmt_ops;

/* The receive queue (mlx5_recv.c), for mlx5_fmt_ops. */
int mlx5_calc_rq(struct wqe_qp_cap *cap, uint32_t *slot_bytes, uint32_t *nslots);
int mlx5_encode_recv(const struct wqe_recv_wr *wr, uint8_t *slot, uint32_t slot_bytes);
enum wqe_decode_err mlx5_decode_recv(const uint8_t *wqe, size_t len, struct wqe_recv_desc *out);

#endif /* WQE_FMT_MLX5_H */
