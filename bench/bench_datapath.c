/* SPDX-License-Identifier: MIT */
/*
 * bench_datapath - RC RDMA WRITE between two QPs of two contexts in one
 * process over the loopback link, one thread, PMTU 4096: Gbit/s of payload
 * and millions of messages per second, for 64 B, 1 KiB, 4 KiB, 64 KiB and
 * 1 MiB messages.
 *
 * The loop: post a chain of S messages (the last one signaled) whenever
 * fewer than two chains are outstanding; wqe_progress() on A (requester:
 * fetch, check, packetize, ICRC, transmit) and on B (parse, ICRC check,
 * responder: place, ACK); wqe_poll_cq() on A's send CQ (completer). S is
 * 64 messages up to 4 KiB, 8 at 64 KiB and 1 at 1 MiB, so at most about
 * 512 frames wait in a port's queue (it holds 4096).
 *
 * The baseline (base_message) is the least a software RoCE path does per
 * packet of the same size: gather the payload into a frame buffer with
 * memcpy, compute the CRC-32 of headers and payload with ISA-L
 * (crc32_gzip_refl, as the ICRC), compute it again as a receiver checks it,
 * and copy the payload to the destination buffer.
 */
#include <isa-l/crc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MTU_BYTES 4096u
#define MAX_MSG (1u << 20)
#define MAX_CHAIN 64u
#define NSIZES 5
#define ROUNDS 5
#define RUN_NS 100000000ull /* 0.1 s per measurement */

/* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 (+ RETH 16 on a first packet). */
#define L2_LEN 14u
#define HDR_LEN 54u
#define RETH_LEN 16u
#define BASE_HEADROOM 2u

static const uint32_t sizes[NSIZES] = {64, 1024, 4096, 65536, MAX_MSG};

struct dp {
	struct bench_pair p;
	struct wqe_send_wr wr[MAX_CHAIN];
	struct wqe_sge sge[MAX_CHAIN];
	uint8_t *frame_buf;  /* the baseline's packet buffer */
	uint8_t *frame;      /* where its Ethernet header starts */
	uint8_t *base_src;   /* the baseline's own buffers, as large as the pair's */
	uint8_t *base_dst;
	uint64_t frames;     /* request + response frames of the library runs */
};

static uint32_t pkts_of(uint32_t size)
{
	return (size + MTU_BYTES - 1) / MTU_BYTES;
}

static uint32_t chain_of(uint32_t size)
{
	uint32_t s = 128 / pkts_of(size);

	return s < 1 ? 1 : s > MAX_CHAIN ? MAX_CHAIN : s;
}

/* Links wr[0..n-1], the last one signaled. */
static void build_chain(struct dp *d, uint32_t size, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct wqe_send_wr *w = &d->wr[i];

		d->sge[i].addr = (uintptr_t)d->p.a.buf;
		d->sge[i].length = size;
		d->sge[i].lkey = d->p.a.mr->lkey;
		memset(w, 0, sizeof(*w));
		w->wr_id = i;
		w->sg_list = &d->sge[i];
		w->num_sge = 1;
		w->opcode = WQE_WR_RDMA_WRITE;
		w->send_flags = i + 1 == n ? WQE_SEND_SIGNALED : 0;
		w->wr.rdma.remote_addr = (uintptr_t)d->p.b.buf;
		w->wr.rdma.rkey = d->p.b.mr->rkey;
		w->next = i + 1 < n ? &d->wr[i + 1] : NULL;
	}
}

static void die(const char *what)
{
	fprintf(stderr, "bench_datapath: %s\n", what);
	exit(1);
}

static void usage_error(const char *what)
{
	fprintf(stderr, "bench_datapath: %s\n", what);
	exit(2);
}

/*
 * Messages of @size through the library until @max_msgs are done or
 * @max_ns have passed (0: no limit), then until nothing is outstanding.
 * Returns the messages completed; *@ns the time taken.
 */
static BENCH_NOINLINE uint64_t lib_run(struct dp *d, uint32_t size, uint64_t max_msgs,
						  uint64_t max_ns, uint64_t *ns)
{
	struct wqe_context *a = d->p.a.ctx, *b = d->p.b.ctx;
	struct wqe_qp *qp = d->p.a.qp[0];
	uint32_t s = chain_of(size), out = 0;
	uint64_t done = 0, posted = 0, t0 = bench_now_ns(), t = t0;
	struct wqe_link_stats ls0, ls1;
	struct wqe_wc wc[16];
	int stop = 0;

	build_chain(d, size, s);
	wqe_link_stats(d->p.link, &ls0);
	while (!stop || out) {
		struct wqe_send_wr *bad;
		int n;

		while (!stop && out < 2) {
			if (wqe_post_send(qp, d->wr, &bad))
				die("wqe_post_send failed");
			out++;
			posted += s;
			if (max_msgs && posted >= max_msgs)
				stop = 1;
		}
		wqe_progress(a);
		wqe_progress(b);
		n = bench_poll_ok("bench_datapath", d->p.a.scq, 16, wc);
		out -= (uint32_t)n;
		done += (uint64_t)n * s;
		if (max_ns && !stop) {
			t = bench_now_ns();
			stop = t - t0 >= max_ns;
		}
	}
	*ns = bench_now_ns() - t0;
	wqe_link_stats(d->p.link, &ls1);
	if (ls1.queue_full != ls0.queue_full || ls1.no_destination != ls0.no_destination)
		die("the link dropped frames: the window is too large");
	d->frames += ls1.frames - ls0.frames;
	return done;
}

/* The baseline for one message: per packet gather, ICRC twice, place. */
static BENCH_NOINLINE void base_message(struct dp *d, uint32_t size)
{
	uint8_t *f = d->frame;

	for (uint32_t off = 0; off < size; off += MTU_BYTES) {
		uint32_t plen = size - off < MTU_BYTES ? size - off : MTU_BYTES;
		uint32_t hdr = HDR_LEN + (off == 0 ? RETH_LEN : 0);
		uint32_t crc, check;

		memcpy(f + hdr, d->base_src + off, plen);
		crc = crc32_gzip_refl(0, f + L2_LEN, hdr - L2_LEN + plen);
		memcpy(f + hdr + plen, &crc, 4);
		check = crc32_gzip_refl(0, f + L2_LEN, hdr - L2_LEN + plen);
		if (memcmp(&check, f + hdr + plen, 4))
			die("baseline ICRC mismatch");
		memcpy(d->base_dst + off, f + hdr, plen);
	}
}

static uint64_t base_run(struct dp *d, uint32_t size, uint64_t max_msgs, uint64_t max_ns,
			 uint64_t *ns)
{
	uint64_t done = 0, t0 = bench_now_ns();

	for (;;) {
		for (uint32_t i = 0; i < chain_of(size); i++)
			base_message(d, size);
		done += chain_of(size);
		if ((max_msgs && done >= max_msgs) || (max_ns && bench_now_ns() - t0 >= max_ns))
			break;
	}
	*ns = bench_now_ns() - t0;
	return done;
}

static void dp_open(struct dp *d)
{
	struct bench_pair_cfg cfg = {.nqp = 1, .max_send_wr = 256, .cq_depth = 4096,
				     .buf_bytes = MAX_MSG, .mtu = WQE_MTU_4096};

	memset(d, 0, sizeof(*d));
	if (bench_pair_open(&d->p, &cfg))
		die("setup failed");
	for (uint32_t i = 0; i < MAX_MSG; i++)
		d->p.a.buf[i] = (uint8_t)(i * 7 + (i >> 12));
	/* Two bytes of headroom put the payload (frame offset 70 or 54) on an
	 * 8-byte boundary: on this machine a memcpy from or to a pointer that
	 * is not 8-byte aligned runs several times slower (docs/benchmarks.md). */
	d->frame_buf = malloc(BASE_HEADROOM + HDR_LEN + RETH_LEN + MTU_BYTES + 64);
	d->frame = d->frame_buf ? d->frame_buf + BASE_HEADROOM : NULL;
	d->base_src = malloc(MAX_MSG);
	d->base_dst = malloc(MAX_MSG);
	if (!d->frame || !d->base_src || !d->base_dst)
		die("out of memory");
	memset(d->frame, 0x5a, HDR_LEN + RETH_LEN);
	memcpy(d->base_src, d->p.a.buf, MAX_MSG);
	memset(d->base_dst, 0, MAX_MSG);
}

/* Under callgrind: a fixed number of messages per size, each region dumped
 * (--callgrind [SIZE]). */
static void callgrind_run(struct dp *d, uint32_t only)
{
	char name[128];
	uint64_t ns;

	for (int i = 0; i < NSIZES; i++) {
		uint32_t size = sizes[i];

		if (only && size != only)
			continue;
		uint64_t msgs = size >= MAX_MSG ? 4 : size >= 65536 ? 32 : 1024, done;

		lib_run(d, size, msgs, 0, &ns); /* warm */
		bench_cg_on();
		done = lib_run(d, size, msgs, 0, &ns);
		bench_cg_off();
		snprintf(name, sizeof(name), "datapath|%u|lib|%llu|%llu", size,
			 (unsigned long long)done, (unsigned long long)(done * pkts_of(size)));
		bench_cg_dump(name);
		base_run(d, size, msgs, 0, &ns);
		bench_cg_on();
		done = base_run(d, size, msgs, 0, &ns);
		bench_cg_off();
		snprintf(name, sizeof(name), "datapath|%u|base|%llu|%llu", size,
			 (unsigned long long)done, (unsigned long long)(done * pkts_of(size)));
		bench_cg_dump(name);
	}
}

static const char *size_str(uint32_t size, char *buf, size_t cap)
{
	if (size >= (1u << 20))
		snprintf(buf, cap, "%u MiB", size >> 20);
	else if (size >= 1024)
		snprintf(buf, cap, "%u KiB", size >> 10);
	else
		snprintf(buf, cap, "%u B", size);
	return buf;
}

int main(int argc, char **argv)
{
	static struct dp d;
	double lib_g[NSIZES][ROUNDS], lib_m[NSIZES][ROUNDS], base_g[NSIZES][ROUNDS];
	double base_m[NSIZES][ROUNDS], ratio[NSIZES][ROUNDS];
	struct bench_allocs a0, a1;
	uint64_t msgs = 0, pkts = 0, ns;
	char machine[256], sz[32];
	static const struct bench_usage usage = {"[--callgrind [SIZE] | --profile SIZE]",
						 BENCH_NUM_OPTIONAL, BENCH_NUM_REQUIRED};
	enum bench_mode mode;
	uint32_t num;

	mode = bench_args(argc, argv, &usage, &num);
	if (num > MAX_MSG)
		usage_error("SIZE is 1 to 1048576 bytes");
	if (mode == BENCH_CALLGRIND && num) {
		int known = 0;

		for (int i = 0; i < NSIZES; i++)
			known |= sizes[i] == num;
		if (!known)
			usage_error("--callgrind SIZE is one of 64, 1024, 4096, 65536, 1048576");
	}
	dp_open(&d);
	bench_allocs_track_bytes(0);
	if (mode == BENCH_CALLGRIND) {
		callgrind_run(&d, num);
		return 0;
	}
	if (mode == BENCH_PROFILE) {
		/* For a profiler (perf record, or valgrind --toggle-collect=lib_run):
		 * the library alone at one size for 2 s. */
		uint64_t n = lib_run(&d, num, 0, 2000000000ull, &ns);

		printf("%llu messages\n", (unsigned long long)n);
		return 0;
	}
	for (int i = 0; i < NSIZES; i++) { /* warm up, and check the bytes arrived */
		memset(d.p.b.buf, 0, sizes[i]);
		lib_run(&d, sizes[i], 0, RUN_NS / 10, &ns);
		if (memcmp(d.p.a.buf, d.p.b.buf, sizes[i]))
			die("the destination does not hold the source's bytes");
		base_run(&d, sizes[i], 0, RUN_NS / 10, &ns);
	}
	d.frames = 0;
	bench_allocs_get(&a0);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < NSIZES; i++) {
			uint64_t n;

			n = base_run(&d, sizes[i], 0, RUN_NS, &ns);
			base_m[i][r] = (double)n / (double)ns * 1e3;
			base_g[i][r] = (double)n * sizes[i] * 8 / (double)ns;
			n = lib_run(&d, sizes[i], 0, RUN_NS, &ns);
			lib_m[i][r] = (double)n / (double)ns * 1e3;
			lib_g[i][r] = (double)n * sizes[i] * 8 / (double)ns;
			ratio[i][r] = lib_m[i][r] / base_m[i][r];
			msgs += n;
			pkts += n * pkts_of(sizes[i]);
		}
	bench_allocs_get(&a1);

	bench_machine(machine, sizeof(machine));
	printf("## datapath: RC RDMA WRITE over the loopback link, PMTU 4096, one thread\n\n");
	printf("machine: %s\n", machine);
	printf("median of %d alternating rounds of %.1f s each; baseline: per packet memcpy "
	       "gather + ISA-L CRC-32 twice + memcpy to the destination\n\n",
	       ROUNDS, (double)RUN_NS / 1e9);
	printf("| size | wqe Gbit/s | wqe M msg/s | baseline Gbit/s | baseline M msg/s | ratio | "
	       "goal |\n");
	printf("|---|---:|---:|---:|---:|---:|---|\n");
	for (int i = 0; i < NSIZES; i++) {
		double rt = bench_median(ratio[i], ROUNDS);
		const char *goal = sizes[i] >= 4096 ? ">= 0.50x throughput"
				   : sizes[i] == 64 ? ">= 0.25x message rate"
						    : "(none)";
		double g = sizes[i] >= 4096 ? 0.5 : sizes[i] == 64 ? 0.25 : 0;

		printf("| %s | %.2f | %.3f | %.2f | %.3f | %.3fx | %s%s |\n",
		       size_str(sizes[i], sz, sizeof(sz)), bench_median(lib_g[i], ROUNDS),
		       bench_median(lib_m[i], ROUNDS), bench_median(base_g[i], ROUNDS),
		       bench_median(base_m[i], ROUNDS), rt, goal,
		       g == 0 ? "" : rt >= g ? " met" : " MISSED");
	}
	printf("\nallocations after setup: %llu calls, %llu frees over %llu messages, %llu request "
	       "packets, %llu frames (requests + ACKs) = %.3f per message, %.3f per frame\n\n",
	       (unsigned long long)(a1.calls - a0.calls), (unsigned long long)(a1.frees - a0.frees),
	       (unsigned long long)msgs, (unsigned long long)pkts, (unsigned long long)d.frames,
	       (double)(a1.calls - a0.calls) / (double)msgs,
	       (double)(a1.calls - a0.calls) / (double)d.frames);
	for (int i = 0; i < NSIZES; i++) {
		double rt = bench_median(ratio[i], ROUNDS);
		double g = sizes[i] >= 4096 ? 0.5 : sizes[i] == 64 ? 0.25 : 0;

		printf("RESULT datapath %-7s: %.3fx baseline%s", size_str(sizes[i], sz, sizeof(sz)),
		       rt, sizes[i] >= 4096 ? " throughput" : " message rate");
		if (g > 0)
			printf(" (goal >= %.2fx) %s\n", g, rt >= g ? "MET" : "MISSED");
		else
			printf(" (no goal)\n");
	}
	printf("RESULT datapath allocations: %.3f per message (goal 0) %s\n",
	       (double)(a1.calls - a0.calls) / (double)msgs, a1.calls == a0.calls ? "MET" : "MISSED");
	return 0;
}
