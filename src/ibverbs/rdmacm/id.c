/* SPDX-License-Identifier: MIT */
/*
 * Event channels, events and IDs: what rdma-core's librdmacm and the
 * kernel's rdma_cm do between them, on the CM agent. The agent's events
 * become rdma_cm's as the kernel's cma_ib_handler() and
 * cma_ib_req_handler() make them (see docs/rdma-cm.md for the table).
 *
 * Locks: ucm_lock over every ID, device and agent call; a channel's own
 * lock over its queue only, taken inside ucm_lock. A program thread never
 * waits inside ucm_lock except in rdma_destroy_id() and
 * rdma_migrate_id(), on the ID's condition (events to be acked).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibverbs/rdmacm/ucm_int.h"

struct ucm_id *ucm_ids; /* every ID, under ucm_lock */

/* ------------------------------------------------------------------------ */
/* Channels */

struct ucm_channel *ucm_channel_new(void)
{
	struct ucm_channel *c = calloc(1, sizeof(*c));
	int p[2];

	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	/* a socket pair rather than a pipe: recv() can take a byte without
	 * blocking whatever the program set on the fd */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p)) {
		free(c);
		return NULL;
	}
	c->ch.fd = p[0];
	c->wfd = p[1];
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void ucm_channel_free(struct ucm_channel *c)
{
	struct ucm_event *e, *n;

	if (!c)
		return;
	for (e = c->head; e; e = n) {
		n = e->next;
		free(e);
	}
	close(c->ch.fd);
	close(c->wfd);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct ucm_channel *c = ucm_channel_new();

	return c ? &c->ch : NULL;
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	/* rdma-core: the program destroys its IDs first; their events went
	 * with them */
	ucm_channel_free((struct ucm_channel *)(void *)channel);
}

/* Queues an event for @about (whose ack counts for @owner) on @owner's
 * channel. Under ucm_lock. An event that cannot be allocated is lost, as
 * one the kernel could not allocate. */
void ucm_queue(struct ucm_id *owner, struct ucm_id *about, struct ucm_id *listen,
	       enum rdma_cm_event_type type, int status, const void *pdata, size_t pdata_len,
	       const struct rdma_conn_param *conn, const struct rdma_ud_param *ud)
{
	struct ucm_event *e = calloc(1, sizeof(*e));
	struct ucm_channel *c = owner->ch;
	const char b = 1;

	if (!e)
		return;
	e->owner = owner;
	e->ev.id = &about->id;
	e->ev.listen_id = listen ? &listen->id : NULL;
	e->ev.event = type;
	e->ev.status = status;
	if (ud)
		e->ev.param.ud = *ud;
	else if (conn)
		e->ev.param.conn = *conn;
	if (pdata_len > sizeof(e->pdata))
		pdata_len = sizeof(e->pdata);
	if (pdata_len) {
		memcpy(e->pdata, pdata, pdata_len);
		/* private_data and its length lead both param structs */
		if (ud) {
			e->ev.param.ud.private_data = e->pdata;
			e->ev.param.ud.private_data_len = (uint8_t)pdata_len;
		} else {
			e->ev.param.conn.private_data = e->pdata;
			e->ev.param.conn.private_data_len = (uint8_t)pdata_len;
		}
	}
	pthread_mutex_lock(&c->lock);
	if (c->tail)
		c->tail->next = e;
	else
		c->head = e;
	c->tail = e;
	/* never blocking the CM thread on a full socket */
	if (send(c->wfd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
		c->unsent++;
	pthread_mutex_unlock(&c->lock);
}

/* Takes the byte of one event off @c's socket. Under c->lock. */
static void take_byte(struct ucm_channel *c)
{
	char b;

	if (c->unsent)
		c->unsent--;
	else
		(void)recv(c->ch.fd, &b, 1, MSG_DONTWAIT);
}

/* Takes @u's queued events off its channel (not yet handed out: they go
 * with it). Returns the CONNECT_REQUEST children among them, chained
 * through ->next, for the caller to destroy. Under ucm_lock. */
static struct ucm_id *unqueue(struct ucm_id *u)
{
	struct ucm_channel *c = u->ch;
	struct ucm_event **pp, *e;
	struct ucm_id *orphans = NULL;

	pthread_mutex_lock(&c->lock);
	c->tail = NULL;
	for (pp = &c->head; (e = *pp);) {
		if (e->owner == u) {
			struct ucm_id *about = ucm_of(e->ev.id);

			*pp = e->next;
			take_byte(c);
			if (about != u && e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST) {
				about->onext = orphans;
				orphans = about;
			}
			free(e);
			continue;
		}
		c->tail = e;
		pp = &e->next;
	}
	pthread_mutex_unlock(&c->lock);
	return orphans;
}

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct ucm_channel *c = (struct ucm_channel *)(void *)channel;
	struct ucm_event *e;

	if (!channel || !event)
		return ucm_err(EINVAL);
	for (;;) {
		struct pollfd p = {c->ch.fd, POLLIN, 0};
		int fl;

		pthread_mutex_lock(&ucm_lock);
		pthread_mutex_lock(&c->lock);
		e = c->head;
		if (e) {
			c->head = e->next;
			if (!c->head)
				c->tail = NULL;
			take_byte(c);
			e->owner->reported++;
		}
		pthread_mutex_unlock(&c->lock);
		pthread_mutex_unlock(&ucm_lock);
		if (e)
			break;
		/* nothing queued: wait as the program set the fd */
		fl = fcntl(c->ch.fd, F_GETFL);
		if (fl < 0)
			return -1;
		if (fl & O_NONBLOCK)
			return ucm_err(EAGAIN);
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -1;
		if (p.revents & (POLLNVAL | POLLHUP)) {
			/* the channel was destroyed under this call: as a
			 * thread waiting on the kernel's rdma_cm fd, it waits
			 * on (until the process ends) */
			for (;;)
				pause();
		}
	}
	e->next = NULL;
	*event = &e->ev;
	return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct ucm_event *e = (struct ucm_event *)(void *)event;

	if (!event)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	e->owner->completed++;
	pthread_cond_broadcast(&e->owner->cond);
	pthread_mutex_unlock(&ucm_lock);
	free(e);
	return 0;
}

/* A synchronous ID's call waits for its event (rdma-core's ucma_complete()):
 * the last one acked, the next kept in id->event. */
int ucm_complete(struct ucm_id *u)
{
	struct rdma_cm_event *ev;

	if (!u->sync)
		return 0;
	if (u->id.event) {
		rdma_ack_cm_event(u->id.event);
		u->id.event = NULL;
	}
	if (rdma_get_cm_event(u->id.channel, &ev))
		return -1;
	u->id.event = ev;
	if (ev->status) {
		if (ev->event == RDMA_CM_EVENT_REJECTED)
			return ucm_err(ECONNREFUSED);
		return ucm_err(ev->status < 0 ? -ev->status : ev->status);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* IDs */

/* A new ID on @ch (NULL: a synchronous one, with its own). */
struct ucm_id *ucm_id_new(struct ucm_channel *ch, void *context, enum rdma_port_space ps,
			  enum ibv_qp_type qpt)
{
	struct ucm_id *u = calloc(1, sizeof(*u));

	if (!u) {
		errno = ENOMEM;
		return NULL;
	}
	if (!ch) {
		ch = ucm_channel_new();
		if (!ch) {
			free(u);
			return NULL;
		}
		u->sync = true;
	}
	u->ch = ch;
	/* random, as __rdma_create_id()'s: the PSN this side's receive
	 * queue expects, sent as the REQ's or REP's starting PSN */
	u->seq_num = ucm_random() & 0xffffff;
	u->id.channel = &ch->ch;
	u->id.context = context;
	u->id.ps = ps;
	u->id.qp_type = qpt;
	u->state = UCM_IDLE;
	pthread_cond_init(&u->cond, NULL);
	u->next = ucm_ids;
	ucm_ids = u;
	return u;
}

void ucm_bind_dev(struct ucm_id *u, struct ucm_dev *d)
{
	u->dev = d;
	u->id.verbs = d->verbs;
	u->id.pd = d->pd;
	u->id.port_num = 1;
	memcpy(u->id.route.addr.addr.ibaddr.sgid.raw, d->gid.raw, 16);
	u->id.route.addr.addr.ibaddr.pkey = htons(0xffff);
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps)
{
	struct ucm_id *u;

	if (!id)
		return ucm_err(EINVAL);
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_UDP && ps != RDMA_PS_IB && ps != RDMA_PS_IPOIB)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	u = ucm_id_new((struct ucm_channel *)(void *)channel, context, ps,
		       ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB ? IBV_QPT_UD : IBV_QPT_RC);
	pthread_mutex_unlock(&ucm_lock);
	if (!u)
		return -1;
	*id = &u->id;
	return 0;
}

static void unlink_id(struct ucm_id *u)
{
	for (struct ucm_id **pp = &ucm_ids; *pp; pp = &(*pp)->next)
		if (*pp == u) {
			*pp = u->next;
			return;
		}
}

/* The agent's side of @u ended: connection, listeners. Under ucm_lock. */
static void drop_cm(struct ucm_id *u)
{
	if (u->cm) {
		wqe_cm_id_set_context(u->cm, NULL);
		(void)wqe_cm_destroy_id(u->cm);
		u->cm = NULL;
		ucm_wake(u->dev);
	}
	for (int i = 0; i < UCM_MAX_DEVS; i++)
		if (u->listen[i]) {
			(void)wqe_cm_destroy_id(u->listen[i]);
			u->listen[i] = NULL;
			u->ldev[i] = NULL;
		}
}

/* At exit, as the kernel when the rdma_cm fd closes: every connection
 * the program left gets its last word (DREQ, REJ, DREP), and the MADs
 * already posted reach the wire before the NIC thread ends with the
 * process. No peer then waits out its retries for an answer. */
__attribute__((destructor)) static void ucm_fini(void)
{
	pthread_mutex_lock(&ucm_lock);
	for (struct ucm_id *u = ucm_ids; u; u = u->next)
		drop_cm(u);
	pthread_mutex_unlock(&ucm_lock);
	ucm_flush();
}

/* Frees an ID the program never saw (a CONNECT_REQUEST's, undelivered):
 * its REQ is rejected by the agent's destroy. Under ucm_lock. */
static void free_unseen(struct ucm_id *u)
{
	drop_cm(u);
	unlink_id(u);
	if (u->sync)
		ucm_channel_free(u->ch);
	pthread_cond_destroy(&u->cond);
	free(u);
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct ucm_id *u = ucm_of(id), *orphans;

	if (!id)
		return ucm_err(EINVAL);
	if (id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
	pthread_mutex_lock(&ucm_lock);
	drop_cm(u);
	unlink_id(u);
	orphans = unqueue(u);
	while (orphans) {
		struct ucm_id *n = orphans->onext;

		free_unseen(orphans);
		orphans = n;
	}
	/* what the program holds must come back first (rdma-core waits too) */
	while (u->completed < u->reported)
		pthread_cond_wait(&u->cond, &ucm_lock);
	pthread_mutex_unlock(&ucm_lock);
	if (u->sync)
		ucm_channel_free(u->ch);
	free(u->qp_init_attr);
	pthread_cond_destroy(&u->cond);
	free(u);
	return 0;
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct ucm_id *u = ucm_of(id);
	struct ucm_channel *to, *from;
	struct ucm_event **pp, *e, *moved = NULL, **mt = &moved;
	unsigned nmoved = 0;

	if (!id || (u->sync && !channel))
		return ucm_err(EINVAL);
	to = channel ? (struct ucm_channel *)(void *)channel : ucm_channel_new();
	if (!to)
		return -1;
	if (u->sync && id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
	pthread_mutex_lock(&ucm_lock);
	from = u->ch;
	/* events handed out on the old channel come back first */
	while (u->completed < u->reported)
		pthread_cond_wait(&u->cond, &ucm_lock);
	pthread_mutex_lock(&from->lock);
	from->tail = NULL;
	for (pp = &from->head; (e = *pp);) {
		if (e->owner == u) {
			*pp = e->next;
			e->next = NULL;
			take_byte(from);
			*mt = e;
			mt = &e->next;
			nmoved++;
			continue;
		}
		from->tail = e;
		pp = &e->next;
	}
	pthread_mutex_unlock(&from->lock);
	pthread_mutex_lock(&to->lock);
	if (moved) {
		if (to->tail)
			to->tail->next = moved;
		else
			to->head = moved;
		for (e = moved; e->next; e = e->next)
			;
		to->tail = e;
	}
	for (unsigned i = 0; i < nmoved; i++) {
		const char b = 1;

		if (send(to->wfd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
			to->unsent++;
	}
	pthread_mutex_unlock(&to->lock);
	u->ch = to;
	id->channel = &to->ch;
	pthread_mutex_unlock(&ucm_lock);
	if (u->sync)
		ucm_channel_free(from);
	u->sync = channel == NULL;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Listening, connecting, accepting */

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct ucm_id *u = ucm_of(id);
	struct ucm_dev *l[UCM_MAX_DEVS];
	uint64_t sid;
	int n = 0, err = 0;

	if (!id)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	if (u->state == UCM_IDLE && !u->bound) {
		struct sockaddr_in any = {.sin_family = AF_INET};

		err = ucm_reserve_port(u, (struct sockaddr *)&any);
		if (!err)
			u->state = UCM_ADDR_BOUND;
	}
	if (!err && u->state != UCM_ADDR_BOUND)
		err = EINVAL;
	/* the kernel's rdma_listen(): a listener is alone on its address and
	 * port, and no longer reusable */
	if (!err && u->reuseaddr) {
		err = ucm_port_check(u, &id->route.addr.src_addr, ucm_port(&id->route.addr.src_addr),
				     false);
		if (!err)
			u->reuseaddr = false;
	}
	if (!err) {
		const int fam = id->route.addr.src_addr.sa_family;

		if (u->wildcard) {
			struct ucm_dev *all[UCM_MAX_DEVS];
			int na = ucm_devices(all);

			/* an IPv6 wildcard takes IPv4 too, unless AFONLY */
			for (int i = 0; i < na; i++)
				if (all[i]->addr.ss_family == fam ||
				    (fam == AF_INET6 && !u->afonly))
					l[n++] = all[i];
		} else {
			l[n++] = u->dev;
		}
		sid = wqe_cm_service_id((enum wqe_rdma_ps)id->ps,
					ucm_port(&id->route.addr.src_addr));
		for (int i = 0; i < n && !err; i++) {
			/* the kernel's ucma: at most (and for 0) 1024 */
			u->listen[i] = wqe_cm_listen(l[i]->agent, sid,
						     backlog > 0 && backlog < 1024 ? (uint32_t)backlog
										   : 1024,
						     u);
			u->ldev[i] = l[i];
			if (!u->listen[i])
				err = errno == EINVAL ? EADDRINUSE : ENOMEM;
		}
		if (err) {
			drop_cm(u);
		} else {
			u->backlog = backlog;
			u->state = UCM_LISTEN;
		}
	}
	pthread_mutex_unlock(&ucm_lock);
	return err ? ucm_err(err) : 0;
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct ucm_id *u = ucm_of(listen);
	struct rdma_cm_event *ev;

	if (!listen || !id || !u->sync)
		return ucm_err(EINVAL);
	if (listen->event) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}
	if (rdma_get_cm_event(listen->channel, &ev))
		return -1;
	if (ev->event == RDMA_CM_EVENT_REJECTED || ev->status ||
	    ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		int e = ev->event == RDMA_CM_EVENT_REJECTED ? ECONNREFUSED
			: ev->status				 ? (ev->status < 0 ? -ev->status : ev->status)
								 : EINVAL;

		listen->event = ev;
		return ucm_err(e);
	}
	if (u->qp_init_attr) {
		struct ibv_qp_init_attr a = *u->qp_init_attr;

		if (rdma_create_qp(ev->id, listen->pd, &a)) {
			listen->event = ev;
			return -1;
		}
	}
	*id = ev->id;
	ev->id->event = ev;
	return 0;
}

static uint8_t pick(uint8_t asked, uint8_t dflt, uint8_t max)
{
	uint8_t v = asked == RDMA_MAX_RESP_RES ? dflt : asked;

	return v > max ? max : v;
}

/* rdma-core's ucma_valid_param(): on a TCP ID, depths past the device's
 * (other than RDMA_MAX_*, "the device's") are refused, not capped. */
static bool depths_ok(const struct ucm_id *u, const struct rdma_conn_param *param)
{
	if (u->id.ps != RDMA_PS_TCP || !param)
		return true;
	return (param->responder_resources == RDMA_MAX_RESP_RES ||
		param->responder_resources <= u->dev->max_resp_res) &&
	       (param->initiator_depth == RDMA_MAX_INIT_DEPTH ||
		param->initiator_depth <= u->dev->max_init_depth);
}

/* The IP CM header and @pd after it: a REQ's or SIDR_REQ's private data. */
static int ip_pdata(struct ucm_id *u, const void *pd, size_t len, size_t cap, uint8_t *out)
{
	struct wqe_cm_ip_hdr h;

	if (len > cap - UCM_IP_HDR || (len && !pd))
		return EINVAL;
	memset(&h, 0, sizeof(h));
	h.ip_version = u->id.route.addr.src_addr.sa_family == AF_INET ? 4 : 6;
	h.src_port = ucm_port(&u->id.route.addr.src_addr);
	memcpy(h.src.raw, u->id.route.addr.addr.ibaddr.sgid.raw, 16);
	memcpy(h.dst.raw, u->id.route.addr.addr.ibaddr.dgid.raw, 16);
	if (wqe_cm_ip_hdr_encode(&h, out, cap) != UCM_IP_HDR)
		return EINVAL;
	if (len)
		memcpy(out + UCM_IP_HDR, pd, len);
	return 0;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct ucm_id *u = ucm_of(id);
	uint8_t pd[WQE_CM_SIDR_REQ_PDATA_LEN];
	const struct ibv_sa_path_rec *p;
	int err = 0;

	if (!id)
		return ucm_err(EINVAL);
	p = &u->path; /* not before: &NULL->path is undefined (UBSan says so) */
	pthread_mutex_lock(&ucm_lock);
	if (u->state != UCM_ROUTE_RESOLVED || !u->dev)
		err = EINVAL;
	else if ((id->ps == RDMA_PS_TCP && !id->qp && !param) || !depths_ok(u, param))
		err = EINVAL;
	if (!err && id->qp_type == IBV_QPT_UD) {
		struct wqe_cm_sidr_param sp;

		memset(&sp, 0, sizeof(sp));
		err = ip_pdata(u, param ? param->private_data : NULL,
			       param ? param->private_data_len : 0, WQE_CM_SIDR_REQ_PDATA_LEN, pd);
		memcpy(sp.peer.gid.raw, id->route.addr.addr.ibaddr.dgid.raw, 16);
		sp.peer.qpn = 1;
		sp.peer.pkey = 0xffff;
		sp.service_id = wqe_cm_service_id((enum wqe_rdma_ps)id->ps,
						  ucm_port(&id->route.addr.dst_addr));
		sp.timeout = UCM_RESPONSE_TIMEOUT;
		sp.max_cm_retries = UCM_MAX_CM_RETRIES;
		sp.private_data = pd;
		sp.private_data_len = UCM_IP_HDR + (param ? param->private_data_len : 0);
		if (!err && !(u->cm = wqe_cm_sidr_req(u->dev->agent, &sp, u)))
			err = errno ? errno : ENOMEM;
	} else if (!err) {
		struct wqe_cm_conn_param cp;

		memset(&cp, 0, sizeof(cp));
		err = ip_pdata(u, param ? param->private_data : NULL,
			       param ? param->private_data_len : 0, WQE_CM_REQ_PDATA_LEN, pd);
		u->resp_res = pick(param ? param->responder_resources : RDMA_MAX_RESP_RES,
				   u->dev->max_resp_res, u->dev->max_resp_res);
		u->init_depth = pick(param ? param->initiator_depth : RDMA_MAX_INIT_DEPTH,
				     u->dev->max_init_depth, u->dev->max_init_depth);
		memcpy(cp.peer.gid.raw, id->route.addr.addr.ibaddr.dgid.raw, 16);
		cp.peer.qpn = 1;
		cp.peer.pkey = 0xffff;
		cp.service_id = wqe_cm_service_id((enum wqe_rdma_ps)id->ps,
						  ucm_port(&id->route.addr.dst_addr));
		cp.transport = id->qp_type == IBV_QPT_UC ? WQE_CM_TRANSPORT_UC : WQE_CM_TRANSPORT_RC;
		cp.local_qpn = id->qp ? id->qp->qp_num : param->qp_num;
		cp.starting_psn = u->seq_num;
		cp.path_mtu = (enum wqe_mtu)p->mtu;
		memcpy(cp.local_gid.raw, p->sgid.raw, 16);
		cp.hop_limit = p->hop_limit;
		cp.traffic_class = p->traffic_class;
		cp.flow_label = ntohl(p->flow_label) & 0xfffff;
		cp.sl = p->sl;
		cp.packet_life_time = p->packet_life_time;
		cp.remote_cm_response_timeout = UCM_RESPONSE_TIMEOUT;
		cp.local_cm_response_timeout = UCM_RESPONSE_TIMEOUT;
		cp.max_cm_retries = UCM_MAX_CM_RETRIES;
		cp.retry_count = param ? (param->retry_count > 7 ? 7 : param->retry_count) : 7;
		cp.rnr_retry_count =
		    param ? (param->rnr_retry_count > 7 ? 7 : param->rnr_retry_count) : 7;
		cp.min_rnr_timer = 0; /* the kernel's ib_cm: 0 (655 ms) */
		cp.responder_resources = u->resp_res;
		cp.initiator_depth = u->init_depth;
		cp.srq = id->qp ? id->qp->srq != NULL : (param && param->srq);
		/* the kernel's IBA_SET() keeps the field's one bit */
		cp.e2e_flow_control = param ? param->flow_control & 1 : 0;
		cp.manual_rtu = id->qp == NULL; /* rdma_establish() sends it */
		u->manual_rtu = cp.manual_rtu;
		cp.private_data = pd;
		cp.private_data_len = UCM_IP_HDR + (param ? param->private_data_len : 0);
		if (!err && cp.local_qpn == 0)
			err = EINVAL;
		if (!err && !(u->cm = wqe_cm_connect(u->dev->agent, &cp, u)))
			err = errno ? errno : ENOMEM;
	}
	if (!err) {
		u->state = UCM_CONNECT;
		ucm_wake(u->dev);
	}
	pthread_mutex_unlock(&ucm_lock);
	if (err)
		return ucm_err(err);
	return ucm_complete(u);
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct ucm_id *u = ucm_of(id);
	int err = 0;

	if (!id)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	if (u->state != UCM_CONNECT_REQ || !u->cm) {
		err = EINVAL;
	} else if (id->qp_type == IBV_QPT_UD) {
		uint32_t qpn = id->qp ? id->qp->qp_num : param ? param->qp_num : 0;

		if (param && param->private_data_len > WQE_CM_SIDR_REP_PDATA_LEN)
			err = EINVAL;
		else
			err = wqe_cm_sidr_rep(u->cm, WQE_CM_SIDR_SUCCESS, qpn, UCM_UDP_QKEY,
					      param ? param->private_data : NULL,
					      param ? param->private_data_len : 0);
		if (!err)
			u->state = UCM_ESTABLISHED;
	} else if ((id->ps == RDMA_PS_TCP && !id->qp && !param) || !depths_ok(u, param)) {
		err = EINVAL;
	} else {
		struct wqe_cm_accept_param ap;

		u->resp_res = pick(param ? param->responder_resources : RDMA_MAX_RESP_RES,
				   u->resp_res, u->dev->max_resp_res);
		u->init_depth = pick(param ? param->initiator_depth : RDMA_MAX_INIT_DEPTH,
				     u->init_depth, u->dev->max_init_depth);
		if (id->qp)
			err = ucm_qp_to(u, IBV_QPS_RTR, u->resp_res);
		memset(&ap, 0, sizeof(ap));
		ap.local_qpn = id->qp ? id->qp->qp_num : param->qp_num;
		ap.starting_psn = u->seq_num;
		ap.responder_resources = u->resp_res;
		ap.initiator_depth = u->init_depth;
		ap.rnr_retry_count =
		    param ? (param->rnr_retry_count > 7 ? 7 : param->rnr_retry_count) : 7;
		ap.min_rnr_timer = 0;
		ap.srq = id->qp ? id->qp->srq != NULL : (param && param->srq);
		ap.e2e_flow_control = param ? param->flow_control & 1 : 0;
		ap.private_data = param ? param->private_data : NULL;
		ap.private_data_len = param ? param->private_data_len : 0;
		if (!err && (ap.private_data_len > WQE_CM_REP_PDATA_LEN || !ap.local_qpn))
			err = EINVAL;
		if (!err)
			err = wqe_cm_accept(u->cm, &ap);
		if (!err && id->qp)
			err = ucm_qp_to(u, IBV_QPS_RTS, u->init_depth);
		if (err)
			(void)ucm_qp_err(u);
		else
			u->state = UCM_ACCEPTED;
	}
	if (!err)
		ucm_wake(u->dev);
	pthread_mutex_unlock(&ucm_lock);
	if (err)
		return ucm_err(err);
	if (id->qp_type == IBV_QPT_UD) {
		if (u->sync && id->event) {
			rdma_ack_cm_event(id->event);
			id->event = NULL;
		}
		return 0;
	}
	return ucm_complete(u);
}

static int reject(struct rdma_cm_id *id, const void *pd, uint8_t len, uint16_t reason)
{
	struct ucm_id *u = ucm_of(id);
	int err;

	if (!id || (len && !pd))
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	if (u->state != UCM_CONNECT_REQ || !u->cm)
		err = EINVAL;
	else if (id->qp_type == IBV_QPT_UD)
		err = len > WQE_CM_SIDR_REP_PDATA_LEN
			  ? EINVAL
			  : wqe_cm_sidr_rep(u->cm, WQE_CM_SIDR_REJECT, 0, 0, pd, len);
	else
		err = len > WQE_CM_REJ_PDATA_LEN ? EINVAL
						 : wqe_cm_reject(u->cm, reason, NULL, 0, pd, len);
	if (!err) {
		u->state = UCM_DEAD;
		ucm_wake(u->dev);
	}
	pthread_mutex_unlock(&ucm_lock);
	return err ? ucm_err(err) : 0;
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	return reject(id, private_data, private_data_len, WQE_CM_REJ_CONSUMER_DEFINED);
}

int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	return reject(id, private_data, private_data_len, 35); /* vendor option not supported */
}

int rdma_establish(struct rdma_cm_id *id)
{
	struct ucm_id *u = ucm_of(id);
	int err;

	if (!id || id->qp)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	err = u->cm ? wqe_cm_rtu(u->cm, NULL, 0) : EINVAL;
	if (!err) {
		u->state = UCM_ESTABLISHED;
		ucm_wake(u->dev);
	}
	pthread_mutex_unlock(&ucm_lock);
	return err ? ucm_err(err) : 0;
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct ucm_id *u = ucm_of(id);
	int err = 0;

	if (!id)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	/* the QP's first packet beat the RTU: established now (ib_cm_notify) */
	if (event == IBV_EVENT_COMM_EST && u->cm && u->state == UCM_ACCEPTED) {
		err = wqe_cm_established(u->cm);
		if (!err) {
			u->state = UCM_ESTABLISHED;
			ucm_queue(u, u, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, 0, NULL, NULL);
		}
	}
	pthread_mutex_unlock(&ucm_lock);
	return err ? ucm_err(err) : 0;
}

/* Whether an event of @type for @u waits on its channel. Under ucm_lock. */
static bool queued(struct ucm_id *u, enum rdma_cm_event_type type)
{
	bool found = false;

	pthread_mutex_lock(&u->ch->lock);
	for (struct ucm_event *e = u->ch->head; e && !found; e = e->next)
		found = e->owner == u && e->ev.event == type;
	pthread_mutex_unlock(&u->ch->lock);
	return found;
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct ucm_id *u = ucm_of(id);
	bool wait = false;
	int err = 0;

	if (!id)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	if (!u->cm || id->qp_type == IBV_QPT_UD) {
		err = EINVAL;
	} else {
		enum wqe_cm_state s = wqe_cm_id_state(u->cm);

		(void)ucm_qp_err(u);
		/* as the kernel: a DREQ, or the DREP to the peer's; in any
		 * other state nothing goes (and nothing is waited for) */
		if (s == WQE_CM_ESTABLISHED || s == WQE_CM_DREQ_RCVD) {
			wait = s == WQE_CM_ESTABLISHED || !u->disc_reported;
			(void)wqe_cm_disconnect(u->cm, NULL, 0);
			ucm_wake(u->dev);
		} else if (s == WQE_CM_DREQ_SENT || s == WQE_CM_TIMEWAIT) {
			wait = !u->disc_reported;
		}
	}
	/* a synchronous ID takes its DISCONNECTED event here, if the peer's
	 * DREQ brought one it has not taken yet */
	wait = wait || (u->sync && queued(u, RDMA_CM_EVENT_DISCONNECTED));
	pthread_mutex_unlock(&ucm_lock);
	if (err)
		return ucm_err(err);
	return wait ? ucm_complete(u) : 0;
}

/* ------------------------------------------------------------------------ */
/* The agent's events (ucm_lock held: the CM thread's receive or timer, or
 * an API call). */

static struct wqe_cm_id *reap[64];
static unsigned nreap;

/* IDs refused inside a callback are destroyed once the agent returns. */
void ucm_reap(void)
{
	for (unsigned i = 0; i < nreap; i++)
		(void)wqe_cm_destroy_id(reap[i]);
	nreap = 0;
}

static void refuse_req(struct wqe_cm_id *cm, bool sidr)
{
	if (sidr)
		(void)wqe_cm_sidr_rep(cm, WQE_CM_SIDR_REJECT, 0, 0, NULL, 0);
	else
		(void)wqe_cm_reject(cm, WQE_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
	if (nreap < sizeof(reap) / sizeof(reap[0]))
		reap[nreap++] = cm;
}

/* A REQ or SIDR_REQ for listener @l (cma_ib_req_handler(),
 * cma_check_req_qp_type(), cma_match_private_data()). */
static void on_req(struct ucm_dev *d, struct ucm_id *l, const struct wqe_cm_event *ev, bool sidr)
{
	const uint8_t *pd = sidr ? ev->msg->u.sidr_req.private_data : ev->msg->u.req.private_data;
	const size_t pdlen = sidr ? WQE_CM_SIDR_REQ_PDATA_LEN : WQE_CM_REQ_PDATA_LEN;
	const struct sockaddr *la = &l->id.route.addr.src_addr;
	struct wqe_cm_ip_hdr h;
	struct sockaddr_storage dst, src;
	struct ucm_id *c;

	if (wqe_cm_ip_hdr_decode(pd, pdlen, &h) != UCM_IP_HDR) {
		refuse_req(ev->id, sidr);
		return;
	}
	ucm_addr_of_gid(&h.dst, ucm_port(la), &dst);
	ucm_addr_of_gid(&h.src, h.src_port, &src);
	if ((!l->wildcard && memcmp(h.dst.raw, d->gid.raw, 16)) ||
	    (la->sa_family == AF_INET && h.ip_version != 4) ||
	    (la->sa_family == AF_INET6 && h.ip_version == 4 && l->afonly) ||
	    (!sidr && ((l->id.qp_type == IBV_QPT_UC) !=
		       (ev->msg->u.req.transport_type == WQE_CM_TRANSPORT_UC)))) {
		refuse_req(ev->id, sidr);
		return;
	}
	c = ucm_id_new(l->sync ? NULL : l->ch, l->id.context, l->id.ps, l->id.qp_type);
	if (!c) {
		refuse_req(ev->id, sidr);
		return;
	}
	ucm_bind_dev(c, d);
	c->cm = ev->id;
	wqe_cm_id_set_context(ev->id, c);
	c->state = UCM_CONNECT_REQ;
	c->afonly = l->afonly;
	memcpy(&c->id.route.addr.src_storage, &dst, sizeof(dst));
	memcpy(&c->id.route.addr.dst_storage, &src, sizeof(src));
	if (sidr) {
		struct rdma_ud_param ud;

		memcpy(c->id.route.addr.addr.ibaddr.dgid.raw, ev->from.gid.raw, 16);
		memset(&ud, 0, sizeof(ud));
		ucm_queue(l, c, l, RDMA_CM_EVENT_CONNECT_REQUEST, 0, pd + UCM_IP_HDR,
			  pdlen - UCM_IP_HDR, NULL, &ud);
	} else {
		const struct wqe_cm_req *q = &ev->msg->u.req;
		struct ibv_sa_path_rec *p = &c->path;
		struct rdma_conn_param conn;

		memcpy(c->id.route.addr.addr.ibaddr.dgid.raw, q->primary.local_gid.raw, 16);
		/* the path as the peer asked it, seen from here */
		memset(p, 0, sizeof(*p));
		memcpy(p->dgid.raw, q->primary.local_gid.raw, 16);
		memcpy(p->sgid.raw, q->primary.remote_gid.raw, 16);
		p->flow_label = htonl(q->primary.flow_label);
		p->hop_limit = q->primary.hop_limit;
		p->traffic_class = q->primary.traffic_class;
		p->reversible = 1;
		p->numb_path = 1;
		p->pkey = htons(q->pkey);
		p->sl = q->primary.sl;
		p->mtu_selector = 2;
		p->mtu = q->path_mtu;
		p->rate_selector = 2;
		p->rate = q->primary.packet_rate;
		p->packet_life_time_selector = 2;
		p->packet_life_time = (uint8_t)(q->primary.local_ack_timeout -
						(q->primary.local_ack_timeout > 0));
		c->id.route.path_rec = p;
		c->id.route.num_paths = 1;
		c->resp_res = q->initiator_depth; /* what the peer will issue */
		c->init_depth = q->responder_resources;
		memset(&conn, 0, sizeof(conn));
		conn.responder_resources = c->resp_res;
		conn.initiator_depth = c->init_depth;
		conn.flow_control = q->e2e_flow_control;
		conn.retry_count = q->retry_count;
		conn.rnr_retry_count = q->rnr_retry_count;
		conn.srq = q->srq;
		conn.qp_num = q->local_qpn;
		ucm_queue(l, c, l, RDMA_CM_EVENT_CONNECT_REQUEST, 0, pd + UCM_IP_HDR,
			  pdlen - UCM_IP_HDR, &conn, NULL);
	}
}

static void on_rep(struct ucm_id *u, const struct wqe_cm_event *ev)
{
	const struct wqe_cm_rep *r = &ev->msg->u.rep;
	struct rdma_conn_param conn;
	int err = 0;

	memset(&conn, 0, sizeof(conn));
	conn.responder_resources = r->initiator_depth;
	conn.initiator_depth = r->responder_resources;
	conn.flow_control = r->e2e_flow_control;
	conn.rnr_retry_count = r->rnr_retry_count;
	conn.srq = r->srq;
	conn.qp_num = r->local_qpn;
	u->remote_qpn = r->local_qpn;
	if (!u->id.qp) {
		/* rdma_establish() sends the RTU */
		ucm_queue(u, u, NULL, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, r->private_data,
			  WQE_CM_REP_PDATA_LEN, &conn, NULL);
		return;
	}
	err = ucm_qp_to(u, IBV_QPS_RTR, RDMA_MAX_RESP_RES);
	if (!err)
		err = ucm_qp_to(u, IBV_QPS_RTS, RDMA_MAX_INIT_DEPTH);
	if (err) {
		/* librdmacm's CONNECT_ERROR; the peer hears a REJ */
		(void)ucm_qp_err(u);
		(void)wqe_cm_reject(ev->id, WQE_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		u->state = UCM_DEAD;
		ucm_queue(u, u, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -err, NULL, 0, NULL, NULL);
		return;
	}
	/* the agent sends the RTU once this returns */
	u->state = UCM_ESTABLISHED;
	ucm_queue(u, u, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, r->private_data, WQE_CM_REP_PDATA_LEN,
		  &conn, NULL);
}

static void on_sidr_rep(struct ucm_id *u, const struct wqe_cm_event *ev)
{
	const struct wqe_cm_sidr_rep *r = &ev->msg->u.sidr_rep;
	struct rdma_ud_param ud;

	if (r->status != WQE_CM_SIDR_SUCCESS) {
		u->state = UCM_DEAD;
		ucm_queue(u, u, NULL, RDMA_CM_EVENT_UNREACHABLE, r->status, r->private_data,
			  WQE_CM_SIDR_REP_PDATA_LEN, NULL, NULL);
		return;
	}
	memset(&ud, 0, sizeof(ud));
	ud.ah_attr.is_global = 1;
	ud.ah_attr.port_num = 1;
	ud.ah_attr.grh.dgid = u->id.route.addr.addr.ibaddr.dgid;
	ud.ah_attr.grh.hop_limit = u->path.hop_limit;
	ud.ah_attr.grh.traffic_class = u->path.traffic_class;
	ud.ah_attr.sl = u->path.sl;
	ud.qp_num = r->qpn;
	ud.qkey = r->qkey;
	u->remote_qpn = r->qpn;
	u->remote_qkey = r->qkey;
	u->state = UCM_ESTABLISHED;
	ucm_queue(u, u, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, r->private_data,
		  WQE_CM_SIDR_REP_PDATA_LEN, NULL, &ud);
}

static void disconnected(struct ucm_id *u, int status)
{
	if (u->disc_reported)
		return;
	u->disc_reported = true;
	u->state = UCM_DISCONNECTED;
	ucm_queue(u, u, NULL, RDMA_CM_EVENT_DISCONNECTED, status, NULL, 0, NULL, NULL);
}

void ucm_agent_event(void *ctx, const struct wqe_cm_event *ev)
{
	struct ucm_dev *d = ctx;
	struct ucm_id *u = ev->context;

	if (!u)
		return; /* its ID is being destroyed */
	switch (ev->type) {
	case WQE_CM_EV_REQ_RECEIVED:
		on_req(d, u, ev, false);
		break;
	case WQE_CM_EV_SIDR_REQ_RECEIVED:
		on_req(d, u, ev, true);
		break;
	case WQE_CM_EV_REP_RECEIVED:
		on_rep(u, ev);
		break;
	case WQE_CM_EV_RTU_RECEIVED:
		if (u->state == UCM_ACCEPTED) {
			u->state = UCM_ESTABLISHED;
			ucm_queue(u, u, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, 0, NULL, NULL);
		}
		break;
	case WQE_CM_EV_REJ_RECEIVED: {
		const bool connected = u->state == UCM_ESTABLISHED;

		(void)ucm_qp_err(u);
		u->state = UCM_DEAD;
		if (connected) {
			disconnected(u, 0);
		} else {
			struct rdma_conn_param conn;

			memset(&conn, 0, sizeof(conn));
			ucm_queue(u, u, NULL, RDMA_CM_EVENT_REJECTED, ev->reason,
				  ev->msg->u.rej.private_data, WQE_CM_REJ_PDATA_LEN, &conn, NULL);
		}
		break;
	}
	case WQE_CM_EV_REQ_ERROR:
	case WQE_CM_EV_REP_ERROR:
	case WQE_CM_EV_SIDR_REQ_ERROR:
		(void)ucm_qp_err(u);
		u->state = UCM_DEAD;
		ucm_queue(u, u, NULL, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0, NULL, NULL);
		break;
	case WQE_CM_EV_SIDR_REP_RECEIVED:
		on_sidr_rep(u, ev);
		break;
	case WQE_CM_EV_DREQ_RECEIVED:
	case WQE_CM_EV_DREP_RECEIVED:
		disconnected(u, 0);
		break;
	case WQE_CM_EV_DREQ_ERROR:
		disconnected(u, -ETIMEDOUT);
		break;
	case WQE_CM_EV_TIMEWAIT_EXIT:
		ucm_queue(u, u, NULL, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0, NULL, NULL);
		break;
	case WQE_CM_EV_MRA_RECEIVED:
		break; /* the agent waits longer */
	}
}

/* ------------------------------------------------------------------------ */

const char *rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const names[] = {
	    [RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
	    [RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
	    [RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
	    [RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
	    [RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
	    [RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
	    [RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
	    [RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
	    [RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
	    [RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
	    [RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
	    [RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
	    [RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
	    [RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
	    [RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
	    [RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned)event < sizeof(names) / sizeof(names[0]) && names[event])
		return names[event];
	return "UNKNOWN EVENT";
}
