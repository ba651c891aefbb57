/* SPDX-License-Identifier: MIT */
/* sched.h - the NIC thread's life, for the command interface (commands.c). */
#ifndef WQE_ENGINE_SCHED_H
#define WQE_ENGINE_SCHED_H

#include "engine/nic.h"

/* Starts the NIC thread of a NIC_THREAD NIC: 0, or an errno (eventfd(),
 * pthread_create(), ENOMEM) with nothing started. */
int sched_start(struct nic *n);
/* Stops it and waits for it; no command may be in progress. */
void sched_stop(struct nic *n);
/* Wakes the NIC thread if it sleeps (it looks for work again). */
void sched_wake(struct nic *n);

#endif
