/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_FIXED_NOREPLACE */
#include "fuzz_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void fz_die(const char *fmt, ...)
{
	va_list ap;

	fputs("FUZZ FINDING: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* ------------------------------------------------------------------------ */
/* The arena.                                                               */

static uint8_t pattern(uint8_t seed, size_t i)
{
	return (uint8_t)(seed ^ (uint8_t)(i * 131u + (i >> 8) * 7u));
}

void fz_arena_init(struct fz_arena *a, uintptr_t at, size_t size)
{
	void *p;

	memset(a, 0, sizeof(*a));
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0
#endif
	p = mmap((void *)at, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED || (uintptr_t)p != at)
		fz_die("cannot map the arena at %#lx", (unsigned long)at);
	a->buf = p;
	if (!(a->allow = malloc(size)) || !(a->tmpl = malloc(size)))
		fz_die("out of memory for the arena");
	a->size = size;
}

void fz_arena_reset(struct fz_arena *a, uint8_t seed)
{
	a->seed = seed;
	a->used = 0;
	a->nreg = 0;
	for (size_t i = 0; i < a->size; i++)
		a->tmpl[i] = pattern(seed, i);
	memcpy(a->buf, a->tmpl, a->size);
	memset(a->allow, 0, a->size);
}

void fz_arena_refill(struct fz_arena *a)
{
	size_t n = a->used + FZ_GUARD < a->size ? a->used + FZ_GUARD : a->size;

	memcpy(a->buf, a->tmpl, n);
}

uint8_t *fz_arena_take(struct fz_arena *a, const char *name, size_t len)
{
	size_t off = (a->used + FZ_GUARD + 63u) & ~(size_t)63u;

	if (off + len + FZ_GUARD > a->size || a->nreg >= sizeof(a->reg) / sizeof(a->reg[0]))
		fz_die("arena too small for %s", name);
	a->reg[a->nreg].name = name;
	a->reg[a->nreg].off = off;
	a->reg[a->nreg].len = len;
	a->nreg++;
	a->used = off + len;
	return a->buf + off;
}

void fz_allow(struct fz_arena *a, const void *p, size_t len)
{
	size_t off = (size_t)((const uint8_t *)p - a->buf);

	if ((const uint8_t *)p < a->buf || off > a->size || len > a->size - off)
		fz_die("fz_allow outside the arena");
	memset(a->allow + off, 1, len);
}

void fz_disallow(struct fz_arena *a, const void *p, size_t len)
{
	size_t off = (size_t)((const uint8_t *)p - a->buf);

	if ((const uint8_t *)p < a->buf || off > a->size || len > a->size - off)
		fz_die("fz_disallow outside the arena");
	memset(a->allow + off, 0, len);
}

static const char *where(const struct fz_arena *a, size_t off, size_t *roff)
{
	for (unsigned i = 0; i < a->nreg; i++) {
		if (off >= a->reg[i].off && off < a->reg[i].off + a->reg[i].len) {
			*roff = off - a->reg[i].off;
			return a->reg[i].name;
		}
	}
	*roff = off;
	return "a canary band";
}

void fz_arena_check(const struct fz_arena *a, const char *what)
{
	size_t n = a->used + FZ_GUARD < a->size ? a->used + FZ_GUARD : a->size;

	/* Fast path: runs of bytes that must not change, compared whole. */
	for (size_t i = 0; i < n;) {
		size_t j = i;

		if (a->allow[i]) {
			i++;
			continue;
		}
		while (j < n && !a->allow[j])
			j++;
		if (memcmp(a->buf + i, a->tmpl + i, j - i))
			break;
		i = j;
		if (i == n)
			return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t roff;
		const char *name;

		if (a->allow[i] || a->buf[i] == a->tmpl[i])
			continue;
		name = where(a, i, &roff);
		fz_die("%s: byte %zu of %s changed (0x%02x, was 0x%02x) and was not allowed to",
		       what, roff, name, a->buf[i], a->tmpl[i]);
	}
}

uint64_t fz_clock(void *arg)
{
	return *(const uint64_t *)arg;
}

/* ------------------------------------------------------------------------ */
/* QPs.                                                                     */

int fz_qp_to_rts(struct wqe_qp *qp, enum wqe_qp_type t, const struct fz_conn *c)
{
	struct wqe_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_INIT;
	a.port_num = 1;
	if (t == WQE_QPT_UD) {
		a.qkey = c->qkey;
		err = wqe_modify_qp(qp, &a,
				    WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_QKEY);
	} else {
		a.qp_access_flags = c->access;
		err = wqe_modify_qp(
		    qp, &a, WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_ACCESS_FLAGS);
	}
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTR;
	if (t == WQE_QPT_UD) {
		err = wqe_modify_qp(qp, &a, WQE_QP_STATE);
	} else {
		int mask =
		    WQE_QP_STATE | WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN;

		a.path_mtu = c->mtu;
		a.dest_qp_num = c->dest_qpn;
		a.rq_psn = c->rq_psn;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.dgid = c->dgid;
		a.ah_attr.grh.hop_limit = 64;
		memcpy(a.ah_attr.dmac, c->dmac, 6);
		if (t == WQE_QPT_RC) {
			a.max_dest_rd_atomic = c->max_dest_rd_atomic;
			a.min_rnr_timer = c->min_rnr_timer;
			mask |= WQE_QP_MAX_DEST_RD_ATOMIC | WQE_QP_MIN_RNR_TIMER;
		}
		err = wqe_modify_qp(qp, &a, mask);
	}
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTS;
	a.sq_psn = c->sq_psn;
	if (t == WQE_QPT_RC) {
		a.timeout = c->timeout;
		a.retry_cnt = c->retry_cnt;
		a.rnr_retry = c->rnr_retry;
		a.max_rd_atomic = c->max_rd_atomic;
		return wqe_modify_qp(qp, &a,
				     WQE_QP_STATE | WQE_QP_SQ_PSN | WQE_QP_TIMEOUT |
					 WQE_QP_RETRY_CNT | WQE_QP_RNR_RETRY |
					 WQE_QP_MAX_QP_RD_ATOMIC);
	}
	return wqe_modify_qp(qp, &a, WQE_QP_STATE | WQE_QP_SQ_PSN);
}

/* ------------------------------------------------------------------------ */
/* Frames.                                                                  */

static void be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t ip4_csum(const uint8_t *h)
{
	uint32_t s = 0;

	for (unsigned i = 0; i < WQE_IPV4_LEN; i += 2)
		s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

size_t fz_wrap(const struct fz_addr *a, const uint8_t *udp, size_t len, uint8_t *out, size_t cap)
{
	size_t l3 = WQE_ETH_LEN, iplen = a->ipver == 6 ? WQE_IPV6_LEN : WQE_IPV4_LEN;
	size_t l4 = l3 + iplen, total = l4 + WQE_UDP_LEN + len + WQE_ICRC_LEN;
	size_t ulen = WQE_UDP_LEN + len + WQE_ICRC_LEN;
	uint8_t *ip = out + l3;
	uint32_t icrc;

	if (total > cap || iplen + ulen > 65535)
		return 0;
	memcpy(out, a->dmac, 6);
	memcpy(out + 6, a->smac, 6);
	be16(out + 12, a->ipver == 6 ? 0x86dd : 0x0800);
	if (a->ipver == 6) {
		ip[0] = 0x60;
		ip[1] = ip[2] = ip[3] = 0;
		be16(ip + 4, (uint32_t)ulen);
		ip[6] = 17;
		ip[7] = 64;
		memcpy(ip + 8, a->src.raw, 16);
		memcpy(ip + 24, a->dst.raw, 16);
	} else {
		ip[0] = 0x45;
		ip[1] = 0;
		be16(ip + 2, (uint32_t)(iplen + ulen));
		be16(ip + 4, a->ip_id);
		be16(ip + 6, 0x4000);
		ip[8] = 64;
		ip[9] = 17;
		be16(ip + 10, 0);
		memcpy(ip + 12, a->src.raw + 12, 4);
		memcpy(ip + 16, a->dst.raw + 12, 4);
		be16(ip + 10, ip4_csum(ip));
	}
	be16(out + l4, a->sport);
	be16(out + l4 + 2, WQE_ROCEV2_PORT);
	be16(out + l4 + 4, (uint32_t)ulen);
	be16(out + l4 + 6, 0);
	memcpy(out + l4 + WQE_UDP_LEN, udp, len);
	icrc = wqe_icrc(ip, iplen + WQE_UDP_LEN + len, a->ipver);
	for (int i = 0; i < 4; i++)
		out[total - 4 + (size_t)i] = (uint8_t)(icrc >> (8 * i));
	return total;
}

void fz_check_sink(struct wqe_link *l, const char *who)
{
	size_t n = wqe_link_sink_count(l);

	for (size_t i = 0; i < n; i++) {
		const uint8_t *f;
		size_t len;
		struct wqe_pkt p;
		int err;

		if (wqe_link_sink_frame(l, i, &f, &len))
			fz_die("%s: sink frame %zu unreadable", who, i);
		err = wqe_pkt_parse(f, len, &p);
		if (err)
			fz_die("%s: frame %zu sent by the NIC does not parse: %s", who, i,
			       wqe_pkt_err_str(err));
		if (!p.icrc_ok || !p.ip_csum_ok || !p.udp_csum_ok)
			fz_die("%s: frame %zu sent by the NIC has a bad ICRC or checksum", who, i);
	}
}

/* ------------------------------------------------------------------------ */
/* Input cursor.                                                            */

uint8_t fz_u8(struct fz_in *in)
{
	return in->pos < in->len ? in->p[in->pos++] : 0;
}

uint16_t fz_u16(struct fz_in *in)
{
	uint16_t v = fz_u8(in);

	return (uint16_t)(v | (unsigned)fz_u8(in) << 8);
}

uint32_t fz_u32(struct fz_in *in)
{
	uint32_t v = fz_u16(in);

	return v | (uint32_t)fz_u16(in) << 16;
}

uint64_t fz_u64(struct fz_in *in)
{
	uint64_t v = fz_u32(in);

	return v | (uint64_t)fz_u32(in) << 32;
}

const uint8_t *fz_bytes(struct fz_in *in, size_t n, size_t *got)
{
	const uint8_t *p = in->p + in->pos;

	if (n > in->len - in->pos)
		n = in->len - in->pos;
	in->pos += n;
	*got = n;
	return p;
}

void fz_seeds_from_env(void (*write)(const char *dir))
{
	const char *dir = getenv("WQE_FUZZ_SEEDS");

	if (dir) {
		write(dir);
		exit(0);
	}
}
