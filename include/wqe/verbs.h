/* SPDX-License-Identifier: MIT */
/*
 * wqe/verbs.h - the software-facing shape: a verbs-shaped API.
 *
 * Names, fields and semantics follow libibverbs (rdma-core libibverbs/verbs.h)
 * so that a reader of either knows the other; it is not a rename of it (a
 * program written against libibverbs runs unchanged on the drop-in
 * libibverbs.so.1 of src/ibverbs instead: docs/ibverbs.md).
 * Differences from libibverbs are called out at each declaration.
 *
 * Error convention (the same as libibverbs):
 *  - calls that create an object return it, or NULL with errno set;
 *  - wqe_post_send(), wqe_post_recv(), wqe_modify_qp(), wqe_query_qp() and
 *    the destroy/dealloc/dereg calls return 0 or a positive errno value and
 *    leave errno alone;
 *  - wqe_poll_cq() returns the number of completions (>= 0) or a negative
 *    errno value.
 *
 * Threading (docs/architecture.md, "Threading"):
 *  - Commands are thread-safe: creating, modifying, querying and
 *    destroying PDs, MRs, CQs, QPs and AHs, attaching a link, tap, clock
 *    or trace, and the statistics queries each take the context's NIC
 *    command lock, so any threads may issue them at once, and (with
 *    WQE_NIC_THREAD) while the NIC thread works. Destroying an object
 *    while another thread still uses it is the caller's error, as in
 *    libibverbs.
 *  - The data path is not locked (as the mlx5 provider in a thread
 *    domain): wqe_post_send() and wqe_post_recv() on one QP, and
 *    wqe_poll_cq() and wqe_req_notify_cq() on one CQ, are serialised by
 *    the caller; different QPs and CQs may be used from different threads
 *    at once. (libibverbs makes these thread-safe too.)
 *  - With WQE_NIC_CALLER (the default) the calls that run the NIC
 *    (wqe_progress(), wqe_poll_cq(), wqe_context_receive()) must not
 *    overlap any other call on the context.
 *  - wqe_get_cq_event() and wqe_ack_cq_events() (see "Completion events"
 *    below), and wqe_get_async_event() and wqe_ack_async_event() (see
 *    "Asynchronous events"), may run in any thread while the context is
 *    in use.
 * Inside a context the rings, their doorbell records and consumer counters
 * and the CQ rings are shared between the driver and the NIC with
 * release/acquire ordering, as they are between a driver and a NIC.
 */
#ifndef WQE_VERBS_H
#define WQE_VERBS_H

#include <stdint.h>

#include "wqe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct wqe_context;
struct wqe_pd;
struct wqe_cq;
struct wqe_qp;
struct wqe_srq;

/* Most entries a context's GID table holds. */
#define WQE_MAX_GIDS 4u
/* Most entries a context's P_Key table holds. */
#define WQE_MAX_PKEYS 4u

/* Attributes of a context (one modelled NIC port). */
/*
 * Where the checks knowable at post time (opcode legal on the transport,
 * QP state) are made. Either way a failing request never reaches the wire
 * and the queue is flushed after it.
 */
enum wqe_check_policy {
	/* wqe_post_send() refuses with EINVAL, as kernel rxe does */
	WQE_CHECKS_AT_POST = 0,
	/* wqe_post_send() accepts and writes the WQE, as the mlx5 provider does
	 * for opcodes; the NIC fails it when it processes it, with
	 * LOC_QP_OP_ERR, and moves the QP to ERR */
	WQE_CHECKS_IN_ENGINE = 1,
};
WQE_API const char *wqe_check_policy_str(enum wqe_check_policy p);

/*
 * Who runs a context's NIC.
 */
enum wqe_nic_mode {
	/* The NIC runs only inside the application's calls on the context
	 * (wqe_progress(), wqe_poll_cq(), wqe_context_receive()), in the
	 * calling thread: deterministic, the default. */
	WQE_NIC_CALLER = 0,
	/* A thread of the context's own, started by wqe_open_context() and
	 * stopped by wqe_close_context(), runs the NIC as hardware runs on
	 * its own: it takes doorbells, receives from the link, fires the
	 * retransmit and RNR timers, and sleeps in poll() when there is
	 * nothing to do. A peer's requests are answered, completions written
	 * and events delivered with no call of the application's:
	 * wqe_progress() does nothing, wqe_poll_cq() only reads the CQ. The
	 * context's link must be a UDP link (or a fault injector around one):
	 * the thread waits on its socket. The thread blocks every signal,
	 * so the application's signals (an alarm that ends a blocking wait)
	 * reach the application's threads. */
	WQE_NIC_THREAD = 1,
};
WQE_API const char *wqe_nic_mode_str(enum wqe_nic_mode m);

struct wqe_context_attr {
	enum wqe_format format;          /* WQE format of every send queue */
	enum wqe_check_policy checks;    /* where post-time-knowable checks run */
	uint8_t mac[6];                  /* the port's MAC address */
	uint32_t num_gids;               /* 0 means one GID: ::ffff:192.0.2.1 */
	union wqe_gid gid[WQE_MAX_GIDS]; /* GID table; index 0 is the default */
	uint32_t num_pkeys;              /* 0 means one P_Key: 0xffff */
	uint16_t pkey[WQE_MAX_PKEYS];
	enum wqe_nic_mode nic_mode;      /* who runs the NIC */
	/* The first QPN the context gives. QPNs go up from it as QPs are
	 * created, cyclically as rxe's: a destroyed QP's number is given
	 * again only after the other free numbers of a table that is at
	 * least twice as large as the QPs alive (64 at least), so never
	 * within the next 63 creates. 0 derives the base from the MAC (18 +
	 * (mac[5] & 0x7f) * 256), so that a run is repeatable. At most
	 * 0x7fffff; a value smaller than 18 is taken as 18. */
	uint32_t qpn_base;
};

/*
 * wqe_open_context - open a modelled NIC (the twin of ibv_open_device).
 * @attr: the port's addresses and the WQE format; NULL for all defaults
 *        (mlx5 format, MAC 02:00:00:00:00:01, GID ::ffff:192.0.2.1,
 *        P_Key table {0xffff}).
 * The context's asynchronous event fd is opened with it
 * (wqe_context_async_fd()).
 * The environment variable WQE_FAST_PATH is read here: "0" turns the
 * NIC's fast paths off for this context (every WQE and frame takes the
 * general path: the same frames, completions and counters, more work per
 * packet; for checking a suspicion against the reference path), "1" or
 * unset leaves them on. WQE_NIC_MODE, if set, overrides @attr's
 * nic_mode: "caller" or "thread" (to run a program or a test suite in
 * the other mode unchanged). Read with getenv(): not while another thread
 * changes the environment.
 * Returns the context, or NULL with errno EINVAL (bad format, nic_mode,
 * num_gids or num_pkeys out of range, WQE_FAST_PATH neither "0" nor "1",
 * WQE_NIC_MODE neither "caller" nor "thread"), ENOMEM, or what eventfd()
 * or pthread_create() failed with (EMFILE, ENFILE, EAGAIN).
 */
WQE_API struct wqe_context *wqe_open_context(const struct wqe_context_attr *attr);

/*
 * wqe_close_context - free a context and close its asynchronous event fd
 * (with WQE_NIC_THREAD: after stopping and joining its NIC thread).
 * Every PD, MR, CQ, QP, AH and completion channel made from it must have
 * been destroyed first: returns EBUSY otherwise and changes nothing.
 * Returns 0 on success, EINVAL for NULL. No thread may be in
 * wqe_get_async_event() on it.
 */
WQE_API int wqe_close_context(struct wqe_context *ctx);

/* wqe_query_context - copy the context's attributes to @attr. 0 or EINVAL. */
WQE_API int wqe_query_context(const struct wqe_context *ctx, struct wqe_context_attr *attr);

/* Protection domain. NULL with errno ENOMEM or EINVAL on failure. */
WQE_API struct wqe_pd *wqe_alloc_pd(struct wqe_context *ctx);
/* Frees @pd; EBUSY (nothing freed) while an MR, QP or AH still uses it. */
WQE_API int wqe_dealloc_pd(struct wqe_pd *pd);

/* A registered memory region (the twin of struct ibv_mr). Read-only to the user. */
struct wqe_mr {
	struct wqe_context *context;
	struct wqe_pd *pd;
	void *addr;
	uint64_t length;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
	uint64_t iova;   /* the address keys name its first byte by */
};

/*
 * wqe_reg_mr - register @length bytes at @addr for access through keys.
 * @access: OR of enum wqe_access_flags. As in the IBTA rules (and
 *          ibv_reg_mr), REMOTE_WRITE or REMOTE_ATOMIC require LOCAL_WRITE.
 * The region's I/O virtual address is @addr itself: SGEs and remote
 * addresses name bytes by their address in this process (wqe_reg_mr_iova()
 * gives another).
 * Returns the MR with fresh lkey and rkey, or NULL with errno EINVAL (NULL
 * pd or addr, length 0, addr + length wraps, unknown access bits, the
 * LOCAL_WRITE rule) or ENOMEM (key table full).
 */
WQE_API struct wqe_mr *wqe_reg_mr(struct wqe_pd *pd, void *addr, uint64_t length,
				  unsigned int access);

/*
 * wqe_reg_mr_iova - wqe_reg_mr() with the region's I/O virtual address
 * given (the twin of ibv_reg_mr_iova2()): SGEs with its lkey and remote
 * requests with its rkey name its byte at @addr + i as @iova + i. Inline
 * data is still read at its own address (no key). Errors as wqe_reg_mr(),
 * and EINVAL if @iova + @length wraps.
 */
WQE_API struct wqe_mr *wqe_reg_mr_iova(struct wqe_pd *pd, void *addr, uint64_t length,
				       uint64_t iova, unsigned int access);

/*
 * wqe_dereg_mr - remove @mr from the key table. From this call on, its lkey
 * and rkey resolve to nothing: a WQE or a remote request that names them
 * fails when it is processed. Returns 0 or EINVAL.
 */
WQE_API int wqe_dereg_mr(struct wqe_mr *mr);

/*
 * Completion queue. @cqe is the number of entries it holds (1 to 65536). If
 * the engine must add a completion to a full CQ, the CQ overruns: that
 * completion and every later one for this CQ are lost, every later
 * wqe_poll_cq() returns -EOVERFLOW after the entries already queued have
 * been read, and the first lost completion raises the asynchronous event
 * WQE_EVENT_CQ_ERR (see "Asynchronous events"). Returns NULL with errno
 * EINVAL or ENOMEM on failure.
 *
 * wqe_create_cq(ctx, cqe) is ibv_create_cq(ctx, cqe, NULL, NULL, 0): no
 * completion channel, no cq_context. For those, use wqe_create_cq_ex().
 */
WQE_API struct wqe_cq *wqe_create_cq(struct wqe_context *ctx, int cqe);

/*
 * Completion events: the twins of ibv_create_comp_channel(),
 * ibv_req_notify_cq(), ibv_get_cq_event() and ibv_ack_cq_events().
 *
 * A CQ created on a completion channel (wqe_create_cq_ex()) and armed with
 * wqe_req_notify_cq() puts exactly one event on the channel when the first
 * completion added after the arm matches it: any completion when armed for
 * "next", a solicited one when armed for "solicited" (a receive completion
 * of a message whose last packet had the BTH SE bit set, i.e. a SEND or
 * WRITE_WITH_IMM posted with WQE_SEND_SOLICITED, or any completion whose
 * status is not WQE_WC_SUCCESS, flushes included). The CQ is then
 * disarmed until the next wqe_req_notify_cq(). Completions already in the CQ when it is armed
 * do not fire it: the usual loop arms, then polls the CQ empty, then waits.
 * A completion lost to an overrun fires nothing. wqe_get_cq_event() takes
 * events oldest first; each must be acknowledged (wqe_ack_cq_events())
 * before its CQ can be destroyed.
 *
 * With WQE_NIC_THREAD the NIC thread delivers events on its own: a
 * wqe_get_cq_event() that blocks wakes when the completion is written,
 * with no other call of the application's. (A completion may be polled
 * a moment before its event is on the channel: the NIC writes the CQE,
 * then the event, as hardware writes a CQE before its EQE.)
 * With WQE_NIC_CALLER the NIC only runs when the application lets it: an
 * event can only appear during a call that runs the NIC of the CQ's
 * context (wqe_progress(), wqe_poll_cq() on any of its CQs,
 * wqe_context_receive()).
 * Frames a peer sends (over a loopback or a UDP link) wait until one of
 * those calls takes them. So a wqe_get_cq_event() that blocks with no
 * event pending waits forever unless another thread drives the context.
 * Two ways to use events:
 *  - one thread: poll() the channel's fd together with what brings work
 *    (the UDP link's wqe_link_udp_fd(), with a timeout at
 *    wqe_context_next_deadline()); call wqe_progress() when the link's fd
 *    is readable or the deadline has come; once the channel's fd is
 *    readable, wqe_get_cq_event() returns at once;
 *  - two threads: one drives the context (wqe_progress() or
 *    wqe_poll_cq()), the other blocks in wqe_get_cq_event(). Only
 *    wqe_get_cq_event() and wqe_ack_cq_events() may overlap the driving
 *    thread's calls; the waiting thread's wqe_req_notify_cq() and
 *    wqe_poll_cq() must be serialised with them (a mutex both take).
 */

/*
 * A completion channel (the twin of struct ibv_comp_channel). Read-only
 * to the user.
 * @fd:     readable exactly while an event is pending (an eventfd whose
 *          counter is the number of events pending). poll()/epoll it, or
 *          make it non-blocking with fcntl(fd, F_SETFL, O_NONBLOCK) so that
 *          wqe_get_cq_event() returns -1 with EAGAIN instead of waiting;
 *          never read or close it.
 * @refcnt: CQs created on the channel.
 */
struct wqe_comp_channel {
	struct wqe_context *context;
	int fd;
	int refcnt;
};

/*
 * wqe_create_comp_channel - a completion channel for CQs of @ctx.
 * Returns it, or NULL with errno EINVAL (NULL @ctx), ENOMEM, or what
 * eventfd() failed with (EMFILE, ENFILE). The descriptor is close-on-exec.
 */
WQE_API struct wqe_comp_channel *wqe_create_comp_channel(struct wqe_context *ctx);

/*
 * wqe_destroy_comp_channel - close the channel's fd and free it. Returns
 * 0, EINVAL for NULL, or EBUSY (nothing freed) while a CQ was created on
 * it and not yet destroyed. No thread may be in wqe_get_cq_event() on it.
 */
WQE_API int wqe_destroy_comp_channel(struct wqe_comp_channel *channel);

/*
 * Attributes of wqe_create_cq_ex(): the first fields of struct
 * ibv_cq_init_attr_ex, so that ibv_create_cq(ctx, cqe, cq_context,
 * channel, comp_vector) ports as
 *   wqe_create_cq_ex(ctx, &(struct wqe_cq_init_attr_ex){.cqe = cqe,
 *       .cq_context = cq_context, .channel = channel,
 *       .comp_vector = comp_vector});
 * @cqe:         entries, 1 to 65536 (as wqe_create_cq())
 * @cq_context:  returned with each of the CQ's events by wqe_get_cq_event()
 * @channel:     where the CQ's events go; NULL for none (arming such a CQ
 *               is accepted and its events go nowhere, as in libibverbs)
 * @comp_vector: must be 0: a context has one completion vector
 * @comp_mask:   must be 0: no optional fields yet
 */
struct wqe_cq_init_attr_ex {
	uint32_t cqe;
	void *cq_context;
	struct wqe_comp_channel *channel;
	uint32_t comp_vector;
	uint32_t comp_mask;
};

/*
 * wqe_create_cq_ex - create a CQ, optionally on a completion channel.
 * Unlike ibv_create_cq_ex(), it returns a plain struct wqe_cq (polled with
 * wqe_poll_cq(); there is no extended polling API). Returns NULL with
 * errno EINVAL (NULL @ctx or @attr, @cqe out of range, a channel of
 * another context, comp_vector or comp_mask not 0) or ENOMEM.
 */
WQE_API struct wqe_cq *wqe_create_cq_ex(struct wqe_context *ctx,
					const struct wqe_cq_init_attr_ex *attr);
/* The cq_context @cq was created with (NULL for a NULL @cq or one made by
 * wqe_create_cq()). */
WQE_API void *wqe_cq_context(const struct wqe_cq *cq);

/*
 * Frees @cq. EBUSY (nothing freed) while a QP uses it, or while an event
 * of it that wqe_get_cq_event() or wqe_get_async_event() returned is not
 * yet acknowledged (ibv_destroy_cq() waits for the acknowledgement
 * instead: here the thread that would wait may be the only one that can
 * give it). Its events not yet taken, from its channel and from the
 * context's asynchronous events, are dropped. EINVAL for NULL.
 */
WQE_API int wqe_destroy_cq(struct wqe_cq *cq);

/*
 * wqe_req_notify_cq - arm @cq for one completion event: for the next
 * completion added to it (@solicited_only 0), or for the next solicited
 * one (non-zero), as described under "Completion events" above. Arming for
 * "next" a CQ armed for "solicited" makes it wait for the next completion;
 * arming for "solicited" a CQ armed for "next" leaves it armed for "next"
 * (IBTA C11-31, C11-32). Arming an armed CQ again is no second event.
 * Returns 0, EINVAL for NULL, or ENOMEM (no memory to hold the event the
 * arm may produce; the CQ is left as it was).
 */
WQE_API int wqe_req_notify_cq(struct wqe_cq *cq, int solicited_only);

/*
 * wqe_get_cq_event - take the oldest event of @channel, waiting for one
 * unless the channel's fd was made non-blocking; *@cq gets its CQ and
 * *@cq_context that CQ's cq_context. Returns 0, or -1 with errno EINVAL
 * (NULL argument), EAGAIN (non-blocking and no event pending), EINTR (a
 * signal interrupted the wait) or another error of read() on the fd.
 * Blocking waits forever if nothing drives the NIC meanwhile (see
 * "Completion events" above).
 * Threading: may run in any thread, several at once (each event goes to
 * one of them), while other threads use the context, but not while the
 * channel or one of its CQs is being destroyed.
 */
WQE_API int wqe_get_cq_event(struct wqe_comp_channel *channel, struct wqe_cq **cq,
			     void **cq_context);

/*
 * wqe_ack_cq_events - acknowledge @nevents events of @cq returned by
 * wqe_get_cq_event(); several may be acknowledged at once. Acknowledging
 * more than were returned and not yet acknowledged is a program error: the
 * excess is ignored. Threading: as wqe_get_cq_event().
 */
WQE_API void wqe_ack_cq_events(struct wqe_cq *cq, unsigned int nevents);

/* One work completion (the twin of struct ibv_wc). */
struct wqe_wc {
	uint64_t wr_id;
	enum wqe_wc_status status;
	enum wqe_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	union {
		uint32_t imm_data;         /* network byte order, as in ibv_wc */
		uint32_t invalidated_rkey; /* host order */
	};
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags; /* OR of enum wqe_wc_flags */
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

/*
 * wqe_poll_cq - take up to @num_entries completions, oldest first.
 * Polling first lets the engine make progress (as wqe_progress()).
 * Returns the number written to @wc (0 if none), -EINVAL for bad arguments,
 * -EOVERFLOW once the CQ has overrun and is empty.
 */
WQE_API int wqe_poll_cq(struct wqe_cq *cq, int num_entries, struct wqe_wc *wc);

/*
 * Address vector for RoCEv2 (the twin of struct ibv_ah_attr with its GRH).
 * Unlike ibv_ah_attr, the destination MAC and the UDP source port are given
 * by the caller: the model has no neighbour table.
 */
struct wqe_global_route {
	union wqe_gid dgid;
	uint32_t flow_label;   /* 20 bits */
	uint8_t sgid_index;
	uint8_t hop_limit;     /* IPv4 TTL / IPv6 hop limit; 0 means 64 */
	uint8_t traffic_class; /* IPv4 TOS / IPv6 traffic class */
};

struct wqe_ah_attr {
	struct wqe_global_route grh;
	uint8_t sl;            /* 0..7 */
	uint8_t port_num;      /* must be 1 */
	uint8_t dmac[6];
	uint16_t udp_sport;    /* 0xc000..0xffff; 0 lets the model choose */
};

/*
 * An address handle. Its attributes are public so that the pure model
 * functions can be given one built on the stack.
 * @ah_num: the NIC's number for it (wqe_create_ah() fills it; rxe WQEs
 *          carry only this number, as rxe does on current kernels). 0 on a
 *          handle built by hand: an rxe WQE then carries the whole address
 *          (struct rxe_av), as rxe did on old kernels.
 * @sgid:   the source GID the handle resolves to (the context's GID at
 *          attr.grh.sgid_index; filled by wqe_create_ah()); the rxe address
 *          vector carries it.
 */
struct wqe_ah {
	struct wqe_context *context;
	struct wqe_pd *pd;
	struct wqe_ah_attr attr;
	uint32_t ah_num;
	union wqe_gid sgid;
};

/* NULL with errno EINVAL (bad port, sgid_index, sl, sport) or ENOMEM. */
WQE_API struct wqe_ah *wqe_create_ah(struct wqe_pd *pd, const struct wqe_ah_attr *attr);
WQE_API int wqe_destroy_ah(struct wqe_ah *ah);

/* Queue-pair capacities (the twin of struct ibv_qp_cap). */
struct wqe_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct wqe_qp_init_attr {
	void *qp_context;
	struct wqe_cq *send_cq;
	struct wqe_cq *recv_cq;
	struct wqe_qp_cap cap;
	enum wqe_qp_type qp_type;
	int sq_sig_all;
	/* Receives come from this SRQ (same context; wqe_create_srq()):
	 * the QP has no receive queue of its own, cap.max_recv_wr and
	 * cap.max_recv_sge are ignored and come back 0. NULL: its own. */
	struct wqe_srq *srq;
	/* WQE_QP_CREATE_GSI or 0 (any other bit: EINVAL) */
	uint32_t create_flags;
};

/*
 * WQE_QP_CREATE_GSI: the context's General Services QP, the one the
 * Communication Manager's MADs travel on (IBTA 13.5): a UD QP numbered 1
 * (DETH source QP 1), its Q_Key the well-known 0x80010000 (IBTA 13.5.3.4;
 * wqe_modify_qp() refuses another with EINVAL), taking packets of any
 * P_Key in the port's table, with its own receive queue (an SRQ: EINVAL).
 * One per context: a second is EBUSY until the first is destroyed. It
 * goes RESET, INIT, RTR, RTS as any UD QP. What it sends and takes is
 * the caller's: wqe's CM is software above it, as the kernel's ib_cm is
 * above its MAD layer.
 */
#define WQE_QP_CREATE_GSI (1u << 0)
#define WQE_GSI_QKEY	  0x80010000u

/*
 * wqe_create_qp - create a queue pair in RESET.
 *
 * The send queue is a power-of-two ring of 64-byte blocks sized, as the
 * mlx5 provider sizes it, for max_send_wr WQEs of the largest size the
 * capacities allow. That size is the larger of
 *   (a) the fixed segments of a data-carrying WQE plus max_send_sge 16-byte
 *       data segments: RC/UC 32 B (control + remote address), UD 64 B
 *       (control + datagram), and on RC at least 64 B for an atomic
 *       (control + remote address + atomic + one data segment);
 *   (b) the fixed segments of an inline WQE plus the 4-byte inline header
 *       plus max_inline_data, rounded up to 16: RC/UC 32 B, UD 64 B;
 * rounded up to a whole 64-byte block. The capacities written back to
 * @attr->cap are what that size holds: max_inline_data = size - fixed - 4
 * (so an RC QP asking for 0 to 28 bytes inline with one SGE gets 28: the
 * figure of Kong et al.), max_send_sge = (size - fixed) / 16, and
 * max_send_wr = ring blocks / WQE blocks.
 *
 * Limits: max_send_wr and max_recv_wr 1..32768; an mlx5 WQE is at most
 * 1008 bytes (63 x 16), which bounds max_send_sge and max_inline_data;
 * max_recv_sge 1..64 (rxe: 1..32). The receive queue is sized by
 * wqe_calc_rq() (wqe/model.h): on rxe, max_recv_wr comes back as the
 * ring's slots less the one kept empty. Returns the QP, or NULL with errno
 * EINVAL (bad type, NULL CQ, capacities out of range) or ENOMEM.
 */
WQE_API struct wqe_qp *wqe_create_qp(struct wqe_pd *pd, struct wqe_qp_init_attr *attr);

/* Frees @qp (any state). Its outstanding requests are dropped, with no
 * completion, and so are its asynchronous events not yet taken. Returns 0,
 * EINVAL for NULL, or EBUSY (nothing freed) while an asynchronous event of
 * it that wqe_get_async_event() returned is not yet acknowledged
 * (ibv_destroy_qp() waits instead; see wqe_destroy_cq()). */
WQE_API int wqe_destroy_qp(struct wqe_qp *qp);

/* The QP number of @qp (24 bits, never 0 or 1). */
WQE_API uint32_t wqe_qp_num(const struct wqe_qp *qp);
/* The qp_context @qp was created with (NULL for a NULL @qp). */
WQE_API void *wqe_qp_context(const struct wqe_qp *qp);

/* Attribute mask bits of wqe_modify_qp() (values of enum ibv_qp_attr_mask). */
enum wqe_qp_attr_mask {
	WQE_QP_STATE = 1 << 0,
	WQE_QP_CUR_STATE = 1 << 1,
	WQE_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	WQE_QP_ACCESS_FLAGS = 1 << 3,
	WQE_QP_PKEY_INDEX = 1 << 4,
	WQE_QP_PORT = 1 << 5,
	WQE_QP_QKEY = 1 << 6,
	WQE_QP_AV = 1 << 7,
	WQE_QP_PATH_MTU = 1 << 8,
	WQE_QP_TIMEOUT = 1 << 9,
	WQE_QP_RETRY_CNT = 1 << 10,
	WQE_QP_RNR_RETRY = 1 << 11,
	WQE_QP_RQ_PSN = 1 << 12,
	WQE_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	WQE_QP_ALT_PATH = 1 << 14,
	WQE_QP_MIN_RNR_TIMER = 1 << 15,
	WQE_QP_SQ_PSN = 1 << 16,
	WQE_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	WQE_QP_PATH_MIG_STATE = 1 << 18,
	WQE_QP_CAP = 1 << 19,
	WQE_QP_DEST_QPN = 1 << 20,
};
/* Name of one mask bit; "unknown" for anything that is not exactly one bit. */
WQE_API const char *wqe_qp_attr_mask_str(enum wqe_qp_attr_mask m);

/* QP attributes (the subset of struct ibv_qp_attr the model uses). */
struct wqe_qp_attr {
	enum wqe_qp_state qp_state;
	enum wqe_qp_state cur_qp_state;
	enum wqe_mtu path_mtu;
	uint32_t qkey;
	uint32_t rq_psn;              /* 24 bits */
	uint32_t sq_psn;              /* 24 bits */
	uint32_t dest_qp_num;         /* 24 bits */
	unsigned int qp_access_flags; /* REMOTE_WRITE/READ/ATOMIC the QP allows */
	struct wqe_qp_cap cap;        /* query only */
	struct wqe_ah_attr ah_attr;   /* the peer's address (RC/UC) */
	uint16_t pkey_index;
	uint8_t en_sqd_async_notify;  /* with WQE_QP_EN_SQD_ASYNC_NOTIFY on RTS ->
				       * SQD: non-zero asks for
				       * WQE_EVENT_SQ_DRAINED; query: as last
				       * set (as rxe; mlx4 and mlx5 give 0) */
	uint8_t sq_draining;          /* query only: in SQD with WQEs that had
				       * started still to finish */
	uint8_t max_rd_atomic;        /* outstanding READ/atomic as requester, 0..16 */
	uint8_t max_dest_rd_atomic;   /* as responder, 0..16 */
	uint8_t min_rnr_timer;        /* 0..31, IBTA RNR timer code */
	uint8_t port_num;             /* must be 1 */
	uint8_t timeout;              /* 0..31: 4.096 us x 2^timeout; 0 = infinite */
	uint8_t retry_cnt;            /* 0..7 transport retries; 7 is seven, as the
				       * IBTA has it (rxe retries forever at 7) */
	uint8_t rnr_retry;            /* 0..7; 7 = retry forever */
};

/*
 * wqe_modify_qp - move @qp through its state machine and set attributes.
 *
 * The transitions and the attributes each requires or allows are those of
 * the IBTA (as the kernel's ib_modify_qp_is_ok table has them):
 *   any -> RESET, any -> ERR          nothing required
 *   RESET -> INIT   requires PKEY_INDEX, PORT, and ACCESS_FLAGS (RC/UC) or
 *                   QKEY (UD)
 *   INIT -> INIT    allows PKEY_INDEX, PORT, ACCESS_FLAGS (RC/UC), QKEY (UD)
 *   INIT -> RTR     RC requires AV, PATH_MTU, DEST_QPN, RQ_PSN,
 *                   MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER; UC requires AV,
 *                   PATH_MTU, DEST_QPN, RQ_PSN; UD requires nothing; allows
 *                   ACCESS_FLAGS, PKEY_INDEX (RC/UC), QKEY, PKEY_INDEX (UD)
 *   RTR -> RTS      RC requires SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY,
 *                   MAX_QP_RD_ATOMIC; UC and UD require SQ_PSN; allows
 *                   CUR_STATE, ACCESS_FLAGS, MIN_RNR_TIMER (RC), QKEY (UD)
 *   RTS -> RTS      allows CUR_STATE, ACCESS_FLAGS, MIN_RNR_TIMER (RC),
 *                   QKEY (UD)
 *   RTS -> SQD      allows EN_SQD_ASYNC_NOTIFY. In SQD the WQEs that had
 *                   started are finished (sq_draining until then), no new
 *                   one starts; those posted meanwhile start back in RTS.
 *                   With EN_SQD_ASYNC_NOTIFY in the mask and
 *                   attr->en_sqd_async_notify non-zero, the end of the
 *                   drain raises WQE_EVENT_SQ_DRAINED once (during this
 *                   call if nothing had started; see "Asynchronous
 *                   events").
 *   SQD -> SQD      allows what RTR -> RTS allows plus AV, PATH_MTU (RC/UC),
 *                   TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC,
 *                   MAX_DEST_RD_ATOMIC (RC)
 *   SQD -> RTS      allows CUR_STATE, ACCESS_FLAGS, MIN_RNR_TIMER (RC), QKEY (UD)
 *                   (SQD -> SQD and SQD -> RTS only once the drain is over:
 *                   EINVAL while sq_draining is 1, as rxe)
 *   SQE -> RTS      (UC and UD only) allows CUR_STATE, ACCESS_FLAGS (UC),
 *                   QKEY (UD)
 * PATH_MTU is ignored on UD (a UD message must fit the port MTU, 4096).
 * With WQE_QP_STATE absent, the QP stays in its state and the call is the
 * self-transition.
 *
 * Errors (nothing changes on any of them):
 *   EINVAL  NULL arguments; an illegal transition; a required attribute
 *           missing; an attribute not allowed on this transition; a value
 *           out of range (PSN or QPN over 24 bits, MTU, port, P_Key index,
 *           sgid_index, timeout, retry counts, rd_atomic over 16); CUR_STATE
 *           that is not the QP's state.
 *   ENOMEM  no memory for the responder resources MAX_DEST_RD_ATOMIC asks
 *           for (they are allocated when the QP is given them).
 * Moving to RESET empties both queues with no completions and resets the
 * counters. Moving to ERR completes every outstanding request of both
 * queues with WQE_WC_WR_FLUSH_ERR (as the engine makes progress); it
 * raises no asynchronous event (those are for errors the NIC finds).
 */
WQE_API int wqe_modify_qp(struct wqe_qp *qp, const struct wqe_qp_attr *attr, int attr_mask);

/*
 * wqe_query_qp - read back the QP's attributes and capacities.
 * @attr_mask is accepted for symmetry with ibv_query_qp; every field is
 * filled whatever it says. Returns 0 or EINVAL.
 */
WQE_API int wqe_query_qp(struct wqe_qp *qp, struct wqe_qp_attr *attr, int attr_mask,
			 struct wqe_qp_init_attr *init_attr);

/*
 * Asynchronous events: the twins of ibv_get_async_event(),
 * ibv_ack_async_event() and ibv_event_type_str(), on the context's
 * asynchronous event fd (ctx->async_fd in libibverbs).
 *
 * The NIC raises these, and only these (IBTA vol. 1 11.6.3):
 *   WQE_EVENT_CQ_ERR         a CQ overran: its first lost completion (once
 *                            per CQ; wqe_poll_cq() returns -EOVERFLOW)
 *   WQE_EVENT_QP_FATAL       the NIC moved the QP to ERR and no completion
 *                            tells why: its error completion, or a receive
 *                            completion, was lost to an overrun, or the
 *                            send queue's doorbell record claims more
 *                            than the ring holds
 *   WQE_EVENT_QP_REQ_ERR     RC responder: an invalid request NAKed while
 *                            no receive WQE was in progress (an RDMA
 *                            WRITE, READ or atomic): the QP is in ERR
 *   WQE_EVENT_QP_ACCESS_ERR  RC responder: a remote access error NAKed
 *                            while no receive WQE was in progress
 *   WQE_EVENT_COMM_EST       an RC or UC QP in RTR received its first
 *                            request past the PSN and opcode-sequence
 *                            checks (once per entry into RTR)
 *   WQE_EVENT_SQ_DRAINED     a QP moved RTS -> SQD with the event asked
 *                            for (wqe_modify_qp()) has nothing left that
 *                            had started, its completions written (once)
 * An error the NIC reports in a completion (RETRY_EXC_ERR, REM_ACCESS_ERR
 * at the requester, a local error, a receive WQE completed in error)
 * raises no event, as the IBTA has it; nor does wqe_modify_qp() to ERR.
 * A successful send completion, or a flush completion, lost to an overrun
 * raises only CQ_ERR: the QP stays as it was (the IBTA would move a
 * requester to ERR).
 * Not modelled: PATH_MIG and PATH_MIG_ERR (no alternate path),
 * DEVICE_FATAL (the NIC cannot fail), the port events PORT_ACTIVE,
 * PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER and
 * GID_CHANGE (a context's one port is always active, its tables fixed at
 * wqe_open_context(), no subnet manager), SRQ_ERR, SRQ_LIMIT_REACHED and
 * QP_LAST_WQE_REACHED (no SRQ), WQ_FATAL (no ibv_wq).
 *
 * The NIC runs only inside the application's calls, so an event appears
 * during wqe_progress(), wqe_poll_cq() or wqe_context_receive() on the
 * context, and SQ_DRAINED also during the wqe_modify_qp() that finds the
 * drain already over. Events wait in the order they were raised; the fd
 * is readable exactly while one is waiting. An object has at most one
 * event of each type waiting: another of the same type and object is
 * merged into it (counted, wqe_context_async_stats()), so the queue never
 * grows past its room (made when the QP or CQ is created) and the NIC
 * never allocates to deliver an event. Each event returned must be
 * acknowledged (wqe_ack_async_event()) before its QP or CQ can be
 * destroyed; its events not yet taken go with it.
 */
enum wqe_event_type {
	WQE_EVENT_CQ_ERR = 0,
	WQE_EVENT_QP_FATAL = 1,
	WQE_EVENT_QP_REQ_ERR = 2,
	WQE_EVENT_QP_ACCESS_ERR = 3,
	WQE_EVENT_COMM_EST = 4,
	WQE_EVENT_SQ_DRAINED = 5,
	WQE_EVENT_SRQ_LIMIT_REACHED = 15, /* @element.srq fell below its limit */
	WQE_EVENT_QP_LAST_WQE_REACHED = 16, /* a QP of an SRQ entered ERR */
};
/* "CQ_ERR", "QP_FATAL", ...; "unknown" for any other value. */
WQE_API const char *wqe_event_type_str(enum wqe_event_type t);

/* One asynchronous event (the twin of struct ibv_async_event): @element.cq
 * for WQE_EVENT_CQ_ERR, @element.srq for WQE_EVENT_SRQ_LIMIT_REACHED,
 * @element.qp for the others. */
struct wqe_async_event {
	union {
		struct wqe_cq *cq;
		struct wqe_qp *qp;
		struct wqe_srq *srq;
		int port_num;
	} element;
	enum wqe_event_type event_type;
};

/*
 * wqe_context_async_fd - @ctx's asynchronous event fd (ctx->async_fd):
 * readable exactly while an event is waiting (an eventfd whose counter is
 * their number). poll()/epoll it, or make it non-blocking with
 * fcntl(fd, F_SETFL, O_NONBLOCK) so that wqe_get_async_event() returns -1
 * with EAGAIN instead of waiting; never read or close it. The descriptor
 * is close-on-exec. Returns it, or -1 with errno EINVAL for NULL.
 */
WQE_API int wqe_context_async_fd(const struct wqe_context *ctx);

/*
 * wqe_get_async_event - take @ctx's oldest asynchronous event into
 * *@event, waiting for one unless the fd was made non-blocking. Returns 0,
 * or -1 with errno EINVAL (NULL argument), EAGAIN (non-blocking and none
 * waiting), EINTR (a signal interrupted the wait) or another error of
 * read() on the fd. Blocking waits forever if nothing drives the NIC
 * meanwhile (see "Completion events" above for the two ways to wait).
 * Threading: may run in any thread, several at once (each event goes to
 * one of them), while other threads use the context, but not while the
 * context, or the QP or CQ of an event it may return, is being destroyed.
 */
WQE_API int wqe_get_async_event(struct wqe_context *ctx, struct wqe_async_event *event);

/*
 * wqe_ack_async_event - acknowledge one event wqe_get_async_event()
 * returned. Acknowledging more events of a QP or CQ than were returned is
 * a program error: the excess is ignored, as is NULL or an unknown type.
 * Threading: as wqe_get_async_event().
 */
WQE_API void wqe_ack_async_event(struct wqe_async_event *event);

/* Counters of a context's asynchronous events. */
struct wqe_async_stats {
	uint64_t raised;  /* events the NIC raised */
	uint64_t merged;  /* ... merged into a waiting one of the same type
			   * and object (not queued again) */
	uint64_t dropped; /* queued, not taken, gone with their QP or CQ */
	uint64_t taken;   /* returned by wqe_get_async_event() */
};

/*
 * wqe_context_async_stats - copy @ctx's counters into *@s; raised -
 * merged - dropped - taken events are waiting. 0, or EINVAL for NULL.
 * Threading: as wqe_get_async_event().
 */
WQE_API int wqe_context_async_stats(struct wqe_context *ctx, struct wqe_async_stats *s);

/* Work Request opcodes (values of enum ibv_wr_opcode). */
enum wqe_wr_opcode {
	WQE_WR_RDMA_WRITE = 0,
	WQE_WR_RDMA_WRITE_WITH_IMM = 1,
	WQE_WR_SEND = 2,
	WQE_WR_SEND_WITH_IMM = 3,
	WQE_WR_RDMA_READ = 4,
	WQE_WR_ATOMIC_CMP_AND_SWP = 5,
	WQE_WR_ATOMIC_FETCH_AND_ADD = 6,
	WQE_WR_SEND_WITH_INV = 9,
};
WQE_API const char *wqe_wr_opcode_str(enum wqe_wr_opcode op);

/* Send flags (values of enum ibv_send_flags). */
enum wqe_send_flags {
	WQE_SEND_FENCE = 1 << 0,
	WQE_SEND_SIGNALED = 1 << 1,
	WQE_SEND_SOLICITED = 1 << 2,
	WQE_SEND_INLINE = 1 << 3,
};
/* Name of one flag bit; "unknown" for anything that is not exactly one flag. */
WQE_API const char *wqe_send_flags_str(enum wqe_send_flags f);

/* One scatter/gather entry (the twin of struct ibv_sge). */
struct wqe_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/*
 * The software Work Request (the twin of struct ibv_send_wr).
 * imm_data is in network byte order, as in ibv_send_wr: htobe32(0x01020304)
 * puts bytes 01 02 03 04 in the WQE and on the wire. invalidate_rkey is in
 * host order.
 */
struct wqe_send_wr {
	uint64_t wr_id;
	struct wqe_send_wr *next;
	struct wqe_sge *sg_list;
	int num_sge;
	enum wqe_wr_opcode opcode;
	unsigned int send_flags;
	union {
		uint32_t imm_data;
		uint32_t invalidate_rkey;
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct wqe_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
};

/*
 * wqe_post_send - validate and post a chain of send Work Requests.
 *
 * Each request is checked, before anything of it touches the ring, for
 * everything knowable from the request and the QP alone, in this order:
 *   QP state: RESET, INIT or RTR                          EINVAL
 *             (SQD, SQE and ERR accept posts; in ERR the requests are
 *             completed with WQE_WC_WR_FLUSH_ERR)
 *   opcode unknown, or illegal on the transport           EINVAL
 *             (UD: SEND and SEND_WITH_IMM only; UC: no READ, no atomics,
 *             no SEND_WITH_INV)
 *   num_sge < 0 or > max_send_sge, or sg_list NULL with num_sge > 0  EINVAL
 *   total length over 2^31                                EINVAL
 *   INLINE on a READ or atomic                            EINVAL
 *   INLINE with total length over max_inline_data         EINVAL
 *   atomic: num_sge != 1, length != 8, remote_addr not 8-byte aligned EINVAL
 *   UD: NULL ah, ah of another PD, remote_qpn over 24 bits EINVAL
 *   unknown send_flags bits                               EINVAL
 *   not enough ring space or max_send_wr outstanding      ENOMEM
 * lkeys are not checked here: a key is judged when the WQE is processed.
 *
 * On the first failing request, *@bad_wr points at it and the call returns
 * the errno above; the requests before it are posted (and the doorbell is
 * rung for them); nothing of it or of the requests after it reaches the ring.
 * On success *@bad_wr is left alone and 0 is returned. EINVAL (with
 * *@bad_wr untouched) for a NULL @qp, @wr or @bad_wr.
 *
 * Inline data is copied into the WQE before the call returns: the source
 * buffer may be reused at once, and no lkey is ever checked for it.
 *
 * The doorbell: after writing the WQEs, one release store publishes the
 * new producer counter in the doorbell record, then the first 8 bytes of
 * the last WQE's control segment are written to the doorbell register.
 */
WQE_API int wqe_post_send(struct wqe_qp *qp, struct wqe_send_wr *wr, struct wqe_send_wr **bad_wr);

/* A receive Work Request (the twin of struct ibv_recv_wr). */
struct wqe_recv_wr {
	uint64_t wr_id;
	struct wqe_recv_wr *next;
	struct wqe_sge *sg_list;
	int num_sge;
};

/*
 * wqe_post_recv - post a chain of receive Work Requests.
 * Checks, in order: a QP of an SRQ                    EINVAL
 *                   QP state RESET                     EINVAL
 *                   num_sge < 0 or > max_recv_sge     EINVAL
 *                   sg_list NULL with num_sge > 0     EINVAL
 *                   total length over 2^31            EINVAL
 *                   receive queue full                ENOMEM
 * Same *@bad_wr discipline as wqe_post_send(). In ERR the requests are
 * accepted and flushed.
 */
WQE_API int wqe_post_recv(struct wqe_qp *qp, struct wqe_recv_wr *wr, struct wqe_recv_wr **bad_wr);

/*
 * Shared receive queues (IBTA 10.2.9.5; the twins of ibv_create_srq() and
 * the calls after it). The QPs created with @srq in their init attributes
 * take their receive WQEs from it, whichever needs one next; a WQE taken
 * is that QP's until its completion (on the QP's recv_cq, with the QP's
 * number). The NIC's side is the format's (engine: struct srqc):
 *   mlx5: a ring of roundup_pow_of_two(max_wr + 1) slots of
 *         max(32, roundup_pow_of_two(16 + 16 x max_sge)) bytes, each the
 *         16-byte next segment and the data segments, linked in a free
 *         list as rdma-core's mlx5 provider links them (a slot comes back
 *         to the list when its completion is polled);
 *   rxe:  a ring as a QP's receive queue (wqe_calc_rq()); the NIC copies
 *         the WQE out when it takes it, and the completion carries wr_id.
 * In both max_wr comes back as the slots less one.
 * Limits: max_wr 1..32768, max_sge 1..WQE_DESC_MAX_SGE, srq_limit <=
 * max_wr.
 */
struct wqe_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit; /* armed: fewer WQEs than this raises
			     * WQE_EVENT_SRQ_LIMIT_REACHED once; 0 is not armed */
};

struct wqe_srq_init_attr {
	void *srq_context;
	struct wqe_srq_attr attr;
};

/* Attribute mask bits of wqe_modify_srq() (enum ibv_srq_attr_mask). */
enum wqe_srq_attr_mask {
	WQE_SRQ_MAX_WR = 1 << 0,
	WQE_SRQ_LIMIT = 1 << 1,
};

/* Creates an SRQ in @pd; @attr->attr gets max_wr and max_sge as made.
 * NULL with errno EINVAL (NULL argument, a limit out of range) or
 * ENOMEM. Threading: a command (any thread). */
WQE_API struct wqe_srq *wqe_create_srq(struct wqe_pd *pd, struct wqe_srq_init_attr *attr);
/* WQE_SRQ_LIMIT arms the limit (0 disarms; more than max_wr is EINVAL).
 * WQE_SRQ_MAX_WR (resizing) is EINVAL, as mlx5 has it. Returns 0 or
 * EINVAL, nothing changed on error. A command. */
WQE_API int wqe_modify_srq(struct wqe_srq *srq, struct wqe_srq_attr *attr, int attr_mask);
/* max_wr, max_sge, and the limit still armed (0 once it fired). 0 or
 * EINVAL. A command. */
WQE_API int wqe_query_srq(struct wqe_srq *srq, struct wqe_srq_attr *attr);
/* Frees @srq: 0, EINVAL for NULL, EBUSY (nothing freed) while a QP uses
 * it or an SRQ_LIMIT_REACHED event of it is taken and not acknowledged.
 * Its completions still in a CQ are polled with their wr_id only until
 * then; do not poll a CQ holding them while this runs. */
WQE_API int wqe_destroy_srq(struct wqe_srq *srq);
/* The srq_context @srq was created with (NULL for NULL). */
WQE_API void *wqe_srq_context(const struct wqe_srq *srq);
/*
 * wqe_post_srq_recv - post a chain of receive Work Requests to @srq.
 * Checks: num_sge < 0 or > max_sge, sg_list NULL with num_sge > 0, total
 * length over 2^31: EINVAL; the SRQ full: ENOMEM. Same *@bad_wr
 * discipline as wqe_post_send(). Threading: any thread; it locks the SRQ
 * against wqe_poll_cq(), which gives mlx5 slots back.
 */
WQE_API int wqe_post_srq_recv(struct wqe_srq *srq, struct wqe_recv_wr *wr,
			      struct wqe_recv_wr **bad_wr);

#ifdef __cplusplus
}
#endif

#endif /* WQE_VERBS_H */
