/* SPDX-License-Identifier: MIT */
/*
 * responder.h - the receive side of a QP: request packets in, data placed,
 * receive WQEs consumed, ACK/NAK/READ response/atomic ACK out.
 *
 * The responder sees what a NIC sees: the request packet, the QP context,
 * the receive ring up to its doorbell record, the key table and host memory
 * reached through a key. Its state machine follows IBTA chapter 9.7 as
 * Linux rxe (rxe_resp.c) implements it; where we differ, responder.c says
 * why.
 *
 * This header must not include engine/nic.h (nic.h embeds struct eng_resp).
 */
#ifndef WQE_ENGINE_RESPONDER_H
#define WQE_ENGINE_RESPONDER_H

#include <stdbool.h>
#include <stdint.h>

struct nic;
struct qpc;
struct wqe_pkt;

/* Most READ/atomic responder resources a QP keeps (max_dest_rd_atomic). */
#define RESP_MAX_RD_ATOMIC 16u

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
 * per-packet state (struct eng_resp). */
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

/* A READ or atomic the responder has accepted, kept for replay (C9-148). */
struct resp_res {
	union {
		uint64_t va;    /* READ: RETH of the original request */
		uint64_t orig;  /* atomic: the value before it executed */
	};
	uint32_t first_psn;
	uint32_t last_psn;
	uint32_t rkey;          /* READ */
	uint32_t len;           /* READ */
	uint8_t kind;           /* RESP_RES_NONE, _READ, _ATOMIC */
};

enum { RESP_RES_NONE = 0, RESP_RES_READ = 1, RESP_RES_ATOMIC = 2 };

/* The receive WQE being filled by a SEND (held from FIRST to LAST). */
struct resp_rwqe {
	bool valid;
	uint32_t ctr;           /* receive-ring counter of the WQE */
	uint32_t sge_i;         /* next data segment to fill */
	uint32_t sge_off;       /* bytes already in that segment */
	uint64_t placed;        /* message bytes placed so far */
};

/* The RDMA WRITE in progress. */
struct resp_write {
	uint64_t va;            /* next byte */
	uint32_t rkey;
	uint32_t len;           /* RETH DMA length */
	uint32_t resid;         /* bytes still expected */
};

/* Which message is open (between FIRST and LAST). */
enum { RESP_OPEN_NONE = 0, RESP_OPEN_SEND = 1, RESP_OPEN_WRITE = 2 };

/* Ethernet + IPv6 + UDP + BTH + AETH: the longest ACK before its ICRC. */
#define RESP_ACK_TMPL_MAX 78u

/*
 * The QP's ACKNOWLEDGE frame up to the ICRC as the frame builder wrote it
 * (IPv4 identification, PSN, syndrome and MSN 0): an ACK patches those
 * four fields and computes the ICRC instead of building the frame again
 * (resp_reply.c). Built from the QP's path (address vector, destination
 * QP, P_Key index) and the port's addresses; forgotten whenever the QP is
 * modified (resp_modified()), the only way its path changes.
 */
struct resp_ack_tmpl {
	uint8_t len;            /* frame bytes before the ICRC; 0: none built */
	uint8_t ipver;
	uint8_t l3_off;
	uint8_t bth_off;
	uint8_t frame[RESP_ACK_TMPL_MAX];
};

/*
 * The responder's state for one QP. What a request packet of an RDMA WRITE
 * or SEND touches is at the end, from the per-packet counters of @stats on
 * (176 bytes from a multiple of 64 into struct eng_qp, the NIC's
 * rx_requests just after them); what READ, atomics and SEND reach besides
 * comes first.
 */
struct eng_resp {
	struct resp_res *res;   /* replay slots (res_cap of them, NULL: none) */
	uint32_t res_cap;       /* allocated slots (resp_res_reserve()) */
	uint32_t res_head;      /* next resource slot to reuse */
	struct resp_rwqe wqe;
	struct resp_stats stats;
	/* per packet */
	uint32_t epsn;          /* expected PSN */
	uint32_t ack_psn;       /* PSN after the last SEND/WRITE/atomic executed */
	uint32_t msn;           /* message sequence number, 24 bits */
	uint32_t last_path;     /* states the last packet went through (1 << state) */
	uint16_t ip_id;         /* IPv4 identification of the next response */
	uint8_t open;           /* RESP_OPEN_* */
	bool sent_psn_nak;      /* RC: a PSN NAK is outstanding */
	bool drop_msg;          /* UC: dropping until the next FIRST/ONLY */
	bool comm_est;          /* RC/UC: a request was accepted since RTR */
	struct resp_write wr;
	struct resp_ack_tmpl ack; /* resp_reply.c's */
	/* An ACK owed (resp_ack_later()): sent with ack_due_psn when the NIC
	 * has taken the frames that arrived together (resp_ack_flush()). */
	bool ack_due;
	uint32_t ack_due_psn;
	struct qpc *ack_next;     /* the NIC's list of QPs owing an ACK */
};

/* Makes room for @n READ/atomic replay slots (at most RESP_MAX_RD_ATOMIC)
 * before max_dest_rd_atomic becomes @n; slots are never given back until
 * resp_destroy(). 0, or ENOMEM with nothing changed. */
int resp_res_reserve(struct eng_resp *r, uint32_t n);

/* Frees what resp_res_reserve() allocated. */
void resp_destroy(struct eng_resp *r);

/* The QP's attributes may have changed (modify_qp): forget the ACK
 * template built from its path. */
void resp_modified(struct qpc *q);

/* The QP enters RTR: start expecting rq_psn, MSN 0, no resources. */
void resp_start(struct nic *n, struct qpc *q);

/* One request packet for @q that passed the receive filters. */
void resp_rx(struct nic *n, struct qpc *q, const struct wqe_pkt *p);

/*
 * An RDMA WRITE ONLY for @q that passed the receive filters, as
 * resp_rx() would take it on its commonest path (in sequence, no message
 * open, the QP past RTR with REMOTE_WRITE, the length within the MTU and
 * the RETH, the rkey good): the data placed, the same state and counters
 * as resp_rx() leaves. Returns false, with nothing changed, for any other
 * case: resp_rx() then takes the packet. The receive fast path's.
 *
 * resp_write_imm(): the same for an RDMA WRITE ONLY with immediate, which
 * besides takes the receive WQE at the consumer counter (none held, one
 * posted that decodes; none posted is left to resp_rx(): RNR) and
 * completes it: RECV_RDMA_WITH_IMM, byte_len the RETH length, @imm with
 * its flag, solicited if @se. One of length 0 names no memory: no rkey is
 * checked. A CQ overrun is taken as resp_rx() takes it (the QP goes to
 * ERR). resp_write_only() reads neither @se nor @imm.
 *
 * resp_write_first(), resp_write_middle(), resp_write_last(): the same for
 * the packets of a longer RDMA WRITE with no immediate (UC not dropping a
 * message either). FIRST: no message open, exactly one MTU of payload,
 * less than the RETH length (at most 2^31), the rkey good for the whole
 * RETH range; the WRITE is then open. MIDDLE: the WRITE open, exactly one
 * MTU, less than what remains of it; LAST: the WRITE open, what remains of
 * it (1 to MTU bytes), which closes and counts the message. MIDDLE and
 * LAST check the rkey again for their own bytes and read only @psn,
 * @ackreq, @payload and @len; none reads @se or @imm.
 */
struct resp_write_pkt {
	uint32_t psn;
	bool ackreq;
	bool se; /* resp_write_imm() */
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
	uint32_t imm; /* resp_write_imm(): ImmDt, read big-endian */
	const uint8_t *payload;
	uint32_t len;
};
bool resp_write_only(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);
bool resp_write_imm(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);
bool resp_write_first(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);
bool resp_write_middle(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);
bool resp_write_last(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);

/*
 * A SEND ONLY (no immediate, no invalidate) for an RC or UC @q that passed
 * the receive filters, as resp_rx() would take it on its commonest path
 * (in sequence, no message open, no receive WQE held, the QP past RTR, UC
 * not dropping a message, the payload within the MTU, a receive WQE posted
 * that decodes and whose SGEs take the payload): the payload placed, the
 * RECV completion written (solicited if @se), the WQE retired, the same
 * state and counters as resp_rx() leaves, the ACK owed if @ackreq (RC).
 * A CQ overrun is taken as resp_rx() takes it (the QP goes to ERR).
 * Returns false, with nothing changed, for any other case: resp_rx() then
 * takes the packet. The receive fast path's.
 *
 * resp_send_imm(): the same for a SEND ONLY with immediate, whose
 * completion carries @imm with its flag. resp_send_only() does not read
 * @imm.
 *
 * resp_send_first(), resp_send_middle(), resp_send_last(),
 * resp_send_last_imm(): the same for the packets of a longer SEND (no
 * invalidate; UC not dropping a message either). FIRST: no message open
 * and no receive WQE held, exactly one MTU of payload, a receive WQE
 * posted that decodes and whose SGEs take it from their start; the WQE is
 * then held and the SEND open. MIDDLE: the SEND open, exactly one MTU,
 * which the held WQE's SGEs take from where the bytes before it ended
 * (the slot decoded again). LAST (with immediate: resp_send_last_imm()):
 * the SEND open, 1 to MTU bytes, taken likewise; the message is then
 * closed and counted and the WQE completed as by a SEND ONLY, byte_len
 * the whole message's bytes, solicited if @se. FIRST and MIDDLE read
 * neither @se nor @imm, resp_send_last() not @imm.
 */
struct resp_send_pkt {
	uint32_t psn;
	bool ackreq;
	bool se;
	uint32_t imm; /* with immediate: ImmDt, read big-endian */
	const uint8_t *payload;
	uint32_t len;
};
bool resp_send_only(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_imm(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_first(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_middle(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_last(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_last_imm(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);

/* Sends the ACK every QP of @n still owes (coalesced acknowledgement): once
 * the frames that arrived together have been taken, before control returns
 * to the application. */
void resp_ack_flush(struct nic *n);

#endif
