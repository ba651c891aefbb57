/* SPDX-License-Identifier: MIT */
/*
 * The report's pictures of time: the ladder (every frame of the capture
 * as an arrow between the endpoints' lanes, one row each, in capture
 * order, as Wireshark's flow graph draws it), the send rings' occupancy
 * with the stalls, and the requests in their three shapes.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html.h"
#include "wqe/wire.h"

enum { TIME_W = 150, LANE_GAP = 420, TOP = 56, ROW = 30, MARGIN = 130 };

static int lane_x(int i)
{
	return TIME_W + MARGIN + i * LANE_GAP;
}

/* The CSS classes of a packet: what it is, then what befell it. */
static void classes(FILE *f, const struct html_pkt *k, const struct wqe_pkt *p, int rc)
{
	struct wqe_wire_opinfo oi;

	if (rc || wqe_wire_opcode_info(p->bth.opcode, &oi)) {
		fputs("other", f);
	} else if (p->hdrs & WQE_HDR_AETH && wqe_aeth_type(p->aeth.syndrome) != WQE_AETH_TYPE_ACK) {
		fputs("nak", f);
	} else if (oi.kind == WQE_KIND_ACK || oi.kind == WQE_KIND_ATOMIC_ACK) {
		fputs(oi.kind == WQE_KIND_ACK ? "ack" : "resp", f);
	} else {
		fputs(oi.is_response ? "resp" : "req", f);
	}
	if (k->retransmit)
		fputs(" retx", f);
	if (!rc && !p->icrc_ok)
		fputs(" badicrc", f);
	if (k->fate == HTML_FATE_LOST)
		fputs(" lost", f);
	else if (k->fate == HTML_FATE_DAMAGED)
		fputs(" damaged", f);
	else if (k->fate == HTML_FATE_DROPPED)
		fputs(" dropped", f);
	if (k->arrivals > 1)
		fputs(" dup", f);
}

/* "RC_SEND_ONLY PSN 12 AckReq SE 1078 B", and the AETH's verdict. */
static void label(FILE *f, const struct html_pkt *k, const struct wqe_pkt *p, int rc)
{
	if (rc) {
		fprintf(f, "%zu B, not RoCEv2: ", k->len);
		html_escs(f, wqe_pkt_err_str(rc));
		return;
	}
	if (k->retransmit)
		fputs("(re) ", f);
	fprintf(f, "%s PSN %u", wqe_wire_opcode_str(p->bth.opcode), p->bth.psn);
	if (p->bth.ackreq)
		fputs(" AckReq", f);
	if (p->bth.se)
		fputs(" SE", f);
	if (p->hdrs & WQE_HDR_AETH) {
		if (wqe_aeth_type(p->aeth.syndrome) == WQE_AETH_TYPE_ACK)
			fprintf(f, " ACK MSN %u", p->aeth.msn);
		else
			fprintf(f, " %s (0x%02x) MSN %u", wqe_aeth_syndrome_str(p->aeth.syndrome),
				p->aeth.syndrome, p->aeth.msn);
	}
	fprintf(f, " %zu B", k->len);
	if (!p->icrc_ok)
		fputs(" ICRC BAD", f);
	if (k->arrivals > 1)
		fprintf(f, " x%u (duplicated)", k->arrivals);
	if (k->fate == HTML_FATE_LOST)
		fputs(" - lost", f);
	else if (k->fate == HTML_FATE_DAMAGED)
		fputs(" - damaged", f);
	else if (k->fate == HTML_FATE_DROPPED)
		fputs(" - dropped", f);
}

static void arrow(FILE *f, const struct html_pkt *k, int y)
{
	int xa = k->from >= 0 ? lane_x(k->from) : lane_x(0) - 60;
	int xb = k->to >= 0 ? lane_x(k->to) : xa + 120;
	int dir = xb >= xa ? 1 : -1;
	int yb = y + 10;

	if (k->from >= 0 && k->to == k->from)
		xb = xa + 60; /* to itself (a capture of one host): a stub */
	if (k->fate == HTML_FATE_LOST) {
		/* It stops where the link lost it. */
		int xm = xa + (xb - xa) * 3 / 5;

		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", xa, y, xm, y + 6);
		fprintf(f, "<text class=\"mark\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">x</text>",
			xm, y + 11);
		return;
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", xa, y, xb - dir * 2, yb);
	fprintf(f, "<polygon points=\"%d,%d %d,%d %d,%d\"/>", xb, yb, xb - dir * 9, yb - 5,
		xb - dir * 9, yb + 4);
	if (k->fate == HTML_FATE_DROPPED)
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", xb + dir * 3, yb - 8,
			xb + dir * 3, yb + 8);
	else if (k->fate == HTML_FATE_DAMAGED)
		fprintf(f, "<text class=\"mark\" x=\"%d\" y=\"%d\">!</text>", xb + dir * 6 - 3,
			yb + 4);
}

static void row(FILE *f, const struct html_report *h, const struct html_pkt *k, int y)
{
	struct wqe_pkt p;
	int rc = wqe_pkt_parse_link(k->linktype, k->frame, k->len, &p);
	int xa = k->from >= 0 ? lane_x(k->from) : lane_x(0) - 60;
	int xb = k->to >= 0 && k->to != k->from ? lane_x(k->to) : xa + 120;

	if (k->request >= 0)
		fprintf(f, "<a href=\"#req-%d\">", k->request + 1);
	else
		fprintf(f, "<a href=\"#pd-%lld\">", (long long)k->index);
	fprintf(f, "<g class=\"pkt ");
	classes(f, k, &p, rc);
	fprintf(f, "\" data-packet=\"%lld\" id=\"pkt-%lld\"><title>frame %lld", (long long)k->index,
		(long long)k->index, (long long)k->index);
	if (k->request >= 0)
		fprintf(f, " of request #%d", k->request + 1);
	if (k->from >= 0 && k->to >= 0) {
		fputs(": ", f);
		html_escs(f, h->lane[k->from]);
		fputs(" to ", f);
		html_escs(f, h->lane[k->to]);
	}
	if (k->reason[0]) {
		fputs(": ", f);
		html_escs(f, k->reason);
	}
	fputs("</title>", f);
	arrow(f, k, y);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (xa + xb) / 2, y - 4);
	label(f, k, &p, rc);
	fputs("</text></g></a>\n", f);
	fprintf(f, "<text x=\"8\" y=\"%d\">%6lld  %llu.%03llu us</text>\n", y + 8,
		(long long)k->index, (unsigned long long)(k->time_ns / 1000),
		(unsigned long long)(k->time_ns % 1000));
}

void html_write_ladder(FILE *f, const struct html_report *h)
{
	int lanes = h->nlanes ? h->nlanes : 1;
	int w = lane_x(lanes - 1) + MARGIN + 60;
	int ht = TOP + (int)h->npkt * ROW + 20;

	fprintf(f,
		"<p>%zu frame%s, one row each in capture order (the left column: its index in "
		"the capture and its time). Each arrow links to its request (or its "
		"headers).</p>\n",
		h->npkt, h->npkt == 1 ? "" : "s");
	fprintf(f,
		"<svg class=\"ladder\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		w, ht, w, ht);
	fputs("<text x=\"8\" y=\"20\">frame  time</text>\n", f);
	for (int i = 0; i < h->nlanes; i++) {
		fprintf(f, "<text class=\"lanename\" x=\"%d\" y=\"20\" text-anchor=\"middle\">",
			lane_x(i));
		html_escs(f, h->lane[i]);
		fprintf(f, "</text><text x=\"%d\" y=\"36\" text-anchor=\"middle\">", lane_x(i));
		html_escs(f, h->lane_addr[i]);
		fprintf(f,
			"</text><line class=\"lane\" x1=\"%d\" y1=\"44\" x2=\"%d\" y2=\"%d\"/>\n",
			lane_x(i), lane_x(i), ht - 4);
	}
	for (size_t i = 0; i < h->npkt; i++)
		row(f, h, &h->pkt[i], TOP + (int)i * ROW + 12);
	fputs("</svg>\n", f);
}

/* One QP's band of the ring chart: occupancy as a step line, stalls as marks. */
static void ring_band(FILE *f, const struct html_report *h, int qp, int y0, int x0, int w)
{
	enum { BAND = 50 };
	uint32_t blocks = 0;
	size_t n = h->nring > 1 ? h->nring - 1 : 1;
	bool started = false;

	uint32_t peak = 1;

	/* Scaled to the busiest moment, not the ring's size: a ring of 64
	 * blocks that never holds more than 3 would draw a flat line. */
	for (size_t i = 0; i < h->nring; i++)
		if (h->ring[i].qp == qp) {
			if (h->ring[i].blocks > blocks)
				blocks = h->ring[i].blocks;
			if (h->ring[i].used > peak)
				peak = h->ring[i].used;
		}
	fprintf(f, "<rect class=\"ringbox\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", x0, y0,
		w, BAND);
	fprintf(f, "<text x=\"4\" y=\"%d\">", y0 + 20);
	html_escs(f, qp < h->nqps ? h->qp_name[qp] : "?");
	fprintf(f, "</text><text x=\"4\" y=\"%d\">peak %u/%u</text>\n<path class=\"ring\" d=\"",
		y0 + 36, peak, blocks);
	for (size_t i = 0; i < h->nring; i++) {
		const struct html_ring *s = &h->ring[i];
		int x = x0 + (int)((uint64_t)i * (uint64_t)w / n);
		int y;

		if (s->qp != qp || s->stall_request >= 0)
			continue;
		y = y0 + BAND - 2 - (int)((uint64_t)s->used * (BAND - 8) / peak);
		if (!started)
			fprintf(f, "M%d %d", x, y);
		else
			fprintf(f, "H%dV%d", x, y);
		started = true;
	}
	if (started)
		fprintf(f, "H%d", x0 + w);
	fputs("\"/>\n", f);
	for (size_t i = 0; i < h->nring; i++) {
		const struct html_ring *s = &h->ring[i];
		int x = x0 + (int)((uint64_t)i * (uint64_t)w / n);

		if (s->qp != qp || s->stall_request < 0)
			continue;
		fprintf(f,
			"<a href=\"#req-%d\"><polygon class=\"stall\" points=\"%d,%d %d,%d %d,%d\">"
			"<title>t=%llu us: request #%d waits (fence or READ/atomic credit)"
			"</title></polygon></a>\n",
			s->stall_request + 1, x, y0 + 2, x - 5, y0 - 7, x + 5, y0 - 7,
			(unsigned long long)(s->time_ns / 1000), s->stall_request + 1);
	}
}

void html_write_rings(FILE *f, const struct html_report *h)
{
	enum { X0 = 110, W = 760, BAND_GAP = 66 };
	bool used[64] = {false};
	int nq = 0, y = 14;

	/* A QP whose send ring never held a WQE (a responder's) has no band. */
	for (size_t i = 0; i < h->nring; i++)
		if (h->ring[i].qp >= 0 && h->ring[i].qp < 64 && !used[h->ring[i].qp] &&
		    (h->ring[i].used || h->ring[i].stall_request >= 0)) {
			used[h->ring[i].qp] = true;
			nq++;
		}
	fputs("<section id=\"rings\"><h2>Send rings: occupancy and stalls</h2>\n<p>Blocks in use "
	      "in each QP's send ring (producer minus consumer counter), sampled at every post and "
	      "NIC event, events in order left to right; a red mark is a WQE that waits (a fence "
	      "behind an earlier READ or atomic, or no READ/atomic credit).</p>\n",
	      f);
	if (!nq) {
		fputs("<p>No send request was posted.</p></section>\n", f);
		return;
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n",
		X0 + W + 20, nq * BAND_GAP + 40);
	for (int q = 0; q < 64; q++)
		if (used[q]) {
			ring_band(f, h, q, y, X0, W);
			y += BAND_GAP;
		}
	if (h->nring)
		fprintf(f,
			"<text x=\"%d\" y=\"%d\">t=%llu us</text><text x=\"%d\" y=\"%d\" "
			"text-anchor=\"end\">t=%llu us</text>\n",
			X0, y + 4, (unsigned long long)(h->ring[0].time_ns / 1000), X0 + W, y + 4,
			(unsigned long long)(h->ring[h->nring - 1].time_ns / 1000));
	fputs("</svg></section>\n", f);
}

static void request(FILE *f, const struct html_report *h, size_t i)
{
	const struct html_req *r = &h->req[i];
	int n = 0;

	fprintf(f, "<section class=\"req\" id=\"req-%zu\"><h3>#%zu, line %u: ", i + 1, i + 1,
		r->line);
	html_escs(f, r->qp);
	fputs(" on ", f);
	html_escs(f, r->endpoint);
	fprintf(f, " (%s QP 0x%06x): ", wqe_qp_type_str(r->qp_type), r->qpn);
	html_escs(f, r->completion);
	fputs("</h3>\n<div class=\"shapes\"><div class=\"shape\"><h4>1. The software Work "
	      "Request</h4><pre>",
	      f);
	html_escs(f, r->text);
	fputs("</pre><pre>", f);
	html_escs(f, r->wr_text);
	fputs("</pre>", f);
	if (r->err) {
		fputs("<p class=\"verdict bad\">Refused at post time: ", f);
		html_escs(f, r->why);
		fputs(". Nothing reached the ring; no packet.</p>", f);
	}
	fprintf(f, "</div>\n<div class=\"shape\"><h4>2. The WQE in the send ring (%s)</h4>",
		wqe_format_str(r->format));
	if (r->wqe)
		html_wqe(f, r->format, r->qp_type, r->qpn, r->wqe, r->wqe_len);
	else
		fputs("<p>None: the request never reached the ring.</p>", f);
	fputs("</div>\n<div class=\"shape\"><h4>3. On the wire</h4><ul>", f);
	for (size_t j = 0; j < h->npkt; j++) {
		const struct html_pkt *k = &h->pkt[j];
		struct wqe_pkt p;

		if (k->request != (int32_t)i)
			continue;
		n++;
		fprintf(f, "<li><a href=\"#pkt-%lld\">%lld</a> ", (long long)k->index,
			(long long)k->index);
		if (k->from >= 0 && k->to >= 0) {
			html_escs(f, h->lane[k->from]);
			fputs(" &gt; ", f);
			html_escs(f, h->lane[k->to]);
			fputc(' ', f);
		}
		label(f, k, &p, wqe_pkt_parse_link(k->linktype, k->frame, k->len, &p));
		fputs("</li>", f);
	}
	if (!n)
		fputs("<li>no packet</li>", f);
	fputs("</ul><h4>What the NICs did</h4><pre>", f);
	html_escs(f, r->nic_text ? r->nic_text : "nothing\n");
	fputs("</pre></div></div></section>\n", f);
}

void html_write_requests(FILE *f, const struct html_report *h)
{
	fputs("<section id=\"requests\"><h2>Requests in their three shapes</h2>\n<p>Each request "
	      "as software posted it, as the WQE the driver wrote into the send ring (segments "
	      "coloured, fields named as the text trace names them), and as the packets the NIC "
	      "made of it and the answers they got.</p>\n",
	      f);
	for (size_t i = 0; i < h->nreq; i++)
		request(f, h, i);
	if (!h->nreq)
		fputs("<p>No send request was posted.</p>\n", f);
	fputs("</section>\n", f);
}
