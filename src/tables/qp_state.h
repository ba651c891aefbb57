/* SPDX-License-Identifier: MIT */
/*
 * qp_state.h - the IBTA queue-pair state machine: which transitions exist
 * and which attributes each requires or allows (IBTA vol. 1, 10.3 and
 * 11.2.5; the same table as the kernel's ib_modify_qp_is_ok()).
 */
#ifndef WQE_TABLES_QP_STATE_H
#define WQE_TABLES_QP_STATE_H

#include <stdbool.h>

#include "wqe/types.h"

/* Attribute mask bits, with the values of enum wqe_qp_attr_mask. */
enum qp_mask {
	QPM_STATE = 1 << 0,
	QPM_CUR_STATE = 1 << 1,
	QPM_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	QPM_ACCESS_FLAGS = 1 << 3,
	QPM_PKEY_INDEX = 1 << 4,
	QPM_PORT = 1 << 5,
	QPM_QKEY = 1 << 6,
	QPM_AV = 1 << 7,
	QPM_PATH_MTU = 1 << 8,
	QPM_TIMEOUT = 1 << 9,
	QPM_RETRY_CNT = 1 << 10,
	QPM_RNR_RETRY = 1 << 11,
	QPM_RQ_PSN = 1 << 12,
	QPM_MAX_QP_RD_ATOMIC = 1 << 13,
	QPM_ALT_PATH = 1 << 14,
	QPM_MIN_RNR_TIMER = 1 << 15,
	QPM_SQ_PSN = 1 << 16,
	QPM_MAX_DEST_RD_ATOMIC = 1 << 17,
	QPM_PATH_MIG_STATE = 1 << 18,
	QPM_CAP = 1 << 19,
	QPM_DEST_QPN = 1 << 20,
};

/*
 * Checks a transition. Returns true if @cur -> @next exists for @type and
 * @mask holds every required attribute and nothing that is not allowed.
 * On false, *@why says which rule failed.
 */
bool qp_transition_ok(enum wqe_qp_type type, enum wqe_qp_state cur, enum wqe_qp_state next,
		      unsigned int mask, const char **why);

#endif
