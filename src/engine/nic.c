/* SPDX-License-Identifier: MIT */
#include "engine/nic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "engine/flush.h"
#include "engine/requester.h"
#include "engine/completer.h"
#include "engine/rx.h"

#include <time.h>

#define NIC_KEYS 65536u

struct nic *nic_create(enum wqe_format fmt, const struct nic_port *port)
{
	struct nic *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->format = fmt;
	n->port = *port;
	/* Each port numbers its QPs from its own base (from its MAC), so two
	 * endpoints' QPs are told apart on the wire and in traces. */
	if (keys_init(&n->keys, NIC_KEYS) ||
	    qp_table_init(&n->qps, QPN_BASE + ((uint32_t)(port->mac[5] & 0x7f) << 8))) {
		keys_fini(&n->keys);
		free(n);
		return NULL;
	}
	return n;
}

void nic_destroy(struct nic *n)
{
	if (!n)
		return;
	keys_fini(&n->keys);
	qp_table_fini(&n->qps);
	free(n);
}

int nic_qp_create(struct nic *n, struct qpc *q)
{
	q->eng = calloc(1, sizeof(*q->eng));
	if (!q->eng)
		return ENOMEM;
	q->eng->nic = n;
	q->eng->req.nflight = q->sq->nblocks;
	q->eng->req.inflight = calloc(q->sq->nblocks, sizeof(*q->eng->req.inflight));
	if (!q->eng->req.inflight) {
		free(q->eng);
		q->eng = NULL;
		return ENOMEM;
	}
	if (qp_table_add(&n->qps, q)) {
		free(q->eng->req.inflight);
		free(q->eng);
		q->eng = NULL;
		return ENOMEM;
	}
	q->state = WQE_QPS_RESET;
	return 0;
}

void nic_qp_destroy(struct nic *n, struct qpc *q)
{
	qp_table_remove(&n->qps, q->qpn);
	free(q->eng->req.inflight);
	free(q->eng);
	q->eng = NULL;
}

void nic_qp_set_state(struct nic *n, struct qpc *q, enum wqe_qp_state s)
{
	struct eng_qp *e = q->eng;

	if (s == WQE_QPS_RTS && q->state == WQE_QPS_RTR) {
		e->req.psn = q->sq_psn;
		e->req.comp_psn = q->sq_psn;
		e->req.retry_left = q->retry_cnt;
		e->req.rnr_left = q->rnr_retry;
	}
	if (s == WQE_QPS_RTR && q->state == WQE_QPS_INIT)
		resp_start(n, q);
	q->state = s;
	if (s == WQE_QPS_RESET) {
		struct inflight *fl = e->req.inflight;
		uint32_t nfl = e->req.nflight;

		memset(e, 0, sizeof(*e));
		e->nic = n;
		e->req.inflight = fl;
		e->req.nflight = nfl;
	}
	if (s == WQE_QPS_ERR)
		q->eng->doorbell = true; /* flush what is outstanding */
}

void nic_doorbell(struct nic *n, const uint8_t val[8])
{
	if (n->trace) {
		struct wqe_trace_event ev = {.kind = WQE_TRACE_DOORBELL,
					     .qpn = get_be32(val + 4) >> 8,
					     .wqe_counter = get_be32(val) >> 8 & 0xffff,
					     .frame = val, .len = 8};

		nic_trace(n, &ev);
	}
	doorbell_write(&n->db, val);
}

void nic_trace(struct nic *n, struct wqe_trace_event *ev)
{
	if (!n->trace)
		return;
	ev->time_ns = n->clock_ns;
	n->trace(n->trace_arg, ev);
}

bool nic_push_cqe(struct nic *n, struct cqc *cq, const struct cqe *e)
{
	if (n->trace) {
		struct wqe_trace_event ev = {.kind = WQE_TRACE_CQE, .qpn = e->qpn,
					     .wqe_counter = e->wqe_counter,
					     .status = (enum wqe_wc_status)e->status,
					     .is_recv = e->is_recv,
					     .opcode = (enum wqe_wc_opcode)e->opcode,
					     .byte_len = e->byte_len, .wc_flags = e->flags,
					     .imm = e->imm, .src_qp = e->src_qp};

		nic_trace(n, &ev);
	}
	return cqc_push(cq, e);
}

void nic_xmit(struct nic *n, const uint8_t *frame, size_t len)
{
	if (n->trace) {
		struct wqe_trace_event ev = {.kind = WQE_TRACE_TX, .qpn = n->tx_qpn,
					     .wqe_counter = n->tx_counter, .frame = frame,
					     .len = len};

		nic_trace(n, &ev);
	}
	if (n->tx.tap)
		wqe_pcap_write(n->tx.tap, frame, len, n->clock_ns);
	if (n->tx.xmit)
		n->tx.xmit(n->tx.arg, frame, len);
}

/* The doorbell value names the QP: mlx5 carries qpn_ds in bytes 4-7. */
static struct qpc *doorbell_qp(struct nic *n, const uint8_t val[8])
{
	return qp_table_find(&n->qps, get_be32(val + 4) >> 8);
}

uint64_t nic_now(struct nic *n)
{
	if (n->tx.now) {
		n->clock_ns = n->tx.now(n->tx.now_arg);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		n->clock_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return n->clock_ns;
}

/* Frames waiting at the port, a bounded number per call. */
static int take_frames(struct nic *n)
{
	int work = 0;
	size_t len;

	if (!n->tx.rx_poll)
		return 0;
	while (work < 256 && (len = n->tx.rx_poll(n->tx.arg, n->rx_frame, sizeof(n->rx_frame)))) {
		nic_rx(n, n->rx_frame, len);
		work++;
	}
	return work;
}

int nic_progress(struct nic *n)
{
	uint8_t val[8];
	uint64_t now = nic_now(n);
	int work;

	n->progress_calls++;
	work = take_frames(n);
	while (doorbell_read(&n->db, val)) {
		struct qpc *q = doorbell_qp(n, val);

		if (q)
			q->eng->doorbell = true;
	}
	for (uint32_t i = 0; i < n->qps.cap; i++) {
		struct qpc *q = n->qps.slot[i];

		if (!q)
			continue;
		if (q->type == WQE_QPT_RC && q->state == WQE_QPS_RTS)
			work += comp_timers(n, q, now);
		if (!q->eng->doorbell)
			continue;
		if (q->state == WQE_QPS_RTS)
			work += req_run(n, q, 64);
		if (q->state == WQE_QPS_ERR)
			work += flush_qp(n, q);
		/* Keep looking while WQEs wait behind the doorbell record. */
		q->eng->doorbell = q->state == WQE_QPS_RTS &&
				   q->eng->req.fetch != atomic_load_explicit(&q->sq->dbrec,
									     memory_order_acquire);
	}
	return work;
}

int nic_next_deadline(const struct nic *n, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (uint32_t i = 0; i < n->qps.cap; i++) {
		const struct qpc *q = n->qps.slot[i];

		if (!q || q->state == WQE_QPS_ERR)
			continue;
		if (q->eng->req.retrans_at && q->eng->req.retrans_at < best)
			best = q->eng->req.retrans_at;
		if (q->eng->req.rnr_at && q->eng->req.rnr_at < best)
			best = q->eng->req.rnr_at;
	}
	if (best == UINT64_MAX)
		return 0;
	*ns = best;
	return 1;
}
