/* SPDX-License-Identifier: MIT */
/* Scenario files: carrying out declarations and actions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/sc_int.h"

#define UD_QKEY 0x11111111u

static uint64_t sc_clock(void *arg)
{
	return ((struct wqe_scenario *)arg)->now_ns;
}

static int ex_endpoint(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	struct sc_endpoint *e = &sc->ep[st->a];
	struct wqe_context_attr a;

	memset(&a, 0, sizeof(a));
	a.format = sc->opts->format_set ? sc->opts->format : e->format;
	memcpy(a.mac, e->mac, 6);
	a.num_gids = 1;
	a.gid[0] = e->gid;
	e->format = a.format;
	e->ctx = wqe_open_context(&a);
	if (!e->ctx || !(e->pd = wqe_alloc_pd(e->ctx)) ||
	    wqe_context_attach_link(e->ctx, sc->link))
		return sc_fail(err, st->line, 0, "cannot open endpoint '%s': %s", e->name,
			       strerror(errno));
	sc->tctx[st->a].sc = sc;
	sc->tctx[st->a].ep = (uint32_t)st->a;
	wqe_context_set_clock(e->ctx, sc_clock, sc);
	wqe_context_set_trace(e->ctx, sc_trace_event, &sc->tctx[st->a]);
	return 0;
}

static int modify(struct wqe_qp *qp, enum wqe_qp_state s, struct wqe_qp_attr *a, int mask)
{
	a->qp_state = s;
	return wqe_modify_qp(qp, a, mask | WQE_QP_STATE);
}

static int ex_qp(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	struct sc_qp *q = &sc->qp[st->a];
	struct sc_endpoint *e = &sc->ep[q->ep];
	struct wqe_qp_init_attr ia;
	struct wqe_qp_attr a;

	q->scq = wqe_create_cq(e->ctx, (int)q->cq_depth);
	q->rcq = wqe_create_cq(e->ctx, (int)q->cq_depth);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = q->scq;
	ia.recv_cq = q->rcq;
	ia.qp_type = q->type;
	ia.cap = q->cap;
	ia.sq_sig_all = q->sig_all;
	if (!q->scq || !q->rcq || !(q->qp = wqe_create_qp(e->pd, &ia)))
		return sc_fail(err, st->line, 0, "cannot create QP '%s': %s", q->name,
			       strerror(errno));
	q->cap = ia.cap;
	if (q->type != WQE_QPT_UD)
		return 0;
	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.qkey = UD_QKEY;
	if (modify(q->qp, WQE_QPS_INIT, &a, WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_QKEY) ||
	    modify(q->qp, WQE_QPS_RTR, &a, 0) || modify(q->qp, WQE_QPS_RTS, &a, WQE_QP_SQ_PSN))
		return sc_fail(err, st->line, 0, "cannot bring UD QP '%s' to RTS", q->name);
	return 0;
}

static int ex_mr(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	struct sc_region *r = &sc->reg[st->a];
	size_t total = (size_t)r->size + 2 * SC_CANARY;
	void *p = NULL;

	if (posix_memalign(&p, 64, total))
		return sc_fail(err, st->line, 0, "cannot allocate %llu bytes for '%s'",
			       (unsigned long long)r->size, r->name);
	r->alloc = p;
	r->base = r->alloc + SC_CANARY;
	memset(r->alloc, SC_CANARY_BYTE, total);
	switch (r->fill) {
	case FILL_ZERO: memset(r->base, 0, r->size); break;
	case FILL_BYTE: memset(r->base, (int)r->fill_arg, r->size); break;
	case FILL_PATTERN: sc_pattern(r->base, r->size, r->fill_arg, 0); break;
	case FILL_BYTES:
		for (uint64_t i = 0; i < r->size; i++)
			r->base[i] = r->fill_bytes[i % r->nfill];
		break;
	}
	r->mr = wqe_reg_mr(sc->ep[r->ep].pd, r->base, r->size, r->access);
	if (!r->mr)
		return sc_fail(err, st->line, 0, "cannot register '%s': %s", r->name,
			       strerror(errno));
	return 0;
}

static void peer_av(const struct wqe_scenario *sc, const struct sc_qp *peer,
		    struct wqe_ah_attr *ah)
{
	const struct sc_endpoint *e = &sc->ep[peer->ep];

	memset(ah, 0, sizeof(*ah));
	ah->port_num = 1;
	ah->grh.dgid = e->gid;
	ah->grh.hop_limit = 64;
	memcpy(ah->dmac, e->mac, 6);
}

static int connect_one(struct wqe_scenario *sc, const struct sc_stmt *st, struct sc_qp *q,
		       const struct sc_qp *peer)
{
	struct wqe_qp_attr a;
	int m;

	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.qp_access_flags = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ |
			    WQE_ACCESS_REMOTE_ATOMIC;
	if (modify(q->qp, WQE_QPS_INIT, &a, WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_ACCESS_FLAGS))
		return -1;
	a.path_mtu = q->mtu;
	a.dest_qp_num = wqe_qp_num(peer->qp);
	a.rq_psn = st->psn;
	peer_av(sc, peer, &a.ah_attr);
	a.max_dest_rd_atomic = st->rd_atomic;
	a.min_rnr_timer = st->min_rnr;
	m = WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN;
	if (q->type == WQE_QPT_RC)
		m |= WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER;
	if (modify(q->qp, WQE_QPS_RTR, &a, m))
		return -1;
	a.sq_psn = st->psn;
	a.timeout = st->timeout;
	a.retry_cnt = st->retry;
	a.rnr_retry = st->rnr_retry;
	a.max_rd_atomic = st->rd_atomic;
	m = WQE_QP_SQ_PSN;
	if (q->type == WQE_QPT_RC)
		m |= WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT | WQE_QP_RNR_RETRY | WQE_QP_MAX_QP_RD_ATOMIC;
	return modify(q->qp, WQE_QPS_RTS, &a, m);
}

static int ex_connect(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	struct sc_qp *a = &sc->qp[st->a], *b = &sc->qp[st->b];

	if (connect_one(sc, st, a, b) || connect_one(sc, st, b, a))
		return sc_fail(err, st->line, 0, "cannot connect '%s' and '%s'", a->name, b->name);
	return 0;
}

static struct sc_req *new_req(struct wqe_scenario *sc)
{
	if (sc->nreqs == sc->capreqs) {
		size_t nc = sc->capreqs ? sc->capreqs * 2 : 32;
		struct sc_req *n = realloc(sc->reqs, nc * sizeof(*n));

		if (!n)
			return NULL;
		sc->reqs = n;
		sc->capreqs = nc;
	}
	memset(&sc->reqs[sc->nreqs], 0, sizeof(sc->reqs[0]));
	return &sc->reqs[sc->nreqs++];
}

/* UD dest=QP: the address handle to that QP's endpoint. */
static int ud_dest(struct wqe_scenario *sc, struct sc_qp *q, int dest, struct wqe_send_wr *wr,
		   const char *text)
{
	const struct sc_qp *d = &sc->qp[dest];

	if (!q->ah_to[dest]) {
		struct wqe_ah_attr ah;

		peer_av(sc, d, &ah);
		q->ah_to[dest] = wqe_create_ah(sc->ep[q->ep].pd, &ah);
		if (!q->ah_to[dest])
			return -1;
	}
	wr->wr.ud.ah = q->ah_to[dest];
	wr->wr.ud.remote_qpn = wqe_qp_num(d->qp);
	if (!strstr(text, "qkey="))
		wr->wr.ud.remote_qkey = UD_QKEY;
	return 0;
}

static int ex_post(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	struct sc_qp *q = &sc->qp[st->a];
	struct wqe_text_opts o = {st->kind == ST_RECV ? WQE_QPT_RC : q->type, sc_resolve, sc};
	struct wqe_qp_dv before, after;
	struct wqe_text_err te;
	struct sc_req *r;
	int rc;

	if (wqe_parse_send_wr(st->text, st->req_len, &o, &sc->req, &te))
		return sc_fail(err, st->line, 0, "request refused at run time: %s", te.msg);
	if (st->kind == ST_RECV) {
		struct wqe_recv_wr rw = {.wr_id = sc->req.wr.wr_id, .sg_list = sc->req.wr.sg_list,
					 .num_sge = sc->req.wr.num_sge},
				   *bad;

		rc = wqe_post_recv(q->qp, &rw, &bad);
		if (sc->opts->trace)
			sc_trace_recv(sc, st, &sc->req.wr, rc);
	} else {
		struct wqe_send_wr *bad;

		if (st->n1 && ud_dest(sc, q, st->b, &sc->req.wr, st->text))
			return sc_fail(err, st->line, 0, "cannot create an address handle");
		wqe_qp_dv_query(q->qp, &before);
		rc = wqe_post_send(q->qp, &sc->req.wr, &bad);
		wqe_qp_dv_query(q->qp, &after);
		sc->res.posts++;
		if (!(r = new_req(sc)))
			return sc_fail(err, st->line, 0, "out of memory");
		r->line = st->line;
		r->qp = (uint32_t)st->a;
		r->wqe_counter = before.sq_pi;
		r->nblocks = after.sq_pi - before.sq_pi;
		r->err = rc;
		sc_req_record(sc, r, &sc->req.wr);
		if (sc->opts->trace)
			sc_trace_post(sc, st, r, &sc->req.wr);
		if (sc->opts->observe)
			sc_observe_post(sc, st, r, &sc->req.wr);
		if (rc && after.sq_pi != before.sq_pi)
			return sc_fail(err, st->line, 0, "refused request left %u blocks in the ring",
				       after.sq_pi - before.sq_pi);
	}
	st->checked = true;
	st->passed = rc == st->expect_errno;
	if (rc != st->expect_errno)
		return sc_fail(err, st->line, 0, "%s: expected %s, got %s",
			       st->kind == ST_RECV ? "wqe_post_recv" : "wqe_post_send",
			       st->expect_errno ? strerror(st->expect_errno) : "success",
			       rc ? strerror(rc) : "success");
	if (st->expect_errno) {
		sc->res.expectations++;
		sc->res.passed++;
	}
	return 0;
}

/* Takes every completion of every QP into its list. */
void sc_poll_all(struct wqe_scenario *sc)
{
	for (uint32_t i = 0; i < sc->nqp; i++) {
		struct sc_qp *q = &sc->qp[i];
		struct sc_cqlist *lists[2] = {&q->sent, &q->recvd};
		struct wqe_cq *cqs[2] = {q->scq, q->rcq};

		if (!q->qp)
			continue;
		for (int k = 0; k < 2; k++) {
			struct wqe_wc wc[16];
			int n;

			while ((n = wqe_poll_cq(cqs[k], 16, wc)) > 0) {
				struct sc_cqlist *cl = lists[k];

				for (int j = 0; j < n; j++) {
					if (cl->n == cl->cap) {
						size_t nc = cl->cap ? cl->cap * 2 : 16;
						struct sc_cqe *ne = realloc(cl->e, nc * sizeof(*ne));

						if (!ne)
							return;
						cl->e = ne;
						cl->cap = nc;
					}
					cl->e[cl->n].wc = wc[j];
					cl->e[cl->n++].matched = false;
					sc->res.cqes++;
				}
			}
		}
	}
}

static int round_all(struct wqe_scenario *sc)
{
	int work = 0;

	for (uint32_t i = 0; i < sc->nep; i++)
		if (sc->ep[i].ctx) {
			int w = wqe_progress(sc->ep[i].ctx);

			work += w > 0 ? w : 0;
		}
	sc->now_ns += 1000; /* a microsecond a round */
	return work;
}

static int ex_run(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	uint64_t rounds = 0, before;

	if (sc->opts->trace)
		sc_trace_run(sc, st);
	if (st->steps) {
		for (uint64_t i = 0; i < st->steps; i++)
			round_all(sc);
		sc_poll_all(sc);
		sc_settle(sc);
		return 0;
	}
	while (rounds++ < st->max_rounds) {
		uint64_t next = UINT64_MAX, t;

		before = sc->res.cqes;
		if (round_all(sc) || (sc_poll_all(sc), sc->res.cqes != before))
			continue;
		/* Nothing moved: jump the clock to the next timer, or stop. */
		for (uint32_t i = 0; i < sc->nep; i++)
			if (sc->ep[i].ctx && wqe_context_next_deadline(sc->ep[i].ctx, &t) == 1 &&
			    t < next)
				next = t;
		if (next == UINT64_MAX) {
			sc_settle(sc);
			return 0;
		}
		if (next > sc->now_ns)
			sc->now_ns = next;
	}
	return sc_fail(err, st->line, 0, "the run did not settle within %llu rounds",
		       (unsigned long long)st->max_rounds);
}

static int ex_modify(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	struct wqe_qp_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = modify(sc->qp[st->a].qp, st->state, &a, 0);
	if (rc)
		return sc_fail(err, st->line, 0, "modify to %s refused: %s",
			       wqe_qp_state_str(st->state), strerror(rc));
	return 0;
}

int sc_exec(struct wqe_scenario *sc, struct sc_stmt *st, struct wqe_scenario_err *err)
{
	if (sc->opts->log)
		fprintf(sc->opts->log, "%s:%u: %s\n", sc->name, st->line, st->text);
	switch (st->kind) {
	case ST_ENDPOINT: return ex_endpoint(sc, st, err);
	case ST_LINK: return 0;
	case ST_QP: return ex_qp(sc, st, err);
	case ST_MR: return ex_mr(sc, st, err);
	case ST_CONNECT: return ex_connect(sc, st, err);
	case ST_POST:
	case ST_RECV: return ex_post(sc, st, err) ? 1 : 0;
	case ST_RUN: return ex_run(sc, st, err) ? 1 : 0;
	case ST_MODIFY: return ex_modify(sc, st, err) ? 1 : 0;
	default: return sc_expect(sc, st, err);
	}
}
