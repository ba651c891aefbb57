/* SPDX-License-Identifier: MIT */
/*
 * describe_recv.c - wqe_describe_recv(): the receive WQE in one slot of a
 * receive ring, field by field, laid out from wqe_decode_recv()'s result
 * as wqe_describe() lays out a send WQE from wqe_decode()'s (formats.md,
 * "Receive WQEs").
 *
 * mlx5: struct mlx5_wqe_data_seg per SGE (byte_count, lkey, addr; all
 * big-endian), then the end marker when the slot has room for one (lkey
 * MLX5_INVALID_LKEY; its other words are not read). rxe: struct
 * rxe_recv_wqe (wr_id, reserved, padding, then struct rxe_dma_info:
 * length, resid, cur_sge, num_sge, sge_offset, reserved) and its SGE
 * array (addr, length, lkey), host order (little-endian on x86-64).
 */
#include <inttypes.h>
#include <string.h>

#include "common/bytes.h"
#include "fmt/describe.h"
#include "wqe/text.h"

#define RECV_SEG_BYTES	16u    /* mlx5_wqe_data_seg, and rxe's struct rxe_sge */
#define MLX5_END_LKEY	0x100u /* MLX5_INVALID_LKEY */
#define RXE_RECV_HEADER 40u    /* struct rxe_recv_wqe up to dma.sge[] */

static void mlx5_fields(struct desc_builder *b, const struct wqe_recv_desc *d)
{
	uint32_t off;

	for (uint32_t i = 0; i < d->num_sge; i++) {
		off = i * RECV_SEG_BYTES;
		db_segment(b, "data[%u]", i & 0xffu); /* i < 64 */
		db_add(b, "byte_count", off, 4, "%" PRIu32 " B", d->sge[i].length);
		db_add(b, "lkey", off + 4, 4, "lkey 0x%08" PRIx32, d->sge[i].lkey);
		db_add(b, "addr", off + 8, 8, "address 0x%" PRIx64, d->sge[i].addr);
	}
	if (d->size <= d->num_sge * RECV_SEG_BYTES)
		return;
	off = d->num_sge * RECV_SEG_BYTES;
	db_segment(b, "end");
	db_add(b, "byte_count", off, 4, "%" PRIu32 " (not read)", get_be32(b->wqe + off));
	db_add(b, "lkey", off + 4, 4, "0x%08x: MLX5_INVALID_LKEY, the end", MLX5_END_LKEY);
	db_add(b, "addr", off + 8, 8, "0x%" PRIx64 " (not read)", get_be64(b->wqe + off + 8));
}

static void rxe_fields(struct desc_builder *b, const struct wqe_recv_desc *d)
{
	const uint8_t *s = b->wqe;

	db_segment(b, "wr");
	db_add(b, "wr_id", 0, 8, "wr_id %" PRIu64, d->wr_id);
	db_add(b, "reserved", 8, 4, "not read");
	db_add(b, "padding", 12, 4, "not read");
	db_segment(b, "dma");
	db_add(b, "length", 16, 4, "%" PRIu32 " B in all", get_le32(s + 16));
	db_add(b, "resid", 20, 4, "%" PRIu32 " B: nothing received yet", get_le32(s + 20));
	db_add(b, "cur_sge", 24, 4, "%" PRIu32, get_le32(s + 24));
	db_add(b, "num_sge", 28, 4, "%" PRIu32 " SGE%s", d->num_sge, d->num_sge == 1 ? "" : "s");
	db_add(b, "sge_offset", 32, 4, "%" PRIu32, get_le32(s + 32));
	db_add(b, "reserved", 36, 4, "not read");
	for (uint32_t i = 0; i < d->num_sge; i++) {
		uint32_t off = RXE_RECV_HEADER + i * RECV_SEG_BYTES;

		db_segment(b, "sge[%u]", i & 0xffu); /* i < 64 */
		db_add(b, "addr", off, 8, "address 0x%" PRIx64, d->sge[i].addr);
		db_add(b, "length", off + 8, 4, "%" PRIu32 " B", d->sge[i].length);
		db_add(b, "lkey", off + 12, 4, "lkey 0x%08" PRIx32, d->sge[i].lkey);
	}
}

enum wqe_decode_err wqe_describe_recv(enum wqe_format fmt, const uint8_t *slot, size_t len,
				      struct wqe_recv_description *out)
{
	struct wqe_recv_desc d;
	struct desc_builder b = {.wqe = slot};
	enum wqe_decode_err err;
	uint32_t n = 0;

	if (!out)
		return WQE_DEC_BAD_FIELD;
	err = wqe_decode_recv(fmt, slot, len, &d);
	if (err)
		return err;
	/* Built in place once the slot has decoded: on an error above *out
	 * is as it was. */
	b.field = out->field;
	b.num_fields = &n;
	if (fmt == WQE_FORMAT_RXE) {
		b.order = DB_LE; /* host order on the little-endian x86-64 the layout is from */
		rxe_fields(&b, &d);
	} else {
		b.order = DB_BE;
		mlx5_fields(&b, &d);
	}
	out->desc = d;
	out->num_fields = n;
	return WQE_DEC_OK;
}
