/* SPDX-License-Identifier: MIT */
/*
 * bench_exec - the baselines of bench/exec.sh, which runs Debian's perftest
 * on the drop-in libibverbs through `wqe exec`:
 *
 *   bench_exec native write_bw SIZE COUNT   the work of ib_write_bw through
 *                                           wqe's native API
 *   bench_exec native send_lat SIZE COUNT   the work of ib_send_lat
 *   bench_exec udp bw SIZE COUNT            the raw UDP limit: datagrams
 *   bench_exec udp lat SIZE COUNT           of SIZE bytes, flood / ping-pong
 *   bench_exec udp mbw SIZE COUNT           the flood, 32 datagrams a
 *                                           sendmmsg() and recvmmsg()
 *
 * Each forks a second process: two endpoints on 127.0.0.51 and 127.0.0.52
 * joined over UDP, as the two perftest processes are. The native runs use
 * perftest's defaults: RC, path MTU 4096, NIC thread; write_bw 128 WRITEs
 * in flight, one in 100 signaled, no inline; send_lat one SEND in flight
 * each way, inline up to 236 bytes, busy polling. Prints one line:
 *   RATE <messages per second>        (write_bw, udp bw and mbw)
 *   LAT <one-way microseconds>        (send_lat, udp lat: half a round trip)
 */
#define _GNU_SOURCE /* sendmmsg, recvmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "wqe/link.h"
#include "wqe/verbs.h"

#define ADDR_A "127.0.0.51"
#define ADDR_B "127.0.0.52"
#define TX_DEPTH 128
#define CQ_MOD 100
#define LAT_INLINE 236

static void die(const char *what)
{
	fprintf(stderr, "bench_exec: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* What one side tells the other through the pipe. */
struct wire_ep {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
};

struct ep {
	struct wqe_context *ctx;
	struct wqe_link *link;
	struct wqe_pd *pd;
	struct wqe_cq *cq;
	struct wqe_qp *qp;
	struct wqe_mr *mr;
	uint8_t *buf;
};

static void gid_of(const char *a, union wqe_gid *g)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = g->raw[11] = 0xff;
	inet_pton(AF_INET, a, g->raw + 12);
}

static void ep_open(struct ep *e, const char *addr, size_t size, uint32_t inline_max)
{
	struct wqe_context_attr a = {.format = WQE_FORMAT_MLX5, .num_gids = 1,
				     .nic_mode = WQE_NIC_THREAD};
	struct wqe_udp_cfg u = {.local = addr};
	struct wqe_qp_init_attr qa = {0};

	gid_of(addr, &a.gid[0]);
	a.mac[0] = 2;
	memcpy(a.mac + 2, a.gid[0].raw + 12, 4);
	e->ctx = wqe_open_context(&a);
	e->link = e->ctx ? wqe_link_udp_create(&u) : NULL;
	if (!e->link || wqe_context_attach_link(e->ctx, e->link))
		die("context and UDP link");
	e->pd = wqe_alloc_pd(e->ctx);
	e->cq = wqe_create_cq(e->ctx, 4096);
	e->buf = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
	if (!e->pd || !e->cq || !e->buf)
		die("PD, CQ, buffer");
	memset(e->buf, 0x5a, size);
	e->mr = wqe_reg_mr(e->pd, e->buf, size,
			   WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ);
	qa.send_cq = qa.recv_cq = e->cq;
	qa.qp_type = WQE_QPT_RC;
	qa.cap = (struct wqe_qp_cap){.max_send_wr = TX_DEPTH, .max_recv_wr = TX_DEPTH,
				     .max_send_sge = 1, .max_recv_sge = 1,
				     .max_inline_data = inline_max};
	e->qp = e->mr ? wqe_create_qp(e->pd, &qa) : NULL;
	if (!e->qp)
		die("MR and QP");
}

static void ep_connect(struct ep *e, const char *peer, uint32_t peer_qpn)
{
	struct wqe_qp_attr a = {0};

	a.qp_state = WQE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ;
	if (wqe_modify_qp(e->qp, &a, WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT |
					 WQE_QP_ACCESS_FLAGS))
		die("INIT");
	a.qp_state = WQE_QPS_RTR;
	a.path_mtu = WQE_MTU_4096;
	a.dest_qp_num = peer_qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = 1;
	gid_of(peer, &a.ah_attr.grh.dgid);
	a.ah_attr.dmac[0] = 2;
	memcpy(a.ah_attr.dmac + 2, a.ah_attr.grh.dgid.raw + 12, 4);
	if (wqe_modify_qp(e->qp, &a, WQE_QP_STATE | WQE_QP_AV | WQE_QP_PATH_MTU |
					 WQE_QP_DEST_QPN | WQE_QP_RQ_PSN |
					 WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER))
		die("RTR");
	a.qp_state = WQE_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (wqe_modify_qp(e->qp, &a, WQE_QP_STATE | WQE_QP_SQ_PSN | WQE_QP_TIMEOUT |
					 WQE_QP_RETRY_CNT | WQE_QP_RNR_RETRY | WQE_QP_MAX_QP_RD_ATOMIC))
		die("RTS");
}

static void ep_close(struct ep *e)
{
	wqe_destroy_qp(e->qp);
	wqe_dereg_mr(e->mr);
	wqe_destroy_cq(e->cq);
	wqe_dealloc_pd(e->pd);
	wqe_close_context(e->ctx);
	wqe_link_destroy(e->link);
	free(e->buf);
}

static void xfer(int fd, void *p, size_t n, int out)
{
	ssize_t r = out ? write(fd, p, n) : read(fd, p, n);

	if (r != (ssize_t)n)
		die("pipe");
}

static int poll_one(struct wqe_cq *cq, struct wqe_wc *wc, int max)
{
	return bench_poll_ok("bench_exec", cq, max, wc);
}

static void post_recv(struct ep *e, uint32_t size)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)e->buf, size, e->mr->lkey};
	struct wqe_recv_wr r = {.sg_list = &s, .num_sge = 1}, *bad;

	if (wqe_post_recv(e->qp, &r, &bad))
		die("post_recv");
}

static void post_send(struct ep *e, enum wqe_wr_opcode op, uint32_t size, unsigned flags,
		      const struct wire_ep *peer, uint64_t id)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)e->buf, size, e->mr->lkey};
	struct wqe_send_wr w = {.wr_id = id, .sg_list = &s, .num_sge = 1, .opcode = op,
				.send_flags = flags},
			   *bad;

	if (peer) {
		w.wr.rdma.remote_addr = peer->addr;
		w.wr.rdma.rkey = peer->rkey;
	}
	if (wqe_post_send(e->qp, &w, &bad))
		die("post_send");
}

/* The client's loops; the server of write_bw only waits. */
static double native(int client, const char *op, uint32_t size, uint64_t count, int rd, int wr)
{
	int lat = !strcmp(op, "send_lat");
	uint32_t inl = lat && size <= LAT_INLINE ? LAT_INLINE : 0;
	unsigned sflags = inl ? WQE_SEND_INLINE : 0;
	struct wire_ep me, peer;
	struct wqe_wc wc[16];
	struct ep e;
	uint64_t t0, t1;
	char done = 0;

	ep_open(&e, client ? ADDR_A : ADDR_B, size, inl);
	me = (struct wire_ep){wqe_qp_num(e.qp), e.mr->rkey, (uint64_t)(uintptr_t)e.buf};
	xfer(wr, &me, sizeof(me), 1);
	xfer(rd, &peer, sizeof(peer), 0);
	ep_connect(&e, client ? ADDR_B : ADDR_A, peer.qpn);
	if (lat)
		post_recv(&e, size);
	xfer(wr, &done, 1, 1); /* both in RTS, a receive posted */
	xfer(rd, &done, 1, 0);
	t0 = bench_now_ns();
	if (!lat && client) {
		uint64_t posted = 0, completed = 0;

		while (completed < count) {
			while (posted < count && posted - completed < TX_DEPTH) {
				posted++;
				post_send(&e, WQE_WR_RDMA_WRITE, size,
					  posted % CQ_MOD == 0 || posted == count ? WQE_SEND_SIGNALED
										 : 0,
					  &peer, posted);
			}
			/* a signaled WRITE completes every one before it */
			int n = poll_one(e.cq, wc, 16);

			for (int i = 0; i < n; i++)
				completed = wc[i].wr_id;
		}
	} else if (lat) {
		/* completions counted, not paired: the client's next SEND may
		 * arrive before the server has seen its own send complete */
		uint64_t recvs = 0, sends = 0;

		if (client)
			post_send(&e, WQE_WR_SEND, size, sflags | WQE_SEND_SIGNALED, NULL, 0);
		while (recvs < count || sends < count) {
			int n = poll_one(e.cq, wc, 16);

			for (int k = 0; k < n; k++) {
				if (wc[k].opcode != WQE_WC_RECV) {
					sends++;
					continue;
				}
				recvs++;
				if (recvs < count || !client)
					post_recv(&e, size);
				if (!client || recvs < count)
					post_send(&e, WQE_WR_SEND, size,
						  sflags | WQE_SEND_SIGNALED, NULL, recvs);
			}
		}
	}
	t1 = bench_now_ns();
	if (getenv("BENCH_EXEC_STATS")) {
		struct wqe_qp_stats st;

		wqe_query_qp_stats(e.qp, &st);
		fprintf(stderr, "%s: %llu packets sent, %llu retransmits, %llu timeouts, %llu seq NAKs\n",
			client ? "client" : "server", (unsigned long long)st.packets_sent,
			(unsigned long long)st.retransmits, (unsigned long long)st.timeouts,
			(unsigned long long)st.seq_naks_received);
	}
	xfer(wr, &done, 1, 1); /* the client is done (the write_bw server waits here) */
	xfer(rd, &done, 1, 0);
	ep_close(&e);
	return lat ? (double)(t1 - t0) / 1e3 / (double)count / 2
		   : (double)count / ((double)(t1 - t0) / 1e9);
}

/* Raw UDP, batched: COUNT datagrams from A to B, UDP_BATCH a call (as a
 * NIC's link sends and takes them); the receiver's rate. */
#define UDP_BATCH 32
static uint64_t udp_flood_batched(int fd, int client, uint32_t size, uint64_t count, uint8_t *buf,
				  uint64_t *last)
{
	struct mmsghdr m[UDP_BATCH];
	struct iovec v[UDP_BATCH];
	uint64_t got = 0;
	int n;

	memset(m, 0, sizeof(m));
	for (int i = 0; i < UDP_BATCH; i++) {
		/* all share one buffer: the sender's bytes, the receiver's
		 * scratch (only the lengths are counted) */
		v[i] = (struct iovec){.iov_base = buf, .iov_len = client ? size : 65536};
		m[i].msg_hdr.msg_iov = &v[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	if (client) {
		for (uint64_t sent = 0; sent < count;) {
			unsigned want = count - sent < UDP_BATCH ? (unsigned)(count - sent) : UDP_BATCH;

			n = sendmmsg(fd, m, want, 0);
			if (n < 0 && errno != ENOBUFS && errno != EAGAIN)
				die("sendmmsg");
			sent += n > 0 ? (uint64_t)n : 0;
		}
		send(fd, buf, 1, 0); /* the end marker */
		return count;
	}
	for (;;) {
		n = recvmmsg(fd, m, UDP_BATCH, 0, NULL);
		if (n < 0) {
			if (errno != EAGAIN)
				die("recvmmsg");
			return got; /* a second of silence */
		}
		for (int i = 0; i < n; i++) {
			if (m[i].msg_len <= 1)
				return got;
			got++;
		}
		*last = bench_now_ns();
	}
}

/* Raw UDP: SIZE-byte datagrams from A to B, flooded or ping-ponged. */
static double udp(int client, const char *op, uint32_t size, uint64_t count, int rd, int wr)
{
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons(4791)}, to = me;
	int lat = !strcmp(op, "lat"), fd = socket(AF_INET, SOCK_DGRAM, 0), big = 4 << 20;
	static uint8_t buf[65536];
	uint64_t t0, t1 = 0, got = 0;
	char done = 0;

	inet_pton(AF_INET, client ? ADDR_A : ADDR_B, &me.sin_addr);
	inet_pton(AF_INET, client ? ADDR_B : ADDR_A, &to.sin_addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
	    connect(fd, (struct sockaddr *)&to, sizeof(to)))
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (!lat) { /* the flood's end: its marker, or a second of silence */
		struct timeval tv = {.tv_sec = 1};

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	xfer(wr, &done, 1, 1);
	xfer(rd, &done, 1, 0);
	t0 = bench_now_ns();
	if (lat) {
		for (uint64_t i = 0; i < count; i++) {
			if (client && send(fd, buf, size, 0) != (ssize_t)size)
				die("send");
			/* busy, as the NICs poll: the limit, not a wakeup's cost */
			while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0)
				if (errno != EAGAIN)
					die("recv");
			if (!client && send(fd, buf, size, 0) != (ssize_t)size)
				die("send");
		}
	} else if (!strcmp(op, "mbw")) {
		uint64_t last = t0;

		got = udp_flood_batched(fd, client, size, count, buf, &last);
		t1 = client ? 0 : last;
	} else if (client) {
		/* the receiver's count is the rate: datagrams the kernel drops
		 * for a full buffer are not delivered work */
		for (uint64_t i = 0; i < count; i++)
			while (send(fd, buf, size, 0) < 0)
				if (errno != ENOBUFS && errno != EAGAIN)
					die("send");
		send(fd, buf, 1, 0); /* the end marker */
	} else {
		ssize_t n;

		uint64_t last = t0;

		while ((n = recv(fd, buf, sizeof(buf), 0)) > 1) {
			got++;
			last = bench_now_ns();
		}
		if (n < 0 && errno != EAGAIN)
			die("recv");
		t1 = last;
	}
	if (lat || client)
		t1 = bench_now_ns();
	if (!lat && !client) {
		double r = (double)got / ((double)(t1 - t0) / 1e9);

		xfer(wr, &r, sizeof(r), 1);
	}
	close(fd);
	return lat ? (double)(t1 - t0) / 1e3 / (double)count / 2
		   : (double)count / ((double)(t1 - t0) / 1e9);
}

int main(int argc, char **argv)
{
	int ab[2], ba[2], status;
	uint64_t count;
	uint32_t size;
	pid_t pid;
	double v;
	int is_native;

	if (argc != 5 || (strcmp(argv[1], "native") && strcmp(argv[1], "udp"))) {
		fprintf(stderr, "usage: bench_exec native write_bw|send_lat SIZE COUNT\n"
				"       bench_exec udp bw|lat SIZE COUNT\n");
		return 2;
	}
	is_native = !strcmp(argv[1], "native");
	size = (uint32_t)strtoul(argv[3], NULL, 0);
	count = strtoull(argv[4], NULL, 0);
	if (!size || size > 65536 || !count ||
	    (is_native && strcmp(argv[2], "write_bw") && strcmp(argv[2], "send_lat")) ||
	    (!is_native && strcmp(argv[2], "bw") && strcmp(argv[2], "mbw") && strcmp(argv[2], "lat"))) {
		fprintf(stderr, "bench_exec: bad arguments\n");
		return 2;
	}
	if (pipe(ab) || pipe(ba))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		v = is_native ? native(0, argv[2], size, count, ab[0], ba[1])
			      : udp(0, argv[2], size, count, ab[0], ba[1]);
		_exit(0);
	}
	v = is_native ? native(1, argv[2], size, count, ba[0], ab[1])
		      : udp(1, argv[2], size, count, ba[0], ab[1]);
	if (!is_native && strcmp(argv[2], "lat"))
		xfer(ba[0], &v, sizeof(v), 0); /* the receiver's rate */
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	if ((is_native && !strcmp(argv[2], "write_bw")) || (!is_native && strcmp(argv[2], "lat")))
		printf("RATE %.0f\n", v);
	else
		printf("LAT %.3f\n", v);
	return 0;
}
