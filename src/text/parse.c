/* SPDX-License-Identifier: MIT */
/*
 * The one-line Work Request text form: the parser, of send requests and
 * (the recv opcode, id= and sge= only) receive requests. The grammar is
 * documented in wqe/text.h (tables in keys.c); docs/cli.md has examples.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "text/text_int.h"

struct parser {
	const char *s;
	size_t len; /* up to the comment or the end */
	const struct wqe_text_opts *opts;
	struct wqe_text_wr *out; /* a send request; NULL for a receive */
	struct wqe_sge *sge;     /* where sge= entries go (either request) */
	int *num_sge;
	uint64_t *wr_id;
	struct wqe_text_err *err;
	const struct text_opcode *op;
	uint32_t seen; /* TK_BIT of each key given */
};

__attribute__((format(printf, 3, 4))) static int perr(struct parser *p, size_t pos,
						       const char *fmt, ...)
{
	va_list ap;

	if (!p->err)
		return EINVAL;
	p->err->column = (uint32_t)pos + 1;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return EINVAL;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident(char c)
{
	return is_ident_start(c) || is_digit(c);
}

static size_t skip_space(const struct parser *p, size_t pos)
{
	while (pos < p->len && is_space(p->s[pos]))
		pos++;
	return pos;
}

static size_t token_end(const struct parser *p, size_t pos)
{
	while (pos < p->len && !is_space(p->s[pos]))
		pos++;
	return pos;
}

static int span_is(const struct parser *p, size_t b, size_t e, const char *word)
{
	size_t n = strlen(word);

	return e - b == n && memcmp(p->s + b, word, n) == 0;
}

/* Appends the names of the keys in @mask to @buf, space-separated. */
static void key_list(uint32_t mask, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int k = 0; k < TK_COUNT; k++) {
		if (!(mask & TK_BIT(k)) || n >= cap)
			continue;
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? " " : "", text_keys[k].name);
	}
}

/* The keys the current opcode takes on the current transport. */
static uint32_t op_keys(const struct parser *p)
{
	uint32_t keys = p->op->keys;

	if (p->opts->qp_type != WQE_QPT_UD)
		keys &= ~(uint32_t)TK_UD;
	return keys;
}

/* A plain number filling [b, e): decimal or 0x hex, at most @bits bits. */
static int parse_num(struct parser *p, size_t b, size_t e, const char *what, unsigned int bits,
		     uint64_t *v)
{
	uint64_t max = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
	unsigned int base = 10;
	size_t pos = b;
	uint64_t x = 0;

	if (e - b >= 2 && p->s[b] == '0' && (p->s[b + 1] == 'x' || p->s[b + 1] == 'X')) {
		base = 16;
		pos += 2;
		if (pos == e || hex_val(p->s[pos]) < 0)
			return perr(p, pos, "expected hex digits after '0x' %s", what);
	} else if (pos == e || !is_digit(p->s[pos])) {
		return perr(p, pos, "expected a number %s", what);
	}
	for (; pos < e; pos++) {
		int d = base == 16 ? hex_val(p->s[pos]) : (is_digit(p->s[pos]) ? p->s[pos] - '0' : -1);

		if (d < 0)
			return perr(p, pos, "unexpected '%c' in the number %s", p->s[pos], what);
		if (x > (UINT64_MAX - (uint64_t)d) / base)
			return perr(p, b, "number out of range %s: at most 0x%llx (%u bits)", what,
				    (unsigned long long)max, bits);
		x = x * base + (uint64_t)d;
	}
	if (x > max)
		return perr(p, b, "number out of range %s: at most 0x%llx (%u bits)", what,
			    (unsigned long long)max, bits);
	*v = x;
	return 0;
}

/* The kind a .addr/.lkey/.rkey suffix at [b, e) names, or -1. */
static int suffix_kind(const struct parser *p, size_t b, size_t e)
{
	if (span_is(p, b, e, "addr"))
		return WQE_TEXT_REF_ADDR;
	if (span_is(p, b, e, "lkey"))
		return WQE_TEXT_REF_LKEY;
	if (span_is(p, b, e, "rkey"))
		return WQE_TEXT_REF_RKEY;
	return -1;
}

static const char *article(enum wqe_text_ref kind)
{
	return kind == WQE_TEXT_REF_ADDR ? "an" : "a";
}

static int resolve_name(struct parser *p, size_t b, size_t ne, enum wqe_text_ref kind,
			const char *what, uint64_t *v)
{
	int n = (int)(ne - b);

	if (!p->opts->resolve)
		return perr(p, b, "expected a number %s ('%.*s' is a name, and no resolver was given)",
			    what, n, p->s + b);
	if (p->opts->resolve(p->opts->arg, p->s + b, ne - b, kind, v) != 0)
		return perr(p, b, "cannot resolve '%.*s' as %s %s %s", n, p->s + b, article(kind),
			    wqe_text_ref_str(kind), what);
	if (kind != WQE_TEXT_REF_ADDR && *v > UINT32_MAX)
		return perr(p, b, "'%.*s' resolves to 0x%llx: more than 32 bits for a key", n,
			    p->s + b, (unsigned long long)*v);
	return 0;
}

/* name[.addr|.lkey|.rkey][+OFFSET] filling [b, e), resolved as @kind. */
static int parse_name(struct parser *p, size_t b, size_t e, enum wqe_text_ref kind,
		      const char *what, uint64_t *v)
{
	size_t ne = b, pos;
	uint64_t off = 0;
	int rc;

	while (ne < e && is_ident(p->s[ne]))
		ne++;
	pos = ne;
	if (pos < e && p->s[pos] == '.') {
		size_t sb = pos + 1, se = sb;
		int k;

		while (se < e && is_ident(p->s[se]))
			se++;
		k = suffix_kind(p, sb, se);
		if (k < 0)
			return perr(p, pos, "unknown suffix '.%.*s' %s: expected .addr, .lkey or .rkey",
				    (int)(se - sb), p->s + sb, what);
		if (k != (int)kind)
			return perr(p, b, "'%.*s' is %s %s, but %s %s is expected %s",
				    (int)(se - b), p->s + b, article((enum wqe_text_ref)k),
				    wqe_text_ref_str((enum wqe_text_ref)k), article(kind),
				    wqe_text_ref_str(kind), what);
		pos = se;
	}
	if (pos < e && p->s[pos] == '+') {
		if (kind != WQE_TEXT_REF_ADDR)
			return perr(p, pos, "an offset applies only to an address, not to a %s %s",
				    wqe_text_ref_str(kind), what);
		rc = parse_num(p, pos + 1, e, "after '+'", 64, &off);
		if (rc)
			return rc;
	} else if (pos < e) {
		return perr(p, pos, "unexpected '%c' after the name %s", p->s[pos], what);
	}
	rc = resolve_name(p, b, ne, kind, what, v);
	if (rc)
		return rc;
	if (off > UINT64_MAX - *v)
		return perr(p, b, "address '%.*s' plus its offset wraps past 2^64", (int)(ne - b),
			    p->s + b);
	*v += off;
	return 0;
}

/* A number, or a name the resolver turns into an address or key. */
static int parse_ref(struct parser *p, size_t b, size_t e, const char *what,
		     enum wqe_text_ref kind, uint64_t *v)
{
	if (b < e && is_ident_start(p->s[b]))
		return parse_name(p, b, e, kind, what, v);
	return parse_num(p, b, e, what, kind == WQE_TEXT_REF_ADDR ? 64 : 32, v);
}

static const void *find_char(const struct parser *p, size_t b, size_t e, char c)
{
	return memchr(p->s + b, c, e - b);
}

static int parse_sge(struct parser *p, size_t kb, size_t b, size_t e)
{
	const char *c1, *c2;
	size_t p1, p2;
	uint64_t addr, len, lkey;
	int rc;

	if ((unsigned int)*p->num_sge >= WQE_DESC_MAX_SGE)
		return perr(p, kb, "too many sge= entries: at most %u", WQE_DESC_MAX_SGE);
	c1 = find_char(p, b, e, ':');
	if (!c1)
		return perr(p, b, "expected ADDR:LEN:LKEY after 'sge='");
	p1 = (size_t)(c1 - p->s);
	c2 = find_char(p, p1 + 1, e, ':');
	if (!c2)
		return perr(p, e, "expected ':LKEY' after the length in 'sge='");
	p2 = (size_t)(c2 - p->s);
	rc = parse_ref(p, b, p1, "for the address in 'sge='", WQE_TEXT_REF_ADDR, &addr);
	if (!rc)
		rc = parse_num(p, p1 + 1, p2, "for the length in 'sge='", 32, &len);
	if (!rc)
		rc = parse_ref(p, p2 + 1, e, "for the lkey in 'sge='", WQE_TEXT_REF_LKEY, &lkey);
	if (rc)
		return rc;
	p->sge[*p->num_sge].addr = addr;
	p->sge[*p->num_sge].length = (uint32_t)len;
	p->sge[*p->num_sge].lkey = (uint32_t)lkey;
	(*p->num_sge)++;
	return 0;
}

static int parse_inline(struct parser *p, size_t b, size_t e)
{
	struct wqe_text_wr *o = p->out;
	size_t n = e - b;

	for (size_t i = b; i < e; i++)
		if (hex_val(p->s[i]) < 0)
			return perr(p, i, "unexpected '%c' in the hex payload of 'inline='", p->s[i]);
	if (n % 2)
		return perr(p, e - 1, "odd number of hex digits in 'inline=': a byte takes two");
	if (n / 2 > WQE_TEXT_MAX_INLINE)
		return perr(p, b + 2 * WQE_TEXT_MAX_INLINE,
			    "inline payload of %zu bytes is over the limit of %u", n / 2,
			    WQE_TEXT_MAX_INLINE);
	for (size_t i = 0; i < n / 2; i++)
		o->inline_data[i] = (uint8_t)(hex_val(p->s[b + 2 * i]) << 4 |
					      hex_val(p->s[b + 2 * i + 1]));
	o->inline_len = (uint32_t)(n / 2);
	return 0;
}

static int parse_flag(struct parser *p, size_t b, size_t e, unsigned int *flags)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} names[] = {
		{"fence", WQE_SEND_FENCE},
		{"signaled", WQE_SEND_SIGNALED},
		{"solicited", WQE_SEND_SOLICITED},
	};

	if (b == e)
		return perr(p, b, "expected a flag name (fence, signaled, solicited) in 'flags='");
	if (span_is(p, b, e, "inline"))
		return perr(p, b, "'inline' is not a flag here: inline=HEX sets INLINE");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!span_is(p, b, e, names[i].name))
			continue;
		if (*flags & names[i].bit)
			return perr(p, b, "flag '%s' given twice", names[i].name);
		*flags |= names[i].bit;
		return 0;
	}
	return perr(p, b, "unknown flag '%.*s': expected fence, signaled or solicited",
		    (int)(e - b), p->s + b);
}

static int parse_flags(struct parser *p, size_t b, size_t e)
{
	unsigned int flags = 0;
	size_t wb = b;
	int rc;

	for (;;) {
		const char *c = find_char(p, wb, e, ',');
		size_t we = c ? (size_t)(c - p->s) : e;

		rc = parse_flag(p, wb, we, &flags);
		if (rc)
			return rc;
		if (!c)
			break;
		wb = we + 1;
	}
	p->out->wr.send_flags |= flags;
	return 0;
}

static int parse_dgid(struct parser *p, size_t b, size_t e)
{
	union wqe_gid *gid = &p->out->ah.attr.grh.dgid;
	char buf[48];
	size_t n = e - b;

	if (n == 0 || n >= sizeof(buf))
		return perr(p, b, "expected an IPv4 or IPv6 address after 'dgid='");
	memcpy(buf, p->s + b, n);
	buf[n] = '\0';
	if (memchr(buf, ':', n)) {
		if (inet_pton(AF_INET6, buf, gid->raw) == 1)
			return 0;
	} else if (inet_pton(AF_INET, buf, gid->raw + 12) == 1) {
		memset(gid->raw, 0, 10);
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		return 0;
	}
	memset(gid->raw, 0, sizeof(gid->raw));
	return perr(p, b, "expected an IPv4 or IPv6 address after 'dgid='");
}

static int parse_dmac(struct parser *p, size_t b, size_t e)
{
	uint8_t *mac = p->out->ah.attr.dmac;

	for (size_t i = 0; i < 17; i++) {
		size_t pos = b + i;
		int ok = pos < e && (i % 3 == 2 ? p->s[pos] == ':' : hex_val(p->s[pos]) >= 0);

		if (!ok)
			return perr(p, pos,
				    "expected a MAC address (xx:xx:xx:xx:xx:xx) after 'dmac='");
	}
	if (e - b != 17)
		return perr(p, b + 17, "unexpected '%c' after the MAC address in 'dmac='",
			    p->s[b + 17]);
	for (size_t i = 0; i < 6; i++)
		mac[i] = (uint8_t)(hex_val(p->s[b + 3 * i]) << 4 | hex_val(p->s[b + 3 * i + 1]));
	return 0;
}

static int is_atomic(enum wqe_wr_opcode op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

/* Stores a plain number @v of key @k where it belongs. */
static void store_num(struct parser *p, enum text_key k, uint64_t v)
{
	struct wqe_send_wr *wr;
	struct wqe_ah_attr *ah;
	uint8_t imm[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};

	if (k == TK_ID) {
		*p->wr_id = v;
		return;
	}
	if (!p->out)
		return; /* a receive takes id= and sge= only (check_key) */
	wr = &p->out->wr;
	ah = &p->out->ah.attr;
	switch (k) {
	case TK_RADDR:
		if (is_atomic(p->op->opcode))
			wr->wr.atomic.remote_addr = v;
		else
			wr->wr.rdma.remote_addr = v;
		break;
	case TK_RKEY:
		if (is_atomic(p->op->opcode))
			wr->wr.atomic.rkey = (uint32_t)v;
		else
			wr->wr.rdma.rkey = (uint32_t)v;
		break;
	case TK_IMM: memcpy(&wr->imm_data, imm, sizeof(imm)); break;
	case TK_INV: wr->invalidate_rkey = (uint32_t)v; break;
	case TK_SWAP: wr->wr.atomic.swap = v; break;
	case TK_COMPARE:
	case TK_ADD: wr->wr.atomic.compare_add = v; break;
	case TK_DQPN: wr->wr.ud.remote_qpn = (uint32_t)v; break;
	case TK_QKEY: wr->wr.ud.remote_qkey = (uint32_t)v; break;
	case TK_SPORT: ah->udp_sport = (uint16_t)v; break;
	case TK_HOP: ah->grh.hop_limit = (uint8_t)v; break;
	case TK_TCLASS: ah->grh.traffic_class = (uint8_t)v; break;
	case TK_FLOW: ah->grh.flow_label = (uint32_t)v; break;
	case TK_SL: ah->sl = (uint8_t)v; break;
	case TK_SGID_INDEX: ah->grh.sgid_index = (uint8_t)v; break;
	default: break;
	}
}

static int parse_value(struct parser *p, enum text_key k, size_t kb, size_t b, size_t e)
{
	char what[24];
	uint64_t v = 0;
	int rc;

	snprintf(what, sizeof(what), "after '%s='", text_keys[k].name);
	switch (k) {
	case TK_SGE: return parse_sge(p, kb, b, e);
	case TK_INLINE: return parse_inline(p, b, e);
	case TK_FLAGS: return parse_flags(p, b, e);
	case TK_DGID: return parse_dgid(p, b, e);
	case TK_DMAC: return parse_dmac(p, b, e);
	case TK_RADDR: rc = parse_ref(p, b, e, what, WQE_TEXT_REF_ADDR, &v); break;
	case TK_RKEY:
	case TK_INV: rc = parse_ref(p, b, e, what, WQE_TEXT_REF_RKEY, &v); break;
	default: rc = parse_num(p, b, e, what, text_keys[k].bits, &v); break;
	}
	if (!rc)
		store_num(p, k, v);
	return rc;
}

static int find_key(const struct parser *p, size_t b, size_t e)
{
	for (unsigned int k = 0; k < TK_COUNT; k++)
		if (span_is(p, b, e, text_keys[k].name))
			return (int)k;
	return -1;
}

/* Is key @k, starting at @kb, allowed here? */
static int check_key(struct parser *p, enum text_key k, size_t kb)
{
	char list[160];
	uint32_t bit = TK_BIT(k);

	if ((bit & TK_UD) && (p->op->keys & bit) && p->opts->qp_type != WQE_QPT_UD)
		return perr(p, kb, "'%s=' is a UD address key: it applies only on a UD QP",
			    text_keys[k].name);
	if (!(op_keys(p) & bit)) {
		key_list(op_keys(p), list, sizeof(list));
		return perr(p, kb, "'%s=' does not apply to %s, which takes: %s",
			    text_keys[k].name, p->op->name, list);
	}
	if ((p->seen & bit) && k != TK_SGE)
		return perr(p, kb, "'%s=' given twice", text_keys[k].name);
	if ((k == TK_SGE && (p->seen & TK_BIT(TK_INLINE))) ||
	    (k == TK_INLINE && (p->seen & TK_BIT(TK_SGE))))
		return perr(p, kb, "inline= and sge= cannot be combined: inline= carries the payload");
	p->seen |= bit;
	return 0;
}

static int parse_pair(struct parser *p, size_t b, size_t e)
{
	const char *eq = find_char(p, b, e, '=');
	size_t ke = eq ? (size_t)(eq - p->s) : e;
	char list[160];
	int k = find_key(p, b, ke);
	int rc;

	if (k < 0) {
		key_list(op_keys(p), list, sizeof(list));
		return perr(p, b, "unknown key '%.*s': %s takes %s", (int)(ke - b), p->s + b,
			    p->op->name, list);
	}
	if (!eq)
		return perr(p, e, "expected '=' after '%s'", text_keys[k].name);
	rc = check_key(p, (enum text_key)k, b);
	if (rc)
		return rc;
	return parse_value(p, (enum text_key)k, b, ke + 1, e);
}

static int parse_opcode(struct parser *p, size_t b, size_t e)
{
	char list[120];
	size_t n = 0;

	for (unsigned int i = 0; i < text_num_opcodes; i++) {
		if (span_is(p, b, e, text_opcodes[i].name)) {
			p->op = &text_opcodes[i];
			p->out->wr.opcode = p->op->opcode;
			return 0;
		}
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? " " : "",
				      text_opcodes[i].name);
	}
	if (b == e)
		return perr(p, b, "empty request: expected an opcode (%s)", list);
	return perr(p, b, "unknown opcode '%.*s': expected one of %s", (int)(e - b), p->s + b,
		    list);
}

static int is_send_family(enum wqe_wr_opcode op)
{
	return op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_SEND_WITH_INV;
}

static void finish(struct parser *p)
{
	struct wqe_text_wr *o = p->out;

	o->wr.sg_list = o->sge;
	if (p->seen & TK_BIT(TK_INLINE)) {
		o->wr.send_flags |= WQE_SEND_INLINE;
		if (o->inline_len) {
			o->sge[0].addr = (uint64_t)(uintptr_t)o->inline_data;
			o->sge[0].length = o->inline_len;
			o->sge[0].lkey = 0;
			o->wr.num_sge = 1;
		}
	}
	if (p->opts->qp_type == WQE_QPT_UD && is_send_family(o->wr.opcode)) {
		o->ah.attr.port_num = 1;
		o->wr.wr.ud.ah = &o->ah;
	}
}

/* Length of the request part of @line: up to a NUL, a '#' or @len. */
static size_t request_len(const char *line, size_t len)
{
	size_t n = 0;

	while (n < len && line[n] != '\0' && line[n] != '#')
		n++;
	return n;
}

/* The opcode, then key=value pairs, of the request at p->s. */
static int parse_request(struct parser *p, size_t len,
			 int (*opcode)(struct parser *p, size_t b, size_t e))
{
	size_t pos, end;
	int rc;

	p->len = p->s ? request_len(p->s, len) : 0;
	pos = skip_space(p, 0);
	end = token_end(p, pos);
	rc = opcode(p, pos, end);
	for (pos = skip_space(p, end); !rc && pos < p->len; pos = skip_space(p, end)) {
		end = token_end(p, pos);
		rc = parse_pair(p, pos, end);
	}
	return rc;
}

static void clear_err(struct wqe_text_err *err)
{
	if (err) {
		err->column = 0;
		err->msg[0] = '\0';
	}
}

int wqe_parse_send_wr(const char *line, size_t len, const struct wqe_text_opts *opts,
		      struct wqe_text_wr *out, struct wqe_text_err *err)
{
	static const struct wqe_text_opts rc_opts = {.qp_type = WQE_QPT_RC};
	struct parser p = {.s = line, .opts = opts ? opts : &rc_opts, .out = out, .err = err};
	int rc;

	clear_err(err);
	if (!out || (!line && len))
		return perr(&p, 0, "no request given");
	memset(out, 0, sizeof(*out));
	p.sge = out->sge;
	p.num_sge = &out->wr.num_sge;
	p.wr_id = &out->wr.wr_id;
	rc = parse_request(&p, len, parse_opcode);
	if (rc)
		return rc;
	finish(&p);
	return 0;
}

static int parse_recv_opcode(struct parser *p, size_t b, size_t e)
{
	if (span_is(p, b, e, text_recv_opcode.name)) {
		p->op = &text_recv_opcode;
		return 0;
	}
	if (b == e)
		return perr(p, b, "empty request: expected an opcode (recv)");
	return perr(p, b, "unknown opcode '%.*s': expected recv (a receive request)", (int)(e - b),
		    p->s + b);
}

int wqe_parse_recv_wr(const char *line, size_t len, const struct wqe_text_opts *opts,
		      struct wqe_text_recv_wr *out, struct wqe_text_err *err)
{
	static const struct wqe_text_opts rc_opts = {.qp_type = WQE_QPT_RC};
	struct parser p = {.s = line, .opts = opts ? opts : &rc_opts, .err = err};
	int rc;

	clear_err(err);
	if (!out || (!line && len))
		return perr(&p, 0, "no request given");
	memset(out, 0, sizeof(*out));
	p.sge = out->sge;
	p.num_sge = &out->wr.num_sge;
	p.wr_id = &out->wr.wr_id;
	rc = parse_request(&p, len, parse_recv_opcode);
	out->wr.sg_list = out->sge;
	return rc;
}

int wqe_text_is_recv(const char *line, size_t len)
{
	struct parser p = {.s = line};
	size_t b, e;

	p.len = line ? request_len(line, len) : 0;
	b = skip_space(&p, 0);
	e = token_end(&p, b);
	return span_is(&p, b, e, text_recv_opcode.name);
}
