/* SPDX-License-Identifier: MIT */
/*
 * MRs whose I/O virtual address is not their address (wqe_reg_mr_iova(),
 * ibv_reg_mr_iova2()): local SGEs and remote WRITE, READ and atomics name
 * the bytes by iova and land at the buffer's address; an iova just past
 * the region, or the buffer's own address, is refused as out of bounds
 * (LOC_PROT_ERR locally, REM_ACCESS_ERR remotely) and nothing moves; an
 * iova that wraps is refused at registration.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pair.h"
#include "testutil.h"

#define LEN 8192u
#define IOVA_A 0x100000000000ull /* far from any address of the process */
#define IOVA_B 0x7000ull

static struct wqe_mr *reg(struct pair *p, struct ep *e, uint8_t *buf, uint64_t iova)
{
	(void)p;
	return wqe_reg_mr_iova(e->pd, buf, LEN, iova,
			       WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
				   WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC);
}

/* One request from A; its completion status. */
static enum wqe_wc_status run(struct pair *p, enum wqe_wr_opcode op, uint64_t local,
			      uint32_t lkey, uint32_t len, uint64_t remote, uint32_t rkey)
{
	struct wqe_sge s = {local, len, lkey};
	struct wqe_send_wr w = {.sg_list = &s, .num_sge = 1, .opcode = op,
				.send_flags = WQE_SEND_SIGNALED},
			   *bad;
	struct wqe_wc wc;

	if (op == WQE_WR_ATOMIC_FETCH_AND_ADD) {
		w.wr.atomic.remote_addr = remote;
		w.wr.atomic.rkey = rkey;
		w.wr.atomic.compare_add = 5;
	} else {
		w.wr.rdma.remote_addr = remote;
		w.wr.rdma.rkey = rkey;
	}
	CHECK_EQ(wqe_post_send(p->a.qp, &w, &bad), 0);
	CHECK_EQ(pair_wait(p, p->a.scq, 1, &wc, 100000), 1);
	return wc.status;
}

int main(void)
{
	struct pair p;
	uint8_t *a = aligned_alloc(64, LEN), *b = aligned_alloc(64, LEN), *ref = malloc(LEN);
	struct wqe_mr *am, *bm;
	uint64_t v;

	CHECK(a && b && ref);
	CHECK_EQ(pair_open(&p, WQE_QPT_RC, WQE_MTU_1024, NULL, 16), 0);
	/* an iova that wraps */
	errno = 0;
	CHECK(!wqe_reg_mr_iova(p.a.pd, a, LEN, UINT64_MAX - 10, WQE_ACCESS_LOCAL_WRITE));
	CHECK_EQ(errno, EINVAL);
	am = reg(&p, &p.a, a, IOVA_A);
	bm = reg(&p, &p.b, b, IOVA_B);
	CHECK(am && bm);
	CHECK_EQ(am->iova, IOVA_A);
	CHECK(am->addr == a);
	for (uint32_t i = 0; i < LEN; i++) {
		a[i] = (uint8_t)(i * 7 + 1);
		b[i] = 0;
	}
	/* WRITE 3000 bytes from A's iova + 100 to B's iova + 200 */
	CHECK_EQ(run(&p, WQE_WR_RDMA_WRITE, IOVA_A + 100, am->lkey, 3000, IOVA_B + 200, bm->rkey),
		 WQE_WC_SUCCESS);
	CHECK_MEM(b + 200, a + 100, 3000);
	CHECK_EQ(b[199], 0);
	CHECK_EQ(b[3200], 0);
	/* READ them back to A's iova + 5000 */
	CHECK_EQ(run(&p, WQE_WR_RDMA_READ, IOVA_A + 5000, am->lkey, 3000, IOVA_B + 200, bm->rkey),
		 WQE_WC_SUCCESS);
	CHECK_MEM(a + 5000, a + 100, 3000);
	/* FETCH_ADD at B's iova + 4096: the original lands at A's iova + 8 */
	memset(b + 4096, 0, 8);
	b[4096] = 37;
	CHECK_EQ(run(&p, WQE_WR_ATOMIC_FETCH_AND_ADD, IOVA_A + 8, am->lkey, 8, IOVA_B + 4096,
		     bm->rkey),
		 WQE_WC_SUCCESS);
	memcpy(&v, a + 8, 8);
	CHECK_EQ(v, 37);
	memcpy(&v, b + 4096, 8);
	CHECK_EQ(v, 42);
	/* the buffer's own address is not inside the iova range: refused,
	 * nothing moves */
	memcpy(ref, b, LEN);
	CHECK_EQ(run(&p, WQE_WR_RDMA_WRITE, IOVA_A, am->lkey, 64, (uint64_t)(uintptr_t)b, bm->rkey),
		 WQE_WC_REM_ACCESS_ERR);
	CHECK_MEM(b, ref, LEN);
	/* the QP is in ERR now: what follows is on a new pair */
	pair_free_bufs(NULL, NULL, am, bm);
	pair_close(&p);
	CHECK_EQ(pair_open(&p, WQE_QPT_RC, WQE_MTU_1024, NULL, 16), 0);
	am = reg(&p, &p.a, a, IOVA_A);
	bm = reg(&p, &p.b, b, IOVA_B);
	CHECK(am && bm);
	memcpy(ref, b, LEN);
	/* a local SGE by the buffer's address, not its iova */
	CHECK_EQ(run(&p, WQE_WR_RDMA_WRITE, (uint64_t)(uintptr_t)a, am->lkey, 64, IOVA_B, bm->rkey),
		 WQE_WC_LOC_PROT_ERR);
	CHECK_MEM(b, ref, LEN);
	pair_free_bufs(NULL, NULL, am, bm);
	pair_close(&p);
	free(a);
	free(b);
	free(ref);
	return test_finish();
}
