/* SPDX-License-Identifier: MIT */
/*
 * The UDP link: RoCEv2 through a kernel UDP socket on port 4791, so that
 * contexts in other processes or on other hosts can talk.
 *
 * The kernel owns the IP and UDP headers on the wire, and the ICRC covers
 * them: a frame's ICRC, computed by the NIC over its own IPv4
 * identification and per-QP UDP source port, is recomputed over what the
 * kernel sends before the payload leaves, and an arriving datagram is
 * given back the headers the sender's kernel must have written.
 *
 * System calls are batched: the datagrams the NIC sends wait in the link's
 * send queue and go in one sendmmsg() when LINK_UDP_BATCH of them are
 * queued or the NIC's progress call ends (udp_flush()); one recvmmsg()
 * reads up to LINK_UDP_BATCH datagrams, handed to the NIC one at a time.
 * Between two wqe peer processes on loopback a datagram per call spent
 * most of its time on the way into and out of the kernel.
 */
#define _GNU_SOURCE /* SOCK_NONBLOCK, SO_RXQ_OVFL, IPV6_RECVHOPLIMIT, sendmmsg, recvmmsg */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h> /* UDP_NO_CHECK6_RX */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/csum.h"
#include "link/link_int.h"
#include "wire/layout.h"
#include "wqe/wire.h"

#define DEFAULT_TTL  64u
#define DEFAULT_BUF  (4u << 20)
/* Bytes of Ethernet, IP and UDP header in front of a datagram's payload. */
#define V4_HDRS (WQE_ETH_LEN + WQE_IPV4_LEN + WQE_UDP_LEN)
#define V6_HDRS (WQE_ETH_LEN + WQE_IPV6_LEN + WQE_UDP_LEN)
/* The smallest RoCEv2 UDP payload: a BTH and an ICRC. */
#define MIN_PAYLOAD (WQE_BTH_LEN + WQE_ICRC_LEN)

union udp_addr {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
	struct sockaddr_storage ss;
};

/* Ancillary data room: two int options, and SO_RXQ_OVFL's counter. */
union udp_ctl {
	char buf[2 * CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(uint32_t))];
	struct cmsghdr align;
};

/* What the link needs of a frame it sends. */
struct udp_dest {
	int ipver;
	uint8_t addr[16];	/* the destination: 4 bytes (IPv4) or 16 */
	uint8_t tos;		/* IPv4 TOS or IPv6 traffic class */
	uint8_t ttl;		/* TTL or hop limit */
	const uint8_t *payload; /* BTH through ICRC */
	size_t len;
	const uint8_t *l3; /* the frame's IP header, */
	size_t l3_len;	   /* and its bytes up to the ICRC */
};

/* Where a datagram goes, as sendmmsg() takes it. */
union udp_name {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

/* A queued datagram: its payload in a buffer of the link's (the NIC's
 * frame buffer is reused as soon as xmit returns), where it goes, and
 * its TOS and TTL. */
struct tx_slot {
	uint8_t *buf; /* a pool buffer */
	struct iovec iov;
	union udp_name to;
	union udp_ctl ctl;
};

/*
 * The send queue: @n datagrams wait in slot[0, n), msg[i] describing
 * slot[i], and leave in that order. The buffers are allocated with the
 * link; the NIC builds its frames in @spare (udp_tx_buf()), which then
 * trades places with the buffer of the slot the frame takes: no copy.
 */
struct udp_txq {
	struct mmsghdr msg[LINK_UDP_BATCH];
	struct tx_slot slot[LINK_UDP_BATCH];
	uint8_t *spare;
	uint32_t n;
};

/* A datagram read: its buffer (the payload behind room for the headers
 * rx_headers() writes), its sender, its ancillary data. */
struct rx_slot {
	uint8_t *buf; /* a pool buffer */
	struct iovec iov;
	union udp_addr from;
	union udp_ctl ctl;
};

/* The receive batch: the last recvmmsg() read @n datagrams, handed out in
 * order from @next; @len is the length of the frame rebuilt from datagram
 * @next (0: not rebuilt yet). */
struct udp_rxq {
	struct mmsghdr msg[LINK_UDP_BATCH];
	struct rx_slot slot[LINK_UDP_BATCH];
	uint32_t n;
	uint32_t next;
	size_t len;
};

static int link_ipver(const struct link_udp *u)
{
	return u->family == AF_INET ? 4 : 6;
}

/* The IP header of @f from @ip on (@end bytes left): 0 and *@d filled, or
 * -1 if it is not a whole IPv4 (no options, not a fragment) or IPv6 (no
 * extension header) UDP datagram, by the parser's rules (wire/layout.h).
 * Sets *@udp and *@udp_len. */
static int tx_parse_ip(const uint8_t *ip, size_t end, uint16_t ethertype, struct udp_dest *d,
		       const uint8_t **udp, size_t *udp_len)
{
	if (ethertype == WQE_ETHERTYPE_IPV4) {
		size_t total;

		if (end < WQE_IPV4_LEN || !ipv4_v4_no_options(ip) || ipv4_proto(ip) != IP_PROTO_UDP ||
		    ipv4_is_fragment(ip))
			return -1;
		total = ipv4_total_len(ip);
		if (total < WQE_IPV4_LEN || total > end)
			return -1;
		d->ipver = 4;
		d->tos = ipv4_tos(ip);
		d->ttl = ipv4_ttl(ip);
		memcpy(d->addr, ipv4_dst(ip), 4);
		*udp = ip + WQE_IPV4_LEN;
		*udp_len = total - WQE_IPV4_LEN;
		return 0;
	}
	if (ethertype == WQE_ETHERTYPE_IPV6) {
		size_t plen;

		if (end < WQE_IPV6_LEN || ip_version(ip) != 6 || ipv6_next_header(ip) != IP_PROTO_UDP)
			return -1;
		plen = ipv6_payload_len(ip);
		if (plen > end - WQE_IPV6_LEN)
			return -1;
		d->ipver = 6;
		d->tos = ipv6_tclass(ip);
		d->ttl = ipv6_hop_limit(ip);
		memcpy(d->addr, ipv6_dst(ip), 16);
		*udp = ip + WQE_IPV6_LEN;
		*udp_len = plen;
		return 0;
	}
	return -1;
}

/* Where frame @f (@len bytes) goes: 0, or -1 if it is not RoCEv2 over
 * IPv4/IPv6 UDP with room for a BTH and an ICRC. */
static int tx_parse(const uint8_t *f, size_t len, struct udp_dest *d)
{
	size_t off = WQE_ETH_LEN, udp_len;
	const uint8_t *udp;
	uint16_t et;

	if (len < WQE_ETH_LEN)
		return -1;
	et = eth_type(f);
	if (eth_type_is_vlan(et)) {
		if (len < WQE_ETH_LEN + WQE_VLAN_LEN)
			return -1;
		et = vlan_type(f);
		off += WQE_VLAN_LEN;
	}
	if (tx_parse_ip(f + off, len - off, et, d, &udp, &udp_len))
		return -1;
	if (udp_len < WQE_UDP_LEN + MIN_PAYLOAD || udp_length(udp) != udp_len ||
	    udp_dport(udp) != WQE_ROCEV2_PORT)
		return -1;
	d->payload = udp + WQE_UDP_LEN;
	d->len = udp_len - WQE_UDP_LEN;
	d->l3 = f + off;
	d->l3_len = (size_t)(d->payload + d->len - WQE_ICRC_LEN - d->l3);
	return 0;
}

/* The ICRC of @d's payload as the kernel will send it: from the bound
 * address and port, IPv4 identification 0 with DF (what Linux writes for a
 * DF datagram of an unconnected socket, ip_select_ident_segs()). */
static uint32_t wire_icrc(const struct link_udp *u, const struct udp_dest *d)
{
	struct wqe_pkt h;

	memset(&h, 0, sizeof(h));
	h.ipver = (uint8_t)d->ipver;
	h.src = u->local;
	if (d->ipver == 4) {
		h.dst.raw[10] = 0xff;
		h.dst.raw[11] = 0xff;
		memcpy(h.dst.raw + 12, d->addr, 4);
		h.ip_flags = 2; /* DF */
	} else {
		memcpy(h.dst.raw, d->addr, 16);
	}
	h.sport = WQE_ROCEV2_PORT;
	h.dport = WQE_ROCEV2_PORT;
	return wqe_icrc_udp(&h, d->payload, d->len - WQE_ICRC_LEN);
}

static void put_int_cmsg(struct cmsghdr *c, int level, int type, int v)
{
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &v, sizeof(v));
}

/*
 * The frame's TOS/traffic class and TTL/hop limit for the kernel's header
 * (masked out of the ICRC, so only their meaning on the path is kept), as
 * ancillary data where they differ from the socket's own (TOS 0, TTL 64:
 * setup_socket()); TTL 0, which no path would carry, keeps the socket's.
 * Only where they differ: with ancillary data a 1 KiB datagram cost the
 * kernel 2.4 us instead of 2.1 (sendmmsg() on loopback, its delivery
 * included).
 */
static void tx_ancillary(struct msghdr *m, union udp_ctl *ctl, const struct udp_dest *d)
{
	struct cmsghdr *c = NULL;
	size_t used = 0;

	memset(ctl, 0, sizeof(*ctl));
	m->msg_control = ctl->buf;
	m->msg_controllen = sizeof(ctl->buf);
	if (d->tos) {
		c = CMSG_FIRSTHDR(m);
		if (d->ipver == 4)
			put_int_cmsg(c, IPPROTO_IP, IP_TOS, d->tos);
		else
			put_int_cmsg(c, IPPROTO_IPV6, IPV6_TCLASS, d->tos);
		used += CMSG_SPACE(sizeof(int));
	}
	if (d->ttl && d->ttl != DEFAULT_TTL) {
		c = c ? CMSG_NXTHDR(m, c) : CMSG_FIRSTHDR(m);
		if (d->ipver == 4)
			put_int_cmsg(c, IPPROTO_IP, IP_TTL, d->ttl);
		else
			put_int_cmsg(c, IPPROTO_IPV6, IPV6_HOPLIMIT, d->ttl);
		used += CMSG_SPACE(sizeof(int));
	}
	m->msg_controllen = used;
	if (!used)
		m->msg_control = NULL;
}

/* Counts frame @frame (@len bytes) and finds where it goes: 0, or -1 if
 * it is dropped (counted). */
static int tx_dest(struct wqe_link *l, const uint8_t *frame, size_t len, struct udp_dest *d)
{
	l->stats.frames++;
	if (tx_parse(frame, len, d) || d->ipver != link_ipver(&l->udp)) {
		l->stats.no_destination++;
		return -1;
	}
	/* Longer than a queue buffer: never from a NIC (WQE_FRAME_MAX is
	 * less: link_int.h), and no path would carry it; a send error. */
	if (len > LINK_FRAME_MAX) {
		l->stats.tx_errors++;
		return -1;
	}
	return 0;
}

/*
 * Sends the queued datagrams, in order, each with the outcome a sendmsg()
 * of it alone would have had. sendmmsg() stops at the first datagram the
 * kernel refuses and reports only those before it (its error is lost), so
 * the next call starts with that one: refused again, the call fails with
 * its errno, and it is counted and dropped; the rest go on. A datagram is
 * given to the kernel until it is taken or refused first in a call: none
 * is sent twice, none is lost uncounted.
 */
static void tx_flush(struct wqe_link *l)
{
	struct udp_txq *q = l->udp.tx;
	uint32_t i = 0;

	while (i < q->n) {
		int r = sendmmsg(l->udp.fd, q->msg + i, q->n - i, MSG_DONTWAIT);

		if (r > 0) {
			l->stats.delivered += (uint32_t)r;
			i += (uint32_t)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS))
			l->stats.queue_full++;
		else
			l->stats.tx_errors++;
		i++;
	}
	q->n = 0;
}

/*
 * Queues the datagram of @d, whose payload (BTH to ICRC) is at @payload in
 * the buffer of the next slot, with the ICRC over the kernel's headers;
 * a full queue is sent at once.
 */
static void tx_queue(struct wqe_link *l, const struct udp_dest *d, uint8_t *payload,
		     bool damaged)
{
	struct link_udp *u = &l->udp;
	struct udp_txq *q = u->tx;
	struct tx_slot *s = &q->slot[q->n];
	struct msghdr *m = &q->msg[q->n].msg_hdr;
	uint32_t icrc;

	/* The ICRC over the kernel's headers. When the frame may have been
	 * damaged since the NIC built it (@damaged: it came through a fault
	 * link), the error is carried over, so that it fails the receiver's
	 * check as it would on any other link: by the CRC's linearity, for
	 * frames of one length, wire ^ nic ^ given is the ICRC the undamaged
	 * frame would have with the kernel's headers. A frame straight from
	 * the NIC is as it built it: one CRC, not three. Computed from @d
	 * before it is written: @payload may be @d's own payload. */
	icrc = wire_icrc(u, d);
	if (damaged)
		icrc ^= wqe_icrc(d->l3, d->l3_len, d->ipver) ^
			get_le32(d->payload + d->len - WQE_ICRC_LEN);
	put_le32(payload + d->len - WQE_ICRC_LEN, icrc);
	memset(m, 0, sizeof(*m));
	memset(&s->to, 0, sizeof(s->to));
	if (d->ipver == 4) {
		s->to.v4.sin_family = AF_INET;
		s->to.v4.sin_port = htons(WQE_ROCEV2_PORT);
		memcpy(&s->to.v4.sin_addr, d->addr, 4);
		m->msg_namelen = sizeof(s->to.v4);
	} else {
		s->to.v6.sin6_family = AF_INET6;
		s->to.v6.sin6_port = htons(WQE_ROCEV2_PORT);
		memcpy(&s->to.v6.sin6_addr, d->addr, 16);
		m->msg_namelen = sizeof(s->to.v6);
	}
	s->iov.iov_base = payload;
	s->iov.iov_len = d->len;
	m->msg_name = &s->to;
	m->msg_iov = &s->iov;
	m->msg_iovlen = 1;
	tx_ancillary(m, &s->ctl, d);
	if (++q->n == LINK_UDP_BATCH)
		tx_flush(l);
}

static void udp_xmit(void *port, const uint8_t *frame, size_t len)
{
	struct wqe_link *l = ((struct link_port *)port)->link;
	struct udp_txq *q = l->udp.tx;
	struct udp_dest d;
	uint8_t *payload;

	if (tx_dest(l, frame, len, &d))
		return;
	/* At the offset it has in the frame: the copy and the kernel's see
	 * the alignment the NIC gave it. The ICRC is written by tx_queue(). */
	payload = q->slot[q->n].buf + (d.payload - frame);
	memcpy(payload, d.payload, d.len - WQE_ICRC_LEN);
	tx_queue(l, &d, payload, ((struct link_port *)port)->behind_fault);
}

/* The buffer the NIC builds its next frame in (a pool buffer, as the
 * loopback's): always there, and a slot for it too, since a full queue is
 * sent at once. */
static uint8_t *udp_tx_buf(void *port)
{
	return ((struct link_port *)port)->link->udp.tx->spare;
}

/* Queues the frame built in udp_tx_buf()'s buffer without copying it: the
 * buffer goes into the queue, the slot's own becomes the spare. A frame
 * that is dropped leaves the buffer the spare. */
static void udp_xmit_buf(void *port, uint8_t *buf, size_t len)
{
	struct wqe_link *l = ((struct link_port *)port)->link;
	struct udp_txq *q = l->udp.tx;
	struct udp_dest d;

	if (buf != q->spare) {
		udp_xmit(port, buf, len);
		return;
	}
	if (tx_dest(l, buf, len, &d))
		return;
	q->spare = q->slot[q->n].buf;
	q->slot[q->n].buf = buf;
	tx_queue(l, &d, buf + (d.payload - buf), false); /* the NIC's own buffer */
}

static void udp_flush(void *port)
{
	struct wqe_link *l = ((struct link_port *)port)->link;

	if (l->udp.tx->n)
		tx_flush(l);
}

/* The received datagram's metadata. */
struct rx_meta {
	uint8_t src[16];
	uint16_t sport;
	uint8_t tos;
	uint8_t ttl;
};

/* Writes the Ethernet, IP and UDP headers in front of the @n-byte payload
 * in receive buffer @f, addressed to @p. */
static void rx_headers(const struct link_port *p, uint8_t *f, size_t n, const struct rx_meta *r)
{
	const struct link_udp *u = &p->link->udp;
	uint8_t *ip = f + WQE_ETH_LEN, *udp;

	memcpy(f, p->mac, 6);
	/* A locally administered source MAC made from the sender's address,
	 * so that captures tell senders apart. */
	f[6] = 0x02;
	if (u->family == AF_INET) {
		f[7] = 0;
		memcpy(f + 8, r->src, 4);
		put_be16(f + 12, WQE_ETHERTYPE_IPV4);
		ip[0] = 0x45;
		ip[1] = r->tos;
		put_be16(ip + 2, (uint16_t)(WQE_IPV4_LEN + WQE_UDP_LEN + n));
		put_be16(ip + 4, 0);
		put_be16(ip + 6, IPV4_DF);
		ip[8] = r->ttl;
		ip[9] = IP_PROTO_UDP;
		put_be16(ip + 10, 0);
		memcpy(ip + 12, r->src, 4);
		memcpy(ip + 16, u->local.raw + 12, 4);
		put_be16(ip + 10, csum_ipv4(ip));
		udp = ip + WQE_IPV4_LEN;
	} else {
		memcpy(f + 7, r->src + 11, 5);
		put_be16(f + 12, WQE_ETHERTYPE_IPV6);
		put_be32(ip, 6u << 28 | (uint32_t)r->tos << 20);
		put_be16(ip + 4, (uint16_t)(WQE_UDP_LEN + n));
		ip[6] = IP_PROTO_UDP;
		ip[7] = r->ttl;
		memcpy(ip + 8, r->src, 16);
		memcpy(ip + 24, u->local.raw, 16);
		udp = ip + WQE_IPV6_LEN;
	}
	put_be16(udp, r->sport);
	put_be16(udp + 2, WQE_ROCEV2_PORT);
	put_be16(udp + 4, (uint16_t)(WQE_UDP_LEN + n));
	put_be16(udp + 6, 0); /* no checksum: the ICRC covers the payload */
}

/* wqe_udp_cfg.find_ipv4_id: the identification and DF the sender's ICRC
 * covers, put into the rebuilt IPv4 header at @ip (@n bytes of UDP payload
 * behind it) when they are not rx_headers()' 0 and DF. A datagram no
 * identification explains keeps 0 and DF: the NIC drops it as a bad ICRC. */
static void rx_find_id(struct wqe_link *l, uint8_t *ip, size_t n)
{
	size_t len = WQE_IPV4_LEN + WQE_UDP_LEN + n - WQE_ICRC_LEN;
	uint16_t id;
	int df;

	if (wqe_icrc_find_ipv4_id(ip, len, get_le32(ip + len), &id, &df) != 1 || (id == 0 && df))
		return;
	put_be16(ip + 4, id);
	put_be16(ip + 6, df ? IPV4_DF : 0);
	put_be16(ip + 10, 0);
	put_be16(ip + 10, csum_ipv4(ip));
	l->stats.rx_ipv4_id_found++;
}

static void rx_ancillary(struct wqe_link *l, struct msghdr *m, struct rx_meta *r)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		int v = -1;
		uint32_t drops;

		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
		    c->cmsg_len >= CMSG_LEN(sizeof(drops))) {
			memcpy(&drops, CMSG_DATA(c), sizeof(drops));
			l->stats.rx_kernel_drops = drops;
			continue;
		}
		/* IP_TOS comes as one byte, the others as an int. */
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS &&
		    c->cmsg_len >= CMSG_LEN(1)) {
			r->tos = *CMSG_DATA(c);
			continue;
		}
		if (c->cmsg_len < CMSG_LEN(sizeof(v)))
			continue;
		memcpy(&v, CMSG_DATA(c), sizeof(v));
		if (v < 0 || v > 255)
			continue;
		if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) ||
		    (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT))
			r->ttl = (uint8_t)v;
		else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS)
			r->tos = (uint8_t)v;
	}
}

/* Reads up to LINK_UDP_BATCH datagrams into the receive batch: how many;
 * 0 if none is waiting (or the socket failed: counted). */
static uint32_t rx_fill(struct wqe_link *l)
{
	struct udp_rxq *q = l->udp.rx;
	int n;

	/* recvmmsg() writes these back; the rest of each header is set once,
	 * at create. */
	for (uint32_t i = 0; i < q->n; i++) {
		struct msghdr *m = &q->msg[i].msg_hdr;

		m->msg_namelen = sizeof(q->slot[i].from);
		m->msg_controllen = sizeof(q->slot[i].ctl.buf);
		m->msg_flags = 0;
	}
	q->n = q->next = 0;
	n = recvmmsg(l->udp.fd, q->msg, LINK_UDP_BATCH, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			l->stats.rx_errors++;
		return 0;
	}
	q->n = (uint32_t)n;
	return q->n;
}

/* Judges datagram @i of the batch: its length, or 0 if it is dropped
 * (counted); *@r its sender, TOS and TTL. */
static size_t rx_check(struct wqe_link *l, uint32_t i, struct rx_meta *r)
{
	struct link_udp *u = &l->udp;
	struct msghdr *m = &u->rx->msg[i].msg_hdr;
	const union udp_addr *from = &u->rx->slot[i].from;
	size_t n = u->rx->msg[i].msg_len;

	l->stats.rx_datagrams++;
	if (m->msg_flags & MSG_TRUNC) {
		l->stats.rx_truncated++;
		return 0;
	}
	if (from->sa.sa_family != u->family) { /* cannot happen: IPV6_V6ONLY */
		l->stats.rx_errors++;
		return 0;
	}
	if (n < MIN_PAYLOAD) {
		l->stats.rx_short++;
		return 0;
	}
	memset(r, 0, sizeof(*r));
	r->ttl = DEFAULT_TTL;
	if (u->family == AF_INET) {
		memcpy(r->src, &from->v4.sin_addr, 4);
		r->sport = ntohs(from->v4.sin_port);
	} else {
		memcpy(r->src, &from->v6.sin6_addr, 16);
		r->sport = ntohs(from->v6.sin6_port);
	}
	rx_ancillary(l, m, r);
	return n;
}

/*
 * The next datagram as a frame, rebuilt in place. At most one recvmmsg()
 * per call: a flood of bad datagrams must not hold the caller's progress
 * call. NULL only once the batch is used up, so a caller that finds
 * nothing and sleeps in poll() on the socket leaves nothing in the link.
 */
static const uint8_t *udp_rx_peek(void *port, size_t *len)
{
	struct link_port *p = port;
	struct wqe_link *l = p->link;
	struct udp_rxq *q = l->udp.rx;
	bool refilled = false;

	while (!q->len) {
		struct rx_meta r;
		size_t n;

		if (q->next == q->n) {
			if (refilled || !rx_fill(l))
				return NULL;
			refilled = true;
		}
		n = rx_check(l, q->next, &r);
		if (!n) {
			q->next++;
			continue;
		}
		rx_headers(p, q->slot[q->next].buf, n, &r);
		if (l->udp.find_ipv4_id && l->udp.family == AF_INET)
			rx_find_id(l, q->slot[q->next].buf + WQE_ETH_LEN, n);
		q->len = (l->udp.family == AF_INET ? V4_HDRS : V6_HDRS) + n;
		l->stats.rx_frames++;
	}
	*len = q->len;
	return q->slot[q->next].buf;
}

static void udp_rx_done(void *port)
{
	struct udp_rxq *q = ((struct link_port *)port)->link->udp.rx;

	q->len = 0;
	q->next++;
}

/* The send queue and receive batch with their buffers, for @l whose family
 * is set: 0, or -1 (what was made is left for queues_fini()). */
static int queues_init(struct wqe_link *l)
{
	struct link_udp *u = &l->udp;
	size_t hl = u->family == AF_INET ? V4_HDRS : V6_HDRS;

	u->tx = calloc(1, sizeof(*u->tx));
	u->rx = calloc(1, sizeof(*u->rx));
	if (!u->tx || !u->rx)
		return -1;
	u->tx->spare = pool_get(&l->pool);
	if (!u->tx->spare)
		return -1;
	for (uint32_t i = 0; i < LINK_UDP_BATCH; i++) {
		struct rx_slot *s = &u->rx->slot[i];
		struct msghdr *m = &u->rx->msg[i].msg_hdr;

		u->tx->slot[i].buf = pool_get(&l->pool);
		s->buf = pool_get(&l->pool);
		if (!u->tx->slot[i].buf || !s->buf)
			return -1;
		s->iov.iov_base = s->buf + hl;
		s->iov.iov_len = LINK_FRAME_MAX - hl;
		m->msg_name = &s->from;
		m->msg_namelen = sizeof(s->from);
		m->msg_iov = &s->iov;
		m->msg_iovlen = 1;
		m->msg_control = s->ctl.buf;
		m->msg_controllen = sizeof(s->ctl.buf);
	}
	return 0;
}

static void queues_fini(struct wqe_link *l)
{
	struct link_udp *u = &l->udp;

	if (u->tx) {
		pool_put(&l->pool, u->tx->spare);
		for (uint32_t i = 0; i < LINK_UDP_BATCH; i++)
			pool_put(&l->pool, u->tx->slot[i].buf);
	}
	if (u->rx)
		for (uint32_t i = 0; i < LINK_UDP_BATCH; i++)
			pool_put(&l->pool, u->rx->slot[i].buf);
	free(u->tx);
	free(u->rx);
	u->tx = NULL;
	u->rx = NULL;
}

static void udp_fini(struct wqe_link *l)
{
	/* What is still queued (a port detached without the NIC's last
	 * flush) goes before the socket closes: nothing queued is lost. */
	tx_flush(l);
	close(l->udp.fd);
	l->udp.fd = -1;
	queues_fini(l);
}

/* @s as a socket address on port 4791 and as a GID: 0, or -1 if it is not
 * an address literal or is a wildcard. An IPv4-mapped IPv6 literal is the
 * IPv4 address. */
static int parse_local(const char *s, union udp_addr *a, socklen_t *alen, union wqe_gid *gid)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const uint8_t any[16];
	uint8_t raw[16];

	memset(a, 0, sizeof(*a));
	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, s, raw + 12) == 1) {
		memcpy(raw, mapped, sizeof(mapped));
	} else if (inet_pton(AF_INET6, s, raw) != 1) {
		return -1;
	}
	memcpy(gid->raw, raw, 16);
	if (memcmp(raw, mapped, sizeof(mapped)) == 0) {
		if (memcmp(raw + 12, any, 4) == 0)
			return -1;
		a->v4.sin_family = AF_INET;
		a->v4.sin_port = htons(WQE_ROCEV2_PORT);
		memcpy(&a->v4.sin_addr, raw + 12, 4);
		*alen = sizeof(a->v4);
		return 0;
	}
	if (memcmp(raw, any, 16) == 0)
		return -1;
	a->v6.sin6_family = AF_INET6;
	a->v6.sin6_port = htons(WQE_ROCEV2_PORT);
	memcpy(&a->v6.sin6_addr, raw, 16);
	*alen = sizeof(a->v6);
	return 0;
}

static int set_int(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v));
}

/* A buffer size: the forced option first (CAP_NET_ADMIN), else the capped
 * one; neither failing matters, the default buffer still works. */
static void set_buf(int fd, int force, int plain, uint32_t bytes)
{
	int v = (int)((bytes ? bytes : DEFAULT_BUF) & 0x7fffffffu);

	if (set_int(fd, SOL_SOCKET, force, v))
		(void)set_int(fd, SOL_SOCKET, plain, v);
}

/* The socket options: 0, or -1 with errno set. */
static int setup_socket(int fd, int family, const struct wqe_udp_cfg *cfg)
{
	int rc;

	/* TOS 0 and TTL 64 of our own, not the system's default: a datagram
	 * whose frame has them needs no ancillary data (tx_ancillary()). */
	if (family == AF_INET) {
		rc = set_int(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO);
		rc = rc ? rc : set_int(fd, IPPROTO_IP, IP_RECVTTL, 1);
		rc = rc ? rc : set_int(fd, IPPROTO_IP, IP_RECVTOS, 1);
		rc = rc ? rc : set_int(fd, IPPROTO_IP, IP_TOS, 0);
		rc = rc ? rc : set_int(fd, IPPROTO_IP, IP_TTL, (int)DEFAULT_TTL);
	} else {
		rc = set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
		rc = rc ? rc : set_int(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO);
		rc = rc ? rc : set_int(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1);
		rc = rc ? rc : set_int(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1);
		rc = rc ? rc : set_int(fd, IPPROTO_IPV6, IPV6_TCLASS, 0);
		rc = rc ? rc : set_int(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, (int)DEFAULT_TTL);
		/* Accept a UDP checksum of 0 over IPv6 (RFC 6935/6936, as
		 * tunnels do): the kernel's rxe sends every RoCEv2 datagram
		 * with 0 there, IPv6 included, and the ICRC covers the
		 * payload anyway. Without it the kernel drops them all before
		 * the socket (Udp6InCsumErrors). An old kernel without the
		 * option still works with peers that fill the checksum. */
		if (!rc)
			(void)set_int(fd, IPPROTO_UDP, UDP_NO_CHECK6_RX, 1);
	}
	if (rc)
		return -1;
	(void)set_int(fd, SOL_SOCKET, SO_RXQ_OVFL, 1); /* counters only */
	set_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, cfg->rcvbuf);
	set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg->sndbuf);
	return 0;
}

struct wqe_link *wqe_link_udp_create(const struct wqe_udp_cfg *cfg)
{
	union udp_addr a;
	socklen_t alen = 0;
	union wqe_gid gid;
	struct wqe_link *l;
	int fd, err;

	if (!cfg || !cfg->local || parse_local(cfg->local, &a, &alen, &gid)) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	fd = socket(a.sa.sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0 || setup_socket(fd, a.sa.sa_family, cfg) || bind(fd, &a.sa, alen))
		goto fail;
	l->udp.family = a.sa.sa_family;
	if (queues_init(l)) {
		errno = ENOMEM;
		goto fail;
	}
	l->kind = LINK_UDP;
	l->max_users = 1;
	l->udp.fd = fd;
	l->udp.local = gid;
	l->udp.find_ipv4_id = cfg->find_ipv4_id != 0;
	l->xmit = udp_xmit;
	l->tx_buf = udp_tx_buf;
	l->xmit_buf = udp_xmit_buf;
	l->flush = udp_flush;
	l->rx_peek = udp_rx_peek;
	l->rx_done = udp_rx_done;
	l->fini = udp_fini;
	return l;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	queues_fini(l);
	pool_fini(&l->pool);
	free(l);
	errno = err;
	return NULL;
}

int wqe_link_udp_fd(const struct wqe_link *l)
{
	if (!l || l->kind != LINK_UDP) {
		errno = EINVAL;
		return -1;
	}
	return l->udp.fd;
}
