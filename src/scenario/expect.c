/* SPDX-License-Identifier: MIT */
/* Scenario files: checking expectations (expected versus actual). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/sc_int.h"

static int verdict(struct wqe_scenario *sc, struct sc_stmt *st, bool ok)
{
	st->checked = true;
	st->passed = ok;
	sc->res.expectations++;
	sc->res.passed += ok;
	return ok ? 0 : 1;
}

static void wc_text(const struct wqe_wc *wc, char *buf, size_t n)
{
	snprintf(buf, n, "id=%" PRIu64 " status=%s opcode=%s byte_len=%u", wc->wr_id,
		 wqe_wc_status_str(wc->status), wqe_wc_opcode_str(wc->opcode), wc->byte_len);
}

static uint32_t imm_value(const struct wqe_wc *wc)
{
	const uint8_t *b = (const uint8_t *)&wc->imm_data;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static int check_cqe(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	struct sc_qp *q = &sc->qp[st->a];
	struct sc_cqlist *cl = st->queue ? &q->recvd : &q->sent;
	const struct wqe_wc *wc;
	struct wqe_wc want = st->cqe;
	const struct wqe_wc *x = &want;
	char got[160];

	sc_poll_all(sc);
	if (cl->next == cl->n) {
		verdict(sc, st, false);
		return sc_miss(err, st->line, "expected a %s completion on %s, got none",
			       st->queue ? "receive" : "send", q->name);
	}
	if ((st->cqe_mask & 32) && st->n3) {
		const struct wqe_mr *mr = sc->reg[st->reg2].mr;

		want.invalidated_rkey = st->n3 == 1 ? mr->rkey : mr->lkey;
	}
	wc = &cl->e[cl->next].wc;
	cl->e[cl->next++].matched = true;
	wc_text(wc, got, sizeof(got));
#define FIELD(bit, cond, ...)                                                            \
	if ((st->cqe_mask & (bit)) && !(cond)) {                                         \
		verdict(sc, st, false);                                                  \
		return sc_miss(err, st->line, __VA_ARGS__);                           \
	}
	FIELD(1, wc->wr_id == x->wr_id, "expected id=%" PRIu64 ", got %s", x->wr_id, got)
	FIELD(2, wc->status == x->status, "expected status=%s, got %s",
	      wqe_wc_status_str(x->status), got)
	FIELD(4, wc->opcode == x->opcode, "expected opcode=%s, got %s",
	      wqe_wc_opcode_str(x->opcode), got)
	FIELD(8, wc->byte_len == x->byte_len, "expected byte_len=%u, got %s", x->byte_len, got)
	FIELD(16, (wc->wc_flags & WQE_WC_WITH_IMM) && imm_value(wc) == x->imm_data,
	      "expected imm=0x%08x, got %s (%s0x%08x)", x->imm_data, got,
	      wc->wc_flags & WQE_WC_WITH_IMM ? "imm=" : "no immediate, ", imm_value(wc))
	FIELD(32, (wc->wc_flags & WQE_WC_WITH_INV) && wc->invalidated_rkey == x->invalidated_rkey,
	      "expected inv=0x%08x, got %s (%s0x%08x)", x->invalidated_rkey, got,
	      wc->wc_flags & WQE_WC_WITH_INV ? "inv=" : "no invalidation, ",
	      wc->invalidated_rkey)
	FIELD(64, wc->src_qp == wqe_qp_num(sc->qp[st->b].qp), "expected src_qp=0x%06x (%s), got 0x%06x",
	      wqe_qp_num(sc->qp[st->b].qp), sc->qp[st->b].name, wc->src_qp)
#undef FIELD
	return verdict(sc, st, true);
}

static void hexstr(const uint8_t *p, size_t n, char *buf, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 3 < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%02x", p[i]);
	if (n * 2 + 1 > cap && cap > 4)
		memcpy(buf + cap - 4, "...", 4);
}

static int check_mem(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	const struct sc_region *r = &sc->reg[st->a];
	const uint8_t *got = r->base + st->n1;
	uint8_t *exp = malloc(st->n2 ? st->n2 : 1);
	char a[80], b[80];
	uint64_t i;

	if (!exp)
		return sc_fail(err, st->line, 0, "out of memory"); /* -1: not a verdict */
	switch (st->mem_mode) {
	case 0: memcpy(exp, sc->reg[st->reg2].base + st->off2, st->n2); break;
	case 1: memcpy(exp, st->bytes, st->n2); break;
	case 2: memset(exp, (int)st->n3, st->n2); break;
	default: sc_pattern(exp, st->n2, st->n3, 0); break;
	}
	for (i = 0; i < st->n2 && got[i] == exp[i]; i++)
		;
	if (i == st->n2) {
		free(exp);
		return verdict(sc, st, true);
	}
	hexstr(exp + i, st->n2 - i < 16 ? st->n2 - i : 16, b, sizeof(b));
	hexstr(got + i, st->n2 - i < 16 ? st->n2 - i : 16, a, sizeof(a));
	free(exp);
	verdict(sc, st, false);
	return sc_miss(err, st->line, "%s+%" PRIu64 ": expected %s, got %s", r->name,
		       st->n1 + i, b, a);
}

static int check_canaries(struct wqe_scenario *sc, struct sc_stmt *st,
			  struct wqe_scenario_err *err)
{
	for (uint32_t k = 0; k < sc->nreg; k++) {
		const struct sc_region *r = &sc->reg[k];

		if (!r->alloc)
			continue;
		for (uint32_t i = 0; i < SC_CANARY; i++) {
			const uint8_t *lo = r->alloc + i, *hi = r->base + r->size + i;

			if (*lo != SC_CANARY_BYTE || *hi != SC_CANARY_BYTE) {
				verdict(sc, st, false);
				return sc_miss(err, st->line,
					       "canary of region '%s' changed: byte %s%u",
					       r->name, *lo != SC_CANARY_BYTE ? "-" : "+",
					       *lo != SC_CANARY_BYTE ? SC_CANARY - i
								     : (uint32_t)r->size + i);
			}
		}
	}
	return verdict(sc, st, true);
}

static int check_opcodes(struct wqe_scenario *sc, struct sc_stmt *st,
			 struct wqe_scenario_err *err)
{
	const struct sc_endpoint *e = &sc->ep[st->a];
	size_t i;

	for (i = 0; i < st->nops && i < e->ops.n && st->ops[i] == e->ops.op[i]; i++)
		;
	if (i == st->nops && i == e->ops.n)
		return verdict(sc, st, true);
	verdict(sc, st, false);
	if (i < st->nops && i < e->ops.n)
		return sc_miss(err, st->line, "packet %zu of %s: expected %s, got %s", i + 1,
			       e->name, wqe_wire_opcode_str(st->ops[i]),
			       wqe_wire_opcode_str(e->ops.op[i]));
	if (i < st->nops)
		return sc_miss(err, st->line, "%s sent %zu packets, expected %zu (next: %s)",
			       e->name, e->ops.n, st->nops, wqe_wire_opcode_str(st->ops[i]));
	return sc_miss(err, st->line, "%s sent %zu packets, expected %zu (extra: %s)", e->name,
		       e->ops.n, st->nops, wqe_wire_opcode_str(e->ops.op[i]));
}

static uint64_t stat_of(const struct wqe_qp_stats *s, const char *name)
{
	const char *const *names = sc_stat_names();
	const uint64_t *v = (const uint64_t *)(const void *)s;

	/* The names are in the order of struct wqe_qp_stats, all uint64_t. */
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return v[i];
	return 0;
}

int sc_expect(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	struct sc_qp *q = &sc->qp[st->a];

	switch (st->kind) {
	case ST_EXPECT_CQE:
		return check_cqe(sc, st, err);
	case ST_EXPECT_NO_CQE: {
		struct sc_cqlist *cl = st->queue ? &q->recvd : &q->sent;
		char got[160];

		sc_poll_all(sc);
		if (cl->next == cl->n)
			return verdict(sc, st, true);
		wc_text(&cl->e[cl->next].wc, got, sizeof(got));
		verdict(sc, st, false);
		return sc_miss(err, st->line, "expected no more %s completions on %s, got %s",
			       st->queue ? "receive" : "send", q->name, got);
	}
	case ST_EXPECT_MEM:
		return check_mem(sc, st, err);
	case ST_EXPECT_CANARIES:
		return check_canaries(sc, st, err);
	case ST_EXPECT_PACKETS: {
		const struct sc_endpoint *e = &sc->ep[st->a];

		if (e->packets == st->n1)
			return verdict(sc, st, true);
		verdict(sc, st, false);
		return sc_miss(err, st->line, "expected %s to have sent %" PRIu64
			       " packets, got %" PRIu64, e->name, st->n1, e->packets);
	}
	case ST_EXPECT_OPCODES:
		return check_opcodes(sc, st, err);
	case ST_EXPECT_STATE: {
		struct wqe_qp_attr a;

		wqe_query_qp(q->qp, &a, 0, NULL);
		if (a.qp_state == st->state)
			return verdict(sc, st, true);
		verdict(sc, st, false);
		return sc_miss(err, st->line, "expected %s in %s, got %s", q->name,
			       wqe_qp_state_str(st->state), wqe_qp_state_str(a.qp_state));
	}
	case ST_EXPECT_STAT: {
		struct wqe_qp_stats s;
		uint64_t v;

		wqe_query_qp_stats(q->qp, &s);
		v = stat_of(&s, st->stat);
		if (v == st->n1)
			return verdict(sc, st, true);
		verdict(sc, st, false);
		return sc_miss(err, st->line, "expected %s %s=%" PRIu64 ", got %" PRIu64,
			       q->name, st->stat, st->n1, v);
	}
	default:
		return 0;
	}
}
