/* SPDX-License-Identifier: MIT */
/*
 * The UDP link against bad input. wqe_link_udp_create() refuses bad
 * configurations and leaks no descriptor; one context per link; and a
 * context behind a UDP link survives hostile datagrams sent at its socket
 * from a plain UDP socket: a datagram with one flipped bit, or an ICRC
 * computed over other headers than the kernel's, is a bad-ICRC drop that
 * changes nothing; short, truncated and garbage datagrams are dropped and
 * counted; a good datagram from the same socket is taken before and after.
 * Reading IPv4 headers as they arrive (raw, the default for root), the
 * ICRC is checked over the real header; finding the identification from
 * the ICRC (search), datagrams whose ICRC covers another IPv4
 * identification (the kernel's rxe) are taken and damaged ones still are
 * not; assuming 0 and DF, they are refused. Without CAP_NET_RAW, raw is
 * refused and the default searches. On the send side, a frame of the other address family is counted
 * as having no destination, one the kernel refuses as a send error.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "udp_pair.h"
#include "wqe/wire.h"

#define QKEY   0x11111111u
#define SRCQP  0x000777u
#define CANARY 0xc5

static uint8_t rbuf[8192];

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void expect_refused(const char *local, int err)
{
	struct wqe_udp_cfg c = {.local = local};
	struct wqe_link *l;

	errno = 0;
	l = wqe_link_udp_create(&c);
	CHECK(l == NULL);
	if (errno != err)
		test_fail(__FILE__, __LINE__, "'%s': errno %d, expected %d", local ? local : "NULL",
			  errno, err);
	if (l)
		wqe_link_destroy(l);
}

static void test_create(void)
{
	char a1[16], mapped[32];
	struct wqe_udp_cfg c;
	struct wqe_link *l, *loop;
	int fds = count_fds();

	udp_test_addr(1, a1);
	errno = 0;
	CHECK(wqe_link_udp_create(NULL) == NULL);
	CHECK_EQ(errno, EINVAL);
	expect_refused(NULL, EINVAL);
	expect_refused("", EINVAL);
	expect_refused("bogus", EINVAL);
	expect_refused("127.0.0", EINVAL);
	expect_refused("127.0.0.1:4791", EINVAL);
	expect_refused("0.0.0.0", EINVAL);
	expect_refused("::", EINVAL);
	expect_refused("::ffff:0.0.0.0", EINVAL);
	expect_refused("198.51.100.7", EADDRNOTAVAIL); /* TEST-NET-2: not ours */
	memset(&c, 0, sizeof(c));
	c.local = a1;
	l = wqe_link_udp_create(&c);
	CHECK(l != NULL);
	expect_refused(a1, EADDRINUSE);
	CHECK(wqe_link_udp_fd(l) >= 0);
	CHECK_EQ(wqe_link_destroy(l), 0);
	/* the GID form of an IPv4 address binds the IPv4 address */
	snprintf(mapped, sizeof(mapped), "::ffff:%s", a1);
	c.local = mapped;
	l = wqe_link_udp_create(&c);
	CHECK(l != NULL);
	expect_refused(a1, EADDRINUSE);
	CHECK_EQ(wqe_link_destroy(l), 0);
	errno = 0;
	CHECK_EQ(wqe_link_udp_fd(NULL), -1);
	CHECK_EQ(errno, EINVAL);
	loop = wqe_link_loopback_create();
	errno = 0;
	CHECK_EQ(wqe_link_udp_fd(loop), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(wqe_link_udp_ipv4_rx(loop), -1);
	wqe_link_destroy(loop);
	/* the IPv4 header modes: out of the enum refused, names both ways */
	c.local = a1;
	for (int bad = -1; bad <= 5; bad += 6) {
		c.ipv4_rx = bad;
		errno = 0;
		CHECK(wqe_link_udp_create(&c) == NULL);
		CHECK_EQ(errno, EINVAL);
	}
	for (int m = WQE_UDP_IPV4_AUTO; m <= WQE_UDP_IPV4_ASSUME; m++) {
		CHECK_EQ(wqe_udp_ipv4_rx_parse(wqe_udp_ipv4_rx_str(m)), m);
		c.ipv4_rx = m;
		l = wqe_link_udp_create(&c);
		CHECK(l != NULL);
		/* root here (the suite needs it): auto gets the raw socket */
		CHECK_EQ(wqe_link_udp_ipv4_rx(l), m == WQE_UDP_IPV4_AUTO ? WQE_UDP_IPV4_RAW : m);
		expect_refused(a1, EADDRINUSE);
		CHECK_EQ(wqe_link_destroy(l), 0);
	}
	CHECK(wqe_udp_ipv4_rx_str(4) == NULL);
	CHECK(wqe_udp_ipv4_rx_str(-1) == NULL);
	CHECK_EQ(wqe_udp_ipv4_rx_parse("RAW"), -1);
	CHECK_EQ(wqe_udp_ipv4_rx_parse(NULL), -1);
	c.ipv4_rx = WQE_UDP_IPV4_RAW;
	c.local = "::1";
	l = wqe_link_udp_create(&c); /* IPv6: no mode, none needed */
	CHECK(l != NULL);
	errno = 0;
	CHECK_EQ(wqe_link_udp_ipv4_rx(l), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(wqe_link_destroy(l), 0);
	CHECK_EQ(count_fds(), fds);
}

/*
 * Without CAP_NET_RAW (dropped in a child): WQE_UDP_IPV4_RAW is refused
 * with EPERM and leaves nothing open, and the default falls back to
 * searching. The child's exit status says which check failed.
 */
static void test_raw_without_cap(void)
{
	pid_t pid;
	int st;

	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
		struct __user_cap_data_struct d[2];
		struct wqe_udp_cfg c;
		struct wqe_link *l;
		char a1[16];
		int fds = count_fds();

		if (syscall(SYS_capget, &h, d))
			_exit(10);
		d[CAP_NET_RAW / 32].effective &= ~(1u << (CAP_NET_RAW % 32));
		d[CAP_NET_RAW / 32].permitted &= ~(1u << (CAP_NET_RAW % 32));
		if (syscall(SYS_capset, &h, d))
			_exit(11);
		if (socket(AF_INET, SOCK_RAW, IPPROTO_UDP) >= 0)
			_exit(12); /* still permitted: the test proves nothing */
		udp_test_addr(1, a1);
		memset(&c, 0, sizeof(c));
		c.local = a1;
		c.ipv4_rx = WQE_UDP_IPV4_RAW;
		errno = 0;
		if (wqe_link_udp_create(&c) || errno != EPERM)
			_exit(13);
		if (count_fds() != fds)
			_exit(14);
		c.ipv4_rx = WQE_UDP_IPV4_AUTO;
		l = wqe_link_udp_create(&c);
		if (!l || wqe_link_udp_ipv4_rx(l) != WQE_UDP_IPV4_SEARCH)
			_exit(15);
		wqe_link_destroy(l);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
}

/* One context per UDP link. */
static void test_attach(void)
{
	struct uep e;
	struct wqe_context *other;

	CHECK_EQ(uep_open(&e, 1, WQE_QPT_UD, 4), 0);
	other = wqe_open_context(NULL);
	CHECK(other != NULL);
	CHECK_EQ(wqe_context_attach_link(other, e.link), EBUSY);
	CHECK_EQ(wqe_link_destroy(e.link), EBUSY);
	CHECK_EQ(wqe_context_attach_link(e.ctx, e.link), 0); /* again: still its own */
	CHECK_EQ(wqe_context_attach_link(other, e.link), EBUSY);
	CHECK_EQ(wqe_context_attach_link(e.ctx, NULL), 0);
	CHECK_EQ(wqe_context_attach_link(other, e.link), 0);
	CHECK_EQ(wqe_context_attach_link(other, NULL), 0);
	CHECK_EQ(wqe_context_attach_link(e.ctx, e.link), 0);
	CHECK_EQ(wqe_close_context(other), 0);
	uep_close(&e);
}

/* A plain UDP socket on 127.X.Y.3, an ephemeral port. */
static int raw_socket(struct sockaddr_in *me)
{
	char a3[16];
	socklen_t len = sizeof(*me);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	/* PMTU discovery on, as the link's own sockets: the kernel then
	 * writes identification 0 with DF, what ud_datagram() covers
	 * (IP_PMTUDISC_WANT would give a counter's value: the link, reading
	 * headers as they arrive, would rightly refuse the ICRC). */
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &(int){IP_PMTUDISC_DO}, sizeof(int)),
		 0);
	udp_test_addr(3, a3);
	memset(me, 0, sizeof(*me));
	me->sin_family = AF_INET;
	inet_pton(AF_INET, a3, &me->sin_addr);
	CHECK(fd >= 0);
	CHECK_EQ(bind(fd, (struct sockaddr *)me, sizeof(*me)), 0);
	CHECK_EQ(getsockname(fd, (struct sockaddr *)me, &len), 0);
	return fd;
}

/*
 * A UD SEND_ONLY to B's QP as a UDP payload (BTH to ICRC) in @out, with
 * the ICRC over the IPv4/UDP headers from @from (ID @ip_id, flags
 * @ip_flags: 2 is DF; ud_datagram() sets DF) to B, UDP source port
 * @icrc_sport. Returns its length.
 */
static size_t ud_frame(const struct upair *p, const struct sockaddr_in *from, uint16_t ip_id,
		       uint8_t ip_flags, uint16_t icrc_sport, const uint8_t *payload, uint32_t len,
		       uint8_t *frame, size_t cap)
{
	struct wqe_pkt k;
	size_t flen = 0;

	memset(&k, 0, sizeof(k));
	k.ipver = 4;
	k.src.raw[10] = k.src.raw[11] = 0xff;
	memcpy(k.src.raw + 12, &from->sin_addr, 4);
	k.dst = p->b.gid;
	k.ttl = 64;
	k.ip_id = ip_id;
	k.ip_flags = ip_flags;
	k.sport = icrc_sport;
	k.bth.opcode = WQE_WIRE_UD_SEND_ONLY;
	k.bth.pkey = 0xffff;
	k.bth.destqp = wqe_qp_num(p->b.qp);
	k.bth.psn = 5;
	k.deth.qkey = QKEY;
	k.deth.srcqp = SRCQP;
	CHECK_EQ(wqe_pkt_build(&k, payload, len, frame, cap, &flen), 0);
	return flen;
}

static size_t ud_datagram_flags(const struct upair *p, const struct sockaddr_in *from,
				uint16_t ip_id, uint8_t ip_flags, uint16_t icrc_sport,
				const uint8_t *payload, uint32_t len, uint8_t *out)
{
	uint8_t frame[8192];
	const size_t hl = WQE_ETH_LEN + WQE_IPV4_LEN + WQE_UDP_LEN;
	size_t flen = ud_frame(p, from, ip_id, ip_flags, icrc_sport, payload, len, frame,
			       sizeof(frame));

	memcpy(out, frame + hl, flen - hl);
	return flen - hl;
}

static size_t ud_datagram(const struct upair *p, const struct sockaddr_in *from, uint16_t ip_id,
			  uint16_t icrc_sport, const uint8_t *payload, uint32_t len, uint8_t *out)
{
	return ud_datagram_flags(p, from, ip_id, 2, icrc_sport, payload, len, out);
}

static void send_to_b(const struct upair *p, int fd, const uint8_t *d, size_t len)
{
	struct sockaddr_in to;

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_port = htons(WQE_ROCEV2_PORT);
	inet_pton(AF_INET, p->b.addr, &to.sin_addr);
	CHECK_EQ(sendto(fd, d, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
}

/* Progress on B until its link has read @want datagrams in all. */
static void drain(struct upair *p, uint64_t want)
{
	struct wqe_link_stats s;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		wqe_progress(p->b.ctx);
		wqe_link_stats(p->b.link, &s);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (s.rx_datagrams < want && t.tv_sec - t0.tv_sec < 10);
	CHECK_EQ(s.rx_datagrams, want);
	upair_spin(p, 4);
}

static void post_recv(struct upair *p, struct wqe_mr *mr, uint64_t id)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)rbuf, sizeof(rbuf), mr->lkey};
	struct wqe_recv_wr r = {.wr_id = id, .sg_list = &s, .num_sge = 1}, *bad;

	memset(rbuf, CANARY, sizeof(rbuf));
	CHECK_EQ(wqe_post_recv(p->b.qp, &r, &bad), 0);
}

/* B takes the good datagram into the receive posted as @id. */
static void expect_good(struct upair *p, const uint8_t *payload, uint32_t len, uint64_t id)
{
	struct wqe_wc wc;

	CHECK_EQ(upair_wait(p, p->b.rcq, 1, &wc, 10.0), 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, id);
	CHECK_EQ(wc.byte_len, len + 40);
	CHECK_EQ(wc.src_qp, SRCQP);
	CHECK_MEM(rbuf + 40, payload, len);
}

static void test_hostile(void)
{
	struct upair p;
	struct sockaddr_in me;
	struct wqe_mr *mr;
	struct wqe_link_stats s0, s;
	struct test_rng rng;
	struct wqe_wc wc;
	uint8_t payload[300], d[8192], junk[70000];
	uint64_t n = 0, icrc_drops;
	size_t len;
	int fd;
	struct pollfd pf;

	test_rng_seed(&rng, 77);
	test_rng_fill(&rng, payload, sizeof(payload));
	CHECK_EQ(upair_open(&p, WQE_QPT_UD, WQE_MTU_4096, 16), 0);
	mr = wqe_reg_mr(p.b.pd, rbuf, sizeof(rbuf), WQE_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	fd = raw_socket(&me);
	wqe_link_stats(p.b.link, &s0);

	/* A good datagram: the sender's real port and addresses, ID 0, DF.
	 * The link's descriptor polls readable when it waits. */
	post_recv(&p, mr, 1);
	len = ud_datagram(&p, &me, 0, ntohs(me.sin_port), payload, sizeof(payload), d);
	send_to_b(&p, fd, d, len);
	pf.fd = wqe_link_udp_fd(p.b.link);
	pf.events = POLLIN;
	CHECK_EQ(poll(&pf, 1, 5000), 1);
	drain(&p, ++n);
	expect_good(&p, payload, sizeof(payload), 1);
	CHECK_EQ(p.b.drops, 0);

	/* The same with one bit flipped: a bad ICRC, nothing placed. */
	post_recv(&p, mr, 2);
	for (size_t bit = 0; bit < len * 8; bit += 97) {
		d[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		send_to_b(&p, fd, d, len);
		d[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		n++;
	}
	drain(&p, n);
	icrc_drops = p.b.bad_icrc;
	CHECK(icrc_drops > 0);
	/* a flip in the BTH can make it malformed or not ours instead */
	CHECK_EQ(p.b.drops, n - 1);
	/* ICRC over another IPv4 identification (what the kernel's rxe sends),
	 * or over UDP source port 4791 instead of the sender's */
	len = ud_datagram(&p, &me, 0x1234, ntohs(me.sin_port), payload, sizeof(payload), d);
	send_to_b(&p, fd, d, len);
	len = ud_datagram(&p, &me, 0, WQE_ROCEV2_PORT, payload, sizeof(payload), d);
	send_to_b(&p, fd, d, len);
	n += 2;
	drain(&p, n);
	CHECK_EQ(p.b.bad_icrc, icrc_drops + 2);

	/* Too short for a BTH and ICRC (the link drops them), an opcode that
	 * does not exist (the NIC does), too long for a frame. */
	memset(junk, 0xff, sizeof(junk));
	send_to_b(&p, fd, junk, 0);
	send_to_b(&p, fd, junk, 3);
	send_to_b(&p, fd, junk, 15);
	send_to_b(&p, fd, junk, 16);
	send_to_b(&p, fd, junk, 5000);
	send_to_b(&p, fd, junk, 65000);
	n += 6;
	drain(&p, n);
	wqe_link_stats(p.b.link, &s);
	CHECK_EQ(s.rx_short - s0.rx_short, 3);
	CHECK_EQ(s.rx_truncated - s0.rx_truncated, 2);
	CHECK_EQ(p.b.malformed, 1);

	/* Garbage of every length up to past the largest frame. */
	for (int i = 0; i < 300; i++) {
		size_t jl = (size_t)test_rng_below(&rng, 4600);

		test_rng_fill(&rng, junk, jl);
		send_to_b(&p, fd, junk, jl);
		n++;
		if (i % 50 == 49)
			drain(&p, n);
	}
	drain(&p, n);
	wqe_link_stats(p.b.link, &s);
	CHECK_EQ(s.rx_frames + (s.rx_short - s0.rx_short) + (s.rx_truncated - s0.rx_truncated),
		 s.rx_datagrams - s0.rx_datagrams);
	CHECK_EQ(s.rx_errors, 0);
	/* nothing placed, nothing completed, the receive still waits */
	CHECK_EQ(wqe_poll_cq(p.b.rcq, 1, &wc), 0);
	CHECK_EQ(p.b.rx, 1);
	for (size_t i = 0; i < sizeof(rbuf); i++)
		if (rbuf[i] != CANARY) {
			CHECK_EQ(i, sizeof(rbuf));
			break;
		}
	/* and the next good datagram takes it */
	len = ud_datagram(&p, &me, 0, ntohs(me.sin_port), payload, 17, d);
	send_to_b(&p, fd, d, len);
	drain(&p, ++n);
	expect_good(&p, payload, 17, 2);
	close(fd);
	wqe_dereg_mr(mr);
	upair_close(&p);
}

/* UD SEND of 64 bytes from @qp through an AH of GID index @sgid to @dgid;
 * waits for its completion (UD: done once it left the port). */
static void ud_send(struct wqe_pd *pd, struct wqe_qp *qp, struct wqe_cq *cq, struct wqe_mr *mr,
		    uint8_t sgid, const char *dgid)
{
	struct wqe_ah_attr aa;
	struct wqe_ah *ah;
	struct wqe_send_wr wr, *bad;
	struct wqe_sge sge = {(uint64_t)(uintptr_t)rbuf, 64, mr->lkey};
	struct wqe_wc wc;
	int got = 0;

	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.grh.sgid_index = sgid;
	inet_pton(AF_INET6, dgid, aa.grh.dgid.raw);
	ah = wqe_create_ah(pd, &aa);
	CHECK(ah != NULL);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 9;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_SEND;
	wr.send_flags = WQE_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0x123;
	wr.wr.ud.remote_qkey = QKEY;
	CHECK_EQ(wqe_post_send(qp, &wr, &bad), 0);
	for (int i = 0; i < 1000 && !got; i++)
		got = wqe_poll_cq(cq, 1, &wc);
	CHECK_EQ(got, 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	wqe_destroy_ah(ah);
}

/*
 * On a link bound to an IPv4 address: a frame from an IPv6 GID has no
 * destination; a frame the kernel refuses (an IPv4 frame to 0.0.0.153, what
 * an IPv6 destination becomes from an IPv4 source GID) is a send error.
 */
static void test_send_refused(void)
{
	struct wqe_udp_cfg uc;
	struct wqe_context_attr ca;
	struct wqe_link *l;
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *cq;
	struct wqe_qp *qp;
	struct wqe_mr *mr;
	struct wqe_qp_init_attr ia;
	struct wqe_link_stats s;
	char a1[16];

	udp_test_addr(1, a1);
	memset(&uc, 0, sizeof(uc));
	uc.local = a1;
	l = wqe_link_udp_create(&uc);
	memset(&ca, 0, sizeof(ca));
	ca.format = test_format();
	ca.mac[0] = 2;
	ca.num_gids = 2;
	udp_test_gid(1, &ca.gid[0]);
	inet_pton(AF_INET6, "fd00::1", ca.gid[1].raw);
	ctx = wqe_open_context(&ca);
	CHECK(l && ctx);
	CHECK_EQ(wqe_context_attach_link(ctx, l), 0);
	pd = wqe_alloc_pd(ctx);
	cq = wqe_create_cq(ctx, 16);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = WQE_QPT_UD;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qp = wqe_create_qp(pd, &ia);
	mr = wqe_reg_mr(pd, rbuf, 64, WQE_ACCESS_LOCAL_WRITE);
	CHECK(pd && cq && qp && mr);
	CHECK_EQ(test_qp_to_rts(qp, WQE_QPT_UD, 0, WQE_MTU_1024), 0);
	ud_send(pd, qp, cq, mr, 1, "fd00::99");
	CHECK_EQ(wqe_link_stats(l, &s), 0);
	CHECK_EQ(s.frames, 1);
	CHECK_EQ(s.no_destination, 1);
	CHECK_EQ(s.delivered + s.tx_errors + s.queue_full, 0);
	ud_send(pd, qp, cq, mr, 0, "fd00::99");
	CHECK_EQ(wqe_link_stats(l, &s), 0);
	CHECK_EQ(s.frames, 2);
	CHECK_EQ(s.no_destination, 1);
	CHECK_EQ(s.tx_errors, 1);
	CHECK_EQ(s.delivered, 0);
	wqe_dereg_mr(mr);
	wqe_destroy_qp(qp);
	wqe_destroy_cq(cq);
	wqe_dealloc_pd(pd);
	CHECK_EQ(wqe_context_attach_link(ctx, NULL), 0);
	CHECK_EQ(wqe_close_context(ctx), 0);
	CHECK_EQ(wqe_link_destroy(l), 0);
}

static void be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* B's link again, with IPv4 header mode @mode. */
static void relink_b(struct upair *p, int mode)
{
	struct wqe_udp_cfg c;

	CHECK_EQ(wqe_context_attach_link(p->b.ctx, NULL), 0);
	CHECK_EQ(wqe_link_destroy(p->b.link), 0);
	memset(&c, 0, sizeof(c));
	c.local = p->b.addr;
	c.ipv4_rx = mode;
	p->b.link = wqe_link_udp_create(&c);
	CHECK(p->b.link != NULL);
	CHECK_EQ(wqe_link_udp_ipv4_rx(p->b.link), mode);
	CHECK_EQ(wqe_context_attach_link(p->b.ctx, p->b.link), 0);
}

/* Sends the IPv4 packet of frame @f (@len bytes from its Ethernet
 * header) to B as it is, header included (a raw IP_HDRINCL socket: the
 * kernel keeps a nonzero identification and fills in the checksum). */
static void send_ip_to_b(const struct upair *p, int rfd, const uint8_t *f, size_t len)
{
	struct sockaddr_in to;

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	inet_pton(AF_INET, p->b.addr, &to.sin_addr);
	CHECK_EQ(sendto(rfd, f + WQE_ETH_LEN, len - WQE_ETH_LEN, 0, (struct sockaddr *)&to,
			sizeof(to)),
		 (ssize_t)(len - WQE_ETH_LEN));
}

/*
 * WQE_UDP_IPV4_RAW: B's link reads each datagram with the IPv4 header it
 * arrived with, so the ICRC is checked on all 32 bits over that header.
 * Datagrams with the identifications and flags other senders write, or a
 * nonzero UDP checksum (wrong, even: not checked, documented) are taken;
 * one whose ICRC covers another identification or DF than its header has
 * is a bad-ICRC drop (finding them from the ICRC would have taken it), as
 * is one from a plain socket whose ICRC covers identification 0x4321 (the
 * kernel wrote 0). A datagram with IP options is dropped as malformed.
 * Nothing is placed for any drop, and the next good datagram is taken.
 */
static void test_ipv4_raw(void)
{
	static const struct {
		uint16_t id;
		uint8_t flags;
		uint16_t csum;
	} ok[] = {{0x1234, 2, 0}, {0xbeef, 0, 0}, {0xffff, 2, 0}, {0x0101, 2, 0x5a5a}};
	struct upair p;
	struct sockaddr_in me, from;
	struct wqe_mr *mr;
	struct wqe_link_stats s;
	uint8_t payload[200], f[8192], d[8192];
	uint64_t n = 0;
	size_t len;
	int rfd, fd;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 11 + 3);
	CHECK_EQ(upair_open(&p, WQE_QPT_UD, WQE_MTU_4096, 16), 0);
	relink_b(&p, WQE_UDP_IPV4_RAW);
	mr = wqe_reg_mr(p.b.pd, rbuf, sizeof(rbuf), WQE_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	fd = raw_socket(&me);
	rfd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	CHECK(rfd >= 0);
	from = me;
	from.sin_port = htons(0xc123); /* any port: the header is ours */
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		post_recv(&p, mr, 10 + i);
		len = ud_frame(&p, &from, ok[i].id, ok[i].flags, 0xc123, payload,
			       (uint32_t)(50 + i), f, sizeof(f));
		be16(f + WQE_ETH_LEN + WQE_IPV4_LEN + 6, ok[i].csum);
		send_ip_to_b(&p, rfd, f, len);
		drain(&p, ++n);
		expect_good(&p, payload, (uint32_t)(50 + i), 10 + i);
	}
	wqe_link_stats(p.b.link, &s);
	CHECK_EQ(s.rx_ipv4_raw, n);
	CHECK_EQ(s.rx_ipv4_searched + s.rx_ipv4_assumed, 0);
	CHECK_EQ(p.b.drops, 0);
	/* the ICRC over identification 0x1235 or without DF, the header 0x1234
	 * with DF */
	post_recv(&p, mr, 20);
	len = ud_frame(&p, &from, 0x1235, 2, 0xc123, payload, 60, f, sizeof(f));
	be16(f + WQE_ETH_LEN + 4, 0x1234);
	send_ip_to_b(&p, rfd, f, len);
	len = ud_frame(&p, &from, 0x1234, 0, 0xc123, payload, 60, f, sizeof(f));
	be16(f + WQE_ETH_LEN + 6, 0x4000);
	send_ip_to_b(&p, rfd, f, len);
	len = ud_datagram(&p, &me, 0x4321, ntohs(me.sin_port), payload, 60, d);
	send_to_b(&p, fd, d, len);
	n += 3;
	drain(&p, n);
	CHECK_EQ(p.b.bad_icrc, 3);
	CHECK_EQ(p.b.drops, 3);
	/* IP options (one word of NOPs): not the link's to take */
	len = ud_frame(&p, &from, 0x2222, 2, 0xc123, payload, 60, f, sizeof(f));
	memmove(f + WQE_ETH_LEN + 24, f + WQE_ETH_LEN + 20, len - WQE_ETH_LEN - 20);
	memset(f + WQE_ETH_LEN + 20, 1, 4);
	f[WQE_ETH_LEN] = 0x46;
	be16(f + WQE_ETH_LEN + 2, (uint16_t)(len - WQE_ETH_LEN + 4));
	send_ip_to_b(&p, rfd, f, len + 4);
	drain(&p, ++n);
	wqe_link_stats(p.b.link, &s);
	CHECK_EQ(s.rx_malformed, 1);
	CHECK_EQ(s.rx_frames, n - 1);
	CHECK_EQ(wqe_poll_cq(p.b.rcq, 1, &(struct wqe_wc){0}), 0);
	/* the receive still waits, and takes the next good one */
	len = ud_frame(&p, &from, 0x3333, 2, 0xc123, payload, 17, f, sizeof(f));
	send_ip_to_b(&p, rfd, f, len);
	drain(&p, ++n);
	expect_good(&p, payload, 17, 20);
	close(rfd);
	close(fd);
	wqe_dereg_mr(mr);
	upair_close(&p);
}

/* WQE_UDP_IPV4_ASSUME: identification 0 and DF, taken; another, a
 * bad-ICRC drop; each counted as assumed. */
static void test_ipv4_assume(void)
{
	struct upair p;
	struct sockaddr_in me;
	struct wqe_mr *mr;
	struct wqe_link_stats s;
	uint8_t payload[64], d[8192];
	size_t len;
	int fd;

	memset(payload, 0x3c, sizeof(payload));
	CHECK_EQ(upair_open(&p, WQE_QPT_UD, WQE_MTU_4096, 16), 0);
	relink_b(&p, WQE_UDP_IPV4_ASSUME);
	mr = wqe_reg_mr(p.b.pd, rbuf, sizeof(rbuf), WQE_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	fd = raw_socket(&me);
	post_recv(&p, mr, 1);
	len = ud_datagram(&p, &me, 0x0707, ntohs(me.sin_port), payload, sizeof(payload), d);
	send_to_b(&p, fd, d, len);
	drain(&p, 1);
	CHECK_EQ(p.b.bad_icrc, 1);
	len = ud_datagram(&p, &me, 0, ntohs(me.sin_port), payload, sizeof(payload), d);
	send_to_b(&p, fd, d, len);
	drain(&p, 2);
	expect_good(&p, payload, sizeof(payload), 1);
	wqe_link_stats(p.b.link, &s);
	CHECK_EQ(s.rx_ipv4_assumed, 2);
	CHECK_EQ(s.rx_ipv4_raw + s.rx_ipv4_searched, 0);
	close(fd);
	wqe_dereg_mr(mr);
	upair_close(&p);
}

/*
 * WQE_UDP_IPV4_SEARCH: B's link takes each datagram's identification
 * and DF from its ICRC. Datagrams as the kernel's rxe sends them (a
 * nonzero identification, DF; and one without DF) are taken, their
 * identification counted as found; one with identification 0 and DF is
 * taken and not counted; a damaged one and one whose ICRC covers another
 * UDP source port stay drops (the NIC checks the ICRC over the header the
 * link rebuilt, so a taken datagram had the identification found).
 */
static void test_find_ipv4_id(void)
{
	static const struct {
		uint16_t id;
		uint8_t flags;
	} ok[] = {{0x1234, 2}, {0, 2}, {0xbeef, 0}, {0xffff, 2}};
	struct upair p;
	struct sockaddr_in me;
	struct wqe_mr *mr;
	struct wqe_link_stats s;
	uint8_t payload[200], d[8192];
	uint64_t n = 0, drops;
	size_t len;
	int fd;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 13 + 1);
	CHECK_EQ(upair_open(&p, WQE_QPT_UD, WQE_MTU_4096, 16), 0);
	relink_b(&p, WQE_UDP_IPV4_SEARCH);
	mr = wqe_reg_mr(p.b.pd, rbuf, sizeof(rbuf), WQE_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	fd = raw_socket(&me);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		post_recv(&p, mr, 10 + i);
		len = ud_datagram_flags(&p, &me, ok[i].id, ok[i].flags, ntohs(me.sin_port), payload,
					(uint32_t)(40 + i), d);
		send_to_b(&p, fd, d, len);
		drain(&p, ++n);
		expect_good(&p, payload, (uint32_t)(40 + i), 10 + i);
	}
	wqe_link_stats(p.b.link, &s);
	CHECK_EQ(s.rx_frames, n);
	CHECK_EQ(s.rx_ipv4_id_found, 3); /* all but 0 with DF */
	CHECK_EQ(p.b.drops, 0);
	/* Damaged on the way (every 31st bit of the datagram in turn), or
	 * an ICRC over UDP source port 4791: no identification explains it. */
	post_recv(&p, mr, 20);
	len = ud_datagram(&p, &me, 0x4321, ntohs(me.sin_port), payload, sizeof(payload), d);
	for (size_t bit = 0; bit < len * 8; bit += 31) {
		d[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		send_to_b(&p, fd, d, len);
		d[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		n++;
	}
	len = ud_datagram(&p, &me, 0x4321, WQE_ROCEV2_PORT, payload, sizeof(payload), d);
	send_to_b(&p, fd, d, len);
	n++;
	drain(&p, n);
	drops = p.b.drops;
	CHECK_EQ(drops, n - sizeof(ok) / sizeof(ok[0]));
	CHECK(p.b.bad_icrc > 0);
	wqe_link_stats(p.b.link, &s);
	CHECK_EQ(s.rx_ipv4_id_found, 3);
	/* The receive still waits, and takes the next good one. */
	len = ud_datagram(&p, &me, 0x0101, ntohs(me.sin_port), payload, 17, d);
	send_to_b(&p, fd, d, len);
	drain(&p, ++n);
	expect_good(&p, payload, 17, 20);
	wqe_link_stats(p.b.link, &s);
	CHECK_EQ(s.rx_ipv4_id_found, 4);
	close(fd);
	wqe_dereg_mr(mr);
	upair_close(&p);
}

/*
 * IPv6 with UDP checksum 0, as rxe sends it: a UD SEND crafted on a raw
 * IPv6 socket (whose UDP checksum the kernel leaves as given) from ::1 to a
 * link on ::1 is taken; a plain IPv6 UDP socket would drop it.
 */
static void test_ipv6_zero_csum(void)
{
	struct wqe_udp_cfg uc = {.local = "::1"};
	struct wqe_context_attr ca;
	struct wqe_link *l;
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *cq;
	struct wqe_qp *qp;
	struct wqe_qp_init_attr ia;
	struct wqe_mr *mr;
	struct wqe_pkt k;
	struct wqe_wc wc;
	struct sockaddr_in6 to;
	uint8_t payload[100], frame[1024];
	size_t flen = 0;
	const size_t l4 = WQE_ETH_LEN + 40;
	int fd, got = 0;

	l = wqe_link_udp_create(&uc);
	CHECK(l != NULL);
	memset(&ca, 0, sizeof(ca));
	ca.format = test_format();
	ca.mac[0] = 0x02;
	ca.num_gids = 1;
	ca.gid[0].raw[15] = 1;
	ctx = wqe_open_context(&ca);
	CHECK(ctx != NULL);
	CHECK_EQ(wqe_context_attach_link(ctx, l), 0);
	pd = wqe_alloc_pd(ctx);
	cq = wqe_create_cq(ctx, 16);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = WQE_QPT_UD;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qp = wqe_create_qp(pd, &ia);
	CHECK(pd && cq && qp);
	CHECK_EQ(test_qp_to_rts(qp, WQE_QPT_UD, 0, WQE_MTU_1024), 0);
	mr = wqe_reg_mr(pd, rbuf, sizeof(rbuf), WQE_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	{
		struct wqe_sge sg = {(uint64_t)(uintptr_t)rbuf, sizeof(rbuf), mr->lkey};
		struct wqe_recv_wr r = {.wr_id = 6, .sg_list = &sg, .num_sge = 1}, *bad;

		CHECK_EQ(wqe_post_recv(qp, &r, &bad), 0);
	}
	memset(payload, 0x6c, sizeof(payload));
	memset(&k, 0, sizeof(k));
	k.ipver = 6;
	k.src.raw[15] = 1;
	k.dst.raw[15] = 1;
	k.ttl = 64;
	k.sport = 0xc0de;
	k.bth.opcode = WQE_WIRE_UD_SEND_ONLY;
	k.bth.pkey = 0xffff;
	k.bth.destqp = wqe_qp_num(qp);
	k.deth.qkey = QKEY;
	k.deth.srcqp = SRCQP;
	CHECK_EQ(wqe_pkt_build(&k, payload, sizeof(payload), frame, sizeof(frame), &flen), 0);
	be16(frame + l4 + 6, 0); /* no checksum: masked out of the ICRC */
	fd = socket(AF_INET6, SOCK_RAW, IPPROTO_UDP);
	CHECK(fd >= 0);
	memset(&to, 0, sizeof(to));
	to.sin6_family = AF_INET6;
	to.sin6_addr.s6_addr[15] = 1;
	CHECK_EQ(sendto(fd, frame + l4, flen - l4, 0, (struct sockaddr *)&to, sizeof(to)),
		 (ssize_t)(flen - l4));
	for (int i = 0; i < 2000 && !got; i++) {
		struct pollfd pf = {wqe_link_udp_fd(l), POLLIN, 0};

		(void)poll(&pf, 1, 1);
		got = wqe_poll_cq(cq, 1, &wc);
	}
	CHECK_EQ(got, 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 6);
	CHECK_EQ(wc.byte_len, sizeof(payload) + 40);
	CHECK_MEM(rbuf + 40, payload, sizeof(payload));
	close(fd);
	wqe_dereg_mr(mr);
	wqe_destroy_qp(qp);
	wqe_destroy_cq(cq);
	wqe_dealloc_pd(pd);
	CHECK_EQ(wqe_context_attach_link(ctx, NULL), 0);
	CHECK_EQ(wqe_close_context(ctx), 0);
	CHECK_EQ(wqe_link_destroy(l), 0);
}

int main(void)
{
	test_create();
	test_attach();
	test_hostile();
	test_find_ipv4_id();
	test_ipv4_raw();
	test_ipv4_assume();
	test_raw_without_cap();
	test_ipv6_zero_csum();
	test_send_refused();
	return test_finish();
}
