/* SPDX-License-Identifier: MIT */
/*
 * test_cm_agent_pcap.c - every MAD two CM agents send, as a capture for
 * Wireshark's dissector (cm_agent_tshark runs tshark_cm_check.py on it):
 * a connection with rdma_cm's IP CM header in the REQ (REQ, REP, RTU,
 * DREQ, DREP), a reject (REJ Consumer Defined), an MRA of the REQ, a REQ
 * that times out (its retransmissions and the REJ Timeout with the CA
 * GUID), a SIDR exchange and a SIDR_REQ to nobody (SIDR_REP Unsupported),
 * an unknown REP (REJ Invalid Communication ID) and an unknown DREQ (its
 * DREP). The agents' bytes, not hand-built ones, meet an independent
 * decoder, with no expert item allowed.
 */
#include <string.h>

#include "cm_jsonl.h"
#include "cm_net.h"
#include "test_gid.h"

#ifndef WQE_TEST_BINDIR
#define WQE_TEST_BINDIR "."
#endif

#define MS 1000000ull

static struct net n;

static void ip_req(struct wqe_cm_conn_param *p, uint8_t *pd)
{
	struct wqe_cm_ip_hdr ip = {.ip_version = 4, .src_port = 40001};

	net_gid(&ip.src, 0);
	net_gid(&ip.dst, 1);
	CHECK_EQ(wqe_cm_ip_hdr_encode(&ip, pd, WQE_CM_IP_HDR_LEN), WQE_CM_IP_HDR_LEN);
	memcpy(pd + WQE_CM_IP_HDR_LEN, "hello", 5);
	p->private_data = pd;
	p->private_data_len = WQE_CM_IP_HDR_LEN + 5;
}

static int out(struct wqe_pcap *pc, int from, uint32_t *psn, uint64_t *ts)
{
	int k = 0;

	for (int i = from; i < n.nsent; i++, k++)
		cm_frame_out(pc, &n.sent[i].msg, 4, (*psn)++, *ts += 1000);
	return k;
}

int main(void)
{
	const uint64_t sid = wqe_cm_service_id(WQE_RDMA_PS_TCP, 20000);
	struct wqe_pcap *pc = wqe_pcap_open(WQE_TEST_BINDIR "/cm_agent.pcap");
	FILE *js = fopen(WQE_TEST_BINDIR "/cm_agent.jsonl", "w");
	struct wqe_cm_conn_param p;
	struct wqe_cm_sidr_param sp;
	struct wqe_cm_id *a;
	struct wqe_cm_msg m;
	uint8_t pd[WQE_CM_REQ_PDATA_LEN];
	uint32_t psn = 1;
	uint64_t ts = 1700000000000000000ull;
	int frames = 0;
	uint16_t seen[9] = {0};

	CHECK(pc && js);
	if (!pc || !js)
		return test_finish();
	cm_jsonl_open(js);

	net_init(&n, 2, 7, NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, sid, 0, NULL) != NULL);
	CHECK(wqe_cm_listen(n.nodes[1].agent, wqe_cm_service_id(WQE_RDMA_PS_UDP, 7), 0, NULL));
	n.nodes[1].au.drep = 1;
	n.nodes[1].au.sidr = 1;
	/* connect, disconnect */
	n.nodes[1].au.accept = 1;
	net_conn_param(&n, 0, 1, sid, &p);
	ip_req(&p, pd);
	a = wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_run(&n, 1000 * MS);
	CHECK_EQ(wqe_cm_disconnect(a, NULL, 0), 0);
	net_run(&n, 1000 * MS);
	/* reject; MRA then accept */
	n.nodes[1].au.accept = 0;
	n.nodes[1].au.reject = WQE_CM_REJ_CONSUMER_DEFINED;
	(void)wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_run(&n, 1000 * MS);
	n.nodes[1].au.reject = 0;
	n.nodes[1].au.mra = 18;
	(void)wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_advance(&n, 3000);
	CHECK_EQ(wqe_cm_accept(n.nodes[1].last_new, &n.nodes[1].au.accept_param), 0);
	net_run(&n, 1000 * MS);
	n.nodes[1].au.mra = 0;
	/* a REQ that times out: 1 + 2 tries, then REJ Timeout */
	n.drop_to[1] = 1;
	p.max_cm_retries = 2;
	(void)wqe_cm_connect(n.nodes[0].agent, &p, NULL);
	net_run(&n, 100000 * MS);
	n.drop_to[1] = 0;
	/* SIDR, to a listener and to nobody */
	memset(&sp, 0, sizeof(sp));
	sp.peer = net_addr(&n, 1);
	sp.service_id = wqe_cm_service_id(WQE_RDMA_PS_UDP, 7);
	sp.timeout = 12;
	(void)wqe_cm_sidr_req(n.nodes[0].agent, &sp, NULL);
	sp.service_id = wqe_cm_service_id(WQE_RDMA_PS_UDP, 8);
	(void)wqe_cm_sidr_req(n.nodes[0].agent, &sp, NULL);
	net_run(&n, 1000 * MS);
	/* an unknown REP and an unknown DREQ: the agents' refusals */
	n.hold = 1;
	wqe_cm_msg_init(&m, WQE_CM_ATTR_REP, 0x55);
	m.u.rep.local_comm_id = 0x1234;
	m.u.rep.remote_comm_id = 0x4321;
	m.u.rep.local_qpn = 0x77;
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_UNKNOWN_ID);
	wqe_cm_msg_init(&m, WQE_CM_ATTR_DREQ, 0x56);
	m.u.dreq.local_comm_id = 0x1234;
	m.u.dreq.remote_comm_id = 0x4321;
	CHECK_EQ(net_inject(&n, 0, NULL, 1, &m), WQE_CM_RX_UNKNOWN_ID);

	for (int i = 0; i < n.nsent; i++)
		seen[n.sent[i].attr - WQE_CM_ATTR_REQ]++;
	for (int k = 0; k < 9; k++)
		CHECK(seen[k] > 0); /* every message the agent sends is in */
	frames = out(pc, 0, &psn, &ts);
	net_fini(&n);
	CHECK_EQ(wqe_pcap_close(pc), 0);
	CHECK_EQ(fclose(js), 0);
	printf("wrote %d frames\n", frames);
	return test_finish();
}
