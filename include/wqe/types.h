/* SPDX-License-Identifier: MIT */
/*
 * wqe/types.h - enumerations and small types shared by every part of libwqe.
 *
 * The numeric values of every enum below are those of the libibverbs enum of
 * the same name (verbs.h of rdma-core): the drop-in libibverbs (src/ibverbs)
 * passes them through unchanged, and relies on it.
 *
 * Every enum has a *_str() function that returns a static, never-NULL string
 * ("unknown" for a value outside the enum). All functions in this header are
 * pure and thread-safe.
 */
#ifndef WQE_TYPES_H
#define WQE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WQE_API __attribute__((visibility("default")))
#else
#define WQE_API
#endif

/* The on-chip WQE format a context writes into its send-queue rings. */
enum wqe_format {
	WQE_FORMAT_MLX5 = 0, /* mlx5 layout: 64-byte blocks, big-endian segments */
	WQE_FORMAT_RXE = 1,  /* Linux rxe uapi struct rxe_send_wqe (not yet available) */
};
WQE_API const char *wqe_format_str(enum wqe_format fmt);

/* Transport service of a queue pair (values of enum ibv_qp_type). */
enum wqe_qp_type {
	WQE_QPT_RC = 2,
	WQE_QPT_UC = 3,
	WQE_QPT_UD = 4,
};
WQE_API const char *wqe_qp_type_str(enum wqe_qp_type t);

/* Queue pair states (values of enum ibv_qp_state). */
enum wqe_qp_state {
	WQE_QPS_RESET = 0,
	WQE_QPS_INIT = 1,
	WQE_QPS_RTR = 2,
	WQE_QPS_RTS = 3,
	WQE_QPS_SQD = 4,
	WQE_QPS_SQE = 5,
	WQE_QPS_ERR = 6,
};
WQE_API const char *wqe_qp_state_str(enum wqe_qp_state s);

/* Path MTU (values of enum ibv_mtu). */
enum wqe_mtu {
	WQE_MTU_256 = 1,
	WQE_MTU_512 = 2,
	WQE_MTU_1024 = 3,
	WQE_MTU_2048 = 4,
	WQE_MTU_4096 = 5,
};
WQE_API const char *wqe_mtu_str(enum wqe_mtu m);
/* Bytes of payload per packet for @m (256..4096), or 0 if @m is not an MTU. */
WQE_API uint32_t wqe_mtu_to_bytes(enum wqe_mtu m);

/* Memory-region and QP access flags (values of enum ibv_access_flags). */
enum wqe_access_flags {
	WQE_ACCESS_LOCAL_WRITE = 1 << 0,
	WQE_ACCESS_REMOTE_WRITE = 1 << 1,
	WQE_ACCESS_REMOTE_READ = 1 << 2,
	WQE_ACCESS_REMOTE_ATOMIC = 1 << 3,
};
/* Name of one flag bit; "unknown" for anything that is not exactly one flag. */
WQE_API const char *wqe_access_flags_str(enum wqe_access_flags f);

/* Completion status (values of enum ibv_wc_status). */
enum wqe_wc_status {
	WQE_WC_SUCCESS = 0,
	WQE_WC_LOC_LEN_ERR = 1,
	WQE_WC_LOC_QP_OP_ERR = 2,
	WQE_WC_LOC_EEC_OP_ERR = 3,
	WQE_WC_LOC_PROT_ERR = 4,
	WQE_WC_WR_FLUSH_ERR = 5,
	WQE_WC_MW_BIND_ERR = 6,
	WQE_WC_BAD_RESP_ERR = 7,
	WQE_WC_LOC_ACCESS_ERR = 8,
	WQE_WC_REM_INV_REQ_ERR = 9,
	WQE_WC_REM_ACCESS_ERR = 10,
	WQE_WC_REM_OP_ERR = 11,
	WQE_WC_RETRY_EXC_ERR = 12,
	WQE_WC_RNR_RETRY_EXC_ERR = 13,
	WQE_WC_LOC_RDD_VIOL_ERR = 14,
	WQE_WC_REM_INV_RD_REQ_ERR = 15,
	WQE_WC_REM_ABORT_ERR = 16,
	WQE_WC_INV_EECN_ERR = 17,
	WQE_WC_INV_EEC_STATE_ERR = 18,
	WQE_WC_FATAL_ERR = 19,
	WQE_WC_RESP_TIMEOUT_ERR = 20,
	WQE_WC_GENERAL_ERR = 21,
};
WQE_API const char *wqe_wc_status_str(enum wqe_wc_status s);

/* Completion opcode (values of enum ibv_wc_opcode). */
enum wqe_wc_opcode {
	WQE_WC_SEND = 0,
	WQE_WC_RDMA_WRITE = 1,
	WQE_WC_RDMA_READ = 2,
	WQE_WC_COMP_SWAP = 3,
	WQE_WC_FETCH_ADD = 4,
	WQE_WC_RECV = 128,
	WQE_WC_RECV_RDMA_WITH_IMM = 129,
};
WQE_API const char *wqe_wc_opcode_str(enum wqe_wc_opcode op);

/* Work-completion flags (values of enum ibv_wc_flags). */
enum wqe_wc_flags {
	WQE_WC_GRH = 1 << 0,
	WQE_WC_WITH_IMM = 1 << 1,
	WQE_WC_WITH_INV = 1 << 3,
};
WQE_API const char *wqe_wc_flags_str(enum wqe_wc_flags f);

/*
 * A 128-bit RoCEv2 GID. An IPv4 address is the IPv4-mapped IPv6 address
 * ::ffff:a.b.c.d, as rdma-core builds it for RoCEv2 on an IPv4 netdev.
 */
union wqe_gid {
	uint8_t raw[16];
};

/* 1 if @gid is an IPv4-mapped address (::ffff:a.b.c.d), else 0. */
WQE_API int wqe_gid_is_v4(const union wqe_gid *gid);

#ifdef __cplusplus
}
#endif

#endif /* WQE_TYPES_H */
