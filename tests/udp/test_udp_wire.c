/* SPDX-License-Identifier: MIT */
/*
 * What the UDP link puts on the wire. Context A (127.X.Y.1) sends every
 * kind of request packet (RC WRITE over three packets, SEND with
 * immediate, READ request, both atomics, WRITE with immediate and no
 * payload; a UD SEND) to 127.X.Y.2, where a plain UDP socket takes the
 * datagrams in place of a NIC. Each datagram must be the NIC's frame from
 * the BTH on, with the ICRC alone replaced, sent from the frame's own
 * per-QP UDP source port (not 4791) with the address vector's TOS and TTL. Then the IPv4 header the kernel sent is
 * rebuilt (identification 0 and DF: Linux's rule for a DF datagram of an
 * unconnected socket; the netns test sees the real wire) and scapy, an
 * oracle we did not write, checks every ICRC; with identification 1
 * instead, scapy must refuse every frame.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "udp_pair.h"
#include "wqe/wire.h"

#define MAXF   64
#define TCLASS 0x6a /* DSCP 26, ECN ECT(0) */
#define HOP    33

struct frame {
	uint8_t b[4500];
	size_t len;
};

static struct frame tx[MAXF], rx[MAXF];
static uint8_t rx_tos[MAXF], rx_ttl[MAXF];
static uint16_t rx_sport[MAXF];
static unsigned ntx, nrx;
static uint8_t buf[65536];

static void on_tx(void *arg, const struct wqe_trace_event *ev)
{
	(void)arg;
	if (ev->kind != WQE_TRACE_TX || ntx == MAXF || ev->len > sizeof(tx[0].b))
		return;
	memcpy(tx[ntx].b, ev->frame, ev->len);
	tx[ntx++].len = ev->len;
}

/* The plain socket in B's place: 127.X.Y.2 port 4791, TTL and TOS given. */
static int sniffer(void)
{
	struct sockaddr_in a;
	char b[16];
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;

	udp_test_addr(2, b);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(WQE_ROCEV2_PORT);
	inet_pton(AF_INET, b, &a.sin_addr);
	CHECK(fd >= 0);
	CHECK_EQ(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one)), 0);
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)), 0);
	return fd;
}

static int take(int fd)
{
	struct sockaddr_in from;
	char ctl[256];
	struct iovec iov = {rx[nrx].b, sizeof(rx[nrx].b)};
	struct msghdr m;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.msg_name = &from;
	m.msg_namelen = sizeof(from);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	n = recvmsg(fd, &m, MSG_DONTWAIT);
	if (n < 0)
		return 0;
	CHECK(!(m.msg_flags & MSG_TRUNC));
	rx[nrx].len = (size_t)n;
	rx_sport[nrx] = ntohs(from.sin_port);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
			rx_tos[nrx] = *CMSG_DATA(c);
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			rx_ttl[nrx] = (uint8_t)v;
		}
	}
	nrx++;
	return 1;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* RFC 791 header checksum, written here rather than taken from the library. */
static unsigned ipv4_sum(const uint8_t *h)
{
	unsigned long s = 0;

	for (int i = 0; i < 20; i += 2)
		s += (unsigned long)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (unsigned)(~s & 0xffff);
}

/* Datagram @i as the frame the kernel sent, with IPv4 identification @id. */
static size_t wire_frame(unsigned i, unsigned id, const uint8_t src[4], const uint8_t dst[4],
			 uint8_t *f)
{
	uint8_t *ip = f + 14, *udp = ip + 20;

	memset(f, 0, 42);
	f[0] = 2;
	f[5] = 2;
	f[6] = 2;
	f[11] = 1;
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	ip[1] = rx_tos[i];
	put16(ip + 2, (unsigned)(28 + rx[i].len));
	put16(ip + 4, id);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = rx_ttl[i];
	ip[9] = 17;
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	put16(ip + 10, ipv4_sum(ip));
	put16(udp, rx_sport[i]);
	put16(udp + 2, WQE_ROCEV2_PORT);
	put16(udp + 4, (unsigned)(8 + rx[i].len));
	memcpy(udp + 8, rx[i].b, rx[i].len);
	return 42 + rx[i].len;
}

/* Writes every datagram as a frame with IPv4 identification @id to @path,
 * then runs scapy on it: its exit status. */
static int scapy_verdict(const char *path, unsigned id, const uint8_t src[4], const uint8_t dst[4])
{
	struct wqe_pcap *w = wqe_pcap_open(path);
	char cmd[1024];
	int st;

	CHECK(w != NULL);
	if (!w)
		return -1;
	for (unsigned i = 0; i < nrx; i++) {
		size_t n = wire_frame(i, id, src, dst, buf);
		struct wqe_pkt k;

		CHECK_EQ(wqe_pcap_write(w, buf, n, (uint64_t)i * 1000), 0);
		/* our own parser agrees, for the record */
		CHECK_EQ(wqe_pkt_parse(buf, n, &k), 0);
		CHECK_EQ(k.icrc_ok, id == 0);
	}
	CHECK_EQ(wqe_pcap_close(w), 0);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' >'%s.out' 2>&1", WQE_TEST_PYTHON, WQE_TEST_SCAPY,
		 path, path);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* A's requests: one of each kind of request packet. */
static void post_all(struct uep *a, struct wqe_qp *ud, struct wqe_ah *ah, struct wqe_mr *mr,
		     uint8_t *mem)
{
	static const struct {
		enum wqe_wr_opcode op;
		uint32_t len;
	} reqs[] = {{WQE_WR_RDMA_WRITE, 2500},	      {WQE_WR_SEND_WITH_IMM, 101},
		    {WQE_WR_RDMA_READ, 4000},	      {WQE_WR_ATOMIC_CMP_AND_SWP, 8},
		    {WQE_WR_ATOMIC_FETCH_AND_ADD, 8}, {WQE_WR_RDMA_WRITE_WITH_IMM, 0}};
	struct wqe_send_wr wr, *bad;
	struct wqe_sge s;

	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		memset(&wr, 0, sizeof(wr));
		s.addr = (uint64_t)(uintptr_t)mem;
		s.length = reqs[i].len;
		s.lkey = mr->lkey;
		wr.wr_id = i;
		wr.sg_list = &s;
		wr.num_sge = reqs[i].len ? 1 : 0;
		wr.opcode = reqs[i].op;
		wr.imm_data = 0x01020304;
		wr.wr.rdma.remote_addr = 0x10000;
		wr.wr.rdma.rkey = 0x1234;
		if (reqs[i].op == WQE_WR_ATOMIC_CMP_AND_SWP ||
		    reqs[i].op == WQE_WR_ATOMIC_FETCH_AND_ADD) {
			wr.wr.atomic.remote_addr = 0x10000;
			wr.wr.atomic.rkey = 0x1234;
			wr.wr.atomic.compare_add = 7;
			wr.wr.atomic.swap = 9;
		}
		CHECK_EQ(wqe_post_send(a->qp, &wr, &bad), 0);
	}
	memset(&wr, 0, sizeof(wr));
	s.length = 333;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_SEND;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0x99;
	wr.wr.ud.remote_qkey = 0x11111111;
	CHECK_EQ(wqe_post_send(ud, &wr, &bad), 0);
}

static void test_wire(void)
{
	/* 3 WRITE packets at PMTU 1024, SEND, READ, 2 atomics, WRITE_IMM, UD */
	const unsigned want = 9;
	struct uep a;
	struct wqe_qp *ud;
	struct wqe_qp_init_attr ia;
	struct wqe_ah_attr aa;
	struct wqe_ah *ah;
	struct wqe_mr *mr;
	static uint8_t mem[8192];
	union wqe_gid bgid;
	char path[512];
	uint8_t src[4], dst[4];
	int fd = sniffer(), sport_differs = 0;

	udp_test_gid(2, &bgid);
	memcpy(dst, bgid.raw + 12, 4);
	CHECK_EQ(uep_open(&a, 1, WQE_QPT_RC, 16), 0);
	memcpy(src, a.gid.raw + 12, 4);
	CHECK_EQ(uep_connect(&a, &bgid, 0x4242, WQE_QPT_RC, WQE_MTU_1024, TCLASS, HOP), 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = a.scq;
	ia.recv_cq = a.rcq;
	ia.qp_type = WQE_QPT_UD;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ud = wqe_create_qp(a.pd, &ia);
	CHECK(ud != NULL);
	CHECK_EQ(test_qp_to_rts(ud, WQE_QPT_UD, 0, WQE_MTU_4096), 0);
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.grh.dgid = bgid;
	aa.grh.hop_limit = HOP;
	aa.grh.traffic_class = TCLASS;
	ah = wqe_create_ah(a.pd, &aa);
	mr = wqe_reg_mr(a.pd, mem, sizeof(mem), WQE_ACCESS_LOCAL_WRITE);
	CHECK(ah && mr);
	for (size_t i = 0; i < sizeof(mem); i++)
		mem[i] = (uint8_t)(i * 7 + 1);
	wqe_context_set_trace(a.ctx, on_tx, NULL);
	post_all(&a, ud, ah, mr, mem);
	for (int round = 0; round < 20000 && nrx < want; round++) {
		struct pollfd pf = {fd, POLLIN, 0};

		wqe_progress(a.ctx);
		if (poll(&pf, 1, round < 100 ? 0 : 1) == 1)
			while (nrx < MAXF && take(fd))
				;
	}
	CHECK(nrx >= want);
	CHECK(ntx >= nrx);
	if (ntx < nrx)
		nrx = ntx;
	for (unsigned i = 0; i < nrx; i++) {
		const uint8_t *f = tx[i].b, *udp = f + 14 + 20;
		size_t plen = tx[i].len - 14 - 28;

		/* the NIC's frame from the BTH on; only the ICRC was replaced */
		CHECK_EQ(rx[i].len, plen);
		CHECK_MEM(rx[i].b, udp + 8, plen - 4);
		CHECK_EQ(rx_sport[i], (unsigned)(udp[0] << 8 | udp[1]));
		CHECK_EQ(rx_tos[i], TCLASS);
		CHECK_EQ(rx_ttl[i], HOP);
		sport_differs += rx_sport[i] != WQE_ROCEV2_PORT;
	}
	CHECK_EQ(sport_differs, nrx); /* the NIC's per-QP ports are not 4791 */
	snprintf(path, sizeof(path), "%s/udp_wire_%d.pcap", WQE_TEST_BINDIR, (int)getpid());
	CHECK_EQ(scapy_verdict(path, 0, src, dst), 0);
	CHECK_EQ(scapy_verdict(path, 1, src, dst), 1);
	unlink(path);
	strcat(path, ".out");
	unlink(path);
	close(fd);
	wqe_context_set_trace(a.ctx, NULL, NULL);
	wqe_dereg_mr(mr);
	wqe_destroy_ah(ah);
	wqe_destroy_qp(ud);
	uep_close(&a);
}

/* A UC QP of @a's in RTS towards @dgid, its address vector's UDP source
 * port @port. */
static struct wqe_qp *uc_on_port(struct uep *a, const union wqe_gid *dgid, uint16_t port)
{
	struct wqe_qp_init_attr ia;
	struct wqe_qp_attr qa;
	struct wqe_qp *q;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = a->scq;
	ia.recv_cq = a->rcq;
	ia.qp_type = WQE_QPT_UC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	q = wqe_create_qp(a->pd, &ia);
	CHECK(q != NULL);
	if (!q)
		return NULL;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = WQE_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = WQE_ACCESS_REMOTE_WRITE;
	CHECK_EQ(wqe_modify_qp(q, &qa,
			       WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_ACCESS_FLAGS),
		 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = WQE_QPS_RTR;
	qa.path_mtu = WQE_MTU_1024;
	qa.dest_qp_num = 0x99;
	qa.ah_attr.port_num = 1;
	qa.ah_attr.dmac[0] = 0x02;
	qa.ah_attr.grh.dgid = *dgid;
	qa.ah_attr.grh.hop_limit = 64;
	qa.ah_attr.udp_sport = port;
	CHECK_EQ(wqe_modify_qp(q, &qa,
			       WQE_QP_STATE | WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN |
				   WQE_QP_RQ_PSN),
		 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = WQE_QPS_RTS;
	CHECK_EQ(wqe_modify_qp(q, &qa, WQE_QP_STATE | WQE_QP_SQ_PSN), 0);
	return q;
}

/*
 * Source ports: 70 UC QPs of A, source ports 0xc000 + i, send one
 * datagram each, in turn, while another socket holds A's port 0xc005.
 * The first 64 ports get a socket each, 0xc005 cannot be bound and goes
 * from 4791; the last 6 find the table full and go from their home slot's
 * port (0xc000 + i - 64; 0xc045's home is 0xc005's, so 4791). Every
 * datagram's ICRC is over the port it left from.
 */
static void test_sports(void)
{
	enum { NQP = 70, BLOCKED = 5 };
	struct uep a;
	struct wqe_qp *qp[NQP] = {0};
	struct wqe_mr *mr;
	struct wqe_link_stats ls;
	struct sockaddr_in hold;
	static uint8_t mem[256];
	union wqe_gid bgid;
	int fd = sniffer(), blocker = socket(AF_INET, SOCK_DGRAM, 0);

	udp_test_gid(2, &bgid);
	CHECK_EQ(uep_open(&a, 1, WQE_QPT_RC, 16), 0);
	memset(&hold, 0, sizeof(hold));
	hold.sin_family = AF_INET;
	hold.sin_port = htons(0xc000 + BLOCKED);
	memcpy(&hold.sin_addr, a.gid.raw + 12, 4);
	CHECK_EQ(bind(blocker, (struct sockaddr *)&hold, sizeof(hold)), 0);
	mr = wqe_reg_mr(a.pd, mem, sizeof(mem), WQE_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	for (unsigned i = 0; i < NQP; i++) {
		struct wqe_sge sg = {(uint64_t)(uintptr_t)mem, 64, mr->lkey};
		struct wqe_send_wr wr, *bad;
		struct wqe_pkt h;
		const struct frame *f = &rx[0];
		unsigned want = i == BLOCKED || i == 64 + BLOCKED ? WQE_ROCEV2_PORT
				: i < 64			  ? 0xc000 + i
								  : 0xc000 + i - 64;
		uint32_t icrc;

		qp[i] = uc_on_port(&a, &bgid, (uint16_t)(0xc000 + i));
		if (!qp[i])
			break;
		memset(&wr, 0, sizeof(wr));
		mem[0] = (uint8_t)i; /* which QP, in the payload */
		wr.wr_id = i;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = WQE_WR_SEND;
		wr.send_flags = WQE_SEND_SIGNALED;
		CHECK_EQ(wqe_post_send(qp[i], &wr, &bad), 0);
		/* one at a time, so that the ports are bound in this order */
		nrx = 0;
		for (int round = 0; round < 2000 && !nrx; round++) {
			struct pollfd pf = {fd, POLLIN, 0};

			wqe_progress(a.ctx);
			if (poll(&pf, 1, round < 10 ? 0 : 1) == 1)
				take(fd);
		}
		CHECK_EQ(nrx, 1);
		if (nrx != 1 || f->len < 12 + 64 + 4)
			continue;
		CHECK_EQ(f->b[12], i); /* UC SEND ONLY: the BTH, then the payload */
		CHECK_EQ(rx_sport[0], want);
		/* the ICRC over the headers the kernel wrote */
		memset(&h, 0, sizeof(h));
		h.ipver = 4;
		h.src = a.gid;
		h.dst = bgid;
		h.ip_flags = 2;
		h.sport = rx_sport[0];
		h.dport = WQE_ROCEV2_PORT;
		icrc = (uint32_t)f->b[f->len - 4] | (uint32_t)f->b[f->len - 3] << 8 |
		       (uint32_t)f->b[f->len - 2] << 16 | (uint32_t)f->b[f->len - 1] << 24;
		CHECK_EQ(wqe_icrc_udp(&h, f->b, f->len - 4), icrc);
	}
	CHECK_EQ(wqe_link_stats(a.link, &ls), 0);
	CHECK_EQ(ls.tx_sport_shared, 6);
	CHECK_EQ(ls.tx_sport_fallback, 2);
	close(blocker);
	close(fd);
	for (unsigned i = 0; i < NQP; i++)
		if (qp[i])
			wqe_destroy_qp(qp[i]);
	wqe_dereg_mr(mr);
	uep_close(&a);
}

int main(void)
{
	test_wire();
	test_sports();
	return test_finish();
}
