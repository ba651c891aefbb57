/* SPDX-License-Identifier: MIT */
/*
 * layout.h - where things lie in a RoCEv2 frame, for every path that reads
 * one in place: the codec itself (opcode.c, hdr.c, parse.c) and the paths
 * beside it that skip the decode (the engine's receive fast paths in
 * engine/rx.c, the requester's in engine/requester.c, the UDP link's send
 * path in link/udp.c). The opcode table's row for an opcode, the length
 * of a header set and the offset of a header in it, a reader for each
 * header field those paths read, and the rules the parser judges a frame
 * by: each defined here once, so that no path restates an offset, a width
 * or a rule. Private (never installed); wire_int.h includes it.
 *
 * Every reader takes a pointer to the first byte of its header and reads
 * only its field's bytes, which the caller has checked the frame holds
 * (the header's WQE_*_LEN bytes from that pointer). None checks anything.
 * Inline: the receive fast paths read every frame through them.
 */
#ifndef WQE_WIRE_LAYOUT_H
#define WQE_WIRE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/bytes.h"
#include "wqe/wire.h"

/* ------------------------------------------------------------------------ */
/* The opcode table and header sets.                                        */

/* One row of the opcode table (opcode.c). */
struct wire_op {
	const char *name; /* NULL: not a supported opcode */
	uint16_t hdrs;
	uint8_t transport;
	uint8_t role;
	uint8_t kind;
	uint8_t payload;
	uint8_t response;
	uint8_t hdr_len; /* WIRE_HDRS_LEN(hdrs), computed with the table */
};

/* The opcode table (opcode.c), every wire opcode a row. */
extern const struct wire_op wire_op_tab[256];

/* The row for @op, or NULL. Inline: every frame built or parsed asks. */
static inline const struct wire_op *wire_op_lookup(uint8_t op)
{
	return wire_op_tab[op].name ? &wire_op_tab[op] : NULL;
}

/*
 * WIRE_HDRS_LEN - the bytes from the BTH to the payload of a packet that
 * carries the header set @m (a WQE_HDR_* mask): wqe_hdrs_len() as a
 * constant expression, for the opcode table's rows and for the paths that
 * know their packet's headers when they are compiled.
 * WIRE_HDR_OFFSET - the offset of header @h (one WQE_HDR_* bit, in @m)
 * from the start of the BTH: wqe_hdr_offset(), the headers before it in
 * wire order, which is the order of the bits.
 */
/* clang-format off */
#define WIRE_HDRS_LEN(m)                                                                          \
	((uint32_t)(((m) & WQE_HDR_BTH ? WQE_BTH_LEN : 0) +                                       \
		    ((m) & WQE_HDR_DETH ? WQE_DETH_LEN : 0) +                                     \
		    ((m) & WQE_HDR_RETH ? WQE_RETH_LEN : 0) +                                     \
		    ((m) & WQE_HDR_ATOMICETH ? WQE_ATOMICETH_LEN : 0) +                           \
		    ((m) & WQE_HDR_AETH ? WQE_AETH_LEN : 0) +                                     \
		    ((m) & WQE_HDR_ATOMICACKETH ? WQE_ATOMICACKETH_LEN : 0) +                     \
		    ((m) & WQE_HDR_IMMDT ? WQE_IMMDT_LEN : 0) +                                   \
		    ((m) & WQE_HDR_IETH ? WQE_IETH_LEN : 0) + ((m) & WQE_HDR_CNP ? WQE_CNP_LEN : 0)))
#define WIRE_HDR_OFFSET(m, h) WIRE_HDRS_LEN((m) & ((uint32_t)(h) - 1u))
/* clang-format on */

/* ------------------------------------------------------------------------ */
/* Ethernet and 802.1Q.                                                     */

/* The EtherType, or a VLAN tag's TPID, of the Ethernet header at @eth. */
static inline uint16_t eth_type(const uint8_t *eth)
{
	return get_be16(eth + 12);
}

/* @type says a VLAN tag follows (WQE_ETHERTYPE_VLAN or _QINQ). */
static inline bool eth_type_is_vlan(uint16_t type)
{
	return type == WQE_ETHERTYPE_VLAN || type == WQE_ETHERTYPE_QINQ;
}

/* The TCI and the inner EtherType of the tag after the Ethernet header at
 * @eth (WQE_ETH_LEN + WQE_VLAN_LEN bytes). */
static inline uint16_t vlan_tci(const uint8_t *eth)
{
	return get_be16(eth + 14);
}

static inline uint16_t vlan_type(const uint8_t *eth)
{
	return get_be16(eth + 16);
}

/* ------------------------------------------------------------------------ */
/* IPv4 (RFC 791) and IPv6 (RFC 8200).                                      */

/* The IP protocol number (IPv4) and next header (IPv6) of UDP. */
#define IP_PROTO_UDP 17u

/* The IPv4 flags and fragment offset word (ipv4_frag()): DF, MF, and the
 * offset in its low 13 bits. */
#define IPV4_DF	      0x4000u
#define IPV4_MF	      0x2000u
#define IPV4_FRAG_OFF 0x1fffu

/* The version nibble of the IP header at @ip, either version. */
static inline uint8_t ip_version(const uint8_t *ip)
{
	return ip[0] >> 4;
}

/* The IPv4 header at @ip: its length in 32-bit words, TOS, total length,
 * identification, flags and fragment offset word, TTL, protocol,
 * checksum, and the four bytes of each address. */
static inline uint8_t ipv4_ihl(const uint8_t *ip)
{
	return ip[0] & 0xfu;
}

static inline uint8_t ipv4_tos(const uint8_t *ip)
{
	return ip[1];
}

static inline uint16_t ipv4_total_len(const uint8_t *ip)
{
	return get_be16(ip + 2);
}

static inline uint16_t ipv4_id(const uint8_t *ip)
{
	return get_be16(ip + 4);
}

static inline uint16_t ipv4_frag(const uint8_t *ip)
{
	return get_be16(ip + 6);
}

static inline uint8_t ipv4_ttl(const uint8_t *ip)
{
	return ip[8];
}

static inline uint8_t ipv4_proto(const uint8_t *ip)
{
	return ip[9];
}

static inline uint16_t ipv4_csum(const uint8_t *ip)
{
	return get_be16(ip + 10);
}

static inline const uint8_t *ipv4_src(const uint8_t *ip)
{
	return ip + 12;
}

static inline const uint8_t *ipv4_dst(const uint8_t *ip)
{
	return ip + 16;
}

/* The parser's rules for IPv4: a header with no options (IHL 5: the
 * WQE_IPV4_LEN bytes), and a fragment (MF set, or an offset). */
static inline bool ipv4_no_options(const uint8_t *ip)
{
	return ipv4_ihl(ip) == WQE_IPV4_LEN / 4;
}

static inline bool ipv4_is_fragment(const uint8_t *ip)
{
	return (ipv4_frag(ip) & (IPV4_MF | IPV4_FRAG_OFF)) != 0;
}

/* Both of the first byte's rules at once, for the paths that only take or
 * leave a frame: version 4 (ip_version()) and no options
 * (ipv4_no_options()), one compare of the byte that holds both. */
static inline bool ipv4_v4_no_options(const uint8_t *ip)
{
	return ip[0] == (4u << 4 | WQE_IPV4_LEN / 4);
}

/* The IPv6 header at @ip: its traffic class, flow label, payload length
 * (the bytes after the 40-byte header), next header, hop limit, and the
 * 16 bytes of each address. */
static inline uint8_t ipv6_tclass(const uint8_t *ip)
{
	return (uint8_t)(get_be32(ip) >> 20);
}

static inline uint32_t ipv6_flow_label(const uint8_t *ip)
{
	return get_be32(ip) & 0xfffffu;
}

static inline uint16_t ipv6_payload_len(const uint8_t *ip)
{
	return get_be16(ip + 4);
}

static inline uint8_t ipv6_next_header(const uint8_t *ip)
{
	return ip[6];
}

static inline uint8_t ipv6_hop_limit(const uint8_t *ip)
{
	return ip[7];
}

static inline const uint8_t *ipv6_src(const uint8_t *ip)
{
	return ip + 8;
}

static inline const uint8_t *ipv6_dst(const uint8_t *ip)
{
	return ip + 24;
}

/* ------------------------------------------------------------------------ */
/* UDP (RFC 768).                                                           */

/* The UDP header at @udp: ports, length (header included), checksum. */
static inline uint16_t udp_sport(const uint8_t *udp)
{
	return get_be16(udp);
}

static inline uint16_t udp_dport(const uint8_t *udp)
{
	return get_be16(udp + 2);
}

static inline uint16_t udp_length(const uint8_t *udp)
{
	return get_be16(udp + 4);
}

static inline uint16_t udp_csum(const uint8_t *udp)
{
	return get_be16(udp + 6);
}

/* ------------------------------------------------------------------------ */
/* The BTH and the extension headers the fast paths read (IBA 9.2-9.3).     */

/* The BTH at @bth, field by field (struct wqe_bth says each width). */
static inline uint8_t bth_opcode(const uint8_t *bth)
{
	return bth[0];
}

static inline bool bth_se(const uint8_t *bth)
{
	return bth[1] >> 7;
}

static inline bool bth_migreq(const uint8_t *bth)
{
	return (bth[1] >> 6) & 1u;
}

static inline uint8_t bth_padcnt(const uint8_t *bth)
{
	return (bth[1] >> 4) & 3u;
}

static inline uint8_t bth_tver(const uint8_t *bth)
{
	return bth[1] & 0xfu;
}

static inline uint16_t bth_pkey(const uint8_t *bth)
{
	return get_be16(bth + 2);
}

static inline bool bth_fecn(const uint8_t *bth)
{
	return bth[4] >> 7;
}

static inline bool bth_becn(const uint8_t *bth)
{
	return (bth[4] >> 6) & 1u;
}

static inline uint8_t bth_resv6(const uint8_t *bth)
{
	return bth[4] & 0x3fu;
}

static inline uint32_t bth_destqp(const uint8_t *bth)
{
	return get_be24(bth + 5);
}

static inline bool bth_ackreq(const uint8_t *bth)
{
	return bth[8] >> 7;
}

static inline uint8_t bth_resv7(const uint8_t *bth)
{
	return bth[8] & 0x7fu;
}

static inline uint32_t bth_psn(const uint8_t *bth)
{
	return get_be24(bth + 9);
}

/* The RETH at @reth: virtual address, rkey, DMA length. */
static inline uint64_t reth_va(const uint8_t *reth)
{
	return get_be64(reth);
}

static inline uint32_t reth_rkey(const uint8_t *reth)
{
	return get_be32(reth + 8);
}

static inline uint32_t reth_dma_len(const uint8_t *reth)
{
	return get_be32(reth + 12);
}

/* The AETH at @aeth: syndrome, MSN. */
static inline uint8_t aeth_syndrome(const uint8_t *aeth)
{
	return aeth[0];
}

static inline uint32_t aeth_msn(const uint8_t *aeth)
{
	return get_be24(aeth + 1);
}

/* The ImmDt at @immdt, read as struct wqe_immdt holds it. */
static inline uint32_t immdt_imm(const uint8_t *immdt)
{
	return get_be32(immdt);
}

#endif /* WQE_WIRE_LAYOUT_H */
