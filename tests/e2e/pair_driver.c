/* SPDX-License-Identifier: MIT */
#include "pair_driver.h"

#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static void *driver(void *arg)
{
	struct pair_driver *d = arg;
	/* A pause between passes leaves the mutex free for the other thread:
	 * a mutex is not fair, and under valgrind, which runs one thread at a
	 * time, a driver that takes it straight back starves the waiter. */
	const struct timespec pause = {0, 20000};

	while (!atomic_load(&d->stop)) {
		pthread_mutex_lock(&d->m);
		pair_spin(d->p, 1);
		pthread_mutex_unlock(&d->m);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

int pair_driver_start(struct pair_driver *d, struct pair *p)
{
	struct sigaction sa;
	sigset_t alrm, old;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: a wait returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	d->p = p;
	pthread_mutex_init(&d->m, NULL);
	atomic_init(&d->stop, 0);
	/* The driver never takes SIGALRM: it is for the test thread's waits. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, &old);
	rc = pthread_create(&d->th, NULL, driver, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void pair_driver_stop(struct pair_driver *d)
{
	atomic_store(&d->stop, 1);
	pthread_join(d->th, NULL);
	pthread_mutex_destroy(&d->m);
}

void pair_alarm_ms(long ms)
{
	struct itimerval t;

	memset(&t, 0, sizeof(t));
	t.it_value.tv_sec = ms / 1000;
	t.it_value.tv_usec = (ms % 1000) * 1000;
	/* Repeating: an alarm that fires before the wait has begun (a slow
	 * machine, valgrind) is followed by another, so the wait still ends. */
	t.it_interval = t.it_value;
	setitimer(ITIMER_REAL, &t, NULL);
}
