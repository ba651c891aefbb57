/* SPDX-License-Identifier: MIT */
/*
 * device.h - the device interface: all that the driver (src/verbs) knows
 * of the modelled NIC, and the bottom of the engine's own headers.
 *
 * It is what a driver has of its hardware and firmware:
 *   - commands that create, change and destroy table entries (QP context,
 *     address handles, memory keys), query statistics and attach a port,
 *     a clock and a trace, each bracketed by nic_cmd_begin() and
 *     nic_cmd_end();
 *   - the doorbell register (nic_doorbell(), nic_rq_doorbell()) beside the
 *     doorbell records in host memory (ring/ring.h);
 *   - the CQ rings the NIC writes completions into (tables/qpc.h, struct
 *     cqc) and the asynchronous event queue it reports to (nic_set_event());
 *   - in NIC_CALLER mode, nic_progress(), which stands for the NIC's clock.
 *
 * The QP context (struct qpc) and CQ context (struct cqc) live in the
 * driver's memory, as a command's mailbox does: the driver fills a QP
 * context before nic_qp_create() and changes it only inside a command
 * bracket; the NIC reads it under the same lock.
 *
 * Threading. A NIC is opened in one of two modes:
 *   - NIC_CALLER: the NIC runs only inside nic_progress() and
 *     nic_receive(), in the caller's thread (deterministic: scenarios,
 *     the golden model, tests);
 *   - NIC_THREAD: a thread of the NIC's own, started by nic_create() and
 *     stopped by nic_destroy(), takes doorbells, receives from the link
 *     (its file descriptor, struct nic_link @fd) and fires timers; it
 *     sleeps in poll() when there is nothing to do. nic_progress() does
 *     nothing then.
 * In both modes the driver and the NIC share only the rings, their
 * doorbell records and consumer counters (release/acquire, ring/ring.h),
 * the CQ rings (release/acquire, tables/qpc.h), the doorbell register
 * (nic_doorbell(): a lock-free queue), and the callbacks the NIC makes
 * (events, completion-channel events), which lock what they touch.
 * Everything else is behind the command lock: the NIC thread holds it
 * while it works, a command holds it from nic_cmd_begin() to nic_cmd_end().
 * The event and trace callbacks run in the NIC's thread with the command
 * lock held: they must not call a command.
 */
#ifndef WQE_ENGINE_DEVICE_H
#define WQE_ENGINE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tables/qpc.h"
#include "wqe/trace.h"
#include "wqe/types.h"

struct nic;
struct wqe_pcap;

/* The port's addresses, as the NIC knows them. */
struct nic_port {
	uint8_t mac[6];
	uint32_t num_gids;
	union wqe_gid gid[4];
	uint32_t num_pkeys;
	uint16_t pkey[4];
};

/* Who runs the NIC (see the top of this file). */
enum nic_mode {
	NIC_CALLER = 0,
	NIC_THREAD = 1,
};

struct nic_config {
	enum wqe_format format;
	struct nic_port port;
	enum nic_mode mode;
	/* The requester's and the receive path's fast paths off: every WQE
	 * and frame takes the general path (tests compare the two ways). */
	bool no_fast_path;
	uint32_t qpn_base; /* 0: from the MAC */
};

/*
 * The asynchronous events the NIC raises (IBTA vol. 1 11.6.3, affiliated
 * asynchronous events and errors), in its own terms: a QP by number, a CQ
 * by its context. The values are libibverbs' (enum ibv_event_type); the
 * verbs layer maps them to its objects and queues them (src/verbs/async.c).
 */
enum nic_event {
	NIC_EV_CQ_ERR = 0,      /* a CQ overran (its first lost completion) */
	NIC_EV_QP_FATAL = 1,    /* the QP went to ERR and no completion says why */
	NIC_EV_QP_REQ_ERR = 2,  /* responder: invalid request, no receive WQE */
	NIC_EV_QP_ACCESS_ERR = 3, /* responder: access violation, no receive WQE */
	NIC_EV_COMM_EST = 4,    /* RC/UC in RTR: the first request in sequence */
	NIC_EV_SQ_DRAINED = 5,  /* SQD asked with notification: drained */
	NIC_EV_SRQ_LIMIT_REACHED = 15, /* an SRQ fell below its armed limit */
	NIC_EV_QP_LAST_WQE_REACHED = 16, /* a QP of an SRQ went to ERR: it
					  * takes no more of its WQEs */
};

/* Where the NIC reports them: called inside the engine (progress, a frame
 * received, a modify; the NIC thread in NIC_THREAD mode), once per event;
 * it must not allocate, fail or call a command. @qpn for QP events (the
 * SRQ's number for NIC_EV_SRQ_LIMIT_REACHED), @cq for NIC_EV_CQ_ERR. */
typedef void (*nic_event_fn)(void *arg, enum nic_event ev, uint32_t qpn, struct cqc *cq);

/* Why a received frame was dropped before any QP saw it. */
enum rx_drop {
	RX_DROP_NOT_ROCE = 0,  /* not a RoCEv2 frame at all */
	RX_DROP_MALFORMED,     /* RoCEv2 but malformed (lengths, opcode, pad) */
	RX_DROP_BAD_ICRC,
	RX_DROP_BAD_CSUM,      /* IPv4 header or UDP checksum wrong */
	RX_DROP_BAD_TVER,      /* BTH transport version not 0 */
	RX_DROP_NOT_FOR_US,    /* destination MAC/IP is not this port's */
	RX_DROP_UNKNOWN_QP,    /* no such QP (or QPN 0/1) */
	RX_DROP_QP_STATE,      /* QP not in RTR, RTS, SQD or SQE */
	RX_DROP_TRANSPORT,     /* opcode of another transport than the QP's */
	RX_DROP_PKEY,          /* P_Key does not match the QP's */
	RX_DROP_QKEY,          /* UD Q_Key does not match the QP's */
	RX_DROP_SRC,           /* RC/UC: source address is not the QP's peer */
	RX_DROP_COUNT
};
const char *rx_drop_str(enum rx_drop d);

/* NAKs by code (AETH syndromes 0x60-0x63). */
enum resp_nak {
	RESP_NAK_PSN_SEQ = 0,   /* 0x60 PSN sequence error */
	RESP_NAK_INV_REQ,       /* 0x61 invalid request */
	RESP_NAK_REM_ACCESS,    /* 0x62 remote access error */
	RESP_NAK_REM_OP,        /* 0x63 remote operational error */
	RESP_NAK_COUNT
};
const char *resp_nak_str(enum resp_nak k);

/* Why a request packet was dropped without any answer. */
enum resp_drop {
	RESP_DROP_OUT_OF_SEQ = 0, /* RC: PSN ahead and the PSN NAK was already sent */
	RESP_DROP_DUP_UNKNOWN,    /* RC: duplicate READ/atomic matching no resource */
	RESP_DROP_UC_GAP,         /* UC: PSN gap, message dropped until FIRST/ONLY */
	RESP_DROP_OP_SEQ,         /* UC: MIDDLE/LAST with no message open */
	RESP_DROP_NO_WQE,         /* UC/UD: receive queue empty */
	RESP_DROP_LENGTH,         /* UC/UD: payload length against MTU or RETH */
	RESP_DROP_ACCESS,         /* UC: WRITE not enabled, or rkey violation */
	RESP_DROP_COUNT
};
const char *resp_drop_str(enum resp_drop d);

/* Per-QP responder counters. The ones every request packet of an RDMA
 * WRITE or SEND moves come last, next to the rest of the responder's
 * per-packet state (struct eng_resp, engine/resp_state.h). */
struct resp_stats {
	uint64_t naks[RESP_NAK_COUNT];
	uint64_t rnr_naks;
	uint64_t read_responses;     /* READ response packets */
	uint64_t atomic_acks;
	uint64_t duplicates;         /* RC packets behind the expected PSN */
	uint64_t out_of_seq;         /* RC packets ahead of it (all dropped) */
	uint64_t bytes_read;         /* bytes sent in READ responses */
	uint64_t atomics;            /* atomics executed (replays excluded) */
	uint64_t recv_cqes;          /* receive completions written */
	uint64_t drops[RESP_DROP_COUNT];
	/* per packet */
	uint64_t requests;           /* request packets handed to the responder */
	uint64_t messages;           /* messages completed (MSN increments) */
	uint64_t bytes_placed;       /* bytes written to host memory (UD GRH included) */
	uint64_t acks;               /* ACKNOWLEDGE packets with an ACK syndrome */
};

/* Per-QP requester counters besides those every message moves. */
struct nic_qp_stats {
	uint64_t inline_wqes;
	uint64_t fence_stalls;
	uint64_t rd_atomic_stalls;
	uint64_t wqe_errors;
	uint64_t flushed;
	uint64_t retransmits;       /* retry sequences started */
	uint64_t timeouts;
	uint64_t rnr_naks_received;
	uint64_t seq_naks_received;
};

/* The requester's counters moved by every message sent (and its ACK). */
struct nic_msg_stats {
	uint64_t rx_responses;      /* response packets past the receive filters */
	uint64_t wqes_fetched;
	uint64_t wqe_fetch_blocks;  /* 64-byte blocks read from the ring */
	uint64_t payload_reads;     /* host-memory reads for payload (one per SGE) */
	uint64_t payload_bytes;
	uint64_t packets_sent;
	uint64_t bytes_sent;
};

/* What the QP statistics command reports (nic_query_qp()). */
struct nic_qp_counters {
	struct nic_qp_stats req;
	struct nic_msg_stats msg;
	uint64_t rx_requests;       /* request packets past the receive filters */
	struct resp_stats resp;
};

/* What the port statistics command reports (nic_query_port()). */
struct nic_port_counters {
	uint64_t tx_frames;
	uint64_t rx_frames;
	uint64_t rx_accepted;       /* past the receive filters */
	uint64_t rx_drops[RX_DROP_COUNT];
	uint64_t progress_calls;
};

/*
 * The link a port is attached to, as the NIC drives it (src/link's ports).
 * @xmit sends one frame. Optional (both or neither): @tx_buf, a buffer of
 * at least NIC_FRAME_MAX bytes, NIC_FRAME_SHIFT past a 16-byte boundary, to
 * build the next frame in (NULL: none now), and @xmit_buf, sending a frame
 * built there without a copy. @rx_peek: the next frame waiting, in place
 * (NULL if none); @rx_done gives it back once processed. Optional: @flush
 * sends what the link holds (a UDP link's batch), in order; @rx_arm, see
 * there. @fd: readable
 * when a frame waits (the NIC thread polls it), or -1 when the link has
 * none (only a NIC_CALLER NIC takes such a link).
 */
struct nic_link {
	void (*xmit)(void *arg, const uint8_t *frame, size_t len);
	uint8_t *(*tx_buf)(void *arg);
	void (*xmit_buf)(void *arg, uint8_t *buf, size_t len);
	const uint8_t *(*rx_peek)(void *arg, size_t *len);
	void (*rx_done)(void *arg);
	void (*flush)(void *arg);
	/* Optional: the NIC thread is about to sleep on @fd: false if a
	 * frame already waits (it does not sleep); true, and @fd will be
	 * readable once one arrives. NULL: @fd is readable whenever a frame
	 * waits (a socket). */
	bool (*rx_arm)(void *arg);
	void *arg;
	int fd;
};

/*
 * A NIC of @cfg's format, port and mode. NULL on ENOMEM, or with errno set
 * by eventfd() or pthread_create() (NIC_THREAD).
 * Threading: not a command; nothing else of this NIC exists yet.
 */
struct nic *nic_create(const struct nic_config *cfg);
/* Stops the NIC thread (NIC_THREAD) and frees the NIC; every QP is
 * destroyed already. */
void nic_destroy(struct nic *n);
enum nic_mode nic_mode_of(const struct nic *n);

/*
 * The command bracket: every call below that is marked "command" runs
 * between nic_cmd_begin() and nic_cmd_end() of the same thread, as do the
 * driver's reads and writes of a QP context (struct qpc) after
 * nic_qp_create(). Commands of different threads are serialised with
 * each other and with the NIC's own work. Not recursive.
 */
void nic_cmd_begin(struct nic *n);
void nic_cmd_end(struct nic *n);

/* Command. A new address handle's number (>= 1), or 0 when the table
 * cannot grow. */
uint32_t nic_ah_create(struct nic *n, uint32_t pd, const struct qpc_addr *addr);
/* Command. */
void nic_ah_destroy(struct nic *n, uint32_t ah_num);

/* Command. A memory key (lkey = rkey) for @length bytes at @host in PD
 * @pd with @access, or 0 when the key table is full. */
uint32_t nic_key_add(struct nic *n, uint8_t *host, uint64_t iova, uint64_t length, uint32_t pd,
		     uint32_t access);
/* Command. */
void nic_key_remove(struct nic *n, uint32_t key);

/* Command. @s's ring set (its doorbell record at 0 WQEs; mlx5: the slots
 * linked by software from slot 0) and @s->srqn chosen by the driver: the
 * NIC takes from it from slot 0 on. */
void nic_srq_create(struct nic *n, struct srqc *s);
/* Command. No QP is attached to @s any more. */
void nic_srq_destroy(struct nic *n, struct srqc *s);
/* Command. Arms @s's limit (0 disarms): see struct srqc. */
void nic_srq_arm(struct nic *n, struct srqc *s, uint32_t limit);
/* Command. WQEs posted to @s and not yet taken by a QP. */
uint32_t nic_srq_count(const struct srqc *s);

/* Command. @q's rings and CQs set (@q->srq instead of @q->rq for a QP
 * of an SRQ): the NIC's state for it made, its QP number assigned
 * (q->qpn), state RESET. 0 or ENOMEM. */
int nic_qp_create(struct nic *n, struct qpc *q);
/* Command. Its completions already in a CQ stay there. */
void nic_qp_destroy(struct nic *n, struct qpc *q);
/* Command. Makes room for what a modify is about to give @q (responder
 * resources for @max_dest_rd_atomic): call before changing the QP context;
 * ENOMEM with nothing changed. */
int nic_qp_reserve(struct nic *n, struct qpc *q, uint32_t max_dest_rd_atomic);
/* Command. Applies a modify already validated by the state machine:
 * called after every modify, state change or not (its attributes may
 * have changed). */
void nic_qp_set_state(struct nic *n, struct qpc *q, enum wqe_qp_state s);
/* Command. RTS -> SQD with the drain's notification asked for
 * (EN_SQD_ASYNC_NOTIFY): call right after nic_qp_set_state().
 * NIC_EV_SQ_DRAINED is raised once nothing that had started is left, now
 * if that is already so. */
void nic_qp_sqd_notify(struct nic *n, struct qpc *q);
/* Command (a query). In SQD with WQEs that had started still to finish
 * (sent or acknowledged): the send queue is draining. */
bool nic_qp_sq_draining(const struct qpc *q);

/* Command. Where asynchronous events go (NULL: nowhere). */
void nic_set_event(struct nic *n, nic_event_fn fn, void *arg);
/* Command. Attaches the port to @l (copied; NULL: none), after sending
 * what the old link holds. EINVAL for a NIC_THREAD NIC and a link with no
 * fd; 0 otherwise. */
int nic_set_link(struct nic *n, const struct nic_link *l);
/* Command. The capture tap (NULL: none); returns the one it replaces. */
struct wqe_pcap *nic_set_tap(struct nic *n, struct wqe_pcap *tap);
/* Command. The NIC's clock (ns; NULL: CLOCK_MONOTONIC). In NIC_THREAD
 * mode @now is called from the NIC thread. */
void nic_set_clock(struct nic *n, uint64_t (*now)(void *arg), void *arg);
/* Command. Every engine event to @fn (NULL: none). A trace turns the fast
 * paths off while it is set (they report no events). */
void nic_set_trace(struct nic *n, wqe_trace_fn fn, void *arg);
/* Commands: the statistics queries. */
void nic_query_port(const struct nic *n, struct nic_port_counters *c);
void nic_query_qp(const struct qpc *q, struct nic_qp_counters *c);
/* Command. The earliest armed timer: 1 and *@ns, or 0 if none. */
int nic_next_deadline(const struct nic *n, uint64_t *ns);
/* Command. One frame handed in as if it had arrived at the port. */
void nic_receive(struct nic *n, const uint8_t *frame, size_t len);

/* NIC_CALLER: lets the NIC run (drains doorbells, takes frames, fires
 * timers, processes work); returns the work done. NIC_THREAD: 0, nothing
 * done (the NIC thread does it). Not a command; in NIC_CALLER mode not
 * concurrent with any other call on @n. */
int nic_progress(struct nic *n);

/*
 * NIC_THREAD: one pass of the NIC in the caller's thread, as the NIC
 * thread makes them, if the NIC thread is asleep in poll() and the NIC
 * free (no command waiting: it never waits); returns the work done (0 if
 * it did not run). For a caller that found nothing and would spin: a
 * sleeping NIC thread need not be woken and scheduled for the caller's
 * completions (the kernel's rxe does the work in the poster's own system
 * call); an awake one is left to work (taking its passes makes the
 * command lock bounce between cores). The event and trace callbacks then run in
 * the caller's thread, the command lock held, as in the NIC thread's.
 * NIC_CALLER: 0, nothing done. Not a command.
 */
int nic_assist(struct nic *n);

/*
 * The doorbell register write of one post call (8 bytes, the format's
 * value: mlx5's first 8 bytes of the control segment, rxe's QP number and
 * producer index), after the doorbell record's release store. Not a
 * command: any thread, lock-free in NIC_THREAD mode (it wakes a sleeping
 * NIC thread).
 */
void nic_doorbell(struct nic *n, const uint8_t val[8]);
/*
 * Receive WQEs were posted to @q (after the receive doorbell record's
 * release store): a QP in ERR flushes them. Not a command, any thread.
 */
void nic_rq_doorbell(struct nic *n, struct qpc *q);

#endif
