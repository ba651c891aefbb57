/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the subcommands of the wqe tool share (private to the tool).
 * The tool uses the public headers only.
 */
#ifndef WQE_CLI_H
#define WQE_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wqe/desc.h"
#include "wqe/model.h"
#include "wqe/text.h"
#include "wqe/types.h"
#include "wqe/verbs.h"

/* Exit codes: success, a refused WQE or capture, bad usage or input. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Default QP number of encode and demo (as in mlx5-send-path.md section 2). */
#define CLI_DEFAULT_QPN 0x000123u

/* One subcommand. */
struct cli_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	void (*usage)(FILE *f);
};

int cmd_encode(int argc, char **argv);
void usage_encode(FILE *f);
int cmd_decode(int argc, char **argv);
void usage_decode(FILE *f);
int cmd_sizes(int argc, char **argv);
void usage_sizes(FILE *f);
int cmd_run(int argc, char **argv);
void usage_run(FILE *f);
int cmd_demo(int argc, char **argv);
void usage_demo(FILE *f);
/* The demo's last part: one request in the mlx5 and rxe shapes. 0 or -1. */
int demo_two_shapes(void);
/* That request encoded in @fmt: its bytes (static, valid until the next
 * call) and length. 0 or -1. */
int demo_shape_encode(enum wqe_format fmt, const uint8_t **wqe, uint32_t *len);
/* That request's text. */
const char *demo_shape_request(void);
int cmd_dissect(int argc, char **argv);
void usage_dissect(FILE *f);
int cmd_peer(int argc, char **argv);
void usage_peer(FILE *f);
int cmd_exec(int argc, char **argv);
void usage_exec(FILE *f);

/* wqe peer's out-of-band channel (peer_oob.c). */

/* CLOCK_MONOTONIC in nanoseconds (the clock contexts use by default). */
uint64_t cli_now_ns(void);

/* An IPv4 or IPv6 address as given, and as a GID (::ffff:a.b.c.d for IPv4). */
struct cli_addr {
	int family; /* AF_INET or AF_INET6 */
	union wqe_gid gid;
	char text[46];
};
/* Parses an address literal: 0, or -1. */
int cli_parse_addr(const char *s, struct cli_addr *a);

#define CLI_OOB_LINE 512
/* One TCP connection carrying lines; every wait ends at @deadline. */
struct cli_oob {
	int fd;		   /* -1 when closed */
	uint64_t deadline; /* cli_now_ns() time */
	const char *who;   /* "client" or "server", in messages */
	char buf[CLI_OOB_LINE];
	size_t len;
};
/* Prints "wqe peer (WHO): MSG" to stderr; returns -1. */
int cli_oob_fail(const struct cli_oob *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Server: listen on @local:@port, take one client. 0 or -1 (reported). */
int cli_oob_accept(struct cli_oob *o, const struct cli_addr *local, uint16_t port);
/* Client: connect to @remote:@port, retrying until the server listens. */
int cli_oob_dial(struct cli_oob *o, const struct cli_addr *remote, uint16_t port);
/* Sends one formatted line (with its newline). 0 or -1 (reported). */
int cli_oob_send(struct cli_oob *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Takes what the connection has without blocking and moves one whole line,
 * without its newline, to @line (CLI_OOB_LINE bytes). 1: a line; 0: none
 * yet; -1: the connection closed, the line is too long or holds a byte
 * that is not printable ASCII (reported, the byte by its value only).
 */
int cli_oob_poll_line(struct cli_oob *o, char *line);
void cli_oob_close(struct cli_oob *o);
/* The text after "KEY=" in a line of words, or NULL. */
const char *cli_kv(const char *line, const char *key);
/* KEY's value as a number (decimal or 0x) at most @max: 0, or -1. */
int cli_kv_u64(const char *line, const char *key, uint64_t max, uint64_t *v);
int cli_kv_u32(const char *line, const char *key, uint32_t max, uint32_t *v);
/* KEY's value as a word into @out (@cap bytes): 0, or -1. */
int cli_kv_word(const char *line, const char *key, char *out, size_t cap);

/*
 * Option matching for "--name VALUE" and "--name=VALUE": returns 1 and sets
 * *@value (advancing *@i past a separate value), 0 if argv[*@i] is not
 * @name, -1 if the value is missing (a message is printed).
 */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **value);
/* cli_opt() that prints nothing: a missing value is -1 with @msg filled. */
int cli_opt_msg(int argc, char **argv, int *i, const char *name, const char **value, char *msg,
		size_t cap);
/* 1 if @arg is "-h" or "--help". */
int cli_is_help(const char *arg);
/* Prints "wqe CMD: MSG" and the usage of @cmd to stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, void (*usage)(FILE *f), const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A number in decimal or 0x hex, at most @max: 0, or -1 (nothing consumed). */
int cli_parse_u32(const char *s, uint32_t max, uint32_t *v);
/* "rc", "uc" or "ud" (any case): 0 or -1. */
int cli_parse_qp(const char *s, enum wqe_qp_type *t);
/* "mlx5" or "rxe": 0 or -1. */
int cli_parse_format(const char *s, enum wqe_format *fmt);
/* Most formats one command shows side by side. */
#define CLI_MAX_FORMATS 2
/* A comma list of distinct formats ("mlx5,rxe"): 0 with *@n set, or -1. */
int cli_parse_formats(const char *s, enum wqe_format fmt[CLI_MAX_FORMATS], size_t *n);

/* The largest inline payload (one SGE) whose WQE wqe_encoded_size() puts
 * in at most @limit bytes, searched up to 1008 (sizes.c). */
uint32_t cli_max_inline_within(enum wqe_format fmt, enum wqe_qp_type t, enum wqe_wr_opcode op,
			       uint32_t limit);
/* The rxe part of `wqe sizes` (sizes_rxe.c): CLI_OK or CLI_FAIL. */
int cli_sizes_rxe(void);
/* Lower-case transport name: "rc", "uc", "ud". */
const char *cli_qp_name(enum wqe_qp_type t);

/* A GID as its address: a.b.c.d for ::ffff:a.b.c.d, else IPv6 text. */
void cli_gid_str(const union wqe_gid *g, char *buf, size_t cap);

/* Reads all of @f into a NUL-terminated heap buffer; NULL on error. */
char *cli_read_all(FILE *f, size_t *len);

/* Prints @n bytes as one lowercase hex string and a newline. */
void cli_print_hex(FILE *f, const uint8_t *p, size_t n);

/* The operation of a Work Request opcode: 0, or -1 for an unknown one. */
int cli_op_of_wr(enum wqe_wr_opcode wr_op, enum wqe_op *op);
/* The Work Request opcode of an operation. */
enum wqe_wr_opcode cli_wr_of_op(enum wqe_op op);

/* A request checked against a QP as wqe_post_send() checks it. */
struct cli_check {
	enum wqe_qp_type qp_type;
	uint32_t max_send_sge;
	uint32_t max_inline_data;
};

/*
 * The pure post-time checks of wqe_post_send() (opcode legal on the
 * transport, SGE count, total length, inline, atomic operand): 0, or -1
 * with @msg filled and *@key naming the key the problem is about ("" for
 * the opcode) and *@nth which occurrence of it (for sge=).
 */
int cli_check_request(const struct cli_check *qp, const struct wqe_send_wr *wr, char *msg,
		      size_t cap, const char **key, int *nth);
/* The 1-based column of the @nth (1-based) "KEY=" token in @line, or of the
 * opcode when @key is "". 1 if not found. */
uint32_t cli_key_column(const char *line, size_t len, const char *key, int nth);

/* Receive WQEs (recv.c). */
struct cli_recv_cfg {
	enum wqe_format fmt[CLI_MAX_FORMATS]; /* shown one after the other */
	size_t nfmt;
	uint32_t max_recv_sge; /* sizes the slot (wqe_calc_rq) */
	int raw;               /* one hex line per slot (one format) */
};
/* The receive slot of a QP with @max_recv_sge SGEs (wqe_calc_rq): 0 or -1. */
int cli_recv_slot_bytes(enum wqe_format fmt, uint32_t max_recv_sge, uint32_t *slot);
/* The same with the refusal in @msg: "no mlx5 receive queue takes ...".
 * (recv_check.c, shared with libwqe_dpi) */
int cli_recv_slot(enum wqe_format fmt, uint32_t max_recv_sge, uint32_t *slot, char *msg,
		  size_t cap);
/* The checks of wqe_post_recv() of the parsed receive request @wr (from
 * @line, @len bytes) on a QP of @max_recv_sge SGEs: 0, or -1 with @msg
 * filled and *@col the 1-based column the problem is about. */
int cli_recv_check(uint32_t max_recv_sge, const char *line, size_t len,
		   const struct wqe_recv_wr *wr, char *msg, size_t cap, uint32_t *col);
/* wqe encode of receive request lines in @buf (@input names it in errors):
 * a CLI_* exit status, everything printed or (on an error) nothing. */
int cli_encode_recv(const struct cli_recv_cfg *cfg, const char *buf, size_t len,
		    const char *input);
/* wqe decode --recv: @n bytes (whole slots of @slot bytes) -> each decoded
 * receive WQE, or (@request) its request line. A CLI_* exit status: 1 if
 * the decoder refuses a slot (its error printed, nothing else). */
int cli_decode_recv(enum wqe_format fmt, uint32_t slot, int request, const uint8_t *b, size_t n);

#endif /* WQE_CLI_H */
