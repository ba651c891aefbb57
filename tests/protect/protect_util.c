/* SPDX-License-Identifier: MIT */
#include "protect_util.h"

#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "wqe/link.h"
#include "wqe/wire.h"

#define ARENA_SIZE (NREGION * (REGION_LEN + 2 * ARENA_GUARD) + 4096u)

static _Alignas(64) uint8_t arena[ARENA_SIZE];
static uint8_t allowed[ARENA_SIZE];
static size_t used;

static uint8_t pattern(size_t i)
{
	return (uint8_t)(0xa5 ^ (uint8_t)(i * 131u + (i >> 8) * 7u));
}

void arena_reset(void)
{
	used = 0;
	arena_fill();
}

void arena_fill(void)
{
	for (size_t i = 0; i < ARENA_SIZE; i++)
		arena[i] = pattern(i);
	memset(allowed, 0, sizeof(allowed));
}

uint8_t *arena_take(size_t len)
{
	size_t off = (used + ARENA_GUARD + 63u) & ~(size_t)63u;

	CHECK(off + len + ARENA_GUARD <= ARENA_SIZE);
	used = off + len;
	return arena + off;
}

void arena_allow(const void *p, size_t len)
{
	size_t off = (size_t)((const uint8_t *)p - arena);

	CHECK(off <= ARENA_SIZE && len <= ARENA_SIZE - off);
	memset(allowed + off, 1, len);
}

size_t arena_changed(const char *label)
{
	size_t bad = 0;

	for (size_t i = 0; i < ARENA_SIZE; i++) {
		if (allowed[i] || arena[i] == pattern(i))
			continue;
		if (bad++ < 4)
			fprintf(stderr, "%s: arena byte %zu changed (0x%02x, was 0x%02x)\n", label,
				i, arena[i], pattern(i));
	}
	return bad;
}

static void on_trace(void *arg, const struct wqe_trace_event *ev)
{
	struct tap *t = arg;
	struct wqe_pkt p;

	if (ev->kind == WQE_TRACE_DROP) {
		t->ndrop++;
		t->drop_reason = ev->reason;
	}
	if (ev->kind == WQE_TRACE_CHECK_FAIL) {
		t->ncheck_fail++;
		t->check = ev->check;
	}
	if (ev->kind != WQE_TRACE_TX || t->ntx >= TAP_MAX)
		return;
	if (wqe_pkt_parse(ev->frame, ev->len, &p)) {
		t->op[t->ntx] = 0xff;
		t->syndrome[t->ntx] = 0xff;
	} else {
		t->op[t->ntx] = p.bth.opcode;
		t->syndrome[t->ntx] = (p.hdrs & WQE_HDR_AETH) ? p.aeth.syndrome : 0xff;
		t->psn[t->ntx] = p.bth.psn;
	}
	t->ntx++;
}

uint32_t tap_count(const struct tap *t, uint8_t opcode, uint8_t syndrome)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->ntx; i++)
		n += t->op[i] == opcode && t->syndrome[i] == syndrome;
	return n;
}

uint32_t tap_responses(const struct tap *t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->ntx; i++)
		n += t->op[i] >= WQE_WIRE_RC_RDMA_READ_RESPONSE_FIRST &&
		     t->op[i] <= WQE_WIRE_RC_ATOMIC_ACKNOWLEDGE;
	return n;
}

void penv_open(struct penv *e, enum wqe_qp_type t)
{
	const unsigned lw = WQE_ACCESS_LOCAL_WRITE, rw = WQE_ACCESS_REMOTE_WRITE,
		       rr = WQE_ACCESS_REMOTE_READ, ra = WQE_ACCESS_REMOTE_ATOMIC;
	const unsigned all = lw | rw | rr | ra;
	static const int on_b[NREGION] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	const unsigned acc[NREGION] = {
	    lw, 0, lw, lw, lw, all, lw | rr | ra, lw | rw | ra, lw | rw | rr, all, all, all, lw, 0};

	memset(e, 0, sizeof(*e));
	arena_reset();
	CHECK_EQ(pair_open(&e->p, t, WQE_MTU_1024, NULL, 16), 0);
	CHECK_EQ(wqe_context_set_trace(e->p.a.ctx, on_trace, &e->ta), 0);
	CHECK_EQ(wqe_context_set_trace(e->p.b.ctx, on_trace, &e->tb), 0);
	e->a_pd2 = wqe_alloc_pd(e->p.a.ctx);
	e->b_pd2 = wqe_alloc_pd(e->p.b.ctx);
	CHECK(e->a_pd2 && e->b_pd2);
	for (int r = 0; r < NREGION; r++) {
		struct wqe_pd *pd = on_b[r] ? (r == B_PD2 ? e->b_pd2 : e->p.b.pd)
					    : (r == A_PD2 ? e->a_pd2 : e->p.a.pd);

		e->buf[r] = arena_take(REGION_LEN);
		e->mr[r] = wqe_reg_mr(pd, e->buf[r], REGION_LEN, acc[r]);
		CHECK(e->mr[r] != NULL);
		if (!e->mr[r])
			continue;
		e->key[r] = e->mr[r]->lkey;
		CHECK_EQ(e->mr[r]->rkey, e->mr[r]->lkey);
	}
	CHECK_EQ(wqe_dereg_mr(e->mr[A_DEREG]), 0);
	CHECK_EQ(wqe_dereg_mr(e->mr[B_DEREG]), 0);
	e->mr[A_DEREG] = e->mr[B_DEREG] = NULL;
	arena_fill();
}

void penv_close(struct penv *e)
{
	for (int r = 0; r < NREGION; r++)
		if (e->mr[r])
			CHECK_EQ(wqe_dereg_mr(e->mr[r]), 0);
	/* pair_close() closes the contexts: the second PDs go first. */
	CHECK_EQ(wqe_dealloc_pd(e->a_pd2), 0);
	CHECK_EQ(wqe_dealloc_pd(e->b_pd2), 0);
	pair_close(&e->p);
}

struct wqe_sge penv_sge(const struct penv *e, int r, uint32_t off, uint32_t len)
{
	struct wqe_sge s = {penv_addr(e, r, off), len, e->key[r]};

	return s;
}

uint64_t penv_addr(const struct penv *e, int r, uint32_t off)
{
	return (uint64_t)(uintptr_t)e->buf[r] + off;
}

void penv_recv(struct penv *e, struct ep *ep, struct wqe_sge sge, uint64_t wr_id)
{
	struct wqe_recv_wr r = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1}, *bad;

	(void)e;
	CHECK_EQ(wqe_post_recv(ep->qp, &r, &bad), 0);
}

int penv_post_three(struct penv *e, struct wqe_send_wr *w)
{
	static struct wqe_sge s;
	struct wqe_send_wr g[2], *bad;

	s = penv_sge(e, A_SRC, 0, 16);
	memset(g, 0, sizeof(g));
	for (int i = 0; i < 2; i++) {
		g[i].wr_id = 101 + (uint64_t)i;
		g[i].sg_list = &s;
		g[i].num_sge = 1;
		g[i].opcode = WQE_WR_SEND;
		g[i].send_flags = WQE_SEND_SIGNALED;
		g[i].next = i ? NULL : &g[1];
	}
	w->wr_id = 100;
	w->send_flags |= WQE_SEND_SIGNALED;
	w->next = g;
	if (e->p.type == WQE_QPT_UD) {
		for (struct wqe_send_wr *x = w; x; x = x->next) {
			x->wr.ud.ah = e->p.a.ah;
			x->wr.ud.remote_qpn = wqe_qp_num(e->p.b.qp);
			x->wr.ud.remote_qkey = 0x11111111;
		}
	}
	return wqe_post_send(e->p.a.qp, w, &bad);
}

int penv_wait(struct penv *e, struct wqe_cq *cq, int n, struct wqe_wc *wc)
{
	return pair_wait_time(&e->p, cq, n, wc, 5.0);
}

enum wqe_qp_state qp_state(struct wqe_qp *qp)
{
	struct wqe_qp_attr a;

	memset(&a, 0, sizeof(a));
	wqe_query_qp(qp, &a, 0, NULL);
	return a.qp_state;
}

uint64_t a_packets(struct penv *e)
{
	struct wqe_qp_stats st;

	memset(&st, 0, sizeof(st));
	wqe_query_qp_stats(e->p.a.qp, &st);
	return st.packets_sent;
}

void penv_check_remote(struct penv *e, const char *label, enum wqe_wc_status st, uint8_t syndrome,
		       enum wqe_qp_state b_state, int b_recvs, enum wqe_wc_status b_first)
{
	struct wqe_wc wc[8];
	unsigned long failed = test_failures;

	CHECK_EQ(penv_wait(e, e->p.a.scq, 3, wc), 3);
	CHECK_EQ(wc[0].wr_id, 100);
	CHECK_EQ(wc[0].status, st);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[2].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(penv_wait(e, e->p.a.rcq, 2, wc), 2);
	CHECK_EQ(wc[0].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(qp_state(e->p.a.qp), WQE_QPS_ERR);
	CHECK_EQ(tap_count(&e->tb, WQE_WIRE_RC_ACKNOWLEDGE, syndrome), 1);
	CHECK_EQ(tap_responses(&e->tb), 1);
	CHECK_EQ(qp_state(e->p.b.qp), b_state);
	if (b_recvs) {
		CHECK_EQ(penv_wait(e, e->p.b.rcq, b_recvs, wc), b_recvs);
		CHECK_EQ(wc[0].status, b_first);
		for (int i = 1; i < b_recvs; i++)
			CHECK_EQ(wc[i].status, WQE_WC_WR_FLUSH_ERR);
	}
	pair_spin(&e->p, 4);
	CHECK_EQ(wqe_poll_cq(e->p.b.rcq, 8, wc), 0);
	if (arena_changed(label))
		test_fail(__FILE__, __LINE__, "%s: bytes changed outside what was allowed", label);
	if (test_failures != failed)
		fprintf(stderr, "  ^ in case: %s\n", label);
}
