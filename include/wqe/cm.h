/* SPDX-License-Identifier: MIT */
/*
 * wqe/cm.h - the IBTA Communication Management (CM) protocol on the wire:
 * the MAD common header, the CM messages as structs of named fields, a
 * strict encoder and decoder for them, the rdma_cm service IDs and the IP
 * CM private-data header, and the RoCEv2 frame that carries a CM MAD to
 * the General Services Interface QP (QP1).
 *
 * This is the codec only: no QP1, no state machine, no timers (see
 * docs/rdma-cm.md). It is software above the verbs, as the kernel's ib_cm
 * is, and never used by the NIC model.
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
 * Threading: every function is pure and thread-safe (it touches only the
 * memory it is given).
 */
#ifndef WQE_CM_H
#define WQE_CM_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/types.h"
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

#ifdef __cplusplus
}
#endif

#endif /* WQE_CM_H */
