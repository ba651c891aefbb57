/* SPDX-License-Identifier: MIT */
/*
 * wqe_get_async_event() blocking: the calling thread waits on the async fd
 * while a second thread drives both contexts (wqe_progress() under a
 * mutex, which the waiting thread also takes to post, modify and poll);
 * ROUNDS rounds of a 60000-byte RDMA WRITE at MTU 256 cut short by RTS ->
 * SQD with the drain's event asked for: each round the event comes from
 * the driving thread, for the right QP, after the WRITE's completion and
 * with sq_draining 0. And a wait that nothing will end returns -1 with
 * EINTR when a signal interrupts it.
 */
#include <errno.h>
#include <string.h>

#include "async_util.h"
#include "pair_driver.h"
#include "testutil.h"

#define ROUNDS 20

struct shared {
	struct as_env e;
	struct pair_driver d;
};

static void test_blocking(void)
{
	static struct shared s;
	struct pair_opts o = pair_defaults;
	struct wqe_context *ctx;
	struct wqe_qp *qp;

	o.timeout = 20; /* 4.3 s: no retransmission however slow the run */
	CHECK_EQ(as_open(&s.e, WQE_QPT_RC, WQE_MTU_256, NULL, &o), 0);
	ctx = s.e.p.a.ctx;
	qp = s.e.p.a.qp;
	CHECK_EQ(as_set_nonblock(ctx, 0), 0);
	CHECK_EQ(pair_driver_start(&s.d, &s.e.p), 0);

	for (int i = 0; i < ROUNDS; i++) {
		struct wqe_async_event ev;
		struct wqe_wc wc;
		int r;

		pthread_mutex_lock(&s.d.m);
		as_rdma(&s.e, qp, WQE_WR_RDMA_WRITE, 60000, 0, (uint64_t)i);
		wqe_progress(ctx); /* one pass: 64 of its 235 packets */
		CHECK_EQ(as_sqd(qp, 1, 1), 0);
		CHECK_EQ(as_draining(qp), 1);
		pthread_mutex_unlock(&s.d.m);

		pair_alarm_ms(10000);
		r = wqe_get_async_event(ctx, &ev);
		pair_alarm_ms(0);
		CHECK_EQ(r, 0);
		if (r)
			break;
		CHECK_EQ(ev.event_type, WQE_EVENT_SQ_DRAINED);
		CHECK(ev.element.qp == qp);
		wqe_ack_async_event(&ev);

		pthread_mutex_lock(&s.d.m);
		CHECK_EQ(as_draining(qp), 0);
		CHECK_EQ(wqe_poll_cq(s.e.p.a.scq, 1, &wc), 1);
		CHECK_EQ(wc.wr_id, (uint64_t)i);
		CHECK_EQ(wc.status, WQE_WC_SUCCESS);
		CHECK_EQ(as_modify(qp, WQE_QPS_RTS), 0);
		pthread_mutex_unlock(&s.d.m);
	}
	pair_driver_stop(&s.d);
	CHECK(!as_readable(ctx));
	CHECK_MEM(s.e.b_buf, s.e.a_buf, 60000);

	/* Nothing will come: a signal ends the wait with EINTR. */
	{
		struct wqe_async_event ev;
		int r;

		pair_alarm_ms(50);
		errno = 0;
		r = wqe_get_async_event(ctx, &ev);
		CHECK_EQ(r, -1);
		CHECK_EQ(errno, EINTR);
		pair_alarm_ms(0);
	}
	as_close(&s.e);
}

int main(void)
{
	test_blocking();
	return test_finish();
}
