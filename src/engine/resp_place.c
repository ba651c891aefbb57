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
 * that goes to ERR meanwhile flushes it with the rest. A SEND ONLY, and an
 * RDMA WRITE ONLY with immediate, on the receive fast path
 * (resp_rq_plan_only() and after) is planned, placed and retired in one
 * step, by the same code, and never held; the packets of a longer SEND
 * there (resp_rq_plan_held() and after) fill the WQE held as here, by the
 * same code, and move the same cursor. The NIC keeps only
 * its cursor (SGE index and offset): the slot is decoded again for every
 * packet, so a slot rewritten meanwhile is judged anew, and a slot the
 * decoder refuses is a malformed WQE (LOC_QP_OP_ERR), never read further.
 */
#include <string.h>

#include "common/bytes.h"
#include "engine/resp_int.h"
#include "engine/srq.h"

/* The receive WQE at @ctr, decoded in the QP's format; false if the slot
 * does not hold a well-formed one. */
static bool rq_decode(const struct qpc *q, uint32_t ctr, struct wqe_recv_desc *d)
{
	uint32_t len;
	const uint8_t *b = srq_wqe_bytes(q, ctr, &len);

	return wqe_decode_recv(q->format, b, len, d) == WQE_DEC_OK;
}

/* The counter of the receive WQE at the consumer counter, in @ctr; false
 * if the RQ is empty (or the QP has none: a QP of an SRQ takes its WQEs
 * with srq_take(), never on a fast path's plan). */
static bool rq_head(const struct qpc *q, uint32_t *ctr)
{
	const struct rq_ring *rq = q->rq;
	uint32_t ci;

	if (!rq)
		return false;
	ci = atomic_load_explicit(&rq->ci, memory_order_relaxed);
	/* Acquire (in rq_ring_producer): the WQE's bytes are read only after
	 * the producer counter that publishes them. */
	if (rq_ring_producer(rq, ci) == ci)
		return false;
	*ctr = ci;
	return true;
}

/*
 * Takes the next WQE of @q's SRQ for @q (struct srqc says how, by format):
 * its counter (mlx5: slot index) in @ctr; false if the SRQ is empty. Then
 * the limit: fewer WQEs left than an armed limit raises the event once.
 */
static bool srq_take(struct nic *n, struct qpc *q, uint32_t *ctr)
{
	struct srqc *s = q->srq;
	struct rq_ring *rq = s->rq;
	uint32_t ci = atomic_load_explicit(&rq->ci, memory_order_relaxed);
	uint32_t pi = rq_ring_producer(rq, ci); /* acquire: the slots' bytes */

	if (pi == ci)
		return false;
	if (s->format == WQE_FORMAT_MLX5) {
		const uint8_t *slot = rq_ring_slot(rq, s->head);

		*ctr = s->head;
		/* Whatever software wrote, the index stays inside the ring. */
		s->head = get_be16(slot + 2) & (rq->nslots - 1);
	} else {
		*ctr = ci;
		memcpy(q->eng->srq_copy, rq_ring_slot(rq, ci), rq->stride);
	}
	/* Release: rxe's slot may be written again from here on. */
	atomic_store_explicit(&rq->ci, ci + 1, memory_order_release);
	if (s->limit && pi - (ci + 1) < s->limit) {
		s->limit = 0;
		nic_event(n, NIC_EV_SRQ_LIMIT_REACHED, s->srqn, NULL);
	}
	return true;
}

bool resp_rq_take(struct resp_ctx *c)
{
	struct resp_rwqe *w = &c->r->wqe;
	uint32_t ci;

	if (c->q->srq) {
		if (!srq_take(c->n, c->q, &ci))
			return false;
		resp_rq_hold(w, ci);
		w->owned = true;
		return true;
	}
	if (!rq_head(c->q, &ci))
		return false;
	resp_rq_hold(w, ci);
	return true;
}

bool resp_rq_well_formed(const struct resp_ctx *c)
{
	struct wqe_recv_desc d;

	return rq_decode(c->q, c->r->wqe.ctr, &d);
}

void resp_rq_rewind(struct eng_resp *r)
{
	if (r->wqe.owned) {
		/* Taken from the SRQ: no other QP can have it now, so it waits
		 * here for this QP's next message, as an RQ's head WQE does. */
		resp_rq_hold(&r->wqe, r->wqe.ctr);
		r->wqe.owned = true;
		return;
	}
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

/*
 * Where @len bytes go in the WQE at @ctr from SGE @i, offset @off: each
 * piece is resolved through its lkey (valid, the QP's PD, LOCAL_WRITE,
 * inside the region) before any byte is written.
 */
static enum resp_place_err plan_scatter(struct nic *n, const struct qpc *q, uint32_t ctr,
					uint32_t i, uint32_t off, uint32_t len,
					struct resp_plan *pl)
{
	struct wqe_recv_desc d;

	pl->n = 0;
	pl->ctr = ctr;
	if (!rq_decode(q, ctr, &d))
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
		if (keys_check(&n->keys, s->lkey, false, q->pd, s->addr + off, take,
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
static void scatter(const struct resp_plan *pl, const struct span *src, uint32_t nsrc)
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

/* Where @len more bytes of the message go in the held WQE @w, from its
 * cursor on (a message is at most 2^31 bytes). Inlined: the general and
 * the fast path share it. */
static inline __attribute__((always_inline)) enum resp_place_err
plan_held(struct nic *n, const struct qpc *q, const struct resp_rwqe *w, uint32_t len,
	  struct resp_plan *pl)
{
	if (w->placed + len > MAX_MSG)
		return RESP_PLACE_LEN;
	return plan_scatter(n, q, w->ctr, w->sge_i, w->sge_off, len, pl);
}

/* @w's cursor past the @len bytes just placed through @pl. */
static inline __attribute__((always_inline)) void advance(struct resp_rwqe *w,
							  const struct resp_plan *pl, uint32_t len)
{
	w->sge_i = pl->end_i;
	w->sge_off = pl->end_off;
	w->placed += len;
}

enum resp_place_err resp_rq_place(struct resp_ctx *c)
{
	struct resp_rwqe *w = &c->r->wqe;
	uint8_t grh[RESP_GRH_LEN];
	struct span src[2];
	uint32_t nsrc = 0, total = 0;
	enum resp_place_err err;
	struct resp_plan pl;

	if (c->q->type == WQE_QPT_UD) {
		build_grh(c->p, grh);
		src[nsrc++] = (struct span){grh, RESP_GRH_LEN};
	}
	if (c->p->payload_len)
		src[nsrc++] = (struct span){c->p->payload, c->p->payload_len};
	for (uint32_t i = 0; i < nsrc; i++)
		total += src[i].len;
	err = plan_held(c->n, c->q, w, total, &pl);
	if (err)
		return err;
	scatter(&pl, src, nsrc);
	advance(w, &pl, total);
	c->r->stats.bytes_placed += total;
	return RESP_PLACE_OK;
}

bool resp_rq_plan_only(struct nic *n, const struct qpc *q, uint32_t len, struct resp_plan *pl)
{
	uint32_t ctr;

	return rq_head(q, &ctr) && plan_scatter(n, q, ctr, 0, 0, len, pl) == RESP_PLACE_OK;
}

void resp_rq_place_only(const struct resp_plan *pl, const uint8_t *payload, uint32_t len)
{
	const struct span src = {payload, len};

	scatter(pl, &src, 1);
}

bool resp_rq_plan_held(struct nic *n, const struct qpc *q, const struct resp_rwqe *w, uint32_t len,
		       struct resp_plan *pl)
{
	return plan_held(n, q, w, len, pl) == RESP_PLACE_OK;
}

void resp_rq_place_held(struct resp_rwqe *w, const struct resp_plan *pl, const uint8_t *payload,
			uint32_t len)
{
	const struct span src = {payload, len};

	scatter(pl, &src, 1);
	advance(w, pl, len);
}

/* ------------------------------------------------------------------------ */
/* Completion.                                                              */

/* The successful receive CQE (resp_cqe_success()) of the message @c->p
 * ends, RECV or RECV_RDMA_WITH_IMM; besides, the invalidated rkey with its
 * flag, and for UD the source QP and GRH. */
static void fill_success(const struct resp_ctx *c, struct cqe *e)
{
	const struct wqe_pkt *p = c->p;
	bool write_imm = c->oi.kind == WQE_KIND_RDMA_WRITE;
	const struct resp_recv_ok ok = {
	    .byte_len = write_imm ? c->r->wr.len : (uint32_t)c->r->wqe.placed,
	    .imm = p->immdt.imm,
	    .write_imm = write_imm,
	    .has_imm = (c->oi.hdrs & WQE_HDR_IMMDT) != 0,
	    .se = p->bth.se,
	};

	resp_cqe_success(e, &ok);
	if (c->oi.hdrs & WQE_HDR_IETH) {
		e->flags |= WQE_WC_WITH_INV;
		e->imm = p->ieth.rkey;
	}
	if (c->q->type == WQE_QPT_UD) {
		e->flags |= WQE_WC_GRH;
		e->src_qp = p->deth.srcqp;
	}
}

bool resp_rq_retire(struct qpc *q, uint32_t ctr, const struct cqe *e)
{
	bool ok;

	if (q->srq) {
		/* Taken from the SRQ already: nothing to retire in a ring. */
		struct cqe se = *e;

		srq_cqe(q, &se);
		ok = nic_push_cqe(q->eng->nic, q->recv_cq, &se);
		q->eng->resp.stats.recv_cqes++;
		return ok;
	}
	/* Release: the engine is done with the slot; software may reuse it,
	 * from the moment it can see the completion. */
	atomic_store_explicit(&q->rq->ci, ctr + 1, memory_order_release);
	ok = nic_push_cqe(q->eng->nic, q->recv_cq, e);
	q->eng->resp.stats.recv_cqes++;
	return ok;
}

bool resp_rq_complete(struct resp_ctx *c)
{
	struct resp_rwqe *w = &c->r->wqe;
	uint32_t ctr = w->ctr;
	struct cqe e;
	bool ok;

	resp_cqe_init(&e, c->q, ctr, c->status);
	if (c->status == WQE_WC_SUCCESS)
		fill_success(c, &e);
	ok = resp_rq_retire(c->q, ctr, &e);
	memset(w, 0, sizeof(*w));
	return ok;
}
