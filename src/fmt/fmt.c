/* SPDX-License-Identifier: MIT */
/*
 * fmt.c - the public model calls, dispatched to a format's ops.
 *
 * Argument checks live here so that every format gets the same ones. The
 * decode calls have no "bad argument" code: a NULL @wqe is treated as zero
 * readable bytes (WQE_DEC_TRUNCATED), a NULL @ctx, @out or @size as a
 * constrained field with a bad value (WQE_DEC_BAD_FIELD).
 */
#include "fmt/fmt.h"

#include <errno.h>

#include "fmt/mlx5.h"
#include "fmt/rxe.h"

const struct fmt_ops *fmt_get(enum wqe_format fmt)
{
	switch (fmt) {
	case WQE_FORMAT_MLX5:
		return &mlx5_fmt_ops;
	case WQE_FORMAT_RXE:
		return &rxe_fmt_ops;
	}
	return NULL;
}

WQE_API int wqe_encoded_size(enum wqe_format fmt, const struct wqe_encode_qp *qp,
			     const struct wqe_send_wr *wr, uint32_t *bytes)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	if (!ops || !qp || !wr || !bytes)
		return EINVAL;
	return ops->encoded_size(qp, wr, bytes);
}

WQE_API int wqe_encode(enum wqe_format fmt, const struct wqe_encode_qp *qp,
		       const struct wqe_send_wr *wr, const struct wqe_ring_view *ring,
		       uint32_t slot, uint32_t wqe_index, uint32_t *nblocks)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	if (!ops || !qp || !wr || !ring || !ring->buf)
		return EINVAL;
	return ops->encode(qp, wr, ring, slot, wqe_index, nblocks);
}

WQE_API uint32_t wqe_fixed_size(enum wqe_format fmt, enum wqe_qp_type t,
				enum wqe_wr_opcode op, int is_inline)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	return ops ? ops->fixed_size(t, op, is_inline) : 0;
}

WQE_API int wqe_calc_sq(enum wqe_format fmt, enum wqe_qp_type t, struct wqe_qp_cap *cap,
			uint32_t *wqe_bytes, uint32_t *ring_blocks)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	if (!ops || !cap || !wqe_bytes || !ring_blocks)
		return EINVAL;
	return ops->calc_sq(t, cap, wqe_bytes, ring_blocks);
}

uint32_t fmt_pow2(uint32_t v)
{
	uint32_t n = 1;

	while (n < v)
		n <<= 1;
	return n;
}

int fmt_recv_check(const struct wqe_recv_wr *wr, uint64_t *total)
{
	uint64_t sum = 0;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > WQE_DESC_MAX_SGE ||
	    (wr->num_sge > 0 && !wr->sg_list))
		return EINVAL;
	for (int i = 0; i < wr->num_sge; i++)
		sum += wr->sg_list[i].length;
	if (sum > 1ull << 31)
		return EINVAL;
	*total = sum;
	return 0;
}

WQE_API int wqe_calc_rq(enum wqe_format fmt, struct wqe_qp_cap *cap, uint32_t *slot_bytes,
			uint32_t *nslots)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	if (!ops || !cap || !slot_bytes || !nslots)
		return EINVAL;
	return ops->calc_rq(cap, slot_bytes, nslots);
}

WQE_API int wqe_encode_recv(enum wqe_format fmt, const struct wqe_recv_wr *wr, uint8_t *slot,
			    uint32_t slot_bytes)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	if (!ops || !wr || !slot)
		return EINVAL;
	return ops->encode_recv(wr, slot, slot_bytes);
}

WQE_API enum wqe_decode_err wqe_decode_recv(enum wqe_format fmt, const uint8_t *wqe, size_t len,
					    struct wqe_recv_desc *out)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	if (!ops)
		return WQE_DEC_BAD_OPCODE;
	if (!wqe)
		return WQE_DEC_TRUNCATED;
	if (!out)
		return WQE_DEC_BAD_FIELD;
	return ops->decode_recv(wqe, len, out);
}

WQE_API enum wqe_decode_err wqe_peek_size(enum wqe_format fmt, const uint8_t *wqe,
					  size_t len, uint32_t *size)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	if (!ops)
		return WQE_DEC_BAD_OPCODE;
	if (!wqe)
		return WQE_DEC_TRUNCATED;
	if (!size)
		return WQE_DEC_BAD_FIELD;
	return ops->peek_size(wqe, len, size);
}

WQE_API enum wqe_decode_err wqe_decode(enum wqe_format fmt, const struct wqe_decode_ctx *ctx,
				       const uint8_t *wqe, size_t len, struct wqe_desc *out)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	if (!ops)
		return WQE_DEC_BAD_OPCODE;
	if (!wqe)
		return WQE_DEC_TRUNCATED;
	if (!ctx || !out)
		return WQE_DEC_BAD_FIELD;
	return ops->decode(ctx, wqe, len, out);
}

WQE_API int wqe_decode_simple(enum wqe_format fmt, enum wqe_qp_type t, uint32_t qpn,
			      const uint8_t *block, struct wqe_desc_simple *out)
{
	const struct fmt_ops *ops = fmt_get(fmt);

	if (!ops || !ops->decode_simple || !block || !out)
		return 0;
	return ops->decode_simple(t, qpn, block, out);
}

WQE_API const char *wqe_decode_err_str(enum wqe_decode_err e)
{
	switch (e) {
	case WQE_DEC_OK:
		return "ok";
	case WQE_DEC_TRUNCATED:
		return "truncated: fewer bytes than the WQE says it has";
	case WQE_DEC_BAD_SIZE:
		return "bad size: DS of 0, DS past 63, or more blocks than posted";
	case WQE_DEC_BAD_OPCODE:
		return "bad opcode: unknown to the format";
	case WQE_DEC_BAD_SEGMENTS:
		return "bad segments: they do not fit the opcode and transport";
	case WQE_DEC_BAD_INLINE:
		return "bad inline: inline length larger than the WQE";
	case WQE_DEC_BAD_FIELD:
		return "bad field: a reserved or constrained field has a bad value";
	case WQE_DEC_TOO_MANY_SGE:
		return "too many SGEs: more data segments than WQE_DESC_MAX_SGE";
	}
	return "unknown";
}
