/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: what the engine reports, counted for expectations,
 * captured to the pcap file, and printed as the trace: each request in its
 * three shapes (the Work Request as posted, the WQE in the ring, the
 * packets), the checks it met and where, what it cost in host-memory
 * transactions, the responses, and its completion or why it had none.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/sc_int.h"

/* The request a requester event belongs to. */
static const struct sc_req *req_of(const struct wqe_scenario *sc, uint32_t qpn, uint32_t ctr,
				   size_t *idx)
{
	for (size_t i = sc->nreqs; i-- > 0;) {
		const struct sc_req *r = &sc->reqs[i];

		if (!r->err && wqe_qp_num(sc->qp[r->qp].qp) == qpn && r->wqe_counter == ctr) {
			*idx = i;
			return r;
		}
	}
	return NULL;
}

/* The QP (scenario name) with number @qpn on endpoint @ep. */
static const char *qp_name(const struct wqe_scenario *sc, uint32_t ep, uint32_t qpn)
{
	for (uint32_t i = 0; i < sc->nqp; i++)
		if (sc->qp[i].ep == ep && sc->qp[i].qp && wqe_qp_num(sc->qp[i].qp) == qpn)
			return sc->qp[i].name;
	return "?";
}

static void record_tx(struct wqe_scenario *sc, struct sc_endpoint *e,
		      const struct wqe_trace_event *ev)
{
	struct wqe_pkt p;

	e->packets++;
	sc->res.packets++;
	if (sc->pcap)
		wqe_pcap_write(sc->pcap, ev->frame, ev->len, ev->time_ns);
	if (wqe_pkt_parse(ev->frame, ev->len, &p))
		return;
	if (e->ops.n == e->ops.cap) {
		size_t nc = e->ops.cap ? e->ops.cap * 2 : 64;
		uint8_t *n = realloc(e->ops.op, nc);

		if (!n)
			return;
		e->ops.op = n;
		e->ops.cap = nc;
	}
	e->ops.op[e->ops.n++] = p.bth.opcode;
}

static void print_frame(FILE *f, const struct wqe_trace_event *ev)
{
	struct wqe_pkt p;
	int rc = wqe_pkt_parse(ev->frame, ev->len, &p);

	if (rc) {
		fprintf(f, "      (%zu bytes, not a RoCEv2 packet: %s)\n", ev->len,
			wqe_pkt_err_str(rc));
		return;
	}
	fprintf(f, "      %s PSN %u%s%s pad %u, payload %u B, %zu B on the wire\n",
		wqe_wire_opcode_str(p.bth.opcode), p.bth.psn, p.bth.se ? " SE" : "",
		p.bth.ackreq ? " AckReq" : "", p.bth.padcnt, p.payload_len, ev->len);
	wqe_pkt_print(f, &p);
}

static void print_cqe(FILE *f, const struct wqe_trace_event *ev)
{
	fprintf(f, "      %s completion: status %s, opcode %s, byte_len %u", ev->is_recv ? "receive"
		: "send", wqe_wc_status_str(ev->status), wqe_wc_opcode_str(ev->opcode),
		ev->byte_len);
	if (ev->wc_flags & WQE_WC_WITH_IMM)
		fprintf(f, ", imm 0x%08x", ev->imm);
	if (ev->wc_flags & WQE_WC_WITH_INV)
		fprintf(f, ", invalidated rkey 0x%08x", ev->imm);
	if (ev->src_qp)
		fprintf(f, ", src_qp 0x%06x", ev->src_qp);
	fputc('\n', f);
}

static void print_event(struct wqe_scenario *sc, uint32_t ep, const struct wqe_trace_event *ev)
{
	FILE *f = sc->opts->trace;
	const struct sc_endpoint *e = &sc->ep[ep];
	size_t idx = 0;
	const struct sc_req *r = ev->kind == WQE_TRACE_RX || ev->kind == WQE_TRACE_DROP ? NULL
				 : req_of(sc, ev->qpn, ev->wqe_counter, &idx);
	char who[96];

	if (r && !(ev->kind == WQE_TRACE_CQE && ev->is_recv))
		snprintf(who, sizeof(who), "%s request #%zu (line %u)", e->name, idx + 1, r->line);
	else
		snprintf(who, sizeof(who), "%s %s", e->name, qp_name(sc, ep, ev->qpn));
	switch (ev->kind) {
	case WQE_TRACE_DOORBELL:
		break; /* printed with the post, in sc_trace_post() */
	case WQE_TRACE_FETCH:
		fprintf(f, "  [%s] NIC fetched the WQE: %u block%s of 64 B from the ring, %u "
			   "payload read%s (%s); checks passed: well-formed, opcode legal on the "
			   "transport, length, lkeys\n",
			who, ev->fetch_blocks, ev->fetch_blocks == 1 ? "" : "s", ev->payload_reads,
			ev->payload_reads == 1 ? "" : "s",
			ev->desc && ev->desc->is_inline ? "payload inline in the WQE, no lkey checked"
							 : "payload by DMA through the lkeys");
		fprintf(f, "      host-memory transactions: %u\n",
			ev->fetch_blocks + ev->payload_reads);
		break;
	case WQE_TRACE_CHECK_FAIL:
		fprintf(f, "  [%s] processing-time check failed: %s", who, wqe_check_str(ev->check));
		if (ev->check == WQE_CHECK_LKEY)
			fprintf(f, " (SGE %u)", ev->sge_index);
		fprintf(f, ": %s -> %s, no packet, QP to ERR\n", ev->reason ? ev->reason : "",
			wqe_wc_status_str(ev->status));
		break;
	case WQE_TRACE_STALL:
		fprintf(f, "  [%s] waits: %s\n", who, ev->reason ? ev->reason : "");
		break;
	case WQE_TRACE_TX:
		fprintf(f, "  [%s] packet out:\n", who);
		print_frame(f, ev);
		break;
	case WQE_TRACE_RX: {
		struct wqe_pkt p;

		if (wqe_pkt_parse(ev->frame, ev->len, &p) == 0)
			fprintf(f, "  [%s] packet in: %s PSN %u, ICRC %s\n", who,
				wqe_wire_opcode_str(p.bth.opcode), p.bth.psn,
				p.icrc_ok ? "ok" : "BAD");
		break;
	}
	case WQE_TRACE_DROP:
		fprintf(f, "  [%s] packet dropped on arrival: %s\n", who, ev->reason);
		break;
	case WQE_TRACE_RETRY:
		fprintf(f, "  [%s] goes back to PSN %u: %s\n", who, ev->psn, ev->reason);
		break;
	case WQE_TRACE_CQE:
		fprintf(f, "  [%s]\n", who);
		print_cqe(f, ev);
		break;
	default:
		break;
	}
}

void sc_trace_event(void *arg, const struct wqe_trace_event *ev)
{
	struct sc_trace_ctx *c = arg;
	struct wqe_scenario *sc = c->sc;

	if (ev->kind == WQE_TRACE_TX)
		record_tx(sc, &sc->ep[c->ep], ev);
	if (sc->opts->trace)
		print_event(sc, c->ep, ev);
}

void sc_trace_post(struct wqe_scenario *sc, const struct sc_stmt *st, const struct sc_req *r,
		   const struct wqe_send_wr *wr)
{
	FILE *f = sc->opts->trace;
	const struct sc_qp *q = &sc->qp[r->qp];
	struct wqe_qp_dv dv;

	fprintf(f, "\n== request #%zu, %s:%u: post %s (%s QP 0x%06x on %s) ==\n", sc->nreqs,
		sc->name, st->line, q->name, wqe_qp_type_str(q->type), wqe_qp_num(q->qp),
		sc->ep[q->ep].name);
	fprintf(f, "-- 1. the software Work Request, as posted:\n");
	wqe_print_send_wr(f, wr, q->type);
	if (r->err) {
		fprintf(f, "-- post-time check failed: wqe_post_send returned %s; nothing of it "
			   "reached the ring, so no packet can leave\n", strerror(r->err));
		return;
	}
	fprintf(f, "-- post-time checks passed (QP state, opcode on %s, SGE count, lengths, "
		   "inline rules); lkeys are judged later, by the NIC\n",
		wqe_qp_type_str(q->type));
	wqe_qp_dv_query(q->qp, &dv);
	{
		uint8_t wqe[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];
		struct wqe_decode_ctx dctx = {q->type, r->nblocks * WQE_BLOCK_SIZE};

		for (uint32_t i = 0; i < r->nblocks && i < WQE_MAX_BLOCKS; i++)
			memcpy(wqe + i * WQE_BLOCK_SIZE,
			       dv.sq_buf + ((r->wqe_counter + i) & (dv.sq_nblocks - 1)) * 64u, 64);
		fprintf(f, "-- 2. the WQE in the send ring (%s format), blocks %u..%u of %u:\n",
			wqe_format_str(dv.format), r->wqe_counter & (dv.sq_nblocks - 1),
			(r->wqe_counter + r->nblocks - 1) & (dv.sq_nblocks - 1), dv.sq_nblocks);
		wqe_print_wqe(f, dv.format, &dctx, wqe, dctx.max_bytes);
	}
	if (!(wr->send_flags & WQE_SEND_SIGNALED) && !q->sig_all)
		fprintf(f, "-- unsignaled: a successful completion writes no CQE (an error "
			   "always does)\n");
	fprintf(f, "-- doorbell: record = %u (release store), register = the first 8 bytes of "
		   "the control segment\n", dv.sq_pi);
	fprintf(f, "-- 3. what the NIC does with it (when the engine runs):\n");
}
