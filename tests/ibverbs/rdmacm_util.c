/* SPDX-License-Identifier: MIT */
/* What rdmacm_api's cases share (rdmacm_util.h). */
#include "rdmacm_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int ctx_a, ctx_b;

static atomic_int nchecks, nfails;
static const char *volatile current = "setup";

bool check_at(int ok, const char *what, const char *file, int line)
{
	atomic_fetch_add(&nchecks, 1);
	if (!ok) {
		atomic_fetch_add(&nfails, 1);
		fprintf(stderr, "FAIL %s:%d: %s [%s]\n", file, line, what, current);
	}
	return ok != 0;
}

int checks_run(void)
{
	return atomic_load(&nchecks);
}

int checks_failed(void)
{
	return atomic_load(&nfails);
}

static void put(const char *s)
{
	if (write(2, s, strlen(s)) < 0) {
		/* nothing more to be done in a signal handler */
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	put("FAIL rdmacm_api: a call or wait ran past its bound in case ");
	put(current);
	put("\n");
	_exit(1);
}

void watchdog_init(void)
{
	struct sigaction s;

	memset(&s, 0, sizeof(s));
	s.sa_handler = on_alarm;
	sigaction(SIGALRM, &s, NULL);
}

void begin(const char *name, unsigned seconds)
{
	current = name;
	printf("case %s\n", name);
	fflush(stdout);
	alarm(seconds);
}

struct sockaddr_in sa(const char *ip, uint16_t port)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &s.sin_addr) != 1)
		s.sin_family = AF_UNSPEC;
	return s;
}

bool sa_is(const struct sockaddr *s, const char *ip, uint16_t port)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)s;
	struct sockaddr_in want = sa(ip, port);

	return in->sin_family == AF_INET && in->sin_addr.s_addr == want.sin_addr.s_addr &&
	       (port ? in->sin_port == want.sin_port : in->sin_port != 0);
}

bool gid_is(const union ibv_gid *g, const char *ip)
{
	uint8_t want[16] = {0};

	want[10] = want[11] = 0xff;
	if (inet_pton(AF_INET, ip, want + 12) != 1)
		return false;
	return memcmp(g->raw, want, 16) == 0;
}

struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = {ch->fd, POLLIN, 0};
	struct rdma_cm_event *ev;

	if (poll(&p, 1, ms) != 1 || !(p.revents & POLLIN))
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

struct rdma_cm_event *expect_at(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
				struct rdma_cm_id *id, const char *file, int line)
{
	struct rdma_cm_event *ev = next_event(ch, EV_MS);
	char what[200];

	if (ev && ev->event == type && (!id || ev->id == id)) {
		check_at(1, "", file, line);
		return ev;
	}
	snprintf(what, sizeof(what), "expected %s for %p within %d ms, got %s (status %d) for %p",
		 rdma_event_str(type), (void *)id, EV_MS,
		 ev ? rdma_event_str(ev->event) : "nothing", ev ? ev->status : 0,
		 ev ? (void *)ev->id : NULL);
	check_at(0, what, file, line);
	if (ev)
		rdma_ack_cm_event(ev);
	return NULL;
}

bool expect_ok_at(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
		  struct rdma_cm_id *id, const char *file, int line)
{
	struct rdma_cm_event *ev = expect_at(ch, type, id, file, line);
	bool ok;

	if (!ev)
		return false;
	ok = check_at(ev->status == 0, "the event's status is 0", file, line);
	rdma_ack_cm_event(ev);
	return ok;
}

bool quiet(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = {ch->fd, POLLIN, 0};

	return poll(&p, 1, ms) == 0;
}

int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	const struct timespec nap = {0, 50000};
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > EV_MS)
			return 0;
		nanosleep(&nap, NULL);
	}
}

int qp_state(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	struct ibv_qp_init_attr ia;

	memset(a, 0, sizeof(*a));
	if (!qp || ibv_query_qp(qp, a,
				IBV_QP_STATE | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_QKEY | IBV_QP_DEST_QPN,
				&ia))
		return -1;
	return (int)a->qp_state;
}

struct ibv_qp_init_attr qp_attr(enum ibv_qp_type t)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_type = t;
	a.cap.max_send_wr = a.cap.max_recv_wr = 16;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	return a;
}

void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7u + seed * 31u + 1u);
}

/* The pair helpers' checks count at their caller's line. */
#define CHECK_AT(c)		   check_at(!!(c), #c, file, line)
#define EXPECT_AT(ch, type, id)	   expect_at(ch, type, id, file, line)
#define EXPECT_OK_AT(ch, type, id) expect_ok_at(ch, type, id, file, line)

bool pair_listen_at(struct pair *p, enum rdma_port_space ps, uint16_t port, const char *file,
		    int line)
{
	struct sockaddr_in a = sa(ADDR_A, port);

	memset(p, 0, sizeof(*p));
	p->cha = rdma_create_event_channel();
	p->chb = rdma_create_event_channel();
	if (!CHECK_AT(p->cha && p->chb))
		return false;
	return CHECK_AT(rdma_create_id(p->cha, &p->lis, &ctx_a, ps) == 0) &&
	       CHECK_AT(rdma_bind_addr(p->lis, (struct sockaddr *)&a) == 0) &&
	       CHECK_AT(rdma_listen(p->lis, 4) == 0);
}

bool pair_resolve_at(struct pair *p, enum rdma_port_space ps, uint16_t port, enum ibv_qp_type qpt,
		     const char *file, int line)
{
	struct sockaddr_in src = sa(ADDR_B, 0), dst = sa(ADDR_A, port);
	struct ibv_qp_init_attr q = qp_attr(qpt);

	if (!CHECK_AT(rdma_create_id(p->chb, &p->b, &ctx_b, ps) == 0) ||
	    !CHECK_AT(rdma_resolve_addr(p->b, (struct sockaddr *)&src, (struct sockaddr *)&dst,
					2000) == 0) ||
	    !EXPECT_OK_AT(p->chb, RDMA_CM_EVENT_ADDR_RESOLVED, p->b) ||
	    !CHECK_AT(rdma_resolve_route(p->b, 2000) == 0) ||
	    !EXPECT_OK_AT(p->chb, RDMA_CM_EVENT_ROUTE_RESOLVED, p->b))
		return false;
	return !qpt || CHECK_AT(rdma_create_qp(p->b, NULL, &q) == 0);
}

bool pair_request_at(struct pair *p, struct rdma_conn_param *conn, uint8_t *pdata, size_t len,
		     const char *file, int line)
{
	struct rdma_cm_event *ev = EXPECT_AT(p->cha, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);

	if (!ev)
		return false;
	CHECK_AT(ev->status == 0 && ev->listen_id == p->lis && ev->id != p->lis);
	p->a = ev->id;
	if (conn)
		*conn = ev->param.conn;
	if (pdata) {
		/* the same offset in param.ud: private_data and its length lead both */
		CHECK_AT(ev->param.conn.private_data && ev->param.conn.private_data_len >= len);
		if (ev->param.conn.private_data)
			memcpy(pdata, ev->param.conn.private_data,
			       len < ev->param.conn.private_data_len
				   ? len
				   : ev->param.conn.private_data_len);
	}
	if (conn)
		conn->private_data = NULL;
	rdma_ack_cm_event(ev);
	return true;
}

static void id_free(struct rdma_cm_id **id)
{
	if (!*id)
		return;
	if ((*id)->qp)
		rdma_destroy_qp(*id);
	CHECK(rdma_destroy_id(*id) == 0);
	*id = NULL;
}

void pair_free(struct pair *p)
{
	id_free(&p->a);
	id_free(&p->b);
	id_free(&p->lis);
	if (p->cha)
		rdma_destroy_event_channel(p->cha);
	if (p->chb)
		rdma_destroy_event_channel(p->chb);
	p->cha = p->chb = NULL;
}

struct rdma_conn_param conn_param(const void *pdata, uint8_t len)
{
	struct rdma_conn_param cp;

	memset(&cp, 0, sizeof(cp));
	cp.private_data = pdata;
	cp.private_data_len = len;
	cp.responder_resources = cp.initiator_depth = 1;
	cp.retry_count = cp.rnr_retry_count = 7;
	return cp;
}
