/* SPDX-License-Identifier: MIT */
/*
 * sc_int.h - the scenario runner's own structures (private). The runner is
 * a client of the public API only: it sees what a verbs program sees.
 */
#ifndef WQE_SC_INT_H
#define WQE_SC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wqe/wqe.h"
#include "wqe/scenario.h"
#include "wqe/trace.h"

#define SC_NAME_MAX 32u
#define SC_MAX_OBJ 64u
#define SC_CANARY 64u
#define SC_CANARY_BYTE 0xa5

/* A word of a line: its text and where it starts. */
struct sc_word {
	const char *s;
	size_t len;
	uint32_t col;
	const char *eq; /* '=' inside the word, or NULL */
};

#define SC_MAX_WORDS 64u

struct sc_line {
	uint32_t no;
	const char *text; /* the whole line (not NUL-terminated) */
	size_t len;
	struct sc_word w[SC_MAX_WORDS];
	uint32_t nw;
};

enum sc_fill { FILL_ZERO, FILL_BYTE, FILL_PATTERN, FILL_BYTES };

struct sc_cqe {
	struct wqe_wc wc;
	bool matched;
};

struct sc_cqlist {
	struct sc_cqe *e;
	size_t n, cap, next;
};

struct sc_endpoint {
	char name[SC_NAME_MAX];
	uint8_t mac[6];
	union wqe_gid gid;
	enum wqe_format format;
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	uint64_t packets; /* frames sent (trace-counted) */
	struct sc_opnames {
		uint8_t *op;
		size_t n, cap;
	} ops;            /* wire opcodes sent, in order */
};

struct sc_qp {
	char name[SC_NAME_MAX];
	uint32_t ep;
	enum wqe_qp_type type;
	enum wqe_mtu mtu;
	struct wqe_qp_cap cap;
	int sig_all;
	uint32_t cq_depth;
	struct wqe_qp *qp;
	struct wqe_cq *scq, *rcq;
	struct sc_cqlist sent, recvd;
	struct wqe_ah *ah_to[SC_MAX_OBJ]; /* UD: address handles by destination QP */
	int peer;            /* RC/UC: the QP it is connected to, or -1 */
	size_t last_rx_req;  /* trace: request of the last packet it received, +1 (0: none) */
};

struct sc_region {
	char name[SC_NAME_MAX];
	uint32_t ep;
	uint64_t size;
	unsigned int access;
	enum sc_fill fill;
	uint64_t fill_arg;
	uint8_t *fill_bytes;
	size_t nfill;
	uint8_t *alloc;   /* canaries + region + canaries */
	uint8_t *base;
	struct wqe_mr *mr;
};

enum sc_kind {
	ST_ENDPOINT, ST_LINK, ST_QP, ST_MR, ST_CONNECT, ST_POST, ST_RECV, ST_RUN, ST_MODIFY,
	ST_EXPECT_CQE, ST_EXPECT_NO_CQE, ST_EXPECT_MEM, ST_EXPECT_CANARIES, ST_EXPECT_PACKETS,
	ST_EXPECT_OPCODES, ST_EXPECT_STATE, ST_EXPECT_STAT,
};

/* One statement: its line and its parsed arguments. */
struct sc_stmt {
	enum sc_kind kind;
	uint32_t line;
	int only_fmt;        /* 0: always; else 1 + the WQE format it runs on */
	char *text;          /* copy of the line (post/recv are parsed again at run time) */
	size_t req_off;      /* post: where the request starts in @text */
	size_t req_len;
	int a, b;            /* object indexes (QP, endpoint, region) */
	int queue;           /* 0 send, 1 recv */
	uint64_t n1, n2, n3; /* numbers: offsets, lengths, counts */
	int expect_errno;    /* post/recv: expected errno, 0 = must succeed */
	/* expect cqe: which fields are checked and their values */
	unsigned int cqe_mask;
	struct wqe_wc cqe;
	/* expect mem */
	int mem_mode;        /* 0 region, 1 bytes, 2 byte, 3 pattern */
	int reg2;
	uint64_t off2;
	uint8_t *bytes;
	size_t nbytes;
	/* expect opcodes / stat / state / modify */
	uint8_t *ops;
	size_t nops;
	char stat[32];
	enum wqe_qp_state state;
	/* connect */
	uint8_t timeout, retry, rnr_retry, min_rnr, rd_atomic;
	uint32_t psn;
	/* run */
	uint64_t steps, max_rounds;
	bool passed;         /* expectations: verdict of the last run */
	bool checked;
};

struct sc_trace_ctx {
	struct wqe_scenario *sc;
	uint32_t ep;
};

/* A posted send request, what became of it (trace and summary). */
struct sc_req {
	uint32_t line;
	uint32_t qp;
	uint32_t wqe_counter;   /* first block in the ring */
	uint32_t nblocks;
	int err;                /* post-time errno, 0 if accepted */
	char why[112];          /* post time: why it was refused */
	enum wqe_wr_opcode opcode;
	unsigned int send_flags; /* as posted (sig_all not included) */
	bool signaled;          /* as the WQE says (sig_all included) */
	bool is_inline;
	uint32_t wqe_bytes;     /* bytes of the WQE that carry meaning (ds x 16) */
	uint64_t length;        /* message length */
	uint32_t psn_first;     /* PSN of its first packet */
	bool has_psn;
	uint32_t fetch_blocks;  /* ring blocks read, every fetch (retries too) */
	uint32_t payload_reads; /* DMA reads of the payload, every fetch */
	uint32_t packets;       /* request packets sent, retransmissions included */
	uint32_t responses;     /* response packets received for it */
	bool check_failed;      /* a processing-time check refused it */
	enum wqe_check check;
	bool has_cqe;
	enum wqe_wc_status status;
	bool retired;           /* its ring blocks were reclaimed */
	bool settled;           /* the trace has said how it ended */
};

struct wqe_scenario {
	char *name;
	struct sc_endpoint ep[SC_MAX_OBJ];
	uint32_t nep;
	struct sc_qp qp[SC_MAX_OBJ];
	uint32_t nqp;
	struct sc_region reg[SC_MAX_OBJ];
	uint32_t nreg;
	struct sc_stmt *st;
	size_t nst, capst;
	bool has_link;
	struct wqe_fault_cfg faults;
	bool faulty;
	/* run state */
	struct wqe_link *loop, *link;
	const struct wqe_scenario_opts *opts;
	struct wqe_scenario_result res;
	struct wqe_text_wr req;   /* scratch, large */
	struct sc_req *reqs;
	size_t nreqs, capreqs;
	size_t settled_lo;        /* requests before it have all settled */
	struct wqe_pcap *pcap;
	bool ran;
	uint64_t now_ns;          /* the scenario's virtual clock */
	struct sc_trace_ctx tctx[SC_MAX_OBJ];
};

/* lex.c */
int sc_split(struct sc_line *l, const char *text, size_t len, uint32_t no,
	     struct wqe_scenario_err *err);
bool sc_word_is(const struct sc_word *w, const char *s);
int sc_key(const struct sc_word *w, const char *key); /* 1 if the word is key=... */
int sc_u64(const struct sc_word *w, const char *s, size_t len, uint64_t max, uint64_t *v,
	   struct wqe_scenario_err *err, uint32_t col);
int sc_hex(const char *s, size_t len, uint8_t **out, size_t *n);
int sc_fail(struct wqe_scenario_err *err, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* An expectation that does not hold: fills @err (column 0), returns 1. */
int sc_miss(struct wqe_scenario_err *err, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sc_find(const struct wqe_scenario *sc, const char *s, size_t len, int *kind);
void sc_pattern(uint8_t *p, uint64_t len, uint64_t seed, uint64_t start);

enum { OBJ_NONE = 0, OBJ_EP, OBJ_QP, OBJ_REG };

/* parse.c: helpers shared by the statement handlers */
const char *sc_val(const struct sc_word *w);
size_t sc_vlen(const struct sc_word *w);
int sc_num(const struct sc_line *l, const struct sc_word *w, uint64_t max, uint64_t *v,
	struct wqe_scenario_err *err);
int sc_check_keys(const struct sc_line *l, uint32_t first, const char *const *keys,
	       struct wqe_scenario_err *err);
const struct sc_word *sc_get(const struct sc_line *l, uint32_t first, const char *key);
int sc_need(const struct sc_line *l, uint32_t n, const char *what, struct wqe_scenario_err *err);
int sc_ref(struct wqe_scenario *sc, const struct sc_line *l, const struct sc_word *w, int want,
	struct wqe_scenario_err *err);
struct sc_stmt *sc_add(struct wqe_scenario *sc, enum sc_kind k, const struct sc_line *l);

/* parse.c: the declarations */
int sc_st_endpoint(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err);
int sc_st_link(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err);
int sc_st_qp(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err);
int sc_st_mr(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err);
int sc_st_connect(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err);

/* parse_expect.c: an "expect ..." line (the dispatcher's handler for
 * "expect"); the names of struct wqe_qp_stats' counters, in order,
 * NULL-terminated */
int sc_parse_expect(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err);
const char *const *sc_stat_names(void);

/* parse_actions.c: one line of a scenario file, and the names its requests
 * use (wqe_text_opts.resolve) */
int sc_parse_line(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err);
int sc_resolve(void *arg, const char *name, size_t len, enum wqe_text_ref kind, uint64_t *v);

/* run.c */
int sc_exec(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err);
void sc_poll_all(struct wqe_scenario *sc);

/* expect.c */
int sc_expect(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err);

/* trace.c: engine events, counted, captured and printed */
void sc_trace_event(void *arg, const struct wqe_trace_event *ev);
const char *sc_req_label(const struct wqe_scenario *sc, const struct sc_req *r, char *buf,
			 size_t cap);
/* trace_requests.c: the software side of the trace (the requests posted) */
void sc_req_record(struct wqe_scenario *sc, struct sc_req *r, const struct wqe_send_wr *wr);
void sc_trace_post(struct wqe_scenario *sc, const struct sc_stmt *st, const struct sc_req *r,
		   const struct wqe_send_wr *wr);
void sc_trace_recv(struct wqe_scenario *sc, const struct sc_stmt *st,
		   const struct wqe_send_wr *wr, int rc);
void sc_trace_run(struct wqe_scenario *sc, const struct sc_stmt *st);
/* wqe_scenario_opts.observe's post event for @r */
void sc_observe_post(struct wqe_scenario *sc, const struct sc_stmt *st, const struct sc_req *r,
		     const struct wqe_send_wr *wr);
void sc_settle(struct wqe_scenario *sc);

#endif
