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

int wqe_scenario_print_summary(const struct wqe_scenario *sc, FILE *f)
{
	if (!sc || !f)
		return -1;
	fprintf(f, "%3s %5s %-8s %-2s %-20s %-5s %9s %-6s %-9s %4s  %s\n", "#", "line", "QP", "tr",
		"opcode", "flags", "WQE B/blk", "data", "host txns", "pkts", "completion");
	for (size_t i = 0; i < sc->nreqs; i++) {
		const struct sc_req *r = &sc->reqs[i];
		const struct sc_qp *q = &sc->qp[r->qp];
		char fl[5], wqe[16] = "-", txn[24] = "-", out[192];

		flags_str(r, fl);
		outcome(r, out, sizeof(out));
		if (!r->err)
			snprintf(wqe, sizeof(wqe), "%u/%u", r->wqe_bytes, r->nblocks);
		if (r->fetch_blocks)
			snprintf(txn, sizeof(txn), "%u+%u=%u", r->fetch_blocks, r->payload_reads,
				 r->fetch_blocks + r->payload_reads);
		fprintf(f, "%3zu %5u %-8.8s %-2s %-20s %-5s %9s %-6s %-9s %4u  %s\n", i + 1,
			r->line, q->name, transport(q->type), wqe_wr_opcode_str(r->opcode), fl, wqe,
			r->is_inline ? "inline"
			: r->length  ? "DMA"
				     : "none",
			txn, r->packets, out);
	}
	fprintf(f,
		"flags: F fence, S signaled (a CQE on success), E solicited (BTH SE bit), I inline."
		"\nWQE B/blk: bytes of the WQE (DS x 16) and 64-byte ring blocks. host txns: WQE "
		"blocks fetched + payload DMA reads\n(every fetch, retries included). pkts: "
		"request packets sent, retransmissions included.\n");
	return ferror(f) ? -1 : 0;
}
