/* SPDX-License-Identifier: MIT */
#include "testutil.h"

#include <stdarg.h>
#include <string.h>

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

void test_rng_fill(struct test_rng *r, void *p, size_t n)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)test_rng_next(r);
}
