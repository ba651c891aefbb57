/* SPDX-License-Identifier: MIT */
/*
 * A malformed receive WQE, end to end: a raw write into B's receive ring
 * (as a buggy or hostile driver could make) and a SEND, or an RDMA WRITE
 * with immediate, that takes it. The WQE sits in the last slot of the ring
 * (the ring is first cycled once with real traffic), so a read past the
 * slot runs off the ring's heap buffer: ASan and valgrind see it.
 *
 * rxe (struct rxe_recv_wqe): num_sge past what the slot holds, num_sge
 * 0xffffffff, dma.length that is not the sum of the SGE lengths, resid
 * that is not length, a cur_sge or sge_offset that is not at the start, a
 * slot of 0xff bytes. Each one is refused by the decoder before any SGE is
 * read: B's WQE completes with LOC_QP_OP_ERR, B goes to ERR and its next
 * receive is flushed; on RC B answers one NAK remote operational error
 * (A: REM_OP_ERR, the two SENDs behind it flushed), on UC and UD A sees
 * success. mlx5 (data segments): every slot decodes, so a slot of 0xff
 * bytes is an SGE with a bad lkey: LOC_PROT_ERR, the same class A answer.
 * In every case not one byte of the arena changes, and the engine leaves
 * the slot as it was written.
 *
 * And a slot rewritten in the middle of a message (hand-fed frames, the
 * responder alone): the NIC decodes the slot again for every packet, so
 * the SEND's LAST packet finds it malformed (rxe: LOC_QP_OP_ERR) or naming
 * a bad lkey (mlx5: LOC_PROT_ERR); RC NAKs remote operational error with
 * the LAST's PSN, the FIRST's bytes stay placed and nothing else changes.
 */
#include <stdlib.h>
#include <string.h>

#include "protect_util.h"
#include "resp_util.h"
#include "testutil.h"
#include "verbs/verbs_int.h"
#include "wqe/wire.h"

enum spoil {
	NUM_SGE_PAST, /* rxe: one SGE more than the slot holds */
	NUM_SGE_HUGE, /* rxe: 0xffffffff */
	LENGTH,	      /* rxe: dma.length = resid = the sum + 1000 */
	RESID,	      /* rxe: resid != length */
	CUR_SGE,      /* rxe: cur_sge 0x7fffffff */
	SGE_OFFSET,   /* rxe: sge_offset 100 */
	ALL_FF,	      /* both: every byte 0xff */
	WRITE_IMM,    /* rxe, RC: num_sge 0xffffffff, taken by a WRITE with immediate */
	NSPOIL
};
static const char *const names[NSPOIL] = {
    "num_sge past the slot",	  "num_sge 0xffffffff",
    "dma.length not the SGE sum", "resid != length",
    "cur_sge 0x7fffffff",	  "sge_offset 100",
    "a slot of 0xff bytes",	  "WRITE with immediate, num_sge 0xffffffff",
};

static int applies(enum wqe_format f, enum wqe_qp_type t, enum spoil s)
{
	if (s == ALL_FF)
		return 1;
	if (f != WQE_FORMAT_RXE)
		return 0;
	return s != WRITE_IMM || t == WQE_QPT_RC;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* host order: the rxe WQE's */
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* struct rxe_recv_wqe: dma at 16 (length, resid, cur_sge, num_sge,
 * sge_offset), SGEs at 40. */
static void spoil_slot(uint8_t *w, uint32_t stride, enum spoil s)
{
	switch (s) {
	case NUM_SGE_PAST:
		put32(w + 28, (stride - 40) / 16 + 1);
		break;
	case NUM_SGE_HUGE:
	case WRITE_IMM:
		put32(w + 28, 0xffffffffu);
		break;
	case LENGTH:
		put32(w + 16, get32(w + 16) + 1000);
		put32(w + 20, get32(w + 16));
		break;
	case RESID:
		put32(w + 20, get32(w + 16) - 1);
		break;
	case CUR_SGE:
		put32(w + 24, 0x7fffffffu);
		break;
	case SGE_OFFSET:
		put32(w + 32, 100);
		break;
	default:
		memset(w, 0xff, stride);
		break;
	}
}

/* A SEND from A into a receive of B, both completed: @n times. */
static void cycle(struct penv *e, uint32_t n)
{
	struct wqe_sge s = penv_sge(e, A_SRC, 0, 16);
	struct wqe_send_wr w, *bad;
	struct wqe_wc wc[2];

	for (uint32_t i = 0; i < n; i++) {
		penv_recv(e, &e->p.b, penv_sge(e, B_RECV, 0, 64), 1000 + i);
		memset(&w, 0, sizeof(w));
		w.wr_id = 1000 + i;
		w.sg_list = &s;
		w.num_sge = 1;
		w.opcode = WQE_WR_SEND;
		w.send_flags = WQE_SEND_SIGNALED;
		if (e->p.type == WQE_QPT_UD) {
			w.wr.ud.ah = e->p.a.ah;
			w.wr.ud.remote_qpn = wqe_qp_num(e->p.b.qp);
			w.wr.ud.remote_qkey = 0x11111111;
		}
		CHECK_EQ(wqe_post_send(e->p.a.qp, &w, &bad), 0);
		CHECK_EQ(penv_wait(e, e->p.a.scq, 1, wc), 1);
		CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(penv_wait(e, e->p.b.rcq, 1, wc), 1);
		CHECK_EQ(wc[0].status, WQE_WC_SUCCESS);
		CHECK_EQ(wc[0].wr_id, 1000 + i);
	}
}

static void one_case(enum wqe_qp_type t, enum spoil sp)
{
	enum wqe_format f = test_format();
	struct penv e;
	struct wqe_send_wr w;
	struct wqe_sge s, rs[2];
	struct wqe_recv_wr r = {.wr_id = 1, .sg_list = rs, .num_sge = 2}, *bad;
	struct rq_ring *rq;
	uint8_t *slot, *copy;
	enum wqe_wc_status want = f == WQE_FORMAT_RXE ? WQE_WC_LOC_QP_OP_ERR : WQE_WC_LOC_PROT_ERR;
	unsigned long failed = test_failures;

	if (!applies(f, t, sp))
		return;
	penv_open(&e, t);
	rq = &e.p.b.qp->rq;
	/* Once round the ring: the next receive lands in its last slot. */
	cycle(&e, rq->nslots - 1);
	arena_fill();
	memset(&e.ta, 0, sizeof(e.ta)); /* the taps count from here */
	memset(&e.tb, 0, sizeof(e.tb));
	CHECK_EQ(rq->pi & (rq->nslots - 1), rq->nslots - 1);
	rs[0] = penv_sge(&e, B_RECV, 0, 100);
	rs[1] = penv_sge(&e, B_RECV, 512, 100);
	CHECK_EQ(wqe_post_recv(e.p.b.qp, &r, &bad), 0);
	slot = rq_ring_slot(rq, rq->pi - 1);
	CHECK(slot + rq->stride == rq->buf + (size_t)rq->nslots * rq->stride);
	spoil_slot(slot, rq->stride, sp);
	copy = malloc(rq->stride);
	memcpy(copy, slot, rq->stride);
	penv_recv(&e, &e.p.b, penv_sge(&e, B_RECV, 2048, 64), 2); /* slot 0: wraps */
	if (f == WQE_FORMAT_RXE)
		CHECK_EQ(atomic_load(&rq->dbrec), 1);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 0, 64), 1);
	penv_recv(&e, &e.p.a, penv_sge(&e, A_RECV, 64, 64), 2);
	memset(&w, 0, sizeof(w));
	s = penv_sge(&e, A_SRC, 0, 60);
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = WQE_WR_SEND;
	if (sp == WRITE_IMM) {
		w.opcode = WQE_WR_RDMA_WRITE_WITH_IMM;
		w.imm_data = 0x01020304;
		w.wr.rdma.remote_addr = penv_addr(&e, B_RW, 0);
		w.wr.rdma.rkey = e.key[B_RW];
	}
	CHECK_EQ(penv_post_three(&e, &w), 0);
	if (t == WQE_QPT_RC) {
		penv_check_remote(&e, names[sp], WQE_WC_REM_OP_ERR, WQE_AETH_NAK_REM_OP_ERR,
				  WQE_QPS_ERR, 2, want);
	} else {
		struct wqe_wc wc[4];

		CHECK_EQ(penv_wait(&e, e.p.a.scq, 3, wc), 3);
		for (int i = 0; i < 3; i++)
			CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
		CHECK_EQ(e.tb.ntx, 0);
		CHECK_EQ(penv_wait(&e, e.p.b.rcq, 2, wc), 2);
		CHECK_EQ(wc[0].wr_id, 1);
		CHECK_EQ(wc[0].status, want);
		CHECK_EQ(wc[1].wr_id, 2);
		CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
		CHECK_EQ(qp_state(e.p.b.qp), WQE_QPS_ERR);
		pair_spin(&e.p, 4);
		CHECK_EQ(wqe_poll_cq(e.p.b.rcq, 4, wc), 0);
		CHECK_EQ(arena_changed(names[sp]), 0);
	}
	/* The NIC read the slot and wrote nothing back. */
	CHECK_MEM(slot, copy, rq->stride);
	free(copy);
	if (test_failures != failed)
		fprintf(stderr, "  ^ in case: %s on %s (%s)\n", names[sp], wqe_qp_type_str(t),
			wqe_format_str(f));
	penv_close(&e);
}

/* A two-packet SEND whose receive slot is rewritten between its packets. */
static void rewritten_midway(void)
{
	enum wqe_format f = test_format();
	struct wqe_context_attr ca;
	static uint8_t dst[4096], src[2048];
	struct wqe_sge sg[2];
	struct wqe_mr *mr;
	struct wqe_pkt p;
	struct wqe_wc wc[4];
	struct rq_ring *rq;
	uint8_t *slot;
	struct rt t;

	memset(&ca, 0, sizeof(ca));
	ca.format = f;
	rt_open_attr(&t, &ca, WQE_QPT_RC, WQE_MTU_1024, 2, 4, RT_FIRST_PSN);
	memset(dst, 0xa5, sizeof(dst));
	memset(src, 0x3c, sizeof(src));
	mr = rt_reg(t.pd, dst, sizeof(dst), WQE_ACCESS_LOCAL_WRITE);
	sg[0] = (struct wqe_sge){(uint64_t)(uintptr_t)dst, 1024, mr->lkey};
	sg[1] = (struct wqe_sge){(uint64_t)(uintptr_t)dst + 2048, 1024, mr->lkey};
	rt_post_recv(&t, 7, sg, 2);
	rt_post_recv(&t, 8, sg, 1);
	rt_req(&t, &p, WQE_WIRE_RC_SEND_FIRST, RT_FIRST_PSN);
	rt_feed(&t, &p, src, 1024);
	CHECK_EQ(rt_nresp(&t), 0);
	rq = &t.qp->rq;
	slot = rq_ring_slot(rq, 0);
	if (f == WQE_FORMAT_RXE)
		put32(slot + 28, 0xffffffffu); /* dma.num_sge */
	else
		memset(slot + 20, 0xee, 4); /* segment 1's lkey */
	rt_req(&t, &p, WQE_WIRE_RC_SEND_LAST, RT_FIRST_PSN + 1);
	p.bth.ackreq = 1;
	rt_feed(&t, &p, src + 1024, 500);
	CHECK_EQ(rt_poll(&t, wc, 4), 2);
	CHECK_EQ(wc[0].wr_id, 7);
	CHECK_EQ(wc[0].status, f == WQE_FORMAT_RXE ? WQE_WC_LOC_QP_OP_ERR : WQE_WC_LOC_PROT_ERR);
	CHECK_EQ(wc[1].wr_id, 8);
	CHECK_EQ(wc[1].status, WQE_WC_WR_FLUSH_ERR);
	CHECK_EQ(rt_nresp(&t), 1);
	rt_check_ack(&t, 0, WQE_AETH_NAK_REM_OP_ERR, RT_FIRST_PSN + 1, 0);
	CHECK_EQ(rt_qpc(&t)->state, WQE_QPS_ERR);
	/* The FIRST's 1024 bytes, nothing of the LAST. */
	CHECK_EQ(rt_canary_bad(dst, sizeof(dst), 0, 1024, 0xa5), 0);
	CHECK_MEM(dst, src, 1024);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	rt_close(&t);
}

int main(void)
{
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};

	for (int s = 0; s < NSPOIL; s++)
		for (size_t t = 0; t < 3; t++)
			one_case(types[t], (enum spoil)s);
	rewritten_midway();
	return test_finish();
}
