/* SPDX-License-Identifier: MIT */
/*
 * wqe demo: runs the built-in scenario (examples/demo.wqe, embedded at
 * build time by embed.cmake) between two modelled RoCEv2 NICs, prints
 * every request in its three shapes as it travels (the scenario trace),
 * then one summary row per request, and writes every packet to a pcap
 * file. The scenario checks itself: a failed expectation is exit 1.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "demo_scenario.h"
#include "html.h"
#include "wqe/scenario.h"

#define DEMO_FILE "examples/demo.wqe"

struct demo_cfg {
	const char *pcap;
	const char *html;
	int quiet;
	int show;
};

void usage_demo(FILE *f)
{
	fprintf(f,
		"usage: wqe demo [--quiet] [--pcap PATH | --no-pcap] [--html PATH] [--scenario]\n"
		"Runs a built-in scenario (" DEMO_FILE ") between two modelled RoCEv2 NICs:\n"
		"the eight operation families on RC, UC and UD, the four flags (a fenced\n"
		"write behind a read, an unsignaled request, a solicited send, inline on\n"
		"either side of the 28-byte threshold), a multi-packet message, a request\n"
		"refused at post time and one refused by the NIC at processing time. Each\n"
		"request is shown as a software Work Request, as the WQE in the send ring,\n"
		"and as the packets it became, with its checks, its host-memory cost, the\n"
		"responses and its completion; a summary table closes. Needs no files.\n"
		"\n"
		"options:\n"
		"  --quiet, -q   print the summary table only\n"
		"  --pcap PATH   write the packets to PATH (default: demo.pcap)\n"
		"  --no-pcap     write no capture\n"
		"  --html PATH   also write the run as one self-contained HTML page: the\n"
		"                packets as a ladder, each request in its three shapes,\n"
		"                the WQEs as byte-field diagrams, the send rings, the summary\n"
		"  --scenario    print the built-in scenario file and exit\n"
		"Exit status: 0 the scenario's expectations held; 1 one did not; 2 bad usage.\n");
}

static int parse_args(int argc, char **argv, struct demo_cfg *c)
{
	for (int i = 1; i < argc; i++) {
		const char *v;
		int m;

		if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			c->quiet = 1;
		} else if (!strcmp(argv[i], "--no-pcap")) {
			c->pcap = NULL;
		} else if ((m = cli_opt(argc, argv, &i, "--html", &v)) != 0) {
			if (m < 0 || !*v)
				return cli_usage_error("demo", usage_demo, "--html needs a path");
			c->html = v;
		} else if (!strcmp(argv[i], "--scenario")) {
			c->show = 1;
		} else if ((m = cli_opt(argc, argv, &i, "--pcap", &v)) != 0) {
			if (m < 0 || !*v)
				return cli_usage_error("demo", usage_demo, "--pcap needs a path");
			c->pcap = v;
		} else {
			return cli_usage_error("demo", usage_demo, "unknown argument '%s'",
					       argv[i]);
		}
	}
	return 0;
}

static void intro(const struct demo_cfg *c)
{
	printf("wqe demo: Work Requests, from software to the wire, between two modelled "
	       "RoCEv2 NICs\n\n"
	       "Each request appears in its three shapes:\n"
	       "  1. the software Work Request (struct wqe_send_wr, as ibv_send_wr): wr_id, "
	       "opcode, flags,\n"
	       "     SGE list, remote address and rkey, immediate. No BTH, no PSN, no ICRC: "
	       "those are the NIC's.\n"
	       "  2. the WQE the driver wrote into the send-queue ring (mlx5 layout, 64-byte "
	       "blocks): a 16-byte\n"
	       "     control segment (opcode, WQE index, QP number and a 6-bit DS count, the "
	       "fence/signal/solicit\n"
	       "     bits, immediate), then remote-address, atomic, datagram and data or "
	       "inline segments.\n"
	       "  3. the packets the NIC made of it once it knew the length: BTH (opcode, "
	       "PSN, SE, AckReq),\n"
	       "     extension headers, payload, pad, ICRC.\n"
	       "Between 1 and 2 stand the post-time checks of wqe_post_send(); between 2 and "
	       "3 the NIC's own\n"
	       "checks (lkeys, against the key table) and the cost in host-memory "
	       "transactions (WQE blocks\n"
	       "fetched, payload read by DMA unless it was inline). Then the responses and "
	       "the completion.\n\n"
	       "The scenario is " DEMO_FILE " (built in; 'wqe demo --scenario' prints it); "
	       "[#N line L] names\n"
	       "request N, posted at line L of that file, wherever its events show up.\n");
	if (c->pcap)
		printf("Every packet goes to %s: open it in Wireshark, or run 'tshark -r %s' or "
		       "'wqe dissect %s'.\n",
		       c->pcap, c->pcap, c->pcap);
}

/* The report of the run (--html): written whatever the verdict, as the capture is. */
static int demo_html(struct html_report *h, const struct wqe_scenario *sc, int rc,
		     const struct wqe_scenario_result *res, const struct wqe_scenario_err *err)
{
	char msg[600];

	html_run_end(h, sc);
	snprintf(h->title, sizeof(h->title), "wqe demo: Work Requests between two RoCEv2 NICs");
	snprintf(h->source, sizeof(h->source),
		 "The built-in scenario " DEMO_FILE " ('wqe demo --scenario' prints it).");
	h->failed = rc != 0;
	h->two_shapes = true;
	if (rc)
		snprintf(h->verdict, sizeof(h->verdict), "FAILED: %s:%u: %s", DEMO_FILE, err->line,
			 err->msg);
	else
		snprintf(h->verdict, sizeof(h->verdict),
			 "all %u expectations held; %u requests, %llu packets, %llu completions",
			 res->expectations, res->posts, (unsigned long long)res->packets,
			 (unsigned long long)res->cqes);
	if (html_commit(h, msg, sizeof(msg))) {
		fprintf(stderr, "wqe demo: %s\n", msg);
		return -1;
	}
	return 0;
}

int cmd_demo(int argc, char **argv)
{
	struct demo_cfg c = {"demo.pcap", NULL, 0, 0};
	struct html_report *html = NULL;
	char msg[600];
	struct wqe_scenario_opts o;
	struct wqe_scenario_result res;
	struct wqe_scenario_err err;
	struct wqe_scenario *sc;
	int rc;

	if (parse_args(argc, argv, &c))
		return CLI_USAGE;
	if (c.show) {
		fwrite(demo_scenario, 1, demo_scenario_len, stdout);
		return fflush(stdout) ? CLI_FAIL : CLI_OK;
	}
	memset(&err, 0, sizeof(err));
	sc = wqe_scenario_parse(DEMO_FILE, (const char *)demo_scenario, demo_scenario_len, &err);
	if (!sc) {
		fprintf(stderr, "wqe demo: %s:%u:%u: %s\n", DEMO_FILE, err.line, err.column,
			errno == ENOMEM ? "out of memory" : err.msg);
		return CLI_FAIL;
	}
	memset(&o, 0, sizeof(o));
	o.trace = c.quiet ? NULL : stdout;
	o.pcap = c.pcap;
	/* Refused before anything runs, as an unwritable capture is. */
	if (c.html && !(html = html_open(c.html, msg, sizeof(msg)))) {
		fprintf(stderr, "wqe demo: %s\n", msg);
		wqe_scenario_free(sc);
		return CLI_FAIL;
	}
	if (html) {
		html_run_begin(html, sc);
		o.observe = html_observe;
		o.observe_arg = html;
	}
	if (!c.quiet) {
		intro(&c);
		putchar('\n');
	}
	rc = wqe_scenario_run(sc, &o, &res, &err);
	if (rc < 0 && err.line == 0) {
		/* Nothing ran: the capture could not be opened, or a resource. */
		fprintf(stderr, "wqe demo: %s\n", err.msg);
		html_abort(html);
		wqe_scenario_free(sc);
		return CLI_FAIL;
	}
	printf("%s== Summary: one row per request posted ==\n", c.quiet ? "" : "\n");
	wqe_scenario_print_summary(sc, stdout);
	if (rc == 0)
		printf("\n%s: all %u expectations held; %u requests, %llu packets, %llu "
		       "completions%s%s\n",
		       DEMO_FILE, res.expectations, res.posts, (unsigned long long)res.packets,
		       (unsigned long long)res.cqes, c.pcap ? "; packets in " : "",
		       c.pcap ? c.pcap : "");
	else
		fprintf(stderr, "wqe demo: %s:%u: %s\n", DEMO_FILE, err.line, err.msg);
	if (rc == 0 && !c.quiet && demo_two_shapes())
		rc = -1;
	if (html && demo_html(html, sc, rc, &res, &err))
		rc = -1;
	wqe_scenario_free(sc);
	if (fflush(stdout))
		return CLI_FAIL;
	return rc == 0 ? CLI_OK : CLI_FAIL;
}
