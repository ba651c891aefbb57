/* SPDX-License-Identifier: MIT */
/* link_int.h - what every link is (private). */
#ifndef WQE_LINK_INT_H
#define WQE_LINK_INT_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wqe/link.h"
#include "wqe/wire.h"

enum link_kind { LINK_SINK = 1, LINK_LOOPBACK, LINK_FAULT, LINK_UDP };

#define LINK_MAX_PORTS 16u
/*
 * A link's frame buffer: the longest frame a NIC sends (WQE_FRAME_MAX) and
 * the 64 bytes of margin the links have always had (a link carries what it
 * is given; the UDP link takes a datagram of up to LINK_FRAME_MAX less the
 * headers it rebuilds in front of it). Never less than WQE_FRAME_MAX: the
 * NIC builds its frames in these buffers (tx_buf), and wqe/link.h gives
 * the figure to users.
 */
#define LINK_FRAME_MAX (WQE_FRAME_MAX + 64u)
static_assert(LINK_FRAME_MAX >= WQE_FRAME_MAX, "a link buffer holds any frame a NIC builds");
static_assert(LINK_FRAME_MAX == 4416u, "wqe/link.h: the largest frame, 4416 bytes");
#define LINK_QUEUE 4096u /* frames a port can have waiting */

struct link_frame {
	uint8_t *data;
	size_t len;
	uint64_t due_ns; /* fault link: when a held frame may go */
};

/* One attachment point: one context's view of the link. */
struct link_port {
	struct wqe_link *link;
	uint8_t mac[6];
	bool used;
	/* frames waiting for this port (loopback) */
	struct link_frame *q;
	uint32_t head, tail;
	struct link_port *inner; /* fault link: the port on the inner link */
	/* the port a fault link's port sends through: its frames may have
	 * been damaged since the NIC built them */
	bool behind_fault;
	/* loopback: the pool buffer handed out by tx_buf for the next frame
	 * (kept when a frame could not be queued) */
	uint8_t *spare;
	/* loopback, a port a NIC thread takes frames from: an eventfd that is
	 * readable while frames wait (written when a frame reaches an empty
	 * queue while @armed, emptied when armed); -1 otherwise */
	int efd;
	bool armed; /* its NIC thread is about to sleep on @efd (under the link lock) */
};

/* Frame buffers of LINK_FRAME_MAX bytes, recycled: after warm-up a link
 * allocates nothing per frame. */
struct frame_pool {
	uint8_t **free;
	uint32_t nfree;
	uint32_t cap;
	uint64_t allocated;
};

uint8_t *pool_get(struct frame_pool *p);
void pool_put(struct frame_pool *p, uint8_t *buf);
void pool_fini(struct frame_pool *p);

/* Datagrams the UDP link queues before one sendmmsg() sends them, and
 * datagrams one recvmmsg() reads. 64: what a QP's requester sends in one
 * progress pass (engine/sched.c). */
#define LINK_UDP_BATCH 64u

struct udp_txq;
struct udp_rxq;

/* Source ports a UDP link sends from besides 4791, each a socket. */
#define LINK_UDP_SPORTS 64u

/* A source port's socket: @port 0, none yet; @fd -1 with @port set, the
 * port could not be bound (its datagrams go from 4791). */
struct udp_sport {
	int fd;
	uint16_t port;
};

/* The UDP link's sockets and its send and receive batches (udp.c). */
struct link_udp {
	int fd;              /* the UDP socket on port 4791 */
	int rx_fd;           /* what datagrams are read from: @fd or a raw socket */
	int family;          /* AF_INET or AF_INET6 */
	int ipv4_rx;         /* enum wqe_udp_ipv4_rx, never AUTO */
	int ttl;             /* the sockets' own TTL / hop limit */
	uint32_t sndbuf;     /* wqe_udp_cfg.sndbuf, for the source port sockets */
	union wqe_gid local; /* the bound address (::ffff:a.b.c.d for IPv4) */
	struct udp_txq *tx;  /* datagrams queued for the next sendmmsg() */
	struct udp_rxq *rx;  /* datagrams the last recvmmsg() read */
	struct udp_sport sport[LINK_UDP_SPORTS];
};

struct wqe_link {
	enum link_kind kind;
	struct frame_pool pool;
	uint32_t users;
	uint32_t max_users; /* contexts that may attach; 0 means LINK_MAX_PORTS */
	/* Optional: releases what the link holds besides its frames and pool
	 * (wqe_link_destroy() calls it first). */
	void (*fini)(struct wqe_link *l);
	struct link_port port[LINK_MAX_PORTS];
	void (*xmit)(void *port, const uint8_t *frame, size_t len);
	/* Optional: a buffer of LINK_FRAME_MAX bytes (POOL_SHIFT past a 16-byte
	 * boundary) for the sender to build its next frame in, and sending a
	 * frame built there without copying it; NULL when the link has none. */
	uint8_t *(*tx_buf)(void *port);
	void (*xmit_buf)(void *port, uint8_t *buf, size_t len);
	const uint8_t *(*rx_peek)(void *port, size_t *len);
	void (*rx_done)(void *port);
	/* Optional: sends what xmit/xmit_buf queued (UDP: one sendmmsg() for
	 * a batch), in order; the NIC calls it when a progress call ends.
	 * NULL for links that deliver at once. */
	void (*flush)(void *port);
	/* Optional (struct nic_link): a NIC thread is about to sleep on the
	 * port's poll fd; false if a frame already waits. */
	bool (*rx_arm)(void *port);
	struct wqe_link_stats stats;
	/* Set while a context whose NIC runs on its own thread drives the
	 * link (wqe_context_attach_link()): takes (@lock 1) and gives back
	 * (0) that NIC's command lock, under which the NIC thread uses the
	 * link, so that wqe_link_stats() reads what the thread writes. */
	void (*guard)(void *arg, int lock);
	void *guard_arg;
	/* loopback: a NIC thread uses it (its first port was attached with
	 * @threaded): @make_mt switched the operations to ones that hold @mu,
	 * for contexts of either mode, for the link's life */
	bool mt;
	pthread_mutex_t mu;
	void (*make_mt)(struct wqe_link *l);
	/* sink */
	struct link_frame *frames;
	size_t count;
	size_t max;
	/* fault */
	struct wqe_link *inner;
	struct wqe_fault_cfg cfg;
	uint64_t rng;
	struct link_frame held[64];
	struct link_port *held_from[64];
	uint32_t nheld;
	/* udp */
	struct link_udp udp;
};

/* Attaches and detaches a port (used by wqe_context_attach_link). With
 * @threaded, for a context whose NIC runs on a thread of its own: a
 * loopback then locks every operation and gives the port an eventfd; it
 * must be the loopback's first port or join one made threaded so. NULL
 * with errno ENOMEM (no port or memory left), ENOTSUP (a threaded port
 * for a loopback whose ports are not) or what eventfd() set. */
struct link_port *link_port_attach(struct wqe_link *l, const uint8_t mac[6], bool threaded);
void link_port_detach(struct link_port *p);
/* The descriptor that is readable when a frame waits for port @p (a UDP
 * link's socket, also behind a fault injector; a threaded loopback port's
 * eventfd), or -1 if it has none: what a NIC thread sleeps on. */
int link_poll_fd(const struct link_port *p);

#endif
