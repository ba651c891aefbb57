/* SPDX-License-Identifier: MIT */
/*
 * The requester. It knows what a NIC knows: the ring bytes up to the
 * doorbell record, the QP context, the key table, and host memory reached
 * through a key. It decodes every WQE it processes and never sees the
 * software Work Request.
 *
 * Processing-time checks, in this order, before any payload byte is read:
 *   1. the WQE is well-formed (size within the posted blocks, decodes, names
 *      this QP)                                              LOC_QP_OP_ERR
 *   2. its opcode is legal on the QP's transport             LOC_QP_OP_ERR
 *   3. the message length is at most 2^31                   LOC_LEN_ERR
 *      (a UD message over the MTU is no error: no packet, a successful
 *      completion, IBTA C10-93.1.1, as rxe; its SGEs are not checked)
 *   4. every SGE's lkey resolves to a valid region of the QP's PD, with
 *      LOCAL_WRITE where the SGE is a destination (READ, atomics), and the
 *      SGE lies inside it                                    LOC_PROT_ERR
 * mlx5 reports a bad lkey as LOC_PROT_ERR (syndrome 0x04) and rxe, since
 * Linux 5.13, as LOC_QP_OP_ERR; we follow mlx5, the hardware reference.
 * A failed WQE produces no packet, completes with its status even when
 * unsignaled (IBTA 10.7.3.1), moves the QP to ERR, and every later WQE is
 * flushed.
 */
#include "engine/requester.h"

#include <assert.h>
#include <string.h>

#include "engine/completer.h"
#include "engine/flush.h"
#include "engine/psn.h"
#include "common/limits.h"
#include "common/mem.h"
#include "common/mtu.h"
#include "wire/layout.h"
#include "wire/pktz_int.h"
#include "wqe/packetize.h"

/* What an RC WQE's in-flight entry holds fits its fields (nic.h). */
static_assert(MAX_MSG <= UINT32_MAX && MAX_MSG / 256 < (1u << 24) && WQE_MAX_BLOCKS <= 0xff &&
		      WQE_OP_COUNT <= 0x80,
	      "struct inflight holds any RC WQE");

struct fetched {
	uint8_t buf[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];
	struct wqe_desc d;
	struct wqe_iov iov[WQE_DESC_MAX_SGE];
	uint32_t niov;
	uint32_t start;
	uint32_t nblocks;
	bool decoded;
	bool ud_oversize;       /* a UD message over the MTU: sent as nothing */
	enum wqe_check failed;  /* which check failed */
	uint32_t failed_sge;
	const char *why;
};

static enum wqe_wc_status refuse(struct fetched *f, enum wqe_check c, const char *why,
				 enum wqe_wc_status st)
{
	f->failed = c;
	f->why = why;
	return st;
}

static bool op_is_rd_atomic(enum wqe_op op)
{
	return op == WQE_OP_RDMA_READ || op == WQE_OP_ATOMIC_CMP_AND_SWP ||
	       op == WQE_OP_ATOMIC_FETCH_AND_ADD;
}

/* Step 1: fetch the WQE at block counter @start (@avail blocks posted
 * from there), block by block, and decode it. f->nblocks: the blocks read. */
static enum wqe_wc_status fetch(struct qpc *q, uint32_t start, uint32_t avail,
				struct fetched *f)
{
	struct wqe_decode_ctx dctx = {.qp_type = q->type, .max_bytes = 0, .qpn = q->qpn};
	uint32_t size = 0;

	f->start = start;
	f->nblocks = 1;
	f->decoded = false;
	f->failed_sge = 0;
	memcpy(f->buf, sq_ring_block(q->sq, f->start), WQE_BLOCK_SIZE);
	if (q->sq->slot_blocks)
		size = q->sq->slot_blocks * WQE_BLOCK_SIZE; /* rxe: one slot each */
	else if (wqe_peek_size(q->format, f->buf, WQE_BLOCK_SIZE, &size) || size == 0)
		return refuse(f, WQE_CHECK_WELL_FORMED, "unreadable WQE size",
			      WQE_WC_LOC_QP_OP_ERR);
	if (size / WQE_BLOCK_SIZE > avail)
		return refuse(f, WQE_CHECK_WELL_FORMED, "WQE runs past the doorbell record",
			      WQE_WC_LOC_QP_OP_ERR);
	f->nblocks = size / WQE_BLOCK_SIZE;
	for (uint32_t i = 1; i < f->nblocks; i++)
		memcpy(f->buf + i * WQE_BLOCK_SIZE, sq_ring_block(q->sq, f->start + i),
		       WQE_BLOCK_SIZE);
	dctx.max_bytes = f->nblocks * WQE_BLOCK_SIZE;
	{
		enum wqe_decode_err de = wqe_decode(q->format, &dctx, f->buf, dctx.max_bytes, &f->d);

		if (de != WQE_DEC_OK)
			return refuse(f, WQE_CHECK_WELL_FORMED, wqe_decode_err_str(de),
				      WQE_WC_LOC_QP_OP_ERR);
	}
	f->decoded = true;
	if (f->d.qpn != q->qpn)
		return refuse(f, WQE_CHECK_WELL_FORMED, "WQE names another QP",
			      WQE_WC_LOC_QP_OP_ERR);
	return WQE_WC_SUCCESS;
}

/* The cost counters of one fetch: a WQE, and the blocks it read. */
static void count_fetch(struct qpc *q, const struct fetched *f)
{
	q->eng->req.msg.wqes_fetched++;
	q->eng->req.msg.wqe_fetch_blocks += f->nblocks;
}

/* Steps 2-4: opcode, length, keys. Resolves the SGEs to host memory. */
static enum wqe_wc_status check(struct nic *n, struct qpc *q, struct fetched *f)
{
	const struct wqe_desc *d = &f->d;

	/* A format whose WQE leaves signaling to the QP (rxe) is signaled by
	 * sq_sig_all; mlx5 folds it into the CE bit already. */
	f->d.signaled = f->d.signaled || q->sq_sig_all;
	uint32_t need = op_is_rd_atomic(d->op) ? WQE_ACCESS_LOCAL_WRITE : 0;

	if (!wqe_op_legal(d->op, q->type))
		return refuse(f, WQE_CHECK_OPCODE, "opcode not legal on the transport",
			      WQE_WC_LOC_QP_OP_ERR);
	if (q->type == WQE_QPT_UD && d->ud.ah_num) {
		/* rxe names the address by number: look it up, in this QP's PD. */
		const struct nic_ah *ah = nic_ah_find(n, d->ud.ah_num);

		if (!ah || ah->pd != q->pd)
			return refuse(f, WQE_CHECK_WELL_FORMED, "no such address handle",
				      WQE_WC_LOC_QP_OP_ERR);
		f->d.ud.dgid = ah->addr.dgid;
		memcpy(f->d.ud.dmac, ah->addr.dmac, 6);
		f->d.ud.flow_label = ah->addr.flow_label;
		f->d.ud.sgid_index = ah->addr.sgid_index;
		f->d.ud.hop_limit = ah->addr.hop_limit;
		f->d.ud.tclass = ah->addr.tclass;
		f->d.ud.sl = ah->addr.sl;
	}
	if (d->total_len > MAX_MSG)
		return refuse(f, WQE_CHECK_LENGTH, "message over 2^31 bytes", WQE_WC_LOC_LEN_ERR);
	f->niov = 0;
	f->ud_oversize = q->type == WQE_QPT_UD && d->total_len > wqe_mtu_to_bytes(UD_MTU);
	if (f->ud_oversize)
		return WQE_WC_SUCCESS; /* rxe reads none of its SGEs either */
	if (d->is_inline) {
		f->iov[0].base = d->inline_data;
		f->iov[0].len = d->inline_len;
		f->niov = d->inline_len ? 1 : 0;
		return WQE_WC_SUCCESS;
	}
	for (uint32_t i = 0; i < d->num_sge; i++) {
		uint8_t *host;

		/* rxe's copy_data() looks up the lkey of an SGE with bytes
		 * only; an mlx5 WQE carries no segment for an empty SGE. */
		if (q->format == WQE_FORMAT_RXE && !d->sge[i].length)
			continue;
		enum key_err ke = keys_check(&n->keys, d->sge[i].lkey, false, q->pd,
					     d->sge[i].addr, d->sge[i].length, need, &host);

		if (ke != KEY_OK) {
			static const char *const why[] = {
				"", "lkey is not a valid region", "lkey of another PD",
				"region lacks LOCAL_WRITE", "SGE outside its region"};

			f->failed_sge = i;
			return refuse(f, WQE_CHECK_LKEY, why[ke], WQE_WC_LOC_PROT_ERR);
		}
		f->iov[f->niov].base = host;
		f->iov[f->niov].len = d->sge[i].length;
		f->niov++;
	}
	return WQE_WC_SUCCESS;
}

/* Completes the WQE at block @start with @st; false if its completion was
 * lost to an overrun. */
static bool complete_at(struct qpc *q, uint32_t start, enum wqe_op op, uint64_t len,
			bool signaled, enum wqe_wc_status st)
{
	struct cqe c = {.qpn = q->qpn, .wqe_counter = start, .status = (uint8_t)st,
			.opcode = (uint8_t)wc_opcode_of(op), .byte_len = (uint32_t)len};

	if (st != WQE_WC_SUCCESS || signaled)
		return nic_push_cqe(q->eng->nic, q->send_cq, &c);
	return true;
}

/* Completes @f with @st; false if its completion was lost to an overrun. */
static bool complete(struct qpc *q, const struct fetched *f, enum wqe_wc_status st)
{
	return complete_at(q, f->start, f->d.op, f->d.total_len, f->d.signaled, st);
}

/* An RC WQE is in flight from its first packet: an ACK or NAK for any of
 * its PSNs finds it. */
static void in_flight(struct nic *n, struct qpc *q, uint32_t start, uint32_t nblocks,
		      enum wqe_op op, uint64_t len, bool signaled, uint32_t first_psn,
		      uint32_t npsn)
{
	struct eng_req *r = &q->eng->req;

	/* Built whole, then stored: set field by field in the table, each
	 * bit-field store would read back the word the one before it wrote
	 * (a store forwarding stall a message). */
	const struct inflight fl = {
	    .start = start,
	    .len = (uint32_t)len,
	    .first_psn = first_psn & PSN_MASK,
	    .nblocks = nblocks & 0xffu,
	    .npsn = npsn & PSN_MASK,
	    .op = (uint32_t)op & 0x7fu,
	    .signaled = signaled,
	};

	memcpy(eng_flight(q->eng, r->fl_head++), &fl, sizeof(fl));
	if (op_is_rd_atomic(op))
		r->rd_atomic++;
	comp_arm(n, q);
}

/* A WQE that failed its checks: no packet, an error completion whatever
 * its signaling, the QP to ERR, the rest flushed. The completion says
 * why; only if it was lost to an overrun is there an asynchronous event
 * (QP_FATAL: IBTA 11.6.3, an error no completion can report). */
static void fail(struct nic *n, struct qpc *q, struct fetched *f, enum wqe_wc_status st)
{
	struct wqe_trace_event ev = {.kind = WQE_TRACE_CHECK_FAIL, .qpn = q->qpn,
				     .wqe_counter = f->start, .check = f->failed,
				     .sge_index = f->failed_sge, .reason = f->why, .status = st,
				     .desc = f->decoded ? &f->d : NULL};
	bool told;

	nic_trace(n, &ev);
	q->eng->stats.wqe_errors++;
	sq_retire(q->sq, f->nblocks);
	told = complete(q, f, st);
	q->eng->req.fetch = f->start + f->nblocks;
	qpc_set_state(q, WQE_QPS_ERR);
	flush_qp(n, q);
	if (!told)
		nic_event(n, NIC_EV_QP_FATAL, q->qpn, NULL);
}

/* Every field of @p (it is not cleared first). */
static void pktz_qp_of(const struct nic *n, const struct qpc *q, struct wqe_pktz_qp *p)
{
	p->type = q->type;
	p->qpn = q->qpn;
	p->dest_qpn = q->dest_qpn;
	p->mtu = q->type == WQE_QPT_UD ? UD_MTU : q->path_mtu;
	p->pkey = nic_qp_pkey(n, q);
	p->qkey = q->qkey;
	memcpy(p->smac, n->port.mac, 6);
	memcpy(p->dmac, q->av.dmac, 6);
	p->dgid = q->av.dgid;
	p->udp_sport = q->av.udp_sport;
	p->tclass = q->av.tclass;
	p->hop_limit = q->av.hop_limit;
	p->flow_label = q->av.flow_label;
	p->sgid = *nic_port_gid(n, q->av.sgid_index);
}

/* Starts expanding @f into packets, the first with PSN @first_psn. */
static bool pktz_start(struct nic *n, struct qpc *q, struct fetched *f, uint32_t first_psn,
		       struct wqe_pktz *z)
{
	pktz_qp_of(n, q, &z->qp);
	if (q->type == WQE_QPT_UD) {
		z->qp.sgid = *nic_port_gid(n, f->d.ud.sgid_index);
		/* rxe's address vector has no UDP port: the QP's own is used. */
		if (!f->d.ud.udp_sport)
			f->d.ud.udp_sport = q->av.udp_sport;
	}
	if (pktz_init_here(z, &f->d, first_psn, f->iov, f->niov, q->eng->req.ip_id))
		return false;
	wqe_pktz_use_tmpl(z, &n->req_tmpl);
	return true;
}

/* Gathers, packetizes and transmits the next packets of @f, @budget at
 * most, adding them to *@sent; true once its last packet has left. */
static bool send_pkts(struct nic *n, struct qpc *q, const struct fetched *f, struct wqe_pktz *z,
		      uint32_t budget, uint32_t *sent)
{
	struct eng_qp *e = q->eng;
	size_t len;

	n->tx_qpn = q->qpn;
	n->tx_counter = f->start;
	for (uint8_t *buf = nic_tx_buf(n);
	     *sent < budget && wqe_pktz_next(z, buf, NIC_FRAME_MAX, &len, NULL) == 1;
	     buf = nic_tx_buf(n)) {
		nic_xmit_buf(n, buf, len);
		(*sent)++;
		e->req.msg.packets_sent++;
		e->req.msg.bytes_sent += len;
	}
	n->tx_qpn = 0;
	n->tx_counter = 0;
	e->req.ip_id = z->ip_id;
	return z->next >= z->npkts;
}

/* Remembers where @z stopped, for send_rest(). */
static void leave_open(struct eng_req *r, const struct fetched *f, const struct wqe_pktz *z)
{
	r->tx_open = true;
	r->tx_start = f->start;
	r->tx_first_psn = z->first_psn;
	r->tx_psn = psn_add(z->first_psn, z->next);
}

/* Starts sending @f: at most @budget packets now, the rest from
 * send_rest() at the next passes. Returns the packets sent. */
static uint32_t send_wqe(struct nic *n, struct qpc *q, struct fetched *f, uint32_t budget)
{
	struct eng_qp *e = q->eng;
	struct wqe_pktz z;
	uint32_t sent = 0;
	bool done;

	if (f->ud_oversize) {
		/* C10-93.1.1: "the CI shall not emit any packets for this
		 * message ... shall not generate an error". rxe completes it
		 * and moves its PSN on by one, as for a sent UD SEND ONLY. */
		e->req.psn = psn_add(e->req.psn, 1);
		sq_retire(q->sq, f->nblocks);
		complete(q, f, WQE_WC_SUCCESS);
		e->req.fetch = f->start + f->nblocks;
		return 0;
	}
	if (!pktz_start(n, q, f, e->req.resume ? e->req.resume_first : e->req.psn, &z))
		return 0;
	if (e->req.resume) {
		/* A retry: skip the packets already acknowledged (a partly
		 * answered READ asks only for the rest). */
		e->req.resume = false;
		e->req.psn = e->req.resume_first;
		wqe_pktz_seek(&z, e->req.resume_psn);
	}
	done = send_pkts(n, q, f, &z, budget, &sent);
	/* Every transport numbers its packets; UD's PSN counts too (as rxe). */
	e->req.psn = psn_add(e->req.psn, z.npsn);
	if (f->d.is_inline)
		e->stats.inline_wqes++;
	/* A READ's or an atomic's SGEs are destinations: nothing is read
	 * from them when the request goes out. */
	for (uint32_t i = 0; i < f->niov && !op_is_rd_atomic(f->d.op); i++)
		if (!f->d.is_inline && f->iov[i].len) {
			e->req.msg.payload_reads++;
			e->req.msg.payload_bytes += f->iov[i].len;
		}
	if (q->type == WQE_QPT_RC) {
		in_flight(n, q, f->start, f->nblocks, f->d.op, f->d.total_len, f->d.signaled,
			  z.first_psn, z.npsn);
	} else if (done) {
		/* UC and UD complete when their last packet has left. */
		sq_retire(q->sq, f->nblocks);
		complete(q, f, WQE_WC_SUCCESS);
	}
	if (!done)
		leave_open(&e->req, f, &z);
	e->req.fetch = f->start + f->nblocks;
	return sent;
}

static void trace_fetch(struct nic *n, struct qpc *q, const struct fetched *f)
{
	struct wqe_trace_event ev;

	/* The test first: clearing the event is a rep stos, every WQE. */
	if (!n->trace)
		return;
	ev = (struct wqe_trace_event){.kind = WQE_TRACE_FETCH, .qpn = q->qpn,
				      .wqe_counter = f->start, .desc = &f->d,
				      .fetch_blocks = f->nblocks};
	for (uint32_t i = 0; i < f->niov && !op_is_rd_atomic(f->d.op); i++)
		ev.payload_reads += !f->d.is_inline && f->iov[i].len;
	nic_trace(n, &ev);
}

/* Fence and the READ/atomic credit: may this WQE start now? */
static void stall(struct nic *n, struct qpc *q, const struct fetched *f, const char *why)
{
	struct wqe_trace_event ev = {.kind = WQE_TRACE_STALL, .qpn = q->qpn,
				     .wqe_counter = f->start, .reason = why, .desc = &f->d};

	q->eng->req.stalled = true;
	nic_trace(n, &ev);
}

static bool may_start(struct nic *n, struct qpc *q, const struct fetched *f)
{
	struct eng_req *r = &q->eng->req;

	if (f->d.fence && r->rd_atomic) {
		if (!r->stalled) {
			q->eng->stats.fence_stalls++;
			stall(n, q, f, "FENCE: waits for earlier READ/atomic to complete");
		}
		return false;
	}
	if (op_is_rd_atomic(f->d.op) && r->rd_atomic >= (q->max_rd_atomic ? q->max_rd_atomic : 1u)) {
		if (!r->stalled) {
			q->eng->stats.rd_atomic_stalls++;
			stall(n, q, f, "max_rd_atomic READ/atomic requests outstanding");
		}
		return false;
	}
	r->stalled = false;
	return true;
}

/*
 * Goes on with the WQE a pass left open: fetched and checked again (the
 * NIC holds no copy of it; its ring blocks stay until it completes), then
 * up to @budget more of its packets. A WQE that no longer passes (a raw
 * ring writer changed it, or its region went away) fails as at its first
 * fetch, after the packets already sent. Returns the packets sent.
 */
static uint32_t send_rest(struct nic *n, struct qpc *q, struct fetched *f, uint32_t budget)
{
	struct eng_req *r = &q->eng->req;
	uint32_t sent = 0;
	enum wqe_wc_status st;
	struct wqe_pktz z;

	/* Not a new fetch for the counters. */
	st = fetch(q, r->tx_start, sq_ring_producer(q->sq, r->tx_start) - r->tx_start, f);
	if (st == WQE_WC_SUCCESS && f->nblocks != r->fetch - r->tx_start)
		st = refuse(f, WQE_CHECK_WELL_FORMED, "WQE changed size while being sent",
			    WQE_WC_LOC_QP_OP_ERR);
	if (st == WQE_WC_SUCCESS)
		st = check(n, q, f);
	if (st == WQE_WC_SUCCESS && !pktz_start(n, q, f, r->tx_first_psn, &z))
		st = refuse(f, WQE_CHECK_WELL_FORMED, "WQE changed while being sent",
			    WQE_WC_LOC_QP_OP_ERR);
	if (st == WQE_WC_SUCCESS && wqe_pktz_seek(&z, r->tx_psn))
		st = refuse(f, WQE_CHECK_WELL_FORMED, "WQE changed length while being sent",
			    WQE_WC_LOC_QP_OP_ERR);
	if (st != WQE_WC_SUCCESS) {
		r->tx_open = false;
		if (q->type == WQE_QPT_RC)
			r->fl_head--; /* its in-flight entry, the newest */
		fail(n, q, f, st);
		return 0;
	}
	if (send_pkts(n, q, f, &z, budget, &sent)) {
		r->tx_open = false;
		if (q->type != WQE_QPT_RC) {
			sq_retire(q->sq, f->nblocks);
			complete(q, f, WQE_WC_SUCCESS);
		}
	} else {
		r->tx_psn = psn_add(z.first_psn, z.next);
	}
	return sent;
}

/*
 * The fast path: the commonest WQE (wqe_decode_simple(): a one-block RDMA
 * WRITE or SEND, with or without an immediate, with one SGE, inline data
 * or no payload, RC or UC) whose message is one packet, on the path the
 * request template holds, when no fence holds it. The same frame,
 * counters, completion and state as fetch(), check() and send_wqe() give
 * it, without the general WQE description, packetizer and header builder
 * in between (tests/e2e/test_fastpath.c runs the two side by side and
 * compares them frame by frame). Anything else (including a WQE that
 * would fail a check) goes the general way.
 * Returns 1 if the WQE at r->fetch was sent, 0 if it was not touched.
 */
static int send_simple(struct nic *n, struct qpc *q)
{
	struct eng_req *r = &q->eng->req;
	const struct wqe_pktz_tmpl *t = &n->req_tmpl;
	uint32_t padcnt, start = r->fetch;
	struct wqe_desc_simple s;
	const struct wire_op *w;
	const uint8_t *src;
	uint8_t *host, *buf, *b, opcode;
	size_t frame_len;
	bool signaled;

	if (!wqe_decode_simple(q->format, q->type, q->qpn, sq_ring_block(q->sq, start), &s) ||
	    (s.fence && r->rd_atomic) || s.length > mtu_bytes(q->path_mtu))
		return 0;
	/* Inline bytes are read from the WQE itself: no lkey to check; a
	 * zero-length message reads nothing. */
	if (s.inline_data)
		src = s.inline_data;
	else if (!s.length)
		src = NULL;
	else if (keys_check(&n->keys, s.lkey, false, q->pd, s.addr, s.length, 0, &host) == KEY_OK)
		src = host;
	else
		return 0;
	if (!pktz_tmpl_fits(t, q->av.tclass, q->av.hop_limit, q->av.flow_label, q->av.dmac,
			    n->port.mac, nic_port_gid(n, q->av.sgid_index), &q->av.dgid))
		return 0;
	/* The packet's opcode, SE and AckReq by the packetizer's rules
	 * (bth_of()), its headers by the opcode table: the ONLY packet of
	 * one of wqe_decode_simple()'s four operations carries a RETH (the
	 * WRITEs), an ImmDt (the two with an immediate), both or neither. */
	opcode = pktz_opcode(q->type, s.op, WQE_ROLE_ONLY);
	w = &wire_op_tab[opcode];
	padcnt = (0u - s.length) & 3u;
	buf = nic_tx_buf(n);
	frame_len =
	    pktz_tmpl_begin(t, buf, NIC_FRAME_MAX, w->hdr_len + s.length + padcnt + WQE_ICRC_LEN,
			    r->ip_id, q->av.udp_sport);
	if (!frame_len)
		return 0;
	b = buf + t->len;
	{
		struct wqe_bth bth = {.opcode = opcode,
				      .se = pktz_se(s.op, s.solicited, true),
				      .padcnt = (uint8_t)padcnt,
				      .pkey = nic_qp_pkey(n, q),
				      .destqp = q->dest_qpn & 0xffffffu,
				      .ackreq = pktz_ackreq(q->type, 0, true),
				      .psn = r->psn & PSN_MASK};

		b += wqe_bth_encode(&bth, b, WQE_BTH_LEN);
	}
	if (w->hdrs & WQE_HDR_RETH) {
		struct wqe_reth reth = {.va = s.remote_addr, .rkey = s.rkey, .dma_len = s.length};

		b += wqe_reth_encode(&reth, b, WQE_RETH_LEN);
	}
	if (w->hdrs & WQE_HDR_IMMDT) {
		struct wqe_immdt immdt = {.imm = s.imm};

		b += wqe_immdt_encode(&immdt, b, WQE_IMMDT_LEN);
		n->fast_tx_imm++;
	}
	if (s.length)
		mem_copy(b, src, s.length);
	pktz_tmpl_seal(t, buf, frame_len, padcnt);
	n->tx_qpn = q->qpn;
	n->tx_counter = start;
	nic_xmit_buf(n, buf, frame_len);
	n->tx_qpn = 0;
	n->tx_counter = 0;
	n->fast_tx++;
	r->ip_id++;
	r->stalled = false;
	r->msg.wqes_fetched++;
	r->msg.wqe_fetch_blocks++;
	r->msg.packets_sent++;
	r->msg.bytes_sent += frame_len;
	if (s.inline_data) {
		q->eng->stats.inline_wqes++;
		n->fast_tx_inline++;
	} else if (s.length) {
		r->msg.payload_reads++;
		r->msg.payload_bytes += s.length;
	}
	signaled = s.signaled || q->sq_sig_all;
	if (q->type == WQE_QPT_RC) {
		in_flight(n, q, start, 1, s.op, s.length, signaled, r->psn, 1);
	} else {
		sq_retire(q->sq, 1);
		complete_at(q, start, s.op, s.length, signaled, WQE_WC_SUCCESS);
	}
	r->psn = psn_add(r->psn, 1);
	r->fetch = start + 1;
	return 1;
}

/* The packets @q may send before the send window (REQ_WINDOW_PSNS) is
 * full: from the next PSN to go out (inside a message left open, or where
 * a retry resumes) back to the oldest unacknowledged one. UC and UD have
 * no window. The QP stays on the active list while it waits: the ACK that
 * moves comp_psn on lets the next pass send. */
static uint32_t window_room(const struct qpc *q)
{
	const struct eng_req *r = &q->eng->req;
	uint32_t next, out;

	if (q->type != WQE_QPT_RC)
		return UINT32_MAX;
	next = r->tx_open ? r->tx_psn : r->resume ? r->resume_psn : r->psn;
	out = psn_ahead(next, r->comp_psn);
	return out >= REQ_WINDOW_PSNS ? 0 : REQ_WINDOW_PSNS - out;
}

int req_run(struct nic *n, struct qpc *q, int budget)
{
	struct eng_req *r = &q->eng->req;
	static _Thread_local struct fetched f;
	uint32_t pkts = 0, room;
	int done = 0;

	if (r->tx_open && (q->state == WQE_QPS_RTS || q->state == WQE_QPS_SQD) && !r->rnr_at) {
		room = window_room(q);
		if (!room)
			return done;
		pkts += send_rest(n, q, &f, room < REQ_PKT_BUDGET ? room : REQ_PKT_BUDGET);
		done++;
		if (r->tx_open)
			return done;
	}
	/* In SQD only what had started before: the drain. */
	while (done < budget && pkts < REQ_PKT_BUDGET &&
	       (q->state == WQE_QPS_RTS || (q->state == WQE_QPS_SQD && req_sqd_may_fetch(r)))) {
		uint32_t pi = sq_ring_producer(q->sq, r->fetch);
		enum wqe_wc_status st;

		if (r->fetch == pi || r->rnr_at)
			break;
		room = window_room(q);
		if (!room)
			break;
		if (pi - r->fetch > q->sq->nblocks) {
			/* The record claims more WQEs than the ring holds: nothing
			 * in the ring can be trusted. The QP goes to ERR, and no
			 * completion says why: QP_FATAL (IBTA 11.6.3, an error
			 * processing WQEs that prevents reporting completions). */
			q->eng->stats.wqe_errors++;
			qpc_set_state(q, WQE_QPS_ERR);
			flush_qp(n, q);
			nic_event(n, NIC_EV_QP_FATAL, q->qpn, NULL);
			return done + 1;
		}
		if (!n->trace && !n->no_fast_path && !r->resume && send_simple(n, q)) {
			pkts++;
			done++;
			continue;
		}
		st = fetch(q, r->fetch, pi - r->fetch, &f);
		if (st == WQE_WC_SUCCESS)
			st = check(n, q, &f);
		if (st != WQE_WC_SUCCESS) {
			count_fetch(q, &f);
			fail(n, q, &f, st);
			return done + 1;
		}
		if (!may_start(n, q, &f))
			break; /* not fetched after all: it is fetched again later */
		count_fetch(q, &f);
		trace_fetch(n, q, &f);
		pkts += send_wqe(n, q, &f,
				 room < REQ_PKT_BUDGET - pkts ? room : REQ_PKT_BUDGET - pkts);
		done++;
	}
	return done;
}

int req_not_ready(struct nic *n, struct qpc *q)
{
	struct eng_req *r = &q->eng->req;
	static _Thread_local struct fetched f;
	uint32_t pi = sq_ring_producer(q->sq, r->fetch);

	if (r->fetch == pi)
		return 0;
	if (fetch(q, r->fetch, pi - r->fetch, &f) == WQE_WC_SUCCESS)
		refuse(&f, WQE_CHECK_QP_STATE, "posted while the QP is not ready to send (below RTS)",
		       WQE_WC_LOC_QP_OP_ERR);
	count_fetch(q, &f);
	fail(n, q, &f, WQE_WC_LOC_QP_OP_ERR);
	return 1;
}
