/* SPDX-License-Identifier: MIT */
/*
 * pair_driver.h - a second thread that drives a pair (pair_spin() under a
 * mutex the test thread also takes around its own calls), for tests of
 * blocking event calls; and a SIGALRM that interrupts such a call.
 */
#ifndef WQE_TEST_PAIR_DRIVER_H
#define WQE_TEST_PAIR_DRIVER_H

#include <pthread.h>
#include <stdatomic.h>

#include "pair.h"

struct pair_driver {
	struct pair *p;
	pthread_mutex_t m; /* held around every call on the pair's contexts */
	atomic_int stop;
	pthread_t th;
};

/*
 * Installs a SIGALRM handler without SA_RESTART (a blocking wait returns
 * EINTR), then starts the driving thread on @p with SIGALRM blocked in it,
 * so that every alarm reaches the test thread. 0 or an errno.
 */
int pair_driver_start(struct pair_driver *d, struct pair *p);
/* Stops and joins the thread; the mutex is destroyed. */
void pair_driver_stop(struct pair_driver *d);
/* Raises SIGALRM in this process every @ms milliseconds (0 disarms). */
void pair_alarm_ms(long ms);

#endif
