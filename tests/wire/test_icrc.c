/* SPDX-License-Identifier: MIT */
/*
 * test_icrc.c - the ICRC: the seed rxe uses, the reference vectors
 * (IPv4 cross-checked with scapy, IPv6 with a second implementation), the
 * masked fields (changing them keeps the ICRC, changing anything else does
 * not), every single-bit and single-byte corruption of every covered byte
 * of packets of every opcode, the UDP-socket variant, and the IPv4
 * identification found from the ICRC alone; every length against the
 * annex's definition written out in full. Run as `wire_icrc zlib`, all of
 * it again with zlib's CRC (the routine of a CPU without PCLMULQDQ), and
 * zlib's and ISA-L's CRC compared on every length and alignment.
 */
#include <isa-l/crc.h>
#include <string.h>
#include <zlib.h>

#include "common/bytes.h"
#include "testutil.h"
#include "wire/wire_int.h"
#include "wire_gen.h"

static uint8_t frame[2048], pay[2048];

static size_t unhex(uint8_t *out, const char *h)
{
	size_t n = 0;

	for (; h[0] && h[1]; h += 2) {
		unsigned v;

		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

static void test_seed(void)
{
	uint8_t ff[8];

	memset(ff, 0xff, sizeof(ff));
	/* rxe starts from the raw register 0xDEBB20E3; zlib-style, its inverse. */
	CHECK_EQ(crc32_gzip_refl(0, ff, 8), 0x2144df1cu);
	CHECK_EQ(~crc32_gzip_refl(0, ff, 8), 0xdebb20e3u);
}

static void test_reference_hello(void)
{
	static const char v4[] =
	    "45000034123440004011a531c0a80101c0a80102c12312b7002000000430ffff00000011800000"
	    "0168656c6c6f000000058377b6";
	static const char v6[] =
	    "6000000000201140fe800000000000000000000000000001fe8000000000000000000000000000"
	    "02c12312b7002000000430ffff000000118000000168656c6c6f000000a54461b6";
	struct wqe_pkt q;
	size_t n;

	n = unhex(frame, v4);
	CHECK_EQ(wqe_icrc(frame, n - 4, 4), 0xb6778305u);
	CHECK_EQ(wqe_pkt_parse_ip(frame, n, &q), 0);
	CHECK(q.icrc_ok);
	CHECK_EQ(q.payload_len, 5);
	CHECK_MEM(q.payload, "hello", 5);
	n = unhex(frame, v6);
	CHECK_EQ(wqe_icrc(frame, n - 4, 6), 0xb66144a5u);
	CHECK_EQ(wqe_pkt_parse_ip(frame, n, &q), 0);
	CHECK(q.icrc_ok);
	CHECK_EQ(wqe_icrc(frame, n - 4, 5), 0);
	CHECK_EQ(wqe_icrc(frame, 40 + 8 + 11, 6), 0);
}

/* The reference's RDMA WRITE ONLY vector, built from its fields. */
static void test_reference_write(void)
{
	static const uint8_t want[] = {0xc9, 0x9c, 0xb2, 0x91};
	struct wqe_pkt p;
	size_t n = 0;

	memset(&p, 0, sizeof(p));
	p.ipver = 4;
	p.src.raw[10] = p.src.raw[11] = p.dst.raw[10] = p.dst.raw[11] = 0xff;
	p.src.raw[12] = p.dst.raw[12] = 192;
	p.src.raw[13] = p.dst.raw[13] = 168;
	p.src.raw[14] = p.dst.raw[14] = 1;
	p.src.raw[15] = 1;
	p.dst.raw[15] = 2;
	p.ip_id = 0x1234;
	p.ip_flags = 2;
	p.ttl = 64;
	p.sport = 0xc123;
	p.bth = (struct wqe_bth){.opcode = WQE_WIRE_RC_RDMA_WRITE_ONLY,
				 .pkey = 0xffff,
				 .destqp = 0x12,
				 .ackreq = 1,
				 .psn = 0xabcd};
	p.reth = (struct wqe_reth){.va = 0x00007f0000001000ull, .rkey = 0x1234, .dma_len = 16};
	for (int i = 0; i < 16; i++)
		pay[i] = (uint8_t)i;
	CHECK_EQ(wqe_pkt_build(&p, pay, 16, frame, sizeof(frame), &n), 0);
	CHECK_EQ(n, 14 + 20 + 8 + 28 + 16 + 4);
	CHECK_MEM(frame + n - 4, want, 4);
}

/* Is byte @i (from the IP header) one the ICRC masks, for bit mask @bits? */
static int masked(int ipver, size_t i, unsigned bits)
{
	size_t udp = ipver == 4 ? 20 : 40, bth = udp + 8;

	if (i == udp + 6 || i == udp + 7 || i == bth + 4)
		return 1;
	if (ipver == 4)
		return i == 1 || i == 8 || i == 10 || i == 11;
	if (i == 0)
		return (bits & 0xf0u) == 0; /* low nibble: traffic class */
	return (i >= 1 && i <= 3) || i == 7;
}

static void corrupt_all(const struct wqe_pkt *p, size_t len)
{
	size_t l3 = 14 + (p->has_vlan ? 4 : 0);
	struct wqe_pkt q;

	for (size_t i = l3; i < len; i++) {
		for (unsigned k = 0; k < 9; k++) {
			uint8_t x = (uint8_t)(k < 8 ? 1u << k : 0xffu);
			int rc, m = masked(p->ipver, i - l3, x);

			frame[i] ^= x;
			rc = wqe_pkt_parse(frame, len, &q);
			frame[i] ^= x;
			if (rc)
				continue; /* rejected outright: fine too */
			test_checks++;
			if (q.icrc_ok != m)
				test_fail(__FILE__, __LINE__,
					  "%s v%u: byte %zu ^ 0x%02x: icrc_ok %u, masked %d",
					  wqe_wire_opcode_str(p->bth.opcode), p->ipver, i - l3, x,
					  q.icrc_ok, m);
		}
	}
}

static void test_corruption(void)
{
	uint8_t ops[64];
	int nops = gen_opcodes(ops, 64);
	struct test_rng r;
	struct wqe_pkt p;
	uint32_t n;

	test_rng_seed(&r, 20);
	for (int i = 0; i < nops; i++) {
		for (int ipver = 4; ipver <= 6; ipver += 2) {
			size_t len;

			gen_pkt(&r, ops[i], ipver, &p, pay, 21, &n);
			len = gen_frame(&p, pay, n, frame, sizeof(frame));
			corrupt_all(&p, len);
		}
	}
}

/* Masked fields named one by one: the ICRC stays; the source port is not. */
static void test_masked_fields(void)
{
	struct test_rng r;
	struct wqe_pkt p, q;
	uint32_t n, base;

	test_rng_seed(&r, 21);
	for (int ipver = 4; ipver <= 6; ipver += 2) {
		gen_pkt(&r, WQE_WIRE_RC_SEND_ONLY, ipver, &p, pay, 40, &n);
		gen_frame(&p, pay, n, frame, sizeof(frame));
		wqe_pkt_parse(frame, wqe_pkt_frame_len(&p, n), &q);
		base = q.icrc;
		p.tos ^= 0xff;
		p.ttl ^= 0x5a;
		p.flow_label ^= 0xabcde;
		p.bth.fecn ^= 1;
		p.bth.becn ^= 1;
		p.bth.resv6 ^= 0x2a;
		p.opts ^= WQE_PKT_OPT_UDP_CSUM;
		gen_frame(&p, pay, n, frame, sizeof(frame));
		wqe_pkt_parse(frame, wqe_pkt_frame_len(&p, n), &q);
		CHECK(q.icrc_ok);
		CHECK_EQ(q.icrc, base);
		p.sport ^= 1;
		gen_frame(&p, pay, n, frame, sizeof(frame));
		wqe_pkt_parse(frame, wqe_pkt_frame_len(&p, n), &q);
		CHECK(q.icrc_ok);
		CHECK(q.icrc != base);
	}
}

/* wqe_icrc_udp over rebuilt headers equals wqe_icrc over the real ones. */
static void test_udp_variant(void)
{
	uint8_t ops[64];
	int nops = gen_opcodes(ops, 64);
	struct test_rng r;
	struct wqe_pkt p, q;
	uint32_t n;

	test_rng_seed(&r, 22);
	for (int i = 0; i < 2000; i++) {
		size_t len, bth;

		gen_pkt(&r, ops[i % nops], i % 2 ? 4 : 6, &p, pay, 300, &n);
		len = gen_frame(&p, pay, n, frame, sizeof(frame));
		bth = 14 + (p.has_vlan ? 4u : 0u) + (p.ipver == 4 ? 20u : 40u) + 8;
		CHECK_EQ(wqe_pkt_parse(frame, len, &q), 0);
		CHECK_EQ(wqe_icrc_udp(&p, frame + bth, len - bth - 4), q.icrc);
		CHECK_EQ(wqe_pkt_parse_bth(frame + bth, len - bth, &p), 0);
		CHECK(p.icrc_ok);
		p.ip_id ^= 1; /* IPv4 ID is covered; IPv6 has none */
		CHECK_EQ(wqe_pkt_parse_bth(frame + bth, len - bth, &p), 0);
		CHECK_EQ(p.icrc_ok, p.ipver == 6);
	}
	p.ipver = 0;
	CHECK_EQ(wqe_icrc_udp(&p, frame, 12), 0);
	CHECK_EQ(wqe_pkt_parse_bth(frame, 16, &p), WQE_PKT_EINVAL);
}

/* The ICRC as the annex defines it, written out in full: 8 bytes of 0xFF,
 * then a copy of the packet with the mutable fields set to ones, one
 * zlib-style CRC over all of it. */
static uint32_t icrc_by_definition(const uint8_t *l3, size_t len, int ipver)
{
	static uint8_t b[8 + 1600];
	size_t udp = ipver == 4 ? 20 : 40;

	memset(b, 0xff, 8);
	memcpy(b + 8, l3, len);
	if (ipver == 4) {
		b[8 + 1] = 0xff;
		b[8 + 8] = 0xff;
		b[8 + 10] = b[8 + 11] = 0xff;
	} else {
		b[8 + 0] |= 0x0f;
		b[8 + 1] = b[8 + 2] = b[8 + 3] = 0xff;
		b[8 + 7] = 0xff;
	}
	b[8 + udp + 6] = b[8 + udp + 7] = 0xff;
	b[8 + udp + 8 + 4] = 0xff;
	return crc32_gzip_refl(0, b, 8 + len);
}

/*
 * Every length from the shortest packet to 400 bytes, odd ones too, and
 * each of them 1100 bytes longer (past the one-call limit, 256, where the
 * headers are masked apart from the rest), IPv4 and IPv6, random bytes:
 * wqe_icrc() and wqe_icrc_inplace() give what the definition gives, and
 * the in-place one leaves the buffer as it was.
 */
static void test_by_definition(void)
{
	static uint8_t buf[1600], copy[1600];
	struct test_rng r;

	test_rng_seed(&r, 0x1cdf);
	for (int ipver = 4; ipver <= 6; ipver += 2)
		for (size_t len = ipver == 4 ? 40 : 60; len <= 400; len++)
			for (int k = 0; k < 8; k++) {
				size_t l = k < 7 ? len : len + 1100;
				uint32_t want;

				test_rng_fill(&r, buf, l);
				memcpy(copy, buf, l);
				want = icrc_by_definition(buf, l, ipver);
				CHECK_EQ(wqe_icrc(buf, l, ipver), want);
				CHECK_EQ(wqe_icrc_inplace(buf, l, ipver), want);
				CHECK_MEM(buf, copy, l);
			}
}

/* wqe_icrc_inplace(): the same CRC as wqe_icrc() on the reference vectors
 * and on random packets of every length, IPv4 and IPv6, and the buffer
 * exactly as it was afterwards; the same refusals. */
static void test_inplace(void)
{
	static const char v4[] =
	    "45000034123440004011a531c0a80101c0a80102c12312b7002000000430ffff00000011800000"
	    "0168656c6c6f000000058377b6";
	static uint8_t buf[1200], copy[1200];
	struct test_rng r;
	size_t n = unhex(frame, v4);

	CHECK_EQ(wqe_icrc_inplace(frame, n - 4, 4), 0xb6778305u);
	test_rng_seed(&r, 0x1c2c);
	for (int i = 0; i < 2000; i++) {
		int ipver = i & 1 ? 6 : 4;
		size_t len = (ipver == 4 ? 40 : 60) + (size_t)test_rng_below(&r, 1100);

		test_rng_fill(&r, buf, len);
		memcpy(copy, buf, len);
		CHECK_EQ(wqe_icrc_inplace(buf, len, ipver), wqe_icrc(copy, len, ipver));
		CHECK_MEM(buf, copy, len);
	}
	CHECK_EQ(wqe_icrc_inplace(buf, 100, 5), 0);
	CHECK_EQ(wqe_icrc_inplace(buf, 39, 4), 0);
	CHECK_MEM(buf, copy, 100);
}

/*
 * wqe_icrc_find_ipv4_id(): random IPv4 packets of every length up to 4400
 * bytes with random identifications and DF set or clear, their ICRC taken
 * by wqe_icrc() over the real header, give back exactly that
 * identification and DF whatever the bytes 4-7 handed over hold; the same
 * packets with one byte of the covered part (not the masked fields, not
 * bytes 4-7) changed give no answer, as do random ICRCs but for about one
 * in 2^15; short or NULL arguments are refused.
 */
static void test_find_ipv4_id(void)
{
	static uint8_t buf[4400];
	struct test_rng r;
	int wrong = 0, random_ok = 0;

	test_rng_seed(&r, 0x1d);
	for (int i = 0; i < 3000; i++) {
		size_t len = 40 + (size_t)test_rng_below(&r, sizeof(buf) - 40);
		uint16_t id = (uint16_t)test_rng_next(&r), got = 0;
		int df = (int)test_rng_below(&r, 2), got_df = -1;
		uint32_t icrc;
		size_t at;

		test_rng_fill(&r, buf, len);
		buf[0] = 0x45;
		put_be16(buf + 4, id);
		put_be16(buf + 6, df ? 0x4000 : 0);
		icrc = wqe_icrc(buf, len, 4);
		test_rng_fill(&r, buf + 4, 4); /* what a UDP socket cannot tell */
		CHECK_EQ(wqe_icrc_find_ipv4_id(buf, len, icrc, &got, &got_df), 1);
		CHECK_EQ(got, id);
		CHECK_EQ(got_df, df);
		/* A covered byte changed: 8-9 (protocol), 12-19 (addresses),
		 * 20-25 (UDP ports, length), 28-31 and 33 onwards (BTH, rest). */
		do
			at = (size_t)test_rng_below(&r, len);
		while (at < 8 || at == 8 || at == 10 || at == 11 || at == 26 || at == 27 ||
		       at == 32);
		buf[at] ^= (uint8_t)(1u + test_rng_below(&r, 255));
		wrong += wqe_icrc_find_ipv4_id(buf, len, icrc, &got, &got_df) != 0;
		random_ok += wqe_icrc_find_ipv4_id(buf, len, (uint32_t)test_rng_next(&r), &got,
						   &got_df) == 1;
	}
	/* One in 2^15 of either would pass: none with this seed. */
	CHECK_EQ(wrong, 0);
	CHECK_EQ(random_ok, 0);
	{
		uint16_t id;
		int df;

		CHECK_EQ(wqe_icrc_find_ipv4_id(buf, 39, 0, &id, &df), -1);
		CHECK_EQ(wqe_icrc_find_ipv4_id(NULL, 100, 0, &id, &df), -1);
		CHECK_EQ(wqe_icrc_find_ipv4_id(buf, 100, 0, NULL, &df), -1);
		CHECK_EQ(wqe_icrc_find_ipv4_id(buf, 100, 0, &id, NULL), -1);
	}
}

/* The two CRC routines icrc.c picks between give the same value for every
 * length 0 to 4200, at every alignment 0 to 7, from random seeds and
 * bytes; and chained as wqe_icrc() chains them. */
static void test_zlib_isal(void)
{
	static uint8_t buf[4200 + 8];
	struct test_rng r;
	uint32_t bad = 0;

	test_rng_seed(&r, 0x1c2c);
	test_rng_fill(&r, buf, sizeof(buf));
	for (size_t len = 0; len <= 4200; len++) {
		uint32_t seed = (uint32_t)test_rng_next(&r);
		size_t off = len & 7;
		uint32_t z = (uint32_t)crc32_z(seed, buf + off, len);

		bad += z != crc32_gzip_refl(seed, buf + off, len);
		if (len > 60)
			bad += (uint32_t)crc32_z(crc32_gzip_refl(seed, buf + off, 60),
						 buf + off + 60, len - 60) != z;
	}
	CHECK_EQ(bad, 0);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "zlib"))
		wire_icrc_portable(true);
	else if (argc != 1)
		return 2;
	test_zlib_isal();
	test_seed();
	test_reference_hello();
	test_reference_write();
	test_corruption();
	test_masked_fields();
	test_udp_variant();
	test_inplace();
	test_by_definition();
	test_find_ipv4_id();
	return test_finish();
}
