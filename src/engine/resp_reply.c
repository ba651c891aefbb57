/* SPDX-License-Identifier: MIT */
/*
 * The frames the responder sends back to the requester: ACKNOWLEDGE (ACK,
 * RNR NAK, NAK), ATOMIC_ACKNOWLEDGE and RDMA READ responses. They travel
 * the QP's path in reverse: source = this port's GID at the QP's sgid
 * index and its MAC, destination = the QP's address vector, UDP source
 * port, traffic class and hop limit from it, IPv4 DF (rxe_net.c), BTH
 * destination = the peer QP, P_Key from the QP's P_Key index. A READ
 * response's payload is copied once, from the region straight into the
 * frame (wqe_pkt_build_hdrs() then wqe_pkt_build_finish()).
 */
#include <assert.h>
#include <string.h>

#include "common/bytes.h"
#include "engine/resp_int.h"

/* The headers of a response of @c's QP: its path in reverse (this port's
 * GID at the QP's sgid index and its MAC; the QP's address vector), the
 * peer QP and the P_Key, @opcode, @psn, and an AETH with @syndrome and the
 * current MSN. */
static void reply_hdrs(const struct resp_ctx *c, struct wqe_pkt *p, uint8_t opcode, uint32_t psn,
		       uint8_t syndrome)
{
	const struct nic *n = c->n;
	const struct qpc *q = c->q;

	memset(p, 0, sizeof(*p));
	memcpy(p->dmac, q->av.dmac, 6);
	memcpy(p->smac, n->port.mac, 6);
	p->src = *nic_port_gid(n, q->av.sgid_index);
	p->dst = q->av.dgid;
	p->ipver = wqe_gid_is_v4(&p->src) ? 4 : 6;
	p->tos = q->av.tclass;
	p->ttl = q->av.hop_limit ? q->av.hop_limit : 64;
	p->flow_label = p->ipver == 6 ? q->av.flow_label & 0xfffffu : 0;
	p->ip_id = c->r->ip_id;
	p->ip_flags = 2; /* DF */
	p->sport = q->av.udp_sport;
	p->dport = WQE_ROCEV2_PORT;
	p->bth.opcode = opcode;
	p->bth.pkey = nic_qp_pkey(n, q);
	p->bth.destqp = q->dest_qpn & 0xffffffu;
	p->bth.psn = psn & PSN_MASK;
	p->aeth.syndrome = syndrome;
	p->aeth.msn = c->r->msn;
}

/* Hands the frame to the NIC as this QP's. */
static void reply_send(struct resp_ctx *c, const uint8_t *frame, size_t len)
{
	c->r->ip_id++;
	c->n->tx_qpn = c->q->qpn;
	c->n->tx_counter = 0;
	nic_xmit(c->n, frame, len);
	c->n->tx_qpn = 0;
}

/* Builds the frame with @len payload bytes from @payload and sends it. */
static void reply_xmit(struct resp_ctx *c, const struct wqe_pkt *p, const uint8_t *payload,
		       uint32_t len)
{
	uint8_t buf[NIC_FRAME_MAX];
	struct wqe_pkt_layout lay;

	/* A local buffer: the requester may be using n->frame when a
	 * loopback link delivers to this NIC from inside nic_xmit(). */
	if (wqe_pkt_build_hdrs(p, len, buf, sizeof(buf), &lay))
		return;
	if (len)
		memcpy(buf + lay.payload_off, payload, len);
	wqe_pkt_build_finish(buf, &lay);
	reply_send(c, buf, lay.frame_len);
}

/* Builds @c's ACK template from the QP's path; false if the frame cannot
 * be built (it always can: an ACK on an IPv4 or IPv6 path). */
static bool ack_template(struct resp_ctx *c, struct resp_ack_tmpl *t)
{
	uint8_t buf[RESP_ACK_TMPL_MAX + WQE_ICRC_LEN];
	struct wqe_pkt_layout lay;
	struct wqe_pkt p;

	t->len = 0;
	reply_hdrs(c, &p, WQE_WIRE_RC_ACKNOWLEDGE, 0, 0);
	p.ip_id = 0;
	p.aeth.msn = 0;
	if (wqe_pkt_build_hdrs(&p, 0, buf, sizeof(buf), &lay))
		return false;
	assert(lay.icrc_off <= RESP_ACK_TMPL_MAX);
	memcpy(t->frame, buf, lay.icrc_off);
	t->len = (uint8_t)lay.icrc_off;
	t->ipver = lay.ipver;
	t->l3_off = (uint8_t)lay.l3_off;
	t->bth_off = (uint8_t)lay.bth_off;
	return true;
}

/*
 * The template's IPv4 header checksum with identification @id where the
 * template has 0: adding a word to the header adds it to the one's
 * complement sum (RFC 1624 eqn. 3 with m = 0), so no re-sum is needed.
 */
static uint16_t csum_with_id(uint16_t csum, uint16_t id)
{
	uint32_t s = (uint32_t)(uint16_t)~csum + id;

	s = (s & 0xffffu) + (s >> 16);
	return (uint16_t)~s;
}

/* The ACK from the QP's template: the bytes the generic build would give. */
static void send_ack_tmpl(struct resp_ctx *c, const struct resp_ack_tmpl *t, uint8_t syndrome,
			  uint32_t psn)
{
	uint8_t buf[RESP_ACK_TMPL_MAX + WQE_ICRC_LEN];
	uint8_t *l3 = buf + t->l3_off, *bth = buf + t->bth_off;

	/* all of it: a constant-size copy is a few moves, not a call; the
	 * bytes past len are the ICRC's place or not sent */
	memcpy(buf, t->frame, sizeof(t->frame));
	if (t->ipver == 4) {
		put_be16(l3 + 4, c->r->ip_id);
		put_be16(l3 + 10, csum_with_id(get_be16(l3 + 10), c->r->ip_id));
	}
	put_be24(bth + 9, psn & PSN_MASK);
	bth[WQE_BTH_LEN] = syndrome; /* AETH */
	put_be24(bth + WQE_BTH_LEN + 1, c->r->msn);
	put_le32(buf + t->len, wqe_icrc_inplace(l3, t->len - t->l3_off, t->ipver));
	reply_send(c, buf, (size_t)t->len + WQE_ICRC_LEN);
}

static void count_ack(struct resp_stats *st, uint8_t syndrome)
{
	switch (wqe_aeth_type(syndrome)) {
	case WQE_AETH_TYPE_ACK:
		st->acks++;
		break;
	case WQE_AETH_TYPE_RNR_NAK:
		st->rnr_naks++;
		break;
	case WQE_AETH_TYPE_NAK:
		if (wqe_aeth_value(syndrome) < RESP_NAK_COUNT)
			st->naks[wqe_aeth_value(syndrome)]++;
		break;
	default:
		break;
	}
}

static void send_ack(struct resp_ctx *c, uint8_t syndrome, uint32_t psn)
{
	struct resp_ack_tmpl *t = &c->r->ack;

	/* The template stays valid until the QP is modified: nothing else
	 * changes its path (resp_modified()). */
	if (t->len || ack_template(c, t))
		send_ack_tmpl(c, t, syndrome, psn);
	count_ack(&c->r->stats, syndrome);
}

/* The ACK @c's QP owes goes before anything else it sends. */
static void ack_due_first(struct resp_ctx *c)
{
	if (c->r->ack_due) {
		c->r->ack_due = false;
		send_ack(c, WQE_AETH_ACK_UNLIMITED, c->r->ack_due_psn);
	}
}

void resp_ack_owed(struct resp_ctx *c)
{
	ack_due_first(c);
}

void resp_ack_later(struct nic *n, struct qpc *q, uint32_t psn)
{
	struct eng_resp *r = &q->eng->resp;

	if (!r->ack_due) {
		r->ack_due = true;
		r->ack_next = n->ack_due;
		n->ack_due = q;
	}
	r->ack_due_psn = psn & PSN_MASK;
}

void resp_ack_flush(struct nic *n)
{
	struct qpc *q;

	while ((q = n->ack_due)) {
		struct resp_ctx c = {.n = n, .q = q, .r = &q->eng->resp};

		n->ack_due = c.r->ack_next;
		c.r->ack_next = NULL;
		/* A QP that left the states that answer owes nothing. */
		if (nic_qp_receives(q))
			ack_due_first(&c);
		c.r->ack_due = false;
	}
}

void resp_send_ack(struct resp_ctx *c, uint8_t syndrome, uint32_t psn)
{
	ack_due_first(c);
	send_ack(c, syndrome, psn);
}

void resp_send_atomic_ack(struct resp_ctx *c)
{
	struct wqe_pkt p;

	ack_due_first(c);
	reply_hdrs(c, &p, WQE_WIRE_RC_ATOMIC_ACKNOWLEDGE, c->p->bth.psn,
		   WQE_AETH_ACK_UNLIMITED);
	p.atomicacketh.orig = c->res->orig;
	reply_xmit(c, &p, NULL, 0);
	c->r->stats.atomic_acks++;
}

/* FIRST/ONLY only when answering from the request's first PSN; a replay
 * from inside the range continues with MIDDLE/LAST (rxe read_reply()). */
static uint8_t read_opcode(bool first, bool last)
{
	if (first)
		return last ? WQE_WIRE_RC_RDMA_READ_RESPONSE_ONLY : WQE_WIRE_RC_RDMA_READ_RESPONSE_FIRST;
	return last ? WQE_WIRE_RC_RDMA_READ_RESPONSE_LAST : WQE_WIRE_RC_RDMA_READ_RESPONSE_MIDDLE;
}

/*
 * RDMA READ responses: path-MTU payloads, one PSN each from the request's
 * PSN, AETH (ACK, MSN) on FIRST, LAST and ONLY; a zero-length READ gets
 * one ONLY without payload. The rkey is checked again for every packet, so
 * a replay after the region went away is an access error.
 */
bool resp_send_read(struct resp_ctx *c)
{
	const struct resp_res *res = c->res;
	uint32_t mtu = resp_mtu(c->q), left = c->rd_len, psn = c->rd_psn;
	uint64_t va = c->rd_va;
	bool first = psn == res->first_psn;

	ack_due_first(c);
	do {
		uint32_t pl = left < mtu ? left : mtu;
		uint8_t *host = NULL;
		struct wqe_pkt p;

		if (pl && keys_check(&c->n->keys, res->rkey, true, c->q->pd, va, pl,
				     WQE_ACCESS_REMOTE_READ, &host) != KEY_OK)
			return false;
		reply_hdrs(c, &p, read_opcode(first, left <= mtu), psn, WQE_AETH_ACK_UNLIMITED);
		reply_xmit(c, &p, host, pl);
		c->r->stats.read_responses++;
		c->r->stats.bytes_read += pl;
		va += pl;
		left -= pl;
		psn = psn_add(psn, 1);
		first = false;
	} while (left);
	return true;
}
