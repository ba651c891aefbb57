/* SPDX-License-Identifier: MIT */
/* Helpers the subcommands share: options, numbers, input, checks. */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_opt_msg(int argc, char **argv, int *i, const char *name, const char **value, char *msg,
		size_t cap)
{
	const char *arg = argv[*i];
	size_t n = strlen(name);

	if (strncmp(arg, name, n) != 0)
		return 0;
	if (arg[n] == '=') {
		*value = arg + n + 1;
		return 1;
	}
	if (arg[n] != '\0')
		return 0;
	if (*i + 1 >= argc) {
		snprintf(msg, cap, "option %s needs a value", name);
		return -1;
	}
	*value = argv[++*i];
	return 1;
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char **value)
{
	char msg[128];
	int m = cli_opt_msg(argc, argv, i, name, value, msg, sizeof(msg));

	if (m < 0)
		fprintf(stderr, "wqe: %s\n", msg);
	return m;
}

int cli_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cli_usage_error(const char *cmd, void (*usage)(FILE *f), const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "wqe %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (usage)
		usage(stderr);
	return CLI_USAGE;
}

int cli_parse_u32(const char *s, uint32_t max, uint32_t *v)
{
	uint64_t x = 0;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			return -1;
		x = x * (uint64_t)base + (uint64_t)d;
		if (x > max)
			return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

int cli_parse_qp(const char *s, enum wqe_qp_type *t)
{
	if (strcmp(s, "rc") == 0 || strcmp(s, "RC") == 0)
		*t = WQE_QPT_RC;
	else if (strcmp(s, "uc") == 0 || strcmp(s, "UC") == 0)
		*t = WQE_QPT_UC;
	else if (strcmp(s, "ud") == 0 || strcmp(s, "UD") == 0)
		*t = WQE_QPT_UD;
	else
		return -1;
	return 0;
}

int cli_parse_format(const char *s, enum wqe_format *fmt)
{
	if (strcmp(s, "mlx5") == 0)
		*fmt = WQE_FORMAT_MLX5;
	else if (strcmp(s, "rxe") == 0)
		*fmt = WQE_FORMAT_RXE;
	else
		return -1;
	return 0;
}

int cli_parse_formats(const char *s, enum wqe_format fmt[CLI_MAX_FORMATS], size_t *n)
{
	char one[8];
	size_t k = 0;

	*n = 0;
	while (*s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (len >= sizeof(one) || *n == CLI_MAX_FORMATS)
			return -1;
		memcpy(one, s, len);
		one[len] = '\0';
		if (cli_parse_format(one, &fmt[*n]))
			return -1;
		for (k = 0; k < *n; k++)
			if (fmt[k] == fmt[*n])
				return -1;
		(*n)++;
		s += len;
		if (*s == ',' && !*++s)
			return -1;
	}
	return *n ? 0 : -1;
}

const char *cli_qp_name(enum wqe_qp_type t)
{
	switch (t) {
	case WQE_QPT_RC: return "rc";
	case WQE_QPT_UC: return "uc";
	case WQE_QPT_UD: return "ud";
	}
	return "?";
}

char *cli_read_all(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap), *bigger;

	while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 > 0)
			continue;
		bigger = realloc(buf, cap * 2);
		if (!bigger) {
			free(buf);
			return NULL;
		}
		buf = bigger;
		cap *= 2;
	}
	if (!buf || ferror(f)) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

void cli_print_hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('\n', f);
}

static const struct {
	enum wqe_wr_opcode wr;
	enum wqe_op op;
} op_map[] = {
	{WQE_WR_SEND, WQE_OP_SEND},
	{WQE_WR_SEND_WITH_IMM, WQE_OP_SEND_WITH_IMM},
	{WQE_WR_SEND_WITH_INV, WQE_OP_SEND_WITH_INV},
	{WQE_WR_RDMA_WRITE, WQE_OP_RDMA_WRITE},
	{WQE_WR_RDMA_WRITE_WITH_IMM, WQE_OP_RDMA_WRITE_WITH_IMM},
	{WQE_WR_RDMA_READ, WQE_OP_RDMA_READ},
	{WQE_WR_ATOMIC_CMP_AND_SWP, WQE_OP_ATOMIC_CMP_AND_SWP},
	{WQE_WR_ATOMIC_FETCH_AND_ADD, WQE_OP_ATOMIC_FETCH_AND_ADD},
};

int cli_op_of_wr(enum wqe_wr_opcode wr_op, enum wqe_op *op)
{
	for (size_t i = 0; i < sizeof(op_map) / sizeof(op_map[0]); i++) {
		if (op_map[i].wr == wr_op) {
			*op = op_map[i].op;
			return 0;
		}
	}
	return -1;
}

enum wqe_wr_opcode cli_wr_of_op(enum wqe_op op)
{
	for (size_t i = 0; i < sizeof(op_map) / sizeof(op_map[0]); i++)
		if (op_map[i].op == op)
			return op_map[i].wr;
	return WQE_WR_SEND;
}

static const char *legal_list(enum wqe_qp_type t)
{
	switch (t) {
	case WQE_QPT_RC: return "all eight operations";
	case WQE_QPT_UC: return "SEND, SEND_WITH_IMM, RDMA_WRITE and RDMA_WRITE_WITH_IMM";
	case WQE_QPT_UD: return "SEND and SEND_WITH_IMM";
	}
	return "nothing";
}

static int check_atomic(const struct wqe_send_wr *wr, char *msg, size_t cap, const char **key)
{
	if (wr->num_sge != 1) {
		snprintf(msg, cap, "an atomic takes exactly one SGE (its 8-byte result), not %d",
			 wr->num_sge);
		*key = wr->num_sge ? "sge" : "";
		return -1;
	}
	if (wr->sg_list[0].length != 8) {
		snprintf(msg, cap, "an atomic's SGE must be 8 bytes long, not %" PRIu32,
			 wr->sg_list[0].length);
		*key = "sge";
		return -1;
	}
	if (wr->wr.atomic.remote_addr & 7) {
		snprintf(msg, cap, "an atomic's remote address 0x%" PRIx64 " is not 8-byte aligned",
			 wr->wr.atomic.remote_addr);
		*key = "raddr";
		return -1;
	}
	return 0;
}

int cli_check_request(const struct cli_check *qp, const struct wqe_send_wr *wr, char *msg,
		      size_t cap, const char **key, int *nth)
{
	uint64_t total = 0;
	enum wqe_op op = WQE_OP_COUNT;

	*key = "";
	*nth = 1;
	if (cli_op_of_wr(wr->opcode, &op) || !wqe_op_legal(op, qp->qp_type)) {
		snprintf(msg, cap, "%s is not legal on a %s QP, which takes %s", wqe_op_str(op),
			 wqe_qp_type_str(qp->qp_type), legal_list(qp->qp_type));
		return -1;
	}
	if ((uint32_t)wr->num_sge > qp->max_send_sge) {
		snprintf(msg, cap, "%d SGEs, but the QP takes at most %" PRIu32 " (--max-sge)",
			 wr->num_sge, qp->max_send_sge);
		*key = "sge";
		*nth = (int)qp->max_send_sge + 1;
		return -1;
	}
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > (1ull << 31)) {
		snprintf(msg, cap, "a message of %" PRIu64 " bytes is over 2^31", total);
		*key = "sge";
		return -1;
	}
	if ((wr->send_flags & WQE_SEND_INLINE) && !wqe_op_inline_ok(op)) {
		snprintf(msg, cap, "%s cannot carry inline data", wqe_op_str(op));
		*key = "inline";
		return -1;
	}
	if ((wr->send_flags & WQE_SEND_INLINE) && total > qp->max_inline_data) {
		snprintf(msg, cap,
			 "inline payload of %" PRIu64 " bytes is over max_inline_data %" PRIu32
			 " (--max-inline)",
			 total, qp->max_inline_data);
		*key = "inline";
		return -1;
	}
	if (op == WQE_OP_ATOMIC_CMP_AND_SWP || op == WQE_OP_ATOMIC_FETCH_AND_ADD)
		return check_atomic(wr, msg, cap, key);
	return 0;
}

uint32_t cli_key_column(const char *line, size_t len, const char *key, int nth)
{
	size_t klen = strlen(key);
	int seen = 0;

	for (size_t i = 0; i < len && line[i] != '#'; i++) {
		if (isspace((unsigned char)line[i]) || (i && !isspace((unsigned char)line[i - 1])))
			continue;
		if (!klen)
			return (uint32_t)i + 1;
		if (len - i > klen && memcmp(line + i, key, klen) == 0 && line[i + klen] == '=' &&
		    ++seen == nth)
			return (uint32_t)i + 1;
	}
	return 1;
}

void cli_gid_str(const union wqe_gid *g, char *buf, size_t cap)
{
	char a[INET6_ADDRSTRLEN];

	if (wqe_gid_is_v4(g))
		inet_ntop(AF_INET, g->raw + 12, a, sizeof(a));
	else
		inet_ntop(AF_INET6, g->raw, a, sizeof(a));
	snprintf(buf, cap, "%s", a);
}
