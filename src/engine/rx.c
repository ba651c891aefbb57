/* SPDX-License-Identifier: MIT */
/* The receive path: parse, verify, filter, dispatch. */
#include "engine/rx.h"

#include <string.h>

#include "common/mem.h"
#include "engine/completer.h"
#include "engine/responder.h"
#include "wqe/wire.h"

const char *rx_drop_str(enum rx_drop d)
{
	static const char *const names[RX_DROP_COUNT] = {
		"not RoCEv2", "malformed", "bad ICRC", "bad checksum", "bad TVer", "not for this port",
		"unknown QP", "QP state", "transport mismatch", "P_Key mismatch",
		"Q_Key mismatch", "source address",
	};

	return (unsigned)d < RX_DROP_COUNT ? names[d] : "unknown";
}

static bool is_response(uint8_t op)
{
	/* RC 0x0d-0x12: READ responses, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE. */
	return op >= 0x0d && op <= 0x12;
}

static enum wqe_qp_type transport_of(uint8_t op)
{
	switch (op >> 5) {
	case 0: return WQE_QPT_RC;
	case 1: return WQE_QPT_UC;
	case 3: return WQE_QPT_UD;
	default: return (enum wqe_qp_type)0;
	}
}

static bool port_has_gid(const struct nic *n, const union wqe_gid *g)
{
	for (uint32_t i = 0; i < n->port.num_gids; i++)
		if (memeq16(n->port.gid[i].raw, g->raw))
			return true;
	return false;
}

/* IBTA 9.6 checks on a parsed packet; returns the drop reason or -1. */
static int filter(struct nic *n, const struct wqe_pkt *p, struct qpc **out)
{
	struct qpc *q;

	if (!p->icrc_ok)
		return RX_DROP_BAD_ICRC;
	if (!p->ip_csum_ok || !p->udp_csum_ok)
		return RX_DROP_BAD_CSUM;
	if (p->bth.tver != 0)
		return RX_DROP_BAD_TVER;
	if (!port_has_gid(n, &p->dst))
		return RX_DROP_NOT_FOR_US;
	q = p->bth.destqp > 1 ? qp_table_find(&n->qps, p->bth.destqp) : NULL;
	if (!q)
		return RX_DROP_UNKNOWN_QP;
	if (q->state != WQE_QPS_RTR && q->state != WQE_QPS_RTS && q->state != WQE_QPS_SQD &&
	    q->state != WQE_QPS_SQE)
		return RX_DROP_QP_STATE;
	if (transport_of(p->bth.opcode) != q->type)
		return RX_DROP_TRANSPORT;
	if (p->bth.pkey != n->port.pkey[q->pkey_index < n->port.num_pkeys ? q->pkey_index : 0])
		return RX_DROP_PKEY;
	if (q->type == WQE_QPT_UD && p->deth.qkey != q->qkey)
		return RX_DROP_QKEY;
	if (q->type != WQE_QPT_UD && !memeq16(p->src.raw, q->av.dgid.raw))
		return RX_DROP_SRC;
	*out = q;
	return -1;
}

void nic_rx(struct nic *n, const uint8_t *frame, size_t len)
{
	struct wqe_pkt p;
	struct qpc *q = NULL;
	int err, drop;

	if (n->tx.tap)
		wqe_pcap_write(n->tx.tap, frame, len, n->clock_ns);
	n->rx_frames++;
	err = wqe_pkt_parse(frame, len, &p);
	drop = err ? (wqe_pkt_err_not_roce(err) ? RX_DROP_NOT_ROCE : RX_DROP_MALFORMED)
		   : filter(n, &p, &q);
	if (n->trace) {
		struct wqe_trace_event ev = {.kind = drop >= 0 ? WQE_TRACE_DROP : WQE_TRACE_RX,
					     .qpn = err ? 0 : p.bth.destqp, .frame = frame,
					     .len = len,
					     .reason = drop >= 0 ? rx_drop_str((enum rx_drop)drop)
								 : NULL};

		nic_trace(n, &ev);
	}
	if (drop >= 0) {
		n->rx_drops[drop]++;
		return;
	}
	n->rx_accepted++;
	if (is_response(p.bth.opcode)) {
		q->eng->req.msg.rx_responses++;
		comp_rx(n, q, &p);
	} else {
		q->eng->rx_requests++;
		resp_rx(n, q, &p);
	}
}

void nic_receive(struct nic *n, const uint8_t *frame, size_t len)
{
	nic_now(n); /* timers armed on the way start from now */
	nic_rx(n, frame, len);
	resp_ack_flush(n);
	nic_tx_flush(n); /* the responses it caused leave now */
}
