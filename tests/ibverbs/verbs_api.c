/* SPDX-License-Identifier: MIT */
/*
 * The drop-in through libibverbs' own header, beyond what the Debian
 * programs use: built against the system's <infiniband/verbs.h> and
 * linked with -libverbs, run with the drop-in first on LD_LIBRARY_PATH and
 * two devices in this process (WQE_IBV_LOCAL, two addresses of 127/8):
 *  - an RC pair whose MRs have an iova that is not their address
 *    (ibv_reg_mr_iova2): WRITE and READ by iova, data checked;
 *  - the extended QP (ibv_create_qp_ex, ibv_wr_*) and CQ
 *    (ibv_create_cq_ex, start/next/end_poll, read_*): SEND with immediate,
 *    inline data whose buffer is reused before ibv_wr_complete();
 *  - UD: a reply address from the GRH (ibv_create_ah_from_wc);
 *  - what a RoCE device refuses: RTR without a GRH (EINVAL), an SRQ
 *    (EOPNOTSUPP), a QP on an SRQ;
 *  - ibv_close_device() with objects left.
 * Exit 0 and "N passed, 0 failed", or 1 naming each failed check.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int checks, fails;

#define CHECK(c)                                                                               \
	do {                                                                                   \
		checks++;                                                                      \
		if (!(c)) {                                                                    \
			fails++;                                                               \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);          \
		}                                                                              \
	} while (0)

#define LEN 16384
#define IOVA 0x200000000000ull

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
};

static int poll1(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 10)
			return 0;
	}
}

static int to_rts(struct ibv_qp *qp, enum ibv_qp_type t, uint32_t dqpn, const union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1,
				.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
				.qkey = 0x11111111};
	int m = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		(t == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);

	if (ibv_modify_qp(qp, &a, m))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	m = IBV_QP_STATE;
	if (t == IBV_QPT_RC) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dqpn;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = *dgid;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		m |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	if (ibv_modify_qp(qp, &a, m))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	m = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (t == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, m);
}

static void side_open(struct side *s, struct ibv_device *d, enum ibv_qp_type t, uint64_t iova)
{
	struct ibv_cq_init_attr_ex cqa = {.cqe = 64,
					  .wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
						      IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP};
	struct ibv_qp_init_attr_ex qa = {
	    .qp_type = t,
	    .cap = {.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1,
		    .max_inline_data = 64},
	    .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	    .send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			      IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ};

	s->ctx = ibv_open_device(d);
	CHECK(s->ctx);
	if (!s->ctx)
		exit(1);
	CHECK(ibv_query_gid(s->ctx, 1, 0, &s->gid) == 0);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cqx = ibv_create_cq_ex(s->ctx, &cqa);
	CHECK(s->pd && s->cqx);
	s->cq = ibv_cq_ex_to_cq(s->cqx);
	s->buf = calloc(1, LEN);
	s->mr = ibv_reg_mr_iova2(s->pd, s->buf, LEN, iova,
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_REMOTE_READ);
	CHECK(s->mr);
	qa.pd = s->pd;
	qa.send_cq = qa.recv_cq = s->cq;
	s->qp = ibv_create_qp_ex(s->ctx, &qa);
	CHECK(s->qp && ibv_qp_to_qp_ex(s->qp));
}

static void side_close(struct side *s)
{
	CHECK(ibv_destroy_qp(s->qp) == 0);
	CHECK(ibv_dereg_mr(s->mr) == 0);
	CHECK(ibv_destroy_cq(s->cq) == 0);
	CHECK(ibv_dealloc_pd(s->pd) == 0);
	CHECK(ibv_close_device(s->ctx) == 0);
	free(s->buf);
}

static void post_recv(struct side *s, uint64_t addr, uint32_t len)
{
	struct ibv_sge g = {addr, len, s->mr->lkey};
	struct ibv_recv_wr r = {.wr_id = 7, .sg_list = &g, .num_sge = 1}, *bad;

	CHECK(ibv_post_recv(s->qp, &r, &bad) == 0);
}

static void rc(struct ibv_device **l)
{
	struct side a, b;
	struct ibv_wc wc;
	struct ibv_poll_cq_attr pa = {0};
	struct ibv_qp_ex *x;
	char msg[32];

	side_open(&a, l[0], IBV_QPT_RC, IOVA);
	side_open(&b, l[1], IBV_QPT_RC, IOVA + 0x10000);
	CHECK(to_rts(a.qp, IBV_QPT_RC, b.qp->qp_num, &b.gid) == 0);
	CHECK(to_rts(b.qp, IBV_QPT_RC, a.qp->qp_num, &a.gid) == 0);
	for (int i = 0; i < LEN; i++)
		a.buf[i] = (uint8_t)(i * 13 + 5);
	/* WRITE 5000 bytes by iova, then READ them back by iova */
	x = ibv_qp_to_qp_ex(a.qp);
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, b.mr->rkey, IOVA + 0x10000 + 300);
	ibv_wr_set_sge(x, a.mr->lkey, IOVA + 10, 5000);
	CHECK(ibv_wr_complete(x) == 0);
	CHECK(poll1(a.cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 1);
	CHECK(memcmp(b.buf + 300, a.buf + 10, 5000) == 0 && b.buf[299] == 0);
	ibv_wr_start(x);
	x->wr_id = 2;
	ibv_wr_rdma_read(x, b.mr->rkey, IOVA + 0x10000 + 300);
	ibv_wr_set_sge(x, a.mr->lkey, IOVA + 8000, 5000);
	CHECK(ibv_wr_complete(x) == 0);
	CHECK(poll1(a.cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_READ);
	CHECK(memcmp(a.buf + 8000, a.buf + 10, 5000) == 0);
	/* SEND_WITH_IMM of inline data, the buffer changed before complete */
	post_recv(&b, IOVA + 0x10000 + 9000, 64);
	ibv_wr_start(x);
	x->wr_id = 3;
	strcpy(msg, "inline, copied at the call");
	ibv_wr_send_imm(x, htonl(0xabcd0123));
	ibv_wr_set_inline_data(x, msg, strlen(msg) + 1);
	memset(msg, 'X', sizeof(msg));
	CHECK(ibv_wr_complete(x) == 0);
	CHECK(poll1(a.cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
	/* the receive through the extended CQ's polling API */
	{
		struct timespec t0, t;
		int r;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			r = ibv_start_poll(b.cqx, &pa);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (r == ENOENT && t.tv_sec - t0.tv_sec < 10);
		CHECK(r == 0);
		if (r == 0) {
			CHECK(b.cqx->status == IBV_WC_SUCCESS && b.cqx->wr_id == 7);
			CHECK(ibv_wc_read_opcode(b.cqx) == IBV_WC_RECV);
			CHECK(ibv_wc_read_byte_len(b.cqx) == strlen("inline, copied at the call") + 1);
			CHECK(ibv_wc_read_imm_data(b.cqx) == htonl(0xabcd0123));
			CHECK(ibv_wc_read_wc_flags(b.cqx) & IBV_WC_WITH_IMM);
			CHECK(ibv_wc_read_qp_num(b.cqx) == b.qp->qp_num);
			CHECK(ibv_next_poll(b.cqx) == ENOENT);
			ibv_end_poll(b.cqx);
		}
		CHECK(strcmp((char *)b.buf + 9000, "inline, copied at the call") == 0);
	}
	/* the query reads back what was set, and qp->state follows */
	{
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr ia;

		CHECK(ibv_query_qp(a.qp, &qa, IBV_QP_STATE, &ia) == 0);
		CHECK(qa.qp_state == IBV_QPS_RTS && a.qp->state == IBV_QPS_RTS);
		CHECK(qa.ah_attr.is_global && !memcmp(&qa.ah_attr.grh.dgid, &b.gid, 16));
		CHECK(qa.dest_qp_num == b.qp->qp_num && ia.qp_type == IBV_QPT_RC);
	}
	side_close(&a);
	side_close(&b);
}

static void ud(struct ibv_device **l)
{
	struct side a, b;
	struct ibv_wc wc;
	struct ibv_ah_attr aa = {.is_global = 1, .port_num = 1};
	struct ibv_ah *ah, *back;
	struct ibv_sge g;
	struct ibv_send_wr w = {0}, *bad;

	side_open(&a, l[0], IBV_QPT_UD, 0x1000);
	side_open(&b, l[1], IBV_QPT_UD, 0x1000);
	CHECK(to_rts(a.qp, IBV_QPT_UD, 0, NULL) == 0);
	CHECK(to_rts(b.qp, IBV_QPT_UD, 0, NULL) == 0);
	aa.grh.dgid = b.gid;
	ah = ibv_create_ah(a.pd, &aa);
	CHECK(ah);
	post_recv(&b, 0x1000, 40 + 100);
	memcpy(a.buf, "datagram", 9);
	g = (struct ibv_sge){0x1000, 9, a.mr->lkey};
	w.wr_id = 5;
	w.sg_list = &g;
	w.num_sge = 1;
	w.opcode = IBV_WR_SEND;
	w.send_flags = IBV_SEND_SIGNALED;
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = b.qp->qp_num;
	w.wr.ud.remote_qkey = 0x11111111;
	CHECK(ibv_post_send(a.qp, &w, &bad) == 0);
	CHECK(poll1(a.cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
	CHECK(poll1(b.cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
	CHECK((wc.wc_flags & IBV_WC_GRH) && wc.byte_len == 40 + 9 && wc.src_qp == a.qp->qp_num);
	CHECK(memcmp(b.buf + 40, "datagram", 9) == 0);
	/* the reply address: A's GID, from the GRH */
	{
		struct ibv_ah_attr ra;

		CHECK(ibv_init_ah_from_wc(b.ctx, 1, &wc, (struct ibv_grh *)(void *)b.buf, &ra) == 0);
		CHECK(ra.is_global && !memcmp(&ra.grh.dgid, &a.gid, 16));
	}
	back = ibv_create_ah_from_wc(b.pd, &wc, (struct ibv_grh *)(void *)b.buf, 1);
	CHECK(back);
	CHECK(back && ibv_destroy_ah(back) == 0);
	CHECK(ibv_destroy_ah(ah) == 0);
	side_close(&a);
	side_close(&b);
}

static void refused(struct ibv_device **l)
{
	struct ibv_context *c = ibv_open_device(l[0]);
	struct ibv_pd *pd = c ? ibv_alloc_pd(c) : NULL;
	struct ibv_cq *cq = c ? ibv_create_cq(c, 16, NULL, NULL, 0) : NULL;
	struct ibv_qp_init_attr qa = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				      .cap = {.max_send_wr = 4, .max_recv_wr = 4,
					      .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_srq_init_attr sa = {.attr = {.max_wr = 16, .max_sge = 1}};
	struct ibv_qp *qp;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};
	void *left = malloc(64);

	CHECK(c && pd && cq);
	if (!c || !pd || !cq)
		return;
	qp = ibv_create_qp(pd, &qa);
	CHECK(qp);
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS) == 0);
	/* RTR with a LID-only address: RoCE refuses it, as rxe does */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = 0x12;
	a.max_dest_rd_atomic = 1;
	a.ah_attr.dlid = 1;
	a.ah_attr.port_num = 1;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER) == EINVAL);
	CHECK(qp->state == IBV_QPS_INIT);
	/* SRQs: the basic type through both calls, XRC refused; a QP on one
	 * has no RQ of its own; the objects are left to ibv_close_device() */
	{
		struct ibv_srq *srq = ibv_create_srq(pd, &sa);
		struct ibv_srq_init_attr_ex sx = {.attr = {.max_wr = 8, .max_sge = 1},
						  .comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
							       IBV_SRQ_INIT_ATTR_PD,
						  .srq_type = IBV_SRQT_BASIC, .pd = pd};
		struct ibv_srq *srq2 = ibv_create_srq_ex(c, &sx);
		struct ibv_srq_attr q = {0};
		struct ibv_qp_init_attr qa2 = qa, got;
		struct ibv_qp_attr qattr;
		struct ibv_sge g = {(uint64_t)(uintptr_t)left, 64, 0};
		struct ibv_recv_wr r = {.wr_id = 1, .sg_list = &g, .num_sge = 1}, *bad = NULL;
		struct ibv_qp *qp2;

		CHECK(srq && srq2);
		if (!srq || !srq2)
			return;
		CHECK(sa.attr.max_wr >= 16 && sx.attr.max_wr >= 8);
		CHECK(ibv_query_srq(srq, &q) == 0 && q.max_wr == sa.attr.max_wr && q.srq_limit == 0);
		q.srq_limit = 4;
		CHECK(ibv_modify_srq(srq, &q, IBV_SRQ_LIMIT) == 0);
		CHECK(ibv_query_srq(srq, &q) == 0 && q.srq_limit == 4);
		CHECK(ibv_modify_srq(srq, &q, IBV_SRQ_MAX_WR) == EINVAL);
		CHECK(ibv_destroy_srq(srq2) == 0);
		sx.srq_type = IBV_SRQT_XRC;
		errno = 0;
		CHECK(!ibv_create_srq_ex(c, &sx) && errno == EOPNOTSUPP);
		qa2.srq = srq;
		qp2 = ibv_create_qp(pd, &qa2);
		CHECK(qp2 && qp2->srq == srq && qa2.cap.max_recv_wr == 0);
		if (!qp2)
			return;
		CHECK(ibv_query_qp(qp2, &qattr, IBV_QP_CAP, &got) == 0 && got.srq == srq);
		CHECK(ibv_post_srq_recv(srq, &r, &bad) == 0);
		r.num_sge = 2; /* more than max_sge */
		CHECK(ibv_post_srq_recv(srq, &r, &bad) == EINVAL && bad == &r);
		r.num_sge = 1;
		CHECK(ibv_post_recv(qp2, &r, &bad) == EINVAL);
		CHECK(ibv_destroy_srq(srq) == EBUSY);
	}
	/* objects left: ibv_close_device() frees them */
	CHECK(ibv_reg_mr(pd, left, 64, IBV_ACCESS_LOCAL_WRITE) != NULL);
	CHECK(ibv_close_device(c) == 0);
	free(left);
	/* and the device opens again (its port free again) */
	c = ibv_open_device(l[0]);
	CHECK(c);
	CHECK(c && ibv_close_device(c) == 0);
}

int main(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);

	CHECK(l && n == 2);
	if (!l || n != 2)
		return 1;
	CHECK(!strcmp(ibv_get_device_name(l[0]), "wqe0"));
	rc(l);
	ud(l);
	refused(l);
	ibv_free_device_list(l);
	printf("%d passed, %d failed\n", checks - fails, fails);
	return fails ? 1 : 0;
}
