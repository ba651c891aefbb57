/* SPDX-License-Identifier: MIT */
/*
 * wqe demo, closing part: requests that post-time validation refuses.
 * They go through the real wqe_post_send() of QPs in RTS, which checks
 * everything knowable from the request and the QP before a byte reaches
 * the ring (DESIGN.md: none of these may ever become a packet).
 */
#include <errno.h>
#include <string.h>

#include "cli.h"

#define HEX29 "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbc"

struct rejected {
	enum wqe_qp_type t;
	const char *why;
	const char *text;
};

static const struct rejected rejects[] = {
	{WQE_QPT_UD, "RDMA_READ on a UD QP: UD carries SEND and SEND_WITH_IMM only",
	 "read id=13 sge=buf:64:buf.lkey raddr=remote rkey=remote.rkey"},
	{WQE_QPT_RC, "inline data on an RDMA_READ: only SEND and WRITE carry it",
	 "read id=14 raddr=remote rkey=remote.rkey inline=00112233 flags=signaled"},
	{WQE_QPT_RC, "29 bytes inline on a QP whose max_inline_data is 28",
	 "write id=15 raddr=remote rkey=remote.rkey inline=" HEX29},
	{WQE_QPT_RC, "an atomic whose SGE is not 8 bytes",
	 "faa id=16 sge=result:16:result.lkey raddr=remote rkey=remote.rkey add=1"},
	{WQE_QPT_RC, "an atomic whose remote address is not 8-byte aligned",
	 "cas id=17 sge=result:8:result.lkey raddr=remote+4 rkey=remote.rkey swap=1"},
};

struct demo_verbs {
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *cq;
	struct wqe_qp *rc;
	struct wqe_qp *ud;
};

static struct wqe_qp *make_qp(struct demo_verbs *v, enum wqe_qp_type t)
{
	struct wqe_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = v->cq;
	ia.recv_cq = v->cq;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 28;
	ia.qp_type = t;
	return wqe_create_qp(v->pd, &ia);
}

/* RESET -> INIT -> RTR -> RTS with the attributes each transition requires. */
static int to_rts(struct wqe_qp *qp, enum wqe_qp_type t)
{
	struct wqe_qp_attr a;
	int rc_uc = t != WQE_QPT_UD;

	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111;
	a.qp_access_flags = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ;
	if (wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT |
					  (rc_uc ? WQE_QP_ACCESS_FLAGS : WQE_QP_QKEY)))
		return -1;
	a.qp_state = WQE_QPS_RTR;
	a.path_mtu = WQE_MTU_1024;
	a.dest_qp_num = 0x000456;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid.raw[10] = 0xff;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	a.ah_attr.grh.dgid.raw[12] = 192;
	a.ah_attr.grh.dgid.raw[15] = 2;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	if (wqe_modify_qp(qp, &a, WQE_QP_STATE |
					  (rc_uc ? WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN |
							   WQE_QP_RQ_PSN | WQE_QP_MAX_DEST_RD_ATOMIC |
							   WQE_QP_MIN_RNR_TIMER
						 : 0)))
		return -1;
	a.qp_state = WQE_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_SQ_PSN |
					     (rc_uc ? WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT |
							      WQE_QP_RNR_RETRY | WQE_QP_MAX_QP_RD_ATOMIC
						    : 0))
		       ? -1
		       : 0;
}

static void teardown(struct demo_verbs *v)
{
	if (v->rc)
		wqe_destroy_qp(v->rc);
	if (v->ud)
		wqe_destroy_qp(v->ud);
	if (v->cq)
		wqe_destroy_cq(v->cq);
	if (v->pd)
		wqe_dealloc_pd(v->pd);
	if (v->ctx)
		wqe_close_context(v->ctx);
}

static int setup(struct demo_verbs *v)
{
	struct wqe_qp_attr a;
	struct wqe_qp_init_attr ia;

	memset(v, 0, sizeof(*v));
	v->ctx = wqe_open_context(NULL);
	v->pd = v->ctx ? wqe_alloc_pd(v->ctx) : NULL;
	v->cq = v->pd ? wqe_create_cq(v->ctx, 64) : NULL;
	v->rc = v->cq ? make_qp(v, WQE_QPT_RC) : NULL;
	v->ud = v->rc ? make_qp(v, WQE_QPT_UD) : NULL;
	if (!v->ud || to_rts(v->rc, WQE_QPT_RC) || to_rts(v->ud, WQE_QPT_UD))
		return -1;
	wqe_query_qp(v->rc, &a, 0, &ia);
	printf("RC QP 0x%06x and UD QP 0x%06x created (asked: 1 SGE, 28 B inline), now in %s; "
	       "RC max_inline_data %u\n",
	       wqe_qp_num(v->rc), wqe_qp_num(v->ud), wqe_qp_state_str(a.qp_state),
	       a.cap.max_inline_data);
	return 0;
}

static int parse_rejected(const struct rejected *r, struct wqe_text_wr *req)
{
	struct wqe_text_opts opts = {r->t, demo_resolve, NULL};
	struct wqe_text_err err;

	if (wqe_parse_send_wr(r->text, strlen(r->text), &opts, req, &err)) {
		printf("  parse error at column %u: %s\n", err.column, err.msg);
		return -1;
	}
	return 0;
}

static int post_rejected(struct demo_verbs *v, const struct rejected *r,
			 struct wqe_text_wr *req)
{
	struct wqe_send_wr *bad = NULL;
	int err;

	printf("\n%s\n  request (%s): %s\n", r->why, wqe_qp_type_str(r->t), r->text);
	if (parse_rejected(r, req))
		return -1;
	err = wqe_post_send(r->t == WQE_QPT_UD ? v->ud : v->rc, &req->wr, &bad);
	printf("  wqe_post_send -> %s, *bad_wr %s\n",
	       err == EINVAL ? "EINVAL" : err == ENOMEM ? "ENOMEM" : err ? "error" : "0 (posted!)",
	       bad == &req->wr ? "= this request: nothing of it reached the ring" : "unset");
	return err ? 0 : -1;
}

int demo_rejections(struct wqe_text_wr *req)
{
	struct demo_verbs v;
	int rc = 0;

	printf("\n== Refused at post time: wqe_post_send() on real QPs ");
	for (int i = 0; i < 25; i++)
		putchar('=');
	putchar('\n');
	if (setup(&v)) {
		printf("  the QPs could not be set up (errno %d)\n", errno);
		teardown(&v);
		return -1;
	}
	for (size_t i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++)
		if (post_rejected(&v, &rejects[i], req))
			rc = -1;
	teardown(&v);
	return rc;
}
