/* SPDX-License-Identifier: MIT */
/*
 * The receive queue as the responder sees it, and data placement.
 *
 * A receive WQE is one slot of the receive ring in the QP's format (mlx5
 * data segments, or rxe's struct rxe_recv_wqe), read through that format's
 * decoder (wqe_decode_recv(), src/fmt): the engine sees only the slot's
 * bytes. The WQE at the consumer counter is held from the FIRST packet of a
 * SEND to its LAST (as rxe holds qp->resp.wqe) and retired, with a release
 * store of the consumer counter, when its completion is written; so a QP
 * that goes to ERR meanwhile flushes it with the rest. The NIC keeps only
 * its cursor (SGE index and offset): the slot is decoded again for every
 * packet, so a slot rewritten meanwhile is judged anew, and a slot the
 * decoder refuses is a malformed WQE (LOC_QP_OP_ERR), never read further.
 */
#include <string.h>

#include "common/bytes.h"
#include "engine/resp_int.h"

/* The receive WQE at @ctr, decoded in the QP's format; false if the slot
 * does not hold a well-formed one. */
static bool rq_decode(const struct qpc *q, uint32_t ctr, struct wqe_recv_desc *d)
{
	return wqe_decode_recv(q->format, rq_ring_slot(q->rq, ctr), q->rq->stride, d) ==
	       WQE_DEC_OK;
}

bool resp_rq_take(struct resp_ctx *c)
{
	struct rq_ring *rq = c->q->rq;
	struct resp_rwqe *w = &c->r->wqe;
	uint32_t ci, pi;

	if (!rq)
		return false;
	ci = atomic_load_explicit(&rq->ci, memory_order_relaxed);
	/* Acquire (in rq_ring_producer): the WQE's bytes are read only after
	 * the producer counter that publishes them. */
	pi = rq_ring_producer(rq, ci);
	if (ci == pi)
		return false;
	memset(w, 0, sizeof(*w));
	w->valid = true;
	w->ctr = ci;
	return true;
}

bool resp_rq_well_formed(const struct resp_ctx *c)
{
	struct wqe_recv_desc d;

	return rq_decode(c->q, c->r->wqe.ctr, &d);
}

void resp_rq_rewind(struct eng_resp *r)
{
	memset(&r->wqe, 0, sizeof(r->wqe));
}

/* ------------------------------------------------------------------------ */
/* The GRH area of a UD receive buffer.                                     */

static uint16_t ipv4_csum(const uint8_t *h)
{
	uint32_t sum = 0;

	for (unsigned i = 0; i < WQE_IPV4_LEN; i += 2)
		sum += get_be16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * Verbs (ibv_post_recv on a UD QP): a receive buffer starts with 40 bytes
 * for the GRH. For RoCEv2 that is the IP header as received: IPv6 fills all 40
 * bytes; IPv4 leaves 20 zero bytes and then the 20-byte header (rxe
 * execute(): hdr.reserved zeroed, then roce4grh). The header is rebuilt
 * from the parsed fields, so it is the same for a frame and for a UDP
 * payload whose IP header the socket swallowed.
 */
static void build_grh(const struct wqe_pkt *p, uint8_t g[RESP_GRH_LEN])
{
	memset(g, 0, RESP_GRH_LEN);
	if (p->ipver == 4) {
		uint8_t *h = g + RESP_GRH_LEN - WQE_IPV4_LEN;

		h[0] = 0x45;
		h[1] = p->tos;
		put_be16(h + 2, p->ip_len);
		put_be16(h + 4, p->ip_id);
		put_be16(h + 6, (uint16_t)((p->ip_flags & 7u) << 13));
		h[8] = p->ttl;
		h[9] = 17;
		memcpy(h + 12, p->src.raw + 12, 4);
		memcpy(h + 16, p->dst.raw + 12, 4);
		put_be16(h + 10, ipv4_csum(h));
		return;
	}
	put_be32(g, 6u << 28 | (uint32_t)p->tos << 20 | (p->flow_label & 0xfffffu));
	put_be16(g + 4, p->ip_len);
	g[6] = 17;
	g[7] = p->ttl;
	memcpy(g + 8, p->src.raw, 16);
	memcpy(g + 24, p->dst.raw, 16);
}

/* ------------------------------------------------------------------------ */
/* Scatter.                                                                 */

struct span {
	const uint8_t *base;
	uint32_t len;
};

struct piece {
	uint8_t *dst;
	uint32_t len;
};

struct plan {
	struct piece pc[WQE_DESC_MAX_SGE];
	uint32_t n;
	uint32_t end_i;
	uint32_t end_off;
};

/*
 * Where @len bytes go from the WQE's cursor: each piece is resolved through
 * its lkey (valid, the QP's PD, LOCAL_WRITE, inside the region) before any
 * byte is written.
 */
static enum resp_place_err plan_scatter(const struct resp_ctx *c, uint32_t len, struct plan *pl)
{
	const struct resp_rwqe *w = &c->r->wqe;
	uint32_t i = w->sge_i, off = w->sge_off;
	struct wqe_recv_desc d;

	pl->n = 0;
	if (!rq_decode(c->q, w->ctr, &d))
		return RESP_PLACE_MALFORMED;
	while (len) {
		const struct wqe_desc_sge *s;
		uint32_t take;

		if (i >= d.num_sge)
			return RESP_PLACE_LEN;
		s = &d.sge[i];
		if (off >= s->length) {
			i++;
			off = 0;
			continue;
		}
		take = s->length - off < len ? s->length - off : len;
		if (keys_check(&c->n->keys, s->lkey, false, c->q->pd, s->addr + off, take,
			       WQE_ACCESS_LOCAL_WRITE, &pl->pc[pl->n].dst) != KEY_OK)
			return RESP_PLACE_PROT;
		pl->pc[pl->n++].len = take;
		off += take;
		len -= take;
	}
	pl->end_i = i;
	pl->end_off = off;
	return RESP_PLACE_OK;
}

/* Copies the sources, in order, into the planned pieces. */
static void scatter(const struct plan *pl, const struct span *src, uint32_t nsrc)
{
	uint32_t si = 0, soff = 0;

	for (uint32_t i = 0; i < pl->n; i++) {
		uint8_t *dst = pl->pc[i].dst;
		uint32_t left = pl->pc[i].len;

		while (left && si < nsrc) {
			uint32_t n = src[si].len - soff;

			if (n > left)
				n = left;
			memcpy(dst, src[si].base + soff, n);
			dst += n;
			left -= n;
			soff += n;
			if (soff == src[si].len) {
				si++;
				soff = 0;
			}
		}
	}
}

enum resp_place_err resp_rq_place(struct resp_ctx *c)
{
	struct resp_rwqe *w = &c->r->wqe;
	uint8_t grh[RESP_GRH_LEN];
	struct span src[2];
	uint32_t nsrc = 0, total = 0;
	enum resp_place_err err;
	struct plan pl;

	if (c->q->type == WQE_QPT_UD) {
		build_grh(c->p, grh);
		src[nsrc++] = (struct span){grh, RESP_GRH_LEN};
	}
	if (c->p->payload_len)
		src[nsrc++] = (struct span){c->p->payload, c->p->payload_len};
	for (uint32_t i = 0; i < nsrc; i++)
		total += src[i].len;
	if (w->placed + total > RESP_MAX_MSG)
		return RESP_PLACE_LEN;
	err = plan_scatter(c, total, &pl);
	if (err)
		return err;
	scatter(&pl, src, nsrc);
	w->sge_i = pl.end_i;
	w->sge_off = pl.end_off;
	w->placed += total;
	c->r->stats.bytes_placed += total;
	return RESP_PLACE_OK;
}

/* ------------------------------------------------------------------------ */
/* Completion.                                                              */

/*
 * The receive CQE of a message (IBTA ch. 11 work completions, ibv_wc): RECV, or
 * RECV_RDMA_WITH_IMM for a WRITE with immediate, whose byte_len is the
 * WRITE's length (rxe do_complete: qp->resp.length); the immediate or the
 * invalidated rkey with their flag; for UD the source QP and GRH. A
 * message completes on its last packet (LAST or ONLY), which is @p: its
 * BTH SE bit makes the completion solicited (IBTA 9.2 BTH, 11.4.2.2), what
 * a CQ armed for solicited completions waits for.
 */
static void fill_success(const struct resp_ctx *c, struct cqe *e)
{
	const struct wqe_pkt *p = c->p;
	bool write_imm = c->oi.kind == WQE_KIND_RDMA_WRITE;

	e->opcode = (uint8_t)(write_imm ? WQE_WC_RECV_RDMA_WITH_IMM : WQE_WC_RECV);
	e->byte_len = write_imm ? c->r->wr.len : (uint32_t)c->r->wqe.placed;
	e->solicited = p->bth.se;
	if (c->oi.hdrs & WQE_HDR_IMMDT) {
		e->flags |= WQE_WC_WITH_IMM;
		e->imm = p->immdt.imm;
	}
	if (c->oi.hdrs & WQE_HDR_IETH) {
		e->flags |= WQE_WC_WITH_INV;
		e->imm = p->ieth.rkey;
	}
	if (c->q->type == WQE_QPT_UD) {
		e->flags |= WQE_WC_GRH;
		e->src_qp = p->deth.srcqp;
	}
}

bool resp_rq_complete(struct resp_ctx *c)
{
	struct resp_rwqe *w = &c->r->wqe;
	struct cqe e;
	bool ok;

	memset(&e, 0, sizeof(e));
	e.qpn = c->q->qpn;
	e.wqe_counter = w->ctr;
	e.is_recv = 1;
	e.status = c->status;
	e.opcode = WQE_WC_RECV;
	e.pkey_index = c->q->pkey_index;
	if (c->status == WQE_WC_SUCCESS)
		fill_success(c, &e);
	ok = nic_push_cqe(c->q->eng->nic, c->q->recv_cq, &e);
	/* Release: the engine is done with the slot; software may reuse it. */
	atomic_store_explicit(&c->q->rq->ci, w->ctr + 1, memory_order_release);
	memset(w, 0, sizeof(*w));
	c->r->stats.recv_cqes++;
	return ok;
}
