/* SPDX-License-Identifier: MIT */
/*
 * Receive WQEs in the tool: `wqe encode` of receive requests (one slot of
 * the receive ring each) and `wqe decode --recv` (slots -> the decoded
 * receive WQEs). As for sends, every line is parsed, checked and encoded
 * before anything is printed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The largest receive slot: 64 mlx5 segments, or rxe's 40 + 32 x 16 -> 1024. */
#define RECV_SLOT_MAX 1024u

struct recv_out {
	uint8_t slot[CLI_MAX_FORMATS][RECV_SLOT_MAX];
	uint32_t lineno;
	char *text; /* the request as wqe_format_recv_wr() writes it */
};

struct recv_run {
	const struct cli_recv_cfg *cfg;
	const char *input;
	uint32_t slot[CLI_MAX_FORMATS]; /* bytes of a slot, per format */
	struct recv_out *out;
	size_t count, cap;
	struct wqe_text_recv_wr req;
};

static int recv_line_error(const struct recv_run *r, uint32_t lineno, uint32_t col, const char *msg)
{
	fprintf(stderr, "wqe: %s:%u:%u: %s\n", r->input, lineno, col, msg);
	return CLI_USAGE;
}

/* The checks of wqe_post_recv() on a QP of --max-recv-sge SGEs. */
static int check_recv(struct recv_run *r, const char *line, size_t len, uint32_t lineno)
{
	char msg[160];
	uint32_t col;

	if (cli_recv_check(r->cfg->max_recv_sge, line, len, &r->req.wr, msg, sizeof(msg), &col))
		return recv_line_error(r, lineno, col, msg);
	return CLI_OK;
}

static int recv_next_slot(struct recv_run *r)
{
	if (r->count == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 4;
		struct recv_out *bigger = realloc(r->out, cap * sizeof(*r->out));

		if (!bigger)
			return -1;
		r->out = bigger;
		r->cap = cap;
	}
	memset(&r->out[r->count], 0, sizeof(r->out[0]));
	return 0;
}

static int encode_recv_line(struct recv_run *r, const char *line, size_t len, uint32_t lineno)
{
	struct wqe_text_err err;
	struct recv_out *o;

	if (recv_next_slot(r))
		return recv_line_error(r, lineno, 1, "out of memory");
	o = &r->out[r->count];
	if (wqe_parse_recv_wr(line, len, NULL, &r->req, &err))
		return recv_line_error(r, lineno, err.column, err.msg);
	if (check_recv(r, line, len, lineno))
		return CLI_USAGE;
	for (size_t k = 0; k < r->cfg->nfmt; k++)
		if (wqe_encode_recv(r->cfg->fmt[k], &r->req.wr, o->slot[k], r->slot[k]))
			return recv_line_error(r, lineno, 1,
					       "the encoder refused the request (EINVAL)");
	o->lineno = lineno;
	o->text = malloc(WQE_TEXT_LINE_MAX);
	r->count++;
	if (!o->text || wqe_format_recv_wr(&r->req.wr, o->text, WQE_TEXT_LINE_MAX) < 0)
		return recv_line_error(r, lineno, 1, "cannot format the request back");
	return CLI_OK;
}

static void print_recv_heading(const char *sep, enum wqe_format fmt, uint32_t slot)
{
	if (fmt == WQE_FORMAT_RXE)
		printf("%s-- rxe: struct rxe_recv_wqe (host order) in a %" PRIu32
		       "-byte slot of the receive ring\n",
		       sep, slot);
	else
		printf("%s-- mlx5: big-endian data segments in a %" PRIu32
		       "-byte slot of the receive ring\n",
		       sep, slot);
}

static void print_recv_all(const struct recv_run *r)
{
	const struct cli_recv_cfg *cfg = r->cfg;

	for (size_t i = 0; i < r->count; i++) {
		const struct recv_out *o = &r->out[i];

		if (cfg->raw) {
			cli_print_hex(stdout, o->slot[0], r->slot[0]);
			continue;
		}
		printf("%s%s:%u: %s\n", i ? "\n" : "", r->input, o->lineno, o->text);
		for (size_t k = 0; k < cfg->nfmt; k++) {
			if (cfg->nfmt > 1)
				print_recv_heading(k ? "\n" : "", cfg->fmt[k], r->slot[k]);
			if (wqe_print_recv_wqe(stdout, cfg->fmt[k], o->slot[k], r->slot[k]) !=
			    WQE_DEC_OK)
				printf("  (the decoder refuses these bytes)\n");
		}
	}
}

static int encode_recv_all(struct recv_run *r, const char *buf, size_t len)
{
	struct wqe_text_reader rd;
	const char *line;
	size_t n;
	uint32_t lineno;
	int rc;

	wqe_text_reader_init(&rd, buf, len);
	while (wqe_text_reader_next(&rd, &line, &n, &lineno)) {
		rc = encode_recv_line(r, line, n, lineno);
		if (rc)
			return rc;
	}
	return CLI_OK;
}

int cli_encode_recv(const struct cli_recv_cfg *cfg, const char *buf, size_t len, const char *input)
{
	struct recv_run *r = calloc(1, sizeof(*r));
	char msg[160];
	int rc;

	if (!r)
		return CLI_FAIL;
	r->cfg = cfg;
	r->input = input;
	rc = CLI_OK;
	for (size_t k = 0; rc == CLI_OK && k < cfg->nfmt; k++)
		if (cli_recv_slot(cfg->fmt[k], cfg->max_recv_sge, &r->slot[k], msg, sizeof(msg)))
			rc = cli_usage_error("encode", usage_encode, "%s", msg);
	if (rc == CLI_OK)
		rc = encode_recv_all(r, buf, len);
	if (rc == CLI_OK)
		print_recv_all(r);
	for (size_t i = 0; i < r->count; i++)
		free(r->out[i].text);
	free(r->out);
	free(r);
	return rc;
}

/* wqe_decode_recv()'s errors, in a receive slot's terms (desc.h). */
static const char *recv_err_str(enum wqe_format fmt, enum wqe_decode_err err)
{
	switch (err) {
	case WQE_DEC_TRUNCATED:
		return "truncated: the slot is shorter than the WQE's header";
	case WQE_DEC_BAD_FIELD:
		return "bad field: the dma cursor is not as posted (resid != length, or cur_sge "
		       "or sge_offset non-zero)";
	case WQE_DEC_TOO_MANY_SGE:
		return fmt == WQE_FORMAT_RXE ? "too many SGEs: num_sge is over 64"
					     : "too many SGEs: 64 data segments and no end";
	case WQE_DEC_BAD_SEGMENTS:
		return "bad segments: the SGE array runs past the slot, or its lengths do not "
		       "add up to dma.length";
	default:
		return wqe_decode_err_str(err);
	}
}

/* Decodes every slot first: a refused one prints only the decoder's error. */
static int decode_recv_check(enum wqe_format fmt, uint32_t slot, const uint8_t *b, size_t n,
			     struct wqe_recv_desc *d)
{
	for (size_t off = 0; off < n; off += slot) {
		enum wqe_decode_err err = wqe_decode_recv(fmt, b + off, slot, d);

		if (err) {
			fprintf(stderr, "wqe decode: the receive WQE at byte %zu is refused: %s\n",
				off, recv_err_str(fmt, err));
			return CLI_FAIL;
		}
	}
	return CLI_OK;
}

static int print_recv_request(const struct wqe_recv_desc *d)
{
	struct wqe_sge sge[WQE_DESC_MAX_SGE];
	struct wqe_recv_wr wr = {.wr_id = d->wr_id, .sg_list = sge, .num_sge = (int)d->num_sge};
	char *line = malloc(WQE_TEXT_LINE_MAX);
	int n = -1;

	for (uint32_t i = 0; i < d->num_sge; i++) {
		sge[i].addr = d->sge[i].addr;
		sge[i].length = d->sge[i].length;
		sge[i].lkey = d->sge[i].lkey;
	}
	if (line)
		n = wqe_format_recv_wr(&wr, line, WQE_TEXT_LINE_MAX);
	if (n >= 0)
		printf("%s\n", line);
	free(line);
	return n < 0 ? CLI_FAIL : CLI_OK;
}

int cli_decode_recv(enum wqe_format fmt, uint32_t slot, int request, const uint8_t *b, size_t n)
{
	struct wqe_recv_desc *d = malloc(sizeof(*d));
	int rc = d ? decode_recv_check(fmt, slot, b, n, d) : CLI_FAIL;

	for (size_t off = 0; rc == CLI_OK && off < n; off += slot) {
		if (wqe_decode_recv(fmt, b + off, slot, d) != WQE_DEC_OK) {
			rc = CLI_FAIL;
			break;
		}
		if (request) {
			rc = print_recv_request(d);
			continue;
		}
		if (n > slot)
			printf("%sslot at byte %zu\n", off ? "\n" : "", off);
		printf("the receive WQE in the ring (%s, a %" PRIu32 "-byte slot):\n",
		       wqe_format_str(fmt), slot);
		wqe_print_recv_wqe(stdout, fmt, b + off, slot);
		printf("what the NIC decodes (struct wqe_recv_desc):\n");
		wqe_print_recv_desc(stdout, d, slot);
	}
	free(d);
	return rc;
}
