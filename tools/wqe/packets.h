/* SPDX-License-Identifier: MIT */
/*
 * packets.h - `wqe encode --packets` (private to the tool): expand encoded
 * WQEs into the RoCEv2 request packets they must produce, with no endpoint.
 * The packets come from the WQE bytes (wqe_decode), not from the request.
 */
#ifndef WQE_CLI_PACKETS_H
#define WQE_CLI_PACKETS_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "wqe/packetize.h"
#include "wqe/types.h"

/* The ring each request is encoded into: the largest WQE fits. */
#define CLI_RING_BLOCKS WQE_MAX_BLOCKS

/* Most payload bytes one request may name for --packets (synthetic memory). */
#define CLI_PKT_MAX_MSG (16u << 20)

/* One request as `wqe encode` encoded it. */
struct cli_encoded {
	uint8_t bytes[CLI_RING_BLOCKS * WQE_BLOCK_SIZE];
	uint32_t nbytes;
	uint32_t lineno;
	char *text; /* the request as wqe_format_send_wr() writes it */
};

/* The path and the capture of --packets; the QP facts come from encode. The
 * options are defined in packets_opt.c, the expansion in packets.c (with
 * the pieces libwqe_dpi shares in expand.c). */
struct cli_pkt_cfg {
	int on;		    /* --packets */
	unsigned int given; /* which options were given (private bits) */
	enum wqe_mtu mtu;
	uint32_t psn;
	uint32_t dqpn;
	uint32_t qkey;
	union wqe_gid sip, dip;
	uint32_t sport;
	uint32_t pkey;
	uint8_t smac[6], dmac[6];
	const char *pcap;
};

/* The defaults: PMTU 1024, PSN 0, dest QP 0x000456, 192.0.2.1 > 192.0.2.2,
 * UDP source port 0xc000, 02:00:00:00:00:01 > 02:00:00:00:00:02, P_Key
 * 0xffff, Q_Key 0. */
void cli_pkt_defaults(struct cli_pkt_cfg *c);

/*
 * cli_pkt_opt - take argv[*@i] if it is one of the --packets options.
 * Returns 1 (taken, *@i advanced past a separate value), 0 (not one of
 * them), or -1 with @msg filled (missing or bad value).
 */
int cli_pkt_opt(int argc, char **argv, int *i, struct cli_pkt_cfg *c, char *msg, size_t cap);

/*
 * cli_pkt_check_cfg - the options together, for a QP of type @t: packet
 * options without --packets, IP families that differ, RC/UC options on UD
 * and the reverse. 0, or -1 with @msg filled.
 */
int cli_pkt_check_cfg(const struct cli_pkt_cfg *c, enum wqe_qp_type t, char *msg, size_t cap);

/*
 * cli_pkt_check_wr - what --packets asks of one request besides the
 * post-time checks: a UD destination of the source's IP family, a UD
 * message within the MTU, a payload within CLI_PKT_MAX_MSG. 0, or -1 with
 * @msg filled and *@key naming the key the problem is about.
 */
int cli_pkt_check_wr(const struct cli_pkt_cfg *c, enum wqe_qp_type t, const struct wqe_send_wr *wr,
		     char *msg, size_t cap, const char **key);

/*
 * cli_packets - print the packets of @n encoded requests (and write them to
 * c->pcap: completely, or not at all), as one QP sends them in turn: PSNs
 * and IPv4 identifications continue from one request to the next.
 * Returns CLI_OK, or CLI_FAIL with a message on stderr (a WQE the decoder
 * or the packetizer refuses, an I/O error).
 */
int cli_packets(const struct cli_pkt_cfg *c, enum wqe_format fmt, const struct wqe_encode_qp *qp,
		const struct cli_encoded *e, size_t n, const char *input);

/*
 * cli_payload_of - the payload pieces of the decoded WQE @d for the
 * packetizer: nothing for READ and atomics, the inline bytes of the WQE,
 * or one piece per SGE of a synthetic memory in which the byte at address
 * A is A & 0xff, allocated into *@mem (free() it; NULL when none).
 * Returns 0, or -1 (a message over CLI_PKT_MAX_MSG, out of memory).
 */
int cli_payload_of(const struct wqe_desc *d, struct wqe_iov iov[WQE_DESC_MAX_SGE], uint32_t *niov,
		   uint8_t **mem);

/* cli_pktz_qp_of - the packetizer's QP: the path of @c, the QP facts of
 * @qp (type, QPN), no traffic class, hop limit or flow label. */
void cli_pktz_qp_of(const struct cli_pkt_cfg *c, const struct wqe_encode_qp *qp,
		    struct wqe_pktz_qp *out);

#endif /* WQE_CLI_PACKETS_H */
