/* SPDX-License-Identifier: MIT */
/*
 * nic.h - the modelled NIC: the engine's state and the device interface the
 * verbs layer drives it through.
 *
 * The interface is the one a driver has to its hardware and firmware:
 * commands that create and change table entries (QP context, CQ context,
 * keys), the doorbell register, and a progress call that stands for the
 * NIC's own clock. The engine includes wqe/desc.h and wqe/types.h, never
 * wqe/verbs.h: it cannot see a software Work Request.
 */
#ifndef WQE_ENGINE_NIC_H
#define WQE_ENGINE_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "ring/ring.h"
#include "tables/keys.h"
#include "tables/qpc.h"
#include "wqe/desc.h"
#include "wqe/packetize.h"
#include "wqe/trace.h"
#include "wqe/wire.h"
#include "engine/responder.h"
#include "wqe/types.h"

/* The port's addresses, as the NIC knows them. */
struct nic_port {
	uint8_t mac[6];
	uint32_t num_gids;
	union wqe_gid gid[4];
	uint32_t num_pkeys;
	uint16_t pkey[4];
};

/* Per-QP statistics the engine keeps (wqe/link.h struct wqe_qp_stats;
 * packets_received is eng_qp.rx_requests + eng_req.msg.rx_responses): the
 * counters every message moves sit with the state they go with (struct
 * nic_msg_stats in struct eng_req, rx_requests in struct eng_qp); these
 * are the rest. */
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
 * nic.c), so these are three and two lines at best.
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

/* Where the NIC's frames go and come from: the attached link, the
 * capture tap, and the clock. */
struct nic_tx {
	void (*xmit)(void *arg, const uint8_t *frame, size_t len);
	/* Optional (both or neither): a buffer of at least NIC_FRAME_MAX bytes,
	 * NIC_FRAME_SHIFT past a 16-byte boundary, to build the next frame in
	 * (NULL: none now), and sending a frame built there without a copy. */
	uint8_t *(*tx_buf)(void *arg);
	void (*xmit_buf)(void *arg, uint8_t *buf, size_t len);
	/* The next frame waiting for this NIC, in place (NULL if none), and
	 * giving it back once processed: no copy on the way in. */
	const uint8_t *(*rx_peek)(void *arg, size_t *len);
	void (*rx_done)(void *arg);
	/* Optional: the link may hold frames it was given to send them
	 * together (a UDP link's batch); this sends them, in order. Called
	 * when the NIC stops sending for now (nic_tx_flush()). */
	void (*flush)(void *arg);
	void *arg;
	struct wqe_pcap *tap;
	uint64_t (*now)(void *arg); /* ns; NULL = CLOCK_MONOTONIC */
	void *now_arg;
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
	NIC_EV_COUNT
};

/* Where the NIC reports them: called inside the engine (progress, a frame
 * received, a modify), once per event; it must not allocate or fail.
 * @qpn for QP events, @cq for NIC_EV_CQ_ERR. */
typedef void (*nic_event_fn)(void *arg, enum nic_event ev, uint32_t qpn, struct cqc *cq);

/* Largest frame the NIC builds: the wire layer's (wqe/wire.h). */
#define NIC_FRAME_MAX WQE_FRAME_MAX
#define NIC_FRAME_SHIFT 2u

/* Doorbells held before the NIC takes them (struct nic, db_pend). */
#define NIC_DB_PEND 64u

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
	uint64_t rx_drops[16];     /* by enum rx_drop */
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

struct nic *nic_create(enum wqe_format fmt, const struct nic_port *port);
void nic_destroy(struct nic *n);

/* Address-handle commands: the new handle's number (>= 1), or 0 when the
 * table cannot grow. */
uint32_t nic_ah_create(struct nic *n, uint32_t pd, const union wqe_gid *dgid, const uint8_t dmac[6],
		       uint32_t flow_label, uint8_t sgid_index, uint8_t hop_limit, uint8_t tclass,
		       uint8_t sl, uint16_t udp_sport);
void nic_ah_destroy(struct nic *n, uint32_t ah_num);
const struct nic_ah *nic_ah_find(const struct nic *n, uint32_t ah_num);

/* Commands. Each returns 0 or a positive errno. */
int nic_qp_create(struct nic *n, struct qpc *q);
void nic_qp_destroy(struct nic *n, struct qpc *q);
/* Makes room for what a modify is about to give @q (responder resources
 * for @max_dest_rd_atomic): call before changing the QP context; ENOMEM
 * with nothing changed. */
int nic_qp_reserve(struct nic *n, struct qpc *q, uint32_t max_dest_rd_atomic);
/* Applies a modify already validated by the state machine: called after
 * every modify, state change or not (its attributes may have changed). */
void nic_qp_set_state(struct nic *n, struct qpc *q, enum wqe_qp_state s);

/* RTS -> SQD with the drain's notification asked for (EN_SQD_ASYNC_NOTIFY):
 * call right after nic_qp_set_state(). NIC_EV_SQ_DRAINED is raised once
 * nothing that had started is left, now if that is already so. */
void nic_qp_sqd_notify(struct nic *n, struct qpc *q);
/* The drain notification is pending: raises it if the drain is over. */
void nic_sqd_check(struct nic *n, struct qpc *q);

/* Reports asynchronous event @ev of the QP numbered @qpn, or of @cq. */
void nic_event(struct nic *n, enum nic_event ev, uint32_t qpn, struct cqc *cq);

/* Marks @q as having work: progress will look at it. */
void nic_kick(struct qpc *q);
/* In SQD with WQEs that had started still to finish (sent or
 * acknowledged): the send queue is draining. */
bool nic_qp_sq_draining(const struct qpc *q);
/* The doorbells held since the last call: their QPs go on the active list. */
void nic_take_doorbells(struct nic *n);
/* @q's requester armed a timer for @at (ns): it goes on the timer list. */
void nic_timer_armed(struct nic *n, struct qpc *q, uint64_t at);
/* @q's timers changed (an ACK re-armed or disarmed them): its timer-list
 * entry becomes exact, so that the list's walk does not read the QP. */
void nic_timer_update(struct nic *n, struct qpc *q);

/* The doorbell register write of one post call (8 bytes). */
void nic_doorbell(struct nic *n, const uint8_t val[8]);

/* Reports @ev to the trace callback, if any (stamps the time). */
void nic_trace(struct nic *n, struct wqe_trace_event *ev);

/* Writes a completion into @cq (and reports it). False on overrun; the
 * first completion lost raises NIC_EV_CQ_ERR. */
bool nic_push_cqe(struct nic *n, struct cqc *cq, const struct cqe *e);

/* Sends one frame to the link and the tap. */
void nic_xmit(struct nic *n, const uint8_t *frame, size_t len);

/* Where to build the next frame: a buffer of the link's, sent by
 * nic_xmit_buf() without a copy, or else n->frame. */
uint8_t *nic_tx_buf(struct nic *n);

/* Sends a frame built in the buffer nic_tx_buf() returned (to the tap and
 * the trace too); the buffer is the link's afterwards. */
void nic_xmit_buf(struct nic *n, uint8_t *buf, size_t len);

/* Lets the link send what it holds (tx.flush, if set): at the end of a
 * progress call, after a frame handed in on its own, and before the link
 * is detached. */
void nic_tx_flush(struct nic *n);

/* The NIC's clock in nanoseconds (also stored in clock_ns). */
uint64_t nic_now(struct nic *n);

/* The earliest armed timer: 1 and *@ns, or 0 if none. */
int nic_next_deadline(const struct nic *n, uint64_t *ns);

/* Lets the NIC run: drains doorbells, processes work. Returns work done. */
int nic_progress(struct nic *n);

#endif
