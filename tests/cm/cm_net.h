/* SPDX-License-Identifier: MIT */
/*
 * cm_net.h - CM agents wired back to back in one process: a simulated
 * clock, a MAD queue that can drop, duplicate and reorder (seeded), a log
 * of every MAD sent and every event reported, and nodes that can answer
 * REQs, REPs and DREQs by themselves.
 */
#ifndef WQE_TEST_CM_NET_H
#define WQE_TEST_CM_NET_H

#include "testutil.h"
#include "wqe/cm.h"

#define NET_MAX_NODES 3
#define NET_QUEUE     4096
#define NET_LOG	      4096

struct net_pkt {
	int dst;
	struct wqe_cm_addr from;
	uint64_t at;
	uint8_t mad[WQE_MAD_LEN];
};

/* What a node does by itself on an event. */
struct node_auto {
	int accept;  /* REQ_RECEIVED: accept (with accept_param) */
	int reject;  /* REQ_RECEIVED: reject with this reason instead */
	int mra;     /* REQ_RECEIVED: send an MRA with this service timeout + 1 first */
	int drep;    /* DREQ_RECEIVED: send the DREP */
	int destroy; /* TIMEWAIT_EXIT, *_ERROR, REJ_RECEIVED, SIDR_REP: destroy the ID */
	int sidr;    /* SIDR_REQ_RECEIVED: SIDR_REP success, QPN 0x111, Q_Key 0x2222 */
	struct wqe_cm_accept_param accept_param;
};

struct net_event {
	int node;
	enum wqe_cm_event_type type;
	struct wqe_cm_id *id;
	uint16_t reason;
	uint64_t at;
	uint8_t pdata[8]; /* the first private data bytes of the message */
};

struct net_sent {
	int node;
	uint16_t attr;
	uint64_t at;
	struct wqe_cm_msg msg;
};

struct node {
	struct net *net;
	int idx;
	struct wqe_cm_agent *agent;
	union wqe_gid gid;
	struct node_auto au;
	struct wqe_cm_id *last_new; /* the last ID a *_RECEIVED event created */
};

struct net {
	uint64_t now;
	struct test_rng rng;
	unsigned drop_pct, dup_pct, jitter_ns; /* reorder: up to jitter_ns of delay */
	uint64_t delay_ns;		       /* every MAD's flight time */
	int hold;			       /* 1: MADs are logged, not delivered */
	int drop_to[NET_MAX_NODES];	       /* drop everything to this node */
	int nnodes;
	struct node nodes[NET_MAX_NODES];
	struct net_pkt q[NET_QUEUE];
	int nq;
	struct net_event ev[NET_LOG];
	int nev;
	struct net_sent sent[NET_LOG];
	int nsent;
	uint64_t delivered, dropped, duplicated;
};

/* Node @i's GID: ::ffff:10.0.0.(i+1). */
void net_gid(union wqe_gid *g, int i);
/* @n nodes (agents with @attr's bounds, zeroed = defaults), seed @seed. */
void net_init(struct net *n, int nodes, uint64_t seed, const struct wqe_cm_agent_attr *attr);
void net_fini(struct net *n);
/* The address of node @i's GSI. */
struct wqe_cm_addr net_addr(const struct net *n, int i);
/* Deliver and tick until nothing is queued and no timer is left, or the
 * clock passes now + @max_ns. Returns the MADs delivered. */
uint64_t net_run(struct net *n, uint64_t max_ns);
/* Advance the clock by @ns, running what falls due on the way. */
void net_advance(struct net *n, uint64_t ns);
/* Events of @type at @node, and the index of the @k-th (or -1). */
int net_count_ev(const struct net *n, int node, enum wqe_cm_event_type type);
int net_find_ev(const struct net *n, int node, enum wqe_cm_event_type type, int k);
/* MADs of @attr sent by @node. */
int net_count_sent(const struct net *n, int node, uint16_t attr);
/* The last MAD of @attr sent by @node, or NULL. */
const struct wqe_cm_msg *net_last_sent(const struct net *n, int node, uint16_t attr);
/* A default RC connect from node @from to node @to on @sid. */
void net_conn_param(const struct net *n, int from, int to, uint64_t sid,
		    struct wqe_cm_conn_param *p);
/* Hand @m (encoded) to node @to as if from node @from's address (@gid
 * overrides it when not NULL). Returns wqe_cm_agent_receive()'s result. */
int net_inject(struct net *n, int to, const union wqe_gid *gid, int from,
	       const struct wqe_cm_msg *m);

#endif
