/* SPDX-License-Identifier: MIT */
/*
 * fastpath_frames.h - the frames test_fastpath_edges.c feeds to the receive
 * fast paths and to the general path: the kinds of frame the fast paths
 * take, each one good frame built by wqe_pkt_build(), and the edits made
 * to it (a header field changed, bytes inserted or cut; the edits of the
 * responder's state are named here too, and made by the test), after which
 * the IPv4 header checksum and the ICRC are made right again.
 */
#ifndef WQE_TEST_FASTPATH_FRAMES_H
#define WQE_TEST_FASTPATH_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resp_util.h"

#define REGION	   8192u       /* the region an RDMA WRITE targets */
#define VA_OFF	   64u	       /* where in it the WRITE's RETH VA points */
#define WLEN	   64u	       /* a request's payload */
#define L3	   WQE_ETH_LEN /* the IP header, untagged */
#define FRAME_ROOM 8192u       /* a frame buffer */
#define FRAME_IMM  0xa1b2c3d4u /* a good frame's ImmDt */
#define FRAME_MTU  1024u       /* the twins' path MTU */

enum kind {
	K_WRITE_RC,
	K_WRITE_UC,
	K_SEND_RC,
	K_SEND_UC,
	K_WRITE_IMM_RC,
	K_WRITE_IMM_UC,
	K_SEND_IMM_RC,
	K_SEND_IMM_UC,
	K_ACK,
	/* the packets of a longer RDMA WRITE, no immediate */
	K_WFIRST_RC,
	K_WFIRST_UC,
	K_WMIDDLE_RC,
	K_WMIDDLE_UC,
	K_WLAST_RC,
	K_WLAST_UC,
	/* the packets of a longer SEND, no invalidate (fastpath_sends.c) */
	K_SFIRST_RC,
	K_SFIRST_UC,
	K_SMIDDLE_RC,
	K_SMIDDLE_UC,
	K_SLAST_RC,
	K_SLAST_UC,
	K_SLAST_IMM_RC,
	K_SLAST_IMM_UC,
	K_COUNT
};

extern const char *const kind_name[K_COUNT];

/* RDMA WRITE ONLY, with or without immediate (a RETH after the BTH). */
static inline bool is_write(enum kind k)
{
	return k == K_WRITE_RC || k == K_WRITE_UC || k == K_WRITE_IMM_RC || k == K_WRITE_IMM_UC;
}

/* SEND ONLY, with or without immediate. */
static inline bool is_send(enum kind k)
{
	return k == K_SEND_RC || k == K_SEND_UC || k == K_SEND_IMM_RC || k == K_SEND_IMM_UC;
}

/* RDMA WRITE FIRST, MIDDLE or LAST. */
static inline bool is_multi(enum kind k)
{
	return k >= K_WFIRST_RC && k <= K_WLAST_UC;
}

/* SEND FIRST, MIDDLE, LAST, or LAST with immediate. */
static inline bool is_send_multi(enum kind k)
{
	return k >= K_SFIRST_RC && k <= K_SLAST_IMM_UC;
}

/* With a RETH: a WRITE ONLY, a WRITE FIRST. */
static inline bool has_reth(enum kind k)
{
	return is_write(k) || k == K_WFIRST_RC || k == K_WFIRST_UC;
}

/* With an ImmDt. */
static inline bool has_imm(enum kind k)
{
	return (k >= K_WRITE_IMM_RC && k <= K_SEND_IMM_UC) || k == K_SLAST_IMM_RC ||
	       k == K_SLAST_IMM_UC;
}

/* Consumes a receive WQE (IBTA 9.7: a SEND, a WRITE with immediate). */
static inline bool takes_wqe(enum kind k)
{
	return is_send(k) || (is_write(k) && has_imm(k));
}

static inline enum wqe_qp_type kind_type(enum kind k)
{
	switch (k) {
	case K_WRITE_UC:
	case K_SEND_UC:
	case K_WRITE_IMM_UC:
	case K_SEND_IMM_UC:
	case K_WFIRST_UC:
	case K_WMIDDLE_UC:
	case K_WLAST_UC:
	case K_SFIRST_UC:
	case K_SMIDDLE_UC:
	case K_SLAST_UC:
	case K_SLAST_IMM_UC:
		return WQE_QPT_UC;
	default:
		return WQE_QPT_RC;
	}
}

/* The opcode @rc (an RC request opcode) in @k's transport: UC's are
 * RC's in the next range of 32 (IBTA 9.2 BTH). */
static inline uint8_t opcode_of(enum kind k, uint8_t rc)
{
	return (uint8_t)(kind_type(k) == WQE_QPT_UC ? rc + 0x20 : rc);
}

enum edit {
	/* every kind */
	E_NONE,
	E_TVER,
	E_PAD1,
	E_PAD3,
	E_SE_MIG,
	E_SE,
	E_FECN_BECN,
	E_UDP_CSUM,
	E_IP_OPTS,
	E_IP_MF,
	E_IP_FRAG_OFF,
	E_IP_DF_CLEAR,
	E_IP_VER6,
	E_IP_LEN_SHORT,
	E_IP_LEN_LONG,
	E_TRAILING,
	E_TRUNCATED,
	E_UDP_LEN,
	E_UDP_DPORT,
	E_PROTO_TCP,
	E_VLAN,
	E_ETHERTYPE_V6,
	E_DST_IP,
	E_SRC_IP,
	E_DEST_QP,
	E_PKEY,
	E_OPCODE_UC,
	E_OPCODE_OTHER,
	E_BAD_ICRC,
	E_BAD_IP_CSUM,
	E_PSN_NEXT,
	E_PSN_PREV,
	E_TTL_TOS,
	E_IP_LEN_ONLY,
	E_UNALIGNED,
	E_QP_ERR,
	/* WRITE ONLY */
	E_RETH_LONGER,
	E_RETH_SHORTER,
	E_RKEY,
	E_VA_PAST_END,
	E_ZERO_LEN_BAD_RKEY,
	/* with immediate */
	E_IMM_ZERO,
	E_IMM_ONES,
	E_IMM_TOP,
	E_IMM_CUT,
	/* requests */
	E_ACKREQ_OFF,
	E_OVER_MTU,
	E_ZERO_LEN,
	E_PAD_EMPTY,
	E_HDRS_CUT, /* those with a RETH or an ImmDt */
	E_OPCODE_IMM,
	E_NO_REMOTE_WRITE,
	E_QP_RTR,
	E_SEND_OPEN,
	E_WRITE_OPEN,
	E_UC_DROPPING,	 /* UC */
	E_AFTER_PSN_NAK, /* RC */
	/* the receive WQE and CQ of a request that takes one */
	E_RQ_EMPTY,
	E_RQ_BAD_LKEY,
	E_RQ_BAD_SGE2,
	E_RQ_SMALL,
	E_RQ_EXACT,
	E_RQ_MALFORMED,
	E_RQ_SGES,
	E_CQ_FULL,
	/* ACKNOWLEDGE */
	E_RNR_NAK,
	E_NAK_SEQ,
	E_NAK_INV_REQ,
	E_NAK_ACCESS,
	E_NAK_OP,
	E_NAK_RESERVED,
	E_AETH_RESERVED_TYPE,
	/* RDMA WRITE FIRST, MIDDLE, LAST (fastpath_writes.c says which) */
	E_NOT_OPEN,
	E_PAYLOAD_SHORT,
	E_PAYLOAD_LONG,
	E_WRITE_ENDS,
	E_LAST_FULL,
	E_RETH_PAST_END,
	E_RETH_HUGE,
	E_RKEY_DEREG,
	E_RKEY_SHRUNK,
	/* SEND FIRST, MIDDLE, LAST (fastpath_sends.c says which) */
	E_LAST_ONE,
	E_RQ_SGES_EDGE,
	E_WQE_FORGOTTEN, /* the responder's state forced */
	E_MSG_LIMIT,
	E_MSG_HUGE,
	E_COUNT
};

/* What @e does, said for an IPv4 frame or (@v6) its IPv6 counterpart. */
const char *edit_label(enum edit e, bool v6);

/* The RETH length of the RDMA WRITE a FIRST, MIDDLE or LAST of @k under
 * @e belongs to: two MTUs and WLEN bytes (the LAST's), unless @e says
 * otherwise. */
uint32_t write_msg_len(enum kind k, enum edit e);

/* The length of the SEND a FIRST, MIDDLE or LAST under @e belongs to:
 * two MTUs and WLEN bytes (the LAST's), or three MTUs under E_LAST_FULL,
 * or two and one byte under E_LAST_ONE. */
uint32_t send_msg_len(enum edit e);

/* The payload a good frame of @k under @e carries (before frame_apply()):
 * WLEN bytes, or as @e asks; a FIRST or MIDDLE one MTU, a LAST what
 * remains of its message. */
uint32_t frame_payload_len(enum kind k, enum edit e);

/* What a good frame says besides its kind. */
struct frame_spec {
	uint32_t psn;		/* request: the expected PSN; ACK: the PSN acknowledged */
	uint64_t va;		/* WRITE: RETH VA */
	uint32_t rkey;		/* WRITE: RETH rkey */
	const uint8_t *payload; /* a request's (WLEN bytes, or as @e asks) */
};

/* The good frame of @k from @t's peer to @t (IPv4 or IPv6 as @t is), with
 * the payload length @e asks for (E_OVER_MTU, E_ZERO_LEN, ...), into @f
 * (FRAME_ROOM bytes); returns its length. ImmDt FRAME_IMM, AckReq set. */
size_t frame_base(const struct rt *t, enum kind k, enum edit e, const struct frame_spec *sp,
		  uint8_t *f);

/* Applies @e to the frame of @k (@v6: an IPv6 one) of *@len bytes (with
 * room for 8 more); false if the sums are to stay as they are (the edit
 * set them, or they are its point). The responder-state edits change
 * nothing. */
bool frame_apply(enum kind k, enum edit e, bool v6, uint8_t *f, size_t *len);

/* Makes the IPv4 header checksum (@v6: none) and the ICRC of the frame
 * right again, where it still has an IP header at @l3 whose length fits. */
void frame_fix_sums(uint8_t *f, size_t len, size_t l3, bool v6);

/* Where the ImmDt of a frame of @k (an IPv4 or @v6 one, untagged) is, or
 * would be: after the BTH, and the RETH of a WRITE. */
size_t frame_imm_off(enum kind k, bool v6);

#endif
