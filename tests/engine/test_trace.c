/* SPDX-License-Identifier: MIT */
/* The engine's event trace: a request's life as the NIC sees it. */
#include <string.h>

#include "testutil.h"
#include "wqe/link.h"
#include "wqe/trace.h"
#include "wqe/verbs.h"

#define MAXEV 64

static struct wqe_trace_event ev[MAXEV];
static struct wqe_desc descs[MAXEV];
static int nev;

static void on_event(void *arg, const struct wqe_trace_event *e)
{
	(void)arg;
	if (nev == MAXEV)
		return;
	ev[nev] = *e;
	if (e->desc) {
		descs[nev] = *e->desc;
		ev[nev].desc = &descs[nev];
	}
	nev++;
}

int main(void)
{
	static uint8_t buf[8192];
	struct wqe_context *ctx = wqe_open_context(NULL);
	struct wqe_pd *pd = wqe_alloc_pd(ctx);
	struct wqe_cq *cq = wqe_create_cq(ctx, 64);
	struct wqe_link *sink = wqe_link_sink_create(64);
	struct wqe_mr *mr = wqe_reg_mr(pd, buf, sizeof(buf), WQE_ACCESS_LOCAL_WRITE);
	struct wqe_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = WQE_QPT_UC,
				      .cap = {8, 8, 2, 1, 0}};
	struct wqe_qp *qp = wqe_create_qp(pd, &ia);
	struct wqe_sge s = {(uint64_t)(uintptr_t)buf, 2500, mr->lkey};
	struct wqe_send_wr w = {.wr_id = 9, .sg_list = &s, .num_sge = 1,
				.opcode = WQE_WR_RDMA_WRITE, .send_flags = WQE_SEND_SIGNALED},
			   *bad;
	struct wqe_qp_dv dv;
	struct wqe_wc wc[2];
	int i, tx = 0;

	CHECK(qp && sink && mr);
	CHECK_EQ(test_qp_to_rts(qp, WQE_QPT_UC, 0x99, WQE_MTU_1024), 0);
	CHECK_EQ(wqe_context_attach_link(ctx, sink), 0);
	CHECK_EQ(wqe_context_set_trace(ctx, on_event, NULL), 0);
	CHECK_EQ(wqe_qp_dv_query(qp, &dv), 0);
	CHECK_EQ(dv.sq_pi, 0);
	w.wr.rdma.rkey = 3;
	CHECK_EQ(wqe_post_send(qp, &w, &bad), 0);
	CHECK_EQ(wqe_qp_dv_query(qp, &dv), 0);
	CHECK_EQ(dv.sq_pi, 1);
	CHECK(dv.sq_buf[3] == 0x08); /* RDMA_WRITE in the ring */
	CHECK_EQ(wqe_poll_cq(cq, 2, wc), 1);
	CHECK_EQ(ev[0].kind, WQE_TRACE_DOORBELL);
	CHECK_EQ(ev[0].qpn, wqe_qp_num(qp));
	CHECK_EQ(ev[1].kind, WQE_TRACE_FETCH);
	CHECK_EQ(ev[1].wqe_counter, 0);
	CHECK_EQ(ev[1].fetch_blocks, 1);
	CHECK_EQ(ev[1].payload_reads, 1);
	CHECK(ev[1].desc && ev[1].desc->op == WQE_OP_RDMA_WRITE && ev[1].desc->total_len == 2500);
	for (i = 2; i < nev && ev[i].kind == WQE_TRACE_TX; i++, tx++)
		CHECK_EQ(ev[i].wqe_counter, 0);
	CHECK_EQ(tx, 3);
	CHECK(i < nev);
	CHECK_EQ(ev[i].kind, WQE_TRACE_CQE);
	CHECK_EQ(ev[i].status, WQE_WC_SUCCESS);
	CHECK_EQ(ev[i].byte_len, 2500);
	/* A bad lkey: CHECK_FAIL naming the check and the SGE, then the CQE. */
	nev = 0;
	s.lkey ^= 0x300;
	CHECK_EQ(wqe_post_send(qp, &w, &bad), 0);
	CHECK_EQ(wqe_poll_cq(cq, 2, wc), 1);
	CHECK_EQ(ev[1].kind, WQE_TRACE_CHECK_FAIL);
	CHECK_EQ(ev[1].check, WQE_CHECK_LKEY);
	CHECK_EQ(ev[1].sge_index, 0);
	CHECK_EQ(ev[1].status, WQE_WC_LOC_PROT_ERR);
	CHECK(ev[1].reason && strlen(ev[1].reason) > 0);
	CHECK_EQ(ev[1].wqe_counter, 1);
	CHECK_EQ(ev[2].kind, WQE_TRACE_CQE);
	CHECK(strcmp(wqe_trace_kind_str(WQE_TRACE_RETRY), "RETRY") == 0);
	CHECK(strcmp(wqe_check_str(WQE_CHECK_OPCODE), "opcode legal on the transport") == 0);
	wqe_destroy_qp(qp);
	wqe_context_attach_link(ctx, NULL);
	wqe_link_destroy(sink);
	wqe_dereg_mr(mr);
	wqe_destroy_cq(cq);
	wqe_dealloc_pd(pd);
	CHECK_EQ(wqe_close_context(ctx), 0);
	return test_finish();
}
