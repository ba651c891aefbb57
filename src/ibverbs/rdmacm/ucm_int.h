/* SPDX-License-Identifier: MIT */
/*
 * The drop-in librdmacm.so.1: rdma_cm in the process, on wqe's CM agent
 * (wqe/cm.h). Where rdma-core's librdmacm writes commands to the kernel's
 * rdma_ucm, which runs ib_cm on the device's GSI QP, this library runs the
 * agent itself on a GSI QP it asks the drop-in libibverbs for
 * (wqe_ibv_create_gsi_qp()), and everything else through the public verbs.
 *
 * One CM device a verbs device (struct ucm_dev): its GSI QP, a CM thread
 * that feeds received MADs and timers to the agent. One lock (ucm_lock)
 * over every device, ID and agent call; events go to the channels, each
 * with its own lock and a pipe whose read end is the channel's fd. See
 * docs/rdma-cm.md.
 */
#ifndef WQE_UCM_INT_H
#define WQE_UCM_INT_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>

#include "wqe/cm.h"

/* Exported by wqe's libibverbs.so.1 at WQE_PRIVATE_1: the device's GSI QP. */
struct ibv_qp *wqe_ibv_create_gsi_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);

#define UCM_MAX_DEVS 8
#define UCM_NRECV    64u
#define UCM_NSEND    64u
#define UCM_SLOT     512u /* a 40-byte GRH and a 256-byte MAD */
#define UCM_GRH	     40u
#define UCM_NAH	     16u
/* The kernel's rdma_cm (drivers/infiniband/core/cma.c). */
#define UCM_RESPONSE_TIMEOUT 20 /* CMA_CM_RESPONSE_TIMEOUT: 4.3 s */
#define UCM_MAX_CM_RETRIES   15 /* CMA_MAX_CM_RETRIES */
#define UCM_PACKET_LIFETIME  16 /* CMA_IBOE_PACKET_LIFETIME */
#define UCM_UDP_QKEY	     0x01234567u /* RDMA_UDP_QKEY */
#define UCM_IP_HDR	     WQE_CM_IP_HDR_LEN

struct ucm_ah {
	union ibv_gid gid;
	struct ibv_ah *ah;
	uint64_t used;
};

/* A verbs device as the CM sees it; opened on first use and kept. */
struct ucm_dev {
	struct ibv_device *dev;
	struct ibv_context *verbs;
	struct ibv_pd *pd; /* every ID's id->pd on this device */
	union ibv_gid gid;
	struct sockaddr_storage addr; /* its address (port 0) */
	enum ibv_mtu mtu;
	uint8_t max_init_depth, max_resp_res;
	uint32_t max_qp_wr;
	/* the GSI QP and its buffers */
	struct ibv_comp_channel *rch;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *gsi;
	uint8_t *buf; /* UCM_NRECV receive slots, then UCM_NSEND send slots */
	struct ibv_mr *mr;
	uint64_t sent, reclaimed;
	struct ucm_ah ahs[UCM_NAH];
	uint64_t ah_clock;
	struct wqe_cm_agent *agent;
	pthread_t thread;
	int wake[2];
	bool up;
};

struct ucm_channel;
struct ucm_id;

/* One queued event; rdma_cm_event first, as the program holds it. */
struct ucm_event {
	struct rdma_cm_event ev;
	struct ucm_event *next;
	struct ucm_id *owner; /* whose events_completed its ack counts */
	uint8_t pdata[WQE_CM_RTU_PDATA_LEN];
};

/* A channel: its queue and, under its lock, one byte in the socket pair
 * for each queued event (so the program's poll() on ch.fd is true exactly
 * while an event waits), less @unsent for bytes a full socket refused. */
struct ucm_channel {
	struct rdma_event_channel ch; /* ch.fd: the socket pair's reading end */
	int wfd;
	pthread_mutex_t lock;
	struct ucm_event *head, *tail;
	unsigned unsent;
};

enum ucm_state {
	UCM_IDLE,
	UCM_ADDR_BOUND,
	UCM_ADDR_RESOLVED,
	UCM_ROUTE_RESOLVED,
	UCM_LISTEN,
	UCM_CONNECT,	  /* REQ or SIDR_REQ sent */
	UCM_CONNECT_REQ,  /* passive: REQ or SIDR_REQ received */
	UCM_ACCEPTED,	  /* passive: REP sent */
	UCM_ESTABLISHED,
	UCM_DISCONNECTED,
	UCM_DEAD,	  /* rejected, unreachable, timed out */
};

struct ucm_id {
	struct rdma_cm_id id; /* first: the program's pointer converts */
	struct ucm_id *next;  /* ucm_ids */
	struct ucm_channel *ch;
	bool sync;
	enum ucm_state state;
	struct ucm_dev *dev;
	struct wqe_cm_id *cm;			   /* the connection's agent ID */
	struct wqe_cm_id *listen[UCM_MAX_DEVS];	   /* a listener's, a device each */
	struct ucm_dev *ldev[UCM_MAX_DEVS];
	struct ucm_id *onext; /* unqueue()'s list of orphans */
	struct ibv_sa_path_rec path;
	bool bound, wildcard;
	int backlog;
	uint8_t tos, ack_timeout;
	bool tos_set, ack_timeout_set, reuseaddr, afonly;
	uint8_t resp_res, init_depth; /* what the exchange settled */
	uint8_t retry_count, rnr_retry_count;
	bool disc_reported;
	bool manual_rtu;
	uint32_t remote_qpn, remote_qkey; /* UD: the SIDR_REP's */
	uint32_t seq_num; /* the starting PSN we send, and our rq_psn (the kernel's) */
	struct ibv_qp_init_attr *qp_init_attr; /* rdma_create_ep() listener's */
	/* under ucm_lock: events handed to the program, and acked */
	unsigned reported, completed;
	pthread_cond_t cond;
};

extern pthread_mutex_t ucm_lock;

/* Devices (device.c). */
int ucm_devices(struct ucm_dev **devs); /* opens every one; the count */
struct ucm_dev *ucm_dev_by_addr(const struct sockaddr *sa);
int ucm_dev_up(struct ucm_dev *d);
void ucm_wake(struct ucm_dev *d);
void ucm_flush(void);
uint64_t ucm_now_ns(void);
uint32_t ucm_random(void);

/* IDs and events (id.c). */
struct ucm_id *ucm_id_new(struct ucm_channel *ch, void *context, enum rdma_port_space ps,
			  enum ibv_qp_type qpt);
void ucm_queue(struct ucm_id *owner, struct ucm_id *about, struct ucm_id *listen,
	       enum rdma_cm_event_type type, int status, const void *pdata, size_t pdata_len,
	       const struct rdma_conn_param *conn, const struct rdma_ud_param *ud);
int ucm_complete(struct ucm_id *u);
void ucm_agent_event(void *ctx, const struct wqe_cm_event *ev);
void ucm_reap(void);
struct ucm_channel *ucm_channel_new(void);
void ucm_channel_free(struct ucm_channel *c);
void ucm_bind_dev(struct ucm_id *u, struct ucm_dev *d);

/* Addresses (addr.c). */
socklen_t ucm_addrlen(const struct sockaddr *sa);
uint16_t ucm_port(const struct sockaddr *sa);
void ucm_set_port(struct sockaddr *sa, uint16_t port);
void ucm_gid_of(const struct sockaddr *sa, union ibv_gid *gid);
void ucm_addr_of_gid(const union wqe_gid *gid, uint16_t port, struct sockaddr_storage *ss);
bool ucm_is_any(const struct sockaddr *sa);
int ucm_reserve_port(struct ucm_id *u, struct sockaddr *sa);
int ucm_port_check(struct ucm_id *u, const struct sockaddr *sa, uint16_t port, bool reuse);
int ucm_route_hop_limit(const struct sockaddr *dst);
enum ibv_mtu ucm_route_mtu(const struct sockaddr *dst, enum ibv_mtu dev_mtu);

/* QPs (qp.c). */
int ucm_qp_to(struct ucm_id *u, enum ibv_qp_state st, uint8_t limit);
int ucm_qp_err(struct ucm_id *u);
int ucm_qp_attr(struct ucm_id *u, enum ibv_qp_state st, struct ibv_qp_attr *a, int *mask);

static inline struct ucm_id *ucm_of(struct rdma_cm_id *id)
{
	return (struct ucm_id *)(void *)id;
}

static inline int ucm_err(int e)
{
	errno = e;
	return -1;
}

#endif
