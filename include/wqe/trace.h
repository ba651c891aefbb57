/* SPDX-License-Identifier: MIT */
/*
 * wqe/trace.h - watching the NIC work: one callback per engine event.
 *
 * Every event carries only what the NIC knows: the QP number, the WQE's
 * position in the ring (its first block counter), the decoded WQE, frames,
 * completion fields. A tool matches them to the requests it posted through
 * (qpn, wqe_counter): the counter is the send ring's producer counter at the
 * moment the request was posted (wqe_qp_dv_query()).
 *
 * Threading: the callback runs inside wqe_progress()/wqe_poll_cq()/
 * wqe_post_send()/wqe_context_receive() on the caller's thread; it must not
 * call back into the same context.
 */
#ifndef WQE_TRACE_H
#define WQE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/desc.h"
#include "wqe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

enum wqe_trace_kind {
	WQE_TRACE_DOORBELL = 0, /* the doorbell register was written */
	WQE_TRACE_FETCH,        /* a WQE was fetched from the ring and decoded */
	WQE_TRACE_CHECK_FAIL,   /* a processing-time check failed */
	WQE_TRACE_STALL,        /* a WQE waits (fence or READ/atomic credit) */
	WQE_TRACE_TX,           /* a frame left the port */
	WQE_TRACE_RX,           /* a frame arrived at the port */
	WQE_TRACE_DROP,         /* an arriving frame was dropped */
	WQE_TRACE_RETRY,        /* the requester goes back to a PSN */
	WQE_TRACE_CQE,          /* a completion was written */
	WQE_TRACE_COUNT
};
WQE_API const char *wqe_trace_kind_str(enum wqe_trace_kind k);

/* Which processing-time check failed (WQE_TRACE_CHECK_FAIL). */
enum wqe_check {
	WQE_CHECK_WELL_FORMED = 0, /* size, decode, QP number */
	WQE_CHECK_OPCODE,          /* opcode legal on the transport */
	WQE_CHECK_LENGTH,          /* message length (UD: MTU) */
	WQE_CHECK_LKEY,            /* key, PD, access, bounds of an SGE */
	WQE_CHECK_QP_STATE,        /* the QP may send (checks left to the NIC) */
};
WQE_API const char *wqe_check_str(enum wqe_check c);

struct wqe_trace_event {
	enum wqe_trace_kind kind;
	uint32_t qpn;
	uint32_t wqe_counter;            /* FETCH, CHECK_FAIL, STALL, TX (requests), CQE */
	const struct wqe_desc *desc;     /* FETCH: the decoded WQE; else NULL */
	uint32_t fetch_blocks;           /* FETCH: 64-byte blocks read from the ring */
	uint32_t payload_reads;          /* FETCH: payload reads it will cost (0 inline) */
	enum wqe_check check;            /* CHECK_FAIL */
	uint32_t sge_index;              /* CHECK_FAIL with WQE_CHECK_LKEY */
	const char *reason;              /* CHECK_FAIL, STALL, DROP, RETRY: words */
	enum wqe_wc_status status;       /* CHECK_FAIL, CQE */
	const uint8_t *frame;            /* TX, RX, DROP */
	size_t len;
	uint32_t psn;                    /* RETRY */
	/* CQE */
	int is_recv;
	enum wqe_wc_opcode opcode;
	uint32_t byte_len;
	unsigned int wc_flags;
	uint32_t imm;                    /* big-endian value of the immediate, or the key */
	uint32_t src_qp;
	uint64_t time_ns;                /* the context's clock */
};

typedef void (*wqe_trace_fn)(void *arg, const struct wqe_trace_event *ev);

#ifdef __cplusplus
}
#endif

#endif /* WQE_TRACE_H */
