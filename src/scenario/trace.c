/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: what the engine reports. Every event is counted for the
 * expectations and the summary, every frame sent goes to the pcap file,
 * and with a trace each event is printed under the request it belongs to:
 * the fetch and its cost, the checks, the packets in both directions, the
 * completion. The NIC's events name a QP number and a ring position; the
 * requests are found again from those (and from PSNs for the packets that
 * cross the link).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/sc_int.h"

/* The scenario QP with number @qpn on endpoint @ep, or -1. */
static int qp_of(const struct wqe_scenario *sc, uint32_t ep, uint32_t qpn)
{
	for (uint32_t i = 0; i < sc->nqp; i++)
		if (sc->qp[i].ep == ep && sc->qp[i].qp && wqe_qp_num(sc->qp[i].qp) == qpn)
			return (int)i;
	return -1;
}

/* The accepted request of QP @qi whose WQE starts at ring counter @ctr. */
static struct sc_req *req_at(struct wqe_scenario *sc, int qi, uint32_t ctr)
{
	for (size_t i = sc->nreqs; qi >= 0 && i-- > 0;) {
		struct sc_req *r = &sc->reqs[i];

		if (!r->err && r->qp == (uint32_t)qi && r->wqe_counter == ctr)
			return r;
	}
	return NULL;
}

/* The request of QP @qi a packet with @psn belongs to: the one whose first
 * PSN is closest at or before it (24-bit serial arithmetic). */
static struct sc_req *req_by_psn(struct wqe_scenario *sc, int qi, uint32_t psn)
{
	struct sc_req *best = NULL;
	uint32_t bestd = 0x800000;

	for (size_t i = 0; qi >= 0 && i < sc->nreqs; i++) {
		struct sc_req *r = &sc->reqs[i];
		uint32_t d = (psn - r->psn_first) & 0xffffff;

		if (r->has_psn && r->qp == (uint32_t)qi && d < bestd) {
			bestd = d;
			best = r;
		}
	}
	return best;
}

/* The QP that sent a request packet @p received by QP @qi. */
static int sender_of(const struct wqe_scenario *sc, int qi, const struct wqe_pkt *p)
{
	if (qi < 0)
		return -1;
	if (sc->qp[qi].type != WQE_QPT_UD)
		return sc->qp[qi].peer;
	for (uint32_t i = 0; i < sc->nqp; i++)
		if (sc->qp[i].qp && sc->qp[i].type == WQE_QPT_UD &&
		    wqe_qp_num(sc->qp[i].qp) == p->deth.srcqp)
			return (int)i;
	return -1;
}

const char *sc_req_label(const struct wqe_scenario *sc, const struct sc_req *r, char *buf,
			 size_t cap)
{
	snprintf(buf, cap, "#%zu line %u", (size_t)(r - sc->reqs) + 1, r->line);
	return buf;
}

static void record_tx(struct wqe_scenario *sc, struct sc_endpoint *e,
		      const struct wqe_trace_event *ev, const struct wqe_pkt *p, int parsed)
{
	e->packets++;
	sc->res.packets++;
	if (sc->pcap)
		wqe_pcap_write(sc->pcap, ev->frame, ev->len, ev->time_ns);
	if (!parsed)
		return;
	if (e->ops.n == e->ops.cap) {
		size_t nc = e->ops.cap ? e->ops.cap * 2 : 64;
		uint8_t *n = realloc(e->ops.op, nc);

		if (!n)
			return;
		e->ops.op = n;
		e->ops.cap = nc;
	}
	e->ops.op[e->ops.n++] = p->bth.opcode;
}

static void print_ip(FILE *f, const union wqe_gid *g)
{
	char buf[INET6_ADDRSTRLEN];

	if (wqe_gid_is_v4(g))
		inet_ntop(AF_INET, g->raw + 12, buf, sizeof(buf));
	else
		inet_ntop(AF_INET6, g->raw, buf, sizeof(buf));
	fputs(buf, f);
}

/* The extension headers of @p, each with its values, one line each. */
static void print_ext(FILE *f, const struct wqe_pkt *p)
{
	const char *in = "          ";

	if (p->hdrs & WQE_HDR_DETH)
		fprintf(f, "%sDETH Q_Key 0x%08x, source QP 0x%06x\n", in, p->deth.qkey,
			p->deth.srcqp);
	if (p->hdrs & WQE_HDR_RETH)
		fprintf(f, "%sRETH va 0x%016" PRIx64 ", rkey 0x%08x, DMA length %u\n", in,
			p->reth.va, p->reth.rkey, p->reth.dma_len);
	if (p->hdrs & WQE_HDR_ATOMICETH)
		fprintf(f,
			"%sAtomicETH va 0x%016" PRIx64 ", rkey 0x%08x, swap/add 0x%" PRIx64
			", compare 0x%" PRIx64 "\n",
			in, p->atomiceth.va, p->atomiceth.rkey, p->atomiceth.swap_add,
			p->atomiceth.compare);
	if (p->hdrs & WQE_HDR_AETH) {
		enum wqe_aeth_type t = wqe_aeth_type(p->aeth.syndrome);

		fprintf(f, "%sAETH %s (syndrome 0x%02x, %s %u), MSN %u\n", in,
			wqe_aeth_syndrome_str(p->aeth.syndrome), p->aeth.syndrome,
			t == WQE_AETH_TYPE_ACK	     ? "credits"
			: t == WQE_AETH_TYPE_RNR_NAK ? "RNR timer"
						     : "code",
			wqe_aeth_value(p->aeth.syndrome), p->aeth.msn);
	}
	if (p->hdrs & WQE_HDR_ATOMICACKETH)
		fprintf(f, "%sAtomicAckETH original value 0x%016" PRIx64 "\n", in,
			p->atomicacketh.orig);
	if (p->hdrs & WQE_HDR_IMMDT)
		fprintf(f, "%sImmDt 0x%08x\n", in, p->immdt.imm);
	if (p->hdrs & WQE_HDR_IETH)
		fprintf(f, "%sIETH rkey 0x%08x (to invalidate)\n", in, p->ieth.rkey);
}

/* One packet: the BTH's fields, the extension headers, payload, ICRC. */
static void print_pkt(FILE *f, const struct wqe_trace_event *ev, const struct wqe_pkt *p, int rc)
{
	if (rc) {
		fprintf(f, "        (%zu bytes, not a RoCEv2 packet: %s)\n", ev->len,
			wqe_pkt_err_str(rc));
		return;
	}
	fprintf(f, "        %s  PSN %u  SE %u  AckReq %u  pad %u  payload %u B  ICRC 0x%08x %s\n",
		wqe_wire_opcode_str(p->bth.opcode), p->bth.psn, p->bth.se, p->bth.ackreq,
		p->bth.padcnt, p->payload_len, p->icrc, p->icrc_ok ? "ok" : "BAD");
	print_ext(f, p);
	fprintf(f, "          frame %zu B: IPv%u ", ev->len, p->ipver);
	print_ip(f, &p->src);
	fprintf(f, ":%u > ", p->sport);
	print_ip(f, &p->dst);
	fprintf(f, ":%u, dest QP 0x%06x, P_Key 0x%04x\n", p->dport, p->bth.destqp, p->bth.pkey);
}

static void print_cqe(FILE *f, const struct wqe_trace_event *ev, const struct sc_req *r)
{
	fprintf(f, "%s CQE: status %s, opcode %s, byte_len %u", ev->is_recv ? "receive" : "send",
		wqe_wc_status_str(ev->status), wqe_wc_opcode_str(ev->opcode), ev->byte_len);
	if (ev->wc_flags & WQE_WC_WITH_IMM)
		fprintf(f, ", imm 0x%08x", ev->imm);
	if (ev->wc_flags & WQE_WC_WITH_INV)
		fprintf(f, ", invalidated rkey 0x%08x", ev->imm);
	if (ev->is_recv && ev->src_qp)
		fprintf(f, ", src_qp 0x%06x", ev->src_qp);
	if (ev->status == WQE_WC_WR_FLUSH_ERR)
		fprintf(f, ev->is_recv ? " (flushed: the QP is in ERR, this receive was never used)"
			   : r && r->packets ? " (flushed: the QP went to ERR before this WQE's "
					       "packets were acknowledged)"
					     : " (flushed: the QP is in ERR, this WQE was never "
					       "processed, no packet)");
	fputc('\n', f);
}

/* "[#3 line 26] A qa" or "[-] A qa". */
static void who(FILE *f, const struct wqe_scenario *sc, const struct sc_req *r, uint32_t ep, int qi)
{
	char b[48];

	fprintf(f, "  [%s] %s %s", r ? sc_req_label(sc, r, b, sizeof(b)) : "-", sc->ep[ep].name,
		qi >= 0 ? sc->qp[qi].name : "?");
}

static void on_fetch(struct wqe_scenario *sc, FILE *f, struct sc_req *r,
		     const struct wqe_trace_event *ev)
{
	const struct wqe_desc *d = ev->desc;
	/* A READ's or an atomic's SGEs are where the response is written:
	 * nothing of the payload is read from host memory. */
	bool dest = d && (d->op == WQE_OP_RDMA_READ || d->op == WQE_OP_ATOMIC_CMP_AND_SWP ||
			  d->op == WQE_OP_ATOMIC_FETCH_AND_ADD);
	uint32_t reads = dest ? 0 : ev->payload_reads;

	if (r) {
		r->fetch_blocks += ev->fetch_blocks;
		r->payload_reads += reads;
	}
	if (!f)
		return;
	fprintf(f, " fetched the WQE: %u block%s of 64 B read from the ring\n", ev->fetch_blocks,
		ev->fetch_blocks == 1 ? "" : "s");
	fprintf(f,
		"        processing-time checks passed: well-formed, %s legal on %s, length "
		"%" PRIu64 " B, ",
		d ? wqe_op_str(d->op) : "opcode",
		r ? wqe_qp_type_str(sc->qp[r->qp].type) : "the transport", d ? d->total_len : 0);
	if (d && d->is_inline)
		fprintf(f, "payload inline (no lkey to check)\n");
	else if (d && d->num_sge) {
		fprintf(f, "lkey%s", d->num_sge > 1 ? "s" : "");
		for (uint32_t i = 0; i < d->num_sge && i < WQE_DESC_MAX_SGE; i++)
			fprintf(f, " 0x%08x", d->sge[i].lkey);
		fprintf(f, " valid, same PD, in bounds%s\n",
			dest ? ", LOCAL_WRITE (the response is written there)" : "");
	} else {
		fprintf(f, "no payload\n");
	}
	fprintf(f,
		"        host-memory cost: %u WQE block read%s + %u payload read%s = %u "
		"transaction%s%s\n",
		ev->fetch_blocks, ev->fetch_blocks == 1 ? "" : "s", reads, reads == 1 ? "" : "s",
		ev->fetch_blocks + reads, ev->fetch_blocks + reads == 1 ? "" : "s",
		d && d->is_inline ? " (the payload came with the WQE)"
		: dest		  ? " (nothing to read: the data comes back in the response)"
				  : "");
}

static void on_check_fail(FILE *f, struct sc_req *r, const struct wqe_trace_event *ev)
{
	if (r) {
		r->check_failed = true;
		r->check = ev->check;
		r->fetch_blocks += r->nblocks; /* it was fetched to be checked */
	}
	if (!f)
		return;
	fprintf(f, " processing-time check FAILED: %s", wqe_check_str(ev->check));
	if (ev->check == WQE_CHECK_LKEY && ev->desc && ev->sge_index < ev->desc->num_sge)
		fprintf(f, " of SGE %u (lkey 0x%08x)", ev->sge_index,
			ev->desc->sge[ev->sge_index].lkey);
	fprintf(f,
		": %s\n        -> no packet; a %s CQE (written even when unsignaled); the QP "
		"goes to ERR and every later WQE is flushed\n",
		ev->reason ? ev->reason : "", wqe_wc_status_str(ev->status));
}

static struct sc_req *on_tx(struct wqe_scenario *sc, uint32_t ep, const struct wqe_trace_event *ev)
{
	FILE *f = sc->opts->trace;
	struct wqe_wire_opinfo oi;
	struct wqe_pkt p;
	int rc = wqe_pkt_parse(ev->frame, ev->len, &p);
	int qi = qp_of(sc, ep, ev->qpn);
	bool resp = !rc && !wqe_wire_opcode_info(p.bth.opcode, &oi) && oi.is_response;
	struct sc_req *r = NULL;

	record_tx(sc, &sc->ep[ep], ev, &p, !rc);
	if (!rc && resp)
		r = qi >= 0 ? req_by_psn(sc, sc->qp[qi].peer, p.bth.psn) : NULL;
	else if (!rc && (r = req_at(sc, qi, ev->wqe_counter))) {
		r->packets++;
		if (!r->has_psn) {
			r->has_psn = true;
			r->psn_first = p.bth.psn;
		}
	}
	if (!f)
		return r;
	who(f, sc, r, ep, qi);
	fprintf(f, " %s:\n", resp ? "answers" : "sends");
	print_pkt(f, ev, &p, rc);
	return r;
}

static struct sc_req *on_rx(struct wqe_scenario *sc, uint32_t ep, const struct wqe_trace_event *ev)
{
	FILE *f = sc->opts->trace;
	struct wqe_wire_opinfo oi;
	struct wqe_pkt p;
	int rc = wqe_pkt_parse(ev->frame, ev->len, &p);
	int qi = qp_of(sc, ep, ev->qpn);
	struct sc_req *r = NULL;
	bool resp = !rc && !wqe_wire_opcode_info(p.bth.opcode, &oi) && oi.is_response;

	if (!rc && resp) {
		if ((r = req_by_psn(sc, qi, p.bth.psn)))
			r->responses++;
	} else if (!rc) {
		r = req_by_psn(sc, sender_of(sc, qi, &p), p.bth.psn);
		if (qi >= 0)
			sc->qp[qi].last_rx_req = r ? (size_t)(r - sc->reqs) + 1 : 0;
	}
	if (!f)
		return r;
	who(f, sc, r, ep, qi);
	if (rc) {
		fprintf(f, " %s %zu bytes that are not a RoCEv2 packet (%s)\n",
			ev->kind == WQE_TRACE_DROP ? "dropped" : "received", ev->len,
			wqe_pkt_err_str(rc));
		return r;
	}
	fprintf(f, " %s %s PSN %u", ev->kind == WQE_TRACE_DROP ? "DROPPED an arriving" : "receives",
		wqe_wire_opcode_str(p.bth.opcode), p.bth.psn);
	if (p.hdrs & WQE_HDR_AETH)
		fprintf(f, " (AETH %s, MSN %u)", wqe_aeth_syndrome_str(p.aeth.syndrome),
			p.aeth.msn);
	if (p.hdrs & WQE_HDR_ATOMICACKETH)
		fprintf(f, " (original value 0x%" PRIx64 ")", p.atomicacketh.orig);
	fprintf(f, ", ICRC %s", p.icrc_ok ? "ok" : "BAD");
	if (ev->kind == WQE_TRACE_DROP)
		fprintf(f, ": %s", ev->reason ? ev->reason : "");
	fputc('\n', f);
	return r;
}

static struct sc_req *on_cqe(struct wqe_scenario *sc, uint32_t ep, const struct wqe_trace_event *ev)
{
	FILE *f = sc->opts->trace;
	int qi = qp_of(sc, ep, ev->qpn);
	struct sc_req *r;

	if (ev->is_recv)
		r = qi >= 0 && sc->qp[qi].last_rx_req && ev->status != WQE_WC_WR_FLUSH_ERR
			? &sc->reqs[sc->qp[qi].last_rx_req - 1]
			: NULL;
	else
		r = req_at(sc, qi, ev->wqe_counter);
	if (r && !ev->is_recv) {
		r->has_cqe = true;
		r->status = ev->status;
		r->settled = true;
	}
	if (!f)
		return r;
	who(f, sc, r, ep, qi);
	fputc(' ', f);
	print_cqe(f, ev, r);
	return r;
}

static struct sc_req *print_event(struct wqe_scenario *sc, uint32_t ep,
				  const struct wqe_trace_event *ev)
{
	FILE *f = sc->opts->trace;
	int qi = qp_of(sc, ep, ev->qpn);
	struct sc_req *r = req_at(sc, qi, ev->wqe_counter);

	switch (ev->kind) {
	case WQE_TRACE_FETCH:
		if (f)
			who(f, sc, r, ep, qi);
		on_fetch(sc, f, r, ev);
		break;
	case WQE_TRACE_CHECK_FAIL:
		if (f)
			who(f, sc, r, ep, qi);
		on_check_fail(f, r, ev);
		break;
	case WQE_TRACE_STALL:
		if (f) {
			who(f, sc, r, ep, qi);
			fprintf(f, " waits: %s\n", ev->reason ? ev->reason : "");
		}
		break;
	case WQE_TRACE_RETRY:
		r = req_by_psn(sc, qi, ev->psn);
		if (f) {
			who(f, sc, r, ep, qi);
			fprintf(f, " goes back to PSN %u: %s\n", ev->psn,
				ev->reason ? ev->reason : "");
		}
		break;
	default:
		break;
	}
	return r;
}

/* What an observer (wqe_scenario_opts.observe) is shown of an engine event. */
static void observe(struct wqe_scenario *sc, uint32_t ep, const struct wqe_trace_event *ev,
		    const struct sc_req *r, int64_t frame_index)
{
	struct wqe_scenario_event o;
	struct wqe_qp_dv dv;
	int qi = qp_of(sc, ep, ev->qpn);

	memset(&o, 0, sizeof(o));
	o.kind = WQE_SCENARIO_EV_NIC;
	o.time_ns = sc->now_ns;
	o.endpoint = ep;
	o.qp = qi;
	o.request = r ? (int32_t)(r - sc->reqs) : -1;
	o.frame_index = frame_index;
	if (qi >= 0 && !wqe_qp_dv_query(sc->qp[qi].qp, &dv)) {
		o.sq_used = dv.sq_pi - dv.sq_ci;
		o.sq_blocks = dv.sq_nblocks;
	}
	o.nic = ev;
	sc->opts->observe(sc->opts->observe_arg, &o);
}

void sc_trace_event(void *arg, const struct wqe_trace_event *ev)
{
	struct sc_trace_ctx *c = arg;
	struct wqe_scenario *sc = c->sc;

	struct sc_req *r = NULL;
	/* record_tx() counts the frame: its index in the capture is the count before */
	int64_t frame_index = ev->kind == WQE_TRACE_TX ? (int64_t)sc->res.packets : -1;

	sc_settle(sc);
	switch (ev->kind) {
	case WQE_TRACE_DOORBELL:
		break; /* printed with the post, in sc_trace_post() */
	case WQE_TRACE_TX:
		r = on_tx(sc, c->ep, ev);
		break;
	case WQE_TRACE_RX:
	case WQE_TRACE_DROP:
		r = on_rx(sc, c->ep, ev);
		break;
	case WQE_TRACE_CQE:
		r = on_cqe(sc, c->ep, ev);
		break;
	default:
		r = print_event(sc, c->ep, ev);
		break;
	}
	if (sc->opts->observe)
		observe(sc, c->ep, ev, r, frame_index);
}
