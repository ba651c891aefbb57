/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - the small harness every C test uses.
 *
 * CHECK(cond) and CHECK_EQ(a, b) record a failure with file:line and carry
 * on; a test's main() ends with `return test_finish();`, which prints
 * "N passed, N failed" and returns 0 only if nothing failed. Exit code 77
 * is never used: an oracle that is missing is a failure, not a skip.
 */
#ifndef WQE_TESTUTIL_H
#define WQE_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern unsigned long test_checks;
extern unsigned long test_failures;

void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int test_finish(void);

#define CHECK(cond)                                                                  \
	do {                                                                         \
		test_checks++;                                                       \
		if (!(cond))                                                         \
			test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);           \
	} while (0)

#define CHECK_EQ(a, b)                                                               \
	do {                                                                         \
		unsigned long long check_a_ = (unsigned long long)(a);               \
		unsigned long long check_b_ = (unsigned long long)(b);               \
		test_checks++;                                                       \
		if (check_a_ != check_b_)                                            \
			test_fail(__FILE__, __LINE__, "%s == %s: 0x%llx != 0x%llx",  \
				  #a, #b, check_a_, check_b_);                       \
	} while (0)

#define CHECK_MEM(a, b, n)                                                           \
	do {                                                                         \
		test_checks++;                                                       \
		if (test_memdiff((a), (b), (n), __FILE__, __LINE__, #a, #b))         \
			test_failures++;                                             \
	} while (0)

/* Compares @n bytes; on a difference prints both hex dumps and returns 1. */
int test_memdiff(const void *a, const void *b, size_t n, const char *file, int line,
		 const char *an, const char *bn);

/* Prints @n bytes as hex, 16 per line, with @label. */
void test_hexdump(FILE *f, const char *label, const void *p, size_t n);

/* A seeded, reproducible PRNG (splitmix64). */
struct test_rng {
	uint64_t s;
};
void test_rng_seed(struct test_rng *r, uint64_t seed);
uint64_t test_rng_next(struct test_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t test_rng_below(struct test_rng *r, uint64_t n);
/* A value of @bits bits (1 to 64) that is often an edge: 0, a small one
 * or all ones, each a quarter of the time; otherwise any. */
uint64_t test_rng_edge(struct test_rng *r, unsigned int bits);
void test_rng_fill(struct test_rng *r, void *p, size_t n);


/* Verbs helpers shared by the tests. */
#include "test_gid.h"
#include "wqe/verbs.h"

/*
 * The WQE format a test's contexts use: WQE_FORMAT_MLX5, or the format
 * named by the environment variable WQE_TEST_FORMAT ("mlx5" or "rxe"), so
 * CTest runs the same tests once per format.
 */
enum wqe_format test_format(void);

/* 1 if @fd polls readable now (timeout 0), else 0. */
int test_fd_readable(int fd);
/* Sets (@on 1) or clears O_NONBLOCK on @fd. 0 or -1. */
int test_fd_nonblock(int fd, int on);

/* Progress on contexts @a and @b (in turn) until @cq has @n completions or
 * @seconds of real time passed; returns how many were written to @wc. */
int test_wait_cq(struct wqe_context *a, struct wqe_context *b, struct wqe_cq *cq, int n,
		 struct wqe_wc *wc, double seconds);

/* Moves @qp RESET -> INIT -> RTR -> RTS with every required attribute.
 * Returns 0 or the first failing errno. */
int test_qp_to_rts(struct wqe_qp *qp, enum wqe_qp_type t, uint32_t dest_qpn, enum wqe_mtu mtu);

/* test_gid_v4(), test_gid_v6(): test_gid.h. */

/* Fills the attributes each transition needs for @t (all other fields 0). */
void test_qp_attr_for(enum wqe_qp_type t, enum wqe_qp_state next, struct wqe_qp_attr *a,
		      int *mask, uint32_t dest_qpn, enum wqe_mtu mtu);

/* The four regions the operation tests move bytes between, registered:
 * A's source and destination, B's source and destination. */
struct test_mrs {
	struct wqe_mr *a_src, *a_dst, *b_src, *b_dst;
};

/* Registers @buf[0..3] (A's source, A's destination, B's source, B's
 * destination) of @len bytes each on @pa (A's, with @a_access) and @pb
 * (B's, with @b_access); a failure is a CHECK failure. */
void test_reg4(struct test_mrs *m, struct wqe_pd *pa, struct wqe_pd *pb, uint8_t *const buf[4],
	       size_t len, unsigned a_access, unsigned b_access);
void test_unreg4(struct test_mrs *m);
/* The sources (@buf[0] and @buf[2]) random from @r, the destinations
 * (@buf[1] and @buf[3]) all @canary. */
void test_fill4(struct test_rng *r, uint8_t *const buf[4], size_t len, uint8_t canary);
/* How many bytes of @buf[0, region) outside [off, off + len) are not
 * @canary. */
size_t test_canary_damage(const uint8_t *buf, size_t region, size_t off, size_t len,
			  uint8_t canary);

#endif
