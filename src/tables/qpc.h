/* SPDX-License-Identifier: MIT */
/*
 * qpc.h - the QP context and CQ context: what a NIC knows of a queue pair
 * and a completion queue, and the table that finds a QP by its number.
 *
 * This is the NIC-side half of a QP. The software half (wr_id arrays,
 * capacities as the user asked for them) lives in src/verbs and is never
 * seen by the engine.
 */
#ifndef WQE_TABLES_QPC_H
#define WQE_TABLES_QPC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ring/ring.h"
#include "wqe/types.h"

/* The peer address as the NIC holds it (RC/UC: from INIT->RTR). */
struct qpc_addr {
	union wqe_gid dgid;
	uint8_t dmac[6];
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t tclass;
	uint8_t sl;
	uint16_t udp_sport;
};

/* One completion as the engine writes it into a CQ ring. */
struct cqe {
	uint64_t wr_id;       /* receive from an rxe-format SRQ: the WQE's own
			       * (the NIC copied it out at take; rxe's CQE
			       * carries it). 0 otherwise: the driver keeps it. */
	uint32_t srqn;        /* receive from an SRQ: its number; 0 otherwise */
	uint32_t qpn;
	uint32_t wqe_counter; /* SQ: first block of the WQE; RQ: slot counter */
	uint32_t byte_len;
	uint32_t imm;         /* immediate (big-endian value) or invalidated rkey */
	uint32_t src_qp;
	uint16_t pkey_index;
	uint8_t is_recv;
	uint8_t status;       /* enum wqe_wc_status */
	uint8_t opcode;       /* enum wqe_wc_opcode (RECV values fit: 128, 129) */
	uint8_t flags;        /* enum wqe_wc_flags */
	uint8_t sl;
	uint8_t solicited;    /* receive: the message's last packet had SE set.
			       * Only a solicited-only arm reads it: ibv_wc has
			       * no flag for it, so the user never sees it. */
};

/*
 * What a CQ is armed for (wqe_req_notify_cq()): the next completion, or
 * the next solicited one. The values are ordered: arming never lowers
 * NEXT to SOLICITED (cqc_arm()).
 */
enum cq_arm {
	CQ_ARM_NONE = 0,
	CQ_ARM_SOLICITED = 1,
	CQ_ARM_NEXT = 2,
};

struct cqc {
	struct cqe *ring;
	uint32_t nslots;          /* power of two, >= depth */
	uint32_t depth;           /* entries the user asked for */
	uint32_t pi;              /* engine's producer counter */
	_Atomic uint32_t pi_pub;  /* published producer (release) */
	_Atomic uint32_t ci;      /* consumer counter, written by software */
	_Atomic bool overrun;     /* set by the engine, read by software */
	/* enum cq_arm: raised by software (cqc_arm()), taken back to NONE by
	 * the engine when the event fires (cqc_push()), both atomically, so
	 * that an arm and a completion racing in two threads give one event
	 * (cqc_arm()'s contract). */
	_Atomic uint8_t arm;
	uint64_t lost;            /* completions dropped by the overrun */
	/* The completion event handler (the verbs layer's channel), called
	 * once per event with the CQ disarmed; NULL: events go nowhere. */
	void (*event)(struct cqc *c);
};

int cqc_init(struct cqc *c, uint32_t depth);
void cqc_fini(struct cqc *c);
/*
 * Engine side: add one completion; false (and overrun set) if the CQ is
 * full. A completion added to an armed CQ that matches the arm disarms it
 * and calls @event, after the entry is published; a lost one does not.
 */
bool cqc_push(struct cqc *c, const struct cqe *e);
/*
 * Software side, arming (IBTA C11-31, C11-32: an arm for NEXT stays NEXT
 * when SOLICITED is asked for). cqc_arm_raise(): @c already armed, its
 * arm raised to @a if that is higher; returns the arm now, or CQ_ARM_NONE
 * if @c is disarmed (the engine may disarm it meanwhile), and then
 * nothing changed. cqc_arm_set(): arms a disarmed @c for @a (only
 * software arms, so a CQ found disarmed stays so until this store).
 * Callers serialise their arms of one CQ (the verbs layer: under the
 * channel's lock), so that each new arm gets its event's room once.
 */
enum cq_arm cqc_arm_raise(struct cqc *c, enum cq_arm a);
void cqc_arm_set(struct cqc *c, enum cq_arm a);
/* Disarms @c with no event (the CQ goes away): whether it was armed.
 * Not concurrent with cqc_push(). */
bool cqc_disarm(struct cqc *c);

/*
 * A shared receive queue (IBTA 10.2.9.5), as the NIC knows it: a receive
 * ring in the QP format's slot layout, filled by software and taken from
 * by every QP attached to it, in the order the NIC needs WQEs.
 *   - mlx5: each slot starts with the 16-byte next segment (struct
 *     mlx5_wqe_srq_next_seg: next_wqe_index, big-endian, at byte 2), then
 *     the data segments. The free slots form a list that software links
 *     through next_wqe_index; the NIC follows it from @head, one slot per
 *     WQE taken, and counts the WQEs taken in rq->ci against the doorbell
 *     record (WQEs posted). A taken WQE's slot stays the QP's until its
 *     completion is polled: the CQE names it (wqe_counter = slot index)
 *     and software puts it back on the list.
 *   - rxe: a ring of struct rxe_recv_wqe, as a QP's RQ. The NIC copies the
 *     WQE out when it takes it and retires the slot at once (rxe's
 *     get_srq_wqe()); the completion carries the WQE's wr_id.
 * @limit: the armed limit (a command sets it; 0 is not armed): when a take
 * leaves fewer WQEs than it, the NIC raises NIC_EV_SRQ_LIMIT_REACHED once
 * and disarms it.
 */
struct srqc {
	struct rq_ring *rq;
	uint32_t srqn;
	uint32_t pd;
	enum wqe_format format;
	uint32_t limit;
	uint32_t head;            /* mlx5: slot index of the next WQE to take */
};

/* Bytes of an mlx5 SRQ slot before its data segments. */
#define SRQ_MLX5_NEXT_LEN 16u

/*
 * What every packet of the QP reads, sent or received, comes first: the
 * receive filter's and the responder's fields (up to av.dgid) fill the
 * first 64 bytes, the requester's the next 64 (the rest of the address
 * vector, the retry settings, the queues); what only setup reads comes
 * last. That is one and two cache lines where the context is 64-byte
 * aligned. @eng, @type and @state, which the doorbell and every progress
 * pass over the QP read, share the first 16 bytes: one line at any
 * malloc alignment.
 */
struct qpc {
	/* engine progress state, owned by src/engine */
	struct eng_qp *eng;
	enum wqe_qp_type type;
	enum wqe_qp_state state;
	uint32_t qpn;
	enum wqe_format format;
	uint32_t pd;
	uint32_t access;
	enum wqe_mtu path_mtu;
	uint32_t dest_qpn;
	uint16_t pkey_index;
	bool sq_sig_all;
	bool checks_in_engine;   /* post-time-knowable checks left to the NIC */
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port;
	struct qpc_addr av;      /* dgid first */
	uint8_t timeout;         /* read for every message sent and ACK */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	struct sq_ring *sq;
	struct cqc *send_cq;
	struct rq_ring *rq;
	struct cqc *recv_cq;
	uint32_t qkey;
	struct srqc *srq;        /* receives from this SRQ (@rq is NULL) */

	/* setup only */
	uint32_t sq_psn;
	uint32_t rq_psn;
	bool gsi; /* create as the GSI QP, QPN 1 (the NIC then tells it by number) */
	/* @state as the NIC last set it, for the doorbell side, which may not
	 * read @state itself (engine/device.h): relaxed, a hint. */
	_Atomic uint8_t state_pub;
};

/* Sets @q's state (every change goes through here: @state_pub follows). */
static inline void qpc_set_state(struct qpc *q, enum wqe_qp_state s)
{
	q->state = s;
	atomic_store_explicit(&q->state_pub, (uint8_t)s, memory_order_relaxed);
}

/* QP numbers: base + slot index, base at least QPN_BASE (QPN 0 and 1 are
 * reserved by the IBTA: 1 is the GSI QP, which has no slot; 0, the SMI
 * QP, has no place on RoCE). */
#define QPN_BASE 0x12u
#define QPN_GSI	 1u

struct qp_table {
	struct qpc **slot;
	uint32_t cap;
	uint32_t used;
	uint32_t base;
	/* Where the next number is looked for: numbers are handed out
	 * cyclically, as rxe's pool does (xa_alloc_cyclic()), so that a freed
	 * QPN comes back only after every other free slot has been given. */
	uint32_t next;
	struct qpc *gsi; /* QPN 1: outside the slots */
};

int qp_table_init(struct qp_table *t, uint32_t base);
void qp_table_fini(struct qp_table *t);
/* Adds @q and assigns q->qpn, the next free number after the last given
 * (cyclically: the table doubles once half of it is used, so a number
 * freed comes back after at least as many others as are in use, and
 * memory stays within twice the peak); -1 when no number is left or on
 * ENOMEM. */
int qp_table_add(struct qp_table *t, struct qpc *q);
/* Adds @q as the GSI QP, QPN 1; -1 if the table has one. */
int qp_table_add_gsi(struct qp_table *t, struct qpc *q);
void qp_table_remove(struct qp_table *t, uint32_t qpn);
/* The QP of number @qpn, or NULL. Inline: the NIC looks a QP up on every
 * doorbell and every packet received. */
static inline struct qpc *qp_table_find(const struct qp_table *t, uint32_t qpn)
{
	uint32_t i = qpn - t->base;

	if (qpn < t->base || i >= t->cap)
		return qpn == QPN_GSI ? t->gsi : NULL; /* off the common path */
	return t->slot[i];
}

#endif
