/* SPDX-License-Identifier: MIT */
/*
 * parse.c - decoding RoCEv2 frames. Every read is preceded by a length
 * check against what the frame holds; lengths the headers claim are checked
 * against each other and against the frame before they are used.
 *
 * Errors found before the UDP destination port is known say "not RoCEv2";
 * once the port says 4791, every inconsistency is a malformed packet. So the
 * UDP ports are read (when the frame holds them) before the IP length is
 * judged.
 */
#include "common/mem.h"
#include "wire/wire_int.h"

static void clear_transport(struct wqe_pkt *p)
{
	static const struct wqe_pkt zero;

	p->bth = zero.bth;
	p->hdrs = 0;
	p->reth = zero.reth;
	p->aeth = zero.aeth;
	p->atomiceth = zero.atomiceth;
	p->atomicacketh = zero.atomicacketh;
	p->immdt = zero.immdt;
	p->ieth = zero.ieth;
	p->deth = zero.deth;
	p->cnp = zero.cnp;
	p->payload = NULL;
	p->payload_len = 0;
	p->pad = NULL;
	p->icrc = 0;
	p->icrc_ok = 0;
	p->opts &= ~(uint32_t)(WQE_PKT_OPT_RAW_PADCNT | WQE_PKT_OPT_RAW_ICRC);
}

/* IBA 9.2 + annex A17: BTH, the opcode's headers, payload, pad, ICRC.
 * @out's transport fields are zero (the callers clear them). */
int wire_parse_transport(const uint8_t *bth, size_t len, struct wqe_pkt *out)
{
	const struct wire_op *op;
	size_t hl, body;

	if (len < WQE_BTH_LEN)
		return WQE_PKT_ETRUNC_BTH;
	op = wire_op_lookup(bth_opcode(bth));
	if (!op)
		return WQE_PKT_EOPCODE;
	hl = op->hdr_len;
	if (len < hl + WQE_ICRC_LEN)
		return WQE_PKT_ETRUNC_HDRS;
	/* one check for the whole header set: the codecs read hl bytes */
	wire_get_hdr(bth, WQE_HDR_BTH, out);
	wire_get_ext_hdrs(bth + WQE_BTH_LEN, op->hdrs, out);
	out->hdrs = op->hdrs;
	body = len - hl - WQE_ICRC_LEN;
	if (out->bth.padcnt > body)
		return WQE_PKT_EPAD;
	if (len % 4)
		return WQE_PKT_EALIGN;
	if (body - out->bth.padcnt && !op->payload)
		return WQE_PKT_EPAYLOAD;
	out->payload = bth + hl;
	out->payload_len = (uint32_t)(body - out->bth.padcnt);
	out->pad = out->payload + out->payload_len;
	out->icrc = get_le32(bth + len - WQE_ICRC_LEN);
	return 0;
}

static int parse_ipv4(const uint8_t *ip, size_t len, struct wqe_pkt *out)
{
	if (len < WQE_IPV4_LEN)
		return WQE_PKT_ETRUNC_IP;
	if (ip_version(ip) != 4)
		return WQE_PKT_EIP_VERSION;
	if (!ipv4_no_options(ip))
		return WQE_PKT_EIP_OPTIONS;
	out->tos = ipv4_tos(ip);
	out->ip_len = ipv4_total_len(ip);
	out->ip_id = ipv4_id(ip);
	out->ip_flags = (uint8_t)(ipv4_frag(ip) >> 13);
	out->ttl = ipv4_ttl(ip);
	out->ip_proto = ipv4_proto(ip);
	out->ip_csum = ipv4_csum(ip);
	/* IPv4-mapped GIDs (::ffff:a.b.c.d), each written whole: copying one
	 * just written in small stores would stall on store forwarding. */
	memset(out->src.raw, 0, 10);
	memset(out->src.raw + 10, 0xff, 2);
	memcpy(out->src.raw + 12, ipv4_src(ip), 4);
	memset(out->dst.raw, 0, 10);
	memset(out->dst.raw + 10, 0xff, 2);
	memcpy(out->dst.raw + 12, ipv4_dst(ip), 4);
	if (out->ip_proto != IP_PROTO_UDP)
		return WQE_PKT_ENOT_UDP;
	if (ipv4_is_fragment(ip))
		return WQE_PKT_EIP_FRAG;
	out->ip_csum_ok = csum_ipv4(ip) == 0;
	return 0;
}

static int parse_ipv6(const uint8_t *ip, size_t len, struct wqe_pkt *out)
{
	if (len < WQE_IPV6_LEN)
		return WQE_PKT_ETRUNC_IP;
	if (ip_version(ip) != 6)
		return WQE_PKT_EIP_VERSION;
	out->tos = ipv6_tclass(ip);
	out->flow_label = ipv6_flow_label(ip);
	out->ip_len = ipv6_payload_len(ip);
	out->ip_proto = ipv6_next_header(ip);
	out->ttl = ipv6_hop_limit(ip);
	memcpy(out->src.raw, ipv6_src(ip), 16);
	memcpy(out->dst.raw, ipv6_dst(ip), 16);
	out->ip_csum_ok = 1;
	if (out->ip_proto != IP_PROTO_UDP)
		return WQE_PKT_ENOT_UDP;
	return 0;
}

/* The checksums and the ICRC of a structurally valid packet. */
static void verify(const uint8_t *ip, size_t hl, const uint8_t *udp, struct wqe_pkt *out)
{
	size_t to_icrc = hl + out->udp_len - WQE_ICRC_LEN;

	out->icrc_ok = wqe_icrc(ip, to_icrc, out->ipver) == out->icrc;
	if (!out->icrc_ok)
		out->opts |= WQE_PKT_OPT_RAW_ICRC;
	if (!out->ip_csum_ok)
		out->opts |= WQE_PKT_OPT_RAW_IP_CSUM;
	out->udp_csum_ok = 1;
	if (out->udp_csum) {
		out->udp_csum_ok =
		    wire_udp_csum(ip, out->ipver, udp, out->udp_len) == out->udp_csum;
		if (out->udp_csum_ok)
			out->opts |= WQE_PKT_OPT_UDP_CSUM;
	}
}

static int parse_l3(const uint8_t *ip, size_t len, int ipver, struct wqe_pkt *out)
{
	size_t hl = ipver == 4 ? WQE_IPV4_LEN : WQE_IPV6_LEN;
	size_t ip_payload;
	const uint8_t *udp;
	int rc;

	out->ipver = (uint8_t)ipver;
	rc = ipver == 4 ? parse_ipv4(ip, len, out) : parse_ipv6(ip, len, out);
	if (rc)
		return rc;
	if (len < hl + WQE_UDP_LEN)
		return WQE_PKT_ETRUNC_UDP;
	udp = ip + hl;
	out->sport = udp_sport(udp);
	out->dport = udp_dport(udp);
	out->udp_len = udp_length(udp);
	out->udp_csum = udp_csum(udp);
	if (out->dport != WQE_ROCEV2_PORT)
		return WQE_PKT_ENOT_ROCE;
	/* IPv4 total length covers its header; IPv6 payload length does not. */
	ip_payload = ipver == 4 ? (size_t)out->ip_len - hl : out->ip_len;
	if ((ipver == 4 && out->ip_len < hl) || ip_payload < WQE_UDP_LEN || hl + ip_payload > len)
		return WQE_PKT_EIP_LEN;
	if (out->udp_len != ip_payload)
		return WQE_PKT_EUDP_LEN;
	rc = wire_parse_transport(udp + WQE_UDP_LEN, out->udp_len - WQE_UDP_LEN, out);
	if (rc)
		return rc;
	verify(ip, hl, udp, out);
	return 0;
}

int wqe_pkt_parse_ip(const uint8_t *ip, size_t len, struct wqe_pkt *out)
{
	memset(out, 0, sizeof(*out));
	if (len < 1)
		return WQE_PKT_ETRUNC_IP;
	if (ip_version(ip) != 4 && ip_version(ip) != 6)
		return WQE_PKT_EIP_VERSION;
	out->ethertype = ip_version(ip) == 4 ? WQE_ETHERTYPE_IPV4 : WQE_ETHERTYPE_IPV6;
	return parse_l3(ip, len, ip_version(ip), out);
}

int wqe_pkt_parse(const uint8_t *frame, size_t len, struct wqe_pkt *out)
{
	size_t off = WQE_ETH_LEN;
	uint16_t type;

	mem_clear(out, sizeof(*out)); /* once per frame received */
	if (len < WQE_ETH_LEN)
		return WQE_PKT_ETRUNC_ETH;
	out->has_eth = 1;
	memcpy(out->dmac, frame, 6);
	memcpy(out->smac, frame + 6, 6);
	type = eth_type(frame);
	if (eth_type_is_vlan(type)) {
		if (len < WQE_ETH_LEN + WQE_VLAN_LEN)
			return WQE_PKT_ETRUNC_ETH;
		out->has_vlan = 1;
		out->vlan_tpid = type;
		out->vlan_tci = vlan_tci(frame);
		type = vlan_type(frame);
		off += WQE_VLAN_LEN;
	}
	out->ethertype = type;
	if (type != WQE_ETHERTYPE_IPV4 && type != WQE_ETHERTYPE_IPV6)
		return WQE_PKT_ENOT_IP;
	return parse_l3(frame + off, len - off, type == WQE_ETHERTYPE_IPV4 ? 4 : 6, out);
}

int wqe_pkt_parse_bth(const uint8_t *bth, size_t len, struct wqe_pkt *out)
{
	int rc;

	if ((out->ipver != 4 && out->ipver != 6) || len > 0xffff - WQE_IPV4_LEN - WQE_UDP_LEN)
		return WQE_PKT_EINVAL;
	out->udp_len = (uint16_t)(WQE_UDP_LEN + len);
	out->ip_len = (uint16_t)(out->udp_len + (out->ipver == 4 ? WQE_IPV4_LEN : 0));
	out->ip_proto = IP_PROTO_UDP;
	clear_transport(out);
	rc = wire_parse_transport(bth, len, out);
	if (rc)
		return rc;
	out->icrc_ok = wqe_icrc_udp(out, bth, len - WQE_ICRC_LEN) == out->icrc;
	if (!out->icrc_ok)
		out->opts |= WQE_PKT_OPT_RAW_ICRC;
	return 0;
}
