/* SPDX-License-Identifier: MIT */
/*
 * rdmacm_api's cases 3-5: rdma_reject() and a port nobody listens on; UD
 * over SIDR; an active ID with no QP (CONNECT_RESPONSE, rdma_establish()).
 */
#include <errno.h>
#include <rdma/rdma_verbs.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm_cases.h"
#include "rdmacm_util.h"

static void drop_b(struct pair *p)
{
	if (p->b->qp)
		rdma_destroy_qp(p->b);
	CHECK(rdma_destroy_id(p->b) == 0);
	p->b = NULL;
}

/* ------------------------------------------------------------------------ */
/* 3. reject */

/* A synchronous ID to a port nobody listens on: rdma_connect() is -1
 * ECONNREFUSED (ucma_complete()), the REJECTED event kept in id->event. */
static void reject_sync(void)
{
	struct sockaddr_in src = sa(ADDR_B, 0), dst = sa(ADDR_A, 7399);
	struct ibv_qp_init_attr q = qp_attr(IBV_QPT_RC);
	struct rdma_conn_param cp = conn_param(NULL, 0);
	struct rdma_cm_id *s;

	if (!CHECK(rdma_create_id(NULL, &s, NULL, RDMA_PS_TCP) == 0))
		return;
	CHECK(s->channel != NULL);
	if (CHECK(rdma_resolve_addr(s, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) ==
		  0) &&
	    CHECK(s->event && s->event->event == RDMA_CM_EVENT_ADDR_RESOLVED) &&
	    CHECK(rdma_resolve_route(s, 2000) == 0) && CHECK(rdma_create_qp(s, NULL, &q) == 0)) {
		errno = 0;
		CHECK(rdma_connect(s, &cp) == -1 && errno == ECONNREFUSED);
		CHECK(s->event && s->event->event == RDMA_CM_EVENT_REJECTED &&
		      s->event->status == 8);
	}
	if (s->qp)
		rdma_destroy_qp(s);
	CHECK(rdma_destroy_id(s) == 0);
}

void case_reject(void)
{
	static const uint8_t zero[148];
	struct rdma_conn_param cp = conn_param("reject me", 10);
	struct rdma_cm_event *ev;
	struct ibv_qp_attr qa;
	struct pair p;
	uint8_t why[20];

	begin("3 reject", 30);
	fill(why, sizeof(why), 4);
	if (pair_listen(&p, RDMA_PS_TCP, 7303) && pair_resolve(&p, RDMA_PS_TCP, 7303, IBV_QPT_RC) &&
	    CHECK(rdma_connect(p.b, &cp) == 0) && pair_request(&p, NULL, NULL, 0)) {
		CHECK(rdma_reject(p.a, why, sizeof(why)) == 0);
		ev = EXPECT(p.chb, RDMA_CM_EVENT_REJECTED, p.b);
		if (ev) {
			CHECK(ev->status == 28); /* IB_CM_REJ_CONSUMER_DEFINED */
			CHECK(
			    ev->param.conn.private_data_len == 148 && ev->param.conn.private_data &&
			    !memcmp(ev->param.conn.private_data, why, 20) &&
			    !memcmp((const uint8_t *)ev->param.conn.private_data + 20, zero, 128));
			rdma_ack_cm_event(ev);
		}
		CHECK(qp_state(p.b->qp, &qa) == IBV_QPS_ERR); /* librdmacm, on REJECTED */
		CHECK(rdma_destroy_id(p.a) == 0);
		p.a = NULL;
		CHECK(quiet(p.cha, 200) && quiet(p.chb, 0));
	}
	if (p.b)
		drop_b(&p);
	/* nobody listening: ib_cm's REJ Invalid Service ID */
	if (p.chb && pair_resolve(&p, RDMA_PS_TCP, 7399, IBV_QPT_RC) &&
	    CHECK(rdma_connect(p.b, &cp) == 0)) {
		ev = EXPECT(p.chb, RDMA_CM_EVENT_REJECTED, p.b);
		if (ev) {
			CHECK(ev->status == 8);
			rdma_ack_cm_event(ev);
		}
	}
	pair_free(&p);
	reject_sync();
}

/* ------------------------------------------------------------------------ */
/* 4. UD over SIDR */

/* B's ESTABLISHED: the SIDR_REP as param.ud (cma_sidr_rep_handler()). */
static bool ud_established(struct pair *p, const uint8_t *rep, struct rdma_ud_param *ud)
{
	struct rdma_cm_event *ev = EXPECT(p->chb, RDMA_CM_EVENT_ESTABLISHED, p->b);

	if (!ev)
		return false;
	*ud = ev->param.ud;
	CHECK(ev->status == 0);
	CHECK(ud->qp_num == p->a->qp->qp_num && ud->qkey == RDMA_UDP_QKEY);
	CHECK(ud->private_data_len == 136 && ud->private_data &&
	      !memcmp(ud->private_data, rep, 30));
	CHECK(ud->ah_attr.is_global && gid_is(&ud->ah_attr.grh.dgid, ADDR_A) &&
	      ud->ah_attr.port_num == 1);
	ud->private_data = NULL;
	rdma_ack_cm_event(ev);
	return true;
}

static void ud_datagram(struct pair *p, const struct rdma_ud_param *ud, uint8_t *abuf,
			uint8_t *bbuf)
{
	struct ibv_ah *ah = ibv_create_ah(p->b->pd, (struct ibv_ah_attr *)&ud->ah_attr);
	struct ibv_mr *mrb = ibv_reg_mr(p->b->pd, bbuf, 4096, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_wc wc;

	if (CHECK(ah && mrb)) {
		fill(bbuf, 48, 6);
		CHECK(rdma_post_ud_send(p->b, NULL, bbuf, 48, mrb, IBV_SEND_SIGNALED, ah,
					ud->qp_num) == 0);
		CHECK(wait_wc(p->b->send_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
		CHECK(wait_wc(p->a->recv_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
		      wc.opcode == IBV_WC_RECV && wc.byte_len == 40 + 48 &&
		      wc.src_qp == p->b->qp->qp_num && (wc.wc_flags & IBV_WC_GRH));
		CHECK(memcmp(abuf + 40, bbuf, 48) == 0);
	}
	if (ah)
		CHECK(ibv_destroy_ah(ah) == 0);
	if (mrb)
		CHECK(ibv_dereg_mr(mrb) == 0);
}

static void ud_request(struct pair *p, const uint8_t *req)
{
	struct rdma_cm_event *ev = EXPECT(p->cha, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);

	if (!ev)
		return;
	CHECK(ev->status == 0 && ev->listen_id == p->lis && ev->id != p->lis);
	/* a SIDR_REQ's 216 less the IP CM header's 36 */
	CHECK(ev->param.ud.private_data_len == 180 && ev->param.ud.private_data &&
	      !memcmp(ev->param.ud.private_data, req, 20));
	p->a = ev->id;
	rdma_ack_cm_event(ev);
	CHECK(p->a->qp_type == IBV_QPT_UD && p->a->ps == RDMA_PS_UDP);
	CHECK(sa_is(rdma_get_peer_addr(p->a), ADDR_B, ntohs(rdma_get_src_port(p->b))));
}

void case_ud(void)
{
	struct ibv_qp_init_attr q = qp_attr(IBV_QPT_UD);
	uint8_t req[20], rep[30], *abuf = calloc(1, 4096), *bbuf = calloc(1, 4096);
	struct rdma_conn_param cp = conn_param(req, sizeof(req)), ap = conn_param(rep, 30);
	struct ibv_mr *mra = NULL;
	struct rdma_ud_param ud;
	struct ibv_qp_attr qa;
	struct pair p;

	begin("4 UD over SIDR", 30);
	fill(req, sizeof(req), 5);
	fill(rep, sizeof(rep), 7);
	if (!pair_listen(&p, RDMA_PS_UDP, 7304) || !pair_resolve(&p, RDMA_PS_UDP, 7304, IBV_QPT_UD))
		goto out;
	/* a UD ID's QP is ready at once, with rdma_cm's Q_Key */
	CHECK(p.b->qp_type == IBV_QPT_UD && qp_state(p.b->qp, &qa) == IBV_QPS_RTS &&
	      qa.qkey == RDMA_UDP_QKEY);
	CHECK(rdma_connect(p.b, &cp) == 0);
	ud_request(&p, req);
	if (!p.a || !CHECK(rdma_create_qp(p.a, NULL, &q) == 0))
		goto out;
	CHECK(qp_state(p.a->qp, &qa) == IBV_QPS_RTS && qa.qkey == RDMA_UDP_QKEY);
	mra = ibv_reg_mr(p.a->pd, abuf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!CHECK(mra) || !CHECK(rdma_post_recv(p.a, NULL, abuf, 40 + 64, mra) == 0))
		goto out;
	CHECK(rdma_accept(p.a, &ap) == 0);
	if (ud_established(&p, rep, &ud)) {
		CHECK(quiet(p.cha, 100)); /* a SIDR exchange ends with no event on A */
		ud_datagram(&p, &ud, abuf, bbuf);
	}
out:
	pair_free(&p);
	if (mra)
		CHECK(ibv_dereg_mr(mra) == 0);
	free(abuf);
	free(bbuf);
}

/* ------------------------------------------------------------------------ */
/* 5. no QP on the active ID */

/* The program's own QP to RTS with rdma_init_qp_attr(), as the man page
 * has it for an ID without a QP. */
static bool move_qp(struct rdma_cm_id *id, struct ibv_qp *qp, uint32_t peer_qpn)
{
	static const enum ibv_qp_state steps[] = {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS};
	struct ibv_qp_attr a;
	int mask;

	for (size_t i = 0; i < 3; i++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = steps[i];
		if (!CHECK(rdma_init_qp_attr(id, &a, &mask) == 0) ||
		    !CHECK(ibv_modify_qp(qp, &a, mask) == 0))
			return false;
		if (steps[i] == IBV_QPS_RTR)
			CHECK((mask & IBV_QP_DEST_QPN) && a.dest_qp_num == peer_qpn);
	}
	return CHECK(qp_state(qp, &a) == IBV_QPS_RTS);
}

static void send_one(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *mr, uint8_t *buf,
		     uint32_t len)
{
	struct ibv_sge g = {(uintptr_t)buf, len, mr->lkey};
	struct ibv_send_wr w, *bad;
	struct ibv_wc wc;

	memset(&w, 0, sizeof(w));
	w.sg_list = &g;
	w.num_sge = 1;
	w.opcode = IBV_WR_SEND;
	w.send_flags = IBV_SEND_SIGNALED;
	CHECK(ibv_post_send(qp, &w, &bad) == 0);
	CHECK(wait_wc(cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
}

static void no_qp_connected(struct pair *p, struct ibv_qp *qp, struct ibv_cq *cq, uint8_t *abuf,
			    uint8_t *bbuf)
{
	struct ibv_mr *mrb = ibv_reg_mr(p->b->pd, bbuf, 4096, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_wc wc;

	if (CHECK(mrb)) {
		fill(bbuf, 100, 9);
		send_one(qp, cq, mrb, bbuf, 100);
		CHECK(wait_wc(p->a->recv_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
		      wc.byte_len == 100 && !memcmp(abuf, bbuf, 100));
		CHECK(ibv_dereg_mr(mrb) == 0);
	}
	CHECK(rdma_disconnect(p->b) == 0);
	if (EXPECT_OK(p->cha, RDMA_CM_EVENT_DISCONNECTED, p->a)) {
		CHECK(rdma_disconnect(p->a) == 0);
		EXPECT_OK(p->chb, RDMA_CM_EVENT_DISCONNECTED, p->b);
	}
}

static bool no_qp_response(struct pair *p, const uint8_t *rep)
{
	struct rdma_cm_event *ev = EXPECT(p->chb, RDMA_CM_EVENT_CONNECT_RESPONSE, p->b);

	if (!ev)
		return false;
	CHECK(ev->status == 0 && ev->param.conn.qp_num == p->a->qp->qp_num);
	CHECK(ev->param.conn.private_data_len == 196 && ev->param.conn.private_data &&
	      !memcmp(ev->param.conn.private_data, rep, 16));
	rdma_ack_cm_event(ev);
	return true;
}

void case_no_qp(void)
{
	struct ibv_qp_init_attr q = qp_attr(IBV_QPT_RC), qa = qp_attr(IBV_QPT_RC);
	uint8_t rep[16], *abuf = calloc(1, 4096), *bbuf = calloc(1, 4096);
	struct rdma_conn_param cp = conn_param(NULL, 0), ap = conn_param(rep, 16), c;
	struct ibv_mr *mra = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct pair p;

	begin("5 no QP on the active ID", 30);
	fill(rep, sizeof(rep), 8);
	if (!pair_listen(&p, RDMA_PS_TCP, 7305) || !pair_resolve(&p, RDMA_PS_TCP, 7305, 0))
		goto out;
	/* the program's QP, which librdmacm does not know */
	cq = ibv_create_cq(p.b->verbs, 16, NULL, NULL, 0);
	q.send_cq = q.recv_cq = cq;
	qp = cq ? ibv_create_qp(p.b->pd, &q) : NULL;
	if (!CHECK(cq && qp && p.b->qp == NULL))
		goto out;
	cp.qp_num = qp->qp_num;
	if (!CHECK(rdma_connect(p.b, &cp) == 0) || !pair_request(&p, &c, NULL, 0))
		goto out;
	CHECK(c.qp_num == qp->qp_num);
	mra = ibv_reg_mr(p.a->pd, abuf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!CHECK(mra && rdma_create_qp(p.a, NULL, &qa) == 0) ||
	    !CHECK(rdma_post_recv(p.a, NULL, abuf, 128, mra) == 0) ||
	    !CHECK(rdma_accept(p.a, &ap) == 0) || !no_qp_response(&p, rep))
		goto out;
	CHECK(quiet(p.cha, 200)); /* A hears nothing before the RTU */
	if (!move_qp(p.b, qp, p.a->qp->qp_num))
		goto out;
	CHECK(rdma_establish(p.b) == 0);
	if (EXPECT_OK(p.cha, RDMA_CM_EVENT_ESTABLISHED, p.a)) {
		CHECK(quiet(p.chb, 200)); /* rdma_establish() brings B no event */
		no_qp_connected(&p, qp, cq, abuf, bbuf);
	}
out:
	pair_free(&p);
	if (qp)
		CHECK(ibv_destroy_qp(qp) == 0);
	if (cq)
		CHECK(ibv_destroy_cq(cq) == 0);
	if (mra)
		CHECK(ibv_dereg_mr(mra) == 0);
	free(abuf);
	free(bbuf);
}
