/* SPDX-License-Identifier: MIT */
/*
 * test_packet.c - wqe_pkt_build and wqe_pkt_parse on whole frames: every
 * wire opcode over IPv4 and IPv6 (VLAN, UDP checksum, payload sizes at
 * every pad count) builds, parses back to the same fields and rebuilds to
 * the same bytes; every truncated prefix is rejected; malformed lengths,
 * pad counts and ports get their own errors; build refuses what it must;
 * 100k random and mutated frames never crash or point outside the buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "wire_gen.h"

#define MAXF 2048

static uint8_t frame[MAXF], again[MAXF], pay[MAXF];
static uint8_t ops[64];
static int nops;

static size_t l3_off(const struct wqe_pkt *p)
{
	return WQE_ETH_LEN + (p->has_vlan ? WQE_VLAN_LEN : 0);
}

static void one_roundtrip(struct test_rng *r, uint8_t op, int ipver, uint32_t max)
{
	struct wqe_pkt p, q;
	uint32_t n;
	size_t len, len2 = 0;

	gen_pkt(r, op, ipver, &p, pay, max, &n);
	len = gen_frame(&p, pay, n, frame, sizeof(frame));
	CHECK(len > 0);
	CHECK_EQ(len, wqe_pkt_frame_len(&p, n));
	CHECK_EQ(wqe_pkt_parse(frame, len, &q), 0);
	CHECK(q.icrc_ok);
	CHECK(q.ip_csum_ok);
	CHECK(q.udp_csum_ok);
	CHECK_EQ(!!(q.opts & WQE_PKT_OPT_UDP_CSUM), !!(p.opts & WQE_PKT_OPT_UDP_CSUM));
	gen_check_same(&p, &q);
	CHECK_EQ(q.payload_len, n);
	CHECK_EQ(q.bth.padcnt, (0u - n) & 3u);
	CHECK(q.payload == frame + l3_off(&p) + (ipver == 4 ? 20 : 40) + 8 + wqe_hdrs_len(q.hdrs));
	if (n)
		CHECK_MEM(q.payload, pay, n);
	for (unsigned i = 0; i < q.bth.padcnt; i++)
		CHECK_EQ(q.pad[i], 0);
	CHECK_EQ(q.udp_len, len - l3_off(&p) - (ipver == 4 ? 20 : 40));
	CHECK_EQ(wqe_pkt_build(&q, q.payload, q.payload_len, again, sizeof(again), &len2), 0);
	CHECK_EQ(len2, len);
	CHECK_MEM(again, frame, len);
}

static void test_every_opcode(void)
{
	struct test_rng r;

	test_rng_seed(&r, 10);
	for (int i = 0; i < nops; i++)
		for (int ipver = 4; ipver <= 6; ipver += 2)
			for (int k = 0; k < 64; k++)
				one_roundtrip(&r, ops[i], ipver, k < 8 ? (uint32_t)k : 1500);
}

static void test_truncation(void)
{
	struct test_rng r;
	struct wqe_pkt p, q;
	uint32_t n;

	test_rng_seed(&r, 11);
	for (int i = 0; i < nops; i++) {
		for (int ipver = 4; ipver <= 6; ipver += 2) {
			size_t len;

			gen_pkt(&r, ops[i], ipver, &p, pay, 37, &n);
			len = gen_frame(&p, pay, n, frame, sizeof(frame));
			for (size_t cut = 0; cut < len; cut++) {
				int rc = wqe_pkt_parse(frame, cut, &q);

				CHECK(rc < 0);
				if (rc == 0)
					test_fail(__FILE__, __LINE__,
						  "op 0x%02x v%d cut %zu parsed", ops[i], ipver,
						  cut);
			}
		}
	}
}

/* A fixed RC SEND_ONLY frame (IPv4 or IPv6, no VLAN) with @n payload bytes. */
static size_t base_frame(int ipver, uint8_t op, uint32_t n, struct wqe_pkt *p)
{
	struct test_rng r;
	uint32_t got;

	test_rng_seed(&r, 12);
	gen_pkt(&r, op, ipver, p, pay, 0, &got);
	p->has_vlan = 0;
	p->opts = 0;
	memset(pay, 0x5a, n);
	return gen_frame(p, pay, n, frame, sizeof(frame));
}

static int parse_mod(int ipver, size_t off, uint8_t val, size_t len)
{
	struct wqe_pkt q;
	uint8_t save = frame[off];
	int rc;

	frame[off] = val;
	rc = wqe_pkt_parse(frame, len, &q);
	frame[off] = save;
	(void)ipver;
	return rc;
}

static void test_malformed_v4(void)
{
	struct wqe_pkt p, q;
	size_t len = base_frame(4, WQE_WIRE_RC_SEND_ONLY, 16, &p);
	size_t ip = 14, udp = 34, bth = 42;

	CHECK_EQ(wqe_pkt_parse(frame, len, &q), 0);
	CHECK_EQ(parse_mod(4, 12, 0x88, len), WQE_PKT_ENOT_IP);
	CHECK_EQ(parse_mod(4, ip, 0x46, len), WQE_PKT_EIP_OPTIONS);
	CHECK_EQ(parse_mod(4, ip, 0x65, len), WQE_PKT_EIP_VERSION);
	CHECK_EQ(parse_mod(4, ip + 9, 6, len), WQE_PKT_ENOT_UDP);
	CHECK_EQ(parse_mod(4, ip + 6, 0x20, len), WQE_PKT_EIP_FRAG);
	CHECK_EQ(parse_mod(4, ip + 7, 0x01, len), WQE_PKT_EIP_FRAG);
	CHECK_EQ(parse_mod(4, udp + 3, 0xb8, len), WQE_PKT_ENOT_ROCE);
	/* IP total length (60 here): past the frame, below its headers, short. */
	CHECK_EQ(parse_mod(4, ip + 3, (uint8_t)(frame[ip + 3] + 4), len), WQE_PKT_EIP_LEN);
	CHECK_EQ(parse_mod(4, ip + 3, 19, len), WQE_PKT_EIP_LEN);
	CHECK_EQ(parse_mod(4, ip + 3, 27, len), WQE_PKT_EIP_LEN);
	CHECK_EQ(parse_mod(4, ip + 3, (uint8_t)(frame[ip + 3] - 4), len), WQE_PKT_EUDP_LEN);
	CHECK_EQ(parse_mod(4, udp + 5, (uint8_t)(frame[udp + 5] + 4), len), WQE_PKT_EUDP_LEN);
	CHECK_EQ(parse_mod(4, udp + 5, (uint8_t)(frame[udp + 5] - 4), len), WQE_PKT_EUDP_LEN);
	CHECK_EQ(parse_mod(4, bth, 0x15, len), WQE_PKT_EOPCODE);
	CHECK_EQ(parse_mod(4, bth, 0x40, len), WQE_PKT_EOPCODE);
	/* Opcode turned into one whose headers (40 B) + ICRC do not fit 28. */
	CHECK_EQ(parse_mod(4, bth, WQE_WIRE_RC_COMPARE_SWAP, len), WQE_PKT_ETRUNC_HDRS);
	/* ... into an ACK: 16 header bytes, 12 left that are not allowed. */
	CHECK_EQ(parse_mod(4, bth, WQE_WIRE_RC_ACKNOWLEDGE, len), WQE_PKT_EPAYLOAD);
	/* Ethernet padding after the datagram is ignored. */
	memset(frame + len, 0, 8);
	CHECK_EQ(wqe_pkt_parse(frame, len + 8, &q), 0);
	CHECK(q.icrc_ok);
	/* A bad IPv4 checksum is reported, not rejected, and rebuilt as is. */
	frame[ip + 10] ^= 1;
	CHECK_EQ(wqe_pkt_parse(frame, len, &q), 0);
	CHECK(!q.ip_csum_ok);
	CHECK(q.icrc_ok);
	CHECK(q.opts & WQE_PKT_OPT_RAW_IP_CSUM);
	frame[ip + 10] ^= 1;
}

static void test_malformed_v6(void)
{
	struct wqe_pkt p;
	size_t len = base_frame(6, WQE_WIRE_UD_SEND_ONLY, 8, &p);
	size_t ip = 14, udp = 54;

	frame[13] = 0x00; /* EtherType 0x0800 on an IPv6 packet */
	CHECK_EQ(parse_mod(6, 12, 0x08, len), WQE_PKT_EIP_VERSION);
	frame[13] = 0xdd;
	CHECK_EQ(parse_mod(6, ip + 6, 0, len), WQE_PKT_ENOT_UDP); /* hop-by-hop */
	CHECK_EQ(parse_mod(6, udp + 2, 0x13, len), WQE_PKT_ENOT_ROCE);
	CHECK_EQ(parse_mod(6, ip + 5, (uint8_t)(frame[ip + 5] + 4), len), WQE_PKT_EIP_LEN);
	CHECK_EQ(parse_mod(6, ip + 5, 7, len), WQE_PKT_EIP_LEN);
	CHECK_EQ(parse_mod(6, ip + 5, (uint8_t)(frame[ip + 5] - 4), len), WQE_PKT_EUDP_LEN);
	CHECK_EQ(parse_mod(6, udp + 5, (uint8_t)(frame[udp + 5] - 4), len), WQE_PKT_EUDP_LEN);
	/* Shrink IPv6 and UDP lengths together to 8 + 8: no room for a BTH. */
	frame[ip + 4] = 0;
	frame[ip + 5] = 16;
	frame[udp + 4] = 0;
	frame[udp + 5] = 16;
	CHECK_EQ(parse_mod(6, 0, frame[0], len), WQE_PKT_ETRUNC_BTH);
}

static void test_bad_pad(void)
{
	struct wqe_pkt p, q;
	size_t len;

	/* An ACK has nothing after its AETH: any pad count is too large. */
	len = base_frame(4, WQE_WIRE_RC_ACKNOWLEDGE, 0, &p);
	for (uint8_t pc = 1; pc < 4; pc++)
		CHECK_EQ(parse_mod(4, 43, (uint8_t)(frame[43] | pc << 4), len), WQE_PKT_EPAD);
	/* An empty SEND with pad count 3. */
	len = base_frame(4, WQE_WIRE_RC_SEND_ONLY, 0, &p);
	CHECK_EQ(parse_mod(4, 43, 0x30, len), WQE_PKT_EPAD);
	/* Pad count forced to 0 on 5 payload bytes: not 4-byte aligned. */
	base_frame(6, WQE_WIRE_RC_SEND_ONLY, 0, &p);
	p.opts |= WQE_PKT_OPT_RAW_PADCNT;
	p.bth.padcnt = 0;
	len = gen_frame(&p, pay, 5, frame, sizeof(frame));
	CHECK_EQ(wqe_pkt_parse(frame, len, &q), WQE_PKT_EALIGN);
	/* Forced pad count 3 on 13 bytes is what the default computes too. */
	p.bth.padcnt = 3;
	len = gen_frame(&p, pay, 13, frame, sizeof(frame));
	CHECK_EQ(wqe_pkt_parse(frame, len, &q), 0);
	CHECK_EQ(q.payload_len, 13);
}

static void test_vlan(void)
{
	struct wqe_pkt p, q;
	size_t len = base_frame(4, WQE_WIRE_RC_RDMA_WRITE_ONLY, 33, &p), len2;
	uint8_t plain[MAXF];
	uint32_t icrc;

	CHECK_EQ(wqe_pkt_parse(frame, len, &q), 0);
	icrc = q.icrc;
	memcpy(plain, frame, len);
	p.has_vlan = 1;
	p.vlan_tci = 0xa064; /* PCP 5, VID 100 */
	len2 = gen_frame(&p, pay, 33, frame, sizeof(frame));
	CHECK_EQ(len2, len + 4);
	CHECK_EQ(frame[12], 0x81);
	CHECK_EQ(frame[13], 0x00);
	CHECK_MEM(frame + 18, plain + 14, len - 14);
	CHECK_EQ(wqe_pkt_parse(frame, len2, &q), 0);
	CHECK_EQ(q.vlan_tci, 0xa064);
	CHECK_EQ(q.vlan_tpid, 0x8100);
	CHECK_EQ(q.ethertype, 0x0800);
	CHECK_EQ(q.icrc, icrc); /* the ICRC does not cover L2 */
	CHECK_EQ(wqe_pkt_parse(frame, 17, &q), WQE_PKT_ETRUNC_ETH);
}

static void test_build_errors(void)
{
	struct wqe_pkt p;
	struct wqe_pkt_layout lay;
	size_t n = 0;

	base_frame(4, WQE_WIRE_RC_SEND_ONLY, 0, &p);
	p.ipver = 5;
	CHECK_EQ(wqe_pkt_build(&p, pay, 4, frame, sizeof(frame), &n), WQE_PKT_EINVAL);
	CHECK_EQ(wqe_pkt_frame_len(&p, 4), 0);
	p.ipver = 4;
	p.bth.opcode = 0x15;
	CHECK_EQ(wqe_pkt_build(&p, pay, 4, frame, sizeof(frame), &n), WQE_PKT_EINVAL);
	p.bth.opcode = WQE_WIRE_RC_ACKNOWLEDGE;
	CHECK_EQ(wqe_pkt_build(&p, pay, 4, frame, sizeof(frame), &n), WQE_PKT_EINVAL);
	CHECK_EQ(wqe_pkt_build(&p, pay, 0, frame, 29, &n), WQE_PKT_ENOSPC);
	p.bth.opcode = WQE_WIRE_RC_SEND_ONLY;
	/* IPv4 total length 20 + 8 + 12 + payload + pad + 4 <= 65535. */
	CHECK_EQ(wqe_pkt_build_hdrs(&p, 65488, frame, 0, &lay), WQE_PKT_ENOSPC);
	CHECK_EQ(wqe_pkt_build_hdrs(&p, 65489, frame, 0, &lay), WQE_PKT_EINVAL);
	p.ipver = 6; /* the IPv6 payload length excludes the IP header */
	CHECK_EQ(wqe_pkt_build_hdrs(&p, 65508, frame, 0, &lay), WQE_PKT_ENOSPC);
	CHECK_EQ(wqe_pkt_build_hdrs(&p, 65509, frame, 0, &lay), WQE_PKT_EINVAL);
}

/* Parse must never crash, and a success must point inside the buffer. */
static void parse_any(const uint8_t *f, size_t len)
{
	struct wqe_pkt q;
	int rc = wqe_pkt_parse(f, len, &q);

	CHECK(rc <= 0 && rc >= WQE_PKT_EPAYLOAD);
	if (rc == 0) {
		CHECK(q.payload >= f && q.payload + q.payload_len + q.bth.padcnt + 4 <= f + len);
		CHECK(q.pad == q.payload + q.payload_len);
	}
	rc = wqe_pkt_parse_ip(f, len, &q);
	CHECK(rc <= 0 && rc >= WQE_PKT_EPAYLOAD);
}

static void test_random(void)
{
	struct test_rng r;
	struct wqe_pkt p;
	uint8_t *buf;
	uint32_t n;

	test_rng_seed(&r, 13);
	for (int i = 0; i < 100000; i++) {
		size_t len = (size_t)test_rng_below(&r, 200);

		/* A fresh allocation of exactly len bytes: ASan sees any overread. */
		buf = malloc(len ? len : 1);
		if (i % 2) {
			test_rng_fill(&r, buf, len);
		} else {
			size_t flen;

			gen_pkt(&r, ops[test_rng_below(&r, (uint64_t)nops)],
				test_rng_below(&r, 2) ? 4 : 6, &p, pay, 64, &n);
			flen = gen_frame(&p, pay, n, frame, sizeof(frame));
			len = len < flen ? flen - (size_t)test_rng_below(&r, 3) : flen;
			free(buf);
			buf = malloc(len);
			memcpy(buf, frame, len);
			for (int k = (int)test_rng_below(&r, 4); k > 0; k--)
				buf[test_rng_below(&r, len)] = (uint8_t)test_rng_next(&r);
		}
		parse_any(buf, len);
		free(buf);
	}
}

int main(void)
{
	nops = gen_opcodes(ops, (int)sizeof(ops));
	CHECK_EQ(nops, 38);
	test_every_opcode();
	test_truncation();
	test_malformed_v4();
	test_malformed_v6();
	test_bad_pad();
	test_vlan();
	test_build_errors();
	test_random();
	return test_finish();
}
