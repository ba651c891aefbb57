/* SPDX-License-Identifier: MIT */
/*
 * srq.h - what the responder and the flush share of a QP's SRQ (struct
 * srqc, tables/qpc.h): where a taken WQE's bytes are, what its completion
 * carries, and giving back the WQE a QP holds.
 */
#ifndef WQE_ENGINE_SRQ_H
#define WQE_ENGINE_SRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/services.h"

/* The bytes of @q's receive WQE at @ctr and their length (*@len): a slot
 * of its RQ; of its SRQ past the next segment (mlx5); or the copy the NIC
 * took of it (rxe SRQ). */
const uint8_t *srq_wqe_bytes(const struct qpc *q, uint32_t ctr, uint32_t *len);
/* Completes @e (a receive CQE of a QP of an SRQ, wqe_counter set): the
 * SRQ's number, and for rxe the WQE's wr_id. */
void srq_cqe(const struct qpc *q, struct cqe *e);
/* A QP of an SRQ: the WQE it holds, if any, completed with WR_FLUSH_ERR
 * and forgotten (the QP goes to ERR or RESET, or away). Whether there
 * was one. */
bool srq_release(struct qpc *q);

#endif
