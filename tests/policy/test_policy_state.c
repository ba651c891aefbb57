/* SPDX-License-Identifier: MIT */
/*
 * Where the QP-state check happens, on both WQE formats and every
 * transport: a legal SEND posted unsignaled, ahead of two more, to a QP in
 * RESET, INIT or RTR (IBTA C10-29: no posting below RTS).
 *   WQE_CHECKS_AT_POST    EINVAL, *bad_wr = it, nothing in the ring, no
 *                         doorbell, no packet
 *   WQE_CHECKS_IN_ENGINE  post returns 0; the NIC, rung for a QP that may
 *                         not send, completes the first with LOC_QP_OP_ERR,
 *                         moves the QP to ERR and flushes the other two;
 *                         the trace's CHECK_FAIL names the QP-state check;
 *                         no packet
 */
#include "bench.h"
#include "testutil.h"

static void one_case(enum wqe_format fmt, enum wqe_check_policy p, enum wqe_qp_type t,
		     enum wqe_qp_state st)
{
	struct bench b;
	struct wqe_send_wr wr[3];
	struct wqe_sge sge[3];
	unsigned long before = test_failures;

	if (bench_open(&b, fmt, p, t, st))
		return;
	bench_send(&b, &wr[0], &sge[0], 1, 64, 0);
	bench_send(&b, &wr[1], &sge[1], 2, 16, WQE_SEND_SIGNALED);
	bench_send(&b, &wr[2], &sge[2], 3, 0, 0);
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	if (p == WQE_CHECKS_AT_POST)
		bench_refused_at_post(&b, wr);
	else
		bench_failed_in_engine(&b, wr, 3, WQE_CHECK_QP_STATE, WQE_WC_LOC_QP_OP_ERR);
	bench_control_packet(&b);
	if (test_failures != before)
		fprintf(stderr, "  case %s: posted in %s\n", bench_name(&b), wqe_qp_state_str(st));
	bench_close(&b);
}

int main(void)
{
	static const enum wqe_format fmts[] = {WQE_FORMAT_MLX5, WQE_FORMAT_RXE};
	static const enum wqe_check_policy pols[] = {WQE_CHECKS_AT_POST, WQE_CHECKS_IN_ENGINE};
	static const enum wqe_qp_type qps[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};
	static const enum wqe_qp_state states[] = {WQE_QPS_RESET, WQE_QPS_INIT, WQE_QPS_RTR};
	int n = 0;

	for (size_t f = 0; f < 2; f++)
		for (size_t p = 0; p < 2; p++)
			for (size_t q = 0; q < 3; q++)
				for (size_t s = 0; s < 3; s++, n++)
					one_case(fmts[f], pols[p], qps[q], states[s]);
	printf("%d cases (format x policy x transport x state below RTS)\n", n);
	CHECK_EQ(n, 36);
	return test_finish();
}
