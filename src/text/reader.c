/* SPDX-License-Identifier: MIT */
/*
 * The line reader of the request text form: request lines out of a text
 * buffer, blank and comment-only lines skipped (wqe/text.h).
 */
#include <string.h>

#include "wqe/text.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

void wqe_text_reader_init(struct wqe_text_reader *r, const char *buf, size_t len)
{
	r->buf = buf;
	r->len = buf ? len : 0;
	r->pos = 0;
	r->lineno = 0;
}

static int line_has_request(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '#' || s[i] == '\0')
			return 0;
		if (!is_blank(s[i]))
			return 1;
	}
	return 0;
}

int wqe_text_reader_next(struct wqe_text_reader *r, const char **line, size_t *len,
			 uint32_t *lineno)
{
	while (r->pos < r->len) {
		const char *s = r->buf + r->pos;
		const char *nl = memchr(s, '\n', r->len - r->pos);
		size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;

		r->pos += nl ? n + 1 : n;
		r->lineno++;
		if (n && s[n - 1] == '\r')
			n--;
		if (!line_has_request(s, n))
			continue;
		*line = s;
		*len = n;
		*lineno = r->lineno;
		return 1;
	}
	return 0;
}
