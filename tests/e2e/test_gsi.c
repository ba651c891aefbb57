/* SPDX-License-Identifier: MIT */
/*
 * The GSI QP (WQE_QP_CREATE_GSI), the QP the Communication Manager's MADs
 * travel on: QPN 1, one per context, UD only, its Q_Key the well-known
 * 0x80010000 for good. A 256-byte MAD from A's GSI QP reaches B's with
 * source QP 1 and the GRH; an ordinary UD QP asking for Q_Key 0x80010000
 * sends its own instead (the high bit: IBTA 10.2.4, a controlled Q_Key),
 * which B's GSI QP drops; the wrong Q_Key, a P_Key outside B's table, QPN 0, or
 * QPN 1 after B's GSI QP is gone are drops that complete nothing; B makes
 * a new one, numbered 1 again. Every MAD's bytes are checked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pair.h"
#include "testutil.h"
#include "wqe/wire.h"

#define MAD_LEN 256u
#define GRH_LEN 40u

static uint8_t abuf[4096], bbuf[4096];

static struct wqe_qp *gsi_qp(struct ep *e)
{
	struct wqe_qp_init_attr ia;
	struct wqe_qp_attr a;
	struct wqe_qp *q;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = e->scq;
	ia.recv_cq = e->rcq;
	ia.qp_type = WQE_QPT_UD;
	ia.create_flags = WQE_QP_CREATE_GSI;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	q = wqe_create_qp(e->pd, &ia);
	CHECK(q != NULL);
	if (!q)
		return NULL;
	CHECK_EQ(wqe_qp_num(q), 1);
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111; /* not the GSI's: refused, the QP unchanged */
	CHECK_EQ(wqe_modify_qp(q, &a, WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_QKEY),
		 EINVAL);
	a.qkey = WQE_GSI_QKEY;
	CHECK_EQ(wqe_modify_qp(q, &a, WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_QKEY),
		 0);
	a.qp_state = WQE_QPS_RTR;
	CHECK_EQ(wqe_modify_qp(q, &a, WQE_QP_STATE), 0);
	a.qp_state = WQE_QPS_RTS;
	a.sq_psn = 7;
	CHECK_EQ(wqe_modify_qp(q, &a, WQE_QP_STATE | WQE_QP_SQ_PSN), 0);
	return q;
}

static void post_recv(struct wqe_qp *q, struct wqe_mr *mr, uint64_t id)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)bbuf, GRH_LEN + MAD_LEN, mr->lkey};
	struct wqe_recv_wr r = {.wr_id = id, .sg_list = &s, .num_sge = 1}, *bad;

	memset(bbuf, 0xee, sizeof(bbuf));
	CHECK_EQ(wqe_post_recv(q, &r, &bad), 0);
}

/* A's QP @q sends a MAD (bytes from @seed) to B's QPN @qpn with @qkey. */
static void send_mad(struct pair *p, struct wqe_qp *q, struct wqe_mr *mr, uint32_t qpn,
		     uint32_t qkey, uint8_t seed)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)abuf, MAD_LEN, mr->lkey};
	struct wqe_send_wr wr, *bad;
	struct wqe_wc wc;

	for (uint32_t i = 0; i < MAD_LEN; i++)
		abuf[i] = (uint8_t)(seed + i * 3);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = seed;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_SEND;
	wr.send_flags = WQE_SEND_SIGNALED;
	wr.wr.ud.ah = p->a.ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	CHECK_EQ(wqe_post_send(q, &wr, &bad), 0);
	CHECK_EQ(pair_wait(p, p->a.scq, 1, &wc, 1000), 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
}

/* B takes the MAD sent from @src_qp with @seed into receive @id. */
static void expect_mad(struct pair *p, uint32_t src_qp, uint8_t seed, uint64_t id)
{
	struct wqe_wc wc;

	CHECK_EQ(pair_wait(p, p->b.rcq, 1, &wc, 1000), 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, id);
	CHECK_EQ(wc.qp_num, 1);
	CHECK_EQ(wc.src_qp, src_qp);
	CHECK_EQ(wc.byte_len, GRH_LEN + MAD_LEN);
	CHECK(wc.wc_flags & WQE_WC_GRH);
	for (uint32_t i = 0; i < MAD_LEN; i++)
		if (bbuf[GRH_LEN + i] != (uint8_t)(seed + i * 3)) {
			CHECK_EQ(i, MAD_LEN);
			break;
		}
}

/* B's drops for @reason, so far. */
static uint64_t drops(struct pair *p, enum wqe_rx_drop reason)
{
	struct wqe_port_stats s;

	CHECK_EQ(wqe_context_port_stats(p->b.ctx, &s), 0);
	return s.rx_drops[reason];
}

/* Nothing completes at B while both sides make progress. */
static void expect_nothing(struct pair *p)
{
	struct wqe_wc wc;

	pair_spin(p, 20);
	CHECK_EQ(wqe_poll_cq(p->b.rcq, 1, &wc), 0);
}

/* A UD SEND ONLY to B's QPN 1, P_Key @pkey, handed to B as if from the
 * wire (A cannot send on another partition). */
static void receive_pkey(struct pair *p, uint16_t pkey)
{
	struct wqe_pkt k;
	uint8_t mad[MAD_LEN], frame[1024];
	size_t len = 0;

	memset(mad, 0x5a, sizeof(mad));
	memset(&k, 0, sizeof(k));
	k.dmac[0] = 0x02;
	k.dmac[5] = 2;
	k.smac[0] = 0x02;
	k.smac[5] = 1;
	k.ipver = 4;
	k.src.raw[10] = k.src.raw[11] = 0xff;
	k.src.raw[12] = 192;
	k.src.raw[14] = 2;
	k.src.raw[15] = 1;
	k.dst = k.src;
	k.dst.raw[15] = 2;
	k.ttl = 64;
	k.ip_flags = 2;
	k.sport = 0xc001;
	k.bth.opcode = WQE_WIRE_UD_SEND_ONLY;
	k.bth.pkey = pkey;
	k.bth.destqp = 1;
	k.deth.qkey = WQE_GSI_QKEY;
	k.deth.srcqp = 1;
	CHECK_EQ(wqe_pkt_build(&k, mad, sizeof(mad), frame, sizeof(frame), &len), 0);
	CHECK_EQ(wqe_context_receive(p->b.ctx, frame, len), 0);
}

int main(void)
{
	struct pair p;
	struct wqe_qp_init_attr ia, qi;
	struct wqe_qp_attr qa;
	struct wqe_qp *ga, *gb, *again;
	struct wqe_mr *am, *bm;
	uint64_t d;

	CHECK_EQ(pair_open(&p, WQE_QPT_UD, WQE_MTU_1024, NULL, 16), 0);
	am = wqe_reg_mr(p.a.pd, abuf, sizeof(abuf), WQE_ACCESS_LOCAL_WRITE);
	bm = wqe_reg_mr(p.b.pd, bbuf, sizeof(bbuf), WQE_ACCESS_LOCAL_WRITE);
	CHECK(am && bm);

	/* misuse: GSI on RC, an unknown flag */
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = p.a.scq;
	ia.recv_cq = p.a.rcq;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.qp_type = WQE_QPT_RC;
	ia.create_flags = WQE_QP_CREATE_GSI;
	errno = 0;
	CHECK(wqe_create_qp(p.a.pd, &ia) == NULL);
	CHECK_EQ(errno, EINVAL);
	ia.qp_type = WQE_QPT_UD;
	ia.create_flags = 1u << 1;
	errno = 0;
	CHECK(wqe_create_qp(p.a.pd, &ia) == NULL);
	CHECK_EQ(errno, EINVAL);

	ga = gsi_qp(&p.a);
	gb = gsi_qp(&p.b);
	CHECK(ga && gb);
	/* one per context */
	ia.create_flags = WQE_QP_CREATE_GSI;
	errno = 0;
	CHECK(wqe_create_qp(p.a.pd, &ia) == NULL);
	CHECK_EQ(errno, EBUSY);
	CHECK_EQ(wqe_query_qp(ga, &qa, 0, &qi), 0);
	CHECK_EQ(qi.create_flags, WQE_QP_CREATE_GSI);
	CHECK_EQ(qa.qkey, WQE_GSI_QKEY);

	/* GSI to GSI */
	post_recv(gb, bm, 1);
	send_mad(&p, ga, am, 1, WQE_GSI_QKEY, 9);
	expect_mad(&p, 1, 9, 1);

	/* an ordinary QP cannot borrow the controlled Q_Key; the wrong Q_Key,
	 * QPN 0, a P_Key B does not have: drops */
	post_recv(gb, bm, 2);
	d = drops(&p, WQE_RX_DROP_QKEY);
	send_mad(&p, p.a.qp, am, 1, WQE_GSI_QKEY, 33);
	send_mad(&p, ga, am, 1, 0x11111111, 50);
	expect_nothing(&p);
	CHECK_EQ(drops(&p, WQE_RX_DROP_QKEY), d + 2);
	d = drops(&p, WQE_RX_DROP_UNKNOWN_QP);
	send_mad(&p, ga, am, 0, WQE_GSI_QKEY, 51);
	expect_nothing(&p);
	CHECK_EQ(drops(&p, WQE_RX_DROP_UNKNOWN_QP), d + 1);
	if (!getenv("WQE_TEST_IPV6")) { /* receive_pkey() builds IPv4 */
		struct wqe_wc wc;

		d = drops(&p, WQE_RX_DROP_PKEY);
		receive_pkey(&p, 0x1234);
		receive_pkey(&p, 0x7fff); /* the limited member of the default */
		expect_nothing(&p);
		CHECK_EQ(drops(&p, WQE_RX_DROP_PKEY), d + 2);
		receive_pkey(&p, 0xffff); /* and the port's own is taken */
		CHECK_EQ(pair_wait(&p, p.b.rcq, 1, &wc, 1000), 1);
		CHECK_EQ(wc.status, WQE_WC_SUCCESS);
		CHECK_EQ(wc.wr_id, 2);
		CHECK_EQ(wc.src_qp, 1);
	}

	/* without a GSI QP, QPN 1 is unknown; a new one is 1 again */
	CHECK_EQ(wqe_destroy_qp(gb), 0);
	d = drops(&p, WQE_RX_DROP_UNKNOWN_QP);
	send_mad(&p, ga, am, 1, WQE_GSI_QKEY, 60);
	pair_spin(&p, 20);
	CHECK_EQ(drops(&p, WQE_RX_DROP_UNKNOWN_QP), d + 1);
	again = gsi_qp(&p.b);
	CHECK(again != NULL);
	post_recv(again, bm, 4);
	send_mad(&p, ga, am, 1, WQE_GSI_QKEY, 61);
	expect_mad(&p, 1, 61, 4);

	CHECK_EQ(wqe_destroy_qp(again), 0);
	CHECK_EQ(wqe_destroy_qp(ga), 0);
	wqe_dereg_mr(am);
	wqe_dereg_mr(bm);
	pair_close(&p);
	return test_finish();
}
