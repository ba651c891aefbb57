/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: the software side of the trace. For each request posted:
 * the Work Request as software built it (shape 1), the post-time checks it
 * passed or the one it failed, the WQE as it sits in the ring (shape 2),
 * what its flags ask for, the doorbell; and, after each run, how every
 * request that wrote no CQE ended (unsignaled, still outstanding).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "scenario/sc_int.h"

/* The operation family of a Work Request opcode (the catalog's names). */
static int op_of_wr(enum wqe_wr_opcode o, enum wqe_op *op)
{
	static const struct {
		enum wqe_wr_opcode wr;
		enum wqe_op op;
	} t[] = {{WQE_WR_SEND, WQE_OP_SEND},
		 {WQE_WR_SEND_WITH_IMM, WQE_OP_SEND_WITH_IMM},
		 {WQE_WR_SEND_WITH_INV, WQE_OP_SEND_WITH_INV},
		 {WQE_WR_RDMA_WRITE, WQE_OP_RDMA_WRITE},
		 {WQE_WR_RDMA_WRITE_WITH_IMM, WQE_OP_RDMA_WRITE_WITH_IMM},
		 {WQE_WR_RDMA_READ, WQE_OP_RDMA_READ},
		 {WQE_WR_ATOMIC_CMP_AND_SWP, WQE_OP_ATOMIC_CMP_AND_SWP},
		 {WQE_WR_ATOMIC_FETCH_AND_ADD, WQE_OP_ATOMIC_FETCH_AND_ADD}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].wr == o) {
			*op = t[i].op;
			return 0;
		}
	return -1;
}

static uint64_t total_len(const struct wqe_send_wr *wr)
{
	uint64_t n = 0;

	for (int i = 0; i < wr->num_sge && wr->sg_list; i++)
		n += wr->sg_list[i].length;
	return n;
}

static bool is_atomic(enum wqe_wr_opcode o)
{
	return o == WQE_WR_ATOMIC_CMP_AND_SWP || o == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Why wqe_post_send() refused @wr: its post-time checks (docs/architecture.md,
 * "Where each check happens") in their order, judged again from what the
 * public API shows of the QP.
 */
static void why_refused(const struct sc_qp *q, const struct wqe_send_wr *wr, int err, char *buf,
			size_t cap)
{
	struct wqe_qp_attr a;
	enum wqe_op op;
	uint64_t len = total_len(wr);

	memset(&a, 0, sizeof(a));
	wqe_query_qp(q->qp, &a, 0, NULL);
	if (err == ENOMEM)
		snprintf(buf, cap,
			 "the send queue is full (max_send_wr %u, or no ring blocks free)",
			 a.cap.max_send_wr);
	else if (a.qp_state == WQE_QPS_RESET || a.qp_state == WQE_QPS_INIT ||
		 a.qp_state == WQE_QPS_RTR)
		snprintf(buf, cap, "QP state check: the QP is in %s, a send needs RTS",
			 wqe_qp_state_str(a.qp_state));
	else if (op_of_wr(wr->opcode, &op) || !wqe_op_legal(op, q->type))
		snprintf(buf, cap, "opcode check: %s is not legal on a %s QP",
			 wqe_wr_opcode_str(wr->opcode), wqe_qp_type_str(q->type));
	else if (wr->num_sge < 0 || (uint32_t)wr->num_sge > a.cap.max_send_sge)
		snprintf(buf, cap, "SGE count check: num_sge %d is over max_send_sge %u",
			 wr->num_sge, a.cap.max_send_sge);
	else if (len > (1ull << 31))
		snprintf(buf, cap, "length check: %" PRIu64 " B is over 2^31", len);
	else if ((wr->send_flags & WQE_SEND_INLINE) && !wqe_op_inline_ok(op))
		snprintf(buf, cap,
			 "inline check: %s carries no inline data (only SEND and WRITE do)",
			 wqe_wr_opcode_str(wr->opcode));
	else if ((wr->send_flags & WQE_SEND_INLINE) && len > a.cap.max_inline_data)
		snprintf(buf, cap, "inline check: %" PRIu64 " B inline is over max_inline_data %u",
			 len, a.cap.max_inline_data);
	else if (is_atomic(wr->opcode) && (wr->num_sge != 1 || len != 8))
		snprintf(buf, cap,
			 "atomic check: an atomic needs one SGE of exactly 8 bytes "
			 "(got %d SGE%s, %" PRIu64 " B)",
			 wr->num_sge, wr->num_sge == 1 ? "" : "s", len);
	else if (is_atomic(wr->opcode) && (wr->wr.atomic.remote_addr & 7))
		snprintf(buf, cap,
			 "atomic check: remote address 0x%" PRIx64 " is not 8-byte aligned",
			 wr->wr.atomic.remote_addr);
	else if (q->type == WQE_QPT_UD && (!wr->wr.ud.ah || wr->wr.ud.remote_qpn > 0xffffff))
		snprintf(buf, cap, "UD address check: no address handle or a bad remote QPN");
	else
		snprintf(buf, cap, "%s (send_flags or another field)", strerror(err));
}

/* What the trace and the summary keep of a request when it is posted. */
void sc_req_record(struct wqe_scenario *sc, struct sc_req *r, const struct wqe_send_wr *wr)
{
	const struct sc_qp *q = &sc->qp[r->qp];
	struct wqe_qp_dv dv;
	uint8_t wqe[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];
	struct wqe_decode_ctx dctx = {.qp_type = q->type};
	struct wqe_desc d;

	r->opcode = wr->opcode;
	r->send_flags = wr->send_flags;
	r->length = total_len(wr);
	r->is_inline = (wr->send_flags & WQE_SEND_INLINE) != 0;
	r->signaled = (wr->send_flags & WQE_SEND_SIGNALED) || q->sig_all;
	if (r->err) {
		why_refused(q, wr, r->err, r->why, sizeof(r->why));
		r->settled = true;
		return;
	}
	if (wqe_qp_dv_query(q->qp, &dv) || r->nblocks == 0 || r->nblocks > WQE_MAX_BLOCKS)
		return;
	for (uint32_t i = 0; i < r->nblocks; i++)
		memcpy(wqe + i * WQE_BLOCK_SIZE,
		       dv.sq_buf + ((r->wqe_counter + i) & (dv.sq_nblocks - 1)) * WQE_BLOCK_SIZE,
		       WQE_BLOCK_SIZE);
	dctx.max_bytes = r->nblocks * WQE_BLOCK_SIZE;
	dctx.qpn = wqe_qp_num(q->qp);
	if (wqe_decode(dv.format, &dctx, wqe, dctx.max_bytes, &d) == WQE_DEC_OK) {
		r->wqe_bytes = d.size;
		r->signaled = d.signaled;
		r->is_inline = d.is_inline;
	}
}

static void print_flags(FILE *f, const struct sc_req *r)
{
	fprintf(f, "-- the four flags: fence %s; signal %s; solicit %s; inline %s\n",
		r->send_flags & WQE_SEND_FENCE ? "YES (issue waits for every earlier READ/atomic "
						 "of this send queue; local, not on the wire)"
					       : "no",
		r->signaled ? (r->send_flags & WQE_SEND_SIGNALED ? "YES (a CQE when it completes)"
								 : "YES (the QP signals all)")
			    : "no (no CQE if it succeeds; an error always writes one)",
		r->send_flags & WQE_SEND_SOLICITED ? "YES (sets the BTH SE bit of its last packet)"
						   : "no",
		r->is_inline ? "YES (payload copied into the WQE now: no lkey, no DMA read later)"
			     : "no (the NIC will read the payload by DMA through the lkeys)");
}

static void print_passed(FILE *f, const struct sc_qp *q, const struct sc_req *r,
			 const struct wqe_send_wr *wr)
{
	struct wqe_qp_attr a;

	memset(&a, 0, sizeof(a));
	wqe_query_qp(q->qp, &a, 0, NULL);
	fprintf(f,
		"-- post time: checks passed: QP in %s; %s legal on %s; %d SGE%s (max %u); "
		"%" PRIu64 " B",
		wqe_qp_state_str(a.qp_state), wqe_wr_opcode_str(wr->opcode),
		wqe_qp_type_str(q->type), wr->num_sge, wr->num_sge == 1 ? "" : "s",
		a.cap.max_send_sge, r->length);
	if (r->is_inline)
		fprintf(f, " inline (max_inline_data %u)", a.cap.max_inline_data);
	if (is_atomic(wr->opcode))
		fprintf(f, "; one 8-byte SGE, remote address 8-byte aligned");
	fprintf(f, ".\n   %s\n",
		r->is_inline ? "Inline: the payload has no lkey, nothing to "
			       "check later."
			     : "The lkeys are not checked now: the NIC judges "
			       "them against the key table when it processes "
			       "the WQE.");
}

void sc_trace_post(struct wqe_scenario *sc, const struct sc_stmt *st, const struct sc_req *r,
		   const struct wqe_send_wr *wr)
{
	FILE *f = sc->opts->trace;
	const struct sc_qp *q = &sc->qp[r->qp];
	struct wqe_qp_dv dv;
	uint8_t wqe[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];
	struct wqe_decode_ctx dctx = {.qp_type = q->type};

	fprintf(f, "\n== request #%zu (%s:%u): post %s, %s on %s QP 0x%06x of %s ==\n",
		(size_t)(r - sc->reqs) + 1, sc->name, st->line, q->name,
		wqe_wr_opcode_str(wr->opcode), wqe_qp_type_str(q->type), wqe_qp_num(q->qp),
		sc->ep[q->ep].name);
	fprintf(f, "   %.*s\n", (int)st->req_len, st->text + st->req_off);
	fprintf(f, "-- shape 1: the software Work Request, as posted\n");
	wqe_print_send_wr(f, wr, q->type);
	if (r->err) {
		fprintf(f,
			"-- post time: REFUSED by wqe_post_send (%s): %s.\n   Nothing reached "
			"the ring, no doorbell, so no packet can ever leave; no CQE either (the "
			"error is the return value).\n",
			r->err == EINVAL   ? "EINVAL"
			: r->err == ENOMEM ? "ENOMEM"
					   : strerror(r->err),
			r->why);
		return;
	}
	print_passed(f, q, r, wr);
	wqe_qp_dv_query(q->qp, &dv);
	for (uint32_t i = 0; i < r->nblocks && i < WQE_MAX_BLOCKS; i++)
		memcpy(wqe + i * WQE_BLOCK_SIZE,
		       dv.sq_buf + ((r->wqe_counter + i) & (dv.sq_nblocks - 1)) * WQE_BLOCK_SIZE,
		       WQE_BLOCK_SIZE);
	dctx.max_bytes = r->nblocks * WQE_BLOCK_SIZE;
	dctx.qpn = wqe_qp_num(q->qp);
	fprintf(f, "-- shape 2: the WQE in the send ring (%s format), ring block%s %u",
		wqe_format_str(dv.format), r->nblocks == 1 ? "" : "s",
		r->wqe_counter & (dv.sq_nblocks - 1));
	if (r->nblocks > 1)
		fprintf(f, "..%u", (r->wqe_counter + r->nblocks - 1) & (dv.sq_nblocks - 1));
	fprintf(f, " of %u\n", dv.sq_nblocks);
	wqe_print_wqe(f, dv.format, &dctx, wqe, dctx.max_bytes);
	print_flags(f, r);
	if (dv.format == WQE_FORMAT_MLX5)
		fprintf(f,
			"-- doorbell: record = %u (release store), register = the first 8 bytes "
			"of the control segment (opcode, WQE index, QP number, DS)\n",
			dv.sq_pi);
	else
		fprintf(f, "-- doorbell: producer index (the masked slot index) published with a "
			   "release store; the doorbell itself is rxe's POST_SEND command naming "
			   "the QP, not a copy of the WQE\n");
}

void sc_trace_recv(struct wqe_scenario *sc, const struct sc_stmt *st, const struct wqe_send_wr *wr,
		   int rc)
{
	FILE *f = sc->opts->trace;
	const struct sc_qp *q = &sc->qp[st->a];

	fprintf(f,
		"-- %s:%u: recv %s id=%" PRIu64 ": a Receive Request of %d SGE%s, %" PRIu64
		" B, in %s's receive queue%s%s\n",
		sc->name, st->line, q->name, wr->wr_id, wr->num_sge, wr->num_sge == 1 ? "" : "s",
		total_len(wr), sc->ep[q->ep].name, rc ? ": REFUSED, " : "", rc ? strerror(rc) : "");
}

void sc_trace_run(struct wqe_scenario *sc, const struct sc_stmt *st)
{
	fprintf(sc->opts->trace,
		"\n== %s:%u: run: the NICs fetch, check and send what was "
		"posted; packets cross the link ==\n",
		sc->name, st->line);
}

/* Requests that wrote no CQE: were they retired (unsignaled success)?
 * Called before every engine event and after every run, so the trace
 * says so about where it happened. */
void sc_settle(struct wqe_scenario *sc)
{
	FILE *f = sc->opts->trace;

	while (sc->settled_lo < sc->nreqs && sc->reqs[sc->settled_lo].settled &&
	       (sc->reqs[sc->settled_lo].retired || sc->reqs[sc->settled_lo].err))
		sc->settled_lo++;
	for (size_t i = sc->settled_lo; i < sc->nreqs; i++) {
		struct sc_req *r = &sc->reqs[i];
		struct wqe_qp_dv dv;
		char b[48];

		if (r->err || r->retired || !sc->qp[r->qp].qp ||
		    wqe_qp_dv_query(sc->qp[r->qp].qp, &dv))
			continue;
		if ((int32_t)(dv.sq_ci - (r->wqe_counter + r->nblocks)) < 0)
			continue;
		r->retired = true;
		if (r->has_cqe || r->settled)
			continue;
		r->settled = true;
		if (f)
			fprintf(f,
				"  [%s] %s %s: no CQE: unsignaled, and it succeeded; its %u ring "
				"block%s reclaimed all the same (consumer counter now %u)\n",
				sc_req_label(sc, r, b, sizeof(b)), sc->ep[sc->qp[r->qp].ep].name,
				sc->qp[r->qp].name, r->nblocks, r->nblocks == 1 ? " was" : "s were",
				dv.sq_ci);
	}
}

void sc_observe_post(struct wqe_scenario *sc, const struct sc_stmt *st, const struct sc_req *r,
		     const struct wqe_send_wr *wr)
{
	const struct sc_qp *q = &sc->qp[r->qp];
	uint8_t wqe[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];
	struct wqe_scenario_event o;
	struct wqe_qp_dv dv;

	memset(&o, 0, sizeof(o));
	o.kind = WQE_SCENARIO_EV_POST;
	o.time_ns = sc->now_ns;
	o.endpoint = q->ep;
	o.qp = (int32_t)r->qp;
	o.request = (int32_t)(r - sc->reqs);
	o.frame_index = -1;
	o.line = st->line;
	o.text = st->text + st->req_off;
	o.text_len = st->req_len;
	o.wr = wr;
	o.err = r->err;
	o.why = r->why;
	o.qp_type = q->type;
	o.qpn = wqe_qp_num(q->qp);
	o.wqe_counter = r->wqe_counter;
	if (!wqe_qp_dv_query(q->qp, &dv)) {
		o.format = dv.format;
		o.sq_used = dv.sq_pi - dv.sq_ci;
		o.sq_blocks = dv.sq_nblocks;
		/* The ring may wrap inside the WQE: the observer gets it whole. */
		if (!r->err && r->nblocks && r->nblocks <= WQE_MAX_BLOCKS) {
			for (uint32_t i = 0; i < r->nblocks; i++)
				memcpy(wqe + i * WQE_BLOCK_SIZE,
				       dv.sq_buf + ((r->wqe_counter + i) & (dv.sq_nblocks - 1)) *
							   WQE_BLOCK_SIZE,
				       WQE_BLOCK_SIZE);
			o.wqe = wqe;
			o.wqe_len = r->nblocks * WQE_BLOCK_SIZE;
		}
	}
	sc->opts->observe(sc->opts->observe_arg, &o);
}
