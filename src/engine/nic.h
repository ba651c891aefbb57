/* SPDX-License-Identifier: MIT */
/*
 * nic.h - the modelled NIC's state, private to the engine: the NIC, and
 * per QP the requester's and completer's state next to the responder's.
 * The driver sees none of it (engine/device.h is its interface); the
 * engine's stages reach the NIC's services through engine/services.h.
 * The engine includes wqe/desc.h and wqe/types.h, never wqe/verbs.h: it
 * cannot see a software Work Request.
 */
#ifndef WQE_ENGINE_NIC_H
#define WQE_ENGINE_NIC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ring/ring.h"
#include "tables/keys.h"
#include "tables/qpc.h"
#include "wqe/desc.h"
#include "wqe/packetize.h"
#include "wqe/trace.h"
#include "wqe/wire.h"
#include "engine/device.h"
#include "engine/resp_state.h"
#include "wqe/types.h"

/* An RC WQE whose packets have left and that waits for its response:
 * 16 bytes, four to a cache line. An RC message is at most 2^31 bytes
 * (requester.c), so at most 2^23 packets at the smallest MTU. */
struct inflight {
	uint32_t start;          /* first block */
	uint32_t len;            /* message bytes */
	uint32_t first_psn : 24;
	uint32_t nblocks : 8;    /* at most WQE_MAX_BLOCKS */
	uint32_t npsn : 24;
	uint32_t op : 7;         /* enum wqe_op */
	uint32_t signaled : 1;
};

/*
 * The requester's state for one QP, the completer's included. What the
 * doorbell and every progress pass over the QP read comes first (with
 * struct eng_qp's @doorbell, one cache line); then the rest of what a
 * message sent and its ACK touch; then what only retries and messages cut
 * short reach (see struct eng_qp).
 */
struct eng_req {
	uint32_t fetch;          /* block counter of the next WQE to fetch */
	uint32_t psn;            /* next PSN to send */
	uint32_t comp_psn;       /* first PSN not yet acknowledged */
	uint32_t fl_head, fl_tail; /* in-flight table (struct eng_qp) */
	uint32_t nflight;        /* its capacity: one per ring block (a power of two) */
	uint16_t ip_id;
	bool stalled;            /* the current stall was already counted */
	bool tx_open;            /* a WQE was left with packets unsent (tx_*) */
	bool resume;             /* the next WQE sent resumes at resume_psn */
	bool retry_started;      /* a go-back-N since the last forward progress
				  * (rxe's started_retry): later signs of the
				  * same loss start no other, only the timer */
	uint8_t retry_left;      /* transport retries left (retry_cnt) */
	uint8_t rnr_left;        /* RNR retries left (7 = forever) */
	uint64_t retrans_at;     /* retransmit deadline (ns), 0 = not armed */
	uint64_t rnr_at;         /* RNR wait deadline (ns), 0 = not waiting */
	/* per message */
	uint32_t rd_atomic;      /* outstanding READ and atomic requests */
	/* The WQE a pass left with packets unsent (REQ_PKT_BUDGET): the next
	 * pass goes on with it, from tx_psn, before anything else. */
	uint32_t tx_psn;         /* the next PSN to send */
	struct nic_msg_stats msg;
	/* retries and messages cut short only */
	uint32_t tx_start;       /* the open WQE's first block */
	uint32_t tx_first_psn;
	uint32_t resume_first;   /* first PSN of the WQE that resumes */
	uint32_t resume_psn;
	/* SQD: the block counter the drain stops at. The WQEs before it had
	 * started when the QP left RTS; they are finished (a message cut
	 * short sent to its end, retries included), no later one starts. */
	uint32_t sqd_end;
	/* SQD entered with the drain to be notified (nic_qp_sqd_notify()):
	 * NIC_EV_SQ_DRAINED is still to be raised. */
	bool sqd_notify;
};

/*
 * The engine's state for one QP, laid out for the cache lines a message
 * touches (bench_scale, many QPs): a request packet of an RDMA WRITE or
 * SEND touches the responder's per-packet tail and rx_requests, 184 bytes
 * from a multiple of 64 into the structure; a message sent, its ACK and
 * the progress passes over the QP touch @doorbell to the end of req.msg,
 * the next 128 bytes, and one in-flight entry. The structure itself is
 * left at malloc's 16-byte alignment on purpose (see eng_alloc() in
 * commands.c), so these are three and two lines at best.
 */
struct eng_qp {
	struct eng_resp resp;
	uint64_t rx_requests;   /* request packets past the receive filters */
	uint64_t reserved;      /* @doorbell starts the 64 bytes after resp's three */
	bool doorbell;          /* the doorbell register named this QP */
	bool active;            /* on the NIC's list of QPs with work */
	bool timed;             /* on the NIC's timer list, at @timed_idx */
	uint32_t timed_idx;     /* its entry there (struct nic, @timed) */
	struct nic *nic;        /* the NIC this QP lives in */
	struct eng_req req;
	struct nic_qp_stats stats;
	/* rxe-format SRQ: the WQE taken, copied out of its slot (the SRQ's
	 * stride bytes); NULL for a QP with no SRQ or an mlx5 one. */
	uint8_t *srq_copy;
	/* RC WQEs sent, not yet completed: req.nflight entries, 16-byte
	 * aligned so that none straddles a cache line. */
	_Alignas(16) struct inflight inflight[];
};

/* The in-flight entry of counter @idx (fl_head or fl_tail): the capacity
 * is the send ring's block count, a power of two, so a mask rather than a
 * division (20-odd cycles, twice a message). */
static inline struct inflight *eng_flight(struct eng_qp *e, uint32_t idx)
{
	return &e->inflight[idx & (e->req.nflight - 1)];
}

/* In SQD: the next WQE to fetch is one that had started before the QP
 * left RTS (a retry goes back to it), so it may be sent again. */
static inline bool req_sqd_may_fetch(const struct eng_req *r)
{
	return (int32_t)(r->sqd_end - r->fetch) > 0;
}

/* Where the NIC's frames go and come from: the attached link, the
 * capture tap, and the clock. */
struct nic_tx {
	struct nic_link link;       /* device.h; fd -1: none */
	struct wqe_pcap *tap;
	uint64_t (*now)(void *arg); /* ns; NULL = CLOCK_MONOTONIC */
	void *now_arg;
};

/* Largest frame the NIC builds: the wire layer's (wqe/wire.h). */
#define NIC_FRAME_MAX WQE_FRAME_MAX
#define NIC_FRAME_SHIFT 2u

/* Doorbells held before the NIC takes them (struct nic, db_pend). */
#define NIC_DB_PEND 64u

/*
 * The doorbell register of a NIC_THREAD NIC: a bounded lock-free queue of
 * doorbell writes, any number of posting threads in, the NIC thread out
 * (each cell's sequence number says whose turn it is: a producer claims a
 * cell by advancing @enq, fills it, then publishes it with a release store
 * of its sequence; the NIC acquires that sequence before reading the
 * cell). A write that finds it full sets @overflow instead: the NIC then
 * looks at every QP once, so no doorbell is ever lost.
 */
#define NIC_DB_QUEUE 4096u
enum { NIC_DB_SQ = 0, NIC_DB_RQ = 1 };
struct nic_db_cell {
	_Atomic uint32_t seq;
	uint8_t kind;               /* NIC_DB_SQ: @val; NIC_DB_RQ: @qpn */
	uint32_t qpn;
	uint8_t val[8];
};
struct nic_db_queue {
	_Alignas(64) _Atomic uint32_t enq;
	_Alignas(64) uint32_t deq;  /* the NIC thread's */
	_Atomic bool overflow;
	struct nic_db_cell cell[NIC_DB_QUEUE];
};

/* What a NIC_THREAD NIC adds (nic_create()). */
struct nic_thread {
	pthread_t tid;
	bool started;
	_Atomic bool stop;
	/* The thread sleeps in poll() on @wake_fd (an eventfd) and the link's
	 * fd. @sleeping is set before it looks for work a last time and
	 * sleeps: a doorbell pushed after that look sees it and writes
	 * @wake_fd (both sequentially consistent, so one of the two sees the
	 * other). */
	int wake_fd;
	_Atomic bool sleeping;
	/* Commands waiting for the lock: the thread lets them in between
	 * passes rather than taking the lock straight back. */
	_Atomic uint32_t cmd_waiting;
	struct nic_db_queue *dbq;
	uint64_t wakeups;           /* polls that returned (statistics) */
	uint64_t assists;           /* passes run by nic_assist() (statistics) */
};

/* An entry of the NIC's timer list (struct nic, @timed). */
struct nic_timer {
	struct qpc *q;
	uint64_t at; /* q's earliest deadline is not earlier than this */
};

/* An address handle as the NIC holds it (rxe WQEs name it by number). */
struct nic_ah {
	bool valid;
	uint32_t pd;
	struct qpc_addr addr;
};

struct nic {
	enum wqe_format format;
	enum nic_mode mode;
	/* The command lock (device.h): held by a command from nic_cmd_begin()
	 * to nic_cmd_end(), and by the NIC thread while it works. */
	pthread_mutex_t lock;
	struct nic_thread thr;
	struct nic_ah *ah;         /* index = ah_num - 1 */
	uint32_t nah;
	struct nic_tx tx;
	/* Frames are built NIC_FRAME_SHIFT bytes into a 16-byte aligned
	 * buffer (as malloc gives), so that an IPv4 payload (after 14 + 20 +
	 * 8 + 12 bytes of headers) starts 8-byte aligned: memcpy of a
	 * misaligned payload is several times slower here (bench/RESULTS.md). */
	uint8_t frame_store[NIC_FRAME_MAX + 16] __attribute__((aligned(16)));
	uint8_t *frame;
	/* The headers of the last request packet: the next one on the same
	 * path copies them (wqe/packetize.h, struct wqe_pktz_tmpl). */
	struct wqe_pktz_tmpl req_tmpl;
	struct nic_port port;
	struct key_table keys;
	struct qp_table qps;
	/* QPs whose responder owes an ACK (responder.h, resp_ack_flush()). */
	struct qpc *ack_due;
	/* QPs with work pending: progress visits only these. */
	struct qpc **active;
	uint32_t nactive;
	uint32_t active_cap;
	/* QPs in RTS with a timer armed (retransmit or RNR wait), each with
	 * a time its deadline is not earlier than, and a time no deadline
	 * among them is earlier than (UINT64_MAX: none): progress walks the
	 * list only once that time has come, and reads a QP's own state only
	 * when its entry's time has come (nic_timer_armed()). Room for every
	 * QP is made when the QP is created, so arming never allocates. */
	struct nic_timer *timed;
	uint32_t ntimed;
	uint32_t timed_cap;
	uint64_t timer_min;
	struct doorbell_reg db;
	/* QPs whose doorbell arrived since the last progress call, not yet
	 * put on the active list: the doorbell only starts the fetch of the
	 * QP's engine state (a prefetch), progress takes them
	 * (nic_take_doorbells()), so posting to many QPs does not wait for
	 * each one's state to come from memory. */
	struct qpc *db_pend[NIC_DB_PEND];
	uint32_t ndb_pend;
	uint64_t progress_calls;
	uint64_t clock_ns;         /* nic_now() at the start of this progress pass
				    * (or received frame): captured frames'
				    * timestamps and the base of timers armed */
	uint64_t rx_frames;
	uint64_t rx_accepted;      /* past the receive filters */
	uint64_t tx_frames;
	wqe_trace_fn trace;
	void *trace_arg;
	/* The requester's and the receive path's fast paths for the commonest
	 * packets are off (tests compare the two ways; a trace turns them off
	 * too, since they report no events). */
	bool no_fast_path;
	uint64_t fast_tx;          /* request packets the requester's fast path sent */
	uint64_t fast_tx_inline;   /* of them, inline WQEs */
	uint64_t fast_tx_imm;      /* of them, WRITE/SEND with immediate */
	uint64_t fast_rx;          /* frames the receive fast paths took */
	uint64_t fast_rx_acks;     /* of them, ACKNOWLEDGE frames */
	uint64_t fast_rx_sends;    /* of them, SEND frames: ONLY, FIRST, MIDDLE, LAST
				    * (ONLY and LAST with or without immediate) */
	uint64_t fast_rx_imm;      /* of them, WRITE/SEND ONLY and SEND LAST with immediate */
	nic_event_fn event;        /* asynchronous events; NULL: none kept */
	void *event_arg;
	/* what the frames sent now belong to, for TX events */
	uint32_t tx_qpn;
	uint32_t tx_counter;
	const char *retry_why;
	uint64_t rx_drops[RX_DROP_COUNT];
};

/* The port's GID at @index, or its first if there is none at @index (a
 * QP's address names its source GID by index). */
static inline const union wqe_gid *nic_port_gid(const struct nic *n, uint8_t index)
{
	return &n->port.gid[index < n->port.num_gids ? index : 0];
}

/* The P_Key @q's packets carry (its pkey_index; the first if out of range). */
static inline uint16_t nic_qp_pkey(const struct nic *n, const struct qpc *q)
{
	return n->port.pkey[q->pkey_index < n->port.num_pkeys ? q->pkey_index : 0];
}

/* States in which a QP takes packets and answers them (IBTA 10.3.1:
 * from RTR on, until ERR). */
static inline bool nic_qp_receives(const struct qpc *q)
{
	return q->state == WQE_QPS_RTR || q->state == WQE_QPS_RTS || q->state == WQE_QPS_SQD ||
	       q->state == WQE_QPS_SQE;
}

#endif
