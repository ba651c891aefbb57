/* SPDX-License-Identifier: MIT */
/* wqe dissect: the RoCEv2 packets of a capture, decoded (wqe_dissect_file). */
#include <string.h>

#include "cli.h"
#include "wqe/wire.h"

void usage_dissect(FILE *f)
{
	fprintf(f,
		"usage: wqe dissect [--hex] FILE.pcap\n"
		"Prints every RoCEv2 packet of the capture decoded, header by header, and\n"
		"checks its ICRC. Exit status 0 if every RoCEv2 frame parsed and its ICRC\n"
		"verifies, 1 if one did not, 2 if the file cannot be read.\n"
		"  --hex    also dump each payload in hex\n");
}

int cmd_dissect(int argc, char **argv)
{
	const char *path = NULL;
	unsigned int flags = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--hex") == 0)
			flags |= WQE_DISSECT_HEX;
		else if (argv[i][0] == '-' || path)
			return cli_usage_error("dissect", usage_dissect, "bad argument '%s'",
					       argv[i]);
		else
			path = argv[i];
	}
	if (!path)
		return cli_usage_error("dissect", usage_dissect, "no capture file given");
	return wqe_dissect_file(path, stdout, flags);
}
