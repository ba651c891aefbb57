/* SPDX-License-Identifier: MIT */
/*
 * layout.c - where every field of every CM message is (IBTA Vol 1 12.6.5
 * to 12.6.11 and 12.11.1-2: Tables 106-108, 110-113, 119 and 120 of the
 * release the kernel's ibta_vol1_c12.h names), and the value rules each
 * message's fields obey. Offsets are from the start of the attribute data
 * (MAD byte 24).
 */
#include "cm/cm_int.h"

#include <stddef.h>

/* The tables read as the IBTA tables do, one field a line. */
/* clang-format off */
/* The name of a message's fields: "REQ.local_qpn". */
#define NM_req	    "REQ"
#define NM_mra	    "MRA"
#define NM_rej	    "REJ"
#define NM_rep	    "REP"
#define NM_rtu	    "RTU"
#define NM_dreq	    "DREQ"
#define NM_drep	    "DREP"
#define NM_sidr_req "SIDR_REQ"
#define NM_sidr_rep "SIDR_REP"

#define F(msg, nm, b, bi, w, mem)                                                              \
	{.name = NM_##msg "." nm, .byte = (b), .bit = (bi), .width = (w),                          \
	 .member = (uint16_t)offsetof(struct wqe_cm_##msg, mem),                               \
	 .size = (uint8_t)sizeof(((struct wqe_cm_##msg *)0)->mem), .vshift = 0}
/* A piece of a split member: bits [vs, vs + w) of its value. */
#define P(msg, nm, b, bi, w, mem, vs)                                                          \
	{.name = NM_##msg "." nm, .byte = (b), .bit = (bi), .width = (w),                          \
	 .member = (uint16_t)offsetof(struct wqe_cm_##msg, mem),                               \
	 .size = (uint8_t)sizeof(((struct wqe_cm_##msg *)0)->mem), .vshift = (vs)}
/* A byte array (GID, ARI, private data). */
#define B(msg, nm, b, nbytes, mem)                                                             \
	{.name = NM_##msg "." nm, .byte = (b), .bit = 0, .width = (nbytes) * 8,                    \
	 .member = (uint16_t)offsetof(struct wqe_cm_##msg, mem), .size = 0, .vshift = 0}

/* The two paths of a REQ have the same shape, 44 bytes apart. */
#define REQ_PATH(pfx, b)                                                                       \
	F(req, #pfx ".local_lid", (b) + 0, 0, 16, pfx.local_lid),                              \
	F(req, #pfx ".remote_lid", (b) + 2, 0, 16, pfx.remote_lid),                            \
	B(req, #pfx ".local_gid", (b) + 4, 16, pfx.local_gid),                                 \
	B(req, #pfx ".remote_gid", (b) + 20, 16, pfx.remote_gid),                              \
	F(req, #pfx ".flow_label", (b) + 36, 0, 20, pfx.flow_label),                           \
	F(req, #pfx ".packet_rate", (b) + 39, 2, 6, pfx.packet_rate),                          \
	F(req, #pfx ".traffic_class", (b) + 40, 0, 8, pfx.traffic_class),                      \
	F(req, #pfx ".hop_limit", (b) + 41, 0, 8, pfx.hop_limit),                              \
	F(req, #pfx ".sl", (b) + 42, 0, 4, pfx.sl),                                            \
	F(req, #pfx ".subnet_local", (b) + 42, 4, 1, pfx.subnet_local),                        \
	F(req, #pfx ".local_ack_timeout", (b) + 43, 0, 5, pfx.local_ack_timeout)

static const struct cm_field req_fields[] = {
	F(req, "local_comm_id", 0, 0, 32, local_comm_id),
	F(req, "vendor_id", 5, 0, 24, vendor_id),
	F(req, "service_id", 8, 0, 64, service_id),
	F(req, "local_ca_guid", 16, 0, 64, local_ca_guid),
	F(req, "local_qkey", 28, 0, 32, local_qkey),
	F(req, "local_qpn", 32, 0, 24, local_qpn),
	F(req, "responder_resources", 35, 0, 8, responder_resources),
	F(req, "local_eecn", 36, 0, 24, local_eecn),
	F(req, "initiator_depth", 39, 0, 8, initiator_depth),
	F(req, "remote_eecn", 40, 0, 24, remote_eecn),
	F(req, "remote_cm_response_timeout", 43, 0, 5, remote_cm_response_timeout),
	F(req, "transport_type", 43, 5, 2, transport_type),
	F(req, "e2e_flow_control", 43, 7, 1, e2e_flow_control),
	F(req, "starting_psn", 44, 0, 24, starting_psn),
	F(req, "local_cm_response_timeout", 47, 0, 5, local_cm_response_timeout),
	F(req, "retry_count", 47, 5, 3, retry_count),
	F(req, "pkey", 48, 0, 16, pkey),
	F(req, "path_mtu", 50, 0, 4, path_mtu),
	F(req, "rdc_exists", 50, 4, 1, rdc_exists),
	F(req, "rnr_retry_count", 50, 5, 3, rnr_retry_count),
	F(req, "max_cm_retries", 51, 0, 4, max_cm_retries),
	F(req, "srq", 51, 4, 1, srq),
	F(req, "ext_transport_type", 51, 5, 3, ext_transport_type),
	REQ_PATH(primary, 52),
	REQ_PATH(alternate, 96),
	F(req, "sap_supported", 139, 5, 1, sap_supported),
	B(req, "private_data", 140, WQE_CM_REQ_PDATA_LEN, private_data),
};

static const struct cm_field mra_fields[] = {
	F(mra, "local_comm_id", 0, 0, 32, local_comm_id),
	F(mra, "remote_comm_id", 4, 0, 32, remote_comm_id),
	F(mra, "msg_mraed", 8, 0, 2, msg_mraed),
	F(mra, "service_timeout", 9, 0, 5, service_timeout),
	B(mra, "private_data", 10, WQE_CM_MRA_PDATA_LEN, private_data),
};

static const struct cm_field rej_fields[] = {
	F(rej, "local_comm_id", 0, 0, 32, local_comm_id),
	F(rej, "remote_comm_id", 4, 0, 32, remote_comm_id),
	F(rej, "msg_rejected", 8, 0, 2, msg_rejected),
	F(rej, "ari_len", 9, 0, 7, ari_len),
	F(rej, "reason", 10, 0, 16, reason),
	B(rej, "ari", 12, WQE_CM_ARI_LEN, ari),
	B(rej, "private_data", 84, WQE_CM_REJ_PDATA_LEN, private_data),
};

static const struct cm_field rep_fields[] = {
	F(rep, "local_comm_id", 0, 0, 32, local_comm_id),
	F(rep, "remote_comm_id", 4, 0, 32, remote_comm_id),
	F(rep, "local_qkey", 8, 0, 32, local_qkey),
	F(rep, "local_qpn", 12, 0, 24, local_qpn),
	P(rep, "vendor_id", 15, 0, 8, vendor_id, 16),
	F(rep, "local_eecn", 16, 0, 24, local_eecn),
	P(rep, "vendor_id", 19, 0, 8, vendor_id, 8),
	F(rep, "starting_psn", 20, 0, 24, starting_psn),
	P(rep, "vendor_id", 23, 0, 8, vendor_id, 0),
	F(rep, "responder_resources", 24, 0, 8, responder_resources),
	F(rep, "initiator_depth", 25, 0, 8, initiator_depth),
	F(rep, "target_ack_delay", 26, 0, 5, target_ack_delay),
	F(rep, "failover_accepted", 26, 5, 2, failover_accepted),
	F(rep, "e2e_flow_control", 26, 7, 1, e2e_flow_control),
	F(rep, "rnr_retry_count", 27, 0, 3, rnr_retry_count),
	F(rep, "srq", 27, 3, 1, srq),
	F(rep, "local_ca_guid", 28, 0, 64, local_ca_guid),
	B(rep, "private_data", 36, WQE_CM_REP_PDATA_LEN, private_data),
};

static const struct cm_field rtu_fields[] = {
	F(rtu, "local_comm_id", 0, 0, 32, local_comm_id),
	F(rtu, "remote_comm_id", 4, 0, 32, remote_comm_id),
	B(rtu, "private_data", 8, WQE_CM_RTU_PDATA_LEN, private_data),
};

static const struct cm_field dreq_fields[] = {
	F(dreq, "local_comm_id", 0, 0, 32, local_comm_id),
	F(dreq, "remote_comm_id", 4, 0, 32, remote_comm_id),
	F(dreq, "remote_qpn", 8, 0, 24, remote_qpn),
	B(dreq, "private_data", 12, WQE_CM_DREQ_PDATA_LEN, private_data),
};

static const struct cm_field drep_fields[] = {
	F(drep, "local_comm_id", 0, 0, 32, local_comm_id),
	F(drep, "remote_comm_id", 4, 0, 32, remote_comm_id),
	B(drep, "private_data", 8, WQE_CM_DREP_PDATA_LEN, private_data),
};

static const struct cm_field sidr_req_fields[] = {
	F(sidr_req, "request_id", 0, 0, 32, request_id),
	F(sidr_req, "pkey", 4, 0, 16, pkey),
	F(sidr_req, "service_id", 8, 0, 64, service_id),
	B(sidr_req, "private_data", 16, WQE_CM_SIDR_REQ_PDATA_LEN, private_data),
};

static const struct cm_field sidr_rep_fields[] = {
	F(sidr_rep, "request_id", 0, 0, 32, request_id),
	F(sidr_rep, "status", 4, 0, 8, status),
	F(sidr_rep, "info_len", 5, 0, 8, info_len),
	P(sidr_rep, "vendor_id", 6, 0, 16, vendor_id, 8),
	F(sidr_rep, "qpn", 8, 0, 24, qpn),
	P(sidr_rep, "vendor_id", 11, 0, 8, vendor_id, 0),
	F(sidr_rep, "service_id", 12, 0, 64, service_id),
	F(sidr_rep, "qkey", 20, 0, 32, qkey),
	B(sidr_rep, "info", 24, WQE_CM_SIDR_INFO_LEN, info),
	B(sidr_rep, "private_data", 96, WQE_CM_SIDR_REP_PDATA_LEN, private_data),
};

/* clang-format on */

/* 12.6.5: path MTU is an IBTA MTU code, 1 (256) to 5 (4096); transport
 * type 3 means the extended transport type, whose one value is XRC. */
static int req_check(const void *msg, const char **field)
{
	const struct wqe_cm_req *r = msg;

	if (r->path_mtu < 1 || r->path_mtu > 5) {
		*field = "REQ.path_mtu";
		return WQE_CM_ERANGE;
	}
	if (r->transport_type == WQE_CM_TRANSPORT_EXTENDED
		? r->ext_transport_type != WQE_CM_EXT_TRANSPORT_XRC
		: r->ext_transport_type != 0) {
		*field = "REQ.ext_transport_type";
		return WQE_CM_ERANGE;
	}
	return 0;
}

/* 12.6.6: message MRAed 0 (REQ), 1 (REP), 2 (LAP); 3 is reserved. */
static int mra_check(const void *msg, const char **field)
{
	const struct wqe_cm_mra *m = msg;

	if (m->msg_mraed > WQE_CM_MSG_OTHER) {
		*field = "MRA.msg_mraed";
		return WQE_CM_ERANGE;
	}
	return 0;
}

/* 12.6.7: message rejected 0-2; the ARI length counts bytes of the 72-byte
 * ARI field; reasons 1-35 (34 reserved but let through: a later spec may
 * define it, and a REJ is never harmful to read). */
static int rej_check(const void *msg, const char **field)
{
	const struct wqe_cm_rej *r = msg;

	if (r->msg_rejected > WQE_CM_MSG_OTHER) {
		*field = "REJ.msg_rejected";
		return WQE_CM_ERANGE;
	}
	if (r->ari_len > WQE_CM_ARI_LEN) {
		*field = "REJ.ari_len";
		return WQE_CM_ERANGE;
	}
	if (r->reason < 1 || r->reason > WQE_CM_REJ_REASON_MAX) {
		*field = "REJ.reason";
		return WQE_CM_ERANGE;
	}
	return 0;
}

/* 12.6.8: failover accepted 0-2; 3 is reserved. */
static int rep_check(const void *msg, const char **field)
{
	const struct wqe_cm_rep *r = msg;

	if (r->failover_accepted > WQE_CM_FAILOVER_REJECTED) {
		*field = "REP.failover_accepted";
		return WQE_CM_ERANGE;
	}
	return 0;
}

/* 12.11.2: status 0-5; the additional information is 72 bytes. */
static int sidr_rep_check(const void *msg, const char **field)
{
	const struct wqe_cm_sidr_rep *r = msg;

	if (r->status > WQE_CM_SIDR_STATUS_MAX) {
		*field = "SIDR_REP.status";
		return WQE_CM_ERANGE;
	}
	if (r->info_len > WQE_CM_SIDR_INFO_LEN) {
		*field = "SIDR_REP.info_len";
		return WQE_CM_ERANGE;
	}
	return 0;
}

static int no_check(const void *msg, const char **field)
{
	(void)msg;
	(void)field;
	return 0;
}

/* clang-format off */
#define LAYOUT(var, id, nm, f, pd, chk)                                                        \
	static const struct cm_layout var = {.attr = (id), .name = nm,                         \
					     .reserved_name = nm ".reserved", .fields = (f),   \
					     .nfields = sizeof(f) / sizeof((f)[0]),            \
					     .pdata_len = (pd), .check = (chk)}

LAYOUT(req_layout, WQE_CM_ATTR_REQ, "REQ", req_fields, WQE_CM_REQ_PDATA_LEN, req_check);
LAYOUT(mra_layout, WQE_CM_ATTR_MRA, "MRA", mra_fields, WQE_CM_MRA_PDATA_LEN, mra_check);
LAYOUT(rej_layout, WQE_CM_ATTR_REJ, "REJ", rej_fields, WQE_CM_REJ_PDATA_LEN, rej_check);
LAYOUT(rep_layout, WQE_CM_ATTR_REP, "REP", rep_fields, WQE_CM_REP_PDATA_LEN, rep_check);
LAYOUT(rtu_layout, WQE_CM_ATTR_RTU, "RTU", rtu_fields, WQE_CM_RTU_PDATA_LEN, no_check);
LAYOUT(dreq_layout, WQE_CM_ATTR_DREQ, "DREQ", dreq_fields, WQE_CM_DREQ_PDATA_LEN, no_check);
LAYOUT(drep_layout, WQE_CM_ATTR_DREP, "DREP", drep_fields, WQE_CM_DREP_PDATA_LEN, no_check);
LAYOUT(sidr_req_layout, WQE_CM_ATTR_SIDR_REQ, "SIDR_REQ", sidr_req_fields,
       WQE_CM_SIDR_REQ_PDATA_LEN, no_check);
LAYOUT(sidr_rep_layout, WQE_CM_ATTR_SIDR_REP, "SIDR_REP", sidr_rep_fields,
       WQE_CM_SIDR_REP_PDATA_LEN, sidr_rep_check);

/* Indexed by attribute ID - WQE_CM_ATTR_REQ. */
const struct cm_layout *const cm_layouts[] = {
	&req_layout,  &mra_layout,  &rej_layout,      &rep_layout,	&rtu_layout,
	&dreq_layout, &drep_layout, &sidr_req_layout, &sidr_rep_layout,
};
/* clang-format on */
const size_t cm_nlayouts = sizeof(cm_layouts) / sizeof(cm_layouts[0]);

const struct cm_layout *cm_layout_of(uint16_t attr)
{
	if (attr < WQE_CM_ATTR_REQ || attr > WQE_CM_ATTR_SIDR_REP)
		return NULL;
	return cm_layouts[attr - WQE_CM_ATTR_REQ];
}
