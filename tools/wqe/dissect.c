/* SPDX-License-Identifier: MIT */
/* wqe dissect: the RoCEv2 packets of a capture, decoded (wqe_dissect_file). */
#include <string.h>

#include "cli.h"
#include "html.h"
#include "wqe/wire.h"

void usage_dissect(FILE *f)
{
	fprintf(f,
		"usage: wqe dissect [--hex] [--html OUT] FILE.pcap\n"
		"Prints every RoCEv2 packet of the capture decoded, header by header, and\n"
		"checks its ICRC. Exit status 0 if every RoCEv2 frame parsed and its ICRC\n"
		"verifies, 1 if one did not, 2 if the file cannot be read.\n"
		"  --hex       also dump each payload in hex\n"
		"  --html OUT  also write the capture as one self-contained HTML page: the\n"
		"              packets as a ladder between the addresses, each one's fields\n"
		"              and ICRC verdict (whole, or not at all; a write error is 2)\n");
}

/* The report of the capture: 0, or -1 (reported). */
static int dissect_html(struct html_report *h, const char *path, int rc)
{
	char msg[600];

	if (html_read_capture(h, path, msg, sizeof(msg))) {
		fprintf(stderr, "wqe dissect: %s\n", msg);
		html_abort(h);
		return -1;
	}
	snprintf(h->title, sizeof(h->title), "wqe dissect %s", path);
	snprintf(h->source, sizeof(h->source), "The capture %s: %zu frame%s.", path, h->npkt,
		 h->npkt == 1 ? "" : "s");
	h->capture_only = true;
	h->failed = rc != 0;
	snprintf(h->verdict, sizeof(h->verdict), "%s",
		 rc ? "Some RoCEv2 frame did not parse, or its ICRC does not verify."
		    : "Every RoCEv2 frame parsed and its ICRC verifies.");
	if (html_commit(h, msg, sizeof(msg))) {
		fprintf(stderr, "wqe dissect: %s\n", msg);
		return -1;
	}
	return 0;
}

int cmd_dissect(int argc, char **argv)
{
	const char *path = NULL, *html = NULL;
	struct html_report *h = NULL;
	unsigned int flags = 0;
	char msg[600];
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *v;
		int m;

		if (strcmp(argv[i], "--hex") == 0) {
			flags |= WQE_DISSECT_HEX;
		} else if ((m = cli_opt(argc, argv, &i, "--html", &v)) != 0) {
			if (m < 0 || !*v)
				return cli_usage_error("dissect", usage_dissect, "--html needs a path");
			html = v;
		} else if (argv[i][0] == '-' || path) {
			return cli_usage_error("dissect", usage_dissect, "bad argument '%s'",
					       argv[i]);
		} else {
			path = argv[i];
		}
	}
	if (!path)
		return cli_usage_error("dissect", usage_dissect, "no capture file given");
	if (html && !(h = html_open(html, msg, sizeof(msg)))) {
		fprintf(stderr, "wqe dissect: %s\n", msg);
		return CLI_USAGE;
	}
	rc = wqe_dissect_file(path, stdout, flags);
	if (h && rc == CLI_USAGE)
		html_abort(h);
	else if (h && dissect_html(h, path, rc))
		rc = CLI_USAGE;
	return rc;
}
