/* SPDX-License-Identifier: MIT */
/*
 * test_cm_malformed.c - the decoder's refusals, one table row per way a
 * MAD can be wrong: length, base version, class, class version, unknown
 * and unsupported attributes, a method other than Send, status, the
 * header's reserved fields, every reserved bit of every message (positions
 * listed by hand from the IBTA tables), and every value the spec leaves
 * undefined. Each row starts from a valid MAD of the message and checks
 * the error code, the field blamed, and that the output struct is
 * untouched. Then every single-bit flip of every valid message is either
 * accepted or refused for a reason other than "reserved" exactly when the
 * bit is not in the hand-made reserved list.
 */
#include <string.h>

#include "cm_gen.h"
#include "common/bytes.h"
#include "testutil.h"

#define D(off) (WQE_MAD_HDR_LEN + (off)) /* attribute data offset -> MAD offset */

enum op { SET8, XOR8, SET16, LEN };

struct row {
	const char *what;
	uint16_t attr; /* the valid message to start from */
	enum op op;
	uint16_t off; /* MAD byte; for LEN the length */
	uint16_t v;
	int err;
	const char *field;
};

/* clang-format off */
static const struct row rows[] = {
	{"empty",              WQE_CM_ATTR_REQ, LEN, 0, 0, WQE_CM_ELEN, "MAD.length"},
	{"header only",        WQE_CM_ATTR_REQ, LEN, 24, 0, WQE_CM_ELEN, "MAD.length"},
	{"one byte short",     WQE_CM_ATTR_RTU, LEN, 255, 0, WQE_CM_ELEN, "MAD.length"},
	{"one byte long",      WQE_CM_ATTR_RTU, LEN, 257, 0, WQE_CM_ELEN, "MAD.length"},
	{"OPA-size MAD",       WQE_CM_ATTR_RTU, LEN, 2048, 0, WQE_CM_ELEN, "MAD.length"},
	{"base version 0",     WQE_CM_ATTR_REQ, SET8, 0, 0, WQE_CM_EBASE_VERSION, "MAD.base_version"},
	{"base version 2 (OPA)", WQE_CM_ATTR_REQ, SET8, 0, 2, WQE_CM_EBASE_VERSION, "MAD.base_version"},
	{"class SubnAdm",      WQE_CM_ATTR_REQ, SET8, 1, 0x03, WQE_CM_ECLASS, "MAD.mgmt_class"},
	{"class PerfMgt",      WQE_CM_ATTR_REP, SET8, 1, 0x04, WQE_CM_ECLASS, "MAD.mgmt_class"},
	{"class SMP directed", WQE_CM_ATTR_REP, SET8, 1, 0x81, WQE_CM_ECLASS, "MAD.mgmt_class"},
	{"class version 1",    WQE_CM_ATTR_REQ, SET8, 2, 1, WQE_CM_ECLASS_VERSION, "MAD.class_version"},
	{"class version 3",    WQE_CM_ATTR_DREQ, SET8, 2, 3, WQE_CM_ECLASS_VERSION, "MAD.class_version"},
	{"attribute 0",        WQE_CM_ATTR_REQ, SET16, 16, 0x0000, WQE_CM_EATTR, "MAD.attr_id"},
	{"attribute 0x000f",   WQE_CM_ATTR_REQ, SET16, 16, 0x000f, WQE_CM_EATTR, "MAD.attr_id"},
	{"attribute 0x001b",   WQE_CM_ATTR_REQ, SET16, 16, 0x001b, WQE_CM_EATTR, "MAD.attr_id"},
	{"attribute 0xffff",   WQE_CM_ATTR_REQ, SET16, 16, 0xffff, WQE_CM_EATTR, "MAD.attr_id"},
	{"ClassPortInfo",      WQE_CM_ATTR_REQ, SET16, 16, 0x0001, WQE_CM_EUNSUPPORTED, "MAD.attr_id"},
	{"LAP",                WQE_CM_ATTR_REQ, SET16, 16, 0x0019, WQE_CM_EUNSUPPORTED, "MAD.attr_id"},
	{"APR",                WQE_CM_ATTR_REQ, SET16, 16, 0x001a, WQE_CM_EUNSUPPORTED, "MAD.attr_id"},
	{"method Get",         WQE_CM_ATTR_REQ, SET8, 3, 0x01, WQE_CM_EMETHOD, "MAD.method"},
	{"method Set",         WQE_CM_ATTR_REP, SET8, 3, 0x02, WQE_CM_EMETHOD, "MAD.method"},
	{"method GetResp",     WQE_CM_ATTR_REJ, SET8, 3, 0x81, WQE_CM_EMETHOD, "MAD.method"},
	{"method Send|R",      WQE_CM_ATTR_RTU, SET8, 3, 0x83, WQE_CM_EMETHOD, "MAD.method"},
	{"method Trap",        WQE_CM_ATTR_MRA, SET8, 3, 0x05, WQE_CM_EMETHOD, "MAD.method"},
	{"method 0",           WQE_CM_ATTR_SIDR_REQ, SET8, 3, 0x00, WQE_CM_EMETHOD, "MAD.method"},
	{"status busy",        WQE_CM_ATTR_REQ, SET16, 4, 0x0001, WQE_CM_ESTATUS, "MAD.status"},
	{"status bad attr",    WQE_CM_ATTR_SIDR_REP, SET16, 4, 0x000c, WQE_CM_ESTATUS, "MAD.status"},
	{"class specific",     WQE_CM_ATTR_REQ, SET16, 6, 0x8000, WQE_CM_ERESERVED, "MAD.class_specific"},
	{"header reserved hi", WQE_CM_ATTR_REQ, SET8, 18, 0x01, WQE_CM_ERESERVED, "MAD.reserved"},
	{"header reserved lo", WQE_CM_ATTR_DREP, SET8, 19, 0x80, WQE_CM_ERESERVED, "MAD.reserved"},
	/* Values the spec leaves undefined (bit positions from the IBTA tables). */
	{"REQ path MTU 0",     WQE_CM_ATTR_REQ, SET8, D(50), 0x06, WQE_CM_ERANGE, "REQ.path_mtu"},
	{"REQ path MTU 6",     WQE_CM_ATTR_REQ, SET8, D(50), 0x66, WQE_CM_ERANGE, "REQ.path_mtu"},
	{"REQ path MTU 15",    WQE_CM_ATTR_REQ, SET8, D(50), 0xf6, WQE_CM_ERANGE, "REQ.path_mtu"},
	{"REQ RC with ext XRC", WQE_CM_ATTR_REQ, SET8, D(51), 0xf1, WQE_CM_ERANGE, "REQ.ext_transport_type"},
	{"REQ type 3, ext 0",  WQE_CM_ATTR_REQ, XOR8, D(43), 0x06, WQE_CM_ERANGE, "REQ.ext_transport_type"},
	{"REQ ext 7",          WQE_CM_ATTR_REQ, SET8, D(51), 0xf7, WQE_CM_ERANGE, "REQ.ext_transport_type"},
	{"MRA MRAed 3",        WQE_CM_ATTR_MRA, SET8, D(8), 0xc0, WQE_CM_ERANGE, "MRA.msg_mraed"},
	{"REJ rejected 3",     WQE_CM_ATTR_REJ, SET8, D(8), 0xc0, WQE_CM_ERANGE, "REJ.msg_rejected"},
	{"REJ ARI length 73",  WQE_CM_ATTR_REJ, SET8, D(9), 73 << 1, WQE_CM_ERANGE, "REJ.ari_len"},
	{"REJ ARI length 127", WQE_CM_ATTR_REJ, SET8, D(9), 0xfe, WQE_CM_ERANGE, "REJ.ari_len"},
	{"REJ reason 0",       WQE_CM_ATTR_REJ, SET16, D(10), 0, WQE_CM_ERANGE, "REJ.reason"},
	{"REJ reason 36",      WQE_CM_ATTR_REJ, SET16, D(10), 36, WQE_CM_ERANGE, "REJ.reason"},
	{"REJ reason 0xffff",  WQE_CM_ATTR_REJ, SET16, D(10), 0xffff, WQE_CM_ERANGE, "REJ.reason"},
	{"REP failover 3",     WQE_CM_ATTR_REP, XOR8, D(26), 0x04, WQE_CM_ERANGE, "REP.failover_accepted"},
	{"SIDR_REP status 6",  WQE_CM_ATTR_SIDR_REP, SET8, D(4), 6, WQE_CM_ERANGE, "SIDR_REP.status"},
	{"SIDR_REP status 255", WQE_CM_ATTR_SIDR_REP, SET8, D(4), 255, WQE_CM_ERANGE, "SIDR_REP.status"},
	{"SIDR_REP info 73",   WQE_CM_ATTR_SIDR_REP, SET8, D(5), 73, WQE_CM_ERANGE, "SIDR_REP.info_len"},
	{"SIDR_REP info 255",  WQE_CM_ATTR_SIDR_REP, SET8, D(5), 255, WQE_CM_ERANGE, "SIDR_REP.info_len"},
};

/* Reserved bits of each message's attribute data, from the IBTA tables. */
static const struct {
	uint16_t attr;
	uint16_t byte;
	uint8_t mask;
	const char *field;
} reserved[] = {
	{WQE_CM_ATTR_REQ, 4, 0xff, "REQ.reserved"},
	{WQE_CM_ATTR_REQ, 24, 0xff, "REQ.reserved"},
	{WQE_CM_ATTR_REQ, 25, 0xff, "REQ.reserved"},
	{WQE_CM_ATTR_REQ, 26, 0xff, "REQ.reserved"},
	{WQE_CM_ATTR_REQ, 27, 0xff, "REQ.reserved"},
	{WQE_CM_ATTR_REQ, 90, 0x0f, "REQ.reserved"},  /* primary: after the flow label */
	{WQE_CM_ATTR_REQ, 91, 0xc0, "REQ.reserved"},  /* before the packet rate */
	{WQE_CM_ATTR_REQ, 94, 0x07, "REQ.reserved"},  /* after SL, subnet local */
	{WQE_CM_ATTR_REQ, 95, 0x07, "REQ.reserved"},  /* after local ACK timeout */
	{WQE_CM_ATTR_REQ, 134, 0x0f, "REQ.reserved"}, /* alternate: the same */
	{WQE_CM_ATTR_REQ, 135, 0xc0, "REQ.reserved"},
	{WQE_CM_ATTR_REQ, 138, 0x07, "REQ.reserved"},
	{WQE_CM_ATTR_REQ, 139, 0x03, "REQ.reserved"}, /* after SAP supported */
	{WQE_CM_ATTR_MRA, 8, 0x3f, "MRA.reserved"},
	{WQE_CM_ATTR_MRA, 9, 0x07, "MRA.reserved"},
	{WQE_CM_ATTR_REJ, 8, 0x3f, "REJ.reserved"},
	{WQE_CM_ATTR_REJ, 9, 0x01, "REJ.reserved"},
	{WQE_CM_ATTR_REP, 27, 0x0f, "REP.reserved"},
	{WQE_CM_ATTR_DREQ, 11, 0xff, "DREQ.reserved"},
	{WQE_CM_ATTR_SIDR_REQ, 6, 0xff, "SIDR_REQ.reserved"},
	{WQE_CM_ATTR_SIDR_REQ, 7, 0xff, "SIDR_REQ.reserved"},
};
/* clang-format on */

static size_t valid_mad(uint16_t attr, uint8_t *mad)
{
	struct wqe_cm_msg m;

	cm_gen_fixed(attr, &m);
	return (size_t)wqe_cm_encode(&m, mad, WQE_MAD_LEN, NULL);
}

static void expect_refusal(const uint8_t *buf, size_t len, int err, const char *name,
			   const char *what)
{
	struct wqe_cm_msg out, before;
	const char *field = NULL;
	int rc;

	memset(&out, 0xa5, sizeof(out));
	before = out;
	rc = wqe_cm_decode(buf, len, &out, &field);
	test_checks++;
	if (rc != err || !field || strcmp(field, name) != 0)
		test_fail(__FILE__, __LINE__, "%s: got %d (%s) field %s, expected %d (%s) field %s",
			  what, rc, wqe_cm_err_str(rc), field ? field : "(null)", err,
			  wqe_cm_err_str(err), name);
	CHECK_MEM(&out, &before, sizeof(out));
}

static void test_rows(void)
{
	static uint8_t big[4096];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		uint8_t *mad = big;
		size_t len;

		memset(big, 0, sizeof(big));
		len = valid_mad(r->attr, mad);
		CHECK_EQ(len, WQE_MAD_LEN);
		switch (r->op) {
		case SET8:
			mad[r->off] = (uint8_t)r->v;
			break;
		case XOR8:
			mad[r->off] ^= (uint8_t)r->v;
			break;
		case SET16:
			put_be16(mad + r->off, r->v);
			break;
		case LEN:
			len = r->off;
			break;
		}
		expect_refusal(mad, len, r->err, r->field, r->what);
	}
}

static int is_reserved(uint16_t attr, unsigned bit)
{
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (reserved[i].attr == attr && reserved[i].byte == bit / 8 &&
		    (reserved[i].mask & (0x80u >> (bit % 8))))
			return 1;
	return 0;
}

static void test_reserved_bits(void)
{
	for (size_t k = 0; k < CM_GEN_NATTRS; k++) {
		const uint16_t attr = cm_gen_attrs[k];
		char name[32];

		for (unsigned bit = 0; bit < WQE_CM_DATA_LEN * 8; bit++) {
			uint8_t mad[WQE_MAD_LEN];
			struct wqe_cm_msg out;
			const char *field = NULL;
			int rc;

			valid_mad(attr, mad);
			mad[WQE_MAD_HDR_LEN + bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
			if (is_reserved(attr, bit)) {
				snprintf(name, sizeof(name), "%s.reserved", wqe_cm_attr_str(attr));
				expect_refusal(mad, sizeof(mad), WQE_CM_ERESERVED, name,
					       "reserved bit");
				continue;
			}
			rc = wqe_cm_decode(mad, sizeof(mad), &out, &field);
			test_checks++;
			if (rc != 0 && rc != WQE_CM_ERANGE)
				test_fail(__FILE__, __LINE__,
					  "%s data bit %u (byte %u): %d (%s, %s), not reserved",
					  wqe_cm_attr_str(attr), bit, bit / 8, rc,
					  wqe_cm_err_str(rc), field ? field : "");
		}
	}
}

int main(void)
{
	test_rows();
	test_reserved_bits();
	return test_finish();
}
