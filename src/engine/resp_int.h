/* SPDX-License-Identifier: MIT */
/*
 * resp_int.h - what the responder's files share: the per-packet context,
 * data placement and the receive queue (resp_place.c), responder resources
 * and atomics (resp_res.c), and the frames it sends (resp_reply.c), with
 * the fast paths for one-packet messages and the packets of an RDMA WRITE
 * or a SEND (resp_fast.c).
 */
#ifndef WQE_ENGINE_RESP_INT_H
#define WQE_ENGINE_RESP_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/limits.h"
#include "common/mtu.h"
#include "engine/psn.h"
#include "engine/services.h"
#include "engine/responder.h"
#include "wqe/wire.h"

/* Bytes of the GRH area at the start of a UD receive buffer. */
#define RESP_GRH_LEN 40u

/* The states of one pass (responder.c), in the order a clean packet meets
 * them, then the error states. At most 32 (eng_resp.last_path is a mask). */
enum resp_state {
	RS_CHK_PSN = 0,
	RS_CHK_OP_SEQ,
	RS_CHK_OP_VALID,
	RS_CHK_RESOURCE,
	RS_CHK_LENGTH,
	RS_CHK_RKEY,
	RS_EXECUTE,
	RS_READ_REPLY,
	RS_ATOMIC_REPLY,
	RS_COMPLETE,
	RS_ACKNOWLEDGE,
	RS_DUPLICATE,
	RS_ERR_PSN_SEQ,
	RS_ERR_INV_REQ,
	RS_ERR_ACCESS,
	RS_ERR_RNR,
	RS_ERR_LENGTH,
	RS_ERR_LOC_LEN,
	RS_ERR_LOC_PROT,
	RS_ERR_MALFORMED,
	RS_ERR_INVALIDATE,
	RS_DROP,
	RS_ERROR,
	RS_DONE,
	RS_COUNT
};

/* "CHK_PSN", ...; "unknown" outside the enum. */
const char *resp_state_str(enum resp_state s);

/* Whether the receive WQE in progress was completed by this packet, and
 * whether that completion reached its CQ (resp_ctx.wqe_cqe). */
enum { RESP_CQE_NONE = 0, RESP_CQE_WRITTEN = 1, RESP_CQE_LOST = 2 };

/* Everything one pass of the state machine knows about its packet. */
struct resp_ctx {
	struct nic *n;
	struct qpc *q;
	struct eng_resp *r;
	const struct wqe_pkt *p;
	struct wqe_wire_opinfo oi;
	uint8_t syndrome;           /* AETH of the answer: ACK unless an error */
	uint8_t status;             /* enum wqe_wc_status of the receive CQE */
	bool goto_error;            /* the QP goes to ERR after answering */
	uint8_t wqe_cqe;            /* RESP_CQE_*: the receive WQE's completion */
	enum resp_drop drop;        /* why, when the packet is dropped */
	uint8_t *host;              /* WRITE/atomic target, resolved */
	struct resp_res *res;       /* READ/atomic being answered */
	bool replay;                /* ... as a duplicate */
	uint32_t rd_psn;            /* READ: PSN of the first response to send */
	uint64_t rd_va;             /* READ: first byte to send */
	uint32_t rd_len;            /* READ: bytes to send */
};

static inline bool role_starts(const struct wqe_wire_opinfo *oi)
{
	return oi->role == WQE_ROLE_FIRST || oi->role == WQE_ROLE_ONLY;
}

static inline bool role_ends(const struct wqe_wire_opinfo *oi)
{
	return oi->role == WQE_ROLE_LAST || oi->role == WQE_ROLE_ONLY;
}

static inline bool kind_is_atomic(const struct wqe_wire_opinfo *oi)
{
	return oi->kind == WQE_KIND_COMPARE_SWAP || oi->kind == WQE_KIND_FETCH_ADD;
}

/* Payload bytes per packet on this QP. */
static inline uint32_t resp_mtu(const struct qpc *q)
{
	uint32_t m = mtu_bytes(q->path_mtu);

	if (q->type == WQE_QPT_UD)
		return mtu_bytes(UD_MTU);
	return m ? m : 1024u;
}

/* complete() for a one-packet message, or the LAST of a SEND, a fast path
 * took (resp_fast.c) whose receive completion its CQ had no room for,
 * after acknowledge(): class G, ERROR on the path, the QP goes to ERR
 * (QP_FATAL). */
void resp_only_cqe_lost(struct nic *n, struct qpc *q);

/* ---- resp_place.c: the receive queue and data placement ---- */

/* Why placing into the receive WQE failed. */
enum resp_place_err {
	RESP_PLACE_OK = 0,
	RESP_PLACE_LEN,   /* the WQE's buffers are too small */
	RESP_PLACE_PROT,  /* an SGE's lkey, PD, LOCAL_WRITE or bounds is bad */
	RESP_PLACE_MALFORMED, /* the slot no longer decodes (rewritten meanwhile) */
};

/* Where a message's bytes go in a receive WQE: one piece per SGE they
 * reach, each resolved through its lkey. */
struct resp_piece {
	uint8_t *dst;
	uint32_t len;
};
struct resp_plan {
	struct resp_piece pc[WQE_DESC_MAX_SGE];
	uint32_t n;
	uint32_t ctr;	/* receive-ring counter of the WQE */
	uint32_t end_i; /* the WQE's cursor after the bytes */
	uint32_t end_off;
};

/* Holds the receive WQE at the consumer counter; false if the RQ is empty. */
bool resp_rq_take(struct resp_ctx *c);
/* Holds the receive WQE at @ctr in @w, nothing placed in it yet. */
static inline void resp_rq_hold(struct resp_rwqe *w, uint32_t ctr)
{
	memset(w, 0, sizeof(*w));
	w->valid = true;
	w->ctr = ctr;
}
/* Whether the held WQE's slot decodes in the QP's format (wqe_decode_recv);
 * a slot that does not is a malformed WQE, completed with LOC_QP_OP_ERR. */
bool resp_rq_well_formed(const struct resp_ctx *c);
/* Forgets what was placed into the held WQE (it stays in the ring; one
 * taken from an SRQ stays held, for the QP's next message). */
void resp_rq_rewind(struct eng_resp *r);
/* Scatters the packet's payload (UD: the GRH area first) into the held
 * WQE: every piece is checked before any byte is written. */
enum resp_place_err resp_rq_place(struct resp_ctx *c);
/* Writes the receive CQE of the held WQE with c->status and retires it;
 * false if the CQ overran. */
bool resp_rq_complete(struct resp_ctx *c);

/*
 * The receive CQE of a message (IBTA ch. 11 work completions, ibv_wc), in
 * two steps. resp_cqe_init(): the CQE of the WQE at @ctr with @status, as
 * a RECV with no bytes. resp_cqe_success() then says what a successful
 * one says of its message (@ok): RECV, or RECV_RDMA_WITH_IMM for a WRITE
 * with immediate (@write_imm), whose byte_len is the WRITE's length (rxe
 * do_complete: qp->resp.length); the immediate with its flag if
 * @has_imm; solicited if @se, the SE bit of the message's last packet
 * (IBTA 9.2 BTH, 11.4.2.2), what a CQ armed for solicited completions
 * waits for. Inline: the fast paths fill it from constants.
 */
struct resp_recv_ok {
	uint32_t byte_len;
	uint32_t imm;
	bool write_imm;
	bool has_imm;
	bool se;
};

static inline void resp_cqe_init(struct cqe *e, const struct qpc *q, uint32_t ctr, uint8_t status)
{
	memset(e, 0, sizeof(*e));
	e->qpn = q->qpn;
	e->wqe_counter = ctr;
	e->is_recv = 1;
	e->status = status;
	e->opcode = WQE_WC_RECV;
	e->pkey_index = q->pkey_index;
}

static inline void resp_cqe_success(struct cqe *e, const struct resp_recv_ok *ok)
{
	e->opcode = (uint8_t)(ok->write_imm ? WQE_WC_RECV_RDMA_WITH_IMM : WQE_WC_RECV);
	e->byte_len = ok->byte_len;
	e->solicited = ok->se;
	if (ok->has_imm) {
		e->flags |= WQE_WC_WITH_IMM;
		e->imm = ok->imm;
	}
}

/* Writes @e, the CQE of the receive WQE at @ctr, gives the slot back to
 * software and counts it; false if the CQ overran (the WQE is retired
 * all the same). */
bool resp_rq_retire(struct qpc *q, uint32_t ctr, const struct cqe *e);

/*
 * The receive queue's part of a SEND ONLY (no invalidate) or an RDMA WRITE
 * ONLY with immediate on the receive fast path (resp_fast.c), in the
 * steps resp_rq_take(), resp_rq_well_formed(),
 * resp_rq_place() and resp_rq_complete() take for it, sharing their code,
 * but with no WQE held in between:
 *
 * resp_rq_plan_only() plans @len bytes into the WQE at the consumer
 * counter from its start: false, with nothing changed, if the RQ is empty,
 * the slot does not decode, or an SGE's lkey, PD, LOCAL_WRITE or bounds
 * refuses its piece, or the WQE is too small (resp_rx() answers those).
 * A plan of 0 bytes takes and decodes the WQE and nothing more (a WRITE
 * with immediate places nothing in it).
 * resp_rq_place_only() copies the payload into the plan's pieces.
 * The caller then writes the CQE of the WQE at the plan's counter
 * (resp_cqe_init(), resp_cqe_success(), resp_rq_retire()).
 */
bool resp_rq_plan_only(struct nic *n, const struct qpc *q, uint32_t len, struct resp_plan *pl);
void resp_rq_place_only(const struct resp_plan *pl, const uint8_t *payload, uint32_t len);

/*
 * The receive queue's part of a SEND FIRST, MIDDLE or LAST on the receive
 * fast path, sharing resp_rq_place()'s code: a FIRST is planned with
 * resp_rq_plan_only() (@len bytes from the start of the WQE at the
 * consumer counter), whose WQE is then held (resp_rq_hold()); a MIDDLE
 * or LAST with resp_rq_plan_held(), which plans @len bytes into the held
 * WQE @w from its cursor: false, with nothing changed, if the message
 * would pass 2^31 bytes, the slot no longer decodes, an SGE's lkey, PD,
 * LOCAL_WRITE or bounds refuses its piece, or the WQE is too small
 * (resp_rx() answers those). resp_rq_place_held() copies the payload into
 * the plan's pieces and moves @w's cursor past them. The LAST's caller
 * then writes the CQE of the WQE at w->ctr (byte_len w->placed), retires
 * it and forgets it (resp_rq_rewind()).
 */
bool resp_rq_plan_held(struct nic *n, const struct qpc *q, const struct resp_rwqe *w, uint32_t len,
		       struct resp_plan *pl);
void resp_rq_place_held(struct resp_rwqe *w, const struct resp_plan *pl, const uint8_t *payload,
			uint32_t len);

/* ---- resp_res.c: responder resources and atomics ---- */

/* Takes the oldest resource slot for a new READ or atomic at c->p. */
struct resp_res *resp_res_new(struct resp_ctx *c, uint8_t kind);
/* The resource whose PSN range holds @psn, or NULL. */
struct resp_res *resp_res_find(struct eng_resp *r, const struct qpc *q, uint32_t psn);
/* Executes the atomic of c->p on c->host; returns the original value. */
uint64_t resp_atomic_exec(const struct resp_ctx *c);

/* ---- resp_reply.c: the frames the responder sends ---- */

/* ACKNOWLEDGE with @syndrome, @psn and the current MSN (counted by kind).
 * Every send below first sends the ACK the QP owes, if any. */
void resp_send_ack(struct resp_ctx *c, uint8_t syndrome, uint32_t psn);
/* The ACK (syndrome ACK) of a request with AckReq, for @psn: owed until
 * resp_ack_flush(), where one ACK with the latest PSN and the MSN of
 * that moment answers every request owed since (coalesced). */
void resp_ack_later(struct nic *n, struct qpc *q, uint32_t psn);
/* The ACK the QP owes, if any, sent now (the QP is about to leave the
 * states that answer: what it completed before is still acknowledged). */
void resp_ack_owed(struct resp_ctx *c);
/* ATOMIC_ACKNOWLEDGE for c->res at the packet's PSN. */
void resp_send_atomic_ack(struct resp_ctx *c);
/* READ responses for c->rd_*; false if the rkey no longer allows it. */
bool resp_send_read(struct resp_ctx *c);

#endif
