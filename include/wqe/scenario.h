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

/* Options of a run. Zero-initialise, then set what you need. */
struct wqe_scenario_opts {
	FILE *trace;          /* NULL: no trace; else the three shapes of every request */
	FILE *log;            /* NULL: quiet; else one line per statement run */
	const char *pcap;     /* every frame of every endpoint, one capture; NULL: none */
	int seed_set;         /* non-zero: @seed replaces the file's link seed */
	uint64_t seed;
	int format_set;       /* non-zero: every endpoint uses @format */
	enum wqe_format format;
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

#ifdef __cplusplus
}
#endif

#endif /* WQE_SCENARIO_H */
