/* SPDX-License-Identifier: MIT */
/*
 * wqe/wire.h - RoCEv2 packets: wire opcodes, header codecs, the ICRC,
 * whole-frame build and parse, packet printing, and pcap captures.
 *
 * A RoCEv2 frame is Ethernet [802.1Q] / IPv4 (no options) or IPv6 (no
 * extension headers) / UDP to port 4791 / BTH / the extension headers the
 * wire opcode calls for / payload / 0-3 zero pad bytes / 4-byte ICRC. No
 * Ethernet FCS is ever part of a frame here.
 *
 * Every multi-byte header field is big-endian on the wire; the structs below
 * hold host values and are never laid over bytes. The ICRC alone is stored
 * least-significant byte first.
 *
 * Threading: every function is pure and thread-safe (it touches only the
 * memory it is given), except the capture functions at the end, which do
 * file I/O on an object that one thread at a time may use.
 */
#ifndef WQE_WIRE_H
#define WQE_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wqe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The UDP destination port of RoCEv2. */
#define WQE_ROCEV2_PORT 4791

/* EtherTypes: the two a RoCEv2 frame carries, and the tag protocol IDs of
 * the one VLAN tag it may have (802.1Q, and 802.1ad's outer tag). */
#define WQE_ETHERTYPE_IPV4 0x0800
#define WQE_ETHERTYPE_IPV6 0x86dd
#define WQE_ETHERTYPE_VLAN 0x8100
#define WQE_ETHERTYPE_QINQ 0x88a8

/* Header sizes in bytes. */
enum {
	WQE_ETH_LEN = 14,
	WQE_VLAN_LEN = 4,
	WQE_IPV4_LEN = 20,
	WQE_IPV6_LEN = 40,
	WQE_UDP_LEN = 8,
	WQE_BTH_LEN = 12,
	WQE_RETH_LEN = 16,
	WQE_AETH_LEN = 4,
	WQE_ATOMICETH_LEN = 28,
	WQE_ATOMICACKETH_LEN = 8,
	WQE_IMMDT_LEN = 4,
	WQE_IETH_LEN = 4,
	WQE_DETH_LEN = 8,
	WQE_CNP_LEN = 16,
	WQE_ICRC_LEN = 4,
};

/*
 * The longest frame a wqe NIC sends: every frame wqe_pktz_next() builds
 * fits in WQE_FRAME_MAX bytes, and every response the engine's responder
 * sends. The longest possible is Ethernet, an 802.1Q tag, IPv6, UDP, the
 * longest headers that come with payload (BTH, RETH, ImmDt: an RDMA WRITE
 * ONLY with immediate), 4096 bytes of payload (the largest path MTU, no
 * pad) and the ICRC: 4198 bytes, rounded up to 17 x 256.
 */
#define WQE_FRAME_MAX 4352u

/* ------------------------------------------------------------------------ */
/* Wire opcodes (BTH byte 0): transport base + operation.                   */

enum wqe_wire_opcode {
	WQE_WIRE_RC_SEND_FIRST = 0x00,
	WQE_WIRE_RC_SEND_MIDDLE = 0x01,
	WQE_WIRE_RC_SEND_LAST = 0x02,
	WQE_WIRE_RC_SEND_LAST_WITH_IMMEDIATE = 0x03,
	WQE_WIRE_RC_SEND_ONLY = 0x04,
	WQE_WIRE_RC_SEND_ONLY_WITH_IMMEDIATE = 0x05,
	WQE_WIRE_RC_RDMA_WRITE_FIRST = 0x06,
	WQE_WIRE_RC_RDMA_WRITE_MIDDLE = 0x07,
	WQE_WIRE_RC_RDMA_WRITE_LAST = 0x08,
	WQE_WIRE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09,
	WQE_WIRE_RC_RDMA_WRITE_ONLY = 0x0a,
	WQE_WIRE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0b,
	WQE_WIRE_RC_RDMA_READ_REQUEST = 0x0c,
	WQE_WIRE_RC_RDMA_READ_RESPONSE_FIRST = 0x0d,
	WQE_WIRE_RC_RDMA_READ_RESPONSE_MIDDLE = 0x0e,
	WQE_WIRE_RC_RDMA_READ_RESPONSE_LAST = 0x0f,
	WQE_WIRE_RC_RDMA_READ_RESPONSE_ONLY = 0x10,
	WQE_WIRE_RC_ACKNOWLEDGE = 0x11,
	WQE_WIRE_RC_ATOMIC_ACKNOWLEDGE = 0x12,
	WQE_WIRE_RC_COMPARE_SWAP = 0x13,
	WQE_WIRE_RC_FETCH_ADD = 0x14,
	WQE_WIRE_RC_SEND_LAST_WITH_INVALIDATE = 0x16,
	WQE_WIRE_RC_SEND_ONLY_WITH_INVALIDATE = 0x17,
	WQE_WIRE_UC_SEND_FIRST = 0x20,
	WQE_WIRE_UC_SEND_MIDDLE = 0x21,
	WQE_WIRE_UC_SEND_LAST = 0x22,
	WQE_WIRE_UC_SEND_LAST_WITH_IMMEDIATE = 0x23,
	WQE_WIRE_UC_SEND_ONLY = 0x24,
	WQE_WIRE_UC_SEND_ONLY_WITH_IMMEDIATE = 0x25,
	WQE_WIRE_UC_RDMA_WRITE_FIRST = 0x26,
	WQE_WIRE_UC_RDMA_WRITE_MIDDLE = 0x27,
	WQE_WIRE_UC_RDMA_WRITE_LAST = 0x28,
	WQE_WIRE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x29,
	WQE_WIRE_UC_RDMA_WRITE_ONLY = 0x2a,
	WQE_WIRE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x2b,
	WQE_WIRE_UD_SEND_ONLY = 0x64,
	WQE_WIRE_UD_SEND_ONLY_WITH_IMMEDIATE = 0x65,
	WQE_WIRE_CNP = 0x81,
};

/*
 * Headers after UDP, one bit each. The bit order is the wire order, so a
 * packet's headers are laid out by walking its mask from the low bit up.
 */
enum wqe_hdr {
	WQE_HDR_BTH = 1u << 0,
	WQE_HDR_DETH = 1u << 1,
	WQE_HDR_RETH = 1u << 2,
	WQE_HDR_ATOMICETH = 1u << 3,
	WQE_HDR_AETH = 1u << 4,
	WQE_HDR_ATOMICACKETH = 1u << 5,
	WQE_HDR_IMMDT = 1u << 6,
	WQE_HDR_IETH = 1u << 7,
	WQE_HDR_CNP = 1u << 8,
};
#define WQE_HDR_COUNT 9

/* Name of one header bit ("BTH", "RETH", "AtomicETH", ...) or "unknown". */
WQE_API const char *wqe_hdr_str(enum wqe_hdr h);
/* Wire size of one header bit, 0 if @h is not exactly one header. */
WQE_API uint32_t wqe_hdr_size(enum wqe_hdr h);
/* Bytes from the BTH to the payload for a header mask (sum of its sizes). */
WQE_API uint32_t wqe_hdrs_len(uint32_t mask);
/*
 * Offset of header @h from the start of the BTH in a packet carrying the
 * headers @mask; -1 if @h is not in @mask.
 */
WQE_API int wqe_hdr_offset(uint32_t mask, enum wqe_hdr h);

enum wqe_wire_transport {
	WQE_TRANSPORT_RC = 0,
	WQE_TRANSPORT_UC = 1,
	WQE_TRANSPORT_UD = 2,
	WQE_TRANSPORT_CNP = 3, /* RoCEv2 congestion notification */
};
WQE_API const char *wqe_wire_transport_str(enum wqe_wire_transport t);

/* Place of a packet in its message. One-packet operations are ONLY. */
enum wqe_wire_role {
	WQE_ROLE_FIRST = 0,
	WQE_ROLE_MIDDLE = 1,
	WQE_ROLE_LAST = 2,
	WQE_ROLE_ONLY = 3,
};
WQE_API const char *wqe_wire_role_str(enum wqe_wire_role r);

/* The operation family of a wire opcode. */
enum wqe_wire_kind {
	WQE_KIND_SEND = 0,
	WQE_KIND_RDMA_WRITE = 1,
	WQE_KIND_READ_REQUEST = 2,
	WQE_KIND_READ_RESPONSE = 3,
	WQE_KIND_ACK = 4,
	WQE_KIND_ATOMIC_ACK = 5,
	WQE_KIND_COMPARE_SWAP = 6,
	WQE_KIND_FETCH_ADD = 7,
	WQE_KIND_CNP = 8,
};
WQE_API const char *wqe_wire_kind_str(enum wqe_wire_kind k);

/* What the opcode table says of one wire opcode. */
struct wqe_wire_opinfo {
	const char *name;    /* "RC_SEND_ONLY", as wqe_wire_opcode_str() */
	uint32_t hdrs;	     /* WQE_HDR_* mask, BTH included */
	uint32_t hdr_len;    /* bytes from the BTH to the payload */
	uint8_t transport;   /* enum wqe_wire_transport */
	uint8_t role;	     /* enum wqe_wire_role */
	uint8_t kind;	     /* enum wqe_wire_kind */
	uint8_t has_payload; /* 1 if the packet may carry payload */
	uint8_t is_response; /* 1 if the responder sends it (ACK, READ response) */
};

/*
 * wqe_wire_opcode_info - look a wire opcode up in the opcode table.
 * Fills *@out and returns 0, or returns -1 (leaving *@out untouched) if
 * @op is not an opcode this model carries (RD, reserved values, ...).
 */
WQE_API int wqe_wire_opcode_info(uint8_t op, struct wqe_wire_opinfo *out);

/*
 * The name of a wire opcode: "RC_SEND_ONLY", "UC_RDMA_WRITE_ONLY",
 * "UD_SEND_ONLY_WITH_IMMEDIATE", "CNP", ...; "unknown" if not in the table.
 */
WQE_API const char *wqe_wire_opcode_str(uint8_t op);

/* ------------------------------------------------------------------------ */
/* Header structs and their codecs.                                         */
/*
 * Every encoder writes exactly WQE_*_LEN bytes to @buf (which must hold at
 * least that many; fields wider than their wire width are masked to it,
 * reserved fields are written from the struct) and returns that length,
 * or 0 if @cap is too small (nothing written). Every decoder reads exactly
 * WQE_*_LEN bytes and returns that length, or 0 if @len is too small.
 */

/* Base Transport Header, 12 bytes. */
struct wqe_bth {
	uint8_t opcode;
	uint8_t se;	/* 1 bit: solicited event */
	uint8_t migreq; /* 1 bit */
	uint8_t padcnt; /* 2 bits */
	uint8_t tver;	/* 4 bits: transport version, 0 */
	uint16_t pkey;
	uint8_t fecn;	 /* 1 bit */
	uint8_t becn;	 /* 1 bit */
	uint8_t resv6;	 /* 6 bits */
	uint32_t destqp; /* 24 bits */
	uint8_t ackreq;	 /* 1 bit */
	uint8_t resv7;	 /* 7 bits */
	uint32_t psn;	 /* 24 bits */
};
WQE_API size_t wqe_bth_encode(const struct wqe_bth *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_bth_decode(const uint8_t *buf, size_t len, struct wqe_bth *h);

/* RDMA Extended Transport Header, 16 bytes. */
struct wqe_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
};
WQE_API size_t wqe_reth_encode(const struct wqe_reth *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_reth_decode(const uint8_t *buf, size_t len, struct wqe_reth *h);

/* ACK Extended Transport Header, 4 bytes. */
struct wqe_aeth {
	uint8_t syndrome;
	uint32_t msn; /* 24 bits */
};
WQE_API size_t wqe_aeth_encode(const struct wqe_aeth *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_aeth_decode(const uint8_t *buf, size_t len, struct wqe_aeth *h);

/* Atomic Extended Transport Header, 28 bytes. */
struct wqe_atomiceth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add; /* swap value (COMPARE_SWAP) or addend (FETCH_ADD) */
	uint64_t compare;
};
WQE_API size_t wqe_atomiceth_encode(const struct wqe_atomiceth *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_atomiceth_decode(const uint8_t *buf, size_t len, struct wqe_atomiceth *h);

/* Atomic ACK Extended Transport Header, 8 bytes. */
struct wqe_atomicacketh {
	uint64_t orig; /* the remote value before the atomic */
};
WQE_API size_t wqe_atomicacketh_encode(const struct wqe_atomicacketh *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_atomicacketh_decode(const uint8_t *buf, size_t len, struct wqe_atomicacketh *h);

/*
 * Immediate Data, 4 bytes. @imm is the four wire bytes read big-endian: a
 * verbs imm_data (a __be32 kept in network order) of bytes 01 02 03 04 is
 * imm = 0x01020304 here.
 */
struct wqe_immdt {
	uint32_t imm;
};
WQE_API size_t wqe_immdt_encode(const struct wqe_immdt *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_immdt_decode(const uint8_t *buf, size_t len, struct wqe_immdt *h);

/* Invalidate Extended Transport Header, 4 bytes. */
struct wqe_ieth {
	uint32_t rkey;
};
WQE_API size_t wqe_ieth_encode(const struct wqe_ieth *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_ieth_decode(const uint8_t *buf, size_t len, struct wqe_ieth *h);

/* Datagram Extended Transport Header, 8 bytes. */
struct wqe_deth {
	uint32_t qkey;
	uint8_t resv8;
	uint32_t srcqp; /* 24 bits */
};
WQE_API size_t wqe_deth_encode(const struct wqe_deth *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_deth_decode(const uint8_t *buf, size_t len, struct wqe_deth *h);

/* The 16 reserved bytes after the BTH of a CNP. */
struct wqe_cnp {
	uint8_t rsvd[16];
};
WQE_API size_t wqe_cnp_encode(const struct wqe_cnp *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_cnp_decode(const uint8_t *buf, size_t len, struct wqe_cnp *h);

/* ------------------------------------------------------------------------ */
/* AETH syndromes: bit 7 reserved, bits 6:5 type, bits 4:0 value.           */

enum wqe_aeth_type {
	WQE_AETH_TYPE_ACK = 0,	   /* value = credit count */
	WQE_AETH_TYPE_RNR_NAK = 1, /* value = RNR timer code */
	WQE_AETH_TYPE_RESERVED = 2,
	WQE_AETH_TYPE_NAK = 3, /* value = NAK code */
};

enum wqe_aeth_syndrome {
	WQE_AETH_ACK = 0x00,	       /* | credits (0-31) */
	WQE_AETH_ACK_UNLIMITED = 0x1f, /* what rxe always sends */
	WQE_AETH_RNR_NAK = 0x20,       /* | timer code (0-31) */
	WQE_AETH_NAK_PSN_SEQ_ERR = 0x60,
	WQE_AETH_NAK_INVALID_REQ = 0x61,
	WQE_AETH_NAK_REM_ACCESS_ERR = 0x62,
	WQE_AETH_NAK_REM_OP_ERR = 0x63,
	WQE_AETH_NAK_INVALID_RD_REQ = 0x64,
};

/* The type (bits 6:5) of a syndrome. */
WQE_API enum wqe_aeth_type wqe_aeth_type(uint8_t syndrome);
/* The value (bits 4:0): credits, RNR timer code or NAK code. */
WQE_API uint8_t wqe_aeth_value(uint8_t syndrome);
/* The syndrome of an ACK with @credits (masked to 5 bits). */
WQE_API uint8_t wqe_aeth_ack(uint8_t credits);
/* The syndrome of an RNR NAK with RNR timer code @timer (masked to 5 bits). */
WQE_API uint8_t wqe_aeth_rnr_nak(uint8_t timer);
/*
 * Name of a syndrome: "ACK", "RNR_NAK", "NAK_PSN_SEQ_ERR",
 * "NAK_INVALID_REQ", "NAK_REM_ACCESS_ERR", "NAK_REM_OP_ERR",
 * "NAK_INVALID_RD_REQ", or "reserved" for anything else.
 */
WQE_API const char *wqe_aeth_syndrome_str(uint8_t syndrome);

/* ------------------------------------------------------------------------ */
/* Whole packets.                                                           */

/* Build options (struct wqe_pkt.opts). wqe_pkt_parse() sets them so that
 * building the parsed struct reproduces the frame it came from. */
enum wqe_pkt_opt {
	/* Compute the UDP checksum (else write udp_csum as given; 0 = none). */
	WQE_PKT_OPT_UDP_CSUM = 1u << 0,
	/* Write ip_csum as given instead of computing the IPv4 checksum. */
	WQE_PKT_OPT_RAW_IP_CSUM = 1u << 1,
	/* Write bth.padcnt and that many pad bytes as given, instead of
	 * (-payload_len) & 3. */
	WQE_PKT_OPT_RAW_PADCNT = 1u << 2,
	/* Write icrc as given instead of computing the ICRC. */
	WQE_PKT_OPT_RAW_ICRC = 1u << 3,
};

/*
 * A decoded RoCEv2 packet, and the fields a packet is built from.
 * Addresses are GIDs; an IPv4 address is ::ffff:a.b.c.d.
 */
struct wqe_pkt {
	/* L2 */
	uint8_t has_eth; /* parse: 1 if the frame had an Ethernet header */
	uint8_t dmac[6];
	uint8_t smac[6];
	uint8_t has_vlan;   /* one 802.1Q (or 802.1ad) tag present */
	uint16_t vlan_tpid; /* WQE_ETHERTYPE_VLAN (0 builds as it) or _QINQ */
	uint16_t vlan_tci;  /* PCP 3 | DEI 1 | VID 12 */
	uint16_t ethertype; /* parse: WQE_ETHERTYPE_IPV4 or _IPV6; build derives it */
	/* L3 */
	uint8_t ipver; /* 4 or 6 */
	union wqe_gid src;
	union wqe_gid dst;
	uint8_t tos;	     /* IPv4 TOS or IPv6 traffic class (DSCP | ECN) */
	uint8_t ttl;	     /* IPv4 TTL or IPv6 hop limit */
	uint32_t flow_label; /* IPv6, 20 bits */
	uint16_t ip_id;	     /* IPv4 identification */
	uint8_t ip_flags;    /* IPv4 flags, 3 bits: 2 = DF */
	uint8_t ip_proto;    /* parse: 17 (IPv4 protocol / IPv6 next header) */
	uint16_t ip_len;     /* IPv4 total length or IPv6 payload length */
	uint16_t ip_csum;    /* IPv4 header checksum */
	uint8_t ip_csum_ok;  /* parse: IPv4 checksum verifies (1 for IPv6) */
	/* L4 */
	uint16_t sport;
	uint16_t dport; /* 4791; build writes 4791 when 0 */
	uint16_t udp_len;
	uint16_t udp_csum;
	uint8_t udp_csum_ok; /* parse: checksum is 0 (IPv4: none) or verifies */
	/* InfiniBand transport */
	struct wqe_bth bth;
	uint32_t hdrs; /* parse: WQE_HDR_* mask from the opcode table */
	struct wqe_reth reth;
	struct wqe_aeth aeth;
	struct wqe_atomiceth atomiceth;
	struct wqe_atomicacketh atomicacketh;
	struct wqe_immdt immdt;
	struct wqe_ieth ieth;
	struct wqe_deth deth;
	struct wqe_cnp cnp;
	/* parse: payload and pad inside the parsed buffer (pad excluded) */
	const uint8_t *payload;
	uint32_t payload_len;
	const uint8_t *pad; /* bth.padcnt bytes; build: when set (a parsed packet)
			     * and the pad count is the same, these bytes are
			     * written as the pad, else zeros */
	uint32_t icrc;	    /* the wire bytes read little-endian */
	uint8_t icrc_ok;    /* parse: the ICRC verifies */
	uint32_t opts;	    /* enum wqe_pkt_opt */
};

/* Errors of wqe_pkt_parse*() and wqe_pkt_build*(), all negative. */
enum wqe_pkt_err {
	WQE_PKT_OK = 0,
	/* The frame is not RoCEv2 (found before the UDP port was seen). */
	WQE_PKT_ETRUNC_ETH = -1,  /* shorter than the Ethernet (+VLAN) header */
	WQE_PKT_ENOT_IP = -2,	  /* EtherType neither IPv4 nor IPv6 */
	WQE_PKT_ETRUNC_IP = -3,	  /* shorter than the IP header */
	WQE_PKT_EIP_VERSION = -4, /* IP version does not match the EtherType */
	WQE_PKT_EIP_OPTIONS = -5, /* IPv4 IHL other than 5 */
	WQE_PKT_EIP_FRAG = -6,	  /* an IPv4 fragment */
	WQE_PKT_ENOT_UDP = -7,	  /* not UDP (IPv6: extension headers too) */
	WQE_PKT_ETRUNC_UDP = -8,  /* shorter than the UDP header */
	WQE_PKT_ENOT_ROCE = -9,	  /* UDP destination port not 4791 */
	/* A malformed RoCEv2 packet. */
	WQE_PKT_EIP_LEN = -10,	   /* IP length below the headers or past the frame */
	WQE_PKT_EUDP_LEN = -11,	   /* UDP length does not match the IP length */
	WQE_PKT_ETRUNC_BTH = -12,  /* UDP payload shorter than the BTH */
	WQE_PKT_EOPCODE = -13,	   /* opcode not in the table */
	WQE_PKT_ETRUNC_HDRS = -14, /* no room for the opcode's headers + ICRC */
	WQE_PKT_EPAD = -15,	   /* pad count larger than what follows the headers */
	WQE_PKT_EALIGN = -16,	   /* BTH..ICRC not a multiple of 4 bytes */
	WQE_PKT_EPAYLOAD = -17,	   /* payload on an opcode that carries none */
	/* Build errors. */
	WQE_PKT_ENOSPC = -18, /* output buffer too small */
	WQE_PKT_EINVAL = -19, /* bad ipver, opcode, or lengths over 64 KiB */
};

/* A static string for a wqe_pkt_err value ("unknown error" otherwise). */
WQE_API const char *wqe_pkt_err_str(int err);
/* 1 if @err means "not a RoCEv2 packet" (ETRUNC_ETH..ENOT_ROCE), else 0. */
WQE_API int wqe_pkt_err_not_roce(int err);

/*
 * wqe_pkt_parse - decode an Ethernet frame (no FCS) down to the ICRC.
 * @frame, @len: the frame; bytes after the IP datagram (Ethernet padding)
 *               are ignored. Nothing at or past @len is ever read.
 * @out:         filled; payload and pad point into @frame.
 *
 * Checks every length: IP against the frame, UDP against IP, the opcode
 * table's header sizes, pad count against what follows the headers, 4 bytes
 * of ICRC, 4-byte alignment, no payload on opcodes without one. It does not
 * judge field values (TVer, P_Key, QPN): that is the responder's job. A bad
 * ICRC or checksum is not an error: icrc_ok / ip_csum_ok / udp_csum_ok say.
 * Returns 0, or a negative enum wqe_pkt_err (then *@out is unspecified).
 */
WQE_API int wqe_pkt_parse(const uint8_t *frame, size_t len, struct wqe_pkt *out);

/*
 * wqe_pkt_parse_ip - as wqe_pkt_parse() for a frame that starts at the IP
 * header (DLT_RAW captures, raw sockets). has_eth is 0.
 */
WQE_API int wqe_pkt_parse_ip(const uint8_t *ip, size_t len, struct wqe_pkt *out);

/*
 * wqe_pkt_parse_bth - decode a UDP payload (BTH to ICRC), as a UDP socket
 * delivers it. The caller sets the addressing fields of *@out first (ipver,
 * src, dst, sport, dport, ip_id, ip_flags); this call sets udp_len and
 * ip_len from @len, decodes the BTH onward, and checks the ICRC against
 * wqe_icrc_udp() over those fields. Errors as wqe_pkt_parse() from
 * WQE_PKT_ETRUNC_BTH on; WQE_PKT_EINVAL for a bad ipver or @len > 65507.
 */
WQE_API int wqe_pkt_parse_bth(const uint8_t *bth, size_t len, struct wqe_pkt *out);

/* Where wqe_pkt_build_hdrs() put things, for wqe_pkt_build_finish(). */
struct wqe_pkt_layout {
	size_t l3_off;	    /* IP header */
	size_t l4_off;	    /* UDP header */
	size_t bth_off;	    /* BTH */
	size_t payload_off; /* first payload byte */
	size_t icrc_off;    /* ICRC, after the pad */
	size_t frame_len;   /* the whole frame */
	uint32_t payload_len;
	uint32_t icrc; /* the ICRC to write with WQE_PKT_OPT_RAW_ICRC */
	uint32_t opts;
	uint8_t ipver;
	uint8_t padcnt;
};

/*
 * wqe_pkt_frame_len - bytes of the frame wqe_pkt_build() would write for
 * @p and @payload_len, or 0 if @p cannot be built (as WQE_PKT_EINVAL).
 */
WQE_API size_t wqe_pkt_frame_len(const struct wqe_pkt *p, uint32_t payload_len);

/*
 * wqe_pkt_build_hdrs - first half of a zero-copy build: write every header
 * of the frame for @p carrying @payload_len payload bytes into @out, and
 * the zero pad after the payload's place, and fill *@lay.
 * The caller then writes the payload (once, straight from its buffers) at
 * @out + lay->payload_off, and calls wqe_pkt_build_finish().
 *
 * The headers written are those the opcode table lists for p->bth.opcode
 * (p->hdrs is ignored), in wire order, with lengths computed: IPv4 (IHL 5,
 * tos, id, ip_flags, ttl, protocol 17, checksum computed unless
 * WQE_PKT_OPT_RAW_IP_CSUM) or IPv6 (tos as traffic class, flow_label, ttl as
 * hop limit, next header 17), UDP (sport, dport), BTH with padcnt =
 * (-payload_len) & 3 unless WQE_PKT_OPT_RAW_PADCNT. The EtherType follows
 * ipver; a VLAN tag is written when has_vlan.
 * Returns 0; WQE_PKT_EINVAL (ipver not 4/6, opcode not in the table,
 * payload on an opcode without one, datagram over 65535 bytes) or
 * WQE_PKT_ENOSPC (@cap < frame length). On error nothing meaningful is
 * written to @out.
 */
WQE_API int wqe_pkt_build_hdrs(const struct wqe_pkt *p, uint32_t payload_len, uint8_t *out,
			       size_t cap, struct wqe_pkt_layout *lay);

/*
 * wqe_pkt_build_finish - second half: compute the ICRC over the frame at
 * @frame laid out as *@lay (payload in place) and write it, then the UDP
 * checksum when WQE_PKT_OPT_UDP_CSUM is set. Cannot fail.
 */
WQE_API void wqe_pkt_build_finish(uint8_t *frame, const struct wqe_pkt_layout *lay);

/*
 * wqe_pkt_build - build a whole frame in one call: wqe_pkt_build_hdrs(),
 * copy @payload_len bytes from @payload, wqe_pkt_build_finish().
 * *@out_len gets the frame length. Returns as wqe_pkt_build_hdrs().
 */
WQE_API int wqe_pkt_build(const struct wqe_pkt *p, const uint8_t *payload, uint32_t payload_len,
			  uint8_t *out, size_t cap, size_t *out_len);

/* ------------------------------------------------------------------------ */
/* ICRC                                                                     */

/*
 * wqe_icrc - the ICRC of a packet: zlib CRC-32 over 8 bytes of 0xFF, the IP
 * header with IPv4 TOS, TTL and checksum (IPv6 traffic class, flow label,
 * hop limit) set to ones, the UDP header with its checksum set to ones, the
 * BTH with byte 4 (FECN, BECN, resv6) set to ones, then everything after
 * the BTH up to the ICRC. The headers are masked in a copy (of the whole
 * packet when it is short); the rest is read in place.
 * @l3:    the IP header (IPv4 without options).
 * @len:   bytes from the IP header to the ICRC (exclusive).
 * @ipver: 4 or 6.
 * Returns the CRC value, to be stored least-significant byte first; 0 if
 * @ipver is bad or @len is shorter than IP + UDP + BTH.
 */
WQE_API uint32_t wqe_icrc(const uint8_t *l3, size_t len, int ipver);

/*
 * wqe_icrc_inplace - wqe_icrc() of a packet the caller may write: the
 * masked fields are set to ones in @l3 itself for the computation and
 * given back their bytes before it returns, so nothing is copied. The
 * buffer must not be read by anyone else meanwhile. Same result and
 * errors as wqe_icrc().
 */
WQE_API uint32_t wqe_icrc_inplace(uint8_t *l3, size_t len, int ipver);

/*
 * wqe_icrc_udp - the ICRC of a packet received on (or sent from) a UDP
 * socket, which sees no IP or UDP header: they are rebuilt from @p
 * (ipver, src, dst, ip_id, ip_flags, sport, dport; lengths from @len,
 * protocol 17; masked fields do not matter).
 * @bth, @len: the UDP payload from the BTH up to the ICRC (exclusive).
 * Returns the CRC, or 0 if p->ipver is bad or @len < 12 or > 65503.
 */
WQE_API uint32_t wqe_icrc_udp(const struct wqe_pkt *p, const uint8_t *bth, size_t len);

/*
 * wqe_icrc_find_ipv4_id - the IPv4 identification and DF bit an arriving
 * packet's ICRC was computed over, for a receiver that cannot see them (a
 * UDP socket hands over the payload only). The ICRC covers both, and a
 * sender such as the Linux kernel's rxe writes nonzero identifications (a
 * counter per destination). CRC-32 is linear over GF(2): the packet's ICRC
 * with identification x and DF d differs from its ICRC with 0 and DF set
 * by a linear function of (x, d), which is inverted.
 * @l3, @len: the packet from its IPv4 header (no options) to the ICRC
 *            (exclusive); its identification and flags bytes are not read.
 * @icrc:     the ICRC that came with it (its wire bytes read little-endian,
 *            as wqe_icrc() returns it).
 * @id, @df:  on success the identification and DF (1 set, 0 clear), with
 *            MF clear and fragment offset 0.
 * Returns 1 if such an identification and DF exist (there is at most one),
 * 0 if none does (the packet was damaged), -1 for a NULL argument or @len
 * shorter than IPv4 + UDP + BTH.
 * Taking the identification from the ICRC costs the check 17 of its 32
 * bits: a damaged packet passes for an intact one with probability 2^-15
 * instead of 2^-32. Use it only where the identification cannot be seen.
 * Cost: one ICRC of the packet, and when the answer is not 0 with DF set
 * 17 CRCs of @len - 8 bytes more. Thread-safe.
 */
WQE_API int wqe_icrc_find_ipv4_id(const uint8_t *l3, size_t len, uint32_t icrc, uint16_t *id,
				  int *df);

/* ------------------------------------------------------------------------ */
/* Printing                                                                 */

/*
 * wqe_pkt_print - print a parsed packet to @f, one line per header:
 * ETH (when has_eth), IPv4/IPv6, UDP, BTH with the opcode name, each
 * extension header with its values, the payload and pad lengths, and the
 * ICRC with its verdict ("ok" or "BAD"). Every line starts with two spaces.
 */
WQE_API void wqe_pkt_print(FILE *f, const struct wqe_pkt *p);

/* ------------------------------------------------------------------------ */
/* Captures (libpcap). Not thread-safe per object; distinct objects are.    */

struct wqe_pcap;

/*
 * wqe_pcap_open - create (truncate) a pcap file for Ethernet frames
 * (DLT_EN10MB, nanosecond timestamps, snap length 262144).
 * Returns the writer, or NULL with errno set (from fopen, or ENOMEM/EIO).
 */
WQE_API struct wqe_pcap *wqe_pcap_open(const char *path);

/*
 * wqe_pcap_write - append one frame with timestamp @ts_ns (nanoseconds
 * since the epoch, or any monotonic origin) and flush, so that a run that
 * stops half-way leaves a readable file. Frames longer than the snap length
 * are cut (their original length is recorded).
 * Returns 0, or -1 with errno set on a write error.
 */
WQE_API int wqe_pcap_write(struct wqe_pcap *w, const uint8_t *frame, size_t len, uint64_t ts_ns);

/* wqe_pcap_close - flush and close; @w may be NULL. Returns 0 or -1 (errno). */
WQE_API int wqe_pcap_close(struct wqe_pcap *w);

struct wqe_pcap_reader;

/*
 * wqe_pcap_reader_open - open any capture file libpcap reads (pcap or
 * pcapng). On failure returns NULL and writes libpcap's message to @err
 * (@errlen bytes, NUL-terminated) when @err is not NULL.
 */
WQE_API struct wqe_pcap_reader *wqe_pcap_reader_open(const char *path, char *err, size_t errlen);

/* The capture's link type (a DLT_* value of pcap/dlt.h). */
WQE_API int wqe_pcap_reader_linktype(const struct wqe_pcap_reader *r);

/*
 * wqe_pcap_read - the next frame: *@frame points at its captured bytes
 * (valid until the next call), *@len their number, *@ts_ns its timestamp.
 * Returns 1 for a frame, 0 at the end of the file, -1 on a read error.
 */
WQE_API int wqe_pcap_read(struct wqe_pcap_reader *r, const uint8_t **frame, size_t *len,
			  uint64_t *ts_ns);

/* wqe_pcap_reader_close - close; @r may be NULL. */
WQE_API void wqe_pcap_reader_close(struct wqe_pcap_reader *r);

/*
 * wqe_pkt_parse_link - as wqe_pkt_parse() for a frame of capture link type
 * @linktype: DLT_EN10MB (802.1Q tags included), DLT_RAW, DLT_IPV4,
 * DLT_IPV6, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_NULL/DLT_LOOP. Another
 * link type gives WQE_PKT_ENOT_IP.
 */
WQE_API int wqe_pkt_parse_link(int linktype, const uint8_t *frame, size_t len, struct wqe_pkt *out);

/* Options of wqe_dissect_file(). */
enum wqe_dissect_flags {
	WQE_DISSECT_HEX = 1u << 0, /* also dump each payload in hex */
};

/*
 * wqe_dissect_file - print every RoCEv2 packet of a capture, decoded (a
 * "frame N" line, then wqe_pkt_print()); frames that are not RoCEv2 get a
 * one-line note and are skipped; malformed RoCEv2 frames and bad ICRCs are
 * named, and a summary line ends the output.
 * @path:  the capture (any format and link type wqe_pkt_parse_link() reads).
 * @out:   where to print.
 * @flags: enum wqe_dissect_flags.
 * Returns 0 if every RoCEv2 frame parsed and its ICRC verifies, 1 if any
 * did not, 2 if the file cannot be read (a message goes to @out).
 */
WQE_API int wqe_dissect_file(const char *path, FILE *out, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* WQE_WIRE_H */
