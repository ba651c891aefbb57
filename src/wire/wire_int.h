/* SPDX-License-Identifier: MIT */
/*
 * wire_int.h - what the wire module's files share; never installed. What
 * other modules read frames with too (the opcode table, header lengths,
 * field readers) is in wire/layout.h.
 */
#ifndef WQE_WIRE_INT_H
#define WQE_WIRE_INT_H

#include <stdbool.h>

#include "common/bytes.h"
#include "common/csum.h"
#include "wire/layout.h"
#include "wqe/wire.h"

/* Tests: every ICRC from zlib's crc32_z() (@on), as on a CPU without
 * PCLMULQDQ, or back to the CPU's choice (icrc.c says why there are two). */
void wire_icrc_portable(bool on);

/* Header sizes by bit number (opcode.c). */
extern const uint8_t wire_hdr_sizes[WQE_HDR_COUNT];

/*
 * The header codecs (hdr.c), by header bit: each reads or writes exactly
 * wqe_hdr_size(@h) bytes at @b, which the caller has checked it holds,
 * and returns that size.
 */
size_t wire_put_hdr(uint8_t *b, enum wqe_hdr h, const struct wqe_pkt *p);
size_t wire_get_hdr(const uint8_t *b, enum wqe_hdr h, struct wqe_pkt *p);

/* Every header of @hdrs (a WQE_HDR_* mask) but the BTH, in wire order from
 * @b on: wqe_hdrs_len(@hdrs & ~WQE_HDR_BTH) bytes. */
void wire_put_ext_hdrs(uint8_t *b, uint32_t hdrs, const struct wqe_pkt *p);
void wire_get_ext_hdrs(const uint8_t *b, uint32_t hdrs, struct wqe_pkt *p);

/*
 * Decode the BTH onward from a UDP payload of @len bytes into @out: headers,
 * payload, pad, ICRC value (not its verdict). Returns 0 or a wqe_pkt_err.
 */
int wire_parse_transport(const uint8_t *bth, size_t len, struct wqe_pkt *out);

/*
 * Write the IP and UDP headers of @p for a UDP payload of @udp_payload
 * bytes (BTH through ICRC) at @buf; returns the bytes written (28 or 48).
 * The IPv4 checksum is computed unless WQE_PKT_OPT_RAW_IP_CSUM; the UDP
 * checksum field gets p->udp_csum (build_finish overwrites it if asked).
 * @buf must hold WQE_IPV6_LEN + WQE_UDP_LEN bytes.
 */
size_t wire_put_ip_udp(uint8_t *buf, const struct wqe_pkt *p, uint32_t udp_payload);

/* ICRC from the masked IP+UDP+BTH bytes at @hdrs (@hdr_len of them, their
 * BTH last) continued over @rest (@rest_len bytes, read in place). */
uint32_t wire_icrc_split(const uint8_t *hdrs, size_t hdr_len, int ipver, const uint8_t *rest,
			 size_t rest_len);

/* Internet checksum pieces (RFC 1071), on a 32-bit accumulator. */
uint32_t wire_csum_add(uint32_t sum, const uint8_t *p, size_t len);

/* The UDP checksum of the datagram at @udp (@len bytes, its checksum
 * field read as zero) inside the IP packet at @l3. */
uint16_t wire_udp_csum(const uint8_t *l3, int ipver, const uint8_t *udp, size_t len);

#endif /* WQE_WIRE_INT_H */
