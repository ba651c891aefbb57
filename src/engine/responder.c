/* SPDX-License-Identifier: MIT */
/*
 * The responder state machine: one pass per request packet, IBTA vol. 1
 * ch. 9.7 (reliable and unreliable service) and 9.9 (responder error
 * behaviour), in the shape of Linux rxe_resp.c:
 *
 *   CHK_PSN -> CHK_OP_SEQ -> CHK_OP_VALID -> CHK_RESOURCE -> CHK_LENGTH ->
 *   CHK_RKEY -> EXECUTE -> {COMPLETE | READ_REPLY | ATOMIC_REPLY} ->
 *   ACKNOWLEDGE -> DONE
 *
 * with DUPLICATE and the error states on the side. Every check of a packet
 * runs before any of its bytes is placed.
 *
 * Responder error classes (IBTA vol. 1 ch. 9.9, as rxe applies them):
 *   B  PSN sequence error, RNR: NAK, nothing else changes.
 *   C  invalid request, remote access error (RC): NAK with the packet's
 *      PSN, the receive WQE in progress (if any) completes in error, the
 *      QP goes to ERR and both queues are flushed.
 *   A  malformed receive WQE (LOC_QP_OP_ERR) / local protection error
 *      (LOC_PROT_ERR): NAK remote operational error (RC), the WQE
 *      completes in error, QP to ERR (every transport).
 *   D  UC/UD: the packet, and for UC the rest of its message, is dropped
 *      silently; the receive WQE in progress is kept for the next message.
 *
 * Where we differ from rxe, and why:
 *   - A receive buffer too small for a SEND completes with LOC_LEN_ERR and
 *     RC NAKs invalid request (the requester sees REM_INV_REQ_ERR) and goes
 *     to ERR, as mlx5 and the verbs documentation have it. rxe finds the
 *     overrun in copy_data() (-EINVAL), which send_data_in() takes for a
 *     malformed WQE: LOC_QP_OP_ERR and NAK remote operational error. UC and
 *     UD write the LOC_LEN_ERR CQE and stay up (rxe drops silently).
 *   - A bad lkey in a receive WQE completes with LOC_PROT_ERR (mlx5; rxe
 *     says LOC_QP_OP_ERR), as the requester does for a bad send lkey.
 *   - A receive WQE is decoded in its format before it is used, when it is
 *     taken and again for every packet placed: a slot its decoder refuses
 *     is malformed (LOC_QP_OP_ERR). rxe checks only a shared receive
 *     queue's num_sge and otherwise follows the slot's count and cursor.
 *   - SEND_WITH_INV naming an rkey that is not live in the QP's PD: NAK
 *     invalid request, WQE in error, QP to ERR (rxe completes the WQE in
 *     error and moves to ERR but sends no NAK, so the requester sees
 *     success).
 *   - UC: a FIRST/ONLY arriving while a message is open abandons that
 *     message and is itself accepted (rxe drops both).
 *   - A READ is answered with all its response packets at once; rxe sends
 *     one per pass of its task.
 */
#include "engine/responder.h"

#include <string.h>

#include "common/mem.h"
#include "engine/flush.h"
#include "engine/resp_int.h"

const char *resp_state_str(enum resp_state s)
{
	static const char *const names[RS_COUNT] = {
		[RS_CHK_PSN] = "CHK_PSN",
		[RS_CHK_OP_SEQ] = "CHK_OP_SEQ",
		[RS_CHK_OP_VALID] = "CHK_OP_VALID",
		[RS_CHK_RESOURCE] = "CHK_RESOURCE",
		[RS_CHK_LENGTH] = "CHK_LENGTH",
		[RS_CHK_RKEY] = "CHK_RKEY",
		[RS_EXECUTE] = "EXECUTE",
		[RS_READ_REPLY] = "READ_REPLY",
		[RS_ATOMIC_REPLY] = "ATOMIC_REPLY",
		[RS_COMPLETE] = "COMPLETE",
		[RS_ACKNOWLEDGE] = "ACKNOWLEDGE",
		[RS_DUPLICATE] = "DUPLICATE",
		[RS_ERR_PSN_SEQ] = "ERR_PSN_SEQ",
		[RS_ERR_INV_REQ] = "ERR_INV_REQ",
		[RS_ERR_ACCESS] = "ERR_ACCESS",
		[RS_ERR_RNR] = "ERR_RNR",
		[RS_ERR_LENGTH] = "ERR_LENGTH",
		[RS_ERR_LOC_LEN] = "ERR_LOC_LEN",
		[RS_ERR_LOC_PROT] = "ERR_LOC_PROT",
		[RS_ERR_MALFORMED] = "ERR_MALFORMED",
		[RS_ERR_INVALIDATE] = "ERR_INVALIDATE",
		[RS_DROP] = "DROP",
		[RS_ERROR] = "ERROR",
		[RS_DONE] = "DONE",
	};

	return (unsigned)s < RS_COUNT ? names[s] : "unknown";
}

const char *resp_nak_str(enum resp_nak k)
{
	static const char *const names[RESP_NAK_COUNT] = {
		"PSN sequence error", "invalid request", "remote access error",
		"remote operational error",
	};

	return (unsigned)k < RESP_NAK_COUNT ? names[k] : "unknown";
}

const char *resp_drop_str(enum resp_drop d)
{
	static const char *const names[RESP_DROP_COUNT] = {
		"out of sequence", "unknown duplicate", "UC PSN gap", "UC opcode sequence",
		"no receive WQE", "length", "access",
	};

	return (unsigned)d < RESP_DROP_COUNT ? names[d] : "unknown";
}

/* ------------------------------------------------------------------------ */
/* Small helpers.                                                           */

static enum resp_state drop(struct resp_ctx *c, enum resp_drop why)
{
	c->drop = why;
	return RS_DROP;
}

/* Forgets the open message; a held receive WQE is kept for the next one. */
static void abandon_msg(struct eng_resp *r)
{
	r->open = RESP_OPEN_NONE;
	resp_rq_rewind(r);
}

/* UC class D: drop this packet and the rest of its message. */
static enum resp_state uc_drop_msg(struct resp_ctx *c, enum resp_drop why)
{
	c->r->drop_msg = true;
	abandon_msg(c->r);
	return drop(c, why);
}

/* RC class C: NAK @syndrome, complete the WQE in progress with @st, ERR. */
static enum resp_state class_c(struct resp_ctx *c, uint8_t syndrome, enum wqe_wc_status st)
{
	c->syndrome = syndrome;
	c->status = (uint8_t)st;
	c->goto_error = true;
	return RS_COMPLETE;
}

static bool is_continuation(const struct wqe_wire_opinfo *oi)
{
	return oi->role == WQE_ROLE_MIDDLE || oi->role == WQE_ROLE_LAST;
}

/* The message kind a continuation packet belongs to. */
static uint8_t open_kind(const struct wqe_wire_opinfo *oi)
{
	if (oi->kind == WQE_KIND_SEND)
		return RESP_OPEN_SEND;
	if (oi->kind == WQE_KIND_RDMA_WRITE)
		return RESP_OPEN_WRITE;
	return RESP_OPEN_NONE;
}

/* SEND FIRST/ONLY, and WRITE LAST/ONLY with immediate, take a receive WQE. */
static bool consumes_wqe(const struct wqe_wire_opinfo *oi)
{
	if (oi->kind == WQE_KIND_SEND)
		return role_starts(oi);
	return oi->kind == WQE_KIND_RDMA_WRITE && role_ends(oi) && (oi->hdrs & WQE_HDR_IMMDT);
}

/* The packets that end a message which completes a receive WQE. */
static bool completes_wqe(const struct wqe_wire_opinfo *oi)
{
	if (oi->kind == WQE_KIND_SEND)
		return role_ends(oi);
	return consumes_wqe(oi);
}

static uint32_t access_needed(const struct wqe_wire_opinfo *oi)
{
	switch (oi->kind) {
	case WQE_KIND_RDMA_WRITE: return WQE_ACCESS_REMOTE_WRITE;
	case WQE_KIND_READ_REQUEST: return WQE_ACCESS_REMOTE_READ;
	case WQE_KIND_COMPARE_SWAP:
	case WQE_KIND_FETCH_ADD: return WQE_ACCESS_REMOTE_ATOMIC;
	default: return 0;
	}
}

/* ------------------------------------------------------------------------ */
/* The checks.                                                              */

/*
 * Rule (IBTA ch. 9.7, responder PSN checks): a request whose PSN is ahead of the
 * expected PSN is an out-of-sequence error (class B): answer one NAK PSN
 * sequence error carrying the expected PSN, then drop silently until the
 * expected PSN arrives. A PSN behind it is a duplicate.
 * UC (ch. 9.8, class D): a PSN gap drops the rest of the message; a
 * FIRST or ONLY packet always resynchronises. UD has no sequence.
 */
static enum resp_state chk_psn(struct resp_ctx *c)
{
	struct eng_resp *r = c->r;
	int32_t d = psn_diff(c->p->bth.psn, r->epsn);

	switch (c->q->type) {
	case WQE_QPT_RC:
		if (d > 0) {
			r->stats.out_of_seq++;
			if (r->sent_psn_nak)
				return drop(c, RESP_DROP_OUT_OF_SEQ);
			r->sent_psn_nak = true;
			return RS_ERR_PSN_SEQ;
		}
		if (d < 0) {
			r->stats.duplicates++;
			return RS_DUPLICATE;
		}
		r->sent_psn_nak = false;
		return RS_CHK_OP_SEQ;
	case WQE_QPT_UC:
		if (!r->drop_msg && d == 0)
			return RS_CHK_OP_SEQ;
		if (role_starts(&c->oi)) {
			r->drop_msg = false;
			return RS_CHK_OP_SEQ;
		}
		return uc_drop_msg(c, RESP_DROP_UC_GAP);
	default:
		return RS_CHK_OP_SEQ;
	}
}

/*
 * Rule (IBTA ch. 9.7, opcode sequence): after a FIRST or MIDDLE of a SEND only a
 * SEND MIDDLE or LAST may follow, likewise for an RDMA WRITE; a MIDDLE or
 * LAST with no message open, or a new message while one is open, is an
 * invalid request (RC, class C). UC: the broken message is dropped; a new
 * FIRST/ONLY starts over (class D1).
 */
static enum resp_state chk_op_seq(struct resp_ctx *c)
{
	struct eng_resp *r = c->r;
	bool cont = is_continuation(&c->oi);

	if (c->q->type == WQE_QPT_UD)
		return RS_CHK_OP_VALID;
	if (r->open != RESP_OPEN_NONE && !(cont && open_kind(&c->oi) == r->open)) {
		if (c->q->type == WQE_QPT_RC)
			return RS_ERR_INV_REQ;
		if (!cont) {
			abandon_msg(r);
			return RS_CHK_OP_VALID;
		}
		return uc_drop_msg(c, RESP_DROP_OP_SEQ);
	}
	if (r->open == RESP_OPEN_NONE && cont) {
		if (c->q->type == WQE_QPT_RC)
			return RS_ERR_INV_REQ;
		return uc_drop_msg(c, RESP_DROP_OP_SEQ);
	}
	return RS_CHK_OP_VALID;
}

/*
 * IBTA 11.6.3 "Communication Established": an RC or UC QP in RTR has
 * received its first request (one past the PSN and opcode-sequence
 * checks, where rdmavt's rvt_comm_est() and qib raise it; mlx5 hardware
 * raises it as MLX5_EVENT_TYPE_COMM_EST; rxe never does). Once per entry
 * into RTR (resp_start() clears the flag). UD has no connection.
 */
static void comm_est(struct resp_ctx *c)
{
	if (c->q->type == WQE_QPT_UD || c->r->comm_est)
		return;
	c->r->comm_est = true;
	nic_event(c->n, NIC_EV_COMM_EST, c->q->qpn, NULL);
}

/*
 * The QP's own access flags (modify_qp qp_access_flags) must enable remote
 * READ, WRITE and atomics before any rkey is looked at. RC: an operation
 * the QP does not enable is an invalid request (rxe
 * RESPST_ERR_UNSUPPORTED_OPCODE, class C); UC: the WRITE is dropped.
 */
static enum resp_state chk_op_valid(struct resp_ctx *c)
{
	uint32_t need = access_needed(&c->oi);

	if (__builtin_expect(c->q->state == WQE_QPS_RTR, 0))
		comm_est(c);
	if ((c->q->access & need) == need)
		return RS_CHK_RESOURCE;
	if (c->q->type == WQE_QPT_RC)
		return RS_ERR_INV_REQ;
	return uc_drop_msg(c, RESP_DROP_ACCESS);
}

/*
 * READ and atomics need responder resources (max_dest_rd_atomic > 0; the
 * requester keeps within the number, the ring recycles the oldest). A SEND
 * FIRST/ONLY or a WRITE with immediate needs a receive WQE: none is an RNR
 * condition (RC: RNR NAK, class B; UC/UD: drop).
 */
static enum resp_state chk_resource(struct resp_ctx *c)
{
	if (c->oi.kind == WQE_KIND_READ_REQUEST || kind_is_atomic(&c->oi))
		return c->q->max_dest_rd_atomic ? RS_CHK_LENGTH : RS_ERR_INV_REQ;
	if (consumes_wqe(&c->oi) && !c->r->wqe.valid) {
		if (!resp_rq_take(c))
			return RS_ERR_RNR;
		if (!resp_rq_well_formed(c))
			return RS_ERR_MALFORMED;
	}
	return RS_CHK_LENGTH;
}

/*
 * Rule (IBTA ch. 9.7, length checks): a FIRST or MIDDLE packet carries exactly the path
 * MTU of payload, a LAST packet 1 to MTU bytes, an ONLY packet 0 to MTU;
 * a RETH DMA length is at most 2^31.
 */
static enum resp_state chk_length(struct resp_ctx *c)
{
	uint32_t mtu = resp_mtu(c->q), pl = c->p->payload_len;
	bool bad;

	switch (c->oi.role) {
	case WQE_ROLE_FIRST:
	case WQE_ROLE_MIDDLE: bad = pl != mtu; break;
	case WQE_ROLE_LAST: bad = pl == 0 || pl > mtu; break;
	default: bad = pl > mtu; break;
	}
	if ((c->oi.hdrs & WQE_HDR_RETH) && c->p->reth.dma_len > MAX_MSG)
		bad = true;
	return bad ? RS_ERR_LENGTH : RS_CHK_RKEY;
}

/*
 * RDMA WRITE: the rkey, its PD, REMOTE_WRITE and the bounds are checked
 * over the whole RETH length on the first packet, before any byte is
 * placed (a zero-length WRITE names no memory: nothing is checked); every
 * later packet is checked again for its own bytes (the region may have
 * gone meanwhile). The payloads add up to the RETH length exactly: FIRST
 * and MIDDLE leave bytes to come, LAST and ONLY carry what is left.
 */
static enum resp_state chk_write(struct resp_ctx *c)
{
	const struct wqe_pkt *p = c->p;
	struct resp_write *w = &c->r->wr;
	uint32_t pl = p->payload_len;
	uint8_t *host;

	if (c->oi.hdrs & WQE_HDR_RETH) {
		w->va = p->reth.va;
		w->rkey = p->reth.rkey;
		w->len = p->reth.dma_len;
		w->resid = p->reth.dma_len;
		if (w->len && keys_check(&c->n->keys, w->rkey, true, c->q->pd, w->va, w->len,
					 WQE_ACCESS_REMOTE_WRITE, &host) != KEY_OK)
			return RS_ERR_ACCESS;
	}
	if (role_ends(&c->oi) ? pl != w->resid : pl >= w->resid)
		return RS_ERR_LENGTH;
	c->host = NULL;
	if (pl && keys_check(&c->n->keys, w->rkey, true, c->q->pd, w->va, pl,
			     WQE_ACCESS_REMOTE_WRITE, &c->host) != KEY_OK)
		return RS_ERR_ACCESS;
	return RS_EXECUTE;
}

/*
 * RDMA READ: rkey, PD, REMOTE_READ and bounds over the RETH range (none
 * for length 0). Atomics: rkey, PD, REMOTE_ATOMIC and bounds over 8 bytes;
 * a VA that is not 8-byte aligned is an invalid request (IBTA: atomics
 * work on naturally aligned 64-bit words; rxe RESPST_ERR_MISALIGNED_ATOMIC).
 */
static enum resp_state chk_rkey(struct resp_ctx *c)
{
	const struct wqe_pkt *p = c->p;
	uint8_t *host;

	if (c->oi.kind == WQE_KIND_RDMA_WRITE)
		return chk_write(c);
	if (c->oi.kind == WQE_KIND_READ_REQUEST) {
		if (p->reth.dma_len &&
		    keys_check(&c->n->keys, p->reth.rkey, true, c->q->pd, p->reth.va,
			       p->reth.dma_len, WQE_ACCESS_REMOTE_READ, &host) != KEY_OK)
			return RS_ERR_ACCESS;
		return RS_EXECUTE;
	}
	if (kind_is_atomic(&c->oi)) {
		if (keys_check(&c->n->keys, p->atomiceth.rkey, true, c->q->pd, p->atomiceth.va, 8,
			       WQE_ACCESS_REMOTE_ATOMIC, &c->host) != KEY_OK)
			return RS_ERR_ACCESS;
		if ((p->atomiceth.va & 7) || ((uintptr_t)c->host & 7))
			return RS_ERR_INV_REQ;
	}
	return RS_EXECUTE;
}

/* ------------------------------------------------------------------------ */
/* Execution.                                                               */

/*
 * The packet is carried out: the sequence moves on (rxe execute()). The MSN
 * counts completed messages (IBTA ch. 9.7, AETH MSN), so it moves on the last
 * packet of a SEND or WRITE.
 */
static enum resp_state accepted(struct resp_ctx *c, uint8_t open)
{
	struct eng_resp *r = c->r;

	r->open = role_ends(&c->oi) ? RESP_OPEN_NONE : open;
	if (role_ends(&c->oi)) {
		r->msn = psn_add(r->msn, 1);
		r->stats.messages++;
	}
	r->epsn = psn_add(c->p->bth.psn, 1);
	r->ack_psn = r->epsn;
	if (completes_wqe(&c->oi))
		return RS_COMPLETE;
	return c->q->type == WQE_QPT_RC ? RS_ACKNOWLEDGE : RS_DONE;
}

/*
 * SEND_WITH_INVALIDATE (IBTA base memory management extensions): the rkey
 * in the IETH is
 * invalidated when the message completes; it must name a live region of
 * the QP's protection domain. keys_check() tests validity, then PD, then
 * access (none asked), then bounds: anything past the PD test means "live
 * and ours".
 */
static bool invalidate(struct resp_ctx *c)
{
	uint32_t key = c->p->ieth.rkey;
	enum key_err e;
	uint8_t *host;

	e = keys_check(&c->n->keys, key, true, c->q->pd, 0, 0, 0, &host);
	if (e == KEY_ERR_INVALID || e == KEY_ERR_PD)
		return false;
	return keys_invalidate_rkey(&c->n->keys, key);
}

static enum resp_state exec_send(struct resp_ctx *c)
{
	switch (resp_rq_place(c)) {
	case RESP_PLACE_LEN: return RS_ERR_LOC_LEN;
	case RESP_PLACE_PROT: return RS_ERR_LOC_PROT;
	case RESP_PLACE_MALFORMED: return RS_ERR_MALFORMED;
	default: break;
	}
	if ((c->oi.hdrs & WQE_HDR_IETH) && !invalidate(c))
		return RS_ERR_INVALIDATE;
	return accepted(c, RESP_OPEN_SEND);
}

static enum resp_state exec_write(struct resp_ctx *c)
{
	struct resp_write *w = &c->r->wr;
	uint32_t pl = c->p->payload_len;

	if (pl)
		memcpy(c->host, c->p->payload, pl);
	w->va += pl;
	w->resid -= pl;
	c->r->stats.bytes_placed += pl;
	return accepted(c, RESP_OPEN_WRITE);
}

/* C9-148: the MSN of an RDMA READ moves on when the request is accepted;
 * the READ takes one PSN per response packet. */
static enum resp_state exec_read(struct resp_ctx *c)
{
	struct eng_resp *r = c->r;
	const struct wqe_pkt *p = c->p;

	r->msn = psn_add(r->msn, 1);
	r->stats.messages++;
	c->res = resp_res_new(c, RESP_RES_READ);
	c->replay = false;
	c->rd_psn = p->bth.psn;
	c->rd_va = p->reth.va;
	c->rd_len = p->reth.dma_len;
	r->epsn = psn_add(c->res->last_psn, 1);
	r->open = RESP_OPEN_NONE;
	return RS_READ_REPLY;
}

static enum resp_state execute(struct resp_ctx *c)
{
	switch (c->oi.kind) {
	case WQE_KIND_SEND: return exec_send(c);
	case WQE_KIND_RDMA_WRITE: return exec_write(c);
	case WQE_KIND_READ_REQUEST: return exec_read(c);
	default: return RS_ATOMIC_REPLY;
	}
}

static enum resp_state read_reply(struct resp_ctx *c)
{
	return resp_send_read(c) ? RS_DONE : RS_ERR_ACCESS;
}

/*
 * Rule (IBTA ch. 9.7, duplicate atomics): an atomic executes once and a
 * duplicate is never executed again; its original value is kept in the responder
 * resource, and a duplicate is answered from there.
 */
static enum resp_state atomic_reply(struct resp_ctx *c)
{
	struct eng_resp *r = c->r;

	if (!c->replay) {
		c->res = resp_res_new(c, RESP_RES_ATOMIC);
		c->res->orig = resp_atomic_exec(c);
		r->stats.atomics++;
		r->msn = psn_add(r->msn, 1);
		r->stats.messages++;
		r->epsn = psn_add(c->p->bth.psn, 1);
		r->ack_psn = r->epsn;
		r->open = RESP_OPEN_NONE;
	}
	return RS_ACKNOWLEDGE;
}

/* The receive WQE in progress, if any, completes (with c->status). A CQ
 * overrun is class G: the QP goes to ERR. */
static enum resp_state complete(struct resp_ctx *c)
{
	if (c->r->wqe.valid) {
		c->wqe_cqe = resp_rq_complete(c) ? RESP_CQE_WRITTEN : RESP_CQE_LOST;
		if (c->wqe_cqe == RESP_CQE_LOST)
			c->goto_error = true;
	}
	if (c->q->type == WQE_QPT_RC)
		return RS_ACKNOWLEDGE;
	return c->goto_error ? RS_ERROR : RS_DONE;
}

/*
 * Rule (IBTA ch. 9.7, coalesced acknowledgement): the responder answers a
 * request with AckReq set, every atomic (ATOMIC_ACKNOWLEDGE), and every
 * error (NAK); an ACK carries the PSN of the packet it answers and the
 * current MSN. RC only. The ACK of a request with AckReq is owed until the
 * NIC has taken the frames that arrived together (resp_ack_later()), so
 * one ACK answers a burst, as the IBTA allows and mlx5 hardware does (rxe
 * sends one per request); anything else the QP sends goes after it.
 */
static enum resp_state acknowledge(struct resp_ctx *c)
{
	if (c->q->type == WQE_QPT_RC) {
		if (c->syndrome != WQE_AETH_ACK_UNLIMITED)
			resp_send_ack(c, c->syndrome, c->p->bth.psn);
		else if (kind_is_atomic(&c->oi))
			resp_send_atomic_ack(c);
		else if (c->p->bth.ackreq && c->wqe_cqe != RESP_CQE_LOST)
			/* a message whose completion was lost is not acknowledged */
			resp_ack_later(c->n, c->q, c->p->bth.psn);
	}
	return c->goto_error ? RS_ERROR : RS_DONE;
}

/* A READ retried by the requester must ask for (part of) what the original
 * asked for (rxe duplicate_request()). */
static bool read_is_subset(const struct resp_res *res, const struct wqe_reth *reth)
{
	return reth->rkey == res->rkey && reth->va >= res->va && reth->dma_len <= res->len &&
	       reth->va - res->va <= (uint64_t)(res->len - reth->dma_len);
}

/*
 * Rule (IBTA ch. 9.7 duplicates, C9-105 as rxe cites it): a duplicate SEND or WRITE is not
 * executed again but acknowledged again, with the PSN of the last request
 * executed and the current MSN; a duplicate READ is answered again from its
 * responder resource (from the PSN asked for); a duplicate atomic gets its
 * saved original value, never a second execution. A duplicate READ/atomic
 * that matches no resource is dropped (class D).
 */
static enum resp_state duplicate(struct resp_ctx *c)
{
	const struct wqe_pkt *p = c->p;
	struct resp_res *res;

	if (c->oi.kind == WQE_KIND_SEND || c->oi.kind == WQE_KIND_RDMA_WRITE) {
		resp_send_ack(c, WQE_AETH_ACK_UNLIMITED, (c->r->ack_psn - 1) & PSN_MASK);
		return RS_DONE;
	}
	res = resp_res_find(c->r, c->q, p->bth.psn);
	c->res = res;
	c->replay = true;
	if (c->oi.kind == WQE_KIND_READ_REQUEST) {
		if (!res || res->kind != RESP_RES_READ || !read_is_subset(res, &p->reth))
			return drop(c, RESP_DROP_DUP_UNKNOWN);
		c->rd_psn = p->bth.psn;
		c->rd_va = p->reth.va;
		c->rd_len = p->reth.dma_len;
		return RS_READ_REPLY;
	}
	if (!res || res->kind != RESP_RES_ATOMIC || res->first_psn != p->bth.psn)
		return drop(c, RESP_DROP_DUP_UNKNOWN);
	return RS_ATOMIC_REPLY;
}

/* ------------------------------------------------------------------------ */
/* Errors.                                                                  */

/* Class B: NAK PSN sequence error with the expected PSN; drop the packet. */
static enum resp_state err_psn_seq(struct resp_ctx *c)
{
	resp_send_ack(c, WQE_AETH_NAK_PSN_SEQ_ERR, c->r->epsn);
	return RS_DONE;
}

static enum resp_state err_inv_req(struct resp_ctx *c)
{
	return class_c(c, WQE_AETH_NAK_INVALID_REQ, WQE_WC_REM_INV_REQ_ERR);
}

/* rkey, PD, access or bounds: RC class C with NAK remote access error;
 * UC class D (drop the message). */
static enum resp_state err_access(struct resp_ctx *c)
{
	if (c->q->type == WQE_QPT_RC)
		return class_c(c, WQE_AETH_NAK_REM_ACCESS_ERR, WQE_WC_REM_ACCESS_ERR);
	return uc_drop_msg(c, RESP_DROP_ACCESS);
}

/* Class B: RNR NAK carrying the QP's minimum RNR timer and the packet's
 * PSN; the requester retries that packet. UC/UD: class D. */
static enum resp_state err_rnr(struct resp_ctx *c)
{
	if (c->q->type == WQE_QPT_RC) {
		resp_send_ack(c, wqe_aeth_rnr_nak(c->q->min_rnr_timer), c->p->bth.psn);
		return RS_DONE;
	}
	if (c->q->type == WQE_QPT_UC)
		return uc_drop_msg(c, RESP_DROP_NO_WQE);
	return drop(c, RESP_DROP_NO_WQE);
}

static enum resp_state err_length(struct resp_ctx *c)
{
	if (c->q->type == WQE_QPT_RC)
		return class_c(c, WQE_AETH_NAK_INVALID_REQ, WQE_WC_REM_INV_REQ_ERR);
	if (c->q->type == WQE_QPT_UC)
		return uc_drop_msg(c, RESP_DROP_LENGTH);
	return drop(c, RESP_DROP_LENGTH);
}

/* The message does not fit the receive WQE: LOC_LEN_ERR (see the top). */
static enum resp_state err_loc_len(struct resp_ctx *c)
{
	c->status = WQE_WC_LOC_LEN_ERR;
	if (c->q->type == WQE_QPT_RC) {
		c->syndrome = WQE_AETH_NAK_INVALID_REQ;
		c->goto_error = true;
	} else if (c->q->type == WQE_QPT_UC) {
		c->r->drop_msg = true;
		c->r->open = RESP_OPEN_NONE;
	}
	return RS_COMPLETE;
}

/* Class A: a receive WQE the NIC cannot use (bad lkey, PD, LOCAL_WRITE or
 * bounds): NAK remote operational error, LOC_PROT_ERR, QP to ERR. */
static enum resp_state err_loc_prot(struct resp_ctx *c)
{
	c->status = WQE_WC_LOC_PROT_ERR;
	c->syndrome = WQE_AETH_NAK_REM_OP_ERR;
	c->goto_error = true;
	return RS_COMPLETE;
}

/* Class A: a receive WQE its format's decoder refuses (rxe: num_sge past
 * the slot, lengths that do not add up, a cursor not at the start): NAK
 * remote operational error, LOC_QP_OP_ERR (rxe RESPST_ERR_MALFORMED_WQE),
 * QP to ERR. Nothing of the slot past its header is read. */
static enum resp_state err_malformed(struct resp_ctx *c)
{
	c->status = WQE_WC_LOC_QP_OP_ERR;
	c->syndrome = WQE_AETH_NAK_REM_OP_ERR;
	c->goto_error = true;
	return RS_COMPLETE;
}

static enum resp_state err_invalidate(struct resp_ctx *c)
{
	return class_c(c, WQE_AETH_NAK_INVALID_REQ, WQE_WC_REM_INV_REQ_ERR);
}

static enum resp_state do_drop(struct resp_ctx *c)
{
	c->r->stats.drops[c->drop]++;
	return RS_DONE;
}

/*
 * Which asynchronous error tells the application, if any (IBTA 11.6.3
 * affiliated asynchronous errors: those a completion cannot report).
 * Class C with a receive WQE in progress completes it with the error: no
 * event. Without one (an RDMA WRITE, READ or atomic), the QP reports
 * "Invalid Request Local Work Queue Error" (QP_REQ_ERR) or "Local Access
 * Violation Work Queue Error" (QP_ACCESS_ERR), after the NAK it sent, as
 * mlx5 does (MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR, _WQ_ACCESS_ERROR; rxe
 * raises none). A receive completion lost to an overrun (class G) is a
 * "Local Work Queue Catastrophic Error" (QP_FATAL).
 */
static int error_event(const struct resp_ctx *c)
{
	if (c->wqe_cqe == RESP_CQE_WRITTEN)
		return -1;
	if (c->wqe_cqe == RESP_CQE_NONE && c->syndrome == WQE_AETH_NAK_INVALID_REQ)
		return NIC_EV_QP_REQ_ERR;
	if (c->wqe_cqe == RESP_CQE_NONE && c->syndrome == WQE_AETH_NAK_REM_ACCESS_ERR)
		return NIC_EV_QP_ACCESS_ERR;
	return NIC_EV_QP_FATAL;
}

/* The responder moves the QP to ERR: both queues are flushed (IBTA
 * 10.7.3.1); later packets are dropped by the receive filter. */
static enum resp_state enter_error(struct resp_ctx *c)
{
	int ev = error_event(c);

	/* The requests completed before this one keep their ACK (coalesced
	 * and not yet sent): without it their requester retries into a QP in
	 * ERR and reports RETRY_EXC_ERR for messages that were delivered. */
	if (c->q->type == WQE_QPT_RC)
		resp_ack_owed(c);
	abandon_msg(c->r);
	qpc_set_state(c->q, WQE_QPS_ERR);
	flush_qp(c->n, c->q);
	if (ev >= 0)
		nic_event(c->n, (enum nic_event)ev, c->q->qpn, NULL);
	return RS_DONE;
}

/* ------------------------------------------------------------------------ */

typedef enum resp_state (*resp_handler)(struct resp_ctx *c);

static const resp_handler handlers[RS_COUNT] = {
	[RS_CHK_PSN] = chk_psn,
	[RS_CHK_OP_SEQ] = chk_op_seq,
	[RS_CHK_OP_VALID] = chk_op_valid,
	[RS_CHK_RESOURCE] = chk_resource,
	[RS_CHK_LENGTH] = chk_length,
	[RS_CHK_RKEY] = chk_rkey,
	[RS_EXECUTE] = execute,
	[RS_READ_REPLY] = read_reply,
	[RS_ATOMIC_REPLY] = atomic_reply,
	[RS_COMPLETE] = complete,
	[RS_ACKNOWLEDGE] = acknowledge,
	[RS_DUPLICATE] = duplicate,
	[RS_ERR_PSN_SEQ] = err_psn_seq,
	[RS_ERR_INV_REQ] = err_inv_req,
	[RS_ERR_ACCESS] = err_access,
	[RS_ERR_RNR] = err_rnr,
	[RS_ERR_LENGTH] = err_length,
	[RS_ERR_LOC_LEN] = err_loc_len,
	[RS_ERR_LOC_PROT] = err_loc_prot,
	[RS_ERR_MALFORMED] = err_malformed,
	[RS_ERR_INVALIDATE] = err_invalidate,
	[RS_DROP] = do_drop,
	[RS_ERROR] = enter_error,
};

_Static_assert(RS_COUNT <= 32, "eng_resp.last_path is a 32-bit mask");

void resp_start(struct nic *n, struct qpc *q)
{
	struct eng_resp *r = &q->eng->resp;
	struct resp_stats st = r->stats;
	struct resp_res *res = r->res;
	uint32_t cap = r->res_cap;

	(void)n;
	memset(r, 0, sizeof(*r));
	if (res)
		memset(res, 0, cap * sizeof(*res));
	r->res = res;
	r->res_cap = cap;
	r->stats = st;
	r->epsn = q->rq_psn & PSN_MASK;
	r->ack_psn = r->epsn;
}

void resp_modified(struct qpc *q)
{
	q->eng->resp.ack.len = 0;
}

/* A pass's context for @p (NULL: none) on @q: nothing known yet, an ACK
 * to answer, a successful completion. */
static void ctx_init(struct resp_ctx *c, struct nic *n, struct qpc *q, const struct wqe_pkt *p)
{
	mem_clear(c, sizeof(*c)); /* once per request packet: no rep stos */
	c->n = n;
	c->q = q;
	c->r = &q->eng->resp;
	c->p = p;
	c->syndrome = WQE_AETH_ACK_UNLIMITED;
	c->status = WQE_WC_SUCCESS;
}

void resp_only_cqe_lost(struct nic *n, struct qpc *q)
{
	struct resp_ctx c;

	ctx_init(&c, n, q, NULL);
	c.wqe_cqe = RESP_CQE_LOST;
	q->eng->resp.last_path |= 1u << RS_ERROR;
	enter_error(&c);
}

void resp_rx(struct nic *n, struct qpc *q, const struct wqe_pkt *p)
{
	struct resp_ctx c;
	enum resp_state s = RS_CHK_PSN;

	ctx_init(&c, n, q, p);
	if (wqe_wire_opcode_info(p->bth.opcode, &c.oi) || c.oi.is_response ||
	    c.oi.kind == WQE_KIND_CNP)
		return;
	c.r->stats.requests++;
	c.r->last_path = 0;
	while (s != RS_DONE) {
		c.r->last_path |= 1u << s;
		s = handlers[s](&c);
	}
}
