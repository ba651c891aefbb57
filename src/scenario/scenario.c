/* SPDX-License-Identifier: MIT */
/* Scenario files: parsing a whole file, freeing, the run loop. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/sc_int.h"

struct wqe_scenario *wqe_scenario_parse(const char *name, const char *text, size_t len,
					struct wqe_scenario_err *err)
{
	struct wqe_scenario *sc = calloc(1, sizeof(*sc));
	struct sc_line *l = malloc(sizeof(*l));
	size_t pos = 0;
	uint32_t no = 0;

	/* The verdict must not depend on what the caller's struct held. */
	if (err)
		memset(err, 0, sizeof(*err));
	if (!sc || !l || !(sc->name = strdup(name ? name : "scenario"))) {
		free(sc);
		free(l);
		errno = ENOMEM;
		return NULL;
	}
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		int r;

		no++;
		if (end - pos > 4096 || memchr(text + pos, 0, end - pos)) {
			sc_fail(err, no, 1, end - pos > 4096 ? "line longer than 4096 bytes"
							     : "NUL byte in the line");
			goto bad;
		}
		r = sc_split(l, text + pos, end - pos, no, err);
		if (!r)
			r = sc_parse_line(sc, l, err);
		if (r) {
			if (r == -ENOMEM) {
				free(l);
				wqe_scenario_free(sc);
				errno = ENOMEM;
				return NULL;
			}
			if (err && err->line == 0)
				err->line = no;
			goto bad;
		}
		pos = end + 1;
	}
	if (sc->nep == 0) {
		sc_fail(err, no ? no : 1, 1, "no endpoint declared: a scenario needs at least one");
		goto bad;
	}
	free(l);
	return sc;
bad:
	free(l);
	wqe_scenario_free(sc);
	errno = EINVAL;
	return NULL;
}

static void teardown(struct wqe_scenario *sc)
{
	for (uint32_t i = 0; i < sc->nqp; i++) {
		struct sc_qp *q = &sc->qp[i];

		for (uint32_t k = 0; k < SC_MAX_OBJ; k++)
			if (q->ah_to[k])
				wqe_destroy_ah(q->ah_to[k]);
		if (q->qp)
			wqe_destroy_qp(q->qp);
		if (q->scq)
			wqe_destroy_cq(q->scq);
		if (q->rcq)
			wqe_destroy_cq(q->rcq);
		free(q->sent.e);
		free(q->recvd.e);
		memset(&q->ah_to, 0, sizeof(q->ah_to));
		q->qp = NULL;
		q->scq = q->rcq = NULL;
		q->last_rx_req = 0;
		memset(&q->sent, 0, sizeof(q->sent));
		memset(&q->recvd, 0, sizeof(q->recvd));
	}
	for (uint32_t i = 0; i < sc->nreg; i++) {
		if (sc->reg[i].mr)
			wqe_dereg_mr(sc->reg[i].mr);
		free(sc->reg[i].alloc);
		sc->reg[i].mr = NULL;
		sc->reg[i].alloc = sc->reg[i].base = NULL;
	}
	for (uint32_t i = 0; i < sc->nep; i++) {
		struct sc_endpoint *e = &sc->ep[i];

		if (e->pd)
			wqe_dealloc_pd(e->pd);
		if (e->ctx) {
			wqe_context_attach_link(e->ctx, NULL);
			wqe_close_context(e->ctx);
		}
		free(e->ops.op);
		e->ctx = NULL;
		e->pd = NULL;
		memset(&e->ops, 0, sizeof(e->ops));
		e->packets = 0;
	}
	if (sc->link && sc->link != sc->loop)
		wqe_link_destroy(sc->link);
	if (sc->loop)
		wqe_link_destroy(sc->loop);
	sc->link = sc->loop = NULL;
	free(sc->reqs);
	sc->reqs = NULL;
	sc->nreqs = sc->capreqs = sc->settled_lo = 0;
}

void wqe_scenario_free(struct wqe_scenario *sc)
{
	if (!sc)
		return;
	teardown(sc);
	for (size_t i = 0; i < sc->nst; i++) {
		free(sc->st[i].text);
		free(sc->st[i].bytes);
		free(sc->st[i].ops);
	}
	for (uint32_t i = 0; i < sc->nreg; i++)
		free(sc->reg[i].fill_bytes);
	free(sc->st);
	free(sc->name);
	free(sc);
}

static int open_link(struct wqe_scenario *sc, struct wqe_scenario_err *err)
{
	struct wqe_fault_cfg f = sc->faults;

	sc->loop = wqe_link_loopback_create();
	if (!sc->loop)
		return sc_fail(err, 0, 0, "cannot create the loopback link");
	if (sc->opts->seed_set)
		f.seed = sc->opts->seed;
	sc->link = sc->faulty ? wqe_link_fault_create(sc->loop, &f) : sc->loop;
	if (!sc->link)
		return sc_fail(err, 0, 0, "cannot create the fault injector");
	return 0;
}

int wqe_scenario_run(struct wqe_scenario *sc, const struct wqe_scenario_opts *opts,
		     struct wqe_scenario_result *res, struct wqe_scenario_err *err)
{
	static const struct wqe_scenario_opts none;
	char *tmp = NULL;
	int rc = 0;

	if (!sc)
		return -1;
	teardown(sc);
	memset(&sc->res, 0, sizeof(sc->res));
	sc->opts = opts ? opts : &none;
	sc->ran = true;
	for (size_t i = 0; i < sc->nst; i++)
		sc->st[i].checked = sc->st[i].passed = false;
	if (open_link(sc, err))
		rc = -1;
	if (!rc && sc->opts->pcap) {
		size_t n = strlen(sc->opts->pcap) + 8;

		tmp = malloc(n);
		if (tmp)
			snprintf(tmp, n, "%s.tmp", sc->opts->pcap);
		sc->pcap = tmp ? wqe_pcap_open(tmp) : NULL;
		if (!sc->pcap)
			rc = sc_fail(err, 0, 0, "cannot write %s: %s", sc->opts->pcap,
				     strerror(errno ? errno : EIO));
	}
	for (size_t i = 0; !rc && i < sc->nst; i++) {
		/* mlx5:/rxe: lines run on their format only (the first endpoint's). */
		if (sc->st[i].only_fmt && sc->st[i].only_fmt - 1 != (int)sc->ep[0].format)
			continue;
		rc = sc_exec(sc, &sc->st[i], err);
		sc->res.statements++;
	}
	sc_settle(sc);
	if (sc->pcap) {
		wqe_pcap_close(sc->pcap);
		sc->pcap = NULL;
		/* A failed expectation still leaves a whole capture of what ran. */
		if (rc >= 0 && rename(tmp, sc->opts->pcap))
			rc = sc_fail(err, 0, 0, "cannot write %s: %s", sc->opts->pcap, strerror(errno));
		if (rc < 0)
			remove(tmp);
	}
	free(tmp);
	if (res)
		*res = sc->res;
	return rc;
}

int wqe_scenario_endpoint(const struct wqe_scenario *sc, uint32_t i,
			  struct wqe_scenario_endpoint_info *out)
{
	if (!sc || !out || i >= sc->nep)
		return -1;
	out->name = sc->ep[i].name;
	out->gid = sc->ep[i].gid;
	memcpy(out->mac, sc->ep[i].mac, 6);
	out->format = sc->ep[i].format;
	return 0;
}

int wqe_scenario_qp(const struct wqe_scenario *sc, uint32_t i, struct wqe_scenario_qp_info *out)
{
	if (!sc || !out || i >= sc->nqp)
		return -1;
	out->name = sc->qp[i].name;
	out->endpoint = sc->qp[i].ep;
	out->type = sc->qp[i].type;
	out->qpn = sc->qp[i].qp ? wqe_qp_num(sc->qp[i].qp) : 0;
	return 0;
}
