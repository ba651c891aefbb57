/* SPDX-License-Identifier: MIT */
/*
 * wqe exec: run an unmodified verbs or rdma_cm program on wqe's drop-in
 * libibverbs and librdmacm,
 * one device per --local address, the NIC on a thread (docs/ibverbs.md).
 * All it does is set the environment the drop-in reads and exec the
 * program; the same works by hand with those variables.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef WQE_DROPIN_REL
#define WQE_DROPIN_REL "../lib/wqe"
#endif

#define MAX_LOCAL 8

void usage_exec(FILE *f)
{
	fprintf(f,
		"usage: wqe exec [--local ADDR]... [--pcap FILE] [--format mlx5|rxe]\n"
		"                [--fault SPEC] -- PROGRAM [ARG...]\n"
		"\n"
		"Runs PROGRAM, an unmodified libibverbs or librdmacm program (ibv_rc_pingpong,\n"
		"ib_write_bw, rping, ...), on wqe's drop-in libibverbs.so.1 and librdmacm.so.1\n"
		"(rdma_cm and its connection manager in the process): each --local is one\n"
		"device (wqe0, wqe1, ...) on UDP port 4791 of ADDR (an IPv4 or IPv6 address of\n"
		"this host), its GID index 0 that address as a RoCE v2 GID, its NIC on a\n"
		"thread of the program's. No kernel module, no root.\n"
		"\n"
		"options:\n"
		"  --local ADDR        a device on ADDR (at least one; at most %d)\n"
		"  --pcap FILE         capture wqe0's frames in FILE (wqeN's in FILE.N)\n"
		"  --format mlx5|rxe   the WQE format of the send queues (default mlx5)\n"
		"  --fault SPEC        seeded faults on the frames every device sends, e.g.\n"
		"                      drop=0.02,seed=7 (keys drop, dup, reorder, delay,\n"
		"                      corrupt: rates 0 to 1; seed); the drop-in checks SPEC:\n"
		"                      a bad one is said on stderr and gives no device\n"
		"Environment set for PROGRAM: LD_LIBRARY_PATH (the drop-in's folder first),\n"
		"WQE_IBV_LOCAL, WQE_IBV_PCAP, WQE_IBV_FORMAT, WQE_IBV_FAULT.\n"
		"Exit status: PROGRAM's; 2 bad usage; 127 PROGRAM not found; 126 not run.\n",
		MAX_LOCAL);
}

/* The drop-in's folder: beside the binary in a build tree (lib/wqe), or
 * WQE_DROPIN_REL from an installed binary's folder. */
static int dropin_dir(char *out, size_t cap)
{
	char self[PATH_MAX], try[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *rel[] = {"lib/wqe", WQE_DROPIN_REL};
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	for (size_t i = 0; i < 2; i++) {
		snprintf(try, sizeof(try), "%s/%s/libibverbs.so.1", self, rel[i]);
		if (access(try, R_OK) == 0) {
			snprintf(try, sizeof(try), "%s/%s", self, rel[i]);
			if (!realpath(try, out) || strlen(out) >= cap)
				return -1;
			return 0;
		}
	}
	return -1;
}

int cmd_exec(int argc, char **argv)
{
	char locals[MAX_LOCAL * 48] = "", dir[PATH_MAX], *path;
	const char *pcap = NULL, *format = NULL, *fault = NULL, *old;
	int nlocal = 0, i;

	for (i = 1; i < argc; i++) {
		const char *v;
		int m;

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if ((m = cli_opt(argc, argv, &i, "--local", &v)) != 0) {
			unsigned char buf[16];

			if (m < 0 || (inet_pton(AF_INET, v, buf) != 1 &&
				      inet_pton(AF_INET6, v, buf) != 1))
				return cli_usage_error("exec", usage_exec,
						       "--local needs an IPv4 or IPv6 address");
			if (nlocal == MAX_LOCAL)
				return cli_usage_error("exec", usage_exec,
						       "at most %d --local addresses", MAX_LOCAL);
			if (nlocal++)
				strcat(locals, ",");
			strcat(locals, v);
		} else if ((m = cli_opt(argc, argv, &i, "--pcap", &v)) != 0) {
			if (m < 0 || !*v)
				return cli_usage_error("exec", usage_exec, "--pcap needs a path");
			pcap = v;
		} else if ((m = cli_opt(argc, argv, &i, "--format", &v)) != 0) {
			if (m < 0 || (strcmp(v, "mlx5") && strcmp(v, "rxe")))
				return cli_usage_error("exec", usage_exec,
						       "--format needs mlx5 or rxe");
			format = v;
		} else if ((m = cli_opt(argc, argv, &i, "--fault", &v)) != 0) {
			if (m < 0 || !*v)
				return cli_usage_error(
				    "exec", usage_exec,
				    "--fault needs a SPEC such as drop=0.02,seed=7");
			fault = v;
		} else if (argv[i][0] == '-') {
			return cli_usage_error("exec", usage_exec, "unknown argument '%s'",
					       argv[i]);
		} else {
			break;
		}
	}
	if (i >= argc)
		return cli_usage_error("exec", usage_exec, "no PROGRAM to run");
	if (!nlocal)
		return cli_usage_error("exec", usage_exec, "no --local address: no device");
	if (dropin_dir(dir, sizeof(dir))) {
		fprintf(stderr, "wqe exec: the drop-in libibverbs.so.1 is not beside this wqe "
				"(lib/wqe or " WQE_DROPIN_REL ")\n");
		return 126;
	}
	old = getenv("LD_LIBRARY_PATH");
	path = malloc(strlen(dir) + (old ? strlen(old) : 0) + 2);
	if (!path) {
		fprintf(stderr, "wqe exec: out of memory\n");
		return 126;
	}
	strcpy(path, dir);
	if (old && *old) {
		strcat(path, ":");
		strcat(path, old);
	}
	if (setenv("LD_LIBRARY_PATH", path, 1) || setenv("WQE_IBV_LOCAL", locals, 1) ||
	    (pcap && setenv("WQE_IBV_PCAP", pcap, 1)) || (!pcap && unsetenv("WQE_IBV_PCAP")) ||
	    (format && setenv("WQE_IBV_FORMAT", format, 1)) ||
	    (!format && unsetenv("WQE_IBV_FORMAT")) ||
	    (fault && setenv("WQE_IBV_FAULT", fault, 1)) || (!fault && unsetenv("WQE_IBV_FAULT")) ||
	    unsetenv("WQE_NIC_MODE")) {
		fprintf(stderr, "wqe exec: cannot set the environment: %s\n", strerror(errno));
		free(path);
		return 126;
	}
	free(path);
	fflush(NULL);
	execvp(argv[i], argv + i);
	fprintf(stderr, "wqe exec: %s: %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
