/* SPDX-License-Identifier: MIT */
/*
 * wqe encode: Work Request text -> the WQE in the send-queue ring, or
 * (--packets, packets.c) the RoCEv2 packets that WQE becomes; receive
 * requests -> the slot of the receive ring (recv.c).
 * Every request is parsed, checked and encoded before anything is printed,
 * so a bad line leaves no partial output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "encode_opt.h"
#include "packets.h"

struct encode_run {
	const struct cli_encode_cfg *cfg;
	const char *input; /* "argument" or "stdin" */
	struct cli_encoded *out[CLI_MAX_FORMATS]; /* request i of format k: out[k][i] */
	size_t count, cap;
	struct wqe_text_wr req; /* large: lives here, not on the stack */
};

void usage_encode(FILE *f)
{
	fprintf(f,
		"usage: wqe encode [options] ['REQUEST']\n"
		"Encodes a Work Request into the WQE a NIC finds in its send-queue ring and\n"
		"prints it by segment, each field decoded. Without REQUEST, reads one request\n"
		"per line from stdin ('#' comments and blank lines skipped); every line is\n"
		"checked before anything is printed. Successive requests advance the WQE index\n"
		"by the blocks of the one before, as in a ring.\n"
		"\n"
		"options:\n"
		"  --qp rc|uc|ud       transport of the QP (default rc)\n"
		"  --qpn N             QP number in the control segment (default 0x000123)\n"
		"  --wqe-index N       WQE index of the first request (default 0)\n"
		"  --max-sge N         max_send_sge of the QP (default 4)\n"
		"  --max-inline N      max_inline_data of the QP (default: what wqe_calc_sq\n"
		"                      gives a QP with --max-sge SGEs; more inline is an error)\n"
		"  --sig-all           the QP signals every WQE (sq_sig_all)\n"
		"  --max-recv-sge N    receive requests: max_recv_sge of the QP (default 4),\n"
		"                      which sizes the receive slot (wqe_calc_rq)\n"
		"  --raw               print only the WQE blocks, one lowercase hex line each\n"
		"                      (rxe: the whole slot)\n"
		"  --format F[,F]      the WQE format: mlx5 (default) or rxe; 'mlx5,rxe'\n"
		"                      prints both shapes of each request, one after the\n"
		"                      other (not with --raw or --packets)\n"
		"\n"
		"  --packets           print the RoCEv2 packets each WQE becomes instead: the\n"
		"                      WQE bytes are decoded as the NIC decodes them and run\n"
		"                      through the packetizer (no endpoint); SGE payload comes\n"
		"                      from a synthetic memory where the byte at A is A & 0xff\n"
		"  --pmtu N            path MTU 256|512|1024|2048|4096 (default 1024; on UD the\n"
		"                      largest message)\n"
		"  --psn N             PSN of the first packet (default 0)\n"
		"  --src-ip IP         source IPv4 or IPv6 address (default 192.0.2.1)\n"
		"  --dst-ip IP         RC/UC: destination, same family (default 192.0.2.2)\n"
		"  --dqpn N            RC/UC: destination QP (default 0x000456)\n"
		"  --sport N           RC/UC: UDP source port 0xc000-0xffff (default 0xc000)\n"
		"  --smac MAC          source MAC (default 02:00:00:00:00:01)\n"
		"  --dmac MAC          RC/UC: destination MAC (default 02:00:00:00:00:02)\n"
		"  --pkey N            P_Key (default 0xffff)\n"
		"  --qkey N            UD: the QP's Q_Key, for a qkey= with bit 31 set (default 0)\n"
		"  --pcap OUT          also write the packets to the capture OUT (complete or\n"
		"                      not at all)\n"
		"  On UD the request's dgid=, dqpn=, sport= and dmac= say where a packet goes.\n"
		"\n"
		"REQUEST:  OPCODE [key=value ...]\n"
		"  OPCODE  send send_imm send_inv write write_imm read cas faa, or recv\n"
		"  id=N sge=ADDR:LEN:LKEY (repeatable) inline=HEX raddr=ADDR rkey=KEY imm=N\n"
		"  inv=KEY swap=N compare=N add=N flags=fence,signaled,solicited\n"
		"  UD: dqpn=N qkey=N sport=N dgid=IP dmac=MAC hop=N tclass=N flow=N sl=N\n"
		"      sgid_index=N\n"
		"  recv id=N sge=ADDR:LEN:LKEY (repeatable): a receive request, encoded into\n"
		"  one slot of the receive ring; the input is all receive or all send requests\n"
		"example: wqe encode 'write raddr=0x200000000040 rkey=0xabcd "
		"inline=a0a1a2a3 flags=signaled'\n");
}

static int line_error(const struct encode_run *r, uint32_t lineno, uint32_t col, const char *msg)
{
	fprintf(stderr, "wqe: %s:%u:%u: %s\n", r->input, lineno, col, msg);
	return CLI_USAGE;
}

/* Room for request r->count in every format's array, cleared. */
static int next_slot(struct encode_run *r)
{
	if (r->count == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 8;

		for (size_t k = 0; k < r->cfg->nfmt; k++) {
			struct cli_encoded *bigger = realloc(r->out[k], cap * sizeof(*r->out[k]));

			if (!bigger)
				return -1;
			r->out[k] = bigger;
		}
		r->cap = cap;
	}
	for (size_t k = 0; k < r->cfg->nfmt; k++)
		memset(&r->out[k][r->count], 0, sizeof(r->out[k][0]));
	return 0;
}

/* Encodes r->req into out[k][r->count], after the earlier requests' blocks. */
static int encode_one(struct encode_run *r, size_t k, uint32_t lineno)
{
	const struct cli_encode_cfg *cfg = r->cfg;
	struct cli_encoded *e = &r->out[k][r->count];
	uint32_t index = cfg->wqe_index;

	for (size_t i = 0; i < r->count; i++)
		index += r->out[k][i].nbytes / WQE_BLOCK_SIZE;
	if (cli_encode_wr(cfg, k, &r->req.wr, index, e->bytes, &e->nbytes))
		return line_error(r, lineno, 1, "the encoder refused the request (EINVAL)");
	e->lineno = lineno;
	return CLI_OK;
}

/* Parses, checks and encodes one line into out[k][r->count] for every format. */
static int encode_line(struct encode_run *r, const char *line, size_t len, uint32_t lineno)
{
	const struct cli_encode_cfg *cfg = r->cfg;
	struct wqe_text_opts opts = {.qp_type = cfg->qp.qp_type};
	struct wqe_text_err err;
	struct cli_encoded *e;
	char msg[240];
	uint32_t col;
	int n;

	if (next_slot(r))
		return line_error(r, lineno, 1, "out of memory");
	if (wqe_text_is_recv(line, len))
		return line_error(r, lineno, cli_key_column(line, len, "", 1),
				  "a receive request among send requests: they go to different "
				  "rings, give them on their own");
	if (wqe_parse_send_wr(line, len, &opts, &r->req, &err))
		return line_error(r, lineno, err.column, err.msg);
	if (cli_encode_check_wr(cfg, line, len, &r->req.wr, msg, sizeof(msg), &col))
		return line_error(r, lineno, col, msg);
	for (size_t k = 0; k < cfg->nfmt; k++)
		if (encode_one(r, k, lineno))
			return CLI_USAGE;
	e = &r->out[0][r->count];
	e->text = malloc(WQE_TEXT_LINE_MAX);
	n = e->text ? wqe_format_send_wr(&r->req.wr, cfg->qp.qp_type, e->text, WQE_TEXT_LINE_MAX)
		    : -ENOMEM;
	r->count++;
	if (n < 0)
		return line_error(r, lineno, 1, "cannot format the request back");
	return CLI_OK;
}

static int encode_all(struct encode_run *r, const char *buf, size_t len)
{
	struct wqe_text_reader rd;
	const char *line;
	size_t n;
	uint32_t lineno;
	int rc;

	wqe_text_reader_init(&rd, buf, len);
	while (wqe_text_reader_next(&rd, &line, &n, &lineno)) {
		rc = encode_line(r, line, n, lineno);
		if (rc)
			return rc;
	}
	if (r->count == 0) {
		fprintf(stderr, "wqe: %s: no request given\n", r->input);
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* The heading of one shape when several are shown. */
static void print_shape_heading(const char *sep, enum wqe_format fmt,
				const struct cli_encoded *e)
{
	if (fmt == WQE_FORMAT_RXE)
		printf("%s-- rxe: struct rxe_send_wqe (host order) in a %u-byte slot of the ring\n",
		       sep, e->nbytes);
	else
		printf("%s-- mlx5: big-endian segments in %u-byte blocks of the ring\n", sep,
		       WQE_BLOCK_SIZE);
}

static void print_all(const struct encode_run *r)
{
	const struct cli_encode_cfg *cfg = r->cfg;

	for (size_t i = 0; i < r->count; i++) {
		if (cfg->raw) {
			cli_print_hex(stdout, r->out[0][i].bytes, r->out[0][i].nbytes);
			continue;
		}
		printf("%s%s:%u: %s\n", i ? "\n" : "", r->input, r->out[0][i].lineno,
		       r->out[0][i].text);
		for (size_t k = 0; k < cfg->nfmt; k++) {
			const struct cli_encoded *e = &r->out[k][i];
			struct wqe_decode_ctx ctx = {.qp_type = cfg->qp.qp_type,
						     .max_bytes = e->nbytes, .qpn = cfg->qp.qpn};

			if (cfg->nfmt > 1)
				print_shape_heading(k ? "\n" : "", cfg->fmt[k], e);
			if (wqe_print_wqe(stdout, cfg->fmt[k], &ctx, e->bytes, e->nbytes) !=
			    WQE_DEC_OK)
				printf("  (the decoder refuses these bytes)\n");
		}
	}
}

static void free_run(struct encode_run *r)
{
	for (size_t i = 0; i < r->count; i++)
		free(r->out[0][i].text);
	for (size_t k = 0; k < CLI_MAX_FORMATS; k++)
		free(r->out[k]);
	free(r);
}

/* Is the first request line of @buf a receive request? */
static int first_is_recv(const char *buf, size_t len)
{
	struct wqe_text_reader rd;
	const char *line;
	size_t n;
	uint32_t lineno;

	wqe_text_reader_init(&rd, buf, len);
	return wqe_text_reader_next(&rd, &line, &n, &lineno) && wqe_text_is_recv(line, n);
}

/* Receive requests: their own ring, their own slot (recv.c). */
static int run_encode_recv(const struct cli_encode_cfg *cfg, const char *buf, size_t len,
			   const char *input)
{
	struct cli_recv_cfg rc = {.nfmt = cfg->nfmt, .max_recv_sge = cfg->max_recv_sge,
				  .raw = cfg->raw};

	if (cfg->pkt.on)
		return cli_usage_error("encode", usage_encode,
				       "--packets takes send requests: a receive WQE sends nothing");
	for (size_t k = 0; k < cfg->nfmt; k++)
		rc.fmt[k] = cfg->fmt[k];
	return cli_encode_recv(&rc, buf, len, input);
}

static int run_encode(const struct cli_encode_cfg *cfg, const char *arg)
{
	struct encode_run *r = calloc(1, sizeof(*r));
	char *buf = NULL;
	size_t len;
	int rc;

	if (!r)
		return CLI_FAIL;
	r->cfg = cfg;
	r->input = arg ? "argument" : "stdin";
	if (!arg) {
		buf = cli_read_all(stdin, &len);
		if (!buf) {
			fprintf(stderr, "wqe: cannot read stdin\n");
			free_run(r);
			return CLI_USAGE;
		}
	}
	if (arg) {
		buf = strdup(arg);
		len = strlen(arg);
		if (!buf) {
			free_run(r);
			return CLI_FAIL;
		}
	}
	if (first_is_recv(buf, len)) {
		rc = run_encode_recv(cfg, buf, len, r->input);
		free(buf);
		free_run(r);
		return rc;
	}
	rc = encode_all(r, buf, len);
	if (rc == CLI_OK && cfg->pkt.on)
		rc = cli_packets(&cfg->pkt, cfg->fmt[0], &cfg->fqp[0], r->out[0], r->count,
				 r->input);
	else if (rc == CLI_OK)
		print_all(r);
	free(buf);
	free_run(r);
	return rc;
}

int cmd_encode(int argc, char **argv)
{
	struct cli_encode_cfg cfg;
	const char *request = NULL;
	char msg[240];

	cli_encode_defaults(&cfg);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-") == 0)
			continue; /* stdin, the default */
		if (argv[i][0] != '-') {
			if (request)
				return cli_usage_error("encode", usage_encode,
						       "one REQUEST at most (quote it)");
			request = argv[i];
		} else if (cli_encode_opt(argc, argv, &i, &cfg, msg, sizeof(msg))) {
			return cli_usage_error("encode", usage_encode, "%s", msg);
		}
	}
	if (cli_encode_check_cfg(&cfg, msg, sizeof(msg)))
		return cli_usage_error("encode", usage_encode, "%s", msg);
	return run_encode(&cfg, request);
}
