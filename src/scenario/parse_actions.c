/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: the action statements (post, recv, run, modify), the names
 * their requests use, and the line dispatcher, which hands each statement to
 * its handler (declarations: parse.c; expectations: parse_expect.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/sc_int.h"

#define FAILW(w, ...) sc_fail(err, l->no, (w)->col, __VA_ARGS__)

/* Names in requests: REGION (address), REGION.addr, .lkey, .rkey. Before a
 * run the values are stand-ins; during a run, the real ones. */
int sc_resolve(void *arg, const char *name, size_t len, enum wqe_text_ref kind, uint64_t *v)
{
	struct wqe_scenario *sc = arg;
	int k, i = sc_find(sc, name, len, &k);
	const struct sc_region *r;

	if (i < 0 || k != OBJ_REG)
		return -1;
	r = &sc->reg[i];
	if (!r->mr) {
		*v = kind == WQE_TEXT_REF_ADDR ? 0x1000 : 0x100;
		return 0;
	}
	*v = kind == WQE_TEXT_REF_ADDR ? (uint64_t)(uintptr_t)r->base
	     : kind == WQE_TEXT_REF_LKEY ? r->mr->lkey : r->mr->rkey;
	return 0;
}

static int errno_of(const struct sc_word *w, int *e)
{
	static const struct {
		const char *n;
		int v;
	} t[] = {{"EINVAL", EINVAL}, {"ENOMEM", ENOMEM}, {"0", 0}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i].n) == (size_t)(w->len - 7) && !memcmp(w->s + 7, t[i].n, w->len - 7)) {
			*e = t[i].v;
			return 0;
		}
	return -1;
}

/*
 * The request words of a post/recv line, joined with single spaces into
 * @st->text form that wqe_parse_send_wr() reads, leaving out expect= and
 * dest=. @cols maps each joined word back to its column.
 */
static int join(struct sc_stmt *st, const struct sc_line *l, uint32_t first, const char *prefix,
		uint32_t *cols, uint32_t *offs, uint32_t *nwords)
{
	size_t n = strlen(prefix), k = 0;
	char *t = st->text;

	memcpy(t, prefix, n);
	for (uint32_t i = first; i < l->nw; i++) {
		const struct sc_word *w = &l->w[i];

		if (sc_key(w, "expect") || sc_key(w, "dest"))
			continue;
		if (n && t[n - 1] != ' ')
			t[n++] = ' ';
		offs[k] = (uint32_t)n;
		cols[k++] = w->col;
		memmove(t + n, w->s, w->len); /* words only move left */
		n += w->len;
	}
	t[n] = 0;
	st->req_off = 0;
	st->req_len = n;
	*nwords = (uint32_t)k;
	return 0;
}

static uint32_t map_col(uint32_t c, const uint32_t *cols, const uint32_t *offs, uint32_t n,
			uint32_t fallback)
{
	for (uint32_t k = n; k-- > 0;)
		if (c >= offs[k] + 1)
			return cols[k] + (c - offs[k] - 1);
	return fallback;
}

static int st_post(struct wqe_scenario *sc, struct sc_line *l, int recv,
		   struct wqe_scenario_err *err)
{
	uint32_t cols[SC_MAX_WORDS], offs[SC_MAX_WORDS], nwords;
	struct wqe_text_opts o = {WQE_QPT_RC, sc_resolve, sc};
	const struct sc_word *w = NULL;
	struct wqe_text_err te;
	struct sc_stmt *st;
	int q;

	if (sc_need(l, 3, recv ? "'recv QP sge=...'" : "'post QP OPCODE ...'", err))
		return -1;
	if ((q = sc_ref(sc, l, &l->w[1], OBJ_QP, err)) < 0)
		return -1;
	for (uint32_t i = 2; i < l->nw; i++) {
		if (sc_key(&l->w[i], "expect")) {
			if (w)
				return FAILW(&l->w[i], "key 'expect' given twice");
			w = &l->w[i];
		}
		if (sc_key(&l->w[i], "dest") && (recv || sc->qp[q].type != WQE_QPT_UD))
			return FAILW(&l->w[i], "dest= names the destination QP of a UD send");
		if (sc_key(&l->w[i], "dest")) {
			const struct sc_word *d = &l->w[i];
			struct sc_word name = {d->eq + 1, d->len - 5, d->col + 5, NULL};
			int dq = sc_ref(sc, l, &name, OBJ_QP, err);

			if (dq < 0)
				return -1;
			if (sc->qp[dq].type != WQE_QPT_UD)
				return FAILW(&name, "dest= must name a UD QP");
		}
	}
	for (uint32_t i = 2; recv && i < l->nw; i++)
		if (!sc_key(&l->w[i], "id") && !sc_key(&l->w[i], "sge") &&
		    !sc_key(&l->w[i], "expect"))
			return FAILW(&l->w[i], "a receive takes only id= and sge= (and expect=)");
	if (!(st = sc_add(sc, recv ? ST_RECV : ST_POST, l)))
		return -ENOMEM;
	st->a = q;
	if (w && errno_of(w, &st->expect_errno))
		return FAILW(w, "expected expect=EINVAL, expect=ENOMEM or expect=0");
	for (uint32_t i = 2; i < l->nw; i++)
		if (sc_key(&l->w[i], "dest")) {
			int k;

			st->b = sc_find(sc, l->w[i].eq + 1, l->w[i].len - 5, &k);
			st->n1 = 1;
		}
	join(st, l, 2, recv ? "send " : "", cols, offs, &nwords);
	o.qp_type = recv ? WQE_QPT_RC : sc->qp[q].type;
	if (wqe_parse_send_wr(st->text, st->req_len, &o, &sc->req, &te)) {
		uint32_t c = map_col(te.column, cols, offs, nwords, l->w[2].col);

		return sc_fail(err, l->no, c, "%s", te.msg);
	}
	if (recv && (sc->req.wr.send_flags || sc->req.wr.imm_data))
		return FAILW(&l->w[2], "a receive takes only id= and sge= (and expect=)");
	return 0;
}

static int st_run(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	static const char *const keys[] = {"steps", "max_rounds", NULL};
	const struct sc_word *w;
	struct sc_stmt *st;

	if (sc_check_keys(l, 1, keys, err) || !(st = sc_add(sc, ST_RUN, l)))
		return -1;
	st->max_rounds = 1000000;
	if ((w = sc_get(l, 1, "steps")) && sc_num(l, w, 100000000, &st->steps, err))
		return -1;
	if ((w = sc_get(l, 1, "max_rounds")) && sc_num(l, w, 100000000, &st->max_rounds, err))
		return -1;
	return 0;
}

static int state_of(const struct sc_word *w, const char *s, size_t n, enum wqe_qp_state *out)
{
	(void)w;
	for (int i = WQE_QPS_RESET; i <= WQE_QPS_ERR; i++) {
		const char *name = wqe_qp_state_str((enum wqe_qp_state)i);

		if (strlen(name) == n && !memcmp(name, s, n)) {
			*out = (enum wqe_qp_state)i;
			return 0;
		}
	}
	return -1;
}

static int st_modify(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	static const char *const keys[] = {"state", NULL};
	const struct sc_word *w;
	struct sc_stmt *st;
	int q;

	if (sc_need(l, 3, "'modify QP state=STATE'", err) ||
	    (q = sc_ref(sc, l, &l->w[1], OBJ_QP, err)) < 0 || sc_check_keys(l, 2, keys, err))
		return -1;
	if (!(w = sc_get(l, 2, "state")))
		return FAILW(&l->w[2], "expected state=STATE");
	if (!(st = sc_add(sc, ST_MODIFY, l)))
		return -ENOMEM;
	st->a = q;
	if (state_of(w, sc_val(w), sc_vlen(w), &st->state))
		return FAILW(w, "expected a QP state: RESET INIT RTR RTS SQD SQE ERR");
	return 0;
}

static int dispatch(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	static const struct {
		const char *kw;
		int (*fn)(struct wqe_scenario *, struct sc_line *, struct wqe_scenario_err *);
	} tab[] = {
		{"endpoint", sc_st_endpoint}, {"link", sc_st_link},       {"qp", sc_st_qp},
		{"mr", sc_st_mr},             {"connect", sc_st_connect}, {"run", st_run},
		{"modify", st_modify},        {"expect", sc_parse_expect},
	};

	if (sc_word_is(&l->w[0], "post"))
		return st_post(sc, l, 0, err);
	if (sc_word_is(&l->w[0], "recv"))
		return st_post(sc, l, 1, err);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (sc_word_is(&l->w[0], tab[i].kw))
			return tab[i].fn(sc, l, err);
	return FAILW(&l->w[0], "unknown keyword '%.*s': expected endpoint, link, qp, mr, "
			       "connect, post, recv, run, modify or expect",
		     (int)l->w[0].len, l->w[0].s);
}

/*
 * A line may start with "mlx5:" or "rxe:": its statement runs only when
 * the scenario runs on that WQE format (for numbers that follow from the
 * layout, such as WQE fetch blocks). Declarations cannot depend on it.
 */
static int format_prefix(struct sc_line *l, int *only, struct wqe_scenario_err *err)
{
	const struct sc_word *w = &l->w[0];
	static const char *const decl[] = {"endpoint", "link", "qp", "mr", "connect"};

	*only = 0;
	if (w->len < 2 || w->s[w->len - 1] != ':')
		return 0;
	if (sc_word_is(w, "mlx5:"))
		*only = 1 + WQE_FORMAT_MLX5;
	else if (sc_word_is(w, "rxe:"))
		*only = 1 + WQE_FORMAT_RXE;
	else
		return FAILW(w, "unknown format prefix '%.*s': expected mlx5: or rxe:", (int)w->len,
			     w->s);
	memmove(&l->w[0], &l->w[1], (l->nw - 1) * sizeof(l->w[0]));
	l->nw--;
	if (l->nw == 0)
		return sc_fail(err, l->no, w->col + (uint32_t)w->len, "expected a statement after "
								   "the format prefix");
	for (size_t i = 0; i < sizeof(decl) / sizeof(decl[0]); i++)
		if (sc_word_is(&l->w[0], decl[i]))
			return FAILW(&l->w[0], "a declaration cannot depend on the format");
	return 0;
}

int sc_parse_line(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	size_t before = sc->nst;
	int only, r;

	if (l->nw == 0)
		return 0;
	if (format_prefix(l, &only, err))
		return -1;
	r = dispatch(sc, l, err);
	for (size_t i = before; i < sc->nst; i++)
		sc->st[i].only_fmt = only;
	return r;
}
