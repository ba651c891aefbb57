/* SPDX-License-Identifier: MIT */
/*
 * names.c - the names of CM attributes and REJ reasons, and the private
 * data sizes (IBTA Vol 1 12.6.7.2 for the reasons).
 */
#include "cm/cm_int.h"

const char *wqe_cm_attr_str(uint16_t attr)
{
	const struct cm_layout *lay = cm_layout_of(attr);

	if (lay)
		return lay->name;
	switch (attr) {
	case WQE_CM_ATTR_CLASS_PORT_INFO:
		return "ClassPortInfo";
	case WQE_CM_ATTR_LAP:
		return "LAP";
	case WQE_CM_ATTR_APR:
		return "APR";
	default:
		return "unknown";
	}
}

size_t wqe_cm_pdata_len(uint16_t attr)
{
	const struct cm_layout *lay = cm_layout_of(attr);

	return lay ? lay->pdata_len : 0;
}

static const char *const rej_reason_names[WQE_CM_REJ_REASON_MAX + 1] = {
    [WQE_CM_REJ_NO_QP] = "no QP",
    [WQE_CM_REJ_NO_EEC] = "no EEC",
    [WQE_CM_REJ_NO_RESOURCES] = "no resources",
    [WQE_CM_REJ_TIMEOUT] = "timeout",
    [WQE_CM_REJ_UNSUPPORTED] = "unsupported request",
    [WQE_CM_REJ_INVALID_COMM_ID] = "invalid communication ID",
    [WQE_CM_REJ_INVALID_COMM_INSTANCE] = "invalid communication instance",
    [WQE_CM_REJ_INVALID_SERVICE_ID] = "invalid service ID",
    [WQE_CM_REJ_INVALID_TRANSPORT_TYPE] = "invalid transport service type",
    [WQE_CM_REJ_STALE_CONN] = "stale connection",
    [WQE_CM_REJ_RDC_NOT_EXIST] = "RDC does not exist",
    [WQE_CM_REJ_INVALID_GID] = "invalid GID",
    [WQE_CM_REJ_INVALID_LID] = "invalid LID",
    [WQE_CM_REJ_INVALID_SL] = "invalid SL",
    [WQE_CM_REJ_INVALID_TRAFFIC_CLASS] = "invalid traffic class",
    [WQE_CM_REJ_INVALID_HOP_LIMIT] = "invalid hop limit",
    [WQE_CM_REJ_INVALID_PACKET_RATE] = "invalid packet rate",
    [WQE_CM_REJ_INVALID_ALT_GID] = "invalid alternate GID",
    [WQE_CM_REJ_INVALID_ALT_LID] = "invalid alternate LID",
    [WQE_CM_REJ_INVALID_ALT_SL] = "invalid alternate SL",
    [WQE_CM_REJ_INVALID_ALT_TRAFFIC_CLASS] = "invalid alternate traffic class",
    [WQE_CM_REJ_INVALID_ALT_HOP_LIMIT] = "invalid alternate hop limit",
    [WQE_CM_REJ_INVALID_ALT_PACKET_RATE] = "invalid alternate packet rate",
    [WQE_CM_REJ_PORT_CM_REDIRECT] = "port and CM redirection",
    [WQE_CM_REJ_PORT_REDIRECT] = "port redirection",
    [WQE_CM_REJ_INVALID_MTU] = "invalid path MTU",
    [WQE_CM_REJ_INSUFFICIENT_RESP_RESOURCES] = "insufficient responder resources",
    [WQE_CM_REJ_CONSUMER_DEFINED] = "consumer defined",
    [WQE_CM_REJ_INVALID_RNR_RETRY] = "invalid RNR retry count",
    [WQE_CM_REJ_DUPLICATE_LOCAL_COMM_ID] = "duplicate local communication ID",
    [WQE_CM_REJ_INVALID_CLASS_VERSION] = "invalid class version",
    [WQE_CM_REJ_INVALID_FLOW_LABEL] = "invalid flow label",
    [WQE_CM_REJ_INVALID_ALT_FLOW_LABEL] = "invalid alternate flow label",
    [34] = "reserved",
    [WQE_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED] = "vendor option not supported",
};

const char *wqe_cm_rej_reason_str(uint16_t reason)
{
	if (reason > WQE_CM_REJ_REASON_MAX || !rej_reason_names[reason])
		return "unknown";
	return rej_reason_names[reason];
}
