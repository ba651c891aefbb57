/* SPDX-License-Identifier: MIT */
/*
 * bench_ops - RC messages by operation between two QPs of two contexts in
 * one process over the loopback link, one thread: a 64-byte RDMA WRITE, a
 * 64-byte SEND, the same two with 16 bytes inline, the two 64-byte ones
 * with an immediate, and a 64 KiB RDMA WRITE and SEND (16 packets each at
 * PMTU 4096).
 * Millions of messages per second, and each rate against the WRITE of its
 * size measured in the same rounds.
 *
 * There is no goal here: the table shows what a SEND costs beside a WRITE
 * (a receive WQE taken, placed through its lkey and completed, and the
 * application reposting it) and that an inline payload, read from the WQE
 * with no lkey to check, costs no more than one read through a key. The
 * engine's receive fast paths take every packet of all eight, its
 * requester's the one-packet ones (docs/architecture.md), so a row that
 * falls far behind the others means one of them stopped taking its
 * shape. The 64 KiB pair shows what a long SEND costs beside a long
 * WRITE: its packets scattered through the receive WQE's SGE list rather
 * than placed through one rkey.
 *
 * The loop: post a chain of 64 messages (8 of 64 KiB; the last one
 * signaled) whenever fewer than two chains are outstanding; wqe_progress()
 * on A and on B; wqe_poll_cq() on A's send CQ and, for an operation that
 * takes a receive WQE (a SEND, a WRITE with immediate), on B's receive CQ,
 * reposting each receive WQE it completes. 256 are kept posted, the i-th
 * a 64 KiB buffer starting 64 * i bytes into B's region (they overlap, as
 * the small messages use only their first 64 bytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define NCASES 8
#define CHAIN 64u
#define RECVS 256u
#define RECV_LEN 65536u /* each receive WQE's buffer */
#define ROUNDS 5
#define RUN_NS 100000000ull /* 0.1 s per measurement */

struct ops_case {
	const char *name;   /* in the table */
	const char *key;    /* in callgrind region names */
	enum wqe_wr_opcode opcode;
	uint32_t len;
	int inline_data;
	uint32_t chain; /* messages a post call */
	int ref;        /* the case its rate is compared with */
};

static const struct ops_case cases[NCASES] = {
    {"64 B RDMA WRITE", "write64", WQE_WR_RDMA_WRITE, 64, 0, CHAIN, 0},
    {"64 B SEND", "send64", WQE_WR_SEND, 64, 0, CHAIN, 0},
    {"16 B RDMA WRITE, inline", "write16i", WQE_WR_RDMA_WRITE, 16, 1, CHAIN, 0},
    {"16 B SEND, inline", "send16i", WQE_WR_SEND, 16, 1, CHAIN, 0},
    {"64 B RDMA WRITE with immediate", "writeimm64", WQE_WR_RDMA_WRITE_WITH_IMM, 64, 0, CHAIN, 0},
    {"64 B SEND with immediate", "sendimm64", WQE_WR_SEND_WITH_IMM, 64, 0, CHAIN, 0},
    {"64 KiB RDMA WRITE", "write64k", WQE_WR_RDMA_WRITE, 65536, 0, 8, 6},
    {"64 KiB SEND", "send64k", WQE_WR_SEND, 65536, 0, 8, 6},
};

struct ops {
	struct bench_pair p;
	struct wqe_send_wr wr[CHAIN];
	struct wqe_sge sge[CHAIN];
	struct wqe_recv_wr rwr[RECVS];
	struct wqe_sge rsge[RECVS];
	uint32_t recv_next; /* the next receive WQE to repost, in turn */
};

static void die(const char *what)
{
	fprintf(stderr, "bench_ops: %s\n", what);
	exit(1);
}

static void build_chain(struct ops *o, const struct ops_case *c)
{
	for (uint32_t i = 0; i < c->chain; i++) {
		struct wqe_send_wr *w = &o->wr[i];

		o->sge[i].addr = (uintptr_t)o->p.a.buf;
		o->sge[i].length = c->len;
		o->sge[i].lkey = o->p.a.mr->lkey;
		memset(w, 0, sizeof(*w));
		w->wr_id = i;
		w->sg_list = &o->sge[i];
		w->num_sge = 1;
		w->opcode = c->opcode;
		w->send_flags = (i + 1 == c->chain ? WQE_SEND_SIGNALED : 0) |
				(c->inline_data ? WQE_SEND_INLINE : 0);
		w->imm_data = 0x04030201u + i;
		w->wr.rdma.remote_addr = (uintptr_t)o->p.b.buf;
		w->wr.rdma.rkey = o->p.b.mr->rkey;
		w->next = i + 1 < c->chain ? &o->wr[i + 1] : NULL;
	}
}

/* B's receive queue holds RECVS WQEs, the i-th RECV_LEN bytes from 64 * i. */
static void ops_open(struct ops *o)
{
	struct bench_pair_cfg cfg = {.nqp = 1,
				     .max_send_wr = 2 * CHAIN,
				     .cq_depth = 4096,
				     .buf_bytes = 64 * RECVS + RECV_LEN,
				     .mtu = WQE_MTU_4096,
				     .max_recv_wr = RECVS,
				     .max_inline_data = 16};

	memset(o, 0, sizeof(*o));
	if (bench_pair_open(&o->p, &cfg))
		die("setup failed");
	for (uint32_t i = 0; i < 64 * RECVS + RECV_LEN; i++)
		o->p.a.buf[i] = (uint8_t)(i * 7 + 1);
	for (uint32_t i = 0; i < RECVS; i++) {
		struct wqe_recv_wr *bad;

		o->rsge[i].addr = (uintptr_t)o->p.b.buf + 64u * i;
		o->rsge[i].length = RECV_LEN;
		o->rsge[i].lkey = o->p.b.mr->lkey;
		o->rwr[i].wr_id = i;
		o->rwr[i].sg_list = &o->rsge[i];
		o->rwr[i].num_sge = 1;
		if (wqe_post_recv(o->p.b.qp[0], &o->rwr[i], &bad))
			die("wqe_post_recv failed");
	}
}

/* Reposts the receive WQEs B completed; returns how many. */
static uint32_t recv_poll(struct ops *o, uint32_t len)
{
	struct wqe_wc wc[64];
	uint32_t got = 0;
	int n;

	while ((n = wqe_poll_cq(o->p.b.rcq, 64, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			struct wqe_recv_wr *bad;

			if (wc[i].status != WQE_WC_SUCCESS || wc[i].byte_len != len)
				die("a receive completed in error");
			/* completions come in the order the WQEs were posted */
			if (wqe_post_recv(o->p.b.qp[0], &o->rwr[o->recv_next], &bad))
				die("wqe_post_recv failed");
			o->recv_next = (o->recv_next + 1) % RECVS;
		}
		got += (uint32_t)n;
	}
	if (n < 0)
		die("wqe_poll_cq failed");
	return got;
}

/*
 * Messages of case @c until @max_msgs are done or @max_ns have passed (0:
 * no limit), then until nothing is outstanding. Returns the messages
 * completed; *@ns the time taken.
 */
static BENCH_NOINLINE uint64_t ops_run(struct ops *o, const struct ops_case *c,
				       uint64_t max_msgs, uint64_t max_ns, uint64_t *ns)
{
	struct wqe_context *a = o->p.a.ctx, *b = o->p.b.ctx;
	struct wqe_qp *qp = o->p.a.qp[0];
	uint64_t done = 0, posted = 0, received = 0, t0 = bench_now_ns();
	uint32_t out = 0;
	struct wqe_wc wc[16];
	int stop = 0, send = c->opcode != WQE_WR_RDMA_WRITE; /* takes a receive WQE */

	build_chain(o, c);
	while (!stop || out) {
		struct wqe_send_wr *bad;
		int n;

		while (!stop && out < 2) {
			if (wqe_post_send(qp, o->wr, &bad))
				die("wqe_post_send failed");
			out++;
			posted += c->chain;
			if (max_msgs && posted >= max_msgs)
				stop = 1;
		}
		wqe_progress(a);
		wqe_progress(b);
		n = bench_poll_ok("bench_ops", o->p.a.scq, 16, wc);
		if (send)
			received += recv_poll(o, c->len);
		out -= (uint32_t)n;
		done += (uint64_t)n * c->chain;
		if (max_ns && !stop)
			stop = bench_now_ns() - t0 >= max_ns;
	}
	*ns = bench_now_ns() - t0;
	if (send && received != done)
		die("receives and sends do not match");
	return done;
}

static void callgrind_run(struct ops *o)
{
	char name[128];
	uint64_t ns, done;

	for (int i = 0; i < NCASES; i++) {
		uint64_t msgs = cases[i].len > 4096 ? 256 : 4096;

		ops_run(o, &cases[i], msgs / 4, 0, &ns); /* warm */
		bench_cg_on();
		done = ops_run(o, &cases[i], msgs, 0, &ns);
		bench_cg_off();
		snprintf(name, sizeof(name), "ops|%s|lib|%llu", cases[i].key,
			 (unsigned long long)done);
		bench_cg_dump(name);
	}
}

int main(int argc, char **argv)
{
	static struct ops o;
	double rate[NCASES][ROUNDS], ratio[NCASES][ROUNDS];
	struct bench_allocs a0, a1;
	uint64_t msgs = 0, ns;
	char machine[256];
	uint32_t num;
	static const struct bench_usage usage = {
	    "[--callgrind | --profile CASE]  (CASE: 0 write64, 1 send64, 2 write16i, 3 send16i, "
	    "4 writeimm64, 5 sendimm64, 6 write64k, 7 send64k)",
	    BENCH_NUM_NONE, BENCH_NUM_REQUIRED};
	enum bench_mode mode = bench_args(argc, argv, &usage, &num);

	if (mode == BENCH_PROFILE && num >= NCASES) {
		fprintf(stderr, "bench_ops: CASE is 0 to %d\n", NCASES - 1);
		exit(2);
	}
	ops_open(&o);
	bench_allocs_track_bytes(0);
	if (mode == BENCH_CALLGRIND) {
		callgrind_run(&o);
		return 0;
	}
	if (mode == BENCH_PROFILE) {
		/* For a profiler (perf record, or valgrind --toggle-collect=ops_run):
		 * one case alone for 2 s. */
		uint64_t n = ops_run(&o, &cases[num], 0, 2000000000ull, &ns);

		printf("%llu messages\n", (unsigned long long)n);
		return 0;
	}
	for (int i = 0; i < NCASES; i++) { /* warm up, and check the bytes arrived */
		memset(o.p.b.buf, 0, cases[i].len);
		ops_run(&o, &cases[i], 0, RUN_NS / 10, &ns);
		if ((cases[i].opcode == WQE_WR_RDMA_WRITE ||
		     cases[i].opcode == WQE_WR_RDMA_WRITE_WITH_IMM) &&
		    memcmp(o.p.a.buf, o.p.b.buf, cases[i].len))
			die("the destination does not hold the source's bytes");
	}
	bench_allocs_get(&a0);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < NCASES; i++) {
			uint64_t n = ops_run(&o, &cases[i], 0, RUN_NS, &ns);

			rate[i][r] = (double)n / (double)ns * 1e3;
			msgs += n;
		}
	bench_allocs_get(&a1);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < NCASES; i++)
			ratio[i][r] = rate[i][r] / rate[cases[i].ref][r];

	bench_machine(machine, sizeof(machine));
	printf("## ops: RC messages by operation, one QP pair, loopback, one thread\n\n");
	printf("machine: %s\n", machine);
	printf("median of %d rounds of %.1f s per case, the cases measured in turn; chains of %u "
	       "(8 of 64 KiB), the last signaled; SENDs into %u posted receives of 64 KiB, "
	       "reposted as they complete; PMTU 4096\n\n",
	       ROUNDS, (double)RUN_NS / 1e9, CHAIN, RECVS);
	printf("| operation | M msg/s | Gbit/s | against | ratio |\n");
	printf("|---|---:|---:|---|---:|\n");
	for (int i = 0; i < NCASES; i++) {
		double m = bench_median(rate[i], ROUNDS);

		printf("| %s | %.3f | %.2f | %s | %.3fx |\n", cases[i].name, m,
		       m * cases[i].len * 8 / 1e3, cases[cases[i].ref].name,
		       bench_median(ratio[i], ROUNDS));
	}
	printf("\nallocations after setup: %llu calls, %llu frees over %llu messages = %.3f per "
	       "message\n\n",
	       (unsigned long long)(a1.calls - a0.calls), (unsigned long long)(a1.frees - a0.frees),
	       (unsigned long long)msgs, (double)(a1.calls - a0.calls) / (double)msgs);
	for (int i = 0; i < NCASES; i++)
		if (cases[i].ref != i)
			printf("RESULT ops %s: %.3fx the %s rate (no goal)\n", cases[i].name,
			       bench_median(ratio[i], ROUNDS), cases[cases[i].ref].name);
	printf("RESULT ops allocations: %.3f per message (goal 0) %s\n",
	       (double)(a1.calls - a0.calls) / (double)msgs, a1.calls == a0.calls ? "MET" : "MISSED");
	return 0;
}
