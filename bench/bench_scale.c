/* SPDX-License-Identifier: MIT */
/*
 * bench_scale - 64-byte RC RDMA WRITEs posted round-robin over 1, 64, 1024
 * and 16384 QP pairs (two contexts, loopback link, one thread), and the
 * memory each QP costs.
 *
 * The loop is the same for every QP count: keep 256 messages outstanding
 * in all, posting one signaled WRITE per call to the next QP in turn, with
 * wqe_progress() on A after every 64 posts; then wqe_progress() on A and on
 * B; wqe_poll_cq() on A's send CQ. Each QP's send queue holds
 * max(16, 256 / N) requests, so one QP alone can keep the whole window
 * busy.
 *
 * Progress every 64 posts: as a program posting to many QPs would let the
 * NIC run now and then (any number of doorbells between two calls is
 * served; docs/benchmarks.md).
 *
 * The baseline is the same benchmark with one QP, measured in the same
 * rounds: the four pairs are built first, then measured in turn, round
 * after round. Goal: the rate at 16384 QPs is at least 0.75x the rate at 1.
 *
 * Memory per QP: the heap bytes that creating and connecting the N QP
 * pairs allocated (counted by the interposer), divided by 2N; "rings" is
 * what went through posix_memalign (the send and receive rings), "context"
 * the rest (software QP, NIC QP context and engine state, the requester's
 * in-flight table, wr_id arrays, the QP table's share).
 *
 * The bound line says what the goal leaves, in nanoseconds a message: 0.75x
 * allows a message at 16384 QPs a third more than the 1-QP time; the memory
 * floor (floor_run(): four independent cold lines a message, no protocol
 * work) takes part of that, and the rest is all that the ACK every message
 * needs from 64 QPs up may cost. Beside it, what 64 QPs add over one now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define NCFG 4
#define WINDOW 256u
#define DOORBELLS 64u /* posts between two progress calls on A */
#define MSG 64u
#define ROUNDS 5
#define RUN_NS 100000000ull /* 0.1 s per measurement */

static const uint32_t nqps[NCFG] = {1, 64, 1024, 16384};

struct scale_cfg {
	struct bench_pair p;
	uint32_t nqp;
	uint32_t max_send_wr;
	uint64_t ctx_bytes;   /* per QP */
	uint64_t ring_bytes;  /* per QP */
	uint32_t next;        /* the next QP in turn */
};

static void die(const char *what)
{
	fprintf(stderr, "bench_scale: %s\n", what);
	exit(1);
}

static void cfg_open(struct scale_cfg *c, uint32_t nqp)
{
	struct bench_pair_cfg pc = {.nqp = nqp, .cq_depth = 4096, .buf_bytes = 4096,
				    .mtu = WQE_MTU_4096};
	struct bench_allocs a0, a1;

	memset(c, 0, sizeof(*c));
	c->nqp = nqp;
	c->max_send_wr = WINDOW / nqp > 16 ? WINDOW / nqp : 16;
	pc.max_send_wr = c->max_send_wr;
	if (bench_pair_open_ctx(&c->p, &pc))
		die("setup failed");
	bench_allocs_get(&a0);
	if (bench_pair_open_qps(&c->p, &pc))
		die("setup failed");
	bench_allocs_get(&a1);
	c->ring_bytes = (a1.aligned_bytes - a0.aligned_bytes) / (2ull * nqp);
	c->ctx_bytes = (a1.live_bytes - a0.live_bytes) / (2ull * nqp) - c->ring_bytes;
}

/*
 * 64-byte WRITEs round-robin over the QPs until @max_msgs are done or
 * @max_ns have passed (0: no limit), then until nothing is outstanding.
 * Returns the messages completed; *@ns the time taken.
 */
static BENCH_NOINLINE uint64_t scale_run(struct scale_cfg *c, uint64_t max_msgs, uint64_t max_ns,
					 uint64_t *ns)
{
	struct bench_side *a = &c->p.a, *b = &c->p.b;
	struct wqe_sge sge = {(uintptr_t)a->buf, MSG, a->mr->lkey};
	struct wqe_send_wr wr, *bad;
	uint64_t done = 0, posted = 0, t0 = bench_now_ns();
	uint32_t out = 0;
	struct wqe_wc wc[64];
	int stop = 0;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = WQE_WR_RDMA_WRITE;
	wr.send_flags = WQE_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)b->buf;
	wr.wr.rdma.rkey = b->mr->rkey;
	while (!stop || out) {
		int n;

		while (!stop && out < WINDOW) {
			wr.wr_id = posted;
			if (wqe_post_send(a->qp[c->next], &wr, &bad))
				die("wqe_post_send failed");
			c->next = c->next + 1 == c->nqp ? 0 : c->next + 1;
			out++;
			posted++;
			if (max_msgs && posted >= max_msgs)
				stop = 1;
			if (posted % DOORBELLS == 0)
				wqe_progress(a->ctx);
		}
		wqe_progress(a->ctx);
		wqe_progress(b->ctx);
		n = bench_poll_ok("bench_scale", a->scq, 64, wc);
		out -= (uint32_t)n;
		done += (uint64_t)n;
		if (max_ns && !stop)
			stop = bench_now_ns() - t0 >= max_ns;
	}
	*ns = bench_now_ns() - t0;
	return done;
}

/*
 * The memory floor: the least that @nqp QP pairs' cold state can cost a
 * message on this machine, with no protocol work at all. Each pair has two
 * records of @rec bytes (the measured memory per QP), one a side, visited
 * round-robin as scale_run() visits the QPs. A message reads and writes
 * FLOOR_LINES lines: on A's side the software QP and the WQE slot, on B's
 * the responder's QP context and its PSNs. That is fewer than any RC
 * message can touch (the requester's context and the completer's in-flight
 * entry are left out), and the four are independent of one another, so the
 * processor may overlap their misses as the library's dependent loads
 * cannot. Returns nanoseconds a message, over about @max_ns.
 */
#define FLOOR_LINES 4

static BENCH_NOINLINE double floor_run(uint8_t *recs, uint32_t nqp, size_t rec, uint64_t max_ns)
{
	static const size_t off[FLOOR_LINES] = {0, 2048, 0, 1024}; /* A, A, B, B */
	uint64_t msgs = 0, t0 = bench_now_ns(), t;
	uint32_t q = 0;

	do {
		for (int i = 0; i < 4096; i++) {
			uint8_t *a = recs + (size_t)q * 2 * rec, *b = a + rec;

			for (int l = 0; l < FLOOR_LINES; l++) {
				volatile uint64_t *w = (volatile uint64_t *)((l < 2 ? a : b) + off[l]);

				*w = *w + 1;
			}
			q = q + 1 == nqp ? 0 : q + 1;
		}
		msgs += 4096;
		t = bench_now_ns() - t0;
	} while (t < max_ns);
	return (double)t / (double)msgs;
}

/*
 * What the goal leaves for the ACK every message needs from 64 QPs up:
 * 0.75x allows a message at 16384 QPs 1/0.75 - 1 = 1/3 of the 1-QP time
 * more; the memory floor takes its share of that; the rest is what one
 * ACK frame (built, ICRC, sent, received, ICRC checked, completed) may
 * cost. Printed beside what the ACK costs now (64 QPs, state warm, against
 * 1 QP, where one ACK covers a pass's messages).
 */
static void print_bound(double ns1, double ns64, const struct scale_cfg *big)
{
	size_t rec = ((size_t)(big->ctx_bytes + big->ring_bytes) + 63) & ~(size_t)63;
	double f1[ROUNDS], fn[ROUNDS], fl;
	uint8_t *recs;

	if (rec < 2112)
		rec = 2112; /* past the last line touched */
	recs = aligned_alloc(64, 2 * (size_t)big->nqp * rec);
	if (!recs)
		die("out of memory for the memory floor");
	memset(recs, 0, 2 * (size_t)big->nqp * rec);
	floor_run(recs, big->nqp, rec, RUN_NS / 4); /* warm: every record in memory */
	for (int r = 0; r < ROUNDS; r++) {
		f1[r] = floor_run(recs, 1, rec, RUN_NS / 4);
		fn[r] = floor_run(recs, big->nqp, rec, RUN_NS / 4);
	}
	fl = bench_median(fn, ROUNDS) - bench_median(f1, ROUNDS);
	free(recs);
	printf("bound, ns a message: 1 QP %.0f; 0.75x allows %.0f more at %u QPs; the memory "
	       "floor takes %.0f of that (%d independent cold lines a message in records of "
	       "%zu B, no protocol work); %.0f are left for the ACK each message needs; 64 QPs "
	       "(an ACK and a QP a message, state warm) add %.0f over 1 QP now\n\n",
	       ns1, ns1 / 0.75 - ns1, big->nqp, fl, FLOOR_LINES, rec, ns1 / 0.75 - ns1 - fl,
	       ns64 - ns1);
}

/* Messages that leave every one of @nqp QPs warm: each has run. */
static uint64_t warm_msgs(uint32_t nqp)
{
	return nqp > WINDOW ? nqp : WINDOW;
}

static void callgrind_run(struct scale_cfg *cfgs)
{
	char name[128];
	uint64_t ns, done;

	for (int i = 0; i < NCFG; i++) {
		/* warm, as the timed runs are: every QP has run (its ACK
		 * template built) */
		scale_run(&cfgs[i], 2 * warm_msgs(cfgs[i].nqp), 0, &ns);
		bench_cg_on();
		done = scale_run(&cfgs[i], 8 * WINDOW, 0, &ns);
		bench_cg_off();
		snprintf(name, sizeof(name), "scale|%u|lib|%llu", cfgs[i].nqp,
			 (unsigned long long)done);
		bench_cg_dump(name);
	}
}

int main(int argc, char **argv)
{
	static struct scale_cfg cfgs[NCFG];
	double rate[NCFG][ROUNDS], ratio[NCFG][ROUNDS];
	struct bench_allocs a0, a1;
	uint64_t msgs = 0, ns;
	uint32_t num_qp;
	char machine[256];
	static const struct bench_usage usage = {"[--callgrind | --profile NQP]", BENCH_NUM_NONE,
						 BENCH_NUM_REQUIRED};
	enum bench_mode mode = bench_args(argc, argv, &usage, &num_qp);

	if (mode == BENCH_PROFILE) {
		/* For a profiler (perf record, or valgrind --toggle-collect=scale_run):
		 * N QP pairs alone for 2 s. */
		uint64_t n;

		if (num_qp > 65536) {
			fprintf(stderr, "bench_scale: NQP is 1 to 65536\n");
			exit(2);
		}
		cfg_open(&cfgs[0], num_qp);
		bench_allocs_track_bytes(0);
		n = scale_run(&cfgs[0], 0, 2000000000ull, &ns);
		printf("%llu messages\n", (unsigned long long)n);
		return 0;
	}
	for (int i = 0; i < NCFG; i++)
		cfg_open(&cfgs[i], nqps[i]);
	bench_allocs_track_bytes(0);
	if (mode == BENCH_CALLGRIND) {
		callgrind_run(cfgs);
		return 0;
	}
	for (int i = 0; i < NCFG; i++) /* warm up: every QP has run once */
		scale_run(&cfgs[i], 2 * warm_msgs(nqps[i]), 0, &ns);
	bench_allocs_get(&a0);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < NCFG; i++) {
			uint64_t n = scale_run(&cfgs[i], 0, RUN_NS, &ns);

			rate[i][r] = (double)n / (double)ns * 1e3;
			msgs += n;
		}
	bench_allocs_get(&a1);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < NCFG; i++)
			ratio[i][r] = rate[i][r] / rate[0][r];

	bench_machine(machine, sizeof(machine));
	printf("## scale: 64 B RC RDMA WRITE round-robin over N QP pairs, loopback, one thread\n\n");
	printf("machine: %s\n", machine);
	printf("median of %d rounds of %.1f s per N, the N measured in turn; %u messages "
	       "outstanding in all\n\n",
	       ROUNDS, (double)RUN_NS / 1e9, WINDOW);
	printf("| QPs | max_send_wr | M msg/s | vs 1 QP | context B/QP | rings B/QP | total B/QP |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < NCFG; i++) {
		const struct scale_cfg *c = &cfgs[i];

		printf("| %u | %u | %.3f | %.3fx | %llu | %llu | %llu |\n", c->nqp, c->max_send_wr,
		       bench_median(rate[i], ROUNDS), bench_median(ratio[i], ROUNDS),
		       (unsigned long long)c->ctx_bytes, (unsigned long long)c->ring_bytes,
		       (unsigned long long)(c->ctx_bytes + c->ring_bytes));
	}
	printf("\nallocations after setup: %llu calls, %llu frees over %llu messages = %.3f per "
	       "message\n\n",
	       (unsigned long long)(a1.calls - a0.calls), (unsigned long long)(a1.frees - a0.frees),
	       (unsigned long long)msgs, (double)(a1.calls - a0.calls) / (double)msgs);
	print_bound(1e3 / bench_median(rate[0], ROUNDS), 1e3 / bench_median(rate[1], ROUNDS),
		    &cfgs[NCFG - 1]);
	{
		double rt = bench_median(ratio[NCFG - 1], ROUNDS);

		printf("RESULT scale 16384 QPs: %.3fx the rate at 1 QP (goal >= 0.75x) %s\n", rt,
		       rt >= 0.75 ? "MET" : "MISSED");
	}
	printf("RESULT scale memory per QP at 16384 QPs: %llu B (context %llu + rings %llu)\n",
	       (unsigned long long)(cfgs[NCFG - 1].ctx_bytes + cfgs[NCFG - 1].ring_bytes),
	       (unsigned long long)cfgs[NCFG - 1].ctx_bytes,
	       (unsigned long long)cfgs[NCFG - 1].ring_bytes);
	printf("RESULT scale allocations: %.3f per message (goal 0) %s\n",
	       (double)(a1.calls - a0.calls) / (double)msgs, a1.calls == a0.calls ? "MET" : "MISSED");
	return 0;
}
