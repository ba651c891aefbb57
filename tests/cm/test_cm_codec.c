/* SPDX-License-Identifier: MIT */
/*
 * test_cm_codec.c - the CM MAD codec (wqe/cm.h): the layout tables against
 * the IBTA's message sizes and reserved-bit counts; round trips of every
 * message (decode(encode(x)) == x, and encode(decode(b)) == b for every
 * mutated MAD the decoder accepts); every truncated or overlong MAD
 * refused; the encoder's own refusals; field positions checked byte by
 * byte against IBTA offsets (the ECE vendor IDs, which tshark does not
 * know, among them); the service-ID helpers, the IP CM header and the QP1
 * frame; the names.
 */
#include <string.h>

#include "cm/cm_int.h"
#include "cm_gen.h"
#include "common/bytes.h"
#include "testutil.h"
#include "wqe/wire.h"

#define ROUNDS 300

/* Reserved bits of each message, counted by hand from the IBTA tables
 * (REQ: byte 4, bytes 24-27, 6 + 3 + 3 per path less the alternate's SAP
 * bit; MRA 6 + 3; REJ 6 + 1; REP 4 of byte 27; DREQ byte 11; SIDR_REQ
 * bytes 6-7). */
static const struct {
	uint16_t attr;
	unsigned reserved_bits;
	size_t pdata;
} expect[CM_GEN_NATTRS] = {
    {WQE_CM_ATTR_REQ, 63, 92},	{WQE_CM_ATTR_MRA, 9, 222},	 {WQE_CM_ATTR_REJ, 7, 148},
    {WQE_CM_ATTR_REP, 4, 196},	{WQE_CM_ATTR_RTU, 0, 224},	 {WQE_CM_ATTR_DREQ, 8, 220},
    {WQE_CM_ATTR_DREP, 0, 224}, {WQE_CM_ATTR_SIDR_REQ, 16, 216}, {WQE_CM_ATTR_SIDR_REP, 0, 136},
};

static void test_tables(void)
{
	CHECK_EQ(cm_nlayouts, CM_GEN_NATTRS);
	for (size_t k = 0; k < CM_GEN_NATTRS; k++) {
		const struct cm_layout *lay = cm_layout_of(expect[k].attr);
		uint8_t cover[WQE_CM_DATA_LEN * 8] = {0};
		unsigned covered = 0;

		CHECK(lay != NULL);
		if (!lay)
			continue;
		CHECK_EQ(lay->attr, expect[k].attr);
		CHECK_EQ(lay->pdata_len, expect[k].pdata);
		CHECK_EQ(wqe_cm_pdata_len(expect[k].attr), expect[k].pdata);
		for (size_t i = 0; i < lay->nfields; i++) {
			const struct cm_field *f = &lay->fields[i];
			const unsigned first = f->byte * 8u + f->bit;

			CHECK(first + f->width <= WQE_CM_DATA_LEN * 8);
			if (first + f->width > WQE_CM_DATA_LEN * 8)
				continue;
			if (f->size == 0)
				CHECK(f->bit == 0 && f->width % 8 == 0);
			else
				CHECK(f->vshift + f->width <= f->size * 8u);
			for (unsigned b = 0; b < f->width; b++) {
				if (cover[first + b])
					test_fail(__FILE__, __LINE__, "%s overlaps another field",
						  f->name);
				cover[first + b] = 1;
				covered++;
			}
		}
		CHECK_EQ(WQE_CM_DATA_LEN * 8 - covered, expect[k].reserved_bits);
		/* The private data is the last field and ends the attribute data. */
		const struct cm_field *pd = &lay->fields[lay->nfields - 1];
		CHECK(strstr(pd->name, "private_data") != NULL);
		CHECK_EQ(pd->byte + pd->width / 8u, WQE_CM_DATA_LEN);
		CHECK_EQ(pd->width / 8u, expect[k].pdata);
	}
	CHECK(cm_layout_of(0x000f) == NULL);
	CHECK(cm_layout_of(0x0019) == NULL);
}

static void test_roundtrips(void)
{
	struct test_rng r;

	test_rng_seed(&r, 26);
	for (size_t k = 0; k < CM_GEN_NATTRS; k++) {
		for (int i = 0; i < ROUNDS; i++) {
			struct wqe_cm_msg m, back;
			uint8_t mad[WQE_MAD_LEN], again[WQE_MAD_LEN];
			const char *field = "x";

			cm_gen_random(&r, cm_gen_attrs[k], &m);
			CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), &field), WQE_MAD_LEN);
			CHECK(field == NULL);
			CHECK_EQ(wqe_cm_decode(mad, sizeof(mad), &back, &field), 0);
			CHECK(field == NULL);
			CHECK_MEM(&m, &back, sizeof(m));
			CHECK_EQ(wqe_cm_encode(&back, again, sizeof(again), NULL), WQE_MAD_LEN);
			CHECK_MEM(mad, again, sizeof(mad));

			/* Flip 1-4 random bits of the data: what still decodes
			 * encodes back to the same bytes. */
			unsigned flips = 1 + (unsigned)test_rng_below(&r, 4);
			for (unsigned f = 0; f < flips; f++) {
				unsigned bit = (unsigned)test_rng_below(&r, WQE_MAD_LEN * 8);
				mad[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
			}
			if (wqe_cm_decode(mad, sizeof(mad), &back, NULL) == 0) {
				CHECK_EQ(wqe_cm_encode(&back, again, sizeof(again), NULL),
					 WQE_MAD_LEN);
				CHECK_MEM(mad, again, sizeof(mad));
			}
		}
	}
}

static void test_lengths(void)
{
	struct wqe_cm_msg m, out, before;
	uint8_t mad[WQE_MAD_LEN + 64];

	cm_gen_fixed(WQE_CM_ATTR_REQ, &m);
	memset(mad, 0, sizeof(mad));
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	memset(&out, 0xa5, sizeof(out));
	before = out;
	for (size_t len = 0; len <= sizeof(mad); len++) {
		const char *field = NULL;

		if (len == WQE_MAD_LEN)
			continue;
		CHECK_EQ(wqe_cm_decode(mad, len, &out, &field), WQE_CM_ELEN);
		CHECK(field && strcmp(field, "MAD.length") == 0);
	}
	CHECK_MEM(&out, &before, sizeof(out));
	CHECK_EQ(wqe_cm_decode(NULL, WQE_MAD_LEN, &out, NULL), WQE_CM_EINVAL);
	CHECK_EQ(wqe_cm_decode(mad, WQE_MAD_LEN, NULL, NULL), WQE_CM_EINVAL);
}

/* Encode @m expecting @err blamed on @name; the buffer stays untouched. */
static void expect_encode(const struct wqe_cm_msg *m, int err, const char *name, int line)
{
	uint8_t buf[WQE_MAD_LEN], before[WQE_MAD_LEN];
	const char *field = NULL;
	int rc;

	memset(buf, 0x5a, sizeof(buf));
	memcpy(before, buf, sizeof(buf));
	rc = wqe_cm_encode(m, buf, sizeof(buf), &field);
	if (rc != err || !field || strcmp(field, name) != 0)
		test_fail(__FILE__, line, "encode: got %d (%s) field %s, expected %d field %s", rc,
			  wqe_cm_err_str(rc), field ? field : "(null)", err, name);
	test_checks++;
	CHECK_MEM(buf, before, sizeof(buf));
}

static void test_encode_errors(void)
{
	struct wqe_cm_msg m, x;
	uint8_t buf[WQE_MAD_LEN];

	cm_gen_fixed(WQE_CM_ATTR_REQ, &m);
	CHECK_EQ(wqe_cm_encode(NULL, buf, sizeof(buf), NULL), WQE_CM_EINVAL);
	CHECK_EQ(wqe_cm_encode(&m, NULL, sizeof(buf), NULL), WQE_CM_EINVAL);
	CHECK_EQ(wqe_cm_encode(&m, buf, WQE_MAD_LEN - 1, NULL), WQE_CM_ENOSPC);

	x = m, x.u.req.local_qpn = 1u << 24;
	expect_encode(&x, WQE_CM_EWIDTH, "REQ.local_qpn", __LINE__);
	x = m, x.u.req.primary.flow_label = 1u << 20;
	expect_encode(&x, WQE_CM_EWIDTH, "REQ.primary.flow_label", __LINE__);
	x = m, x.u.req.alternate.sl = 16;
	expect_encode(&x, WQE_CM_EWIDTH, "REQ.alternate.sl", __LINE__);
	x = m, x.u.req.vendor_id = 1u << 24;
	expect_encode(&x, WQE_CM_EWIDTH, "REQ.vendor_id", __LINE__);
	x = m, x.u.req.path_mtu = 6;
	expect_encode(&x, WQE_CM_ERANGE, "REQ.path_mtu", __LINE__);
	x = m, x.u.req.transport_type = WQE_CM_TRANSPORT_EXTENDED;
	expect_encode(&x, WQE_CM_ERANGE, "REQ.ext_transport_type", __LINE__);
	x = m, x.hdr.base_version = 2;
	expect_encode(&x, WQE_CM_EBASE_VERSION, "MAD.base_version", __LINE__);
	x = m, x.hdr.mgmt_class = 0x04;
	expect_encode(&x, WQE_CM_ECLASS, "MAD.mgmt_class", __LINE__);
	x = m, x.hdr.class_version = 1;
	expect_encode(&x, WQE_CM_ECLASS_VERSION, "MAD.class_version", __LINE__);
	x = m, x.hdr.method = 0x01;
	expect_encode(&x, WQE_CM_EMETHOD, "MAD.method", __LINE__);
	x = m, x.hdr.status = 0x0004;
	expect_encode(&x, WQE_CM_ESTATUS, "MAD.status", __LINE__);
	x = m, x.hdr.class_specific = 1;
	expect_encode(&x, WQE_CM_ERESERVED, "MAD.class_specific", __LINE__);
	x = m, x.hdr.attr_id = WQE_CM_ATTR_LAP;
	expect_encode(&x, WQE_CM_EUNSUPPORTED, "MAD.attr_id", __LINE__);
	x = m, x.hdr.attr_id = 0x0042;
	expect_encode(&x, WQE_CM_EATTR, "MAD.attr_id", __LINE__);

	cm_gen_fixed(WQE_CM_ATTR_REP, &m);
	x = m, x.u.rep.vendor_id = 1u << 24;
	expect_encode(&x, WQE_CM_EWIDTH, "REP.vendor_id", __LINE__);
	x = m, x.u.rep.failover_accepted = 3;
	expect_encode(&x, WQE_CM_ERANGE, "REP.failover_accepted", __LINE__);
	cm_gen_fixed(WQE_CM_ATTR_MRA, &m);
	x = m, x.u.mra.service_timeout = 32;
	expect_encode(&x, WQE_CM_EWIDTH, "MRA.service_timeout", __LINE__);
	x = m, x.u.mra.msg_mraed = 3;
	expect_encode(&x, WQE_CM_ERANGE, "MRA.msg_mraed", __LINE__);
	cm_gen_fixed(WQE_CM_ATTR_REJ, &m);
	x = m, x.u.rej.reason = 0;
	expect_encode(&x, WQE_CM_ERANGE, "REJ.reason", __LINE__);
	x = m, x.u.rej.ari_len = 73;
	expect_encode(&x, WQE_CM_ERANGE, "REJ.ari_len", __LINE__);
	x = m, x.u.rej.ari_len = 128;
	expect_encode(&x, WQE_CM_EWIDTH, "REJ.ari_len", __LINE__);
	cm_gen_fixed(WQE_CM_ATTR_SIDR_REP, &m);
	x = m, x.u.sidr_rep.status = 6;
	expect_encode(&x, WQE_CM_ERANGE, "SIDR_REP.status", __LINE__);
	x = m, x.u.sidr_rep.info_len = 73;
	expect_encode(&x, WQE_CM_ERANGE, "SIDR_REP.info_len", __LINE__);
	x = m, x.u.sidr_rep.qpn = 1u << 24;
	expect_encode(&x, WQE_CM_EWIDTH, "SIDR_REP.qpn", __LINE__);
	cm_gen_fixed(WQE_CM_ATTR_DREQ, &m);
	x = m, x.u.dreq.remote_qpn = 1u << 24;
	expect_encode(&x, WQE_CM_EWIDTH, "DREQ.remote_qpn", __LINE__);
}

/* Field positions, checked with the byte helpers at the offsets of the
 * IBTA tables (attribute data starts at MAD byte 24). */
static void test_positions(void)
{
	struct wqe_cm_msg m;
	uint8_t mad[WQE_MAD_LEN];
	const uint8_t *d = mad + WQE_MAD_HDR_LEN;

	cm_gen_fixed(WQE_CM_ATTR_REQ, &m);
	m.hdr.tid = 0x0102030405060708ull;
	m.hdr.attr_mod = 0xa1b2c3d4; /* ECE's attribute modifier */
	m.u.req.vendor_id = 0x02c903;
	m.u.req.sap_supported = 1;
	m.u.req.alternate.local_ack_timeout = 0x1f;
	m.u.req.srq = 1;
	m.u.req.ext_transport_type = 1;
	m.u.req.transport_type = WQE_CM_TRANSPORT_EXTENDED;
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	CHECK_EQ(mad[0], 1);
	CHECK_EQ(mad[1], 0x07);
	CHECK_EQ(mad[2], 2);
	CHECK_EQ(mad[3], 0x03);
	CHECK_EQ(get_be64(mad + 8), 0x0102030405060708ull);
	CHECK_EQ(get_be16(mad + 16), 0x0010);
	CHECK_EQ(get_be16(mad + 18), 0);
	CHECK_EQ(get_be32(mad + 20), 0xa1b2c3d4);
	CHECK_EQ(get_be32(d + 0), 0x1a2b3c4d);
	CHECK_EQ(d[4], 0);
	CHECK_EQ(get_be24(d + 5), 0x02c903);
	CHECK_EQ(get_be64(d + 8), 0x0000000001061d2full);
	CHECK_EQ(get_be32(d + 28), 0x01234567);
	CHECK_EQ(get_be32(d + 32), 0x00abcd04u); /* QPN 24 | responder resources 8 */
	CHECK_EQ(d[39], 3);
	CHECK_EQ(d[43], (20u << 3) | (3u << 1) | 1u); /* timeout 5 | transport 2 | e2e 1 */
	CHECK_EQ(get_be32(d + 44), 0x5a5a5a00u | (18u << 3) | 7u);
	CHECK_EQ(get_be16(d + 48), 0xffff);
	CHECK_EQ(d[50], (3u << 4) | 6u);	      /* MTU 4 | RDC 1 | RNR retry 3 */
	CHECK_EQ(d[51], (15u << 4) | (1u << 3) | 1u); /* CM retries 4 | SRQ 1 | ext 3 */
	CHECK_EQ(get_be16(d + 52), 0xffff);
	CHECK_EQ(d[56 + 15], 1);
	CHECK_EQ(d[72 + 15], 2);
	CHECK_EQ(get_be32(d + 88), (0x12345u << 12) | 16u); /* flow label 20 | rsvd 6 | rate 6 */
	CHECK_EQ(d[92], 0x68);
	CHECK_EQ(d[93], 64);
	CHECK_EQ(d[94], 3u << 4);
	CHECK_EQ(d[95], 19u << 3);
	CHECK_EQ(d[139], (0x1fu << 3) | 0x04u); /* alt ACK timeout 5 | SAP 1 | rsvd 2 */
	CHECK_EQ(d[140], 0x00);			/* IP CM header: version 0 */
	CHECK_EQ(d[141], 0x40);			/* IPv4 */
	CHECK_EQ(get_be16(d + 142), 40000);

	cm_gen_fixed(WQE_CM_ATTR_REP, &m);
	m.u.rep.vendor_id = 0xaabbcc;
	m.u.rep.local_eecn = 0x123456;
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	CHECK_EQ(get_be32(d + 12), 0x00bcdeaau);
	CHECK_EQ(get_be32(d + 16), 0x123456bbu);
	CHECK_EQ(get_be32(d + 20), 0x3c3c3cccu);
	CHECK_EQ(d[26], (15u << 3) | (1u << 1) | 1u);
	CHECK_EQ(d[27], (7u << 5) | (1u << 4));
	CHECK_EQ(get_be64(d + 28), 0x0002c90300d4e5f6ull);
	CHECK_EQ(d[36], 0x13);

	cm_gen_fixed(WQE_CM_ATTR_SIDR_REP, &m);
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	CHECK_EQ(get_be32(d + 0), 0x3c4d5e6f);
	CHECK_EQ(get_be16(d + 6), 0x02c9);
	CHECK_EQ(get_be32(d + 8), 0x00cdef03u);
	CHECK_EQ(get_be64(d + 12), 0x0000000001111c06ull);
	CHECK_EQ(get_be32(d + 20), 0x01234567);
	CHECK_EQ(d[96], 0x18);

	cm_gen_fixed(WQE_CM_ATTR_MRA, &m);
	m.u.mra.msg_mraed = WQE_CM_MSG_OTHER;
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	CHECK_EQ(d[8], 2u << 6);
	CHECK_EQ(d[9], 21u << 3);
	CHECK_EQ(d[10], 0x11);

	cm_gen_fixed(WQE_CM_ATTR_REJ, &m);
	m.u.rej.msg_rejected = WQE_CM_MSG_REP;
	m.u.rej.ari_len = 72;
	m.u.rej.ari[0] = 0xee;
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	CHECK_EQ(d[8], 1u << 6);
	CHECK_EQ(d[9], 72u << 1);
	CHECK_EQ(get_be16(d + 10), 28);
	CHECK_EQ(d[12], 0xee);
	CHECK_EQ(d[84], 0x12);

	cm_gen_fixed(WQE_CM_ATTR_DREQ, &m);
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	CHECK_EQ(get_be32(d + 8), 0x00bcde00u);
	CHECK_EQ(d[12], 0x15);

	cm_gen_fixed(WQE_CM_ATTR_SIDR_REQ, &m);
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	CHECK_EQ(get_be16(d + 4), 0xffff);
	CHECK_EQ(get_be16(d + 6), 0);
	CHECK_EQ(get_be64(d + 8), 0x0000000001111c06ull);
	CHECK_EQ(d[17], 0x40);
}

static void test_service_ids(void)
{
	enum wqe_rdma_ps ps = WQE_RDMA_PS_IB;
	uint16_t port = 0;

	CHECK_EQ(wqe_cm_service_id(WQE_RDMA_PS_TCP, 4791), 0x00000000010612b7ull);
	CHECK_EQ(wqe_cm_service_id(WQE_RDMA_PS_UDP, 0), 0x0000000001110000ull);
	CHECK_EQ(wqe_cm_service_id(WQE_RDMA_PS_IB, 0xffff), 0x00000000013fffffull);
	CHECK_EQ(wqe_cm_service_id_parse(0x00000000010612b7ull, &ps, &port), 0);
	CHECK_EQ(ps, WQE_RDMA_PS_TCP);
	CHECK_EQ(port, 4791);
	CHECK_EQ(wqe_cm_service_id_parse(0x0000000001110001ull, &ps, NULL), 0);
	CHECK_EQ(ps, WQE_RDMA_PS_UDP);
	CHECK_EQ(wqe_cm_service_id_parse(0x00000000013f0002ull, NULL, &port), 0);
	CHECK_EQ(port, 2);
	ps = WQE_RDMA_PS_TCP;
	port = 7;
	CHECK_EQ(wqe_cm_service_id_parse(0x0000000001070001ull, &ps, &port), WQE_CM_ERANGE);
	CHECK_EQ(wqe_cm_service_id_parse(0x0000000002060001ull, &ps, &port), WQE_CM_ERANGE);
	CHECK_EQ(wqe_cm_service_id_parse(0x0000000101060001ull, &ps, &port), WQE_CM_ERANGE);
	CHECK_EQ(wqe_cm_service_id_parse(0, &ps, &port), WQE_CM_ERANGE);
	CHECK_EQ(ps, WQE_RDMA_PS_TCP);
	CHECK_EQ(port, 7);
}

static void test_ip_hdr(void)
{
	struct wqe_cm_ip_hdr h = {.ip_version = 4, .src_port = 0xbeef}, back, before;
	uint8_t b[WQE_CM_IP_HDR_LEN + 4], bad[WQE_CM_IP_HDR_LEN];
	static const uint8_t want4[WQE_CM_IP_HDR_LEN] = {
	    0x00, 0x40, 0xbe, 0xef, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   0,   192, 168,
	    1,	  2,	0,    0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 192, 168, 1,	 3};

	test_gid_v4(&h.src, 192, 168, 1, 2);
	test_gid_v4(&h.dst, 192, 168, 1, 3);
	CHECK_EQ(wqe_cm_ip_hdr_encode(&h, b, sizeof(b)), WQE_CM_IP_HDR_LEN);
	CHECK_MEM(b, want4, sizeof(want4));
	memset(&back, 0, sizeof(back));
	CHECK_EQ(wqe_cm_ip_hdr_decode(b, WQE_CM_IP_HDR_LEN, &back), WQE_CM_IP_HDR_LEN);
	CHECK_MEM(&back, &h, sizeof(h));

	h.ip_version = 6;
	test_gid_v6(&h.src, 1);
	test_gid_v6(&h.dst, 2);
	CHECK_EQ(wqe_cm_ip_hdr_encode(&h, b, sizeof(b)), WQE_CM_IP_HDR_LEN);
	CHECK_EQ(b[1], 0x60);
	CHECK_MEM(b + 4, h.src.raw, 16);
	CHECK_MEM(b + 20, h.dst.raw, 16);
	CHECK_EQ(wqe_cm_ip_hdr_decode(b, sizeof(b), &back), WQE_CM_IP_HDR_LEN);
	CHECK_MEM(&back, &h, sizeof(h));

	/* Encoder refusals. */
	h.ip_version = 4; /* with IPv6 addresses */
	CHECK_EQ(wqe_cm_ip_hdr_encode(&h, b, sizeof(b)), WQE_CM_ERANGE);
	h.ip_version = 5;
	CHECK_EQ(wqe_cm_ip_hdr_encode(&h, b, sizeof(b)), WQE_CM_ERANGE);
	h.ip_version = 6;
	CHECK_EQ(wqe_cm_ip_hdr_encode(&h, b, WQE_CM_IP_HDR_LEN - 1), WQE_CM_ENOSPC);
	CHECK_EQ(wqe_cm_ip_hdr_encode(NULL, b, sizeof(b)), WQE_CM_EINVAL);

	/* Decoder refusals leave *h alone. */
	memset(&back, 0x77, sizeof(back));
	before = back;
	CHECK_EQ(wqe_cm_ip_hdr_decode(want4, WQE_CM_IP_HDR_LEN - 1, &back), WQE_CM_ELEN);
	memcpy(bad, want4, sizeof(bad));
	bad[0] = 0x10; /* major version 1 */
	CHECK_EQ(wqe_cm_ip_hdr_decode(bad, sizeof(bad), &back), WQE_CM_ERANGE);
	memcpy(bad, want4, sizeof(bad));
	bad[1] = 0x50;
	CHECK_EQ(wqe_cm_ip_hdr_decode(bad, sizeof(bad), &back), WQE_CM_ERANGE);
	bad[1] = 0x41;
	CHECK_EQ(wqe_cm_ip_hdr_decode(bad, sizeof(bad), &back), WQE_CM_ERESERVED);
	memcpy(bad, want4, sizeof(bad));
	bad[14] = 0xff; /* ::ffff: in the wire form is not zero padding */
	CHECK_EQ(wqe_cm_ip_hdr_decode(bad, sizeof(bad), &back), WQE_CM_ERESERVED);
	memcpy(bad, want4, sizeof(bad));
	bad[20] = 1;
	CHECK_EQ(wqe_cm_ip_hdr_decode(bad, sizeof(bad), &back), WQE_CM_ERESERVED);
	CHECK_EQ(wqe_cm_ip_hdr_decode(NULL, sizeof(bad), &back), WQE_CM_EINVAL);
	CHECK_MEM(&back, &before, sizeof(back));
}

static void check_frame(int ipver)
{
	struct wqe_pkt a, p;
	struct wqe_cm_msg m;
	uint8_t mad[WQE_MAD_LEN], frame[512];
	size_t len = 0;

	memset(&a, 0, sizeof(a));
	a.ipver = (uint8_t)ipver;
	if (ipver == 4) {
		test_gid_v4(&a.src, 10, 0, 0, 1);
		test_gid_v4(&a.dst, 10, 0, 0, 2);
	} else {
		test_gid_v6(&a.src, 1);
		test_gid_v6(&a.dst, 2);
	}
	a.sport = 49152;
	a.ttl = 64;
	a.bth.psn = 0x123456;
	a.bth.destqp = 0x99; /* ignored */
	cm_gen_fixed(WQE_CM_ATTR_REQ, &m);
	CHECK_EQ(wqe_cm_encode(&m, mad, sizeof(mad), NULL), WQE_MAD_LEN);
	CHECK_EQ(wqe_cm_frame_build(&a, mad, frame, 100, &len), WQE_PKT_ENOSPC);
	CHECK_EQ(wqe_cm_frame_build(NULL, mad, frame, sizeof(frame), &len), WQE_PKT_EINVAL);
	CHECK_EQ(wqe_cm_frame_build(&a, mad, frame, sizeof(frame), &len), 0);
	CHECK_EQ(len, WQE_ETH_LEN + (ipver == 4 ? WQE_IPV4_LEN : WQE_IPV6_LEN) + WQE_UDP_LEN +
			  WQE_BTH_LEN + WQE_DETH_LEN + WQE_MAD_LEN + WQE_ICRC_LEN);
	CHECK_EQ(wqe_pkt_parse(frame, len, &p), 0);
	CHECK_EQ(p.bth.opcode, WQE_WIRE_UD_SEND_ONLY);
	CHECK_EQ(p.bth.destqp, 1);
	CHECK_EQ(p.bth.pkey, 0xffff);
	CHECK_EQ(p.bth.padcnt, 0);
	CHECK_EQ(p.bth.psn, 0x123456);
	CHECK_EQ(p.deth.qkey, 0x80010000u);
	CHECK_EQ(p.deth.srcqp, 1);
	CHECK_EQ(p.dport, WQE_ROCEV2_PORT);
	CHECK_EQ(p.payload_len, WQE_MAD_LEN);
	CHECK(p.icrc_ok);
	if (p.payload_len == WQE_MAD_LEN)
		CHECK_MEM(p.payload, mad, WQE_MAD_LEN);
}

static void test_names(void)
{
	const int errs[] = {WQE_CM_ELEN,	   WQE_CM_EBASE_VERSION, WQE_CM_ECLASS,
			    WQE_CM_ECLASS_VERSION, WQE_CM_EATTR,	 WQE_CM_EUNSUPPORTED,
			    WQE_CM_EMETHOD,	   WQE_CM_ESTATUS,	 WQE_CM_ERESERVED,
			    WQE_CM_ERANGE,	   WQE_CM_EWIDTH,	 WQE_CM_ENOSPC,
			    WQE_CM_EINVAL};
	const size_t n = sizeof(errs) / sizeof(errs[0]);

	for (size_t i = 0; i < n; i++) {
		CHECK(strcmp(wqe_cm_err_str(errs[i]), "unknown error") != 0);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(wqe_cm_err_str(errs[i]), wqe_cm_err_str(errs[j])) != 0);
	}
	CHECK(strcmp(wqe_cm_err_str(-99), "unknown error") == 0);
	CHECK(strcmp(wqe_cm_attr_str(WQE_CM_ATTR_REQ), "REQ") == 0);
	CHECK(strcmp(wqe_cm_attr_str(WQE_CM_ATTR_SIDR_REP), "SIDR_REP") == 0);
	CHECK(strcmp(wqe_cm_attr_str(WQE_CM_ATTR_APR), "APR") == 0);
	CHECK(strcmp(wqe_cm_attr_str(0x1234), "unknown") == 0);
	CHECK(strcmp(wqe_cm_rej_reason_str(28), "consumer defined") == 0);
	CHECK(strcmp(wqe_cm_rej_reason_str(35), "vendor option not supported") == 0);
	CHECK(strcmp(wqe_cm_rej_reason_str(0), "unknown") == 0);
	CHECK(strcmp(wqe_cm_rej_reason_str(36), "unknown") == 0);
	for (uint16_t r = 1; r <= 35; r++)
		CHECK(strcmp(wqe_cm_rej_reason_str(r), "unknown") != 0);
	CHECK_EQ(wqe_cm_pdata_len(WQE_CM_ATTR_LAP), 0);
}

int main(void)
{
	test_tables();
	test_roundtrips();
	test_lengths();
	test_encode_errors();
	test_positions();
	test_service_ids();
	test_ip_hdr();
	check_frame(4);
	check_frame(6);
	test_names();
	return test_finish();
}
