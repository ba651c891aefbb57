/* SPDX-License-Identifier: MIT */
/*
 * flush.h - completing outstanding work of a QP in the error state.
 *
 * IBTA 10.7.3.1 / 11.2.5: once a QP is in Error, every outstanding and
 * every newly posted Work Request completes with WR_FLUSH_ERR, whether it
 * was signaled or not.
 */
#ifndef WQE_ENGINE_FLUSH_H
#define WQE_ENGINE_FLUSH_H

#include "engine/services.h"

/* Flushes the send and receive queues of @q; returns completions made. */
int flush_qp(struct nic *n, struct qpc *q);

/* The completion opcode of a send-queue operation. */
enum wqe_wc_opcode wc_opcode_of(enum wqe_op op);

/* Retires the WQE that starts at the SQ consumer counter: publishes the new
 * consumer counters (release). */
void sq_retire(struct sq_ring *sq, uint32_t nblocks);

#endif
