/* SPDX-License-Identifier: MIT */
#define _DEFAULT_SOURCE /* IP_RECVTOS, CMSG_* */
#include "udp_pair.h"
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wqe/wire.h" /* WQE_ROCEV2_PORT */

static unsigned pinned_pid;

void udp_test_pin_net(void)
{
	pinned_pid = (unsigned)getpid();
}

/* 127.X.Y: X and Y from the process id (or the pinned one). */
static void test_net(uint8_t *x, uint8_t *y)
{
	unsigned pid = pinned_pid ? pinned_pid : (unsigned)getpid();

	*x = (uint8_t)(16 + (pid >> 8) % 200);
	*y = (uint8_t)(pid & 0xffu);
}

void udp_test_addr(unsigned host, char *out)
{
	uint8_t x, y;

	test_net(&x, &y);
	snprintf(out, 16, "127.%u.%u.%u", x, y, host);
}

void udp_test_gid(unsigned host, union wqe_gid *g)
{
	uint8_t x, y;

	test_net(&x, &y);
	test_gid_v4(g, 127, x, y, (uint8_t)host);
}

static void on_trace(void *arg, const struct wqe_trace_event *ev)
{
	struct uep *e = arg;

	if (ev->kind == WQE_TRACE_RX)
		e->rx++;
	if (ev->kind != WQE_TRACE_DROP)
		return;
	e->drops++;
	if (ev->reason && strcmp(ev->reason, "bad ICRC") == 0)
		e->bad_icrc++;
	if (ev->reason && strcmp(ev->reason, "malformed") == 0)
		e->malformed++;
}

static int open_ep(struct uep *e, unsigned host, enum wqe_qp_type t, uint32_t max_wr,
		   bool channel)
{
	struct wqe_udp_cfg uc;
	struct wqe_context_attr ca;
	struct wqe_qp_init_attr ia;
	int rc;

	memset(e, 0, sizeof(*e));
	udp_test_addr(host, e->addr);
	memset(&uc, 0, sizeof(uc));
	uc.local = e->addr;
	e->link = wqe_link_udp_create(&uc);
	if (!e->link) {
		rc = errno;
		fprintf(stderr, "udp link on %s: %s\n", e->addr, strerror(rc));
		return rc;
	}
	memset(&ca, 0, sizeof(ca));
	ca.format = test_format();
	ca.mac[0] = 0x02;
	ca.mac[5] = (uint8_t)host;
	ca.num_gids = 1;
	udp_test_gid(host, &ca.gid[0]);
	e->gid = ca.gid[0];
	e->ctx = wqe_open_context(&ca);
	if (!e->ctx)
		return errno;
	rc = wqe_context_attach_link(e->ctx, e->link);
	if (rc)
		return rc;
	e->pd = wqe_alloc_pd(e->ctx);
	if (channel) {
		struct wqe_cq_init_attr_ex cqa = {.cqe = 4096};

		e->channel = wqe_create_comp_channel(e->ctx);
		if (!e->channel)
			return errno;
		cqa.channel = e->channel;
		e->scq = wqe_create_cq_ex(e->ctx, &cqa);
		e->rcq = wqe_create_cq_ex(e->ctx, &cqa);
	} else {
		wqe_context_set_trace(e->ctx, on_trace, e);
		e->scq = wqe_create_cq(e->ctx, 4096);
		e->rcq = wqe_create_cq(e->ctx, 4096);
	}
	if (!e->pd || !e->scq || !e->rcq)
		return ENOMEM;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = e->scq;
	ia.recv_cq = e->rcq;
	ia.qp_type = t;
	ia.cap.max_send_wr = max_wr;
	ia.cap.max_recv_wr = max_wr;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	e->qp = wqe_create_qp(e->pd, &ia);
	return e->qp ? 0 : errno;
}

int uep_open(struct uep *e, unsigned host, enum wqe_qp_type t, uint32_t max_wr)
{
	return open_ep(e, host, t, max_wr, false);
}

int uep_open_channel(struct uep *e, unsigned host, enum wqe_qp_type t, uint32_t max_wr)
{
	return open_ep(e, host, t, max_wr, true);
}

void uep_close(struct uep *e)
{
	if (e->ah)
		wqe_destroy_ah(e->ah);
	if (e->qp)
		wqe_destroy_qp(e->qp);
	if (e->scq)
		wqe_destroy_cq(e->scq);
	if (e->rcq)
		wqe_destroy_cq(e->rcq);
	if (e->channel)
		CHECK_EQ(wqe_destroy_comp_channel(e->channel), 0);
	if (e->pd)
		wqe_dealloc_pd(e->pd);
	if (e->ctx) {
		CHECK_EQ(wqe_context_attach_link(e->ctx, NULL), 0);
		CHECK_EQ(wqe_close_context(e->ctx), 0);
	}
	if (e->link)
		CHECK_EQ(wqe_link_destroy(e->link), 0);
	memset(e, 0, sizeof(*e));
}

int uep_connect(struct uep *e, const union wqe_gid *dgid, uint32_t dest_qpn, enum wqe_qp_type t,
		enum wqe_mtu mtu, uint8_t tclass, uint8_t hop)
{
	struct wqe_ah_attr aa;
	struct wqe_qp_attr a;
	int mask = WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT;

	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.dmac[0] = 0x02;
	aa.dmac[5] = dgid->raw[15];
	aa.grh.dgid = *dgid;
	aa.grh.hop_limit = hop;
	aa.grh.traffic_class = tclass;
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_INIT;
	a.port_num = 1;
	if (t == WQE_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= WQE_QP_QKEY;
	} else {
		a.qp_access_flags =
		    WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;
		mask |= WQE_QP_ACCESS_FLAGS;
	}
	if (wqe_modify_qp(e->qp, &a, mask))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTR;
	mask = WQE_QP_STATE;
	if (t != WQE_QPT_UD) {
		a.path_mtu = mtu;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = 0x1000;
		a.ah_attr = aa;
		mask |= WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN;
	}
	if (t == WQE_QPT_RC) {
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = 1;
		mask |= WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER;
	}
	if (wqe_modify_qp(e->qp, &a, mask))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTS;
	a.sq_psn = 0x1000;
	mask = WQE_QP_STATE | WQE_QP_SQ_PSN;
	if (t == WQE_QPT_RC) {
		/* 67 ms: no retransmission on a quiet loopback, even under valgrind. */
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 16;
		mask |=
		    WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT | WQE_QP_RNR_RETRY | WQE_QP_MAX_QP_RD_ATOMIC;
	}
	if (wqe_modify_qp(e->qp, &a, mask))
		return -1;
	if (t == WQE_QPT_UD) {
		e->ah = wqe_create_ah(e->pd, &aa);
		if (!e->ah)
			return -1;
	}
	return 0;
}

int upair_open(struct upair *p, enum wqe_qp_type t, enum wqe_mtu mtu, uint32_t max_wr)
{
	memset(p, 0, sizeof(*p));
	p->type = t;
	if (uep_open(&p->a, 1, t, max_wr) || uep_open(&p->b, 2, t, max_wr))
		return -1;
	if (uep_connect(&p->a, &p->b.gid, wqe_qp_num(p->b.qp), t, mtu, 0, 64) ||
	    uep_connect(&p->b, &p->a.gid, wqe_qp_num(p->a.qp), t, mtu, 0, 64))
		return -1;
	return 0;
}

void upair_close(struct upair *p)
{
	uep_close(&p->a);
	uep_close(&p->b);
}

void upair_spin(struct upair *p, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		wqe_progress(p->a.ctx);
		wqe_progress(p->b.ctx);
	}
}

int upair_wait(struct upair *p, struct wqe_cq *cq, int n, struct wqe_wc *wc, double seconds)
{
	return test_wait_cq(p->a.ctx, p->b.ctx, cq, n, wc, seconds);
}

/* A plain socket on 127.X.Y.3 port 4791, reporting TOS and TTL. */
int udp_plain_socket(union wqe_gid *gid)
{
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons(WQE_ROCEV2_PORT)};
	char a3[16];
	int one = 1, fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	udp_test_addr(3, a3);
	inet_pton(AF_INET, a3, &me.sin_addr);
	CHECK(fd >= 0);
	CHECK_EQ(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0);
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one)), 0);
	CHECK_EQ(setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)), 0);
	udp_test_gid(3, gid);
	return fd;
}

/* One datagram from @fd: its length (-1: none), TOS and TTL. */
ssize_t udp_plain_recv(int fd, uint8_t *buf, size_t cap, int *tos, int *ttl)
{
	union {
		char b[256];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {buf, cap};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b)};
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

	*tos = *ttl = -1;
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
			*tos = *CMSG_DATA(c);
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL)
			memcpy(ttl, CMSG_DATA(c), sizeof(*ttl));
	}
	return n;
}
