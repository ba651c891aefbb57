/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what the benchmarks share: a clock, the allocation counter, the
 * median, the machine line, a pair of contexts joined by a loopback link
 * with N connected RC QPs, and the callgrind region markers.
 *
 * Every figure a benchmark prints is a ratio against a baseline written in
 * the benchmark and measured in the same process, in alternating rounds:
 * the machine is shared and noisy, so absolute times are only context.
 */
#ifndef WQE_BENCH_H
#define WQE_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/link.h"
#include "wqe/verbs.h"

/* A function a profiler must find under its own name (callgrind's
 * --toggle-collect): never inlined, never cloned. */
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_NOINLINE __attribute__((noinline, noclone))
#else
#define BENCH_NOINLINE __attribute__((noinline))
#endif

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* Polls up to @max completions of @cq into @wc and returns how many; a
 * failed poll or a completion that is not a success ends the program with
 * status 1 and a message naming @prog. */
int bench_poll_ok(const char *prog, struct wqe_cq *cq, int max, struct wqe_wc *wc);

/*
 * The allocation counter. Every bench executable is linked with
 * -Wl,--wrap=malloc,calloc,realloc,free,posix_memalign (bench_alloc.c), so
 * each call libwqe makes to them is counted here.
 */
struct bench_allocs {
	uint64_t calls;         /* malloc + calloc + realloc + posix_memalign */
	uint64_t frees;         /* free of a non-NULL pointer */
	uint64_t live_bytes;    /* usable bytes currently allocated */
	uint64_t aligned_bytes; /* usable bytes ever returned by posix_memalign */
};
void bench_allocs_get(struct bench_allocs *a);
/* Byte accounting (malloc_usable_size on every call) is on at start, for
 * measuring setup; a benchmark turns it off before its timed loops so that
 * the interposer costs one increment per call. live_bytes and
 * aligned_bytes are meaningful only across a stretch where it stayed on. */
void bench_allocs_track_bytes(int on);

/* Median of @n values (sorts @v). */
double bench_median(double *v, int n);

/* "2 cores, <CPU model>, <date>" into @buf. */
void bench_machine(char *buf, size_t cap);

/* What a benchmark program was asked to do. */
enum bench_mode {
	BENCH_MEASURE,   /* no argument: the timed rounds and the table */
	BENCH_CALLGRIND, /* --callgrind [N]: bench/instructions.sh's regions */
	BENCH_PROFILE,   /* --profile [N]: the library alone, for a profiler */
};

/* Whether a mode takes a number after it. */
enum bench_num { BENCH_NUM_NONE, BENCH_NUM_OPTIONAL, BENCH_NUM_REQUIRED };

struct bench_usage {
	const char *text;          /* after the program name, e.g. "[--profile SIZE]" */
	enum bench_num callgrind_num;
	enum bench_num profile_num;
};

/*
 * The command line: returns the mode, *@num the number after it (0 if
 * none). --help prints the usage and exits 0; an unknown argument, a
 * missing, extra or malformed number (decimal, 1 to 2^32 - 1) prints the
 * usage to stderr and exits 2.
 */
enum bench_mode bench_args(int argc, char **argv, const struct bench_usage *u, uint32_t *num);

/* A pair of contexts A and B on one loopback link, N RC QPs on each side,
 * A's QP i connected to B's QP i. */
struct bench_side {
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *scq;
	struct wqe_cq *rcq;
	struct wqe_mr *mr;
	uint8_t *buf;
	struct wqe_qp **qp;
};

struct bench_pair {
	struct wqe_link *link;
	struct bench_side a, b;
	uint32_t nqp;
};

struct bench_pair_cfg {
	uint32_t nqp;
	uint32_t max_send_wr;
	uint32_t cq_depth;
	size_t buf_bytes;     /* one buffer per side, registered as one MR */
	enum wqe_mtu mtu;
	uint32_t max_recv_wr;     /* 0: 1 */
	uint32_t max_inline_data; /* 0: none asked for */
	enum wqe_nic_mode nic_mode; /* both contexts' */
};

/* Builds the pair (RC, all QPs in RTS). 0, or -1 with a message on stderr.
 * The same as bench_pair_open_ctx() then bench_pair_open_qps(). */
int bench_pair_open(struct bench_pair *p, const struct bench_pair_cfg *cfg);
/* The contexts, PDs, CQs, buffers, MRs and the link; no QP. */
int bench_pair_open_ctx(struct bench_pair *p, const struct bench_pair_cfg *cfg);
/* The cfg->nqp QP pairs, created and connected. */
int bench_pair_open_qps(struct bench_pair *p, const struct bench_pair_cfg *cfg);
void bench_pair_close(struct bench_pair *p);

/*
 * Callgrind regions: with valgrind's headers, bench_cg_on() turns
 * instruction collection on (bench/instructions.sh runs valgrind with
 * --collect-atstart=no), bench_cg_off() turns it off, and
 * bench_cg_dump(name) writes what was collected since the last dump as a
 * profile part named @name, so the script reads each region's total on its
 * own. Outside valgrind these cost a few instructions; without the
 * headers, nothing.
 */
void bench_cg_on(void);
/* 0 makes the three calls do nothing (a profiler run of the same
 * workload with --toggle-collect instead of client requests). */
void bench_cg_enable(int on);
void bench_cg_off(void);
void bench_cg_dump(const char *name);

#endif
