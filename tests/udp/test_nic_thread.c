/* SPDX-License-Identifier: MIT */
/*
 * The NIC thread (WQE_NIC_THREAD), between two processes on UDP links of
 * 127/8: the passive side B sets up its QP and memory, then sleeps in
 * read() on a pipe with no verbs call at all while A writes, reads and
 * atomically updates its memory; B's NIC thread answers alone. Then B
 * sleeps in wqe_get_cq_event() and wakes on the completion of a SEND
 * from A, with no progress call of its own. A waits for its own
 * completions in wqe_get_cq_event() too. While B sleeps idle, its process
 * uses almost no CPU: the NIC thread sleeps in poll(), it does not spin.
 * Also: wqe_progress() does nothing in this mode, and a link the thread
 * cannot sleep on is refused (ENOTSUP).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "udp_pair.h"

#define REGION 65536u
#define SLOT_INIT 100u

/* What B tells A: its QP, and where its memory is. */
struct b_info {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;      /* REGION bytes, remote write and read */
	uint64_t slot;      /* an 8-byte word for the atomics */
	uint32_t slot_rkey;
};

static struct uep A, B;
static uint8_t b_mem[REGION] __attribute__((aligned(64)));
static uint64_t b_slot __attribute__((aligned(8)));

static void put_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w <= 0) {
			perror("pipe write");
			exit(2);
		}
		b += w;
		n -= (size_t)w;
	}
}

static void get_all(int fd, void *p, size_t n)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = read(fd, b, n);

		if (r <= 0) {
			perror("pipe read");
			exit(2);
		}
		b += r;
		n -= (size_t)r;
	}
}

static double cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 +
	       (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Sleeps in poll() until @ch's fd is readable: false after 10 s (the NIC
 * thread did not deliver), so that a missing event fails rather than
 * hangs. */
static bool event_within(struct wqe_comp_channel *ch)
{
	struct pollfd p = {.fd = ch->fd, .events = POLLIN};
	int r;

	while ((r = poll(&p, 1, 10000)) < 0 && errno == EINTR)
		;
	return r == 1;
}

/* Waits in wqe_get_cq_event() for one completion of @cq: armed, then
 * polled empty, then asleep until the event (the libibverbs loop). */
static int wait_one(struct uep *e, struct wqe_cq *cq, struct wqe_wc *wc)
{
	for (;;) {
		struct wqe_cq *got;
		void *ctx;
		int n;

		CHECK_EQ(wqe_req_notify_cq(cq, 0), 0);
		n = wqe_poll_cq(cq, 1, wc);
		if (n != 0)
			return n;
		CHECK(event_within(e->channel));
		if (!test_fd_readable(e->channel->fd) || wqe_get_cq_event(e->channel, &got, &ctx))
			return -1;
		CHECK(got == cq);
		wqe_ack_cq_events(got, 1);
	}
}

static int passive_b(int in, int out)
{
	struct wqe_mr *mr, *smr, *rmr;
	struct b_info me;
	uint8_t rbuf[256];
	uint32_t a_qpn;
	double cpu0, cpu1;
	char go;
	struct wqe_wc wc;
	struct wqe_cq *got;
	void *gctx;
	union wqe_gid a_gid;

	CHECK_EQ(uep_open_channel(&B, 2, WQE_QPT_RC, 64), 0);
	mr = wqe_reg_mr(B.pd, b_mem, REGION,
			WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ);
	b_slot = SLOT_INIT;
	smr = wqe_reg_mr(B.pd, &b_slot, sizeof(b_slot),
			 WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_ATOMIC | WQE_ACCESS_REMOTE_READ);
	rmr = wqe_reg_mr(B.pd, rbuf, sizeof(rbuf), WQE_ACCESS_LOCAL_WRITE);
	CHECK(mr && smr && rmr);
	if (!mr || !smr || !rmr)
		return test_finish();
	memset(&me, 0, sizeof(me)); /* its padding goes through the pipe too */
	me.qpn = wqe_qp_num(B.qp);
	me.rkey = mr->rkey;
	me.addr = (uint64_t)(uintptr_t)b_mem;
	me.slot = (uint64_t)(uintptr_t)&b_slot;
	me.slot_rkey = smr->rkey;
	put_all(out, &me, sizeof(me));
	get_all(in, &a_qpn, sizeof(a_qpn));
	udp_test_gid(1, &a_gid);
	CHECK_EQ(uep_connect(&B, &a_gid, a_qpn, WQE_QPT_RC, WQE_MTU_1024, 0, 64), 0);
	put_all(out, "r", 1);

	/* Passive: no verbs call until A says it is done. */
	get_all(in, &go, 1);
	/* A's word came through a pipe after the NIC thread's writes were
	 * acknowledged over UDP, an order ThreadSanitizer cannot follow
	 * across processes; one command (it takes the NIC's lock, which the
	 * thread held while it wrote) gives it the order. */
	{
		struct wqe_qp_stats st;

		CHECK_EQ(wqe_query_qp_stats(B.qp, &st), 0);
		CHECK_EQ(st.bytes_placed, REGION);
		CHECK_EQ(st.read_responses_sent, REGION / 1024);
		CHECK_EQ(st.atomic_acks_sent, 2);
	}
	for (size_t i = 0; i < REGION; i++)
		if (b_mem[i] != (uint8_t)(i * 7 + 3)) {
			CHECK_EQ(b_mem[i], (uint8_t)(i * 7 + 3));
			break;
		}
	CHECK_EQ(b_slot, 7);

	/* Idle: A sleeps 300 ms while B's NIC has nothing to do. */
	cpu0 = cpu_s();
	get_all(in, &go, 1);
	cpu1 = cpu_s();
	/* A spinning NIC thread would take about 0.3 s of CPU here. */
	CHECK(cpu1 - cpu0 < 0.05);
	fprintf(stderr, "B idle: %.4f s CPU in about 0.3 s\n", cpu1 - cpu0);

	/* Asleep in wqe_get_cq_event() until a SEND arrives. */
	{
		struct wqe_sge sge = {.addr = (uint64_t)(uintptr_t)rbuf, .length = sizeof(rbuf),
				      .lkey = rmr->lkey};
		struct wqe_recv_wr rw = {.wr_id = 0xb0b, .sg_list = &sge, .num_sge = 1};
		struct wqe_recv_wr *bad = NULL;

		memset(rbuf, 0, sizeof(rbuf));
		CHECK_EQ(wqe_post_recv(B.qp, &rw, &bad), 0);
	}
	CHECK_EQ(wqe_req_notify_cq(B.rcq, 0), 0);
	CHECK_EQ(wqe_poll_cq(B.rcq, 1, &wc), 0);
	put_all(out, "a", 1);
	/* Blocks in read() on the channel's fd, as ibv_rc_pingpong -e does;
	 * the alarm (main()) ends a wait the NIC thread never answers. */
	CHECK_EQ(wqe_get_cq_event(B.channel, &got, &gctx), 0);
	CHECK(got == B.rcq);
	wqe_ack_cq_events(got, 1);
	CHECK_EQ(wqe_poll_cq(B.rcq, 1, &wc), 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 0xb0b);
	CHECK_EQ(wc.opcode, WQE_WC_RECV);
	CHECK_EQ(wc.byte_len, 200);
	CHECK(wc.wc_flags & WQE_WC_WITH_IMM);
	CHECK_EQ(wc.imm_data, 0x12345678u);
	for (unsigned i = 0; i < 200; i++)
		if (rbuf[i] != (uint8_t)(0xa0 ^ i)) {
			CHECK_EQ(rbuf[i], (uint8_t)(0xa0 ^ i));
			break;
		}
	get_all(in, &go, 1); /* A is done: tear down */
	CHECK_EQ(wqe_dereg_mr(mr), 0);
	CHECK_EQ(wqe_dereg_mr(smr), 0);
	CHECK_EQ(wqe_dereg_mr(rmr), 0);
	uep_close(&B);
	return test_finish();
}

static void post1(struct wqe_qp *qp, struct wqe_send_wr *wr)
{
	struct wqe_send_wr *bad = NULL;

	wr->send_flags |= WQE_SEND_SIGNALED;
	CHECK_EQ(wqe_post_send(qp, wr, &bad), 0);
}

/* A: one request, then its completion, asleep in wqe_get_cq_event(). */
static void do_op(struct wqe_send_wr *wr)
{
	struct wqe_wc wc;

	post1(A.qp, wr);
	CHECK_EQ(wait_one(&A, A.scq, &wc), 1);
	CHECK_EQ(wc.status, WQE_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, wr->wr_id);
}

static void active_a(int in, int out, pid_t child)
{
	static uint8_t src[REGION], back[REGION];
	uint64_t old = 0;
	struct b_info b;
	struct wqe_mr *ms, *mb, *mo;
	uint32_t my_qpn;
	char ready;
	int status = 0;
	union wqe_gid b_gid;

	CHECK_EQ(uep_open_channel(&A, 1, WQE_QPT_RC, 64), 0);
	for (size_t i = 0; i < REGION; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	ms = wqe_reg_mr(A.pd, src, REGION, WQE_ACCESS_LOCAL_WRITE);
	mb = wqe_reg_mr(A.pd, back, REGION, WQE_ACCESS_LOCAL_WRITE);
	mo = wqe_reg_mr(A.pd, &old, sizeof(old), WQE_ACCESS_LOCAL_WRITE);
	CHECK(ms && mb && mo);
	get_all(in, &b, sizeof(b));
	my_qpn = wqe_qp_num(A.qp);
	put_all(out, &my_qpn, sizeof(my_qpn));
	udp_test_gid(2, &b_gid);
	CHECK_EQ(uep_connect(&A, &b_gid, b.qpn, WQE_QPT_RC, WQE_MTU_1024, 0, 64), 0);
	get_all(in, &ready, 1);
	/* Nothing for the caller's progress to do: the NIC thread has it. */
	CHECK_EQ(wqe_progress(A.ctx), 0);

	{
		struct wqe_sge s = {(uint64_t)(uintptr_t)src, REGION, ms->lkey};
		struct wqe_send_wr w = {.wr_id = 1, .sg_list = &s, .num_sge = 1,
					.opcode = WQE_WR_RDMA_WRITE};

		w.wr.rdma.remote_addr = b.addr;
		w.wr.rdma.rkey = b.rkey;
		do_op(&w);
	}
	{
		struct wqe_sge s = {(uint64_t)(uintptr_t)back, REGION, mb->lkey};
		struct wqe_send_wr w = {.wr_id = 2, .sg_list = &s, .num_sge = 1,
					.opcode = WQE_WR_RDMA_READ};

		w.wr.rdma.remote_addr = b.addr;
		w.wr.rdma.rkey = b.rkey;
		do_op(&w);
		CHECK_MEM(back, src, REGION);
	}
	{
		struct wqe_sge s = {(uint64_t)(uintptr_t)&old, 8, mo->lkey};
		struct wqe_send_wr w = {.wr_id = 3, .sg_list = &s, .num_sge = 1,
					.opcode = WQE_WR_ATOMIC_FETCH_AND_ADD};

		w.wr.atomic.remote_addr = b.slot;
		w.wr.atomic.rkey = b.slot_rkey;
		w.wr.atomic.compare_add = 5;
		do_op(&w);
		CHECK_EQ(old, SLOT_INIT);
		w.wr_id = 4;
		w.opcode = WQE_WR_ATOMIC_CMP_AND_SWP;
		w.wr.atomic.compare_add = SLOT_INIT + 5;
		w.wr.atomic.swap = 7;
		do_op(&w);
		CHECK_EQ(old, SLOT_INIT + 5);
	}
	put_all(out, "c", 1); /* B checks its memory */
	sleep_ms(300);
	put_all(out, "i", 1); /* the idle measure ends */
	get_all(in, &ready, 1); /* B is asleep in wqe_get_cq_event() */
	sleep_ms(100);
	{
		static uint8_t msg[200];
		struct wqe_sge s = {(uint64_t)(uintptr_t)msg, sizeof(msg), ms->lkey};
		struct wqe_send_wr w = {.wr_id = 5, .sg_list = &s, .num_sge = 1,
					.opcode = WQE_WR_SEND_WITH_IMM, .imm_data = 0x12345678u};
		struct wqe_mr *mm;

		for (unsigned i = 0; i < sizeof(msg); i++)
			msg[i] = (uint8_t)(0xa0 ^ i);
		mm = wqe_reg_mr(A.pd, msg, sizeof(msg), 0);
		CHECK(mm != NULL);
		s.lkey = mm ? mm->lkey : 0;
		do_op(&w);
		CHECK_EQ(wqe_dereg_mr(mm), 0);
	}
	put_all(out, "d", 1);
	CHECK_EQ(waitpid(child, &status, 0), child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(wqe_dereg_mr(ms), 0);
	CHECK_EQ(wqe_dereg_mr(mb), 0);
	CHECK_EQ(wqe_dereg_mr(mo), 0);
	uep_close(&A);
}

/* A thread-mode context takes no link without a descriptor to sleep on:
 * a sink, or a fault injector around a loopback (its held frames would be
 * shared by NIC threads); it takes a loopback, and keeps a refused link's
 * predecessor. */
static void refuses_sleepless_links(void)
{
	struct wqe_context_attr ca = {.format = test_format(), .nic_mode = WQE_NIC_THREAD};
	struct wqe_context *ctx = wqe_open_context(&ca);
	struct wqe_link *sink = wqe_link_sink_create(16);
	struct wqe_link *lo = wqe_link_loopback_create();
	struct wqe_fault_cfg fc = {.seed = 1};
	struct wqe_link *fl = lo ? wqe_link_fault_create(lo, &fc) : NULL;
	struct wqe_link_stats st;

	CHECK(ctx && sink && lo && fl);
	if (!ctx || !sink || !lo || !fl)
		return;
	CHECK_EQ(wqe_context_attach_link(ctx, sink), ENOTSUP);
	CHECK_EQ(wqe_context_attach_link(ctx, fl), ENOTSUP);
	CHECK_EQ(wqe_context_attach_link(ctx, lo), 0);
	CHECK_EQ(wqe_context_attach_link(ctx, sink), ENOTSUP);
	CHECK_EQ(wqe_link_destroy(lo), EBUSY); /* still attached */
	CHECK_EQ(wqe_link_stats(lo, &st), 0);
	CHECK_EQ(wqe_context_attach_link(ctx, NULL), 0);
	CHECK_EQ(wqe_link_destroy(fl), 0);
	CHECK_EQ(wqe_link_destroy(lo), 0);
	CHECK_EQ(wqe_link_destroy(sink), 0);
	/* A threaded context cannot join a loopback caller-mode contexts
	 * use (their NICs hold the link's unlocked operations); a caller-mode
	 * context may join one a threaded context made threaded. */
	{
		struct wqe_context_attr cc = {.format = test_format(), .nic_mode = WQE_NIC_CALLER,
					      .mac = {2, 0, 0, 0, 0, 9}};
		struct wqe_context *caller;

		setenv("WQE_NIC_MODE", "caller", 1);
		caller = wqe_open_context(&cc);
		setenv("WQE_NIC_MODE", "thread", 1);
		lo = wqe_link_loopback_create();
		CHECK(caller && lo);
		if (caller && lo) {
			CHECK_EQ(wqe_context_attach_link(caller, lo), 0);
			CHECK_EQ(wqe_context_attach_link(ctx, lo), ENOTSUP);
			CHECK_EQ(wqe_context_attach_link(caller, NULL), 0);
			CHECK_EQ(wqe_context_attach_link(ctx, lo), 0);
			CHECK_EQ(wqe_context_attach_link(caller, lo), 0);
			CHECK_EQ(wqe_context_attach_link(caller, NULL), 0);
			CHECK_EQ(wqe_context_attach_link(ctx, NULL), 0);
		}
		if (lo)
			CHECK_EQ(wqe_link_destroy(lo), 0);
		if (caller)
			CHECK_EQ(wqe_close_context(caller), 0);
	}
	CHECK_EQ(wqe_close_context(ctx), 0);
}

int main(void)
{
	int a2b[2], b2a[2];
	pid_t pid;

	/* Every context of this test runs its NIC on a thread. */
	setenv("WQE_NIC_MODE", "thread", 1);
	refuses_sleepless_links();
	udp_test_pin_net();
	if (pipe(a2b) || pipe(b2a)) {
		perror("pipe");
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	/* A process left waiting for an event that never comes is killed
	 * (and fails) rather than hanging the suite. */
	alarm(60);
	if (pid == 0) {
		close(a2b[1]);
		close(b2a[0]);
		_exit(passive_b(a2b[0], b2a[1]));
	}
	close(a2b[0]);
	close(b2a[1]);
	active_a(b2a[0], a2b[1], pid);
	return test_finish();
}
