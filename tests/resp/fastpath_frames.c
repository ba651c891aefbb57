/* SPDX-License-Identifier: MIT */
#include "fastpath_frames.h"

#include <string.h>

#include "common/bytes.h"
#include "common/csum.h"
#include "testutil.h"
#include "wire/wire_int.h"

const char *const kind_name[K_COUNT] = {
    "RC WRITE ONLY",	     "UC WRITE ONLY",	       "RC SEND ONLY",
    "UC SEND ONLY",	     "RC WRITE ONLY with imm", "UC WRITE ONLY with imm",
    "RC SEND ONLY with imm", "UC SEND ONLY with imm",  "ACKNOWLEDGE",
    "RC WRITE FIRST",	     "UC WRITE FIRST",	       "RC WRITE MIDDLE",
    "UC WRITE MIDDLE",	     "RC WRITE LAST",	       "UC WRITE LAST",
    "RC SEND FIRST",	     "UC SEND FIRST",	       "RC SEND MIDDLE",
    "UC SEND MIDDLE",	     "RC SEND LAST",	       "UC SEND LAST",
    "RC SEND LAST with imm", "UC SEND LAST with imm",
};

static const char *const edit_name[] = {
    "unchanged",
    "BTH TVer 1",
    "pad count 1",
    "pad count 3",
    "SE and MigReq set",
    "SE set",
    "FECN and BECN set",
    "UDP checksum not zero (wrong)",
    "IP options (IHL 6)",
    "IP more fragments",
    "IP fragment offset 8",
    "IP DF clear",
    "IP version 6 in an IPv4 header",
    "IP length 4 short",
    "IP length 4 long",
    "4 bytes after the IP packet",
    "last 4 bytes cut",
    "UDP length 4 long",
    "UDP port 4792",
    "IP protocol TCP",
    "VLAN tag",
    "EtherType IPv6",
    "destination IP not the port's",
    "source IP not the peer",
    "destination QP + 1",
    "P_Key 0x7fff",
    "opcode of the other transport",
    "another opcode of the same length",
    "ICRC wrong",
    "IP checksum wrong",
    "PSN + 1",
    "PSN - 1",
    "TTL and TOS changed",
    "IP length 4 short, ICRC over the whole frame",
    "one byte more, no pad (lengths agree)",
    "QP in ERR",
    "RETH length + 1",
    "RETH length - 1",
    "rkey + 1",
    "RETH VA past the region",
    "zero-length WRITE naming a bad rkey",
    "ImmDt 0",
    "ImmDt 0xffffffff",
    "ImmDt 0x80000000",
    "the frame ends before the ImmDt (lengths agree)",
    "AckReq clear",
    "payload over the path MTU",
    "zero-length request",
    "pad count 1, no payload",
    "the frame ends after the BTH (lengths agree)",
    "the opcode with or without immediate (the other one)",
    "QP without REMOTE_WRITE",
    "QP in RTR",
    "a SEND FIRST open before it (UC: after the WRITE's FIRST)",
    "an RDMA WRITE FIRST open before it",
    "UC dropping a message (SEND MIDDLE with none open)",
    "after a NAK PSN sequence error",
    "no receive WQE",
    "receive WQE with a bad lkey",
    "second of three SGEs with a bad lkey",
    "receive buffer one byte short",
    "receive buffer just large enough",
    "receive slot its format refuses (mlx5: all 0xff)",
    "payload over three SGEs",
    "CQ full",
    "RNR NAK",
    "NAK PSN sequence error",
    "NAK invalid request",
    "NAK remote access error",
    "NAK remote operational error",
    "NAK reserved code",
    "AETH reserved type",
    "no message open",
    "payload 4 bytes short",
    "payload 4 bytes long",
    "the packet carries all that remains of the WRITE",
    "a LAST of a full MTU (all that remains)",
    "RETH range past the region (its first MTU within)",
    "RETH length 2^31 + 1 (the region as long)",
    "the region deregistered since the FIRST",
    "the region shrunk to end inside this packet",
    "a LAST of one byte",
    "SGEs ending where packets end, and one inside the LAST",
    "the SEND open with no receive WQE held (forced)",
    "the message 2^31 bytes long with this packet (forced)",
    "the message 2^31 + 1 bytes long with this packet (forced)",
};
_Static_assert(sizeof(edit_name) / sizeof(*edit_name) == E_COUNT, "a name per edit");

const char *edit_label(enum edit e, bool v6)
{
	if (!v6)
		return edit_name[e];
	switch (e) {
	case E_IP_OPTS:
		return "hop-by-hop extension header";
	case E_IP_VER6:
		return "IP version 4 in an IPv6 header";
	case E_IP_LEN_SHORT:
		return "payload length 4 short";
	case E_IP_LEN_LONG:
		return "payload length 4 long";
	case E_PROTO_TCP:
		return "next header TCP";
	case E_ETHERTYPE_V6:
		return "EtherType IPv4";
	case E_TTL_TOS:
		return "hop limit, traffic class and flow label changed";
	case E_IP_LEN_ONLY:
		return "payload length 4 short, ICRC over the whole frame";
	default:
		return edit_name[e];
	}
}

/* The IPv4 header checksum of @n bytes (options included). */
static uint16_t inet_csum(const uint8_t *p, size_t n)
{
	return csum_fold(wire_csum_add(0, p, n));
}

/* Makes the ICRC of an IPv6 frame right again, where its payload length
 * fits the frame. */
static void fix_sums6(uint8_t *f, size_t len, size_t l3)
{
	uint8_t *ip = f + l3;
	size_t pl;

	if (len < l3 + WQE_IPV6_LEN)
		return;
	pl = get_be16(ip + 4);
	if (pl < WQE_UDP_LEN + WQE_BTH_LEN + WQE_ICRC_LEN || l3 + WQE_IPV6_LEN + pl > len)
		return;
	put_le32(ip + WQE_IPV6_LEN + pl - WQE_ICRC_LEN,
		 wqe_icrc(ip, WQE_IPV6_LEN + pl - WQE_ICRC_LEN, 6));
}

void frame_fix_sums(uint8_t *f, size_t len, size_t l3, bool v6)
{
	uint8_t *ip = f + l3;
	size_t ihl = (size_t)(ip[0] & 0xfu) * 4, iplen;

	if (v6) {
		fix_sums6(f, len, l3);
		return;
	}
	if (len < l3 + WQE_IPV4_LEN || ihl < WQE_IPV4_LEN || len < l3 + ihl)
		return;
	put_be16(ip + 10, 0);
	put_be16(ip + 10, inet_csum(ip, ihl));
	iplen = get_be16(ip + 2);
	if (ihl != WQE_IPV4_LEN || iplen < ihl + WQE_UDP_LEN + WQE_BTH_LEN + WQE_ICRC_LEN ||
	    l3 + iplen > len)
		return;
	put_le32(ip + iplen - WQE_ICRC_LEN, wqe_icrc(ip, iplen - WQE_ICRC_LEN, 4));
}

/* Inserts @n bytes of @v at @at (the buffer has room). */
static void insert(uint8_t *f, size_t *len, size_t at, const uint8_t *v, size_t n)
{
	memmove(f + at + n, f + at, *len - at);
	memcpy(f + at, v, n);
	*len += n;
}

size_t frame_imm_off(enum kind k, bool v6)
{
	size_t iphl = v6 ? WQE_IPV6_LEN : WQE_IPV4_LEN;

	return L3 + iphl + WQE_UDP_LEN + WQE_BTH_LEN + (has_reth(k) ? (size_t)WQE_RETH_LEN : 0);
}

uint32_t write_msg_len(enum kind k, enum edit e)
{
	if (e == E_WRITE_ENDS)
		return k == K_WFIRST_RC || k == K_WFIRST_UC ? FRAME_MTU : 2 * FRAME_MTU;
	if (e == E_LAST_FULL)
		return 3 * FRAME_MTU;
	return 2 * FRAME_MTU + WLEN;
}

uint32_t send_msg_len(enum edit e)
{
	if (e == E_LAST_FULL)
		return 3 * FRAME_MTU;
	if (e == E_LAST_ONE)
		return 2 * FRAME_MTU + 1;
	return 2 * FRAME_MTU + WLEN;
}

/* A SEND LAST, with or without immediate. */
static bool is_send_last(enum kind k)
{
	return k == K_SLAST_RC || k == K_SLAST_UC || k == K_SLAST_IMM_RC || k == K_SLAST_IMM_UC;
}

uint32_t frame_payload_len(enum kind k, enum edit e)
{
	uint32_t n = WLEN;

	if (k == K_WLAST_RC || k == K_WLAST_UC)
		n = write_msg_len(k, e) - 2 * FRAME_MTU;
	else if (is_send_last(k))
		n = send_msg_len(e) - 2 * FRAME_MTU;
	else if (is_multi(k) || is_send_multi(k))
		n = FRAME_MTU;
	switch (e) {
	case E_PAYLOAD_SHORT:
		return n - 4;
	case E_PAYLOAD_LONG:
		return n + 4;
	case E_OVER_MTU:
		return FRAME_MTU + 4u;
	case E_ZERO_LEN:
	case E_PAD_EMPTY:
	case E_ZERO_LEN_BAD_RKEY:
		return 0;
	default:
		return n;
	}
}

/* The RC opcode of a FIRST, MIDDLE or LAST kind. */
static uint8_t multi_opcode(enum kind k)
{
	switch (k) {
	case K_SFIRST_RC:
	case K_SFIRST_UC:
		return WQE_WIRE_RC_SEND_FIRST;
	case K_SMIDDLE_RC:
	case K_SMIDDLE_UC:
		return WQE_WIRE_RC_SEND_MIDDLE;
	case K_SLAST_RC:
	case K_SLAST_UC:
		return WQE_WIRE_RC_SEND_LAST;
	case K_SLAST_IMM_RC:
	case K_SLAST_IMM_UC:
		return WQE_WIRE_RC_SEND_LAST_WITH_IMMEDIATE;
	default:
		break;
	}
	if (k == K_WFIRST_RC || k == K_WFIRST_UC)
		return WQE_WIRE_RC_RDMA_WRITE_FIRST;
	if (k == K_WMIDDLE_RC || k == K_WMIDDLE_UC)
		return WQE_WIRE_RC_RDMA_WRITE_MIDDLE;
	return WQE_WIRE_RC_RDMA_WRITE_LAST;
}

size_t frame_base(const struct rt *t, enum kind k, enum edit e, const struct frame_spec *sp,
		  uint8_t *f)
{
	uint32_t plen = frame_payload_len(k, e);
	struct wqe_pkt p;
	size_t n = 0;

	if (k == K_ACK) {
		rt_req(t, &p, WQE_WIRE_RC_ACKNOWLEDGE, sp->psn);
		p.aeth.syndrome = WQE_AETH_ACK_UNLIMITED;
		p.aeth.msn = 1;
	} else if (is_multi(k)) {
		rt_req(t, &p, opcode_of(k, multi_opcode(k)), sp->psn);
		p.bth.ackreq = 1;
		p.reth.va = sp->va;
		p.reth.rkey = sp->rkey;
		p.reth.dma_len = write_msg_len(k, e);
	} else if (is_send_multi(k)) {
		rt_req(t, &p, opcode_of(k, multi_opcode(k)), sp->psn);
		p.bth.ackreq = 1;
	} else if (is_send(k)) {
		rt_req(t, &p,
		       opcode_of(k, has_imm(k) ? WQE_WIRE_RC_SEND_ONLY_WITH_IMMEDIATE
					       : WQE_WIRE_RC_SEND_ONLY),
		       sp->psn);
		p.bth.ackreq = 1;
	} else {
		rt_req(t, &p,
		       opcode_of(k, has_imm(k) ? WQE_WIRE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE
					       : WQE_WIRE_RC_RDMA_WRITE_ONLY),
		       sp->psn);
		p.bth.ackreq = 1;
		p.reth.va = sp->va;
		p.reth.rkey = sp->rkey;
		p.reth.dma_len = plen;
	}
	p.immdt.imm = FRAME_IMM;
	CHECK_EQ(wqe_pkt_build(&p, sp->payload, k == K_ACK ? 0 : plen, f, FRAME_ROOM, &n), 0);
	return n;
}

/* Applies @e to the IPv6 header of the frame, where it is one of the
 * IPv4 header's edits (edit_label()); false if it is not. */
static bool apply6(enum edit e, uint8_t *f, size_t *len)
{
	/* hop-by-hop: next header UDP, 6 bytes of PadN */
	static const uint8_t hbh[8] = {17, 0, 1, 4, 0, 0, 0, 0};
	uint8_t *ip = f + L3;

	switch (e) {
	case E_IP_OPTS:
		insert(f, len, L3 + WQE_IPV6_LEN, hbh, sizeof(hbh));
		ip[6] = 0;
		put_be16(ip + 4, (uint16_t)(get_be16(ip + 4) + sizeof(hbh)));
		return true;
	case E_IP_VER6:
		ip[0] = (uint8_t)(0x40 | (ip[0] & 0x0f));
		return true;
	case E_IP_LEN_SHORT:
		put_be16(ip + 4, (uint16_t)(get_be16(ip + 4) - 4));
		return true;
	case E_IP_LEN_LONG:
		put_be16(ip + 4, (uint16_t)(get_be16(ip + 4) + 4));
		return true;
	case E_PROTO_TCP:
		ip[6] = 6;
		return true;
	case E_ETHERTYPE_V6:
		put_be16(f + 12, 0x0800);
		return true;
	case E_DST_IP:
		ip[39] ^= 0x40;
		return true;
	case E_SRC_IP:
		ip[23] ^= 0x40;
		return true;
	case E_TTL_TOS:
		ip[7] = 3;			/* hop limit */
		ip[0] = 0x6b;			/* traffic class 0xb8 */
		ip[1] = (uint8_t)(0x80 | 0x0a); /* and a flow label 0xa5432 */
		ip[2] = 0x54;
		ip[3] = 0x32;
		return true;
	case E_UNALIGNED:
		put_be16(ip + 4, (uint16_t)(get_be16(ip + 4) + 1));
		return true;
	default:
		return false;
	}
}

/* The edits of a request's BTH opcode and ImmDt; false if @e is none. */
static bool apply_req(enum kind k, enum edit e, uint8_t *bth, uint8_t *imm)
{
	switch (e) {
	case E_OPCODE_UC:
		/* RC <-> UC; an ACK as UC's SEND ONLY (no such thing as a UC
		 * ACK) */
		bth[0] = k == K_ACK ? WQE_WIRE_UC_SEND_ONLY : (uint8_t)(bth[0] ^ 0x20);
		return true;
	case E_OPCODE_OTHER:
		if (is_send_multi(k)) {
			/* of the same length: FIRST -> ONLY, MIDDLE <-> LAST,
			 * LAST with immediate -> ONLY with immediate */
			if (bth[0] % 32 == WQE_WIRE_RC_SEND_FIRST)
				bth[0] = (uint8_t)(bth[0] + WQE_WIRE_RC_SEND_ONLY);
			else if (bth[0] % 32 == WQE_WIRE_RC_SEND_LAST_WITH_IMMEDIATE)
				bth[0] = (uint8_t)(bth[0] + 2);
			else
				bth[0] ^= WQE_WIRE_RC_SEND_MIDDLE ^ WQE_WIRE_RC_SEND_LAST;
			return true;
		}
		if (is_multi(k)) {
			/* of the same length: FIRST -> ONLY, MIDDLE <-> LAST */
			if (bth[0] % 32 == WQE_WIRE_RC_RDMA_WRITE_FIRST)
				bth[0] = (uint8_t)(bth[0] + 4);
			else
				bth[0] ^=
				    WQE_WIRE_RC_RDMA_WRITE_MIDDLE ^ WQE_WIRE_RC_RDMA_WRITE_LAST;
			return true;
		}
		/* two below an ONLY is its LAST (WRITE ONLY: WRITE LAST, not
		 * WRITE ONLY with immediate, whose headers differ; with
		 * immediate: LAST with immediate); an ACK frame's length with a
		 * READ response's opcode (ONLY, AETH + 0 bytes) */
		bth[0] = k == K_ACK ? WQE_WIRE_RC_RDMA_READ_RESPONSE_ONLY
				    : (uint8_t)(bth[0] - WQE_WIRE_RC_RDMA_WRITE_ONLY +
						WQE_WIRE_RC_RDMA_WRITE_LAST);
		return true;
	case E_OPCODE_IMM:
		/* ONLY <-> ONLY with immediate (SEND LAST <-> LAST with
		 * immediate): the ImmDt's 4 bytes become payload, or the
		 * payload's first 4 the ImmDt */
		bth[0] ^= 1;
		return true;
	case E_IMM_ZERO:
		put_be32(imm, 0);
		return true;
	case E_IMM_ONES:
		put_be32(imm, 0xffffffffu);
		return true;
	case E_IMM_TOP:
		put_be32(imm, 0x80000000u);
		return true;
	default:
		return false;
	}
}

bool frame_apply(enum kind k, enum edit e, bool v6, uint8_t *f, size_t *len)
{
	static const uint8_t nops[4] = {1, 1, 1, 0}, vlan[4] = {0x81, 0x00, 0x00, 0x05};
	size_t iphl = v6 ? WQE_IPV6_LEN : WQE_IPV4_LEN;
	uint8_t *ip = f + L3, *udp = ip + iphl, *bth = udp + WQE_UDP_LEN;
	uint8_t *ext = bth + WQE_BTH_LEN;

	if (v6 && e == E_IP_LEN_ONLY) {
		put_be16(ip + 4, (uint16_t)(get_be16(ip + 4) - 4));
		put_le32(f + *len - WQE_ICRC_LEN, wqe_icrc(ip, *len - L3 - WQE_ICRC_LEN, 6));
		return false;
	}
	if (v6 && e == E_UNALIGNED) {
		insert(f, len, *len - WQE_ICRC_LEN, (const uint8_t[]){0xa7}, 1);
		apply6(e, f, len);
		put_be16(udp + 4, (uint16_t)(get_be16(udp + 4) + 1));
		if (has_reth(k))
			put_be32(ext + 12, get_be32(ext + 12) + 1);
		return true;
	}
	if (v6 && apply6(e, f, len))
		return true;
	if (e == E_IMM_CUT || e == E_HDRS_CUT) {
		/* from the ImmDt on, or all after the BTH, taken out; every
		 * length told */
		size_t at = e == E_IMM_CUT ? frame_imm_off(k, v6) : (size_t)(ext - f);
		size_t n = *len - WQE_ICRC_LEN - at;
		uint8_t *iplen = ip + (v6 ? 4 : 2);

		memmove(f + at, f + *len - WQE_ICRC_LEN, WQE_ICRC_LEN);
		*len -= n;
		put_be16(iplen, (uint16_t)(get_be16(iplen) - n));
		put_be16(udp + 4, (uint16_t)(get_be16(udp + 4) - n));
		if (e == E_IMM_CUT && has_reth(k))
			put_be32(ext + 12, 0);
		return true;
	}
	if (apply_req(k, e, bth, f + frame_imm_off(k, v6)))
		return true;
	switch (e) {
	case E_NONE:
	case E_OVER_MTU:
	case E_ZERO_LEN:
	/* the responder's state: the test's */
	case E_QP_RTR:
	case E_SEND_OPEN:
	case E_WRITE_OPEN:
	case E_UC_DROPPING:
	case E_AFTER_PSN_NAK:
	case E_NO_REMOTE_WRITE:
	case E_QP_ERR:
	case E_RQ_EMPTY:
	case E_RQ_BAD_LKEY:
	case E_RQ_BAD_SGE2:
	case E_RQ_SMALL:
	case E_RQ_EXACT:
	case E_RQ_MALFORMED:
	case E_RQ_SGES:
	case E_CQ_FULL:
	case E_NOT_OPEN:
	case E_PAYLOAD_SHORT:
	case E_PAYLOAD_LONG:
	case E_WRITE_ENDS:
	case E_LAST_FULL:
	case E_RKEY_DEREG:
	case E_RKEY_SHRUNK:
	case E_LAST_ONE:
	case E_RQ_SGES_EDGE:
	case E_WQE_FORGOTTEN:
	case E_MSG_LIMIT:
	case E_MSG_HUGE:
		break;
	case E_TVER:
		bth[1] |= 1;
		break;
	case E_PAD1:
		bth[1] |= 0x10;
		break;
	case E_PAD3:
		bth[1] |= 0x30;
		break;
	case E_SE_MIG:
		bth[1] |= 0xc0;
		break;
	case E_SE:
		bth[1] |= 0x80;
		break;
	case E_PAD_EMPTY:
		bth[1] |= 0x10;
		break;
	case E_FECN_BECN:
		bth[4] |= 0xc0;
		break;
	case E_UDP_CSUM:
		put_be16(udp + 6, 0x1234);
		break;
	case E_IP_OPTS:
		insert(f, len, L3 + WQE_IPV4_LEN, nops, 4);
		ip[0] = 0x46;
		put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) + 4));
		break;
	case E_IP_MF:
		ip[6] |= 0x20;
		break;
	case E_IP_FRAG_OFF:
		ip[7] |= 1;
		break;
	case E_IP_DF_CLEAR:
		ip[6] &= (uint8_t)~0x40;
		break;
	case E_IP_VER6:
		ip[0] = 0x65;
		break;
	case E_IP_LEN_SHORT:
		put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) - 4));
		break;
	case E_IP_LEN_LONG:
		put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) + 4));
		break;
	case E_TRAILING:
		memset(f + *len, 0, 4);
		*len += 4;
		break;
	case E_TRUNCATED:
		*len -= 4;
		return false;
	case E_UDP_LEN:
		put_be16(udp + 4, (uint16_t)(get_be16(udp + 4) + 4));
		break;
	case E_UDP_DPORT:
		put_be16(udp + 2, 4792);
		break;
	case E_PROTO_TCP:
		ip[9] = 6;
		break;
	case E_VLAN:
		insert(f, len, 12, vlan, 4);
		frame_fix_sums(f, *len, L3 + 4, v6);
		return false;
	case E_ETHERTYPE_V6:
		put_be16(f + 12, 0x86dd);
		break;
	case E_DST_IP:
		ip[19] ^= 0x40;
		break;
	case E_SRC_IP:
		ip[15] ^= 0x40;
		break;
	case E_DEST_QP:
		put_be24(bth + 5, get_be24(bth + 5) + 1);
		break;
	case E_PKEY:
		put_be16(bth + 2, 0x7fff);
		break;
	case E_BAD_ICRC:
		frame_fix_sums(f, *len, L3, v6);
		f[*len - 1] ^= 1;
		return false;
	case E_BAD_IP_CSUM:
		frame_fix_sums(f, *len, L3, v6);
		ip[10] ^= 1;
		return false;
	case E_PSN_NEXT:
		put_be24(bth + 9, (get_be24(bth + 9) + 1) & 0xffffff);
		break;
	case E_PSN_PREV:
		put_be24(bth + 9, (get_be24(bth + 9) - 1) & 0xffffff);
		break;
	case E_TTL_TOS:
		ip[8] = 3;
		ip[1] = 0xb8;
		break;
	case E_IP_LEN_ONLY:
		/* the ICRC where the frame ends, not where the IP length says */
		put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) - 4));
		put_be16(ip + 10, 0);
		put_be16(ip + 10, inet_csum(ip, WQE_IPV4_LEN));
		put_le32(f + *len - WQE_ICRC_LEN, wqe_icrc(ip, *len - L3 - WQE_ICRC_LEN, 4));
		return false;
	case E_UNALIGNED:
		insert(f, len, *len - WQE_ICRC_LEN, (const uint8_t[]){0xa7}, 1);
		put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) + 1));
		put_be16(udp + 4, (uint16_t)(get_be16(udp + 4) + 1));
		if (has_reth(k))
			put_be32(ext + 12, get_be32(ext + 12) + 1);
		break;
	case E_RETH_LONGER:
		put_be32(ext + 12, get_be32(ext + 12) + 1);
		break;
	case E_RETH_SHORTER:
		put_be32(ext + 12, get_be32(ext + 12) - 1);
		break;
	case E_RKEY:
	case E_ZERO_LEN_BAD_RKEY:
		put_be32(ext + 8, get_be32(ext + 8) + 1);
		break;
	case E_VA_PAST_END:
		put_be64(ext, get_be64(ext) + REGION - VA_OFF - 8);
		break;
	case E_RETH_PAST_END:
		put_be32(ext + 12, REGION - VA_OFF + 1);
		break;
	case E_RETH_HUGE:
		put_be32(ext + 12, (1u << 31) + 1); /* past the largest, 2^31 */
		break;
	case E_ACKREQ_OFF:
		bth[8] &= 0x7f;
		break;
	case E_RNR_NAK:
		ext[0] = WQE_AETH_RNR_NAK | 3;
		break;
	case E_NAK_SEQ:
		ext[0] = WQE_AETH_NAK_PSN_SEQ_ERR;
		break;
	case E_NAK_INV_REQ:
		ext[0] = WQE_AETH_NAK_INVALID_REQ;
		break;
	case E_NAK_ACCESS:
		ext[0] = WQE_AETH_NAK_REM_ACCESS_ERR;
		break;
	case E_NAK_OP:
		ext[0] = WQE_AETH_NAK_REM_OP_ERR;
		break;
	case E_NAK_RESERVED:
		ext[0] = 0x6a;
		break;
	case E_AETH_RESERVED_TYPE:
		ext[0] = 0x40;
		break;
	default:
		break; /* apply_req()'s, E_COUNT */
	}
	return true;
}
