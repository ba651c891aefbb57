/* SPDX-License-Identifier: MIT */
/* Names of the verbs enumerations (wqe/verbs.h). */
#include "wqe/verbs.h"

const char *wqe_wr_opcode_str(enum wqe_wr_opcode op)
{
	switch (op) {
	case WQE_WR_RDMA_WRITE: return "RDMA_WRITE";
	case WQE_WR_RDMA_WRITE_WITH_IMM: return "RDMA_WRITE_WITH_IMM";
	case WQE_WR_SEND: return "SEND";
	case WQE_WR_SEND_WITH_IMM: return "SEND_WITH_IMM";
	case WQE_WR_RDMA_READ: return "RDMA_READ";
	case WQE_WR_ATOMIC_CMP_AND_SWP: return "ATOMIC_CMP_AND_SWP";
	case WQE_WR_ATOMIC_FETCH_AND_ADD: return "ATOMIC_FETCH_AND_ADD";
	case WQE_WR_SEND_WITH_INV: return "SEND_WITH_INV";
	}
	return "unknown";
}

const char *wqe_send_flags_str(enum wqe_send_flags f)
{
	switch (f) {
	case WQE_SEND_FENCE: return "FENCE";
	case WQE_SEND_SIGNALED: return "SIGNALED";
	case WQE_SEND_SOLICITED: return "SOLICITED";
	case WQE_SEND_INLINE: return "INLINE";
	}
	return "unknown";
}

const char *wqe_qp_attr_mask_str(enum wqe_qp_attr_mask m)
{
	static const char *const names[] = {
		"STATE",      "CUR_STATE",      "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS",
		"PKEY_INDEX", "PORT",           "QKEY",                "AV",
		"PATH_MTU",   "TIMEOUT",        "RETRY_CNT",           "RNR_RETRY",
		"RQ_PSN",     "MAX_QP_RD_ATOMIC", "ALT_PATH",          "MIN_RNR_TIMER",
		"SQ_PSN",     "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE",  "CAP",
		"DEST_QPN",
	};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((unsigned)m == 1u << i)
			return names[i];
	return "unknown";
}

const char *wqe_event_type_str(enum wqe_event_type t)
{
	switch (t) {
	case WQE_EVENT_CQ_ERR: return "CQ_ERR";
	case WQE_EVENT_QP_FATAL: return "QP_FATAL";
	case WQE_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case WQE_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case WQE_EVENT_COMM_EST: return "COMM_EST";
	case WQE_EVENT_SQ_DRAINED: return "SQ_DRAINED";
	case WQE_EVENT_SRQ_LIMIT_REACHED: return "SRQ_LIMIT_REACHED";
	case WQE_EVENT_QP_LAST_WQE_REACHED: return "QP_LAST_WQE_REACHED";
	}
	return "unknown";
}
