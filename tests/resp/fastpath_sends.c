/* SPDX-License-Identifier: MIT */
#include "fastpath_sends.h"

#include <string.h>

#include "engine/services.h"
#include "common/bytes.h"
#include "engine/resp_int.h"
#include "testutil.h"

#define SOFF 1024u /* where in the region the receive buffers start */

static bool is_first(enum kind k)
{
	return k == K_SFIRST_RC || k == K_SFIRST_UC;
}

static bool is_middle(enum kind k)
{
	return k == K_SMIDDLE_RC || k == K_SMIDDLE_UC;
}

static bool is_last(enum kind k)
{
	return is_send_multi(k) && !is_first(k) && !is_middle(k);
}

/* The payload bytes of the SEND before the packet of @k. */
static uint32_t before(enum kind k)
{
	return is_first(k) ? 0 : is_middle(k) ? FRAME_MTU : 2 * FRAME_MTU;
}

bool send_applies(enum kind k, enum edit e)
{
	if (e <= E_QP_ERR)
		return true;
	switch (e) {
	case E_IMM_ZERO:
	case E_IMM_ONES:
	case E_IMM_TOP:
	case E_IMM_CUT:
	case E_HDRS_CUT:
		return has_imm(k);
	case E_OPCODE_IMM:
	case E_LAST_FULL:
	case E_LAST_ONE:
		return is_last(k);
	case E_ACKREQ_OFF:
	case E_OVER_MTU:
	case E_ZERO_LEN:
	case E_PAD_EMPTY:
	case E_NO_REMOTE_WRITE:
	case E_QP_RTR:
	case E_WRITE_OPEN:
	case E_RQ_BAD_SGE2:
	case E_RQ_SMALL:
	case E_RQ_EXACT:
	case E_RQ_MALFORMED:
	case E_RQ_SGES:
	case E_RQ_SGES_EDGE:
	case E_CQ_FULL:
	case E_PAYLOAD_SHORT:
	case E_PAYLOAD_LONG:
		return true;
	case E_SEND_OPEN:
	case E_RQ_EMPTY:
	case E_RQ_BAD_LKEY:
		return is_first(k);
	case E_NOT_OPEN:
	case E_WQE_FORGOTTEN:
	case E_MSG_LIMIT:
	case E_MSG_HUGE:
		return !is_first(k);
	case E_UC_DROPPING:
		return kind_type(k) == WQE_QPT_UC;
	case E_AFTER_PSN_NAK:
		return kind_type(k) == WQE_QPT_RC;
	default:
		return false;
	}
}

/* The changes after which every kind is taken as good, by both paths,
 * and checked in full (send_check()'s check_good()): the unchanged frame,
 * SE, no AckReq, a PSN NAK outstanding, no REMOTE_WRITE, any ImmDt,
 * receive buffers just large enough or in pieces, the CQ full, a LAST of
 * a full MTU or of one byte, a message of 2^31 bytes. */
static bool send_taken_whole(enum edit e)
{
	switch (e) {
	case E_NONE:
	case E_SE:
	case E_ACKREQ_OFF:
	case E_AFTER_PSN_NAK:
	case E_NO_REMOTE_WRITE:
	case E_IMM_ZERO:
	case E_IMM_ONES:
	case E_IMM_TOP:
	case E_RQ_EXACT:
	case E_RQ_SGES:
	case E_RQ_SGES_EDGE:
	case E_CQ_FULL:
	case E_LAST_FULL:
	case E_LAST_ONE:
	case E_MSG_LIMIT:
		return true;
	default:
		return false;
	}
}

/* The frames send_taken_whole() names (the CQ full: the completion lost
 * as the general path loses it), and the other changes the general path
 * takes as good too: BTH bits it does not read (SE on a FIRST or MIDDLE,
 * MigReq, FECN, BECN), IP fields neither path reads; a LAST of any length
 * from 1 to the MTU (pad bytes not counted, the ImmDt's bytes as payload
 * or the payload's first four as the ImmDt); a FIRST as an ONLY of a full
 * MTU, a MIDDLE as a LAST of one. */
bool send_goes_fast(enum kind k, enum edit e)
{
	if (send_taken_whole(e))
		return true;
	switch (e) {
	case E_SE_MIG:
	case E_FECN_BECN:
	case E_TTL_TOS:
	case E_IP_DF_CLEAR:
		return true;
	case E_PAD1:
	case E_PAD3:
	case E_PAYLOAD_SHORT:
	case E_PAYLOAD_LONG:
	case E_OPCODE_IMM:
		return is_last(k);
	case E_OPCODE_OTHER:
		return is_first(k) || is_middle(k);
	default:
		return false;
	}
}

/* The receive WQE's SGEs, as offsets into the region. */
struct layout {
	uint32_t off[4], len[4];
	bool bad[4]; /* named by a bad lkey */
	int n;
};

static void sge(struct layout *l, uint32_t off, uint32_t len, bool bad)
{
	l->off[l->n] = SOFF + off;
	l->len[l->n] = len;
	l->bad[l->n++] = bad;
}

/* The SGEs of the receive WQE the SEND of @k under @e finds: one of 4096
 * bytes, or as @e asks. */
static void layout_of(enum kind k, enum edit e, struct layout *l)
{
	uint32_t need = before(k) + frame_payload_len(k, e);

	memset(l, 0, sizeof(*l));
	switch (e) {
	case E_RQ_SMALL:
		/* one byte short of what the packet needs */
		sge(l, 0, need - 1, false);
		break;
	case E_RQ_EXACT:
		sge(l, 0, need, false);
		break;
	case E_RQ_BAD_LKEY:
		sge(l, 0, 4096, true);
		break;
	case E_RQ_BAD_SGE2:
		/* the packet reaches the second, bad, halfway through */
		sge(l, 0, before(k) + frame_payload_len(k, e) / 2, false);
		sge(l, 2200, 2048, true);
		break;
	case E_RQ_SGES:
		/* boundaries inside the FIRST (700) and the MIDDLE (1700) */
		sge(l, 0, 700, false);
		sge(l, 800, 1000, false);
		sge(l, 1900, 2048, false);
		break;
	case E_RQ_SGES_EDGE:
		/* boundaries where the FIRST and the MIDDLE end (the cursor
		 * at an SGE's end), and inside the LAST (2088) */
		sge(l, 0, 1024, false);
		sge(l, 1124, 1024, false);
		sge(l, 2248, 40, false);
		sge(l, 2388, 2048, false);
		break;
	default:
		sge(l, 0, 4096, false);
		break;
	}
}

/* Where the message's bytes [@from, @from + @len) land through @l, set in
 * @mem to the message's (@msg, by message offset) or to @fill. */
static void place(const struct layout *l, uint32_t from, uint32_t len, const uint8_t *msg,
		  uint8_t fill, uint8_t *mem)
{
	uint32_t at = 0;

	for (int j = 0; j < l->n; j++)
		for (uint32_t b = 0; b < l->len[j]; b++, at++)
			if (at >= from && at - from < len)
				mem[l->off[j] + b] = msg ? msg[at] : fill;
}

static void post(struct rt *t, const struct layout *l, uint8_t *region, uint32_t lkey)
{
	struct wqe_sge sg[4];

	for (int j = 0; j < l->n; j++)
		sg[j] = (struct wqe_sge){(uint64_t)(uintptr_t)(region + l->off[j]), l->len[j],
					 l->bad[j] ? lkey + 1 : lkey};
	rt_post_recv(t, SEND_WRID, sg, l->n);
}

void send_open(struct rt *t, enum kind k, enum edit e, uint8_t *region, uint32_t lkey,
	       uint32_t *psn)
{
	static uint8_t pay[FRAME_MTU];
	struct layout l;
	struct wqe_pkt p;

	layout_of(k, e, &l);
	if (e != E_RQ_EMPTY)
		post(t, &l, region, lkey);
	if (is_first(k) || e == E_NOT_OPEN || e == E_WRITE_OPEN)
		return;
	memset(pay, 0x3b, sizeof(pay));
	rt_req(t, &p, opcode_of(k, WQE_WIRE_RC_SEND_FIRST), (*psn)++);
	rt_feed(t, &p, pay, FRAME_MTU);
	if (is_last(k)) {
		rt_req(t, &p, opcode_of(k, WQE_WIRE_RC_SEND_MIDDLE), (*psn)++);
		rt_feed(t, &p, pay, FRAME_MTU);
	}
	CHECK_EQ(rt_resp(t)->open, RESP_OPEN_SEND);
	CHECK_EQ(rt_resp(t)->wqe.valid, 1);
	CHECK_EQ(rt_resp(t)->wqe.placed, before(k));
	/* States no packet leads to, the same on both sides: the WQE gone
	 * from under the open SEND; the SEND as long as 2^31 bytes less
	 * this packet (or one byte more), the cursor where it is. */
	if (e == E_WQE_FORGOTTEN)
		resp_rq_rewind(rt_resp(t));
	if (e == E_MSG_LIMIT || e == E_MSG_HUGE)
		rt_resp(t)->wqe.placed = MAX_MSG - frame_payload_len(k, e) + (e == E_MSG_HUGE);
}

/* The first frame sent is an ACKNOWLEDGE with @syndrome (the class of an
 * RNR NAK); its MSN @msn unless negative. */
static void check_aeth(const struct send_seen *s, uint8_t syndrome, int msn)
{
	struct wqe_pkt p;

	CHECK(s->nout >= 1);
	if (s->nout < 1)
		return;
	CHECK_EQ(wqe_pkt_parse(s->out, s->outlen, &p), 0);
	CHECK_EQ(p.bth.opcode, WQE_WIRE_RC_ACKNOWLEDGE);
	if ((syndrome & 0xe0u) == WQE_AETH_RNR_NAK)
		CHECK_EQ(p.aeth.syndrome & 0xe0u, WQE_AETH_RNR_NAK);
	else
		CHECK_EQ(p.aeth.syndrome, syndrome);
	if (msn >= 0)
		CHECK_EQ(p.aeth.msn, (uint32_t)msn);
}

/* The receive WQE completed in error (@st), nothing placed; RC: NAK
 * @syndrome; the QP then in ERR, or not. */
static void check_wqe_err(const struct send_seen *s, bool rc, int st, uint8_t syndrome, bool to_err)
{
	static uint8_t want[REGION];

	memset(want, 0x5c, sizeof(want));
	CHECK_MEM(s->mem, want, REGION);
	CHECK(s->nwc >= 1);
	if (s->nwc >= 1) {
		CHECK_EQ(s->wc[0].status, st);
		CHECK_EQ(s->wc[0].wr_id, SEND_WRID);
	}
	if (rc)
		check_aeth(s, syndrome, -1);
	else
		CHECK_EQ(s->nout, 0);
	CHECK_EQ(s->state, to_err ? WQE_QPS_ERR : WQE_QPS_RTS);
}

/* Nothing placed, no WQE completed but flushed: RC answered @syndrome
 * (the QP to ERR if @to_err), UC dropped the packet for @why. */
static void check_refused(const struct send_seen *s, bool rc, uint8_t syndrome, bool to_err,
			  enum resp_drop why)
{
	static uint8_t want[REGION];

	memset(want, 0x5c, sizeof(want));
	CHECK_MEM(s->mem, want, REGION);
	for (int i = 0; i < s->nwc; i++)
		CHECK_EQ(s->wc[i].status, WQE_WC_WR_FLUSH_ERR);
	if (rc) {
		check_aeth(s, syndrome, -1);
		CHECK_EQ(s->state, to_err ? WQE_QPS_ERR : WQE_QPS_RTS);
		if (!to_err)
			CHECK_EQ(s->ncqe, 0);
	} else {
		CHECK_EQ(s->ncqe, 0);
		CHECK_EQ(s->nout, 0);
		CHECK_EQ(s->rs->drops[why], 1);
		CHECK_EQ(s->state, WQE_QPS_RTS);
	}
}

/* A good frame: placed after the bytes before it, the SEND still open or
 * completed, the states of its path, the ACK it asked for. */
static void check_good(enum kind k, enum edit e, const struct send_seen *s)
{
	static uint8_t want[REGION];
	uint32_t len = frame_payload_len(k, e), path = 0;
	uint32_t total = e == E_MSG_LIMIT ? (uint32_t)MAX_MSG : before(k) + len;
	bool rc = kind_type(k) == WQE_QPT_RC, last = is_last(k), full = e == E_CQ_FULL;
	struct layout l;

	layout_of(k, e, &l);
	memset(want, 0x5c, sizeof(want));
	place(&l, before(k), len, NULL, 0xa7, want);
	CHECK_MEM(s->mem, want, REGION);
	for (int st = RS_CHK_PSN; st <= RS_EXECUTE; st++)
		path |= 1u << st;
	if (rc)
		path |= 1u << RS_ACKNOWLEDGE;
	if (last)
		path |= 1u << RS_COMPLETE;
	if (last && full)
		path |= 1u << RS_ERROR;
	CHECK_EQ(s->last_path, path);
	CHECK_EQ(s->open, last ? RESP_OPEN_NONE : RESP_OPEN_SEND);
	CHECK_EQ(s->wqe_valid, !last);
	CHECK_EQ(s->wqe_placed, last ? 0 : total);
	if (full) {
		/* no room: a LAST's completion lost, the QP to ERR */
		CHECK_EQ(s->ncqe, 0);
		CHECK_EQ(s->cq_lost >= 1, last);
		CHECK_EQ(s->state, last ? WQE_QPS_ERR : WQE_QPS_RTS);
		return;
	}
	CHECK_EQ(s->state, WQE_QPS_RTS);
	CHECK_EQ(s->msn, last);
	CHECK_EQ(s->rs->messages, last);
	CHECK_EQ(s->nout, rc && e != E_ACKREQ_OFF);
	if (rc && e != E_ACKREQ_OFF)
		check_aeth(s, WQE_AETH_ACK_UNLIMITED, last);
	CHECK_EQ(s->ncqe, last);
	CHECK_EQ(s->nwc, last);
	/* a solicited completion fires the arm */
	CHECK_EQ(s->cq_arm, last && e == E_SE ? CQ_ARM_NONE : CQ_ARM_SOLICITED);
	if (!last || s->nwc != 1)
		return;
	CHECK_EQ(s->wc[0].wr_id, SEND_WRID);
	CHECK_EQ(s->wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(s->wc[0].opcode, WQE_WC_RECV);
	CHECK_EQ(s->wc[0].byte_len, total);
	CHECK_EQ((s->wc[0].wc_flags & WQE_WC_WITH_IMM) != 0, has_imm(k));
	if (has_imm(k))
		CHECK_EQ(memcmp(&s->wc[0].imm_data, s->imm, 4), 0);
	CHECK_EQ(s->cqe[0].solicited, e == E_SE);
}

void send_check(enum kind k, enum edit e, enum wqe_format fmt, const struct send_seen *s)
{
	bool rc = kind_type(k) == WQE_QPT_RC;

	if (send_taken_whole(e)) {
		check_good(k, e, s);
		return;
	}
	switch (e) {
	case E_PAYLOAD_SHORT:
	case E_PAYLOAD_LONG:
		/* a FIRST or MIDDLE not of a full MTU: RC completes the
		 * WQE in error (class C), UC drops the message */
		if (is_last(k))
			check_good(k, e, s);
		else if (rc)
			check_wqe_err(s, rc, WQE_WC_REM_INV_REQ_ERR, WQE_AETH_NAK_INVALID_REQ,
				      true);
		else
			check_refused(s, rc, 0, false, RESP_DROP_LENGTH);
		break;
	case E_RQ_SMALL:
	case E_MSG_HUGE:
		/* the message does not fit (or is past 2^31 bytes):
		 * LOC_LEN_ERR (RC: NAK invalid request, the QP to ERR; UC
		 * stays up) */
		check_wqe_err(s, rc, WQE_WC_LOC_LEN_ERR, WQE_AETH_NAK_INVALID_REQ, rc);
		break;
	case E_RQ_BAD_LKEY:
	case E_RQ_BAD_SGE2:
		check_wqe_err(s, rc, WQE_WC_LOC_PROT_ERR, WQE_AETH_NAK_REM_OP_ERR, true);
		break;
	case E_RQ_MALFORMED:
		/* rxe refuses the slot; mlx5 reads lkey 0xffffffff in it */
		check_wqe_err(s, rc,
			      fmt == WQE_FORMAT_RXE ? WQE_WC_LOC_QP_OP_ERR : WQE_WC_LOC_PROT_ERR,
			      WQE_AETH_NAK_REM_OP_ERR, true);
		break;
	case E_RQ_EMPTY:
		/* RNR: RC asks for the packet again later */
		check_refused(s, rc, WQE_AETH_RNR_NAK, false, RESP_DROP_NO_WQE);
		break;
	case E_NOT_OPEN:
		check_refused(s, rc, WQE_AETH_NAK_INVALID_REQ, true, RESP_DROP_OP_SEQ);
		break;
	case E_WRITE_OPEN:
		/* UC: a FIRST abandons the WRITE and is taken; a MIDDLE or
		 * LAST is dropped */
		if (rc || !is_first(k))
			check_refused(s, rc, WQE_AETH_NAK_INVALID_REQ, true, RESP_DROP_OP_SEQ);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------------------ */
/* Whole SENDs.                                                             */

/* A whole SEND of @len bytes (@imm: its LAST with immediate) into a
 * receive WQE laid out as @lay asks, on a context with the fast paths
 * (@side 0) or without: its bytes placed into @mem (REGION bytes, 0x5c
 * before), its completion in *@wc (how many in *@nwc). */
static void whole_side(int side, bool v6, enum wqe_format fmt, enum wqe_qp_type ty, enum edit lay,
		       const uint8_t *msg, uint32_t len, bool imm, uint8_t *mem, struct wqe_wc *wc,
		       int *nwc)
{
	uint32_t npkt = (len + FRAME_MTU - 1) / FRAME_MTU, off = 0;
	uint8_t uc = ty == WQE_QPT_UC ? 0x20 : 0;
	uint64_t sends, fast, imms;
	struct layout l;
	struct wqe_mr *mr;
	struct rt t;

	rt_open_format(&t, ty, WQE_MTU_1024, fmt, v6);
	t.ctx->nic->no_fast_path = side == 1;
	memset(mem, 0x5c, REGION);
	mr = rt_reg(t.pd, mem, REGION, WQE_ACCESS_LOCAL_WRITE);
	layout_of(K_SFIRST_RC, lay, &l);
	post(&t, &l, mem, mr->lkey);
	sends = t.ctx->nic->fast_rx_sends;
	fast = t.ctx->nic->fast_rx;
	imms = t.ctx->nic->fast_rx_imm;
	for (uint32_t i = 0; i < npkt; i++) {
		bool last = i == npkt - 1;
		uint8_t op = i == 0  ? WQE_WIRE_RC_SEND_FIRST
			     : !last ? WQE_WIRE_RC_SEND_MIDDLE
			     : imm   ? WQE_WIRE_RC_SEND_LAST_WITH_IMMEDIATE
				     : WQE_WIRE_RC_SEND_LAST;
		uint32_t n = last ? len - off : FRAME_MTU;
		struct wqe_pkt p;

		rt_req(&t, &p, (uint8_t)(op | uc), RT_FIRST_PSN + i);
		p.bth.ackreq = last;
		p.immdt.imm = FRAME_IMM;
		rt_feed(&t, &p, msg + off, n);
		off += n;
	}
	CHECK_EQ(t.ctx->nic->fast_rx_sends - sends, side == 0 ? npkt : 0);
	CHECK_EQ(t.ctx->nic->fast_rx - fast, side == 0 ? npkt : 0);
	CHECK_EQ(t.ctx->nic->fast_rx_imm - imms, side == 0 && imm);
	CHECK_EQ(rt_resp(&t)->open, RESP_OPEN_NONE);
	CHECK_EQ(rt_resp(&t)->wqe.valid, 0);
	CHECK_EQ(rt_resp(&t)->msn, 1);
	CHECK_EQ(rt_resp(&t)->epsn, RT_FIRST_PSN + npkt);
	CHECK_EQ(rt_nresp(&t), ty == WQE_QPT_RC);
	if (ty == WQE_QPT_RC && !v6)
		rt_check_ack(&t, 0, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN + npkt - 1, 1);
	*nwc = rt_poll(&t, wc, 4);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

static void whole_one(bool v6, enum wqe_format fmt, enum wqe_qp_type ty, enum edit lay,
		      uint32_t len, bool imm)
{
	static uint8_t mem[2][REGION], msg[4 * FRAME_MTU], want[REGION];
	struct wqe_wc wc[2][4];
	int nwc[2];
	struct layout l;

	for (uint32_t i = 0; i < len; i++)
		msg[i] = (uint8_t)(i * 7 + i / 251 + 1);
	for (int side = 0; side < 2; side++)
		whole_side(side, v6, fmt, ty, lay, msg, len, imm, mem[side], wc[side], &nwc[side]);
	layout_of(K_SFIRST_RC, lay, &l);
	memset(want, 0x5c, sizeof(want));
	place(&l, 0, len, msg, 0, want);
	for (int side = 0; side < 2; side++) {
		const struct wqe_wc *c = &wc[side][0];

		CHECK_MEM(mem[side], want, REGION);
		CHECK_EQ(nwc[side], 1);
		CHECK_EQ(c->wr_id, SEND_WRID);
		CHECK_EQ(c->status, WQE_WC_SUCCESS);
		CHECK_EQ(c->opcode, WQE_WC_RECV);
		CHECK_EQ(c->byte_len, len);
		CHECK_EQ((c->wc_flags & WQE_WC_WITH_IMM) != 0, imm);
		if (imm)
			CHECK_EQ(get_be32((const uint8_t *)&c->imm_data), FRAME_IMM);
	}
	CHECK(memcmp(&wc[0][0], &wc[1][0], sizeof(wc[0][0])) == 0);
}

void send_whole(void)
{
	static const enum wqe_format fmts[] = {WQE_FORMAT_MLX5, WQE_FORMAT_RXE};
	static const enum edit lays[] = {E_NONE, E_RQ_SGES, E_RQ_SGES_EDGE};
	static const uint32_t lens[] = {2 * FRAME_MTU + WLEN, 3 * FRAME_MTU + 100};
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC};

	for (size_t f = 0; f < 2; f++)
		for (int v6 = 0; v6 < 2; v6++)
			for (size_t ty = 0; ty < 2; ty++)
				for (size_t la = 0; la < 3; la++)
					for (size_t le = 0; le < 2; le++)
						for (int imm = 0; imm < 2; imm++)
							whole_one(v6, fmts[f], types[ty], lays[la],
								  lens[le], imm);
}
