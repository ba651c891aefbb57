/* SPDX-License-Identifier: MIT */
#include "async_util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

int as_open(struct as_env *e, enum wqe_qp_type t, enum wqe_mtu mtu, const struct wqe_fault_cfg *f,
	    const struct pair_opts *o)
{
	const unsigned all = WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
			     WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;

	memset(e, 0, sizeof(*e));
	e->o = o ? *o : pair_defaults;
	e->mtu = mtu;
	if (pair_open_opts(&e->p, t, mtu, f, 64, &e->o))
		return -1;
	e->a_buf = calloc(1, AS_BUF);
	e->b_buf = calloc(1, AS_BUF);
	if (!e->a_buf || !e->b_buf)
		return -1;
	e->a_mr = wqe_reg_mr(e->p.a.pd, e->a_buf, AS_BUF, all);
	e->b_mr = wqe_reg_mr(e->p.b.pd, e->b_buf, AS_BUF, all);
	if (!e->a_mr || !e->b_mr)
		return -1;
	return as_set_nonblock(e->p.a.ctx, 1) || as_set_nonblock(e->p.b.ctx, 1) ? -1 : 0;
}

void as_close(struct as_env *e)
{
	if (e->a_mr)
		wqe_dereg_mr(e->a_mr);
	if (e->b_mr)
		wqe_dereg_mr(e->b_mr);
	pair_close(&e->p);
	free(e->a_buf);
	free(e->b_buf);
}

int as_set_nonblock(struct wqe_context *ctx, int on)
{
	int fd = wqe_context_async_fd(ctx);
	int fl = fd < 0 ? -1 : fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) < 0 ? -1 : 0;
}

int as_readable(struct wqe_context *ctx)
{
	struct pollfd p = {.fd = wqe_context_async_fd(ctx), .events = POLLIN};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
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
	struct wqe_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = e->p.type;
	ia.send_cq = scq ? scq : ep->scq;
	ia.recv_cq = rcq ? rcq : ep->rcq;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = e->o.max_inline;
	return wqe_create_qp(ep->pd, &ia);
}

/* The pair's addresses (tests/e2e/pair.c): side @idx has MAC
 * 02:00:00:00:00:idx and GID ::ffff:192.0.2.idx. */
static void peer_av(struct wqe_ah_attr *aa, int peer_idx)
{
	memset(aa, 0, sizeof(*aa));
	aa->port_num = 1;
	aa->dmac[0] = 0x02;
	aa->dmac[5] = (uint8_t)peer_idx;
	test_gid_v4(&aa->grh.dgid, 192, 0, 2, (uint8_t)peer_idx);
	aa->grh.hop_limit = 64;
}

int as_connect(struct as_env *e, struct wqe_qp *qp, int idx, uint32_t peer_qpn,
	       enum wqe_qp_state upto, uint32_t sq_psn, uint32_t rq_psn)
{
	static const enum wqe_qp_state steps[] = {WQE_QPS_INIT, WQE_QPS_RTR, WQE_QPS_RTS};
	enum wqe_qp_type t = e->p.type;
	const struct pair_opts *o = &e->o;

	for (int i = 0; i < 3 && steps[i] <= upto; i++) {
		struct wqe_qp_attr a;
		int mask = WQE_QP_STATE, err;

		memset(&a, 0, sizeof(a));
		a.qp_state = steps[i];
		if (steps[i] == WQE_QPS_INIT) {
			a.port_num = 1;
			mask |= WQE_QP_PKEY_INDEX | WQE_QP_PORT;
			if (t == WQE_QPT_UD) {
				a.qkey = 0x11111111;
				mask |= WQE_QP_QKEY;
			} else {
				a.qp_access_flags = WQE_ACCESS_REMOTE_WRITE |
						    WQE_ACCESS_REMOTE_READ |
						    WQE_ACCESS_REMOTE_ATOMIC;
				mask |= WQE_QP_ACCESS_FLAGS;
			}
		} else if (steps[i] == WQE_QPS_RTR && t != WQE_QPT_UD) {
			a.path_mtu = e->mtu;
			a.dest_qp_num = peer_qpn;
			a.rq_psn = rq_psn;
			peer_av(&a.ah_attr, 3 - idx);
			mask |= WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN;
			if (t == WQE_QPT_RC) {
				a.max_dest_rd_atomic = 16;
				a.min_rnr_timer = o->min_rnr_timer;
				mask |= WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER;
			}
		} else if (steps[i] == WQE_QPS_RTS) {
			a.sq_psn = sq_psn;
			mask |= WQE_QP_SQ_PSN;
			if (t == WQE_QPT_RC) {
				a.timeout = o->timeout;
				a.retry_cnt = o->retry_cnt;
				a.rnr_retry = o->rnr_retry;
				a.max_rd_atomic = o->max_rd_atomic;
				mask |= WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT | WQE_QP_RNR_RETRY |
					WQE_QP_MAX_QP_RD_ATOMIC;
			}
		}
		err = wqe_modify_qp(qp, &a, mask);
		if (err)
			return err;
	}
	return 0;
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
