/* SPDX-License-Identifier: MIT */
/*
 * Where the opcode-against-transport check happens, on both WQE formats:
 * every opcode a transport does not carry (UD: RDMA_READ, RDMA_WRITE,
 * RDMA_WRITE_WITH_IMM, both atomics, SEND_WITH_INV; UC: RDMA_READ, both
 * atomics, SEND_WITH_INV), posted unsignaled ahead of two legal SENDs.
 *   WQE_CHECKS_AT_POST    EINVAL, *bad_wr = it, nothing in the ring, no
 *                         doorbell, no packet (kernel rxe's verbs)
 *   WQE_CHECKS_IN_ENGINE  post returns 0 (the mlx5 provider), the NIC
 *                         completes it with LOC_QP_OP_ERR although it is
 *                         unsignaled, the QP goes to ERR, both SENDs are
 *                         flushed; the trace's CHECK_FAIL names the opcode
 *                         check; no packet
 * Either way the capture holds only the control QP's SEND.
 */
#include <string.h>

#include "bench.h"
#include "testutil.h"

struct bad_op {
	enum wqe_qp_type t;
	enum wqe_wr_opcode op;
};

static const struct bad_op bad_ops[] = {
    {WQE_QPT_UD, WQE_WR_RDMA_READ},
    {WQE_QPT_UD, WQE_WR_RDMA_WRITE},
    {WQE_QPT_UD, WQE_WR_RDMA_WRITE_WITH_IMM},
    {WQE_QPT_UD, WQE_WR_ATOMIC_CMP_AND_SWP},
    {WQE_QPT_UD, WQE_WR_ATOMIC_FETCH_AND_ADD},
    {WQE_QPT_UD, WQE_WR_SEND_WITH_INV},
    {WQE_QPT_UC, WQE_WR_RDMA_READ},
    {WQE_QPT_UC, WQE_WR_ATOMIC_CMP_AND_SWP},
    {WQE_QPT_UC, WQE_WR_ATOMIC_FETCH_AND_ADD},
    {WQE_QPT_UC, WQE_WR_SEND_WITH_INV},
};

/* The request a verbs program would write for @op, otherwise well-formed. */
static void make_bad(const struct bench *b, enum wqe_wr_opcode op, struct wqe_send_wr *wr,
		     struct wqe_sge *sge)
{
	bench_send(b, wr, sge, 1000 + (uint64_t)op, 64, 0); /* unsignaled */
	wr->opcode = op;
	switch (op) {
	case WQE_WR_ATOMIC_CMP_AND_SWP:
	case WQE_WR_ATOMIC_FETCH_AND_ADD:
		sge->length = 8;
		memset(&wr->wr, 0, sizeof(wr->wr));
		wr->wr.atomic.remote_addr = 0x10000;
		wr->wr.atomic.rkey = 0x42;
		wr->wr.atomic.compare_add = 1;
		wr->wr.atomic.swap = 2;
		break;
	case WQE_WR_RDMA_READ:
	case WQE_WR_RDMA_WRITE:
	case WQE_WR_RDMA_WRITE_WITH_IMM:
		memset(&wr->wr, 0, sizeof(wr->wr));
		wr->wr.rdma.remote_addr = 0x10000;
		wr->wr.rdma.rkey = 0x42;
		wr->imm_data = 0x04030201;
		break;
	default: /* SEND_WITH_INV: the UD address stays, as for any send */
		wr->invalidate_rkey = 0x42;
		break;
	}
}

static void one_case(enum wqe_format fmt, enum wqe_check_policy p, const struct bad_op *c)
{
	struct bench b;
	struct wqe_send_wr wr[3];
	struct wqe_sge sge[3];
	unsigned long before = test_failures;

	if (bench_open(&b, fmt, p, c->t, WQE_QPS_RTS))
		return;
	make_bad(&b, c->op, &wr[0], &sge[0]);
	bench_send(&b, &wr[1], &sge[1], 2, 16, WQE_SEND_SIGNALED);
	bench_send(&b, &wr[2], &sge[2], 3, 16, 0);
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	if (p == WQE_CHECKS_AT_POST)
		bench_refused_at_post(&b, wr);
	else
		bench_failed_in_engine(&b, wr, 3, WQE_CHECK_OPCODE, WQE_WC_LOC_QP_OP_ERR);
	bench_control_packet(&b);
	if (test_failures != before)
		fprintf(stderr, "  case %s: %s\n", bench_name(&b), wqe_wr_opcode_str(c->op));
	bench_close(&b);
}

int main(void)
{
	static const enum wqe_format fmts[] = {WQE_FORMAT_MLX5, WQE_FORMAT_RXE};
	static const enum wqe_check_policy pols[] = {WQE_CHECKS_AT_POST, WQE_CHECKS_IN_ENGINE};
	int n = 0;

	for (size_t f = 0; f < 2; f++)
		for (size_t p = 0; p < 2; p++)
			for (size_t i = 0; i < sizeof(bad_ops) / sizeof(bad_ops[0]); i++, n++)
				one_case(fmts[f], pols[p], &bad_ops[i]);
	printf("%d cases (format x policy x opcode on a transport that does not carry it)\n", n);
	CHECK_EQ(n, 40);
	return test_finish();
}
