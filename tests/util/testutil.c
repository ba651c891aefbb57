/* SPDX-License-Identifier: MIT */
#include "testutil.h"

#include "wqe/link.h"

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

unsigned long test_checks;
unsigned long test_failures;

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	test_failures++;
	if (test_failures > 50)
		return;
	fprintf(stderr, "FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int test_finish(void)
{
	printf("%lu passed, %lu failed\n", test_checks - test_failures, test_failures);
	return test_failures ? 1 : 0;
}

void test_hexdump(FILE *f, const char *label, const void *p, size_t n)
{
	const uint8_t *b = p;

	fprintf(f, "%s (%zu bytes):\n", label, n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x%s", b[i], (i % 16 == 15 || i + 1 == n) ? "\n" : (i % 4 == 3 ? "  " : " "));
}

int test_memdiff(const void *a, const void *b, size_t n, const char *file, int line,
		 const char *an, const char *bn)
{
	if (memcmp(a, b, n) == 0)
		return 0;
	if (test_failures < 50) {
		fprintf(stderr, "FAIL %s:%d: %s differs from %s\n", file, line, an, bn);
		test_hexdump(stderr, an, a, n);
		test_hexdump(stderr, bn, b, n);
	}
	return 1;
}

void test_rng_seed(struct test_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t test_rng_next(struct test_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t test_rng_below(struct test_rng *r, uint64_t n)
{
	return test_rng_next(r) % n;
}

uint64_t test_rng_edge(struct test_rng *r, unsigned int bits)
{
	uint64_t v = test_rng_next(r);
	uint64_t mask = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;

	switch (test_rng_below(r, 4)) {
	case 0: return 0;
	case 1: return v & 0xff & mask;
	case 2: return mask;
	default: return v & mask;
	}
}

void test_rng_fill(struct test_rng *r, void *p, size_t n)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)test_rng_next(r);
}

void test_qp_attr_for(enum wqe_qp_type t, enum wqe_qp_state next, struct wqe_qp_attr *a,
		      int *mask, uint32_t dest_qpn, enum wqe_mtu mtu)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = next;
	*mask = WQE_QP_STATE;
	switch (next) {
	case WQE_QPS_INIT:
		a->pkey_index = 0;
		a->port_num = 1;
		*mask |= WQE_QP_PKEY_INDEX | WQE_QP_PORT;
		if (t == WQE_QPT_UD) {
			a->qkey = 0x11111111;
			*mask |= WQE_QP_QKEY;
		} else {
			a->qp_access_flags = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ |
					     WQE_ACCESS_REMOTE_ATOMIC;
			*mask |= WQE_QP_ACCESS_FLAGS;
		}
		break;
	case WQE_QPS_RTR:
		if (t == WQE_QPT_UD)
			break;
		a->path_mtu = mtu;
		a->dest_qp_num = dest_qpn;
		a->rq_psn = 0x100;
		a->ah_attr.port_num = 1;
		a->ah_attr.grh.dgid.raw[10] = 0xff;
		a->ah_attr.grh.dgid.raw[11] = 0xff;
		a->ah_attr.grh.dgid.raw[12] = 192;
		a->ah_attr.grh.dgid.raw[14] = 2;
		a->ah_attr.grh.dgid.raw[15] = 2;
		a->ah_attr.dmac[0] = 0x02;
		a->ah_attr.dmac[5] = 0x02;
		*mask |= WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN;
		if (t == WQE_QPT_RC) {
			a->max_dest_rd_atomic = 4;
			a->min_rnr_timer = 12;
			*mask |= WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER;
		}
		break;
	case WQE_QPS_RTS:
		a->sq_psn = 0x100;
		*mask |= WQE_QP_SQ_PSN;
		if (t == WQE_QPT_RC) {
			a->timeout = 14;
			a->retry_cnt = 7;
			a->rnr_retry = 7;
			a->max_rd_atomic = 4;
			*mask |= WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT | WQE_QP_RNR_RETRY |
				 WQE_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	default:
		break;
	}
}

int test_fd_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

int test_fd_nonblock(int fd, int on)
{
	int fl = fd < 0 ? -1 : fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) < 0 ? -1 : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int test_wait_cq(struct wqe_context *a, struct wqe_context *b, struct wqe_cq *cq, int n,
		 struct wqe_wc *wc, double seconds)
{
	double end = now_s() + seconds;
	int got = 0;

	while (got < n && now_s() < end) {
		int r;

		wqe_progress(a);
		wqe_progress(b);
		r = wqe_poll_cq(cq, n - got, wc + got);
		if (r > 0)
			got += r;
	}
	return got;
}

int test_qp_to_rts(struct wqe_qp *qp, enum wqe_qp_type t, uint32_t dest_qpn, enum wqe_mtu mtu)
{
	static const enum wqe_qp_state steps[] = {WQE_QPS_INIT, WQE_QPS_RTR, WQE_QPS_RTS};

	for (size_t i = 0; i < 3; i++) {
		struct wqe_qp_attr a;
		int mask, err;

		test_qp_attr_for(t, steps[i], &a, &mask, dest_qpn, mtu);
		err = wqe_modify_qp(qp, &a, mask);
		if (err)
			return err;
	}
	return 0;
}

enum wqe_format test_format(void)
{
	const char *f = getenv("WQE_TEST_FORMAT");

	if (f && !strcmp(f, "rxe"))
		return WQE_FORMAT_RXE;
	return WQE_FORMAT_MLX5;
}

void test_reg4(struct test_mrs *m, struct wqe_pd *pa, struct wqe_pd *pb, uint8_t *const buf[4],
	       size_t len, unsigned a_access, unsigned b_access)
{
	m->a_src = wqe_reg_mr(pa, buf[0], len, a_access);
	m->a_dst = wqe_reg_mr(pa, buf[1], len, a_access);
	m->b_src = wqe_reg_mr(pb, buf[2], len, b_access);
	m->b_dst = wqe_reg_mr(pb, buf[3], len, b_access);
	CHECK(m->a_src && m->a_dst && m->b_src && m->b_dst);
}

void test_unreg4(struct test_mrs *m)
{
	wqe_dereg_mr(m->a_src);
	wqe_dereg_mr(m->a_dst);
	wqe_dereg_mr(m->b_src);
	wqe_dereg_mr(m->b_dst);
}

void test_fill4(struct test_rng *r, uint8_t *const buf[4], size_t len, uint8_t canary)
{
	test_rng_fill(r, buf[0], len);
	test_rng_fill(r, buf[2], len);
	memset(buf[1], canary, len);
	memset(buf[3], canary, len);
}

size_t test_canary_damage(const uint8_t *buf, size_t region, size_t off, size_t len,
			  uint8_t canary)
{
	size_t bad = 0;

	for (size_t i = 0; i < region; i++)
		if ((i < off || i >= off + len) && buf[i] != canary)
			bad++;
	return bad;
}
