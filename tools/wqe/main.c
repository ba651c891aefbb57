/* SPDX-License-Identifier: MIT */
/*
 * wqe - command-line front end of libwqe: a Work Request in its three
 * shapes. Thin: it parses, calls the library, prints (docs/cli.md).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef WQE_TOOL_VERSION
#define WQE_TOOL_VERSION "0.1.0"
#endif

static int cmd_help(int argc, char **argv);
static void usage_help(FILE *f);
static int cmd_version(int argc, char **argv);
static void usage_version(FILE *f);

static const struct cli_cmd commands[] = {
	{"encode", "Work Request text -> WQE bytes, annotated or raw", cmd_encode, usage_encode},
	{"decode", "WQE bytes (hex) -> annotated WQE and what the NIC decodes", cmd_decode,
	 usage_decode},
	{"sizes", "WQE segment sizes, the 36/68/28-byte figures, QP sizing", cmd_sizes,
	 usage_sizes},
	{"run", "run a scenario file: a self-checking test of the model", cmd_run, usage_run},
	{"demo", "a Work Request in its shapes, for every operation family", cmd_demo,
	 usage_demo},
	{"dissect", "print the RoCEv2 packets of a pcap file, ICRC checked", cmd_dissect,
	 usage_dissect},
	{"peer", "one RoCEv2 endpoint per process over UDP, perftest style", cmd_peer,
	 usage_peer},
	{"exec", "run an unmodified verbs program on wqe's drop-in libibverbs", cmd_exec,
	 usage_exec},
	{"version", "print the version", cmd_version, usage_version},
	{"help", "list the commands, or show one command's help", cmd_help, usage_help},
};

#define NUM_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cli_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < NUM_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage_main(FILE *f)
{
	fprintf(f, "usage: wqe COMMAND [options] [arguments]\n\ncommands:\n");
	for (size_t i = 0; i < NUM_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'wqe COMMAND --help' or 'wqe help COMMAND' shows a command's options.\n"
		   "Exit status: 0 success, 1 a WQE or capture was refused or a run failed, 2 bad\n"
		   "usage or input.\n");
}

static void usage_help(FILE *f)
{
	fprintf(f, "usage: wqe help [COMMAND]\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct cli_cmd *c;

	if (argc < 2) {
		usage_main(stdout);
		return CLI_OK;
	}
	c = find_command(argv[1]);
	if (!c || argc > 2)
		return cli_usage_error("help", usage_help, "unknown command '%s'", argv[1]);
	c->usage(stdout);
	return CLI_OK;
}

static void usage_version(FILE *f)
{
	fprintf(f, "usage: wqe version\n");
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return cli_usage_error("version", usage_version, "takes no arguments");
	printf("wqe %s (WQE formats: %s, %s)\n", WQE_TOOL_VERSION, wqe_format_str(WQE_FORMAT_MLX5),
	       wqe_format_str(WQE_FORMAT_RXE));
	return CLI_OK;
}

/* WQE_FAST_PATH, which every context the commands open reads
 * (wqe_open_context()), checked before anything runs: a bad value is a
 * usage error named as such, not a context that cannot be opened halfway
 * through a command's output. */
static bool fast_path_env_ok(void)
{
	const char *v = getenv("WQE_FAST_PATH");

	if (!v || strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
		return true;
	fprintf(stderr,
		"wqe: WQE_FAST_PATH='%s': expected 0 (the NIC's fast paths off) or 1 (on, as "
		"when unset)\n",
		v);
	return false;
}

/* WQE_NIC_MODE, checked the same way: "caller" or "thread" (any command),
 * and not "thread" for the commands whose runs are the caller-driven NIC's
 * by design (a scenario's virtual clock and exact trace: wqe run, wqe
 * demo). */
static bool nic_mode_env_ok(const char *cmd)
{
	const char *v = getenv("WQE_NIC_MODE");

	if (!v || strcmp(v, "caller") == 0)
		return true;
	if (strcmp(v, "thread") != 0) {
		fprintf(stderr,
			"wqe: WQE_NIC_MODE='%s': expected caller (the NIC runs in the command's "
			"calls, as when unset) or thread\n",
			v);
		return false;
	}
	if (strcmp(cmd, "run") == 0 || strcmp(cmd, "demo") == 0) {
		fprintf(stderr,
			"wqe %s: WQE_NIC_MODE=thread: scenarios run the NIC on a virtual clock in "
			"their own calls; unset it\n",
			cmd);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	const struct cli_cmd *c;

	if (argc < 2) {
		usage_main(stderr);
		return CLI_USAGE;
	}
	if (cli_is_help(argv[1])) {
		usage_main(stdout);
		return CLI_OK;
	}
	if (strcmp(argv[1], "--version") == 0)
		return cmd_version(1, argv + 1);
	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "wqe: unknown command '%s'\n", argv[1]);
		usage_main(stderr);
		return CLI_USAGE;
	}
	if (argc > 2 && cli_is_help(argv[2])) {
		c->usage(stdout);
		return CLI_OK;
	}
	if (!fast_path_env_ok() || !nic_mode_env_ok(c->name))
		return CLI_USAGE;
	return c->run(argc - 1, argv + 1);
}
