/* SPDX-License-Identifier: MIT */
/*
 * RC under faults: mixed operations (SEND, WRITE, WRITE_WITH_IMM, READ,
 * CAS, FAA) over a link that drops, duplicates, reorders, delays and
 * corrupts. Every request must complete exactly once, in order, byte-exact,
 * with no lost or extra completion on either side. Also UC under loss:
 * whole messages are lost, never a torn one delivered; and RC WRITEs of
 * 200 packets, sent over several progress passes, under the same faults.
 *
 * Usage: e2e_soak [MESSAGES] [SEED]   (CTest runs a short version; the full
 * soak of issue 8 is `e2e_soak 100000`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair.h"
#include "testutil.h"

#define SLOTS 64u
#define SLOT 8192u
#define WINDOW 24u

enum kind { K_SEND, K_WRITE, K_WRITE_IMM, K_READ, K_CAS, K_FAA, K_COUNT };

static uint8_t a_src[SLOTS * SLOT], a_dst[SLOTS * SLOT];
static uint8_t b_mem[SLOTS * SLOT], b_rcv[SLOTS * SLOT];
static uint64_t b_words[2]; /* [0] FAA counter, [1] CAS word */
static uint64_t a_words[SLOTS];

struct msg {
	enum kind kind;
	uint32_t len;
	uint32_t slot;
	uint64_t seed;
};

static struct msg *msgs;
static struct test_rng rng;

/*
 * The RC pairs' connection: pair_defaults with a retransmit timeout of
 * 4.096 us x 2^12 (about 17 ms) instead of 2^8 (about 1 ms), long beside
 * a progress pass even under valgrind on a loaded machine. The fault link
 * holds a delayed frame for a count of frames, not for a time; with a
 * timeout shorter than a pass, each pass while it is held is a timeout,
 * and eight in a row exhaust retry_cnt 7 (RETRY_EXC_ERR, as the IBTA
 * has it). Measured natively, seeds 1 to 150: 2^1 failed 10 runs, 2^3
 * one, 2^5 none; under valgrind 2^8 behaved like 2^2 or 2^3 and failed
 * about one run in forty.
 */
static struct pair_opts rc_opts(void)
{
	struct pair_opts o = pair_defaults;

	o.timeout = 12;
	return o;
}

static void pattern(uint8_t *p, uint32_t len, uint64_t seed)
{
	struct test_rng r;

	test_rng_seed(&r, seed);
	test_rng_fill(&r, p, len);
}

static void post_recvs(struct pair *p, struct wqe_mr *m, uint32_t *next, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++, (*next)++) {
		uint32_t slot = *next % SLOTS;
		struct wqe_sge s = {(uint64_t)(uintptr_t)(b_rcv + slot * SLOT), SLOT, m->lkey};
		struct wqe_recv_wr r = {.wr_id = *next, .sg_list = &s, .num_sge = 1}, *bad;

		CHECK_EQ(wqe_post_recv(p->b.qp, &r, &bad), 0);
	}
}

static void post_msg(struct pair *p, uint64_t id, struct wqe_mr *const mr[4])
{
	struct msg *m = &msgs[id];
	struct wqe_send_wr wr, *bad;
	struct wqe_sge s;
	uint8_t *buf = a_src + m->slot * SLOT;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.send_flags = WQE_SEND_SIGNALED;
	s.addr = (uint64_t)(uintptr_t)buf;
	s.length = m->len;
	s.lkey = mr[0]->lkey;
	switch (m->kind) {
	case K_SEND:
		pattern(buf, m->len, m->seed);
		wr.opcode = WQE_WR_SEND;
		break;
	case K_WRITE:
	case K_WRITE_IMM:
		pattern(buf, m->len, m->seed);
		wr.opcode = m->kind == K_WRITE ? WQE_WR_RDMA_WRITE : WQE_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = (uint32_t)id;
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b_mem + m->slot * SLOT);
		wr.wr.rdma.rkey = mr[2]->rkey;
		break;
	case K_READ:
		pattern(b_mem + m->slot * SLOT, m->len, m->seed);
		s.addr = (uint64_t)(uintptr_t)(a_dst + m->slot * SLOT);
		s.lkey = mr[1]->lkey;
		wr.opcode = WQE_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b_mem + m->slot * SLOT);
		wr.wr.rdma.rkey = mr[2]->rkey;
		break;
	case K_CAS:
	case K_FAA:
		s.addr = (uint64_t)(uintptr_t)&a_words[m->slot];
		s.length = 8;
		s.lkey = mr[3]->lkey;
		wr.opcode = m->kind == K_CAS ? WQE_WR_ATOMIC_CMP_AND_SWP : WQE_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)&b_words[m->kind == K_CAS];
		wr.wr.atomic.rkey = mr[2]->rkey; /* b_words lies in its own MR below */
		wr.wr.atomic.compare_add = m->kind == K_CAS ? id - 1 : id;
		wr.wr.atomic.swap = id;
		break;
	default:
		break;
	}
	CHECK_EQ(wqe_post_send(p->a.qp, &wr, &bad), 0);
}

/* Checks the effect of message @id when its send completion arrives. */
static void check_done(uint64_t id, uint64_t *faa_sum, uint64_t *cas_last)
{
	struct msg *m = &msgs[id];
	static uint8_t exp[SLOT];

	switch (m->kind) {
	case K_WRITE:
	case K_WRITE_IMM:
		pattern(exp, m->len, m->seed);
		CHECK_MEM(b_mem + m->slot * SLOT, exp, m->len);
		break;
	case K_READ:
		pattern(exp, m->len, m->seed);
		CHECK_MEM(a_dst + m->slot * SLOT, exp, m->len);
		break;
	case K_FAA:
		CHECK_EQ(a_words[m->slot], *faa_sum);
		*faa_sum += id;
		break;
	case K_CAS:
		/* Swaps in id when the word holds id - 1: true only if the last
		 * CAS was the message just before this one. */
		CHECK_EQ(a_words[m->slot], *cas_last);
		if (*cas_last == id - 1)
			*cas_last = id;
		break;
	default:
		break;
	}
}

static void soak_rc(uint32_t n, uint64_t seed)
{
	struct wqe_fault_cfg f = {.drop = 0.05, .duplicate = 0.01, .reorder = 0.01,
				  .delay = 0.01, .corrupt = 0.001, .seed = seed};
	struct pair p;
	struct wqe_mr *mr[4], *rcv, *words;
	uint64_t posted = 0, done = 0, recvd = 0, faa_sum = 0, cas_last = 0;
	uint32_t next_recv = 0, sends = 0;
	struct wqe_wc wc[32];
	struct wqe_link_stats ls;
	const struct pair_opts o = rc_opts();
	const unsigned all = WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
			     WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;

	msgs = calloc(n, sizeof(*msgs));
	test_rng_seed(&rng, seed);
	for (uint32_t i = 0; i < n; i++) {
		msgs[i].kind = (enum kind)test_rng_below(&rng, K_COUNT);
		msgs[i].len = (uint32_t)test_rng_below(&rng, SLOT + 1);
		msgs[i].slot = i % SLOTS;
		msgs[i].seed = test_rng_next(&rng);
		if (msgs[i].kind == K_SEND)
			sends++;
	}
	CHECK_EQ(pair_open_opts(&p, WQE_QPT_RC, WQE_MTU_1024, &f, 64, &o), 0);
	mr[0] = wqe_reg_mr(p.a.pd, a_src, sizeof(a_src), WQE_ACCESS_LOCAL_WRITE);
	mr[1] = wqe_reg_mr(p.a.pd, a_dst, sizeof(a_dst), WQE_ACCESS_LOCAL_WRITE);
	mr[2] = wqe_reg_mr(p.b.pd, b_mem, sizeof(b_mem), all);
	mr[3] = wqe_reg_mr(p.a.pd, a_words, sizeof(a_words), WQE_ACCESS_LOCAL_WRITE);
	rcv = wqe_reg_mr(p.b.pd, b_rcv, sizeof(b_rcv), WQE_ACCESS_LOCAL_WRITE);
	words = wqe_reg_mr(p.b.pd, b_words, sizeof(b_words), all);
	CHECK(mr[0] && mr[1] && mr[2] && mr[3] && rcv && words);
	{
		/* WRITE/READ target b_mem (mr[2]); atomics target b_words. */
		struct wqe_mr *mem = mr[2];
		struct wqe_mr *use[4] = {mr[0], mr[1], mem, mr[3]};
		uint32_t sends_seen = 0;
		uint64_t rounds = 0;

		post_recvs(&p, rcv, &next_recv, 48);
		while (done < n && rounds++ < 50000000ull) {
			while (posted < n && posted - done < WINDOW) {
				struct wqe_mr *m4[4] = {use[0], use[1],
							msgs[posted].kind >= K_CAS ? words : mem,
							use[3]};

				post_msg(&p, posted, m4);
				posted++;
			}
			pair_spin(&p, 1);
			for (int k; (k = wqe_poll_cq(p.a.scq, 32, wc)) > 0;)
				for (int i = 0; i < k; i++) {
					CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
					CHECK_EQ(wc[i].wr_id, done);
					if (wc[i].wr_id == done && wc[i].status == WQE_WC_SUCCESS)
						check_done(done, &faa_sum, &cas_last);
					done++;
				}
			for (int k; (k = wqe_poll_cq(p.b.rcq, 32, wc)) > 0;)
				for (int i = 0; i < k; i++) {
					CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
					CHECK_EQ(wc[i].wr_id, recvd);
					if (wc[i].opcode == WQE_WC_RECV)
						sends_seen++;
					recvd++;
				}
			if (next_recv - recvd < 32)
				post_recvs(&p, rcv, &next_recv, 16);
			if (test_failures > 20)
				break;
		}
		pair_spin(&p, 10);
		CHECK_EQ(done, n);
		CHECK_EQ(sends_seen, sends);
		CHECK_EQ(wqe_poll_cq(p.a.scq, 32, wc), 0);
	}
	CHECK_EQ(b_words[0], faa_sum);
	CHECK_EQ(wqe_link_stats(p.link, &ls), 0);
	CHECK(ls.dropped > 0);
	printf("rc soak: %u messages, link: %llu frames, %llu dropped, %llu duplicated, "
	       "%llu reordered, %llu delayed, %llu corrupted\n",
	       n, (unsigned long long)ls.frames, (unsigned long long)ls.dropped,
	       (unsigned long long)ls.duplicated, (unsigned long long)ls.reordered,
	       (unsigned long long)ls.delayed, (unsigned long long)ls.corrupted);
	for (int i = 0; i < 4; i++)
		wqe_dereg_mr(mr[i]);
	wqe_dereg_mr(rcv);
	wqe_dereg_mr(words);
	pair_close(&p);
	free(msgs);
}

/* UC SENDs of several packets under 10% loss: each delivered message is
 * whole (its pattern checks out), and lost ones are simply missing. */
static void uc_loss(uint64_t seed)
{
	struct wqe_fault_cfg f = {.drop = 0.10, .seed = seed};
	struct pair p;
	struct wqe_mr *src, *rcv;
	uint32_t next_recv = 0, delivered = 0;
	const uint32_t n = 400, len = 3000; /* 3 packets at MTU 1024 */
	struct wqe_wc wc[16];

	CHECK_EQ(pair_open(&p, WQE_QPT_UC, WQE_MTU_1024, &f, 64), 0);
	src = wqe_reg_mr(p.a.pd, a_src, sizeof(a_src), WQE_ACCESS_LOCAL_WRITE);
	rcv = wqe_reg_mr(p.b.pd, b_rcv, sizeof(b_rcv), WQE_ACCESS_LOCAL_WRITE);
	post_recvs(&p, rcv, &next_recv, 48);
	for (uint32_t i = 0; i < n; i++) {
		struct wqe_sge s = {(uint64_t)(uintptr_t)a_src, len, src->lkey};
		struct wqe_send_wr wr = {.wr_id = i, .sg_list = &s, .num_sge = 1,
					 .opcode = WQE_WR_SEND}, *bad;

		/* Each message carries its number in its first 4 bytes and a
		 * pattern seeded by it after that. */
		pattern(a_src + 4, len - 4, i + 1000);
		memcpy(a_src, &i, 4);
		CHECK_EQ(wqe_post_send(p.a.qp, &wr, &bad), 0);
		pair_spin(&p, 3);
		for (int k; (k = wqe_poll_cq(p.b.rcq, 16, wc)) > 0;)
			for (int j = 0; j < k; j++) {
				const uint8_t *got = b_rcv + (wc[j].wr_id % SLOTS) * SLOT;
				static uint8_t exp[3000];
				uint32_t num;

				CHECK_EQ(wc[j].status, WQE_WC_SUCCESS);
				CHECK_EQ(wc[j].byte_len, len);
				memcpy(&num, got, 4);
				pattern(exp, len - 4, num + 1000);
				CHECK_MEM(got + 4, exp, len - 4);
				delivered++;
			}
		if (next_recv - delivered < 32)
			post_recvs(&p, rcv, &next_recv, 16);
	}
	CHECK(delivered < n);
	CHECK(delivered > n / 2);
	printf("uc loss: %u of %u messages delivered whole\n", delivered, n);
	wqe_dereg_mr(src);
	wqe_dereg_mr(rcv);
	pair_close(&p);
}

/* RC WRITEs of 200 packets (MTU 256) under loss, duplication, reordering
 * and corruption: each is sent 64 packets per progress pass, so losses
 * and retries land in messages cut short; every one completes once, in
 * order, and lands byte-exact. */
static void rc_long(uint64_t seed)
{
	struct wqe_fault_cfg f = {.drop = 0.05, .duplicate = 0.01, .reorder = 0.01,
				  .delay = 0.01, .corrupt = 0.001, .seed = seed};
	const uint32_t n = 24, len = 200 * 256, per = 4; /* messages in b_mem at once */
	struct wqe_mr *src, *dst;
	struct wqe_wc wc[8];
	struct pair p;
	uint32_t posted = 0, done = 0;
	uint64_t rounds = 0;
	const struct pair_opts o = rc_opts();

	CHECK_EQ(pair_open_opts(&p, WQE_QPT_RC, WQE_MTU_256, &f, 64, &o), 0);
	src = wqe_reg_mr(p.a.pd, a_src, sizeof(a_src), WQE_ACCESS_LOCAL_WRITE);
	dst = wqe_reg_mr(p.b.pd, b_mem, sizeof(b_mem),
			 WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE);
	CHECK(src && dst);
	while (done < n && rounds++ < 10000000ull) {
		while (posted < n && posted - done < per) {
			uint32_t off = (posted % per) * len;
			struct wqe_sge s = {(uint64_t)(uintptr_t)a_src + off, len, src->lkey};
			struct wqe_send_wr wr = {.wr_id = posted, .sg_list = &s, .num_sge = 1,
						 .opcode = WQE_WR_RDMA_WRITE,
						 .send_flags = WQE_SEND_SIGNALED}, *bad;

			pattern(a_src + off, len, seed * 1000 + posted);
			wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b_mem + off;
			wr.wr.rdma.rkey = dst->rkey;
			CHECK_EQ(wqe_post_send(p.a.qp, &wr, &bad), 0);
			posted++;
		}
		pair_spin(&p, 1);
		for (int k; (k = wqe_poll_cq(p.a.scq, 8, wc)) > 0;)
			for (int i = 0; i < k; i++) {
				static uint8_t exp[200 * 256];
				uint32_t off = (done % per) * len;

				CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
				CHECK_EQ(wc[i].wr_id, done);
				pattern(exp, len, seed * 1000 + done);
				CHECK_MEM(b_mem + off, exp, len);
				done++;
			}
	}
	CHECK_EQ(done, n);
	wqe_dereg_mr(src);
	wqe_dereg_mr(dst);
	pair_close(&p);
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 10000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;

	soak_rc(n, seed);
	uc_loss(seed);
	rc_long(seed);
	return test_finish();
}
