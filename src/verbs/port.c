/* SPDX-License-Identifier: MIT */
/*
 * A context's port: attaching it to a link, its capture tap, clock and
 * trace; port and QP statistics; progress. Each is a command of the
 * device interface (engine/device.h) but progress.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "link/link_int.h"
#include "verbs/verbs_int.h"
#include "wqe/link.h"
#include "wqe/wire.h"

/* Whether attaching @ctx to @l would take more contexts than @l, or a
 * link it wraps, serves (a UDP link serves one); the ports @ctx holds now,
 * given back by the attach, do not count. */
static bool link_full(const struct wqe_context *ctx, const struct wqe_link *l)
{
	for (; l; l = l->kind == LINK_FAULT ? l->inner : NULL) {
		uint32_t mine = 0;

		for (const struct link_port *p = ctx->port; p; p = p->inner)
			mine += p->link == l;
		if (l->max_users && l->users - mine >= l->max_users)
			return true;
	}
	return false;
}

/* The guard of a link a NIC thread drives (struct wqe_link @guard). */
static void nic_guard(void *arg, int lock)
{
	struct wqe_context *ctx = arg;

	if (lock)
		nic_cmd_begin(ctx->nic);
	else
		nic_cmd_end(ctx->nic);
}

/* Sets (@ctx) or clears (NULL) the guard of @l and the links it wraps. */
static void set_guard(struct wqe_link *l, struct wqe_context *ctx)
{
	for (; l; l = l->kind == LINK_FAULT ? l->inner : NULL) {
		l->guard = ctx ? nic_guard : NULL;
		l->guard_arg = ctx;
	}
}

int wqe_context_attach_link(struct wqe_context *ctx, struct wqe_link *l)
{
	struct link_port *p = NULL;
	int err;

	if (!ctx)
		return EINVAL;
	if (l && link_full(ctx, l))
		return EBUSY;
	if (l) {
		errno = 0;
		p = link_port_attach(l, ctx->attr.mac, nic_mode_of(ctx->nic) == NIC_THREAD);
		if (!p)
			return errno == ENOTSUP ? ENOTSUP : ENOMEM;
	}
	nic_cmd_begin(ctx->nic);
	if (p) {
		struct nic_link nl = {.xmit = l->xmit, .tx_buf = l->tx_buf,
				      .xmit_buf = l->xmit_buf, .rx_peek = l->rx_peek,
				      .rx_done = l->rx_done, .flush = l->flush,
				      .rx_arm = l->rx_arm, .arg = p,
				      .fd = link_poll_fd(p)};

		err = nic_set_link(ctx->nic, &nl);
	} else {
		err = nic_set_link(ctx->nic, NULL);
	}
	nic_cmd_end(ctx->nic);
	if (err) {
		link_port_detach(p);
		return err == EINVAL ? ENOTSUP : err;
	}
	if (ctx->port) {
		set_guard(ctx->link, NULL);
		link_port_detach(ctx->port);
	}
	ctx->link = l;
	ctx->port = p;
	if (l && l->kind != LINK_LOOPBACK && nic_mode_of(ctx->nic) == NIC_THREAD)
		set_guard(l, ctx); /* a loopback has a lock of its own */
	return 0;
}

/* The public reasons are the engine's, in the same order. */
_Static_assert((int)WQE_RX_DROP_NOT_ROCE == (int)RX_DROP_NOT_ROCE &&
		       (int)WQE_RX_DROP_MALFORMED == (int)RX_DROP_MALFORMED &&
		       (int)WQE_RX_DROP_BAD_ICRC == (int)RX_DROP_BAD_ICRC &&
		       (int)WQE_RX_DROP_BAD_CSUM == (int)RX_DROP_BAD_CSUM &&
		       (int)WQE_RX_DROP_BAD_TVER == (int)RX_DROP_BAD_TVER &&
		       (int)WQE_RX_DROP_NOT_FOR_US == (int)RX_DROP_NOT_FOR_US &&
		       (int)WQE_RX_DROP_UNKNOWN_QP == (int)RX_DROP_UNKNOWN_QP &&
		       (int)WQE_RX_DROP_QP_STATE == (int)RX_DROP_QP_STATE &&
		       (int)WQE_RX_DROP_TRANSPORT == (int)RX_DROP_TRANSPORT &&
		       (int)WQE_RX_DROP_PKEY == (int)RX_DROP_PKEY &&
		       (int)WQE_RX_DROP_QKEY == (int)RX_DROP_QKEY &&
		       (int)WQE_RX_DROP_SRC == (int)RX_DROP_SRC &&
		       (int)WQE_RX_DROP_COUNT == (int)RX_DROP_COUNT,
	       "enum wqe_rx_drop follows enum rx_drop");

const char *wqe_rx_drop_str(enum wqe_rx_drop d)
{
	return rx_drop_str((enum rx_drop)d);
}

int wqe_context_port_stats(struct wqe_context *ctx, struct wqe_port_stats *s)
{
	struct nic_port_counters c;

	if (!ctx || !s)
		return EINVAL;
	nic_cmd_begin(ctx->nic);
	nic_query_port(ctx->nic, &c);
	nic_cmd_end(ctx->nic);
	memset(s, 0, sizeof(*s));
	s->tx_frames = c.tx_frames;
	s->rx_frames = c.rx_frames;
	s->rx_accepted = c.rx_accepted;
	for (unsigned i = 0; i < WQE_RX_DROP_COUNT; i++)
		s->rx_drops[i] = c.rx_drops[i];
	s->progress_calls = c.progress_calls;
	return 0;
}

int wqe_context_receive(struct wqe_context *ctx, const uint8_t *frame, size_t len)
{
	if (!ctx || !frame || len > 65535)
		return EINVAL;
	nic_cmd_begin(ctx->nic);
	nic_receive(ctx->nic, frame, len);
	nic_cmd_end(ctx->nic);
	return 0;
}

int wqe_context_set_clock(struct wqe_context *ctx, uint64_t (*now)(void *arg), void *arg)
{
	if (!ctx)
		return EINVAL;
	nic_cmd_begin(ctx->nic);
	nic_set_clock(ctx->nic, now, arg);
	nic_cmd_end(ctx->nic);
	return 0;
}

int wqe_context_set_pcap(struct wqe_context *ctx, const char *path)
{
	struct wqe_pcap *w = NULL;

	if (!ctx)
		return EINVAL;
	if (path) {
		w = wqe_pcap_open(path);
		if (!w)
			return errno ? errno : EIO;
	}
	nic_cmd_begin(ctx->nic);
	w = nic_set_tap(ctx->nic, w);
	nic_cmd_end(ctx->nic);
	if (w)
		wqe_pcap_close(w);
	return 0;
}

static void fill_resp_stats(const struct resp_stats *r, struct wqe_qp_stats *s)
{
	memset(&s->requests_received, 0,
	       sizeof(*s) - offsetof(struct wqe_qp_stats, requests_received));
	s->requests_received = r->requests;
	s->acks_sent = r->acks;
	for (unsigned i = 0; i < RESP_NAK_COUNT; i++)
		s->naks_sent += r->naks[i];
	s->rnr_naks_sent = r->rnr_naks;
	s->read_responses_sent = r->read_responses;
	s->atomic_acks_sent = r->atomic_acks;
	s->duplicates = r->duplicates;
	s->out_of_sequence = r->out_of_seq;
	s->bytes_placed = r->bytes_placed;
	s->messages_received = r->messages;
	for (unsigned i = 0; i < RESP_DROP_COUNT; i++)
		s->responder_drops += r->drops[i];
}

int wqe_query_qp_stats(struct wqe_qp *qp, struct wqe_qp_stats *s)
{
	struct nic_qp_counters c;

	if (!qp || !s)
		return EINVAL;
	nic_cmd_begin(qp->context->nic);
	nic_query_qp(&qp->qpc, &c);
	nic_cmd_end(qp->context->nic);
	s->wqes_fetched = c.msg.wqes_fetched;
	s->wqe_fetch_blocks = c.msg.wqe_fetch_blocks;
	s->payload_reads = c.msg.payload_reads;
	s->payload_bytes = c.msg.payload_bytes;
	s->inline_wqes = c.req.inline_wqes;
	s->fence_stalls = c.req.fence_stalls;
	s->rd_atomic_stalls = c.req.rd_atomic_stalls;
	s->packets_sent = c.msg.packets_sent;
	s->bytes_sent = c.msg.bytes_sent;
	s->packets_received = c.rx_requests + c.msg.rx_responses;
	s->wqe_errors = c.req.wqe_errors;
	s->flushed = c.req.flushed;
	s->retransmits = c.req.retransmits;
	s->timeouts = c.req.timeouts;
	s->rnr_naks_received = c.req.rnr_naks_received;
	s->seq_naks_received = c.req.seq_naks_received;
	fill_resp_stats(&c.resp, s);
	return 0;
}

int wqe_progress(struct wqe_context *ctx)
{
	if (!ctx)
		return -EINVAL;
	return nic_progress(ctx->nic);
}

int wqe_context_set_trace(struct wqe_context *ctx, wqe_trace_fn fn, void *arg)
{
	if (!ctx)
		return EINVAL;
	nic_cmd_begin(ctx->nic);
	nic_set_trace(ctx->nic, fn, arg);
	nic_cmd_end(ctx->nic);
	return 0;
}

int wqe_qp_dv_query(const struct wqe_qp *qp, struct wqe_qp_dv *dv)
{
	if (!qp || !dv)
		return EINVAL;
	dv->sq_buf = qp->sq.buf;
	dv->sq_nblocks = qp->sq.nblocks;
	dv->sq_pi = qp->sq.pi;
	dv->sq_ci = atomic_load_explicit(&qp->sq.ci, memory_order_acquire);
	dv->max_wqe_bytes = qp->wqe_bytes;
	dv->format = qp->qpc.format;
	return 0;
}

int wqe_context_next_deadline(struct wqe_context *ctx, uint64_t *ns)
{
	int r;

	if (!ctx || !ns)
		return -EINVAL;
	nic_cmd_begin(ctx->nic);
	r = nic_next_deadline(ctx->nic, ns);
	nic_cmd_end(ctx->nic);
	return r;
}
