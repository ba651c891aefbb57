/* SPDX-License-Identifier: MIT */
/*
 * wqe/cm.h - the IBTA Communication Management (CM) protocol on the wire:
 * the MAD common header, the CM messages as structs of named fields, a
 * strict encoder and decoder for them, the rdma_cm service IDs and the IP
 * CM private-data header, and the RoCEv2 frame that carries a CM MAD to
 * the General Services Interface QP (QP1).
 *
 * Two layers: the codec (pure functions), and the CM agent (struct
 * wqe_cm_agent, at the end of this header): the IBTA chapter 12 state
 * machine of communication IDs, its timeouts and retries, as the kernel's
 * ib_cm runs it, with no thread or socket of its own (see
 * docs/rdma-cm.md). Both are software above the verbs, as ib_cm is, and
 * never used by the NIC model.
 *
 * A CM MAD is 256 bytes (IBTA 13.4.2, 16.7): the 24-byte common header,
 * then 232 bytes of attribute data that hold one message (IBTA 12.6 and
 * 12.11). Every multi-byte field is big-endian on the wire; the structs
 * hold host values and are never laid over bytes. Reserved bits have no
 * struct field: the encoder writes them as zero (as the IBTA asks of
 * senders) and the decoder refuses a MAD in which one is set, so
 * that for every MAD the decoder accepts, encoding what it decoded gives
 * the same 256 bytes back.
 *
 * Errors: every call that can fail returns a negative enum wqe_cm_err and
 * leaves its output untouched; wqe_cm_err_str() names the error, and the
 * codec calls also set an optional `const char **field` to a static string
 * naming the field at fault ("REQ.path_mtu", "MAD.method") or NULL.
 *
 * Threading: every codec function is pure and thread-safe (it touches
 * only the memory it is given). The agent's threading is stated with it.
 */
#ifndef WQE_CM_H
#define WQE_CM_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/types.h"
#include "wqe/verbs.h"
#include "wqe/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Sizes and fixed values.                                                  */

enum {
	WQE_MAD_LEN = 256,    /* a whole MAD, as a UD SEND carries it */
	WQE_MAD_HDR_LEN = 24, /* the common header (IBTA 13.4.2) */
	WQE_CM_DATA_LEN = 232,
	/* Private data of each message (IBTA 12.6.5-12.6.11, 12.11). */
	WQE_CM_REQ_PDATA_LEN = 92,
	WQE_CM_MRA_PDATA_LEN = 222,
	WQE_CM_REJ_PDATA_LEN = 148,
	WQE_CM_REP_PDATA_LEN = 196,
	WQE_CM_RTU_PDATA_LEN = 224,
	WQE_CM_DREQ_PDATA_LEN = 220,
	WQE_CM_DREP_PDATA_LEN = 224,
	WQE_CM_SIDR_REQ_PDATA_LEN = 216,
	WQE_CM_SIDR_REP_PDATA_LEN = 136,
	WQE_CM_ARI_LEN = 72,	   /* REJ Additional Rejection Information */
	WQE_CM_SIDR_INFO_LEN = 72, /* SIDR_REP Additional Information */
};

#define WQE_MAD_BASE_VERSION 1	  /* IBTA 13.4.2 */
#define WQE_MGMT_CLASS_CM    0x07 /* IBTA 13.4.4 */
#define WQE_CM_CLASS_VERSION 2	  /* IBTA 16.7 */
#define WQE_MAD_METHOD_SEND  0x03 /* the only method CM messages use */

/* The GSI: QP1 and its well-known Q_Key (IBTA Vol 1 chapter 13); the
 * default P_Key a CM MAD is sent with. */
#define WQE_GSI_QPN	 1u
#define WQE_GSI_QKEY	 0x80010000u
#define WQE_DEFAULT_PKEY 0xffffu

/* ------------------------------------------------------------------------ */
/* The MAD common header (IBTA 13.4.2), 24 bytes.                           */

/*
 * The 16 reserved bits after the attribute ID have no field: encoded as
 * zero, refused when set.
 */
struct wqe_mad_hdr {
	uint8_t base_version;	 /* 1 */
	uint8_t mgmt_class;	 /* 0x07 for CM */
	uint8_t class_version;	 /* 2 for CM */
	uint8_t method;		 /* 0x03 Send for every CM message */
	uint16_t status;	 /* 0 in a Send (IBTA 13.4.7: responses only) */
	uint16_t class_specific; /* not used by CM: 0 */
	uint64_t tid;		 /* transaction ID */
	uint16_t attr_id;	 /* enum wqe_cm_attr */
	uint32_t attr_mod;	 /* 0, or the ECE attribute modifier (IBA comment 9434) */
};

/*
 * wqe_mad_hdr_encode / wqe_mad_hdr_decode - the common header alone, with
 * no judgement of its values (any class, any method). Encode writes
 * WQE_MAD_HDR_LEN bytes (the reserved 16 bits as zero) and returns that,
 * or 0 if @cap is smaller (nothing written). Decode reads WQE_MAD_HDR_LEN
 * bytes and returns that, or 0 if @len is smaller (*@h untouched); the
 * reserved bits are ignored here (wqe_cm_decode() judges them).
 */
WQE_API size_t wqe_mad_hdr_encode(const struct wqe_mad_hdr *h, uint8_t *buf, size_t cap);
WQE_API size_t wqe_mad_hdr_decode(const uint8_t *buf, size_t len, struct wqe_mad_hdr *h);

/* ------------------------------------------------------------------------ */
/* CM attributes and field values.                                          */

/* Attribute IDs of the CM class (IBTA Vol 1, 12.6 and 16.7). */
enum wqe_cm_attr {
	WQE_CM_ATTR_CLASS_PORT_INFO = 0x0001, /* not supported: refused */
	WQE_CM_ATTR_REQ = 0x0010,
	WQE_CM_ATTR_MRA = 0x0011,
	WQE_CM_ATTR_REJ = 0x0012,
	WQE_CM_ATTR_REP = 0x0013,
	WQE_CM_ATTR_RTU = 0x0014,
	WQE_CM_ATTR_DREQ = 0x0015,
	WQE_CM_ATTR_DREP = 0x0016,
	WQE_CM_ATTR_SIDR_REQ = 0x0017,
	WQE_CM_ATTR_SIDR_REP = 0x0018,
	WQE_CM_ATTR_LAP = 0x0019, /* not supported: refused */
	WQE_CM_ATTR_APR = 0x001a, /* not supported: refused */
};

/* "REQ", "MRA", ... "SIDR_REP", "ClassPortInfo", "LAP", "APR", or "unknown". */
WQE_API const char *wqe_cm_attr_str(uint16_t attr);

/* Bytes of private data a message carries (92 for REQ ...), 0 for an
 * attribute the codec does not carry. */
WQE_API size_t wqe_cm_pdata_len(uint16_t attr);

/* REQ transport service type (IBTA 12.6.5); 3 means "see the extended
 * transport type", whose only defined value is 1, XRC. */
enum wqe_cm_transport {
	WQE_CM_TRANSPORT_RC = 0,
	WQE_CM_TRANSPORT_UC = 1,
	WQE_CM_TRANSPORT_RD = 2,
	WQE_CM_TRANSPORT_EXTENDED = 3,
};
#define WQE_CM_EXT_TRANSPORT_XRC 1

/* MRA "message MRAed" and REJ "message rejected" (IBTA 12.6.6, 12.6.7). */
enum wqe_cm_msg_ref {
	WQE_CM_MSG_REQ = 0,
	WQE_CM_MSG_REP = 1,
	WQE_CM_MSG_OTHER = 2, /* MRA: a LAP; REJ: no message (other) */
};

/* REP "failover accepted" (IBTA 12.6.8). */
enum wqe_cm_failover {
	WQE_CM_FAILOVER_ACCEPTED = 0,
	WQE_CM_FAILOVER_NOT_SUPPORTED = 1,
	WQE_CM_FAILOVER_REJECTED = 2,
};

/* REJ reasons (IBTA 12.6.7.2, Table 109; 35 from IBA comment 9434). */
enum wqe_cm_rej_reason {
	WQE_CM_REJ_NO_QP = 1,
	WQE_CM_REJ_NO_EEC = 2,
	WQE_CM_REJ_NO_RESOURCES = 3,
	WQE_CM_REJ_TIMEOUT = 4,
	WQE_CM_REJ_UNSUPPORTED = 5,
	WQE_CM_REJ_INVALID_COMM_ID = 6,
	WQE_CM_REJ_INVALID_COMM_INSTANCE = 7,
	WQE_CM_REJ_INVALID_SERVICE_ID = 8,
	WQE_CM_REJ_INVALID_TRANSPORT_TYPE = 9,
	WQE_CM_REJ_STALE_CONN = 10,
	WQE_CM_REJ_RDC_NOT_EXIST = 11,
	WQE_CM_REJ_INVALID_GID = 12,
	WQE_CM_REJ_INVALID_LID = 13,
	WQE_CM_REJ_INVALID_SL = 14,
	WQE_CM_REJ_INVALID_TRAFFIC_CLASS = 15,
	WQE_CM_REJ_INVALID_HOP_LIMIT = 16,
	WQE_CM_REJ_INVALID_PACKET_RATE = 17,
	WQE_CM_REJ_INVALID_ALT_GID = 18,
	WQE_CM_REJ_INVALID_ALT_LID = 19,
	WQE_CM_REJ_INVALID_ALT_SL = 20,
	WQE_CM_REJ_INVALID_ALT_TRAFFIC_CLASS = 21,
	WQE_CM_REJ_INVALID_ALT_HOP_LIMIT = 22,
	WQE_CM_REJ_INVALID_ALT_PACKET_RATE = 23,
	WQE_CM_REJ_PORT_CM_REDIRECT = 24,
	WQE_CM_REJ_PORT_REDIRECT = 25,
	WQE_CM_REJ_INVALID_MTU = 26,
	WQE_CM_REJ_INSUFFICIENT_RESP_RESOURCES = 27,
	WQE_CM_REJ_CONSUMER_DEFINED = 28, /* what rdma_reject() sends */
	WQE_CM_REJ_INVALID_RNR_RETRY = 29,
	WQE_CM_REJ_DUPLICATE_LOCAL_COMM_ID = 30,
	WQE_CM_REJ_INVALID_CLASS_VERSION = 31,
	WQE_CM_REJ_INVALID_FLOW_LABEL = 32,
	WQE_CM_REJ_INVALID_ALT_FLOW_LABEL = 33,
	WQE_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED = 35,
};
#define WQE_CM_REJ_REASON_MAX 35

/* "no QP", "consumer defined", ...; "reserved" for 34, "unknown" otherwise. */
WQE_API const char *wqe_cm_rej_reason_str(uint16_t reason);

/* SIDR_REP status (IBTA 12.11.2). */
enum wqe_cm_sidr_status {
	WQE_CM_SIDR_SUCCESS = 0,
	WQE_CM_SIDR_UNSUPPORTED = 1, /* service ID not supported */
	WQE_CM_SIDR_REJECT = 2,
	WQE_CM_SIDR_NO_QP = 3,
	WQE_CM_SIDR_REDIRECT = 4,
	WQE_CM_SIDR_UNSUPPORTED_VERSION = 5,
};
#define WQE_CM_SIDR_STATUS_MAX 5

/* ------------------------------------------------------------------------ */
/* The messages. Field widths on the wire are in the comments; a value     */
/* wider than its field is refused by the encoder (WQE_CM_EWIDTH).          */

/* One path of a REQ (primary or alternate), IBTA 12.6.5. */
struct wqe_cm_path {
	uint16_t local_lid; /* RoCE: 0 or 0xffff (permissive) */
	uint16_t remote_lid;
	union wqe_gid local_gid; /* the requester's GID */
	union wqe_gid remote_gid;
	uint32_t flow_label; /* 20 bits */
	uint8_t packet_rate; /* 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;		   /* 4 bits */
	uint8_t subnet_local;	   /* 1 bit */
	uint8_t local_ack_timeout; /* 5 bits */
};

/* REQ, IBTA 12.6.5 (Table 106). */
struct wqe_cm_req {
	uint32_t local_comm_id;
	uint32_t vendor_id; /* 24 bits, ECE (IBA comment 9434) */
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn; /* 24 bits */
	uint8_t responder_resources;
	uint32_t local_eecn; /* 24 bits */
	uint8_t initiator_depth;
	uint32_t remote_eecn;		    /* 24 bits */
	uint8_t remote_cm_response_timeout; /* 5 bits */
	uint8_t transport_type;		    /* 2 bits, enum wqe_cm_transport */
	uint8_t e2e_flow_control;	    /* 1 bit */
	uint32_t starting_psn;		    /* 24 bits */
	uint8_t local_cm_response_timeout;  /* 5 bits */
	uint8_t retry_count;		    /* 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;	    /* 4 bits, enum wqe_mtu: 1 (256) to 5 (4096) */
	uint8_t rdc_exists;	    /* 1 bit */
	uint8_t rnr_retry_count;    /* 3 bits */
	uint8_t max_cm_retries;	    /* 4 bits */
	uint8_t srq;		    /* 1 bit */
	uint8_t ext_transport_type; /* 3 bits: 0, or 1 (XRC) with transport 3 */
	struct wqe_cm_path primary;
	struct wqe_cm_path alternate;
	uint8_t sap_supported; /* 1 bit */
	uint8_t private_data[WQE_CM_REQ_PDATA_LEN];
};

/* MRA, IBTA 12.6.6 (Table 107). */
struct wqe_cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_mraed;	 /* 2 bits, enum wqe_cm_msg_ref */
	uint8_t service_timeout; /* 5 bits */
	uint8_t private_data[WQE_CM_MRA_PDATA_LEN];
};

/* REJ, IBTA 12.6.7 (Table 108). */
struct wqe_cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_rejected; /* 2 bits, enum wqe_cm_msg_ref */
	uint8_t ari_len;      /* 7 bits, at most WQE_CM_ARI_LEN */
	uint16_t reason;      /* enum wqe_cm_rej_reason */
	uint8_t ari[WQE_CM_ARI_LEN];
	uint8_t private_data[WQE_CM_REJ_PDATA_LEN];
};

/* REP, IBTA 12.6.8 (Table 110). */
struct wqe_cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;    /* 24 bits */
	uint32_t vendor_id;    /* 24 bits, ECE: bytes 15, 19 and 23 */
	uint32_t local_eecn;   /* 24 bits */
	uint32_t starting_psn; /* 24 bits */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;  /* 5 bits */
	uint8_t failover_accepted; /* 2 bits, enum wqe_cm_failover */
	uint8_t e2e_flow_control;  /* 1 bit */
	uint8_t rnr_retry_count;   /* 3 bits */
	uint8_t srq;		   /* 1 bit */
	uint64_t local_ca_guid;
	uint8_t private_data[WQE_CM_REP_PDATA_LEN];
};

/* RTU, IBTA 12.6.9 (Table 111). */
struct wqe_cm_rtu {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[WQE_CM_RTU_PDATA_LEN];
};

/* DREQ, IBTA 12.6.10 (Table 112). */
struct wqe_cm_dreq {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn; /* 24 bits: remote QPN/EECN */
	uint8_t private_data[WQE_CM_DREQ_PDATA_LEN];
};

/* DREP, IBTA 12.6.11 (Table 113). */
struct wqe_cm_drep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[WQE_CM_DREP_PDATA_LEN];
};

/* SIDR_REQ, IBTA 12.11.1 (Table 119). */
struct wqe_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t private_data[WQE_CM_SIDR_REQ_PDATA_LEN];
};

/* SIDR_REP, IBTA 12.11.2 (Table 120). */
struct wqe_cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;	    /* enum wqe_cm_sidr_status */
	uint8_t info_len;   /* at most WQE_CM_SIDR_INFO_LEN */
	uint32_t vendor_id; /* 24 bits, ECE: bytes 6-7 and 11 */
	uint32_t qpn;	    /* 24 bits */
	uint64_t service_id;
	uint32_t qkey;
	uint8_t info[WQE_CM_SIDR_INFO_LEN]; /* ClassPortInfo on a redirect */
	uint8_t private_data[WQE_CM_SIDR_REP_PDATA_LEN];
};

/* A whole CM MAD: the header and the message hdr.attr_id selects. */
struct wqe_cm_msg {
	struct wqe_mad_hdr hdr;
	union {
		struct wqe_cm_req req;
		struct wqe_cm_mra mra;
		struct wqe_cm_rej rej;
		struct wqe_cm_rep rep;
		struct wqe_cm_rtu rtu;
		struct wqe_cm_dreq dreq;
		struct wqe_cm_drep drep;
		struct wqe_cm_sidr_req sidr_req;
		struct wqe_cm_sidr_rep sidr_rep;
	} u;
};

/* ------------------------------------------------------------------------ */
/* The codec.                                                               */

/* Errors, all negative. */
enum wqe_cm_err {
	WQE_CM_OK = 0,
	WQE_CM_ELEN = -1,	    /* not exactly WQE_MAD_LEN bytes */
	WQE_CM_EBASE_VERSION = -2,  /* base version not 1 */
	WQE_CM_ECLASS = -3,	    /* management class not CM (0x07) */
	WQE_CM_ECLASS_VERSION = -4, /* class version not 2 */
	WQE_CM_EATTR = -5,	    /* not a CM attribute */
	WQE_CM_EUNSUPPORTED = -6,   /* ClassPortInfo, LAP, APR: CM, not carried */
	WQE_CM_EMETHOD = -7,	    /* method not legal for the attribute (Send) */
	WQE_CM_ESTATUS = -8,	    /* nonzero status in a Send */
	WQE_CM_ERESERVED = -9,	    /* a reserved field or bit is not zero */
	WQE_CM_ERANGE = -10,	    /* a field holds a value the spec does not define */
	WQE_CM_EWIDTH = -11,	    /* encode: a value wider than its wire field */
	WQE_CM_ENOSPC = -12,	    /* encode: output buffer too small */
	WQE_CM_EINVAL = -13,	    /* a NULL pointer, or a bad argument */
};

/* A static string for a wqe_cm_err value ("unknown error" otherwise). */
WQE_API const char *wqe_cm_err_str(int err);

/*
 * wqe_cm_msg_init - zero *@m and fill its header for a CM message:
 * base version 1, class 0x07, class version 2, method Send, status 0,
 * transaction ID @tid, attribute @attr, modifier 0.
 */
WQE_API void wqe_cm_msg_init(struct wqe_cm_msg *m, enum wqe_cm_attr attr, uint64_t tid);

/*
 * wqe_cm_encode - write the 256-byte MAD for *@m.
 * @m:     the header and the message its attr_id selects (the other union
 *         members are not read).
 * @buf:   at least WQE_MAD_LEN bytes (@cap).
 * @field: if not NULL, set to the field at fault on error, else NULL.
 * Validates everything first, with the decoder's rules (header values,
 * method, status, ranges) and each value against its wire width; nothing
 * is written unless all of it is good, so whatever this encodes
 * wqe_cm_decode() accepts.
 * Returns WQE_MAD_LEN, or WQE_CM_EINVAL (NULL), WQE_CM_ENOSPC, or one of
 * the decoder's errors for the same fault, or WQE_CM_EWIDTH.
 */
WQE_API int wqe_cm_encode(const struct wqe_cm_msg *m, uint8_t *buf, size_t cap, const char **field);

/*
 * wqe_cm_decode - decode and judge a MAD received on QP1.
 * @buf, @len: the MAD (the UD payload, GRH excluded). Nothing at or past
 *             @len is read.
 * @m:         filled on success; untouched on error.
 * @field:     if not NULL, set to the field at fault on error, else NULL.
 * Checks, in this order: the length (exactly WQE_MAD_LEN: WQE_CM_ELEN),
 * base version, class, class version, the attribute (WQE_CM_EATTR, or
 * WQE_CM_EUNSUPPORTED for ClassPortInfo/LAP/APR), the method (Send),
 * status zero, the header's reserved bits and class-specific field
 * (WQE_CM_ERESERVED), every reserved bit of the message (WQE_CM_ERESERVED),
 * then the values the spec fixes (WQE_CM_ERANGE): REQ path MTU 1-5,
 * transport type with extended transport type (0-2 with 0, or 3 with 1),
 * MRA message MRAed and REJ message rejected 0-2, REJ reason 1-35 and
 * reject info length at most 72, REP failover accepted 0-2, SIDR_REP
 * status 0-5 and additional information length at most 72.
 * Returns 0 or a negative enum wqe_cm_err.
 */
WQE_API int wqe_cm_decode(const uint8_t *buf, size_t len, struct wqe_cm_msg *m, const char **field);

/* ------------------------------------------------------------------------ */
/* rdma_cm service IDs and the IP CM private-data header.                   */

/*
 * rdma_cm port spaces (values of librdmacm's enum rdma_port_space). An
 * IP-based service ID (IBTA Annex A11, "RDMA IP CM Service") is
 * 0x0000000001 | protocol byte | 16-bit port, which is ps << 16 | port.
 */
enum wqe_rdma_ps {
	WQE_RDMA_PS_TCP = 0x0106,
	WQE_RDMA_PS_UDP = 0x0111,
	WQE_RDMA_PS_IB = 0x013f,
};
/* The Q_Key rdma_cm gives every UD QP of RDMA_PS_UDP. */
#define WQE_RDMA_UDP_QKEY 0x01234567u

/* The service ID of @port in port space @ps: (uint64_t)ps << 16 | port. */
WQE_API uint64_t wqe_cm_service_id(enum wqe_rdma_ps ps, uint16_t port);

/*
 * wqe_cm_service_id_parse - the port space and port of an IP-based
 * service ID. Returns 0 and sets *@ps and *@port (either may be NULL) if
 * @sid is 0x00000000_01_xx_pppp with xx one of the three port spaces'
 * protocol bytes (0x06, 0x11, 0x3f); WQE_CM_ERANGE otherwise (outputs
 * untouched).
 */
WQE_API int wqe_cm_service_id_parse(uint64_t sid, enum wqe_rdma_ps *ps, uint16_t *port);

/*
 * The header rdma_cm puts before the user's private data in a REQ (and a
 * SIDR_REQ) of an IP port space (IBTA Annex A11.4; the kernel's cma_hdr):
 *   byte 0     version: major 4 bits, minor 4 bits, both 0
 *   byte 1     IP version (4 or 6) in bits 7:4, bits 3:0 reserved
 *   bytes 2-3  the source port (the destination port is in the service ID)
 *   bytes 4-19 source address, bytes 20-35 destination address; an IPv4
 *              address is its 4 bytes at the end of 12 zero bytes.
 * Here addresses are GIDs: an IPv4 address is ::ffff:a.b.c.d.
 */
enum { WQE_CM_IP_HDR_LEN = 36 };

struct wqe_cm_ip_hdr {
	uint8_t ip_version; /* 4 or 6 */
	uint16_t src_port;
	union wqe_gid src;
	union wqe_gid dst;
};

/*
 * wqe_cm_ip_hdr_encode - write the 36 bytes for *@h to @buf (@cap bytes).
 * Returns WQE_CM_IP_HDR_LEN; WQE_CM_EINVAL (NULL), WQE_CM_ENOSPC, or
 * WQE_CM_ERANGE (IP version not 4 or 6, or version 4 with an address that
 * is not IPv4-mapped). Nothing is written on error.
 */
WQE_API int wqe_cm_ip_hdr_encode(const struct wqe_cm_ip_hdr *h, uint8_t *buf, size_t cap);

/*
 * wqe_cm_ip_hdr_decode - read the header from the start of a REQ's or
 * SIDR_REQ's private data. Returns WQE_CM_IP_HDR_LEN and fills *@h;
 * WQE_CM_EINVAL (NULL), WQE_CM_ELEN (@len < 36), WQE_CM_ERANGE (version
 * not 0, IP version not 4 or 6), WQE_CM_ERESERVED (bits 3:0 of byte 1, or
 * an IPv4 address's 12 pad bytes, not zero). *@h is untouched on error.
 */
WQE_API int wqe_cm_ip_hdr_decode(const uint8_t *buf, size_t len, struct wqe_cm_ip_hdr *h);

/* ------------------------------------------------------------------------ */
/* The RoCEv2 frame.                                                        */

/*
 * wqe_cm_frame_build - build the RoCEv2 frame that carries a MAD to the
 * GSI: a UD SEND ONLY with BTH destination QP 1, P_Key 0xffff, DETH Q_Key
 * 0x80010000 and source QP 1, and the 256 bytes of @mad as payload (no
 * pad), ICRC computed. Over IPv6 the UDP checksum is always computed
 * (a zero one is not allowed there); over IPv4 it follows @addr->opts.
 * @addr: the addressing (dmac, smac, VLAN, ipver, src, dst, tos, ttl,
 *        flow_label, ip_id, ip_flags, sport, dport, opts) and bth.psn; its
 *        other transport fields are ignored.
 * @mad:  WQE_MAD_LEN bytes (normally from wqe_cm_encode()).
 * Returns as wqe_pkt_build(); *@out_len gets the frame length.
 */
WQE_API int wqe_cm_frame_build(const struct wqe_pkt *addr, const uint8_t *mad, uint8_t *out,
			       size_t cap, size_t *out_len);

/* ------------------------------------------------------------------------ */
/* The CM agent: communication IDs and their state machine.                 */
/*
 * A transport-agnostic Communication Manager, as the kernel's ib_cm is:
 * it keeps communication IDs in the states of IBTA Vol 1 chapter 12 (the
 * state diagrams of 12.9), builds and judges the messages of 12.6 and
 * 12.11 with the codec above, retransmits what goes unanswered in the CM
 * response timeout (12.7.31), and holds a closed connection's local
 * communication ID in TIMEWAIT before it can be reused.
 *
 * The agent owns no thread, socket, QP or timer. Its caller:
 *   - gives it three callbacks at creation: send a 256-byte MAD to an
 *     address (the peer's GID, QPN 1 and the P_Key: the caller posts it
 *     as a UD SEND on its GSI QP, Q_Key 0x80010000), report an event, and
 *     read a monotonic clock in nanoseconds;
 *   - feeds it every MAD its GSI QP receives, with the source address
 *     (wqe_cm_agent_receive());
 *   - calls wqe_cm_agent_tick() once wqe_cm_agent_next_deadline() has come.
 *
 * Errors: calls that return int give 0 or a positive errno value (as
 * wqe_modify_qp() does): EINVAL for a NULL or out-of-range argument or a
 * call the ID's state does not allow (as ib_cm's -EINVAL), ENOSPC when
 * the agent's ID table is full (or its random callback gave 64 IDs in use
 * in a row), ENOMEM; calls that return a pointer give
 * NULL and set errno to one of those.
 *
 * Threading: an agent is not thread-safe. One thread at a time may call
 * into an agent and its IDs (wqe_cm_agent_receive(), _tick() and every
 * consumer call); different agents are independent. The callbacks run
 * on the calling thread, inside the call that caused them. The event
 * callback may call any wqe_cm_* function on the agent (accept, reject,
 * wqe_cm_destroy_id() of the event's ID...) except wqe_cm_agent_destroy();
 * the send and clock callbacks must not call into the agent.
 */

struct wqe_cm_agent;
struct wqe_cm_id;

/* Where a MAD goes to or came from: the GID of the peer's port, its QPN
 * (1, the GSI, for every CM MAD) and the P_Key the MAD travels with. */
struct wqe_cm_addr {
	union wqe_gid gid;
	uint32_t qpn;
	uint16_t pkey;
};

/* The states of a communication ID (IBTA Vol 1 12.9; the kernel's enum
 * ib_cm_state). LISTEN is a listening ID's; SIDR_REQ_SENT/RCVD are the
 * SIDR exchange's (12.11). */
enum wqe_cm_state {
	WQE_CM_IDLE,
	WQE_CM_LISTEN,
	WQE_CM_REQ_SENT,
	WQE_CM_REQ_RCVD,
	WQE_CM_MRA_REQ_SENT,
	WQE_CM_MRA_REQ_RCVD,
	WQE_CM_REP_SENT,
	WQE_CM_REP_RCVD,
	WQE_CM_MRA_REP_SENT,
	WQE_CM_MRA_REP_RCVD,
	WQE_CM_ESTABLISHED,
	WQE_CM_DREQ_SENT,
	WQE_CM_DREQ_RCVD,
	WQE_CM_TIMEWAIT,
	WQE_CM_SIDR_REQ_SENT,
	WQE_CM_SIDR_REQ_RCVD,
};
#define WQE_CM_STATE_COUNT 16
/* "IDLE", "REQ_SENT", ...; "unknown" otherwise. */
WQE_API const char *wqe_cm_state_str(enum wqe_cm_state s);

/* Events (the kernel's enum ib_cm_event_type, less LAP/APR). */
enum wqe_cm_event_type {
	WQE_CM_EV_REQ_RECEIVED,	     /* passive: a new ID in REQ_RCVD; ev.msg the REQ */
	WQE_CM_EV_REQ_ERROR,	     /* active: no REP within the retries (REJ Timeout sent) */
	WQE_CM_EV_REP_RECEIVED,	     /* active: ID in REP_RCVD; ev.msg the REP */
	WQE_CM_EV_REP_ERROR,	     /* passive: no RTU within the retries (REJ Timeout sent) */
	WQE_CM_EV_RTU_RECEIVED,	     /* passive: ESTABLISHED; ev.msg the RTU */
	WQE_CM_EV_MRA_RECEIVED,	     /* the peer asked for more time; ev.msg the MRA */
	WQE_CM_EV_REJ_RECEIVED,	     /* ev.msg the REJ, ev.reason its reason; the ID in IDLE
				      * before a REP (TIMEWAIT for Stale Connection),
				      * in TIMEWAIT from REP_RCVD on */
	WQE_CM_EV_DREQ_RECEIVED,     /* ID in DREQ_RCVD; answer with wqe_cm_drep() */
	WQE_CM_EV_DREQ_ERROR,	     /* no DREP within the retries: ID in TIMEWAIT */
	WQE_CM_EV_DREP_RECEIVED,     /* ID in TIMEWAIT (from DREQ_SENT, or DREQ_RCVD) */
	WQE_CM_EV_TIMEWAIT_EXIT,     /* ID back in IDLE (destroy it) */
	WQE_CM_EV_SIDR_REQ_RECEIVED, /* passive: a new ID in SIDR_REQ_RCVD */
	WQE_CM_EV_SIDR_REQ_ERROR,    /* active: no SIDR_REP within the retries */
	WQE_CM_EV_SIDR_REP_RECEIVED, /* active: ev.msg the SIDR_REP, ID in IDLE */
};
/* "REQ_RECEIVED", ...; "unknown" otherwise. */
WQE_API const char *wqe_cm_event_str(enum wqe_cm_event_type t);

/*
 * One event. Valid only during the callback (copy what is kept).
 * @id:         the ID it is about. REQ_RECEIVED and SIDR_REQ_RECEIVED
 *              give a new ID the consumer now owns (wqe_cm_destroy_id()).
 * @listen_id:  for those two, the listening ID that matched, else NULL.
 * @context:    the ID's context (for a new ID, the listener's).
 * @msg:        the message that caused it, decoded, or NULL (timeouts,
 *              TIMEWAIT exit).
 * @reason:     REJ_RECEIVED: the REJ's reason; SIDR_REP_RECEIVED: its
 *              status; the *_ERROR events: WQE_CM_REJ_TIMEOUT.
 * @from:       the address the message came from (zeroed if none).
 */
struct wqe_cm_event {
	enum wqe_cm_event_type type;
	struct wqe_cm_id *id;
	struct wqe_cm_id *listen_id;
	void *context;
	const struct wqe_cm_msg *msg;
	uint16_t reason;
	struct wqe_cm_addr from;
};

/* Why a received MAD was refused (wqe_cm_agent_receive() returns it and
 * counts it in wqe_cm_agent_stats.rx_refused[]). A refusal changes no
 * state; what it answers is in docs/rdma-cm.md. */
enum wqe_cm_refusal {
	WQE_CM_RX_OK = 0,
	WQE_CM_RX_MALFORMED,	 /* wqe_cm_decode() refused it: dropped */
	WQE_CM_RX_UNKNOWN_ID,	 /* no ID of ours is named (REP: REJ Invalid Comm ID;
				  * DREQ: DREP; others dropped) */
	WQE_CM_RX_BAD_STATE,	 /* the ID is in a state that does not take it: dropped */
	WQE_CM_RX_DUPLICATE,	 /* a replay: answered as ib_cm does (the MRA, RTU or
				  * DREP again; REJ Stale Connection for a REQ in
				  * TIMEWAIT) or dropped */
	WQE_CM_RX_STALE,	 /* REQ for a QP of the peer still connected (not
				  * one in TIMEWAIT, which ib_cm's
				  * cm_enter_timewait() forgets): REJ Stale Connection */
	WQE_CM_RX_NO_LISTENER,	 /* REQ: REJ Invalid Service ID; SIDR_REQ: SIDR_REP Unsupported */
	WQE_CM_RX_NO_RESOURCES,	 /* REQ flood: the listener's backlog, the agent's
				  * bound on REQ_RCVD IDs or its ID table is full:
				  * REJ No Resources (SIDR_REP Reject) */
	WQE_CM_RX_UNSUPPORTED,	 /* REQ of a transport other than RC/UC: REJ Invalid
				  * Transport Type */
	WQE_CM_RX_MISMATCH,	 /* names our ID but not the peer's ID or QPN it holds: dropped */
};
#define WQE_CM_RX_REFUSAL_COUNT 10
/* "ok", "malformed", "unknown ID", ...; "unknown" otherwise. */
WQE_API const char *wqe_cm_refusal_str(enum wqe_cm_refusal r);

/* Counters, from the agent's creation. Per-attribute arrays are indexed
 * by attribute - WQE_CM_ATTR_REQ (0 REQ ... 8 SIDR_REP). */
struct wqe_cm_agent_stats {
	uint64_t rx[9];			/* MADs accepted */
	uint64_t tx[9];			/* MADs handed to the send callback */
	uint64_t rx_refused[WQE_CM_RX_REFUSAL_COUNT]; /* [0] unused */
	uint64_t retransmits;		/* REQ, REP, DREQ, SIDR_REQ resent on timeout */
	uint64_t timeouts;		/* exchanges that ran out of retries */
	uint64_t send_errors;		/* the send callback returned nonzero */
	uint32_t ids;			/* IDs in use now (listeners included) */
	uint32_t req_rcvd;		/* of them in REQ_RCVD or MRA_REQ_SENT */
	uint32_t timewait;		/* of them in TIMEWAIT */
};

/* The caller's side of an agent. */
struct wqe_cm_agent_ops {
	/* Send the 256 bytes of @mad to @to (QPN 1). Return 0 if it was
	 * posted, nonzero otherwise (counted; the MAD counts as lost, and a
	 * retried one is resent on its timer). Required. */
	int (*send)(void *ctx, const struct wqe_cm_addr *to, const uint8_t *mad);
	/* Report @ev. Required. */
	void (*event)(void *ctx, const struct wqe_cm_event *ev);
	/* A monotonic clock in ns. Required. */
	uint64_t (*now_ns)(void *ctx);
	/* 32 random bits for local communication IDs and transaction IDs;
	 * NULL reads the kernel's getrandom(). Tests give a seeded one. */
	uint32_t (*random)(void *ctx);
};

/*
 * Creation attributes. Zero fields take the defaults.
 * @local_gid:   our port's GID (the REQ's primary local GID).
 * @ca_guid:     the CA GUID put in REQ, REP and a Timeout REJ's ARI
 *               (0 allowed: RoCE has no GUIDs to speak of).
 * @max_ids:     the ID table's size, listeners included (default 1024,
 *               at most 65536); allocated once, at creation.
 * @max_req_rcvd: IDs in REQ_RCVD/MRA_REQ_SENT across all listeners
 *               (default max_ids / 2); a REQ past it is REJ No Resources.
 */
struct wqe_cm_agent_attr {
	union wqe_gid local_gid;
	uint64_t ca_guid;
	uint32_t max_ids;
	uint32_t max_req_rcvd;
};

/* A new agent calling @ops with @ctx, or NULL (errno EINVAL: a required
 * callback missing or max_ids over 65536, ENOMEM). */
WQE_API struct wqe_cm_agent *wqe_cm_agent_create(const struct wqe_cm_agent_attr *attr,
						 const struct wqe_cm_agent_ops *ops, void *ctx);
/* Frees the agent and every ID, sending nothing and reporting nothing
 * (the peers time out). NULL is a no-op. Not from inside a callback. */
WQE_API void wqe_cm_agent_destroy(struct wqe_cm_agent *agent);

/*
 * wqe_cm_agent_receive - feed a MAD received on the GSI QP.
 * @from: its source (the GRH's source GID, the completion's source QP, the
 *        P_Key); replies go there.
 * @mad, @len: the MAD (the UD payload after the 40-byte GRH).
 * Runs the state machine: sends what the message calls for and reports
 * events. Returns WQE_CM_RX_OK (0), or the enum wqe_cm_refusal that
 * refused it (counted; no ID's state changed, though a reply may have been
 * sent, as the refusal's comment says); EINVAL as a negative -EINVAL for
 * NULL arguments.
 */
WQE_API int wqe_cm_agent_receive(struct wqe_cm_agent *agent, const struct wqe_cm_addr *from,
				 const uint8_t *mad, size_t len);

/* The earliest time (the clock's ns) at which wqe_cm_agent_tick() has
 * work: a retransmission, a timeout, a TIMEWAIT ending; UINT64_MAX if
 * none. */
WQE_API uint64_t wqe_cm_agent_next_deadline(const struct wqe_cm_agent *agent);
/* Runs every timer due at the clock's now: resends, timeouts (events),
 * TIMEWAIT exits. Returns how many timers fired. */
WQE_API int wqe_cm_agent_tick(struct wqe_cm_agent *agent);
/* Copies the counters to *@s. */
WQE_API void wqe_cm_agent_stats(const struct wqe_cm_agent *agent, struct wqe_cm_agent_stats *s);

/* The state of @id; its local communication ID (random, nonzero, unique
 * among the agent's IDs, TIMEWAIT ones included); the peer's (0 until
 * known); its context, and a setter for it. */
WQE_API enum wqe_cm_state wqe_cm_id_state(const struct wqe_cm_id *id);
WQE_API uint32_t wqe_cm_id_local_id(const struct wqe_cm_id *id);
WQE_API uint32_t wqe_cm_id_remote_id(const struct wqe_cm_id *id);
WQE_API void *wqe_cm_id_context(const struct wqe_cm_id *id);
WQE_API void wqe_cm_id_set_context(struct wqe_cm_id *id, void *context);

/*
 * wqe_cm_destroy_id - the consumer is done with @id (one it got from
 * wqe_cm_listen(), wqe_cm_connect(), wqe_cm_sidr_req() or a *_RECEIVED
 * event). No event is reported for it afterwards. As ib_cm's
 * cm_destroy_id(): REQ_SENT/MRA_REQ_RCVD send REJ Timeout;
 * REQ_RCVD/MRA_REQ_SENT/REP_RCVD/MRA_REP_SENT/REP_SENT/MRA_REP_RCVD send
 * REJ Consumer Defined (REP_SENT/MRA_REP_RCVD then wait out TIMEWAIT);
 * SIDR_REQ_RCVD a SIDR_REP Reject; ESTABLISHED sends a DREQ (once) and
 * DREQ_RCVD a DREP; the ID then waits out TIMEWAIT inside the agent (its local ID
 * stays reserved) and is freed. Returns 0 or EINVAL (NULL).
 */
WQE_API int wqe_cm_destroy_id(struct wqe_cm_id *id);

/*
 * wqe_cm_listen - a listening ID for REQs and SIDR_REQs of @service_id.
 * @backlog: at most this many of its passive IDs in REQ_RCVD or
 *           MRA_REQ_SENT at once (0: the agent's max_req_rcvd).
 * Returns the ID (state LISTEN), or NULL: errno EINVAL (@service_id
 * already listened on), ENOSPC (table full).
 */
WQE_API struct wqe_cm_id *wqe_cm_listen(struct wqe_cm_agent *agent, uint64_t service_id,
					uint32_t backlog, void *context);

/*
 * What the active side asks in its REQ (IBTA 12.6.5).
 * @peer: where the REQ goes (the peer's GID; qpn ignored, always 1; pkey
 *     also the REQ's, 0 meaning 0xffff).
 * @local_qpn: our QP (2 to 0xffffff); @starting_psn 24 bits.
 * @path_mtu: 1 (256) to 5 (4096); @flow_label 20 bits; @sl 0-15.
 * @transport: WQE_CM_TRANSPORT_RC or _UC.
 * @packet_life_time: 0-30, the path's (4.096 us x 2^t); the REQ's local
 *     ACK timeout is this + 1 (2 for 0: ib_cm's cm_ack_timeout() with no
 *     CA ACK delay); once the REP is in, the QP's RTS timeout and TIMEWAIT
 *     are that rule applied to the REP's target ACK delay.
 * @remote_cm_response_timeout, @local_cm_response_timeout: 0-31 (4.096 us
 *     x 2^t): how long the peer may take to answer us, and we it.
 * @max_cm_retries: 0-15 resends of REQ (and of this ID's DREQ).
 * @retry_count, @rnr_retry_count: 0-7, for the QPs' RTS.
 * @min_rnr_timer: 0-31, our QP's RTR value (not on the wire).
 * @responder_resources, @initiator_depth: RDMA READ/atomic depth we serve
 *     and we issue.
 * @e2e_flow_control: 0 or 1, the REQ's end-to-end flow control bit (what
 *     rdma_cm's conn_param.flow_control asks).
 * @manual_rtu: 0 sends the RTU by itself once the REP_RECEIVED event's
 *     callback returns with the ID still in REP_RCVD (what rdma_cm does
 *     right after moving its QP to RTS; move it inside the callback); 1
 *     leaves it to wqe_cm_rtu() (ib_cm's ib_send_cm_rtu()).
 */
struct wqe_cm_conn_param {
	struct wqe_cm_addr peer;
	uint64_t service_id;
	uint8_t transport;
	uint32_t local_qpn;
	uint32_t starting_psn;
	uint32_t qkey;
	enum wqe_mtu path_mtu;
	union wqe_gid local_gid; /* all zero: the agent's */
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint32_t flow_label;
	uint8_t sl;
	uint8_t packet_life_time;
	uint8_t remote_cm_response_timeout;
	uint8_t local_cm_response_timeout;
	uint8_t max_cm_retries;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t min_rnr_timer;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t srq;
	uint8_t e2e_flow_control;
	uint8_t manual_rtu;
	const void *private_data; /* up to WQE_CM_REQ_PDATA_LEN bytes */
	size_t private_data_len;
};

/* wqe_cm_connect - a new active ID that sends a REQ built from @p and
 * waits in REQ_SENT (the consumer may now take its QP to INIT). NULL on
 * error: EINVAL (NULL, a field out of range, a transport other than RC or
 * UC, private data over 92 bytes), ENOSPC (the ID table is full). */
WQE_API struct wqe_cm_id *wqe_cm_connect(struct wqe_cm_agent *agent,
					 const struct wqe_cm_conn_param *p, void *context);

/* What the passive side answers in its REP (IBTA 12.6.8). */
struct wqe_cm_accept_param {
	uint32_t local_qpn;
	uint32_t starting_psn;
	uint32_t qkey;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;
	uint8_t rnr_retry_count; /* the RNR retries the active's QP is to make */
	uint8_t min_rnr_timer;	 /* our QP's RTR value (not on the wire) */
	uint8_t srq;
	uint8_t e2e_flow_control; /* 0 or 1, the REP's end-to-end flow control bit */
	const void *private_data; /* up to WQE_CM_REP_PDATA_LEN bytes */
	size_t private_data_len;
};

/* wqe_cm_accept - send a REP for @id (REQ_RCVD or MRA_REQ_SENT) and wait
 * for the RTU in REP_SENT. 0 or EINVAL (state, range, private data). */
WQE_API int wqe_cm_accept(struct wqe_cm_id *id, const struct wqe_cm_accept_param *p);

/* wqe_cm_reject - send a REJ with @reason (1-35), @ari_len bytes of ARI
 * (at most 72) and up to 148 bytes of private data, for @id in REQ_RCVD,
 * MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT (the message rejected: REQ or REP),
 * REQ_SENT or MRA_REQ_RCVD (then IDLE), REP_SENT or MRA_REP_RCVD (then
 * TIMEWAIT: our REP may have made the connection), as ib_cm's
 * ib_send_cm_rej(). 0 or EINVAL. */
WQE_API int wqe_cm_reject(struct wqe_cm_id *id, uint16_t reason, const void *ari, size_t ari_len,
			  const void *private_data, size_t private_data_len);

/* wqe_cm_mra - send an MRA with @service_timeout (0-31: 4.096 us x 2^t
 * more) for @id in REQ_RCVD (then MRA_REQ_SENT) or REP_RCVD (then
 * MRA_REP_SENT); resent for each duplicate of the message it covers.
 * Up to 222 bytes of private data. 0 or EINVAL. */
WQE_API int wqe_cm_mra(struct wqe_cm_id *id, uint8_t service_timeout, const void *private_data,
		       size_t private_data_len);

/* wqe_cm_rtu - send the RTU for @id in REP_RCVD or MRA_REP_SENT (up to
 * 224 bytes of private data): ESTABLISHED. 0 or EINVAL. */
WQE_API int wqe_cm_rtu(struct wqe_cm_id *id, const void *private_data, size_t private_data_len);

/* wqe_cm_established - the passive side's QP received its first packet
 * (WQE_EVENT_COMM_EST) before the RTU: @id in REP_SENT or MRA_REP_RCVD
 * goes to ESTABLISHED without one (ib_cm_notify(IB_EVENT_COMM_EST)).
 * 0 or EINVAL. */
WQE_API int wqe_cm_established(struct wqe_cm_id *id);

/* wqe_cm_disconnect - from ESTABLISHED, send a DREQ (up to 220 bytes of
 * private data) and wait in DREQ_SENT; from DREQ_RCVD, send the DREP
 * instead (as rdma_disconnect() does). 0 or EINVAL. */
WQE_API int wqe_cm_disconnect(struct wqe_cm_id *id, const void *private_data,
			      size_t private_data_len);

/* wqe_cm_drep - answer a DREQ: @id in DREQ_RCVD sends a DREP (up to 224
 * bytes of private data) and enters TIMEWAIT. 0 or EINVAL. */
WQE_API int wqe_cm_drep(struct wqe_cm_id *id, const void *private_data, size_t private_data_len);

/* What a SIDR_REQ asks (IBTA 12.11.1). @timeout: 0-31 (4.096 us x 2^t)
 * per try, @max_cm_retries resends. */
struct wqe_cm_sidr_param {
	struct wqe_cm_addr peer;
	uint64_t service_id;
	uint8_t timeout;
	uint8_t max_cm_retries;
	const void *private_data; /* up to WQE_CM_SIDR_REQ_PDATA_LEN bytes */
	size_t private_data_len;
};

/* wqe_cm_sidr_req - a new ID that sends a SIDR_REQ (its request ID is
 * the local communication ID) and waits in SIDR_REQ_SENT. NULL: EINVAL,
 * ENOSPC. */
WQE_API struct wqe_cm_id *wqe_cm_sidr_req(struct wqe_cm_agent *agent,
					  const struct wqe_cm_sidr_param *p, void *context);

/* wqe_cm_sidr_rep - answer @id in SIDR_REQ_RCVD: a SIDR_REP with
 * @status (enum wqe_cm_sidr_status), the UD QP's @qpn and @qkey, and up
 * to 136 bytes of private data; the ID goes to IDLE. 0 or EINVAL. */
WQE_API int wqe_cm_sidr_rep(struct wqe_cm_id *id, uint8_t status, uint32_t qpn, uint32_t qkey,
			    const void *private_data, size_t private_data_len);

/*
 * wqe_cm_qp_attr - the QP attributes that take the consumer's QP of @id
 * to @state (INIT, RTR or RTS) from what the exchange agreed, as the
 * kernel's ib_cm_init_qp_attr():
 *   INIT  port 1, P_Key index 0, access REMOTE_WRITE, with REMOTE_READ and
 *         REMOTE_ATOMIC if we serve any responder resources;
 *   RTR   the AV (the peer's GID, our GID index 0, hop limit, traffic
 *         class, flow label, SL of the REQ's primary path; dmac zero: the
 *         caller resolves the peer's MAC), path MTU, the peer's QPN,
 *         our own starting PSN as rq_psn (ib_cm's reading: the starting
 *         PSN a side sends in its REQ or REP is the one its receive queue
 *         expects; on the passive side it exists only once wqe_cm_accept()
 *         sent it, so a consumer that moves to RTR before accepting, as it
 *         should, sets rq_psn to the starting PSN it will accept with, as
 *         ib_cm's consumers and rdma_cm do), max_dest_rd_atomic (our
 *         responder resources, at most 16) and min_rnr_timer (RC); an SL
 *         over 7 is passed on, for wqe_modify_qp() to refuse;
 *   RTS   the peer's starting PSN (sq_psn), and for RC the local ACK timeout,
 *         the REQ's retry count, the peer's RNR retry count and
 *         max_rd_atomic (our initiator depth, at most 16).
 * Fills *@attr (zeroed first) and *@mask (WQE_QP_* bits for
 * wqe_modify_qp()). INIT is allowed once the REQ is sent or received,
 * RTR once the peer's QPN is known (REQ_RCVD on the passive side, REP_RCVD
 * on the active), RTS once the REP is sent or received; ESTABLISHED and
 * the DREQ states allow all three. Returns 0 or EINVAL (another state, a
 * SIDR or listening ID, NULL).
 */
WQE_API int wqe_cm_qp_attr(const struct wqe_cm_id *id, enum wqe_qp_state state,
			   struct wqe_qp_attr *attr, int *mask);

/* The CM response timeout of code @t (0-31) in ns: 4.096 us x 2^t
 * (IBTA 12.7.31). Codes over 31 are taken as 31. */
WQE_API uint64_t wqe_cm_timeout_ns(uint8_t t);

#ifdef __cplusplus
}
#endif

#endif /* WQE_CM_H */
