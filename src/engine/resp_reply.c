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
#include <string.h>

#include "engine/resp_int.h"

static void reply_hdrs(const struct resp_ctx *c, struct wqe_pkt *p, uint8_t opcode, uint32_t psn,
		       uint8_t syndrome)
{
	const struct nic *n = c->n;
	const struct qpc *q = c->q;
	uint8_t gi = q->av.sgid_index < n->port.num_gids ? q->av.sgid_index : 0;
	uint16_t pi = q->pkey_index < n->port.num_pkeys ? q->pkey_index : 0;

	memset(p, 0, sizeof(*p));
	memcpy(p->dmac, q->av.dmac, 6);
	memcpy(p->smac, n->port.mac, 6);
	p->src = n->port.gid[gi];
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
	p->bth.pkey = n->port.pkey[pi];
	p->bth.destqp = q->dest_qpn & RESP_PSN_MASK;
	p->bth.psn = psn & RESP_PSN_MASK;
	p->aeth.syndrome = syndrome;
	p->aeth.msn = c->r->msn;
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
	c->r->ip_id++;
	c->n->tx_qpn = c->q->qpn;
	c->n->tx_counter = 0;
	nic_xmit(c->n, buf, lay.frame_len);
	c->n->tx_qpn = 0;
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

void resp_send_ack(struct resp_ctx *c, uint8_t syndrome, uint32_t psn)
{
	struct wqe_pkt p;

	reply_hdrs(c, &p, WQE_WIRE_RC_ACKNOWLEDGE, psn, syndrome);
	reply_xmit(c, &p, NULL, 0);
	count_ack(&c->r->stats, syndrome);
}

void resp_send_atomic_ack(struct resp_ctx *c)
{
	struct wqe_pkt p;

	reply_hdrs(c, &p, WQE_WIRE_RC_ATOMIC_ACKNOWLEDGE, c->p->bth.psn, WQE_AETH_ACK_UNLIMITED);
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
		psn = (psn + 1) & RESP_PSN_MASK;
		first = false;
	} while (left);
	return true;
}
