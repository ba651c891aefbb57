/* SPDX-License-Identifier: MIT */
/*
 * test_codec.c - the header codecs and the opcode table: every codec round
 * trips random values, refuses short buffers, masks over-wide fields, and
 * lays bytes out as IBA says; every opcode's header set and length match
 * rxe_opcode.c, and its longest frame fits WQE_FRAME_MAX; AETH syndrome
 * helpers and names.
 */
#include <string.h>

#include "testutil.h"
#include "wire_gen.h"

#define ROUNDS 2000

/* clang-format off */
/* Round trip, short buffers: one macro per codec pair, used below. */
#define RT(name, LEN, h)                                                                      \
	do {                                                                                  \
		struct wqe_##name back_;                                                      \
		uint8_t buf_[64], buf2_[64];                                                  \
		memset(&back_, 0, sizeof(back_));                                             \
		CHECK_EQ(wqe_##name##_encode(&(h), buf_, LEN - 1), 0);                        \
		CHECK_EQ(wqe_##name##_encode(&(h), buf_, LEN), LEN);                          \
		CHECK_EQ(wqe_##name##_decode(buf_, LEN - 1, &back_), 0);                      \
		CHECK_EQ(wqe_##name##_decode(buf_, LEN, &back_), LEN);                        \
		CHECK_EQ(wqe_##name##_encode(&back_, buf2_, sizeof(buf2_)), LEN);             \
		CHECK_MEM(buf_, buf2_, LEN);                                                  \
	} while (0)
/* clang-format on */

static void test_roundtrips(void)
{
	struct test_rng r;
	struct wqe_pkt p;
	uint8_t pay[1];
	uint32_t n;

	test_rng_seed(&r, 1);
	for (int i = 0; i < ROUNDS; i++) {
		gen_pkt(&r, WQE_WIRE_RC_SEND_ONLY, 4, &p, pay, 0, &n);
		RT(bth, WQE_BTH_LEN, p.bth);
		RT(reth, WQE_RETH_LEN, p.reth);
		RT(aeth, WQE_AETH_LEN, p.aeth);
		RT(atomiceth, WQE_ATOMICETH_LEN, p.atomiceth);
		RT(atomicacketh, WQE_ATOMICACKETH_LEN, p.atomicacketh);
		RT(immdt, WQE_IMMDT_LEN, p.immdt);
		RT(ieth, WQE_IETH_LEN, p.ieth);
		RT(deth, WQE_DETH_LEN, p.deth);
		RT(cnp, WQE_CNP_LEN, p.cnp);
	}
}

/* Field values survive decode exactly (not only the bytes). */
static void test_bth_fields(void)
{
	struct test_rng r;
	struct wqe_pkt p;
	struct wqe_bth b;
	uint8_t buf[WQE_BTH_LEN], pay[1];
	uint32_t n;

	test_rng_seed(&r, 2);
	for (int i = 0; i < ROUNDS; i++) {
		gen_pkt(&r, (uint8_t)test_rng_below(&r, 256), 6, &p, pay, 0, &n);
		p.bth.padcnt = (uint8_t)test_rng_below(&r, 4);
		wqe_bth_encode(&p.bth, buf, sizeof(buf));
		wqe_bth_decode(buf, sizeof(buf), &b);
		CHECK_EQ(b.opcode, p.bth.opcode);
		CHECK_EQ(b.se, p.bth.se);
		CHECK_EQ(b.migreq, p.bth.migreq);
		CHECK_EQ(b.padcnt, p.bth.padcnt);
		CHECK_EQ(b.tver, p.bth.tver);
		CHECK_EQ(b.pkey, p.bth.pkey);
		CHECK_EQ(b.fecn, p.bth.fecn);
		CHECK_EQ(b.becn, p.bth.becn);
		CHECK_EQ(b.resv6, p.bth.resv6);
		CHECK_EQ(b.destqp, p.bth.destqp);
		CHECK_EQ(b.ackreq, p.bth.ackreq);
		CHECK_EQ(b.resv7, p.bth.resv7);
		CHECK_EQ(b.psn, p.bth.psn);
	}
}

/* Byte layouts from IBA vol. 1 9.2-9.4 (and the reference's §2.5 vector). */
static void test_layouts(void)
{
	static const uint8_t bth_hello[] = {0x04, 0x30, 0xff, 0xff, 0x00, 0x00,
					    0x00, 0x11, 0x80, 0x00, 0x00, 0x01};
	struct wqe_bth b = {
	    .opcode = 4, .padcnt = 3, .pkey = 0xffff, .destqp = 0x11, .ackreq = 1, .psn = 1};
	struct wqe_bth all = {.opcode = 0xff,
			      .se = 1,
			      .migreq = 1,
			      .padcnt = 3,
			      .tver = 0xf,
			      .pkey = 0xffff,
			      .fecn = 1,
			      .becn = 1,
			      .resv6 = 0x3f,
			      .destqp = 0xffffff,
			      .ackreq = 1,
			      .resv7 = 0x7f,
			      .psn = 0xffffff};
	struct wqe_bth wide = {.padcnt = 7, .tver = 0x1f, .destqp = 0x1abcdef, .psn = 0x2123456};
	struct wqe_deth d = {.qkey = 0x80010000, .resv8 = 0, .srcqp = 0x123456};
	struct wqe_aeth a = {.syndrome = 0x60, .msn = 0xabcdef};
	static const uint8_t deth_b[] = {0x80, 0x01, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56};
	static const uint8_t aeth_b[] = {0x60, 0xab, 0xcd, 0xef};
	uint8_t buf[16];

	wqe_bth_encode(&b, buf, sizeof(buf));
	CHECK_MEM(buf, bth_hello, sizeof(bth_hello));
	wqe_bth_encode(&all, buf, sizeof(buf));
	for (int i = 0; i < WQE_BTH_LEN; i++)
		CHECK_EQ(buf[i], 0xff);
	/* Over-wide fields are masked, never spill into neighbours. */
	wqe_bth_encode(&wide, buf, sizeof(buf));
	CHECK_EQ(buf[1], 0x3f);
	CHECK_EQ(buf[4], 0);
	CHECK_EQ(buf[5], 0xab);
	CHECK_EQ(buf[8], 0);
	CHECK_EQ(buf[9], 0x12);
	wqe_deth_encode(&d, buf, sizeof(buf));
	CHECK_MEM(buf, deth_b, sizeof(deth_b));
	wqe_aeth_encode(&a, buf, sizeof(buf));
	CHECK_MEM(buf, aeth_b, sizeof(aeth_b));
}

/* clang-format off */
/* rxe_opcode.c lengths (BTH to payload) and whether a payload follows. */
static const struct {
	uint8_t op;
	uint8_t len;
	uint8_t payload;
	uint32_t hdrs;
} rxe_ops[] = {
	{0x00, 12, 1, 0}, {0x01, 12, 1, 0}, {0x02, 12, 1, 0}, {0x03, 16, 1, WQE_HDR_IMMDT},
	{0x04, 12, 1, 0}, {0x05, 16, 1, WQE_HDR_IMMDT}, {0x06, 28, 1, WQE_HDR_RETH},
	{0x07, 12, 1, 0}, {0x08, 12, 1, 0}, {0x09, 16, 1, WQE_HDR_IMMDT},
	{0x0a, 28, 1, WQE_HDR_RETH}, {0x0b, 32, 1, WQE_HDR_RETH | WQE_HDR_IMMDT},
	{0x0c, 28, 0, WQE_HDR_RETH}, {0x0d, 16, 1, WQE_HDR_AETH}, {0x0e, 12, 1, 0},
	{0x0f, 16, 1, WQE_HDR_AETH}, {0x10, 16, 1, WQE_HDR_AETH}, {0x11, 16, 0, WQE_HDR_AETH},
	{0x12, 24, 0, WQE_HDR_AETH | WQE_HDR_ATOMICACKETH}, {0x13, 40, 0, WQE_HDR_ATOMICETH},
	{0x14, 40, 0, WQE_HDR_ATOMICETH}, {0x16, 16, 1, WQE_HDR_IETH},
	{0x17, 16, 1, WQE_HDR_IETH}, {0x64, 20, 1, WQE_HDR_DETH},
	{0x65, 24, 1, WQE_HDR_DETH | WQE_HDR_IMMDT}, {0x81, 28, 0, WQE_HDR_CNP},
};
/* clang-format on */

static void test_table(void)
{
	struct wqe_wire_opinfo info;
	int found = 0;

	for (unsigned op = 0; op < 256; op++) {
		int want = -1;

		for (size_t i = 0; i < sizeof(rxe_ops) / sizeof(rxe_ops[0]); i++)
			if (rxe_ops[i].op == op ||
			    (op >= 0x20 && op <= 0x2b && rxe_ops[i].op == op - 0x20))
				want = (int)i;
		if (wqe_wire_opcode_info((uint8_t)op, &info)) {
			CHECK(want < 0);
			CHECK(!strcmp(wqe_wire_opcode_str((uint8_t)op), "unknown"));
			continue;
		}
		found++;
		CHECK(want >= 0);
		if (want < 0)
			continue;
		CHECK_EQ(info.hdr_len, rxe_ops[want].len);
		CHECK_EQ(info.hdrs, WQE_HDR_BTH | rxe_ops[want].hdrs);
		CHECK_EQ(info.has_payload, rxe_ops[want].payload);
		CHECK_EQ(wqe_hdrs_len(info.hdrs), info.hdr_len);
		CHECK(!strcmp(info.name, wqe_wire_opcode_str((uint8_t)op)));
		CHECK_EQ(info.transport, op < 0x20   ? WQE_TRANSPORT_RC
					 : op < 0x40 ? WQE_TRANSPORT_UC
					 : op < 0x80 ? WQE_TRANSPORT_UD
						     : WQE_TRANSPORT_CNP);
	}
	CHECK_EQ(found, 23 + 12 + 2 + 1);
}

/* WQE_FRAME_MAX holds the longest packet of every opcode: tagged, over
 * IPv6, with 4096 bytes of payload (the largest path MTU) when it has any. */
static void test_frame_max(void)
{
	struct wqe_wire_opinfo info;
	struct wqe_pkt p;

	memset(&p, 0, sizeof(p));
	p.ipver = 6;
	p.has_vlan = 1;
	for (unsigned op = 0; op < 256; op++) {
		if (wqe_wire_opcode_info((uint8_t)op, &info))
			continue;
		p.bth.opcode = (uint8_t)op;
		CHECK(wqe_pkt_frame_len(&p, info.has_payload ? 4096 : 0) <= WQE_FRAME_MAX);
	}
	p.bth.opcode = WQE_WIRE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
	CHECK_EQ(wqe_pkt_frame_len(&p, 4096), 4198);
}

static void test_names_roles(void)
{
	struct wqe_wire_opinfo i;

	CHECK(!strcmp(wqe_wire_opcode_str(0x04), "RC_SEND_ONLY"));
	CHECK(!strcmp(wqe_wire_opcode_str(0x2a), "UC_RDMA_WRITE_ONLY"));
	CHECK(!strcmp(wqe_wire_opcode_str(0x65), "UD_SEND_ONLY_WITH_IMMEDIATE"));
	CHECK(!strcmp(wqe_wire_opcode_str(0x17), "RC_SEND_ONLY_WITH_INVALIDATE"));
	CHECK(!strcmp(wqe_wire_opcode_str(0x81), "CNP"));
	CHECK(!strcmp(wqe_wire_opcode_str(0x15), "unknown"));
	CHECK(!strcmp(wqe_wire_opcode_str(0x40), "unknown")); /* RD: not modelled */
	wqe_wire_opcode_info(0x0d, &i);
	CHECK_EQ(i.role, WQE_ROLE_FIRST);
	CHECK_EQ(i.kind, WQE_KIND_READ_RESPONSE);
	CHECK(i.is_response);
	wqe_wire_opcode_info(0x27, &i);
	CHECK_EQ(i.role, WQE_ROLE_MIDDLE);
	CHECK_EQ(i.kind, WQE_KIND_RDMA_WRITE);
	CHECK(!i.is_response);
	wqe_wire_opcode_info(0x16, &i);
	CHECK_EQ(i.role, WQE_ROLE_LAST);
	wqe_wire_opcode_info(0x13, &i);
	CHECK_EQ(i.role, WQE_ROLE_ONLY);
	CHECK_EQ(i.kind, WQE_KIND_COMPARE_SWAP);
	CHECK(!strcmp(wqe_wire_role_str(WQE_ROLE_LAST), "LAST"));
	CHECK(!strcmp(wqe_wire_transport_str(WQE_TRANSPORT_UD), "UD"));
	CHECK(!strcmp(wqe_wire_kind_str(WQE_KIND_FETCH_ADD), "FETCH_ADD"));
	CHECK(!strcmp(wqe_hdr_str(WQE_HDR_ATOMICACKETH), "AtomicAckETH"));
	CHECK(!strcmp(wqe_hdr_str((enum wqe_hdr)3), "unknown"));
	CHECK_EQ(wqe_hdr_size(WQE_HDR_ATOMICETH), 28);
	/* Offsets follow the wire order. */
	CHECK_EQ(wqe_hdr_offset(WQE_HDR_BTH | WQE_HDR_RETH | WQE_HDR_IMMDT, WQE_HDR_IMMDT), 28);
	CHECK_EQ(wqe_hdr_offset(WQE_HDR_BTH | WQE_HDR_DETH | WQE_HDR_IMMDT, WQE_HDR_IMMDT), 20);
	CHECK_EQ(
	    wqe_hdr_offset(WQE_HDR_BTH | WQE_HDR_AETH | WQE_HDR_ATOMICACKETH, WQE_HDR_ATOMICACKETH),
	    16);
	CHECK_EQ(wqe_hdr_offset(WQE_HDR_BTH | WQE_HDR_AETH, WQE_HDR_RETH), -1);
}

static void test_aeth(void)
{
	CHECK_EQ(wqe_aeth_ack(31), 0x1f);
	CHECK_EQ(wqe_aeth_rnr_nak(14), 0x2e);
	CHECK_EQ(wqe_aeth_rnr_nak(0xff), 0x3f);
	CHECK_EQ(wqe_aeth_type(0x1f), WQE_AETH_TYPE_ACK);
	CHECK_EQ(wqe_aeth_type(0x2e), WQE_AETH_TYPE_RNR_NAK);
	CHECK_EQ(wqe_aeth_type(0x61), WQE_AETH_TYPE_NAK);
	CHECK_EQ(wqe_aeth_value(0x2e), 14);
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x00), "ACK"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x1f), "ACK"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x3f), "RNR_NAK"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x60), "NAK_PSN_SEQ_ERR"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x61), "NAK_INVALID_REQ"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x62), "NAK_REM_ACCESS_ERR"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x63), "NAK_REM_OP_ERR"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x64), "NAK_INVALID_RD_REQ"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x65), "reserved"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x40), "reserved"));
	CHECK(!strcmp(wqe_aeth_syndrome_str(0x80), "reserved"));
}

static void test_err_str(void)
{
	for (int e = WQE_PKT_EINVAL; e <= 0; e++) {
		CHECK(strcmp(wqe_pkt_err_str(e), "unknown error") != 0);
		for (int f = WQE_PKT_EINVAL; f < e; f++)
			CHECK(strcmp(wqe_pkt_err_str(e), wqe_pkt_err_str(f)) != 0);
		CHECK_EQ(wqe_pkt_err_not_roce(e),
			 e <= WQE_PKT_ETRUNC_ETH && e >= WQE_PKT_ENOT_ROCE);
	}
	CHECK(!strcmp(wqe_pkt_err_str(WQE_PKT_EINVAL - 1), "unknown error"));
	CHECK(!strcmp(wqe_pkt_err_str(1), "unknown error"));
}

int main(void)
{
	test_roundtrips();
	test_bth_fields();
	test_layouts();
	test_table();
	test_frame_max();
	test_names_roles();
	test_aeth();
	test_err_str();
	return test_finish();
}
