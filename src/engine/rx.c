/* SPDX-License-Identifier: MIT */
/* The receive path: parse, verify, filter, dispatch. */
#include "engine/rx.h"

#include <string.h>

#include "common/bytes.h"
#include "common/csum.h"
#include "common/mem.h"
#include "engine/completer.h"
#include "engine/responder.h"
#include "wire/layout.h"
#include "wqe/wire.h"

const char *rx_drop_str(enum rx_drop d)
{
	static const char *const names[RX_DROP_COUNT] = {
		"not RoCEv2", "malformed", "bad ICRC", "bad checksum", "bad TVer", "not for this port",
		"unknown QP", "QP state", "transport mismatch", "P_Key mismatch",
		"Q_Key mismatch", "source address",
	};

	return (unsigned)d < RX_DROP_COUNT ? names[d] : "unknown";
}

/* The opcode table's response column (READ responses, ACKNOWLEDGE,
 * ATOMIC_ACKNOWLEDGE), for an opcode the parser found in it. */
static bool is_response(uint8_t op)
{
	return wire_op_tab[op].response;
}

/* The QP type of opcode @op's transport, its top three bits (IBA 9.2:
 * 000 RC, 001 UC, 011 UD); 0 for the others. A table: the request fast
 * paths ask it for every frame they take. */
static enum wqe_qp_type transport_of(uint8_t op)
{
	static const uint8_t qp_type[8] = {[0] = WQE_QPT_RC, [1] = WQE_QPT_UC, [3] = WQE_QPT_UD};

	return (enum wqe_qp_type)qp_type[op >> 5];
}

/* The 16 bytes at @a (a parsed GID, or an IPv6 address in the frame) are
 * one of the port's GIDs. */
static bool port_has_gid(const struct nic *n, const uint8_t *a)
{
	for (uint32_t i = 0; i < n->port.num_gids; i++)
		if (memeq16(n->port.gid[i].raw, a))
			return true;
	return false;
}

/* @pkey is in the port's P_Key table (the membership bit as well). */
static bool port_has_pkey(const struct nic *n, uint16_t pkey)
{
	for (uint32_t i = 0; i < n->port.num_pkeys; i++)
		if (n->port.pkey[i] == pkey)
			return true;
	return false;
}

/* IBTA 9.6 checks on a parsed packet; returns the drop reason or -1. */
static int filter(struct nic *n, const struct wqe_pkt *p, struct qpc **out)
{
	struct qpc *q;

	if (!p->icrc_ok)
		return RX_DROP_BAD_ICRC;
	if (!p->ip_csum_ok || !p->udp_csum_ok)
		return RX_DROP_BAD_CSUM;
	if (p->bth.tver != 0)
		return RX_DROP_BAD_TVER;
	if (!port_has_gid(n, p->dst.raw))
		return RX_DROP_NOT_FOR_US;
	q = qp_table_find(&n->qps, p->bth.destqp); /* QPN 0: none */
	if (!q)
		return RX_DROP_UNKNOWN_QP;
	if (!nic_qp_receives(q))
		return RX_DROP_QP_STATE;
	if (transport_of(p->bth.opcode) != q->type)
		return RX_DROP_TRANSPORT;
	/* The GSI QP takes any P_Key of the port's table (IBTA 10.9.3:
	 * management datagrams come on every partition). */
	if (q->qpn == QPN_GSI ? !port_has_pkey(n, p->bth.pkey) : p->bth.pkey != nic_qp_pkey(n, q))
		return RX_DROP_PKEY;
	if (q->type == WQE_QPT_UD && p->deth.qkey != q->qkey)
		return RX_DROP_QKEY;
	if (q->type != WQE_QPT_UD && !memeq16(p->src.raw, q->av.dgid.raw))
		return RX_DROP_SRC;
	*out = q;
	return -1;
}

/* @g is the IPv4-mapped GID (::ffff:a.b.c.d) of the address at @a. Read
 * in place: a GID built on the stack in pieces and read back whole stalls
 * on store forwarding. */
static bool gid_is_v4(const union wqe_gid *g, const uint8_t *a)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	uint64_t g0, m0;
	uint32_t g1, m1, g2, a2;

	memcpy(&g0, g->raw, 8);
	memcpy(&m0, mapped, 8);
	memcpy(&g1, g->raw + 8, 4);
	memcpy(&m1, mapped + 8, 4);
	memcpy(&g2, g->raw + 12, 4);
	memcpy(&a2, a, 4);
	return g0 == m0 && g1 == m1 && g2 == a2;
}

static bool port_has_v4(const struct nic *n, const uint8_t *a)
{
	for (uint32_t i = 0; i < n->port.num_gids; i++)
		if (gid_is_v4(&n->port.gid[i], a))
			return true;
	return false;
}

/* Bytes before the transport headers of an untagged IPv4 or IPv6 frame. */
#define V4_TRANSPORT (WQE_ETH_LEN + WQE_IPV4_LEN + WQE_UDP_LEN)
#define V6_TRANSPORT (WQE_ETH_LEN + WQE_IPV6_LEN + WQE_UDP_LEN)

/*
 * The fast receive paths take the commonest frames (RC/UC RDMA WRITE ONLY
 * and SEND ONLY, each with or without an immediate, no invalidate; RC/UC
 * RDMA WRITE FIRST, MIDDLE and LAST with no immediate; RC/UC SEND FIRST
 * and MIDDLE, and SEND LAST with or without an immediate, no invalidate;
 * RC ACKNOWLEDGE) in
 * the form the NIC itself sends them: untagged IPv4 with no options, not
 * fragmented, or untagged IPv6 with no extension header; no UDP checksum,
 * nothing after the IP packet, BTH version 0. They read the frame where
 * wqe_pkt_parse() and filter() would, through the readers, header lengths
 * and rules the parser uses (wire/layout.h) and filter()'s transport_of(),
 * and leave the same counters and state as the general path
 * (tests/e2e/test_fastpath.c runs both and compares, over IPv4 and over
 * IPv6; tests/resp/test_fastpath_edges.c compares them frame by frame at
 * the edges). A frame they do not take,
 * with nothing changed, goes the general path, which says why it is
 * dropped, if it is.
 *
 * plain(): the frame (@len bytes, at least 14), whose EtherType says the
 * BTH is at @t (V4_TRANSPORT or V6_TRANSPORT), has that form up to the
 * BTH's second byte, and at least @after bytes follow the BTH. The opcode
 * is the caller's. Inlined with @t a constant: one copy per IP version.
 */
static inline __attribute__((always_inline)) bool plain(const uint8_t *frame, size_t len,
							size_t t, size_t after)
{
	const uint8_t *ip = frame + WQE_ETH_LEN, *udp = frame + t - WQE_UDP_LEN;
	size_t ip_hl = t - WQE_ETH_LEN - WQE_UDP_LEN;

	if (len < t + WQE_BTH_LEN + after || len > 0xffff || ((len - t) & 3))
		return false;
	if (t == V4_TRANSPORT) {
		/* total length covers the header; no options, no fragment */
		if (!ipv4_v4_no_options(ip) || ipv4_proto(ip) != IP_PROTO_UDP ||
		    ipv4_is_fragment(ip) || ipv4_total_len(ip) != len - WQE_ETH_LEN)
			return false;
	} else if (ip_version(ip) != 6 || ipv6_next_header(ip) != IP_PROTO_UDP ||
		   ipv6_payload_len(ip) != len - WQE_ETH_LEN - WQE_IPV6_LEN) {
		/* IPv6: payload length does not cover the header; UDP next */
		return false;
	}
	return udp_dport(udp) == WQE_ROCEV2_PORT && udp_length(udp) == len - WQE_ETH_LEN - ip_hl &&
	       !udp_csum(udp) && bth_tver(frame + t) == 0;
}

/* The IPv4 header checksum (IPv6 has none) and the ICRC of a plain()
 * frame whose BTH is at @t verify. */
static inline __attribute__((always_inline)) bool sums_ok(const uint8_t *frame, size_t len,
							  size_t t)
{
	const uint8_t *ip = frame + WQE_ETH_LEN;

	if (t == V4_TRANSPORT)
		return csum_ipv4(ip) == 0 && wqe_icrc(ip, len - WQE_ETH_LEN - WQE_ICRC_LEN, 4) ==
						 get_le32(frame + len - WQE_ICRC_LEN);
	return wqe_icrc(ip, len - WQE_ETH_LEN - WQE_ICRC_LEN, 6) ==
	       get_le32(frame + len - WQE_ICRC_LEN);
}

/* The QP of a plain() frame whose BTH is at @t, as filter() finds it: the
 * destination address is one of the port's, the destination QP exists,
 * takes packets, is of type @ty and has the frame's P_Key, and the source
 * address is the QP's peer. NULL if any of it fails. */
static inline __attribute__((always_inline)) struct qpc *
plain_qp(struct nic *n, const uint8_t *frame, size_t t, enum wqe_qp_type ty)
{
	const uint8_t *ip = frame + WQE_ETH_LEN, *bth = frame + t;
	bool v4 = t == V4_TRANSPORT;
	struct qpc *q;

	if (v4 ? !port_has_v4(n, ipv4_dst(ip)) : !port_has_gid(n, ipv6_dst(ip)))
		return NULL;
	q = qp_table_find(&n->qps, bth_destqp(bth));
	if (!q || !nic_qp_receives(q) || q->type != ty || bth_pkey(bth) != nic_qp_pkey(n, q) ||
	    !(v4 ? gid_is_v4(&q->av.dgid, ipv4_src(ip)) : memeq16(q->av.dgid.raw, ipv6_src(ip))))
		return NULL;
	return q;
}

/* What the request fast paths check first, for a plain() frame whose BTH
 * is at @t and whose payload starts at @hdrs: room for the headers and the
 * ICRC, a pad count within the payload, sums that verify, and its QP
 * (plain_qp(), of the opcode's transport as filter() finds it); NULL if
 * any fails. The payload's length, pad excluded, in *@plen. */
static inline __attribute__((always_inline)) struct qpc *plain_request(struct nic *n,
								       const uint8_t *frame,
								       size_t len, size_t t,
								       size_t hdrs, uint32_t *plen)
{
	const uint8_t *bth = frame + t;
	uint32_t padcnt = bth_padcnt(bth);

	if (len < hdrs + WQE_ICRC_LEN)
		return NULL;
	*plen = (uint32_t)(len - hdrs - WQE_ICRC_LEN);
	if (padcnt > *plen || !sums_ok(frame, len, t))
		return NULL;
	*plen -= padcnt;
	return plain_qp(n, frame, t, transport_of(bth_opcode(bth)));
}

/* Counts a request frame of @q a fast path took (@imm: with an
 * immediate). */
static inline __attribute__((always_inline)) void took_request(struct nic *n, struct qpc *q,
							       bool imm)
{
	n->fast_rx++;
	if (imm)
		n->fast_rx_imm++;
	n->rx_accepted++;
	q->eng->rx_requests++;
}

/* An RC or UC RDMA WRITE packet of @role, BTH at @t: an ONLY, with
 * immediate if @imm (BTH, RETH, ImmDt), or with no immediate a FIRST (BTH,
 * RETH), MIDDLE or LAST (BTH), that passes the responder's checks on
 * their commonest path (resp_write_only(), resp_write_imm(),
 * resp_write_first(), resp_write_middle(), resp_write_last()). Inlined
 * with @role and @imm constants. */
static inline __attribute__((always_inline)) bool rx_write(struct nic *n, const uint8_t *frame,
							   size_t len, size_t t,
							   enum wqe_wire_role role, bool imm)
{
	const uint8_t *bth = frame + t;
	bool reth = role == WQE_ROLE_FIRST || role == WQE_ROLE_ONLY;
	uint32_t m = WQE_HDR_BTH | (reth ? WQE_HDR_RETH : 0u) | (imm ? WQE_HDR_IMMDT : 0u);
	size_t hdrs = t + WIRE_HDRS_LEN(m);
	struct resp_write_pkt w;
	struct qpc *q = plain_request(n, frame, len, t, hdrs, &w.len);
	bool ok;

	if (!q)
		return false;
	w.psn = bth_psn(bth);
	w.ackreq = bth_ackreq(bth);
	if (reth) {
		const uint8_t *r = bth + WIRE_HDR_OFFSET(m, WQE_HDR_RETH);

		w.va = reth_va(r);
		w.rkey = reth_rkey(r);
		w.dma_len = reth_dma_len(r);
	}
	w.payload = frame + hdrs;
	if (imm) {
		w.se = bth_se(bth);
		w.imm = immdt_imm(bth + WIRE_HDR_OFFSET(m, WQE_HDR_IMMDT));
	}
	switch (role) {
	case WQE_ROLE_FIRST:
		ok = resp_write_first(n, q, &w);
		break;
	case WQE_ROLE_MIDDLE:
		ok = resp_write_middle(n, q, &w);
		break;
	case WQE_ROLE_LAST:
		ok = resp_write_last(n, q, &w);
		break;
	default:
		ok = imm ? resp_write_imm(n, q, &w) : resp_write_only(n, q, &w);
		break;
	}
	if (!ok)
		return false;
	took_request(n, q, imm);
	return true;
}

/* An RC or UC SEND packet of @role, BTH at @t: an ONLY or a LAST, with
 * immediate if @imm (BTH, ImmDt), or a FIRST or MIDDLE (BTH), none with
 * an invalidate, that passes the responder's checks on their commonest
 * path (resp_send_only(), resp_send_imm(), resp_send_first(),
 * resp_send_middle(), resp_send_last(), resp_send_last_imm()). Inlined
 * with @role and @imm constants. */
static inline __attribute__((always_inline)) bool rx_send(struct nic *n, const uint8_t *frame,
							  size_t len, size_t t,
							  enum wqe_wire_role role, bool imm)
{
	const uint8_t *bth = frame + t;
	uint32_t m = WQE_HDR_BTH | (imm ? WQE_HDR_IMMDT : 0u);
	size_t hdrs = t + WIRE_HDRS_LEN(m);
	struct resp_send_pkt s;
	struct qpc *q = plain_request(n, frame, len, t, hdrs, &s.len);
	bool ok;

	if (!q)
		return false;
	s.psn = bth_psn(bth);
	s.ackreq = bth_ackreq(bth);
	s.se = bth_se(bth);
	s.payload = frame + hdrs;
	if (imm)
		s.imm = immdt_imm(bth + WIRE_HDR_OFFSET(m, WQE_HDR_IMMDT));
	switch (role) {
	case WQE_ROLE_FIRST:
		ok = resp_send_first(n, q, &s);
		break;
	case WQE_ROLE_MIDDLE:
		ok = resp_send_middle(n, q, &s);
		break;
	case WQE_ROLE_LAST:
		ok = imm ? resp_send_last_imm(n, q, &s) : resp_send_last(n, q, &s);
		break;
	default:
		ok = imm ? resp_send_imm(n, q, &s) : resp_send_only(n, q, &s);
		break;
	}
	if (!ok)
		return false;
	took_request(n, q, imm);
	n->fast_rx_sends++;
	return true;
}

/* The packets of a longer SEND (rx_send()), out of line: inlined into
 * nic_rx() with every other path, they grew it past what gcc inlines
 * there, and the byte readers and the QP lookup the other paths share
 * became calls (+37 instructions a WRITE ONLY). */
static __attribute__((noinline)) bool rx_send_part(struct nic *n, const uint8_t *frame, size_t len,
						   size_t t)
{
	switch (bth_opcode(frame + t)) {
	case WQE_WIRE_RC_SEND_FIRST:
	case WQE_WIRE_UC_SEND_FIRST:
		return rx_send(n, frame, len, t, WQE_ROLE_FIRST, false);
	case WQE_WIRE_RC_SEND_MIDDLE:
	case WQE_WIRE_UC_SEND_MIDDLE:
		return rx_send(n, frame, len, t, WQE_ROLE_MIDDLE, false);
	case WQE_WIRE_RC_SEND_LAST:
	case WQE_WIRE_UC_SEND_LAST:
		return rx_send(n, frame, len, t, WQE_ROLE_LAST, false);
	default:
		return rx_send(n, frame, len, t, WQE_ROLE_LAST, true);
	}
}

/* An RC ACKNOWLEDGE (ACK, RNR NAK or NAK), BTH at @t, with no pad: the
 * completer takes it as it takes the parsed packet
 * (comp_rx_acknowledge()). */
static inline __attribute__((always_inline)) bool rx_acknowledge(struct nic *n,
								 const uint8_t *frame, size_t len,
								 size_t t)
{
	const uint32_t m = WQE_HDR_BTH | WQE_HDR_AETH;
	const uint8_t *bth = frame + t;
	struct qpc *q;

	if (len != t + WIRE_HDRS_LEN(m) + WQE_ICRC_LEN || bth_padcnt(bth) || !sums_ok(frame, len, t))
		return false;
	q = plain_qp(n, frame, t, WQE_QPT_RC);
	if (!q)
		return false;
	n->fast_rx++;
	n->fast_rx_acks++;
	n->rx_accepted++;
	q->eng->req.msg.rx_responses++;
	comp_rx_acknowledge(n, q, bth_psn(bth),
			    aeth_syndrome(bth + WIRE_HDR_OFFSET(m, WQE_HDR_AETH)));
	return true;
}

/* The fast receive paths (above) for a frame whose BTH is at @t, if
 * plain(). */
static inline __attribute__((always_inline)) bool rx_fast_at(struct nic *n, const uint8_t *frame,
							     size_t len, size_t t)
{
	/* The shortest frame taken: a SEND ONLY with no payload. Each path
	 * checks the length of its own headers. */
	if (!plain(frame, len, t, WQE_ICRC_LEN))
		return false;
	switch (bth_opcode(frame + t)) {
	case WQE_WIRE_RC_ACKNOWLEDGE:
		return rx_acknowledge(n, frame, len, t);
	case WQE_WIRE_RC_RDMA_WRITE_ONLY:
	case WQE_WIRE_UC_RDMA_WRITE_ONLY:
		return rx_write(n, frame, len, t, WQE_ROLE_ONLY, false);
	case WQE_WIRE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE:
	case WQE_WIRE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE:
		return rx_write(n, frame, len, t, WQE_ROLE_ONLY, true);
	case WQE_WIRE_RC_RDMA_WRITE_FIRST:
	case WQE_WIRE_UC_RDMA_WRITE_FIRST:
		return rx_write(n, frame, len, t, WQE_ROLE_FIRST, false);
	case WQE_WIRE_RC_RDMA_WRITE_MIDDLE:
	case WQE_WIRE_UC_RDMA_WRITE_MIDDLE:
		return rx_write(n, frame, len, t, WQE_ROLE_MIDDLE, false);
	case WQE_WIRE_RC_RDMA_WRITE_LAST:
	case WQE_WIRE_UC_RDMA_WRITE_LAST:
		return rx_write(n, frame, len, t, WQE_ROLE_LAST, false);
	case WQE_WIRE_RC_SEND_ONLY:
	case WQE_WIRE_UC_SEND_ONLY:
		return rx_send(n, frame, len, t, WQE_ROLE_ONLY, false);
	case WQE_WIRE_RC_SEND_ONLY_WITH_IMMEDIATE:
	case WQE_WIRE_UC_SEND_ONLY_WITH_IMMEDIATE:
		return rx_send(n, frame, len, t, WQE_ROLE_ONLY, true);
	case WQE_WIRE_RC_SEND_FIRST:
	case WQE_WIRE_UC_SEND_FIRST:
	case WQE_WIRE_RC_SEND_MIDDLE:
	case WQE_WIRE_UC_SEND_MIDDLE:
	case WQE_WIRE_RC_SEND_LAST:
	case WQE_WIRE_UC_SEND_LAST:
	case WQE_WIRE_RC_SEND_LAST_WITH_IMMEDIATE:
	case WQE_WIRE_UC_SEND_LAST_WITH_IMMEDIATE:
		return rx_send_part(n, frame, len, t);
	default:
		return false;
	}
}

/* The fast receive paths for the frames they know, by IP version. */
static bool rx_fast(struct nic *n, const uint8_t *frame, size_t len)
{
	if (len < WQE_ETH_LEN)
		return false;
	switch (eth_type(frame)) {
	case WQE_ETHERTYPE_IPV4:
		return rx_fast_at(n, frame, len, V4_TRANSPORT);
	case WQE_ETHERTYPE_IPV6:
		return rx_fast_at(n, frame, len, V6_TRANSPORT);
	default:
		return false;
	}
}

void nic_rx(struct nic *n, const uint8_t *frame, size_t len)
{
	struct wqe_pkt p;
	struct qpc *q = NULL;
	int err, drop;

	if (n->tx.tap)
		wqe_pcap_write(n->tx.tap, frame, len, n->clock_ns);
	n->rx_frames++;
	if (!n->trace && !n->no_fast_path && rx_fast(n, frame, len))
		return;
	err = wqe_pkt_parse(frame, len, &p);
	drop = err ? (wqe_pkt_err_not_roce(err) ? RX_DROP_NOT_ROCE : RX_DROP_MALFORMED)
		   : filter(n, &p, &q);
	if (n->trace) {
		struct wqe_trace_event ev = {.kind = drop >= 0 ? WQE_TRACE_DROP : WQE_TRACE_RX,
					     .qpn = err ? 0 : p.bth.destqp, .frame = frame,
					     .len = len,
					     .reason = drop >= 0 ? rx_drop_str((enum rx_drop)drop)
								 : NULL};

		nic_trace(n, &ev);
	}
	if (drop >= 0) {
		n->rx_drops[drop]++;
		return;
	}
	n->rx_accepted++;
	if (is_response(p.bth.opcode)) {
		q->eng->req.msg.rx_responses++;
		comp_rx(n, q, &p);
	} else {
		q->eng->rx_requests++;
		resp_rx(n, q, &p);
	}
}

void nic_receive(struct nic *n, const uint8_t *frame, size_t len)
{
	nic_now(n); /* timers armed on the way start from now */
	nic_rx(n, frame, len);
	resp_ack_flush(n);
	nic_tx_flush(n); /* the responses it caused leave now */
}
