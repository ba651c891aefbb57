/* SPDX-License-Identifier: MIT */
/*
 * bench_thread - what the NIC thread (WQE_NIC_THREAD) gives the
 * application: the rate of 64-byte RC RDMA WRITEs an application thread
 * posts and completes, two contexts on one loopback link in one process.
 *
 *   caller  the single-threaded way (the baseline): the application's
 *           thread runs both NICs too, as bench_scale does (wqe_progress()
 *           on A after every 64 posts, then on A and B, then
 *           wqe_poll_cq());
 *   thread  both contexts' NICs on threads of their own: the application
 *           only posts and polls its send CQ. This machine has two cores:
 *           three threads share them.
 *
 * Each at 1 and 16384 QP pairs: 256 messages outstanding in all, one
 * signaled WRITE per post call to the next QP in turn. The four are built
 * first and measured in turn, round after round (these machines are
 * shared and noisy: ratios are taken within a round, and the median
 * reported).
 *
 * Goals (issue "The NIC runs on its own"): thread at 1 QP at least 1.5x
 * caller at 1 QP; thread at 16384 QPs at least 0.75x thread at 1 QP.
 *
 * Idle: a threaded context on a UDP link with nothing to do, for 1 s: the
 * CPU time the process used (getrusage), as a share of one core.
 *
 * BENCH_PIN=1 puts the NIC threads on the second core and the application
 * on the first; BENCH_ONLY=i measures configuration i alone (a profiler's
 * run).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

#define NCFG 4
#define WINDOW 256u
#define DOORBELLS 64u
#define ROUNDS 5
#define RUN_NS 200000000ull /* 0.2 s per measurement */

struct tcfg {
	const char *name;
	enum wqe_nic_mode mode;
	uint32_t nqp;
	struct bench_pair p;
	uint32_t next;
	uint32_t outstanding;
};

static void die(const char *what)
{
	fprintf(stderr, "bench_thread: %s\n", what);
	exit(1);
}

static void post_one(struct tcfg *c)
{
	struct bench_pair *p = &c->p;
	uint32_t i = c->next;
	struct wqe_sge sge = {(uint64_t)(uintptr_t)(p->a.buf + (size_t)i * 64u), 64,
			      p->a.mr->lkey};
	struct wqe_send_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1,
				 .opcode = WQE_WR_RDMA_WRITE, .send_flags = WQE_SEND_SIGNALED};
	struct wqe_send_wr *bad;

	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(p->b.buf + (size_t)i * 64u);
	wr.wr.rdma.rkey = p->b.mr->rkey;
	if (wqe_post_send(p->a.qp[i], &wr, &bad))
		die("wqe_post_send failed");
	c->next = i + 1 == c->nqp ? 0 : i + 1;
	c->outstanding++;
}

/* Messages completed per second over about RUN_NS. */
static double run(struct tcfg *c)
{
	struct wqe_wc wc[64];
	uint64_t done = 0, t0 = bench_now_ns(), t;

	do {
		for (int k = 0; k < 16; k++) {
			uint32_t posted = 0;

			while (c->outstanding < WINDOW) {
				post_one(c);
				if (c->mode == WQE_NIC_CALLER && ++posted % DOORBELLS == 0)
					wqe_progress(c->p.a.ctx);
			}
			if (c->mode == WQE_NIC_CALLER) {
				wqe_progress(c->p.a.ctx);
				wqe_progress(c->p.b.ctx);
			}
			for (int n; (n = bench_poll_ok("bench_thread", c->p.a.scq, 64, wc)) > 0;) {
				c->outstanding -= (uint32_t)n;
				done += (uint64_t)n;
			}
		}
		t = bench_now_ns();
	} while (t - t0 < RUN_NS);
	/* Nothing left outstanding between runs: the requester's timers run
	 * on while the other configurations are measured. */
	while (c->outstanding) {
		if (c->mode == WQE_NIC_CALLER) {
			wqe_progress(c->p.a.ctx);
			wqe_progress(c->p.b.ctx);
		}
		c->outstanding -= (uint32_t)bench_poll_ok("bench_thread", c->p.a.scq, 64, wc);
	}
	return (double)done * 1e9 / (double)(t - t0);
}

static double cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 +
	       (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

/* The idle NIC thread's share of a core: a threaded context on a UDP link
 * (127.0.0.1), a QP in RTS, nothing posted, for one second. */
static double idle_share(void)
{
	struct wqe_udp_cfg uc = {.local = "127.0.0.1"};
	struct wqe_context_attr ca = {.format = WQE_FORMAT_MLX5, .nic_mode = WQE_NIC_THREAD,
				      .num_gids = 1};
	struct wqe_link *l = wqe_link_udp_create(&uc);
	struct wqe_context *ctx;
	struct timespec ts = {1, 0};
	double c0, c1;

	ca.mac[0] = 2;
	ca.mac[5] = 1;
	ca.gid[0].raw[10] = 0xff;
	ca.gid[0].raw[11] = 0xff;
	ca.gid[0].raw[12] = 127;
	ca.gid[0].raw[15] = 1;
	if (!l)
		die("no UDP link on 127.0.0.1 (port 4791 taken?)");
	ctx = wqe_open_context(&ca);
	if (!ctx || wqe_context_attach_link(ctx, l))
		die("cannot open the idle context");
	nanosleep(&(struct timespec){0, 100000000}, NULL); /* past the spin */
	c0 = cpu_s();
	nanosleep(&ts, NULL);
	c1 = cpu_s();
	wqe_context_attach_link(ctx, NULL);
	wqe_close_context(ctx);
	wqe_link_destroy(l);
	return c1 - c0;
}

int main(int argc, char **argv)
{
	static struct tcfg cfg[NCFG] = {
		{"caller 1 QP", WQE_NIC_CALLER, 1, {0}, 0, 0},
		{"thread 1 QP", WQE_NIC_THREAD, 1, {0}, 0, 0},
		{"caller 16384 QPs", WQE_NIC_CALLER, 16384, {0}, 0, 0},
		{"thread 16384 QPs", WQE_NIC_THREAD, 16384, {0}, 0, 0},
	};
	double rate[NCFG][ROUNDS], r_thr[ROUNDS], r_scale[ROUNDS], r_cscale[ROUNDS], med[NCFG];
	char machine[128];
	double idle;
	/* BENCH_ONLY=i measures configuration i alone (for a profiler). */
	int only = getenv("BENCH_ONLY") ? atoi(getenv("BENCH_ONLY")) : -1;

	if (argc > 1) {
		fprintf(stderr, "usage: bench_thread (no arguments)\n");
		return 2;
	}
	(void)argv;
	{
		/* NIC threads are made on the second core (they inherit this
		 * thread's affinity), the application stays on the first. */
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(1, &one);
		if (getenv("BENCH_PIN"))
			sched_setaffinity(0, sizeof(one), &one);
	}
	for (int i = 0; i < NCFG; i++) {
		struct bench_pair_cfg pc = {.nqp = cfg[i].nqp,
					    .max_send_wr = cfg[i].nqp == 1 ? WINDOW : 16,
					    .cq_depth = 4096,
					    .buf_bytes = (size_t)cfg[i].nqp * 64u < 4096
								 ? 4096
								 : (size_t)cfg[i].nqp * 64u,
					    .mtu = WQE_MTU_4096,
					    .nic_mode = cfg[i].mode};

		if (bench_pair_open(&cfg[i].p, &pc))
			die("cannot build a pair");
	}
	if (getenv("BENCH_PIN")) {
		cpu_set_t zero;

		CPU_ZERO(&zero);
		CPU_SET(0, &zero);
		sched_setaffinity(0, sizeof(zero), &zero);
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < NCFG; i++)
			rate[i][r] = only < 0 || only == i ? run(&cfg[i]) : 1;
		r_thr[r] = rate[1][r] / rate[0][r];
		r_scale[r] = rate[3][r] / rate[1][r];
		r_cscale[r] = rate[2][r] / rate[0][r];
	}
	for (int i = 0; i < NCFG; i++) {
		double v[ROUNDS];

		memcpy(v, rate[i], sizeof(v));
		med[i] = bench_median(v, ROUNDS);
	}
	bench_machine(machine, sizeof(machine));
	printf("## bench_thread: 64 B RC RDMA WRITE, loopback, %s\n\n", machine);
	printf("| configuration | M msg/s (median of %d) |\n|---|---:|\n", ROUNDS);
	for (int i = 0; i < NCFG; i++)
		printf("| %s | %.3f |\n", cfg[i].name, med[i] / 1e6);
	idle = idle_share();
	{
		double t = bench_median(r_thr, ROUNDS), s = bench_median(r_scale, ROUNDS),
		       cs = bench_median(r_cscale, ROUNDS);

		printf("\nRESULT thread 1 QP: %.3fx the caller-driven rate (goal >= 1.5x) %s\n", t,
		       t >= 1.5 ? "MET" : "NOT MET");
		printf("RESULT thread 16384 QPs: %.3fx the threaded rate at 1 QP (goal >= 0.75x) %s\n",
		       s, s >= 0.75 ? "MET" : "NOT MET");
		printf("RESULT caller 16384 QPs: %.3fx the caller-driven rate at 1 QP\n", cs);
		printf("RESULT thread idle: %.4f s CPU in 1 s, %.2f %% of a core (goal < 1 %%) %s\n",
		       idle, idle * 100, idle < 0.01 ? "MET" : "NOT MET");
	}
	for (int i = 0; i < NCFG; i++)
		bench_pair_close(&cfg[i].p);
	return 0;
}
