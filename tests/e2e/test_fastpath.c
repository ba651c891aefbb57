/* SPDX-License-Identifier: MIT */
/*
 * The engine's fast paths against the general path they stand beside:
 * the requester's one-packet WRITE/SEND, with or without an immediate,
 * one SGE, inline or no payload, straight from the ring's bytes
 * (requester.c send_simple()), the receive path's RDMA WRITE packets
 * straight to their placement (rx.c rx_write()), its SEND packets straight
 * to the receive WQE (rx_send()), and its ACKNOWLEDGE straight to the
 * completer (rx_acknowledge()). One seeded workload (every operation,
 * immediates, one and several SGEs, inline, fences, READs, sizes from 0
 * bytes to three MTUs, SENDs of four packets, RC and UC, frames dropped,
 * duplicated, reordered, delayed and corrupted by a fault link,
 * retransmissions on a clock the test turns) runs twice on fresh pairs
 * over the same memory: with the fast paths, and with them off
 * (WQE_FAST_PATH=0). What the two
 * runs show must be identical: every frame each side sent and received,
 * in order, byte for byte, with its time (each side's capture), every
 * completion, the bytes in memory, the QP and port counters, the
 * engine's state of both QPs after every round. The fast run must have
 * taken the fast paths (the NIC counts what they took).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/nic.h"
#include "pair.h"
#include "testutil.h"
#include "verbs/verbs_int.h"
#include "wqe/wire.h"

#define BUF (64u * 1024u)
#define STEPS 1500
#define OUTSTANDING 24
#define NLOG (4 * STEPS + 64)
#define DRAIN 4000
#define NSTATE (STEPS + DRAIN)

/* Static, so that both runs place and name the same addresses. */
static uint8_t abuf[BUF], bbuf[BUF];
static uint64_t now_ns;

struct logged_wc {
	uint64_t wr_id;
	uint32_t status, opcode, byte_len, imm, flags, side;
};

struct run {
	struct logged_wc wc[NLOG];
	size_t nwc;
	uint8_t a[BUF], b[BUF];
	struct wqe_qp_stats qa, qb;
	struct wqe_port_stats pa, pb;
	uint64_t fast_tx, fast_tx_inline, fast_tx_imm, fast_rx, fast_rx_acks, fast_rx_sends;
	uint64_t fast_rx_imm;
	uint64_t state[NSTATE]; /* the engine's state of both QPs, round by round */
	size_t nstate;
	char cap_a[64], cap_b[64];
};

/* FNV-1a over 64-bit values. */
static uint64_t mix_all(uint64_t h, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 0x100000001b3ull;
	return h;
}

/* The engine's own state of @qp that the fast paths change, field by
 * field: what the next packets and ACKs depend on, and the counters. */
static uint64_t qp_state(uint64_t h, const struct wqe_qp *qp)
{
	const struct eng_qp *e = qp->qpc.eng;
	const struct eng_req *q = &e->req;
	const struct eng_resp *r = &e->resp;
	const uint64_t *st = (const uint64_t *)&r->stats;
	const uint64_t req[] = {
		q->fetch, q->psn, q->comp_psn, q->fl_head, q->fl_tail, q->ip_id, q->stalled,
		q->tx_open, q->rd_atomic, q->msg.wqes_fetched, q->msg.wqe_fetch_blocks,
		q->msg.payload_reads, q->msg.payload_bytes, q->msg.packets_sent,
		q->msg.bytes_sent, q->msg.rx_responses};
	const uint64_t resp[] = {
		r->epsn, r->ack_psn, r->msn, r->last_path, r->ip_id, r->open, r->sent_psn_nak,
		r->drop_msg, r->comm_est, r->wr.va, r->wr.rkey, r->wr.len, r->wr.resid,
		r->ack_due, r->ack_due_psn, e->rx_requests,
		/* the receive WQE held for a message, and the receive queue */
		r->wqe.valid, r->wqe.ctr, r->wqe.sge_i, r->wqe.sge_off, r->wqe.placed,
		qp->qpc.rq ? atomic_load(&qp->qpc.rq->ci) : 0};

	h = mix_all(h, req, sizeof(req) / sizeof(*req));
	for (uint32_t i = q->fl_tail; i != q->fl_head; i++) {
		const struct inflight *fl = &e->inflight[i % q->nflight];
		const uint64_t f[] = {fl->start, fl->len, fl->first_psn, fl->npsn,
				      fl->nblocks, fl->op, fl->signaled};

		h = mix_all(h, f, sizeof(f) / sizeof(*f));
	}
	h = mix_all(h, st, sizeof(r->stats) / sizeof(*st));
	return mix_all(h, resp, sizeof(resp) / sizeof(*resp));
}

static void log_state(struct run *r, const struct pair *p)
{
	if (r->nstate < NSTATE)
		r->state[r->nstate++] = qp_state(qp_state(0xcbf29ce484222325ull, p->a.qp), p->b.qp);
}

static uint64_t test_clock(void *arg)
{
	(void)arg;
	return now_ns;
}

/* Logs what @cq holds; returns how many. */
static int log_wcs(struct run *r, struct wqe_cq *cq, uint32_t side, int *outstanding)
{
	struct wqe_wc wc[16];
	int n, got = 0;

	while ((n = wqe_poll_cq(cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			struct logged_wc *l = &r->wc[r->nwc < NLOG ? r->nwc++ : NLOG - 1];

			*l = (struct logged_wc){.wr_id = wc[i].wr_id, .status = wc[i].status,
						.opcode = wc[i].opcode, .byte_len = wc[i].byte_len,
						.imm = wc[i].imm_data, .flags = wc[i].wc_flags,
						.side = side};
			if (side == 0 && outstanding)
				*outstanding -= (int)(wc[i].wr_id >> 32);
		}
		got += n;
	}
	return got;
}

static uint32_t pick_len(struct test_rng *g, uint32_t mtu)
{
	switch (test_rng_below(g, 4)) {
	case 0: return 1 + (uint32_t)test_rng_below(g, 64);
	case 1: return 1 + (uint32_t)test_rng_below(g, mtu);
	case 2: return mtu;
	default: return mtu + 1 + (uint32_t)test_rng_below(g, 2 * mtu);
	}
}

/* One request of the workload from A to B; false if the QP took none. */
static bool post_one(struct test_rng *g, struct pair *p, struct wqe_mr *am, struct wqe_mr *bm,
		     uint32_t mtu, uint64_t id, bool *signaled)
{
	struct wqe_sge sge[2];
	struct wqe_send_wr wr, *bad = NULL;
	uint32_t len = pick_len(g, mtu), off = (uint32_t)test_rng_below(g, BUF / 2 - 3 * 1024);
	uint32_t roff = (uint32_t)test_rng_below(g, BUF / 2 - 3 * 1024) + BUF / 2;
	unsigned kind = (unsigned)test_rng_below(g, 16);

	memset(&wr, 0, sizeof(wr));
	sge[0] = (struct wqe_sge){.addr = (uint64_t)(uintptr_t)abuf + off, .length = len,
				  .lkey = am->lkey};
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)bbuf + roff;
	wr.wr.rdma.rkey = bm->rkey;
	if (kind < 7) {
		/* the commonest request: one SGE WRITE */
	} else if (kind < 9) {
		wr.opcode = WQE_WR_SEND;
	} else if (kind == 9) {
		/* a SEND of four packets (FIRST, two MIDDLEs, LAST), with or
		 * without an immediate */
		sge[0].length = 3 * mtu + 100;
		wr.opcode = len & 1 ? WQE_WR_SEND_WITH_IMM : WQE_WR_SEND;
		wr.imm_data = (uint32_t)test_rng_next(g);
	} else if (kind == 10) {
		/* with an immediate: a WRITE or a SEND, solicited or not,
		 * some with no payload */
		wr.opcode = len & 1 ? WQE_WR_SEND_WITH_IMM : WQE_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = (uint32_t)test_rng_next(g);
		if (len & 2)
			wr.send_flags |= WQE_SEND_SOLICITED;
		if (len & 4)
			wr.num_sge = 0;
	} else if (kind == 11 && len > 1) {
		sge[1] = sge[0];
		sge[0].length = len / 2;
		sge[1].addr += len / 2 + 8;
		sge[1].length = len - len / 2;
		wr.num_sge = 2;
	} else if (kind == 12) {
		/* inline WRITEs and SENDs, in one block up to 28 and 44 bytes */
		sge[0].length = 1 + len % 60;
		wr.send_flags |= WQE_SEND_INLINE;
		if (len & 64)
			wr.opcode = WQE_WR_SEND;
		if (len & 128) {
			wr.opcode = wr.opcode == WQE_WR_SEND ? WQE_WR_SEND_WITH_IMM
							     : WQE_WR_RDMA_WRITE_WITH_IMM;
			wr.imm_data = (uint32_t)test_rng_next(g);
		}
	} else if (kind == 13 && p->type == WQE_QPT_RC) {
		wr.opcode = WQE_WR_RDMA_READ;
		sge[0].addr = (uint64_t)(uintptr_t)abuf + BUF / 2 + roff % (BUF / 4);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)bbuf + off;
	} else if (kind == 14) {
		wr.send_flags |= WQE_SEND_FENCE;
	} else if (kind == 15) {
		/* solicited SENDs, some with no payload */
		wr.send_flags |= WQE_SEND_SOLICITED;
		wr.opcode = WQE_WR_SEND;
		if (len & 1)
			wr.num_sge = 0;
	}
	*signaled = test_rng_below(g, 2) || id % 8 == 0;
	if (*signaled)
		wr.send_flags |= WQE_SEND_SIGNALED;
	wr.wr_id = id | (uint64_t)*signaled << 32;
	return wqe_post_send(p->a.qp, &wr, &bad) == 0;
}

static void post_recvs(struct pair *p, struct wqe_mr *bm, int n)
{
	for (int i = 0; i < n; i++) {
		struct wqe_sge s = {.addr = (uint64_t)(uintptr_t)bbuf, .length = 4 * 1024,
				    .lkey = bm->lkey};
		struct wqe_recv_wr rw = {.wr_id = 0x5000u + (uint64_t)i, .sg_list = &s, .num_sge = 1};
		struct wqe_recv_wr *bad = NULL;

		CHECK_EQ(wqe_post_recv(p->b.qp, &rw, &bad), 0);
	}
}

static void run_once(struct run *r, enum wqe_qp_type t, enum wqe_mtu mtu_e, bool fast)
{
	const struct wqe_fault_cfg faults = {.drop = 0.02, .duplicate = 0.02, .reorder = 0.02,
					     .delay = 0.01, .corrupt = 0.02, .seed = 0x5eed};
	uint32_t mtu = 128u << (unsigned)mtu_e;
	struct test_rng g;
	struct wqe_mr *am, *bm;
	struct pair p;
	int outstanding = 0, fd;

	test_rng_seed(&g, 0xfa57 + (uint64_t)t);
	for (size_t i = 0; i < BUF; i++) {
		abuf[i] = (uint8_t)(i * 7 + 1);
		bbuf[i] = (uint8_t)(i * 13 + 5);
	}
	now_ns = 1000000000ull;
	r->nwc = 0;
	r->nstate = 0;
	/* off as a user turns them off */
	if (!fast)
		CHECK_EQ(setenv("WQE_FAST_PATH", "0", 1), 0);
	CHECK_EQ(pair_open(&p, t, mtu_e, &faults, 256), 0);
	CHECK_EQ(unsetenv("WQE_FAST_PATH"), 0);
	CHECK_EQ(p.a.ctx->nic->no_fast_path, !fast);
	CHECK_EQ(p.b.ctx->nic->no_fast_path, !fast);
	CHECK_EQ(wqe_context_set_clock(p.a.ctx, test_clock, NULL), 0);
	CHECK_EQ(wqe_context_set_clock(p.b.ctx, test_clock, NULL), 0);
	snprintf(r->cap_a, sizeof(r->cap_a), "/tmp/wqe-fastpath-a.XXXXXX");
	snprintf(r->cap_b, sizeof(r->cap_b), "/tmp/wqe-fastpath-b.XXXXXX");
	fd = mkstemp(r->cap_a);
	CHECK(fd >= 0);
	close(fd);
	fd = mkstemp(r->cap_b);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(wqe_context_set_pcap(p.a.ctx, r->cap_a), 0);
	CHECK_EQ(wqe_context_set_pcap(p.b.ctx, r->cap_b), 0);
	am = wqe_reg_mr(p.a.pd, abuf, BUF, WQE_ACCESS_LOCAL_WRITE);
	bm = wqe_reg_mr(p.b.pd, bbuf, BUF,
			WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ);
	CHECK(am && bm);
	post_recvs(&p, bm, 200);
	for (uint64_t step = 0; step < STEPS; step++) {
		bool sig;

		if (outstanding < OUTSTANDING && post_one(&g, &p, am, bm, mtu, step, &sig))
			outstanding += sig;
		if (test_rng_below(&g, 3) == 0) {
			wqe_progress(p.a.ctx);
			wqe_progress(p.b.ctx);
			now_ns += 50000; /* 50 us: timers (about 1 ms) fire now and then */
		}
		log_state(r, &p);
		log_wcs(r, p.a.scq, 0, &outstanding);
		/* Every receive completion gives its WQE back. */
		post_recvs(&p, bm, log_wcs(r, p.b.rcq, 1, NULL));
	}
	for (int i = 0; i < DRAIN && outstanding > 0; i++) {
		wqe_progress(p.a.ctx);
		wqe_progress(p.b.ctx);
		now_ns += 200000;
		log_state(r, &p);
		log_wcs(r, p.a.scq, 0, &outstanding);
		log_wcs(r, p.b.rcq, 1, NULL);
	}
	CHECK_EQ(outstanding, 0);
	CHECK(r->nwc < NLOG);
	memcpy(r->a, abuf, BUF);
	memcpy(r->b, bbuf, BUF);
	CHECK_EQ(wqe_query_qp_stats(p.a.qp, &r->qa), 0);
	CHECK_EQ(wqe_query_qp_stats(p.b.qp, &r->qb), 0);
	CHECK_EQ(wqe_context_port_stats(p.a.ctx, &r->pa), 0);
	CHECK_EQ(wqe_context_port_stats(p.b.ctx, &r->pb), 0);
	r->fast_tx = p.a.ctx->nic->fast_tx + p.b.ctx->nic->fast_tx;
	r->fast_tx_inline = p.a.ctx->nic->fast_tx_inline + p.b.ctx->nic->fast_tx_inline;
	r->fast_tx_imm = p.a.ctx->nic->fast_tx_imm + p.b.ctx->nic->fast_tx_imm;
	r->fast_rx_imm = p.a.ctx->nic->fast_rx_imm + p.b.ctx->nic->fast_rx_imm;
	r->fast_rx = p.a.ctx->nic->fast_rx + p.b.ctx->nic->fast_rx;
	r->fast_rx_acks = p.a.ctx->nic->fast_rx_acks + p.b.ctx->nic->fast_rx_acks;
	r->fast_rx_sends = p.a.ctx->nic->fast_rx_sends + p.b.ctx->nic->fast_rx_sends;
	CHECK_EQ(wqe_context_set_pcap(p.a.ctx, NULL), 0);
	CHECK_EQ(wqe_context_set_pcap(p.b.ctx, NULL), 0);
	CHECK_EQ(wqe_dereg_mr(am), 0);
	CHECK_EQ(wqe_dereg_mr(bm), 0);
	pair_close(&p);
}

static size_t slurp(const char *path, uint8_t **out)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 0;
	uint8_t *b = NULL;

	CHECK(f != NULL);
	while (f) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			b = realloc(b, cap);
			CHECK(b != NULL);
			if (!b)
				break;
		}
		size_t k = fread(b + n, 1, cap - n, f);

		n += k;
		if (k == 0)
			break;
	}
	if (f)
		fclose(f);
	*out = b;
	return n;
}

/* The frames of the capture at @path are of the IP version the pair runs
 * over (WQE_TEST_IPV6), none of the other (a few the fault link damaged
 * are of neither): the run took the paths it means to test. */
static void check_ip_version(const char *path)
{
	const char *v6 = getenv("WQE_TEST_IPV6");
	uint16_t want = v6 && strcmp(v6, "1") == 0 ? 0x86dd : 0x0800;
	uint16_t other = want == 0x0800 ? 0x86dd : 0x0800;
	struct wqe_pcap_reader *rd = wqe_pcap_reader_open(path, NULL, 0);
	const uint8_t *f;
	size_t len, frames = 0;
	uint64_t ts;
	int rc;

	CHECK(rd != NULL);
	if (!rd)
		return;
	while ((rc = wqe_pcap_read(rd, &f, &len, &ts)) == 1) {
		CHECK(len >= 14);
		if (len < 14)
			break;
		frames += (f[12] << 8 | f[13]) == want;
		CHECK((f[12] << 8 | f[13]) != other);
	}
	CHECK_EQ(rc, 0);
	CHECK(frames > 100);
	wqe_pcap_reader_close(rd);
}

/* The SEND frames in the capture at @path whose ICRC verifies: ONLY, with
 * or without an immediate, in *@only; FIRST, MIDDLE and LAST in *@parts. */
static void count_sends(const char *path, size_t *only, size_t *parts)
{
	struct wqe_pcap_reader *rd = wqe_pcap_reader_open(path, NULL, 0);
	const uint8_t *f;
	size_t len;
	uint64_t ts;
	struct wqe_pkt p;

	*only = *parts = 0;
	CHECK(rd != NULL);
	if (!rd)
		return;
	while (wqe_pcap_read(rd, &f, &len, &ts) == 1) {
		/* RC and UC only: UC's opcodes are RC's plus 0x20 */
		if (wqe_pkt_parse(f, len, &p) || !p.icrc_ok || p.bth.opcode >= 0x40)
			continue;
		switch (p.bth.opcode & 0x1f) {
		case WQE_WIRE_RC_SEND_ONLY:
		case WQE_WIRE_RC_SEND_ONLY_WITH_IMMEDIATE:
			(*only)++;
			break;
		case WQE_WIRE_RC_SEND_FIRST:
		case WQE_WIRE_RC_SEND_MIDDLE:
		case WQE_WIRE_RC_SEND_LAST:
		case WQE_WIRE_RC_SEND_LAST_WITH_IMMEDIATE:
			(*parts)++;
			break;
		default:
			break;
		}
	}
	wqe_pcap_reader_close(rd);
}

static void same_capture(const char *x, const char *y, const char *what)
{
	uint8_t *bx, *by;
	size_t nx = slurp(x, &bx), ny = slurp(y, &by);

	CHECK(nx > 24);
	check_ip_version(x);
	if (nx != ny || memcmp(bx, by, nx) != 0) {
		size_t i = 0;

		while (i < nx && i < ny && bx[i] == by[i])
			i++;
		test_fail(__FILE__, __LINE__, "%s: captures differ (%zu and %zu bytes, first at %zu)",
			  what, nx, ny, i);
	}
	free(bx);
	free(by);
	unlink(x);
	unlink(y);
}

static void twin(enum wqe_qp_type t, enum wqe_mtu mtu)
{
	static struct run fast, slow;
	size_t only, parts;

	run_once(&fast, t, mtu, true);
	run_once(&slow, t, mtu, false);
	/* The fast run took the fast paths (the requester's only for a
	 * format that has the simple shape), the other never. */
	CHECK(fast.fast_rx > 100);
	CHECK(fast.fast_rx_acks > 100 || t == WQE_QPT_UC);
	CHECK(fast.fast_rx_sends > 100);
	CHECK(fast.fast_rx_imm > 10);
	if (test_format() == WQE_FORMAT_MLX5) {
		CHECK(fast.fast_tx > 100);
		CHECK(fast.fast_tx_inline > 10);
		CHECK(fast.fast_tx_imm > 10);
	}
	CHECK_EQ(slow.fast_tx + slow.fast_rx, 0);
	CHECK(fast.nwc > STEPS / 4);
	CHECK_EQ(fast.nwc, slow.nwc);
	for (size_t i = 0; i < fast.nwc && i < slow.nwc; i++)
		if (memcmp(&fast.wc[i], &slow.wc[i], sizeof(fast.wc[i]))) {
			test_fail(__FILE__, __LINE__, "completion %zu differs: wr_id %llx/%llx", i,
				  (unsigned long long)fast.wc[i].wr_id,
				  (unsigned long long)slow.wc[i].wr_id);
			break;
		}
	CHECK_EQ(fast.nstate, slow.nstate);
	for (size_t i = 0; i < fast.nstate && i < slow.nstate; i++)
		if (fast.state[i] != slow.state[i]) {
			test_fail(__FILE__, __LINE__, "engine state differs after round %zu", i);
			break;
		}
	CHECK_MEM(fast.a, slow.a, BUF);
	CHECK_MEM(fast.b, slow.b, BUF);
	CHECK(memcmp(&fast.qa, &slow.qa, sizeof(fast.qa)) == 0);
	CHECK(memcmp(&fast.qb, &slow.qb, sizeof(fast.qb)) == 0);
	CHECK(memcmp(&fast.pa, &slow.pa, sizeof(fast.pa)) == 0);
	CHECK(memcmp(&fast.pb, &slow.pb, sizeof(fast.pb)) == 0);
	/* The faults did happen, and were survived the same way. */
	CHECK(fast.qa.retransmits > 0 || t == WQE_QPT_UC);
	CHECK(fast.pb.rx_drops[WQE_RX_DROP_BAD_ICRC] > 0);
	/* SENDs of several packets took the fast path too: B's fast paths
	 * took more SEND frames than it received SEND ONLYs, by more than a
	 * third of the FIRST, MIDDLE and LAST frames it received (those
	 * out of sequence, and duplicates, go the general way). */
	count_sends(fast.cap_b, &only, &parts);
	CHECK(parts > 100);
	CHECK(fast.fast_rx_sends > only + parts / 3);
	same_capture(fast.cap_a, slow.cap_a, "side A");
	same_capture(fast.cap_b, slow.cap_b, "side B");
}

int main(void)
{
	twin(WQE_QPT_RC, WQE_MTU_1024);
	twin(WQE_QPT_UC, WQE_MTU_1024);
	twin(WQE_QPT_RC, WQE_MTU_256);
	return test_finish();
}
