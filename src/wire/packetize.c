/* SPDX-License-Identifier: MIT */
/* The packetizer (wqe/packetize.h): the operation catalog on the wire. */
#include "wqe/packetize.h"

#include <errno.h>
#include <string.h>

#include "common/bytes.h"
#include "common/mem.h"
#include "common/mtu.h"
#include "wire/pktz_int.h"

#define PSN_MASK 0xffffffu

static uint32_t pktz_mtu(const struct wqe_pktz *z)
{
	return mtu_bytes(z->qp.mtu);
}

static bool is_read(const struct wqe_desc *d)
{
	return d->op == WQE_OP_RDMA_READ;
}

static bool is_atomic(const struct wqe_desc *d)
{
	return d->op == WQE_OP_ATOMIC_CMP_AND_SWP || d->op == WQE_OP_ATOMIC_FETCH_AND_ADD;
}

int pktz_init_here(struct wqe_pktz *z, const struct wqe_desc *d, uint32_t first_psn,
		   const struct wqe_iov *iov, uint32_t niov, uint16_t ip_id)
{
	const struct wqe_pktz_qp *qp = &z->qp;
	uint64_t sum = 0, pkts;
	uint32_t mtu = mtu_bytes(qp->mtu);
	unsigned shift;

	if (!mtu || (unsigned)d->op >= WQE_OP_COUNT || (niov && !iov) ||
	    (qp->type == WQE_QPT_UD && d->total_len > mtu))
		goto invalid;
	for (uint32_t i = 0; i < niov; i++)
		sum += iov[i].len;
	if (!is_read(d) && !is_atomic(d) && sum != d->total_len)
		goto invalid;
	/* Every field set here, no clearing first: this runs once a WQE. */
	shift = (unsigned)__builtin_ctz(mtu); /* MTUs are powers of two */
	pkts = d->total_len ? (d->total_len + mtu - 1) >> shift : 1;
	z->d = d;
	z->iov = iov;
	z->niov = is_read(d) || is_atomic(d) ? 0 : niov;
	z->first_psn = first_psn & PSN_MASK;
	z->npkts = is_read(d) || is_atomic(d) ? 1 : (uint32_t)pkts;
	z->npsn = is_atomic(d) ? 1 : (uint32_t)pkts;
	z->next = 0;
	z->off = 0;
	z->iov_i = 0;
	z->iov_off = 0;
	z->ip_id = ip_id;
	z->tmpl = NULL;
	z->tmpl_ok = -1;
	if (z->qp.type == WQE_QPT_UD) {
		z->qp.dest_qpn = d->ud.dqpn;
		memcpy(z->qp.dmac, d->ud.dmac, 6);
		z->qp.dgid = d->ud.dgid;
		z->qp.udp_sport = d->ud.udp_sport;
		z->qp.tclass = d->ud.tclass;
		z->qp.hop_limit = d->ud.hop_limit;
		z->qp.flow_label = d->ud.flow_label;
	}
	return 0;
invalid:
	memset(z, 0, sizeof(*z));
	return EINVAL;
}

int wqe_pktz_init(struct wqe_pktz *z, const struct wqe_pktz_qp *qp, const struct wqe_desc *d,
		  uint32_t first_psn, const struct wqe_iov *iov, uint32_t niov, uint16_t ip_id)
{
	z->qp = *qp;
	return pktz_init_here(z, d, first_psn, iov, niov, ip_id);
}

/* clang-format off */
/* The RC opcode of each operation's packets, by role (pktz_opcode()). */
const uint8_t pktz_rc_opcodes[WQE_OP_COUNT][4] = {
	[WQE_OP_SEND] = {
		[WQE_ROLE_FIRST] = WQE_WIRE_RC_SEND_FIRST,
		[WQE_ROLE_MIDDLE] = WQE_WIRE_RC_SEND_MIDDLE,
		[WQE_ROLE_LAST] = WQE_WIRE_RC_SEND_LAST,
		[WQE_ROLE_ONLY] = WQE_WIRE_RC_SEND_ONLY},
	[WQE_OP_SEND_WITH_IMM] = {
		[WQE_ROLE_FIRST] = WQE_WIRE_RC_SEND_FIRST,
		[WQE_ROLE_MIDDLE] = WQE_WIRE_RC_SEND_MIDDLE,
		[WQE_ROLE_LAST] = WQE_WIRE_RC_SEND_LAST_WITH_IMMEDIATE,
		[WQE_ROLE_ONLY] = WQE_WIRE_RC_SEND_ONLY_WITH_IMMEDIATE},
	[WQE_OP_SEND_WITH_INV] = {
		[WQE_ROLE_FIRST] = WQE_WIRE_RC_SEND_FIRST,
		[WQE_ROLE_MIDDLE] = WQE_WIRE_RC_SEND_MIDDLE,
		[WQE_ROLE_LAST] = WQE_WIRE_RC_SEND_LAST_WITH_INVALIDATE,
		[WQE_ROLE_ONLY] = WQE_WIRE_RC_SEND_ONLY_WITH_INVALIDATE},
	[WQE_OP_RDMA_WRITE] = {
		[WQE_ROLE_FIRST] = WQE_WIRE_RC_RDMA_WRITE_FIRST,
		[WQE_ROLE_MIDDLE] = WQE_WIRE_RC_RDMA_WRITE_MIDDLE,
		[WQE_ROLE_LAST] = WQE_WIRE_RC_RDMA_WRITE_LAST,
		[WQE_ROLE_ONLY] = WQE_WIRE_RC_RDMA_WRITE_ONLY},
	[WQE_OP_RDMA_WRITE_WITH_IMM] = {
		[WQE_ROLE_FIRST] = WQE_WIRE_RC_RDMA_WRITE_FIRST,
		[WQE_ROLE_MIDDLE] = WQE_WIRE_RC_RDMA_WRITE_MIDDLE,
		[WQE_ROLE_LAST] = WQE_WIRE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
		[WQE_ROLE_ONLY] = WQE_WIRE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE},
	/* one packet each, whatever its length */
	[WQE_OP_RDMA_READ] = {
		WQE_WIRE_RC_RDMA_READ_REQUEST, WQE_WIRE_RC_RDMA_READ_REQUEST,
		WQE_WIRE_RC_RDMA_READ_REQUEST, WQE_WIRE_RC_RDMA_READ_REQUEST},
	[WQE_OP_ATOMIC_CMP_AND_SWP] = {
		WQE_WIRE_RC_COMPARE_SWAP, WQE_WIRE_RC_COMPARE_SWAP,
		WQE_WIRE_RC_COMPARE_SWAP, WQE_WIRE_RC_COMPARE_SWAP},
	[WQE_OP_ATOMIC_FETCH_AND_ADD] = {
		WQE_WIRE_RC_FETCH_ADD, WQE_WIRE_RC_FETCH_ADD,
		WQE_WIRE_RC_FETCH_ADD, WQE_WIRE_RC_FETCH_ADD},
};
/* clang-format on */

/* The wire opcode of packet @index (< z->npkts). */
static uint8_t opcode_of(const struct wqe_pktz *z, uint32_t index)
{
	return pktz_opcode(z->qp.type, z->d->op, pktz_role(index, z->npkts));
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
	/* Every field of every header, DETH's reserved byte included: the
	 * template path encodes these from a struct wqe_pkt it did not clear. */
	p->deth = (struct wqe_deth){.qkey = (d->ud.qkey & 0x80000000u) ? z->qp.qkey : d->ud.qkey,
				    .srcqp = z->qp.qpn};
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

void wqe_pktz_use_tmpl(struct wqe_pktz *z, struct wqe_pktz_tmpl *t)
{
	z->tmpl = t;
	z->tmpl_ok = -1;
}

/* The BTH of packet @i (padcnt is the builder's). */
static void bth_of(const struct wqe_pktz *z, uint32_t i, uint32_t mtu, struct wqe_bth *b)
{
	const struct wqe_desc *d = z->d;
	bool last = i + 1 == z->npkts;

	memset(b, 0, sizeof(*b));
	b->opcode = opcode_of(z, i);
	b->pkey = z->qp.pkey;
	b->destqp = z->qp.dest_qpn & PSN_MASK;
	b->psn = (z->first_psn + (is_read(d) ? (uint32_t)(z->off / mtu) : i)) & PSN_MASK;
	b->se = pktz_se(d->op, d->solicited, last);
	b->ackreq = pktz_ackreq(z->qp.type, i, last);
}

static bool tmpl_matches(const struct wqe_pktz_tmpl *t, const struct wqe_pktz_qp *q)
{
	return pktz_tmpl_fits(t, q->tclass, q->hop_limit, q->flow_label, q->dmac, q->smac,
			      &q->sgid, &q->dgid);
}

/* Keeps the Ethernet, IP and UDP headers of a frame just built on the
 * iterator's path, with the fields that change per packet zeroed. */
static void tmpl_capture(struct wqe_pktz_tmpl *t, const struct wqe_pktz_qp *q,
			 const uint8_t *frame, const struct wqe_pkt_layout *lay)
{
	uint8_t *l3 = t->hdr + WQE_ETH_LEN, *l4;
	uint32_t sum = 0;

	t->valid = 0;
	if (lay->l3_off != WQE_ETH_LEN || lay->bth_off > WQE_PKTZ_TMPL_MAX)
		return;
	memcpy(t->hdr, frame, lay->bth_off);
	l4 = t->hdr + lay->l4_off;
	if (lay->ipver == 4) {
		put_be16(l3 + 2, 0);  /* total length */
		put_be16(l3 + 4, 0);  /* identification */
		put_be16(l3 + 10, 0); /* checksum */
		for (uint32_t k = 0; k < WQE_IPV4_LEN; k += 2)
			sum += get_be16(l3 + k);
	} else {
		put_be16(l3 + 4, 0); /* payload length */
	}
	put_be16(l4, 0);     /* source port */
	put_be16(l4 + 4, 0); /* length */
	t->ip_sum = sum;
	t->len = (uint8_t)lay->bth_off;
	t->ipver = lay->ipver;
	t->tclass = q->tclass;
	t->hop_limit = q->hop_limit;
	t->flow_label = q->flow_label;
	memcpy(t->dmac, q->dmac, 6);
	memcpy(t->smac, q->smac, 6);
	t->sgid = q->sgid;
	t->dgid = q->dgid;
	t->valid = 1;
}

size_t pktz_tmpl_begin(const struct wqe_pktz_tmpl *t, uint8_t *buf, size_t cap, uint32_t tlen,
		       uint16_t ip_id, uint16_t udp_sport)
{
	uint32_t udp_len = WQE_UDP_LEN + tlen, ip_len, sum;
	uint8_t *l3 = buf + WQE_ETH_LEN, *l4 = buf + t->len - WQE_UDP_LEN;
	size_t frame_len = (size_t)t->len + tlen;

	ip_len = t->ipver == 4 ? WQE_IPV4_LEN + udp_len : udp_len;
	if (ip_len > 0xffff || frame_len > cap)
		return 0;
	/* A constant-size copy is a few vector moves (a variable one here
	 * became a slow rep movs); what it puts past t->len the caller
	 * writes again, and it stays inside the frame. */
	if (frame_len >= sizeof(t->hdr))
		memcpy(buf, t->hdr, sizeof(t->hdr));
	else
		memcpy(buf, t->hdr, t->len);
	if (t->ipver == 4) {
		put_be16(l3 + 2, (uint16_t)ip_len);
		put_be16(l3 + 4, ip_id);
		sum = t->ip_sum + ip_len + ip_id;
		sum = (sum & 0xffffu) + (sum >> 16);
		sum = (sum & 0xffffu) + (sum >> 16);
		put_be16(l3 + 10, (uint16_t)~sum);
	} else {
		put_be16(l3 + 4, (uint16_t)udp_len);
	}
	put_be16(l4, udp_sport);
	put_be16(l4 + 4, (uint16_t)udp_len);
	return frame_len;
}

void pktz_tmpl_seal(const struct wqe_pktz_tmpl *t, uint8_t *buf, size_t frame_len,
		    uint32_t padcnt)
{
	uint8_t *icrc = buf + frame_len - WQE_ICRC_LEN;

	/* The pad (0 to 3 bytes) zeroed by one 4-byte store, which reaches
	 * into the ICRC's place, written next: a variable-length memset is a
	 * library call. */
	memset(icrc - padcnt, 0, 4);
	put_le32(icrc, wqe_icrc_inplace(buf + WQE_ETH_LEN, frame_len - WQE_ICRC_LEN - WQE_ETH_LEN,
					t->ipver));
}

/* Headers a request packet can carry besides the BTH. */
#define REQ_EXT_HDRS                                                                        \
	((uint32_t)WQE_HDR_DETH | WQE_HDR_RETH | WQE_HDR_ATOMICETH | WQE_HDR_IMMDT | WQE_HDR_IETH)

/*
 * Packet @i from the template: the same bytes wqe_pkt_build_hdrs() and
 * wqe_pkt_build_finish() write, with the Ethernet, IP and UDP headers
 * copied. Returns 1, or 0 when the packet is one for the full builder
 * (nothing written that matters then: it writes the whole frame again).
 */
static int next_from_tmpl(struct wqe_pktz *z, uint8_t *buf, size_t cap, size_t *len, uint32_t i,
			  uint32_t mtu, uint32_t plen)
{
	const struct wqe_pktz_tmpl *t = z->tmpl;
	struct wqe_wire_opinfo info;
	struct wqe_pkt x; /* the extension headers only */
	struct wqe_bth bth;
	uint32_t padcnt = (0u - plen) & 3u;
	size_t frame_len;
	uint8_t *b;

	bth_of(z, i, mtu, &bth);
	if (wqe_wire_opcode_info(bth.opcode, &info) || (info.hdrs & ~(REQ_EXT_HDRS | WQE_HDR_BTH)) ||
	    (plen && !info.has_payload))
		return 0;
	frame_len = pktz_tmpl_begin(t, buf, cap, info.hdr_len + plen + padcnt + WQE_ICRC_LEN,
				    z->ip_id, z->qp.udp_sport);
	if (!frame_len)
		return 0;
	b = buf + t->len;
	bth.padcnt = (uint8_t)padcnt;
	b += wqe_bth_encode(&bth, b, WQE_BTH_LEN);
	/* A MIDDLE or LAST packet has none: nothing to fill. */
	if (info.hdrs & REQ_EXT_HDRS)
		fill_ext(z, &x);
	/* In the order of the header bits, as the builder writes them. */
	if (info.hdrs & WQE_HDR_DETH)
		b += wqe_deth_encode(&x.deth, b, WQE_DETH_LEN);
	if (info.hdrs & WQE_HDR_RETH)
		b += wqe_reth_encode(&x.reth, b, WQE_RETH_LEN);
	if (info.hdrs & WQE_HDR_ATOMICETH)
		b += wqe_atomiceth_encode(&x.atomiceth, b, WQE_ATOMICETH_LEN);
	if (info.hdrs & WQE_HDR_IMMDT)
		b += wqe_immdt_encode(&x.immdt, b, WQE_IMMDT_LEN);
	if (info.hdrs & WQE_HDR_IETH)
		b += wqe_ieth_encode(&x.ieth, b, WQE_IETH_LEN);
	gather(z, b, plen);
	pktz_tmpl_seal(t, buf, frame_len, padcnt);
	*len = frame_len;
	return 1;
}

int wqe_pktz_next(struct wqe_pktz *z, uint8_t *buf, size_t cap, size_t *len,
		  struct wqe_pkt *hdrs)
{
	const struct wqe_desc *d = z->d;
	uint32_t i = z->next, mtu, plen = 0;
	struct wqe_pkt_layout lay;
	struct wqe_pkt p;
	int err;

	if (i >= z->npkts)
		return 0;
	mtu = pktz_mtu(z);
	if (!is_read(d) && !is_atomic(d)) {
		uint64_t rest = d->total_len - z->off;

		plen = rest > mtu ? mtu : (uint32_t)rest;
	}
	if (z->tmpl && !hdrs) {
		if (z->tmpl_ok < 0)
			z->tmpl_ok = tmpl_matches(z->tmpl, &z->qp);
		if (z->tmpl_ok && next_from_tmpl(z, buf, cap, len, i, mtu, plen))
			goto advance;
	}
	memset(&p, 0, sizeof(p));
	fill_path(z, &p);
	fill_ext(z, &p);
	bth_of(z, i, mtu, &p.bth);
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
	if (z->tmpl && z->tmpl_ok != 1) {
		tmpl_capture(z->tmpl, &z->qp, buf, &lay);
		z->tmpl_ok = z->tmpl->valid ? 1 : 0;
	}
advance:
	z->off += plen;
	z->next++;
	z->ip_id++;
	return 1;
}

int wqe_pktz_seek(struct wqe_pktz *z, uint32_t psn)
{
	uint32_t k = (psn - z->first_psn) & PSN_MASK, mtu = pktz_mtu(z);

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
