/* SPDX-License-Identifier: MIT */
/*
 * Coalesced acknowledgement (IBTA ch. 9.7): the responder owes the ACK of a
 * request with AckReq until the NIC has taken the frames that arrived
 * together, then sends one ACK with the latest PSN and the MSN of that
 * moment. Checked here:
 *   - 16 RDMA WRITEs posted in one call: one ACK answers them all, every
 *     WRITE completes once, in order, and its bytes landed;
 *   - a WRITE and a READ in one burst: the owed ACK leaves before the READ
 *     response (nothing the QP sends overtakes it), and both complete;
 *   - a WRITE and an atomic: the ACK before the ATOMIC_ACKNOWLEDGE;
 *   - a READ, alone or after a WRITE: every request carries AckReq (as
 *     rxe sets it on every request's last packet) and B answers the READ
 *     with its READ responses only, no ACK;
 *   - the send window: 48 WRITEs of 4 KiB (192 packets) posted at once, B
 *     not running: A sends exactly 128 packets (rxe's
 *     RXE_MAX_UNACKED_PSNS) and waits; then, both running, no packet A
 *     sends is 128 or more PSNs past the last one B acknowledged, and all
 *     48 complete with their bytes.
 * (Frames handed in one at a time with wqe_context_receive() are answered
 * before the call returns, one ACK each: the tests under tests/resp.)
 */
#include <string.h>

#include "pair.h"
#include "testutil.h"
#include "wqe/wire.h"

#define N 16u
#define LEN 64u
#define PSN0 0x1000u /* pair.c's sq_psn and rq_psn */

static uint8_t a_buf[N * LEN], b_buf[N * LEN + 64];

/* Opcodes of the frames B sends, in order. */
struct tx_log {
	uint8_t op[64];
	uint8_t ackreq[64];
	uint32_t psn[64];
	unsigned n;
};

static void on_event(void *arg, const struct wqe_trace_event *ev)
{
	struct tx_log *l = arg;
	struct wqe_pkt p;

	if (ev->kind != WQE_TRACE_TX || l->n == 64 || wqe_pkt_parse(ev->frame, ev->len, &p))
		return;
	l->op[l->n] = p.bth.opcode;
	l->ackreq[l->n] = p.bth.ackreq;
	l->psn[l->n] = p.bth.psn;
	l->n++;
}

struct mrs {
	struct wqe_mr *a, *b;
};

static void reg(struct pair *p, struct mrs *m)
{
	m->a = wqe_reg_mr(p->a.pd, a_buf, sizeof(a_buf), WQE_ACCESS_LOCAL_WRITE);
	m->b = wqe_reg_mr(p->b.pd, b_buf, sizeof(b_buf),
			  WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ |
				  WQE_ACCESS_REMOTE_ATOMIC);
	CHECK(m->a && m->b);
}

static void write_wr(struct wqe_send_wr *wr, struct wqe_sge *s, const struct mrs *m, unsigned i)
{
	memset(wr, 0, sizeof(*wr));
	s->addr = (uint64_t)(uintptr_t)a_buf + i * LEN;
	s->length = LEN;
	s->lkey = m->a->lkey;
	wr->wr_id = i;
	wr->sg_list = s;
	wr->num_sge = 1;
	wr->opcode = WQE_WR_RDMA_WRITE;
	wr->send_flags = WQE_SEND_SIGNALED;
	wr->wr.rdma.remote_addr = (uint64_t)(uintptr_t)b_buf + i * LEN;
	wr->wr.rdma.rkey = m->b->rkey;
}

static void burst_of_writes(void)
{
	struct pair p;
	struct mrs m;
	struct wqe_send_wr wr[N], *bad;
	struct wqe_sge s[N];
	struct wqe_wc wc[N];
	struct wqe_qp_stats st;
	struct tx_log log = {0};

	CHECK_EQ(pair_open(&p, WQE_QPT_RC, WQE_MTU_1024, NULL, 64), 0);
	reg(&p, &m);
	for (unsigned i = 0; i < sizeof(a_buf); i++)
		a_buf[i] = (uint8_t)(i * 13 + 1);
	memset(b_buf, 0, sizeof(b_buf));
	CHECK_EQ(wqe_context_set_trace(p.b.ctx, on_event, &log), 0);
	for (unsigned i = 0; i < N; i++) {
		write_wr(&wr[i], &s[i], &m, i);
		wr[i].next = i + 1 < N ? &wr[i + 1] : NULL;
	}
	CHECK_EQ(wqe_post_send(p.a.qp, wr, &bad), 0);
	CHECK_EQ(pair_wait(&p, p.a.scq, N, wc, 1000), (int)N);
	for (unsigned i = 0; i < N; i++) {
		CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, i);
	}
	CHECK_MEM(b_buf, a_buf, sizeof(a_buf));
	CHECK_EQ(wqe_query_qp_stats(p.b.qp, &st), 0);
	CHECK_EQ(st.acks_sent, 1);
	CHECK_EQ(log.n, 1);
	CHECK_EQ(log.op[0], 0x11);
	CHECK_EQ(log.psn[0], PSN0 + N - 1); /* the last WRITE's PSN */
	CHECK_EQ(wqe_poll_cq(p.a.scq, N, wc), 0);       /* nothing twice */
	wqe_context_set_trace(p.b.ctx, NULL, NULL);
	wqe_dereg_mr(m.a);
	wqe_dereg_mr(m.b);
	pair_close(&p);
}

/* A WRITE, then @second (READ or FETCH_ADD) in one post: B's ACK for the
 * WRITE goes out before its answer to the second. */
static void ack_before_answer(enum wqe_wr_opcode second)
{
	struct pair p;
	struct mrs m;
	struct wqe_send_wr wr[2], *bad;
	struct wqe_sge s[2];
	struct wqe_wc wc[2];
	struct tx_log log = {0};
	uint8_t answer = second == WQE_WR_RDMA_READ ? 0x10 : 0x12; /* READ ONLY, ATOMIC ACK */

	CHECK_EQ(pair_open(&p, WQE_QPT_RC, WQE_MTU_1024, NULL, 64), 0);
	reg(&p, &m);
	CHECK_EQ(wqe_context_set_trace(p.b.ctx, on_event, &log), 0);
	write_wr(&wr[0], &s[0], &m, 0);
	write_wr(&wr[1], &s[1], &m, 1);
	wr[0].next = &wr[1];
	wr[1].opcode = second;
	if (second != WQE_WR_RDMA_READ) {
		s[1].length = 8;
		wr[1].wr.atomic.remote_addr = (uint64_t)(uintptr_t)b_buf + N * LEN;
		wr[1].wr.atomic.rkey = m.b->rkey;
		wr[1].wr.atomic.compare_add = 1;
	}
	CHECK_EQ(wqe_post_send(p.a.qp, wr, &bad), 0);
	CHECK_EQ(pair_wait(&p, p.a.scq, 2, wc, 1000), 2);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].wr_id, 0);
	CHECK_EQ(wc[1].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[1].wr_id, 1);
	CHECK_EQ(log.n, 2);
	CHECK_EQ(log.op[0], 0x11);
	CHECK_EQ(log.psn[0], PSN0);
	CHECK_EQ(log.op[1], answer);
	CHECK_EQ(log.psn[1], PSN0 + 1);
	wqe_context_set_trace(p.b.ctx, NULL, NULL);
	wqe_dereg_mr(m.a);
	wqe_dereg_mr(m.b);
	pair_close(&p);
}

/* A READ of 600 bytes at PMTU 256, after a WRITE if @after_write, in one
 * post: every request A sends asks for an acknowledgement; B's answer to
 * the READ is its three responses, no ACKNOWLEDGE after them. */
static void read_no_ack(int after_write)
{
	struct pair p;
	struct mrs m;
	struct wqe_send_wr wr[2], *bad;
	struct wqe_sge s[2];
	struct wqe_wc wc[2];
	struct wqe_qp_stats st;
	struct tx_log la = {0}, lb = {0};
	unsigned nreq = after_write ? 2u : 1u, rd = nreq - 1, b0 = after_write ? 1u : 0u;

	CHECK_EQ(pair_open(&p, WQE_QPT_RC, WQE_MTU_256, NULL, 64), 0);
	reg(&p, &m);
	memset(a_buf, 0, sizeof(a_buf));
	for (unsigned i = 0; i < sizeof(b_buf); i++)
		b_buf[i] = (uint8_t)(i * 7 + 3);
	CHECK_EQ(wqe_context_set_trace(p.a.ctx, on_event, &la), 0);
	CHECK_EQ(wqe_context_set_trace(p.b.ctx, on_event, &lb), 0);
	write_wr(&wr[0], &s[0], &m, 0);
	write_wr(&wr[rd], &s[rd], &m, rd);
	if (after_write)
		wr[0].next = &wr[1];
	wr[rd].opcode = WQE_WR_RDMA_READ;
	s[rd].length = 600;
	CHECK_EQ(wqe_post_send(p.a.qp, wr, &bad), 0);
	CHECK_EQ(pair_wait(&p, p.a.scq, (int)nreq, wc, 1000), (int)nreq);
	CHECK_EQ(wc[rd].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[rd].opcode, WQE_WC_RDMA_READ);
	CHECK_EQ(la.n, nreq);
	CHECK_EQ(la.op[rd], 0x0c);
	for (unsigned i = 0; i < nreq; i++)
		CHECK_EQ(la.ackreq[i], 1);
	/* B: the WRITE's ACK (if any) first, then FIRST, MIDDLE, LAST. */
	CHECK_EQ(lb.n, b0 + 3);
	if (after_write)
		CHECK_EQ(lb.op[0], 0x11);
	CHECK_EQ(lb.op[b0], 0x0d);
	CHECK_EQ(lb.op[b0 + 1], 0x0e);
	CHECK_EQ(lb.op[b0 + 2], 0x0f);
	CHECK_EQ(wqe_query_qp_stats(p.b.qp, &st), 0);
	CHECK_EQ(st.acks_sent, b0);
	CHECK_EQ(st.read_responses_sent, 3);
	CHECK_MEM(a_buf + rd * LEN, b_buf + rd * LEN, 600);
	wqe_context_set_trace(p.a.ctx, NULL, NULL);
	wqe_context_set_trace(p.b.ctx, NULL, NULL);
	wqe_dereg_mr(m.a);
	wqe_dereg_mr(m.b);
	pair_close(&p);
}

/* What the window test sees: A's new request PSNs against B's ACKs. */
struct window_log {
	uint32_t acked;    /* B's last ACK PSN + 1 */
	uint32_t next;     /* the next new PSN A sends */
	uint32_t max_out;  /* the most PSNs out when A sent a new one */
	unsigned a_frames; /* A's request frames, resends included */
};

static void window_a(void *arg, const struct wqe_trace_event *ev)
{
	struct window_log *l = arg;
	struct wqe_pkt p;
	uint32_t out;

	if (ev->kind != WQE_TRACE_TX || wqe_pkt_parse(ev->frame, ev->len, &p))
		return;
	l->a_frames++;
	out = (p.bth.psn - l->acked + 1) & 0xffffffu;
	if (p.bth.psn == l->next) {
		l->next = (l->next + 1) & 0xffffffu;
		if (out > l->max_out)
			l->max_out = out;
	}
}

static void window_b(void *arg, const struct wqe_trace_event *ev)
{
	struct window_log *l = arg;
	struct wqe_pkt p;

	if (ev->kind == WQE_TRACE_TX && !wqe_pkt_parse(ev->frame, ev->len, &p) &&
	    p.bth.opcode == 0x11)
		l->acked = (p.bth.psn + 1) & 0xffffffu;
}

static void send_window(void)
{
	enum { W = 48, WLEN = 4096 };
	static uint8_t src[W * WLEN], dst[W * WLEN];
	struct window_log log = {.acked = PSN0, .next = PSN0};
	struct wqe_send_wr wr[W], *bad;
	struct wqe_sge s[W];
	struct wqe_wc wc[W];
	struct pair_opts o = pair_defaults;
	struct wqe_mr *am, *bm;
	struct pair p;

	/* A retransmit timeout of 4 s: not even valgrind's pace resends. */
	o.timeout = 20;
	CHECK_EQ(pair_open_opts(&p, WQE_QPT_RC, WQE_MTU_1024, NULL, 64, &o), 0);
	am = wqe_reg_mr(p.a.pd, src, sizeof(src), WQE_ACCESS_LOCAL_WRITE);
	bm = wqe_reg_mr(p.b.pd, dst, sizeof(dst), WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	CHECK(am && bm);
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 5);
	memset(dst, 0, sizeof(dst));
	CHECK_EQ(wqe_context_set_trace(p.a.ctx, window_a, &log), 0);
	CHECK_EQ(wqe_context_set_trace(p.b.ctx, window_b, &log), 0);
	for (unsigned i = 0; i < W; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		s[i] = (struct wqe_sge){(uint64_t)(uintptr_t)src + i * WLEN, WLEN, am->lkey};
		wr[i].wr_id = i;
		wr[i].sg_list = &s[i];
		wr[i].num_sge = 1;
		wr[i].opcode = WQE_WR_RDMA_WRITE;
		wr[i].send_flags = WQE_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uint64_t)(uintptr_t)dst + i * WLEN;
		wr[i].wr.rdma.rkey = bm->rkey;
		wr[i].next = i + 1 < W ? &wr[i + 1] : NULL;
	}
	CHECK_EQ(wqe_post_send(p.a.qp, wr, &bad), 0);
	/* B never runs: far fewer calls than a retransmit timeout takes. */
	for (int i = 0; i < 20; i++)
		wqe_progress(p.a.ctx);
	CHECK_EQ(log.a_frames, 128);
	CHECK_EQ(log.next, PSN0 + 128);
	CHECK_EQ(pair_wait(&p, p.a.scq, W, wc, 100000), W);
	for (unsigned i = 0; i < W; i++) {
		CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, i);
	}
	CHECK_MEM(dst, src, sizeof(src));
	CHECK_EQ(log.next, PSN0 + W * 4);
	CHECK(log.max_out <= 128);
	CHECK_EQ(log.a_frames, W * 4); /* nothing lost, nothing sent twice */
	wqe_context_set_trace(p.a.ctx, NULL, NULL);
	wqe_context_set_trace(p.b.ctx, NULL, NULL);
	wqe_dereg_mr(am);
	wqe_dereg_mr(bm);
	pair_close(&p);
}

int main(void)
{
	burst_of_writes();
	send_window();
	ack_before_answer(WQE_WR_RDMA_READ);
	ack_before_answer(WQE_WR_ATOMIC_FETCH_AND_ADD);
	read_no_ack(0);
	read_no_ack(1);
	return test_finish();
}
