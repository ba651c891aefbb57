/* SPDX-License-Identifier: MIT */
/*
 * The receive fast paths (rx.c: an RDMA WRITE ONLY straight to its
 * placement, a SEND ONLY straight to its receive WQE, an ACKNOWLEDGE
 * straight to the completer) against the general path, on frames made to
 * sit at the edges of what the fast paths take.
 * From one good frame of each kind, every header field they look at is
 * changed in turn: Ethernet type and VLAN tag, IP version, options,
 * fragment bits, lengths, protocol and addresses, UDP port, length and
 * checksum, BTH opcode, version, SE, pad count, QP, P_Key and PSN, AETH
 * syndromes, RETH length, key and address, trailing bytes, truncation.
 * The IP checksum and the ICRC are then made right again, so that only
 * the change is judged (and, in their own cases, left wrong). All of it
 * over IPv4 and again over IPv6, where the IPv4 header's edits become
 * their IPv6 counterparts (payload length, next header, hop limit,
 * traffic class and flow label, an extension header) or do not apply
 * (fragments, the header checksum), and with receive WQEs in either
 * format (mlx5, rxe). Last, each good frame cut at every length, in a
 * heap block of just that size, must be taken by no path.
 *
 * Then the responder's state at the edges, for the requests: the QP still
 * in RTR (COMM_EST), a SEND or an RDMA WRITE open, UC dropping a message,
 * an outstanding PSN NAK, a zero-length request, one over the MTU, a pad
 * count larger than the payload; and for a SEND ONLY its receive WQE and
 * CQ: none posted (RNR), a bad lkey (in the first SGE or the second of
 * three), a buffer one byte too small or just large enough, a slot its
 * format refuses (mlx5: a slot of 0xff bytes, a bad lkey), the payload
 * split over three SGEs, the CQ full (the completion lost, the QP to
 * ERR), SE set on a CQ armed for solicited completions.
 *
 * Each frame goes to two contexts in the same state, one with the fast
 * paths and one without (struct nic no_fast_path): the frames they send
 * back (after a progress pass, so retransmissions a NAK causes are among
 * them), their completions (as polled and as the CQ holds them), the
 * bytes in the target region, the QP's state, the QP and port counters,
 * the responder's state (its counters, PSNs, MSN, open message, held
 * receive WQE, the states it went through), the receive queue's and the
 * CQ's counters and the timer left armed must be identical. The unchanged
 * frames, and the changes the general path also takes as good, must have
 * taken the fast path, so the comparison is not between two general
 * paths.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/csum.h"
#include "engine/nic.h"
#include "engine/resp_int.h"
#include "resp_util.h"
#include "testutil.h"
#include "wire/wire_int.h"

#define REGION 8192u
#define VA_OFF 64u
#define WLEN 64u
#define RECV_OFF 2048u /* a SEND's receive buffer in the region */
#define RECV_CAP 2048u
#define RECV_WRID 0x5e0du
#define L3 WQE_ETH_LEN
#define FRAME_ROOM 8192u

/* Both contexts of a twin run on this frozen clock: a timer a frame arms
 * (an RNR NAK's wait, a retransmit timeout) cannot come due between the
 * frame and the progress pass after it however slow the run (valgrind),
 * and its deadline can be compared. */
static uint64_t frozen_clock(void *arg)
{
	(void)arg;
	return 1000000000ull;
}

/* One region both contexts of a twin register: each is fed in turn, the
 * region restored in between. */
static uint8_t region[REGION];
static uint8_t payload[4096];

enum kind { K_WRITE_RC, K_WRITE_UC, K_SEND_RC, K_SEND_UC, K_ACK, K_COUNT };

static const char *const kind_name[K_COUNT] = {"RC WRITE ONLY", "UC WRITE ONLY", "RC SEND ONLY",
					       "UC SEND ONLY", "ACKNOWLEDGE"};

static bool is_write(enum kind k)
{
	return k == K_WRITE_RC || k == K_WRITE_UC;
}

static bool is_send(enum kind k)
{
	return k == K_SEND_RC || k == K_SEND_UC;
}

static enum wqe_qp_type kind_type(enum kind k)
{
	return k == K_WRITE_UC || k == K_SEND_UC ? WQE_QPT_UC : WQE_QPT_RC;
}

/* The opcode @rc (an RC request opcode) in @k's transport: UC's are
 * RC's in the next range of 32 (IBTA 9.2 BTH). */
static uint8_t opcode_of(enum kind k, uint8_t rc)
{
	return (uint8_t)(kind_type(k) == WQE_QPT_UC ? rc + 0x20 : rc);
}

enum edit {
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
	/* WRITE ONLY and SEND ONLY */
	E_ACKREQ_OFF,
	E_OVER_MTU,
	E_ZERO_LEN,
	E_PAD_EMPTY,
	E_QP_RTR,
	E_SEND_OPEN,
	E_WRITE_OPEN,
	E_UC_DROPPING,  /* UC */
	E_AFTER_PSN_NAK, /* RC */
	/* SEND ONLY: its receive WQE and CQ */
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
	E_COUNT
};

static const char *const edit_name[E_COUNT] = {
	"unchanged", "BTH TVer 1", "pad count 1", "pad count 3", "SE and MigReq set", "SE set",
	"FECN and BECN set", "UDP checksum not zero (wrong)", "IP options (IHL 6)",
	"IP more fragments", "IP fragment offset 8", "IP DF clear", "IP version 6 in an IPv4 header",
	"IP length 4 short", "IP length 4 long", "4 bytes after the IP packet", "last 4 bytes cut",
	"UDP length 4 long", "UDP port 4792", "IP protocol TCP", "VLAN tag", "EtherType IPv6",
	"destination IP not the port's", "source IP not the peer", "destination QP + 1",
	"P_Key 0x7fff", "opcode of the other transport", "another opcode of the same length",
	"ICRC wrong", "IP checksum wrong", "PSN + 1", "PSN - 1", "TTL and TOS changed",
	"IP length 4 short, ICRC over the whole frame", "one byte more, no pad (lengths agree)",
	"QP in ERR",
	"RETH length + 1", "RETH length - 1", "rkey + 1", "RETH VA past the region",
	"AckReq clear", "payload over the path MTU", "zero-length request",
	"pad count 1, no payload", "QP in RTR", "a SEND FIRST open before it",
	"an RDMA WRITE FIRST open before it",
	"UC dropping a message (SEND MIDDLE with none open)", "after a NAK PSN sequence error",
	"no receive WQE", "receive WQE with a bad lkey", "second of three SGEs with a bad lkey",
	"receive buffer one byte short", "receive buffer just large enough",
	"receive slot its format refuses (mlx5: all 0xff)", "payload over three SGEs", "CQ full",
	"RNR NAK", "NAK PSN sequence error", "NAK invalid request", "NAK remote access error",
	"NAK remote operational error", "NAK reserved code", "AETH reserved type",
};

/* IPv6's counterparts of the IPv4 header's edits. */
static const char *edit_label(enum edit e, bool v6)
{
	if (!v6)
		return edit_name[e];
	switch (e) {
	case E_IP_OPTS: return "hop-by-hop extension header";
	case E_IP_VER6: return "IP version 4 in an IPv6 header";
	case E_IP_LEN_SHORT: return "payload length 4 short";
	case E_IP_LEN_LONG: return "payload length 4 long";
	case E_PROTO_TCP: return "next header TCP";
	case E_ETHERTYPE_V6: return "EtherType IPv4";
	case E_TTL_TOS: return "hop limit, traffic class and flow label changed";
	case E_IP_LEN_ONLY: return "payload length 4 short, ICRC over the whole frame";
	default: return edit_name[e];
	}
}

static bool edit_applies(enum kind k, enum edit e, bool v6)
{
	if (v6 && (e == E_IP_MF || e == E_IP_FRAG_OFF || e == E_IP_DF_CLEAR || e == E_BAD_IP_CSUM))
		return false; /* no such fields */
	if (e >= E_RNR_NAK)
		return k == K_ACK;
	if (e >= E_RQ_EMPTY)
		return is_send(k);
	if (e == E_UC_DROPPING)
		return k != K_ACK && kind_type(k) == WQE_QPT_UC;
	if (e == E_AFTER_PSN_NAK)
		return k != K_ACK && kind_type(k) == WQE_QPT_RC;
	if (e >= E_ACKREQ_OFF)
		return k != K_ACK;
	if (e >= E_RETH_LONGER)
		return is_write(k);
	return true;
}

/* The frames the fast path must take: the good ones, and the changes
 * the general path takes as good too (a SEND's pad bytes are not its
 * payload; an ACKNOWLEDGE of any syndrome). */
static bool goes_fast(enum kind k, enum edit e)
{
	switch (e) {
	case E_NONE:
	case E_SE_MIG:
	case E_SE:
	case E_FECN_BECN:
	case E_TTL_TOS:
	case E_IP_DF_CLEAR:
		return true;
	case E_ACKREQ_OFF:
	case E_ZERO_LEN:
	case E_AFTER_PSN_NAK:
		return k != K_ACK;
	case E_PAD1:
	case E_PAD3:
		return is_send(k);
	case E_RQ_EXACT:
	case E_RQ_SGES:
	case E_CQ_FULL:
		return true;
	default:
		return e >= E_RNR_NAK;
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

/* Makes the IPv4 header checksum and the ICRC of the frame right again,
 * where the frame still has an IPv4 header at @l3 whose length fits
 * (@v6: fix_sums6()). */
static void fix_sums(uint8_t *f, size_t len, size_t l3, bool v6)
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

struct twin {
	struct rt t[2]; /* [0] fast paths on, [1] off */
	struct wqe_mr *mr[2];
	uint32_t sq_psn; /* of the WRITE the ACK cases acknowledge */
	uint32_t psn;	 /* of the request: the responder's expected PSN */
};

/* Feeds a request of @opcode at @psn with @len payload bytes, no AckReq. */
static void feed_req(struct rt *t, uint8_t opcode, uint32_t psn, uint32_t len)
{
	struct wqe_pkt p;

	rt_req(t, &p, opcode, psn);
	rt_feed(t, &p, payload, len);
}

/* Fills @t's CQ with the completions of SEND ONLYs from @psn on; returns
 * the PSN after them. */
static uint32_t fill_cq(struct rt *t, enum kind k, struct wqe_mr *mr, uint32_t psn)
{
	const struct cqc *cq = &t->cq->cqc;

	for (int i = 0; i < 4096 && cq->pi - atomic_load(&cq->ci) < cq->depth; i++) {
		struct wqe_sge sg = {(uint64_t)(uintptr_t)region + RECV_OFF, WLEN, mr->lkey};

		rt_post_recv(t, 1, &sg, 1);
		feed_req(t, opcode_of(k, WQE_WIRE_RC_SEND_ONLY), psn++, 16);
	}
	CHECK_EQ(cq->pi - atomic_load(&cq->ci), cq->depth);
	return psn;
}

/* Posts the receive WQE a SEND of @e finds (@fmt: its slot's format). */
static void post_recv_for(struct rt *t, enum edit e, enum wqe_format fmt, uint32_t lkey)
{
	uint64_t base = (uint64_t)(uintptr_t)region + RECV_OFF;
	struct wqe_sge sg[3] = {{base, RECV_CAP, lkey}};
	int n = 1;

	switch (e) {
	case E_RQ_BAD_LKEY:
		sg[0].lkey = lkey + 1;
		break;
	case E_RQ_SMALL:
		sg[0].length = WLEN - 1;
		break;
	case E_RQ_EXACT:
		sg[0].length = WLEN;
		break;
	case E_RQ_SGES:
	case E_RQ_BAD_SGE2:
		/* 7 + 20 + the rest, apart */
		sg[0].length = 7;
		sg[1] = (struct wqe_sge){base + 100, 20, e == E_RQ_BAD_SGE2 ? lkey + 1 : lkey};
		sg[2] = (struct wqe_sge){base + 200, RECV_CAP - 200, lkey};
		n = 3;
		break;
	default:
		break;
	}
	rt_post_recv(t, RECV_WRID, sg, n);
	if (e == E_RQ_MALFORMED) {
		struct rq_ring *rq = &t->qp->rq;
		uint8_t *slot = rq_ring_slot(rq, rq->pi - 1);
		uint32_t huge = 0xffffffffu;

		/* rxe: dma.num_sge (host order); mlx5 decodes anything, so
		 * the slot's SGEs name lkey 0xffffffff */
		if (fmt == WQE_FORMAT_RXE)
			memcpy(slot + 28, &huge, 4);
		else
			memset(slot, 0xff, rq->stride);
	}
}

/* Brings twin side @i to the responder state @e asks for, before the
 * request at w->psn (which it sets). */
static void prepare(struct twin *w, int i, enum kind k, enum edit e, enum wqe_format fmt)
{
	struct rt *t = &w->t[i];
	uint32_t psn = RT_FIRST_PSN;
	struct wqe_pkt p;

	if (e == E_QP_RTR)
		rt_reconnect(t, WQE_QPS_RTR);
	if (e == E_CQ_FULL)
		psn = fill_cq(t, k, w->mr[i], psn);
	if ((is_send(k) || e == E_SEND_OPEN) && e != E_RQ_EMPTY)
		post_recv_for(t, e, fmt, w->mr[i]->lkey);
	switch (e) {
	case E_SEND_OPEN:
		feed_req(t, opcode_of(k, WQE_WIRE_RC_SEND_FIRST), psn++, 1024);
		break;
	case E_WRITE_OPEN:
		rt_req(t, &p, opcode_of(k, WQE_WIRE_RC_RDMA_WRITE_FIRST), psn++);
		p.reth.va = (uint64_t)(uintptr_t)region + VA_OFF;
		p.reth.rkey = w->mr[i]->rkey;
		p.reth.dma_len = 2048;
		rt_feed(t, &p, payload, 1024);
		CHECK_EQ(rt_resp(t)->open, RESP_OPEN_WRITE);
		break;
	case E_UC_DROPPING:
		/* the request comes at the PSN expected still */
		feed_req(t, WQE_WIRE_UC_SEND_MIDDLE, psn, 1024);
		CHECK(rt_resp(t)->drop_msg);
		break;
	case E_AFTER_PSN_NAK:
		feed_req(t, WQE_WIRE_RC_SEND_ONLY, psn + 1, 0);
		CHECK(rt_resp(t)->sent_psn_nak);
		break;
	default:
		break;
	}
	rt_clear(t);
	/* Armed for a solicited completion: the SE cases fire it. */
	CHECK_EQ(wqe_req_notify_cq(t->cq, 1), 0);
	w->psn = psn;
}

static void twin_open(struct twin *w, enum kind k, enum edit e, bool v6, enum wqe_format fmt)
{
	for (int i = 0; i < 2; i++) {
		struct rt *t = &w->t[i];

		rt_open_format(t, kind_type(k), WQE_MTU_1024, fmt, v6);
		t->ctx->nic->no_fast_path = i == 1;
		CHECK_EQ(wqe_context_set_clock(t->ctx, frozen_clock, NULL), 0);
		w->mr[i] = rt_reg(t->pd, region, REGION,
				  WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	}
	/* Fresh contexts number alike: one frame fits both. */
	CHECK_EQ(w->mr[0]->rkey, w->mr[1]->rkey);
	CHECK_EQ(w->mr[0]->lkey, w->mr[1]->lkey);
	CHECK_EQ(wqe_qp_num(w->t[0].qp), wqe_qp_num(w->t[1].qp));
	w->psn = RT_FIRST_PSN;
	if (k != K_ACK) {
		for (int i = 0; i < 2; i++)
			prepare(w, i, k, e, fmt);
		return;
	}
	/* A signaled WRITE in flight on both, for the ACK to complete. */
	for (int i = 0; i < 2; i++) {
		struct wqe_sge sg = {(uint64_t)(uintptr_t)region, WLEN, w->mr[i]->lkey};
		struct wqe_send_wr wr, *bad = NULL;
		const uint8_t *req;
		size_t n;
		struct wqe_pkt p;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 0xacc;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = WQE_WR_RDMA_WRITE;
		wr.send_flags = WQE_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = 0x1000;
		wr.wr.rdma.rkey = 0x1234;
		CHECK_EQ(wqe_post_send(w->t[i].qp, &wr, &bad), 0);
		wqe_progress(w->t[i].ctx);
		CHECK_EQ(rt_nresp(&w->t[i]), 1);
		CHECK_EQ(wqe_link_sink_frame(w->t[i].sink, 0, &req, &n), 0);
		CHECK_EQ(wqe_pkt_parse(req, n, &p), 0);
		w->sq_psn = p.bth.psn;
		rt_clear(&w->t[i]);
	}
}

static void twin_close(struct twin *w)
{
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(wqe_dereg_mr(w->mr[i]), 0);
		rt_close(&w->t[i]);
	}
}

/* The good frame of @k, before any edit, into @f; returns its length. */
static size_t base_frame(const struct twin *w, enum kind k, enum edit e, uint8_t *f)
{
	struct wqe_pkt p;
	uint32_t plen = e == E_OVER_MTU			      ? 1024u + 4u
			: e == E_ZERO_LEN || e == E_PAD_EMPTY ? 0u
							      : WLEN;
	size_t n = 0;

	if (k == K_ACK) {
		rt_req(&w->t[0], &p, WQE_WIRE_RC_ACKNOWLEDGE, w->sq_psn);
		p.aeth.syndrome = WQE_AETH_ACK_UNLIMITED;
		p.aeth.msn = 1;
	} else if (is_send(k)) {
		rt_req(&w->t[0], &p, opcode_of(k, WQE_WIRE_RC_SEND_ONLY), w->psn);
		p.bth.ackreq = 1;
	} else {
		rt_req(&w->t[0], &p, opcode_of(k, WQE_WIRE_RC_RDMA_WRITE_ONLY), w->psn);
		p.bth.ackreq = 1;
		p.reth.va = (uint64_t)(uintptr_t)region + VA_OFF;
		p.reth.rkey = w->mr[0]->rkey;
		p.reth.dma_len = plen;
	}
	CHECK_EQ(wqe_pkt_build(&p, payload, k == K_ACK ? 0 : plen, f, FRAME_ROOM, &n), 0);
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
	case E_IP_VER6: ip[0] = (uint8_t)(0x40 | (ip[0] & 0x0f)); return true;
	case E_IP_LEN_SHORT: put_be16(ip + 4, (uint16_t)(get_be16(ip + 4) - 4)); return true;
	case E_IP_LEN_LONG: put_be16(ip + 4, (uint16_t)(get_be16(ip + 4) + 4)); return true;
	case E_PROTO_TCP: ip[6] = 6; return true;
	case E_ETHERTYPE_V6: put_be16(f + 12, 0x0800); return true;
	case E_DST_IP: ip[39] ^= 0x40; return true;
	case E_SRC_IP: ip[23] ^= 0x40; return true;
	case E_TTL_TOS:
		ip[7] = 3;                   /* hop limit */
		ip[0] = 0x6b;                /* traffic class 0xb8 */
		ip[1] = (uint8_t)(0x80 | 0x0a); /* and a flow label 0xa5432 */
		ip[2] = 0x54;
		ip[3] = 0x32;
		return true;
	case E_UNALIGNED: put_be16(ip + 4, (uint16_t)(get_be16(ip + 4) + 1)); return true;
	default: return false;
	}
}

/* Applies @e to the frame (@v6: an IPv6 one); false if the sums are to
 * stay as they are. */
static bool apply(enum kind k, enum edit e, bool v6, uint8_t *f, size_t *len)
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
		if (is_write(k))
			put_be32(ext + 12, get_be32(ext + 12) + 1);
		return true;
	}
	if (v6 && apply6(e, f, len))
		return true;
	switch (e) {
	case E_NONE: case E_OVER_MTU: case E_ZERO_LEN: break;
	/* the responder's state: prepare() */
	case E_QP_RTR: case E_SEND_OPEN: case E_WRITE_OPEN: case E_UC_DROPPING: break;
	case E_AFTER_PSN_NAK: break;
	case E_RQ_EMPTY: case E_RQ_BAD_LKEY: case E_RQ_BAD_SGE2: case E_RQ_SMALL: break;
	case E_RQ_EXACT: case E_RQ_MALFORMED: case E_RQ_SGES: case E_CQ_FULL: break;
	case E_TVER: bth[1] |= 1; break;
	case E_PAD1: bth[1] |= 0x10; break;
	case E_PAD3: bth[1] |= 0x30; break;
	case E_SE_MIG: bth[1] |= 0xc0; break;
	case E_SE: bth[1] |= 0x80; break;
	case E_PAD_EMPTY: bth[1] |= 0x10; break;
	case E_FECN_BECN: bth[4] |= 0xc0; break;
	case E_UDP_CSUM: put_be16(udp + 6, 0x1234); break;
	case E_IP_OPTS:
		insert(f, len, L3 + WQE_IPV4_LEN, nops, 4);
		ip[0] = 0x46;
		put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) + 4));
		break;
	case E_IP_MF: ip[6] |= 0x20; break;
	case E_IP_FRAG_OFF: ip[7] |= 1; break;
	case E_IP_DF_CLEAR: ip[6] &= (uint8_t)~0x40; break;
	case E_IP_VER6: ip[0] = 0x65; break;
	case E_IP_LEN_SHORT: put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) - 4)); break;
	case E_IP_LEN_LONG: put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) + 4)); break;
	case E_TRAILING: memset(f + *len, 0, 4); *len += 4; break;
	case E_TRUNCATED: *len -= 4; return false;
	case E_UDP_LEN: put_be16(udp + 4, (uint16_t)(get_be16(udp + 4) + 4)); break;
	case E_UDP_DPORT: put_be16(udp + 2, 4792); break;
	case E_PROTO_TCP: ip[9] = 6; break;
	case E_VLAN: insert(f, len, 12, vlan, 4); fix_sums(f, *len, L3 + 4, v6); return false;
	case E_ETHERTYPE_V6: put_be16(f + 12, 0x86dd); break;
	case E_DST_IP: ip[19] ^= 0x40; break;
	case E_SRC_IP: ip[15] ^= 0x40; break;
	case E_DEST_QP: put_be24(bth + 5, get_be24(bth + 5) + 1); break;
	case E_PKEY: put_be16(bth + 2, 0x7fff); break;
	case E_OPCODE_UC:
		/* RC <-> UC WRITE or SEND ONLY; an ACK as UC's SEND ONLY
		 * (no such thing as a UC ACK) */
		bth[0] = k == K_ACK ? WQE_WIRE_UC_SEND_ONLY : (uint8_t)(bth[0] ^ 0x20);
		break;
	case E_OPCODE_OTHER:
		/* WRITE ONLY with immediate's headers differ: WRITE LAST;
		 * SEND ONLY two below is SEND LAST; an ACK frame's length
		 * with a READ response's opcode (ONLY, AETH + 0 bytes) */
		bth[0] = k == K_ACK ? WQE_WIRE_RC_RDMA_READ_RESPONSE_ONLY
				    : (uint8_t)(bth[0] - WQE_WIRE_RC_RDMA_WRITE_ONLY +
						WQE_WIRE_RC_RDMA_WRITE_LAST);
		break;
	case E_BAD_ICRC: fix_sums(f, *len, L3, v6); f[*len - 1] ^= 1; return false;
	case E_BAD_IP_CSUM: fix_sums(f, *len, L3, v6); ip[10] ^= 1; return false;
	case E_PSN_NEXT: put_be24(bth + 9, (get_be24(bth + 9) + 1) & 0xffffff); break;
	case E_PSN_PREV: put_be24(bth + 9, (get_be24(bth + 9) - 1) & 0xffffff); break;
	case E_TTL_TOS: ip[8] = 3; ip[1] = 0xb8; break;
	case E_IP_LEN_ONLY:
		/* the ICRC where the frame ends, not where the IP length says */
		put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) - 4));
		put_be16(ip + 10, 0);
		put_be16(ip + 10, inet_csum(ip, WQE_IPV4_LEN));
		put_le32(f + *len - WQE_ICRC_LEN,
			 wqe_icrc(ip, *len - L3 - WQE_ICRC_LEN, 4));
		return false;
	case E_UNALIGNED:
		insert(f, len, *len - WQE_ICRC_LEN, (const uint8_t[]){0xa7}, 1);
		put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) + 1));
		put_be16(udp + 4, (uint16_t)(get_be16(udp + 4) + 1));
		if (is_write(k))
			put_be32(ext + 12, get_be32(ext + 12) + 1);
		break;
	case E_QP_ERR: break; /* one_case() moves the QPs */
	case E_RETH_LONGER: put_be32(ext + 12, get_be32(ext + 12) + 1); break;
	case E_RETH_SHORTER: put_be32(ext + 12, get_be32(ext + 12) - 1); break;
	case E_RKEY: put_be32(ext + 8, get_be32(ext + 8) + 1); break;
	case E_VA_PAST_END: put_be64(ext, get_be64(ext) + REGION - VA_OFF - 8); break;
	case E_ACKREQ_OFF: bth[8] &= 0x7f; break;
	case E_RNR_NAK: ext[0] = WQE_AETH_RNR_NAK | 3; break;
	case E_NAK_SEQ: ext[0] = WQE_AETH_NAK_PSN_SEQ_ERR; break;
	case E_NAK_INV_REQ: ext[0] = WQE_AETH_NAK_INVALID_REQ; break;
	case E_NAK_ACCESS: ext[0] = WQE_AETH_NAK_REM_ACCESS_ERR; break;
	case E_NAK_OP: ext[0] = WQE_AETH_NAK_REM_OP_ERR; break;
	case E_NAK_RESERVED: ext[0] = 0x6a; break;
	case E_AETH_RESERVED_TYPE: ext[0] = 0x40; break;
	case E_COUNT: break;
	}
	return true;
}

/* The responder's, the receive queue's and the CQ's state, by name. */
static const char *const eng_name[] = {
	"epsn", "ack_psn", "msn", "last_path", "ip_id", "open", "sent_psn_nak", "drop_msg",
	"comm_est", "wqe.valid", "wqe.ctr", "wqe.sge_i", "wqe.sge_off", "wqe.placed", "wr.va",
	"wr.rkey", "wr.len", "wr.resid", "ack_due", "ack_due_psn", "rx_requests", "rq.ci",
	"rq.pi", "cq.pi", "cq.lost", "cq.overrun", "cq.arm",
};
#define ENG_N (sizeof(eng_name) / sizeof(*eng_name))
enum { ENG_LAST_PATH = 3, ENG_COMM_EST = 8, ENG_CQ_LOST = 24, ENG_CQ_ARM = 26 };

static void eng_state(struct rt *t, uint64_t *v)
{
	const struct eng_qp *e = t->qp->qpc.eng;
	const struct eng_resp *r = &e->resp;
	const struct cqc *cq = &t->cq->cqc;
	const uint64_t s[] = {
		r->epsn, r->ack_psn, r->msn, r->last_path, r->ip_id, r->open, r->sent_psn_nak,
		r->drop_msg, r->comm_est, r->wqe.valid, r->wqe.ctr, r->wqe.sge_i, r->wqe.sge_off,
		r->wqe.placed, r->wr.va, r->wr.rkey, r->wr.len, r->wr.resid, r->ack_due,
		r->ack_due_psn, e->rx_requests, atomic_load(&t->qp->rq.ci), t->qp->rq.pi, cq->pi,
		cq->lost, cq->overrun, cq->arm,
	};

	_Static_assert(sizeof(s) / sizeof(*s) == ENG_N, "a name per value");
	memcpy(v, s, sizeof(s));
}

/* What one context made of the frame. */
struct seen {
	uint8_t mem[REGION];
	uint8_t out[4][256];
	size_t nout, outlen[4];
	struct cqe cqe[4]; /* as the frame added them to the CQ */
	uint32_t ncqe;
	struct wqe_wc wc[4];
	int nwc;
	struct wqe_qp_stats qs;
	struct wqe_port_stats ps;
	struct resp_stats rs;
	uint64_t eng[ENG_N];
	int state;
	int armed;
	uint64_t deadline;
	/* what the fast paths took of the frame */
	uint64_t fast_rx, fast_rx_acks, fast_rx_sends;
};

static void feed(struct rt *t, const uint8_t *f, size_t len, struct seen *s)
{
	struct nic *nic = t->ctx->nic;
	const struct cqc *cq = &t->cq->cqc;
	uint64_t fast_rx = nic->fast_rx, fast_acks = nic->fast_rx_acks;
	uint64_t fast_sends = nic->fast_rx_sends;
	uint32_t pi = cq->pi;
	struct wqe_qp_attr a;
	struct wqe_qp_init_attr ia;

	memset(region, 0x5c, REGION);
	memset(s, 0, sizeof(*s));
	rt_feed_raw(t, f, len);
	wqe_progress(t->ctx); /* what a NAK sends again */
	memcpy(s->mem, region, REGION);
	s->nout = rt_nresp(t);
	for (size_t i = 0; i < s->nout && i < 4; i++) {
		const uint8_t *o;
		size_t n;

		CHECK_EQ(wqe_link_sink_frame(t->sink, i, &o, &n), 0);
		CHECK(n <= sizeof(s->out[i]));
		s->outlen[i] = n;
		memcpy(s->out[i], o, n < sizeof(s->out[i]) ? n : sizeof(s->out[i]));
	}
	for (uint32_t i = pi; i != cq->pi && s->ncqe < 4; i++)
		s->cqe[s->ncqe++] = cq->ring[i & (cq->nslots - 1)];
	s->rs = rt_resp(t)->stats;
	eng_state(t, s->eng);
	s->nwc = rt_poll(t, s->wc, 4);
	CHECK_EQ(wqe_query_qp_stats(t->qp, &s->qs), 0);
	CHECK_EQ(wqe_context_port_stats(t->ctx, &s->ps), 0);
	CHECK_EQ(wqe_query_qp(t->qp, &a, 0, &ia), 0);
	s->state = (int)a.qp_state;
	s->armed = wqe_context_next_deadline(t->ctx, &s->deadline);
	s->fast_rx = nic->fast_rx - fast_rx;
	s->fast_rx_acks = nic->fast_rx_acks - fast_acks;
	s->fast_rx_sends = nic->fast_rx_sends - fast_sends;
}

/* The states the general path goes through for a SEND ONLY it completes:
 * the checks, EXECUTE and COMPLETE (RC: then ACKNOWLEDGE). */
static uint32_t send_only_path(enum kind k)
{
	uint32_t m = 0;

	for (int s = RS_CHK_PSN; s <= RS_EXECUTE; s++)
		m |= 1u << s;
	m |= 1u << RS_COMPLETE;
	if (kind_type(k) == WQE_QPT_RC)
		m |= 1u << RS_ACKNOWLEDGE;
	return m;
}

/* What the general path makes of the SEND ONLY cases, on the fast side
 * (the twins are compared besides): each case is the one it is named. */
static void check_send(enum kind k, enum edit e, enum wqe_format fmt, const struct seen *s)
{
	const uint8_t *m = s->mem + RECV_OFF;
	struct wqe_pkt p;
	int st = -1;

	switch (e) {
	case E_NONE:
	case E_SE:
	case E_RQ_EXACT:
		CHECK_EQ(s->nwc, 1);
		CHECK_EQ(s->wc[0].wr_id, RECV_WRID);
		CHECK_EQ(s->wc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(s->wc[0].opcode, WQE_WC_RECV);
		CHECK_EQ(s->wc[0].byte_len, WLEN);
		CHECK_EQ(s->ncqe, 1);
		CHECK_EQ(s->cqe[0].solicited, e == E_SE);
		/* a solicited completion fires the arm */
		CHECK_EQ(s->eng[ENG_CQ_ARM], e == E_SE ? CQ_ARM_NONE : CQ_ARM_SOLICITED);
		CHECK_EQ(m[0], 0xa7);
		CHECK_EQ(m[WLEN - 1], 0xa7);
		CHECK_EQ(m[WLEN], 0x5c);
		CHECK_EQ(s->eng[ENG_LAST_PATH], send_only_path(k));
		CHECK_EQ(s->nout, k == K_SEND_RC);
		break;
	case E_ZERO_LEN:
		CHECK_EQ(s->nwc, 1);
		CHECK_EQ(s->wc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(s->wc[0].byte_len, 0);
		CHECK_EQ(m[0], 0x5c);
		break;
	case E_PAD3:
		CHECK_EQ(s->nwc, 1);
		CHECK_EQ(s->wc[0].byte_len, WLEN - 3);
		CHECK_EQ(m[WLEN - 3], 0x5c);
		break;
	case E_RQ_SGES:
		CHECK_EQ(s->nwc, 1);
		CHECK_EQ(s->wc[0].byte_len, WLEN);
		CHECK(m[6] == 0xa7 && m[7] == 0x5c);
		CHECK(m[100] == 0xa7 && m[119] == 0xa7 && m[120] == 0x5c);
		CHECK(m[200] == 0xa7 && m[200 + WLEN - 28] == 0xa7 && m[200 + WLEN - 27] == 0x5c);
		break;
	case E_RQ_EMPTY:
		CHECK_EQ(s->nwc, 0);
		CHECK_EQ(s->nout, k == K_SEND_RC);
		if (k == K_SEND_RC) {
			CHECK_EQ(wqe_pkt_parse(s->out[0], s->outlen[0], &p), 0);
			CHECK_EQ(p.aeth.syndrome & 0xe0u, WQE_AETH_RNR_NAK);
		}
		break;
	case E_RQ_BAD_LKEY:
	case E_RQ_BAD_SGE2:
		st = WQE_WC_LOC_PROT_ERR;
		break;
	case E_RQ_SMALL:
		st = WQE_WC_LOC_LEN_ERR;
		break;
	case E_RQ_MALFORMED:
		st = fmt == WQE_FORMAT_RXE ? WQE_WC_LOC_QP_OP_ERR : WQE_WC_LOC_PROT_ERR;
		break;
	case E_CQ_FULL:
		CHECK_EQ(s->ncqe, 0);
		CHECK_EQ(s->eng[ENG_CQ_LOST] >= 1, 1);
		CHECK_EQ(s->state, WQE_QPS_ERR);
		break;
	case E_QP_RTR:
		CHECK_EQ(s->eng[ENG_COMM_EST], 1);
		break;
	default:
		break;
	}
	if (st >= 0) {
		/* the WQE in error, not a byte placed */
		CHECK(s->nwc >= 1);
		CHECK_EQ(s->wc[0].status, st);
		CHECK_EQ(rt_canary_bad(s->mem, REGION, 0, 0, 0x5c), 0);
	}
}

static void one_case(enum kind k, enum edit e, bool v6, enum wqe_format fmt)
{
	static uint8_t f[FRAME_ROOM];
	static struct seen s[2];
	struct twin w;
	size_t len;
	char what[160];

	snprintf(what, sizeof(what), "%s, %s, %s", v6 ? "IPv6" : "IPv4", wqe_format_str(fmt),
		 edit_label(e, v6));
	memset(payload, 0xa7, sizeof(payload));
	twin_open(&w, k, e, v6, fmt);
	len = base_frame(&w, k, e, f);
	if (e == E_QP_ERR)
		for (int i = 0; i < 2; i++) {
			struct wqe_qp_attr a = {.qp_state = WQE_QPS_ERR};

			CHECK_EQ(wqe_modify_qp(w.t[i].qp, &a, WQE_QP_STATE), 0);
		}
	if (apply(k, e, v6, f, &len))
		fix_sums(f, len, L3, v6);
	for (int i = 0; i < 2; i++)
		feed(&w.t[i], f, len, &s[i]);
	twin_close(&w);

#define SAME(x)                                                                              \
	do {                                                                                 \
		test_checks++;                                                               \
		if (memcmp(&s[0].x, &s[1].x, sizeof(s[0].x)))                                \
			test_fail(__FILE__, __LINE__, "%s, %s: %s differs", kind_name[k], what, \
				  #x);                                                       \
	} while (0)
	SAME(mem);
	SAME(nout);
	SAME(outlen);
	SAME(out);
	SAME(ncqe);
	SAME(cqe);
	SAME(nwc);
	SAME(wc);
	SAME(qs);
	SAME(ps);
	SAME(rs);
	SAME(state);
	SAME(armed);
	SAME(deadline);
#undef SAME
	for (size_t i = 0; i < ENG_N; i++)
		if (s[0].eng[i] != s[1].eng[i])
			test_fail(__FILE__, __LINE__, "%s, %s: %s differs: 0x%llx fast, 0x%llx not",
				  kind_name[k], what, eng_name[i], (unsigned long long)s[0].eng[i],
				  (unsigned long long)s[1].eng[i]);
	CHECK_EQ(s[1].fast_rx, 0);
	if (goes_fast(k, e)) {
		if (s[0].fast_rx != 1)
			test_fail(__FILE__, __LINE__, "%s, %s: not taken by the fast path",
				  kind_name[k], what);
		CHECK_EQ(s[0].fast_rx_acks, k == K_ACK);
		CHECK_EQ(s[0].fast_rx_sends, is_send(k));
	}
	/* The good frames did what they should. */
	if (e == E_NONE && k == K_ACK) {
		CHECK_EQ(s[0].nwc, 1);
		CHECK_EQ(s[0].wc[0].wr_id, 0xacc);
		CHECK_EQ(s[0].wc[0].status, WQE_WC_SUCCESS);
	}
	if (e == E_NONE && is_write(k))
		CHECK_EQ(s[0].mem[VA_OFF], 0xa7);
	if (is_send(k))
		check_send(k, e, fmt, &s[0]);
	/* An RNR NAK (timer code 3: 30 us) holds the WRITE back until its
	 * wait is over, on the frozen clock. */
	if (e == E_RNR_NAK && k == K_ACK) {
		CHECK_EQ(s[0].nout, 0);
		CHECK_EQ(s[0].nwc, 0);
		CHECK_EQ(s[0].armed, 1);
		CHECK_EQ(s[0].deadline, frozen_clock(NULL) + 30000u);
	}
}

/*
 * The good frame of @k cut at every length, each in a heap block of
 * exactly its size (ASan sees a read past it), fed to a context with the
 * fast paths on: none may be taken, by the fast path or at all.
 */
static void truncations(enum kind k, bool v6)
{
	static uint8_t f[FRAME_ROOM];
	struct twin w;
	size_t len;

	twin_open(&w, k, E_NONE, v6, WQE_FORMAT_MLX5);
	len = base_frame(&w, k, E_NONE, f);
	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *b = malloc(cut ? cut : 1);
		struct wqe_port_stats ps;

		CHECK(b != NULL);
		if (!b)
			break;
		memcpy(b, f, cut);
		rt_feed_raw(&w.t[0], b, cut);
		free(b);
		CHECK_EQ(w.t[0].ctx->nic->fast_rx, 0);
		CHECK_EQ(wqe_context_port_stats(w.t[0].ctx, &ps), 0);
		CHECK_EQ(ps.rx_accepted, 0);
	}
	twin_close(&w);
}

int main(void)
{
	static const enum wqe_format fmts[] = {WQE_FORMAT_MLX5, WQE_FORMAT_RXE};

	for (size_t fi = 0; fi < 2; fi++)
		for (int v6 = 0; v6 < 2; v6++)
			for (int k = 0; k < K_COUNT; k++)
				for (int e = 0; e < E_COUNT; e++)
					if (edit_applies((enum kind)k, (enum edit)e, v6))
						one_case((enum kind)k, (enum edit)e, v6, fmts[fi]);
	for (int v6 = 0; v6 < 2; v6++)
		for (int k = 0; k < K_COUNT; k++)
			truncations((enum kind)k, v6);
	return test_finish();
}
