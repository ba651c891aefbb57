/* SPDX-License-Identifier: MIT */
/*
 * fuzz_scenario - the scenario-file parser (wqe_scenario_parse).
 *
 * Input: the file's bytes (not NUL-terminated). Checks beyond "no crash"
 * and no leak: a refusal sets errno EINVAL and names a line and column
 * inside the text (column 1 past the last byte of the line is allowed),
 * with a NUL-terminated, non-empty message; a NULL return never leaves a
 * half-built scenario behind (LeakSanitizer sees it); and the verdict does
 * not depend on what the caller's error struct held before the call (the
 * header says the parser fills it), so the text is parsed a second time
 * with the struct full of garbage and both answers must agree (finding F1,
 * fuzz/README.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "wqe/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wqe_scenario_err err;
	struct wqe_scenario *sc;
	uint32_t lines = 1;
	size_t start = 0, linelen;
	char *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	for (size_t i = 0; i < size; i++)
		lines += copy[i] == '\n';
	memset(&err, 0, sizeof(err));
	errno = 0;
	sc = wqe_scenario_parse("fuzz.scn", copy, size, &err);
	if (sc) {
		wqe_scenario_free(sc);
	} else if (errno == EINVAL) {
		struct wqe_scenario_err err2;
		struct wqe_scenario *sc2;

		memset(&err2, 0x5a, sizeof(err2));
		sc2 = wqe_scenario_parse("fuzz.scn", copy, size, &err2);
		if (sc2)
			fz_die("parsed once refused, once accepted");
		if (err2.line != err.line || err2.column != err.column ||
		    strncmp(err2.msg, err.msg, sizeof(err.msg)))
			fz_die("the refusal depends on the caller's error struct: %u:%u: %s / "
			       "%u:%u: %.40s",
			       err.line, err.column, err.msg, err2.line, err2.column, err2.msg);
		if (err.line < 1 || err.line > lines)
			fz_die("error line %u in a text of %u lines", err.line, lines);
		/* The length of the line named. */
		for (uint32_t l = 1; l < err.line; l++)
			start = (size_t)((const char *)memchr(copy + start, '\n', size - start) -
					 copy) +
				1;
		linelen = 0;
		while (start + linelen < size && copy[start + linelen] != '\n')
			linelen++;
		if (err.column < 1 || err.column > linelen + 1)
			fz_die("error column %u on line %u of %zu bytes", err.column, err.line,
			       linelen);
		if (!memchr(err.msg, 0, sizeof(err.msg)) || !err.msg[0])
			fz_die("error message empty or not NUL-terminated");
	} else if (errno != ENOMEM) {
		fz_die("wqe_scenario_parse failed with errno %d", errno);
	}
	free(copy);
	return 0;
}
