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
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "async_util.h"
#include "testutil.h"

#define ROUNDS 20

struct shared {
	struct as_env e;
	pthread_mutex_t m;
	atomic_int stop;
};

static void *driver(void *arg)
{
	struct shared *s = arg;
	/* A pause between passes leaves the mutex free for the other thread:
	 * a mutex is not fair, and under valgrind, which runs one thread at a
	 * time, a driver that takes it straight back starves the waiter. */
	const struct timespec pause = {0, 20000};

	while (!atomic_load(&s->stop)) {
		pthread_mutex_lock(&s->m);
		pair_spin(&s->e.p, 1);
		pthread_mutex_unlock(&s->m);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* Interrupts a blocking wait after @ms milliseconds (0 disarms). */
static void alarm_ms(long ms)
{
	struct itimerval t;

	memset(&t, 0, sizeof(t));
	t.it_value.tv_sec = ms / 1000;
	t.it_value.tv_usec = (ms % 1000) * 1000;
	setitimer(ITIMER_REAL, &t, NULL);
}

static void test_blocking(void)
{
	static struct shared s;
	struct pair_opts o = pair_defaults;
	struct wqe_context *ctx;
	struct wqe_qp *qp;
	sigset_t alrm, old;
	pthread_t th;

	o.timeout = 20; /* 4.3 s: no retransmission however slow the run */
	CHECK_EQ(as_open(&s.e, WQE_QPT_RC, WQE_MTU_256, NULL, &o), 0);
	ctx = s.e.p.a.ctx;
	qp = s.e.p.a.qp;
	CHECK_EQ(as_set_nonblock(ctx, 0), 0);
	pthread_mutex_init(&s.m, NULL);
	atomic_init(&s.stop, 0);
	/* The driver never takes SIGALRM: it is for this thread's waits. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, &old);
	CHECK_EQ(pthread_create(&th, NULL, driver, &s), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	for (int i = 0; i < ROUNDS; i++) {
		struct wqe_async_event ev;
		struct wqe_wc wc;
		int r;

		pthread_mutex_lock(&s.m);
		as_rdma(&s.e, qp, WQE_WR_RDMA_WRITE, 60000, 0, (uint64_t)i);
		wqe_progress(ctx); /* one pass: 64 of its 235 packets */
		CHECK_EQ(as_sqd(qp, 1, 1), 0);
		CHECK_EQ(as_draining(qp), 1);
		pthread_mutex_unlock(&s.m);

		alarm_ms(10000);
		r = wqe_get_async_event(ctx, &ev);
		alarm_ms(0);
		CHECK_EQ(r, 0);
		if (r)
			break;
		CHECK_EQ(ev.event_type, WQE_EVENT_SQ_DRAINED);
		CHECK(ev.element.qp == qp);
		wqe_ack_async_event(&ev);

		pthread_mutex_lock(&s.m);
		CHECK_EQ(as_draining(qp), 0);
		CHECK_EQ(wqe_poll_cq(s.e.p.a.scq, 1, &wc), 1);
		CHECK_EQ(wc.wr_id, (uint64_t)i);
		CHECK_EQ(wc.status, WQE_WC_SUCCESS);
		CHECK_EQ(as_modify(qp, WQE_QPS_RTS), 0);
		pthread_mutex_unlock(&s.m);
	}
	atomic_store(&s.stop, 1);
	pthread_join(th, NULL);
	CHECK(!as_readable(ctx));
	CHECK_MEM(s.e.b_buf, s.e.a_buf, 60000);

	/* Nothing will come: a signal ends the wait with EINTR. */
	{
		struct wqe_async_event ev;
		int r;

		alarm_ms(50);
		errno = 0;
		r = wqe_get_async_event(ctx, &ev);
		CHECK_EQ(r, -1);
		CHECK_EQ(errno, EINTR);
		alarm_ms(0);
	}
	pthread_mutex_destroy(&s.m);
	as_close(&s.e);
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: a wait returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	test_blocking();
	return test_finish();
}
