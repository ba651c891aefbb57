/* SPDX-License-Identifier: MIT */
#include "async_util.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

int as_open(struct as_env *e, enum wqe_qp_type t, enum wqe_mtu mtu, const struct wqe_fault_cfg *f,
	    const struct pair_opts *o)
{
	memset(e, 0, sizeof(*e));
	e->o = o ? *o : pair_defaults;
	e->mtu = mtu;
	if (pair_open_opts(&e->p, t, mtu, f, 64, &e->o) ||
	    pair_reg_bufs(&e->p, AS_BUF, &e->a_buf, &e->b_buf, &e->a_mr, &e->b_mr))
		return -1;
	return as_set_nonblock(e->p.a.ctx, 1) || as_set_nonblock(e->p.b.ctx, 1) ? -1 : 0;
}

void as_close(struct as_env *e)
{
	pair_free_bufs(e->a_buf, e->b_buf, e->a_mr, e->b_mr);
	pair_close(&e->p);
}

int as_set_nonblock(struct wqe_context *ctx, int on)
{
	return test_fd_nonblock(wqe_context_async_fd(ctx), on);
}

int as_readable(struct wqe_context *ctx)
{
	return test_fd_readable(wqe_context_async_fd(ctx));
}

int as_take(struct wqe_context *ctx, struct wqe_async_event *ev)
{
	errno = 0;
	if (wqe_get_async_event(ctx, ev)) {
		CHECK_EQ(errno, EAGAIN);
		return 0;
	}
	wqe_ack_async_event(ev);
	return 1;
}

void as_expect_at(struct wqe_context *ctx, enum wqe_event_type type, const void *elem,
		  const char *file, int line)
{
	struct wqe_async_event ev;
	const void *got;

	test_checks++;
	if (!as_readable(ctx)) {
		test_fail(file, line, "no event waiting, expected %s", wqe_event_type_str(type));
		return;
	}
	if (!as_take(ctx, &ev)) {
		test_fail(file, line, "wqe_get_async_event() found nothing, expected %s",
			  wqe_event_type_str(type));
		return;
	}
	got = ev.event_type == WQE_EVENT_CQ_ERR ? (const void *)ev.element.cq
						: (const void *)ev.element.qp;
	if (ev.event_type != type || got != elem)
		test_fail(file, line, "event %s of %p, expected %s of %p",
			  wqe_event_type_str(ev.event_type), got, wqe_event_type_str(type), elem);
}

void as_none_at(struct wqe_context *ctx, const char *file, int line)
{
	struct wqe_async_event ev;

	test_checks++;
	if (as_readable(ctx))
		test_fail(file, line, "the async fd is readable");
	errno = 0;
	if (wqe_get_async_event(ctx, &ev) == 0) {
		test_fail(file, line, "unexpected event %s", wqe_event_type_str(ev.event_type));
		wqe_ack_async_event(&ev);
	} else if (errno != EAGAIN) {
		test_fail(file, line, "wqe_get_async_event(): errno %d, not EAGAIN", errno);
	}
}

struct wqe_qp *as_qp(struct as_env *e, struct ep *ep, struct wqe_cq *scq, struct wqe_cq *rcq)
{
	return pair_new_qp(ep, e->p.type, scq, rcq, 64, &e->o);
}

int as_connect(struct as_env *e, struct wqe_qp *qp, int idx, uint32_t peer_qpn,
	       enum wqe_qp_state upto, uint32_t sq_psn, uint32_t rq_psn)
{
	return pair_connect_qp(qp, e->p.type, 3 - idx, peer_qpn, e->mtu, &e->o, upto, sq_psn,
			       rq_psn);
}

int as_modify(struct wqe_qp *qp, enum wqe_qp_state s)
{
	struct wqe_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = s;
	return wqe_modify_qp(qp, &a, WQE_QP_STATE);
}

int as_sqd(struct wqe_qp *qp, int mask, uint8_t notify)
{
	struct wqe_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_SQD;
	a.en_sqd_async_notify = notify;
	return wqe_modify_qp(qp, &a, WQE_QP_STATE | (mask ? WQE_QP_EN_SQD_ASYNC_NOTIFY : 0));
}

enum wqe_qp_state as_state(struct wqe_qp *qp)
{
	struct wqe_qp_attr a;

	CHECK_EQ(wqe_query_qp(qp, &a, 0, NULL), 0);
	return a.qp_state;
}

int as_draining(struct wqe_qp *qp)
{
	struct wqe_qp_attr a;

	CHECK_EQ(wqe_query_qp(qp, &a, 0, NULL), 0);
	return a.sq_draining;
}

void as_rdma(struct as_env *e, struct wqe_qp *qp, enum wqe_wr_opcode op, uint32_t len,
	     uint32_t rkey_xor, uint64_t id)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)e->a_buf, len, e->a_mr->lkey};
	struct wqe_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = op;
	w.send_flags = WQE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)e->b_buf;
	w.wr.rdma.rkey = e->b_mr->rkey ^ rkey_xor;
	CHECK_EQ(wqe_post_send(qp, &w, &bad), 0);
}

void as_send(struct as_env *e, struct wqe_qp *qp, uint32_t len, uint32_t dest_qpn, uint64_t id)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)e->a_buf, len, e->a_mr->lkey};
	struct wqe_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.sg_list = &s;
	w.num_sge = len ? 1 : 0;
	w.opcode = WQE_WR_SEND;
	w.send_flags = WQE_SEND_SIGNALED;
	if (e->p.type == WQE_QPT_UD) {
		w.wr.ud.ah = e->p.a.ah;
		w.wr.ud.remote_qpn = dest_qpn;
		w.wr.ud.remote_qkey = 0x11111111;
	}
	CHECK_EQ(wqe_post_send(qp, &w, &bad), 0);
}

void as_recv(struct as_env *e, struct wqe_qp *qp, uint32_t len, uint64_t id)
{
	struct wqe_sge s = {(uint64_t)(uintptr_t)e->b_buf,
			    len + (e->p.type == WQE_QPT_UD ? 40u : 0u), e->b_mr->lkey};
	struct wqe_recv_wr r = {.wr_id = id, .sg_list = &s, .num_sge = 1}, *bad;

	CHECK_EQ(wqe_post_recv(qp, &r, &bad), 0);
}

int as_wait(struct as_env *e, struct wqe_cq *cq, int n, double seconds, enum wqe_wc_status *st)
{
	struct wqe_wc wc[64];
	int got;

	if (n > 64)
		n = 64;
	got = pair_wait_time(&e->p, cq, n, wc, seconds);
	if (st)
		*st = got ? wc[0].status : WQE_WC_SUCCESS;
	return got;
}
