/* SPDX-License-Identifier: MIT */
/*
 * The report's WQE pictures: a WQE's bytes as a byte-field diagram, 16
 * bytes a row, each field a box named as wqe_describe() (and so the text
 * trace) names it, coloured by segment; its field table; and the demo's
 * one request in the mlx5 and rxe shapes.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html.h"

enum { BPR = 16, CW = 27, OFFW = 40, RH = 38 };

/* The same kind of segment has the same colour in both formats. */
static int seg_colour(const char *seg)
{
	static const struct {
		const char *name;
		int colour;
	} t[] = {{"ctrl", 0},	  {"wr", 0},	 {"raddr", 1},	  {"rdma", 1}, {"atomic", 2},
		 {"datagram", 3}, {"ud", 3},	 {"av", 3},	  {"data", 4}, {"sge", 4},
		 {"dma", 5},	  {"inline", 6}, {"progress", 7}, {"union", 8}};
	size_t n = strcspn(seg, "[");

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i].name) == n && !strncmp(seg, t[i].name, n))
			return t[i].colour;
	return 8;
}

static void field_title(FILE *f, const struct wqe_field *fd)
{
	fprintf(f, "<title>%u-%u ", fd->offset, fd->offset + fd->length - 1);
	html_escs(f, fd->segment);
	fputc('.', f);
	html_escs(f, fd->name);
	fputs(": ", f);
	html_escs(f, fd->meaning);
	fputs("</title>", f);
}

/* One field: a box per row it touches, its name in the first that has room. */
static void field_boxes(FILE *f, const struct wqe_field *fd)
{
	uint32_t o = fd->offset, end = fd->offset + fd->length;
	bool named = false;
	int c = strncmp(fd->name, "reserved", 8) && strncmp(fd->name, "unused", 6)
		    ? seg_colour(fd->segment)
		    : 8;

	while (o < end) {
		uint32_t r = o / BPR, col = o % BPR;
		uint32_t n = end - o < BPR - col ? end - o : BPR - col;
		int x = OFFW + (int)col * CW, y = (int)r * RH, w = (int)n * CW;
		size_t room = (size_t)(w - 4) / 5, len = strlen(fd->name);

		fprintf(f,
			"<g><rect class=\"field seg%d\" x=\"%d\" y=\"%d\" width=\"%d\" "
			"height=\"%d\"/>",
			c, x, y + 1, w, RH - 2);
		field_title(f, fd);
		if (!named && room >= 2) {
			fprintf(f, "<text class=\"fname\" x=\"%d\" y=\"%d\">", x + 2, y + 11);
			html_esc(f, fd->name, len < room ? len : room);
			fputs("</text>", f);
			named = true;
		}
		fputs("</g>", f);
		o += n;
	}
}

static void field_table(FILE *f, const struct wqe_description *d, const uint8_t *wqe)
{
	fprintf(f,
		"<details><summary>%u fields</summary><table class=\"fields\"><tr><th>off"
		"</th><th>segment</th><th>field</th><th>bytes</th><th>meaning</th></tr>",
		d->num_fields);
	for (uint32_t i = 0; i < d->num_fields; i++) {
		const struct wqe_field *fd = &d->field[i];

		fprintf(f, "<tr><td>%u</td><td>", fd->offset);
		html_escs(f, fd->segment);
		fputs("</td><td>", f);
		html_escs(f, fd->name);
		fputs("</td><td>", f);
		for (uint32_t j = 0; j < fd->length && j < 8; j++)
			fprintf(f, "%02x ", wqe[fd->offset + j]);
		if (fd->length > 8)
			fputs("..", f);
		fputs("</td><td>", f);
		html_escs(f, fd->meaning);
		fputs("</td></tr>", f);
	}
	fputs("</table></details>\n", f);
}

void html_wqe(FILE *f, enum wqe_format fmt, enum wqe_qp_type t, uint32_t qpn, const uint8_t *wqe,
	      uint32_t len)
{
	struct wqe_decode_ctx ctx = {.qp_type = t, .max_bytes = len, .qpn = qpn};
	struct wqe_description *d = malloc(sizeof(*d));
	enum wqe_decode_err e = d ? wqe_describe(fmt, &ctx, wqe, len, d) : WQE_DEC_BAD_FIELD;
	uint32_t size, rows;

	if (e != WQE_DEC_OK) {
		fputs("<p>The WQE does not decode: ", f);
		html_escs(f, d ? wqe_decode_err_str(e) : "out of memory");
		fputs("</p>", f);
		free(d);
		return;
	}
	size = d->desc.size <= len ? d->desc.size : len;
	rows = (size + BPR - 1) / BPR;
	fprintf(f, "<p>%u bytes that carry meaning, in %u ring block%s of 64 B", size, len / 64,
		len == 64 ? "" : "s");
	if (fmt == WQE_FORMAT_RXE && size < len)
		fprintf(f, " (the rest of the %u-byte slot is not shown)", len);
	fputs(".</p>\n", f);
	fprintf(f,
		"<svg class=\"wqe\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%u\">\n",
		OFFW + BPR * CW + 2, rows * RH + 2);
	for (uint32_t i = 0; i < d->num_fields; i++)
		if (d->field[i].offset + d->field[i].length <= size)
			field_boxes(f, &d->field[i]);
	fputc('\n', f);
	for (uint32_t r = 0; r < rows; r++)
		fprintf(f, "<text x=\"2\" y=\"%u\">%04x</text>", r * RH + 28, r * BPR);
	for (uint32_t i = 0; i < size; i++)
		fprintf(f, "<text class=\"hex\" x=\"%u\" y=\"%u\">%02x</text>",
			OFFW + (i % BPR) * CW + 7, (i / BPR) * RH + 30, wqe[i]);
	fputs("\n</svg>\n", f);
	field_table(f, d, wqe);
	free(d);
}

void html_two_shapes(FILE *f)
{
	static const enum wqe_format fmts[2] = {WQE_FORMAT_MLX5, WQE_FORMAT_RXE};

	fputs("<section id=\"two-shapes\"><h2>One request, two on-chip shapes</h2>\n<p>The "
	      "standard fixes what a Work Request says, not how a NIC stores it. The same "
	      "request,</p><pre>",
	      f);
	html_escs(f, demo_shape_request());
	fputs("</pre><p>as an mlx5 NIC finds it in its ring (big-endian packed segments, 64-byte "
	      "blocks) and as Linux rxe stores it (a host-endian struct carrying the verbs request "
	      "nearly as is, plus the driver's progress fields, in a power-of-two slot):</p>\n"
	      "<div class=\"shapes\">",
	      f);
	for (int i = 0; i < 2; i++) {
		const uint8_t *wqe;
		uint32_t len;

		fprintf(f, "<div class=\"shape\"><h4>%s</h4>", wqe_format_str(fmts[i]));
		if (demo_shape_encode(fmts[i], &wqe, &len))
			fputs("<p>cannot be encoded</p>", f);
		else
			html_wqe(f, fmts[i], WQE_QPT_RC, CLI_DEFAULT_QPN, wqe, len);
		fputs("</div>", f);
	}
	fputs("</div></section>\n", f);
}
