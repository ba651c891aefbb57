/* SPDX-License-Identifier: MIT */
/*
 * The CM agent against hostile input (issue 26): a malformed MAD, an
 * unknown communication ID (REP, RTU, DREQ, MRA, REJ, DREP, SIDR_REP), a
 * REP without a REQ, messages naming our ID from another GID or for
 * another QPN, replays (REQ in each state, REP, DREQ), a REQ for a QP
 * still connected (stale), an unknown service, a transport we do not
 * carry, and a flood of REQs against the per-listener and overall bounds.
 * Each refusal is checked for its code, its counter, the reply it
 * draws (or none) and that no ID's state, timer or count changed.
 */
#include <string.h>

#include "cm_net.h"

#define SID 0x0000000001060000ull
#define MS  1000000ull

static struct net n;

struct snap {
	struct wqe_cm_agent_stats st[NET_MAX_NODES];
	uint64_t deadline[NET_MAX_NODES];
	enum wqe_cm_state state[8];
	uint32_t remote[8];
	int nsent;
};

static struct wqe_cm_id *watch[8];
static int nwatch;

static void snap(struct snap *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < n.nnodes; i++) {
		wqe_cm_agent_stats(n.nodes[i].agent, &s->st[i]);
		s->deadline[i] = wqe_cm_agent_next_deadline(n.nodes[i].agent);
	}
	for (int i = 0; i < nwatch; i++) {
		s->state[i] = wqe_cm_id_state(watch[i]);
		s->remote[i] = wqe_cm_id_remote_id(watch[i]);
	}
	s->nsent = n.nsent;
}

/* Nothing changed but node @node's counter of @r (and what it sent). */
static void unchanged(const struct snap *s, int node, enum wqe_cm_refusal r, int replies)
{
	struct snap t;

	snap(&t);
	for (int i = 0; i < n.nnodes; i++) {
		CHECK_EQ(t.st[i].ids, s->st[i].ids);
		CHECK_EQ(t.st[i].req_rcvd, s->st[i].req_rcvd);
		CHECK_EQ(t.st[i].timewait, s->st[i].timewait);
		CHECK_EQ(t.deadline[i], s->deadline[i]);
		for (int k = 1; k < WQE_CM_RX_REFUSAL_COUNT; k++)
			CHECK_EQ(t.st[i].rx_refused[k],
				 s->st[i].rx_refused[k] + (i == node && k == (int)r));
		for (int k = 0; k < 9; k++)
			CHECK_EQ(t.st[i].rx[k], s->st[i].rx[k]);
	}
	for (int i = 0; i < nwatch; i++) {
		CHECK_EQ(t.state[i], s->state[i]);
		CHECK_EQ(t.remote[i], s->remote[i]);
	}
	CHECK_EQ(t.nsent, s->nsent + replies);
}

static void setup(struct wqe_cm_id **a, struct wqe_cm_id **b)
{
	struct wqe_cm_conn_param p;

	net_init(&n, 3, 42, NULL);
	n.hold = 0;
	watch[0] = wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL);
	n.nodes[1].au.accept = 1;
	net_conn_param(&n, 0, 1, SID, &p);
	*a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_run(&n, 10000 * MS);
	*b = n.nodes[1].last_new;
	watch[1] = *a;
	watch[2] = *b;
	nwatch = 3;
	CHECK_EQ(wqe_cm_id_state(*a), WQE_CM_ESTABLISHED);
	CHECK_EQ(wqe_cm_id_state(*b), WQE_CM_ESTABLISHED);
	n.hold = 1; /* from here MADs are logged only */
}

static const struct wqe_cm_msg *last(void)
{
	return &n.sent[n.nsent - 1].msg;
}

static void test_malformed_unknown(void)
{
	struct wqe_cm_id *a, *b;
	struct wqe_cm_msg m;
	struct snap s;
	uint8_t mad[WQE_MAD_LEN];
	struct wqe_cm_addr from;
	const union wqe_gid *cg;

	setup(&a, &b);
	cg = &n.nodes[2].gid;
	from = net_addr(&n, 0);

	/* malformed: short, wrong class, reserved bit */
	wqe_cm_msg_init(&m, WQE_CM_ATTR_RTU, 1);
	m.u.rtu.local_comm_id = wqe_cm_id_local_id(a);
	m.u.rtu.remote_comm_id = wqe_cm_id_local_id(b);
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	snap(&s);
	CHECK_EQ(wqe_cm_agent_receive(n.nodes[1].agent, &from, mad, 255), WQE_CM_RX_MALFORMED);
	unchanged(&s, 1, WQE_CM_RX_MALFORMED, 0);
	mad[1] = 0x08;
	snap(&s);
	CHECK_EQ(wqe_cm_agent_receive(n.nodes[1].agent, &from, mad, 256), WQE_CM_RX_MALFORMED);
	unchanged(&s, 1, WQE_CM_RX_MALFORMED, 0);
	CHECK_EQ(wqe_cm_agent_receive(n.nodes[1].agent, NULL, mad, 256), -22);

	/* a REP for an ID we never had: REJ Invalid Communication ID */
	wqe_cm_msg_init(&m, WQE_CM_ATTR_REP, 0x77);
	m.u.rep.local_comm_id = 0xabcdef01;
	m.u.rep.remote_comm_id = 0x5eed;
	m.u.rep.local_qpn = 0x999;
	snap(&s);
	CHECK_EQ(net_inject(&n, 0, cg, 2, &m), WQE_CM_RX_UNKNOWN_ID);
	unchanged(&s, 0, WQE_CM_RX_UNKNOWN_ID, 1);
	CHECK_EQ(last()->hdr.attr_id, WQE_CM_ATTR_REJ);
	CHECK_EQ(last()->hdr.tid, 0x77);
	CHECK_EQ(last()->u.rej.reason, WQE_CM_REJ_INVALID_COMM_ID);
	CHECK_EQ(last()->u.rej.msg_rejected, WQE_CM_MSG_REP);
	CHECK_EQ(last()->u.rej.remote_comm_id, 0xabcdef01);
	CHECK_EQ(last()->u.rej.local_comm_id, 0);

	/* a REP without a REQ, naming B's passive ID: refused, no reply */
	m.u.rep.remote_comm_id = wqe_cm_id_local_id(b);
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &m), WQE_CM_RX_BAD_STATE);
	unchanged(&s, 1, WQE_CM_RX_BAD_STATE, 0);

	/* RTU, MRA, REJ, DREP, SIDR_REP of unknown IDs: dropped */
	{
		static const uint16_t attrs[] = {WQE_CM_ATTR_RTU, WQE_CM_ATTR_MRA, WQE_CM_ATTR_REJ,
						 WQE_CM_ATTR_DREP, WQE_CM_ATTR_SIDR_REP};

		for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
			wqe_cm_msg_init(&m, (enum wqe_cm_attr)attrs[i], 5);
			m.u.rtu.local_comm_id = 0x1111;
			m.u.rtu.remote_comm_id = 0x2222;
			if (attrs[i] == WQE_CM_ATTR_REJ)
				m.u.rej.reason = WQE_CM_REJ_CONSUMER_DEFINED;
			if (attrs[i] == WQE_CM_ATTR_SIDR_REP) {
				wqe_cm_msg_init(&m, WQE_CM_ATTR_SIDR_REP, 5);
				m.u.sidr_rep.request_id = 0x2222;
			}
			snap(&s);
			CHECK_EQ(net_inject(&n, 1, cg, 2, &m), WQE_CM_RX_UNKNOWN_ID);
			unchanged(&s, 1, WQE_CM_RX_UNKNOWN_ID, 0);
		}
	}

	/* a DREQ for an ID we do not have: its DREP all the same (ib_cm) */
	wqe_cm_msg_init(&m, WQE_CM_ATTR_DREQ, 9);
	m.u.dreq.local_comm_id = 0x3333;
	m.u.dreq.remote_comm_id = 0x4444;
	m.u.dreq.remote_qpn = 0x100;
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, cg, 2, &m), WQE_CM_RX_UNKNOWN_ID);
	unchanged(&s, 1, WQE_CM_RX_UNKNOWN_ID, 1);
	CHECK_EQ(last()->hdr.attr_id, WQE_CM_ATTR_DREP);
	CHECK_EQ(last()->u.drep.local_comm_id, 0x4444);
	CHECK_EQ(last()->u.drep.remote_comm_id, 0x3333);

	/* our IDs named from another GID, or with the wrong peer ID or QPN */
	wqe_cm_msg_init(&m, WQE_CM_ATTR_DREQ, 9);
	m.u.dreq.local_comm_id = wqe_cm_id_local_id(a);
	m.u.dreq.remote_comm_id = wqe_cm_id_local_id(b);
	m.u.dreq.remote_qpn = 0x201;
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, cg, 2, &m), WQE_CM_RX_MISMATCH);
	unchanged(&s, 1, WQE_CM_RX_MISMATCH, 0);
	m.u.dreq.remote_qpn = 0x202;
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &m), WQE_CM_RX_MISMATCH);
	unchanged(&s, 1, WQE_CM_RX_MISMATCH, 0);
	m.u.dreq.remote_qpn = 0x201;
	m.u.dreq.local_comm_id ^= 1;
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &m), WQE_CM_RX_MISMATCH);
	unchanged(&s, 1, WQE_CM_RX_MISMATCH, 0);
	wqe_cm_msg_init(&m, WQE_CM_ATTR_REJ, 9);
	m.u.rej.local_comm_id = wqe_cm_id_local_id(b);
	m.u.rej.remote_comm_id = wqe_cm_id_local_id(a);
	m.u.rej.reason = WQE_CM_REJ_CONSUMER_DEFINED;
	snap(&s);
	CHECK_EQ(net_inject(&n, 0, cg, 2, &m), WQE_CM_RX_MISMATCH);
	unchanged(&s, 0, WQE_CM_RX_MISMATCH, 0);
	/* an MRA while established */
	wqe_cm_msg_init(&m, WQE_CM_ATTR_MRA, 9);
	m.u.mra.local_comm_id = wqe_cm_id_local_id(b);
	m.u.mra.remote_comm_id = wqe_cm_id_local_id(a);
	m.u.mra.service_timeout = 31;
	snap(&s);
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_BAD_STATE);
	unchanged(&s, 0, WQE_CM_RX_BAD_STATE, 0);
	/* a REJ from the right peer while established is taken (ib_cm:
	 * TIMEWAIT); then again, in TIMEWAIT, it is a bad state */
	wqe_cm_msg_init(&m, WQE_CM_ATTR_REJ, 9);
	m.u.rej.local_comm_id = wqe_cm_id_local_id(b);
	m.u.rej.remote_comm_id = wqe_cm_id_local_id(a);
	m.u.rej.reason = WQE_CM_REJ_CONSUMER_DEFINED;
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_OK);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_TIMEWAIT);
	snap(&s);
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_BAD_STATE);
	unchanged(&s, 0, WQE_CM_RX_BAD_STATE, 0);
	net_fini(&n);
}

static void test_replays(void)
{
	struct wqe_cm_id *a, *b, *b2;
	struct wqe_cm_msg req, m;
	struct wqe_cm_conn_param p;
	struct snap s;
	int rtus;

	setup(&a, &b);
	req = *net_last_sent(&n, 0, WQE_CM_ATTR_REQ);

	/* a duplicate REP: the RTU again (ib_cm's cm_dup_rep_handler()) */
	m = *net_last_sent(&n, 1, WQE_CM_ATTR_REP);
	rtus = net_count_sent(&n, 0, WQE_CM_ATTR_RTU);
	snap(&s);
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 0, WQE_CM_RX_DUPLICATE, 1);
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_RTU), rtus + 1);
	CHECK_EQ(last()->u.rtu.local_comm_id, wqe_cm_id_local_id(a));
	/* a REP with another peer ID for the same REQ: mismatch */
	m.u.rep.local_comm_id ^= 0x10;
	snap(&s);
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_MISMATCH);
	unchanged(&s, 0, WQE_CM_RX_MISMATCH, 0);

	/* a duplicate REQ while established: dropped */
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &req), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 1, WQE_CM_RX_DUPLICATE, 0);
	/* a new REQ from the same QP of the same peer: REJ Stale Connection */
	m = req;
	m.u.req.local_comm_id = 0x7777;
	m.hdr.tid = 0x7777;
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &m), WQE_CM_RX_STALE);
	unchanged(&s, 1, WQE_CM_RX_STALE, 1);
	CHECK_EQ(last()->u.rej.reason, WQE_CM_REJ_STALE_CONN);
	CHECK_EQ(last()->u.rej.remote_comm_id, 0x7777);
	/* a REP to a new REQ of A naming the QP of B that A is connected
	 * to: REJ Stale Connection, the new ID still waits in REQ_SENT */
	{
		struct wqe_cm_id *a2;
		struct wqe_cm_msg rep = *net_last_sent(&n, 1, WQE_CM_ATTR_REP);

		net_conn_param(&n, 0, 1, SID, &p);
		a2 = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
		watch[3] = a2;
		nwatch = 4;
		rep.u.rep.local_comm_id = 0x6666;
		rep.u.rep.remote_comm_id = wqe_cm_id_local_id(a2);
		snap(&s);
		CHECK_EQ(net_inject(&n, 0, NULL, 1, &rep), WQE_CM_RX_STALE);
		unchanged(&s, 0, WQE_CM_RX_STALE, 1);
		CHECK_EQ(last()->u.rej.reason, WQE_CM_REJ_STALE_CONN);
		CHECK_EQ(last()->u.rej.msg_rejected, WQE_CM_MSG_REP);
		CHECK_EQ(last()->u.rej.remote_comm_id, 0x6666);
		CHECK_EQ(wqe_cm_id_state(a2), WQE_CM_REQ_SENT);
		CHECK_EQ(wqe_cm_destroy_id(a2), 0);
		nwatch = 3;
	}
	/* a duplicate RTU: dropped */
	m = *net_last_sent(&n, 0, WQE_CM_ATTR_RTU);
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &m), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 1, WQE_CM_RX_DUPLICATE, 0);

	/* DREQ; its duplicate gets the DREP again; a duplicate DREP is dropped */
	n.nodes[1].au.drep = 1;
	n.hold = 0;
	CHECK_EQ(wqe_cm_disconnect(a, NULL, 0), 0);
	net_advance(&n, 3000);
	n.hold = 1;
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_TIMEWAIT);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_TIMEWAIT);
	m = *net_last_sent(&n, 0, WQE_CM_ATTR_DREQ);
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &m), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 1, WQE_CM_RX_DUPLICATE, 1);
	CHECK_EQ(last()->hdr.attr_id, WQE_CM_ATTR_DREP);
	CHECK_EQ(last()->u.drep.local_comm_id, wqe_cm_id_local_id(b));
	m = *net_last_sent(&n, 1, WQE_CM_ATTR_DREP);
	snap(&s);
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 0, WQE_CM_RX_DUPLICATE, 0);
	/* the old REQ again, in TIMEWAIT: REJ Stale Connection */
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &req), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 1, WQE_CM_RX_DUPLICATE, 1);
	CHECK_EQ(last()->u.rej.reason, WQE_CM_REJ_STALE_CONN);
	/* a new REQ from the same QP while its connection is in TIMEWAIT is
	 * taken: ib_cm's cm_enter_timewait() forgets the peer's QPN */
	m = req;
	m.u.req.local_comm_id = 0x8888;
	m.hdr.tid = 0x8888;
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &m), WQE_CM_RX_OK);
	CHECK(n.nodes[1].last_new != b);
	CHECK_EQ(wqe_cm_id_state(n.nodes[1].last_new), WQE_CM_REP_SENT);
	CHECK_EQ(wqe_cm_destroy_id(n.nodes[1].last_new), 0);
	/* while in TIMEWAIT the local IDs stay taken: 200 new IDs avoid them */
	for (int i = 0; i < 200; i++) {
		struct wqe_cm_id *x;

		net_conn_param(&n, 0, 1, SID, &p);
		x = wqe_cm_connect(n.nodes[1].agent, &p, NULL);
		CHECK(x != NULL);
		CHECK(wqe_cm_id_local_id(x) != wqe_cm_id_local_id(b));
		CHECK_EQ(wqe_cm_destroy_id(x), 0); /* REJ Timeout, freed */
	}
	/* past TIMEWAIT (IDLE, not destroyed), the DREQ again still gets a
	 * DREP: the peer's DREQ retries outlast our TIMEWAIT */
	net_advance(&n, 4096ull << 12);
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_IDLE);
	m = *net_last_sent(&n, 0, WQE_CM_ATTR_DREQ);
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &m), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 1, WQE_CM_RX_DUPLICATE, 1);
	CHECK_EQ(last()->hdr.attr_id, WQE_CM_ATTR_DREP);
	CHECK_EQ(last()->u.drep.remote_comm_id, wqe_cm_id_local_id(a));
	net_fini(&n);

	/* duplicate REQs in REQ_RCVD (dropped) and MRA_REQ_SENT (MRA again) */
	net_init(&n, 3, 43, NULL);
	watch[0] = wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL);
	n.hold = 1;
	net_conn_param(&n, 0, 1, SID, &p);
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	req = *net_last_sent(&n, 0, WQE_CM_ATTR_REQ);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &req), WQE_CM_RX_OK);
	b2 = n.nodes[1].last_new;
	CHECK_EQ(wqe_cm_id_state(b2), WQE_CM_REQ_RCVD);
	watch[1] = a;
	watch[2] = b2;
	nwatch = 3;
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &req), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 1, WQE_CM_RX_DUPLICATE, 0);
	CHECK_EQ(wqe_cm_mra(b2, 10, "wait", 4), 0);
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &req), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 1, WQE_CM_RX_DUPLICATE, 1);
	CHECK_EQ(last()->hdr.attr_id, WQE_CM_ATTR_MRA);
	CHECK_MEM(last()->u.mra.private_data, "wait", 4);
	/* the MRA arrives, then again: a duplicate */
	m = *last();
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_OK);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_MRA_REQ_RCVD);
	snap(&s);
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_DUPLICATE);
	unchanged(&s, 0, WQE_CM_RX_DUPLICATE, 0);
	/* a REJ of the REQ naming only the active ID (Timeout): found */
	wqe_cm_msg_init(&m, WQE_CM_ATTR_REJ, 1);
	m.u.rej.local_comm_id = wqe_cm_id_local_id(a);
	m.u.rej.reason = WQE_CM_REJ_TIMEOUT;
	CHECK_EQ(net_inject(&n, 1, NULL, 0, &m), WQE_CM_RX_OK);
	CHECK_EQ(wqe_cm_id_state(b2), WQE_CM_IDLE);
	CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_REJ_RECEIVED), 1);
	net_fini(&n);
}

static void test_refused_reqs(void)
{
	struct wqe_cm_agent_attr at = {.max_ids = 16, .max_req_rcvd = 6};
	struct wqe_cm_conn_param p;
	struct wqe_cm_msg req, m;
	struct wqe_cm_agent_stats st;
	struct wqe_cm_id *l1, *l2;
	struct snap s;
	int accepted = 0;

	net_init(&n, 3, 44, &at);
	n.hold = 1;
	l1 = wqe_cm_listen(n.nodes[1].agent, SID + 1, 4, NULL);
	l2 = wqe_cm_listen(n.nodes[1].agent, SID + 2, 0, NULL);
	CHECK(l1 && l2);
	CHECK(wqe_cm_listen(n.nodes[1].agent, SID + 2, 0, NULL) == NULL); /* taken */
	watch[0] = l1;
	watch[1] = l2;
	nwatch = 2;
	net_conn_param(&n, 2, 1, SID + 1, &p);
	CHECK(wqe_cm_connect(n.nodes[2].agent, &p, NULL) != NULL);
	req = *net_last_sent(&n, 2, WQE_CM_ATTR_REQ);

	/* unknown service: REJ Invalid Service ID */
	m = req;
	m.u.req.service_id = SID + 9;
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 2, &m), WQE_CM_RX_NO_LISTENER);
	unchanged(&s, 1, WQE_CM_RX_NO_LISTENER, 1);
	CHECK_EQ(last()->u.rej.reason, WQE_CM_REJ_INVALID_SERVICE_ID);
	CHECK_EQ(last()->u.rej.remote_comm_id, req.u.req.local_comm_id);
	/* RD and XRC: REJ Invalid Transport Type */
	m = req;
	m.u.req.transport_type = WQE_CM_TRANSPORT_RD;
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 2, &m), WQE_CM_RX_UNSUPPORTED);
	unchanged(&s, 1, WQE_CM_RX_UNSUPPORTED, 1);
	CHECK_EQ(last()->u.rej.reason, WQE_CM_REJ_INVALID_TRANSPORT_TYPE);
	m.u.req.transport_type = WQE_CM_TRANSPORT_EXTENDED;
	m.u.req.ext_transport_type = WQE_CM_EXT_TRANSPORT_XRC;
	snap(&s);
	CHECK_EQ(net_inject(&n, 1, NULL, 2, &m), WQE_CM_RX_UNSUPPORTED);
	unchanged(&s, 1, WQE_CM_RX_UNSUPPORTED, 1);

	/* the flood: 10 REQs to a listener of backlog 4 */
	for (uint32_t i = 0; i < 10; i++) {
		int r;

		m = req;
		m.u.req.local_comm_id = 0x10000 + i;
		m.u.req.local_qpn = 0x500 + i;
		snap(&s);
		r = net_inject(&n, 1, NULL, 2, &m);
		if (i < 4) {
			CHECK_EQ(r, WQE_CM_RX_OK);
			accepted++;
		} else {
			CHECK_EQ(r, WQE_CM_RX_NO_RESOURCES);
			unchanged(&s, 1, WQE_CM_RX_NO_RESOURCES, 1);
			CHECK_EQ(last()->u.rej.reason, WQE_CM_REJ_NO_RESOURCES);
			CHECK_EQ(last()->u.rej.remote_comm_id, 0x10000 + i);
		}
	}
	/* then 5 to the other listener: the overall bound (6) takes 2 */
	for (uint32_t i = 0; i < 5; i++) {
		int r;

		m = req;
		m.u.req.service_id = SID + 2;
		m.u.req.local_comm_id = 0x20000 + i;
		m.u.req.local_qpn = 0x600 + i;
		snap(&s);
		r = net_inject(&n, 1, NULL, 2, &m);
		if (i < 2) {
			CHECK_EQ(r, WQE_CM_RX_OK);
			accepted++;
		} else {
			CHECK_EQ(r, WQE_CM_RX_NO_RESOURCES);
			unchanged(&s, 1, WQE_CM_RX_NO_RESOURCES, 1);
		}
	}
	wqe_cm_agent_stats(n.nodes[1].agent, &st);
	CHECK_EQ(accepted, 6);
	CHECK_EQ(st.req_rcvd, 6);
	CHECK_EQ(st.ids, 2 + 6);
	CHECK_EQ(st.rx_refused[WQE_CM_RX_NO_RESOURCES], 9);
	CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_REQ_RECEIVED), 6);
	/* one rejected frees a place under the overall bound */
	CHECK_EQ(wqe_cm_reject(n.nodes[1].last_new, WQE_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0),
		 0);
	m = req;
	m.u.req.service_id = SID + 2;
	m.u.req.local_comm_id = 0x30000;
	m.u.req.local_qpn = 0x700;
	CHECK_EQ(net_inject(&n, 1, NULL, 2, &m), WQE_CM_RX_OK);
	/* the ID table's own bound (16): SIDR_REQs fill it, the rest refused */
	{
		struct wqe_cm_msg q;
		int ok = 0, full = 0;

		CHECK(wqe_cm_listen(n.nodes[1].agent, SID + 3, 0, NULL) != NULL);
		for (uint32_t i = 0; i < 20; i++) {
			int r;

			wqe_cm_msg_init(&q, WQE_CM_ATTR_SIDR_REQ, i);
			q.u.sidr_req.request_id = 0x40000 + i;
			q.u.sidr_req.service_id = SID + 3;
			r = net_inject(&n, 1, NULL, 2, &q);
			ok += r == WQE_CM_RX_OK;
			full += r == WQE_CM_RX_NO_RESOURCES;
			if (r == WQE_CM_RX_NO_RESOURCES)
				CHECK_EQ(last()->u.sidr_rep.status, WQE_CM_SIDR_REJECT);
		}
		wqe_cm_agent_stats(n.nodes[1].agent, &st);
		CHECK_EQ(st.ids, 16);
		CHECK_EQ(ok,
			 16 - 3 -
			     7); /* 3 listeners, 6 in REQ_RCVD, 1 rejected (IDLE, not destroyed) */
		CHECK_EQ(full, 20 - ok);
		/* and a duplicate SIDR_REQ is dropped */
		q.u.sidr_req.request_id = 0x40000;
		CHECK_EQ(net_inject(&n, 1, NULL, 2, &q), WQE_CM_RX_DUPLICATE);
	}
	net_fini(&n);
}

int main(void)
{
	test_malformed_unknown();
	test_replays();
	test_refused_reqs();
	return test_finish();
}
