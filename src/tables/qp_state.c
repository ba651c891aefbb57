/* SPDX-License-Identifier: MIT */
#include "tables/qp_state.h"

#include <stddef.h>

/* Required and optional attribute masks of one transition, per transport. */
struct qp_rule {
	bool valid;
	unsigned int req[3]; /* RC, UC, UD */
	unsigned int opt[3];
};

#define T(rc, uc, ud) {(rc), (uc), (ud)}
#define NQPS (WQE_QPS_ERR + 1)

static unsigned int tidx(enum wqe_qp_type t)
{
	return t == WQE_QPT_RC ? 0u : t == WQE_QPT_UC ? 1u : 2u;
}

/*
 * IBTA vol. 1 table 91 ("QP state transition properties"). Reset and Error
 * are reachable from every state with no attribute (handled in code);
 * SQE exists only for UC and UD (11.2.5: an RC send-queue error goes to
 * Error).
 */
static const struct qp_rule rules[NQPS][NQPS] = {
	[WQE_QPS_RESET][WQE_QPS_INIT] = {
		true,
		T(QPM_PKEY_INDEX | QPM_PORT | QPM_ACCESS_FLAGS,
		  QPM_PKEY_INDEX | QPM_PORT | QPM_ACCESS_FLAGS, QPM_PKEY_INDEX | QPM_PORT | QPM_QKEY),
		T(0, 0, 0)},
	[WQE_QPS_INIT][WQE_QPS_INIT] = {
		true, T(0, 0, 0),
		T(QPM_PKEY_INDEX | QPM_PORT | QPM_ACCESS_FLAGS,
		  QPM_PKEY_INDEX | QPM_PORT | QPM_ACCESS_FLAGS, QPM_PKEY_INDEX | QPM_PORT | QPM_QKEY)},
	[WQE_QPS_INIT][WQE_QPS_RTR] = {
		true,
		T(QPM_AV | QPM_PATH_MTU | QPM_DEST_QPN | QPM_RQ_PSN | QPM_MAX_DEST_RD_ATOMIC |
			  QPM_MIN_RNR_TIMER,
		  QPM_AV | QPM_PATH_MTU | QPM_DEST_QPN | QPM_RQ_PSN, 0),
		T(QPM_ALT_PATH | QPM_ACCESS_FLAGS | QPM_PKEY_INDEX,
		  QPM_ALT_PATH | QPM_ACCESS_FLAGS | QPM_PKEY_INDEX, QPM_PKEY_INDEX | QPM_QKEY)},
	[WQE_QPS_RTR][WQE_QPS_RTS] = {
		true,
		T(QPM_SQ_PSN | QPM_TIMEOUT | QPM_RETRY_CNT | QPM_RNR_RETRY | QPM_MAX_QP_RD_ATOMIC,
		  QPM_SQ_PSN, QPM_SQ_PSN),
		T(QPM_CUR_STATE | QPM_ALT_PATH | QPM_ACCESS_FLAGS | QPM_MIN_RNR_TIMER |
			  QPM_PATH_MIG_STATE,
		  QPM_CUR_STATE | QPM_ALT_PATH | QPM_ACCESS_FLAGS | QPM_PATH_MIG_STATE,
		  QPM_CUR_STATE | QPM_QKEY)},
	[WQE_QPS_RTS][WQE_QPS_RTS] = {
		true, T(0, 0, 0),
		T(QPM_CUR_STATE | QPM_ACCESS_FLAGS | QPM_ALT_PATH | QPM_PATH_MIG_STATE |
			  QPM_MIN_RNR_TIMER,
		  QPM_CUR_STATE | QPM_ACCESS_FLAGS | QPM_ALT_PATH | QPM_PATH_MIG_STATE,
		  QPM_CUR_STATE | QPM_QKEY)},
	[WQE_QPS_RTS][WQE_QPS_SQD] = {
		true, T(0, 0, 0),
		T(QPM_EN_SQD_ASYNC_NOTIFY, QPM_EN_SQD_ASYNC_NOTIFY, QPM_EN_SQD_ASYNC_NOTIFY)},
	[WQE_QPS_SQD][WQE_QPS_RTS] = {
		true, T(0, 0, 0),
		T(QPM_CUR_STATE | QPM_ALT_PATH | QPM_ACCESS_FLAGS | QPM_MIN_RNR_TIMER |
			  QPM_PATH_MIG_STATE,
		  QPM_CUR_STATE | QPM_ALT_PATH | QPM_ACCESS_FLAGS | QPM_PATH_MIG_STATE,
		  QPM_CUR_STATE | QPM_QKEY)},
	[WQE_QPS_SQD][WQE_QPS_SQD] = {
		true, T(0, 0, 0),
		T(QPM_PKEY_INDEX | QPM_AV | QPM_ALT_PATH | QPM_MAX_QP_RD_ATOMIC |
			  QPM_MIN_RNR_TIMER | QPM_MAX_DEST_RD_ATOMIC | QPM_PATH_MIG_STATE |
			  QPM_TIMEOUT | QPM_RETRY_CNT | QPM_RNR_RETRY | QPM_PATH_MTU |
			  QPM_ACCESS_FLAGS | QPM_CUR_STATE,
		  QPM_PKEY_INDEX | QPM_AV | QPM_ALT_PATH | QPM_PATH_MIG_STATE | QPM_PATH_MTU |
			  QPM_ACCESS_FLAGS | QPM_CUR_STATE,
		  QPM_PKEY_INDEX | QPM_QKEY | QPM_CUR_STATE)},
	[WQE_QPS_SQE][WQE_QPS_RTS] = {
		true, T(0, 0, 0),
		T(0, QPM_CUR_STATE | QPM_ACCESS_FLAGS, QPM_CUR_STATE | QPM_QKEY)},
};

bool qp_transition_ok(enum wqe_qp_type type, enum wqe_qp_state cur, enum wqe_qp_state next,
		      unsigned int mask, const char **why)
{
	const struct qp_rule *r;
	unsigned int t = tidx(type), rest = mask & ~(unsigned)QPM_STATE;

	if ((unsigned)cur >= NQPS || (unsigned)next >= NQPS) {
		*why = "unknown QP state";
		return false;
	}
	if (next == WQE_QPS_RESET || next == WQE_QPS_ERR) {
		if (rest & ~(unsigned)QPM_CUR_STATE) {
			*why = "a move to RESET or ERR takes no attributes";
			return false;
		}
		return true;
	}
	r = &rules[cur][next];
	if (!r->valid || (next == WQE_QPS_RTS && cur == WQE_QPS_SQE && type == WQE_QPT_RC)) {
		*why = "no such transition for this transport";
		return false;
	}
	if ((rest & r->req[t]) != r->req[t]) {
		*why = "a required attribute is missing";
		return false;
	}
	if (rest & ~(r->req[t] | r->opt[t])) {
		*why = "an attribute is not allowed on this transition";
		return false;
	}
	return true;
}
