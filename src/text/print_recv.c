/* SPDX-License-Identifier: MIT */
/*
 * Receive WQEs printed for people: one slot of the receive ring field by
 * field (wqe_describe_recv()'s fields, as wqe_print_wqe() prints
 * wqe_describe()'s), and the decoded receive WQE.
 */
#include <inttypes.h>
#include <string.h>

#include "text/text_int.h"

#define RECV_SEG_BYTES 16u /* mlx5_wqe_data_seg */

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
static uint32_t print_segment(FILE *f, const struct wqe_recv_description *r, uint32_t i,
			      const uint8_t *slot)
{
	uint32_t j = i, start = r->field[i].offset, stop;

	while (j < r->num_fields && strcmp(r->field[j].segment, r->field[i].segment) == 0)
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
	struct wqe_recv_description r;
	enum wqe_decode_err err;
	uint32_t slot_bytes;

	if (!f || !slot || len > UINT32_MAX)
		return WQE_DEC_BAD_FIELD;
	err = wqe_describe_recv(fmt, slot, len, &r);
	if (err)
		return err;
	slot_bytes = (uint32_t)len;
	for (uint32_t i = 0; i < r.num_fields;)
		i = print_segment(f, &r, i, slot);
	if (r.desc.size < slot_bytes) {
		fprintf(f, "  %-10s bytes %" PRIu32 "-%" PRIu32 " (not read)\n", "unused",
			r.desc.size, slot_bytes - 1);
		text_print_hex_lines(f, slot, r.desc.size, slot_bytes - r.desc.size, "    ", true);
	}
	print_recv_summary(f, &r.desc, slot_bytes);
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
