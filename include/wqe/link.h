/* SPDX-License-Identifier: MIT */
/*
 * wqe/link.h - where a context's packets go.
 *
 * A context sends every frame it builds to the link attached to it, and
 * copies it to its capture tap if one is set. Links:
 *   - the sink: keeps every frame it is given, in order, for tests and for
 *     the pure-model tools; nothing is delivered anywhere;
 *   - the loopback: an in-process Ethernet segment; a frame goes to the
 *     attached context whose MAC is its destination MAC, into a queue that
 *     context takes from when it makes progress;
 *   - the fault injector: wraps another link and, from a seed, drops,
 *     duplicates, reorders, delays and corrupts frames sent through it.
 *
 * Threading: a link is used by the contexts attached to it, from one thread
 * at a time.
 */
#ifndef WQE_LINK_H
#define WQE_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/trace.h"
#include "wqe/types.h"
#include "wqe/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct wqe_link;

/*
 * wqe_link_sink_create - a link that records up to @max_frames frames
 * (1 to 1<<20). Once full, later frames are counted as dropped.
 * Returns NULL with errno EINVAL or ENOMEM.
 */
WQE_API struct wqe_link *wqe_link_sink_create(uint32_t max_frames);

/* Frames recorded by a sink (0 for another kind of link). */
WQE_API size_t wqe_link_sink_count(const struct wqe_link *l);
/* Frames a full sink could not record. */
WQE_API uint64_t wqe_link_sink_dropped(const struct wqe_link *l);

/*
 * wqe_link_sink_frame - frame @i (0 = oldest) of a sink. The pointer stays
 * valid until the sink is cleared or destroyed. Returns 0, or EINVAL if
 * @i is out of range or @l is not a sink.
 */
WQE_API int wqe_link_sink_frame(const struct wqe_link *l, size_t i, const uint8_t **frame,
				size_t *len);

/* Forgets every recorded frame. */
WQE_API void wqe_link_sink_clear(struct wqe_link *l);

/*
 * wqe_link_loopback_create - an in-process segment joining up to 16
 * contexts. Each attached context has a queue of 4096 frames; a frame for a
 * full queue, or for a MAC no attached context has, is dropped and counted.
 * Returns NULL with errno ENOMEM.
 */
WQE_API struct wqe_link *wqe_link_loopback_create(void);

/* Fault rates: probabilities in [0, 1] applied to every frame sent. */
struct wqe_fault_cfg {
	double drop;
	double duplicate;
	double reorder;      /* held back behind the next frame */
	double delay;        /* held back behind the next delay_frames frames */
	double corrupt;      /* one bit flipped at a random place */
	uint32_t delay_frames; /* 0 means 8 */
	uint64_t seed;       /* same seed, same faults for the same frames */
};

/*
 * wqe_link_fault_create - wrap @inner (a loopback) in a fault injector.
 * Contexts attach to the returned link. A held frame (reorder, delay) is
 * released at the latest when a receiver finds nothing else waiting, so a
 * fault never stalls an exchange; the injector holds at most 64 frames. Returns NULL with errno EINVAL
 * (rates outside [0, 1], @inner not a loopback) or ENOMEM.
 */
WQE_API struct wqe_link *wqe_link_fault_create(struct wqe_link *inner,
					       const struct wqe_fault_cfg *cfg);

/* What a link did with the frames it was given. */
struct wqe_link_stats {
	uint64_t frames;        /* frames sent into the link */
	uint64_t delivered;     /* frames queued for a destination */
	uint64_t no_destination;
	uint64_t queue_full;
	uint64_t dropped;       /* fault injector */
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t delayed;
	uint64_t corrupted;
};

/* Copies @l's counters. Returns 0 or EINVAL. */
WQE_API int wqe_link_stats(const struct wqe_link *l, struct wqe_link_stats *s);

/* Frees @l; EBUSY while a context is attached. 0 or EINVAL otherwise. */
WQE_API int wqe_link_destroy(struct wqe_link *l);

/*
 * wqe_context_attach_link - send @ctx's packets to @l (NULL detaches).
 * Returns 0 or EINVAL.
 */
WQE_API int wqe_context_attach_link(struct wqe_context *ctx, struct wqe_link *l);

/*
 * wqe_context_receive - hand one frame to @ctx's port as if it had arrived
 * from the wire (tests, fuzzers, a user's own transport). It is parsed,
 * its ICRC checked and filtered at once; responses it causes are sent to
 * the attached link. Returns 0, or EINVAL for NULL arguments or a frame
 * longer than 65535 bytes. A dropped frame is not an error: it is counted.
 */
WQE_API int wqe_context_receive(struct wqe_context *ctx, const uint8_t *frame, size_t len);

/*
 * wqe_context_set_clock - the clock the context's timers (retransmit, RNR)
 * and capture timestamps use: @now returns nanoseconds. NULL restores
 * CLOCK_MONOTONIC. A simulator passes its own time here. Returns 0 or EINVAL.
 */
WQE_API int wqe_context_set_clock(struct wqe_context *ctx, uint64_t (*now)(void *arg),
				  void *arg);

/*
 * wqe_context_next_deadline - the earliest armed timer of @ctx's NIC (a
 * retransmit timeout or an RNR wait), on its clock, in *@ns. A simulator
 * with its own clock (wqe_context_set_clock()) that finds nothing left to
 * do jumps its time there. Returns 1 if a timer is armed, 0 if none,
 * -EINVAL for NULL arguments.
 */
WQE_API int wqe_context_next_deadline(struct wqe_context *ctx, uint64_t *ns);

/*
 * wqe_context_set_pcap - record every frame @ctx sends or receives in the
 * pcap file @path (created or truncated; flushed after every frame, so an
 * interrupted run leaves a readable file). NULL stops recording and closes
 * the file. Returns 0, or an errno value (nothing changes then).
 */
WQE_API int wqe_context_set_pcap(struct wqe_context *ctx, const char *path);

/*
 * Per-QP counters kept by the engine.
 * Requester: what each WQE cost in host-memory transactions (the WQE fetch
 * in 64-byte blocks, one payload read per non-empty SGE; none for inline
 * payload), what it became, stalls, errors, retries.
 * Responder: what arrived and what was answered.
 */
struct wqe_qp_stats {
	uint64_t wqes_fetched;
	uint64_t wqe_fetch_blocks;
	uint64_t payload_reads;
	uint64_t payload_bytes;
	uint64_t inline_wqes;
	uint64_t fence_stalls;     /* a FENCE WQE waited for READs/atomics */
	uint64_t rd_atomic_stalls; /* a READ/atomic waited for max_rd_atomic */
	uint64_t packets_sent;     /* request packets, retransmissions included */
	uint64_t bytes_sent;
	uint64_t packets_received; /* packets that passed the receive filters */
	uint64_t wqe_errors;       /* WQEs completed with an error (not flush) */
	uint64_t flushed;
	uint64_t retransmits;      /* go-back-N sequences started */
	uint64_t timeouts;         /* retransmit timer expiries */
	uint64_t rnr_naks_received;
	uint64_t seq_naks_received;
	/* responder */
	uint64_t requests_received;
	uint64_t acks_sent;
	uint64_t naks_sent;        /* NAK PSN sequence, invalid request, access, op */
	uint64_t rnr_naks_sent;
	uint64_t read_responses_sent;
	uint64_t atomic_acks_sent;
	uint64_t duplicates;       /* requests behind the expected PSN */
	uint64_t out_of_sequence;  /* requests ahead of it */
	uint64_t bytes_placed;
	uint64_t messages_received;
	uint64_t responder_drops;  /* requests dropped by the responder, any reason */
};

/* Copies @qp's counters. Returns 0 or EINVAL. */
WQE_API int wqe_query_qp_stats(struct wqe_qp *qp, struct wqe_qp_stats *stats);

/*
 * wqe_context_set_trace - call @fn with every engine event of @ctx
 * (wqe/trace.h); NULL stops. Returns 0 or EINVAL.
 */
WQE_API int wqe_context_set_trace(struct wqe_context *ctx, wqe_trace_fn fn, void *arg);

/*
 * What the driver knows of a QP's send ring (the twin of mlx5dv_init_obj
 * for a QP): where the ring is, its size, and the producer counter. A tool
 * reads the WQE a request became at blocks [pi before the post, pi after).
 */
struct wqe_qp_dv {
	const uint8_t *sq_buf;
	uint32_t sq_nblocks;  /* 64-byte blocks, a power of two */
	uint32_t sq_pi;       /* producer counter, free-running, in blocks */
	uint32_t sq_ci;       /* blocks the engine has retired */
	uint32_t max_wqe_bytes;
	enum wqe_format format;
};
/* Fills @dv. Returns 0 or EINVAL. */
WQE_API int wqe_qp_dv_query(const struct wqe_qp *qp, struct wqe_qp_dv *dv);

/*
 * wqe_progress - let the context's NIC run: take doorbells, fetch and
 * process WQEs, send packets, write completions. wqe_poll_cq() calls it
 * too. Returns the number of WQEs and packets handled (0: nothing to do),
 * or -EINVAL.
 */
WQE_API int wqe_progress(struct wqe_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* WQE_LINK_H */
