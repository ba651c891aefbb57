/* SPDX-License-Identifier: MIT */
/*
 * The rest of libibverbs' public calls: the strings and rate tables
 * programs print with (the same words as rdma-core's, which scripts read),
 * fork handling, and what a wqe device does not have, refused with the
 * errno docs/ibverbs.md gives for each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/ibv_int.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const s[] = {
	    [IBV_WC_SUCCESS] = "success",
	    [IBV_WC_LOC_LEN_ERR] = "local length error",
	    [IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
	    [IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
	    [IBV_WC_LOC_PROT_ERR] = "local protection error",
	    [IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
	    [IBV_WC_MW_BIND_ERR] = "memory management operation error",
	    [IBV_WC_BAD_RESP_ERR] = "bad response error",
	    [IBV_WC_LOC_ACCESS_ERR] = "local access error",
	    [IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
	    [IBV_WC_REM_ACCESS_ERR] = "remote access error",
	    [IBV_WC_REM_OP_ERR] = "remote operation error",
	    [IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
	    [IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
	    [IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
	    [IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
	    [IBV_WC_REM_ABORT_ERR] = "aborted error",
	    [IBV_WC_INV_EECN_ERR] = "invalid EE context number",
	    [IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
	    [IBV_WC_FATAL_ERR] = "fatal error",
	    [IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
	    [IBV_WC_GENERAL_ERR] = "general error",
	    [IBV_WC_TM_ERR] = "TM error",
	    [IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	return (unsigned)status < NELEM(s) && s[status] ? s[status] : "unknown";
}

const char *ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const s[] = {
	    [IBV_EVENT_CQ_ERR] = "CQ error",
	    [IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
	    [IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
	    [IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
	    [IBV_EVENT_COMM_EST] = "communication established",
	    [IBV_EVENT_SQ_DRAINED] = "send queue drained",
	    [IBV_EVENT_PATH_MIG] = "path migrated",
	    [IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
	    [IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
	    [IBV_EVENT_PORT_ACTIVE] = "port active",
	    [IBV_EVENT_PORT_ERR] = "port error",
	    [IBV_EVENT_LID_CHANGE] = "LID change",
	    [IBV_EVENT_PKEY_CHANGE] = "P_Key change",
	    [IBV_EVENT_SM_CHANGE] = "SM change",
	    [IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
	    [IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
	    [IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
	    [IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
	    [IBV_EVENT_GID_CHANGE] = "GID table change",
	    [IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	return (unsigned)event < NELEM(s) && s[event] ? s[event] : "unknown";
}

const char *ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const s[] = {
	    [IBV_PORT_NOP] = "no state change (NOP)", [IBV_PORT_DOWN] = "down",
	    [IBV_PORT_INIT] = "init",		      [IBV_PORT_ARMED] = "armed",
	    [IBV_PORT_ACTIVE] = "active",	      [IBV_PORT_ACTIVE_DEFER] = "active defer",
	};

	return (unsigned)port_state < NELEM(s) ? s[port_state] : "unknown";
}

const char *ibv_node_type_str(enum ibv_node_type node_type)
{
	static const char *const s[] = {
	    [IBV_NODE_CA] = "InfiniBand channel adapter",
	    [IBV_NODE_SWITCH] = "InfiniBand switch",
	    [IBV_NODE_ROUTER] = "InfiniBand router",
	    [IBV_NODE_RNIC] = "iWARP NIC",
	    [IBV_NODE_USNIC] = "usNIC",
	    [IBV_NODE_USNIC_UDP] = "usNIC UDP",
	    [IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	return (unsigned)node_type < NELEM(s) && s[node_type] ? s[node_type] : "unknown";
}

/* The static rates: IB multiples of 2.5 Gb/s (0: none, as rdma-core has
 * it for the FDR and 25 Gb/s-lane rates), and Mb/s. */
static const struct {
	enum ibv_rate rate;
	int mult, mbps;
} rates[] = {
    {IBV_RATE_2_5_GBPS, 1, 2500},     {IBV_RATE_5_GBPS, 2, 5000},
    {IBV_RATE_10_GBPS, 4, 10000},     {IBV_RATE_20_GBPS, 8, 20000},
    {IBV_RATE_30_GBPS, 12, 30000},    {IBV_RATE_40_GBPS, 16, 40000},
    {IBV_RATE_60_GBPS, 24, 60000},    {IBV_RATE_80_GBPS, 32, 80000},
    {IBV_RATE_120_GBPS, 48, 120000},  {IBV_RATE_14_GBPS, 0, 14062},
    {IBV_RATE_56_GBPS, 0, 56250},     {IBV_RATE_112_GBPS, 0, 112500},
    {IBV_RATE_168_GBPS, 0, 168750},   {IBV_RATE_25_GBPS, 0, 25781},
    {IBV_RATE_100_GBPS, 0, 103125},   {IBV_RATE_200_GBPS, 0, 206250},
    {IBV_RATE_300_GBPS, 0, 309375},   {IBV_RATE_28_GBPS, 11, 28125},
    {IBV_RATE_50_GBPS, 20, 53125},    {IBV_RATE_400_GBPS, 160, 425000},
    {IBV_RATE_600_GBPS, 240, 637500}, {IBV_RATE_800_GBPS, 320, 850000},
    {IBV_RATE_1200_GBPS, 480, 1275000},
};

int ibv_rate_to_mult(enum ibv_rate rate)
{
	for (size_t i = 0; i < NELEM(rates); i++)
		if (rates[i].rate == rate)
			return rates[i].mult ? rates[i].mult : -1;
	return -1;
}

enum ibv_rate mult_to_ibv_rate(int mult)
{
	for (size_t i = 0; i < NELEM(rates); i++)
		if (rates[i].mult && rates[i].mult == mult)
			return rates[i].rate;
	return IBV_RATE_MAX;
}

int ibv_rate_to_mbps(enum ibv_rate rate)
{
	for (size_t i = 0; i < NELEM(rates); i++)
		if (rates[i].rate == rate)
			return rates[i].mbps;
	return -1;
}

enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	for (size_t i = 0; i < NELEM(rates); i++)
		if (rates[i].mbps == mbps)
			return rates[i].rate;
	return IBV_RATE_MAX;
}

/* Memory is never pinned (the NIC reads it through the process's own
 * mappings), so fork() needs no madvise(): every call succeeds. */
int ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

int ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

int ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
				uint8_t eth_mac[6], uint16_t *vid)
{
	struct wqe_ah_attr a;

	if (!context || !attr || !eth_mac || !vid)
		return -EINVAL;
	if (wi_ah_attr_in(wi_ctx(context)->dev, attr, &a))
		return -EINVAL; /* rdma-core's convention here: a negative errno */
	memcpy(eth_mac, a.dmac, 6);
	*vid = 0xffff; /* no VLAN */
	return 0;
}

int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0; /* not promised: a program must wait for the completion */
}

/* ------------------------------------------------------------------------ */
/* Not on a wqe device                                                      */

/* UD multicast: no multicast groups (no subnet manager, no IGMP). */
int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
		 int access)
{
	(void)mr;
	(void)flags;
	(void)pd;
	(void)addr;
	(void)length;
	(void)access;
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
				 uint64_t iova, int fd, int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

/* Sharing objects between processes through a command fd: there is none. */
struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context;
	(void)pd_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context;
	(void)dm_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

/* Enhanced Connection Establishment: no options to negotiate. */
int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}
