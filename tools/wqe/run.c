/* SPDX-License-Identifier: MIT */
/* wqe run: a scenario file, self-checking. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html.h"
#include "wqe/scenario.h"

void usage_run(FILE *f)
{
	fprintf(f,
		"usage: wqe run [options] FILE\n"
		"Runs a scenario file (docs/scenario-format.md): endpoints, queue pairs,\n"
		"memory, posted requests, runs of the engine, and expectations.\n"
		"Exit status: 0 every expectation held; 1 one failed (named with file:line,\n"
		"expected and actual); 2 the file is malformed (file:line:column) or bad usage.\n"
		"\n"
		"options:\n"
		"  --trace          print every request in its three shapes and what the NIC did\n"
		"  --json           print the results as JSON (completions, counters,\n"
		"                   expectations) on stdout; a trace then goes to stderr\n"
		"  --pcap OUT       write every packet to OUT (whole, or not at all)\n"
		"  --html OUT       write a report of the run to OUT, one self-contained page:\n"
		"                   the packets as a ladder, each request in its three shapes,\n"
		"                   the send rings, the summary (whole, or not at all)\n"
		"  --seed N         seed of the link's fault injector (overrides the file)\n"
		"  --format mlx5|rxe  WQE format of every endpoint (lines starting mlx5: or\n"
		"                   rxe: run only on that format)\n"
		"  -q, --quiet      print nothing on success\n");
}

struct run_cfg {
	const char *file;
	const char *html;
	int trace, json, quiet;
	struct wqe_scenario_opts o;
};

static int parse_args(int argc, char **argv, struct run_cfg *c)
{
	for (int i = 1; i < argc; i++) {
		const char *v;
		int m;
		uint32_t hi, lo;

		if (!strcmp(argv[i], "--trace")) {
			c->trace = 1;
		} else if (!strcmp(argv[i], "--json")) {
			c->json = 1;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			c->quiet = 1;
		} else if ((m = cli_opt(argc, argv, &i, "--pcap", &v)) != 0) {
			if (m < 0)
				return -1;
			c->o.pcap = v;
		} else if ((m = cli_opt(argc, argv, &i, "--html", &v)) != 0) {
			if (m < 0 || !*v)
				return cli_usage_error("run", usage_run, "--html needs a path"), -1;
			c->html = v;
		} else if ((m = cli_opt(argc, argv, &i, "--seed", &v)) != 0) {
			if (m < 0 || cli_parse_u32(v, UINT32_MAX, &lo))
				return cli_usage_error("run", usage_run, "bad --seed '%s'",
						       m < 0 ? "" : v), -1;
			hi = 0;
			c->o.seed_set = 1;
			c->o.seed = (uint64_t)hi << 32 | lo;
		} else if ((m = cli_opt(argc, argv, &i, "--format", &v)) != 0) {
			if (m < 0 || cli_parse_format(v, &c->o.format))
				return cli_usage_error("run", usage_run, "bad --format"), -1;
			c->o.format_set = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("run", usage_run, "unknown option '%s'", argv[i]), -1;
		} else if (c->file) {
			return cli_usage_error("run", usage_run, "one scenario file at a time"), -1;
		} else {
			c->file = argv[i];
		}
	}
	if (!c->file)
		return cli_usage_error("run", usage_run, "no scenario file given"), -1;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_cfg c;
	struct wqe_scenario_err err;
	struct wqe_scenario_result res;
	struct wqe_scenario *sc;
	struct html_report *html = NULL;
	char msg[600];
	int html_failed = 0;
	FILE *in;
	char *text;
	size_t len;
	int rc;

	memset(&c, 0, sizeof(c));
	memset(&err, 0, sizeof(err));
	if (parse_args(argc, argv, &c))
		return CLI_USAGE;
	in = fopen(c.file, "rb");
	if (!in) {
		fprintf(stderr, "wqe run: cannot open %s: %s\n", c.file, strerror(errno));
		return CLI_USAGE;
	}
	text = cli_read_all(in, &len);
	fclose(in);
	if (!text) {
		fprintf(stderr, "wqe run: cannot read %s\n", c.file);
		return CLI_USAGE;
	}
	sc = wqe_scenario_parse(c.file, text, len, &err);
	free(text);
	if (!sc) {
		fprintf(stderr, "%s:%u:%u: %s\n", c.file, err.line, err.column,
			errno == ENOMEM ? "out of memory" : err.msg);
		return CLI_USAGE;
	}
	if (c.html && !(html = html_open(c.html, msg, sizeof(msg)))) {
		fprintf(stderr, "wqe run: %s\n", msg);
		wqe_scenario_free(sc);
		return CLI_USAGE;
	}
	if (html) {
		html_run_begin(html, sc);
		c.o.observe = html_observe;
		c.o.observe_arg = html;
	}
	if (c.trace)
		c.o.trace = c.json ? stderr : stdout;
	rc = wqe_scenario_run(sc, &c.o, &res, &err);
	/* As the capture: a failed expectation still gets its report. */
	if (html && rc < 0) {
		html_abort(html);
	} else if (html) {
		html_run_end(html, sc);
		snprintf(html->title, sizeof(html->title), "wqe run %s", c.file);
		snprintf(html->source, sizeof(html->source), "scenario file %s", c.file);
		html->failed = rc != 0;
		if (rc)
			snprintf(html->verdict, sizeof(html->verdict), "FAILED: %s:%u: %s", c.file,
				 err.line, err.msg);
		else
			snprintf(html->verdict, sizeof(html->verdict),
				 "ok: %u expectations, %u statements, %u requests, %llu packets, "
				 "%llu completions",
				 res.expectations, res.statements, res.posts,
				 (unsigned long long)res.packets, (unsigned long long)res.cqes);
		if (html_commit(html, msg, sizeof(msg))) {
			fprintf(stderr, "wqe run: %s\n", msg);
			html_failed = 1;
		}
	}
	if (c.json)
		wqe_scenario_write_json(sc, stdout);
	if (rc == 0 && !c.quiet && !c.json)
		printf("%s: ok: %u expectations, %u statements, %u requests, %llu packets, %llu "
		       "completions\n", c.file, res.expectations, res.statements, res.posts,
		       (unsigned long long)res.packets, (unsigned long long)res.cqes);
	if (rc)
		fprintf(stderr, "%s:%u: %s\n", c.file, err.line, err.msg);
	wqe_scenario_free(sc);
	if (html_failed)
		return CLI_USAGE; /* as a capture that cannot be written */
	return rc == 0 ? CLI_OK : rc > 0 ? CLI_FAIL : CLI_USAGE;
}
