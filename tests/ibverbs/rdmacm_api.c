/* SPDX-License-Identifier: MIT */
/*
 * The drop-in librdmacm through rdma-core's own headers: built against the
 * system's <rdma/rdma_cma.h> and <rdma/rdma_verbs.h>, linked with -lrdmacm
 * -libverbs, never instrumented, run on the drop-ins (LD_LIBRARY_PATH) with
 * two devices in this process (WQE_IBV_LOCAL=127.0.0.73,127.0.0.74): A,
 * 127.0.0.73, passive; B, 127.0.0.74, active. The oracle is rdma-core's
 * librdmacm (librdmacm/cma.c, its man pages) over the kernel's rdma_cm
 * (drivers/infiniband/core/cma.c, ucma.c) and ib_cm (cm.c), each value
 * below as they give it:
 *  1. async RC: CONNECT_REQUEST, ESTABLISHED on both sides, their private
 *     data and depths, the addresses, the route, a WRITE and a SEND,
 *     DISCONNECTED and TIMEWAIT_EXIT (rdmacm_api.c);
 *  2. synchronous endpoints (rdma_getaddrinfo, rdma_create_ep,
 *     rdma_get_request, rdma_post_*, rdma_get_*_comp) (rdmacm_api.c);
 *  3. rdma_reject and a port with no listener; 4. UD over SIDR; 5. no QP on
 *     the active ID, rdma_establish (rdmacm_cases.c);
 *  6. misuse; 7. rdma_destroy_id waiting for the ack, rdma_migrate_id;
 *  8. four threads connecting at once (rdmacm_misuse.c).
 * Every wait is bounded: events by poll() on the channel fd (5 s each),
 * completions by the clock, and the calls that block (synchronous IDs,
 * rdma_get_request, rdma_get_*_comp, pthread_join) by alarm(), which ends
 * the process naming the case. Exit 0 and "N passed, 0 failed", or 1
 * naming each failed check.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <rdma/rdma_verbs.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmacm_cases.h"
#include "rdmacm_util.h"

/* ------------------------------------------------------------------------ */
/* 1. async RC */

/* The kernel's path MTU for RoCE: iboe_get_mtu() of the netdev's MTU (lo
 * holds 127/8), no more than the port's active MTU. */
static enum ibv_mtu roce_mtu(struct ibv_context *verbs)
{
	struct ibv_port_attr pa;
	FILE *f = fopen("/sys/class/net/lo/mtu", "r");
	int mtu = 0, m;
	enum ibv_mtu e = IBV_MTU_256;

	if (f) {
		if (fscanf(f, "%d", &mtu) != 1)
			mtu = 0;
		fclose(f);
	}
	m = mtu - (40 + 8 + 12 + 4 + 28 + 4); /* GRH, UDP, BTH, XRC, AtomicETH, ICRC */
	if (m >= 4096)
		e = IBV_MTU_4096;
	else if (m >= 2048)
		e = IBV_MTU_2048;
	else if (m >= 1024)
		e = IBV_MTU_1024;
	else if (m >= 512)
		e = IBV_MTU_512;
	if (!ibv_query_port(verbs, 1, &pa) && pa.active_mtu < e)
		e = pa.active_mtu;
	return e;
}

/* The route's hop limit: the kernel's ip4_dst_hoplimit(), the default TTL. */
static int default_ttl(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_default_ttl", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* B resolves A:@port, every value checked. */
static bool rc_resolve(struct pair *p, uint16_t port)
{
	struct sockaddr_in src = sa(ADDR_B, 0), dst = sa(ADDR_A, port);
	struct ibv_qp_init_attr q = qp_attr(IBV_QPT_RC);
	struct rdma_cm_id *b;
	struct ibv_sa_path_rec *r;
	struct ibv_qp_attr qa;
	union ibv_gid g;

	if (!CHECK(rdma_create_id(p->chb, &p->b, &ctx_b, RDMA_PS_TCP) == 0))
		return false;
	b = p->b;
	CHECK(b->verbs == NULL && b->qp == NULL && b->channel == p->chb && b->context == &ctx_b);
	CHECK(rdma_resolve_addr(b, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) == 0);
	if (!EXPECT_OK(p->chb, RDMA_CM_EVENT_ADDR_RESOLVED, b) || !CHECK(b->verbs))
		return false;
	CHECK(ibv_query_gid(b->verbs, 1, 0, &g) == 0 && gid_is(&g, ADDR_B));
	CHECK(b->port_num == 1 && b->pd && b->pd->context == b->verbs);
	CHECK(sa_is(rdma_get_local_addr(b), ADDR_B, 0));
	CHECK(sa_is(rdma_get_peer_addr(b), ADDR_A, port));
	CHECK(gid_is(&b->route.addr.addr.ibaddr.sgid, ADDR_B));
	CHECK(gid_is(&b->route.addr.addr.ibaddr.dgid, ADDR_A));
	CHECK(b->route.addr.addr.ibaddr.pkey == htons(0xffff));
	CHECK(rdma_resolve_route(b, 2000) == 0);
	if (!EXPECT_OK(p->chb, RDMA_CM_EVENT_ROUTE_RESOLVED, b) ||
	    !CHECK(b->route.num_paths == 1 && b->route.path_rec))
		return false;
	r = b->route.path_rec;
	CHECK(gid_is(&r->sgid, ADDR_B) && gid_is(&r->dgid, ADDR_A));
	CHECK(r->mtu == roce_mtu(b->verbs));
	CHECK(r->hop_limit == default_ttl());
	CHECK(r->pkey == htons(0xffff) && r->reversible && r->traffic_class == 0);
	CHECK(r->packet_life_time == 16); /* CMA_IBOE_PACKET_LIFETIME */
	/* no PD: id->pd; no CQs: librdmacm's own, on channels of their own */
	if (!CHECK(rdma_create_qp(b, NULL, &q) == 0) || !CHECK(b->qp))
		return false;
	CHECK(b->qp->pd == b->pd && b->send_cq && b->recv_cq && b->send_cq_channel &&
	      b->recv_cq_channel && q.send_cq == b->send_cq);
	CHECK(qp_state(b->qp, &qa) == IBV_QPS_INIT);
	return true;
}

struct rc_bufs {
	uint8_t *a, *b;
	struct ibv_mr *mra, *mrb;
	uint64_t raddr;
	uint32_t rkey;
};

/* A's side of the request: what B asked, seen from A. */
static void rc_check_request(struct pair *p, const struct rdma_conn_param *c, const uint8_t *got,
			     const uint8_t *req)
{
	struct rdma_cm_id *a = p->a;

	CHECK(memcmp(got, req, 56) == 0);
	CHECK(c->private_data_len == 56); /* a REQ's 92 less the 36 of the IP CM header */
	CHECK(c->responder_resources == 2 && c->initiator_depth == 3); /* B's, swapped */
	CHECK(c->retry_count == 6 && c->rnr_retry_count == 5);
	CHECK(c->flow_control == 1);
	CHECK(c->srq == 0 && c->qp_num == p->b->qp->qp_num);
	CHECK(a->context == &ctx_a && a->channel == p->cha && a->ps == RDMA_PS_TCP &&
	      a->qp_type == IBV_QPT_RC);
	CHECK(a->verbs == p->lis->verbs && a->pd == p->lis->pd && a->qp == NULL);
	CHECK(sa_is(rdma_get_local_addr(a), ADDR_A, 7301));
	CHECK(sa_is(rdma_get_peer_addr(a), ADDR_B, ntohs(rdma_get_src_port(p->b))));
	CHECK(gid_is(&a->route.addr.addr.ibaddr.sgid, ADDR_A));
	CHECK(gid_is(&a->route.addr.addr.ibaddr.dgid, ADDR_B));
}

/* B's ESTABLISHED: A's REP as B sees it. */
static void rc_check_established(struct pair *p, struct rc_bufs *m, const uint8_t *rep)
{
	struct rdma_cm_event *ev = EXPECT(p->chb, RDMA_CM_EVENT_ESTABLISHED, p->b);
	const struct rdma_conn_param *c;
	struct ibv_qp_attr qa;

	if (!ev)
		return;
	c = &ev->param.conn;
	CHECK(ev->status == 0 && ev->listen_id == NULL);
	CHECK(c->private_data_len == 196 && c->private_data &&
	      memcmp(c->private_data, rep, 196) == 0);
	CHECK(c->responder_resources == 3 && c->initiator_depth == 1); /* A's, swapped */
	CHECK(c->rnr_retry_count == 4 && c->srq == 0);
	CHECK(c->flow_control == 1);
	CHECK(c->qp_num == p->a->qp->qp_num);
	if (c->private_data) {
		memcpy(&m->raddr, c->private_data, 8);
		memcpy(&m->rkey, (const uint8_t *)c->private_data + 8, 4);
	}
	rdma_ack_cm_event(ev);
	/* librdmacm took the QP to RTS with what the REP grants */
	CHECK(qp_state(p->b->qp, &qa) == IBV_QPS_RTS);
	CHECK(qa.max_dest_rd_atomic == 3 && qa.max_rd_atomic == 1);
	CHECK(qa.dest_qp_num == p->a->qp->qp_num);
}

static bool rc_connect(struct pair *p, struct rc_bufs *m)
{
	uint8_t req[56], got[56], rep[196];
	struct rdma_conn_param cp, ap, c;
	struct ibv_qp_init_attr q = qp_attr(IBV_QPT_RC);
	struct ibv_qp_attr qa;
	uint64_t addr;

	fill(req, sizeof(req), 1);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = req;
	cp.private_data_len = sizeof(req);
	cp.responder_resources = 3;
	cp.initiator_depth = 2;
	cp.flow_control = 1;
	cp.retry_count = 6;
	cp.rnr_retry_count = 5;
	if (!CHECK(rdma_connect(p->b, &cp) == 0) || !pair_request(p, &c, got, sizeof(got)))
		return false;
	rc_check_request(p, &c, got, req);
	if (!CHECK(rdma_create_qp(p->a, NULL, &q) == 0))
		return false;
	m->mra = ibv_reg_mr(p->a->pd, m->a, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!CHECK(m->mra) || !CHECK(rdma_post_recv(p->a, NULL, m->a + 2048, 64, m->mra) == 0))
		return false;
	/* the REP: A's buffer and rkey first, for B's WRITE */
	fill(rep, sizeof(rep), 2);
	addr = (uintptr_t)m->a;
	memcpy(rep, &addr, 8);
	memcpy(rep + 8, &m->mra->rkey, 4);
	memset(&ap, 0, sizeof(ap));
	ap.private_data = rep;
	ap.private_data_len = sizeof(rep);
	ap.responder_resources = 1;
	ap.initiator_depth = 3;
	ap.flow_control = 1;
	ap.rnr_retry_count = 4;
	if (!CHECK(rdma_accept(p->a, &ap) == 0))
		return false;
	/* librdmacm moves the QP through RTR to RTS before the REP goes */
	CHECK(qp_state(p->a->qp, &qa) == IBV_QPS_RTS);
	CHECK(qa.max_dest_rd_atomic == 1 && qa.max_rd_atomic == 3);
	CHECK(qa.dest_qp_num == p->b->qp->qp_num);
	rc_check_established(p, m, rep);
	if (!EXPECT_OK(p->cha, RDMA_CM_EVENT_ESTABLISHED, p->a))
		return false;
	errno = 0;
	CHECK(rdma_establish(p->b) == -1 && errno == EINVAL); /* B has a QP */
	return true;
}

static void rc_data(struct pair *p, struct rc_bufs *m)
{
	struct ibv_wc wc;

	fill(m->b, 4096, 3);
	m->mrb = ibv_reg_mr(p->b->pd, m->b, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!CHECK(m->mrb))
		return;
	CHECK(rdma_post_write(p->b, NULL, m->b, 128, m->mrb, IBV_SEND_SIGNALED, m->raddr + 100,
			      m->rkey) == 0);
	CHECK(wait_wc(p->b->send_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_RDMA_WRITE);
	CHECK(memcmp(m->a + 100, m->b, 128) == 0 && m->a[99] == 0 && m->a[228] == 0);
	CHECK(rdma_post_send(p->b, NULL, m->b + 512, 64, m->mrb, IBV_SEND_SIGNALED) == 0);
	CHECK(wait_wc(p->b->send_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_SEND);
	CHECK(wait_wc(p->a->recv_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_RECV && wc.byte_len == 64);
	CHECK(memcmp(m->a + 2048, m->b + 512, 64) == 0);
}

static void rc_disconnect(struct pair *p)
{
	struct ibv_qp_attr qa;

	CHECK(rdma_disconnect(p->b) == 0);
	CHECK(qp_state(p->b->qp, &qa) == IBV_QPS_ERR);
	if (!EXPECT_OK(p->cha, RDMA_CM_EVENT_DISCONNECTED, p->a))
		return;
	/* DISCONNECTED leaves A's QP to the program (rdma-core moves it only
	 * in rdma_disconnect()) */
	CHECK(qp_state(p->a->qp, &qa) == IBV_QPS_RTS);
	CHECK(rdma_disconnect(p->a) == 0); /* the DREP */
	CHECK(qp_state(p->a->qp, &qa) == IBV_QPS_ERR);
	if (!EXPECT_OK(p->chb, RDMA_CM_EVENT_DISCONNECTED, p->b))
		return;
	/* both IDs kept: each leaves TIMEWAIT with an event */
	EXPECT_OK(p->chb, RDMA_CM_EVENT_TIMEWAIT_EXIT, p->b);
	EXPECT_OK(p->cha, RDMA_CM_EVENT_TIMEWAIT_EXIT, p->a);
	CHECK(quiet(p->cha, 100) && quiet(p->chb, 0));
}

static void case_async_rc(void)
{
	struct pair p;
	struct rc_bufs m;

	begin("1 async RC", 30);
	memset(&m, 0, sizeof(m));
	m.a = calloc(1, 4096);
	m.b = calloc(1, 4096);
	if (pair_listen(&p, RDMA_PS_TCP, 7301)) {
		CHECK(rdma_get_src_port(p.lis) == htons(7301) && p.lis->verbs && p.lis->pd);
		if (rc_resolve(&p, 7301) && rc_connect(&p, &m)) {
			CHECK(rdma_get_src_port(p.b) != 0 &&
			      rdma_get_src_port(p.b) == rdma_get_dst_port(p.a));
			CHECK(rdma_get_dst_port(p.b) == htons(7301) &&
			      rdma_get_src_port(p.a) == htons(7301));
			rc_data(&p, &m);
			rc_disconnect(&p);
		}
	}
	if (p.a && p.a->qp)
		rdma_destroy_qp(p.a);
	if (p.b && p.b->qp)
		rdma_destroy_qp(p.b);
	if (m.mra)
		CHECK(ibv_dereg_mr(m.mra) == 0);
	if (m.mrb)
		CHECK(ibv_dereg_mr(m.mrb) == 0);
	pair_free(&p);
	free(m.a);
	free(m.b);
}

/* ------------------------------------------------------------------------ */
/* 2. synchronous endpoints */

struct sync_srv {
	struct rdma_cm_id *listen, *id;
	uint8_t buf[128];
};

static void *sync_server(void *arg)
{
	struct sync_srv *s = arg;
	struct rdma_cm_id *id = NULL;
	struct ibv_mr *mr;
	struct ibv_wc wc;

	if (!CHECK(rdma_get_request(s->listen, &id) == 0) || !id)
		return NULL;
	s->id = id;
	/* its QP from rdma_create_ep()'s attributes, its event kept, a
	 * channel of its own */
	CHECK(id->qp && id->qp->qp_type == IBV_QPT_RC && id->send_cq && id->recv_cq);
	CHECK(id->event && id->event->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
	      id->event->listen_id == s->listen && id->event->id == id);
	CHECK(id->channel && id->channel != s->listen->channel);
	mr = rdma_reg_msgs(id, s->buf, sizeof(s->buf));
	if (!CHECK(mr))
		return NULL;
	CHECK(rdma_post_recv(id, NULL, s->buf, 64, mr) == 0);
	CHECK(rdma_accept(id, NULL) == 0);
	CHECK(id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED);
	CHECK(rdma_get_recv_comp(id, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.byte_len == 32 && !memcmp(s->buf, "hello from B, synchronously....", 32));
	memcpy(s->buf + 64, "and back from A, synchronously.", 32);
	CHECK(rdma_post_send(id, NULL, s->buf + 64, 32, mr, 0) == 0);
	CHECK(rdma_get_send_comp(id, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
	CHECK(rdma_disconnect(id) == 0);
	CHECK(id->event && id->event->event == RDMA_CM_EVENT_DISCONNECTED);
	CHECK(rdma_dereg_mr(mr) == 0);
	return NULL;
}

static void case_sync(void)
{
	struct rdma_addrinfo hints, *res = NULL, *cres = NULL;
	struct ibv_qp_init_attr attr = qp_attr(IBV_QPT_RC);
	struct sockaddr_in src = sa(ADDR_B, 0);
	struct sync_srv s;
	struct rdma_cm_id *cli = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_wc wc;
	uint8_t buf[128];
	pthread_t t;

	begin("2 synchronous endpoints", 30);
	memset(&s, 0, sizeof(s));
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	if (!CHECK(rdma_getaddrinfo(ADDR_A, "7302", &hints, &res) == 0) || !res)
		return;
	CHECK(res->ai_family == AF_INET && res->ai_qp_type == IBV_QPT_RC &&
	      res->ai_port_space == RDMA_PS_TCP && (res->ai_flags & RAI_PASSIVE));
	CHECK(res->ai_src_addr && res->ai_src_len == sizeof(struct sockaddr_in) &&
	      sa_is(res->ai_src_addr, ADDR_A, 7302) && !res->ai_dst_addr);
	attr.sq_sig_all = 1;
	if (!CHECK(rdma_create_ep(&s.listen, res, NULL, &attr) == 0))
		goto out;
	CHECK(s.listen->channel && s.listen->qp == NULL && s.listen->verbs);
	if (!CHECK(rdma_listen(s.listen, 2) == 0) ||
	    !CHECK(pthread_create(&t, NULL, sync_server, &s) == 0))
		goto out;
	/* the active side: the destination from rdma_getaddrinfo(), B as source */
	hints.ai_flags = 0;
	hints.ai_src_addr = (struct sockaddr *)&src;
	hints.ai_src_len = sizeof(src);
	CHECK(rdma_getaddrinfo(ADDR_A, "7302", &hints, &cres) == 0 && cres && cres->ai_dst_addr &&
	      sa_is(cres->ai_dst_addr, ADDR_A, 7302) && cres->ai_src_addr &&
	      cres->ai_src_len == sizeof(src) && !memcmp(cres->ai_src_addr, &src, sizeof(src)));
	if (cres && CHECK(rdma_create_ep(&cli, cres, NULL, &attr) == 0)) {
		CHECK(cli->qp && cli->event && cli->event->event == RDMA_CM_EVENT_ROUTE_RESOLVED);
		CHECK(sa_is(rdma_get_local_addr(cli), ADDR_B, 0));
		mr = rdma_reg_msgs(cli, buf, sizeof(buf));
		CHECK(mr && rdma_post_recv(cli, NULL, buf + 64, 64, mr) == 0);
		CHECK(rdma_connect(cli, NULL) == 0);
		CHECK(cli->event && cli->event->event == RDMA_CM_EVENT_ESTABLISHED &&
		      cli->event->param.conn.private_data_len == 196);
		memcpy(buf, "hello from B, synchronously....", 32);
		CHECK(rdma_post_send(cli, NULL, buf, 32, mr, 0) == 0);
		CHECK(rdma_get_send_comp(cli, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
		CHECK(rdma_get_recv_comp(cli, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
		      wc.byte_len == 32 &&
		      !memcmp(buf + 64, "and back from A, synchronously.", 32));
		CHECK(rdma_disconnect(cli) == 0);
		CHECK(cli->event && cli->event->event == RDMA_CM_EVENT_DISCONNECTED);
	}
	CHECK(pthread_join(t, NULL) == 0);
	if (mr)
		CHECK(rdma_dereg_mr(mr) == 0);
	if (cli)
		rdma_destroy_ep(cli);
	if (s.id)
		rdma_destroy_ep(s.id);
out:
	if (s.listen)
		rdma_destroy_ep(s.listen);
	rdma_freeaddrinfo(cres);
	rdma_freeaddrinfo(res);
}

int main(void)
{
	int n = 0;
	struct ibv_context **l = rdma_get_devices(&n);

	setvbuf(stdout, NULL, _IOLBF, 0);
	watchdog_init();
	CHECK(l && n == 2);
	if (!l || n != 2) {
		fprintf(stderr, "rdmacm_api: needs WQE_IBV_LOCAL=%s,%s and the drop-ins\n", ADDR_A,
			ADDR_B);
		return 1;
	}
	rdma_free_devices(l);
	case_async_rc();
	case_sync();
	case_reject();
	case_ud();
	case_no_qp();
	case_misuse();
	case_destroy_migrate();
	case_threads();
	alarm(0);
	printf("%d passed, %d failed\n", checks_run() - checks_failed(), checks_failed());
	return checks_failed() ? 1 : 0;
}
