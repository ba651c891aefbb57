/* SPDX-License-Identifier: MIT */
/* Scenario files: splitting lines into words, numbers, names, messages. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/sc_int.h"

int sc_fail(struct wqe_scenario_err *err, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = line;
		err->column = col;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

int sc_miss(struct wqe_scenario_err *err, uint32_t line, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = line;
		err->column = 0;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return 1;
}

int sc_split(struct sc_line *l, const char *text, size_t len, uint32_t no,
	     struct wqe_scenario_err *err)
{
	size_t i = 0;

	l->no = no;
	l->text = text;
	l->len = len;
	l->nw = 0;
	while (i < len) {
		size_t start;

		while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r'))
			i++;
		if (i == len || text[i] == '#')
			break;
		if (l->nw == SC_MAX_WORDS)
			return sc_fail(err, no, (uint32_t)i + 1, "too many words (at most %u)",
				       SC_MAX_WORDS);
		start = i;
		while (i < len && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
			i++;
		l->w[l->nw].s = text + start;
		l->w[l->nw].len = i - start;
		l->w[l->nw].col = (uint32_t)start + 1;
		l->w[l->nw].eq = memchr(text + start, '=', i - start);
		l->nw++;
	}
	return 0;
}

bool sc_word_is(const struct sc_word *w, const char *s)
{
	return strlen(s) == w->len && memcmp(w->s, s, w->len) == 0;
}

int sc_key(const struct sc_word *w, const char *key)
{
	size_t k = strlen(key);

	return w->eq && (size_t)(w->eq - w->s) == k && memcmp(w->s, key, k) == 0;
}

/* A number: decimal or 0x hex, optional K/M suffix; at most @max. */
int sc_u64(const struct sc_word *w, const char *s, size_t len, uint64_t max, uint64_t *v,
	   struct wqe_scenario_err *err, uint32_t col)
{
	uint64_t x = 0, mul = 1;
	size_t i = 0;
	int base = 10;

	(void)w;
	if (len && (s[len - 1] == 'K' || s[len - 1] == 'M')) {
		mul = s[len - 1] == 'K' ? 1024u : 1048576u;
		len--;
	}
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		goto bad;
	for (; i < len; i++) {
		int d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			goto bad;
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			goto range;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	if (x > UINT64_MAX / mul)
		goto range;
	x *= mul;
	if (x > max)
		goto range;
	*v = x;
	return 0;
bad:
	return sc_fail(err, 0, col, "expected a number (decimal or 0x hex), got '%.*s'",
		       (int)(len + (mul > 1)), s);
range:
	return sc_fail(err, 0, col, "number '%.*s' out of range (at most %llu)",
		       (int)(len + (mul > 1)), s, (unsigned long long)max);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sc_hex(const char *s, size_t len, uint8_t **out, size_t *n)
{
	uint8_t *b;

	if (len == 0 || len % 2)
		return -1;
	b = malloc(len / 2);
	if (!b)
		return -1;
	for (size_t i = 0; i < len; i += 2) {
		int hi = hexval(s[i]), lo = hexval(s[i + 1]);

		if (hi < 0 || lo < 0) {
			free(b);
			return -1;
		}
		b[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*out = b;
	*n = len / 2;
	return 0;
}

int sc_find(const struct wqe_scenario *sc, const char *s, size_t len, int *kind)
{
	for (uint32_t i = 0; i < sc->nep; i++)
		if (strlen(sc->ep[i].name) == len && !memcmp(sc->ep[i].name, s, len)) {
			*kind = OBJ_EP;
			return (int)i;
		}
	for (uint32_t i = 0; i < sc->nqp; i++)
		if (strlen(sc->qp[i].name) == len && !memcmp(sc->qp[i].name, s, len)) {
			*kind = OBJ_QP;
			return (int)i;
		}
	for (uint32_t i = 0; i < sc->nreg; i++)
		if (strlen(sc->reg[i].name) == len && !memcmp(sc->reg[i].name, s, len)) {
			*kind = OBJ_REG;
			return (int)i;
		}
	*kind = OBJ_NONE;
	return -1;
}

void sc_pattern(uint8_t *p, uint64_t len, uint64_t seed, uint64_t start)
{
	/* Byte i of pattern SEED is a hash of (seed, i): any slice can be
	 * produced without the bytes before it. */
	for (uint64_t i = 0; i < len; i++) {
		uint64_t z = seed * 0x9e3779b97f4a7c15ull + (start + i) * 0xbf58476d1ce4e5b9ull;

		z ^= z >> 31;
		z *= 0x94d049bb133111ebull;
		p[i] = (uint8_t)(z >> 56);
	}
}
