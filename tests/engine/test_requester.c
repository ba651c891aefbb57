/* SPDX-License-Identifier: MIT */
/*
 * The requester against a sink link: the packets each WQE becomes (parsed
 * back with the wire decoder: opcodes, PSNs, headers, payload bytes, ICRC),
 * send-side completions for UC and UD, the inline/DMA cost in host-memory
 * transactions, processing-time key checks (no packet, error CQE even when
 * unsignaled, QP in ERR, the rest flushed), the fence stall, and long
 * messages sent 64 packets per pass, interleaved with other QPs'.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "engine/services.h"
#include "verbs/verbs_int.h"
#include "wqe/link.h"
#include "wqe/model.h"
#include "wqe/verbs.h"
#include "wqe/wire.h"

static struct wqe_context *ctx;
static struct wqe_pd *pd, *pd2;
static struct wqe_cq *cq;
static struct wqe_link *sink;
static uint8_t src[65536];
static struct wqe_mr *mr, *mr_ro, *mr_pd2;

static struct wqe_qp *make_qp(enum wqe_qp_type t, enum wqe_mtu mtu, int sig_all)
{
	struct wqe_qp_init_attr ia;
	struct wqe_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = t;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 1;
	ia.sq_sig_all = sig_all;
	qp = wqe_create_qp(pd, &ia);
	CHECK(qp != NULL);
	CHECK_EQ(test_qp_to_rts(qp, t, 0x4242, mtu), 0);
	return qp;
}

static void sge_of(struct wqe_sge *s, const struct wqe_mr *m, size_t off, uint32_t len)
{
	s->addr = (uint64_t)(uintptr_t)m->addr + off;
	s->length = len;
	s->lkey = m->lkey;
}

static int post1(struct wqe_qp *qp, struct wqe_send_wr *wr)
{
	struct wqe_send_wr *bad = NULL;

	return wqe_post_send(qp, wr, &bad);
}

/* Parses every frame in the sink; checks ICRC; concatenates payloads. */
static size_t collect(struct wqe_pkt *pkts, size_t max, uint8_t *payload, size_t *plen)
{
	size_t n = wqe_link_sink_count(sink), off = 0;

	CHECK(n <= max);
	for (size_t i = 0; i < n && i < max; i++) {
		const uint8_t *f;
		size_t len;

		CHECK_EQ(wqe_link_sink_frame(sink, i, &f, &len), 0);
		CHECK_EQ(wqe_pkt_parse(f, len, &pkts[i]), 0);
		CHECK(pkts[i].icrc_ok);
		CHECK(pkts[i].ip_csum_ok);
		CHECK_EQ(pkts[i].dport, 4791);
		CHECK_EQ(pkts[i].udp_csum, 0);
		CHECK_EQ(pkts[i].bth.tver, 0);
		CHECK_EQ(pkts[i].bth.migreq, 0);
		CHECK_EQ(pkts[i].bth.pkey, 0xffff);
		CHECK_EQ(pkts[i].bth.padcnt, (4 - pkts[i].payload_len % 4) % 4);
		if (payload) {
			memcpy(payload + off, pkts[i].payload, pkts[i].payload_len);
			off += pkts[i].payload_len;
		}
	}
	if (plen)
		*plen = off;
	return n;
}

static void respond(struct wqe_qp *qp, uint8_t opcode, uint32_t psn, const uint8_t *data,
		    uint32_t len);

/* An RDMA WRITE of @len bytes over UC or RC at @mtu: opcode sequence,
 * PSNs, RETH on the first packet only, AckReq, payload, completions. An
 * RC QP stops at 128 PSNs unacknowledged (the send window): each time it
 * does, an ACK of the last packet sent lets it go on. */
static void write_case(enum wqe_qp_type t, enum wqe_mtu mtu, uint32_t len, int with_imm)
{
	struct wqe_qp *qp = make_qp(t, mtu, 0);
	uint32_t m = wqe_mtu_to_bytes(mtu), n = len ? (len + m - 1) / m : 1;
	static struct wqe_pkt pk[300];
	static uint8_t got[65536];
	struct wqe_send_wr wr;
	struct wqe_sge s;
	struct wqe_wc wc[4];
	size_t np, glen;
	uint8_t base = t == WQE_QPT_RC ? 0x00 : 0x20;

	wqe_link_sink_clear(sink);
	memset(&wr, 0, sizeof(wr));
	sge_of(&s, mr, 100, len);
	wr.wr_id = 0xabc;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = with_imm ? WQE_WR_RDMA_WRITE_WITH_IMM : WQE_WR_RDMA_WRITE;
	wr.send_flags = WQE_SEND_SIGNALED | WQE_SEND_SOLICITED;
	wr.imm_data = 0x04030201; /* bytes 01 02 03 04 in memory on little-endian */
	wr.wr.rdma.remote_addr = 0x7f0000001000ull;
	wr.wr.rdma.rkey = 0x5577;
	CHECK_EQ(post1(qp, &wr), 0);
	CHECK(wqe_progress(ctx) > 0);
	/* A pass sends at most REQ_PKT_BUDGET (64) packets; the rest of a
	 * long message goes at the next passes. */
	for (int i = 0; i < 8; i++)
		wqe_progress(ctx);
	np = collect(pk, 300, got, &glen);
	while (t == WQE_QPT_RC && np < n) {
		CHECK_EQ(np % 128, 0);
		respond(qp, 0x11, (0x100 + (uint32_t)np - 1) & 0xffffff, NULL, 0);
		for (int i = 0; i < 8; i++)
			wqe_progress(ctx);
		if (collect(pk, 300, got, &glen) == np)
			break;
		np = collect(pk, 300, got, &glen);
	}
	CHECK_EQ(np, n);
	CHECK_EQ(glen, len);
	CHECK_MEM(got, src + 100, len);
	for (uint32_t i = 0; i < np; i++) {
		uint8_t op = pk[i].bth.opcode;
		int first = i == 0, last = i + 1 == n;

		if (first && last)
			CHECK_EQ(op, base + (with_imm ? 0x0b : 0x0a));
		else if (first)
			CHECK_EQ(op, base + 0x06);
		else if (last)
			CHECK_EQ(op, base + (with_imm ? 0x09 : 0x08));
		else
			CHECK_EQ(op, base + 0x07);
		CHECK_EQ(pk[i].bth.psn, 0x100 + i);
		CHECK_EQ(pk[i].bth.destqp, 0x4242);
		CHECK_EQ(!!(pk[i].hdrs & WQE_HDR_RETH), first);
		if (first) {
			CHECK_EQ(pk[i].reth.va, 0x7f0000001000ull);
			CHECK_EQ(pk[i].reth.rkey, 0x5577);
			CHECK_EQ(pk[i].reth.dma_len, len);
		}
		CHECK_EQ(!!(pk[i].hdrs & WQE_HDR_IMMDT), with_imm && last);
		if (with_imm && last)
			CHECK_EQ(pk[i].immdt.imm, 0x01020304);
		/* SE only on the last packet of a solicited WRITE_WITH_IMM. */
		CHECK_EQ(pk[i].bth.se, with_imm && last);
		CHECK_EQ(pk[i].bth.ackreq,
			 t == WQE_QPT_RC && (last || i % 64 == 63));
		if (!last)
			CHECK_EQ(pk[i].payload_len, m);
	}
	if (t == WQE_QPT_UC) {
		CHECK_EQ(wqe_poll_cq(cq, 4, wc), 1);
		CHECK_EQ(wc[0].wr_id, 0xabc);
		CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[0].opcode, WQE_WC_RDMA_WRITE);
		CHECK_EQ(wc[0].byte_len, len);
		CHECK_EQ(wc[0].qp_num, wqe_qp_num(qp));
	} else {
		/* RC waits for its acknowledgement. */
		CHECK_EQ(wqe_poll_cq(cq, 4, wc), 0);
	}
	wqe_destroy_qp(qp);
}

static void test_ud(void)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_UD, WQE_MTU_1024, 1);
	struct wqe_ah_attr aa;
	struct wqe_ah *ah;
	struct wqe_send_wr wr;
	struct wqe_sge s;
	struct wqe_pkt pk[2];
	struct wqe_wc wc;

	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.grh.dgid.raw[10] = 0xff;
	aa.grh.dgid.raw[11] = 0xff;
	aa.grh.dgid.raw[12] = 198;
	aa.grh.dgid.raw[13] = 51;
	aa.grh.dgid.raw[14] = 100;
	aa.grh.dgid.raw[15] = 7;
	aa.dmac[0] = 2;
	aa.dmac[5] = 9;
	aa.udp_sport = 0xc123;
	aa.grh.hop_limit = 9;
	aa.grh.traffic_class = 0x68;
	ah = wqe_create_ah(pd, &aa);
	CHECK(ah != NULL);
	wqe_link_sink_clear(sink);
	memset(&wr, 0, sizeof(wr));
	sge_of(&s, mr, 0, 300);
	wr.wr_id = 77;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_SEND_WITH_IMM;
	wr.imm_data = 0xefbeadde;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0x99;
	wr.wr.ud.remote_qkey = 0x11111111;
	CHECK_EQ(post1(qp, &wr), 0);
	CHECK_EQ(wqe_poll_cq(cq, 1, &wc), 1); /* sq_sig_all */
	CHECK_EQ(wc.wr_id, 77);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_EQ(wc.opcode, WQE_WC_SEND);
	CHECK_EQ(collect(pk, 2, NULL, NULL), 1);
	CHECK_EQ(pk[0].bth.opcode, 0x65);
	CHECK_EQ(pk[0].bth.destqp, 0x99);
	CHECK_EQ(pk[0].deth.qkey, 0x11111111);
	CHECK_EQ(pk[0].deth.srcqp, wqe_qp_num(qp));
	CHECK_EQ(pk[0].immdt.imm, 0xdeadbeef);
	CHECK_EQ(pk[0].payload_len, 300);
	CHECK_EQ(pk[0].ipver, 4);
	CHECK_EQ(pk[0].dst.raw[15], 7);
	CHECK_EQ(pk[0].ttl, 9);
	CHECK_EQ(pk[0].tos, 0x68);
	CHECK_EQ(pk[0].sport, 0xc123);
	CHECK_EQ(pk[0].dmac[5], 9);
	CHECK_EQ(pk[0].ip_flags, 2);
	CHECK_EQ(pk[0].bth.ackreq, 0);
	wqe_destroy_qp(qp);
	wqe_destroy_ah(ah);
}

/* Inline copies at post time and costs one transaction; DMA costs two. */
static void test_inline_cost(void)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_UC, WQE_MTU_1024, 1);
	struct wqe_qp_stats st;
	struct wqe_send_wr wr;
	struct wqe_sge s;
	struct wqe_pkt pk[2];
	struct wqe_wc wc[2];
	uint8_t buf[28], orig[28];

	for (int i = 0; i < 28; i++)
		buf[i] = orig[i] = (uint8_t)(0x30 + i);
	wqe_link_sink_clear(sink);
	memset(&wr, 0, sizeof(wr));
	s.addr = (uint64_t)(uintptr_t)buf;
	s.length = 28;
	s.lkey = 0; /* no key is checked for inline data */
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_RDMA_WRITE;
	wr.send_flags = WQE_SEND_INLINE;
	wr.wr.rdma.rkey = 1;
	CHECK_EQ(post1(qp, &wr), 0);
	memset(buf, 0xee, sizeof(buf)); /* reused at once */
	CHECK_EQ(wqe_poll_cq(cq, 2, wc), 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(collect(pk, 2, NULL, NULL), 1);
	CHECK_EQ(pk[0].payload_len, 28);
	CHECK_MEM(pk[0].payload, orig, 28);
	CHECK_EQ(wqe_query_qp_stats(qp, &st), 0);
	CHECK_EQ(st.wqe_fetch_blocks, 1);
	CHECK_EQ(st.payload_reads, 0);
	CHECK_EQ(st.inline_wqes, 1);
	/* The same 28 bytes by DMA: one block for the WQE, one payload read. */
	memcpy(src, orig, 28);
	sge_of(&s, mr, 0, 28);
	wr.send_flags = 0;
	CHECK_EQ(post1(qp, &wr), 0);
	CHECK_EQ(wqe_poll_cq(cq, 2, wc), 1);
	CHECK_EQ(wqe_query_qp_stats(qp, &st), 0);
	CHECK_EQ(st.wqe_fetch_blocks, 2);
	CHECK_EQ(st.payload_reads, 1);
	CHECK_EQ(st.wqe_fetch_blocks + st.payload_reads, 3); /* 1 + 2 transactions */
	wqe_destroy_qp(qp);
}

/* A processing-time key failure: no packet, error CQE (unsignaled too),
 * QP in ERR, later WQEs flushed. */
static void key_case(enum wqe_wr_opcode op, const struct wqe_mr *m, size_t off, uint32_t len,
		     uint32_t lkey_xor)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_RC, WQE_MTU_1024, 0);
	struct wqe_send_wr wr[3];
	struct wqe_sge s[3];
	struct wqe_qp_attr a;
	struct wqe_wc wc[4];
	struct wqe_qp_stats st;

	wqe_link_sink_clear(sink);
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 3; i++) {
		sge_of(&s[i], mr, 0, op == WQE_WR_RDMA_WRITE ? 64 : 8);
		wr[i].wr_id = 10 + (uint64_t)i;
		wr[i].sg_list = &s[i];
		wr[i].num_sge = 1;
		wr[i].opcode = op;
		wr[i].wr.rdma.rkey = 5;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	sge_of(&s[0], m, off, len);
	s[0].lkey ^= lkey_xor;
	wr[2].send_flags = WQE_SEND_SIGNALED;
	CHECK_EQ(post1(qp, wr), 0);
	CHECK_EQ(wqe_poll_cq(cq, 4, wc), 3);
	CHECK_EQ(wc[0].wr_id, 10);
	CHECK_EQ(wc[0].status, WQE_WC_LOC_PROT_ERR);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[2].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[2].wr_id, 12);
	CHECK_EQ(wqe_link_sink_count(sink), 0);
	CHECK_EQ(wqe_query_qp(qp, &a, 0, NULL), 0);
	CHECK_EQ(a.qp_state, WQE_QPS_ERR);
	CHECK_EQ(wqe_query_qp_stats(qp, &st), 0);
	CHECK_EQ(st.packets_sent, 0);
	CHECK_EQ(st.payload_reads, 0);
	wqe_destroy_qp(qp);
}

static void test_keys(void)
{
	key_case(WQE_WR_RDMA_WRITE, mr, 0, 64, 0x5500);        /* bad lkey */
	key_case(WQE_WR_RDMA_WRITE, mr_pd2, 0, 64, 0);         /* key of another PD */
	key_case(WQE_WR_RDMA_WRITE, mr, sizeof(src) - 8, 64, 0); /* past the region */
	key_case(WQE_WR_RDMA_READ, mr_ro, 0, 8, 0);            /* READ into no LOCAL_WRITE */
	key_case(WQE_WR_ATOMIC_FETCH_AND_ADD, mr_ro, 0, 8, 0); /* atomic into no LOCAL_WRITE */
}

/* A READ response frame as the peer (::ffff:192.0.2.2) would send it. */
static void respond(struct wqe_qp *qp, uint8_t opcode, uint32_t psn, const uint8_t *data,
		    uint32_t len)
{
	struct wqe_pkt p;
	uint8_t frame[4400];
	size_t flen;

	memset(&p, 0, sizeof(p));
	p.dmac[0] = 2;
	p.dmac[5] = 1;
	p.smac[0] = 2;
	p.smac[5] = 2;
	p.ipver = 4;
	p.src.raw[10] = p.src.raw[11] = 0xff;
	p.src.raw[12] = 192;
	p.src.raw[14] = 2;
	p.src.raw[15] = 2;
	p.dst = p.src;
	p.dst.raw[15] = 1;
	p.ttl = 64;
	p.ip_flags = 2;
	p.sport = 0xc000;
	p.bth.opcode = opcode;
	p.bth.pkey = 0xffff;
	p.bth.destqp = wqe_qp_num(qp);
	p.bth.psn = psn;
	p.aeth.syndrome = 0x1f;
	p.aeth.msn = 1;
	CHECK_EQ(wqe_pkt_build(&p, data, len, frame, sizeof(frame), &flen), 0);
	CHECK_EQ(wqe_context_receive(ctx, frame, flen), 0);
}

/* A fenced WRITE leaves the wire only after the READ before it completed:
 * a stub plays the responder and holds the READ response back. */
static void test_fence(void)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_RC, WQE_MTU_1024, 0);
	struct wqe_send_wr wr[2];
	struct wqe_sge s[2];
	struct wqe_qp_stats st;
	struct wqe_pkt pk[4];
	struct wqe_wc wc[2];
	static uint8_t remote[2048];

	for (size_t i = 0; i < sizeof(remote); i++)
		remote[i] = (uint8_t)(i ^ 0x5a);
	memset(src, 0, 2048);
	wqe_link_sink_clear(sink);
	memset(wr, 0, sizeof(wr));
	sge_of(&s[0], mr, 0, 2048);
	sge_of(&s[1], mr, 4096, 16);
	wr[0].wr_id = 1;
	wr[0].sg_list = &s[0];
	wr[0].num_sge = 1;
	wr[0].opcode = WQE_WR_RDMA_READ;
	wr[0].send_flags = WQE_SEND_SIGNALED;
	wr[0].wr.rdma.remote_addr = 0x10000;
	wr[0].wr.rdma.rkey = 9;
	wr[0].next = &wr[1];
	wr[1].wr_id = 2;
	wr[1].sg_list = &s[1];
	wr[1].num_sge = 1;
	wr[1].opcode = WQE_WR_RDMA_WRITE;
	wr[1].send_flags = WQE_SEND_FENCE;
	CHECK_EQ(post1(qp, wr), 0);
	for (int i = 0; i < 5; i++)
		wqe_progress(ctx);
	CHECK_EQ(collect(pk, 4, NULL, NULL), 1);
	CHECK_EQ(pk[0].bth.opcode, 0x0c);
	CHECK_EQ(pk[0].reth.dma_len, 2048);
	CHECK_EQ(pk[0].bth.psn, 0x100);
	CHECK_EQ(wqe_query_qp_stats(qp, &st), 0);
	CHECK_EQ(st.fence_stalls, 1);
	CHECK_EQ(st.packets_sent, 1);
	/* First half of the answer: the READ is not complete, the WRITE waits. */
	respond(qp, 0x0d, 0x100, remote, 1024);
	for (int i = 0; i < 5; i++)
		wqe_progress(ctx);
	CHECK_EQ(wqe_link_sink_count(sink), 1);
	/* The last packet completes the READ; then the WRITE goes out. */
	respond(qp, 0x0f, 0x101, remote + 1024, 1024);
	CHECK_EQ(wqe_poll_cq(cq, 2, wc), 1);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, WQE_WC_RDMA_READ);
	CHECK_EQ(wc[0].byte_len, 2048);
	CHECK_MEM(src, remote, 2048);
	for (int i = 0; i < 5; i++)
		wqe_progress(ctx);
	CHECK_EQ(collect(pk, 4, NULL, NULL), 2);
	CHECK_EQ(pk[1].bth.opcode, 0x0a);
	CHECK_EQ(pk[1].bth.psn, 0x102); /* the READ consumed two PSNs */
	CHECK_EQ(wqe_query_qp_stats(qp, &st), 0);
	CHECK_EQ(st.fence_stalls, 1);
	wqe_destroy_qp(qp);
}

/* A 200-packet RDMA WRITE (MTU 256) on @qp, signaled, wr_id @id. */
static void post_long_write(struct wqe_qp *qp, const struct wqe_mr *m, uint64_t id)
{
	struct wqe_send_wr wr;
	struct wqe_sge s;

	memset(&wr, 0, sizeof(wr));
	sge_of(&s, m, 100, 200 * 256);
	wr.wr_id = id;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_RDMA_WRITE;
	wr.send_flags = WQE_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = 0x7f0000001000ull;
	wr.wr.rdma.rkey = 0x5577;
	CHECK_EQ(post1(qp, &wr), 0);
}

/*
 * A pass sends at most 64 packets of a QP (REQ_PKT_BUDGET): two
 * 200-packet WRITEs on an RC and a UC QP go out 64 + 64 per progress call,
 * each QP's PSNs consecutive and its payload whole in the end; an ACK for
 * a PSN the RC QP has numbered but not sent yet is ignored. The RC QP
 * stops at 128 PSNs unacknowledged (the send window: a pass sends none
 * of it) until an ACK moves the window; UC has none.
 */
static void test_interleave(void)
{
	struct wqe_qp *rc = make_qp(WQE_QPT_RC, WQE_MTU_256, 0);
	struct wqe_qp *uc = make_qp(WQE_QPT_UC, WQE_MTU_256, 0);
	static struct wqe_pkt pk[400];
	static uint8_t got[2][200 * 256];
	size_t glen[2] = {0, 0}, seen = 0;
	uint32_t npk[2] = {0, 0}, psn0[2] = {0, 0};
	static const uint32_t per_pass[2][5] = {{64, 64, 0, 64, 8}, {64, 64, 64, 8, 0}};
	struct wqe_wc wc[4];

	wqe_link_sink_clear(sink);
	post_long_write(rc, mr, 1);
	post_long_write(uc, mr, 2);
	for (int pass = 0; pass < 5; pass++) {
		uint32_t in_pass[2] = {0, 0};
		size_t n;

		/* (Not wqe_poll_cq() here: it makes progress too.) */
		wqe_progress(ctx);
		n = collect(pk, 400, NULL, NULL);
		for (size_t i = seen; i < n; i++) {
			int k = pk[i].bth.opcode >= 0x20; /* 0 RC, 1 UC */

			if (!npk[k])
				psn0[k] = pk[i].bth.psn;
			CHECK_EQ(pk[i].bth.psn, (psn0[k] + npk[k]) & 0xffffff);
			memcpy(got[k] + glen[k], pk[i].payload, pk[i].payload_len);
			glen[k] += pk[i].payload_len;
			npk[k]++;
			in_pass[k]++;
		}
		seen = n;
		CHECK_EQ(in_pass[0], per_pass[0][pass]);
		CHECK_EQ(in_pass[1], per_pass[1][pass]);
		if (pass == 0) {
			/* Numbered, not sent: a forged ACK for it changes nothing. */
			respond(rc, 0x11, (psn0[0] + 150) & 0xffffff, NULL, 0);
			respond(rc, 0x11, (psn0[0] + 199) & 0xffffff, NULL, 0);
		}
		if (pass == 2) /* the window full: its first 128 acknowledged */
			respond(rc, 0x11, (psn0[0] + 127) & 0xffffff, NULL, 0);
	}
	CHECK_EQ(glen[0], 200 * 256);
	CHECK_EQ(glen[1], 200 * 256);
	CHECK_MEM(got[0], src + 100, 200 * 256);
	CHECK_MEM(got[1], src + 100, 200 * 256);
	/* The UC WRITE completed with its last packet; the RC one waits. */
	CHECK_EQ(wqe_poll_cq(cq, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 2);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	respond(rc, 0x11, (psn0[0] + 199) & 0xffffff, NULL, 0);
	CHECK_EQ(wqe_poll_cq(cq, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
	CHECK_EQ(wqe_link_sink_count(sink), 400);
	wqe_destroy_qp(rc);
	wqe_destroy_qp(uc);
}

/*
 * A message cut short whose region goes away before the rest is sent:
 * the rest is never sent, the WQE completes with LOC_PROT_ERR (once), the
 * QP goes to ERR and the WQE behind it is flushed. And one whose QP is
 * moved to ERR: flushed, nothing more sent.
 */
static void test_open_fail(enum wqe_qp_type t)
{
	struct wqe_qp *qp = make_qp(t, WQE_MTU_256, 0);
	struct wqe_mr *m = wqe_reg_mr(pd, src, sizeof(src), WQE_ACCESS_LOCAL_WRITE);
	struct wqe_qp_attr a;
	struct wqe_wc wc[4];

	CHECK(m != NULL);
	wqe_link_sink_clear(sink);
	post_long_write(qp, m, 7);
	post_long_write(qp, mr, 8);
	wqe_progress(ctx);
	CHECK_EQ(wqe_link_sink_count(sink), 64);
	CHECK_EQ(wqe_dereg_mr(m), 0);
	for (int i = 0; i < 4; i++)
		wqe_progress(ctx);
	CHECK_EQ(wqe_link_sink_count(sink), 64);
	CHECK_EQ(wqe_poll_cq(cq, 4, wc), 2);
	CHECK_EQ(wc[0].wr_id, 7);
	CHECK_EQ(wc[0].status, WQE_WC_LOC_PROT_ERR);
	CHECK_EQ(wc[1].wr_id, 8);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wqe_query_qp(qp, &a, 0, NULL), 0);
	CHECK_EQ(a.qp_state, WQE_QPS_ERR);
	wqe_destroy_qp(qp);

	qp = make_qp(t, WQE_MTU_256, 0);
	wqe_link_sink_clear(sink);
	post_long_write(qp, mr, 9);
	wqe_progress(ctx);
	CHECK_EQ(wqe_link_sink_count(sink), 64);
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_ERR;
	CHECK_EQ(wqe_modify_qp(qp, &a, WQE_QP_STATE), 0);
	for (int i = 0; i < 4; i++)
		wqe_progress(ctx);
	CHECK_EQ(wqe_link_sink_count(sink), 64);
	CHECK_EQ(wqe_poll_cq(cq, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 9);
	CHECK_EQ(wc[0].status, WQE_WC_WR_FLUSH_ERR);
	wqe_destroy_qp(qp);
}

/* A raw ring writer bypasses post-time checks: the engine checks again.
 * @how: 0 DS of zero, 1 unknown opcode, 2 READ on UC, 3 another QP's
 * number, 4 DS past the posted blocks. */
static void raw_case(int how)
{
	struct wqe_qp *qp = make_qp(WQE_QPT_UC, WQE_MTU_1024, 0);
	struct wqe_encode_qp eqp = {WQE_QPT_UC, wqe_qp_num(qp), 4, qp->cap.max_inline_data, 0};
	struct wqe_ring_view v = {qp->sq.buf, qp->sq.nblocks};
	struct wqe_send_wr w, good, *bad;
	struct wqe_sge s;
	struct wqe_qp_attr a;
	struct wqe_wc wc[4];
	uint8_t *blk = qp->sq.buf;
	uint8_t db[8];
	uint32_t nb;

	wqe_link_sink_clear(sink);
	memset(&w, 0, sizeof(w));
	sge_of(&s, mr, 0, 64);
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = how == 2 ? WQE_WR_RDMA_READ : WQE_WR_RDMA_WRITE;
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &eqp, &w, &v, 0, 0, &nb), 0);
	if (how == 0)
		blk[7] = 0;
	if (how == 1)
		blk[3] = 0x77;
	if (how == 3)
		blk[6] ^= 1;
	if (how == 4)
		blk[7] = 0x3f;
	/* Publish one block and ring the doorbell, as a driver would. */
	qp->sq.pi = 1;
	qp->sq.posted_wqes = 1;
	qp->sq_wrid[0] = 55;
	sq_ring_publish(&qp->sq);
	memcpy(db, blk, 8);
	db[4] = (uint8_t)(wqe_qp_num(qp) >> 16);
	db[5] = (uint8_t)(wqe_qp_num(qp) >> 8);
	db[6] = (uint8_t)wqe_qp_num(qp);
	nic_doorbell(qp->context->nic, db);
	/* And a good request behind it, which must be flushed. */
	good = w;
	good.opcode = WQE_WR_RDMA_WRITE;
	good.wr_id = 56;
	CHECK_EQ(wqe_post_send(qp, &good, &bad), 0);
	CHECK_EQ(wqe_poll_cq(cq, 4, wc), 2);
	CHECK_EQ(wc[0].wr_id, 55);
	CHECK_EQ(wc[0].status, WQE_WC_LOC_QP_OP_ERR);
	CHECK_EQ(wc[1].wr_id, 56);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wqe_link_sink_count(sink), 0);
	CHECK_EQ(wqe_query_qp(qp, &a, 0, NULL), 0);
	CHECK_EQ(a.qp_state, WQE_QPS_ERR);
	wqe_destroy_qp(qp);
}

int main(void)
{
	static const enum wqe_mtu mtus[] = {WQE_MTU_256, WQE_MTU_1024, WQE_MTU_4096};

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 3);
	ctx = wqe_open_context(NULL);
	pd = wqe_alloc_pd(ctx);
	pd2 = wqe_alloc_pd(ctx);
	cq = wqe_create_cq(ctx, 1024);
	sink = wqe_link_sink_create(4096);
	mr = wqe_reg_mr(pd, src, sizeof(src), WQE_ACCESS_LOCAL_WRITE);
	mr_ro = wqe_reg_mr(pd, src, sizeof(src), 0);
	mr_pd2 = wqe_reg_mr(pd2, src, sizeof(src), WQE_ACCESS_LOCAL_WRITE);
	CHECK(ctx && pd && cq && sink && mr && mr_ro && mr_pd2);
	CHECK_EQ(wqe_context_attach_link(ctx, sink), 0);
	for (size_t m = 0; m < 3; m++) {
		uint32_t b = wqe_mtu_to_bytes(mtus[m]);
		const uint32_t sizes[] = {0, 1, b - 1, b, b + 1, 3 * b, 3 * b + 2};

		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			write_case(WQE_QPT_UC, mtus[m], sizes[k], (int)(k & 1));
			write_case(WQE_QPT_RC, mtus[m], sizes[k], (int)(~k & 1));
		}
	}
	write_case(WQE_QPT_RC, WQE_MTU_256, 200 * 256, 0); /* periodic AckReq */
	test_ud();
	test_inline_cost();
	test_keys();
	test_fence();
	test_interleave();
	test_open_fail(WQE_QPT_RC);
	test_open_fail(WQE_QPT_UC);
	for (int how = 0; how < 5; how++)
		raw_case(how);
	wqe_context_attach_link(ctx, NULL);
	CHECK_EQ(wqe_link_destroy(sink), 0);
	wqe_dereg_mr(mr);
	wqe_dereg_mr(mr_ro);
	wqe_dereg_mr(mr_pd2);
	wqe_destroy_cq(cq);
	wqe_dealloc_pd(pd);
	wqe_dealloc_pd(pd2);
	CHECK_EQ(wqe_close_context(ctx), 0);
	return test_finish();
}
