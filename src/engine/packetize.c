/* SPDX-License-Identifier: MIT */
/* The packetizer (wqe/packetize.h): the operation catalog on the wire. */
#include "wqe/packetize.h"

#include <errno.h>
#include <string.h>

#define PSN_MASK 0xffffffu

static uint32_t mtu_bytes(const struct wqe_pktz *z)
{
	return wqe_mtu_to_bytes(z->qp.mtu);
}

static bool is_read(const struct wqe_desc *d)
{
	return d->op == WQE_OP_RDMA_READ;
}

static bool is_atomic(const struct wqe_desc *d)
{
	return d->op == WQE_OP_ATOMIC_CMP_AND_SWP || d->op == WQE_OP_ATOMIC_FETCH_AND_ADD;
}

int wqe_pktz_init(struct wqe_pktz *z, const struct wqe_pktz_qp *qp, const struct wqe_desc *d,
		  uint32_t first_psn, const struct wqe_iov *iov, uint32_t niov, uint16_t ip_id)
{
	uint64_t sum = 0;
	uint32_t mtu = wqe_mtu_to_bytes(qp->mtu);

	memset(z, 0, sizeof(*z));
	if (!mtu || (unsigned)d->op >= WQE_OP_COUNT || (niov && !iov))
		return EINVAL;
	for (uint32_t i = 0; i < niov; i++)
		sum += iov[i].len;
	if (!is_read(d) && !is_atomic(d) && sum != d->total_len)
		return EINVAL;
	if (qp->type == WQE_QPT_UD && d->total_len > mtu)
		return EINVAL;
	z->qp = *qp;
	z->d = d;
	z->iov = iov;
	z->niov = is_read(d) || is_atomic(d) ? 0 : niov;
	z->first_psn = first_psn & PSN_MASK;
	z->ip_id = ip_id;
	if (is_atomic(d)) {
		z->npkts = 1;
		z->npsn = 1;
	} else if (is_read(d)) {
		z->npkts = 1;
		z->npsn = d->total_len ? (uint32_t)((d->total_len + mtu - 1) / mtu) : 1;
	} else {
		z->npkts = d->total_len ? (uint32_t)((d->total_len + mtu - 1) / mtu) : 1;
		z->npsn = z->npkts;
	}
	if (qp->type == WQE_QPT_UD) {
		z->qp.dest_qpn = d->ud.dqpn;
		memcpy(z->qp.dmac, d->ud.dmac, 6);
		z->qp.dgid = d->ud.dgid;
		z->qp.udp_sport = d->ud.udp_sport;
		z->qp.tclass = d->ud.tclass;
		z->qp.hop_limit = d->ud.hop_limit;
		z->qp.flow_label = d->ud.flow_label;
	}
	return 0;
}

/* Operation code (low 5 bits) of packet @i; the transport base is added by
 * the caller. FIRST/MIDDLE/LAST/ONLY follow from the packet's place. */
static uint8_t op_code(const struct wqe_desc *d, uint32_t i, uint32_t n)
{
	bool first = i == 0, last = i + 1 == n;

	switch (d->op) {
	case WQE_OP_SEND:
		return first && last ? 0x04 : first ? 0x00 : last ? 0x02 : 0x01;
	case WQE_OP_SEND_WITH_IMM:
		return first && last ? 0x05 : first ? 0x00 : last ? 0x03 : 0x01;
	case WQE_OP_SEND_WITH_INV:
		return first && last ? 0x17 : first ? 0x00 : last ? 0x16 : 0x01;
	case WQE_OP_RDMA_WRITE:
		return first && last ? 0x0a : first ? 0x06 : last ? 0x08 : 0x07;
	case WQE_OP_RDMA_WRITE_WITH_IMM:
		return first && last ? 0x0b : first ? 0x06 : last ? 0x09 : 0x07;
	case WQE_OP_RDMA_READ:
		return 0x0c;
	case WQE_OP_ATOMIC_CMP_AND_SWP:
		return 0x13;
	case WQE_OP_ATOMIC_FETCH_AND_ADD:
		return 0x14;
	default:
		return 0xff;
	}
}

/* The wire opcode of packet @index (< z->npkts). */
static uint8_t opcode_of(const struct wqe_pktz *z, uint32_t index)
{
	uint8_t base = z->qp.type == WQE_QPT_RC ? 0x00 : z->qp.type == WQE_QPT_UC ? 0x20 : 0x60;

	return (uint8_t)(base + op_code(z->d, index, z->npkts));
}

int wqe_pktz_opcode(const struct wqe_pktz *z, uint32_t index)
{
	if (index >= z->npkts)
		return -1;
	return opcode_of(z, index);
}

static void fill_path(const struct wqe_pktz *z, struct wqe_pkt *p)
{
	const struct wqe_pktz_qp *q = &z->qp;

	memcpy(p->dmac, q->dmac, 6);
	memcpy(p->smac, q->smac, 6);
	p->ipver = wqe_gid_is_v4(&q->sgid) ? 4 : 6;
	p->src = q->sgid;
	p->dst = q->dgid;
	p->tos = q->tclass;
	p->ttl = q->hop_limit ? q->hop_limit : 64;
	p->flow_label = p->ipver == 6 ? q->flow_label & 0xfffff : 0;
	p->ip_id = z->ip_id;
	p->ip_flags = 2; /* DF, as rxe sends */
	p->sport = q->udp_sport;
	p->dport = WQE_ROCEV2_PORT;
}

/* The extension-header values of the packet carrying payload at z->off
 * (all of them: @hdrs callers see every field). */
static void fill_ext(const struct wqe_pktz *z, struct wqe_pkt *p)
{
	const struct wqe_desc *d = z->d;
	uint64_t skip = is_read(d) ? z->off : 0;

	p->reth.va = d->remote_addr + skip;
	p->reth.rkey = d->rkey;
	p->reth.dma_len = (uint32_t)(d->total_len - skip);
	p->immdt.imm = d->imm;
	p->ieth.rkey = d->imm;
	p->atomiceth.va = d->remote_addr;
	p->atomiceth.rkey = d->rkey;
	p->atomiceth.swap_add = d->swap_add;
	p->atomiceth.compare = d->op == WQE_OP_ATOMIC_CMP_AND_SWP ? d->compare : 0;
	p->deth.qkey = (d->ud.qkey & 0x80000000u) ? z->qp.qkey : d->ud.qkey;
	p->deth.srcqp = z->qp.qpn;
}

static void gather(struct wqe_pktz *z, uint8_t *dst, uint32_t len)
{
	while (len && z->iov_i < z->niov) {
		const struct wqe_iov *v = &z->iov[z->iov_i];
		uint32_t n = v->len - z->iov_off;

		if (n == 0) {
			z->iov_i++;
			z->iov_off = 0;
			continue;
		}
		if (n > len)
			n = len;
		memcpy(dst, v->base + z->iov_off, n);
		dst += n;
		len -= n;
		z->iov_off += n;
	}
}

int wqe_pktz_next(struct wqe_pktz *z, uint8_t *buf, size_t cap, size_t *len,
		  struct wqe_pkt *hdrs)
{
	const struct wqe_desc *d = z->d;
	uint32_t i = z->next, mtu, plen = 0;
	struct wqe_pkt_layout lay;
	struct wqe_pkt p;
	bool last;
	int err;

	if (i >= z->npkts)
		return 0;
	mtu = mtu_bytes(z);
	if (!is_read(d) && !is_atomic(d)) {
		uint64_t rest = d->total_len - z->off;

		plen = rest > mtu ? mtu : (uint32_t)rest;
	}
	last = i + 1 == z->npkts;
	memset(&p, 0, sizeof(p));
	fill_path(z, &p);
	fill_ext(z, &p);
	p.bth.opcode = opcode_of(z, i);
	p.bth.pkey = z->qp.pkey;
	p.bth.destqp = z->qp.dest_qpn & PSN_MASK;
	p.bth.psn = (z->first_psn + (is_read(d) ? (uint32_t)(z->off / mtu) : i)) & PSN_MASK;
	/* SE only on the last packet of a solicited SEND or WRITE_WITH_IMM. */
	p.bth.se = last && d->solicited &&
		   (d->op <= WQE_OP_SEND_WITH_INV || d->op == WQE_OP_RDMA_WRITE_WITH_IMM);
	/* AckReq: RC only, on the last packet of a SEND/WRITE and on atomics,
	 * and every WQE_PKTS_PER_ACKREQ packets of a long message. A READ
	 * request needs none: its responses are the acknowledgement. */
	if (z->qp.type == WQE_QPT_RC && !is_read(d))
		p.bth.ackreq = last || (i % WQE_PKTS_PER_ACKREQ) == WQE_PKTS_PER_ACKREQ - 1;
	err = wqe_pkt_build_hdrs(&p, plen, buf, cap, &lay);
	if (err)
		return err;
	gather(z, buf + lay.payload_off, plen);
	wqe_pkt_build_finish(buf, &lay);
	*len = lay.frame_len;
	if (hdrs) {
		*hdrs = p;
		hdrs->bth.padcnt = lay.padcnt;
		hdrs->payload_len = plen;
		hdrs->hdrs = 0;
	}
	z->off += plen;
	z->next++;
	z->ip_id++;
	return 1;
}

int wqe_pktz_seek(struct wqe_pktz *z, uint32_t psn)
{
	uint32_t k = (psn - z->first_psn) & PSN_MASK, mtu = mtu_bytes(z);

	if (k >= z->npsn)
		return EINVAL;
	if (is_read(z->d)) {
		z->next = 0;
		z->off = (uint64_t)k * mtu;
		return 0;
	}
	z->next = k;
	z->off = (uint64_t)k * mtu;
	/* Re-find the gather cursor for that offset. */
	z->iov_i = 0;
	z->iov_off = 0;
	for (uint64_t rest = z->off; rest;) {
		uint32_t n = z->iov[z->iov_i].len;

		if (rest < n) {
			z->iov_off = (uint32_t)rest;
			break;
		}
		rest -= n;
		z->iov_i++;
	}
	return 0;
}
