/* SPDX-License-Identifier: MIT */
/*
 * libwqe_dpi: options, messages, encode and decode (wqe/dpi.h). The
 * option parser and the request checks are the CLI's own
 * (tools/wqe/encode_opt.c), compiled into this library.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpi/dpi_int.h"
#include "wqe/text.h"

/* Most words an options string splits into. */
#define DPI_MAX_ARGS 128

const char *wqe_dpi_err_str(int err)
{
	switch (err) {
	case WQE_DPI_OK:
		return "success";
	case WQE_DPI_EARG:
		return "bad argument";
	case WQE_DPI_EOPT:
		return "bad option";
	case WQE_DPI_EREQUEST:
		return "request refused";
	case WQE_DPI_EWQE:
		return "malformed WQE";
	case WQE_DPI_EFRAME:
		return "malformed frame";
	case WQE_DPI_ESPACE:
		return "output buffer too small";
	case WQE_DPI_ERANGE:
		return "packet index past the last packet";
	case WQE_DPI_ENOMEM:
		return "out of memory";
	}
	return "unknown error";
}

int dpi_fail(unsigned char *msg, int msgcap, int err, const char *fmt, ...)
{
	va_list ap;

	if (msg && msgcap > 0) {
		va_start(ap, fmt);
		vsnprintf((char *)msg, (size_t)msgcap, fmt, ap);
		va_end(ap);
	}
	return err;
}

void dpi_ok(unsigned char *msg, int msgcap)
{
	if (msg && msgcap > 0)
		msg[0] = '\0';
}

/* Splits @buf in place at whitespace into @argv: the count, or -1. */
static int split_words(char *buf, char *argv[DPI_MAX_ARGS])
{
	int argc = 0;

	for (char *p = buf; *p;) {
		while (isspace((unsigned char)*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (argc == DPI_MAX_ARGS)
			return -1;
		argv[argc++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	return argc;
}

/* The options that choose what the CLI prints: here the function does. */
static int is_output_opt(const char *a)
{
	return strcmp(a, "--raw") == 0 || strcmp(a, "--packets") == 0 ||
	       strncmp(a, "--pcap", 6) == 0;
}

int dpi_options(const char *opts, enum dpi_mode mode, struct cli_encode_cfg *cfg,
		unsigned char *msg, int msgcap)
{
	char buf[WQE_DPI_OPTS_MAX + 1], why[240];
	char *argv[DPI_MAX_ARGS];
	size_t len = opts ? strlen(opts) : 0;
	int argc;

	cli_encode_defaults(cfg);
	if (len > WQE_DPI_OPTS_MAX)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "options longer than %d bytes",
				WQE_DPI_OPTS_MAX);
	memcpy(buf, len ? opts : "", len);
	buf[len] = '\0';
	argc = split_words(buf, argv);
	if (argc < 0)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "more than %d option words",
				DPI_MAX_ARGS);
	for (int i = 0; i < argc; i++) {
		if (argv[i][0] != '-' || !argv[i][1])
			return dpi_fail(msg, msgcap, WQE_DPI_EOPT,
					"'%s' is not an option (the request is an argument "
					"of its own)",
					argv[i]);
		if (is_output_opt(argv[i]))
			return dpi_fail(msg, msgcap, WQE_DPI_EOPT,
					"%s is not an option here: the function called says "
					"what comes out",
					argv[i]);
		if (cli_encode_opt(argc, argv, &i, cfg, why, sizeof(why)))
			return dpi_fail(msg, msgcap, WQE_DPI_EOPT, "%s", why);
	}
	if (cfg->nfmt > 1)
		return dpi_fail(msg, msgcap, WQE_DPI_EOPT,
				"one format per call: give --format mlx5 or --format rxe");
	cfg->pkt.on = mode == DPI_PACKETS;
	if (cli_encode_check_cfg(cfg, why, sizeof(why)))
		return dpi_fail(msg, msgcap, WQE_DPI_EOPT, "%s", why);
	return 0;
}

/* A receive request: one slot of the receive ring the options size. */
static int encode_recv(const struct cli_encode_cfg *cfg, const char *line, size_t len,
		       uint8_t bytes[CLI_RING_BLOCKS * WQE_BLOCK_SIZE], uint32_t *nbytes,
		       unsigned char *msg, int msgcap)
{
	struct wqe_text_recv_wr req;
	struct wqe_text_err err;
	uint32_t slot, col;
	char why[200];

	if (cfg->pkt.on)
		return dpi_fail(msg, msgcap, WQE_DPI_EREQUEST,
				"a receive request: a receive WQE sends nothing");
	if (cli_recv_slot(cfg->fmt[0], cfg->max_recv_sge, &slot, why, sizeof(why)))
		return dpi_fail(msg, msgcap, WQE_DPI_EOPT, "%s", why);
	if (wqe_parse_recv_wr(line, len, NULL, &req, &err))
		return dpi_fail(msg, msgcap, WQE_DPI_EREQUEST, "column %u: %s", err.column,
				err.msg);
	if (cli_recv_check(cfg->max_recv_sge, line, len, &req.wr, why, sizeof(why), &col))
		return dpi_fail(msg, msgcap, WQE_DPI_EREQUEST, "column %u: %s", col, why);
	/* The largest slot (64 mlx5 segments, rxe's 40 + 32 x 16) is 1024. */
	if (slot > CLI_RING_BLOCKS * WQE_BLOCK_SIZE ||
	    wqe_encode_recv(cfg->fmt[0], &req.wr, bytes, slot))
		return dpi_fail(msg, msgcap, WQE_DPI_EREQUEST,
				"the encoder refused the request (EINVAL)");
	*nbytes = slot;
	return 0;
}

int dpi_encode_line(const struct cli_encode_cfg *cfg, const char *line, struct wqe_text_wr *req,
		    uint8_t bytes[CLI_RING_BLOCKS * WQE_BLOCK_SIZE], uint32_t *nbytes,
		    unsigned char *msg, int msgcap)
{
	struct wqe_text_opts topts = {.qp_type = cfg->qp.qp_type};
	struct wqe_text_reader rd;
	struct wqe_text_err err;
	const char *one, *more;
	size_t n, n2, len;
	uint32_t lineno, col;
	char why[240];

	if (!line)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "no request line (NULL)");
	len = strlen(line);
	if (len > WQE_DPI_LINE_MAX)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "a request line over %d bytes",
				WQE_DPI_LINE_MAX);
	/* As the CLI reads its argument: blank and comment lines skipped. */
	wqe_text_reader_init(&rd, line, len);
	if (!wqe_text_reader_next(&rd, &one, &n, &lineno))
		return dpi_fail(msg, msgcap, WQE_DPI_EREQUEST, "no request given");
	if (wqe_text_reader_next(&rd, &more, &n2, &lineno))
		return dpi_fail(msg, msgcap, WQE_DPI_EREQUEST,
				"one request per call, found another on line %u", lineno);
	if (wqe_text_is_recv(one, n))
		return encode_recv(cfg, one, n, bytes, nbytes, msg, msgcap);
	if (wqe_parse_send_wr(one, n, &topts, req, &err))
		return dpi_fail(msg, msgcap, WQE_DPI_EREQUEST, "column %u: %s", err.column,
				err.msg);
	if (cli_encode_check_wr(cfg, one, n, &req->wr, why, sizeof(why), &col))
		return dpi_fail(msg, msgcap, WQE_DPI_EREQUEST, "column %u: %s", col, why);
	if (cli_encode_wr(cfg, 0, &req->wr, cfg->wqe_index, bytes, nbytes))
		return dpi_fail(msg, msgcap, WQE_DPI_EREQUEST,
				"the encoder refused the request (EINVAL)");
	return 0;
}

/* The working storage of one encode: too large for a simulator's stack. */
struct encode_work {
	struct cli_encode_cfg cfg;
	struct wqe_text_wr req;
	uint8_t bytes[CLI_RING_BLOCKS * WQE_BLOCK_SIZE];
};

int wqe_dpi_encode(const char *line, const char *opts, unsigned char *wqe, int cap,
		   unsigned char *msg, int msgcap)
{
	struct encode_work *w;
	uint32_t nbytes = 0;
	int rc;

	if (!wqe || cap < 0)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "no output buffer");
	w = malloc(sizeof(*w));
	if (!w)
		return dpi_fail(msg, msgcap, WQE_DPI_ENOMEM, "out of memory");
	rc = dpi_options(opts, DPI_ENCODE, &w->cfg, msg, msgcap);
	if (!rc)
		rc = dpi_encode_line(&w->cfg, line, &w->req, w->bytes, &nbytes, msg, msgcap);
	if (!rc && nbytes > (uint32_t)cap)
		rc = dpi_fail(msg, msgcap, WQE_DPI_ESPACE, "the WQE is %u bytes, the buffer %d",
			      nbytes, cap);
	if (!rc) {
		memcpy(wqe, w->bytes, nbytes);
		rc = (int)nbytes;
		dpi_ok(msg, msgcap);
	}
	free(w);
	return rc;
}

/* The request of wqe_dpi_encode_fields() and the line it is written as. */
struct fields_work {
	struct wqe_send_wr wr;
	struct wqe_sge sge[WQE_DESC_MAX_SGE];
	struct wqe_ah ah;
	char line[WQE_TEXT_LINE_MAX];
};

static int known_opcode(int op)
{
	return op == WQE_WR_RDMA_WRITE || op == WQE_WR_RDMA_WRITE_WITH_IMM || op == WQE_WR_SEND ||
	       op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_RDMA_READ ||
	       op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD ||
	       op == WQE_WR_SEND_WITH_INV;
}

static int is_atomic_wr(int op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

int wqe_dpi_encode_fields(const char *opts, int opcode, unsigned int flags,
			  unsigned long long wr_id, unsigned long long raddr, unsigned int rkey,
			  unsigned int imm, unsigned long long swap_add, unsigned long long compare,
			  unsigned int dqpn, unsigned int qkey, int num_sge,
			  const unsigned long long *sge_addr, const unsigned int *sge_len,
			  const unsigned int *sge_lkey, const unsigned char *inline_data,
			  int inline_len, unsigned char *wqe, int cap, unsigned char *msg,
			  int msgcap)
{
	const unsigned int known = WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED;
	struct cli_encode_cfg cfg;
	uint8_t be[4] = {(uint8_t)(imm >> 24), (uint8_t)(imm >> 16), (uint8_t)(imm >> 8),
			 (uint8_t)imm};
	struct fields_work *w;
	int rc, n;

	if (!known_opcode(opcode) || (flags & ~known) || num_sge < 0 ||
	    num_sge > (int)WQE_DESC_MAX_SGE || inline_len < 0 ||
	    inline_len > (int)WQE_TEXT_MAX_INLINE ||
	    (num_sge && (!sge_addr || !sge_len || !sge_lkey)) ||
	    (inline_len && (!inline_data || num_sge)))
		return dpi_fail(msg, msgcap, WQE_DPI_EARG,
				"bad fields: opcode %d, flags 0x%x, %d SGEs, %d inline bytes "
				"(SGEs and inline exclude each other)",
				opcode, flags, num_sge, inline_len);
	/* The transport decides whether the UD fields apply. */
	rc = dpi_options(opts, DPI_ENCODE, &cfg, msg, msgcap);
	if (rc)
		return rc;
	w = calloc(1, sizeof(*w));
	if (!w)
		return dpi_fail(msg, msgcap, WQE_DPI_ENOMEM, "out of memory");
	w->wr.wr_id = wr_id;
	w->wr.opcode = (enum wqe_wr_opcode)opcode;
	w->wr.send_flags = flags;
	w->wr.sg_list = w->sge;
	w->wr.num_sge = num_sge;
	for (int i = 0; i < num_sge; i++)
		w->sge[i] = (struct wqe_sge){sge_addr[i], sge_len[i], sge_lkey[i]};
	if (inline_len) {
		w->wr.send_flags |= WQE_SEND_INLINE;
		w->sge[0].addr = (uint64_t)(uintptr_t)inline_data;
		w->sge[0].length = (uint32_t)inline_len;
		w->wr.num_sge = 1;
	}
	if (opcode == WQE_WR_SEND_WITH_INV)
		w->wr.invalidate_rkey = imm;
	else
		memcpy(&w->wr.imm_data, be, sizeof(be));
	if (is_atomic_wr(opcode)) {
		w->wr.wr.atomic.remote_addr = raddr;
		w->wr.wr.atomic.rkey = rkey;
		/* FAA's addend is compare_add, CAS's compare value too. */
		w->wr.wr.atomic.compare_add =
		    opcode == WQE_WR_ATOMIC_FETCH_AND_ADD ? swap_add : compare;
		w->wr.wr.atomic.swap = opcode == WQE_WR_ATOMIC_CMP_AND_SWP ? swap_add : 0;
	} else if (cfg.qp.qp_type == WQE_QPT_UD) {
		w->ah.attr.port_num = 1;
		w->wr.wr.ud.ah = &w->ah;
		w->wr.wr.ud.remote_qpn = dqpn;
		w->wr.wr.ud.remote_qkey = qkey;
	} else {
		w->wr.wr.rdma.remote_addr = raddr;
		w->wr.wr.rdma.rkey = rkey;
	}
	n = wqe_format_send_wr(&w->wr, cfg.qp.qp_type, w->line, sizeof(w->line));
	if (n < 0 || (size_t)n >= sizeof(w->line))
		rc = dpi_fail(msg, msgcap, WQE_DPI_EARG, "the fields do not make a request");
	else
		rc = wqe_dpi_encode(w->line, opts, wqe, cap, msg, msgcap);
	free(w);
	return rc;
}

int dpi_decode(const struct cli_encode_cfg *cfg, const unsigned char *wqe, int len,
	       struct wqe_desc *d, unsigned char *msg, int msgcap)
{
	struct wqe_decode_ctx ctx = {
	    .qp_type = cfg->qp.qp_type, .max_bytes = (uint32_t)len, .qpn = cfg->qp.qpn};
	enum wqe_decode_err de;

	if (!wqe || len <= 0)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "no WQE bytes");
	de = wqe_decode(cfg->fmt[0], &ctx, wqe, (size_t)len, d);
	if (de != WQE_DEC_OK)
		return dpi_fail(msg, msgcap, WQE_DPI_EWQE, "the decoder refuses the WQE: %s",
				wqe_decode_err_str(de));
	return 0;
}
