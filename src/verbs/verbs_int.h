/* SPDX-License-Identifier: MIT */
/*
 * verbs_int.h - the software side of the objects of wqe/verbs.h: what a
 * driver keeps in host memory next to the NIC's tables.
 */
#ifndef WQE_VERBS_INT_H
#define WQE_VERBS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/device.h"
#include "ring/ring.h"
#include "tables/catalog.h"
#include "tables/qpc.h"
#include "wqe/model.h"
#include "wqe/verbs.h"

#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/*
 * The context's asynchronous events (async.c): the events not yet taken,
 * oldest first, in a ring, and an eventfd whose counter is their number.
 * An object has at most one event of each type waiting (a second one of
 * the same type and object is merged into it and counted), so the ring
 * never needs more than ASYNC_QP_ROOM slots per QP and ASYNC_CQ_ROOM per
 * CQ: creating one makes that room (@room), so that the engine never
 * allocates to deliver an event. @lock guards the ring, @stats and the
 * objects' async_* fields: wqe_get_async_event() may run in another thread
 * than the one driving the context.
 */
struct async_queue {
	pthread_mutex_t lock;
	int fd;
	struct wqe_async_event *ev; /* cap slots, a power of two (or 0) */
	uint32_t cap;
	uint32_t head;              /* oldest event */
	uint32_t count;
	uint32_t room;              /* slots promised to the QPs and CQs alive */
	struct wqe_async_stats stats;
};

/* Event types a QP can have waiting at once (QP_FATAL, QP_REQ_ERR,
 * QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, QP_LAST_WQE_REACHED), a CQ
 * (CQ_ERR) and an SRQ (SRQ_LIMIT_REACHED). */
#define ASYNC_QP_ROOM 6u
#define ASYNC_CQ_ROOM 1u
#define ASYNC_SRQ_ROOM 1u

/* SRQs of a context at once; an SRQ's number is its slot in the
 * context's table and a generation above it (never 0). */
#define VERBS_MAX_SRQ 1024u

/*
 * The driver's own table of its QPs by number (the number the NIC gave at
 * nic_qp_create()): poll_cq and the event queue find a completion's or
 * an event's QP here, never in the NIC's tables. Two levels, so that it
 * never moves: a poll in one thread reads it while a command in another
 * adds or removes a QP (the entries are atomic; a page, once made, stays
 * until the context is closed).
 */
#define VERBS_QP_PAGE 4096u
#define VERBS_QP_PAGES (0x1000000u / VERBS_QP_PAGE)
struct verbs_qp_page {
	_Atomic(struct wqe_qp *) qp[VERBS_QP_PAGE];
};
struct verbs_qp_table {
	_Atomic(struct verbs_qp_page *) page[VERBS_QP_PAGES];
};

struct wqe_context {
	struct wqe_context_attr attr;
	struct nic *nic;
	struct verbs_qp_table *qps;
	struct wqe_link *link;
	struct link_port *port;
	/* Atomic: commands of several threads create and destroy objects at
	 * once (wqe/verbs.h, "Threading"). */
	_Atomic uint32_t next_pd;
	_Atomic uint32_t npd, nmr, ncq, nqp, nah, nchannel, nsrq;
	struct async_queue async;
	/* SRQs by slot (wqe_poll_cq() finds a completion's here) and the
	 * generation of the next SRQ number; under the command bracket. */
	_Atomic(struct wqe_srq *) srqs[VERBS_MAX_SRQ];
	uint32_t srq_gen;
};

/*
 * An SRQ (srq.c): the NIC's view (@srqc over @ring) and the driver's:
 * wr_id per slot and, for mlx5, the free list of slots (@head: where the
 * next post goes; @tail: its last slot, never posted, so that head ==
 * tail is full), as rdma-core's mlx5 provider keeps them. @lock orders
 * posts against wqe_poll_cq()'s giving slots back.
 */
struct wqe_srq {
	struct wqe_context *context;
	struct wqe_pd *pd;
	struct srqc srqc;
	struct rq_ring ring;
	uint64_t *wrid;
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t head;
	uint32_t tail;
	pthread_spinlock_t lock;
	void *srq_context;
	_Atomic uint32_t refs;      /* QPs using it */
	/* Its asynchronous event (under the context's async lock). */
	uint32_t async_waiting;
	uint32_t async_got;
	uint32_t async_acked;
};

/* The SRQ numbered @srqn, or NULL (destroyed). Any thread. */
static inline struct wqe_srq *verbs_srq_find(const struct wqe_context *ctx, uint32_t srqn)
{
	struct wqe_srq *s = atomic_load_explicit(&ctx->srqs[srqn % VERBS_MAX_SRQ],
						 memory_order_acquire);

	return s && s->srqc.srqn == srqn ? s : NULL;
}
/* A receive completion @e of @srq: its wr_id (mlx5: its slot goes back
 * on the free list). Any thread (it takes the SRQ's lock). */
uint64_t verbs_srq_complete(struct wqe_srq *srq, const struct cqe *e);

struct wqe_pd {
	struct wqe_context *context;
	uint32_t handle;
	_Atomic uint32_t refs; /* MRs, QPs and AHs using it */
};

struct comp_channel;

struct wqe_cq {
	struct wqe_context *context;
	struct cqc cqc;
	uint32_t ci;   /* software consumer counter */
	_Atomic uint32_t refs; /* QPs using it */
	struct comp_channel *channel; /* NULL: created without one */
	void *cq_context;
	/* Events wqe_get_cq_event() returned and wqe_ack_cq_events()
	 * acknowledged (under the channel's lock). */
	uint32_t events_got;
	uint32_t events_acked;
	/* Its asynchronous events (under the context's async lock): one
	 * waiting (1 << WQE_EVENT_CQ_ERR), returned, acknowledged. */
	uint32_t async_waiting;
	uint32_t async_got;
	uint32_t async_acked;
};

/*
 * A completion channel (event.c): the user's handle, and the events not
 * yet taken, oldest first, in a ring of CQ pointers. The eventfd's
 * counter is the number of them. The ring always has room for one event
 * per CQ armed on the channel besides the events in it (wqe_req_notify_cq()
 * makes the room), so that the engine never allocates to deliver one.
 * @lock guards the ring and the CQs' event counters: wqe_get_cq_event()
 * may run in another thread than the one driving the context.
 */
struct comp_channel {
	struct wqe_comp_channel pub; /* first: the user's handle */
	pthread_mutex_t lock;
	struct wqe_cq **ev;          /* ev_cap slots, a power of two (or 0) */
	uint32_t ev_cap;
	uint32_t ev_head;            /* oldest event */
	uint32_t ev_count;
	uint32_t narmed;             /* CQs of the channel armed now */
};

static inline struct comp_channel *channel_of(struct wqe_comp_channel *ch)
{
	return container_of(ch, struct comp_channel, pub);
}

/* One more CQ on @ch (its public refcnt, under its lock). */
void verbs_channel_ref(struct comp_channel *ch);
/* The engine's completion event handler of a CQ on a channel (event.c). */
void verbs_cq_event(struct cqc *c);
/* Before @cq is freed (event.c): EBUSY if an event of it that was taken
 * is not acknowledged; else drops its events not yet taken and its arm
 * from its channel, if any, and returns 0. */
int verbs_cq_detach(struct wqe_cq *cq);

/* Asynchronous events (async.c). */
/* Takes one event's token from an EFD_SEMAPHORE eventfd (blocking unless
 * the fd is non-blocking): 0, or -1 with errno as read() sets it (EAGAIN,
 * EINTR, ...; EIO for a short read). */
int verbs_efd_take(int fd);
/* Takes up to @n tokens from eventfd @fd without ever waiting (the fd may
 * be blocking): the events they stood for are gone. */
void verbs_efd_drain(int fd, uint32_t n);

/* Most entries an event ring holds: its size stays a uint32_t power of two. */
#define VERBS_RING_MAX (1u << 31)
/*
 * Makes the event ring *@ring (*@cap entries of @elem bytes, a power of two
 * or 0; @count of them from *@head on) hold @need entries: a new ring of
 * the next power of two from @first up, the entries moved to its start
 * (*@head 0). 0, or ENOMEM (over VERBS_RING_MAX, or no memory: nothing
 * changes).
 */
int verbs_ring_grow(void **ring, uint32_t *cap, uint32_t *head, uint32_t count, size_t elem,
		    uint64_t need, uint32_t first);

/* Sets up @ctx's event queue and its eventfd: 0 or an errno (eventfd()'s,
 * or ENOMEM). verbs_async_raise() is the NIC's handler (nic_event_fn) that
 * queues what it raises, with @ctx as its argument. */
int verbs_async_init(struct wqe_context *ctx);
/* Frees what verbs_async_init() made; every QP and CQ is gone. */
void verbs_async_fini(struct wqe_context *ctx);
void verbs_async_raise(void *arg, enum nic_event e, uint32_t qpn, struct cqc *c);
/* Makes room for the events of one more QP (@slots ASYNC_QP_ROOM) or CQ
 * (ASYNC_CQ_ROOM): 0 or ENOMEM. verbs_async_unreserve() gives it back. */
int verbs_async_reserve(struct wqe_context *ctx, uint32_t slots);
void verbs_async_unreserve(struct wqe_context *ctx, uint32_t slots);
/* Before @qp (@cq) is freed: EBUSY if an event of it that was taken is
 * not acknowledged; else drops its events not yet taken and its room, and
 * returns 0. verbs_async_busy_cq() only checks. */
int verbs_async_detach_qp(struct wqe_qp *qp);
bool verbs_async_busy_cq(struct wqe_cq *cq);
int verbs_async_detach_srq(struct wqe_srq *srq);
void verbs_async_detach_cq(struct wqe_cq *cq);

/* What the post-time checks need to know of one Work Request opcode on
 * one QP, in one load: the operation and POST_OP_* facts, and for mlx5
 * whether its WQE can take one of the common shapes (post.c). */
enum {
	POST_OP_OK = 1u << 0,        /* a known opcode that passes the opcode check */
	POST_OP_INLINE_OK = 1u << 1, /* may carry inline data */
	POST_OP_ATOMIC = 1u << 2,    /* one of the two atomics */
	POST_OP_UD_AH = 1u << 3,     /* must name a UD address (UD SEND, SEND_WITH_IMM) */
	POST_OP_IMM = 1u << 4,       /* carries imm_data */
};
/*
 * The common WQE shapes post_mlx5 writes without a plan, for a request
 * with one SGE of non-zero length (a data segment, or inline): SEND,
 * SEND_WITH_IMM, RDMA WRITE, WRITE_WITH_IMM and READ where legal on the
 * transport, in a state that passes the state check, on a QP with
 * max_send_sge >= 1. POST_SHAPE_NONE: the general path.
 */
enum {
	POST_SHAPE_NONE = 0,
	/* Each value is the DS of its control and transport segments
	 * (static_assert in post.c). */
	POST_SHAPE_PLAIN = 1, /* RC/UC SEND, SEND_WITH_IMM: control, data */
	POST_SHAPE_RADDR = 2, /* RC/UC WRITE, WRITE_WITH_IMM, RC READ: control, raddr, data */
	POST_SHAPE_DGRAM = 4, /* UD SEND, SEND_WITH_IMM: control, datagram, data */
};
struct post_op {
	uint8_t op;     /* enum wqe_op, if POST_OP_OK */
	uint8_t flags;  /* POST_OP_* */
	uint8_t shape;  /* POST_SHAPE_* (mlx5 only) */
	uint8_t opcode; /* the mlx5 opcode of op, if shape is not NONE */
};

struct wqe_qp {
	struct qpc qpc; /* first: the NIC's table points here */
	/* What wqe_post_send() reads and writes, together (with many QPs
	 * every post finds its QP cold: these are two or three cache lines
	 * instead of the five they spanned spread out), in the order the
	 * mlx5 post path uses them. The post_* fields are what
	 * wqe_post_send() would otherwise work out on every call, set by
	 * verbs_qp_post_setup() when the QP is created and when its state
	 * changes. */
	struct wqe_context *context;
	struct wqe_pd *pd;
	struct sq_ring sq;
	uint64_t *sq_wrid;          /* wr_id per first block of each WQE */
	/* Lower bounds of the send ring's free blocks and of the WQEs
	 * before max_send_wr are outstanding, counted down by the mlx5 post
	 * path and read again from the ring's counters only when a request
	 * does not fit (the engine only ever makes more room); 0 after setup. */
	uint32_t post_room_blocks;
	uint32_t post_room_wqes;
	struct wqe_encode_qp eqp;   /* the QP facts the WQE encoder takes */
	/* mlx5: the control segment's fm_ce_se by send_flags & 7 (FENCE,
	 * SIGNALED, SOLICITED), sq_sig_all included */
	uint8_t post_fm_ce_se[8];
	bool post_state_ok;         /* sw_state passes the state check */
	bool post_mlx5;             /* mlx5 format: the post path writes WQEs itself */
	struct post_op post_op[CATALOG_WR_SLOTS]; /* by Work Request opcode */
	/* the rest */
	struct wqe_cq *send_cq;
	struct wqe_cq *recv_cq;
	void *qp_context;
	struct wqe_qp_cap cap;
	enum wqe_qp_state sw_state; /* what post-time checks go by */
	struct rq_ring rq;
	uint32_t wqe_bytes;         /* largest WQE the sizing allows */
	uint64_t *rq_wrid;          /* wr_id per receive slot */
	struct wqe_srq *srq;        /* receives from it (no @rq then) */
	struct wqe_ah_attr ah_attr; /* as last set, for query */
	uint8_t en_sqd_async_notify; /* as last set, for query */
	/* Its asynchronous events (under the context's async lock): the
	 * types waiting (1 << enum wqe_event_type), returned, acknowledged. */
	uint32_t async_waiting;
	uint32_t async_got;
	uint32_t async_acked;
};

static inline struct wqe_qp *qp_of_qpc(struct qpc *q)
{
	return container_of(q, struct wqe_qp, qpc);
}

/* The QP numbered @qpn, or NULL (destroyed, or never made). Any thread. */
static inline struct wqe_qp *verbs_qp_find(const struct wqe_context *ctx, uint32_t qpn)
{
	/* Acquire pairs with verbs_qp_register()'s release stores: the QP
	 * (and the page) are whole before they can be found. */
	struct verbs_qp_page *p = qpn < 0x1000000u
					  ? atomic_load_explicit(&ctx->qps->page[qpn / VERBS_QP_PAGE],
								 memory_order_acquire)
					  : NULL;

	return p ? atomic_load_explicit(&p->qp[qpn % VERBS_QP_PAGE], memory_order_acquire) : NULL;
}
/* Adds @qp under its number (inside the command bracket): 0 or ENOMEM. */
int verbs_qp_register(struct wqe_context *ctx, struct wqe_qp *qp);
/* Removes it (inside the command bracket). */
void verbs_qp_unregister(struct wqe_context *ctx, struct wqe_qp *qp);

/* Sets the post-path fields of @qp from its QP context, capabilities and
 * sw_state (qp.c). */
void verbs_qp_post_setup(struct wqe_qp *qp);

/* The rules of an address handle's attributes, for a QP's peer address
 * too (context.c): 0 or EINVAL. */
int verbs_check_ah_attr(const struct wqe_context *ctx, const struct wqe_ah_attr *a);

/* Default UDP source port of a QP, in rxe's range 0xc000-0xffff. */
uint16_t verbs_default_sport(uint32_t qpn);

#endif
