/* SPDX-License-Identifier: MIT */
/*
 * The CM agent's state machine (wqe/cm.h), two agents back to back on a
 * simulated clock (cm_net.h): connect, accept, RTU, established, DREQ,
 * DREP, TIMEWAIT for exactly its time; a reject; an MRA and the wait it
 * buys; every timeout with its retries counted exactly and its event at
 * its exact time; SIDR; the QP attributes of both sides (RC and UC);
 * random local IDs; wqe_cm_destroy_id() in each state; both sides
 * disconnecting at once; established by the QP's first packet; REJ Stale
 * Connection into TIMEWAIT; and 40 seeded runs on a queue that drops, duplicates and reorders.
 */
#include <errno.h>
#include <string.h>

#include "cm_net.h"

#define SID 0x0000000001060000ull /* RDMA_PS_TCP, port 0 */
#define MS  1000000ull

static const uint64_t T_REQ = 2 * (4096ull << 10) + (4096ull << 16); /* 2 x PLT + response */
static const uint64_t T_REP = 4096ull << 16;			     /* REQ local response */
static const uint64_t T_TW = 4096ull << 11;			     /* PLT + 1 */

static struct net n;

static void establish(struct net *nt, struct wqe_cm_id **a, struct wqe_cm_id **b)
{
	struct wqe_cm_conn_param p;

	CHECK(wqe_cm_listen(nt->nodes[1].agent, SID, 0, NULL) != NULL);
	nt->nodes[1].au.accept = 1;
	net_conn_param(nt, 0, 1, SID, &p);
	*a = wqe_cm_connect(nt->nodes[0].agent, &p, (void *)0x1234);
	CHECK(*a != NULL);
	net_run(nt, 10000 * MS);
	*b = nt->nodes[1].last_new;
	CHECK(*b != NULL);
	CHECK_EQ(wqe_cm_id_state(*a), WQE_CM_ESTABLISHED);
	CHECK_EQ(wqe_cm_id_state(*b), WQE_CM_ESTABLISHED);
}

static void test_connect_disconnect(void)
{
	struct wqe_cm_id *a, *b;
	const struct wqe_cm_msg *req, *rep;
	struct wqe_qp_attr qa;
	struct wqe_cm_agent_stats st;
	int mask, e;
	uint64_t t;

	net_init(&n, 2, 1, NULL);
	n.nodes[1].au.drep = 1;
	establish(&n, &a, &b);
	CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_REQ_RECEIVED), 1);
	CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_REP_RECEIVED), 1);
	CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_RTU_RECEIVED), 1);
	CHECK_EQ(wqe_cm_id_context(a), 0x1234);
	CHECK_EQ(wqe_cm_id_remote_id(a), wqe_cm_id_local_id(b));
	CHECK_EQ(wqe_cm_id_remote_id(b), wqe_cm_id_local_id(a));
	CHECK_MEM(n.ev[net_find_ev(&n, 1, WQE_CM_EV_REQ_RECEIVED, 0)].pdata, "hello", 5);

	/* The REQ as built from the parameters (IBTA 12.6.5). */
	req = net_last_sent(&n, 0, WQE_CM_ATTR_REQ);
	CHECK(req != NULL);
	if (req) {
		CHECK_EQ(req->u.req.local_comm_id, wqe_cm_id_local_id(a));
		CHECK_EQ(req->u.req.service_id, SID);
		CHECK_EQ(req->u.req.local_qpn, 0x100);
		CHECK_EQ(req->u.req.starting_psn, 0x1000);
		CHECK_EQ(req->u.req.path_mtu, WQE_MTU_1024);
		CHECK_EQ(req->u.req.transport_type, WQE_CM_TRANSPORT_RC);
		CHECK_EQ(req->u.req.responder_resources, 8);
		CHECK_EQ(req->u.req.initiator_depth, 8);
		CHECK_EQ(req->u.req.remote_cm_response_timeout, 16);
		CHECK_EQ(req->u.req.local_cm_response_timeout, 16);
		CHECK_EQ(req->u.req.max_cm_retries, 3);
		CHECK_EQ(req->u.req.retry_count, 7);
		CHECK_EQ(req->u.req.rnr_retry_count, 6);
		CHECK_EQ(req->u.req.e2e_flow_control, 1);
		CHECK_EQ(req->u.req.pkey, 0xffff);
		CHECK_EQ(req->u.req.local_ca_guid, 0x0002c90300000000ull);
		CHECK_MEM(req->u.req.primary.local_gid.raw, n.nodes[0].gid.raw, 16);
		CHECK_MEM(req->u.req.primary.remote_gid.raw, n.nodes[1].gid.raw, 16);
		CHECK_EQ(req->u.req.primary.local_lid, 0xffff);
		CHECK_EQ(req->u.req.primary.hop_limit, 64);
		CHECK_EQ(req->u.req.primary.traffic_class, 0x10);
		CHECK_EQ(req->u.req.primary.flow_label, 0x12345);
		CHECK_EQ(req->u.req.primary.local_ack_timeout, 11);
		CHECK_EQ(req->u.req.primary.subnet_local, 0);
		CHECK_MEM(req->u.req.private_data, "hello", 5);
	}
	rep = net_last_sent(&n, 1, WQE_CM_ATTR_REP);
	CHECK(rep != NULL);
	if (rep) {
		CHECK_EQ(rep->hdr.tid, req->hdr.tid); /* the passive side answers in the REQ's */
		CHECK_EQ(rep->u.rep.local_qpn, 0x201);
		CHECK_EQ(rep->u.rep.starting_psn, 0x2001);
		CHECK_EQ(rep->u.rep.e2e_flow_control, 1);
		CHECK_EQ(rep->u.rep.remote_comm_id, wqe_cm_id_local_id(a));
	}
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_RTU), 1);

	/* QP attributes, as ib_cm_init_qp_attr() */
	CHECK_EQ(wqe_cm_qp_attr(a, WQE_QPS_INIT, &qa, &mask), 0);
	CHECK_EQ(mask, WQE_QP_STATE | WQE_QP_PORT | WQE_QP_PKEY_INDEX | WQE_QP_ACCESS_FLAGS);
	CHECK_EQ(qa.qp_access_flags,
		 WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC);
	CHECK_EQ(wqe_cm_qp_attr(a, WQE_QPS_RTR, &qa, &mask), 0);
	CHECK_EQ(mask, WQE_QP_STATE | WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN |
			   WQE_QP_RQ_PSN | WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER);
	CHECK_EQ(qa.dest_qp_num, 0x201);
	CHECK_EQ(qa.rq_psn, 0x1000); /* A's own REQ's: ib_cm's reading */
	CHECK_EQ(qa.path_mtu, WQE_MTU_1024);
	CHECK_MEM(qa.ah_attr.grh.dgid.raw, n.nodes[1].gid.raw, 16);
	CHECK_EQ(qa.ah_attr.grh.hop_limit, 64);
	CHECK_EQ(qa.ah_attr.grh.traffic_class, 0x10);
	CHECK_EQ(qa.ah_attr.grh.flow_label, 0x12345);
	CHECK_EQ(qa.max_dest_rd_atomic, 4); /* what B's REP granted (its initiator depth) */
	CHECK_EQ(qa.min_rnr_timer, 12);
	CHECK_EQ(wqe_cm_qp_attr(a, WQE_QPS_RTS, &qa, &mask), 0);
	CHECK_EQ(mask, WQE_QP_STATE | WQE_QP_SQ_PSN | WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT |
			   WQE_QP_RNR_RETRY | WQE_QP_MAX_QP_RD_ATOMIC);
	CHECK_EQ(qa.sq_psn, 0x2001); /* B's REP's */
	CHECK_EQ(qa.timeout, 11);
	CHECK_EQ(qa.retry_cnt, 7);
	CHECK_EQ(qa.rnr_retry, 7); /* the REP's RNR retry count */
	CHECK_EQ(qa.max_rd_atomic, 4);
	CHECK_EQ(wqe_cm_qp_attr(b, WQE_QPS_RTR, &qa, &mask), 0);
	CHECK_EQ(qa.dest_qp_num, 0x100);
	CHECK_EQ(qa.rq_psn, 0x2001);
	CHECK_MEM(qa.ah_attr.grh.dgid.raw, n.nodes[0].gid.raw, 16);
	CHECK_EQ(qa.max_dest_rd_atomic, 4);
	CHECK_EQ(wqe_cm_qp_attr(b, WQE_QPS_RTS, &qa, &mask), 0);
	CHECK_EQ(qa.sq_psn, 0x1000);
	CHECK_EQ(qa.rnr_retry, 6); /* the REQ's */
	CHECK_EQ(qa.timeout, 11);  /* the REQ's local ACK timeout */
	CHECK_EQ(wqe_cm_qp_attr(b, WQE_QPS_SQD, &qa, &mask), EINVAL);

	/* wrong-state calls change nothing */
	CHECK_EQ(wqe_cm_accept(a, &n.nodes[1].au.accept_param), EINVAL);
	CHECK_EQ(wqe_cm_rtu(a, NULL, 0), EINVAL);
	CHECK_EQ(wqe_cm_drep(a, NULL, 0), EINVAL);
	CHECK_EQ(wqe_cm_disconnect(a, NULL, 300), EINVAL);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_ESTABLISHED);

	/* DREQ, DREP, TIMEWAIT for PLT + 1 exactly, then IDLE */
	CHECK_EQ(wqe_cm_disconnect(a, "bye", 3), 0);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_DREQ_SENT);
	net_advance(&n, 3000);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_TIMEWAIT);
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_TIMEWAIT);
	e = net_find_ev(&n, 1, WQE_CM_EV_DREQ_RECEIVED, 0);
	CHECK(e >= 0);
	if (e >= 0)
		CHECK_MEM(n.ev[e].pdata, "bye", 3);
	e = net_find_ev(&n, 0, WQE_CM_EV_DREP_RECEIVED, 0);
	CHECK(e >= 0);
	t = e >= 0 ? n.ev[e].at : 0;
	wqe_cm_agent_stats(n.nodes[0].agent, &st);
	CHECK_EQ(st.timewait, 1);
	CHECK_EQ(wqe_cm_qp_attr(a, WQE_QPS_RTS, &qa, &mask), EINVAL);
	net_advance(&n, t + T_TW - 1 - n.now);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_TIMEWAIT);
	net_advance(&n, 1);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	e = net_find_ev(&n, 0, WQE_CM_EV_TIMEWAIT_EXIT, 0);
	CHECK(e >= 0);
	if (e >= 0)
		CHECK_EQ(n.ev[e].at, t + T_TW);
	net_run(&n, 1000 * MS);
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_IDLE);
	CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_TIMEWAIT_EXIT), 1);
	wqe_cm_agent_stats(n.nodes[0].agent, &st);
	CHECK_EQ(st.tx[WQE_CM_ATTR_REQ - WQE_CM_ATTR_REQ], 1);
	CHECK_EQ(st.tx[WQE_CM_ATTR_DREQ - WQE_CM_ATTR_REQ], 1);
	CHECK_EQ(st.rx[WQE_CM_ATTR_REP - WQE_CM_ATTR_REQ], 1);
	CHECK_EQ(st.rx[WQE_CM_ATTR_DREP - WQE_CM_ATTR_REQ], 1);
	CHECK_EQ(st.retransmits, 0);
	CHECK_EQ(st.timewait, 0);
	CHECK_EQ(st.ids, 1);
	CHECK_EQ(wqe_cm_destroy_id(a), 0);
	wqe_cm_agent_stats(n.nodes[0].agent, &st);
	CHECK_EQ(st.ids, 0);
	CHECK_EQ(wqe_cm_agent_next_deadline(n.nodes[0].agent), UINT64_MAX);
	net_fini(&n);
}

static void test_reject(void)
{
	struct wqe_cm_conn_param p;
	struct wqe_cm_id *a;
	int e;

	net_init(&n, 2, 2, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL) != NULL);
	n.nodes[1].au.reject = WQE_CM_REJ_CONSUMER_DEFINED;
	net_conn_param(&n, 0, 1, SID, &p);
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_run(&n, 10000 * MS);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	CHECK_EQ(wqe_cm_id_state(n.nodes[1].last_new), WQE_CM_IDLE);
	e = net_find_ev(&n, 0, WQE_CM_EV_REJ_RECEIVED, 0);
	CHECK(e >= 0);
	if (e >= 0) {
		CHECK_EQ(n.ev[e].reason, WQE_CM_REJ_CONSUMER_DEFINED);
		CHECK_MEM(n.ev[e].pdata, "nope", 4);
	}
	CHECK_EQ(net_last_sent(&n, 1, WQE_CM_ATTR_REJ)->u.rej.local_comm_id, 0); /* from REQ_RCVD */
	CHECK_EQ(net_last_sent(&n, 1, WQE_CM_ATTR_REJ)->u.rej.remote_comm_id,
		 wqe_cm_id_local_id(a));
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_REQ), 1); /* no retry after a REJ */
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_REJ), 0);
	CHECK_EQ(wqe_cm_agent_next_deadline(n.nodes[0].agent), UINT64_MAX);
	/* bad reasons and sizes are refused */
	CHECK_EQ(wqe_cm_reject(a, 0, NULL, 0, NULL, 0), EINVAL);
	CHECK_EQ(wqe_cm_reject(a, WQE_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0), EINVAL);
	net_fini(&n);
}

static void test_mra(void)
{
	struct wqe_cm_conn_param p;
	struct wqe_cm_id *a, *b;
	const uint64_t t_mra = (4096ull << 20) + T_TW; /* service timeout 20 + PLT + 1 */
	uint64_t t0;

	net_init(&n, 2, 3, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL) != NULL);
	n.nodes[1].au.mra = 21; /* service timeout 20: 4.3 s */
	net_conn_param(&n, 0, 1, SID, &p);
	t0 = n.now;
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_advance(&n, 3000);
	b = n.nodes[1].last_new;
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_MRA_REQ_RCVD);
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_MRA_REQ_SENT);
	CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_MRA_RECEIVED), 1);
	/* well past the REQ's own timeout, nothing resent */
	net_advance(&n, 10 * T_REQ);
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_REQ), 1);
	/* past the MRA's wait: the REQ again, to which B (MRA_REQ_SENT)
	 * answers with its MRA again (ib_cm's duplicate REQ handling) */
	net_advance(&n, t0 + 2000 + t_mra + 1500 - n.now);
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_REQ), 2);
	CHECK_EQ(net_count_sent(&n, 1, WQE_CM_ATTR_MRA), 2);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_MRA_REQ_RCVD); /* a second MRA is a duplicate */
	CHECK_EQ(wqe_cm_accept(b, &n.nodes[1].au.accept_param), 0);
	net_run(&n, 10000 * MS);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_ESTABLISHED);
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_ESTABLISHED);
	net_fini(&n);

	/* An MRA of the REP, from the active side */
	net_init(&n, 2, 4, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL) != NULL);
	n.nodes[1].au.accept = 1;
	net_conn_param(&n, 0, 1, SID, &p);
	p.manual_rtu = 1;
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_advance(&n, 2500);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_REP_RCVD);
	CHECK_EQ(wqe_cm_mra(a, 20, NULL, 0), 0);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_MRA_REP_SENT);
	net_advance(&n, 5 * T_REP);
	b = n.nodes[1].last_new;
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_MRA_REP_RCVD);
	CHECK_EQ(net_count_sent(&n, 1, WQE_CM_ATTR_REP), 1);
	CHECK_EQ(wqe_cm_rtu(a, "rtu", 3), 0);
	net_run(&n, 10000 * MS);
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_ESTABLISHED);
	CHECK_MEM(n.ev[net_find_ev(&n, 1, WQE_CM_EV_RTU_RECEIVED, 0)].pdata, "rtu", 3);
	net_fini(&n);
}

static void test_timeouts(void)
{
	struct wqe_cm_conn_param p;
	struct wqe_cm_sidr_param sp;
	struct wqe_cm_id *a, *b;
	struct wqe_cm_agent_stats st;
	const struct wqe_cm_msg *rej;
	uint64_t t0;
	int e;

	/* REQ: 1 + 3 retries, each T_REQ, then REQ_ERROR and REJ Timeout */
	net_init(&n, 2, 5, NULL);
	n.drop_to[1] = 1;
	net_conn_param(&n, 0, 1, SID, &p);
	t0 = n.now;
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	CHECK_EQ(wqe_cm_agent_next_deadline(n.nodes[0].agent), t0 + T_REQ);
	net_run(&n, 100000 * MS);
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_REQ), 4);
	for (int k = 0; k < 4; k++) {
		int c = 0;

		for (int i = 0; i < n.nsent; i++)
			if (n.sent[i].attr == WQE_CM_ATTR_REQ && c++ == k)
				CHECK_EQ(n.sent[i].at, t0 + (uint64_t)k * T_REQ);
	}
	e = net_find_ev(&n, 0, WQE_CM_EV_REQ_ERROR, 0);
	CHECK(e >= 0);
	if (e >= 0) {
		CHECK_EQ(n.ev[e].at, t0 + 4 * T_REQ);
		CHECK_EQ(n.ev[e].reason, WQE_CM_REJ_TIMEOUT);
	}
	rej = net_last_sent(&n, 0, WQE_CM_ATTR_REJ);
	CHECK(rej != NULL);
	if (rej) {
		CHECK_EQ(rej->u.rej.reason, WQE_CM_REJ_TIMEOUT);
		CHECK_EQ(rej->u.rej.msg_rejected, WQE_CM_MSG_REQ);
		CHECK_EQ(rej->u.rej.ari_len, 8);
		CHECK_EQ(rej->u.rej.ari[7], 0); /* the CA GUID, big-endian */
		CHECK_EQ(rej->u.rej.ari[0], 0x00);
		CHECK_EQ(rej->u.rej.ari[1], 0x02);
	}
	wqe_cm_agent_stats(n.nodes[0].agent, &st);
	CHECK_EQ(st.retransmits, 3);
	CHECK_EQ(st.timeouts, 1);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	net_fini(&n);

	/* REP: the RTUs are lost; B resends its REP 3 times (the REQ's max
	 * CM retries), A answers each with its RTU again; B gives up with a
	 * REJ Timeout, which sends A (established) to TIMEWAIT */
	net_init(&n, 2, 6, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL) != NULL);
	n.nodes[1].au.accept = 1;
	net_conn_param(&n, 0, 1, SID, &p);
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_advance(&n, 1500); /* the REQ is in, the REP on its way */
	t0 = n.now - 500;
	n.drop_to[1] = 1;
	net_run(&n, 100000 * MS);
	b = n.nodes[1].last_new;
	CHECK_EQ(net_count_sent(&n, 1, WQE_CM_ATTR_REP), 4);
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_RTU), 4);
	e = net_find_ev(&n, 1, WQE_CM_EV_REP_ERROR, 0);
	CHECK(e >= 0);
	if (e >= 0)
		CHECK_EQ(n.ev[e].at, t0 + 4 * T_REP);
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_IDLE);
	/* the REJ Timeout reaches A, established: TIMEWAIT, as ib_cm */
	e = net_find_ev(&n, 0, WQE_CM_EV_REJ_RECEIVED, 0);
	CHECK(e >= 0);
	if (e >= 0)
		CHECK_EQ(n.ev[e].reason, WQE_CM_REJ_TIMEOUT);
	CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_TIMEWAIT_EXIT), 1);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	rej = net_last_sent(&n, 1, WQE_CM_ATTR_REJ);
	CHECK(rej && rej->u.rej.reason == WQE_CM_REJ_TIMEOUT &&
	      rej->u.rej.msg_rejected == WQE_CM_MSG_REP);
	wqe_cm_agent_stats(n.nodes[1].agent, &st);
	CHECK_EQ(st.retransmits, 3);
	wqe_cm_agent_stats(n.nodes[0].agent, &st);
	CHECK_EQ(st.rx_refused[WQE_CM_RX_DUPLICATE], 3);
	net_fini(&n);

	/* DREQ: unanswered, 1 + 3, then DREQ_ERROR and TIMEWAIT */
	net_init(&n, 2, 7, NULL);
	establish(&n, &a, &b);
	n.drop_to[1] = 1;
	t0 = n.now;
	CHECK_EQ(wqe_cm_disconnect(a, NULL, 0), 0);
	net_advance(&n, 4 * T_REQ);
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_DREQ), 4);
	e = net_find_ev(&n, 0, WQE_CM_EV_DREQ_ERROR, 0);
	CHECK(e >= 0);
	if (e >= 0)
		CHECK_EQ(n.ev[e].at, t0 + 4 * T_REQ);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_TIMEWAIT);
	net_advance(&n, T_TW);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_TIMEWAIT_EXIT), 1);
	net_fini(&n);

	/* SIDR_REQ: timeout 12, 2 retries */
	net_init(&n, 2, 8, NULL);
	n.drop_to[1] = 1;
	memset(&sp, 0, sizeof(sp));
	sp.peer = net_addr(&n, 1);
	sp.service_id = wqe_cm_service_id(WQE_RDMA_PS_UDP, 7);
	sp.timeout = 12;
	sp.max_cm_retries = 2;
	t0 = n.now;
	a = wqe_cm_sidr_req(n.nodes[0].agent, &sp, NULL);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_SIDR_REQ_SENT);
	net_run(&n, 100000 * MS);
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_SIDR_REQ), 3);
	e = net_find_ev(&n, 0, WQE_CM_EV_SIDR_REQ_ERROR, 0);
	CHECK(e >= 0);
	if (e >= 0)
		CHECK_EQ(n.ev[e].at, t0 + 3 * (4096ull << 12));
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	net_fini(&n);
}

static void test_sidr(void)
{
	struct wqe_cm_sidr_param sp;
	struct wqe_cm_id *a, *a2;
	const struct wqe_cm_msg *rep;
	struct wqe_cm_agent_stats st;
	int e;

	net_init(&n, 2, 9, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, wqe_cm_service_id(WQE_RDMA_PS_UDP, 7), 0, NULL));
	n.nodes[1].au.sidr = 1;
	n.nodes[1].au.destroy = 1;
	memset(&sp, 0, sizeof(sp));
	sp.peer = net_addr(&n, 1);
	sp.service_id = wqe_cm_service_id(WQE_RDMA_PS_UDP, 7);
	sp.timeout = 12;
	sp.max_cm_retries = 2;
	sp.private_data = "sidr";
	sp.private_data_len = 4;
	a = wqe_cm_sidr_req(n.nodes[0].agent, &sp, NULL);
	net_run(&n, 1000 * MS);
	CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_SIDR_REQ_RECEIVED), 1);
	CHECK_MEM(n.ev[net_find_ev(&n, 1, WQE_CM_EV_SIDR_REQ_RECEIVED, 0)].pdata, "sidr", 4);
	e = net_find_ev(&n, 0, WQE_CM_EV_SIDR_REP_RECEIVED, 0);
	CHECK(e >= 0);
	CHECK_MEM(n.ev[e].pdata, "ud", 2);
	rep = net_last_sent(&n, 1, WQE_CM_ATTR_SIDR_REP);
	CHECK(rep != NULL);
	if (rep) {
		CHECK_EQ(rep->u.sidr_rep.request_id, wqe_cm_id_local_id(a));
		CHECK_EQ(rep->u.sidr_rep.status, WQE_CM_SIDR_SUCCESS);
		CHECK_EQ(rep->u.sidr_rep.qpn, 0x111);
		CHECK_EQ(rep->u.sidr_rep.qkey, 0x2222);
		CHECK_EQ(rep->u.sidr_rep.service_id, sp.service_id);
	}
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	wqe_cm_agent_stats(n.nodes[1].agent, &st);
	CHECK_EQ(st.ids, 1); /* the listener: the passive ID is gone */

	/* no listener: SIDR_REP Unsupported */
	sp.service_id = wqe_cm_service_id(WQE_RDMA_PS_UDP, 8);
	a2 = wqe_cm_sidr_req(n.nodes[0].agent, &sp, NULL);
	net_run(&n, 1000 * MS);
	e = net_find_ev(&n, 0, WQE_CM_EV_SIDR_REP_RECEIVED, 1);
	CHECK(e >= 0);
	if (e >= 0) {
		CHECK(n.ev[e].id == a2);
		CHECK_EQ(n.ev[e].reason, WQE_CM_SIDR_UNSUPPORTED);
	}
	wqe_cm_agent_stats(n.nodes[1].agent, &st);
	CHECK_EQ(st.rx_refused[WQE_CM_RX_NO_LISTENER], 1);
	net_fini(&n);
}

/* Local IDs: random, distinct, not a sequence. */
static void test_ids(void)
{
	struct wqe_cm_conn_param p;
	uint32_t ids[64];
	int steps = 0;

	net_init(&n, 2, 10, NULL);
	n.hold = 1;
	net_conn_param(&n, 0, 1, SID, &p);
	for (int i = 0; i < 64; i++) {
		struct wqe_cm_id *id = wqe_cm_connect(n.nodes[0].agent, &p, NULL);

		CHECK(id != NULL);
		ids[i] = wqe_cm_id_local_id(id);
		CHECK(ids[i] != 0);
		for (int j = 0; j < i; j++)
			CHECK(ids[i] != ids[j]);
		if (i && ids[i] == ids[i - 1] + 1)
			steps++;
	}
	CHECK(steps < 2);
	net_fini(&n);

	/* the table's bound: ENOSPC, nothing sent */
	{
		struct wqe_cm_agent_attr at = {.max_ids = 2};
		int sent;

		net_init(&n, 2, 11, &at);
		n.hold = 1;
		CHECK(wqe_cm_connect(n.nodes[0].agent, &p, NULL) != NULL);
		CHECK(wqe_cm_connect(n.nodes[0].agent, &p, NULL) != NULL);
		sent = n.nsent;
		CHECK(wqe_cm_connect(n.nodes[0].agent, &p, NULL) == NULL);
		CHECK_EQ(n.nsent, sent);
		p.private_data_len = WQE_CM_REQ_PDATA_LEN + 1;
		CHECK(wqe_cm_connect(n.nodes[1].agent, &p, NULL) == NULL);
		p.private_data_len = 0;
		p.path_mtu = (enum wqe_mtu)6;
		CHECK(wqe_cm_connect(n.nodes[1].agent, &p, NULL) == NULL);
		net_fini(&n);
	}
}

/* Seeded loss, duplication and reordering: every run connects and
 * disconnects, and both sides end with no ID but the listener. */
static void test_lossy(void)
{
	for (uint64_t seed = 100; seed < 140; seed++) {
		struct wqe_cm_conn_param p;
		struct wqe_cm_agent_stats sa, sb;
		struct wqe_cm_id *a;

		net_init(&n, 2, seed, NULL);
		n.drop_pct = 20;
		n.dup_pct = 10;
		n.jitter_ns = 20000;
		CHECK(wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL) != NULL);
		for (int i = 0; i < 2; i++) {
			n.nodes[i].au.accept = i == 1;
			n.nodes[i].au.drep = 1;
			n.nodes[i].au.destroy = 1;
		}
		net_conn_param(&n, 0, 1, SID, &p);
		p.max_cm_retries = 15;
		a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
		net_run(&n, 100000 * MS);
		CHECK_EQ(wqe_cm_id_state(a), WQE_CM_ESTABLISHED);
		CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_REP_RECEIVED), 1);
		CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_REQ_RECEIVED), 1);
		CHECK_EQ(wqe_cm_disconnect(a, NULL, 0), 0);
		net_run(&n, 100000 * MS);
		CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_TIMEWAIT_EXIT), 1);
		CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_TIMEWAIT_EXIT), 1);
		CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_REQ_ERROR) +
			     net_count_ev(&n, 1, WQE_CM_EV_REP_ERROR),
			 0);
		wqe_cm_agent_stats(n.nodes[0].agent, &sa);
		wqe_cm_agent_stats(n.nodes[1].agent, &sb);
		CHECK_EQ(sa.ids, 0);
		CHECK_EQ(sb.ids, 1);
		CHECK(n.dropped > 0 || seed != 100);
		net_fini(&n);
	}
}

/* wqe_cm_destroy_id() in each state says ib_cm's last word: REJ Timeout
 * from REQ_SENT, REJ Consumer Defined before the RTU, a DREQ from
 * ESTABLISHED (then a silent TIMEWAIT, the ID freed at its end). */
static void test_destroy(void)
{
	struct wqe_cm_conn_param p;
	struct wqe_cm_agent_stats st;
	struct wqe_cm_id *a, *b;
	const struct wqe_cm_msg *m;
	int nev;

	net_init(&n, 2, 20, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL) != NULL);
	net_conn_param(&n, 0, 1, SID, &p);
	/* REQ_SENT: REJ Timeout with the CA GUID; B's ID goes */
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_advance(&n, 1500);
	b = n.nodes[1].last_new;
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_REQ_RCVD);
	CHECK_EQ(wqe_cm_destroy_id(a), 0);
	CHECK_EQ(wqe_cm_destroy_id(a), EINVAL); /* once */
	m = net_last_sent(&n, 0, WQE_CM_ATTR_REJ);
	CHECK(m && m->u.rej.reason == WQE_CM_REJ_TIMEOUT && m->u.rej.ari_len == 8);
	net_run(&n, 1000 * MS);
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_IDLE);
	CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_REJ_RECEIVED), 1);
	wqe_cm_agent_stats(n.nodes[0].agent, &st);
	CHECK_EQ(st.ids, 0);
	CHECK_EQ(wqe_cm_destroy_id(b), 0);
	/* REQ_RCVD: REJ Consumer Defined */
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_advance(&n, 1500);
	b = n.nodes[1].last_new;
	CHECK_EQ(wqe_cm_destroy_id(b), 0);
	net_run(&n, 1000 * MS);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	m = net_last_sent(&n, 1, WQE_CM_ATTR_REJ);
	CHECK(m && m->u.rej.reason == WQE_CM_REJ_CONSUMER_DEFINED &&
	      m->u.rej.msg_rejected == WQE_CM_MSG_REQ);
	CHECK_EQ(wqe_cm_destroy_id(a), 0);
	/* ESTABLISHED: one DREQ, nothing reported, freed after TIMEWAIT */
	n.nodes[1].au.accept = 1;
	n.nodes[1].au.drep = 1;
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_run(&n, 1000 * MS);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_ESTABLISHED);
	nev = net_count_ev(&n, 0, WQE_CM_EV_DREP_RECEIVED) +
	      net_count_ev(&n, 0, WQE_CM_EV_TIMEWAIT_EXIT);
	CHECK_EQ(wqe_cm_destroy_id(a), 0);
	wqe_cm_agent_stats(n.nodes[0].agent, &st);
	CHECK_EQ(st.ids, 1);
	CHECK_EQ(st.timewait, 1);
	net_run(&n, 1000 * MS);
	CHECK_EQ(net_count_sent(&n, 0, WQE_CM_ATTR_DREQ), 1);
	CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_DREP_RECEIVED) +
		     net_count_ev(&n, 0, WQE_CM_EV_TIMEWAIT_EXIT),
		 nev);
	wqe_cm_agent_stats(n.nodes[0].agent, &st);
	CHECK_EQ(st.ids, 0);
	CHECK_EQ(wqe_cm_id_state(n.nodes[1].last_new), WQE_CM_IDLE); /* B: DREQ, DREP, TIMEWAIT */
	/* REP_SENT (the REP lost): REJ Consumer Defined, then TIMEWAIT */
	n.drop_to[0] = 1;
	p.local_qpn = 0x180;
	n.nodes[1].au.accept_param.local_qpn = 0x280;
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_advance(&n, 1500);
	b = n.nodes[1].last_new;
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_REP_SENT);
	wqe_cm_agent_stats(n.nodes[1].agent, &st);
	nev = (int)st.ids;
	CHECK_EQ(wqe_cm_destroy_id(b), 0);
	m = net_last_sent(&n, 1, WQE_CM_ATTR_REJ);
	CHECK(m && m->u.rej.reason == WQE_CM_REJ_CONSUMER_DEFINED &&
	      m->u.rej.msg_rejected == WQE_CM_MSG_OTHER);
	wqe_cm_agent_stats(n.nodes[1].agent, &st);
	CHECK_EQ(st.ids, (uint32_t)nev);
	CHECK_EQ(st.timewait, 1);
	net_advance(&n, 4096ull << 11);
	wqe_cm_agent_stats(n.nodes[1].agent, &st);
	CHECK_EQ(st.ids, (uint32_t)nev - 1);
	CHECK_EQ(st.timewait, 0);
	CHECK_EQ(wqe_cm_destroy_id(a), 0);
	net_fini(&n);
}

/* Both sides disconnect at once; the passive side established by its QP's
 * first packet (the RTU lost); a UC connection's QP attributes; a REJ
 * Stale Connection leads to TIMEWAIT. */
static void test_corners(void)
{
	struct wqe_cm_conn_param p;
	struct wqe_cm_id *a, *b;
	struct wqe_qp_attr qa;
	int mask;

	net_init(&n, 2, 21, NULL);
	n.nodes[0].au.drep = n.nodes[1].au.drep = 1;
	establish(&n, &a, &b);
	CHECK_EQ(wqe_cm_disconnect(a, NULL, 0), 0);
	CHECK_EQ(wqe_cm_disconnect(b, NULL, 0), 0);
	net_run(&n, 1000 * MS);
	CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_DREQ_RECEIVED), 1);
	CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_DREQ_RECEIVED), 1);
	CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_TIMEWAIT_EXIT), 1);
	CHECK_EQ(net_count_ev(&n, 1, WQE_CM_EV_TIMEWAIT_EXIT), 1);
	CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_DREQ_ERROR) +
		     net_count_ev(&n, 1, WQE_CM_EV_DREQ_ERROR),
		 0);
	net_fini(&n);

	net_init(&n, 2, 22, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL) != NULL);
	n.nodes[1].au.accept = 1;
	net_conn_param(&n, 0, 1, SID, &p);
	p.transport = WQE_CM_TRANSPORT_UC;
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_advance(&n, 1500); /* REQ in, REP sent */
	b = n.nodes[1].last_new;
	n.drop_to[1] = 1; /* the RTU is lost */
	net_advance(&n, 2000);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_ESTABLISHED);
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_REP_SENT);
	CHECK_EQ(wqe_cm_established(b), 0); /* WQE_EVENT_COMM_EST on its QP */
	CHECK_EQ(wqe_cm_id_state(b), WQE_CM_ESTABLISHED);
	CHECK_EQ(wqe_cm_established(b), EINVAL);
	CHECK_EQ(wqe_cm_agent_next_deadline(n.nodes[1].agent), UINT64_MAX); /* no REP resend */
	CHECK_EQ(wqe_cm_qp_attr(b, WQE_QPS_INIT, &qa, &mask), 0);
	CHECK_EQ(qa.qp_access_flags, WQE_ACCESS_REMOTE_WRITE);
	CHECK_EQ(wqe_cm_qp_attr(b, WQE_QPS_RTR, &qa, &mask), 0);
	CHECK_EQ(mask,
		 WQE_QP_STATE | WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN);
	CHECK_EQ(wqe_cm_qp_attr(b, WQE_QPS_RTS, &qa, &mask), 0);
	CHECK_EQ(mask, WQE_QP_STATE | WQE_QP_SQ_PSN);
	net_fini(&n);

	/* The local ACK timeout: 2 x PLT plus the peer's ACK delay, in
	 * codes (plt 0: the REQ says 2; a REP's target ACK delay 15 on plt
	 * 10 makes A's QP timeout and TIMEWAIT 15) */
	net_init(&n, 2, 24, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL) != NULL);
	n.nodes[1].au.accept = 1;
	n.nodes[1].au.accept_param.target_ack_delay = 15;
	net_conn_param(&n, 0, 1, SID, &p);
	p.packet_life_time = 0;
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	CHECK_EQ(net_last_sent(&n, 0, WQE_CM_ATTR_REQ)->u.req.primary.local_ack_timeout, 2);
	net_run(&n, 1000 * MS);
	CHECK_EQ(wqe_cm_qp_attr(a, WQE_QPS_RTS, &qa, &mask), 0);
	CHECK_EQ(qa.timeout, 15);
	p.packet_life_time = 10;
	p.local_qpn = 0x101; /* new QPs on both sides: the same would be stale */
	n.nodes[1].au.accept_param.local_qpn = 0x202;
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_run(&n, 1000 * MS);
	CHECK_EQ(wqe_cm_qp_attr(a, WQE_QPS_RTS, &qa, &mask), 0);
	CHECK_EQ(qa.timeout, 15); /* max(11, 15), 11 not within one of 15 */
	b = n.nodes[1].last_new;
	CHECK_EQ(wqe_cm_qp_attr(b, WQE_QPS_RTS, &qa, &mask), 0);
	CHECK_EQ(qa.timeout, 11); /* B's: the REQ's local ACK timeout */
	n.nodes[1].au.drep = 1;
	CHECK_EQ(wqe_cm_disconnect(a, NULL, 0), 0);
	net_advance(&n, 3000);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_TIMEWAIT);
	net_advance(&n, (4096ull << 15) - 2000);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_TIMEWAIT);
	net_advance(&n, 2000);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	net_fini(&n);

	/* REJ Stale Connection: the active ID waits out TIMEWAIT */
	net_init(&n, 2, 23, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, SID, 0, NULL) != NULL);
	n.nodes[1].au.reject = WQE_CM_REJ_STALE_CONN;
	net_conn_param(&n, 0, 1, SID, &p);
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_advance(&n, 3000);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_TIMEWAIT);
	CHECK_EQ(net_count_ev(&n, 0, WQE_CM_EV_REJ_RECEIVED), 1);
	net_advance(&n, T_TW);
	CHECK_EQ(wqe_cm_id_state(a), WQE_CM_IDLE);
	net_fini(&n);
}

int main(void)
{
	test_connect_disconnect();
	test_reject();
	test_mra();
	test_timeouts();
	test_sidr();
	test_ids();
	test_lossy();
	test_destroy();
	test_corners();
	return test_finish();
}
