/* SPDX-License-Identifier: MIT */
/*
 * wqe/packetize.h - the pure packetizer: one decoded WQE (struct wqe_desc)
 * in, the exact RoCEv2 request packets it must produce out.
 *
 * This is the operation catalog on the wire: the path MTU splits a SEND or
 * RDMA WRITE into FIRST/MIDDLE/LAST packets or one ONLY packet; the
 * _WITH_IMMEDIATE and _WITH_INVALIDATE forms appear only on LAST and ONLY;
 * an RDMA READ is one request that consumes one PSN per response packet it
 * asks for; an atomic is always one packet. The engine's requester uses
 * this same code, so a bench calling it directly sees exactly the packets
 * a running endpoint sends.
 *
 * Threading: pure; an iterator is used by one thread at a time.
 */
#ifndef WQE_PACKETIZE_H
#define WQE_PACKETIZE_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/desc.h"
#include "wqe/types.h"
#include "wqe/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A long RC message asks for an acknowledgement every this many packets
 * (rxe uses about 66, RXE_MAX_PKT_PER_ACK + 2), besides its last packet. */
#define WQE_PKTS_PER_ACKREQ 64u

/* One piece of payload, already resolved to host memory. */
struct wqe_iov {
	const uint8_t *base;
	uint32_t len;
};

/*
 * What the packetizer needs of the QP and its path. For RC and UC every
 * field is used; for UD the destination (dmac, dgid, udp_sport, tclass,
 * hop_limit, flow_label, dest_qpn) comes from the WQE's datagram segment
 * and those fields here are ignored, and qkey is the QP's Q_Key, used when
 * the WQE's Q_Key has its most significant bit set (IBTA 10.2.5).
 */
struct wqe_pktz_qp {
	enum wqe_qp_type type;
	uint32_t qpn;        /* source QP (DETH) */
	uint32_t dest_qpn;   /* RC/UC */
	enum wqe_mtu mtu;    /* path MTU (UD: the largest message) */
	uint16_t pkey;
	uint32_t qkey;       /* UD */
	uint8_t smac[6];
	union wqe_gid sgid;
	uint8_t dmac[6];
	union wqe_gid dgid;
	uint16_t udp_sport;
	uint8_t tclass;
	uint8_t hop_limit;
	uint32_t flow_label; /* IPv6 only */
};

/* Ethernet 14 + IPv6 40 + UDP 8: the headers a template holds. */
#define WQE_PKTZ_TMPL_MAX 62u

/*
 * A cache of the Ethernet, IP and UDP headers of the last packet built on
 * some path, for iterators that wqe_pktz_use_tmpl() points at it. A packet
 * whose path (MACs, GIDs, traffic class, hop limit, flow label) is the
 * template's copies those headers and fills in the lengths, the IPv4
 * identification and checksum and the UDP source port, instead of building
 * them field by field; a packet on another path is built in full and
 * becomes the template. Frames are byte for byte the same either way.
 * Zero it before first use; the fields are the packetizer's.
 */
struct wqe_pktz_tmpl {
	uint8_t valid;
	uint8_t ipver;
	uint8_t len;          /* bytes of hdr: up to the BTH */
	uint8_t tclass;
	uint8_t hop_limit;
	uint32_t flow_label;
	uint8_t dmac[6];
	uint8_t smac[6];
	union wqe_gid sgid;
	union wqe_gid dgid;
	uint32_t ip_sum;      /* IPv4: header sum with length, id, checksum 0 */
	uint8_t hdr[64];      /* WQE_PKTZ_TMPL_MAX used; copied as 64 */
};

/* The state of expanding one WQE; lives wherever the caller likes. */
struct wqe_pktz {
	struct wqe_pktz_qp qp;
	const struct wqe_desc *d;
	const struct wqe_iov *iov;
	uint32_t niov;
	uint32_t first_psn;
	uint32_t npkts;    /* request packets the message is */
	uint32_t npsn;     /* PSNs the message consumes */
	uint32_t next;     /* index of the next packet */
	uint64_t off;      /* payload bytes already packetized */
	uint32_t iov_i;
	uint32_t iov_off;
	uint16_t ip_id;    /* IPv4 identification of the next packet */
	struct wqe_pktz_tmpl *tmpl; /* wqe_pktz_use_tmpl(); NULL: none */
	int8_t tmpl_ok;    /* -1: not looked at yet, 0: no match, 1: match */
};

/*
 * wqe_pktz_init - start expanding @d.
 * @qp:        the QP facts (copied).
 * @d:         the decoded WQE; must stay valid while the iterator is used.
 * @first_psn: PSN of the first packet (24 bits).
 * @iov, @niov: the payload, in order, d->total_len bytes in all (for an
 *             inline WQE one piece at d->inline_data; for READ and atomics
 *             nothing, since they carry no payload). Must stay valid.
 * @ip_id:     IPv4 identification of the first packet (then +1 a packet).
 * Returns 0, or EINVAL if the payload pieces do not add up to total_len,
 * the MTU is not one, the op is not in the catalog, or a UD message is
 * larger than the MTU.
 */
WQE_API int wqe_pktz_init(struct wqe_pktz *z, const struct wqe_pktz_qp *qp,
			  const struct wqe_desc *d, uint32_t first_psn, const struct wqe_iov *iov,
			  uint32_t niov, uint16_t ip_id);

/*
 * wqe_pktz_use_tmpl - let the iterator use and refresh @t (see struct
 * wqe_pktz_tmpl) for the packets it builds from now on; NULL stops it.
 * @t must stay valid while the iterator is used, and be used by one thread
 * at a time.
 */
WQE_API void wqe_pktz_use_tmpl(struct wqe_pktz *z, struct wqe_pktz_tmpl *t);

/*
 * wqe_pktz_next - build the next request packet into @buf.
 * @hdrs: optional; receives the header fields of the packet.
 * Returns 1 with *@len set, 0 when every packet has been built, or
 * WQE_PKT_ENOSPC if @cap is too small (the iterator does not advance).
 */
WQE_API int wqe_pktz_next(struct wqe_pktz *z, uint8_t *buf, size_t cap, size_t *len,
			  struct wqe_pkt *hdrs);

/*
 * wqe_pktz_seek - restart at the packet whose PSN is @psn (a retry from
 * the first unacknowledged PSN). For an RDMA READ, @psn may be any PSN of
 * the request's range: the request is rebuilt for the rest of the data
 * (RETH va and length advanced by whole MTUs). Returns 0, or EINVAL if
 * @psn is outside the message.
 */
WQE_API int wqe_pktz_seek(struct wqe_pktz *z, uint32_t psn);

/* The wire opcode of packet @index of an expansion (for traces and tests),
 * or -1 if @index is past the last. */
WQE_API int wqe_pktz_opcode(const struct wqe_pktz *z, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* WQE_PACKETIZE_H */
