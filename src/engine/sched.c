/* SPDX-License-Identifier: MIT */
/*
 * sched.c - the NIC's scheduler: the doorbell register, and the progress
 * pass that takes doorbells, frames and timers and runs each QP with work
 * through its stages; in NIC_THREAD mode the thread that runs the passes.
 */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/bytes.h"
#include "engine/completer.h"
#include "engine/flush.h"
#include "engine/nic.h"
#include "engine/requester.h"
#include "engine/responder.h"
#include "engine/rx.h"
#include "engine/sched.h"
#include "engine/services.h"

/* The QP a doorbell value names: mlx5 writes the control segment's first
 * 8 bytes (qpn_ds in bytes 4-7); rxe's doorbell is the POST_SEND command,
 * modelled as the QP number (bytes 0-3) and the producer index (4-7). */
static uint32_t doorbell_qpn(const struct nic *n, const uint8_t val[8])
{
	return n->format == WQE_FORMAT_RXE ? get_be32(val) & 0xffffff : get_be32(val + 4) >> 8;
}

static void nic_take_doorbells(struct nic *n)
{
	/* Two passes: the first starts fetching every QP's engine state
	 * (the QP contexts came with the doorbells), so that the misses
	 * overlap; the second reads it. */
	for (uint32_t i = 0; i < n->ndb_pend; i++) {
		const uint8_t *d = (const uint8_t *)&n->db_pend[i]->eng->doorbell;

		/* Its two lines' worth (commands.c's static_assert) cross a third
		 * line unless the structure happens to be 64-byte aligned. */
		__builtin_prefetch(d, 1);
		__builtin_prefetch(d + 64, 1);
		__builtin_prefetch(d + 2 * 64 - 1, 1);
	}
	for (uint32_t i = 0; i < n->ndb_pend; i++) {
		struct qpc *q = n->db_pend[i];

		nic_kick(q);
		/* The in-flight entry its next message takes. */
		__builtin_prefetch(eng_flight(q->eng, q->eng->req.fl_head), 1);
	}
	n->ndb_pend = 0;
}

/* A doorbell write taken by the NIC (as it arrives in NIC_CALLER mode; from
 * the doorbell queue in NIC_THREAD mode). */
static void db_take(struct nic *n, const uint8_t val[8])
{
	uint32_t qpn = doorbell_qpn(n, val);
	struct qpc *q;

	/* A trace is for tests and tools; the post path rings once per call. */
	if (__builtin_expect(n->trace != NULL, 0)) {
		struct wqe_trace_event ev = {.kind = WQE_TRACE_DOORBELL,
					     .qpn = qpn,
					     .wqe_counter = n->format == WQE_FORMAT_RXE
								    ? get_be32(val + 4)
								    : get_be32(val) >> 8 & 0xffff,
					     .frame = val, .len = 8};

		nic_trace(n, &ev);
	}
	/* The NIC takes the QP number from the write as it arrives; the
	 * mailbox only keeps the last writes for whoever wants to see them. */
	doorbell_write(&n->db, val);
	q = qp_table_find(&n->qps, qpn);
	if (!q || (n->ndb_pend && n->db_pend[n->ndb_pend - 1] == q))
		return; /* unknown, or held already: the same QP rang last */
	if (n->ndb_pend == NIC_DB_PEND)
		nic_take_doorbells(n);
	n->db_pend[n->ndb_pend++] = q;
	/* Start fetching the QP context for nic_take_doorbells() and the
	 * requester: struct qpc up to @qkey (two or three lines: the
	 * structure is 16-byte aligned). */
	__builtin_prefetch(q);
	__builtin_prefetch((const uint8_t *)q + 64);
	__builtin_prefetch((const uint8_t *)q + offsetof(struct qpc, qkey));
}

/*
 * The doorbell queue of a NIC_THREAD NIC (struct nic_db_queue): pushed by
 * any posting thread, drained by the NIC thread at the start of a pass.
 * False when it is full.
 */
static bool dbq_push(struct nic_db_queue *d, uint8_t kind, uint32_t qpn, const uint8_t val[8])
{
	uint32_t pos = atomic_load_explicit(&d->enq, memory_order_relaxed);
	struct nic_db_cell *c;

	for (;;) {
		uint32_t seq;
		int32_t dif;

		c = &d->cell[pos & (NIC_DB_QUEUE - 1)];
		/* Acquire pairs with the NIC's release when it emptied the
		 * cell: its reads of the old contents are done. */
		seq = atomic_load_explicit(&c->seq, memory_order_acquire);
		dif = (int32_t)(seq - pos);
		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&d->enq, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
		} else if (dif < 0) {
			return false; /* a whole queue behind: full */
		} else {
			pos = atomic_load_explicit(&d->enq, memory_order_relaxed);
		}
	}
	c->kind = kind;
	c->qpn = qpn;
	if (val)
		memcpy(c->val, val, 8);
	/* Sequentially consistent rather than release: this store and the
	 * load of @sleeping after it pair with the NIC thread's store of
	 * @sleeping and its last look at the queue (struct nic_thread). */
	atomic_store_explicit(&c->seq, pos + 1, memory_order_seq_cst);
	return true;
}

/* Whether the cell the NIC takes next is filled. */
static bool dbq_ready(struct nic_db_queue *d)
{
	const struct nic_db_cell *c = &d->cell[d->deq & (NIC_DB_QUEUE - 1)];

	return atomic_load_explicit(&c->seq, memory_order_seq_cst) == d->deq + 1;
}

static void rq_kick(struct qpc *q)
{
	if (q->state == WQE_QPS_ERR)
		nic_kick(q); /* flush what was posted */
}

/* Takes every doorbell queued; after an overflow, looks at every QP. */
static void dbq_drain(struct nic *n)
{
	struct nic_db_queue *d = n->thr.dbq;

	while (dbq_ready(d)) {
		struct nic_db_cell *c = &d->cell[d->deq & (NIC_DB_QUEUE - 1)];

		if (c->kind == NIC_DB_SQ) {
			db_take(n, c->val);
		} else {
			struct qpc *q = qp_table_find(&n->qps, c->qpn);

			if (q)
				rq_kick(q);
		}
		/* Release: the cell's contents are read; a producer a whole
		 * queue later may fill it. */
		atomic_store_explicit(&c->seq, d->deq + NIC_DB_QUEUE, memory_order_release);
		d->deq++;
	}
	if (atomic_exchange_explicit(&d->overflow, false, memory_order_acquire)) {
		for (uint32_t i = 0; i < n->qps.cap; i++)
			if (n->qps.slot[i])
				nic_kick(n->qps.slot[i]);
	}
}

/* Frames waiting at the port, a bounded number per call. */
static int take_frames(struct nic *n)
{
	int work = 0;
	size_t len;

	if (!n->tx.link.rx_peek)
		return 0;
	while (work < 256) {
		const uint8_t *f = n->tx.link.rx_peek(n->tx.link.arg, &len);

		if (!f)
			break;
		nic_rx(n, f, len);
		n->tx.link.rx_done(n->tx.link.arg);
		work++;
	}
	resp_ack_flush(n);
	return work;
}

/*
 * The timers whose time has come (comp_timers()): a walk over the timer
 * list that reads a QP's state only when its entry's time has come (an
 * entry is exact after an ACK, nic_timer_update(), and early after a
 * rarer disarm: a retry, an error), drops the QPs out of RTS, and finds
 * the earliest time left. Timers armed during the walk (a retry resends,
 * the resend arms) lower n->timer_min themselves; an entry added during
 * the walk is seen by it.
 */
static int run_timers(struct nic *n, uint64_t now)
{
	int work = 0;

	n->timer_min = UINT64_MAX;
	for (uint32_t i = 0; i < n->ntimed;) {
		struct nic_timer *t = &n->timed[i];
		struct qpc *q = t->q;
		bool rts;

		if (t->at > now) {
			if (t->at < n->timer_min)
				n->timer_min = t->at;
			i++;
			continue;
		}
		rts = q->type == WQE_QPT_RC &&
		      (q->state == WQE_QPS_RTS || q->state == WQE_QPS_SQD);
		if (!rts) {
			nic_timer_drop(n, i);
			continue;
		}
		work += comp_timers(n, q, now);
		/* Kept with no timer armed (at UINT64_MAX, skipped): a QP
		 * that sends arms again soon. */
		nic_timer_update(n, q);
		if (n->timed[i].at < n->timer_min)
			n->timer_min = n->timed[i].at;
		i++;
	}
	return work;
}

/* Doorbell work for one QP; returns whether it must stay on the active
 * list. */
static bool progress_qp(struct nic *n, struct qpc *q, int *work)
{
	struct eng_req *r = &q->eng->req;

	if (q->eng->doorbell) {
		if (q->state == WQE_QPS_RTS || q->state == WQE_QPS_SQD)
			*work += req_run(n, q, 64);
		else if (q->checks_in_engine && (q->state == WQE_QPS_RESET ||
						  q->state == WQE_QPS_INIT || q->state == WQE_QPS_RTR))
			*work += req_not_ready(n, q);
		if (q->state == WQE_QPS_ERR)
			*work += flush_qp(n, q);
		/* Keep looking while WQEs wait behind the doorbell record (in
		 * SQD: while one that had started is to be sent again). */
		q->eng->doorbell =
		    (q->state == WQE_QPS_RTS &&
		     (r->tx_open || r->fetch != sq_ring_producer(q->sq, r->fetch))) ||
		    (q->state == WQE_QPS_SQD && (r->tx_open || req_sqd_may_fetch(r)));
	}
	/* UC and UD drain when their last packet has left. */
	if (__builtin_expect(r->sqd_notify, 0))
		nic_sqd_check(n, q);
	return q->eng->doorbell;
}

/* One progress pass: doorbells, frames, timers, the QPs with work. */
static int run_pass(struct nic *n)
{
	uint64_t now = nic_now(n);
	int work;

	n->progress_calls++;
	if (n->mode == NIC_THREAD)
		dbq_drain(n);
	nic_take_doorbells(n);
	work = take_frames(n);
	if (now >= n->timer_min)
		work += run_timers(n, now);
	/* Only QPs with work: the cost of a call does not grow with the
	 * number of idle QPs, nor with those that only wait for their ACKs.
	 * The list may grow while we walk it. */
	for (uint32_t i = 0; i < n->nactive;) {
		struct qpc *q = n->active[i];

		if (progress_qp(n, q, &work)) {
			i++;
			continue;
		}
		q->eng->active = false;
		n->active[i] = n->active[--n->nactive];
	}
	/* What this call sent leaves now, as one batch where the link
	 * batches: nothing stays in the link once the caller has control. */
	nic_tx_flush(n);
	return work;
}

int nic_progress(struct nic *n)
{
	if (n->mode == NIC_THREAD)
		return 0;
	return run_pass(n);
}

int nic_assist(struct nic *n)
{
	int work;

	/* Only for a NIC thread asleep in poll(): one awake (at work or in
	 * its spin) is faster left alone, since a pass taken from it makes
	 * the command lock bounce between cores (bench_thread: 0.62x of the
	 * caller-driven rate fell to 0.43x when every empty poll tried). A
	 * command waiting goes first. */
	if (n->mode != NIC_THREAD ||
	    !atomic_load_explicit(&n->thr.sleeping, memory_order_relaxed) ||
	    atomic_load_explicit(&n->thr.cmd_waiting, memory_order_relaxed) ||
	    pthread_mutex_trylock(&n->lock))
		return 0;
	work = run_pass(n);
	n->thr.assists++;
	pthread_mutex_unlock(&n->lock);
	return work;
}

void sched_wake(struct nic *n)
{
	uint64_t one = 1;
	ssize_t w;

	if (!atomic_load_explicit(&n->thr.sleeping, memory_order_seq_cst))
		return;
	/* Adding 1 to an eventfd fails only at a count of 2^64 - 2. */
	w = write(n->thr.wake_fd, &one, sizeof(one));
	(void)w;
}

/* A NIC_THREAD doorbell: queued (or, the queue full, the overflow flag),
 * then the thread woken if it sleeps. */
static void db_ring(struct nic *n, uint8_t kind, uint32_t qpn, const uint8_t val[8])
{
	if (!dbq_push(n->thr.dbq, kind, qpn, val))
		atomic_store_explicit(&n->thr.dbq->overflow, true, memory_order_seq_cst);
	sched_wake(n);
}

void nic_doorbell(struct nic *n, const uint8_t val[8])
{
	if (n->mode == NIC_CALLER) {
		db_take(n, val);
		return;
	}
	db_ring(n, NIC_DB_SQ, 0, val);
}

void nic_rq_doorbell(struct nic *n, struct qpc *q)
{
	if (n->mode == NIC_CALLER) {
		rq_kick(q);
		return;
	}
	/* The state the NIC published: a QP it moved to ERR a moment ago may
	 * read as not yet in ERR, and then the flush waits for its next
	 * doorbell or command, as a NIC's would. */
	if (atomic_load_explicit(&q->state_pub, memory_order_relaxed) == WQE_QPS_ERR)
		db_ring(n, NIC_DB_RQ, q->qpn, NULL);
}

/* How long the NIC thread goes on looking for work after its last work
 * before it sleeps: a posting loop's next doorbell is usually this close,
 * and waking from poll() costs several microseconds (bench/RESULTS.md). */
#define SCHED_SPIN_NS 50000u
/* The longest sleep with a timer armed under a clock of the caller's
 * (wqe_context_set_clock()), whose time poll() cannot know. */
#define SCHED_MAX_SLEEP_MS 100

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The poll() timeout until the earliest timer (-1: none). */
static int sleep_ms(const struct nic *n)
{
	uint64_t left;

	if (n->timer_min == UINT64_MAX)
		return -1;
	if (n->tx.now)
		return SCHED_MAX_SLEEP_MS;
	if (n->timer_min <= n->clock_ns)
		return 0;
	left = (n->timer_min - n->clock_ns + 999999u) / 1000000u;
	return left > INT32_MAX ? INT32_MAX : (int)left;
}

/* Sleeps until a doorbell, a frame, a command or the next timer; with the
 * lock held on entry and on return. */
static void sched_sleep(struct nic *n)
{
	struct pollfd pfd[2] = {{.fd = n->thr.wake_fd, .events = POLLIN},
				{.fd = n->tx.link.fd, .events = POLLIN}};
	nfds_t nfd = n->tx.link.fd >= 0 ? 2u : 1u; /* read under the lock */
	int ms = sleep_ms(n);
	uint64_t v;
	ssize_t r;

	atomic_store_explicit(&n->thr.sleeping, true, memory_order_seq_cst);
	if ((n->tx.link.rx_arm && !n->tx.link.rx_arm(n->tx.link.arg)) || dbq_ready(n->thr.dbq) ||
	    atomic_load_explicit(&n->thr.dbq->overflow, memory_order_seq_cst) ||
	    atomic_load_explicit(&n->thr.stop, memory_order_seq_cst)) {
		atomic_store_explicit(&n->thr.sleeping, false, memory_order_relaxed);
		return;
	}
	pthread_mutex_unlock(&n->lock);
	/* A command that changes the link meanwhile wakes us (nic_cmd_end()). */
	(void)poll(pfd, nfd, ms);
	r = read(n->thr.wake_fd, &v, sizeof(v)); /* non-blocking: EAGAIN if none */
	(void)r;
	atomic_store_explicit(&n->thr.sleeping, false, memory_order_relaxed);
	pthread_mutex_lock(&n->lock);
	n->thr.wakeups++;
}

static void *sched_main(void *arg)
{
	struct nic *n = arg;
	uint64_t last_work = mono_ns();

	pthread_mutex_lock(&n->lock);
	while (!atomic_load_explicit(&n->thr.stop, memory_order_acquire)) {
		uint64_t now;

		if (run_pass(n) > 0) {
			last_work = mono_ns();
		} else {
			now = mono_ns();
			if (now - last_work >= SCHED_SPIN_NS) {
				sched_sleep(n);
				last_work = mono_ns();
			} else {
				/* Nothing now: a thread that shares this core (a
				 * peer's NIC, the application) may have what brings
				 * the next work. */
				pthread_mutex_unlock(&n->lock);
				sched_yield();
				pthread_mutex_lock(&n->lock);
			}
		}
		/* Commands waiting get the lock before the next pass. */
		if (atomic_load_explicit(&n->thr.cmd_waiting, memory_order_relaxed)) {
			pthread_mutex_unlock(&n->lock);
			while (atomic_load_explicit(&n->thr.cmd_waiting, memory_order_relaxed))
				sched_yield();
			pthread_mutex_lock(&n->lock);
		}
	}
	pthread_mutex_unlock(&n->lock);
	return NULL;
}

int sched_start(struct nic *n)
{
	sigset_t all, old;
	int err;

	n->thr.dbq = calloc(1, sizeof(*n->thr.dbq));
	if (!n->thr.dbq)
		return ENOMEM;
	for (uint32_t i = 0; i < NIC_DB_QUEUE; i++)
		atomic_init(&n->thr.dbq->cell[i].seq, i);
	n->thr.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (n->thr.wake_fd < 0) {
		err = errno;
		free(n->thr.dbq);
		n->thr.dbq = NULL;
		return err;
	}
	/* The NIC thread takes none of the application's signals: a
	 * process-directed signal (an alarm ending a blocking wait, SIGINT)
	 * must reach a thread of the application, not the library's. The
	 * thread inherits the mask it is created with. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&n->thr.tid, NULL, sched_main, n);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(n->thr.wake_fd);
		n->thr.wake_fd = -1;
		free(n->thr.dbq);
		n->thr.dbq = NULL;
		return err;
	}
	n->thr.started = true;
	return 0;
}

void sched_stop(struct nic *n)
{
	if (n->thr.started) {
		uint64_t one = 1;
		ssize_t w;

		atomic_store_explicit(&n->thr.stop, true, memory_order_seq_cst);
		w = write(n->thr.wake_fd, &one, sizeof(one));
		(void)w;
		pthread_join(n->thr.tid, NULL);
		n->thr.started = false;
	}
	if (n->thr.wake_fd >= 0)
		close(n->thr.wake_fd);
	n->thr.wake_fd = -1;
	free(n->thr.dbq);
	n->thr.dbq = NULL;
}
