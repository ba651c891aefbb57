/* SPDX-License-Identifier: MIT */
/*
 * rdmacm_api's cases 6-8: misuse, each call -1 with the errno rdma-core's
 * librdmacm and the kernel's rdma_cm give and nothing changed after it;
 * rdma_destroy_id() waiting for an event to be acked, rdma_migrate_id();
 * four threads connecting and disconnecting at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <rdma/rdma_verbs.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rdmacm_cases.h"
#include "rdmacm_util.h"

#define FAILS_WITH(call, e) (errno = 0, (call) == -1 && errno == (e))

static int set_int(struct rdma_cm_id *id, int optname, int v)
{
	return rdma_set_option(id, RDMA_OPTION_ID, optname, &v, sizeof(v));
}

static int set_u8(struct rdma_cm_id *id, int optname, uint8_t v)
{
	return rdma_set_option(id, RDMA_OPTION_ID, optname, &v, sizeof(v));
}

/* ------------------------------------------------------------------------ */
/* 6. misuse */

static void misuse_null(struct rdma_event_channel *ch)
{
	struct sockaddr_in a = sa(ADDR_A, 7306);
	struct rdma_addrinfo *res = NULL;
	struct rdma_cm_id *id = NULL;

	/* rdma-core's own checks */
	CHECK(FAILS_WITH(rdma_get_cm_event(ch, NULL), EINVAL));
	CHECK(FAILS_WITH(rdma_ack_cm_event(NULL), EINVAL));
	CHECK(FAILS_WITH(rdma_getaddrinfo(NULL, NULL, NULL, &res), EINVAL) && !res);
	/* the kernel's ucma_get_qp_type() */
	CHECK(FAILS_WITH(rdma_create_id(ch, &id, NULL, (enum rdma_port_space)0x77), EINVAL) && !id);
	/* where rdma-core would dereference NULL, the drop-in says EINVAL */
	CHECK(FAILS_WITH(rdma_create_id(ch, NULL, NULL, RDMA_PS_TCP), EINVAL));
	CHECK(FAILS_WITH(rdma_destroy_id(NULL), EINVAL));
	if (!CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0))
		return;
	CHECK(FAILS_WITH(rdma_bind_addr(id, NULL), EINVAL));
	CHECK(FAILS_WITH(rdma_resolve_addr(id, NULL, NULL, 100), EINVAL));
	CHECK(FAILS_WITH(rdma_connect(NULL, NULL), EINVAL));
	/* nothing changed: the ID binds, and no event came */
	CHECK(rdma_bind_addr(id, (struct sockaddr *)&a) == 0 && quiet(ch, 0));
	CHECK(rdma_destroy_id(id) == 0);
}

/* Ports: the kernel's cma_check_port() and rdma_listen(). */
static void misuse_ports(struct rdma_event_channel *ch)
{
	struct sockaddr_in a = sa(ADDR_A, 7306), any = sa("0.0.0.0", 7306);
	struct sockaddr_in far = sa("192.0.2.77", 7306), a7 = sa(ADDR_A, 7307);
	struct rdma_cm_id *x, *y, *z, *w;
	int r;

	if (!CHECK(rdma_create_id(ch, &x, NULL, RDMA_PS_TCP) == 0 &&
		   rdma_create_id(ch, &y, NULL, RDMA_PS_TCP) == 0 &&
		   rdma_create_id(ch, &z, NULL, RDMA_PS_TCP) == 0 &&
		   rdma_create_id(ch, &w, NULL, RDMA_PS_TCP) == 0))
		return;
	/* two reusable IDs on one address and port, neither listening */
	CHECK(set_int(x, RDMA_OPTION_ID_REUSEADDR, 1) == 0 &&
	      set_int(y, RDMA_OPTION_ID_REUSEADDR, 1) == 0 &&
	      set_int(w, RDMA_OPTION_ID_REUSEADDR, 1) == 0);
	CHECK(rdma_bind_addr(x, (struct sockaddr *)&a) == 0);
	CHECK(rdma_bind_addr(y, (struct sockaddr *)&a) == 0);
	/* a listener must be alone on its address and port */
	CHECK(FAILS_WITH(r = rdma_listen(x, 4), EADDRINUSE));
	CHECK(rdma_destroy_id(y) == 0);
	if (r)
		CHECK(rdma_listen(x, 4) == 0);	      /* nothing changed: x is bound still */
	CHECK(FAILS_WITH(rdma_listen(x, 4), EINVAL)); /* listening already */
	CHECK(FAILS_WITH(rdma_bind_addr(z, (struct sockaddr *)&a), EADDRINUSE));
	/* a listener is no longer reusable */
	CHECK(FAILS_WITH(rdma_bind_addr(w, (struct sockaddr *)&a), EADDRINUSE));
	/* a wildcard over a bound port */
	CHECK(FAILS_WITH(rdma_bind_addr(z, (struct sockaddr *)&any), EADDRNOTAVAIL));
	/* an address no device has */
	CHECK(FAILS_WITH(rdma_bind_addr(z, (struct sockaddr *)&far), EADDRNOTAVAIL));
	/* nothing changed: z binds where it may */
	CHECK(rdma_bind_addr(z, (struct sockaddr *)&a7) == 0 &&
	      rdma_get_src_port(z) == htons(7307));
	CHECK(rdma_destroy_id(w) == 0 && rdma_destroy_id(z) == 0 && rdma_destroy_id(x) == 0);
}

/* Calls the ID's state does not allow, and private data too long. */
static void misuse_req(struct pair *p, struct rdma_cm_id *c)
{
	uint8_t big[200] = {0};
	struct rdma_conn_param cp = conn_param(big, 57), ap = conn_param(big, 197);
	struct ibv_qp_init_attr q = qp_attr(IBV_QPT_RC);
	struct rdma_cm_event *ev;
	uint8_t got[56];

	struct ibv_device_attr da;

	fill(big, sizeof(big), 10);
	CHECK(FAILS_WITH(rdma_connect(c, &cp), EINVAL)); /* a REQ carries 56 bytes */
	/* depths past the device's: ucma_valid_param() */
	cp.private_data_len = 56;
	if (!CHECK(ibv_query_device(c->verbs, &da) == 0))
		return;
	cp.responder_resources = (uint8_t)(da.max_qp_rd_atom + 1);
	CHECK(FAILS_WITH(rdma_connect(c, &cp), EINVAL));
	cp.responder_resources = 1;
	cp.initiator_depth = (uint8_t)(da.max_qp_init_rd_atom + 1);
	CHECK(FAILS_WITH(rdma_connect(c, &cp), EINVAL));
	cp.initiator_depth = 1;
	CHECK(quiet(p->cha, 100));
	if (!CHECK(rdma_connect(c, &cp) == 0) || !pair_request(p, NULL, got, sizeof(got)))
		return;
	CHECK(memcmp(got, big, 56) == 0);
	CHECK(rdma_create_qp(p->a, NULL, &q) == 0);
	ap.private_data_len = 196;
	ap.initiator_depth = (uint8_t)(da.max_qp_init_rd_atom + 1);
	CHECK(FAILS_WITH(rdma_accept(p->a, &ap), EINVAL));
	ap.initiator_depth = 1;
	ap.private_data_len = 197;
	CHECK(FAILS_WITH(rdma_accept(p->a, &ap), EINVAL));	/* a REP carries 196 */
	CHECK(FAILS_WITH(rdma_reject(p->a, big, 149), EINVAL)); /* a REJ 148 */
	CHECK(quiet(p->chb, 100));
	CHECK(rdma_reject(p->a, big, 148) == 0);
	ev = EXPECT(p->chb, RDMA_CM_EVENT_REJECTED, c);
	if (ev) {
		CHECK(ev->status == 28 && ev->param.conn.private_data_len == 148 &&
		      !memcmp(ev->param.conn.private_data, big, 148));
		rdma_ack_cm_event(ev);
	}
}

static void misuse_states(void)
{
	struct sockaddr_in src = sa(ADDR_B, 0), dst = sa(ADDR_A, 7308), a9 = sa(ADDR_A, 7309);
	struct rdma_conn_param cp = conn_param(NULL, 0);
	struct ibv_qp_init_attr q = qp_attr(IBV_QPT_RC);
	struct rdma_cm_id *c, *d;
	struct pair p;
	int r;

	if (!pair_listen(&p, RDMA_PS_TCP, 7308))
		goto out;
	CHECK(FAILS_WITH(rdma_accept(p.lis, &cp), EINVAL)); /* a listener has no request */
	CHECK(FAILS_WITH(rdma_reject(p.lis, NULL, 0), EINVAL));
	if (!CHECK(rdma_create_id(p.chb, &p.b, NULL, RDMA_PS_TCP) == 0))
		goto out;
	c = p.b;
	CHECK(rdma_resolve_addr(c, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) == 0);
	if (!EXPECT_OK(p.chb, RDMA_CM_EVENT_ADDR_RESOLVED, c) ||
	    !CHECK(rdma_create_qp(c, NULL, &q) == 0))
		goto out;
	CHECK(FAILS_WITH(rdma_connect(c, &cp), EINVAL)); /* no route yet */
	CHECK(FAILS_WITH(rdma_accept(c, &cp), EINVAL));	 /* no request */
	CHECK(FAILS_WITH(rdma_reject(c, NULL, 0), EINVAL));
	CHECK(FAILS_WITH(rdma_disconnect(c), EINVAL)); /* not connected */
	CHECK(quiet(p.cha, 100));		       /* no REQ went */
	CHECK(rdma_resolve_route(c, 2000) == 0);
	EXPECT_OK(p.chb, RDMA_CM_EVENT_ROUTE_RESOLVED, c);
	/* the kernel resolves a route from ADDR_RESOLVED only */
	CHECK(FAILS_WITH(r = rdma_resolve_route(c, 2000), EINVAL));
	if (!r)
		EXPECT_OK(p.chb, RDMA_CM_EVENT_ROUTE_RESOLVED, c);
	misuse_req(&p, c);
	/* a bound ID that never listened has no request either */
	if (CHECK(rdma_create_id(p.cha, &d, NULL, RDMA_PS_TCP) == 0)) {
		CHECK(rdma_bind_addr(d, (struct sockaddr *)&a9) == 0);
		CHECK(FAILS_WITH(rdma_accept(d, &cp), EINVAL));
		CHECK(FAILS_WITH(rdma_disconnect(d), EINVAL));
		CHECK(rdma_destroy_id(d) == 0);
	}
out:
	pair_free(&p);
}

/* rdma_get_cm_event() on an O_NONBLOCK channel: EAGAIN while empty. */
static void misuse_nonblock(struct rdma_event_channel *ch)
{
	struct sockaddr_in src = sa(ADDR_B, 0), dst = sa(ADDR_A, 7310);
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *id;
	int fl = fcntl(ch->fd, F_GETFL);

	if (!CHECK(fl >= 0 && fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) == 0))
		return;
	CHECK(FAILS_WITH(rdma_get_cm_event(ch, &ev), EAGAIN) && !ev);
	if (CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0)) {
		CHECK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst,
					2000) == 0);
		EXPECT_OK(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id); /* the fd, non-blocking */
		CHECK(FAILS_WITH(rdma_get_cm_event(ch, &ev), EAGAIN));
		CHECK(rdma_destroy_id(id) == 0);
	}
	CHECK(fcntl(ch->fd, F_SETFL, fl) == 0);
}

/* rdma_set_option(): the kernel's ucma_set_option_level() and _id(). */
static void misuse_options(struct rdma_event_channel *ch)
{
	struct sockaddr_in src = sa(ADDR_B, 0), dst = sa(ADDR_A, 7311), mc = sa("239.1.2.3", 0);
	struct sockaddr_in a = sa(ADDR_A, 7314);
	struct rdma_cm_id *id, *u;
	uint8_t tos = 32;

	if (!CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0 &&
		   rdma_create_id(ch, &u, NULL, RDMA_PS_UDP) == 0))
		return;
	CHECK(set_u8(id, RDMA_OPTION_ID_TOS, 32) == 0);
	CHECK(set_u8(id, RDMA_OPTION_ID_ACK_TIMEOUT, 14) == 0);
	CHECK(set_int(id, RDMA_OPTION_ID_REUSEADDR, 1) == 0);
	CHECK(FAILS_WITH(rdma_set_option(id, 99, RDMA_OPTION_ID_TOS, &tos, 1), ENOSYS));
	CHECK(FAILS_WITH(rdma_set_option(id, RDMA_OPTION_ID, 77, &tos, 1), ENOSYS));
	/* no buffer: EFAULT from the kernel's copy; none of no length either,
	 * then the option's size check */
	CHECK(FAILS_WITH(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, NULL, 1), EFAULT));
	CHECK(FAILS_WITH(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, NULL, 0), EINVAL));
	CHECK(FAILS_WITH(set_int(id, RDMA_OPTION_ID_TOS, 32), EINVAL)); /* optlen not 1 */
	CHECK(FAILS_WITH(set_u8(id, RDMA_OPTION_ID_REUSEADDR, 1), EINVAL));
	/* rdma_set_ack_timeout(): RC IDs only */
	CHECK(FAILS_WITH(set_u8(u, RDMA_OPTION_ID_ACK_TIMEOUT, 14), EINVAL));
	/* what was taken shows in the route: the traffic class; the packet
	 * life time ACK timeout - 1; the SL iboe_tos_to_sl() gives a netdev
	 * with no VLAN and no traffic classes */
	CHECK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) == 0);
	if (EXPECT_OK(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id) &&
	    CHECK(rdma_resolve_route(id, 2000) == 0) &&
	    EXPECT_OK(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, id) && CHECK(id->route.path_rec)) {
		CHECK(id->route.path_rec->traffic_class == 32);
		CHECK(id->route.path_rec->packet_life_time == 13);
		CHECK(id->route.path_rec->sl == 0);
	}
	/* REUSEADDR set again on a bound ID, cleared only on an unbound one;
	 * AFONLY until the ID is bound, not after it resolved */
	CHECK(set_int(id, RDMA_OPTION_ID_REUSEADDR, 1) == 0);
	CHECK(FAILS_WITH(set_int(id, RDMA_OPTION_ID_REUSEADDR, 0), EINVAL));
	CHECK(FAILS_WITH(set_int(id, RDMA_OPTION_ID_AFONLY, 1), EINVAL));
	CHECK(rdma_bind_addr(u, (struct sockaddr *)&a) == 0 &&
	      set_int(u, RDMA_OPTION_ID_AFONLY, 1) == 0);
	/* no multicast on a wqe device */
	CHECK(FAILS_WITH(rdma_join_multicast(id, (struct sockaddr *)&mc, NULL), EOPNOTSUPP));
	CHECK(quiet(ch, 0));
	CHECK(rdma_destroy_id(u) == 0 && rdma_destroy_id(id) == 0);
}

void case_misuse(void)
{
	struct rdma_event_channel *ch;

	begin("6 misuse", 30);
	ch = rdma_create_event_channel();
	if (!CHECK(ch))
		return;
	misuse_null(ch);
	misuse_ports(ch);
	misuse_nonblock(ch);
	misuse_options(ch);
	CHECK(quiet(ch, 0));
	rdma_destroy_event_channel(ch);
	misuse_states();
}

/* ------------------------------------------------------------------------ */
/* 7. rdma_destroy_id() waits for the ack; rdma_migrate_id() */

struct destroyer {
	struct rdma_cm_id *id;
	atomic_int done;
	int ret;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	d->ret = rdma_destroy_id(d->id);
	atomic_store(&d->done, 1);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&t, NULL);
}

static void destroy_waits(struct rdma_event_channel *ch)
{
	struct sockaddr_in src = sa(ADDR_B, 0), dst = sa(ADDR_A, 7312);
	struct destroyer d;
	struct rdma_cm_event *ev;
	pthread_t t;

	memset(&d, 0, sizeof(d));
	if (!CHECK(rdma_create_id(ch, &d.id, NULL, RDMA_PS_TCP) == 0))
		return;
	CHECK(rdma_resolve_addr(d.id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) == 0);
	ev = EXPECT(ch, RDMA_CM_EVENT_ADDR_RESOLVED, d.id);
	if (!ev || !CHECK(pthread_create(&t, NULL, destroy_thread, &d) == 0))
		return;
	sleep_ms(300);
	/* the event is the program's still (if the ID is gone already, its
	 * event is not acked: that would touch freed memory) */
	if (CHECK(!atomic_load(&d.done)))
		rdma_ack_cm_event(ev);
	for (int i = 0; i < 500 && !atomic_load(&d.done); i++)
		sleep_ms(10);
	CHECK(atomic_load(&d.done) && d.ret == 0);
	CHECK(pthread_join(t, NULL) == 0);
}

static void migrate(struct rdma_event_channel *chx)
{
	struct sockaddr_in src = sa(ADDR_B, 0), dst = sa(ADDR_A, 7313);
	struct rdma_event_channel *chy = rdma_create_event_channel();
	struct rdma_cm_id *y, *z;
	struct rdma_cm_event *ev;

	if (!CHECK(chy && rdma_create_id(chx, &y, NULL, RDMA_PS_TCP) == 0 &&
		   rdma_create_id(chx, &z, NULL, RDMA_PS_TCP) == 0))
		return;
	/* chx: y's ADDR_RESOLVED, z's ADDR_RESOLVED, y's ROUTE_RESOLVED */
	CHECK(rdma_resolve_addr(y, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) == 0);
	CHECK(!quiet(chx, EV_MS));
	CHECK(rdma_resolve_addr(z, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) == 0);
	CHECK(rdma_resolve_route(y, 2000) == 0);
	sleep_ms(100);
	CHECK(rdma_migrate_id(y, chy) == 0 && y->channel == chy);
	/* z's stays; y's two move, in order */
	ev = EXPECT(chx, RDMA_CM_EVENT_ADDR_RESOLVED, z);
	if (ev)
		rdma_ack_cm_event(ev);
	CHECK(quiet(chx, 100));
	EXPECT_OK(chy, RDMA_CM_EVENT_ADDR_RESOLVED, y);
	EXPECT_OK(chy, RDMA_CM_EVENT_ROUTE_RESOLVED, y);
	CHECK(quiet(chy, 100));
	/* to no channel: a synchronous ID on a channel of its own */
	CHECK(rdma_migrate_id(y, NULL) == 0 && y->channel && y->channel != chy &&
	      y->channel != chx);
	CHECK(FAILS_WITH(rdma_migrate_id(y, NULL), EINVAL)); /* synchronous already */
	CHECK(rdma_destroy_id(y) == 0 && rdma_destroy_id(z) == 0);
	rdma_destroy_event_channel(chy);
}

void case_destroy_migrate(void)
{
	struct rdma_event_channel *ch;

	begin("7 destroy waits, migrate", 30);
	ch = rdma_create_event_channel();
	if (!CHECK(ch))
		return;
	destroy_waits(ch);
	migrate(ch);
	CHECK(quiet(ch, 0));
	rdma_destroy_event_channel(ch);
}

/* ------------------------------------------------------------------------ */
/* 8. four threads, ten connections each, at once */

enum { NTHREADS = 4, NCONN = 10 };

static bool churn_one(struct pair *p, uint16_t port, unsigned t, unsigned k)
{
	struct ibv_qp_init_attr q = qp_attr(IBV_QPT_RC);
	uint8_t pd[8] = {(uint8_t)t, (uint8_t)k, 0xc0, 0xde}, got[8], buf[64];
	struct rdma_conn_param cp = conn_param(pd, sizeof(pd));
	struct ibv_mr *mra = NULL, *mrb = NULL;
	struct ibv_wc wc;
	bool ok = false;

	if (!pair_resolve(p, RDMA_PS_TCP, port, IBV_QPT_RC) ||
	    !CHECK(rdma_connect(p->b, &cp) == 0) || !pair_request(p, NULL, got, sizeof(got)) ||
	    !CHECK(!memcmp(got, pd, sizeof(pd))) || !CHECK(rdma_create_qp(p->a, NULL, &q) == 0))
		return false;
	mra = ibv_reg_mr(p->a->pd, buf, 32, IBV_ACCESS_LOCAL_WRITE);
	mrb = ibv_reg_mr(p->b->pd, buf + 32, 32, IBV_ACCESS_LOCAL_WRITE);
	if (CHECK(mra && mrb) && CHECK(rdma_post_recv(p->a, NULL, buf, 32, mra) == 0) &&
	    CHECK(rdma_accept(p->a, NULL) == 0) &&
	    EXPECT_OK(p->chb, RDMA_CM_EVENT_ESTABLISHED, p->b) &&
	    EXPECT_OK(p->cha, RDMA_CM_EVENT_ESTABLISHED, p->a)) {
		memcpy(buf + 32, pd, sizeof(pd));
		CHECK(rdma_post_send(p->b, NULL, buf + 32, 8, mrb, IBV_SEND_SIGNALED) == 0);
		CHECK(wait_wc(p->a->recv_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
		      wc.byte_len == 8 && !memcmp(buf, pd, 8));
		CHECK(wait_wc(p->b->send_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
		ok = CHECK(rdma_disconnect(p->b) == 0) &&
		     EXPECT_OK(p->cha, RDMA_CM_EVENT_DISCONNECTED, p->a) &&
		     CHECK(rdma_disconnect(p->a) == 0) &&
		     EXPECT_OK(p->chb, RDMA_CM_EVENT_DISCONNECTED, p->b);
	}
	rdma_destroy_qp(p->a);
	rdma_destroy_qp(p->b);
	CHECK(rdma_destroy_id(p->a) == 0 && rdma_destroy_id(p->b) == 0);
	p->a = p->b = NULL;
	if (mra)
		ibv_dereg_mr(mra);
	if (mrb)
		ibv_dereg_mr(mrb);
	return ok;
}

static void *churn(void *arg)
{
	const unsigned t = (unsigned)(uintptr_t)arg;
	const uint16_t port = (uint16_t)(7320 + t);
	struct pair p;

	if (pair_listen(&p, RDMA_PS_TCP, port))
		for (unsigned k = 0; k < NCONN; k++)
			if (!churn_one(&p, port, t, k))
				break;
	/* each channel holds the events of this thread's IDs alone */
	CHECK(p.cha && quiet(p.cha, 0) && quiet(p.chb, 0));
	pair_free(&p);
	return NULL;
}

void case_threads(void)
{
	pthread_t t[NTHREADS];
	int started = 0;

	begin("8 four threads at once", 120);
	for (uintptr_t i = 0; i < NTHREADS; i++)
		if (CHECK(pthread_create(&t[i], NULL, churn, (void *)i) == 0))
			started++;
	for (int i = 0; i < started; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
}
