/* SPDX-License-Identifier: MIT */
/*
 * The UDP link's batched system calls: datagrams queued and sent with one
 * sendmmsg() when LINK_UDP_BATCH are queued or the progress call ends,
 * received with one recvmmsg() and handed out one by one.
 *
 * The test interposes sendmmsg() and recvmmsg() (its own definitions win
 * over libc's for the library linked into it) to see what the kernel was
 * asked, and to refuse datagrams as a full send buffer would: on loopback
 * a UDP socket's send buffer never fills (loopback_xmit() orphans each
 * datagram before sendmsg() returns), so a small SO_SNDBUF cannot do it.
 * A context's TX trace gives the frames the NIC handed to its link, in
 * order: what the kernel took must be those, in that order, each at most
 * once, the missing ones exactly the refused ones.
 *
 * Cases: RC traffic both ways with everything in flight (every byte
 * checked); a READ whose responses, produced in one progress call,
 * outnumber the queue; refusals (EAGAIN, ENOBUFS: buffer full; EMSGSIZE:
 * send error) counted per datagram and recovered by retransmission; the
 * fault injector wrapping UDP links (its flush reaches the socket);
 * wqe_context_receive() sending the ACK it causes at once; TOS and TTL
 * per datagram within one batch. The link's own operations, with no NIC,
 * are test_udp_link.c's.
 */
#define _GNU_SOURCE /* sendmmsg, recvmmsg */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "link/link_int.h" /* LINK_UDP_BATCH; the link's operations */
#include "testutil.h"
#include "udp_pair.h"
#include "wqe/wire.h"

#define V4_PAYLOAD_OFF (WQE_ETH_LEN + WQE_IPV4_LEN + WQE_UDP_LEN)
#define WAIT_S	       30.0
#define REGION	       (1u << 20)
#define CANARY	       0xc5

static uint8_t a_src[REGION], a_dst[REGION], b_src[REGION], b_dst[REGION];
static struct test_rng rng;

/* ---- the kernel's side, interposed -------------------------------------- */

struct hashes {
	uint64_t *h;
	size_t n, cap;
};

static void hash_add(struct hashes *s, uint64_t h)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 1024;
		uint64_t *nh = realloc(s->h, nc * sizeof(*nh));

		if (!nh)
			abort();
		s->h = nh;
		s->cap = nc;
	}
	s->h[s->n++] = h;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

#define FNV0 0xcbf29ce484222325ull

/* A datagram as sent, its ICRC left out (the link recomputes it). */
static uint64_t datagram_hash(const struct msghdr *m)
{
	size_t total = 0, left;
	uint64_t h = FNV0;

	for (size_t i = 0; i < m->msg_iovlen; i++)
		total += m->msg_iov[i].iov_len;
	left = total - WQE_ICRC_LEN;
	for (size_t i = 0; i < m->msg_iovlen && left; i++) {
		size_t n = m->msg_iov[i].iov_len < left ? m->msg_iov[i].iov_len : left;

		h = fnv(h, m->msg_iov[i].iov_base, n);
		left -= n;
	}
	return h;
}

/* What one link's sockets asked of the kernel: those bound to its
 * address (it sends from one socket per source port). */
struct sys_log {
	int fd;				   /* -1: not watched */
	struct sockaddr_storage addr;	   /* the address of @fd */
	uint64_t calls;			   /* sendmmsg() calls */
	uint64_t datagrams;		   /* datagrams the kernel took */
	uint64_t full;			   /* calls that took LINK_UDP_BATCH */
	uint64_t max;			   /* most one call took */
	uint64_t rcalls, rdatagrams, rmax; /* recvmmsg() calls that read some */
	/* Every refuse_every-th datagram offered is refused with refuse_errno;
	 * one that was not first in its call is refused again when the link
	 * retries it, as a buffer still full would: each refusal is one
	 * datagram the link must drop. */
	uint32_t refuse_every;
	int refuse_errno;
	uint64_t offered;
	int refuse_next;
	uint64_t refused; /* calls refused: datagrams dropped */
	uint64_t partial; /* calls cut short */
	struct hashes sent;
};

static struct sys_log logs[2] = {{.fd = -1}, {.fd = -1}};

/* The address @fd is bound to, port left out. */
static void bound_addr(int fd, struct sockaddr_storage *a)
{
	socklen_t len = sizeof(*a);

	memset(a, 0, sizeof(*a));
	if (getsockname(fd, (struct sockaddr *)a, &len))
		return;
	if (a->ss_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = 0;
	else if (a->ss_family == AF_INET6)
		((struct sockaddr_in6 *)a)->sin6_port = 0;
}

static struct sys_log *log_of(int fd)
{
	struct sockaddr_storage a;

	if (fd < 0 || (logs[0].fd < 0 && logs[1].fd < 0))
		return NULL;
	bound_addr(fd, &a);
	for (int i = 0; i < 2; i++)
		if (logs[i].fd >= 0 && !memcmp(&logs[i].addr, &a, sizeof(a)))
			return &logs[i];
	return NULL;
}

static void log_watch(struct sys_log *g, int fd)
{
	free(g->sent.h);
	memset(g, 0, sizeof(*g));
	g->fd = fd;
	bound_addr(fd, &g->addr);
}

static void logs_off(void)
{
	for (int i = 0; i < 2; i++) {
		free(logs[i].sent.h);
		memset(&logs[i], 0, sizeof(logs[i]));
		logs[i].fd = -1;
	}
}

int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
	struct sys_log *g = log_of(fd);
	unsigned int k = n;
	int r;

	if (!g)
		return (int)syscall(SYS_sendmmsg, fd, v, n, flags);
	g->calls++;
	if (g->refuse_every) {
		if (g->refuse_next) {
			g->refuse_next = 0;
			k = 0;
		} else {
			for (k = 0; k < n; k++)
				if (++g->offered % g->refuse_every == 0)
					break;
		}
		if (k == 0) {
			g->refused++;
			errno = g->refuse_errno;
			return -1;
		}
		if (k < n) {
			g->partial++;
			g->refuse_next = 1;
		}
	}
	r = (int)syscall(SYS_sendmmsg, fd, v, k, flags);
	for (int i = 0; i < r; i++)
		hash_add(&g->sent, datagram_hash(&v[i].msg_hdr));
	if (r > 0) {
		g->datagrams += (uint64_t)r;
		if ((unsigned int)r == LINK_UDP_BATCH)
			g->full++;
		if ((uint64_t)r > g->max)
			g->max = (uint64_t)r;
	}
	return r;
}

int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags, struct timespec *t)
{
	int r = (int)syscall(SYS_recvmmsg, fd, v, n, flags, t);
	struct sys_log *g = log_of(fd);

	if (g && r > 0) {
		g->rcalls++;
		g->rdatagrams += (uint64_t)r;
		if ((uint64_t)r > g->rmax)
			g->rmax = (uint64_t)r;
	}
	return r;
}

/* ---- the NIC's side: the frames it handed to its link -------------------- */

static struct hashes tx_a;

static void trace_tx(void *arg, const struct wqe_trace_event *ev)
{
	struct hashes *s = arg;

	if (ev->kind == WQE_TRACE_TX && ev->len > V4_PAYLOAD_OFF + WQE_ICRC_LEN)
		hash_add(s, fnv(FNV0, ev->frame + V4_PAYLOAD_OFF,
				ev->len - V4_PAYLOAD_OFF - WQE_ICRC_LEN));
}

static void watch_a(struct upair *p)
{
	free(tx_a.h);
	memset(&tx_a, 0, sizeof(tx_a));
	CHECK_EQ(wqe_context_set_trace(p->a.ctx, trace_tx, &tx_a), 0);
	log_watch(&logs[0], wqe_link_udp_fd(p->a.link));
	log_watch(&logs[1], wqe_link_udp_fd(p->b.link));
}

/*
 * What A's kernel took is what A's NIC sent, in order, each frame at most
 * once; the frames missing are as many as were refused, and A's link
 * counted each frame once.
 */
static void check_a_sent(const struct upair *p, const struct wqe_link *al)
{
	const struct sys_log *g = &logs[0];
	struct wqe_link_stats s;
	size_t j = 0, missing = 0;

	for (size_t i = 0; i < tx_a.n; i++) {
		if (j < g->sent.n && g->sent.h[j] == tx_a.h[i])
			j++;
		else
			missing++;
	}
	CHECK_EQ(j, g->sent.n);
	CHECK_EQ(missing, g->refused);
	CHECK_EQ(wqe_link_stats(p->a.link, &s), 0);
	CHECK_EQ(s.delivered, g->datagrams);
	CHECK_EQ(s.delivered + s.queue_full + s.tx_errors, s.frames);
	CHECK_EQ(s.no_destination, 0);
	if (al != p->a.link) { /* a fault link in front: it took the NIC's frames */
		CHECK_EQ(wqe_link_stats(al, &s), 0);
		CHECK_EQ(s.frames, tx_a.n);
	} else {
		CHECK_EQ(s.frames, tx_a.n);
	}
}

/* ---- RC traffic ----------------------------------------------------------- */

static uint8_t *const bufs[4] = {a_src, a_dst, b_src, b_dst};

static void reg(struct upair *p, struct test_mrs *m)
{
	const unsigned all =
	    WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ;

	test_reg4(m, p->a.pd, p->b.pd, bufs, REGION, all, all);
	test_fill4(&rng, bufs, REGION, CANARY);
}

/* One side's messages: @n of @len[i] bytes from slot i of @src into slot
 * i of the other side's @dst (WRITE, or SEND into a receive posted
 * there), posted as one chain; SENDs when @sends and i is odd. */
struct side {
	struct wqe_qp *qp, *peer_qp;
	uint8_t *src, *dst;
	struct wqe_mr *src_mr, *dst_mr;
	struct wqe_cq *scq, *peer_rcq;
};

static int post_side(const struct side *s, int n, const uint32_t *len, uint32_t slot, int sends)
{
	struct wqe_send_wr wr[128], *bad;
	struct wqe_sge sge[128];
	int nrecv = 0;

	for (int i = 0; i < n; i++) {
		size_t off = (size_t)i * slot;
		int send = sends && (i & 1);

		memset(&wr[i], 0, sizeof(wr[i]));
		sge[i] =
		    (struct wqe_sge){(uint64_t)(uintptr_t)(s->src + off), len[i], s->src_mr->lkey};
		wr[i].wr_id = (uint64_t)i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = send ? WQE_WR_SEND : WQE_WR_RDMA_WRITE;
		wr[i].send_flags = WQE_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uint64_t)(uintptr_t)(s->dst + off);
		wr[i].wr.rdma.rkey = s->dst_mr->rkey;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if (send) {
			struct wqe_sge rs = {(uint64_t)(uintptr_t)(s->dst + off), slot,
					     s->dst_mr->lkey};
			struct wqe_recv_wr r = {.wr_id = (uint64_t)i, .sg_list = &rs, .num_sge = 1},
					   *rbad;

			CHECK_EQ(wqe_post_recv(s->peer_qp, &r, &rbad), 0);
			nrecv++;
		}
	}
	CHECK_EQ(wqe_post_send(s->qp, wr, &bad), 0);
	return nrecv;
}

/* Completions of @n messages in order, and @nrecv receives in order. */
static void check_side(struct upair *p, const struct side *s, int n, int nrecv, const uint32_t *len)
{
	struct wqe_wc wc[128];
	int got = upair_wait(p, s->scq, n, wc, WAIT_S);

	CHECK_EQ(got, n);
	for (int i = 0; i < got; i++) {
		CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, (uint64_t)i);
	}
	got = upair_wait(p, s->peer_rcq, nrecv, wc, WAIT_S);
	CHECK_EQ(got, nrecv);
	for (int i = 0; i < got; i++) {
		CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, (uint64_t)(2 * i + 1));
		CHECK_EQ(wc[i].byte_len, len[2 * i + 1]);
	}
}

/* Slot i of @dst holds @len[i] bytes of @src's slot i, the canary after. */
static void check_bytes(const uint8_t *dst, const uint8_t *src, int n, const uint32_t *len,
			uint32_t slot)
{
	size_t bad = 0;

	for (int i = 0; i < n; i++) {
		size_t off = (size_t)i * slot;

		CHECK_MEM(dst + off, src + off, len[i]);
		for (size_t k = len[i]; k < slot; k++)
			bad += dst[off + k] != CANARY;
	}
	for (size_t k = (size_t)n * slot; k < REGION; k++)
		bad += dst[k] != CANARY;
	CHECK_EQ(bad, 0);
}

static void sides(struct upair *p, struct test_mrs *m, struct side *ab, struct side *ba)
{
	*ab = (struct side){p->a.qp, p->b.qp, a_src, b_dst, m->a_src, m->b_dst, p->a.scq, p->b.rcq};
	*ba = (struct side){p->b.qp, p->a.qp, b_src, a_dst, m->b_src, m->a_dst, p->b.scq, p->a.rcq};
}

/*
 * @n messages of 1 to @slot bytes each way at once (WRITEs and SENDs, all
 * in flight together), every completion and byte checked on both sides.
 */
static void exchange(struct upair *p, struct side *ab, struct side *ba, int n, uint32_t slot)
{
	uint32_t len_ab[128], len_ba[128];
	int rab, rba;

	CHECK(n <= 128);
	for (int i = 0; i < n; i++) {
		len_ab[i] = 1 + (uint32_t)test_rng_below(&rng, slot);
		len_ba[i] = 1 + (uint32_t)test_rng_below(&rng, slot);
	}
	rab = post_side(ab, n, len_ab, slot, 1);
	rba = post_side(ba, n, len_ba, slot, 1);
	check_side(p, ab, n, rab, len_ab);
	check_side(p, ba, n, rba, len_ba);
	upair_spin(p, 20); /* the last ACKs */
	check_bytes(b_dst, a_src, n, len_ab, slot);
	check_bytes(a_dst, b_src, n, len_ba, slot);
}

/*
 * Both sides post 96 WRITEs and SENDs of 1 byte to 10 KiB at once, all in
 * flight together: the datagrams of both directions share the sockets.
 */
static void case_both_ways(enum wqe_mtu mtu)
{
	enum { N = 96, SLOT = 10240 };
	struct upair p;
	struct test_mrs m;
	struct side ab, ba;
	struct wqe_link_stats sa, sb;

	CHECK_EQ(upair_open(&p, WQE_QPT_RC, mtu, 128), 0);
	reg(&p, &m);
	sides(&p, &m, &ab, &ba);
	watch_a(&p);
	exchange(&p, &ab, &ba, N, SLOT);
	check_a_sent(&p, p.a.link);
	/* Batches, not a datagram per call, in both directions. */
	for (int i = 0; i < 2; i++) {
		CHECK(logs[i].calls > 0 && logs[i].datagrams > logs[i].calls);
		CHECK(logs[i].max > 1 && logs[i].max <= LINK_UDP_BATCH);
		CHECK(logs[i].rmax > 1 && logs[i].rmax <= LINK_UDP_BATCH);
	}
	/* Every datagram one sent, the other read. */
	CHECK_EQ(wqe_link_stats(p.a.link, &sa), 0);
	CHECK_EQ(wqe_link_stats(p.b.link, &sb), 0);
	CHECK_EQ(sa.delivered, logs[0].datagrams);
	CHECK_EQ(sb.delivered, logs[1].datagrams);
	CHECK_EQ(sb.rx_datagrams + sb.rx_kernel_drops, sa.delivered);
	CHECK_EQ(sa.rx_datagrams + sa.rx_kernel_drops, sb.delivered);
	CHECK_EQ(sa.rx_datagrams, logs[0].rdatagrams);
	CHECK_EQ(sb.rx_datagrams, logs[1].rdatagrams);
	CHECK_EQ(sa.rx_frames, sa.rx_datagrams);
	CHECK_EQ(sb.rx_frames, sb.rx_datagrams);
	CHECK_EQ(p.a.drops + p.b.drops, 0);
	logs_off();
	test_unreg4(&m);
	upair_close(&p);
}

/*
 * A READ of 200 path-MTU packets: B's responder sends them all in the one
 * progress call that takes the request, so the queue fills and goes three
 * times before the call ends; A's recvmmsg() reads full batches.
 */
static void case_big_batch(void)
{
	enum { NPKT = 200 };
	const uint32_t len = NPKT * 1024;
	struct upair p;
	struct test_mrs m;
	struct wqe_send_wr wr, *bad;
	struct wqe_sge sge;
	struct wqe_wc wc;
	struct pollfd pf;
	uint64_t d, calls;

	CHECK_EQ(upair_open(&p, WQE_QPT_RC, WQE_MTU_1024, 16), 0);
	reg(&p, &m);
	watch_a(&p);
	memset(&wr, 0, sizeof(wr));
	sge = (struct wqe_sge){(uint64_t)(uintptr_t)a_dst, len, m.a_dst->lkey};
	wr.wr_id = 7;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_RDMA_READ;
	wr.send_flags = WQE_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b_src;
	wr.wr.rdma.rkey = m.b_src->rkey;
	CHECK_EQ(wqe_post_send(p.a.qp, &wr, &bad), 0);
	wqe_progress(p.a.ctx);
	/* The request left when A's progress call ended, alone. */
	CHECK_EQ(logs[0].calls, 1);
	CHECK_EQ(logs[0].datagrams, 1);
	pf = (struct pollfd){wqe_link_udp_fd(p.b.link), POLLIN, 0};
	CHECK_EQ(poll(&pf, 1, 5000), 1);
	wqe_progress(p.b.ctx);
	d = logs[1].datagrams;
	calls = (d + LINK_UDP_BATCH - 1) / LINK_UDP_BATCH;
	CHECK(d > LINK_UDP_BATCH); /* else the setup proves nothing */
	CHECK_EQ(d, NPKT);
	/* Full batches as the queue filled, the rest when the call ended. */
	CHECK_EQ(logs[1].calls, calls);
	CHECK_EQ(logs[1].full, d / LINK_UDP_BATCH);
	CHECK_EQ(logs[1].max, LINK_UDP_BATCH);
	CHECK_EQ(upair_wait(&p, p.a.scq, 1, &wc, WAIT_S), 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_EQ(wc.byte_len, len);
	CHECK_MEM(a_dst, b_src, len);
	CHECK_EQ(a_dst[len], CANARY);
	CHECK_EQ(logs[0].rmax, LINK_UDP_BATCH);
	CHECK_EQ(logs[0].rdatagrams, NPKT);
	check_a_sent(&p, p.a.link);
	logs_off();
	test_unreg4(&m);
	upair_close(&p);
}

/*
 * A's kernel refuses every 23rd datagram offered (and the retry of one cut
 * out of the middle of a batch): each is one datagram dropped, counted as
 * @err says, and RC retransmits until every byte is there.
 */
static void case_refused(int err)
{
	enum { N = 48, SLOT = 20000 };
	struct upair p;
	struct test_mrs m;
	struct side ab, ba;
	uint32_t len[N];
	struct wqe_link_stats s;
	struct wqe_qp_stats q;
	int nrecv;

	CHECK_EQ(upair_open(&p, WQE_QPT_RC, WQE_MTU_1024, 128), 0);
	reg(&p, &m);
	sides(&p, &m, &ab, &ba);
	watch_a(&p);
	logs[0].refuse_every = 23;
	logs[0].refuse_errno = err;
	for (int i = 0; i < N; i++)
		len[i] = 1 + (uint32_t)test_rng_below(&rng, SLOT);
	nrecv = post_side(&ab, N, len, SLOT, 1);
	check_side(&p, &ab, N, nrecv, len);
	upair_spin(&p, 20);
	check_bytes(b_dst, a_src, N, len, SLOT);
	check_a_sent(&p, p.a.link);
	CHECK(logs[0].refused > 0);
	CHECK(logs[0].partial > 0); /* refusals in the middle of a batch, too */
	CHECK_EQ(wqe_link_stats(p.a.link, &s), 0);
	if (err == EMSGSIZE) {
		CHECK_EQ(s.tx_errors, logs[0].refused);
		CHECK_EQ(s.queue_full, 0);
	} else {
		CHECK_EQ(s.queue_full, logs[0].refused);
		CHECK_EQ(s.tx_errors, 0);
	}
	CHECK_EQ(wqe_query_qp_stats(p.a.qp, &q), 0);
	CHECK(q.retransmits > 0);
	logs_off();
	test_unreg4(&m);
	upair_close(&p);
}

/* ---- the fault injector in front ------------------------------------------ */

static struct wqe_link *wrap(struct uep *e, const struct wqe_fault_cfg *f)
{
	struct wqe_link *fl = wqe_link_fault_create(e->link, f);

	CHECK(fl != NULL);
	CHECK_EQ(wqe_context_attach_link(e->ctx, fl), 0);
	return fl;
}

/*
 * Fault links over the UDP links: without faults one WRITE of a byte
 * completes (its datagram, alone in the queue, leaves when the progress
 * call ends: the fault link passes the flush on); with frames held back
 * (reorder, delay) and some dropped, 64 messages each way in flight.
 */
static void case_fault(void)
{
	enum { N = 64, SLOT = 8192 };
	const struct wqe_fault_cfg none = {.seed = 1};
	const struct wqe_fault_cfg some = {.drop = 0.02, .reorder = 0.1, .delay = 0.1, .seed = 2};
	struct upair p;
	struct test_mrs m;
	struct side ab, ba;
	struct wqe_link *fa, *fb;
	uint32_t one = 1;

	CHECK_EQ(upair_open(&p, WQE_QPT_RC, WQE_MTU_1024, 128), 0);
	reg(&p, &m);
	sides(&p, &m, &ab, &ba);
	fa = wrap(&p.a, &none);
	fb = wrap(&p.b, &none);
	watch_a(&p);
	post_side(&ab, 1, &one, SLOT, 0);
	check_side(&p, &ab, 1, 0, &one);
	CHECK_EQ(b_dst[0], a_src[0]);
	CHECK_EQ(logs[0].datagrams, 1);
	CHECK_EQ(wqe_context_attach_link(p.a.ctx, p.a.link), 0);
	CHECK_EQ(wqe_context_attach_link(p.b.ctx, p.b.link), 0);
	CHECK_EQ(wqe_link_destroy(fa), 0);
	CHECK_EQ(wqe_link_destroy(fb), 0);

	memset(b_dst, CANARY, REGION);
	fa = wrap(&p.a, &some);
	fb = wrap(&p.b, &some);
	watch_a(&p);
	exchange(&p, &ab, &ba, N, SLOT);
	/* Batches through the fault link too. */
	CHECK(logs[0].max > 1 && logs[1].max > 1);
	{
		struct wqe_link_stats sf;

		CHECK_EQ(wqe_link_stats(fa, &sf), 0);
		CHECK(sf.dropped + sf.reordered + sf.delayed > 0);
	}
	CHECK_EQ(wqe_context_attach_link(p.a.ctx, p.a.link), 0);
	CHECK_EQ(wqe_context_attach_link(p.b.ctx, p.b.link), 0);
	CHECK_EQ(wqe_link_destroy(fa), 0);
	CHECK_EQ(wqe_link_destroy(fb), 0);
	logs_off();
	test_unreg4(&m);
	upair_close(&p);
}

/* ---- a frame handed in, and TOS/TTL within a batch ------------------------ */

/*
 * A WRITE with AckReq handed to B with wqe_context_receive(), as if from
 * A: the ACK it causes leaves B's link before the call returns, with no
 * progress call after it.
 */
static void case_receive(void)
{
	struct upair p;
	struct test_mrs m;
	struct wqe_pkt k;
	struct wqe_link_stats s0, s;
	struct pollfd pf;
	uint8_t frame[256], payload[16];
	size_t flen = 0;

	CHECK_EQ(upair_open(&p, WQE_QPT_RC, WQE_MTU_1024, 16), 0);
	reg(&p, &m);
	test_rng_fill(&rng, payload, sizeof(payload));
	memset(&k, 0, sizeof(k));
	k.dmac[0] = 0x02;
	k.dmac[5] = 2; /* B's MAC (udp_pair.c) */
	k.smac[0] = 0x02;
	k.smac[5] = 1;
	k.ipver = 4;
	k.src = p.a.gid;
	k.dst = p.b.gid;
	k.ttl = 64;
	k.ip_flags = 2;
	k.sport = 0xc000;
	k.bth.opcode = WQE_WIRE_RC_RDMA_WRITE_ONLY;
	k.bth.pkey = 0xffff;
	k.bth.destqp = wqe_qp_num(p.b.qp);
	k.bth.ackreq = 1;
	k.bth.psn = 0x1000;
	k.reth.va = (uint64_t)(uintptr_t)b_dst;
	k.reth.rkey = m.b_dst->rkey;
	k.reth.dma_len = sizeof(payload);
	CHECK_EQ(wqe_pkt_build(&k, payload, sizeof(payload), frame, sizeof(frame), &flen), 0);
	CHECK_EQ(wqe_link_stats(p.b.link, &s0), 0);
	CHECK_EQ(wqe_context_receive(p.b.ctx, frame, flen), 0);
	CHECK_EQ(wqe_link_stats(p.b.link, &s), 0);
	CHECK_EQ(s.delivered, s0.delivered + 1);
	CHECK_MEM(b_dst, payload, sizeof(payload));
	pf = (struct pollfd){wqe_link_udp_fd(p.a.link), POLLIN, 0};
	CHECK_EQ(poll(&pf, 1, 5000), 1);
	test_unreg4(&m);
	upair_close(&p);
}

/*
 * UD SENDs through two address handles in turn, one with the socket's own
 * TOS 0 and TTL 64 (no ancillary data needed), one with TOS 0x6a and TTL
 * 33, posted together: one sendmmsg(), and each datagram keeps its own.
 */
static void case_tos_ttl(void)
{
	enum { N = 20 };
	struct uep e;
	struct wqe_ah *ah[2];
	struct wqe_mr *mr;
	struct wqe_send_wr wr[N], *bad;
	struct wqe_sge sge[N];
	struct wqe_wc wc[N];
	union wqe_gid g3;
	uint8_t buf[2048];
	int fd, got = 0;

	fd = udp_plain_socket(&g3);
	CHECK_EQ(uep_open(&e, 1, WQE_QPT_UD, 64), 0);
	CHECK_EQ(uep_connect(&e, &g3, 0, WQE_QPT_UD, WQE_MTU_1024, 0, 64), 0);
	ah[0] = e.ah;
	{
		struct wqe_ah_attr aa;

		memset(&aa, 0, sizeof(aa));
		aa.port_num = 1;
		aa.dmac[0] = 0x02;
		aa.grh.dgid = g3;
		aa.grh.hop_limit = 33;
		aa.grh.traffic_class = 0x6a;
		ah[1] = wqe_create_ah(e.pd, &aa);
		CHECK(ah[1] != NULL);
	}
	mr = wqe_reg_mr(e.pd, a_src, REGION, WQE_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	log_watch(&logs[0], wqe_link_udp_fd(e.link));
	for (int i = 0; i < N; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		sge[i] = (struct wqe_sge){(uint64_t)(uintptr_t)(a_src + 64 * i), 64, mr->lkey};
		wr[i].wr_id = (uint64_t)i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = WQE_WR_SEND;
		wr[i].send_flags = WQE_SEND_SIGNALED;
		wr[i].wr.ud.ah = ah[i & 1];
		wr[i].wr.ud.remote_qpn = 0x123;
		wr[i].wr.ud.remote_qkey = 0x11111111;
		wr[i].next = i + 1 < N ? &wr[i + 1] : NULL;
	}
	CHECK_EQ(wqe_post_send(e.qp, wr, &bad), 0);
	for (int t = 0; t < 100 && got < N; t++) {
		int r = wqe_poll_cq(e.scq, N - got, wc + got);

		got += r > 0 ? r : 0;
	}
	CHECK_EQ(got, N);
	CHECK_EQ(logs[0].calls, 1);
	CHECK_EQ(logs[0].datagrams, N);
	for (int i = 0; i < N; i++) {
		int tos, ttl;
		ssize_t n = udp_plain_recv(fd, buf, sizeof(buf), &tos, &ttl);

		CHECK(n > WQE_BTH_LEN + 8);
		CHECK_EQ(tos, i & 1 ? 0x6a : 0);
		CHECK_EQ(ttl, i & 1 ? 33 : 64);
		if (n > WQE_BTH_LEN + 8 + 64) /* BTH, DETH, then the payload */
			CHECK_MEM(buf + WQE_BTH_LEN + 8, a_src + 64 * i, 64);
	}
	logs_off();
	wqe_destroy_ah(ah[1]);
	wqe_dereg_mr(mr);
	uep_close(&e);
	close(fd);
}

int main(void)
{
	test_rng_seed(&rng, 0xba7c4);
	case_tos_ttl();
	case_receive();
	case_big_batch();
	case_both_ways(WQE_MTU_1024);
	case_both_ways(WQE_MTU_4096);
	case_refused(EAGAIN);
	case_refused(ENOBUFS);
	case_refused(EMSGSIZE);
	case_fault();
	free(tx_a.h);
	return test_finish();
}
