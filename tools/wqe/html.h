/* SPDX-License-Identifier: MIT */
/*
 * html.h - the HTML report of a run or a capture (wqe run/demo/dissect
 * --html; private to the tool).
 *
 * A report is collected first (lanes, packets, requests, ring samples),
 * then written as one self-contained page: inline CSS, SVG and script,
 * nothing fetched. Every text that reaches the page goes through
 * html_esc(), so bytes from a capture or a scenario file never become
 * markup.
 *
 * The file is written completely or not at all: html_open() creates a
 * temporary file beside the target at once (so an unwritable path is
 * refused before anything runs), html_commit() writes and renames it, and
 * html_abort() or a failed commit removes it.
 */
#ifndef WQE_HTML_H
#define WQE_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wqe/scenario.h"
#include "wqe/types.h"

#define HTML_NAME_MAX 48u

/* What became of a frame after it left its sender. */
enum html_fate {
	HTML_FATE_UNKNOWN = 0, /* a capture alone cannot say */
	HTML_FATE_DELIVERED,   /* the receiver took it */
	HTML_FATE_DROPPED,     /* the receiving port dropped it (reason) */
	HTML_FATE_DAMAGED,     /* it arrived changed (the link corrupted it) */
	HTML_FATE_LOST,	       /* it never arrived (the link lost it) */
};

/* One frame of the capture: a row of the ladder. */
struct html_pkt {
	int64_t index; /* 0-based index in the capture */
	uint64_t time_ns;
	int from, to;	 /* lanes, -1 unknown */
	int32_t request; /* the request it belongs to, -1 none */
	uint8_t *frame;
	size_t len;
	int linktype; /* a DLT_* value */
	enum html_fate fate;
	uint32_t arrivals; /* copies the receiver saw (2 or more: duplicated) */
	bool retransmit;   /* a request packet with a PSN its QP already sent */
	char reason[96];   /* DROPPED/DAMAGED: the receiver's words */
};

/* One send request of a run: its three shapes. */
struct html_req {
	uint32_t line;
	char qp[HTML_NAME_MAX];
	char endpoint[HTML_NAME_MAX];
	char *text;    /* the request line */
	char *wr_text; /* wqe_print_send_wr()'s output */
	int err;
	char why[128];
	enum wqe_format format;
	enum wqe_qp_type qp_type;
	uint32_t qpn;
	uint8_t *wqe; /* NULL if refused */
	uint32_t wqe_len;
	uint32_t wqe_counter;
	char completion[192]; /* the summary's last column */
	char *nic_text;	      /* what the NIC did with it, one event a line */
	size_t nic_len, nic_cap;
};

/* A sample of one QP's send-ring occupancy, or a stall. */
struct html_ring {
	uint64_t time_ns;
	int qp;
	uint32_t used, blocks;
	int32_t stall_request; /* a STALL event: its request (-1: a plain sample) */
};

struct html_report {
	/* the page */
	char title[128];
	char source[256];  /* scenario file or capture */
	char verdict[600]; /* the run's result line */
	bool failed;
	/* lanes: endpoints, or the addresses of a capture */
	char lane[16][HTML_NAME_MAX];
	char lane_addr[16][48];
	union wqe_gid lane_gid[16];
	int nlanes;
	char qp_name[64][HTML_NAME_MAX];
	int nqps;
	struct html_pkt *pkt;
	size_t npkt, cappkt;
	struct html_req *req;
	size_t nreq, capreq;
	struct html_ring *ring;
	size_t nring, capring;
	char *summary_rows; /* <tr> rows of the summary table, escaped */
	size_t sum_len, sum_cap;
	const char *legend;
	bool two_shapes;   /* wqe demo: the mlx5/rxe section */
	bool capture_only; /* wqe dissect: no requests, no rings */
	bool oom;	   /* an allocation failed: the commit refuses */
	/* the file */
	char *path;
	char *tmp;
	FILE *f;
};

/*
 * html_open - start a report to be written to @path: the temporary file is
 * created now. NULL with a message in @err (the path and why) if it cannot
 * be, or on ENOMEM.
 */
struct html_report *html_open(const char *path, char *err, size_t cap);
/* Writes the page and renames it to the path: 0, or -1 with @err filled
 * (nothing left behind). Frees @h either way. */
int html_commit(struct html_report *h, char *err, size_t cap);
/* Removes the temporary file and frees @h (NULL is fine). */
void html_abort(struct html_report *h);

/* Adds a lane: its index, or -1 (table full). */
int html_lane(struct html_report *h, const char *name, const union wqe_gid *gid);
/* The lane whose address is @gid, added (named by the address) if new. */
int html_lane_of(struct html_report *h, const union wqe_gid *gid);
/* Sets k->retransmit: a request packet whose (sender, destination QP,
 * opcode, PSN) an earlier packet had. */
void html_mark_retransmit(struct html_report *h, struct html_pkt *k);
/* Appends a frame (copied): the new packet, or NULL (out of memory). */
struct html_pkt *html_add_pkt(struct html_report *h, int64_t index, uint64_t t,
			      const uint8_t *frame, size_t len, int linktype);

/* A scenario run (html_run.c): the observer to set in the run's options
 * (observe_arg = the report), and what to read after the run. */
void html_observe(void *arg, const struct wqe_scenario_event *ev);
void html_run_begin(struct html_report *h, const struct wqe_scenario *sc);
void html_run_end(struct html_report *h, const struct wqe_scenario *sc);

/* A capture (html_cap.c): reads every frame of @path. 0, or -1 with @err. */
int html_read_capture(struct html_report *h, const char *path, char *err, size_t cap);

/* Rendering helpers shared by the parts of the page (html.c). */
void html_esc(FILE *f, const char *s, size_t n);
void html_escs(FILE *f, const char *s);
/* The ladder, the ring chart, the requests' sections (html_ladder.c). */
void html_write_ladder(FILE *f, const struct html_report *h);
void html_write_rings(FILE *f, const struct html_report *h);
void html_write_requests(FILE *f, const struct html_report *h);
/* One WQE as a byte-field diagram and its field table (html_wqe.c). */
void html_wqe(FILE *f, enum wqe_format fmt, enum wqe_qp_type t, uint32_t qpn, const uint8_t *wqe,
	      uint32_t len);
/* The demo's closing part: one request in the mlx5 and rxe shapes. */
void html_two_shapes(FILE *f);

#endif /* WQE_HTML_H */
