/* SPDX-License-Identifier: MIT */
/*
 * The HTML report of a scenario run: what the run's observer
 * (wqe_scenario_opts.observe) is shown, kept for the page. Frames are
 * kept as their senders sent them (the capture's frames, in its order);
 * what the receivers saw of them is matched back to them here, since the
 * link may lose, duplicate, reorder or damage frames on the way.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html.h"
#include "wqe/trace.h"
#include "wqe/wire.h"

static struct html_req *req_at(struct html_report *h, int32_t i)
{
	return i >= 0 && (size_t)i < h->nreq ? &h->req[i] : NULL;
}

/* Appends a line to what the NIC did with a request. */
static void note(struct html_report *h, struct html_req *r, uint64_t t, const char *who,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void note(struct html_report *h, struct html_req *r, uint64_t t, const char *who,
		 const char *fmt, ...)
{
	char line[400];
	int n, m;
	va_list ap;

	if (!r)
		return;
	n = snprintf(line, sizeof(line), "t=%llu us  %s: ", (unsigned long long)(t / 1000), who);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	n = m < 0 ? n : n + m >= (int)sizeof(line) - 1 ? (int)sizeof(line) - 2 : n + m;
	line[n++] = '\n';
	if (r->nic_len + (size_t)n + 1 > r->nic_cap) {
		size_t nc = (r->nic_cap ? r->nic_cap * 2 : 512) + (size_t)n;
		char *p = realloc(r->nic_text, nc);

		if (!p) {
			h->oom = true;
			return;
		}
		r->nic_text = p;
		r->nic_cap = nc;
	}
	memcpy(r->nic_text + r->nic_len, line, (size_t)n);
	r->nic_len += (size_t)n;
	r->nic_text[r->nic_len] = 0;
}

static void ring_sample(struct html_report *h, const struct wqe_scenario_event *ev, int32_t stall)
{
	struct html_ring *s;

	if (ev->qp < 0 || !ev->sq_blocks)
		return;
	/* Only changes (and stalls) are kept: a run has many more events. */
	for (size_t i = h->nring; stall < 0 && i-- > 0;)
		if (h->ring[i].qp == ev->qp) {
			if (h->ring[i].used == ev->sq_used)
				return;
			break;
		}
	if (h->nring == h->capring) {
		size_t nc = h->capring ? h->capring * 2 : 256;
		struct html_ring *p = realloc(h->ring, nc * sizeof(*p));

		if (!p) {
			h->oom = true;
			return;
		}
		h->ring = p;
		h->capring = nc;
	}
	s = &h->ring[h->nring++];
	s->time_ns = ev->time_ns;
	s->qp = ev->qp;
	s->used = ev->sq_used;
	s->blocks = ev->sq_blocks;
	s->stall_request = stall;
}

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

static void on_post(struct html_report *h, const struct wqe_scenario_event *ev)
{
	struct html_req *r;
	FILE *m;
	size_t n;

	if ((size_t)ev->request != h->nreq)
		return; /* requests come in order, once each */
	if (h->nreq == h->capreq) {
		size_t nc = h->capreq ? h->capreq * 2 : 32;
		struct html_req *p = realloc(h->req, nc * sizeof(*p));

		if (!p) {
			h->oom = true;
			return;
		}
		h->req = p;
		h->capreq = nc;
	}
	r = &h->req[h->nreq++];
	memset(r, 0, sizeof(*r));
	r->line = ev->line;
	if (ev->qp >= 0 && ev->qp < h->nqps)
		snprintf(r->qp, sizeof(r->qp), "%s", h->qp_name[ev->qp]);
	if ((int)ev->endpoint < h->nlanes)
		snprintf(r->endpoint, sizeof(r->endpoint), "%s", h->lane[ev->endpoint]);
	r->text = dup_n(ev->text, ev->text_len);
	/* Shape 1 as the text trace prints it. */
	m = open_memstream(&r->wr_text, &n);
	if (m) {
		wqe_print_send_wr(m, ev->wr, ev->qp_type);
		fclose(m);
	}
	r->err = ev->err;
	snprintf(r->why, sizeof(r->why), "%s", ev->why ? ev->why : "");
	r->format = ev->format;
	r->qp_type = ev->qp_type;
	r->qpn = ev->qpn;
	r->wqe_counter = ev->wqe_counter;
	if (ev->wqe && (r->wqe = malloc(ev->wqe_len))) {
		memcpy(r->wqe, ev->wqe, ev->wqe_len);
		r->wqe_len = ev->wqe_len;
	}
	if (!r->text || !r->wr_text || (ev->wqe && !r->wqe))
		h->oom = true;
	ring_sample(h, ev, -1);
}

static void on_tx(struct html_report *h, const struct wqe_scenario_event *ev)
{
	const struct wqe_trace_event *t = ev->nic;
	struct html_pkt *k = html_add_pkt(h, ev->frame_index, ev->time_ns, t->frame, t->len, 1);
	struct wqe_pkt p;

	if (!k)
		return;
	k->from = (int)ev->endpoint;
	k->request = ev->request;
	k->fate = HTML_FATE_LOST; /* until an arrival is matched to it */
	if (wqe_pkt_parse(t->frame, t->len, &p))
		return;
	for (int i = 0; i < h->nlanes; i++)
		if (!memcmp(h->lane_gid[i].raw, p.dst.raw, sizeof(p.dst.raw)))
			k->to = i;
	html_mark_retransmit(h, k);
}

static size_t hamming(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += a[i] != b[i];
	return d;
}

/*
 * An arrival at endpoint @ev->endpoint: the oldest frame sent to it with
 * the same bytes that has not arrived yet; else one that has (a duplicate);
 * else the closest frame of the same length (it was damaged on the way).
 */
static void on_arrival(struct html_report *h, const struct wqe_scenario_event *ev)
{
	const struct wqe_trace_event *t = ev->nic;
	struct html_pkt *best = NULL, *dup = NULL;
	size_t bestd = SIZE_MAX;
	bool drop = t->kind == WQE_TRACE_DROP;

	for (size_t i = 0; i < h->npkt; i++) {
		struct html_pkt *k = &h->pkt[i];

		if (k->to != (int)ev->endpoint && k->to >= 0)
			continue;
		if (k->len == t->len && !memcmp(k->frame, t->frame, t->len)) {
			if (!k->arrivals) {
				best = k;
				bestd = 0;
				break;
			}
			dup = k;
		}
	}
	if (!best && dup) {
		dup->arrivals++;
		return;
	}
	for (size_t i = 0; !best && i < h->npkt; i++) {
		struct html_pkt *k = &h->pkt[i];
		size_t d;

		if (k->arrivals || k->len != t->len || (k->to != (int)ev->endpoint && k->to >= 0))
			continue;
		d = hamming(k->frame, t->frame, t->len);
		if (d < bestd) {
			bestd = d;
			best = k;
		}
	}
	for (size_t i = 0; best && bestd && i < h->npkt; i++)
		if (&h->pkt[i] != best && !h->pkt[i].arrivals && h->pkt[i].len == t->len &&
		    hamming(h->pkt[i].frame, t->frame, t->len) < bestd)
			best = &h->pkt[i];
	if (!best)
		return;
	best->arrivals++;
	best->fate = bestd ? HTML_FATE_DAMAGED : drop ? HTML_FATE_DROPPED : HTML_FATE_DELIVERED;
	if (best->to < 0)
		best->to = (int)ev->endpoint;
	if (drop || bestd)
		snprintf(best->reason, sizeof(best->reason), "%s%s",
			 bestd ? "arrived damaged; " : "", t->reason ? t->reason : "dropped");
}

static void on_nic(struct html_report *h, const struct wqe_scenario_event *ev)
{
	const struct wqe_trace_event *t = ev->nic;
	struct html_req *r = req_at(h, ev->request);
	char who[2 * HTML_NAME_MAX + 2];

	snprintf(who, sizeof(who), "%s %s",
		 (int)ev->endpoint < h->nlanes ? h->lane[ev->endpoint] : "?",
		 ev->qp >= 0 && ev->qp < h->nqps ? h->qp_name[ev->qp] : "?");
	switch (t->kind) {
	case WQE_TRACE_TX:
		on_tx(h, ev);
		break;
	case WQE_TRACE_RX:
	case WQE_TRACE_DROP:
		on_arrival(h, ev);
		break;
	case WQE_TRACE_FETCH:
		note(h, r, ev->time_ns, who,
		     "fetched the WQE: %u block%s read from the ring, %u payload read%s",
		     t->fetch_blocks, t->fetch_blocks == 1 ? "" : "s", t->payload_reads,
		     t->payload_reads == 1 ? "" : "s");
		break;
	case WQE_TRACE_CHECK_FAIL:
		note(h, r, ev->time_ns, who,
		     "processing-time check FAILED: %s: %s -> %s, no packet",
		     wqe_check_str(t->check), t->reason ? t->reason : "",
		     wqe_wc_status_str(t->status));
		break;
	case WQE_TRACE_STALL:
		note(h, r, ev->time_ns, who, "waits: %s", t->reason ? t->reason : "");
		ring_sample(h, ev, ev->request >= 0 ? ev->request : (int32_t)h->nreq);
		return;
	case WQE_TRACE_RETRY:
		note(h, r, ev->time_ns, who, "goes back to PSN %u: %s", t->psn,
		     t->reason ? t->reason : "");
		break;
	case WQE_TRACE_CQE:
		note(h, r, ev->time_ns, who, "%s CQE: status %s, opcode %s, byte_len %u",
		     t->is_recv ? "receive" : "send", wqe_wc_status_str(t->status),
		     wqe_wc_opcode_str(t->opcode), t->byte_len);
		break;
	default:
		break;
	}
	ring_sample(h, ev, -1);
}

void html_observe(void *arg, const struct wqe_scenario_event *ev)
{
	struct html_report *h = arg;

	if (ev->kind == WQE_SCENARIO_EV_POST)
		on_post(h, ev);
	else if (ev->nic)
		on_nic(h, ev);
}

void html_run_begin(struct html_report *h, const struct wqe_scenario *sc)
{
	struct wqe_scenario_endpoint_info e;
	struct wqe_scenario_qp_info q;

	for (uint32_t i = 0; !wqe_scenario_endpoint(sc, i, &e); i++)
		html_lane(h, e.name, &e.gid);
	for (uint32_t i = 0; h->nqps < 64 && !wqe_scenario_qp(sc, i, &q); i++)
		snprintf(h->qp_name[h->nqps++], HTML_NAME_MAX, "%s", q.name);
}

static void append(struct html_report *h, const char *s, size_t n)
{
	if (h->sum_len + n + 1 > h->sum_cap) {
		size_t nc = (h->sum_cap ? h->sum_cap * 2 : 4096) + n;
		char *p = realloc(h->summary_rows, nc);

		if (!p) {
			h->oom = true;
			return;
		}
		h->summary_rows = p;
		h->sum_cap = nc;
	}
	memcpy(h->summary_rows + h->sum_len, s, n);
	h->sum_len += n;
	h->summary_rows[h->sum_len] = 0;
}

/* The summary's rows, as wqe_scenario_print_summary() has them, escaped. */
void html_run_end(struct html_report *h, const struct wqe_scenario *sc)
{
	struct wqe_scenario_row w;

	for (size_t i = 0; !wqe_scenario_summary_row(sc, i, &w); i++) {
		char *buf = NULL;
		size_t n = 0;
		FILE *m = open_memstream(&buf, &n);
		bool ok;

		if (!m) {
			h->oom = true;
			return;
		}
		ok = !strncmp(w.completion, "SUCCESS", 7) || strstr(w.completion, "succeeded");

		if (i < h->nreq)
			snprintf(h->req[i].completion, sizeof(h->req[i].completion), "%s",
				 w.completion);
		fprintf(m, "<tr class=\"%s\"><td><a href=\"#req-%zu\">#%zu</a></td><td>%u</td><td>",
			ok ? "ok" : "bad", i + 1, i + 1, w.line);
		html_escs(m, w.qp);
		fprintf(m, "</td><td>%s</td><td>%s</td><td class=\"mono\">%s</td><td>", w.transport,
			w.opcode, w.flags);
		html_escs(m, w.wqe);
		fprintf(m, "</td><td>%s</td><td>", w.data);
		html_escs(m, w.txns);
		fprintf(m, "</td><td>%u</td><td>", w.packets);
		html_escs(m, w.completion);
		fputs("</td></tr>\n", m);
		fclose(m);
		if (buf)
			append(h, buf, n);
		free(buf);
	}
	h->legend = wqe_scenario_summary_legend();
}
