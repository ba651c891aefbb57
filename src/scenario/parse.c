/* SPDX-License-Identifier: MIT */
/* Scenario files: the helpers every statement handler uses, and the
 * declarations (endpoint, link, qp, mr, connect); all check before storing. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/sc_int.h"

#define FAILW(w, ...) sc_fail(err, l->no, (w)->col, __VA_ARGS__)

const char *sc_val(const struct sc_word *w)
{
	return w->eq + 1;
}

size_t sc_vlen(const struct sc_word *w)
{
	return w->len - (size_t)(w->eq + 1 - w->s);
}

int sc_num(const struct sc_line *l, const struct sc_word *w, uint64_t max, uint64_t *v,
	       struct wqe_scenario_err *err)
{
	uint32_t col = w->col + (uint32_t)(w->eq + 1 - w->s);

	if (sc_u64(w, sc_val(w), sc_vlen(w), max, v, err, col)) {
		err->line = l->no;
		return -1;
	}
	return 0;
}

/* key=value words from @first on: each key at most once, from @keys. */
int sc_check_keys(const struct sc_line *l, uint32_t first, const char *const *keys,
		      struct wqe_scenario_err *err)
{
	for (uint32_t i = first; i < l->nw; i++) {
		const struct sc_word *w = &l->w[i];
		bool known = false;

		if (!w->eq)
			return FAILW(w, "expected key=value, got '%.*s'", (int)w->len, w->s);
		for (const char *const *k = keys; *k; k++)
			if (sc_key(w, *k))
				known = true;
		if (!known) {
			char list[400];
			size_t n = 0;

			list[0] = 0;
			for (const char *const *k = keys; *k && n < sizeof(list); k++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
						      k == keys ? "" : " ", *k);
			return FAILW(w, "unknown key '%.*s': expected one of %s",
				     (int)(w->eq - w->s), w->s, list);
		}
		for (uint32_t j = first; j < i; j++)
			if ((size_t)(l->w[j].eq - l->w[j].s) == (size_t)(w->eq - w->s) &&
			    !memcmp(l->w[j].s, w->s, (size_t)(w->eq - w->s)))
				return FAILW(w, "key '%.*s' given twice", (int)(w->eq - w->s), w->s);
	}
	return 0;
}

const struct sc_word *sc_get(const struct sc_line *l, uint32_t first, const char *key)
{
	for (uint32_t i = first; i < l->nw; i++)
		if (sc_key(&l->w[i], key))
			return &l->w[i];
	return NULL;
}

int sc_need(const struct sc_line *l, uint32_t n, const char *what,
		struct wqe_scenario_err *err)
{
	if (l->nw < n)
		return sc_fail(err, l->no, (uint32_t)l->len + 1, "expected %s", what);
	return 0;
}

/* A new, unique name. */
static int new_name(struct wqe_scenario *sc, const struct sc_line *l, const struct sc_word *w,
		    char *dst, struct wqe_scenario_err *err)
{
	int kind;

	if (w->eq || w->len == 0 || w->len >= SC_NAME_MAX ||
	    !((w->s[0] >= 'A' && w->s[0] <= 'Z') || (w->s[0] >= 'a' && w->s[0] <= 'z') ||
	      w->s[0] == '_'))
		return FAILW(w, "expected a name ([A-Za-z_][A-Za-z0-9_]*, under %u characters)",
			     SC_NAME_MAX);
	for (size_t i = 0; i < w->len; i++) {
		char c = w->s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return FAILW(w, "bad character '%c' in name", c);
	}
	if (sc_find(sc, w->s, w->len, &kind) >= 0)
		return FAILW(w, "name '%.*s' is already declared", (int)w->len, w->s);
	memcpy(dst, w->s, w->len);
	dst[w->len] = 0;
	return 0;
}

/* An existing object of @want kind. */
int sc_ref(struct wqe_scenario *sc, const struct sc_line *l, const struct sc_word *w,
	       int want, struct wqe_scenario_err *err)
{
	static const char *const kinds[] = {"", "endpoint", "QP", "region"};
	static const char *const a[] = {"a", "an", "a", "a"};
	int kind, i = sc_find(sc, w->s, w->len, &kind);

	if (i < 0)
		return FAILW(w, "undefined name '%.*s': expected a declared %s", (int)w->len,
			     w->s, kinds[want]);
	if (kind != want)
		return FAILW(w, "'%.*s' is %s %s, expected %s %s", (int)w->len, w->s, a[kind],
			     kinds[kind], a[want], kinds[want]);
	return i;
}

struct sc_stmt *sc_add(struct wqe_scenario *sc, enum sc_kind k, const struct sc_line *l)
{
	struct sc_stmt *st;

	if (sc->nst == sc->capst) {
		size_t nc = sc->capst ? sc->capst * 2 : 64;
		struct sc_stmt *ns = realloc(sc->st, nc * sizeof(*ns));

		if (!ns)
			return NULL;
		sc->st = ns;
		sc->capst = nc;
	}
	st = &sc->st[sc->nst++];
	memset(st, 0, sizeof(*st));
	st->kind = k;
	st->line = l->no;
	st->text = malloc(l->len + 1);
	if (!st->text) {
		sc->nst--;
		return NULL;
	}
	memcpy(st->text, l->text, l->len);
	st->text[l->len] = 0;
	return st;
}

static int parse_mac(const char *s, size_t len, uint8_t mac[6])
{
	unsigned v[6];
	char buf[32];

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (sscanf(buf, "%2x:%2x:%2x:%2x:%2x:%2x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6 ||
	    len != 17)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

/* The IPv4 or IPv6 literal of @len bytes at @s as a GID (IPv4 as
 * ::ffff:a.b.c.d): 0, or -1 if it is not one. */
static int parse_ip(const char *s, size_t len, union wqe_gid *gid)
{
	char buf[64];

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, buf, gid->raw + 12) == 1) {
		gid->raw[10] = gid->raw[11] = 0xff;
		return 0;
	}
	return inet_pton(AF_INET6, buf, gid->raw) == 1 ? 0 : -1;
}

int sc_st_endpoint(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	static const char *const keys[] = {"mac", "ip", "format", NULL};
	struct sc_endpoint *e = &sc->ep[sc->nep];
	const struct sc_word *w;

	if (sc_need(l, 2, "a name after 'endpoint'", err) || sc_check_keys(l, 2, keys, err))
		return -1;
	if (sc->nep == SC_MAX_OBJ)
		return FAILW(&l->w[1], "too many endpoints (at most %u)", SC_MAX_OBJ);
	if (sc->nep == 16)
		return FAILW(&l->w[1], "too many endpoints on one link (at most 16)");
	memset(e, 0, sizeof(*e));
	if (new_name(sc, l, &l->w[1], e->name, err))
		return -1;
	e->mac[0] = 0x02;
	e->mac[5] = (uint8_t)(sc->nep + 1);
	e->gid.raw[10] = e->gid.raw[11] = 0xff;
	e->gid.raw[12] = 192;
	e->gid.raw[14] = 2;
	e->gid.raw[15] = (uint8_t)(sc->nep + 1);
	if ((w = sc_get(l, 2, "mac")) && parse_mac(sc_val(w), sc_vlen(w), e->mac))
		return FAILW(w, "expected a MAC address like 02:00:00:00:00:01");
	if ((w = sc_get(l, 2, "ip")) && parse_ip(sc_val(w), sc_vlen(w), &e->gid))
		return FAILW(w, "expected an IPv4 or IPv6 address");
	if ((w = sc_get(l, 2, "format"))) {
		if (sc_vlen(w) == 4 && !memcmp(sc_val(w), "mlx5", 4))
			e->format = WQE_FORMAT_MLX5;
		else if (sc_vlen(w) == 3 && !memcmp(sc_val(w), "rxe", 3))
			e->format = WQE_FORMAT_RXE;
		else
			return FAILW(w, "unknown WQE format: expected mlx5 or rxe");
	}
	for (uint32_t i = 0; i < sc->nep; i++)
		if (!memcmp(sc->ep[i].mac, e->mac, 6))
			return FAILW(&l->w[1], "MAC address already used by endpoint '%s'",
				     sc->ep[i].name);
	if (!sc_add(sc, ST_ENDPOINT, l))
		return -ENOMEM;
	sc->st[sc->nst - 1].a = (int)sc->nep;
	sc->nep++;
	return 0;
}

static int prob(const struct sc_line *l, const struct sc_word *w, double *p,
		struct wqe_scenario_err *err)
{
	char buf[32], *end;
	size_t n = sc_vlen(w);

	if (n == 0 || n >= sizeof(buf))
		return FAILW(w, "expected a probability from 0 to 1");
	memcpy(buf, sc_val(w), n);
	buf[n] = 0;
	*p = strtod(buf, &end);
	if (*end || !(*p >= 0 && *p <= 1))
		return FAILW(w, "expected a probability from 0 to 1, got '%s'", buf);
	return 0;
}

int sc_st_link(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	static const char *const keys[] = {"drop", "dup", "reorder", "delay", "corrupt", "seed",
					   NULL};
	static const char *const pk[] = {"drop", "dup", "reorder", "delay", "corrupt"};
	double *dst[] = {&sc->faults.drop, &sc->faults.duplicate, &sc->faults.reorder,
			 &sc->faults.delay, &sc->faults.corrupt};
	const struct sc_word *w;

	if (sc_check_keys(l, 1, keys, err))
		return -1;
	if (sc->has_link)
		return FAILW(&l->w[0], "a second 'link': there is one link");
	for (size_t i = 0; i < sc->nst; i++)
		if (sc->st[i].kind == ST_CONNECT || sc->st[i].kind == ST_POST)
			return FAILW(&l->w[0], "'link' must come before the first connect or post");
	for (int i = 0; i < 5; i++)
		if ((w = sc_get(l, 1, pk[i]))) {
			if (prob(l, w, dst[i], err))
				return -1;
			sc->faulty |= *dst[i] > 0;
		}
	if ((w = sc_get(l, 1, "seed")) && sc_num(l, w, UINT64_MAX, &sc->faults.seed, err))
		return -1;
	sc->has_link = true;
	return sc_add(sc, ST_LINK, l) ? 0 : -ENOMEM;
}

static int mtu_of(uint64_t v, enum wqe_mtu *m)
{
	for (int i = WQE_MTU_256; i <= WQE_MTU_4096; i++)
		if (wqe_mtu_to_bytes((enum wqe_mtu)i) == v) {
			*m = (enum wqe_mtu)i;
			return 0;
		}
	return -1;
}

int sc_st_qp(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	static const char *const keys[] = {"pmtu", "max_send_wr", "max_recv_wr", "max_send_sge",
					   "max_recv_sge", "max_inline", "sig_all", "cq_depth",
					   NULL};
	struct sc_qp *q = &sc->qp[sc->nqp];
	const struct sc_word *w;
	uint64_t v;
	int ep;

	if (sc_need(l, 4, "'qp ENDPOINT NAME rc|uc|ud'", err))
		return -1;
	if ((ep = sc_ref(sc, l, &l->w[1], OBJ_EP, err)) < 0)
		return -1;
	if (sc->nqp == SC_MAX_OBJ)
		return FAILW(&l->w[2], "too many QPs (at most %u)", SC_MAX_OBJ);
	memset(q, 0, sizeof(*q));
	if (new_name(sc, l, &l->w[2], q->name, err))
		return -1;
	if (sc_word_is(&l->w[3], "rc"))
		q->type = WQE_QPT_RC;
	else if (sc_word_is(&l->w[3], "uc"))
		q->type = WQE_QPT_UC;
	else if (sc_word_is(&l->w[3], "ud"))
		q->type = WQE_QPT_UD;
	else
		return FAILW(&l->w[3], "expected a transport: rc, uc or ud");
	if (sc_check_keys(l, 4, keys, err))
		return -1;
	q->ep = (uint32_t)ep;
	q->peer = -1;
	q->mtu = WQE_MTU_1024;
	q->cap = (struct wqe_qp_cap){64, 64, 4, 4, 0};
	q->cq_depth = 1024;
	if ((w = sc_get(l, 4, "pmtu")) && (sc_num(l, w, 4096, &v, err) || mtu_of(v, &q->mtu)))
		return err->msg[0] ? -1 : FAILW(w, "expected a path MTU: 256 512 1024 2048 4096");
	if ((w = sc_get(l, 4, "max_send_wr")) && sc_num(l, w, 32768, &v, err))
		return -1;
	q->cap.max_send_wr = w ? (uint32_t)v : q->cap.max_send_wr;
	if ((w = sc_get(l, 4, "max_recv_wr")) && sc_num(l, w, 32768, &v, err))
		return -1;
	q->cap.max_recv_wr = w ? (uint32_t)v : q->cap.max_recv_wr;
	if ((w = sc_get(l, 4, "max_send_sge")) && sc_num(l, w, 64, &v, err))
		return -1;
	q->cap.max_send_sge = w ? (uint32_t)v : q->cap.max_send_sge;
	if ((w = sc_get(l, 4, "max_recv_sge")) && sc_num(l, w, 64, &v, err))
		return -1;
	q->cap.max_recv_sge = w ? (uint32_t)v : q->cap.max_recv_sge;
	if ((w = sc_get(l, 4, "max_inline")) && sc_num(l, w, 1008, &v, err))
		return -1;
	q->cap.max_inline_data = w ? (uint32_t)v : 0;
	if ((w = sc_get(l, 4, "sig_all")) && sc_num(l, w, 1, &v, err))
		return -1;
	q->sig_all = w ? (int)v : 0;
	if ((w = sc_get(l, 4, "cq_depth")) && sc_num(l, w, 65536, &v, err))
		return -1;
	q->cq_depth = w ? (uint32_t)v : q->cq_depth;
	if (!q->cap.max_send_wr || !q->cap.max_recv_wr || !q->cap.max_recv_sge || !q->cq_depth)
		return FAILW(&l->w[2], "max_send_wr, max_recv_wr, max_recv_sge and cq_depth must "
				       "be at least 1");
	{
		struct wqe_qp_cap c = q->cap;
		uint32_t wb, rb;

		if (wqe_calc_sq(WQE_FORMAT_MLX5, q->type, &c, &wb, &rb))
			return FAILW(&l->w[2], "capacities too large for one WQE of at most 1008 "
					       "bytes (max_send_sge, max_inline)");
	}
	if (!sc_add(sc, ST_QP, l))
		return -ENOMEM;
	sc->st[sc->nst - 1].a = (int)sc->nqp;
	sc->nqp++;
	return 0;
}

static int parse_access(const struct sc_line *l, const struct sc_word *w, unsigned *acc,
			struct wqe_scenario_err *err)
{
	static const struct {
		const char *n;
		unsigned v;
	} names[] = {{"local_write", WQE_ACCESS_LOCAL_WRITE},
		     {"remote_write", WQE_ACCESS_REMOTE_WRITE},
		     {"remote_read", WQE_ACCESS_REMOTE_READ},
		     {"remote_atomic", WQE_ACCESS_REMOTE_ATOMIC},
		     {"none", 0}};
	const char *s = sc_val(w), *end = s + sc_vlen(w);

	*acc = 0;
	while (s < end) {
		const char *c = memchr(s, ',', (size_t)(end - s));
		size_t n = (size_t)((c ? c : end) - s);
		bool ok = false;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].n) == n && !memcmp(names[i].n, s, n)) {
				*acc |= names[i].v;
				ok = true;
			}
		if (!ok)
			return sc_fail(err, l->no, w->col + (uint32_t)(s - w->s),
				       "unknown access '%.*s': expected local_write, remote_write, "
				       "remote_read, remote_atomic or none", (int)n, s);
		s += n + (c != NULL);
	}
	return 0;
}

int sc_st_mr(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	static const char *const keys[] = {"size", "access", "fill", NULL};
	struct sc_region *r = &sc->reg[sc->nreg];
	const struct sc_word *w;
	int ep;

	if (sc_need(l, 3, "'mr ENDPOINT NAME size=N'", err))
		return -1;
	if ((ep = sc_ref(sc, l, &l->w[1], OBJ_EP, err)) < 0)
		return -1;
	if (sc->nreg == SC_MAX_OBJ)
		return FAILW(&l->w[2], "too many regions (at most %u)", SC_MAX_OBJ);
	memset(r, 0, sizeof(*r));
	if (new_name(sc, l, &l->w[2], r->name, err) || sc_check_keys(l, 3, keys, err))
		return -1;
	r->ep = (uint32_t)ep;
	if (!(w = sc_get(l, 3, "size")))
		return FAILW(&l->w[2], "expected size=N after the region's name");
	if (sc_num(l, w, 64ull << 20, &r->size, err))
		return -1;
	if (!r->size)
		return FAILW(w, "a region has at least 1 byte");
	r->access = WQE_ACCESS_LOCAL_WRITE;
	if ((w = sc_get(l, 3, "access")) && parse_access(l, w, &r->access, err))
		return -1;
	if ((r->access & (WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_ATOMIC)) &&
	    !(r->access & WQE_ACCESS_LOCAL_WRITE))
		return FAILW(w, "remote_write and remote_atomic need local_write");
	if ((w = sc_get(l, 3, "fill"))) {
		const char *v = sc_val(w);
		size_t n = sc_vlen(w);
		struct sc_word tmp = *w;

		if (n == 4 && !memcmp(v, "zero", 4)) {
			r->fill = FILL_ZERO;
		} else if (n > 5 && !memcmp(v, "byte:", 5)) {
			r->fill = FILL_BYTE;
			if (sc_u64(&tmp, v + 5, n - 5, 255, &r->fill_arg, err, w->col + 10))
				return err->line = l->no, -1;
		} else if (n > 8 && !memcmp(v, "pattern:", 8)) {
			r->fill = FILL_PATTERN;
			if (sc_u64(&tmp, v + 8, n - 8, UINT64_MAX, &r->fill_arg, err, w->col + 13))
				return err->line = l->no, -1;
		} else if (n > 6 && !memcmp(v, "bytes:", 6)) {
			r->fill = FILL_BYTES;
			if (sc_hex(v + 6, n - 6, &r->fill_bytes, &r->nfill))
				return FAILW(w, "expected fill=bytes:HEX with an even number of hex "
						"digits");
		} else {
			return FAILW(w, "expected fill=zero, byte:B, pattern:SEED or bytes:HEX");
		}
	}
	if (!sc_add(sc, ST_MR, l))
		return -ENOMEM;
	sc->st[sc->nst - 1].a = (int)sc->nreg;
	sc->nreg++;
	return 0;
}

int sc_st_connect(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	static const char *const keys[] = {"timeout", "retry", "rnr_retry", "min_rnr_timer",
					   "rd_atomic", "psn", NULL};
	const struct sc_word *w;
	struct sc_stmt *st;
	uint64_t v;
	int a, b;

	if (sc_need(l, 3, "'connect QP QP'", err))
		return -1;
	if ((a = sc_ref(sc, l, &l->w[1], OBJ_QP, err)) < 0 || (b = sc_ref(sc, l, &l->w[2], OBJ_QP, err)) < 0)
		return -1;
	if (a == b)
		return FAILW(&l->w[2], "a QP cannot be connected to itself");
	if (sc->qp[a].type != sc->qp[b].type || sc->qp[a].type == WQE_QPT_UD)
		return FAILW(&l->w[2], "connect joins two RC or two UC QPs");
	if (sc->qp[a].ep == sc->qp[b].ep)
		return FAILW(&l->w[2], "the two QPs must be on different endpoints");
	for (size_t i = 0; i < sc->nst; i++)
		if (sc->st[i].kind == ST_CONNECT && (sc->st[i].a == a || sc->st[i].b == a ||
						     sc->st[i].a == b || sc->st[i].b == b))
			return FAILW(&l->w[1], "QP already connected (line %u)", sc->st[i].line);
	if (sc_check_keys(l, 3, keys, err))
		return -1;
	if (!(st = sc_add(sc, ST_CONNECT, l)))
		return -ENOMEM;
	st->a = a;
	st->b = b;
	sc->qp[a].peer = b;
	sc->qp[b].peer = a;
	st->timeout = 14;
	st->retry = 7;
	st->rnr_retry = 7;
	st->min_rnr = 1;
	st->rd_atomic = 16;
	st->psn = 0;
	if ((w = sc_get(l, 3, "timeout"))) {
		if (sc_num(l, w, 31, &v, err))
			return -1;
		st->timeout = (uint8_t)v;
	}
	if ((w = sc_get(l, 3, "retry"))) {
		if (sc_num(l, w, 7, &v, err))
			return -1;
		st->retry = (uint8_t)v;
	}
	if ((w = sc_get(l, 3, "rnr_retry"))) {
		if (sc_num(l, w, 7, &v, err))
			return -1;
		st->rnr_retry = (uint8_t)v;
	}
	if ((w = sc_get(l, 3, "min_rnr_timer"))) {
		if (sc_num(l, w, 31, &v, err))
			return -1;
		st->min_rnr = (uint8_t)v;
	}
	if ((w = sc_get(l, 3, "rd_atomic"))) {
		if (sc_num(l, w, 16, &v, err))
			return -1;
		st->rd_atomic = (uint8_t)v;
	}
	if ((w = sc_get(l, 3, "psn"))) {
		if (sc_num(l, w, 0xffffff, &v, err))
			return -1;
		st->psn = (uint32_t)v;
	}
	return 0;
}
