/* SPDX-License-Identifier: MIT */
/* Scenario files: the expectations (expect cqe, no_cqe, mem, canaries,
 * packets, opcodes, state, stat); expect.c checks them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/sc_int.h"

#define FAILW(w, ...) sc_fail(err, l->no, (w)->col, __VA_ARGS__)

static int by_name(const char *(*str)(int), int lo, int hi, const char *s, size_t n, int *out)
{
	for (int i = lo; i <= hi; i++) {
		const char *name = str(i);

		if (strcmp(name, "unknown") && strlen(name) == n && !memcmp(name, s, n)) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

static const char *status_name(int i)
{
	return wqe_wc_status_str((enum wqe_wc_status)i);
}

static const char *wcop_name(int i)
{
	return wqe_wc_opcode_str((enum wqe_wc_opcode)i);
}

static const char *wire_name(int i)
{
	return wqe_wire_opcode_str((uint8_t)i);
}

static int queue_of(const struct sc_line *l, const struct sc_word *w, int *q,
		    struct wqe_scenario_err *err)
{
	if (sc_word_is(w, "send"))
		*q = 0;
	else if (sc_word_is(w, "recv"))
		*q = 1;
	else
		return FAILW(w, "expected the queue: send or recv");
	return 0;
}

/* inv=N, or inv=REGION.rkey / REGION.lkey: a key only known once the run
 * has registered the region (st->reg2, st->n3 = 1 rkey, 2 lkey). */
static int key_ref(struct wqe_scenario *sc, const struct sc_line *l, const struct sc_word *w,
		   struct sc_stmt *st, struct wqe_scenario_err *err)
{
	const char *s = sc_val(w), *dot;
	size_t n = sc_vlen(w);
	uint64_t v;

	if (n && s[0] >= '0' && s[0] <= '9') {
		if (sc_num(l, w, UINT32_MAX, &v, err))
			return -1;
		st->cqe.invalidated_rkey = (uint32_t)v;
		st->n3 = 0;
		return 0;
	}
	dot = memchr(s, '.', n);
	if (dot) {
		struct sc_word name = {s, (size_t)(dot - s), w->col + (uint32_t)(s - w->s), NULL};
		size_t kn = n - (size_t)(dot + 1 - s);

		if (kn == 4 && (!memcmp(dot + 1, "rkey", 4) || !memcmp(dot + 1, "lkey", 4))) {
			if ((st->reg2 = sc_ref(sc, l, &name, OBJ_REG, err)) < 0)
				return -1;
			st->n3 = dot[1] == 'r' ? 1 : 2;
			return 0;
		}
	}
	return FAILW(w, "expected a key: a number or REGION.rkey / REGION.lkey");
}

static int ex_cqe(struct wqe_scenario *sc, struct sc_line *l, struct sc_stmt *st,
		  struct wqe_scenario_err *err)
{
	static const char *const keys[] = {"id", "status", "opcode", "byte_len", "imm", "inv",
					   "src_qp", NULL};
	const struct sc_word *w;
	uint64_t v;
	int x;

	if (sc_need(l, 4, "'expect cqe QP send|recv ...'", err) ||
	    (st->a = sc_ref(sc, l, &l->w[2], OBJ_QP, err)) < 0 ||
	    queue_of(l, &l->w[3], &st->queue, err) || sc_check_keys(l, 4, keys, err))
		return -1;
	if ((w = sc_get(l, 4, "id"))) {
		if (sc_num(l, w, UINT64_MAX, &v, err))
			return -1;
		st->cqe.wr_id = v;
		st->cqe_mask |= 1;
	}
	if ((w = sc_get(l, 4, "status"))) {
		if (by_name(status_name, 0, WQE_WC_GENERAL_ERR, sc_val(w), sc_vlen(w), &x))
			return FAILW(w, "unknown status: expected a name such as SUCCESS, "
					"LOC_PROT_ERR, WR_FLUSH_ERR, REM_ACCESS_ERR");
		st->cqe.status = (enum wqe_wc_status)x;
		st->cqe_mask |= 2;
	}
	if ((w = sc_get(l, 4, "opcode"))) {
		if (by_name(wcop_name, 0, 129, sc_val(w), sc_vlen(w), &x))
			return FAILW(w, "unknown completion opcode: expected SEND, RDMA_WRITE, "
					"RDMA_READ, COMP_SWAP, FETCH_ADD, RECV or RECV_RDMA_WITH_IMM");
		st->cqe.opcode = (enum wqe_wc_opcode)x;
		st->cqe_mask |= 4;
	}
	if ((w = sc_get(l, 4, "byte_len"))) {
		if (sc_num(l, w, UINT32_MAX, &v, err))
			return -1;
		st->cqe.byte_len = (uint32_t)v;
		st->cqe_mask |= 8;
	}
	if ((w = sc_get(l, 4, "imm"))) {
		if (sc_num(l, w, UINT32_MAX, &v, err))
			return -1;
		st->cqe.imm_data = (uint32_t)v; /* as the wire bytes read big-endian */
		st->cqe_mask |= 16;
	}
	if ((w = sc_get(l, 4, "inv"))) {
		if (key_ref(sc, l, w, st, err) < 0)
			return -1;
		st->cqe_mask |= 32;
	}
	if ((w = sc_get(l, 4, "src_qp"))) {
		struct sc_word n = {sc_val(w), sc_vlen(w), w->col + 7, NULL};

		if ((st->b = sc_ref(sc, l, &n, OBJ_QP, err)) < 0)
			return -1;
		st->cqe_mask |= 64;
	}
	return 0;
}

/* REGION[+OFF][:LEN] */
static int region_ref(struct wqe_scenario *sc, const struct sc_line *l, const struct sc_word *w,
		      int want_len, int *reg, uint64_t *off, uint64_t *len,
		      struct wqe_scenario_err *err)
{
	const char *s = w->s, *end = w->s + w->len, *p = s;
	struct sc_word name;

	while (p < end && *p != '+' && *p != ':')
		p++;
	name = (struct sc_word){s, (size_t)(p - s), w->col, NULL};
	if ((*reg = sc_ref(sc, l, &name, OBJ_REG, err)) < 0)
		return -1;
	*off = 0;
	if (p < end && *p == '+') {
		const char *q = ++p;

		while (p < end && *p != ':')
			p++;
		if (sc_u64(w, q, (size_t)(p - q), UINT64_MAX, off, err, w->col + (uint32_t)(q - s)))
			return err->line = l->no, -1;
	}
	if (want_len) {
		if (p == end || *p != ':')
			return sc_fail(err, l->no, w->col + (uint32_t)(p - s),
				       "expected ':LEN' after the region");
		p++;
		if (sc_u64(w, p, (size_t)(end - p), UINT64_MAX, len, err,
			   w->col + (uint32_t)(p - s)))
			return err->line = l->no, -1;
	} else if (p != end) {
		return sc_fail(err, l->no, w->col + (uint32_t)(p - s), "unexpected text");
	}
	if (*off > sc->reg[*reg].size || (want_len && *len > sc->reg[*reg].size - *off))
		return FAILW(w, "range outside region '%s' (%llu bytes)", sc->reg[*reg].name,
			     (unsigned long long)sc->reg[*reg].size);
	return 0;
}

static int ex_mem(struct wqe_scenario *sc, struct sc_line *l, struct sc_stmt *st,
		  struct wqe_scenario_err *err)
{
	const struct sc_word *w;
	uint64_t dummy;

	if (sc_need(l, 4, "'expect mem REGION[+OFF]:LEN == REGION[+OFF]' or bytes=/byte=/pattern=",
		    err) ||
	    region_ref(sc, l, &l->w[2], 1, &st->a, &st->n1, &st->n2, err))
		return -1;
	w = &l->w[3];
	if (!sc_word_is(w, "==") && !sc_key(w, "bytes") && !sc_key(w, "byte") &&
	    !sc_key(w, "pattern"))
		return FAILW(w, "expected '==', bytes=HEX, byte=B or pattern=SEED");
	if (sc_word_is(w, "==")) {
		if (sc_need(l, 5, "a region after '=='", err) ||
		    region_ref(sc, l, &l->w[4], 0, &st->reg2, &st->off2, &dummy, err))
			return -1;
		if (st->n2 > sc->reg[st->reg2].size - st->off2)
			return FAILW(&l->w[4], "range outside region '%s'", sc->reg[st->reg2].name);
		st->mem_mode = 0;
		return l->nw > 5 ? FAILW(&l->w[5], "unexpected word") : 0;
	}
	if (l->nw > 4)
		return FAILW(&l->w[4], "unexpected word");
	if (sc_key(w, "bytes")) {
		st->mem_mode = 1;
		if (sc_hex(sc_val(w), sc_vlen(w), &st->bytes, &st->nbytes))
			return FAILW(w, "expected bytes=HEX with an even number of hex digits");
		if (st->nbytes != st->n2)
			return FAILW(w, "bytes= gives %zu bytes for a range of %llu", st->nbytes,
				     (unsigned long long)st->n2);
		return 0;
	}
	if (sc_key(w, "byte")) {
		st->mem_mode = 2;
		return sc_num(l, w, 255, &st->n3, err);
	}
	if (sc_key(w, "pattern")) {
		st->mem_mode = 3;
		return sc_num(l, w, UINT64_MAX, &st->n3, err);
	}
	return FAILW(w, "expected '==', bytes=HEX, byte=B or pattern=SEED");
}

static int ex_opcodes(struct wqe_scenario *sc, struct sc_line *l, struct sc_stmt *st,
		      struct wqe_scenario_err *err)
{
	const struct sc_word *w;
	const char *s, *end;

	if (sc_need(l, 4, "'expect opcodes ENDPOINT NAME,NAME,...'", err) ||
	    (st->a = sc_ref(sc, l, &l->w[2], OBJ_EP, err)) < 0)
		return -1;
	if (l->nw > 4)
		return FAILW(&l->w[4], "unexpected word: the list has no spaces");
	w = &l->w[3];
	s = w->s;
	end = s + w->len;
	st->ops = malloc(w->len);
	if (!st->ops)
		return -ENOMEM;
	while (s < end) {
		const char *c = memchr(s, ',', (size_t)(end - s));
		size_t n = (size_t)((c ? c : end) - s);
		int op;

		if (by_name(wire_name, 0, 255, s, n, &op))
			return sc_fail(err, l->no, w->col + (uint32_t)(s - w->s),
				       "unknown wire opcode '%.*s': expected a name such as "
				       "RC_SEND_ONLY or RC_RDMA_WRITE_FIRST", (int)n, s);
		st->ops[st->nops++] = (uint8_t)op;
		s += n + (c != NULL);
	}
	return 0;
}

static const char *const stat_names[] = {
	"wqes_fetched", "wqe_fetch_blocks", "payload_reads", "payload_bytes", "inline_wqes",
	"fence_stalls", "rd_atomic_stalls", "packets_sent", "bytes_sent", "packets_received",
	"wqe_errors", "flushed", "retransmits", "timeouts", "rnr_naks_received",
	"seq_naks_received", "requests_received", "acks_sent", "naks_sent", "rnr_naks_sent",
	"read_responses_sent", "atomic_acks_sent", "duplicates", "out_of_sequence",
	"bytes_placed", "messages_received", "responder_drops", NULL};

_Static_assert(sizeof(stat_names) / sizeof(stat_names[0]) - 1 ==
		       sizeof(struct wqe_qp_stats) / sizeof(uint64_t),
	       "one name per counter of struct wqe_qp_stats, in order");

const char *const *sc_stat_names(void)
{
	return stat_names;
}

static int ex_stat(struct wqe_scenario *sc, struct sc_line *l, struct sc_stmt *st,
		   struct wqe_scenario_err *err)
{
	const struct sc_word *w;
	bool known = false;

	if (sc_need(l, 4, "'expect stat QP NAME=N'", err) ||
	    (st->a = sc_ref(sc, l, &l->w[2], OBJ_QP, err)) < 0)
		return -1;
	w = &l->w[3];
	for (size_t i = 0; w->eq && stat_names[i]; i++)
		known |= sc_key(w, stat_names[i]);
	if (w->eq && !known)
		return FAILW(w, "unknown counter '%.*s': expected a field of struct wqe_qp_stats "
				"(wqes_fetched, wqe_fetch_blocks, payload_reads, fence_stalls, "
				"retransmits, ...; docs/scenario-format.md lists them all)",
			     (int)(w->eq - w->s), w->s);
	if (sc_check_keys(l, 3, stat_names, err))
		return -1;
	if (l->nw > 4)
		return FAILW(&l->w[4], "one counter per line");
	snprintf(st->stat, sizeof(st->stat), "%.*s", (int)(l->w[3].eq - l->w[3].s), l->w[3].s);
	return sc_num(l, &l->w[3], UINT64_MAX, &st->n1, err);
}

int sc_parse_expect(struct wqe_scenario *sc, struct sc_line *l, struct wqe_scenario_err *err)
{
	static const struct {
		const char *kw;
		enum sc_kind kind;
	} kinds[] = {{"cqe", ST_EXPECT_CQE},         {"no_cqe", ST_EXPECT_NO_CQE},
		     {"mem", ST_EXPECT_MEM},         {"canaries", ST_EXPECT_CANARIES},
		     {"packets", ST_EXPECT_PACKETS}, {"opcodes", ST_EXPECT_OPCODES},
		     {"state", ST_EXPECT_STATE},     {"stat", ST_EXPECT_STAT}};
	struct sc_stmt *st = NULL;
	size_t k;

	if (sc_need(l, 2, "what to expect: cqe, no_cqe, mem, canaries, packets, opcodes, state "
			  "or stat", err))
		return -1;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (sc_word_is(&l->w[1], kinds[k].kw))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return FAILW(&l->w[1], "unknown expectation '%.*s': expected cqe, no_cqe, mem, "
				       "canaries, packets, opcodes, state or stat",
			     (int)l->w[1].len, l->w[1].s);
	if (!(st = sc_add(sc, kinds[k].kind, l)))
		return -ENOMEM;
	switch (st->kind) {
	case ST_EXPECT_CQE:
		return ex_cqe(sc, l, st, err);
	case ST_EXPECT_NO_CQE:
		if (sc_need(l, 4, "'expect no_cqe QP send|recv'", err) ||
		    (st->a = sc_ref(sc, l, &l->w[2], OBJ_QP, err)) < 0)
			return -1;
		return queue_of(l, &l->w[3], &st->queue, err) ||
		       (l->nw > 4 && FAILW(&l->w[4], "unexpected word"));
	case ST_EXPECT_MEM:
		return ex_mem(sc, l, st, err);
	case ST_EXPECT_CANARIES:
		return l->nw > 2 ? FAILW(&l->w[2], "unexpected word") : 0;
	case ST_EXPECT_PACKETS: {
		static const char *const keys[] = {"count", NULL};

		if (sc_need(l, 4, "'expect packets ENDPOINT count=N'", err) ||
		    (st->a = sc_ref(sc, l, &l->w[2], OBJ_EP, err)) < 0 ||
		    sc_check_keys(l, 3, keys, err))
			return -1;
		return sc_num(l, &l->w[3], UINT64_MAX, &st->n1, err);
	}
	case ST_EXPECT_OPCODES:
		return ex_opcodes(sc, l, st, err);
	case ST_EXPECT_STATE: {
		int s;

		if (sc_need(l, 4, "'expect state QP STATE'", err) ||
		    (st->a = sc_ref(sc, l, &l->w[2], OBJ_QP, err)) < 0)
			return -1;
		for (s = WQE_QPS_RESET; s <= WQE_QPS_ERR; s++)
			if (sc_word_is(&l->w[3], wqe_qp_state_str((enum wqe_qp_state)s)))
				break;
		if (s > WQE_QPS_ERR)
			return FAILW(&l->w[3], "expected a QP state: RESET INIT RTR RTS SQD SQE ERR");
		st->state = (enum wqe_qp_state)s;
		return l->nw > 4 ? FAILW(&l->w[4], "unexpected word") : 0;
	}
	case ST_EXPECT_STAT:
		return ex_stat(sc, l, st, err);
	default:
		return 0;
	}
}
