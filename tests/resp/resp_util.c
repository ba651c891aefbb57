/* SPDX-License-Identifier: MIT */
#include "resp_util.h"

#include <string.h>

#include "testutil.h"

static const uint8_t peer_mac[6] = {0x02, 0, 0, 0, 0, 0x02};

/* test_qp_to_rts(), with the expected PSN of our receive side set to @rq_psn. */
static void to_rts(struct wqe_qp *qp, enum wqe_qp_type type, enum wqe_mtu mtu, uint32_t rq_psn)
{
	static const enum wqe_qp_state steps[] = {WQE_QPS_INIT, WQE_QPS_RTR, WQE_QPS_RTS};

	if (rq_psn == RT_FIRST_PSN) {
		CHECK_EQ(test_qp_to_rts(qp, type, RT_PEER_QPN, mtu), 0);
		return;
	}
	for (size_t i = 0; i < 3; i++) {
		struct wqe_qp_attr a;
		int mask;

		test_qp_attr_for(type, steps[i], &a, &mask, RT_PEER_QPN, mtu);
		a.rq_psn = rq_psn;
		CHECK_EQ(wqe_modify_qp(qp, &a, mask), 0);
	}
}

void rt_open_attr(struct rt *t, const struct wqe_context_attr *attr, enum wqe_qp_type type,
		  enum wqe_mtu mtu, uint32_t max_recv_sge, uint32_t max_recv_wr, uint32_t rq_psn)
{
	struct wqe_qp_init_attr ia;

	memset(t, 0, sizeof(*t));
	t->type = type;
	t->mtu = mtu;
	t->ctx = wqe_open_context(attr);
	CHECK(t->ctx != NULL);
	t->sink = wqe_link_sink_create(4096);
	CHECK(t->sink != NULL);
	CHECK_EQ(wqe_context_attach_link(t->ctx, t->sink), 0);
	t->pd = wqe_alloc_pd(t->ctx);
	t->pd2 = wqe_alloc_pd(t->ctx);
	t->cq = wqe_create_cq(t->ctx, 256);
	CHECK(t->pd && t->pd2 && t->cq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = t->cq;
	ia.recv_cq = t->cq;
	ia.qp_type = type;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = max_recv_wr;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = max_recv_sge;
	t->qp = wqe_create_qp(t->pd, &ia);
	CHECK(t->qp != NULL);
	to_rts(t->qp, type, mtu, rq_psn);
}

void rt_open(struct rt *t, enum wqe_qp_type type, enum wqe_mtu mtu)
{
	rt_open_attr(t, NULL, type, mtu, 4, 16, RT_FIRST_PSN);
}

void rt_open_v6(struct rt *t, enum wqe_qp_type type, enum wqe_mtu mtu)
{
	rt_open_format(t, type, mtu, test_format(), true);
}

void rt_open_format(struct rt *t, enum wqe_qp_type type, enum wqe_mtu mtu, enum wqe_format fmt,
		    bool v6)
{
	struct wqe_context_attr ca;

	memset(&ca, 0, sizeof(ca));
	ca.format = fmt;
	ca.mac[0] = 0x02;
	ca.mac[5] = 0x01;
	if (v6) {
		ca.num_gids = 1;
		test_gid_v6(&ca.gid[0], RT_V6_OWN);
	}
	rt_open_attr(t, &ca, type, mtu, 4, 16, RT_FIRST_PSN);
	if (!v6)
		return;
	/* Connected again, with the peer's IPv6 GID. */
	t->v6 = true;
	rt_reconnect(t, WQE_QPS_RTS);
}

void rt_reconnect(struct rt *t, enum wqe_qp_state last)
{
	static const enum wqe_qp_state steps[] = {WQE_QPS_INIT, WQE_QPS_RTR, WQE_QPS_RTS};
	struct wqe_qp_attr r = {.qp_state = WQE_QPS_RESET};

	CHECK_EQ(wqe_modify_qp(t->qp, &r, WQE_QP_STATE), 0);
	for (size_t i = 0; i < 3; i++) {
		struct wqe_qp_attr a;
		int mask;

		test_qp_attr_for(t->type, steps[i], &a, &mask, RT_PEER_QPN, t->mtu);
		if (t->v6)
			test_gid_v6(&a.ah_attr.grh.dgid, RT_V6_PEER);
		CHECK_EQ(wqe_modify_qp(t->qp, &a, mask), 0);
		if (steps[i] == last)
			break;
	}
}

void rt_close(struct rt *t)
{
	CHECK_EQ(wqe_destroy_qp(t->qp), 0);
	CHECK_EQ(wqe_destroy_cq(t->cq), 0);
	CHECK_EQ(wqe_dealloc_pd(t->pd2), 0);
	CHECK_EQ(wqe_dealloc_pd(t->pd), 0);
	CHECK_EQ(wqe_context_attach_link(t->ctx, NULL), 0);
	CHECK_EQ(wqe_link_destroy(t->sink), 0);
	CHECK_EQ(wqe_close_context(t->ctx), 0);
}

struct qpc *rt_qpc(struct rt *t)
{
	return &t->qp->qpc;
}

struct eng_resp *rt_resp(struct rt *t)
{
	return &t->qp->qpc.eng->resp;
}

uint32_t rt_mtu_bytes(const struct rt *t)
{
	return t->type == WQE_QPT_UD ? 4096u : wqe_mtu_to_bytes(t->mtu);
}

void rt_req(const struct rt *t, struct wqe_pkt *p, uint8_t opcode, uint32_t psn)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->dmac, t->ctx->attr.mac, 6);
	memcpy(p->smac, peer_mac, 6);
	p->ipver = t->v6 ? 6 : 4;
	if (t->v6)
		test_gid_v6(&p->src, RT_V6_PEER);
	else
		test_gid_v4(&p->src, 192, 0, 2, 2);
	p->dst = t->ctx->attr.gid[0];
	p->ttl = 64;
	p->ip_flags = 2;
	p->ip_id = t->ip_id;
	p->sport = 0xc123;
	p->dport = WQE_ROCEV2_PORT;
	p->bth.opcode = opcode;
	p->bth.pkey = 0xffff;
	p->bth.destqp = wqe_qp_num(t->qp);
	p->bth.psn = psn & 0xffffff;
	p->deth.qkey = RT_QKEY;
	p->deth.srcqp = RT_PEER_QPN;
}

void rt_feed_raw(struct rt *t, const uint8_t *frame, size_t len)
{
	CHECK_EQ(wqe_context_receive(t->ctx, frame, len), 0);
}

void rt_feed(struct rt *t, const struct wqe_pkt *p, const void *payload, uint32_t len)
{
	static uint8_t buf[8192];
	size_t n = 0;

	CHECK_EQ(wqe_pkt_build(p, payload, len, buf, sizeof(buf), &n), 0);
	t->ip_id++;
	rt_feed_raw(t, buf, n);
}

static void pktz_qp(const struct rt *t, struct wqe_pktz_qp *q)
{
	memset(q, 0, sizeof(*q));
	q->type = t->type;
	q->qpn = RT_PEER_QPN;
	q->dest_qpn = wqe_qp_num(t->qp);
	q->mtu = t->type == WQE_QPT_UD ? WQE_MTU_4096 : t->mtu;
	q->pkey = 0xffff;
	q->qkey = RT_QKEY;
	memcpy(q->smac, peer_mac, 6);
	test_gid_v4(&q->sgid, 192, 0, 2, 2);
	memcpy(q->dmac, t->ctx->attr.mac, 6);
	q->dgid = t->ctx->attr.gid[0];
	q->udp_sport = 0xc123;
	q->hop_limit = 64;
}

uint32_t rt_msg(struct rt *t, struct wqe_desc *d, const uint8_t *payload, uint32_t psn,
		uint64_t skip_mask)
{
	static uint8_t buf[8192];
	struct wqe_pktz_qp q;
	struct wqe_pktz z;
	struct wqe_iov iov = {payload, (uint32_t)d->total_len};
	size_t len;
	uint32_t i = 0;

	pktz_qp(t, &q);
	if (t->type == WQE_QPT_UD) {
		d->ud.dqpn = wqe_qp_num(t->qp);
		d->ud.qkey = RT_QKEY;
		d->ud.dgid = t->ctx->attr.gid[0];
		memcpy(d->ud.dmac, t->ctx->attr.mac, 6);
		d->ud.udp_sport = 0xc123;
		d->ud.hop_limit = 64;
	}
	CHECK_EQ(wqe_pktz_init(&z, &q, d, psn, &iov, payload && d->total_len ? 1 : 0, t->ip_id),
		 0);
	while (wqe_pktz_next(&z, buf, sizeof(buf), &len, NULL) == 1) {
		if (i >= 64 || !(skip_mask >> i & 1))
			rt_feed_raw(t, buf, len);
		i++;
	}
	t->ip_id = z.ip_id;
	return z.npsn;
}

size_t rt_nresp(const struct rt *t)
{
	return wqe_link_sink_count(t->sink);
}

void rt_get(const struct rt *t, size_t i, struct wqe_pkt *out)
{
	const uint8_t *f = NULL;
	size_t len = 0;
	union wqe_gid peer;

	memset(out, 0, sizeof(*out));
	CHECK_EQ(wqe_link_sink_frame(t->sink, i, &f, &len), 0);
	if (!f)
		return;
	CHECK_EQ(wqe_pkt_parse(f, len, out), 0);
	test_gid_v4(&peer, 192, 0, 2, 2);
	CHECK(out->icrc_ok);
	CHECK(out->ip_csum_ok);
	CHECK_EQ(out->dport, WQE_ROCEV2_PORT);
	CHECK_EQ(out->sport, t->qp->qpc.av.udp_sport);
	CHECK_EQ(out->ip_flags, 2);
	CHECK_MEM(out->src.raw, t->ctx->attr.gid[0].raw, 16);
	CHECK_MEM(out->dst.raw, peer.raw, 16);
	CHECK_MEM(out->dmac, peer_mac, 6);
	CHECK_MEM(out->smac, t->ctx->attr.mac, 6);
	CHECK_EQ(out->bth.destqp, RT_PEER_QPN);
	CHECK_EQ(out->bth.pkey, 0xffff);
	CHECK_EQ(out->bth.tver, 0);
	CHECK_EQ(out->bth.ackreq, 0);
	CHECK_EQ(out->bth.padcnt, (4 - out->payload_len % 4) % 4);
}

void rt_clear(struct rt *t)
{
	wqe_link_sink_clear(t->sink);
}

void rt_check_ack(const struct rt *t, size_t i, uint8_t syndrome, uint32_t psn, uint32_t msn)
{
	struct wqe_pkt p;

	rt_get(t, i, &p);
	CHECK_EQ(p.bth.opcode, WQE_WIRE_RC_ACKNOWLEDGE);
	CHECK_EQ(p.aeth.syndrome, syndrome);
	CHECK_EQ(p.bth.psn, psn);
	CHECK_EQ(p.aeth.msn, msn);
	CHECK_EQ(p.payload_len, 0);
}

void rt_post_recv(struct rt *t, uint64_t wr_id, const struct wqe_sge *sg, int nsge)
{
	struct wqe_recv_wr r, *bad = NULL;

	memset(&r, 0, sizeof(r));
	r.wr_id = wr_id;
	r.sg_list = (struct wqe_sge *)(uintptr_t)sg;
	r.num_sge = nsge;
	CHECK_EQ(wqe_post_recv(t->qp, &r, &bad), 0);
}

int rt_poll(struct rt *t, struct wqe_wc *wc, int max)
{
	int n = wqe_poll_cq(t->cq, max, wc);

	CHECK(n >= 0);
	return n;
}

struct wqe_mr *rt_reg(struct wqe_pd *pd, void *buf, size_t len, unsigned access)
{
	struct wqe_mr *m = wqe_reg_mr(pd, buf, len, access);

	CHECK(m != NULL);
	return m;
}

size_t rt_canary_bad(const uint8_t *buf, size_t size, size_t off, size_t len, uint8_t canary)
{
	size_t bad = 0;

	for (size_t i = 0; i < size; i++)
		if ((i < off || i >= off + len) && buf[i] != canary)
			bad++;
	return bad;
}
