/* SPDX-License-Identifier: MIT */
/*
 * The CM's devices: each verbs device, opened on first use and kept for
 * the life of the process (as rdma-core's librdmacm keeps its cma_devices),
 * with a GSI QP whose MADs a CM thread hands to the device's agent, and
 * the agent's timers. The MADs go out as UD SENDs to QPN 1 with the GSI
 * Q_Key; each arrives with its 40-byte GRH, whose source address says
 * where it came from.
 */
#define _GNU_SOURCE /* pipe2 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "ibverbs/rdmacm/ucm_int.h"

pthread_mutex_t ucm_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t devs_once = PTHREAD_ONCE_INIT;
static struct ucm_dev devs[UCM_MAX_DEVS];
static int ndevs;
/* the list's devices live as long as the process: the list is kept here
 * (as rdma-core's dev_list), reachable to the end; volatile, or the
 * optimizer drops a store nothing reads back */
static struct ibv_device **volatile dev_list;

static void devs_init(void)
{
	struct ibv_device **l = ibv_get_device_list(&ndevs);

	dev_list = l;
	if (!l) {
		ndevs = 0;
		return;
	}
	if (ndevs > UCM_MAX_DEVS)
		ndevs = UCM_MAX_DEVS;
	for (int i = 0; i < ndevs; i++)
		devs[i].dev = l[i];
}

uint64_t ucm_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void ucm_wake(struct ucm_dev *d)
{
	const char b = 1;

	if (d && d->up && write(d->wake[1], &b, 1) < 0) {
		/* full: the thread has a wake-up pending already */
	}
}

/* An AH to @gid's GSI, from a small cache (the least recently used goes:
 * the NIC copied each posted WQE's address, so no send needs it any more). */
static struct ibv_ah *ah_for(struct ucm_dev *d, const union wqe_gid *gid)
{
	struct ucm_ah *victim = &d->ahs[0];
	struct ibv_ah_attr a;

	for (unsigned i = 0; i < UCM_NAH; i++) {
		struct ucm_ah *e = &d->ahs[i];

		if (e->ah && !memcmp(e->gid.raw, gid->raw, 16)) {
			e->used = ++d->ah_clock;
			return e->ah;
		}
		if (!e->ah || (victim->ah && e->used < victim->used))
			victim = e;
	}
	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	memcpy(a.grh.dgid.raw, gid->raw, 16);
	a.grh.sgid_index = 0;
	a.grh.hop_limit = 64; /* the drop-in puts the route's in */
	a.port_num = 1;
	if (victim->ah)
		ibv_destroy_ah(victim->ah);
	victim->ah = ibv_create_ah(d->pd, &a);
	if (!victim->ah)
		return NULL;
	memcpy(victim->gid.raw, gid->raw, 16);
	victim->used = ++d->ah_clock;
	return victim->ah;
}

/* The agent's send: a MAD into the next free send slot (every send is
 * signaled; completions free slots in order). Under ucm_lock. */
static int mad_send(void *ctx, const struct wqe_cm_addr *to, const uint8_t *mad)
{
	struct ucm_dev *d = ctx;
	struct ibv_wc wc[16];
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_ah *ah;
	uint8_t *slot;
	int n;

	while ((n = ibv_poll_cq(d->scq, 16, wc)) > 0)
		d->reclaimed += (uint64_t)n;
	if (d->sent - d->reclaimed >= UCM_NSEND)
		return 1; /* lost: a retried MAD goes again on its timer */
	ah = ah_for(d, &to->gid);
	if (!ah)
		return 1;
	slot = d->buf + (UCM_NRECV + d->sent % UCM_NSEND) * UCM_SLOT;
	memcpy(slot, mad, WQE_MAD_LEN);
	sge.addr = (uintptr_t)slot;
	sge.length = WQE_MAD_LEN;
	sge.lkey = d->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = d->sent;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = to->qpn ? to->qpn : 1;
	wr.wr.ud.remote_qkey = WQE_GSI_QKEY;
	if (ibv_post_send(d->gsi, &wr, &bad))
		return 1;
	d->sent++;
	return 0;
}

static uint64_t agent_now(void *ctx)
{
	(void)ctx;
	return ucm_now_ns();
}

static int post_recv(struct ucm_dev *d, uint32_t k)
{
	struct ibv_sge sge = {(uintptr_t)(d->buf + k * UCM_SLOT), UCM_GRH + WQE_MAD_LEN,
			      d->mr->lkey};
	struct ibv_recv_wr r = {.wr_id = k, .sg_list = &sge, .num_sge = 1}, *bad;

	return ibv_post_recv(d->gsi, &r, &bad);
}

/* The source GID in a received GRH area: IPv6's header whole, or IPv4's
 * in its last 20 bytes (as rdma-core's and the kernel's UD receives). */
static void grh_src(const uint8_t *g, union wqe_gid *gid)
{
	if (g[0] >> 4 == 6) {
		memcpy(gid->raw, g + 8, 16);
	} else {
		memset(gid->raw, 0, 16);
		gid->raw[10] = gid->raw[11] = 0xff;
		memcpy(gid->raw + 12, g + 20 + 12, 4);
	}
}

/* Every MAD received so far to the agent. Under ucm_lock. */
static void drain_recv(struct ucm_dev *d)
{
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(d->rcq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			const uint8_t *slot = d->buf + wc[i].wr_id * UCM_SLOT;
			struct wqe_cm_addr from;

			if (wc[i].status != IBV_WC_SUCCESS) {
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
					(void)post_recv(d, (uint32_t)wc[i].wr_id);
				continue;
			}
			if (wc[i].byte_len == UCM_GRH + WQE_MAD_LEN) {
				memset(&from, 0, sizeof(from));
				grh_src(slot, &from.gid);
				from.qpn = wc[i].src_qp;
				from.pkey = 0xffff;
				/* a refusal is counted by the agent and changes nothing */
				(void)wqe_cm_agent_receive(d->agent, &from, slot + UCM_GRH,
							   WQE_MAD_LEN);
				/* one MAD refuses at most one REQ: reaping after
				 * each keeps a flood from overflowing the list */
				ucm_reap();
			}
			(void)post_recv(d, (uint32_t)wc[i].wr_id);
		}
	}
}

/* The CM thread: sleeps in poll() until a MAD arrives, an API call wakes
 * it (a new timer), or the agent's next deadline. */
static void *cm_thread(void *arg)
{
	struct ucm_dev *d = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL); /* the program's signals are its threads' */
	for (;;) {
		struct pollfd p[2] = {{d->rch->fd, POLLIN, 0}, {d->wake[0], POLLIN, 0}};
		uint64_t dl, now;
		int timeout = 1000;
		char b[64];

		pthread_mutex_lock(&ucm_lock);
		dl = wqe_cm_agent_next_deadline(d->agent);
		pthread_mutex_unlock(&ucm_lock);
		now = ucm_now_ns();
		if (dl <= now)
			timeout = 0;
		else if (dl - now < 1000000000u)
			timeout = (int)((dl - now + 999999u) / 1000000u);
		(void)poll(p, 2, timeout);
		if (p[1].revents & POLLIN)
			while (read(d->wake[0], b, sizeof(b)) > 0)
				;
		if (p[0].revents & POLLIN) {
			struct ibv_cq *cq;
			void *cq_ctx;

			if (!ibv_get_cq_event(d->rch, &cq, &cq_ctx)) {
				ibv_ack_cq_events(cq, 1);
				(void)ibv_req_notify_cq(d->rcq, 0);
			}
		}
		pthread_mutex_lock(&ucm_lock);
		drain_recv(d);
		(void)wqe_cm_agent_tick(d->agent);
		ucm_reap();
		pthread_mutex_unlock(&ucm_lock);
	}
	return NULL;
}

static uint8_t clamp8(int v)
{
	return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
}

/* Opens @d: its context, PD, GSI QP, agent and thread. Under ucm_lock.
 * 0 or an errno; nothing is left half made... except the opened context,
 * kept for the next try, as librdmacm keeps a device it opened. */
int ucm_dev_up(struct ucm_dev *d)
{
	static const struct wqe_cm_agent_ops ops = {
	    .send = mad_send, .event = ucm_agent_event, .now_ns = agent_now};
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct wqe_cm_agent_attr at;
	int err = 0;

	if (d->up)
		return 0;
	if (!d->verbs) {
		d->verbs = ibv_open_device(d->dev);
		if (!d->verbs)
			return errno ? errno : ENODEV;
	}
	if (ibv_query_device(d->verbs, &da) || ibv_query_port(d->verbs, 1, &pa) ||
	    ibv_query_gid(d->verbs, 1, 0, &d->gid))
		return ENODEV;
	d->max_init_depth = clamp8(da.max_qp_init_rd_atom);
	d->max_resp_res = clamp8(da.max_qp_rd_atom);
	d->max_qp_wr = (uint32_t)da.max_qp_wr;
	d->mtu = pa.active_mtu;
	memset(&d->addr, 0, sizeof(d->addr));
	ucm_addr_of_gid((const union wqe_gid *)(const void *)&d->gid, 0, &d->addr);
	if (!(d->pd = ibv_alloc_pd(d->verbs)) || !(d->rch = ibv_create_comp_channel(d->verbs)) ||
	    !(d->rcq = ibv_create_cq(d->verbs, UCM_NRECV, NULL, d->rch, 0)) ||
	    !(d->scq = ibv_create_cq(d->verbs, UCM_NSEND, NULL, NULL, 0))) {
		err = errno ? errno : ENOMEM;
		goto fail;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = d->scq;
	ia.recv_cq = d->rcq;
	ia.cap.max_send_wr = UCM_NSEND;
	ia.cap.max_recv_wr = UCM_NRECV;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_UD;
	d->gsi = wqe_ibv_create_gsi_qp(d->pd, &ia);
	if (!d->gsi) {
		err = errno ? errno : ENOMEM;
		goto fail;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = WQE_GSI_QKEY;
	if ((err = ibv_modify_qp(d->gsi, &qa,
				 IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)))
		goto fail;
	qa.qp_state = IBV_QPS_RTR;
	if ((err = ibv_modify_qp(d->gsi, &qa, IBV_QP_STATE)))
		goto fail;
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 0;
	if ((err = ibv_modify_qp(d->gsi, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN)))
		goto fail;
	d->buf = calloc(UCM_NRECV + UCM_NSEND, UCM_SLOT);
	if (!d->buf ||
	    !(d->mr = ibv_reg_mr(d->pd, d->buf, (UCM_NRECV + UCM_NSEND) * UCM_SLOT,
				 IBV_ACCESS_LOCAL_WRITE))) {
		err = ENOMEM;
		goto fail;
	}
	for (uint32_t k = 0; k < UCM_NRECV; k++)
		if ((err = post_recv(d, k)))
			goto fail;
	if ((err = ibv_req_notify_cq(d->rcq, 0)))
		goto fail;
	memset(&at, 0, sizeof(at));
	memcpy(at.local_gid.raw, d->gid.raw, 16);
	at.ca_guid = be64toh(ibv_get_device_guid(d->dev));
	at.max_ids = 4096;
	d->agent = wqe_cm_agent_create(&at, &ops, d);
	if (!d->agent) {
		err = errno ? errno : ENOMEM;
		goto fail;
	}
	if (pipe2(d->wake, O_NONBLOCK | O_CLOEXEC)) {
		err = errno;
		goto fail;
	}
	d->up = true; /* before the thread: it reads d under ucm_lock, which we hold */
	if ((err = pthread_create(&d->thread, NULL, cm_thread, d))) {
		d->up = false;
		close(d->wake[0]);
		close(d->wake[1]);
		goto fail;
	}
	pthread_detach(d->thread);
	return 0;
fail:
	if (d->agent)
		wqe_cm_agent_destroy(d->agent);
	if (d->gsi)
		ibv_destroy_qp(d->gsi);
	if (d->mr)
		ibv_dereg_mr(d->mr);
	free(d->buf);
	if (d->scq)
		ibv_destroy_cq(d->scq);
	if (d->rcq)
		ibv_destroy_cq(d->rcq);
	if (d->rch)
		ibv_destroy_comp_channel(d->rch);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	d->agent = NULL;
	d->gsi = NULL;
	d->mr = NULL;
	d->buf = NULL;
	d->scq = d->rcq = NULL;
	d->rch = NULL;
	d->pd = NULL;
	return err ? err : ENODEV;
}

/* Waits (at most 500 ms) until every MAD posted on every device is sent. */
void ucm_flush(void)
{
	for (int i = 0; i < ndevs; i++) {
		struct ucm_dev *d = &devs[i];

		for (int t = 0; t < 500; t++) {
			struct ibv_wc wc[16];
			bool done;
			int n;

			pthread_mutex_lock(&ucm_lock);
			if (d->up)
				while ((n = ibv_poll_cq(d->scq, 16, wc)) > 0)
					d->reclaimed += (uint64_t)n;
			done = !d->up || d->sent == d->reclaimed;
			pthread_mutex_unlock(&ucm_lock);
			if (done)
				break;
			usleep(1000);
		}
	}
}

/* Every device, opened (one that cannot be is left out). Under ucm_lock. */
int ucm_devices(struct ucm_dev **out)
{
	int n = 0;

	pthread_once(&devs_once, devs_init);
	for (int i = 0; i < ndevs; i++)
		if (!ucm_dev_up(&devs[i]))
			out[n++] = &devs[i];
	return n;
}

/* The device whose address is @sa's (its port ignored), opened; NULL if
 * none. Under ucm_lock. */
struct ucm_dev *ucm_dev_by_addr(const struct sockaddr *sa)
{
	struct ucm_dev *l[UCM_MAX_DEVS];
	union ibv_gid g;
	int n = ucm_devices(l);

	ucm_gid_of(sa, &g);
	for (int i = 0; i < n; i++)
		if (!memcmp(l[i]->gid.raw, g.raw, 16))
			return l[i];
	return NULL;
}

/* ------------------------------------------------------------------------ */

struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ucm_dev *l[UCM_MAX_DEVS];
	struct ibv_context **v;
	int n;

	pthread_mutex_lock(&ucm_lock);
	n = ucm_devices(l);
	pthread_mutex_unlock(&ucm_lock);
	v = calloc((size_t)n + 1, sizeof(*v));
	if (!v) {
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < n; i++)
		v[i] = l[i]->verbs;
	if (num_devices)
		*num_devices = n;
	return v;
}

void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

uint32_t ucm_random(void)
{
	uint32_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint32_t)ucm_now_ns() * 2654435761u;
	return r;
}
