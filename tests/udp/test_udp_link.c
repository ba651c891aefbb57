/* SPDX-License-Identifier: MIT */
/*
 * The UDP link's own operations, with no NIC: frames given to it by copy
 * (xmit) and built in its own buffer (tx_buf/xmit_buf), datagrams read
 * and handed out (rx_peek/rx_done), against a plain socket on the other
 * end.
 *
 * Cases: 63 datagrams wait in the send queue and the 64th sends them all,
 * in order; a link destroyed with datagrams queued and received sends the
 * queued ones and leaks nothing (ASan and valgrind runs); a flood of short
 * datagrams costs one rx_peek() one recvmmsg() and no more, and a call
 * that finds nothing leaves nothing in the link; a receive buffer of the
 * kernel's minimum, overrun: the drop count (SO_RXQ_OVFL) arrives with
 * the next datagram; every datagram keeps its TOS and TTL; an IPv6
 * datagram with a UDP checksum of 0 (what the kernel's rxe sends) is
 * taken.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "link/link_int.h" /* LINK_UDP_BATCH; the link's operations */
#include "testutil.h"
#include "udp_pair.h"
#include "wqe/wire.h"

#define V4_PAYLOAD_OFF (WQE_ETH_LEN + WQE_IPV4_LEN + WQE_UDP_LEN)

/* A UD SEND_ONLY frame from @src to @dst carrying @tag (8 bytes). */
static size_t ud_frame(const union wqe_gid *src, const union wqe_gid *dst, uint64_t tag,
		       uint8_t *out, size_t cap)
{
	struct wqe_pkt k;
	size_t flen = 0;

	memset(&k, 0, sizeof(k));
	k.ipver = 4;
	k.src = *src;
	k.dst = *dst;
	k.ttl = 64;
	k.ip_flags = 2;
	k.sport = 0xc001;
	k.bth.opcode = WQE_WIRE_UD_SEND_ONLY;
	k.bth.pkey = 0xffff;
	k.bth.destqp = 0x123;
	k.bth.psn = (uint32_t)tag & 0xffffff;
	k.deth.qkey = 0x11111111;
	k.deth.srcqp = 0x77;
	CHECK_EQ(wqe_pkt_build(&k, (const uint8_t *)&tag, sizeof(tag), out, cap, &flen), 0);
	return flen;
}

/* The tag of the datagram in @buf (@n bytes): BTH, DETH, tag, ICRC. */
static uint64_t tag_of(const uint8_t *buf, ssize_t n)
{
	uint64_t t = UINT64_MAX;

	if (n == WQE_BTH_LEN + 8 + 8 + WQE_ICRC_LEN)
		memcpy(&t, buf + WQE_BTH_LEN + 8, 8);
	return t;
}

/* Sends frame @tag into @l through @port: by copy, or built in the
 * link's own buffer (the NIC's way, tx_buf/xmit_buf) when @inplace. */
static void queue_one(struct wqe_link *l, struct link_port *port, const union wqe_gid *src,
		      const union wqe_gid *dst, uint64_t tag, int inplace)
{
	uint8_t f[256];
	size_t n;

	if (!inplace) {
		n = ud_frame(src, dst, tag, f, sizeof(f));
		l->xmit(port, f, n);
		return;
	}
	{
		uint8_t *b = l->tx_buf(port);

		CHECK(b != NULL);
		n = ud_frame(src, dst, tag, b, LINK_FRAME_MAX);
		l->xmit_buf(port, b, n);
	}
}

/* Reads @n datagrams from @fd, tags @first on, in order; then none. */
static void expect_tags(int fd, uint64_t first, int n)
{
	uint8_t buf[512];
	int tos, ttl;

	for (int i = 0; i < n; i++)
		CHECK_EQ(tag_of(buf, udp_plain_recv(fd, buf, sizeof(buf), &tos, &ttl)),
			 first + (uint64_t)i);
	CHECK_EQ(udp_plain_recv(fd, buf, sizeof(buf), &tos, &ttl), -1);
}

/*
 * Through the link's operations (no NIC): 63 datagrams wait in the queue,
 * the 64th sends them all; 10 more wait when the port goes and the link
 * is destroyed, with datagrams read and one handed out: the 10 are sent,
 * in order, and nothing leaks.
 */
static void case_queue_destroy(void)
{
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 1};
	struct wqe_udp_cfg c = {0};
	struct wqe_link *l;
	struct link_port *port;
	struct wqe_link_stats s;
	union wqe_gid me, g3;
	struct pollfd pf;
	char a1[16];
	uint8_t f[256];
	const uint8_t *in;
	size_t len = 0;
	int fd = udp_plain_socket(&g3);

	udp_test_addr(1, a1);
	c.local = a1;
	l = wqe_link_udp_create(&c);
	CHECK(l != NULL);
	if (!l)
		return;
	udp_test_gid(1, &me);
	port = link_port_attach(l, mac, false);
	CHECK(port != NULL);
	for (uint64_t t = 0; t < LINK_UDP_BATCH - 1; t++)
		queue_one(l, port, &me, &g3, 1000 + t, (int)(t % 3 == 0));
	CHECK_EQ(wqe_link_stats(l, &s), 0);
	CHECK_EQ(s.frames, LINK_UDP_BATCH - 1);
	CHECK_EQ(s.delivered, 0);
	expect_tags(fd, 0, 0); /* nothing sent yet */
	queue_one(l, port, &me, &g3, 1000 + LINK_UDP_BATCH - 1, 1);
	CHECK_EQ(wqe_link_stats(l, &s), 0);
	CHECK_EQ(s.delivered, LINK_UDP_BATCH);
	expect_tags(fd, 1000, LINK_UDP_BATCH);
	l->flush(port); /* nothing queued: nothing sent */
	expect_tags(fd, 0, 0);

	/* Datagrams for the link: 5 read in one batch, one handed out. */
	for (uint64_t t = 0; t < 5; t++) {
		struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(WQE_ROCEV2_PORT)};
		size_t n = ud_frame(&g3, &me, 50 + t, f, sizeof(f));

		inet_pton(AF_INET, a1, &to.sin_addr);
		CHECK_EQ(sendto(fd, f + V4_PAYLOAD_OFF, n - V4_PAYLOAD_OFF, 0,
				(struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)(n - V4_PAYLOAD_OFF));
	}
	pf = (struct pollfd){wqe_link_udp_fd(l), POLLIN, 0};
	CHECK_EQ(poll(&pf, 1, 5000), 1);
	in = l->rx_peek(port, &len);
	CHECK(in != NULL);
	CHECK_EQ(len, V4_PAYLOAD_OFF + WQE_BTH_LEN + 8 + 8 + WQE_ICRC_LEN);
	if (in)
		CHECK_EQ(tag_of(in + V4_PAYLOAD_OFF, (ssize_t)(len - V4_PAYLOAD_OFF)), 50);
	CHECK_EQ(wqe_link_stats(l, &s), 0);
	CHECK_EQ(s.rx_frames, 1);

	for (uint64_t t = 0; t < 10; t++)
		queue_one(l, port, &me, &g3, 2000 + t, (int)(t & 1));
	expect_tags(fd, 0, 0);
	link_port_detach(port);
	CHECK_EQ(wqe_link_destroy(l), 0);
	expect_tags(fd, 2000, 10);
	close(fd);
}

/* Sends datagrams tagged @first.. (@n of them) from @fd to @to; a short
 * one (3 bytes, below a BTH and an ICRC) for each tag when @junk. */
static void send_tags(int fd, const union wqe_gid *from, const union wqe_gid *to, uint64_t first,
		      int n, int junk)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(WQE_ROCEV2_PORT)};
	uint8_t f[256];

	memcpy(&a.sin_addr, to->raw + 12, 4);
	for (int i = 0; i < n; i++) {
		size_t len = ud_frame(from, to, first + (uint64_t)i, f, sizeof(f)) - V4_PAYLOAD_OFF;

		if (junk)
			len = 3;
		CHECK_EQ(sendto(fd, f + V4_PAYLOAD_OFF, len, 0, (struct sockaddr *)&a, sizeof(a)),
			 (ssize_t)len);
	}
}

/* Takes every frame @l hands out (until rx_peek() finds none): how many;
 * each must carry TOS @tos and TTL @ttl in its rebuilt IPv4 header. */
static int take_all(struct wqe_link *l, struct link_port *port, int tos, int ttl)
{
	const uint8_t *in;
	size_t len;
	int n = 0;

	while ((in = l->rx_peek(port, &len)) != NULL) {
		CHECK_EQ(in[WQE_ETH_LEN + 1], tos);
		CHECK_EQ(in[WQE_ETH_LEN + 8], ttl);
		l->rx_done(port);
		n++;
	}
	return n;
}

/*
 * Receiving through the link's operations, from a plain socket that sends
 * with TOS 0x6a and TTL 33: a flood of short datagrams costs one
 * rx_peek() one recvmmsg() and no more, and when it finds nothing the
 * batch is used up (a caller that sleeps in poll() next leaves nothing in
 * the link); a receive buffer of the kernel's minimum, overrun: the drop
 * count (SO_RXQ_OVFL) comes with the first datagram queued after the
 * drops, whatever slot of a batch it lands in, and every datagram keeps
 * its TOS and TTL.
 */
static void case_receive_ops(void)
{
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 1};
	struct wqe_udp_cfg c = {0};
	struct wqe_link *l;
	struct link_port *port;
	struct wqe_link_stats s;
	union wqe_gid me, g3;
	size_t len;
	char a1[16];
	int tos = 0x6a, ttl = 33, got;
	int fd = udp_plain_socket(&g3);

	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)), 0);
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl)), 0);
	udp_test_addr(1, a1);
	udp_test_gid(1, &me);
	c.local = a1;
	for (int small = 0; small < 2; small++) {
		c.rcvbuf = small ? 1 : 0; /* 1: the kernel's minimum */
		l = wqe_link_udp_create(&c);
		CHECK(l != NULL);
		if (!l)
			break;
		port = link_port_attach(l, mac, false);
		CHECK(port != NULL);
		if (!small) {
			/* 100 short datagrams, then a good one: the first
			 * call reads and drops one batch and stops. */
			send_tags(fd, &g3, &me, 0, 100, 1);
			send_tags(fd, &g3, &me, 0, 1, 0);
			CHECK(l->rx_peek(port, &len) == NULL);
			CHECK_EQ(wqe_link_stats(l, &s), 0);
			CHECK_EQ(s.rx_datagrams, LINK_UDP_BATCH);
			CHECK_EQ(s.rx_short, LINK_UDP_BATCH);
			CHECK_EQ(take_all(l, port, tos, ttl), 1);
			CHECK_EQ(wqe_link_stats(l, &s), 0);
			CHECK_EQ(s.rx_short, 100);
			CHECK_EQ(s.rx_datagrams, 101);
		} else {
			/* One datagram read (slot 0 used); a flood the buffer
			 * cannot hold, read; one more, which comes with the
			 * count of the rest. */
			send_tags(fd, &g3, &me, 0, 1, 0);
			CHECK_EQ(take_all(l, port, tos, ttl), 1);
			send_tags(fd, &g3, &me, 1, 200, 0);
			got = take_all(l, port, tos, ttl);
			CHECK(got > 0 && got < 200);
			CHECK_EQ(wqe_link_stats(l, &s), 0);
			CHECK_EQ(s.rx_kernel_drops, 0);
			send_tags(fd, &g3, &me, 201, 1, 0);
			CHECK_EQ(take_all(l, port, tos, ttl), 1);
			CHECK_EQ(wqe_link_stats(l, &s), 0);
			CHECK_EQ(s.rx_frames, (uint64_t)got + 2);
			CHECK_EQ(s.rx_kernel_drops, 200 - (uint64_t)got);
		}
		CHECK_EQ(s.rx_errors + s.rx_truncated, 0);
		link_port_detach(port);
		CHECK_EQ(wqe_link_destroy(l), 0);
	}
	close(fd);
}

/*
 * IPv6 with a UDP checksum of 0: the kernel's rxe sends RoCEv2 over IPv6
 * so (seen on the wire in tests/interop), and a socket takes such a
 * datagram only with UDP_NO_CHECK6_RX. A plain socket on ::1 sending with
 * UDP_NO_CHECK6_TX stands in for rxe: the link must hand the datagram out.
 */
static void case_zero_csum6(void)
{
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 1};
	struct sockaddr_in6 to = {.sin6_family = AF_INET6,
				  .sin6_port = htons(WQE_ROCEV2_PORT),
				  .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	struct sockaddr_in6 from = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	struct wqe_udp_cfg c = {.local = "::1"};
	struct wqe_link_stats s;
	struct link_port *port;
	struct wqe_link *l;
	uint8_t d[WQE_BTH_LEN + 8 + 8 + WQE_ICRC_LEN];
	int one = 1, fd = socket(AF_INET6, SOCK_DGRAM, 0), n = 0;
	size_t len;

	CHECK(fd >= 0);
	CHECK_EQ(bind(fd, (struct sockaddr *)&from, sizeof(from)), 0);
	CHECK_EQ(setsockopt(fd, IPPROTO_UDP, UDP_NO_CHECK6_TX, &one, sizeof(one)), 0);
	l = wqe_link_udp_create(&c);
	CHECK(l != NULL);
	if (!l) {
		close(fd);
		return;
	}
	port = link_port_attach(l, mac, false);
	CHECK(port != NULL);
	memset(d, 0, sizeof(d));
	d[0] = WQE_WIRE_UD_SEND_ONLY;
	CHECK_EQ(sendto(fd, d, sizeof(d), 0, (struct sockaddr *)&to, sizeof(to)),
		 (ssize_t)sizeof(d));
	/* the loopback delivers at once; a few looks in case it does not */
	for (int i = 0; i < 100 && !n; i++) {
		if (l->rx_peek(port, &len)) {
			l->rx_done(port);
			n++;
		} else {
			poll(NULL, 0, 10);
		}
	}
	CHECK_EQ(n, 1);
	CHECK_EQ(wqe_link_stats(l, &s), 0);
	CHECK_EQ(s.rx_datagrams, 1);
	link_port_detach(port);
	CHECK_EQ(wqe_link_destroy(l), 0);
	close(fd);
}

int main(void)
{
	case_queue_destroy();
	case_receive_ops();
	case_zero_csum6();
	return test_finish();
}
