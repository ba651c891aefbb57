/* SPDX-License-Identifier: MIT */
#include "cm_net.h"

#include <stdlib.h>
#include <string.h>

#include "test_gid.h"

void net_gid(union wqe_gid *g, int i)
{
	test_gid_v4(g, 10, 0, 0, (uint8_t)(i + 1));
}

static struct node *node_of(void *ctx)
{
	return ctx;
}

static int gid_node(const struct net *n, const union wqe_gid *g)
{
	for (int i = 0; i < n->nnodes; i++)
		if (memcmp(n->nodes[i].gid.raw, g->raw, 16) == 0)
			return i;
	return -1;
}

static void enqueue(struct net *n, int dst, const struct wqe_cm_addr *from, const uint8_t *mad)
{
	struct net_pkt *p;

	if (n->nq == NET_QUEUE)
		return;
	p = &n->q[n->nq++];
	p->dst = dst;
	p->from = *from;
	p->at = n->now + n->delay_ns + (n->jitter_ns ? test_rng_next(&n->rng) % n->jitter_ns : 0);
	memcpy(p->mad, mad, WQE_MAD_LEN);
}

static int cb_send(void *ctx, const struct wqe_cm_addr *to, const uint8_t *mad)
{
	struct node *me = node_of(ctx);
	struct net *n = me->net;
	struct wqe_cm_addr from = {.gid = me->gid, .qpn = 1, .pkey = to->pkey};
	int dst = gid_node(n, &to->gid);

	CHECK_EQ(to->qpn, 1);
	if (n->nsent < NET_LOG) {
		struct net_sent *s = &n->sent[n->nsent++];

		s->node = me->idx;
		s->at = n->now;
		CHECK_EQ(wqe_cm_decode(mad, WQE_MAD_LEN, &s->msg, NULL), 0);
		s->attr = s->msg.hdr.attr_id;
	}
	if (dst < 0 || n->hold || n->drop_to[dst])
		return 0;
	if (n->drop_pct && test_rng_next(&n->rng) % 100 < n->drop_pct) {
		n->dropped++;
		return 0;
	}
	enqueue(n, dst, &from, mad);
	if (n->dup_pct && test_rng_next(&n->rng) % 100 < n->dup_pct) {
		n->duplicated++;
		enqueue(n, dst, &from, mad);
	}
	return 0;
}

static void pdata_of(const struct wqe_cm_msg *m, uint8_t *out)
{
	const uint8_t *p = NULL;

	if (!m)
		return;
	switch (m->hdr.attr_id) {
	case WQE_CM_ATTR_REQ:
		p = m->u.req.private_data;
		break;
	case WQE_CM_ATTR_REP:
		p = m->u.rep.private_data;
		break;
	case WQE_CM_ATTR_REJ:
		p = m->u.rej.private_data;
		break;
	case WQE_CM_ATTR_MRA:
		p = m->u.mra.private_data;
		break;
	case WQE_CM_ATTR_RTU:
		p = m->u.rtu.private_data;
		break;
	case WQE_CM_ATTR_DREQ:
		p = m->u.dreq.private_data;
		break;
	case WQE_CM_ATTR_DREP:
		p = m->u.drep.private_data;
		break;
	case WQE_CM_ATTR_SIDR_REQ:
		p = m->u.sidr_req.private_data;
		break;
	case WQE_CM_ATTR_SIDR_REP:
		p = m->u.sidr_rep.private_data;
		break;
	default:
		break;
	}
	if (p)
		memcpy(out, p, 8);
}

static void cb_event(void *ctx, const struct wqe_cm_event *ev)
{
	struct node *me = node_of(ctx);
	struct net *n = me->net;

	if (n->nev < NET_LOG) {
		struct net_event *e = &n->ev[n->nev++];

		e->node = me->idx;
		e->type = ev->type;
		e->id = ev->id;
		e->reason = ev->reason;
		e->at = n->now;
		pdata_of(ev->msg, e->pdata);
	}
	switch (ev->type) {
	case WQE_CM_EV_REQ_RECEIVED:
		me->last_new = ev->id;
		if (me->au.mra)
			CHECK_EQ(wqe_cm_mra(ev->id, (uint8_t)(me->au.mra - 1), NULL, 0), 0);
		if (me->au.reject)
			CHECK_EQ(wqe_cm_reject(ev->id, (uint16_t)me->au.reject, NULL, 0, "nope", 4),
				 0);
		else if (me->au.accept)
			CHECK_EQ(wqe_cm_accept(ev->id, &me->au.accept_param), 0);
		break;
	case WQE_CM_EV_SIDR_REQ_RECEIVED:
		me->last_new = ev->id;
		if (me->au.sidr) {
			CHECK_EQ(
			    wqe_cm_sidr_rep(ev->id, WQE_CM_SIDR_SUCCESS, 0x111, 0x2222, "ud", 2),
			    0);
			if (me->au.destroy)
				CHECK_EQ(wqe_cm_destroy_id(ev->id), 0);
		}
		break;
	case WQE_CM_EV_DREQ_RECEIVED:
		if (me->au.drep)
			CHECK_EQ(wqe_cm_drep(ev->id, NULL, 0), 0);
		break;
	case WQE_CM_EV_TIMEWAIT_EXIT:
	case WQE_CM_EV_REQ_ERROR:
	case WQE_CM_EV_REP_ERROR:
	case WQE_CM_EV_SIDR_REQ_ERROR:
	case WQE_CM_EV_SIDR_REP_RECEIVED:
		if (me->au.destroy)
			CHECK_EQ(wqe_cm_destroy_id(ev->id), 0);
		break;
	case WQE_CM_EV_REJ_RECEIVED:
		if (me->au.destroy && wqe_cm_id_state(ev->id) == WQE_CM_IDLE)
			CHECK_EQ(wqe_cm_destroy_id(ev->id), 0);
		break;
	default:
		break;
	}
}

static uint64_t cb_now(void *ctx)
{
	return node_of(ctx)->net->now;
}

static uint32_t cb_random(void *ctx)
{
	return (uint32_t)(test_rng_next(&node_of(ctx)->net->rng) >> 16);
}

void net_init(struct net *n, int nodes, uint64_t seed, const struct wqe_cm_agent_attr *attr)
{
	static const struct wqe_cm_agent_ops ops = {
	    .send = cb_send, .event = cb_event, .now_ns = cb_now, .random = cb_random};

	memset(n, 0, sizeof(*n));
	n->now = 1000000;
	n->delay_ns = 1000;
	test_rng_seed(&n->rng, seed);
	n->nnodes = nodes;
	for (int i = 0; i < nodes; i++) {
		struct node *d = &n->nodes[i];
		struct wqe_cm_agent_attr a;

		memset(&a, 0, sizeof(a));
		if (attr)
			a = *attr;
		d->net = n;
		d->idx = i;
		net_gid(&d->gid, i);
		a.local_gid = d->gid;
		a.ca_guid = 0x0002c90300000000ull + (unsigned)i;
		d->agent = wqe_cm_agent_create(&a, &ops, d);
		CHECK(d->agent != NULL);
		d->au.accept_param.local_qpn = 0x200 + (unsigned)i;
		d->au.accept_param.starting_psn = 0x2000 + (unsigned)i;
		d->au.accept_param.responder_resources = 4;
		d->au.accept_param.initiator_depth = 4;
		d->au.accept_param.rnr_retry_count = 7;
		d->au.accept_param.min_rnr_timer = 12;
		d->au.accept_param.e2e_flow_control = 1;
	}
}

void net_fini(struct net *n)
{
	for (int i = 0; i < n->nnodes; i++)
		wqe_cm_agent_destroy(n->nodes[i].agent);
}

struct wqe_cm_addr net_addr(const struct net *n, int i)
{
	struct wqe_cm_addr a = {.gid = n->nodes[i].gid, .qpn = 1, .pkey = 0xffff};

	return a;
}

/* Deliver one due packet (the earliest; ties in queue order). */
static int deliver_one(struct net *n)
{
	int best = -1;
	struct net_pkt p;

	for (int i = 0; i < n->nq; i++)
		if (n->q[i].at <= n->now && (best < 0 || n->q[i].at < n->q[best].at))
			best = i;
	if (best < 0)
		return 0;
	p = n->q[best];
	memmove(&n->q[best], &n->q[best + 1], (size_t)(n->nq - best - 1) * sizeof(p));
	n->nq--;
	n->delivered++;
	(void)wqe_cm_agent_receive(n->nodes[p.dst].agent, &p.from, p.mad, WQE_MAD_LEN);
	return 1;
}

static uint64_t next_time(const struct net *n)
{
	uint64_t t = UINT64_MAX;

	for (int i = 0; i < n->nq; i++)
		if (n->q[i].at < t)
			t = n->q[i].at;
	for (int i = 0; i < n->nnodes; i++) {
		uint64_t d = wqe_cm_agent_next_deadline(n->nodes[i].agent);

		if (d < t)
			t = d;
	}
	return t;
}

static void run_due(struct net *n)
{
	for (;;) {
		int did = deliver_one(n);

		for (int i = 0; i < n->nnodes; i++)
			if (wqe_cm_agent_next_deadline(n->nodes[i].agent) <= n->now)
				did += wqe_cm_agent_tick(n->nodes[i].agent);
		if (!did)
			return;
	}
}

uint64_t net_run(struct net *n, uint64_t max_ns)
{
	const uint64_t end = n->now + max_ns, before = n->delivered;

	for (;;) {
		uint64_t t;

		run_due(n);
		t = next_time(n);
		if (t == UINT64_MAX || t > end)
			break;
		if (t > n->now)
			n->now = t;
	}
	return n->delivered - before;
}

void net_advance(struct net *n, uint64_t ns)
{
	const uint64_t end = n->now + ns;

	for (;;) {
		uint64_t t;

		run_due(n);
		t = next_time(n);
		if (t > end)
			break;
		if (t > n->now)
			n->now = t;
	}
	n->now = end;
	run_due(n);
}

int net_count_ev(const struct net *n, int node, enum wqe_cm_event_type type)
{
	int c = 0;

	for (int i = 0; i < n->nev; i++)
		c += n->ev[i].node == node && n->ev[i].type == type;
	return c;
}

int net_find_ev(const struct net *n, int node, enum wqe_cm_event_type type, int k)
{
	for (int i = 0; i < n->nev; i++)
		if (n->ev[i].node == node && n->ev[i].type == type && k-- == 0)
			return i;
	return -1;
}

int net_count_sent(const struct net *n, int node, uint16_t attr)
{
	int c = 0;

	for (int i = 0; i < n->nsent; i++)
		c += n->sent[i].node == node && n->sent[i].attr == attr;
	return c;
}

const struct wqe_cm_msg *net_last_sent(const struct net *n, int node, uint16_t attr)
{
	for (int i = n->nsent - 1; i >= 0; i--)
		if (n->sent[i].node == node && n->sent[i].attr == attr)
			return &n->sent[i].msg;
	return NULL;
}

void net_conn_param(const struct net *n, int from, int to, uint64_t sid,
		    struct wqe_cm_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->peer = net_addr(n, to);
	p->service_id = sid;
	p->transport = WQE_CM_TRANSPORT_RC;
	p->local_qpn = 0x100 + (unsigned)from;
	p->starting_psn = 0x1000 + (unsigned)from;
	p->path_mtu = WQE_MTU_1024;
	p->hop_limit = 64;
	p->traffic_class = 0x10;
	p->flow_label = 0x12345;
	p->packet_life_time = 10;
	p->remote_cm_response_timeout = 16;
	p->local_cm_response_timeout = 16;
	p->max_cm_retries = 3;
	p->retry_count = 7;
	p->rnr_retry_count = 6;
	p->min_rnr_timer = 12;
	p->responder_resources = 8;
	p->initiator_depth = 8;
	p->e2e_flow_control = 1;
	p->private_data = "hello";
	p->private_data_len = 5;
}

int net_inject(struct net *n, int to, const union wqe_gid *gid, int from,
	       const struct wqe_cm_msg *m)
{
	uint8_t mad[WQE_MAD_LEN];
	struct wqe_cm_addr a = net_addr(n, from);

	if (gid)
		a.gid = *gid;
	CHECK_EQ(wqe_cm_encode(m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	return wqe_cm_agent_receive(n->nodes[to].agent, &a, mad, sizeof(mad));
}
