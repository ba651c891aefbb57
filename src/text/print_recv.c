/* SPDX-License-Identifier: MIT */
/*
 * Receive WQEs printed for people: one slot of the receive ring field by
 * field (laid out from wqe_decode_recv()'s result, as wqe_print_wqe() lays
 * out a send WQE from wqe_decode()'s), and the decoded receive WQE.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "common/bytes.h"
#include "text/text_int.h"

/* mlx5: struct mlx5_wqe_data_seg; rxe: struct rxe_recv_wqe (formats.md). */
#define RECV_SEG_BYTES	16u
#define MLX5_END_LKEY	0x100u
#define RXE_RECV_HEADER 40u

/* The fields of one slot, in byte order. */
struct recv_fields {
	uint32_t n;
	struct wqe_field field[WQE_FIELD_MAX];
	char segment[16]; /* the segment the next fields belong to */
};

__attribute__((format(printf, 2, 3))) static void rf_segment(struct recv_fields *r, const char *fmt,
							     ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->segment, sizeof(r->segment), fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 6, 7))) static void rf_add(struct recv_fields *r, const char *name,
							 uint32_t off, uint32_t len, uint64_t value,
							 const char *fmt, ...)
{
	struct wqe_field *fd;
	va_list ap;

	if (r->n >= WQE_FIELD_MAX)
		return;
	fd = &r->field[r->n++];
	memset(fd, 0, sizeof(*fd));
	memcpy(fd->segment, r->segment, sizeof(fd->segment));
	fd->name = name;
	fd->offset = off;
	fd->length = len;
	fd->has_value = len <= 8;
	fd->value = fd->has_value ? value : 0;
	va_start(ap, fmt);
	vsnprintf(fd->meaning, sizeof(fd->meaning), fmt, ap);
	va_end(ap);
}

static void mlx5_fields(struct recv_fields *r, const struct wqe_recv_desc *d, const uint8_t *s)
{
	uint32_t i, off;

	for (i = 0; i < d->num_sge; i++) {
		off = i * RECV_SEG_BYTES;
		rf_segment(r, "data[%u]", i & 0xffu); /* i < 64 */
		rf_add(r, "byte_count", off, 4, d->sge[i].length, "%" PRIu32 " B",
		       d->sge[i].length);
		rf_add(r, "lkey", off + 4, 4, d->sge[i].lkey, "lkey 0x%08" PRIx32, d->sge[i].lkey);
		rf_add(r, "addr", off + 8, 8, d->sge[i].addr, "address 0x%" PRIx64, d->sge[i].addr);
	}
	if (d->size <= d->num_sge * RECV_SEG_BYTES)
		return;
	off = d->num_sge * RECV_SEG_BYTES;
	rf_segment(r, "end");
	rf_add(r, "byte_count", off, 4, get_be32(s + off), "%" PRIu32 " (not read)",
	       get_be32(s + off));
	rf_add(r, "lkey", off + 4, 4, MLX5_END_LKEY, "0x%08x: MLX5_INVALID_LKEY, the end",
	       MLX5_END_LKEY);
	rf_add(r, "addr", off + 8, 8, get_be64(s + off + 8), "0x%" PRIx64 " (not read)",
	       get_be64(s + off + 8));
}

static void rxe_fields(struct recv_fields *r, const struct wqe_recv_desc *d, const uint8_t *s)
{
	rf_segment(r, "wr");
	rf_add(r, "wr_id", 0, 8, d->wr_id, "wr_id %" PRIu64, d->wr_id);
	rf_add(r, "reserved", 8, 4, get_le32(s + 8), "not read");
	rf_add(r, "padding", 12, 4, get_le32(s + 12), "not read");
	rf_segment(r, "dma");
	rf_add(r, "length", 16, 4, get_le32(s + 16), "%" PRIu32 " B in all", get_le32(s + 16));
	rf_add(r, "resid", 20, 4, get_le32(s + 20), "%" PRIu32 " B: nothing received yet",
	       get_le32(s + 20));
	rf_add(r, "cur_sge", 24, 4, get_le32(s + 24), "%" PRIu32, get_le32(s + 24));
	rf_add(r, "num_sge", 28, 4, d->num_sge, "%" PRIu32 " SGE%s", d->num_sge,
	       d->num_sge == 1 ? "" : "s");
	rf_add(r, "sge_offset", 32, 4, get_le32(s + 32), "%" PRIu32, get_le32(s + 32));
	rf_add(r, "reserved", 36, 4, get_le32(s + 36), "not read");
	for (uint32_t i = 0; i < d->num_sge; i++) {
		uint32_t off = RXE_RECV_HEADER + i * RECV_SEG_BYTES;

		rf_segment(r, "sge[%u]", i & 0xffu); /* i < 64 */
		rf_add(r, "addr", off, 8, d->sge[i].addr, "address 0x%" PRIx64, d->sge[i].addr);
		rf_add(r, "length", off + 8, 4, d->sge[i].length, "%" PRIu32 " B",
		       d->sge[i].length);
		rf_add(r, "lkey", off + 12, 4, d->sge[i].lkey, "lkey 0x%08" PRIx32, d->sge[i].lkey);
	}
}

/* "48 bytes used of a 64-byte slot" */
static void print_used(FILE *f, const struct wqe_recv_desc *d, uint32_t slot_bytes)
{
	fprintf(f, "%" PRIu32 " bytes used of a %" PRIu32 "-byte slot", d->size, slot_bytes);
}

static void print_recv_summary(FILE *f, const struct wqe_recv_desc *d, uint32_t slot_bytes)
{
	print_used(f, d, slot_bytes);
	fprintf(f, ": %" PRIu32 " %s naming %" PRIu64 " bytes", d->num_sge,
		d->format == WQE_FORMAT_RXE ? (d->num_sge == 1 ? "SGE" : "SGEs")
					    : (d->num_sge == 1 ? "data segment" : "data segments"),
		d->total_len);
	if (d->format == WQE_FORMAT_RXE)
		fprintf(f, ", wr_id %" PRIu64 "\n", d->wr_id);
	else if (d->size > d->num_sge * RECV_SEG_BYTES)
		fprintf(f, ", then the end marker\n");
	else
		fprintf(f, ", no end marker: they fill the slot\n");
}

/* One segment's heading, its bytes, then its fields; returns the next field. */
static uint32_t print_segment(FILE *f, const struct recv_fields *r, uint32_t i, const uint8_t *slot)
{
	uint32_t j = i, start = r->field[i].offset, stop;

	while (j < r->n && strcmp(r->field[j].segment, r->field[i].segment) == 0)
		j++;
	stop = r->field[j - 1].offset + r->field[j - 1].length;
	fprintf(f, "  %-10s bytes %" PRIu32 "-%" PRIu32 "\n", r->field[i].segment, start, stop - 1);
	text_print_hex_lines(f, slot, start, stop - start, "    ", false);
	for (; i < j; i++)
		text_print_field(f, &r->field[i], slot);
	return j;
}

enum wqe_decode_err wqe_print_recv_wqe(FILE *f, enum wqe_format fmt, const uint8_t *slot,
				       size_t len)
{
	struct wqe_recv_desc d;
	struct recv_fields r;
	enum wqe_decode_err err;
	uint32_t slot_bytes;

	if (!f || !slot || len > UINT32_MAX)
		return WQE_DEC_BAD_FIELD;
	err = wqe_decode_recv(fmt, slot, len, &d);
	if (err)
		return err;
	slot_bytes = (uint32_t)len;
	r.n = 0;
	if (fmt == WQE_FORMAT_RXE)
		rxe_fields(&r, &d, slot);
	else
		mlx5_fields(&r, &d, slot);
	for (uint32_t i = 0; i < r.n;)
		i = print_segment(f, &r, i, slot);
	if (d.size < slot_bytes) {
		fprintf(f, "  %-10s bytes %" PRIu32 "-%" PRIu32 " (not read)\n", "unused", d.size,
			slot_bytes - 1);
		text_print_hex_lines(f, slot, d.size, slot_bytes - d.size, "    ", true);
	}
	print_recv_summary(f, &d, slot_bytes);
	return WQE_DEC_OK;
}

void wqe_print_recv_desc(FILE *f, const struct wqe_recv_desc *d, uint32_t slot_bytes)
{
	if (!f || !d)
		return;
	fprintf(f, "  %-16s%s\n", "format", wqe_format_str(d->format));
	if (d->format == WQE_FORMAT_RXE)
		fprintf(f, "  %-16s%" PRIu64 "\n", "wr_id", d->wr_id);
	else
		fprintf(f, "  %-16s- (mlx5 receive WQEs carry none: the provider keeps it)\n",
			"wr_id");
	fprintf(f, "  %-16s", "size");
	print_used(f, d, slot_bytes);
	fputc('\n', f);
	fprintf(f, "  %-16s%" PRIu32 "\n", "num_sge", d->num_sge);
	for (uint32_t i = 0; i < d->num_sge && i < WQE_DESC_MAX_SGE; i++) {
		char label[16];

		snprintf(label, sizeof(label), "sge[%" PRIu32 "]", i);
		fprintf(f,
			"  %-16saddr 0x%016" PRIx64 "  length %" PRIu32 "  lkey 0x%08" PRIx32 "\n",
			label, d->sge[i].addr, d->sge[i].length, d->sge[i].lkey);
	}
	fprintf(f, "  %-16s%" PRIu64 "\n", "total_len", d->total_len);
}
