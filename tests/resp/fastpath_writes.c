/* SPDX-License-Identifier: MIT */
#include "fastpath_writes.h"

#include "engine/nic.h"
#include "engine/resp_int.h"
#include "testutil.h"

static bool is_first(enum kind k)
{
	return k == K_WFIRST_RC || k == K_WFIRST_UC;
}

static bool is_last(enum kind k)
{
	return k == K_WLAST_RC || k == K_WLAST_UC;
}

/* The payload bytes of the WRITE before the packet of @k. */
static uint32_t before(enum kind k)
{
	return is_first(k) ? 0 : is_last(k) ? 2 * FRAME_MTU : FRAME_MTU;
}

bool multi_applies(enum kind k, enum edit e)
{
	if (e <= E_QP_ERR)
		return true;
	switch (e) {
	case E_RETH_LONGER:
	case E_RETH_SHORTER:
	case E_RKEY:
	case E_VA_PAST_END:
	case E_RETH_PAST_END:
	case E_RETH_HUGE:
	case E_WRITE_OPEN:
	case E_HDRS_CUT:
		return is_first(k);
	case E_ACKREQ_OFF:
	case E_OVER_MTU:
	case E_ZERO_LEN:
	case E_PAD_EMPTY:
	case E_OPCODE_IMM:
	case E_NO_REMOTE_WRITE:
	case E_QP_RTR:
	case E_SEND_OPEN:
	case E_PAYLOAD_SHORT:
		return true;
	case E_UC_DROPPING:
		return kind_type(k) == WQE_QPT_UC;
	case E_AFTER_PSN_NAK:
		return kind_type(k) == WQE_QPT_RC;
	case E_NOT_OPEN:
	case E_RKEY_DEREG:
	case E_RKEY_SHRUNK:
		return !is_first(k);
	case E_WRITE_ENDS:
		return !is_last(k);
	case E_PAYLOAD_LONG:
	case E_LAST_FULL:
		return is_last(k);
	default:
		return false;
	}
}

/* The unchanged frames, and the changes the general path takes as good
 * too: BTH bits it does not read (SE without an immediate, MigReq, FECN,
 * BECN), IP fields neither path reads, no AckReq, a PSN NAK outstanding
 * (the expected PSN clears it), another RETH length still above the MTU,
 * a LAST of a whole MTU. */
bool multi_goes_fast(enum kind k, enum edit e)
{
	switch (e) {
	case E_NONE:
	case E_SE_MIG:
	case E_SE:
	case E_FECN_BECN:
	case E_TTL_TOS:
	case E_IP_DF_CLEAR:
	case E_ACKREQ_OFF:
	case E_AFTER_PSN_NAK:
	case E_LAST_FULL:
		return true;
	case E_RETH_LONGER:
	case E_RETH_SHORTER:
		return is_first(k);
	default:
		return false;
	}
}

void multi_open(struct rt *t, enum kind k, enum edit e, uint64_t va, uint32_t rkey, uint32_t *psn)
{
	static uint8_t pay[FRAME_MTU];
	struct wqe_pkt p;

	/* UC: the SEND FIRST then abandons the WRITE, leaving its state */
	if (!is_multi(k) || is_first(k) || e == E_NOT_OPEN ||
	    (e == E_SEND_OPEN && kind_type(k) == WQE_QPT_RC))
		return;
	memset(pay, 0x3b, sizeof(pay));
	rt_req(t, &p, opcode_of(k, WQE_WIRE_RC_RDMA_WRITE_FIRST), (*psn)++);
	p.reth.va = va;
	p.reth.rkey = rkey;
	p.reth.dma_len = write_msg_len(k, e);
	rt_feed(t, &p, pay, FRAME_MTU);
	if (is_last(k)) {
		rt_req(t, &p, opcode_of(k, WQE_WIRE_RC_RDMA_WRITE_MIDDLE), (*psn)++);
		rt_feed(t, &p, pay, FRAME_MTU);
	}
	CHECK_EQ(rt_resp(t)->open, RESP_OPEN_WRITE);
	CHECK_EQ(rt_resp(t)->wr.resid, write_msg_len(k, e) - before(k));
}

void multi_key_edit(struct rt *t, enum kind k, enum edit e, struct wqe_mr **mr)
{
	struct key_table *keys = &t->ctx->nic->keys;
	uint32_t i = (*mr)->rkey >> 8;

	if (e == E_RKEY_DEREG) {
		CHECK_EQ(wqe_dereg_mr(*mr), 0);
		*mr = NULL;
	} else if (e == E_RETH_HUGE) {
		/* as if registered past the RETH length: only the length
		 * check refuses it */
		CHECK(i < keys->cap && keys->e[i].valid);
		keys->e[i].length = VA_OFF + (1ull << 31) + 2;
	} else if (e == E_RKEY_SHRUNK) {
		/* as if re-registered shorter under the same key: this
		 * packet's range leaves it by 8 bytes */
		CHECK(i < keys->cap && keys->e[i].valid);
		keys->e[i].length = VA_OFF + before(k) + 8;
	}
}

void multi_check(enum kind k, enum edit e, const struct multi_seen *s, uint64_t base)
{
	uint32_t msg = write_msg_len(k, e), at = VA_OFF + before(k);
	uint32_t len = is_last(k) ? msg - before(k) : FRAME_MTU;
	uint32_t path = 0;
	bool rc = kind_type(k) == WQE_QPT_RC;

	for (int st = RS_CHK_PSN; st <= RS_EXECUTE; st++)
		path |= 1u << st;
	if (rc)
		path |= 1u << RS_ACKNOWLEDGE;
	CHECK_EQ(rt_canary_bad(s->mem, REGION, at, len, 0x5c), 0);
	CHECK_EQ(s->mem[at], 0xa7);
	CHECK_EQ(s->mem[at + len - 1], 0xa7);
	CHECK_EQ(s->last_path, path);
	CHECK_EQ(s->nout, rc && e != E_ACKREQ_OFF);
	CHECK_EQ(s->wr_va, base + at + len);
	CHECK_EQ(s->wr_len, msg);
	CHECK_EQ(s->wr_resid, msg - before(k) - len);
	CHECK_EQ(s->open, is_last(k) ? RESP_OPEN_NONE : RESP_OPEN_WRITE);
	CHECK_EQ(s->msn, is_last(k));
	CHECK_EQ(s->messages, is_last(k));
}
