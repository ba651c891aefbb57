/* SPDX-License-Identifier: MIT */
/*
 * resp_state.h - the responder's state for one QP (struct eng_resp), which
 * struct eng_qp (engine/nic.h) embeds; its counters are the device
 * interface's (engine/device.h, struct resp_stats). The responder's
 * functions are in engine/responder.h.
 */
#ifndef WQE_ENGINE_RESP_STATE_H
#define WQE_ENGINE_RESP_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/device.h"

struct qpc;

/* Most READ/atomic responder resources a QP keeps (max_dest_rd_atomic). */
#define RESP_MAX_RD_ATOMIC 16u

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
	bool owned;             /* taken from an SRQ: this QP's until completed
				 * (a message abandoned keeps it for the next) */
	uint32_t ctr;           /* receive-ring counter (mlx5 SRQ: slot index) */
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
	bool last_wqe;          /* SRQ: QP_LAST_WQE_REACHED raised since RTR */
	struct resp_write wr;
	struct resp_ack_tmpl ack; /* resp_reply.c's */
	/* An ACK owed (resp_ack_later()): sent with ack_due_psn when the NIC
	 * has taken the frames that arrived together (resp_ack_flush()). */
	bool ack_due;
	uint32_t ack_due_psn;
	struct qpc *ack_next;     /* the NIC's list of QPs owing an ACK */
};

#endif
