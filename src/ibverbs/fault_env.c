/* SPDX-License-Identifier: MIT */
/*
 * WQE_IBV_FAULT: the drop-in's fault injector, read from the environment.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/ibv_int.h"

/* One "KEY=VALUE" field into @cfg; the keys are the scenario format's
 * (docs/scenario-format.md, `link`). 0, or -1 with the reason in @why. */
static int fault_field(char *f, struct wqe_fault_cfg *cfg, const char **why)
{
	static const char *const pk[] = {"drop", "dup", "reorder", "delay", "corrupt"};
	double *dst[] = {&cfg->drop, &cfg->duplicate, &cfg->reorder, &cfg->delay, &cfg->corrupt};
	char *eq = strchr(f, '='), *end;

	if (!eq || eq == f || !eq[1]) {
		*why = "each field is KEY=VALUE";
		return -1;
	}
	*eq++ = 0;
	for (size_t i = 0; i < sizeof(pk) / sizeof(pk[0]); i++) {
		if (strcmp(f, pk[i]))
			continue;
		errno = 0;
		*dst[i] = strtod(eq, &end);
		/* the negation also refuses a NaN */
		if (*end || errno || !(*dst[i] >= 0 && *dst[i] <= 1)) {
			*why = "a rate is a number from 0 to 1";
			return -1;
		}
		return 0;
	}
	if (!strcmp(f, "seed")) {
		unsigned long long v;

		errno = 0;
		v = strtoull(eq, &end, 10);
		if (*end || errno || eq[0] < '0' || eq[0] > '9') {
			*why = "seed is a decimal number below 2^64";
			return -1;
		}
		cfg->seed = v;
		return 0;
	}
	*why = "keys are drop, dup, reorder, delay, corrupt and seed";
	return -1;
}

int wi_fault_from_env(struct wqe_fault_cfg *cfg)
{
	const char *env = getenv("WQE_IBV_FAULT"), *why = NULL;
	char buf[256], *t = buf;

	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = 1;
	if (!env)
		return 0;
	if (strlen(env) >= sizeof(buf)) {
		why = "too long";
		goto bad;
	}
	memcpy(buf, env, strlen(env) + 1);
	/* every field, an empty one (",,", a trailing comma) refused */
	for (char *next; t; t = next) {
		next = strchr(t, ',');
		if (next)
			*next++ = 0;
		if (fault_field(t, cfg, &why))
			goto bad;
	}
	return cfg->drop > 0 || cfg->duplicate > 0 || cfg->reorder > 0 || cfg->delay > 0 ||
	       cfg->corrupt > 0;
bad:
	fprintf(stderr, "wqe: WQE_IBV_FAULT=%.64s: %s (e.g. drop=0.02,seed=7)\n", env, why);
	return -1;
}
