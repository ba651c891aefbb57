/* SPDX-License-Identifier: MIT */
/*
 * rxe.h - the Linux rxe WQE layouts (private to src/fmt): struct
 * rxe_send_wqe and struct rxe_recv_wqe of the kernel's uapi header
 * rdma/rdma_user_rxe.h, as rdma-core's rxe provider fills them at post time
 * (providers/rxe/rxe.c: convert_send_wr() and init_send_wqe();
 * rxe_post_one_recv()). Host byte order (the model is
 * little-endian x86-64) except ex.imm_data, which is the __be32 of the
 * Work Request kept as its bytes. Offsets: shared/reference/
 * rocev2-wire-and-rxe.md section 5.
 */
#ifndef WQE_FMT_RXE_H
#define WQE_FMT_RXE_H

#include "fmt/fmt.h"

enum {
	/* struct rxe_send_wr */
	RXE_WR_ID = 0,
	RXE_WR_RESERVED = 8, /* srq_num in newer headers */
	RXE_WR_OPCODE = 12,
	RXE_WR_SEND_FLAGS = 16,
	RXE_WR_EX = 20,      /* imm_data (__be32) or invalidate_rkey */
	RXE_WR_RDMA_ADDR = 24,
	RXE_WR_RDMA_RKEY = 32,
	RXE_WR_ATOMIC_ADDR = 24,
	RXE_WR_ATOMIC_COMPARE_ADD = 32,
	RXE_WR_ATOMIC_SWAP = 40,
	RXE_WR_ATOMIC_RKEY = 48,
	RXE_WR_UD_QPN = 24,
	RXE_WR_UD_QKEY = 28,
	RXE_WR_UD_PKEY_INDEX = 32,
	RXE_WR_UD_AH_NUM = 36,
	RXE_WR_UD_AV = 56,
	RXE_WR_BYTES = 144,
	/* struct rxe_av (88 bytes) */
	RXE_AV_PORT = 0,
	RXE_AV_NETWORK_TYPE = 1,
	RXE_AV_DMAC = 2,
	RXE_AV_DGID = 8,
	RXE_AV_FLOW_LABEL = 24,
	RXE_AV_SGID_INDEX = 28,
	RXE_AV_HOP_LIMIT = 29,
	RXE_AV_TCLASS = 30,
	RXE_AV_SGID_ADDR = 32,
	RXE_AV_DGID_ADDR = 60,
	RXE_AV_BYTES = 88,
	/* struct rxe_send_wqe after the wr */
	RXE_STATUS = 144,
	RXE_STATE = 148,
	RXE_IOVA = 152,
	RXE_MASK = 160,
	RXE_FIRST_PSN = 164,
	RXE_LAST_PSN = 168,
	RXE_ACK_LENGTH = 172,
	RXE_SSN = 176,
	RXE_HAS_RD_ATOMIC = 180,
	RXE_DMA_LENGTH = 184,
	RXE_DMA_RESID = 188,
	RXE_DMA_CUR_SGE = 192,
	RXE_DMA_NUM_SGE = 196,
	RXE_DMA_SGE_OFFSET = 200,
	RXE_DMA_RESERVED = 204,
	RXE_WQE_FIXED = 208, /* the SGE array or the inline bytes start here */
	RXE_SGE_BYTES = 16,  /* struct rxe_sge: addr, length, lkey */
	/* struct rxe_dma_info, from its own start (at RXE_DMA_LENGTH in a
	 * send WQE, at RXE_RECV_DMA in a receive WQE) */
	RXE_DMAI_LENGTH = 0,
	RXE_DMAI_RESID = 4,
	RXE_DMAI_CUR_SGE = 8,
	RXE_DMAI_NUM_SGE = 12,
	RXE_DMAI_SGE_OFFSET = 16,
	RXE_DMAI_RESERVED = 20,
	RXE_DMAI_BYTES = 24, /* then the flexible SGE array */
	/* struct rxe_recv_wqe */
	RXE_RECV_WR_ID = 0,
	RXE_RECV_RESERVED = 8, /* num_sge in headers before 2022; now unused */
	RXE_RECV_PADDING = 12,
	RXE_RECV_DMA = 16,
	RXE_RECV_FIXED = 40,   /* the SGE array starts here */
	RXE_CACHE_LINE = 64,   /* rxe_queue_init(): a slot is at least this */
	/* limits of rxe_param.h */
	RXE_MAX_SGE = 32,
	RXE_MAX_INLINE = 512,
	RXE_NETWORK_IPV4 = 1,
	RXE_NETWORK_IPV6 = 2,
};

extern const struct fmt_ops rxe_fmt_ops;

/* The send slot's decoder (rxe_decode.c), for rxe_fmt_ops: wqe_decode()'s
 * contract for the rxe format. */
enum wqe_decode_err rxe_decode(const struct wqe_decode_ctx *ctx, const uint8_t *wqe, size_t len,
			       struct wqe_desc *out);

/* The receive queue (rxe_recv.c), for rxe_fmt_ops. */
int rxe_calc_rq(struct wqe_qp_cap *cap, uint32_t *slot_bytes, uint32_t *nslots);
int rxe_encode_recv(const struct wqe_recv_wr *wr, uint8_t *slot, uint32_t slot_bytes);
enum wqe_decode_err rxe_decode_recv(const uint8_t *wqe, size_t len, struct wqe_recv_desc *out);

/* Bytes of the power-of-two slot of a QP with these capacities. */
uint32_t rxe_slot_bytes(uint32_t max_send_sge, uint32_t max_inline);

#endif
