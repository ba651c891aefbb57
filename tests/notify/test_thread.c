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
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "notify_util.h"
#include "testutil.h"

#define ROUNDS 200

struct shared {
	struct nt_env e;
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
		nt_spin(&s->e, 1);
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
	sigset_t alrm, old;
	pthread_t th;
	int scq_done = 0;

	CHECK_EQ(nt_open(&s.e, WQE_QPT_RC), 0);
	ch = s.e.p.b.ch;
	set_blocking(ch);
	pthread_mutex_init(&s.m, NULL);
	atomic_init(&s.stop, 0);
	/* The driver never takes SIGALRM: it is for this thread's waits. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, &old);
	CHECK_EQ(pthread_create(&th, NULL, driver, &s), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	for (int i = 0; i < ROUNDS; i++) {
		struct wqe_cq *cq = NULL;
		void *ctx = NULL;
		int n = 0, r;

		pthread_mutex_lock(&s.m);
		CHECK_EQ(wqe_req_notify_cq(s.e.p.b.rcq, 1), 0);
		nt_recv(&s.e, &s.e.p.b, 64, 2 * (uint64_t)i);
		nt_recv(&s.e, &s.e.p.b, 64, 2 * (uint64_t)i + 1);
		nt_send(&s.e, &s.e.p.a, WQE_WR_SEND, 64, 0, 2 * (uint64_t)i);
		nt_send(&s.e, &s.e.p.a, WQE_WR_SEND, 64, WQE_SEND_SOLICITED, 2 * (uint64_t)i + 1);
		pthread_mutex_unlock(&s.m);

		alarm_ms(10000);
		r = wqe_get_cq_event(ch, &cq, &ctx);
		alarm_ms(0);
		CHECK_EQ(r, 0);
		if (r)
			break;
		CHECK(cq == s.e.p.b.rcq && ctx == &s.e.p.b.rcq);
		wqe_ack_cq_events(cq, 1);

		/* Both receives completed before the event. */
		pthread_mutex_lock(&s.m);
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
		pthread_mutex_unlock(&s.m);
	}
	atomic_store(&s.stop, 1);
	pthread_join(th, NULL);
	CHECK(!nt_readable(ch->fd));
	nt_complete(&s.e, s.e.p.a.scq, 2 * ROUNDS - scq_done, NULL);

	/* Nothing will come: a signal ends the wait with EINTR. */
	{
		struct wqe_cq *cq;
		void *ctx;
		int r;

		alarm_ms(50);
		errno = 0;
		r = wqe_get_cq_event(ch, &cq, &ctx);
		CHECK_EQ(r, -1);
		CHECK_EQ(errno, EINTR);
		alarm_ms(0);
	}
	pthread_mutex_destroy(&s.m);
	nt_close(&s.e);
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
