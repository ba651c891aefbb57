/* SPDX-License-Identifier: MIT */
/*
 * wqe decode: WQE bytes -> the annotated WQE and what the NIC decodes, or
 * (--request) the Work Request text that encodes to the same bytes; with
 * --recv, the same for the slots of a receive ring (recv.c).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct decode_cfg {
	enum wqe_format fmt;
	enum wqe_qp_type qp_type;
	int request;
	uint32_t qpn;       /* rxe: the QP's number (its WQEs do not carry it) */
	uint32_t slot;      /* rxe: bytes of each WQE's slot (--slot, or from the sizing) */
	uint32_t max_sge;   /* rxe: the sizing the slot is derived from */
	uint32_t max_inline;
	int slot_given, sizing_given;
	int recv;              /* --recv: receive slots */
	uint32_t max_recv_sge; /* --recv: the sizing the slot is derived from */
	int recv_sge_given;
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
		"  --format mlx5|rxe  the WQE format (default mlx5)\n"
		"rxe only (its WQEs have no size field: each fills its QP's slot):\n"
		"  --slot BYTES     the slot size, a power of two from 256 to 1024\n"
		"  --max-sge N      or the QP's sizing: the slot wqe_calc_sq gives a QP with\n"
		"  --max-inline N   N SGEs and N bytes inline (default 4 and 0, as encode)\n"
		"  --qpn N          the QP's number, shown as the NIC knows it (default 0x000123)\n"
		"  The last WQE may stop early: the rest of its slot is taken as zeros.\n"
		"receive WQEs (each fills one slot of the receive ring):\n"
		"  --recv           the bytes are receive slots (mlx5 or rxe, --format)\n"
		"  --max-recv-sge N the slot wqe_calc_rq gives a QP with N receive SGEs\n"
		"                   (default 4), or --slot BYTES (a power of two, 16 to 1024\n"
		"                   for mlx5, 64 to 1024 for rxe); --request prints each\n"
		"                   slot's 'recv' line. The last slot may stop early: the\n"
		"                   rest is taken as zeros.\n"
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

/* rxe: the wr_id and the AH number of the WQE at @b (mlx5 carries neither). */
static void rxe_extras(const struct decode_cfg *cfg, const uint8_t *b, size_t len,
		       uint64_t *wr_id, uint32_t *ah_num)
{
	struct wqe_decode_ctx ctx = {.qp_type = cfg->qp_type, .max_bytes = cfg->slot,
				     .qpn = cfg->qpn};
	struct wqe_description *d = malloc(sizeof(*d));

	*wr_id = 0;
	*ah_num = 0;
	if (!d || wqe_describe(WQE_FORMAT_RXE, &ctx, b, len, d) != WQE_DEC_OK) {
		free(d);
		return;
	}
	for (uint32_t i = 0; i < d->num_fields; i++)
		if (strcmp(d->field[i].name, "wr_id") == 0)
			*wr_id = d->field[i].value; /* host order, as the field says */
	*ah_num = d->desc.ud.ah_num;
	free(d);
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

static int print_request(const struct decode_cfg *cfg, const struct wqe_desc *d,
			 const uint8_t *b, size_t len)
{
	struct rebuilt *r = malloc(sizeof(*r));
	char *line = malloc(WQE_TEXT_LINE_MAX);
	enum wqe_qp_type t = cfg->qp_type;
	uint32_t ah_num = 0;
	int n = -1;

	if (r && line) {
		rebuild(d, t, r);
		if (cfg->fmt == WQE_FORMAT_RXE)
			rxe_extras(cfg, b, len, &r->wr.wr_id, &ah_num);
		n = wqe_format_send_wr(&r->wr, t, line, WQE_TEXT_LINE_MAX);
		if (n >= 0 && ah_num)
			printf("%s  # ah_num=%u: the address is in the NIC's AH table\n", line,
			       ah_num);
		else if (n >= 0)
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

/* The decode context and the bytes of the WQE at @b, @len bytes left. An
 * rxe WQE is its slot (the input is padded to whole slots). */
static struct wqe_decode_ctx wqe_ctx(const struct decode_cfg *cfg, size_t *len)
{
	struct wqe_decode_ctx ctx = {.qp_type = cfg->qp_type, .qpn = cfg->qpn};

	if (cfg->fmt == WQE_FORMAT_RXE) {
		*len = cfg->slot;
		ctx.max_bytes = cfg->slot;
	} else {
		ctx.max_bytes = (uint32_t)align_block(*len);
	}
	return ctx;
}

/* Decodes every WQE; records where each starts. Prints nothing on success. */
static int decode_all(const struct decode_cfg *cfg, const uint8_t *b, size_t n, size_t *starts,
		      size_t *count, struct wqe_desc *d)
{
	size_t off = 0;

	*count = 0;
	while (off < n) {
		size_t len = n - off;
		struct wqe_decode_ctx ctx = wqe_ctx(cfg, &len);
		enum wqe_decode_err err = wqe_decode(cfg->fmt, &ctx, b + off, len, d);

		if (err) {
			fprintf(stderr, "wqe decode: the WQE at byte %zu is refused: %s\n", off,
				wqe_decode_err_str(err));
			return CLI_FAIL;
		}
		starts[(*count)++] = off;
		off += cfg->fmt == WQE_FORMAT_RXE ? cfg->slot : (size_t)d->nblocks * WQE_BLOCK_SIZE;
	}
	return CLI_OK;
}

static int print_one(const struct decode_cfg *cfg, const uint8_t *b, size_t len,
		     struct wqe_desc *d, size_t off, size_t count)
{
	struct wqe_decode_ctx ctx = wqe_ctx(cfg, &len);

	if (wqe_decode(cfg->fmt, &ctx, b, len, d) != WQE_DEC_OK)
		return CLI_FAIL;
	if (cfg->request)
		return print_request(cfg, d, b, len);
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
		else if (strcmp(argv[i], "--recv") == 0)
			cfg->recv = 1;
		else if ((m = cli_opt(argc, argv, &i, "--max-recv-sge", &v)) != 0) {
			cfg->recv_sge_given = 1;
			if (m < 0 || cli_parse_u32(v, WQE_DESC_MAX_SGE, &cfg->max_recv_sge))
				return -1;
		}
		else if ((m = cli_opt(argc, argv, &i, "--qp", &v)) != 0) {
			if (m < 0 || cli_parse_qp(v, &cfg->qp_type))
				return -1;
		} else if ((m = cli_opt(argc, argv, &i, "--format", &v)) != 0) {
			if (m < 0 || cli_parse_format(v, &cfg->fmt))
				return -1;
		} else if ((m = cli_opt(argc, argv, &i, "--qpn", &v)) != 0) {
			if (m < 0 || cli_parse_u32(v, 0xffffff, &cfg->qpn))
				return -1;
		} else if ((m = cli_opt(argc, argv, &i, "--slot", &v)) != 0) {
			cfg->slot_given = 1;
			if (m < 0 || cli_parse_u32(v, WQE_MAX_BLOCKS * WQE_BLOCK_SIZE, &cfg->slot))
				return -1;
		} else if ((m = cli_opt(argc, argv, &i, "--max-sge", &v)) != 0) {
			cfg->sizing_given = 1;
			if (m < 0 || cli_parse_u32(v, WQE_DESC_MAX_SGE, &cfg->max_sge))
				return -1;
		} else if ((m = cli_opt(argc, argv, &i, "--max-inline", &v)) != 0) {
			cfg->sizing_given = 1;
			if (m < 0 || cli_parse_u32(v, WQE_MLX5_MAX_WQE_BYTES, &cfg->max_inline))
				return -1;
		} else {
			return -1;
		}
	}
	*first = i;
	return 0;
}

/* The rxe slot: --slot, or what wqe_calc_sq gives the QP sizing. */
static int rxe_slot(struct decode_cfg *cfg)
{
	struct wqe_qp_cap cap = {1, 1, cfg->max_sge, 1, cfg->max_inline};
	uint32_t wqe_bytes, ring_blocks;

	if (cfg->fmt != WQE_FORMAT_RXE)
		return cfg->slot_given || cfg->sizing_given ? cli_usage_error(
			       "decode", usage_decode, "--slot, --max-sge and --max-inline are rxe's")
							    : CLI_OK;
	if (cfg->slot_given && cfg->sizing_given)
		return cli_usage_error("decode", usage_decode,
				       "give --slot or the sizing (--max-sge, --max-inline), not both");
	if (cfg->slot_given) {
		if (cfg->slot < 256 || (cfg->slot & (cfg->slot - 1)))
			return cli_usage_error("decode", usage_decode,
					       "an rxe slot is a power of two from 256 to 1024 bytes");
		return CLI_OK;
	}
	if (wqe_calc_sq(WQE_FORMAT_RXE, cfg->qp_type, &cap, &wqe_bytes, &ring_blocks))
		return cli_usage_error("decode", usage_decode,
				       "no rxe QP has %u SGEs and %u bytes inline (at most 32 and 512)",
				       cfg->max_sge, cfg->max_inline);
	cfg->slot = wqe_bytes;
	return CLI_OK;
}

/* --recv: the receive slot, from --slot or --max-recv-sge. */
static int recv_slot(struct decode_cfg *cfg)
{
	uint32_t min = cfg->fmt == WQE_FORMAT_RXE ? 64 : 16;

	if (cfg->sizing_given)
		return cli_usage_error("decode", usage_decode,
				       "--max-sge and --max-inline size send slots: with --recv, "
				       "give --max-recv-sge or --slot");
	if (cfg->slot_given && cfg->recv_sge_given)
		return cli_usage_error("decode", usage_decode,
				       "give --slot or --max-recv-sge, not both");
	if (cfg->slot_given) {
		if (cfg->slot < min || cfg->slot > 1024 || (cfg->slot & (cfg->slot - 1)))
			return cli_usage_error("decode", usage_decode,
					       "a %s receive slot is a power of two from %u to 1024 bytes",
					       wqe_format_str(cfg->fmt), min);
		return CLI_OK;
	}
	if (cli_recv_slot_bytes(cfg->fmt, cfg->max_recv_sge, &cfg->slot))
		return cli_usage_error("decode", usage_decode,
				       "no %s receive queue takes %u SGEs (--max-recv-sge: 1 to 64, "
				       "rxe at most 32)",
				       wqe_format_str(cfg->fmt), cfg->max_recv_sge);
	return CLI_OK;
}

/* The slot size of the input: receive slots, rxe send slots, or none (0). */
static int input_slot(struct decode_cfg *cfg)
{
	if (cfg->recv)
		return recv_slot(cfg);
	if (cfg->recv_sge_given)
		return cli_usage_error("decode", usage_decode,
				       "--max-recv-sge sizes receive slots: give --recv");
	return rxe_slot(cfg);
}

int cmd_decode(int argc, char **argv)
{
	struct decode_cfg cfg = {.fmt = WQE_FORMAT_MLX5, .qp_type = WQE_QPT_RC,
				 .qpn = CLI_DEFAULT_QPN, .max_sge = 4, .max_recv_sge = 4};
	uint8_t *bytes;
	char *text;
	size_t len, n;
	int first, rc;

	if (parse_decode_opts(argc, argv, &cfg, &first))
		return cli_usage_error("decode", usage_decode, "bad option or value");
	if (input_slot(&cfg))
		return CLI_USAGE;
	text = gather_input(argc, argv, first, &len);
	if (!text) {
		fprintf(stderr, "wqe decode: cannot read the input\n");
		return CLI_USAGE;
	}
	/* Room for the input padded to whole rxe slots (zeros). */
	bytes = calloc(1, len / 2 + 1 + cfg.slot);
	if (!bytes || parse_hex(text, len, bytes, &n)) {
		free(bytes);
		free(text);
		return CLI_USAGE;
	}
	if (cfg.fmt == WQE_FORMAT_RXE || cfg.recv)
		n = (n + cfg.slot - 1) / cfg.slot * cfg.slot;
	rc = cfg.recv ? cli_decode_recv(cfg.fmt, cfg.slot, cfg.request, bytes, n)
		      : run_decode(&cfg, bytes, n);
	free(bytes);
	free(text);
	return rc;
}
