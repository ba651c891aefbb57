/* SPDX-License-Identifier: MIT */
#include "pair.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct pair_opts pair_defaults = {
	.timeout = 8, /* about 1 ms */
	.retry_cnt = 7,
	.rnr_retry = 7,
	.min_rnr_timer = 1,
	.max_rd_atomic = 16,
	.max_inline = 64,
};

/* Endpoint @idx's GID: ::ffff:192.0.2.idx, or with WQE_TEST_IPV6=1 in the
 * environment 2001:db8::idx (the same tests then run over IPv6). */
static void pair_gid(union wqe_gid *g, int idx)
{
	const char *v6 = getenv("WQE_TEST_IPV6");

	if (v6 && strcmp(v6, "1") == 0)
		test_gid_v6(g, (uint8_t)idx);
	else
		test_gid_v4(g, 192, 0, 2, (uint8_t)idx);
}

static int ep_open(struct ep *e, int idx, enum wqe_qp_type t, uint32_t max_wr,
		   const struct pair_opts *o)
{
	struct wqe_context_attr ca;

	memset(&ca, 0, sizeof(ca));
	ca.format = test_format();
	ca.mac[0] = 0x02;
	ca.mac[5] = (uint8_t)idx;
	ca.num_gids = 1;
	pair_gid(&ca.gid[0], idx);
	e->ctx = wqe_open_context(&ca);
	if (!e->ctx)
		return -1;
	e->pd = wqe_alloc_pd(e->ctx);
	if (o->comp_channel) {
		struct wqe_cq_init_attr_ex cq = {.cqe = 65536};

		e->ch = wqe_create_comp_channel(e->ctx);
		cq.channel = e->ch;
		cq.cq_context = &e->scq;
		e->scq = e->ch ? wqe_create_cq_ex(e->ctx, &cq) : NULL;
		cq.cq_context = &e->rcq;
		e->rcq = e->ch ? wqe_create_cq_ex(e->ctx, &cq) : NULL;
	} else {
		e->scq = wqe_create_cq(e->ctx, 65536);
		e->rcq = wqe_create_cq(e->ctx, 65536);
	}
	if (!e->pd || !e->scq || !e->rcq)
		return -1;
	e->qp = pair_new_qp(e, t, NULL, NULL, max_wr, o);
	return e->qp ? 0 : -1;
}

struct wqe_qp *pair_new_qp(const struct ep *e, enum wqe_qp_type t, struct wqe_cq *scq,
			   struct wqe_cq *rcq, uint32_t max_wr, const struct pair_opts *o)
{
	struct wqe_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq ? scq : e->scq;
	ia.recv_cq = rcq ? rcq : e->rcq;
	ia.qp_type = t;
	ia.cap.max_send_wr = max_wr;
	ia.cap.max_recv_wr = max_wr;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = o->max_inline;
	return wqe_create_qp(e->pd, &ia);
}

int pair_reg_bufs(struct pair *p, size_t bytes, uint8_t **a, uint8_t **b, struct wqe_mr **am,
		  struct wqe_mr **bm)
{
	const unsigned all = WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
			     WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;

	*a = calloc(1, bytes);
	*b = calloc(1, bytes);
	*am = *a ? wqe_reg_mr(p->a.pd, *a, bytes, all) : NULL;
	*bm = *b ? wqe_reg_mr(p->b.pd, *b, bytes, all) : NULL;
	return *am && *bm ? 0 : -1;
}

void pair_free_bufs(uint8_t *a, uint8_t *b, struct wqe_mr *am, struct wqe_mr *bm)
{
	if (am)
		wqe_dereg_mr(am);
	if (bm)
		wqe_dereg_mr(bm);
	free(a);
	free(b);
}

void pair_peer_av(struct wqe_ah_attr *aa, int peer_idx)
{
	memset(aa, 0, sizeof(*aa));
	aa->port_num = 1;
	aa->dmac[0] = 0x02;
	aa->dmac[5] = (uint8_t)peer_idx;
	pair_gid(&aa->grh.dgid, peer_idx);
	aa->grh.hop_limit = 64;
}

int pair_connect_qp(struct wqe_qp *qp, enum wqe_qp_type t, int peer_idx, uint32_t peer_qpn,
		    enum wqe_mtu mtu, const struct pair_opts *o, enum wqe_qp_state upto,
		    uint32_t sq_psn, uint32_t rq_psn)
{
	static const enum wqe_qp_state steps[] = {WQE_QPS_INIT, WQE_QPS_RTR, WQE_QPS_RTS};

	for (int i = 0; i < 3 && steps[i] <= upto; i++) {
		struct wqe_qp_attr a;
		int mask = WQE_QP_STATE, err;

		memset(&a, 0, sizeof(a));
		a.qp_state = steps[i];
		if (steps[i] == WQE_QPS_INIT) {
			a.port_num = 1;
			mask |= WQE_QP_PKEY_INDEX | WQE_QP_PORT;
			if (t == WQE_QPT_UD) {
				a.qkey = 0x11111111;
				mask |= WQE_QP_QKEY;
			} else {
				a.qp_access_flags = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ |
						    WQE_ACCESS_REMOTE_ATOMIC;
				mask |= WQE_QP_ACCESS_FLAGS;
			}
		} else if (steps[i] == WQE_QPS_RTR && t != WQE_QPT_UD) {
			a.path_mtu = mtu;
			a.dest_qp_num = peer_qpn;
			a.rq_psn = rq_psn;
			pair_peer_av(&a.ah_attr, peer_idx);
			mask |= WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN;
			if (t == WQE_QPT_RC) {
				a.max_dest_rd_atomic = 16;
				a.min_rnr_timer = o->min_rnr_timer;
				mask |= WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER;
			}
		} else if (steps[i] == WQE_QPS_RTS) {
			a.sq_psn = sq_psn;
			mask |= WQE_QP_SQ_PSN;
			if (t == WQE_QPT_RC) {
				a.timeout = o->timeout;
				/* With the NIC on a thread (WQE_NIC_MODE=thread) the
				 * timer runs on the wall clock against a peer thread a
				 * loaded machine may not run for milliseconds: at least
				 * 67 ms, as RoCE setups use (about 1 ms lost an ACK
				 * race in CI's async_comm_est_nicthread_rxe). */
				if (a.timeout && a.timeout < 14 && getenv("WQE_NIC_MODE") &&
				    !strcmp(getenv("WQE_NIC_MODE"), "thread"))
					a.timeout = 14;
				a.retry_cnt = o->retry_cnt;
				a.rnr_retry = o->rnr_retry;
				a.max_rd_atomic = o->max_rd_atomic;
				mask |= WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT | WQE_QP_RNR_RETRY |
					WQE_QP_MAX_QP_RD_ATOMIC;
			}
		}
		err = wqe_modify_qp(qp, &a, mask);
		if (err)
			return err;
	}
	return 0;
}

static int connect_ep(struct ep *e, const struct ep *peer, int peer_idx, enum wqe_qp_type t,
		      enum wqe_mtu mtu, const struct pair_opts *o)
{
	struct wqe_ah_attr aa;

	if (pair_connect_qp(e->qp, t, peer_idx, wqe_qp_num(peer->qp), mtu, o, WQE_QPS_RTS,
			    PAIR_PSN, PAIR_PSN))
		return -1;
	if (t == WQE_QPT_UD) {
		pair_peer_av(&aa, peer_idx);
		e->ah = wqe_create_ah(e->pd, &aa);
		if (!e->ah)
			return -1;
	}
	return 0;
}

int pair_open(struct pair *p, enum wqe_qp_type t, enum wqe_mtu mtu,
	      const struct wqe_fault_cfg *faults, uint32_t max_wr)
{
	return pair_open_opts(p, t, mtu, faults, max_wr, &pair_defaults);
}

int pair_open_opts(struct pair *p, enum wqe_qp_type t, enum wqe_mtu mtu,
		   const struct wqe_fault_cfg *faults, uint32_t max_wr,
		   const struct pair_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->type = t;
	p->loop = wqe_link_loopback_create();
	if (!p->loop)
		return -1;
	p->link = faults ? wqe_link_fault_create(p->loop, faults) : p->loop;
	if (!p->link || ep_open(&p->a, 1, t, max_wr, o) || ep_open(&p->b, 2, t, max_wr, o))
		return -1;
	if (wqe_context_attach_link(p->a.ctx, p->link) ||
	    wqe_context_attach_link(p->b.ctx, p->link))
		return -1;
	if (connect_ep(&p->a, &p->b, 2, t, mtu, o) || connect_ep(&p->b, &p->a, 1, t, mtu, o))
		return -1;
	return 0;
}

int pair_extra(struct pair *p, enum wqe_mtu mtu, uint32_t max_wr, const struct pair_opts *o,
	       struct wqe_qp **qa, struct wqe_qp **qb)
{
	struct ep a = p->a, b = p->b;

	a.qp = pair_new_qp(&p->a, p->type, NULL, NULL, max_wr, o);
	b.qp = pair_new_qp(&p->b, p->type, NULL, NULL, max_wr, o);
	*qa = a.qp;
	*qb = b.qp;
	a.ah = b.ah = NULL;
	if (!a.qp || !b.qp || p->type == WQE_QPT_UD)
		return -1;
	return connect_ep(&a, &b, 2, p->type, mtu, o) || connect_ep(&b, &a, 1, p->type, mtu, o)
		       ? -1
		       : 0;
}

static void ep_close(struct ep *e)
{
	if (e->ah)
		wqe_destroy_ah(e->ah);
	if (e->qp)
		wqe_destroy_qp(e->qp);
	if (e->scq)
		wqe_destroy_cq(e->scq);
	if (e->rcq)
		wqe_destroy_cq(e->rcq);
	/* Every event taken must have been acknowledged by now: the CQs went. */
	if (e->ch)
		CHECK_EQ(wqe_destroy_comp_channel(e->ch), 0);
	if (e->pd)
		wqe_dealloc_pd(e->pd);
	if (e->ctx) {
		wqe_context_attach_link(e->ctx, NULL);
		/* Every object of the test must be gone by now. */
		CHECK_EQ(wqe_close_context(e->ctx), 0);
	}
}

void pair_close(struct pair *p)
{
	ep_close(&p->a);
	ep_close(&p->b);
	if (p->link && p->link != p->loop)
		wqe_link_destroy(p->link);
	if (p->loop)
		wqe_link_destroy(p->loop);
}

/* Whether @ctx's NIC runs on a thread of its own (WQE_NIC_MODE=thread). */
static int threaded(struct wqe_context *ctx)
{
	struct wqe_context_attr a;

	return wqe_query_context(ctx, &a) == 0 && a.nic_mode == WQE_NIC_THREAD;
}

void pair_spin(struct pair *p, int rounds)
{
	if (threaded(p->a.ctx)) {
		/* The NIC threads run on their own: let them, about as long as
		 * @rounds progress calls of a loopback take (a few us each). */
		long ns = rounds > 10000 ? 50000000L : (long)rounds * 5000L;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = ns};

		nanosleep(&ts, NULL);
		return;
	}
	for (int i = 0; i < rounds; i++) {
		wqe_progress(p->a.ctx);
		wqe_progress(p->b.ctx);
	}
}

int pair_wait(struct pair *p, struct wqe_cq *cq, int n, struct wqe_wc *wc, int max_rounds)
{
	int got = 0;

	if (threaded(p->a.ctx))
		return test_wait_cq(p->a.ctx, p->b.ctx, cq, n, wc, 10.0);
	for (int i = 0; i < max_rounds && got < n; i++) {
		int r;

		pair_spin(p, 1);
		r = wqe_poll_cq(cq, n - got, wc + got);
		if (r > 0)
			got += r;
	}
	return got;
}

int pair_wait_time(struct pair *p, struct wqe_cq *cq, int n, struct wqe_wc *wc, double seconds)
{
	return test_wait_cq(p->a.ctx, p->b.ctx, cq, n, wc, seconds);
}
