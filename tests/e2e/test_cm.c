/* SPDX-License-Identifier: MIT */
/*
 * The CM agent (wqe/cm.h) on real GSI QPs: two contexts on the loopback
 * link, each with a GSI QP (QPN 1) that carries its agent's MADs as UD
 * SENDs to QPN 1 with Q_Key 0x80010000, received with the 40-byte GRH
 * whose source address tells the agent where a MAD came from. B listens;
 * A connects an RC QP; each side moves its QP INIT/RTR/RTS with
 * wqe_cm_qp_attr() alone (the MAC is the one thing the caller adds: no
 * address resolution yet). B's REP carries its buffer's address and rkey
 * as private data; A writes 4 KiB there with an RDMA WRITE and SENDs 64
 * bytes, both checked at B; then A disconnects and both sides wait out
 * TIMEWAIT. The same again with 10% of the link's frames dropped
 * (12 seeds; WQE_TEST_SEED moves them): the agents' retries (and the RC QP's) get it through.
 * The CM clock is simulated: it jumps to the next deadline whenever no
 * MAD is moving, so a lost MAD costs no real time.
 */
#include <stdlib.h>
#include <string.h>

#include "pair.h"
#include "test_gid.h"
#include "testutil.h"
#include "wqe/cm.h"

#define SID   0x0000000001064e20ull /* RDMA_PS_TCP port 20000 */
#define NRECV 32u
#define NSEND 32u
#define SLOT  512u
#define GRH   40u

struct side {
	struct pair *p;
	struct ep *e;
	int idx; /* 1 = A, 2 = B */
	struct wqe_cq *scq, *rcq;
	struct wqe_qp *gsi, *rc;
	struct wqe_ah *ah; /* to the peer's GSI */
	union wqe_gid peer_gid;
	uint8_t *buf; /* NRECV receive slots, then NSEND send slots */
	struct wqe_mr *mr;
	uint32_t send_next;
	struct wqe_cm_agent *agent;
	struct wqe_cm_id *id;
	int established, disconnected, timewait_exit, errors;
	/* B's data buffer, A's source buffer */
	uint8_t *data;
	struct wqe_mr *data_mr;
	uint64_t remote_addr;
	uint32_t remote_rkey;
};

static uint64_t sim_now = 1000000;
static uint64_t lossy_seed;
static uint64_t total_retransmits;

static uint64_t cb_now(void *ctx)
{
	(void)ctx;
	return sim_now;
}

static int cb_send(void *ctx, const struct wqe_cm_addr *to, const uint8_t *mad)
{
	struct side *s = ctx;
	uint8_t *slot = s->buf + (NRECV + s->send_next % NSEND) * SLOT;
	struct wqe_sge sge = {(uint64_t)(uintptr_t)slot, WQE_MAD_LEN, s->mr->lkey};
	struct wqe_send_wr wr, *bad;
	struct wqe_wc wc[8];

	CHECK_EQ(to->qpn, 1);
	CHECK_MEM(to->gid.raw, s->peer_gid.raw, 16);
	while (wqe_poll_cq(s->scq, 8, wc) > 0) /* reclaim; every send is signaled */
		CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	memcpy(slot, mad, WQE_MAD_LEN);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = s->send_next++;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_SEND;
	wr.send_flags = WQE_SEND_SIGNALED;
	wr.wr.ud.ah = s->ah;
	wr.wr.ud.remote_qpn = WQE_GSI_QPN;
	wr.wr.ud.remote_qkey = WQE_GSI_QKEY;
	return wqe_post_send(s->gsi, &wr, &bad);
}

/* Move the RC QP to @st with what the CM agreed; the MAC is ours to add,
 * and the passive side's rq_psn before it accepts: @rq_psn, or -1. */
static void move_qp_psn(struct side *s, struct wqe_cm_id *id, enum wqe_qp_state st, long rq_psn)
{
	struct wqe_qp_attr a;
	int mask = 0;

	CHECK_EQ(wqe_cm_qp_attr(id, st, &a, &mask), 0);
	if (rq_psn >= 0)
		a.rq_psn = (uint32_t)rq_psn;
	if (mask & WQE_QP_AV) {
		a.ah_attr.dmac[0] = 0x02;
		a.ah_attr.dmac[5] = (uint8_t)(3 - s->idx);
	}
	CHECK_EQ(wqe_modify_qp(s->rc, &a, mask), 0);
}

static void move_qp(struct side *s, struct wqe_cm_id *id, enum wqe_qp_state st)
{
	move_qp_psn(s, id, st, -1);
}

static void get_be(const uint8_t *p, uint64_t *addr, uint32_t *rkey)
{
	*addr = 0;
	for (int i = 0; i < 8; i++)
		*addr = *addr << 8 | p[i];
	*rkey = (uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11];
}

static void cb_event(void *ctx, const struct wqe_cm_event *ev)
{
	struct side *s = ctx;

	switch (ev->type) {
	case WQE_CM_EV_REQ_RECEIVED: { /* B */
		struct wqe_cm_accept_param ap;
		uint8_t pd[12];
		const uint64_t addr = (uint64_t)(uintptr_t)s->data;

		CHECK(s->id == NULL);
		CHECK_MEM(ev->msg->u.req.private_data, "A wants B", 9);
		s->id = ev->id;
		move_qp(s, ev->id, WQE_QPS_INIT);
		/* RTR before the REP: rq_psn is the starting PSN B sends */
		move_qp_psn(s, ev->id, WQE_QPS_RTR, 0x2222);
		for (int i = 0; i < 8; i++)
			pd[i] = (uint8_t)(addr >> (56 - 8 * i));
		for (int i = 0; i < 4; i++)
			pd[8 + i] = (uint8_t)(s->data_mr->rkey >> (24 - 8 * i));
		memset(&ap, 0, sizeof(ap));
		ap.local_qpn = wqe_qp_num(s->rc);
		ap.starting_psn = 0x2222;
		ap.responder_resources = 4;
		ap.initiator_depth = 4;
		ap.rnr_retry_count = 7;
		ap.min_rnr_timer = 1;
		ap.private_data = pd;
		ap.private_data_len = sizeof(pd);
		CHECK_EQ(wqe_cm_accept(ev->id, &ap), 0);
		move_qp(s, ev->id, WQE_QPS_RTS);
		break;
	}
	case WQE_CM_EV_REP_RECEIVED: /* A: RTR, RTS, then the agent's RTU */
		get_be(ev->msg->u.rep.private_data, &s->remote_addr, &s->remote_rkey);
		move_qp(s, ev->id, WQE_QPS_RTR);
		move_qp(s, ev->id, WQE_QPS_RTS);
		s->established = 1;
		break;
	case WQE_CM_EV_RTU_RECEIVED:
		s->established = 1;
		break;
	case WQE_CM_EV_DREQ_RECEIVED: {
		struct wqe_qp_attr a = {.qp_state = WQE_QPS_ERR};

		CHECK_EQ(wqe_modify_qp(s->rc, &a, WQE_QP_STATE), 0);
		CHECK_EQ(wqe_cm_drep(ev->id, NULL, 0), 0);
		s->disconnected = 1;
		break;
	}
	case WQE_CM_EV_DREP_RECEIVED:
	case WQE_CM_EV_DREQ_ERROR:
		s->disconnected = 1;
		break;
	case WQE_CM_EV_TIMEWAIT_EXIT:
		s->timewait_exit = 1;
		break;
	default:
		fprintf(stderr, "side %d: unexpected %s\n", s->idx, wqe_cm_event_str(ev->type));
		s->errors++;
	}
}

static void post_recv(struct side *s, uint32_t k)
{
	struct wqe_sge sge = {(uint64_t)(uintptr_t)(s->buf + k * SLOT), GRH + WQE_MAD_LEN,
			      s->mr->lkey};
	struct wqe_recv_wr r = {.wr_id = k, .sg_list = &sge, .num_sge = 1}, *bad;

	CHECK_EQ(wqe_post_recv(s->gsi, &r, &bad), 0);
}

static void side_open(struct side *s, struct pair *p, int idx)
{
	struct wqe_qp_init_attr ia;
	struct wqe_qp_attr a;
	struct wqe_ah_attr aa;
	struct wqe_cm_agent_attr at;
	static const struct wqe_cm_agent_ops ops = {
	    .send = cb_send, .event = cb_event, .now_ns = cb_now};

	memset(s, 0, sizeof(*s));
	s->p = p;
	s->idx = idx;
	s->e = idx == 1 ? &p->a : &p->b;
	s->scq = wqe_create_cq(s->e->ctx, 256);
	s->rcq = wqe_create_cq(s->e->ctx, 256);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = s->scq;
	ia.recv_cq = s->rcq;
	ia.qp_type = WQE_QPT_UD;
	ia.create_flags = WQE_QP_CREATE_GSI;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	s->gsi = wqe_create_qp(s->e->pd, &ia);
	CHECK(s->gsi != NULL);
	CHECK_EQ(wqe_qp_num(s->gsi), 1);
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_INIT;
	a.port_num = 1;
	a.qkey = WQE_GSI_QKEY;
	CHECK_EQ(
	    wqe_modify_qp(s->gsi, &a, WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_QKEY),
	    0);
	a.qp_state = WQE_QPS_RTR;
	CHECK_EQ(wqe_modify_qp(s->gsi, &a, WQE_QP_STATE), 0);
	a.qp_state = WQE_QPS_RTS;
	CHECK_EQ(wqe_modify_qp(s->gsi, &a, WQE_QP_STATE | WQE_QP_SQ_PSN), 0);
	pair_peer_av(&aa, 3 - idx);
	s->peer_gid = aa.grh.dgid;
	s->ah = wqe_create_ah(s->e->pd, &aa);
	CHECK(s->ah != NULL);
	s->buf = calloc(NRECV + NSEND, SLOT);
	s->mr = wqe_reg_mr(s->e->pd, s->buf, (NRECV + NSEND) * SLOT, WQE_ACCESS_LOCAL_WRITE);
	CHECK(s->mr != NULL);
	for (uint32_t k = 0; k < NRECV; k++)
		post_recv(s, k);
	s->rc = pair_new_qp(s->e, WQE_QPT_RC, NULL, NULL, 16, &pair_defaults);
	CHECK(s->rc != NULL);
	s->data = calloc(1, 8192);
	s->data_mr =
	    wqe_reg_mr(s->e->pd, s->data, 8192, WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	CHECK(s->data_mr != NULL);
	memset(&at, 0, sizeof(at));
	pair_peer_av(&aa, idx);
	at.local_gid = aa.grh.dgid;
	at.max_ids = 16;
	s->agent = wqe_cm_agent_create(&at, &ops, s);
	CHECK(s->agent != NULL);
}

static void side_close(struct side *s)
{
	wqe_cm_agent_destroy(s->agent);
	CHECK_EQ(wqe_destroy_qp(s->rc), 0);
	CHECK_EQ(wqe_destroy_qp(s->gsi), 0);
	wqe_destroy_ah(s->ah);
	wqe_dereg_mr(s->mr);
	wqe_dereg_mr(s->data_mr);
	wqe_destroy_cq(s->scq);
	wqe_destroy_cq(s->rcq);
	free(s->buf);
	free(s->data);
}

/* The source GID of a received MAD, from the GRH area: IPv6's header
 * whole, or IPv4's in its last 20 bytes (as rdma-core reads it). */
static void grh_src(const uint8_t *g, union wqe_gid *gid)
{
	if (g[0] >> 4 == 6) {
		memcpy(gid->raw, g + 8, 16);
	} else {
		memset(gid->raw, 0, 16);
		gid->raw[10] = gid->raw[11] = 0xff;
		memcpy(gid->raw + 12, g + 20 + 12, 4);
	}
}

/* Progress both NICs, hand every received MAD to its agent; returns how
 * many were received. */
static int pump(struct side *s2[2])
{
	int got = 0;

	pair_spin(s2[0]->p, 4);
	for (int i = 0; i < 2; i++) {
		struct side *s = s2[i];
		struct wqe_wc wc;

		while (wqe_poll_cq(s->rcq, 1, &wc) == 1) {
			const uint8_t *slot = s->buf + wc.wr_id * SLOT;
			struct wqe_cm_addr from = {.qpn = wc.src_qp, .pkey = 0xffff};

			CHECK_EQ(wc.status, WQE_WC_SUCCESS);
			CHECK_EQ(wc.src_qp, 1);
			CHECK_EQ(wc.byte_len, GRH + WQE_MAD_LEN);
			grh_src(slot, &from.gid);
			CHECK_MEM(from.gid.raw, s->peer_gid.raw, 16);
			/* duplicates are fine here (a lost RTU, a resent REP) */
			{
				int r =
				    wqe_cm_agent_receive(s->agent, &from, slot + GRH, WQE_MAD_LEN);

				CHECK(r == WQE_CM_RX_OK || r == WQE_CM_RX_DUPLICATE);
			}
			post_recv(s, (uint32_t)wc.wr_id);
			got++;
		}
	}
	return got;
}

/* Pump until @done(): when nothing moves, the clock jumps to the next
 * deadline. Gives up after @max_jumps jumps. */
static int run_until(struct side *s2[2], int (*done)(struct side *s2[2]), int max_jumps)
{
	int idle = 0;

	while (!done(s2)) {
		uint64_t d;

		if (pump(s2)) {
			idle = 0;
			continue;
		}
		if (++idle < 8)
			continue;
		idle = 0;
		d = wqe_cm_agent_next_deadline(s2[0]->agent);
		if (wqe_cm_agent_next_deadline(s2[1]->agent) < d)
			d = wqe_cm_agent_next_deadline(s2[1]->agent);
		if (d == UINT64_MAX || max_jumps-- == 0)
			return done(s2);
		if (d > sim_now)
			sim_now = d;
		wqe_cm_agent_tick(s2[0]->agent);
		wqe_cm_agent_tick(s2[1]->agent);
	}
	return 1;
}

static int both_established(struct side *s2[2])
{
	return s2[0]->established && s2[1]->established;
}

static int both_gone(struct side *s2[2])
{
	return s2[0]->timewait_exit && s2[1]->timewait_exit;
}

static void run(const struct wqe_fault_cfg *faults)
{
	struct pair p;
	struct side A, B, *s2[2] = {&A, &B};
	struct wqe_cm_conn_param cp;
	struct wqe_cm_agent_stats sa, sb;
	struct wqe_cm_id *lid;
	struct wqe_ah_attr aa;

	CHECK_EQ(pair_open(&p, WQE_QPT_RC, WQE_MTU_1024, faults, 16), 0);
	side_open(&A, &p, 1);
	side_open(&B, &p, 2);
	lid = wqe_cm_listen(B.agent, SID, 0, NULL);
	CHECK(lid != NULL);

	memset(&cp, 0, sizeof(cp));
	pair_peer_av(&aa, 2);
	cp.peer.gid = aa.grh.dgid;
	cp.peer.qpn = 1;
	cp.service_id = SID;
	cp.transport = WQE_CM_TRANSPORT_RC;
	cp.local_qpn = wqe_qp_num(A.rc);
	cp.starting_psn = 0x1111;
	cp.path_mtu = WQE_MTU_1024;
	cp.hop_limit = 64;
	cp.packet_life_time = 7;	    /* RC timeout 8: about 1 ms */
	cp.remote_cm_response_timeout = 14; /* 67 ms */
	cp.local_cm_response_timeout = 14;
	cp.max_cm_retries = 15;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	cp.min_rnr_timer = 1;
	cp.responder_resources = 4;
	cp.initiator_depth = 4;
	cp.private_data = "A wants B";
	cp.private_data_len = 9;
	A.id = wqe_cm_connect(A.agent, &cp, NULL);
	CHECK(A.id != NULL);
	move_qp(&A, A.id, WQE_QPS_INIT);
	CHECK(run_until(s2, both_established, 200));
	CHECK_EQ(wqe_cm_id_state(A.id), WQE_CM_ESTABLISHED);
	CHECK_EQ(wqe_cm_id_state(B.id), WQE_CM_ESTABLISHED);
	CHECK_EQ(A.remote_addr, (uint64_t)(uintptr_t)B.data);
	CHECK_EQ(A.remote_rkey, B.data_mr->rkey);

	/* The data path on what the CM set up: WRITE 4 KiB, SEND 64 bytes. */
	{
		struct wqe_sge ws = {(uint64_t)(uintptr_t)A.data, 4096, A.data_mr->lkey};
		struct wqe_sge ss = {(uint64_t)(uintptr_t)(A.data + 4096), 64, A.data_mr->lkey};
		struct wqe_sge rs = {(uint64_t)(uintptr_t)(B.data + 4096), 64, B.data_mr->lkey};
		struct wqe_recv_wr r = {.wr_id = 77, .sg_list = &rs, .num_sge = 1}, *rbad;
		struct wqe_send_wr w[2], *bad;
		struct wqe_wc wc[2];

		for (int i = 0; i < 4096 + 64; i++)
			A.data[i] = (uint8_t)(i * 7 + 3);
		CHECK_EQ(wqe_post_recv(B.rc, &r, &rbad), 0);
		memset(w, 0, sizeof(w));
		w[0].wr_id = 1;
		w[0].sg_list = &ws;
		w[0].num_sge = 1;
		w[0].opcode = WQE_WR_RDMA_WRITE;
		w[0].send_flags = WQE_SEND_SIGNALED;
		w[0].wr.rdma.remote_addr = A.remote_addr;
		w[0].wr.rdma.rkey = A.remote_rkey;
		w[0].next = &w[1];
		w[1].wr_id = 2;
		w[1].sg_list = &ss;
		w[1].num_sge = 1;
		w[1].opcode = WQE_WR_SEND;
		w[1].send_flags = WQE_SEND_SIGNALED;
		CHECK_EQ(wqe_post_send(A.rc, &w[0], &bad), 0);
		CHECK_EQ(pair_wait_time(&p, p.a.scq, 2, wc, 20.0), 2);
		CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[1].status, WQE_WC_SUCCESS);
		CHECK_EQ(pair_wait_time(&p, p.b.rcq, 1, wc, 20.0), 1);
		CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[0].wr_id, 77);
		CHECK_EQ(wc[0].byte_len, 64);
		CHECK_MEM(B.data, A.data, 4096 + 64);
	}

	/* Disconnect, then TIMEWAIT on both sides. */
	CHECK_EQ(wqe_cm_disconnect(A.id, NULL, 0), 0);
	CHECK(run_until(s2, both_gone, 200));
	CHECK(A.disconnected && B.disconnected);
	CHECK_EQ(wqe_cm_id_state(A.id), WQE_CM_IDLE);
	CHECK_EQ(wqe_cm_id_state(B.id), WQE_CM_IDLE);
	CHECK_EQ(A.errors + B.errors, 0);
	wqe_cm_agent_stats(A.agent, &sa);
	wqe_cm_agent_stats(B.agent, &sb);
	printf("%s: A sent %llu REQ, %llu RTU, %llu DREQ (%llu retransmits); B sent %llu REP "
	       "(%llu retransmits); refused A %llu B %llu\n",
	       faults ? "10% loss" : "no loss", (unsigned long long)sa.tx[0],
	       (unsigned long long)sa.tx[4], (unsigned long long)sa.tx[5],
	       (unsigned long long)sa.retransmits, (unsigned long long)sb.tx[3],
	       (unsigned long long)sb.retransmits,
	       (unsigned long long)(sa.rx_refused[WQE_CM_RX_DUPLICATE]),
	       (unsigned long long)(sb.rx_refused[WQE_CM_RX_DUPLICATE]));
	total_retransmits += sa.retransmits + sb.retransmits;
	if (!faults) {
		CHECK_EQ(sa.retransmits + sb.retransmits, 0);
		CHECK_EQ(sa.tx[0], 1);
		CHECK_EQ(sb.tx[3], 1);
	}
	for (int k = 1; k < WQE_CM_RX_REFUSAL_COUNT; k++)
		if (k != WQE_CM_RX_DUPLICATE) {
			CHECK_EQ(sa.rx_refused[k], 0);
			CHECK_EQ(sb.rx_refused[k], 0);
		}
	CHECK_EQ(wqe_cm_destroy_id(A.id), 0);
	CHECK_EQ(wqe_cm_destroy_id(B.id), 0);
	CHECK_EQ(wqe_cm_destroy_id(lid), 0);
	side_close(&A);
	side_close(&B);
	pair_close(&p);
}

int main(void)
{
	struct wqe_fault_cfg f;
	const char *seed = getenv("WQE_TEST_SEED");

	run(NULL);
	memset(&f, 0, sizeof(f));
	f.drop = 0.10;
	for (int i = 0; i < 12; i++) {
		lossy_seed = seed ? strtoull(seed, NULL, 0) + (unsigned)i : 2026u + (unsigned)i;
		f.seed = lossy_seed;
		run(&f);
	}
	/* the seeds lose MADs: the agents' retries did the work */
	CHECK(total_retransmits > 0);
	printf("retransmits over the lossy runs: %llu\n", (unsigned long long)total_retransmits);
	return test_finish();
}
