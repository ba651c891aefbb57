/* SPDX-License-Identifier: MIT */
/*
 * frame.c - building RoCEv2 frames: plan the layout (every length from the
 * opcode table), refuse a short buffer, write the headers, leave the
 * payload's place for the caller, then ICRC and UDP checksum last, because
 * both cover the final lengths (the 5.14-rc rxe regression was a total
 * length filled in after the ICRC).
 */
#include "wire/wire_int.h"

static uint8_t build_padcnt(const struct wqe_pkt *p, uint32_t payload_len)
{
	if (p->opts & WQE_PKT_OPT_RAW_PADCNT)
		return p->bth.padcnt & 3u;
	return (uint8_t)((0u - payload_len) & 3u);
}

/* Fill *@lay for @p and @payload_len; 0 or WQE_PKT_EINVAL. */
static int plan(const struct wqe_pkt *p, uint32_t payload_len, struct wqe_pkt_layout *lay)
{
	const struct wire_op *op = wire_op_lookup(p->bth.opcode);
	size_t l3_len, udp_payload;

	if ((p->ipver != 4 && p->ipver != 6) || !op)
		return WQE_PKT_EINVAL;
	if (payload_len && !op->payload)
		return WQE_PKT_EINVAL;
	l3_len = p->ipver == 4 ? WQE_IPV4_LEN : WQE_IPV6_LEN;
	lay->padcnt = build_padcnt(p, payload_len);
	udp_payload = (size_t)op->hdr_len + payload_len + lay->padcnt + WQE_ICRC_LEN;
	/* IPv4 total length, or the UDP length (= IPv6 payload length). */
	if ((p->ipver == 4 ? (size_t)WQE_IPV4_LEN : 0) + WQE_UDP_LEN + udp_payload > 0xffff)
		return WQE_PKT_EINVAL;
	lay->l3_off = WQE_ETH_LEN + (p->has_vlan ? WQE_VLAN_LEN : 0);
	lay->l4_off = lay->l3_off + l3_len;
	lay->bth_off = lay->l4_off + WQE_UDP_LEN;
	lay->payload_off = lay->bth_off + op->hdr_len;
	lay->icrc_off = lay->payload_off + payload_len + lay->padcnt;
	lay->frame_len = lay->icrc_off + WQE_ICRC_LEN;
	lay->payload_len = payload_len;
	lay->icrc = p->icrc;
	lay->opts = p->opts;
	lay->ipver = p->ipver;
	return 0;
}

size_t wqe_pkt_frame_len(const struct wqe_pkt *p, uint32_t payload_len)
{
	struct wqe_pkt_layout lay;

	return plan(p, payload_len, &lay) ? 0 : lay.frame_len;
}

/* The IPv4 header at @h (WQE_IPV4_LEN bytes). */
static void put_ipv4(uint8_t *h, const struct wqe_pkt *p, uint32_t udp_payload)
{
	h[0] = 0x45; /* version 4, IHL 5: no options */
	h[1] = p->tos;
	put_be16(h + 2, (uint16_t)(WQE_IPV4_LEN + WQE_UDP_LEN + udp_payload));
	put_be16(h + 4, p->ip_id);
	put_be16(h + 6, (uint16_t)((p->ip_flags & 7u) << 13)); /* fragment offset 0 */
	h[8] = p->ttl;
	h[9] = IP_PROTO_UDP;
	put_be16(h + 10, 0);
	memcpy(h + 12, p->src.raw + 12, 4);
	memcpy(h + 16, p->dst.raw + 12, 4);
	if (p->opts & WQE_PKT_OPT_RAW_IP_CSUM)
		put_be16(h + 10, p->ip_csum);
	else
		put_be16(h + 10, csum_ipv4(h));
}

/* The IPv6 header at @h (WQE_IPV6_LEN bytes). */
static void put_ipv6(uint8_t *h, const struct wqe_pkt *p, uint32_t udp_payload)
{
	put_be32(h, 6u << 28 | (uint32_t)p->tos << 20 | (p->flow_label & 0xfffffu));
	put_be16(h + 4, (uint16_t)(WQE_UDP_LEN + udp_payload));
	h[6] = IP_PROTO_UDP;
	h[7] = p->ttl;
	memcpy(h + 8, p->src.raw, 16);
	memcpy(h + 24, p->dst.raw, 16);
}

size_t wire_put_ip_udp(uint8_t *buf, const struct wqe_pkt *p, uint32_t udp_payload)
{
	size_t l3 = p->ipver == 4 ? WQE_IPV4_LEN : WQE_IPV6_LEN;
	uint8_t *udp = buf + l3;

	if (p->ipver == 4)
		put_ipv4(buf, p, udp_payload);
	else
		put_ipv6(buf, p, udp_payload);
	put_be16(udp, p->sport);
	put_be16(udp + 2, p->dport ? p->dport : WQE_ROCEV2_PORT);
	put_be16(udp + 4, (uint16_t)(WQE_UDP_LEN + udp_payload));
	put_be16(udp + 6, p->udp_csum);
	return l3 + WQE_UDP_LEN;
}

/* Ethernet (and VLAN) header at @h, up to the IP header. */
static void put_l2(uint8_t *h, const struct wqe_pkt *p)
{
	memcpy(h, p->dmac, 6);
	memcpy(h + 6, p->smac, 6);
	if (p->has_vlan) {
		put_be16(h + 12, p->vlan_tpid ? p->vlan_tpid : WQE_ETHERTYPE_VLAN);
		put_be16(h + 14, p->vlan_tci);
		h += WQE_VLAN_LEN;
	}
	put_be16(h + 12, p->ipver == 4 ? WQE_ETHERTYPE_IPV4 : WQE_ETHERTYPE_IPV6);
}

/* The BTH (with the planned pad count) and the opcode's other headers. */
static void put_transport(uint8_t *b, const struct wqe_pkt *p, uint8_t padcnt)
{
	struct wqe_bth bth = p->bth;

	bth.padcnt = padcnt;
	wqe_bth_encode(&bth, b, WQE_BTH_LEN);
	wire_put_ext_hdrs(b + WQE_BTH_LEN, wire_op_tab[p->bth.opcode].hdrs, p);
}

/*
 * Every write below lands inside the planned frame_len bytes, which the
 * capacity check covers: offsets come from plan(), header lengths from the
 * opcode table.
 */
int wqe_pkt_build_hdrs(const struct wqe_pkt *p, uint32_t payload_len, uint8_t *out, size_t cap,
		       struct wqe_pkt_layout *lay)
{
	int rc;

	rc = plan(p, payload_len, lay);
	if (rc)
		return rc;
	if (cap < lay->frame_len)
		return WQE_PKT_ENOSPC;
	put_l2(out, p);
	wire_put_ip_udp(out + lay->l3_off, p, (uint32_t)(lay->frame_len - lay->bth_off));
	put_transport(out + lay->bth_off, p, lay->padcnt);
	/* the payload is the caller's to fill */
	memset(out + lay->icrc_off - lay->padcnt, 0, (size_t)lay->padcnt + WQE_ICRC_LEN);
	/* A parsed packet's pad bytes as they were (the IBTA sends zeros and
	 * ignores them on receipt; a rebuild reproduces the frame either way). */
	if (p->pad && lay->padcnt && lay->padcnt == (p->bth.padcnt & 3u))
		memmove(out + lay->icrc_off - lay->padcnt, p->pad, lay->padcnt);
	return 0;
}

void wqe_pkt_build_finish(uint8_t *frame, const struct wqe_pkt_layout *lay)
{
	uint8_t *l3 = frame + lay->l3_off;
	uint8_t *udp = frame + lay->l4_off;
	uint32_t icrc;

	if (lay->opts & WQE_PKT_OPT_RAW_ICRC)
		icrc = lay->icrc;
	else
		icrc = wqe_icrc_inplace(l3, lay->icrc_off - lay->l3_off, lay->ipver);
	put_le32(frame + lay->icrc_off, icrc);
	if (lay->opts & WQE_PKT_OPT_UDP_CSUM)
		put_be16(udp + 6, wire_udp_csum(l3, lay->ipver, udp, lay->frame_len - lay->l4_off));
}

int wqe_pkt_build(const struct wqe_pkt *p, const uint8_t *payload, uint32_t payload_len,
		  uint8_t *out, size_t cap, size_t *out_len)
{
	struct wqe_pkt_layout lay;
	int rc;

	rc = wqe_pkt_build_hdrs(p, payload_len, out, cap, &lay);
	if (rc)
		return rc;
	if (payload_len)
		memcpy(out + lay.payload_off, payload, payload_len);
	wqe_pkt_build_finish(out, &lay);
	*out_len = lay.frame_len;
	return 0;
}
