/* SPDX-License-Identifier: MIT */
/*
 * The receive side's checks of wqe encode (recv.c), shared with libwqe_dpi
 * (src/dpi): the slot a receive QP's sizing gives, and wqe_post_recv()'s
 * checks of one request. Nothing here prints.
 */
#include <inttypes.h>

#include "cli.h"

int cli_recv_slot_bytes(enum wqe_format fmt, uint32_t max_recv_sge, uint32_t *slot)
{
	struct wqe_qp_cap cap = {
	    .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = max_recv_sge};
	uint32_t nslots;

	return wqe_calc_rq(fmt, &cap, slot, &nslots) ? -1 : 0;
}

int cli_recv_slot(enum wqe_format fmt, uint32_t max_recv_sge, uint32_t *slot, char *msg, size_t cap)
{
	if (!cli_recv_slot_bytes(fmt, max_recv_sge, slot))
		return 0;
	snprintf(msg, cap,
		 "no %s receive queue takes %" PRIu32
		 " SGEs (--max-recv-sge: 1 to 64, rxe at most 32)",
		 wqe_format_str(fmt), max_recv_sge);
	return -1;
}

int cli_recv_check(uint32_t max_recv_sge, const char *line, size_t len,
		   const struct wqe_recv_wr *wr, char *msg, size_t cap, uint32_t *col)
{
	uint64_t total = 0;

	if ((uint32_t)wr->num_sge > max_recv_sge) {
		snprintf(msg, cap, "%d SGEs, but the QP takes at most %" PRIu32 " (--max-recv-sge)",
			 wr->num_sge, max_recv_sge);
		*col = cli_key_column(line, len, "sge", (int)max_recv_sge + 1);
		return -1;
	}
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > (1ull << 31)) {
		snprintf(msg, cap, "a receive buffer of %" PRIu64 " bytes is over 2^31", total);
		*col = cli_key_column(line, len, "sge", 1);
		return -1;
	}
	return 0;
}
