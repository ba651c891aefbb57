/* SPDX-License-Identifier: MIT */
/*
 * The protection matrix, remote side, with hand-crafted frames fed to a
 * responder QP (tests/resp/resp_util.h): what no well-behaved requester
 * sends, so the API cannot produce it.
 *   - a RETH whose address + length wraps the address space (WRITE, READ),
 *     a RETH DMA length over 2^31, a READ longer than its region
 *   - a misaligned atomic (and the API refusing it at post time)
 *   - a packet for a QP number that does not exist (and QPN 1), for a QP
 *     of another transport, with the wrong P_Key, from a source that is not
 *     the QP's peer
 *   - a PSN far ahead of the window (one NAK PSN sequence error, then
 *     silence) and far behind it (a duplicate: acknowledged again, never
 *     executed again)
 *   - a UD packet with the wrong Q_Key
 * Each: the answer on the wire (or none), the QP's state, its receive
 * queue, and not one byte changed in the arena (canaries around every
 * region).
 */
#include <errno.h>
#include <string.h>

#include "engine/services.h"
#include "engine/rx.h"
#include "protect_util.h"
#include "resp_util.h"
#include "testutil.h"

static uint8_t *rw, *rbuf, *payload;

struct rig {
	struct rt t;
	struct wqe_mr *mr_rw, *mr_rbuf;
};

static void rig_open(struct rig *g, enum wqe_qp_type type)
{
	arena_reset();
	rw = arena_take(4096);
	rbuf = arena_take(1024);
	payload = arena_take(4096);
	arena_fill();
	rt_open(&g->t, type, WQE_MTU_1024);
	g->mr_rw = rt_reg(g->t.pd, rw, 4096, RT_ALL_ACCESS);
	g->mr_rbuf = rt_reg(g->t.pd, rbuf, 1024, WQE_ACCESS_LOCAL_WRITE);
	{
		struct wqe_sge s1 = {(uint64_t)(uintptr_t)rbuf, 512, g->mr_rbuf->lkey};
		struct wqe_sge s2 = {(uint64_t)(uintptr_t)rbuf + 512, 512, g->mr_rbuf->lkey};

		rt_post_recv(&g->t, 1, &s1, 1);
		rt_post_recv(&g->t, 2, &s2, 1);
	}
}

static void rig_close(struct rig *g)
{
	CHECK_EQ(wqe_dereg_mr(g->mr_rw), 0);
	CHECK_EQ(wqe_dereg_mr(g->mr_rbuf), 0);
	rt_close(&g->t);
}

/* Class C at the responder: one NAK @syndrome at @psn, QP in ERR, both
 * receives flushed, nothing written. */
static void expect_class_c(struct rig *g, const char *label, uint8_t syndrome, uint32_t psn)
{
	struct wqe_wc wc[4];
	unsigned long failed = test_failures;

	CHECK_EQ(rt_nresp(&g->t), 1);
	rt_check_ack(&g->t, 0, syndrome, psn, 0);
	CHECK_EQ(rt_qpc(&g->t)->state, WQE_QPS_ERR);
	CHECK_EQ(rt_poll(&g->t, wc, 4), 2);
	CHECK_EQ(wc[0].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(arena_changed(label), 0);
	if (test_failures != failed)
		fprintf(stderr, "  ^ in case: %s\n", label);
}

/* Nothing answered, nothing completed, nothing written, QP still up. */
static void expect_silence(struct rig *g, const char *label)
{
	struct wqe_wc wc[4];
	unsigned long failed = test_failures;

	CHECK_EQ(rt_nresp(&g->t), 0);
	CHECK_EQ(rt_qpc(&g->t)->state, WQE_QPS_RTS);
	CHECK_EQ(rt_poll(&g->t, wc, 4), 0);
	CHECK_EQ(arena_changed(label), 0);
	if (test_failures != failed)
		fprintf(stderr, "  ^ in case: %s\n", label);
}

static void reth_case(const char *label, uint8_t op, uint64_t va, uint32_t len,
		      uint32_t payload_len, uint8_t syndrome)
{
	struct rig g;
	struct wqe_pkt p;

	rig_open(&g, WQE_QPT_RC);
	rt_req(&g.t, &p, op, RT_FIRST_PSN);
	p.reth = (struct wqe_reth){va, g.mr_rw->rkey, len};
	p.bth.ackreq = 1;
	rt_feed(&g.t, &p, payload, payload_len);
	expect_class_c(&g, label, syndrome, RT_FIRST_PSN);
	rig_close(&g);
}

static void reth_cases(void)
{
	const uint64_t top = UINT64_MAX - 15; /* 16 bytes below 2^64 */
	uint64_t base;

	/* The region's address is known once the arena is carved. */
	arena_reset();
	base = (uint64_t)(uintptr_t)arena_take(4096);
	reth_case("WRITE ONLY whose address + length wraps 2^64", WQE_WIRE_RC_RDMA_WRITE_ONLY, top,
		  64, 64, WQE_AETH_NAK_REM_ACCESS_ERR);
	reth_case("WRITE FIRST with a DMA length of 2^32 - 64", WQE_WIRE_RC_RDMA_WRITE_FIRST,
		  base + 64, 0xffffffc0u, 1024, WQE_AETH_NAK_INVALID_REQ);
	reth_case("WRITE FIRST of 2^31 bytes from inside the region", WQE_WIRE_RC_RDMA_WRITE_FIRST,
		  base, 0x80000000u, 1024, WQE_AETH_NAK_REM_ACCESS_ERR);
	reth_case("WRITE ONLY with a DMA length over 2^31", WQE_WIRE_RC_RDMA_WRITE_ONLY, base,
		  0x80000001u, 8, WQE_AETH_NAK_INVALID_REQ);
	reth_case("READ whose address + length wraps 2^64", WQE_WIRE_RC_RDMA_READ_REQUEST, top, 64,
		  0, WQE_AETH_NAK_REM_ACCESS_ERR);
	reth_case("READ of 2^31 bytes from inside the region", WQE_WIRE_RC_RDMA_READ_REQUEST,
		  base + 8, 0x80000000u, 0, WQE_AETH_NAK_REM_ACCESS_ERR);
	reth_case("READ with a DMA length over 2^31", WQE_WIRE_RC_RDMA_READ_REQUEST, base,
		  0xffffffffu, 0, WQE_AETH_NAK_INVALID_REQ);
}

static void atomic_case(const char *label, uint64_t off, uint8_t syndrome)
{
	struct rig g;
	struct wqe_pkt p;

	rig_open(&g, WQE_QPT_RC);
	rt_req(&g.t, &p, WQE_WIRE_RC_FETCH_ADD, RT_FIRST_PSN);
	p.atomiceth = (struct wqe_atomiceth){(uint64_t)(uintptr_t)rw + off, g.mr_rw->rkey, 1, 0};
	p.bth.ackreq = 1;
	rt_feed(&g.t, &p, NULL, 0);
	expect_class_c(&g, label, syndrome, RT_FIRST_PSN);
	rig_close(&g);
}

/* The API refuses a misaligned atomic before it reaches the ring. */
static void misaligned_post(void)
{
	struct rig g;
	struct wqe_send_wr w, *bad = NULL;
	struct wqe_sge s;
	struct wqe_qp_dv dv0, dv1;

	rig_open(&g, WQE_QPT_RC);
	s = (struct wqe_sge){(uint64_t)(uintptr_t)rbuf, 8, g.mr_rbuf->lkey};
	memset(&w, 0, sizeof(w));
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_ATOMIC_FETCH_AND_ADD;
	w.wr.atomic.remote_addr = 0x10004;
	w.wr.atomic.rkey = 0x1234;
	CHECK_EQ(wqe_qp_dv_query(g.t.qp, &dv0), 0);
	CHECK_EQ(wqe_post_send(g.t.qp, &w, &bad), EINVAL);
	CHECK(bad == &w);
	CHECK_EQ(wqe_qp_dv_query(g.t.qp, &dv1), 0);
	CHECK_EQ(dv1.sq_pi, dv0.sq_pi);
	wqe_progress(g.t.ctx);
	CHECK_EQ(rt_nresp(&g.t), 0);
	rig_close(&g);
}

/* Frames the receive filter drops before any QP sees them. */
static void filtered(const char *label, enum wqe_qp_type type, int how, enum rx_drop why)
{
	struct rig g;
	struct wqe_pkt p;
	struct wqe_port_stats ps0, ps;
	uint64_t before;
	uint8_t op = type == WQE_QPT_UD ? WQE_WIRE_UD_SEND_ONLY : WQE_WIRE_RC_RDMA_WRITE_ONLY;

	rig_open(&g, type);
	before = g.t.ctx->nic->rx_drops[why];
	rt_req(&g.t, &p, op, RT_FIRST_PSN);
	p.reth = (struct wqe_reth){(uint64_t)(uintptr_t)rw, g.mr_rw->rkey, 64};
	p.bth.ackreq = 1;
	switch (how) {
	case 0:
		p.bth.destqp = wqe_qp_num(g.t.qp) + 1;
		break; /* no such QP */
	case 1:
		p.bth.destqp = 1;
		break; /* reserved QPN */
	case 2:
		p.bth.opcode = WQE_WIRE_UC_RDMA_WRITE_ONLY;
		break; /* another transport */
	case 3:
		p.bth.pkey = 0x7fff;
		break;
	case 4:
		p.src.raw[15] = 9;
		break; /* not the QP's peer */
	case 5:
		p.deth.qkey = RT_QKEY ^ 1;
		break; /* UD: wrong Q_Key */
	default:
		break;
	}
	wqe_context_port_stats(g.t.ctx, &ps0);
	rt_feed(&g.t, &p, payload, 64);
	CHECK_EQ(g.t.ctx->nic->rx_drops[why], before + 1);
	/* The same through the public counters: one more frame, dropped for
	 * @why, nothing accepted. */
	CHECK_EQ(wqe_context_port_stats(g.t.ctx, &ps), 0);
	CHECK_EQ(ps.rx_frames, ps0.rx_frames + 1);
	CHECK_EQ(ps.rx_drops[why], ps0.rx_drops[why] + 1);
	CHECK_EQ(ps.rx_accepted, ps0.rx_accepted);
	CHECK(strcmp(wqe_rx_drop_str((enum wqe_rx_drop)why), rx_drop_str(why)) == 0);
	expect_silence(&g, label);
	rig_close(&g);
}

/* A PSN far ahead: one NAK PSN sequence error with the expected PSN, then
 * silence; nothing placed, the QP stays up and takes the right PSN. */
static void psn_ahead(void)
{
	struct rig g;
	struct wqe_pkt p;
	struct wqe_wc wc[4];

	rig_open(&g, WQE_QPT_RC);
	for (int i = 0; i < 2; i++) {
		rt_req(&g.t, &p, WQE_WIRE_RC_RDMA_WRITE_ONLY,
		       RT_FIRST_PSN + 0x400000u + (uint32_t)i);
		p.reth = (struct wqe_reth){(uint64_t)(uintptr_t)rw, g.mr_rw->rkey, 64};
		p.bth.ackreq = 1;
		rt_feed(&g.t, &p, payload, 64);
	}
	CHECK_EQ(rt_nresp(&g.t), 1);
	rt_check_ack(&g.t, 0, WQE_AETH_NAK_PSN_SEQ_ERR, RT_FIRST_PSN, 0);
	CHECK_EQ(rt_qpc(&g.t)->state, WQE_QPS_RTS);
	CHECK_EQ(rt_poll(&g.t, wc, 4), 0);
	CHECK_EQ(arena_changed("PSN far ahead"), 0);
	/* The expected PSN still works. */
	rt_req(&g.t, &p, WQE_WIRE_RC_RDMA_WRITE_ONLY, RT_FIRST_PSN);
	p.reth = (struct wqe_reth){(uint64_t)(uintptr_t)rw, g.mr_rw->rkey, 64};
	p.bth.ackreq = 1;
	rt_feed(&g.t, &p, payload, 64);
	CHECK_EQ(rt_nresp(&g.t), 2);
	rt_check_ack(&g.t, 1, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN, 1);
	CHECK_MEM(rw, payload, 64);
	rig_close(&g);
}

/* A PSN far behind: a duplicate. A WRITE is acknowledged again (PSN of the
 * last request executed, here none: expected - 1) and not executed; a
 * READ or atomic matching no responder resource is dropped. */
static void psn_behind(uint8_t op)
{
	struct rig g;
	struct wqe_pkt p;
	struct wqe_wc wc[4];

	rig_open(&g, WQE_QPT_RC);
	rt_req(&g.t, &p, op, (RT_FIRST_PSN - 0x400000u) & 0xffffff);
	p.reth = (struct wqe_reth){(uint64_t)(uintptr_t)rw, g.mr_rw->rkey, 64};
	p.atomiceth = (struct wqe_atomiceth){(uint64_t)(uintptr_t)rw, g.mr_rw->rkey, 1, 0};
	p.bth.ackreq = 1;
	rt_feed(&g.t, &p, op == WQE_WIRE_RC_RDMA_WRITE_ONLY ? payload : NULL,
		op == WQE_WIRE_RC_RDMA_WRITE_ONLY ? 64 : 0);
	if (op == WQE_WIRE_RC_RDMA_WRITE_ONLY) {
		CHECK_EQ(rt_nresp(&g.t), 1);
		rt_check_ack(&g.t, 0, WQE_AETH_ACK_UNLIMITED, RT_FIRST_PSN - 1, 0);
	} else {
		CHECK_EQ(rt_nresp(&g.t), 0);
	}
	CHECK_EQ(rt_resp(&g.t)->stats.duplicates, 1);
	CHECK_EQ(rt_qpc(&g.t)->state, WQE_QPS_RTS);
	CHECK_EQ(rt_poll(&g.t, wc, 4), 0);
	CHECK_EQ(arena_changed("PSN far behind"), 0);
	rig_close(&g);
}

int main(void)
{
	reth_cases();
	atomic_case("FETCH_ADD at an address 4 bytes off alignment", 4, WQE_AETH_NAK_INVALID_REQ);
	atomic_case("FETCH_ADD at an address 1 byte off alignment", 1, WQE_AETH_NAK_INVALID_REQ);
	atomic_case("FETCH_ADD 4 bytes before the end (aligned to 4 only)", 4092,
		    WQE_AETH_NAK_REM_ACCESS_ERR);
	misaligned_post();
	filtered("RC packet for a QP number that does not exist", WQE_QPT_RC, 0,
		 RX_DROP_UNKNOWN_QP);
	filtered("RC packet for QP 1", WQE_QPT_RC, 1, RX_DROP_UNKNOWN_QP);
	filtered("UC opcode for an RC QP", WQE_QPT_RC, 2, RX_DROP_TRANSPORT);
	filtered("RC packet with another P_Key", WQE_QPT_RC, 3, RX_DROP_PKEY);
	filtered("RC packet from a source that is not the peer", WQE_QPT_RC, 4, RX_DROP_SRC);
	filtered("UD packet with the wrong Q_Key", WQE_QPT_UD, 5, RX_DROP_QKEY);
	filtered("UD packet for a QP number that does not exist", WQE_QPT_UD, 0,
		 RX_DROP_UNKNOWN_QP);
	psn_ahead();
	psn_behind(WQE_WIRE_RC_RDMA_WRITE_ONLY);
	psn_behind(WQE_WIRE_RC_RDMA_READ_REQUEST);
	psn_behind(WQE_WIRE_RC_FETCH_ADD);
	return test_finish();
}
