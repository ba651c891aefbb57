/* SPDX-License-Identifier: MIT */
/*
 * capture.h - the engine capture test: one posted request (a case), the
 * packets the IBTA rules say it must become, and the JSON-lines manifest
 * the oracles (tests/wire/roce_scapy.py, tests/wire/tshark_check.py) read.
 *
 * The expectations are derived from the case alone, by rules written out
 * here again (opcode tables, PSN, SE, AckReq, pad, header values), never
 * from what the engine or the packetizer produced.
 */
#ifndef WQE_TEST_CAPTURE_H
#define WQE_TEST_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wqe/types.h"
#include "wqe/verbs.h"

/* Largest message the cases post: 3 x 4096 + 2. */
#define CAP_MAX_MSG (3u * 4096u + 2u)
/* Most packets one case becomes: 3 x PMTU + 2 at any PMTU is 4. */
#define CAP_MAX_PKTS 8u

/* One request posted on a fresh QP, and what the QP and request say. */
struct cap_case {
	uint32_t id;
	enum wqe_qp_type t;
	enum wqe_wr_opcode op;
	enum wqe_mtu mtu; /* RC/UC path MTU; on UD only the sizes follow it */
	uint32_t len;	  /* message bytes (atomics: 8) */
	int inl;	  /* posted with WQE_SEND_INLINE */
	int se;		  /* posted with WQE_SEND_SOLICITED */
	uint32_t psn;	  /* the QP's sq_psn */
	uint32_t destqp;  /* RC/UC dest_qp_num; UD remote_qpn */
	uint32_t srcqp;	  /* the QP's number (UD: DETH SrcQP) */
	uint32_t qkey;	  /* UD: the Q_Key the DETH must carry */
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;	   /* ImmDt read big-endian, or the IETH rkey */
	uint64_t swap_add; /* AtomicETH */
	uint64_t compare;
	const uint8_t *msg; /* the @len message bytes, in order */
};

/* One packet a case must become. */
struct cap_pkt {
	uint8_t opcode;
	uint8_t padcnt;
	uint8_t se;
	uint8_t ackreq;
	uint32_t psn;
	uint32_t off; /* payload: message bytes [off, off + len) */
	uint32_t len;
	unsigned int hdrs; /* enum cap_hdr */
};

enum cap_hdr {
	CAP_DETH = 1u << 0,
	CAP_RETH = 1u << 1,
	CAP_ATOMICETH = 1u << 2,
	CAP_IMMDT = 1u << 3,
	CAP_IETH = 1u << 4,
};

/* The packets @c must become, in order: fills @out, returns how many. */
uint32_t cap_expect(const struct cap_case *c, struct cap_pkt out[CAP_MAX_PKTS]);

/* A short name of the case ("rc write mtu=256 len=257 inline se"). */
const char *cap_case_name(const struct cap_case *c, char *buf, size_t cap);

/*
 * Writes the manifest line of packet @p of @c. @frame, @flen: the frame the
 * engine sent in its place (its ICRC goes in as icrc_hex, which scapy
 * recomputes on its own), or NULL.
 */
void cap_manifest_line(FILE *f, const struct cap_case *c, const struct cap_pkt *p,
		       const uint8_t *frame, size_t flen);

#endif /* WQE_TEST_CAPTURE_H */
