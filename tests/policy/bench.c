/* SPDX-License-Identifier: MIT */
/* The policy tests' bench (bench.h): setup and the checks they share. */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "testutil.h"
#include "wqe/wire.h"

const char *bench_name(const struct bench *b)
{
	static char name[64];

	snprintf(name, sizeof(name), "%s/%s/%s", wqe_format_str(b->fmt),
		 wqe_check_policy_str(b->policy), wqe_qp_type_str(b->type));
	return name;
}

static void on_event(void *arg, const struct wqe_trace_event *e)
{
	struct bench *b = arg;
	struct bench_event *k;

	if (b->nev == BENCH_MAX_EVENTS)
		return;
	k = &b->ev[b->nev++];
	k->kind = e->kind;
	k->qpn = e->qpn;
	k->wqe_counter = e->wqe_counter;
	k->check = e->check;
	k->status = e->status;
	k->reason = e->reason;
}

enum wqe_qp_state bench_qp_state(struct wqe_qp *qp)
{
	struct wqe_qp_attr a;

	if (wqe_query_qp(qp, &a, 0, NULL))
		return (enum wqe_qp_state)99;
	return a.qp_state;
}

/* RESET -> ... -> @state, one legal transition at a time. */
static int move_to(struct wqe_qp *qp, enum wqe_qp_type t, enum wqe_qp_state state)
{
	static const enum wqe_qp_state steps[] = {WQE_QPS_INIT, WQE_QPS_RTR, WQE_QPS_RTS};

	for (size_t i = 0; i < 3 && state != WQE_QPS_RESET; i++) {
		struct wqe_qp_attr a;
		int mask;

		test_qp_attr_for(t, steps[i], &a, &mask, 0x99, WQE_MTU_1024);
		if (wqe_modify_qp(qp, &a, mask))
			return -1;
		if (steps[i] == state)
			break;
	}
	return bench_qp_state(qp) == state ? 0 : -1;
}

static int open_objects(struct bench *b)
{
	struct wqe_context_attr ca = {
	    .format = b->fmt, .checks = b->policy, .mac = {0x02, 0, 0, 0, 0, 0x01}};
	struct wqe_ah_attr aa = {.port_num = 1, .dmac = {0x02, 0, 0, 0, 0, 0x02}};

	aa.grh.dgid.raw[10] = aa.grh.dgid.raw[11] = 0xff;
	aa.grh.dgid.raw[12] = 192;
	aa.grh.dgid.raw[14] = 2;
	aa.grh.dgid.raw[15] = 2;
	b->ctx = wqe_open_context(&ca);
	b->pd = b->ctx ? wqe_alloc_pd(b->ctx) : NULL;
	b->cq = b->ctx ? wqe_create_cq(b->ctx, 64) : NULL;
	b->ccq = b->ctx ? wqe_create_cq(b->ctx, 16) : NULL;
	b->sink = wqe_link_sink_create(64);
	b->buf = calloc(1, BENCH_BUF);
	if (!b->pd || !b->cq || !b->ccq || !b->sink || !b->buf)
		return -1;
	b->mr = wqe_reg_mr(b->pd, b->buf, BENCH_BUF, WQE_ACCESS_LOCAL_WRITE);
	b->ah = wqe_create_ah(b->pd, &aa);
	return b->mr && b->ah ? 0 : -1;
}

static int open_qps(struct bench *b, enum wqe_qp_state state)
{
	struct wqe_qp_init_attr ia = {
	    .send_cq = b->cq, .recv_cq = b->cq, .qp_type = b->type, .cap = {16, 4, 2, 1, 16}};
	struct wqe_qp_init_attr ca = {
	    .send_cq = b->ccq, .recv_cq = b->ccq, .qp_type = WQE_QPT_UC, .cap = {4, 1, 1, 1, 0}};

	b->qp = wqe_create_qp(b->pd, &ia);
	b->ctl = wqe_create_qp(b->pd, &ca);
	if (!b->qp || !b->ctl)
		return -1;
	if (move_to(b->qp, b->type, state) ||
	    test_qp_to_rts(b->ctl, WQE_QPT_UC, 0x99, WQE_MTU_1024))
		return -1;
	return 0;
}

int bench_open(struct bench *b, enum wqe_format fmt, enum wqe_check_policy p, enum wqe_qp_type t,
	       enum wqe_qp_state state)
{
	static unsigned int seq;

	memset(b, 0, sizeof(*b));
	b->fmt = fmt;
	b->policy = p;
	b->type = t;
	snprintf(b->pcap, sizeof(b->pcap), "policy-%d-%u.pcap", (int)getpid(), seq++);
	if (open_objects(b) || open_qps(b, state) || wqe_context_attach_link(b->ctx, b->sink) ||
	    wqe_context_set_pcap(b->ctx, b->pcap) || wqe_context_set_trace(b->ctx, on_event, b)) {
		test_fail(__FILE__, __LINE__, "%s: bench setup failed", bench_name(b));
		return -1;
	}
	return 0;
}

void bench_close(struct bench *b)
{
	if (b->ctx) {
		wqe_context_set_trace(b->ctx, NULL, NULL);
		wqe_context_set_pcap(b->ctx, NULL);
		wqe_context_attach_link(b->ctx, NULL);
	}
	if (b->qp)
		wqe_destroy_qp(b->qp);
	if (b->ctl)
		wqe_destroy_qp(b->ctl);
	if (b->ah)
		wqe_destroy_ah(b->ah);
	if (b->mr)
		wqe_dereg_mr(b->mr);
	if (b->cq)
		wqe_destroy_cq(b->cq);
	if (b->ccq)
		wqe_destroy_cq(b->ccq);
	if (b->pd)
		wqe_dealloc_pd(b->pd);
	if (b->ctx)
		CHECK_EQ(wqe_close_context(b->ctx), 0);
	if (b->sink)
		wqe_link_destroy(b->sink);
	free(b->buf);
	unlink(b->pcap);
}

void bench_send(const struct bench *b, struct wqe_send_wr *wr, struct wqe_sge *sge, uint64_t wr_id,
		uint32_t len, unsigned int flags)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uint64_t)(uintptr_t)b->buf;
	sge->length = len;
	sge->lkey = b->mr->lkey;
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = WQE_WR_SEND;
	wr->send_flags = flags;
	if (b->type == WQE_QPT_UD) {
		wr->wr.ud.ah = b->ah;
		wr->wr.ud.remote_qpn = 0x99;
		wr->wr.ud.remote_qkey = 0x11111111;
	}
}

int bench_pcap_frames(const struct bench *b)
{
	char err[256];
	struct wqe_pcap_reader *r;
	const uint8_t *frame;
	struct stat st;
	size_t len;
	uint64_t ts;
	int n = 0, got;

	/* The tap flushes after every frame, but its file header only with
	 * the first frame (or at close): an empty file has had no frame. */
	if (stat(b->pcap, &st) == 0 && st.st_size == 0)
		return 0;
	r = wqe_pcap_reader_open(b->pcap, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "%s: %s\n", b->pcap, err);
		return -1;
	}
	while ((got = wqe_pcap_read(r, &frame, &len, &ts)) == 1)
		n++;
	wqe_pcap_reader_close(r);
	return got < 0 ? -1 : n;
}

/* No frame left the port: none on the sink, none in the capture. */
static void no_packet(const struct bench *b, int line)
{
	test_checks += 2;
	if (wqe_link_sink_count(b->sink) != 0)
		test_fail(__FILE__, line, "%s: %zu frames on the sink", bench_name(b),
			  wqe_link_sink_count(b->sink));
	if (bench_pcap_frames(b) != 0)
		test_fail(__FILE__, line, "%s: %d frames in the capture", bench_name(b),
			  bench_pcap_frames(b));
}

static void spin(struct bench *b)
{
	for (int i = 0; i < 16; i++)
		wqe_progress(b->ctx);
}

void bench_refused_at_post(struct bench *b, struct wqe_send_wr *wr)
{
	struct wqe_send_wr *bad = NULL;
	struct wqe_qp_dv dv0, dv;
	enum wqe_qp_state st = bench_qp_state(b->qp);
	struct wqe_wc wc[4];
	uint8_t *ring0;
	int nev0 = b->nev;

	CHECK_EQ(wqe_qp_dv_query(b->qp, &dv0), 0);
	ring0 = malloc((size_t)dv0.sq_nblocks * WQE_BLOCK_SIZE);
	memcpy(ring0, dv0.sq_buf, (size_t)dv0.sq_nblocks * WQE_BLOCK_SIZE);
	CHECK_EQ(wqe_post_send(b->qp, wr, &bad), EINVAL);
	CHECK(bad == wr);
	CHECK_EQ(wqe_qp_dv_query(b->qp, &dv), 0);
	CHECK_EQ(dv.sq_pi, dv0.sq_pi);
	CHECK_MEM(dv.sq_buf, ring0, (size_t)dv0.sq_nblocks * WQE_BLOCK_SIZE);
	spin(b);
	CHECK_EQ(wqe_poll_cq(b->cq, 4, wc), 0);
	CHECK_EQ(bench_qp_state(b->qp), st);
	/* nothing reached the NIC: no doorbell, no event of any kind */
	CHECK_EQ(b->nev, nev0);
	no_packet(b, __LINE__);
	free(ring0);
}

/* The events of the QP under test since @from: one CHECK_FAIL at @counter
 * naming @check, after the doorbell; no FETCH and no TX. */
static void check_events(const struct bench *b, int from, uint32_t counter, enum wqe_check check,
			 enum wqe_wc_status status)
{
	uint32_t qpn = wqe_qp_num(b->qp);
	int fails = 0, doorbell_at = -1, fail_at = -1, first_cqe = -1;

	for (int i = from; i < b->nev; i++) {
		const struct bench_event *e = &b->ev[i];

		if (e->qpn != qpn)
			continue;
		CHECK(e->kind != WQE_TRACE_TX && e->kind != WQE_TRACE_FETCH);
		if (e->kind == WQE_TRACE_DOORBELL && doorbell_at < 0)
			doorbell_at = i;
		if (e->kind == WQE_TRACE_CQE && first_cqe < 0)
			first_cqe = i;
		if (e->kind != WQE_TRACE_CHECK_FAIL)
			continue;
		fails++;
		fail_at = i;
		CHECK_EQ(e->wqe_counter, counter);
		CHECK_EQ(e->check, check);
		CHECK_EQ(e->status, status);
		CHECK(e->reason && e->reason[0]);
	}
	CHECK_EQ(fails, 1);
	CHECK(doorbell_at >= 0 && doorbell_at < fail_at);
	CHECK(first_cqe > fail_at);
	if (first_cqe >= 0)
		CHECK_EQ(b->ev[first_cqe].status, status);
}

void bench_failed_in_engine(struct bench *b, struct wqe_send_wr *wr, int n, enum wqe_check check,
			    enum wqe_wc_status status)
{
	struct wqe_send_wr *bad = NULL, *w;
	struct wqe_qp_dv dv0, dv;
	struct wqe_wc wc[8];
	int nev0 = b->nev, got = 0, i;

	CHECK_EQ(wqe_qp_dv_query(b->qp, &dv0), 0);
	CHECK_EQ(wqe_post_send(b->qp, wr, &bad), 0);
	CHECK(bad == NULL);
	CHECK_EQ(wqe_qp_dv_query(b->qp, &dv), 0);
	CHECK(dv.sq_pi != dv0.sq_pi); /* the WQEs are in the ring */
	for (i = 0; i < 64 && got < n; i++) {
		int k = wqe_poll_cq(b->cq, 8 - got, wc + got);

		CHECK(k >= 0);
		got += k > 0 ? k : 0;
	}
	CHECK_EQ(got, n);
	spin(b);
	CHECK_EQ(wqe_poll_cq(b->cq, 1, wc + 7), 0);
	/* the failed one completes even unsignaled, then every later one is flushed */
	for (i = 0, w = wr; i < got && w; i++, w = w->next) {
		CHECK_EQ(wc[i].wr_id, w->wr_id);
		CHECK_EQ(wc[i].status, i ? WQE_WC_WR_FLUSH_ERR : status);
		CHECK_EQ(wc[i].qp_num, wqe_qp_num(b->qp));
	}
	CHECK_EQ(bench_qp_state(b->qp), WQE_QPS_ERR);
	check_events(b, nev0, dv0.sq_pi, check, status);
	no_packet(b, __LINE__);
}

void bench_control_packet(struct bench *b)
{
	struct wqe_sge sge = {(uint64_t)(uintptr_t)b->buf, 32, b->mr->lkey};
	struct wqe_send_wr wr = {.wr_id = 77,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = WQE_WR_SEND,
				 .send_flags = WQE_SEND_SIGNALED},
			   *bad;
	struct wqe_wc wc;
	int got = 0, tx = 0;

	CHECK_EQ(wqe_post_send(b->ctl, &wr, &bad), 0);
	for (int i = 0; i < 64 && !got; i++)
		got = wqe_poll_cq(b->ccq, 1, &wc);
	CHECK_EQ(got, 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_EQ(wqe_link_sink_count(b->sink), 1);
	CHECK_EQ(bench_pcap_frames(b), 1);
	for (int i = 0; i < b->nev; i++)
		if (b->ev[i].kind == WQE_TRACE_TX) {
			CHECK_EQ(b->ev[i].qpn, wqe_qp_num(b->ctl));
			tx++;
		}
	CHECK_EQ(tx, 1);
}
