/* SPDX-License-Identifier: MIT */
/*
 * bench.h - one context of a given WQE format and check policy, its port
 * joined to a sink link and recorded by a pcap tap, every engine event
 * traced; a QP under test (any transport, left in any state) and a healthy
 * UC control QP in RTS. The checks every policy test makes live here:
 *
 *   bench_refused_at_post()   EINVAL, *bad_wr = the request, the ring and
 *                             its producer counter untouched, no doorbell,
 *                             no event, no completion, no packet
 *   bench_failed_in_engine()  post returns 0, the NIC completes the request
 *                             with its status even when unsignaled, the QP
 *                             goes to ERR, the requests after it are
 *                             flushed, one CHECK_FAIL event names the check,
 *                             no packet
 *   bench_control_packet()    the control QP's SEND is the first and only
 *                             packet on the sink and in the capture (so
 *                             "no packet" above is not vacuous)
 */
#ifndef WQE_TEST_POLICY_BENCH_H
#define WQE_TEST_POLICY_BENCH_H

#include <stdint.h>

#include "wqe/link.h"
#include "wqe/trace.h"
#include "wqe/verbs.h"

#define BENCH_MAX_EVENTS 256
#define BENCH_BUF	 8192

/* What a trace event said, kept after the callback returns. */
struct bench_event {
	enum wqe_trace_kind kind;
	uint32_t qpn;
	uint32_t wqe_counter;
	enum wqe_check check;
	enum wqe_wc_status status;
	const char *reason; /* static strings of the engine */
};

struct bench {
	enum wqe_format fmt;
	enum wqe_check_policy policy;
	enum wqe_qp_type type;
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *cq;  /* the QP under test's send and receive CQ */
	struct wqe_cq *ccq; /* the control QP's */
	struct wqe_link *sink;
	struct wqe_mr *mr;
	struct wqe_ah *ah;  /* an address for UD sends */
	struct wqe_qp *qp;  /* under test */
	struct wqe_qp *ctl; /* UC, RTS */
	uint8_t *buf;	    /* BENCH_BUF bytes registered as @mr */
	char pcap[96];
	struct bench_event ev[BENCH_MAX_EVENTS];
	int nev;
};

/* The name of a case, for failure messages: "rxe/engine/UD". */
const char *bench_name(const struct bench *b);

/*
 * Opens the bench and leaves the QP under test of type @t in @state
 * (RESET, INIT, RTR or RTS; max_send_sge 2, max_inline_data 16).
 * Returns 0 or -1 (a setup call failed: a test failure is recorded).
 */
int bench_open(struct bench *b, enum wqe_format fmt, enum wqe_check_policy p, enum wqe_qp_type t,
	       enum wqe_qp_state state);
void bench_close(struct bench *b);

/* A legal SEND for the QP under test (UD: with an address), @len bytes. */
void bench_send(const struct bench *b, struct wqe_send_wr *wr, struct wqe_sge *sge, uint64_t wr_id,
		uint32_t len, unsigned int flags);

/* Checks @wr (the head of the chain posted) is refused at post time. */
void bench_refused_at_post(struct bench *b, struct wqe_send_wr *wr);

/*
 * Posts the chain @wr (@n requests, the first the failing one) and checks
 * the NIC fails the first with @status at @check, flushes the other n - 1
 * and sends nothing.
 */
void bench_failed_in_engine(struct bench *b, struct wqe_send_wr *wr, int n, enum wqe_check check,
			    enum wqe_wc_status status);

/* Sends one SEND on the control QP: it must be the only packet seen. */
void bench_control_packet(struct bench *b);

/* Frames in the bench's capture file so far; -1 if it cannot be read. */
int bench_pcap_frames(const struct bench *b);

/* The state the QP under test is in (wqe_query_qp). */
enum wqe_qp_state bench_qp_state(struct wqe_qp *qp);

#endif
