/* SPDX-License-Identifier: MIT */
/*
 * wqe/model.h - the pure model: Work Request -> WQE bytes, and sizes.
 *
 * These functions hold no state and touch only the memory they are given:
 * a verification bench can call them from its own C code to get the bytes a
 * NIC must find in its ring for a request. All are thread-safe.
 */
#ifndef WQE_MODEL_H
#define WQE_MODEL_H

#include <stdint.h>

#include "wqe/desc.h"
#include "wqe/types.h"
#include "wqe/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the encoder needs to know of the QP a request is posted to. */
struct wqe_encode_qp {
	enum wqe_qp_type qp_type;
	uint32_t qpn;             /* 24 bits */
	uint32_t max_send_sge;
	uint32_t max_inline_data;
	int sq_sig_all;           /* non-zero: every WQE asks for a completion */
};

/*
 * A send-queue ring as the encoder sees it: @nblocks 64-byte blocks at @buf,
 * @nblocks a power of two and at least WQE_MAX_BLOCKS. A WQE that runs past
 * the last block continues at block 0, as in the mlx5 provider.
 */
struct wqe_ring_view {
	uint8_t *buf;
	uint32_t nblocks;
};

/*
 * wqe_encoded_size - bytes the WQE for @wr occupies in the ring, rounded up
 * to whole 64-byte blocks, written to *@bytes.
 * Returns 0, or EINVAL if @wr cannot be encoded for @qp: unknown opcode or
 * flags, num_sge negative or over qp->max_send_sge, NULL sg_list with
 * num_sge > 0, inline on an opcode that cannot carry it, inline length over
 * qp->max_inline_data, UD without an address handle, or a WQE that would
 * exceed the format's largest.
 */
WQE_API int wqe_encoded_size(enum wqe_format fmt, const struct wqe_encode_qp *qp,
			     const struct wqe_send_wr *wr, uint32_t *bytes);

/*
 * wqe_encode - write the WQE for @wr into @ring.
 * @fmt:       the format.
 * @qp:        the QP facts the WQE carries (QPN, transport, sq_sig_all).
 * @wr:        the request; only this one (wr->next is ignored). Every field
 *             is read before the call returns, inline payload included.
 * @ring:      the ring.
 * @slot:      the first block to write (taken modulo ring->nblocks).
 * @wqe_index: the WQE index the control segment carries (mlx5: the
 *             free-running block counter, of which 16 bits are kept).
 * @nblocks:   out (may be NULL): blocks written.
 *
 * The mlx5 encoding is the one rdma-core's mlx5 provider produces: control
 * segment, then a remote-address segment for RDMA READ/WRITE on RC and
 * WRITE on UC, an atomic segment for atomics on RC, a 48-byte datagram
 * segment on UD, then one data segment per SGE of non-zero length (an
 * atomic's data segment says 8 bytes) or one inline segment. The blocks are
 * cleared first, so reserved and padding bytes are zero. An opcode that is
 * illegal on the transport is still encoded as the provider would (the
 * segments of the transport, the opcode's code): judging it is the
 * engine's job.
 *
 * Returns 0, or EINVAL as wqe_encoded_size(); on error nothing is written.
 */
WQE_API int wqe_encode(enum wqe_format fmt, const struct wqe_encode_qp *qp,
		       const struct wqe_send_wr *wr, const struct wqe_ring_view *ring,
		       uint32_t slot, uint32_t wqe_index, uint32_t *nblocks);

/*
 * wqe_fixed_size - bytes of the fixed part of a WQE: every segment except
 * the data segments or the inline payload; with @is_inline, the inline
 * header is counted. mlx5: an inline RDMA WRITE on RC or UC is 36 bytes
 * (16 control + 16 remote address + 4 inline header), an inline UD SEND 68
 * (16 + 48 + 4). Returns 0 for an opcode the format cannot encode on @t.
 */
WQE_API uint32_t wqe_fixed_size(enum wqe_format fmt, enum wqe_qp_type t,
				enum wqe_wr_opcode op, int is_inline);

/*
 * wqe_calc_sq - size a send queue as wqe_create_qp() does (see there).
 * @cap is read and written back with what the sizing allows.
 * *@wqe_bytes gets the largest WQE in bytes (a multiple of 64), *@ring_blocks
 * the ring's blocks (a power of two). Returns 0 or EINVAL.
 */
WQE_API int wqe_calc_sq(enum wqe_format fmt, enum wqe_qp_type t, struct wqe_qp_cap *cap,
			uint32_t *wqe_bytes, uint32_t *ring_blocks);

/*
 * wqe_calc_rq - size a receive queue as wqe_create_qp() does. Reads
 * cap->max_recv_wr and cap->max_recv_sge and writes back max_recv_wr as the
 * ring allows; *@slot_bytes gets the bytes of one slot and *@nslots the
 * slots of the ring (both powers of two).
 *   mlx5: slot = roundup_pow_of_two(16 x max_recv_sge), slots =
 *         roundup_pow_of_two(max_recv_wr), all of them usable.
 *   rxe:  slot = roundup_pow_of_two(max(40 + 16 x max_recv_sge, 64))
 *         (rxe_init_rq() and rxe_queue_init(): sizeof(struct rxe_recv_wqe)
 *         plus the SGEs, at least a cache line); slots =
 *         roundup_pow_of_two(max_recv_wr + 1) with one always empty, so
 *         max_recv_wr becomes slots - 1.
 * Limits: max_recv_wr 1..32768; max_recv_sge 1..64 (rxe: 1..32,
 * RXE_MAX_SGE). Returns 0 or EINVAL, having written nothing.
 */
WQE_API int wqe_calc_rq(enum wqe_format fmt, struct wqe_qp_cap *cap, uint32_t *slot_bytes,
			uint32_t *nslots);

/*
 * wqe_encode_recv - write the receive WQE for @wr into one receive slot.
 * @fmt:        the format.
 * @wr:         the request; only this one (wr->next is ignored).
 * @slot:       the slot's first byte.
 * @slot_bytes: the slot's size (wqe_calc_rq()); the whole slot is written.
 *
 * The slot is cleared first, then:
 *   mlx5: one 16-byte data segment per SGE of non-zero length (as
 *         rdma-core's mlx5_post_recv(), which skips empty ones), then, if
 *         the slot has room, an end segment with lkey 0x100.
 *   rxe:  struct rxe_recv_wqe as rdma-core's rxe provider fills it
 *         (rxe_post_one_recv()): wr_id, the SGE array copied as given,
 *         dma.length = dma.resid = the sum of the lengths, dma.num_sge,
 *         cur_sge = sge_offset = 0; host byte order.
 * Returns 0, or EINVAL (nothing written) for a NULL pointer, num_sge < 0,
 * a NULL sg_list with num_sge > 0, a total length over 2^31, or a WQE
 * that does not fit @slot_bytes (mlx5: also a slot that is not a whole
 * number of 16-byte segments).
 */
WQE_API int wqe_encode_recv(enum wqe_format fmt, const struct wqe_recv_wr *wr, uint8_t *slot,
			    uint32_t slot_bytes);

#ifdef __cplusplus
}
#endif

#endif /* WQE_MODEL_H */
