/* SPDX-License-Identifier: MIT */
/*
 * wqe_get_cq_event() blocking: the calling thread waits on the channel's
 * fd while a second thread drives both contexts (wqe_progress() under a
 * mutex, which the waiting thread also takes to arm, post and poll, as
 * verbs.h asks); 200 rounds of an unsolicited then a solicited SEND to a
 * CQ armed for solicited events: each round's event comes after both
 * completions, returns the right CQ and context. And a wait that nothing
 * will end returns -1 with EINTR when a signal interrupts it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "notify_util.h"
#include "pair_driver.h"
#include "testutil.h"

#define ROUNDS 200

struct shared {
	struct nt_env e;
	struct pair_driver d;
};

static void set_blocking(struct wqe_comp_channel *ch)
{
	int fl = fcntl(ch->fd, F_GETFL);

	CHECK_EQ(fcntl(ch->fd, F_SETFL, fl & ~O_NONBLOCK), 0);
}

static void test_blocking(void)
{
	static struct shared s;
	struct wqe_comp_channel *ch;
	struct wqe_wc wc[4];
	int scq_done = 0;

	CHECK_EQ(nt_open(&s.e, WQE_QPT_RC), 0);
	ch = s.e.p.b.ch;
	set_blocking(ch);
	CHECK_EQ(pair_driver_start(&s.d, &s.e.p), 0);

	for (int i = 0; i < ROUNDS; i++) {
		struct wqe_cq *cq = NULL;
		void *ctx = NULL;
		int n = 0, r;

		pthread_mutex_lock(&s.d.m);
		CHECK_EQ(wqe_req_notify_cq(s.e.p.b.rcq, 1), 0);
		nt_recv(&s.e, &s.e.p.b, 64, 2 * (uint64_t)i);
		nt_recv(&s.e, &s.e.p.b, 64, 2 * (uint64_t)i + 1);
		nt_send(&s.e, &s.e.p.a, WQE_WR_SEND, 64, 0, 2 * (uint64_t)i);
		nt_send(&s.e, &s.e.p.a, WQE_WR_SEND, 64, WQE_SEND_SOLICITED, 2 * (uint64_t)i + 1);
		pthread_mutex_unlock(&s.d.m);

		pair_alarm_ms(10000);
		r = wqe_get_cq_event(ch, &cq, &ctx);
		pair_alarm_ms(0);
		CHECK_EQ(r, 0);
		if (r)
			break;
		CHECK(cq == s.e.p.b.rcq && ctx == &s.e.p.b.rcq);
		wqe_ack_cq_events(cq, 1);

		/* Both receives completed before the event. */
		pthread_mutex_lock(&s.d.m);
		while (n < 2) {
			r = wqe_poll_cq(s.e.p.b.rcq, 2 - n, wc + n);
			CHECK(r >= 0);
			if (r <= 0)
				break;
			n += r;
		}
		CHECK_EQ(n, 2);
		CHECK_EQ(wc[0].wr_id, 2 * (uint64_t)i);
		CHECK_EQ(wc[1].wr_id, 2 * (uint64_t)i + 1);
		CHECK_EQ(wc[1].status, WQE_WC_SUCCESS);
		r = wqe_poll_cq(s.e.p.a.scq, 4, wc);
		if (r > 0)
			scq_done += r;
		pthread_mutex_unlock(&s.d.m);
	}
	pair_driver_stop(&s.d);
	CHECK(!nt_readable(ch->fd));
	nt_complete(&s.e, s.e.p.a.scq, 2 * ROUNDS - scq_done, NULL);

	/* Nothing will come: a signal ends the wait with EINTR. */
	{
		struct wqe_cq *cq;
		void *ctx;
		int r;

		pair_alarm_ms(50);
		errno = 0;
		r = wqe_get_cq_event(ch, &cq, &ctx);
		CHECK_EQ(r, -1);
		CHECK_EQ(errno, EINTR);
		pair_alarm_ms(0);
	}
	nt_close(&s.e);
}

int main(void)
{
	test_blocking();
	return test_finish();
}
