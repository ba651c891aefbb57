/* SPDX-License-Identifier: MIT */
/*
 * The HTML report of a capture alone (wqe dissect --html): what a capture
 * shows. Lanes are the IP addresses in the order they appear; nothing says
 * whether a frame arrived, so no frame is marked lost or dropped; the ICRC
 * verdict is the receiver's only check a capture allows.
 */
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "wqe/wire.h"

int html_read_capture(struct html_report *h, const char *path, char *err, size_t cap)
{
	char perr[256] = "";
	struct wqe_pcap_reader *r = wqe_pcap_reader_open(path, perr, sizeof(perr));
	const uint8_t *frame;
	uint64_t ts, t0 = 0;
	size_t len;
	int64_t i = 0;
	int lt, rc;

	if (!r) {
		snprintf(err, cap, "cannot read %s: %s", path, perr);
		return -1;
	}
	lt = wqe_pcap_reader_linktype(r);
	while ((rc = wqe_pcap_read(r, &frame, &len, &ts)) == 1) {
		struct html_pkt *k;
		struct wqe_pkt p;

		/* The first frame's time is the origin: captures carry wall-clock time. */
		if (!i)
			t0 = ts;
		k = html_add_pkt(h, i++, ts >= t0 ? ts - t0 : 0, frame, len, lt);
		if (!k)
			break;
		if (wqe_pkt_parse_link(lt, k->frame, k->len, &p))
			continue;
		k->from = html_lane_of(h, &p.src);
		k->to = html_lane_of(h, &p.dst);
		html_mark_retransmit(h, k);
	}
	wqe_pcap_reader_close(r);
	if (rc < 0) {
		snprintf(err, cap, "cannot read %s: a read error after %lld frames", path,
			 (long long)i);
		return -1;
	}
	return h->oom ? (snprintf(err, cap, "out of memory"), -1) : 0;
}
