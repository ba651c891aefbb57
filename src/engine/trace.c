/* SPDX-License-Identifier: MIT */
/* Names of the trace enumerations (wqe/trace.h). */
#include "wqe/trace.h"

const char *wqe_trace_kind_str(enum wqe_trace_kind k)
{
	static const char *const names[WQE_TRACE_COUNT] = {
		"DOORBELL", "FETCH", "CHECK_FAIL", "STALL", "TX", "RX", "DROP", "RETRY", "CQE",
	};

	return (unsigned)k < WQE_TRACE_COUNT ? names[k] : "unknown";
}

const char *wqe_check_str(enum wqe_check c)
{
	switch (c) {
	case WQE_CHECK_WELL_FORMED: return "well-formed WQE";
	case WQE_CHECK_OPCODE: return "opcode legal on the transport";
	case WQE_CHECK_LENGTH: return "message length";
	case WQE_CHECK_LKEY: return "lkey, PD, access and bounds";
	case WQE_CHECK_QP_STATE: return "QP state";
	}
	return "unknown";
}
