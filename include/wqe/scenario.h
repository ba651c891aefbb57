/* SPDX-License-Identifier: MIT */
/*
 * wqe/scenario.h - scenario files: self-checking tests of the model
 * (docs/scenario-format.md has the grammar).
 *
 * A scenario is parsed completely before anything runs: a malformed file
 * is refused with its line, column and what was expected, and nothing is
 * created or written. Running it builds the endpoints, posts, runs the
 * engine and checks every expectation in file order, stopping at the first
 * that fails.
 *
 * Threading: a scenario object is used by one thread at a time.
 */
#ifndef WQE_SCENARIO_H
#define WQE_SCENARIO_H

#include <stdint.h>
#include <stdio.h>

#include "wqe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct wqe_scenario;

/* Why a file was refused (parse) or which expectation failed (run). */
struct wqe_scenario_err {
	uint32_t line;   /* 1-based */
	uint32_t column; /* 1-based; 0 for run-time failures */
	char msg[512];
};

/*
 * wqe_scenario_parse - parse the text of a scenario.
 * @name: the file name used in messages.
 * @text, @len: the file's bytes (need not be NUL-terminated).
 * Returns the scenario, or NULL with *@err filled (errno EINVAL), or NULL
 * with errno ENOMEM.
 */
WQE_API struct wqe_scenario *wqe_scenario_parse(const char *name, const char *text, size_t len,
						struct wqe_scenario_err *err);

/* Frees @sc (and everything a run created). */
WQE_API void wqe_scenario_free(struct wqe_scenario *sc);

struct wqe_send_wr;
struct wqe_trace_event;

/* What an observer of a run is shown (wqe_scenario_opts.observe). */
enum wqe_scenario_ev_kind {
	WQE_SCENARIO_EV_POST = 0, /* a send request was posted (accepted or refused) */
	WQE_SCENARIO_EV_NIC,      /* an engine event of one endpoint (wqe/trace.h) */
};

/*
 * One event of a run. Pointers are valid during the observer's call only.
 * Requests are numbered as the trace and the summary number them (#N is
 * @request N - 1); endpoints and QPs in the order the file declares them
 * (wqe_scenario_endpoint(), wqe_scenario_qp()).
 */
struct wqe_scenario_event {
	enum wqe_scenario_ev_kind kind;
	uint64_t time_ns;      /* the scenario's virtual clock */
	uint32_t endpoint;
	int32_t qp;            /* the QP it concerns, or -1 */
	int32_t request;       /* the send request it belongs to, or -1 */
	/* NIC, a frame sent (WQE_TRACE_TX): its 0-based index among every frame
	 * every endpoint sent, which is its index in the run's capture
	 * (opts.pcap); -1 for every other event */
	int64_t frame_index;
	/* The QP's send ring after the event: blocks between the consumer and
	 * the producer counter, and its size in blocks (both 0 when @qp < 0) */
	uint32_t sq_used;
	uint32_t sq_blocks;
	/* NIC: the engine's event as wqe/trace.h gives it */
	const struct wqe_trace_event *nic;
	/* POST */
	uint32_t line;                /* line of the post statement */
	const char *text;             /* the request as written (not NUL-terminated) */
	size_t text_len;
	const struct wqe_send_wr *wr; /* the software Work Request as posted */
	int err;                      /* wqe_post_send()'s result: 0 accepted */
	const char *why;              /* refused: why, in words ("" otherwise) */
	enum wqe_format format;       /* the format of the QP's WQEs */
	enum wqe_qp_type qp_type;
	uint32_t qpn;
	const uint8_t *wqe;           /* accepted: its ring blocks, contiguous; else NULL */
	uint32_t wqe_len;             /* blocks x 64 */
	uint32_t wqe_counter;         /* the producer counter of its first block */
};

typedef void (*wqe_scenario_observe_fn)(void *arg, const struct wqe_scenario_event *ev);

/* Options of a run. Zero-initialise, then set what you need. */
struct wqe_scenario_opts {
	FILE *trace;          /* NULL: no trace; else the three shapes of every request */
	FILE *log;            /* NULL: quiet; else one line per statement run */
	const char *pcap;     /* every frame of every endpoint, one capture; NULL: none */
	int seed_set;         /* non-zero: @seed replaces the file's link seed */
	uint64_t seed;
	int format_set;       /* non-zero: every endpoint uses @format */
	enum wqe_format format;
	/* NULL: none; else called for every post and engine event, in order,
	 * on the caller's thread, inside wqe_scenario_run(); it must not call
	 * back into @sc */
	wqe_scenario_observe_fn observe;
	void *observe_arg;
};

/* What a run did. */
struct wqe_scenario_result {
	uint32_t statements;    /* statements executed */
	uint32_t expectations;  /* expectations checked */
	uint32_t passed;        /* of those, passed */
	uint32_t posts;         /* requests posted (accepted or refused) */
	uint64_t packets;       /* frames sent by all endpoints */
	uint64_t cqes;          /* completions polled */
};

/*
 * wqe_scenario_run - run @sc once.
 * Returns 0 when every expectation holds; 1 with *@err naming the first
 * that does not (line, expected and actual); -1 with *@err when the run
 * could not be carried out (a resource could not be created, the pcap file
 * could not be written). The pcap file is written completely or not at
 * all (it is written under a temporary name and renamed at the end).
 */
WQE_API int wqe_scenario_run(struct wqe_scenario *sc, const struct wqe_scenario_opts *opts,
			     struct wqe_scenario_result *res, struct wqe_scenario_err *err);

/*
 * wqe_scenario_write_json - after a run, write what it did as one JSON
 * object: every completion (endpoint, QP, queue, wr_id, status, opcode,
 * byte_len, immediate), every QP's counters, every expectation with its
 * line and verdict, the result. Returns 0 or -1 (write error).
 */
WQE_API int wqe_scenario_write_json(const struct wqe_scenario *sc, FILE *f);

/*
 * wqe_scenario_print_summary - after a run, print one row per send request
 * posted, in order: line, QP, transport, opcode, flags (F fence, S
 * signaled, E solicited, I inline), WQE bytes and ring blocks, inline or
 * DMA, host-memory transactions (WQE blocks fetched + payload reads),
 * request packets sent, and the completion status or why there was none
 * (refused at post time and why, unsignaled, still outstanding).
 * Returns 0, or -1 (NULL argument or a write error).
 */
WQE_API int wqe_scenario_print_summary(const struct wqe_scenario *sc, FILE *f);

/* An endpoint of a scenario, as declared (and, after a run, as run). */
struct wqe_scenario_endpoint_info {
	const char *name;       /* valid as long as the scenario */
	union wqe_gid gid;
	uint8_t mac[6];
	enum wqe_format format; /* after a run: the format it ran with */
};
/* Fills *@out for endpoint @i: 0, or -1 (NULL argument or no such endpoint). */
WQE_API int wqe_scenario_endpoint(const struct wqe_scenario *sc, uint32_t i,
				  struct wqe_scenario_endpoint_info *out);

/* A queue pair of a scenario. */
struct wqe_scenario_qp_info {
	const char *name;  /* valid as long as the scenario */
	uint32_t endpoint; /* index for wqe_scenario_endpoint() */
	enum wqe_qp_type type;
	uint32_t qpn;      /* 0 until a run has created it */
};
/* Fills *@out for QP @i: 0, or -1 (NULL argument or no such QP). */
WQE_API int wqe_scenario_qp(const struct wqe_scenario *sc, uint32_t i,
			    struct wqe_scenario_qp_info *out);

/* One row of wqe_scenario_print_summary(), its cells as text. */
struct wqe_scenario_row {
	uint32_t line;
	const char *qp;        /* the QP's name */
	const char *transport; /* "RC", "UC", "UD" */
	const char *opcode;    /* wqe_wr_opcode_str() */
	char flags[5];         /* F S E I, '-' where not set */
	char wqe[16];          /* "bytes/blocks", "-" if refused */
	const char *data;      /* "inline", "DMA", "none" */
	char txns[24];         /* "blocks+reads=total", "-" if never fetched */
	uint32_t packets;
	char completion[192];
};
/* Fills *@out for request @i (0-based) of the last run: 0, or -1 (NULL
 * argument or no such request). */
WQE_API int wqe_scenario_summary_row(const struct wqe_scenario *sc, size_t i,
				     struct wqe_scenario_row *out);
/* The legend printed under the summary's rows (static, several lines). */
WQE_API const char *wqe_scenario_summary_legend(void);

#ifdef __cplusplus
}
#endif

#endif /* WQE_SCENARIO_H */
