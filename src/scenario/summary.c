/* SPDX-License-Identifier: MIT */
/* Scenario files: one row per send request, what became of it. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "scenario/sc_int.h"

static const char *transport(enum wqe_qp_type t)
{
	return t == WQE_QPT_RC ? "RC" : t == WQE_QPT_UC ? "UC" : t == WQE_QPT_UD ? "UD" : "?";
}

/* F fence, S signaled, E solicited (SE), I inline; '-' where not set. */
static void flags_str(const struct sc_req *r, char out[5])
{
	out[0] = r->send_flags & WQE_SEND_FENCE ? 'F' : '-';
	out[1] = r->signaled ? 'S' : '-';
	out[2] = r->send_flags & WQE_SEND_SOLICITED ? 'E' : '-';
	out[3] = r->is_inline ? 'I' : '-';
	out[4] = 0;
}

static void outcome(const struct sc_req *r, char *buf, size_t cap)
{
	if (r->err)
		snprintf(buf, cap, "none: refused at post time, %s: %s",
			 r->err == EINVAL   ? "EINVAL"
			 : r->err == ENOMEM ? "ENOMEM"
					    : "error",
			 r->why);
	else if (r->has_cqe && r->check_failed)
		snprintf(buf, cap, "%s (processing-time %s check: no packet)",
			 wqe_wc_status_str(r->status), wqe_check_str(r->check));
	else if (r->has_cqe && r->status == WQE_WC_WR_FLUSH_ERR)
		snprintf(buf, cap, "%s (flushed: the QP was in ERR)", wqe_wc_status_str(r->status));
	else if (r->has_cqe)
		snprintf(buf, cap, "%s", wqe_wc_status_str(r->status));
	else if (r->retired)
		snprintf(buf, cap, "none: unsignaled (it succeeded)");
	else
		snprintf(buf, cap, "none yet: still outstanding");
}

static const char legend[] =
	"flags: F fence, S signaled (a CQE on success), E solicited (BTH SE bit), I inline.\n"
	"WQE B/blk: bytes of the WQE (DS x 16) and 64-byte ring blocks. host txns: WQE blocks "
	"fetched + payload DMA reads\n(every fetch, retries included). pkts: request packets "
	"sent, retransmissions included.\n";

const char *wqe_scenario_summary_legend(void)
{
	return legend;
}

int wqe_scenario_summary_row(const struct wqe_scenario *sc, size_t i, struct wqe_scenario_row *out)
{
	const struct sc_req *r;
	const struct sc_qp *q;

	if (!sc || !out || i >= sc->nreqs)
		return -1;
	r = &sc->reqs[i];
	q = &sc->qp[r->qp];
	memset(out, 0, sizeof(*out));
	out->line = r->line;
	out->qp = q->name;
	out->transport = transport(q->type);
	out->opcode = wqe_wr_opcode_str(r->opcode);
	flags_str(r, out->flags);
	snprintf(out->wqe, sizeof(out->wqe), "-");
	if (!r->err)
		snprintf(out->wqe, sizeof(out->wqe), "%u/%u", r->wqe_bytes, r->nblocks);
	out->data = r->is_inline ? "inline" : r->length ? "DMA" : "none";
	snprintf(out->txns, sizeof(out->txns), "-");
	if (r->fetch_blocks)
		snprintf(out->txns, sizeof(out->txns), "%u+%u=%u", r->fetch_blocks,
			 r->payload_reads, r->fetch_blocks + r->payload_reads);
	out->packets = r->packets;
	outcome(r, out->completion, sizeof(out->completion));
	return 0;
}

int wqe_scenario_print_summary(const struct wqe_scenario *sc, FILE *f)
{
	struct wqe_scenario_row w;

	if (!sc || !f)
		return -1;
	fprintf(f, "%3s %5s %-8s %-2s %-20s %-5s %9s %-6s %-9s %4s  %s\n", "#", "line", "QP", "tr",
		"opcode", "flags", "WQE B/blk", "data", "host txns", "pkts", "completion");
	for (size_t i = 0; wqe_scenario_summary_row(sc, i, &w) == 0; i++)
		fprintf(f, "%3zu %5u %-8.8s %-2s %-20s %-5s %9s %-6s %-9s %4u  %s\n", i + 1, w.line,
			w.qp, w.transport, w.opcode, w.flags, w.wqe, w.data, w.txns, w.packets,
			w.completion);
	fputs(legend, f);
	return ferror(f) ? -1 : 0;
}
