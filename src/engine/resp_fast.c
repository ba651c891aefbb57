/* SPDX-License-Identifier: MIT */
/*
 * The responder's fast paths (responder.h: resp_write_only(),
 * resp_write_imm(), resp_write_first(), resp_write_middle(),
 * resp_write_last(), resp_send_only(), resp_send_imm(), resp_send_first(),
 * resp_send_middle(), resp_send_last(), resp_send_last_imm()): an RDMA
 * WRITE packet with no immediate, an RDMA WRITE ONLY with one, a SEND
 * ONLY or LAST, with or without an immediate, or a SEND FIRST or MIDDLE,
 * none with an invalidate, that passes every check resp_rx() makes of
 * it is taken in one step, leaving what resp_rx() would leave
 * (responder.c, which says what each check is for); any other is left,
 * with nothing changed, to resp_rx(). The receive fast path (rx.c) hands
 * them the fields of the frame it read in place.
 */
#include "common/mem.h"
#include "engine/resp_int.h"
#include "engine/responder.h"

/* The states resp_rx() takes an accepted WRITE ONLY through (RC: and
 * ACKNOWLEDGE; UC is done after EXECUTE). A WRITE FIRST, MIDDLE or LAST
 * with no immediate goes through the same: no receive WQE, no COMPLETE. */
#define WRITE_ONLY_PATH                                                                            \
	(1u << RS_CHK_PSN | 1u << RS_CHK_OP_SEQ | 1u << RS_CHK_OP_VALID | 1u << RS_CHK_RESOURCE |  \
	 1u << RS_CHK_LENGTH | 1u << RS_CHK_RKEY | 1u << RS_EXECUTE)

/* The states resp_rx() takes an accepted SEND ONLY through: WRITE ONLY's,
 * then COMPLETE for its receive WQE (RC: then ACKNOWLEDGE; UC is done).
 * A lost CQE adds ERROR. */
#define SEND_ONLY_PATH (WRITE_ONLY_PATH | 1u << RS_COMPLETE)

/* A WRITE ONLY with immediate: WRITE ONLY's states, its receive WQE taken
 * in CHK_RESOURCE (no state of its own), then COMPLETE, since
 * completes_wqe(): SEND ONLY's, with ACKNOWLEDGE and ERROR as there. */
#define WRITE_IMM_PATH (WRITE_ONLY_PATH | 1u << RS_COMPLETE)

/* A SEND ONLY with immediate: SEND ONLY's (the ImmDt adds no check). */
#define SEND_IMM_PATH SEND_ONLY_PATH

/* A SEND FIRST or MIDDLE: WRITE ONLY's (a FIRST's receive WQE is taken in
 * CHK_RESOURCE, no state of its own); no COMPLETE, the message goes on. A
 * SEND LAST, with or without immediate, goes through SEND ONLY's: it
 * completes the receive WQE. */
#define SEND_PART_PATH WRITE_ONLY_PATH

/*
 * What accepted() and the checks before it leave for an RDMA WRITE or SEND
 * packet of @len payload bytes at @psn taken by a fast path, once its bytes
 * are placed: the request counted, the message too if the packet @ends it
 * (LAST, ONLY: the MSN moves on), the next PSN expected, @path the states
 * resp_rx() would have gone through up to here. Which message is open is
 * the caller's. Inlined with @ends a constant.
 */
static inline __attribute__((always_inline)) void fast_accepted(const struct qpc *q,
								struct eng_resp *r, uint32_t psn,
								uint32_t len, uint32_t path,
								bool ends)
{
	r->stats.requests++;
	if (q->type == WQE_QPT_RC)
		r->sent_psn_nak = false;
	r->stats.bytes_placed += len;
	if (ends) {
		r->msn = psn_add(r->msn, 1);
		r->stats.messages++;
	}
	r->epsn = psn_add(psn, 1);
	r->ack_psn = r->epsn;
	r->last_path = path;
}

/* acknowledge() for such a packet: RC owes an ACK if it asked for one. */
static void fast_acknowledge(struct nic *n, struct qpc *q, struct eng_resp *r, uint32_t psn,
			     bool ackreq)
{
	if (q->type != WQE_QPT_RC)
		return;
	r->last_path |= 1u << RS_ACKNOWLEDGE;
	if (ackreq)
		resp_ack_later(n, q, psn);
}

/* complete() for such a message: the receive CQE (@ok) of the WQE at @ctr
 * written, the WQE retired; false if the CQ overran. Inlined: @ok is
 * mostly constants. */
static inline __attribute__((always_inline)) bool only_complete(struct qpc *q, uint32_t ctr,
								const struct resp_recv_ok *ok)
{
	struct cqe e;

	resp_cqe_init(&e, q, ctr, WQE_WC_SUCCESS);
	resp_cqe_success(&e, ok);
	return resp_rq_retire(q, ctr, &e);
}

/*
 * The checks chk_length() and chk_write() make of an RDMA WRITE packet of
 * @role (@w; the QP's @mtu) that passes those before them, and where its
 * payload goes (*@host, set if it has any). The rkey, PD, REMOTE_WRITE
 * and bounds of the RETH range are checked on a FIRST or ONLY (none for an
 * ONLY of length 0); then every packet's own range is checked again, which
 * on a FIRST or ONLY, within that range through the same key, resolves the
 * same: one keys_check() serves. A MIDDLE or LAST is checked through the
 * WRITE in progress (r->wr), as the region may have gone meanwhile.
 */
static inline __attribute__((always_inline)) bool
write_len_key(struct nic *n, struct qpc *q, const struct resp_write *wr,
	      const struct resp_write_pkt *w, enum wqe_wire_role role, uint32_t mtu, uint8_t **host)
{
	bool reth = role == WQE_ROLE_FIRST || role == WQE_ROLE_ONLY;
	uint64_t va = reth ? w->va : wr->va;
	uint32_t rkey = reth ? w->rkey : wr->rkey;
	uint64_t range = role == WQE_ROLE_FIRST ? w->dma_len : w->len;

	switch (role) {
	case WQE_ROLE_ONLY:
		if (w->len > mtu || w->dma_len > MAX_MSG || w->len != w->dma_len)
			return false;
		if (!w->len)
			return true;
		break;
	case WQE_ROLE_FIRST:
		if (w->len != mtu || w->dma_len > MAX_MSG || w->len >= w->dma_len)
			return false;
		break;
	case WQE_ROLE_MIDDLE:
		if (w->len != mtu || w->len >= wr->resid)
			return false;
		break;
	default:
		if (!w->len || w->len > mtu || w->len != wr->resid)
			return false;
		break;
	}
	return keys_check(&n->keys, rkey, true, q->pd, va, range, WQE_ACCESS_REMOTE_WRITE, host) ==
	       KEY_OK;
}

/*
 * resp_rx()'s path for an RDMA WRITE packet of @role (ONLY with
 * immediate if @imm; FIRST, MIDDLE, LAST never @imm) that passes every
 * check, in one step: chk_psn() (in sequence; UC not dropping),
 * chk_op_seq() (FIRST, ONLY: no message open; MIDDLE, LAST: a WRITE
 * open), chk_op_valid() (REMOTE_WRITE, every packet; a QP still in RTR
 * goes the general way, which raises COMM_EST), @imm: chk_resource() (no
 * receive WQE held, one posted that decodes), chk_length() and chk_write()
 * (write_len_key()), exec_write(), accepted() (FIRST opens the WRITE,
 * LAST and ONLY close it and count the message), @imm: complete()
 * (RECV_RDMA_WITH_IMM, byte_len the RETH length), acknowledge(), and for a
 * lost CQE enter_error(). Inlined with @role and @imm constants.
 */
static inline __attribute__((always_inline)) bool write_pkt(struct nic *n, struct qpc *q,
							    const struct resp_write_pkt *w,
							    enum wqe_wire_role role, bool imm)
{
	struct eng_resp *r = &q->eng->resp;
	bool reth = role == WQE_ROLE_FIRST || role == WQE_ROLE_ONLY;
	bool ends = role == WQE_ROLE_LAST || role == WQE_ROLE_ONLY;
	uint8_t *host = NULL;
	struct resp_plan pl;
	bool cqe_ok = true;

	if (w->psn != r->epsn || r->open != (reth ? RESP_OPEN_NONE : RESP_OPEN_WRITE) ||
	    q->state == WQE_QPS_RTR || (q->type == WQE_QPT_UC && r->drop_msg) ||
	    !(q->access & WQE_ACCESS_REMOTE_WRITE) ||
	    !write_len_key(n, q, &r->wr, w, role, resp_mtu(q), &host))
		return false;
	/* Nothing is placed in the receive WQE: a plan of no bytes takes it
	 * and decodes it, as chk_resource() does. */
	if (imm && (r->wqe.valid || !resp_rq_plan_only(n, q, 0, &pl)))
		return false;
	if (role != WQE_ROLE_ONLY || w->len)
		mem_copy(host, w->payload, w->len);
	if (reth) {
		r->wr.va = w->va + w->len;
		r->wr.rkey = w->rkey;
		r->wr.len = w->dma_len;
		r->wr.resid = role == WQE_ROLE_ONLY ? 0 : w->dma_len - w->len;
	} else {
		r->wr.va += w->len;
		r->wr.resid -= w->len;
	}
	if (role == WQE_ROLE_FIRST)
		r->open = RESP_OPEN_WRITE;
	else if (role == WQE_ROLE_LAST)
		r->open = RESP_OPEN_NONE;
	fast_accepted(q, r, w->psn, w->len, imm ? WRITE_IMM_PATH : WRITE_ONLY_PATH, ends);
	if (imm) {
		const struct resp_recv_ok ok = {.byte_len = w->dma_len,
						.imm = w->imm,
						.write_imm = true,
						.has_imm = true,
						.se = w->se};

		cqe_ok = only_complete(q, pl.ctr, &ok);
	}
	/* A message whose completion was lost is not acknowledged (what
	 * came before it is: resp_only_cqe_lost() sends the ACK owed). */
	fast_acknowledge(n, q, r, w->psn, w->ackreq && cqe_ok);
	if (__builtin_expect(!cqe_ok, 0))
		resp_only_cqe_lost(n, q);
	return true;
}

bool resp_write_only(struct nic *n, struct qpc *q, const struct resp_write_pkt *w)
{
	return write_pkt(n, q, w, WQE_ROLE_ONLY, false);
}

bool resp_write_imm(struct nic *n, struct qpc *q, const struct resp_write_pkt *w)
{
	return write_pkt(n, q, w, WQE_ROLE_ONLY, true);
}

bool resp_write_first(struct nic *n, struct qpc *q, const struct resp_write_pkt *w)
{
	return write_pkt(n, q, w, WQE_ROLE_FIRST, false);
}

bool resp_write_middle(struct nic *n, struct qpc *q, const struct resp_write_pkt *w)
{
	return write_pkt(n, q, w, WQE_ROLE_MIDDLE, false);
}

bool resp_write_last(struct nic *n, struct qpc *q, const struct resp_write_pkt *w)
{
	return write_pkt(n, q, w, WQE_ROLE_LAST, false);
}

/* chk_length() of a SEND packet of @role with @len payload bytes: FIRST
 * and MIDDLE exactly the MTU, LAST 1 to MTU bytes, ONLY 0 to MTU. */
static inline __attribute__((always_inline)) bool send_len_ok(enum wqe_wire_role role, uint32_t len,
							      uint32_t mtu)
{
	switch (role) {
	case WQE_ROLE_FIRST:
	case WQE_ROLE_MIDDLE:
		return len == mtu;
	case WQE_ROLE_LAST:
		return len && len <= mtu;
	default:
		return len <= mtu;
	}
}

/*
 * resp_rx()'s path for a SEND packet of @role (ONLY or LAST with
 * immediate if @imm) that passes every check, in one step: chk_psn() (in
 * sequence; UC not dropping), chk_op_seq() (ONLY, FIRST: no message open,
 * so no receive WQE held; MIDDLE, LAST: a SEND open, its WQE held),
 * chk_op_valid() (a QP still in RTR goes the general way, which raises
 * COMM_EST), chk_resource() (ONLY, FIRST: a WQE posted that decodes),
 * chk_length() (send_len_ok()), exec_send() (the WQE's SGEs take the
 * payload: ONLY, FIRST from their start, MIDDLE, LAST from the held WQE's
 * cursor, the slot decoded again; planned before anything changes; FIRST
 * then holds the WQE), accepted() (FIRST opens the SEND, LAST closes it;
 * ONLY, LAST count the message), ONLY, LAST: complete() (RECV, byte_len
 * all the message's bytes; LAST forgets the held WQE), acknowledge(), and
 * for a lost CQE enter_error(). Inlined with @role and @imm constants.
 */
static inline __attribute__((always_inline)) bool send_pkt(struct nic *n, struct qpc *q,
							   const struct resp_send_pkt *s,
							   enum wqe_wire_role role, bool imm)
{
	struct eng_resp *r = &q->eng->resp;
	bool starts = role == WQE_ROLE_FIRST || role == WQE_ROLE_ONLY;
	bool ends = role == WQE_ROLE_LAST || role == WQE_ROLE_ONLY;
	struct resp_plan pl;
	bool cqe_ok = true;

	if (s->psn != r->epsn || r->open != (starts ? RESP_OPEN_NONE : RESP_OPEN_SEND) ||
	    (starts ? r->wqe.valid : !r->wqe.valid) || q->state == WQE_QPS_RTR ||
	    (q->type == WQE_QPT_UC && r->drop_msg) || !send_len_ok(role, s->len, resp_mtu(q)) ||
	    !(starts ? resp_rq_plan_only(n, q, s->len, &pl)
		     : resp_rq_plan_held(n, q, &r->wqe, s->len, &pl)))
		return false;
	if (role == WQE_ROLE_ONLY) {
		resp_rq_place_only(&pl, s->payload, s->len);
	} else {
		if (role == WQE_ROLE_FIRST)
			resp_rq_hold(&r->wqe, pl.ctr);
		resp_rq_place_held(&r->wqe, &pl, s->payload, s->len);
		r->open = ends ? RESP_OPEN_NONE : RESP_OPEN_SEND;
	}
	fast_accepted(q, r, s->psn, s->len,
		      ends ? (imm ? SEND_IMM_PATH : SEND_ONLY_PATH) : SEND_PART_PATH, ends);
	if (ends) {
		const struct resp_recv_ok ok = {
		    .byte_len = role == WQE_ROLE_ONLY ? s->len : (uint32_t)r->wqe.placed,
		    .imm = imm ? s->imm : 0,
		    .has_imm = imm,
		    .se = s->se};

		cqe_ok = only_complete(q, pl.ctr, &ok);
		if (role == WQE_ROLE_LAST) /* completed: forgotten, even an SRQ's */
			memset(&r->wqe, 0, sizeof(r->wqe));
	}
	/* A message whose completion was lost is not acknowledged (what
	 * came before it is: resp_only_cqe_lost() sends the ACK owed). */
	fast_acknowledge(n, q, r, s->psn, s->ackreq && cqe_ok);
	if (__builtin_expect(!cqe_ok, 0))
		resp_only_cqe_lost(n, q);
	return true;
}

bool resp_send_only(struct nic *n, struct qpc *q, const struct resp_send_pkt *s)
{
	return send_pkt(n, q, s, WQE_ROLE_ONLY, false);
}

bool resp_send_imm(struct nic *n, struct qpc *q, const struct resp_send_pkt *s)
{
	return send_pkt(n, q, s, WQE_ROLE_ONLY, true);
}

bool resp_send_first(struct nic *n, struct qpc *q, const struct resp_send_pkt *s)
{
	return send_pkt(n, q, s, WQE_ROLE_FIRST, false);
}

bool resp_send_middle(struct nic *n, struct qpc *q, const struct resp_send_pkt *s)
{
	return send_pkt(n, q, s, WQE_ROLE_MIDDLE, false);
}

bool resp_send_last(struct nic *n, struct qpc *q, const struct resp_send_pkt *s)
{
	return send_pkt(n, q, s, WQE_ROLE_LAST, false);
}

bool resp_send_last_imm(struct nic *n, struct qpc *q, const struct resp_send_pkt *s)
{
	return send_pkt(n, q, s, WQE_ROLE_LAST, true);
}
