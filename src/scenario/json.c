/* SPDX-License-Identifier: MIT */
/* Scenario files: the results of a run as JSON. */
#include <inttypes.h>
#include <string.h>

#include "scenario/sc_int.h"

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void cqes(const struct wqe_scenario *sc, FILE *f)
{
	bool first = true;

	fprintf(f, "\"completions\":[");
	for (uint32_t i = 0; i < sc->nqp; i++)
		for (int k = 0; k < 2; k++) {
			const struct sc_cqlist *cl = k ? &sc->qp[i].recvd : &sc->qp[i].sent;

			for (size_t j = 0; j < cl->n; j++) {
				const struct wqe_wc *wc = &cl->e[j].wc;

				fprintf(f, "%s{\"endpoint\":", first ? "" : ",");
				jstr(f, sc->ep[sc->qp[i].ep].name);
				fprintf(f, ",\"qp\":");
				jstr(f, sc->qp[i].name);
				fprintf(f, ",\"queue\":\"%s\",\"wr_id\":%" PRIu64 ",\"status\":\"%s\","
					   "\"opcode\":\"%s\",\"byte_len\":%u,\"wc_flags\":%u,"
					   "\"qp_num\":%u,\"src_qp\":%u}",
					k ? "recv" : "send", wc->wr_id, wqe_wc_status_str(wc->status),
					wqe_wc_opcode_str(wc->opcode), wc->byte_len, wc->wc_flags,
					wc->qp_num, wc->src_qp);
				first = false;
			}
		}
	fprintf(f, "]");
}

static void counters(const struct wqe_scenario *sc, FILE *f)
{
	const char *const *names = sc_stat_names();

	fprintf(f, "\"counters\":{");
	for (uint32_t i = 0; i < sc->nqp; i++) {
		struct wqe_qp_stats s;
		const uint64_t *v = (const uint64_t *)(const void *)&s;

		memset(&s, 0, sizeof(s));
		if (sc->qp[i].qp)
			wqe_query_qp_stats(sc->qp[i].qp, &s);
		fprintf(f, "%s", i ? "," : "");
		jstr(f, sc->qp[i].name);
		fprintf(f, ":{");
		for (size_t k = 0; names[k]; k++)
			fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", names[k], v[k]);
		fprintf(f, "}");
	}
	fprintf(f, "}");
}

static void expectations(const struct wqe_scenario *sc, FILE *f)
{
	bool first = true;

	fprintf(f, "\"expectations\":[");
	for (size_t i = 0; i < sc->nst; i++) {
		const struct sc_stmt *st = &sc->st[i];
		bool is_expect = st->kind >= ST_EXPECT_CQE ||
				 ((st->kind == ST_POST || st->kind == ST_RECV) && st->expect_errno);

		if (!is_expect)
			continue;
		fprintf(f, "%s{\"line\":%u,\"text\":", first ? "" : ",", st->line);
		jstr(f, st->text);
		fprintf(f, ",\"verdict\":\"%s\"}",
			!st->checked ? "not reached" : st->passed ? "pass" : "FAIL");
		first = false;
	}
	fprintf(f, "]");
}

int wqe_scenario_write_json(const struct wqe_scenario *sc, FILE *f)
{
	if (!sc || !f)
		return -1;
	fprintf(f, "{\"scenario\":");
	jstr(f, sc->name);
	fprintf(f, ",\"result\":{\"statements\":%u,\"expectations\":%u,\"passed\":%u,"
		   "\"posts\":%u,\"packets\":%" PRIu64 ",\"completions\":%" PRIu64 "},",
		sc->res.statements, sc->res.expectations, sc->res.passed, sc->res.posts,
		sc->res.packets, sc->res.cqes);
	cqes(sc, f);
	fputc(',', f);
	counters(sc, f);
	fputc(',', f);
	expectations(sc, f);
	fprintf(f, "}\n");
	return ferror(f) ? -1 : 0;
}
