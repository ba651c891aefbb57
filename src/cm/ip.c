/* SPDX-License-Identifier: MIT */
/*
 * ip.c - rdma_cm's IP-based service IDs and the IP CM header it puts
 * before a REQ's private data (IBTA Vol 1 Annex A11, "RDMA IP CM
 * Service": the service ID, and in A11.4 the private data format).
 */
#include <string.h>

#include "cm/cm_int.h"
#include "common/bytes.h"

/* Annex A11: an IP CM service ID is 0x0000000001 | protocol byte | port. */
#define IP_SID_PREFIX 0x0000000001ull

uint64_t wqe_cm_service_id(enum wqe_rdma_ps ps, uint16_t port)
{
	return (uint64_t)(uint16_t)ps << 16 | port;
}

int wqe_cm_service_id_parse(uint64_t sid, enum wqe_rdma_ps *ps, uint16_t *port)
{
	const enum wqe_rdma_ps p = (enum wqe_rdma_ps)(sid >> 16 & 0xffffu);

	if (sid >> 24 != IP_SID_PREFIX ||
	    (p != WQE_RDMA_PS_TCP && p != WQE_RDMA_PS_UDP && p != WQE_RDMA_PS_IB))
		return WQE_CM_ERANGE;
	if (ps)
		*ps = p;
	if (port)
		*port = (uint16_t)sid;
	return 0;
}

/* Offsets in the IP CM header. */
enum {
	IPH_VERSION = 0, /* major 7:4, minor 3:0 */
	IPH_IPV = 1,	 /* IP version 7:4, reserved 3:0 */
	IPH_SPORT = 2,
	IPH_SRC = 4,
	IPH_DST = 20,
};
_Static_assert(IPH_DST + 16 == WQE_CM_IP_HDR_LEN, "IP CM header is 36 bytes");

static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

static void put_addr(uint8_t *p, const union wqe_gid *g, unsigned ipver)
{
	if (ipver == 4) {
		memset(p, 0, 12);
		memcpy(p + 12, g->raw + 12, 4);
	} else {
		memcpy(p, g->raw, 16);
	}
}

int wqe_cm_ip_hdr_encode(const struct wqe_cm_ip_hdr *h, uint8_t *buf, size_t cap)
{
	if (!h || !buf)
		return WQE_CM_EINVAL;
	if (h->ip_version != 4 && h->ip_version != 6)
		return WQE_CM_ERANGE;
	if (h->ip_version == 4 &&
	    (memcmp(h->src.raw, v4_mapped, 12) != 0 || memcmp(h->dst.raw, v4_mapped, 12) != 0))
		return WQE_CM_ERANGE;
	if (cap < WQE_CM_IP_HDR_LEN)
		return WQE_CM_ENOSPC;
	buf[IPH_VERSION] = 0;
	buf[IPH_IPV] = (uint8_t)(h->ip_version << 4);
	put_be16(buf + IPH_SPORT, h->src_port);
	put_addr(buf + IPH_SRC, &h->src, h->ip_version);
	put_addr(buf + IPH_DST, &h->dst, h->ip_version);
	return WQE_CM_IP_HDR_LEN;
}

static void get_addr(const uint8_t *p, union wqe_gid *g, unsigned ipver)
{
	if (ipver == 4) {
		memcpy(g->raw, v4_mapped, 12);
		memcpy(g->raw + 12, p + 12, 4);
	} else {
		memcpy(g->raw, p, 16);
	}
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

int wqe_cm_ip_hdr_decode(const uint8_t *buf, size_t len, struct wqe_cm_ip_hdr *h)
{
	struct wqe_cm_ip_hdr out;

	if (!buf || !h)
		return WQE_CM_EINVAL;
	if (len < WQE_CM_IP_HDR_LEN)
		return WQE_CM_ELEN;
	memset(&out, 0, sizeof(out));
	/* A11.4: version 0.0 is the only one defined. */
	if (buf[IPH_VERSION] != 0)
		return WQE_CM_ERANGE;
	out.ip_version = (uint8_t)(buf[IPH_IPV] >> 4);
	if (out.ip_version != 4 && out.ip_version != 6)
		return WQE_CM_ERANGE;
	if ((buf[IPH_IPV] & 0x0f) != 0)
		return WQE_CM_ERESERVED;
	if (out.ip_version == 4 && (!all_zero(buf + IPH_SRC, 12) || !all_zero(buf + IPH_DST, 12)))
		return WQE_CM_ERESERVED;
	out.src_port = get_be16(buf + IPH_SPORT);
	get_addr(buf + IPH_SRC, &out.src, out.ip_version);
	get_addr(buf + IPH_DST, &out.dst, out.ip_version);
	*h = out;
	return WQE_CM_IP_HDR_LEN;
}
