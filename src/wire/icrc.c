/* SPDX-License-Identifier: MIT */
/*
 * icrc.c - the RoCEv2 Invariant CRC, and the Internet checksums.
 *
 * ICRC (IBA annex A17.3.3, rxe_icrc.c): CRC-32 as zlib computes it over
 * 8 bytes of 0xFF (the stand-in for the LRH), the IP header with the fields
 * a router may change set to ones, the UDP header with its checksum set to
 * ones, the BTH with byte 4 (FECN, BECN, resv6) set to ones, then the rest
 * of the packet up to the ICRC. wqe_icrc() masks a copy: of the whole
 * packet when it is short (one CRC call), else of its first 60 bytes at
 * most, the rest CRC'd in place by chaining the CRC routine (ISA-L's or
 * zlib's, below), whose init argument takes the previous result (zlib's
 * convention). A sender that
 * owns its frame uses wqe_icrc_inplace(), which masks the frame itself and
 * puts the bytes back: no copy at all.
 */
#include <isa-l/crc.h>
#include <stdatomic.h>
#include <zlib.h>

#include "wire/wire_int.h"

/*
 * Which CRC routine: ISA-L's where the CPU has PCLMULQDQ (its folding
 * kernels: 0.36 us a 4 KiB packet here), zlib's crc32_z() where it has
 * not. Without PCLMULQDQ, ISA-L's dispatch falls to crc32_gzip_refl_base,
 * one table lookup a byte (11.2 us a 4 KiB packet on this host), where
 * zlib's braided CRC takes 2.4 us: the same value (both are zlib's
 * convention, and test_icrc compares them), 4.6x less time. The CPU
 * without it that matters is qemu's TCG default (qemu64): the guest of
 * tests/interop and bench/rxe_guest.sh, where the kernel's rxe computes
 * its ICRC with crc32_generic's slice-by-8, not a byte at a time.
 *
 * ISA-L's AVX-512 CRC kernels (crc32_gzip_refl_by16_10 in ISA-L 2.30) return
 * with the upper halves of the vector registers dirty: no VZEROUPPER. Every
 * legacy-SSE instruction the compiler emits afterwards (struct copies and
 * clears) then pays the SSE/AVX transition, which measured as a quarter of
 * the datapath's time at 64 KiB. So each call is followed by VZEROUPPER
 * wherever the CPU has AVX (and so may have run such a kernel).
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* CPU_* bits once known (CPU_KNOWN); relaxed: every thread computes the
 * same value. */
#define CPU_KNOWN  1
#define CPU_AVX	   2
#define CPU_PCLMUL 4
static _Atomic int cpu_crc;

__attribute__((target("avx"))) static void zero_upper(void)
{
	_mm256_zeroupper();
}

static int cpu_crc_bits(void)
{
	int c = atomic_load_explicit(&cpu_crc, memory_order_relaxed);

	if (__builtin_expect(!c, 0)) {
		__builtin_cpu_init();
		c = CPU_KNOWN | (__builtin_cpu_supports("avx") ? CPU_AVX : 0) |
		    (__builtin_cpu_supports("pclmul") ? CPU_PCLMUL : 0);
		atomic_store_explicit(&cpu_crc, c, memory_order_relaxed);
	}
	return c;
}

void wire_icrc_portable(bool on)
{
	int c = cpu_crc_bits();

	if (on)
		c &= ~CPU_PCLMUL;
	else if (__builtin_cpu_supports("pclmul"))
		c |= CPU_PCLMUL;
	atomic_store_explicit(&cpu_crc, c, memory_order_relaxed);
}

static uint32_t crc32_refl(uint32_t seed, const uint8_t *buf, size_t len)
{
	int c = cpu_crc_bits();
	uint32_t crc;

	if (!(c & CPU_PCLMUL))
		return (uint32_t)crc32_z(seed, buf, (z_size_t)len);
	crc = crc32_gzip_refl(seed, buf, (uint64_t)len);
	if (c & CPU_AVX)
		zero_upper();
	return crc;
}
#else
static _Atomic bool use_zlib;

void wire_icrc_portable(bool on)
{
	atomic_store_explicit(&use_zlib, on, memory_order_relaxed);
}

static uint32_t crc32_refl(uint32_t seed, const uint8_t *buf, size_t len)
{
	if (atomic_load_explicit(&use_zlib, memory_order_relaxed))
		return (uint32_t)crc32_z(seed, buf, (z_size_t)len);
	return crc32_gzip_refl(seed, buf, (uint64_t)len);
}
#endif

/* crc32_gzip_refl(0, 8 x 0xFF, 8): the CRC after the masked LRH. rxe keeps
 * the raw register instead, 0xDEBB20E3 = ~0x2144DF1C. test_codec checks it. */
#define ICRC_LRH_SEED 0x2144df1cu

static void mask_ip_udp(uint8_t *h, int ipver)
{
	size_t udp;

	if (ipver == 4) {
		h[1] = 0xff;		  /* TOS: DSCP and ECN */
		h[8] = 0xff;		  /* TTL */
		put_be16(h + 10, 0xffff); /* header checksum */
		udp = WQE_IPV4_LEN;
	} else {
		h[0] |= 0x0f; /* traffic class, high nibble */
		h[1] = 0xff;  /* traffic class low nibble, flow label */
		h[2] = 0xff;
		h[3] = 0xff;
		h[7] = 0xff; /* hop limit */
		udp = WQE_IPV6_LEN;
	}
	put_be16(h + udp + 6, 0xffff);	 /* UDP checksum */
	h[udp + WQE_UDP_LEN + 4] = 0xff; /* BTH byte 4: FECN, BECN, resv6 */
}

uint32_t wire_icrc_split(const uint8_t *hdrs, size_t hdr_len, int ipver, const uint8_t *rest,
			 size_t rest_len)
{
	uint8_t tmp[WQE_IPV6_LEN + WQE_UDP_LEN + WQE_BTH_LEN];
	uint32_t crc;

	memcpy(tmp, hdrs, hdr_len);
	mask_ip_udp(tmp, ipver);
	crc = crc32_refl(ICRC_LRH_SEED, tmp, hdr_len);
	if (rest_len)
		crc = crc32_refl(crc, rest, rest_len);
	return crc;
}

/* A packet whose bytes up to the ICRC fit this many is copied whole and
 * CRC'd in one call: ISA-L costs about 70 instructions a call, a copy of a
 * hundred bytes about 15. */
#define ICRC_ONE_CALL 256u

/* IP + UDP + BTH bytes, the part of a packet the ICRC masks; 0 if @ipver
 * is not 4 or 6 or @len is shorter than that. */
static size_t icrc_hdr_len(size_t len, int ipver)
{
	size_t hdr_len;

	if (ipver != 4 && ipver != 6)
		return 0;
	hdr_len = (ipver == 4 ? WQE_IPV4_LEN : WQE_IPV6_LEN) + WQE_UDP_LEN + WQE_BTH_LEN;
	return len < hdr_len ? 0 : hdr_len;
}

uint32_t wqe_icrc(const uint8_t *l3, size_t len, int ipver)
{
	uint8_t tmp[ICRC_ONE_CALL];
	size_t hdr_len = icrc_hdr_len(len, ipver);

	if (!hdr_len)
		return 0;
	if (len > sizeof(tmp))
		return wire_icrc_split(l3, hdr_len, ipver, l3 + hdr_len, len - hdr_len);
	memcpy(tmp, l3, len);
	mask_ip_udp(tmp, ipver);
	return crc32_refl(ICRC_LRH_SEED, tmp, len);
}

uint32_t wqe_icrc_inplace(uint8_t *l3, size_t len, int ipver)
{
	uint8_t keep[WQE_IPV6_LEN + WQE_UDP_LEN + WQE_BTH_LEN];
	size_t hdr_len = icrc_hdr_len(len, ipver);
	uint32_t crc;

	if (!hdr_len)
		return 0;
	/* Constant-size copies, a few vector moves each: a copy of hdr_len
	 * bytes became a rep movs, which measured as 2 % of the datapath. */
	if (ipver == 4) {
		memcpy(keep, l3, WQE_IPV4_LEN + WQE_UDP_LEN + WQE_BTH_LEN);
		mask_ip_udp(l3, 4);
		crc = crc32_refl(ICRC_LRH_SEED, l3, len);
		memcpy(l3, keep, WQE_IPV4_LEN + WQE_UDP_LEN + WQE_BTH_LEN);
	} else {
		memcpy(keep, l3, sizeof(keep));
		mask_ip_udp(l3, 6);
		crc = crc32_refl(ICRC_LRH_SEED, l3, len);
		memcpy(l3, keep, sizeof(keep));
	}
	return crc;
}

uint32_t wqe_icrc_udp(const struct wqe_pkt *p, const uint8_t *bth, size_t len)
{
	uint8_t hdrs[WQE_IPV6_LEN + WQE_UDP_LEN + WQE_BTH_LEN];
	struct wqe_pkt q = *p;
	size_t n;

	if ((p->ipver != 4 && p->ipver != 6) || len < WQE_BTH_LEN ||
	    len > 0xffff - WQE_IPV4_LEN - WQE_UDP_LEN - WQE_ICRC_LEN)
		return 0;
	q.opts |= WQE_PKT_OPT_RAW_IP_CSUM; /* masked anyway: skip the sum */
	n = wire_put_ip_udp(hdrs, &q, (uint32_t)len + WQE_ICRC_LEN);
	memcpy(hdrs + n, bth, WQE_BTH_LEN);
	return wire_icrc_split(hdrs, n + WQE_BTH_LEN, p->ipver, bth + WQE_BTH_LEN,
			       len - WQE_BTH_LEN);
}

/* The raw CRC register after @n zero bytes from register @reg (CRC-32 is
 * linear over GF(2): what a change of some bytes does to the ICRC is the
 * change's own CRC from a zero register, carried through the bytes after
 * it as zeros). crc32_gzip_refl() inverts the register on the way in and
 * out, so its argument and result are the register's complement. */
static uint32_t crc_zeros(uint32_t reg, size_t n)
{
	static const uint8_t zeros[1024];
	uint32_t crc = ~reg;

	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);

		crc = crc32_refl(crc, zeros, k);
		n -= k;
	}
	return ~crc;
}

/* IPv4 header bytes 4-7 (identification, flags, fragment offset) as the
 * sender had them, in the order the unknowns are numbered: bits 0-15 the
 * identification's, bit 16 DF clear. */
#define FIND_UNKNOWNS 17u

int wqe_icrc_find_ipv4_id(const uint8_t *l3, size_t len, uint32_t icrc, uint16_t *id, int *df)
{
	uint8_t hdrs[WQE_IPV4_LEN + WQE_UDP_LEN + WQE_BTH_LEN];
	const size_t hdr_len = sizeof(hdrs);
	/* Gaussian elimination over GF(2): pivot[i] has its top set bit at i;
	 * with[i] says which unknowns make it up. */
	uint32_t pivot[32] = {0}, with[32] = {0}, d, x = 0;

	if (!l3 || !id || !df || len < hdr_len)
		return -1;
	memcpy(hdrs, l3, hdr_len);
	put_be16(hdrs + 4, 0);
	put_be16(hdrs + 6, 0x4000); /* DF, offset 0 */
	d = icrc ^ wire_icrc_split(hdrs, hdr_len, 4, l3 + hdr_len, len - hdr_len);
	if (!d) {
		*id = 0;
		*df = 1;
		return 1;
	}
	for (uint32_t u = 0; u < FIND_UNKNOWNS; u++) {
		/* The change of bytes 4-7 this unknown makes, its CRC from a
		 * zero register, then the len - 8 bytes after them. */
		uint32_t word = u < 16 ? (1u << u) << 16 : 0x4000u;
		uint8_t b[4];
		uint32_t v, m = 1u << u;

		put_be32(b, word);
		v = crc_zeros(~crc32_refl(~0u, b, 4), len - 8);
		for (int i = 31; i >= 0 && v; i--) {
			if (!(v >> i & 1))
				continue;
			if (!pivot[i]) {
				pivot[i] = v;
				with[i] = m;
				break;
			}
			v ^= pivot[i];
			m ^= with[i];
		}
	}
	for (int i = 31; i >= 0; i--) {
		if (!(d >> i & 1))
			continue;
		if (!pivot[i])
			return 0; /* no identification and DF explain the ICRC */
		d ^= pivot[i];
		x ^= with[i];
	}
	*id = (uint16_t)(x & 0xffffu);
	*df = !(x >> 16 & 1);
	return 1;
}

/*
 * RFC 1071 sum eight bytes at a time: 2^64, 2^32 and 2^16 are all 1 modulo
 * 0xffff, so wider big-endian words, their carries added back, fold to
 * the same 16-bit sum as the words of two bytes (RFC 1071 section 2(B)).
 * The result is unfolded, at most 32 bits wide.
 */
uint32_t wire_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t s = sum, w;

	for (; len >= 8; p += 8, len -= 8) {
		w = get_be64(p);
		s += w;
		s += s < w; /* the end-around carry */
	}
	s = (s & 0xffffffffu) + (s >> 32); /* below 2^33: the adds below cannot wrap */
	if (len >= 4) {
		s += get_be32(p);
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		s += get_be16(p);
		p += 2;
		len -= 2;
	}
	if (len)
		s += (uint32_t)p[0] << 8;
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	return (uint32_t)s;
}

uint16_t wire_udp_csum(const uint8_t *l3, int ipver, const uint8_t *udp, size_t len)
{
	uint8_t tail[4];
	uint32_t sum;
	uint16_t c;

	/* Pseudo-header: addresses, then protocol and UDP length. */
	if (ipver == 4)
		sum = wire_csum_add(0, l3 + 12, 8);
	else
		sum = wire_csum_add(0, l3 + 8, 32);
	put_be16(tail, IP_PROTO_UDP);
	put_be16(tail + 2, (uint16_t)len);
	sum = wire_csum_add(sum, tail, 4);
	sum = wire_csum_add(sum, udp, 6); /* ports and length; checksum as 0 */
	sum = wire_csum_add(sum, udp + WQE_UDP_LEN, len - WQE_UDP_LEN);
	c = csum_fold(sum);
	return c ? c : 0xffff; /* RFC 768: a computed 0 is sent as all ones */
}
