/* SPDX-License-Identifier: MIT */
/*
 * fmt.h - the private interface every on-chip WQE format implements.
 *
 * The public calls of wqe/model.h and wqe/desc.h (fmt.c) check their
 * pointer arguments, find the format's ops with fmt_get() and call them;
 * a format therefore never sees a NULL @qp, @wr, @ring, @ctx, @out or size
 * pointer. Each op has the contract of the public call of the same name.
 */
#ifndef WQE_FMT_FMT_H
#define WQE_FMT_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/desc.h"
#include "wqe/model.h"

struct fmt_ops {
	enum wqe_format format;
	int (*encoded_size)(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
			    uint32_t *bytes);
	int (*encode)(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		      const struct wqe_ring_view *ring, uint32_t slot, uint32_t wqe_index,
		      uint32_t *nblocks);
	/*
	 * May be NULL. encode() for wqe_post_send(), which would otherwise
	 * size the request, check the room, then encode (validating and
	 * sizing twice): the request is written only if its WQE needs at
	 * most @room blocks, else ENOMEM with nothing written. EINVAL as
	 * encode(), and before ENOMEM. @ring is a QP's send ring, which its
	 * creation sized validly: not checked again. *@nblocks (not NULL)
	 * gets the blocks.
	 */
	int (*encode_room)(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
			   const struct wqe_ring_view *ring, uint32_t slot, uint32_t wqe_index,
			   uint32_t room, uint32_t *nblocks);
	uint32_t (*fixed_size)(enum wqe_qp_type t, enum wqe_wr_opcode op, int is_inline);
	int (*calc_sq)(enum wqe_qp_type t, struct wqe_qp_cap *cap, uint32_t *wqe_bytes,
		       uint32_t *ring_blocks);
	enum wqe_decode_err (*peek_size)(const uint8_t *wqe, size_t len, uint32_t *size);
	enum wqe_decode_err (*decode)(const struct wqe_decode_ctx *ctx, const uint8_t *wqe,
				      size_t len, struct wqe_desc *out);
	/* May be NULL (the format has no such shape): wqe_decode_simple(). */
	int (*decode_simple)(enum wqe_qp_type t, uint32_t qpn, const uint8_t *block,
			     struct wqe_desc_simple *out);
	/* The receive queue: the format's receive WQE and its ring. */
	int (*calc_rq)(struct wqe_qp_cap *cap, uint32_t *slot_bytes, uint32_t *nslots);
	int (*encode_recv)(const struct wqe_recv_wr *wr, uint8_t *slot, uint32_t slot_bytes);
	enum wqe_decode_err (*decode_recv)(const uint8_t *wqe, size_t len,
					   struct wqe_recv_desc *out);
};

/* The ops of @fmt, or NULL for an unknown format. */
const struct fmt_ops *fmt_get(enum wqe_format fmt);

/* The smallest power of two >= @v (1 for 0); @v at most 2^31. */
uint32_t fmt_pow2(uint32_t v);

/* What every receive encoder refuses first (EINVAL): num_sge negative or
 * over WQE_DESC_MAX_SGE, a NULL sg_list with num_sge > 0, a total length
 * over 2^31. 0 with the total in *@total otherwise. */
int fmt_recv_check(const struct wqe_recv_wr *wr, uint64_t *total);

#endif /* WQE_FMT_FMT_H */
