/* SPDX-License-Identifier: MIT */
#include "notify_util.h"

#include <errno.h>
#include <string.h>

#include "testutil.h"

int nt_open(struct nt_env *e, enum wqe_qp_type t)
{
	struct pair_opts o = pair_defaults;

	memset(e, 0, sizeof(*e));
	o.comp_channel = 1;
	if (pair_open_opts(&e->p, t, WQE_MTU_1024, NULL, 64, &o) ||
	    pair_reg_bufs(&e->p, NT_BUF, &e->a_buf, &e->b_buf, &e->a_mr, &e->b_mr))
		return -1;
	return nt_nonblock(e->p.a.ch) || nt_nonblock(e->p.b.ch) ? -1 : 0;
}

void nt_close(struct nt_env *e)
{
	pair_free_bufs(e->a_buf, e->b_buf, e->a_mr, e->b_mr);
	pair_close(&e->p);
}

int nt_readable(int fd)
{
	return test_fd_readable(fd);
}

int nt_nonblock(struct wqe_comp_channel *ch)
{
	return test_fd_nonblock(ch->fd, 1);
}

int nt_event(struct wqe_comp_channel *ch, struct wqe_cq **cq, void **ctx)
{
	errno = 0;
	if (wqe_get_cq_event(ch, cq, ctx)) {
		CHECK_EQ(errno, EAGAIN);
		return 0;
	}
	wqe_ack_cq_events(*cq, 1);
	return 1;
}

int nt_drain_events(struct wqe_comp_channel *ch)
{
	struct wqe_cq *cq;
	void *ctx;
	int n = 0;

	while (nt_event(ch, &cq, &ctx))
		n++;
	return n;
}

static uint8_t *buf_of(struct nt_env *e, const struct ep *ep, uint32_t *lkey, uint32_t *rkey)
{
	const struct wqe_mr *m = ep == &e->p.a ? e->a_mr : e->b_mr;

	*lkey = m->lkey;
	*rkey = m->rkey;
	return ep == &e->p.a ? e->a_buf : e->b_buf;
}

void nt_recv(struct nt_env *e, struct ep *ep, uint32_t len, uint64_t id)
{
	uint32_t lkey, rkey;
	uint8_t *b = buf_of(e, ep, &lkey, &rkey);
	struct wqe_sge s = {(uint64_t)(uintptr_t)b, len + (e->p.type == WQE_QPT_UD ? 40u : 0u),
			    lkey};
	struct wqe_recv_wr r = {.wr_id = id, .sg_list = &s, .num_sge = 1}, *bad;

	CHECK_EQ(wqe_post_recv(ep->qp, &r, &bad), 0);
}

void nt_send(struct nt_env *e, struct ep *from, enum wqe_wr_opcode op, uint32_t len,
	     unsigned int flags, uint64_t id)
{
	struct ep *to = from == &e->p.a ? &e->p.b : &e->p.a;
	uint32_t lkey, rkey, tl, trkey;
	uint8_t *src = buf_of(e, from, &lkey, &rkey);
	uint8_t *dst = buf_of(e, to, &tl, &trkey);
	struct wqe_sge s = {(uint64_t)(uintptr_t)src, len, lkey};
	struct wqe_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.sg_list = &s;
	w.num_sge = len ? 1 : 0;
	w.opcode = op;
	w.send_flags = WQE_SEND_SIGNALED | flags;
	if (op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_RDMA_WRITE_WITH_IMM)
		w.imm_data = 0x01020304;
	if (op == WQE_WR_RDMA_WRITE || op == WQE_WR_RDMA_WRITE_WITH_IMM) {
		w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)dst;
		w.wr.rdma.rkey = trkey;
	}
	if (e->p.type == WQE_QPT_UD) {
		w.wr.ud.ah = from->ah;
		w.wr.ud.remote_qpn = wqe_qp_num(to->qp);
		w.wr.ud.remote_qkey = 0x11111111;
	}
	CHECK_EQ(wqe_post_send(from->qp, &w, &bad), 0);
}

void nt_complete(struct nt_env *e, struct wqe_cq *cq, int n, enum wqe_wc_status *st)
{
	struct wqe_wc wc[65];

	CHECK(n <= 64);
	CHECK_EQ(pair_wait_time(&e->p, cq, n, wc, 2.0), n);
	CHECK_EQ(wqe_poll_cq(cq, 1, wc + n), 0);
	if (st)
		*st = n ? wc[0].status : WQE_WC_SUCCESS;
}

void nt_spin(struct nt_env *e, int rounds)
{
	pair_spin(&e->p, rounds);
}
