/* SPDX-License-Identifier: MIT */
/* Names of the shared enumerations (wqe/types.h). */
#include "wqe/types.h"

#include <string.h>

#include "common/mtu.h"

const char *wqe_format_str(enum wqe_format fmt)
{
	switch (fmt) {
	case WQE_FORMAT_MLX5: return "mlx5";
	case WQE_FORMAT_RXE: return "rxe";
	}
	return "unknown";
}

const char *wqe_qp_type_str(enum wqe_qp_type t)
{
	switch (t) {
	case WQE_QPT_RC: return "RC";
	case WQE_QPT_UC: return "UC";
	case WQE_QPT_UD: return "UD";
	}
	return "unknown";
}

const char *wqe_qp_state_str(enum wqe_qp_state s)
{
	static const char *const names[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};

	if ((unsigned)s < sizeof(names) / sizeof(names[0]))
		return names[s];
	return "unknown";
}

const char *wqe_mtu_str(enum wqe_mtu m)
{
	switch (m) {
	case WQE_MTU_256: return "256";
	case WQE_MTU_512: return "512";
	case WQE_MTU_1024: return "1024";
	case WQE_MTU_2048: return "2048";
	case WQE_MTU_4096: return "4096";
	}
	return "unknown";
}

uint32_t wqe_mtu_to_bytes(enum wqe_mtu m)
{
	return mtu_bytes(m);
}

const char *wqe_access_flags_str(enum wqe_access_flags f)
{
	switch (f) {
	case WQE_ACCESS_LOCAL_WRITE: return "LOCAL_WRITE";
	case WQE_ACCESS_REMOTE_WRITE: return "REMOTE_WRITE";
	case WQE_ACCESS_REMOTE_READ: return "REMOTE_READ";
	case WQE_ACCESS_REMOTE_ATOMIC: return "REMOTE_ATOMIC";
	}
	return "unknown";
}

const char *wqe_wc_status_str(enum wqe_wc_status s)
{
	static const char *const names[] = {
		"SUCCESS",         "LOC_LEN_ERR",       "LOC_QP_OP_ERR",     "LOC_EEC_OP_ERR",
		"LOC_PROT_ERR",    "WR_FLUSH_ERR",      "MW_BIND_ERR",       "BAD_RESP_ERR",
		"LOC_ACCESS_ERR",  "REM_INV_REQ_ERR",   "REM_ACCESS_ERR",    "REM_OP_ERR",
		"RETRY_EXC_ERR",   "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR",  "REM_INV_RD_REQ_ERR",
		"REM_ABORT_ERR",   "INV_EECN_ERR",      "INV_EEC_STATE_ERR", "FATAL_ERR",
		"RESP_TIMEOUT_ERR", "GENERAL_ERR",
	};

	if ((unsigned)s < sizeof(names) / sizeof(names[0]))
		return names[s];
	return "unknown";
}

const char *wqe_wc_opcode_str(enum wqe_wc_opcode op)
{
	switch (op) {
	case WQE_WC_SEND: return "SEND";
	case WQE_WC_RDMA_WRITE: return "RDMA_WRITE";
	case WQE_WC_RDMA_READ: return "RDMA_READ";
	case WQE_WC_COMP_SWAP: return "COMP_SWAP";
	case WQE_WC_FETCH_ADD: return "FETCH_ADD";
	case WQE_WC_RECV: return "RECV";
	case WQE_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	}
	return "unknown";
}

const char *wqe_wc_flags_str(enum wqe_wc_flags f)
{
	switch (f) {
	case WQE_WC_GRH: return "GRH";
	case WQE_WC_WITH_IMM: return "WITH_IMM";
	case WQE_WC_WITH_INV: return "WITH_INV";
	}
	return "unknown";
}

int wqe_gid_is_v4(const union wqe_gid *gid)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return gid && memcmp(gid->raw, prefix, sizeof(prefix)) == 0;
}
