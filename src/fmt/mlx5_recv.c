/* SPDX-License-Identifier: MIT */
/*
 * The mlx5 receive WQE: a slot of 16-byte data segments (struct
 * mlx5_wqe_data_seg: byte_count, lkey, addr; big-endian), one per SGE of
 * non-zero length (the provider skips empty ones), ended by a segment whose lkey is MLX5_INVALID_LKEY when the slot has room
 * for one (providers/mlx5/qp.c, mlx5_post_recv()). A slot is 16 bytes per
 * SGE rounded up to a power of two, and every slot of the ring is usable:
 * the hardware's doorbell record holds a free-running counter.
 */
#include <errno.h>
#include <string.h>

#include "common/bytes.h"
#include "fmt/mlx5.h"

#define MLX5_INVALID_LKEY 0x100u

int mlx5_calc_rq(struct wqe_qp_cap *cap, uint32_t *slot_bytes, uint32_t *nslots)
{
	if (cap->max_recv_wr < 1 || cap->max_recv_wr > 32768 || cap->max_recv_sge < 1 ||
	    cap->max_recv_sge > WQE_DESC_MAX_SGE)
		return EINVAL;
	*slot_bytes = fmt_pow2(cap->max_recv_sge * MLX5_DATA_BYTES);
	*nslots = fmt_pow2(cap->max_recv_wr);
	cap->max_recv_wr = *nslots;
	return 0;
}

static void put_data_seg(uint8_t *s, uint32_t length, uint32_t lkey, uint64_t addr)
{
	put_be32(s, length);
	put_be32(s + 4, lkey);
	put_be64(s + 8, addr);
}

int mlx5_encode_recv(const struct wqe_recv_wr *wr, uint8_t *slot, uint32_t slot_bytes)
{
	uint64_t total;
	uint32_t n, i, j;

	if (fmt_recv_check(wr, &total))
		return EINVAL;
	n = (uint32_t)wr->num_sge;
	if (slot_bytes < MLX5_DATA_BYTES || slot_bytes % MLX5_DATA_BYTES ||
	    n > slot_bytes / MLX5_DATA_BYTES)
		return EINVAL;
	memset(slot, 0, slot_bytes);
	/* As the provider: an empty SGE gets no segment. */
	for (i = 0, j = 0; i < n; i++)
		if (wr->sg_list[i].length)
			put_data_seg(slot + (size_t)j++ * MLX5_DATA_BYTES, wr->sg_list[i].length,
				     wr->sg_list[i].lkey, wr->sg_list[i].addr);
	if ((j + 1) * MLX5_DATA_BYTES <= slot_bytes)
		put_data_seg(slot + (size_t)j * MLX5_DATA_BYTES, 0, MLX5_INVALID_LKEY, 0);
	return 0;
}

enum wqe_decode_err mlx5_decode_recv(const uint8_t *wqe, size_t len, struct wqe_recv_desc *out)
{
	size_t nseg = len / MLX5_DATA_BYTES;
	uint32_t i;

	if (len < MLX5_DATA_BYTES)
		return WQE_DEC_TRUNCATED;
	out->format = WQE_FORMAT_MLX5;
	out->wr_id = 0;
	out->total_len = 0;
	out->size =
	    (uint32_t)(nseg > WQE_DESC_MAX_SGE + 1 ? WQE_DESC_MAX_SGE + 1 : nseg) * MLX5_DATA_BYTES;
	for (i = 0; i < nseg; i++) {
		const uint8_t *s = wqe + (size_t)i * MLX5_DATA_BYTES;
		struct wqe_desc_sge *g;

		if (get_be32(s + 4) == MLX5_INVALID_LKEY) {
			out->size = (i + 1) * MLX5_DATA_BYTES;
			break;
		}
		if (i == WQE_DESC_MAX_SGE)
			return WQE_DEC_TOO_MANY_SGE;
		g = &out->sge[i];
		g->length = get_be32(s);
		g->lkey = get_be32(s + 4);
		g->addr = get_be64(s + 8);
		out->total_len += g->length;
	}
	out->num_sge = i;
	return WQE_DEC_OK;
}
