/* SPDX-License-Identifier: MIT */
/*
 * What the check policy does not move, on both WQE formats:
 *  - the post-time checks every verbs provider makes on the request alone
 *    stay at post time under both policies: more SGEs than max_send_sge,
 *    an inline payload over max_inline_data, inline data on an RDMA_READ,
 *    a message over 2^31 bytes, an atomic whose SGE is not 8 bytes or
 *    whose remote address is not 8-byte aligned: EINVAL, *bad_wr = it,
 *    nothing in the ring, no packet;
 *  - the key check stays at processing time under both: an SGE whose lkey
 *    names no region is accepted at post, then completed by the NIC with
 *    LOC_PROT_ERR, the QP to ERR, the rest flushed, the trace's CHECK_FAIL
 *    naming the lkey check, no packet.
 */
#include <string.h>

#include "bench.h"
#include "testutil.h"

enum fault {
	TOO_MANY_SGE,
	INLINE_OVER_MAX,
	INLINE_READ,
	OVER_2G,
	ATOMIC_LEN,
	ATOMIC_ALIGN,
	NFAULTS
};

static const char *const fault_name[NFAULTS] = {
    "num_sge over max_send_sge", "inline over max_inline_data",
    "inline on RDMA_READ",	 "message over 2^31",
    "atomic SGE not 8 bytes",	 "atomic remote address not aligned"};

/* RDMA_READ and the atomics need RC. */
static enum wqe_qp_type fault_qp(enum fault f, enum wqe_qp_type t)
{
	return f == INLINE_READ || f == ATOMIC_LEN || f == ATOMIC_ALIGN ? WQE_QPT_RC : t;
}

static void make_fault(struct bench *b, enum fault f, struct wqe_send_wr *wr, struct wqe_sge *sge)
{
	struct wqe_qp_attr a;
	struct wqe_qp_init_attr ia;

	wqe_query_qp(b->qp, &a, 0, &ia);
	bench_send(b, wr, sge, 500, 8, WQE_SEND_SIGNALED);
	switch (f) {
	case TOO_MANY_SGE:
		for (uint32_t i = 1; i <= a.cap.max_send_sge; i++)
			sge[i] = sge[0];
		wr->num_sge = (int)a.cap.max_send_sge + 1;
		break;
	case INLINE_OVER_MAX:
		wr->send_flags |= WQE_SEND_INLINE;
		sge->length = a.cap.max_inline_data + 1;
		break;
	case INLINE_READ:
		memset(&wr->wr, 0, sizeof(wr->wr));
		wr->opcode = WQE_WR_RDMA_READ;
		wr->send_flags |= WQE_SEND_INLINE;
		wr->wr.rdma.remote_addr = 0x10000;
		wr->wr.rdma.rkey = 0x42;
		break;
	case OVER_2G:
		sge[1] = sge[0];
		sge[0].length = 1u << 31;
		wr->num_sge = 2;
		break;
	case ATOMIC_LEN:
	case ATOMIC_ALIGN:
		wr->opcode = WQE_WR_ATOMIC_FETCH_AND_ADD;
		wr->wr.atomic.remote_addr = f == ATOMIC_ALIGN ? 0x10004 : 0x10000;
		wr->wr.atomic.rkey = 0x42;
		sge->length = f == ATOMIC_LEN ? 16 : 8;
		break;
	default:
		break;
	}
}

static void always_at_post(enum wqe_format fmt, enum wqe_check_policy p, enum fault f,
			   enum wqe_qp_type t)
{
	struct bench b;
	struct wqe_send_wr wr[2];
	struct wqe_sge sge[WQE_DESC_MAX_SGE + 1], s2;
	unsigned long before = test_failures;

	if (bench_open(&b, fmt, p, fault_qp(f, t), WQE_QPS_RTS))
		return;
	make_fault(&b, f, &wr[0], sge);
	bench_send(&b, &wr[1], &s2, 2, 16, WQE_SEND_SIGNALED);
	wr[0].next = &wr[1];
	bench_refused_at_post(&b, wr);
	bench_control_packet(&b);
	if (test_failures != before)
		fprintf(stderr, "  case %s: %s\n", bench_name(&b), fault_name[f]);
	bench_close(&b);
}

static void lkey_in_engine(enum wqe_format fmt, enum wqe_check_policy p, enum wqe_qp_type t)
{
	struct bench b;
	struct wqe_send_wr wr[3];
	struct wqe_sge sge[3];
	unsigned long before = test_failures;

	if (bench_open(&b, fmt, p, t, WQE_QPS_RTS))
		return;
	bench_send(&b, &wr[0], &sge[0], 1, 64, 0);
	sge[0].lkey ^= 0x5500; /* no such region */
	bench_send(&b, &wr[1], &sge[1], 2, 16, WQE_SEND_SIGNALED);
	bench_send(&b, &wr[2], &sge[2], 3, 16, 0);
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	bench_failed_in_engine(&b, wr, 3, WQE_CHECK_LKEY, WQE_WC_LOC_PROT_ERR);
	bench_control_packet(&b);
	if (test_failures != before)
		fprintf(stderr, "  case %s: bad lkey\n", bench_name(&b));
	bench_close(&b);
}

int main(void)
{
	static const enum wqe_format fmts[] = {WQE_FORMAT_MLX5, WQE_FORMAT_RXE};
	static const enum wqe_check_policy pols[] = {WQE_CHECKS_AT_POST, WQE_CHECKS_IN_ENGINE};
	static const enum wqe_qp_type qps[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};
	int n = 0;

	for (size_t f = 0; f < 2; f++)
		for (size_t p = 0; p < 2; p++)
			for (size_t q = 0; q < 3; q++) {
				for (int k = 0; k < NFAULTS; k++, n++)
					always_at_post(fmts[f], pols[p], (enum fault)k, qps[q]);
				lkey_in_engine(fmts[f], pols[p], qps[q]);
				n++;
			}
	printf("%d cases (format x policy x transport x post-time fault, and a bad lkey)\n", n);
	CHECK_EQ(n, 2 * 2 * 3 * (NFAULTS + 1));
	return test_finish();
}
