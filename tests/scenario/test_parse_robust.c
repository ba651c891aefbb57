/* SPDX-License-Identifier: MIT */
/*
 * wqe_scenario_parse() on damaged input: every prefix of every example
 * (cut at every byte) and seeded random byte mutations of each must either
 * parse or be refused cleanly: NULL, errno EINVAL, a message, a line within
 * the text and a column within the line (1-based). Never a crash, a leak or
 * an out-of-bounds read (the sanitizer build runs this too). The text is
 * handed over in a buffer of exactly its length, not NUL-terminated.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "wqe/scenario.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must name the examples folder"
#endif

#define MUTANTS_PER_FILE 400u

static struct test_rng rng_state;

static uint64_t rng(void)
{
	return test_rng_next(&rng_state);
}

/* The number of lines of @t[0..@n): what a refusal's line may be at most. */
static uint32_t count_lines(const char *t, size_t n)
{
	uint32_t lines = 1;

	for (size_t i = 0; i + 1 < n; i++)
		lines += t[i] == '\n';
	return lines;
}

static int parse_one(const char *name, const char *text, size_t len)
{
	struct wqe_scenario_err err;
	struct wqe_scenario *sc;
	char *copy = malloc(len ? len : 1);

	if (!copy)
		return -1;
	memcpy(copy, text, len);
	memset(&err, 0, sizeof(err));
	errno = 0;
	sc = wqe_scenario_parse(name, copy, len, &err);
	if (sc) {
		wqe_scenario_free(sc);
		free(copy);
		return 0;
	}
	CHECK(errno == EINVAL);
	CHECK(err.msg[0] != 0);
	CHECK(memchr(err.msg, 0, sizeof(err.msg)) != NULL);
	CHECK(err.line >= 1 && err.line <= count_lines(copy, len) + 1);
	CHECK(err.column >= 1 && err.column <= 4097);
	free(copy);
	return 1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Bytes a mutation writes: the scenario's own punctuation and junk. */
static char pick_byte(void)
{
	static const char interesting[] = " \t\n=:+.,#-0x9AzZ_\r";
	uint64_t r = rng();

	if (r % 4)
		return interesting[(r >> 8) % (sizeof(interesting) - 1)];
	return (char)(r >> 16);
}

static void mutate(char *t, size_t *len, size_t cap)
{
	uint64_t n = 1 + rng() % 4;

	for (uint64_t k = 0; k < n && *len; k++) {
		size_t at = (size_t)(rng() % *len);

		switch (rng() % 4) {
		case 0: /* replace */
			t[at] = pick_byte();
			break;
		case 1: /* delete */
			memmove(t + at, t + at + 1, *len - at - 1);
			(*len)--;
			break;
		case 2: /* insert */
			if (*len < cap) {
				memmove(t + at + 1, t + at, *len - at);
				t[at] = pick_byte();
				(*len)++;
			}
			break;
		default: /* duplicate a run of bytes over another place */
		{
			size_t from = (size_t)(rng() % *len), run = (size_t)(rng() % 16);

			if (from + run > *len)
				run = *len - from;
			if (at + run > *len)
				run = *len - at;
			memmove(t + at, t + from, run);
		} break;
		}
	}
}

static void one_file(const char *dir, const char *file, unsigned *files, unsigned *parsed,
		     unsigned *refused)
{
	char path[1024];
	size_t len = 0, cap;
	char *text, *buf;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	text = slurp(path, &len);
	CHECK(text != NULL);
	if (!text)
		return;
	(*files)++;
	/* Every prefix: a file cut anywhere, mid-word, mid-line, mid-number. */
	for (size_t n = 0; n <= len; n++) {
		int r = parse_one(file, text, n);

		*parsed += r == 0;
		*refused += r == 1;
	}
	/* Random mutations, a few bytes each. */
	cap = len + 64;
	buf = malloc(cap);
	CHECK(buf != NULL);
	for (unsigned m = 0; buf && m < MUTANTS_PER_FILE; m++) {
		size_t n = len;
		int r;

		memcpy(buf, text, len);
		mutate(buf, &n, cap);
		r = parse_one(file, buf, n);
		*parsed += r == 0;
		*refused += r == 1;
	}
	free(buf);
	free(text);
}

int main(void)
{
	DIR *d = opendir(EXAMPLES_DIR);
	struct dirent *e;
	unsigned files = 0, parsed = 0, refused = 0;

	test_rng_seed(&rng_state, 20240601);
	CHECK(d != NULL);
	if (!d)
		return test_finish();
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);

		if (n > 4 && !strcmp(e->d_name + n - 4, ".wqe"))
			one_file(EXAMPLES_DIR, e->d_name, &files, &parsed, &refused);
	}
	closedir(d);
	/* The whole files parse, and damage is refused at least sometimes. */
	CHECK(files >= 12);
	CHECK(parsed >= files);
	CHECK(refused > files * MUTANTS_PER_FILE / 4);
	printf("%u files: %u inputs parsed, %u refused cleanly\n", files, parsed, refused);
	return test_finish();
}
