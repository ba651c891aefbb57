/* SPDX-License-Identifier: MIT */
/*
 * The allocation interposer. The bench executables link with
 * -Wl,--wrap=malloc (and calloc, realloc, free, posix_memalign): every call
 * to those from an object linked in, libwqe.a included, lands here first.
 * The __wrap_/__real_ names are the linker's convention, not ours (STYLE.md
 * otherwise avoids identifiers that begin with "__").
 *
 * One thread uses a context at a time, and the benchmarks are single
 * threaded, so plain counters do.
 */
#include <malloc.h>
#include <stddef.h>

#include "bench.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
int __real_posix_memalign(void **p, size_t align, size_t n);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
int __wrap_posix_memalign(void **p, size_t align, size_t n);

static struct bench_allocs counts;
static int track_bytes = 1;

static void *counted(void *p)
{
	if (p && track_bytes)
		counts.live_bytes += malloc_usable_size(p);
	return p;
}

void *__wrap_malloc(size_t n)
{
	counts.calls++;
	return counted(__real_malloc(n));
}

void *__wrap_calloc(size_t k, size_t n)
{
	counts.calls++;
	return counted(__real_calloc(k, n));
}

void *__wrap_realloc(void *p, size_t n)
{
	counts.calls++;
	if (p && track_bytes) {
		size_t old = malloc_usable_size(p);
		void *q = __real_realloc(p, n);

		if (!q)
			return NULL;
		counts.live_bytes -= old;
		return counted(q);
	}
	return counted(__real_realloc(p, n));
}

void __wrap_free(void *p)
{
	if (!p)
		return;
	counts.frees++;
	if (track_bytes)
		counts.live_bytes -= malloc_usable_size(p);
	__real_free(p);
}

int __wrap_posix_memalign(void **p, size_t align, size_t n)
{
	int err;

	counts.calls++;
	err = __real_posix_memalign(p, align, n);
	if (!err && track_bytes) {
		counted(*p);
		counts.aligned_bytes += malloc_usable_size(*p);
	}
	return err;
}

void bench_allocs_get(struct bench_allocs *a)
{
	*a = counts;
}

void bench_allocs_track_bytes(int on)
{
	track_bytes = on;
}
