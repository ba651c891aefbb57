/* SPDX-License-Identifier: MIT */
/*
 * wqe decode: WQE bytes -> the annotated WQE and what the NIC decodes, or
 * (--request) the Work Request text that encodes to the same bytes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct decode_cfg {
	enum wqe_format fmt;
	enum wqe_qp_type qp_type;
	int request;
};

/* A Work Request rebuilt from a decoded WQE, with its storage. */
struct rebuilt {
	struct wqe_send_wr wr;
	struct wqe_sge sge[WQE_DESC_MAX_SGE];
	struct wqe_ah ah;
};

void usage_decode(FILE *f)
{
	fprintf(f,
		"usage: wqe decode [options] [HEX ...]\n"
		"Decodes WQE bytes as the NIC side does and prints them by segment, then the\n"
		"decoded description. HEX comes from the arguments or stdin; whitespace between\n"
		"bytes is allowed. Several WQEs may follow each other, each taking whole 64-byte\n"
		"blocks (as 'wqe encode --raw' prints them); the last may stop at its DS size.\n"
		"Malformed bytes print the decoder's error and exit 1; bad hex exits 2.\n"
		"\n"
		"options:\n"
		"  --qp rc|uc|ud    transport of the QP (default rc): the WQE does not say it\n"
		"  --request        print only the Work Request text of each WQE, such that\n"
		"                   'wqe encode --raw' of it gives the same bytes\n"
		"  --format mlx5    the WQE format (only mlx5 for now)\n"
		"example: wqe decode 0000050a000123020000000800000000 "
		"000000400000123400007f0000001000\n");
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Hex digits with optional whitespace between bytes -> @out (n/2 bytes). */
static int parse_hex(const char *s, size_t len, uint8_t *out, size_t *n)
{
	size_t i = 0;

	*n = 0;
	while (i < len) {
		int hi, lo;

		if (isspace((unsigned char)s[i])) {
			i++;
			continue;
		}
		hi = hex_digit((unsigned char)s[i]);
		lo = i + 1 < len ? hex_digit((unsigned char)s[i + 1]) : -1;
		if (hi < 0 || lo < 0) {
			size_t at = hi < 0 ? i : i + 1;

			if (at < len)
				fprintf(stderr, "wqe decode: bad hex: '%c' at character %zu\n",
					s[at], at + 1);
			else
				fprintf(stderr, "wqe decode: bad hex: odd number of digits\n");
			return -1;
		}
		out[(*n)++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	if (*n == 0) {
		fprintf(stderr, "wqe decode: no bytes given\n");
		return -1;
	}
	return 0;
}

static int is_send(enum wqe_op op)
{
	return op == WQE_OP_SEND || op == WQE_OP_SEND_WITH_IMM || op == WQE_OP_SEND_WITH_INV;
}

static void rebuild_ud(const struct wqe_desc *d, struct rebuilt *r)
{
	struct wqe_ah_attr *a = &r->ah.attr;

	a->grh.dgid = d->ud.dgid;
	a->grh.flow_label = d->ud.flow_label;
	a->grh.sgid_index = d->ud.sgid_index;
	a->grh.hop_limit = d->ud.hop_limit;
	a->grh.traffic_class = d->ud.tclass;
	a->sl = d->ud.sl;
	a->port_num = 1;
	memcpy(a->dmac, d->ud.dmac, 6);
	a->udp_sport = d->ud.udp_sport;
	r->wr.wr.ud.ah = &r->ah;
	r->wr.wr.ud.remote_qpn = d->ud.dqpn;
	r->wr.wr.ud.remote_qkey = d->ud.qkey;
}

static void rebuild_remote(const struct wqe_desc *d, enum wqe_qp_type t, struct rebuilt *r)
{
	switch (d->op) {
	case WQE_OP_ATOMIC_CMP_AND_SWP:
		r->wr.wr.atomic.swap = d->swap_add;
		r->wr.wr.atomic.compare_add = d->compare;
		/* fall through */
	case WQE_OP_ATOMIC_FETCH_AND_ADD:
		if (d->op == WQE_OP_ATOMIC_FETCH_AND_ADD)
			r->wr.wr.atomic.compare_add = d->swap_add;
		r->wr.wr.atomic.remote_addr = d->remote_addr;
		r->wr.wr.atomic.rkey = d->rkey;
		break;
	default:
		if (is_send(d->op) && t == WQE_QPT_UD)
			rebuild_ud(d, r);
		else if (!is_send(d->op)) {
			r->wr.wr.rdma.remote_addr = d->remote_addr;
			r->wr.wr.rdma.rkey = d->rkey;
		}
		break;
	}
}

/* The Work Request whose encoding is the decoded WQE (wr_id is not in it). */
static void rebuild(const struct wqe_desc *d, enum wqe_qp_type t, struct rebuilt *r)
{
	uint8_t imm[4] = {(uint8_t)(d->imm >> 24), (uint8_t)(d->imm >> 16), (uint8_t)(d->imm >> 8),
			  (uint8_t)d->imm};

	memset(r, 0, sizeof(*r));
	r->wr.opcode = cli_wr_of_op(d->op);
	r->wr.sg_list = r->sge;
	r->wr.send_flags = (d->fence ? WQE_SEND_FENCE : 0u) |
			   (d->signaled ? WQE_SEND_SIGNALED : 0u) |
			   (d->solicited ? WQE_SEND_SOLICITED : 0u);
	if (d->op == WQE_OP_SEND_WITH_INV)
		r->wr.invalidate_rkey = d->imm;
	else
		memcpy(&r->wr.imm_data, imm, sizeof(imm));
	if (d->is_inline) {
		r->wr.send_flags |= WQE_SEND_INLINE;
		r->sge[0].addr = (uint64_t)(uintptr_t)d->inline_data;
		r->sge[0].length = d->inline_len;
		r->wr.num_sge = 1;
	} else {
		for (uint32_t i = 0; i < d->num_sge; i++) {
			r->sge[i].addr = d->sge[i].addr;
			r->sge[i].length = d->sge[i].length;
			r->sge[i].lkey = d->sge[i].lkey;
		}
		r->wr.num_sge = (int)d->num_sge;
	}
	rebuild_remote(d, t, r);
}

static int print_request(const struct wqe_desc *d, enum wqe_qp_type t)
{
	struct rebuilt *r = malloc(sizeof(*r));
	char *line = malloc(WQE_TEXT_LINE_MAX);
	int n = -1;

	if (r && line) {
		rebuild(d, t, r);
		n = wqe_format_send_wr(&r->wr, t, line, WQE_TEXT_LINE_MAX);
		if (n >= 0)
			printf("%s\n", line);
	}
	free(r);
	free(line);
	return n < 0 ? CLI_FAIL : CLI_OK;
}

static size_t align_block(size_t n)
{
	return (n + WQE_BLOCK_SIZE - 1) / WQE_BLOCK_SIZE * WQE_BLOCK_SIZE;
}

/* Decodes every WQE; records where each starts. Prints nothing on success. */
static int decode_all(const struct decode_cfg *cfg, const uint8_t *b, size_t n, size_t *starts,
		      size_t *count, struct wqe_desc *d)
{
	size_t off = 0;

	*count = 0;
	while (off < n) {
		struct wqe_decode_ctx ctx = {.qp_type = cfg->qp_type, .max_bytes = (uint32_t)align_block(n - off)};
		enum wqe_decode_err err = wqe_decode(cfg->fmt, &ctx, b + off, n - off, d);

		if (err) {
			fprintf(stderr, "wqe decode: the WQE at byte %zu is refused: %s\n", off,
				wqe_decode_err_str(err));
			return CLI_FAIL;
		}
		starts[(*count)++] = off;
		off += (size_t)d->nblocks * WQE_BLOCK_SIZE;
	}
	return CLI_OK;
}

static int print_one(const struct decode_cfg *cfg, const uint8_t *b, size_t len,
		     struct wqe_desc *d, size_t off, size_t count)
{
	struct wqe_decode_ctx ctx = {.qp_type = cfg->qp_type, .max_bytes = (uint32_t)align_block(len)};

	if (wqe_decode(cfg->fmt, &ctx, b, len, d) != WQE_DEC_OK)
		return CLI_FAIL;
	if (cfg->request)
		return print_request(d, cfg->qp_type);
	if (count > 1)
		printf("%sWQE at byte %zu\n", off ? "\n" : "", off);
	printf("the WQE in the ring (%s, %s QP):\n", wqe_format_str(cfg->fmt),
	       wqe_qp_type_str(cfg->qp_type));
	wqe_print_wqe(stdout, cfg->fmt, &ctx, b, len);
	printf("what the NIC decodes (struct wqe_desc):\n");
	wqe_print_desc(stdout, d, cfg->qp_type);
	return CLI_OK;
}

static int run_decode(const struct decode_cfg *cfg, const uint8_t *b, size_t n)
{
	size_t *starts = malloc((n / WQE_BLOCK_SIZE + 1) * sizeof(*starts)), count = 0;
	struct wqe_desc *d = malloc(sizeof(*d));
	int rc = starts && d ? decode_all(cfg, b, n, starts, &count, d) : CLI_FAIL;

	for (size_t i = 0; rc == CLI_OK && i < count; i++)
		rc = print_one(cfg, b + starts[i], n - starts[i], d, starts[i], count);
	free(starts);
	free(d);
	return rc;
}

/* The hex text: the positional arguments joined, or stdin. */
static char *gather_input(int argc, char **argv, int first, size_t *len)
{
	size_t total = 0, n = 0;
	char *buf;

	if (first >= argc)
		return cli_read_all(stdin, len);
	for (int i = first; i < argc; i++)
		total += strlen(argv[i]) + 1;
	buf = malloc(total + 1);
	if (!buf)
		return NULL;
	for (int i = first; i < argc; i++) {
		size_t k = strlen(argv[i]);

		memcpy(buf + n, argv[i], k);
		n += k;
		buf[n++] = ' ';
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int parse_decode_opts(int argc, char **argv, struct decode_cfg *cfg, int *first)
{
	const char *v;
	int i, m;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--request") == 0)
			cfg->request = 1;
		else if ((m = cli_opt(argc, argv, &i, "--qp", &v)) != 0) {
			if (m < 0 || cli_parse_qp(v, &cfg->qp_type))
				return -1;
		} else if ((m = cli_opt(argc, argv, &i, "--format", &v)) != 0) {
			if (m < 0 || cli_parse_format(v, &cfg->fmt))
				return -1;
		} else {
			return -1;
		}
	}
	*first = i;
	return 0;
}

int cmd_decode(int argc, char **argv)
{
	struct decode_cfg cfg = {.fmt = WQE_FORMAT_MLX5, .qp_type = WQE_QPT_RC};
	uint8_t *bytes;
	char *text;
	size_t len, n;
	int first, rc;

	if (parse_decode_opts(argc, argv, &cfg, &first))
		return cli_usage_error("decode", usage_decode, "bad option or value");
	text = gather_input(argc, argv, first, &len);
	if (!text) {
		fprintf(stderr, "wqe decode: cannot read the input\n");
		return CLI_USAGE;
	}
	bytes = malloc(len / 2 + 1);
	if (!bytes || parse_hex(text, len, bytes, &n)) {
		free(bytes);
		free(text);
		return CLI_USAGE;
	}
	rc = run_decode(&cfg, bytes, n);
	free(bytes);
	free(text);
	return rc;
}
