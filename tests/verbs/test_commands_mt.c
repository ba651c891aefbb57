/* SPDX-License-Identifier: MIT */
/*
 * Commands from several threads at once (wqe/verbs.h, "Threading"): four
 * threads each create and destroy PDs, MRs, CQs (on a shared completion
 * channel), QPs and AHs on one context, modify and query their QPs and
 * read statistics, 200 rounds each, while that context's NIC runs on its
 * own thread and a QP of it takes RDMA WRITEs from a second context over
 * a loopback link. Afterwards every object is gone (the context closes),
 * the WRITEs all completed with their bytes, and nothing was lost or
 * counted twice. Under ThreadSanitizer (label threaded) this is the check
 * that the command lock and the driver's atomic counters cover every
 * command.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "testutil.h"
#include "wqe/link.h"

#define NTHREADS 4
#define ROUNDS 200
#define NWRITES 2048 /* a multiple of the 64 slots: each ends with message NWRITES - 64 + slot */

static struct wqe_context *ctx;      /* the one the threads share */
static struct wqe_comp_channel *chan;
static unsigned failures[NTHREADS];

static void addr_of(int idx, struct wqe_context_attr *ca)
{
	memset(ca, 0, sizeof(*ca));
	ca->format = test_format();
	ca->nic_mode = WQE_NIC_THREAD;
	ca->mac[0] = 2;
	ca->mac[5] = (uint8_t)idx;
	ca->num_gids = 1;
	test_gid_v4(&ca->gid[0], 192, 0, 2, (uint8_t)idx);
}

/* One thread's rounds; counts what went wrong instead of CHECKing (the
 * harness's counters are not shared between threads). */
static void *churn(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, bad = 0;
	static uint8_t bufs[NTHREADS][4096];

	for (int r = 0; r < ROUNDS; r++) {
		struct wqe_pd *pd = wqe_alloc_pd(ctx);
		struct wqe_cq_init_attr_ex cqa = {.cqe = 16, .channel = chan};
		struct wqe_cq *cq = wqe_create_cq_ex(ctx, &cqa);
		struct wqe_mr *mr = pd ? wqe_reg_mr(pd, bufs[id], sizeof(bufs[id]),
						    WQE_ACCESS_LOCAL_WRITE) : NULL;
		struct wqe_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq,
					      .qp_type = (enum wqe_qp_type)(r % 3 == 0 ? WQE_QPT_RC
									: r % 3 == 1 ? WQE_QPT_UC
										     : WQE_QPT_UD),
					      .cap = {.max_send_wr = 4, .max_recv_wr = 4,
						      .max_send_sge = 1, .max_recv_sge = 1}};
		struct wqe_qp *qp = pd && cq ? wqe_create_qp(pd, &ia) : NULL;
		struct wqe_ah_attr aa = {.port_num = 1, .dmac = {2, 0, 0, 0, 0, 2}};
		struct wqe_ah *ah;
		struct wqe_qp_attr qa;
		struct wqe_qp_stats st;
		struct wqe_port_stats ps;
		int mask;

		test_gid_v4(&aa.grh.dgid, 192, 0, 2, 2);
		ah = pd ? wqe_create_ah(pd, &aa) : NULL;
		if (!pd || !cq || !mr || !qp || !ah) {
			bad++;
			continue;
		}
		test_qp_attr_for(ia.qp_type, WQE_QPS_INIT, &qa, &mask, 0x12, WQE_MTU_1024);
		bad += wqe_modify_qp(qp, &qa, mask) != 0;
		bad += wqe_query_qp(qp, &qa, 0, NULL) != 0 || qa.qp_state != WQE_QPS_INIT;
		bad += wqe_query_qp_stats(qp, &st) != 0;
		bad += wqe_context_port_stats(ctx, &ps) != 0;
		bad += wqe_req_notify_cq(cq, 0) != 0;
		bad += wqe_destroy_ah(ah) != 0;
		bad += wqe_destroy_qp(qp) != 0;
		bad += wqe_dereg_mr(mr) != 0;
		bad += wqe_destroy_cq(cq) != 0;
		bad += wqe_dealloc_pd(pd) != 0;
	}
	failures[id] = bad;
	return NULL;
}

/* RESET -> RTS towards QP @dest_qpn of the context numbered @peer. */
static int to_rts(struct wqe_qp *qp, uint32_t dest_qpn, int peer)
{
	static const enum wqe_qp_state steps[] = {WQE_QPS_INIT, WQE_QPS_RTR, WQE_QPS_RTS};

	for (size_t i = 0; i < 3; i++) {
		struct wqe_qp_attr a;
		int mask, err;

		test_qp_attr_for(WQE_QPT_RC, steps[i], &a, &mask, dest_qpn, WQE_MTU_1024);
		if (steps[i] == WQE_QPS_RTR) {
			a.ah_attr.dmac[5] = (uint8_t)peer;
			test_gid_v4(&a.ah_attr.grh.dgid, 192, 0, 2, (uint8_t)peer);
		}
		err = wqe_modify_qp(qp, &a, mask);
		if (err)
			return err;
	}
	return 0;
}

int main(void)
{
	struct wqe_context_attr ca;
	struct wqe_link *lo = wqe_link_loopback_create();
	struct wqe_context *peer;
	struct wqe_pd *pd, *ppd;
	struct wqe_cq *cq, *pcq;
	struct wqe_qp *qp, *pqp;
	struct wqe_mr *mr, *pmr;
	static uint8_t dst[64 * 64], src[64 * 64];
	pthread_t t[NTHREADS];
	struct wqe_qp_init_attr ia = {.qp_type = WQE_QPT_RC,
				      .cap = {.max_send_wr = 64, .max_recv_wr = 1,
					      .max_send_sge = 1, .max_recv_sge = 1}};
	int done = 0;

	addr_of(1, &ca);
	ctx = wqe_open_context(&ca);
	addr_of(2, &ca);
	peer = wqe_open_context(&ca);
	CHECK(ctx && peer && lo);
	if (!ctx || !peer || !lo)
		return test_finish();
	CHECK_EQ(wqe_context_attach_link(ctx, lo), 0);
	CHECK_EQ(wqe_context_attach_link(peer, lo), 0);
	chan = wqe_create_comp_channel(ctx);
	pd = wqe_alloc_pd(ctx);
	ppd = wqe_alloc_pd(peer);
	cq = wqe_create_cq(ctx, 64);
	pcq = wqe_create_cq(peer, 4096);
	ia.send_cq = ia.recv_cq = cq;
	qp = wqe_create_qp(pd, &ia);
	ia.send_cq = ia.recv_cq = pcq;
	pqp = wqe_create_qp(ppd, &ia);
	mr = wqe_reg_mr(pd, dst, sizeof(dst), WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	pmr = wqe_reg_mr(ppd, src, sizeof(src), WQE_ACCESS_LOCAL_WRITE);
	CHECK(chan && qp && pqp && mr && pmr);
	if (!chan || !qp || !pqp || !mr || !pmr)
		return test_finish();
	CHECK_EQ(to_rts(qp, wqe_qp_num(pqp), 2), 0);
	CHECK_EQ(to_rts(pqp, wqe_qp_num(qp), 1), 0);

	for (unsigned i = 0; i < NTHREADS; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)i), 0);
	/* Meanwhile the peer WRITEs into ctx's memory, 64 bytes to each of 64
	 * slots in turn, the last byte the message's number. */
	for (int i = 0; i < NWRITES; i++) {
		struct wqe_sge s = {(uint64_t)(uintptr_t)&src[(i % 64) * 64], 64, pmr->lkey};
		struct wqe_send_wr w = {.wr_id = (uint64_t)i, .sg_list = &s, .num_sge = 1,
					.opcode = WQE_WR_RDMA_WRITE, .send_flags = WQE_SEND_SIGNALED};
		struct wqe_send_wr *bad;
		struct wqe_wc wc[16];

		/* At most 32 outstanding: the slot's previous message (64
		 * before) has completed, so its bytes were read, before the
		 * slot is written again. */
		while (i - done >= 32) {
			int n = wqe_poll_cq(pcq, 16, wc);

			for (int k = 0; k < n; k++)
				CHECK_EQ(wc[k].status, WQE_WC_SUCCESS);
			done += n > 0 ? n : 0;
		}
		src[(i % 64) * 64 + 63] = (uint8_t)i;
		w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)&dst[(i % 64) * 64];
		w.wr.rdma.rkey = mr->rkey;
		CHECK_EQ(wqe_post_send(pqp, &w, &bad), 0);
	}
	done += test_wait_cq(peer, ctx, pcq, NWRITES - done, (struct wqe_wc[NWRITES]){0}, 30.0);
	CHECK_EQ(done, NWRITES);
	for (unsigned i = 0; i < NTHREADS; i++) {
		CHECK_EQ(pthread_join(t[i], NULL), 0);
		CHECK_EQ(failures[i], 0);
	}
	{
		struct wqe_qp_stats st;

		/* The command orders this thread after the NIC's writes. */
		CHECK_EQ(wqe_query_qp_stats(qp, &st), 0);
		CHECK_EQ(st.messages_received, NWRITES);
		CHECK_EQ(st.bytes_placed, NWRITES * 64u);
		for (int k = 0; k < 64; k++)
			CHECK_EQ(dst[k * 64 + 63], (uint8_t)(NWRITES - 64 + k));
	}
	CHECK_EQ(wqe_destroy_qp(qp), 0);
	CHECK_EQ(wqe_destroy_qp(pqp), 0);
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(pmr), 0);
	CHECK_EQ(wqe_destroy_cq(cq), 0);
	CHECK_EQ(wqe_destroy_cq(pcq), 0);
	CHECK_EQ(wqe_destroy_comp_channel(chan), 0);
	CHECK_EQ(wqe_dealloc_pd(pd), 0);
	CHECK_EQ(wqe_dealloc_pd(ppd), 0);
	CHECK_EQ(wqe_context_attach_link(ctx, NULL), 0);
	CHECK_EQ(wqe_context_attach_link(peer, NULL), 0);
	CHECK_EQ(wqe_close_context(ctx), 0);
	CHECK_EQ(wqe_close_context(peer), 0);
	CHECK_EQ(wqe_link_destroy(lo), 0);
	return test_finish();
}
