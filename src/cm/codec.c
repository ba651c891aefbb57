/* SPDX-License-Identifier: MIT */
/*
 * codec.c - the MAD common header (IBTA 13.4.2) and the generic CM message
 * encoder and decoder that walk the layout tables of layout.c.
 */
#include <string.h>

#include "cm/cm_int.h"
#include "common/bytes.h"

/* Byte offsets in the common header (IBTA 13.4.2, Figure 145). */
enum {
	MAD_BASE_VERSION = 0,
	MAD_MGMT_CLASS = 1,
	MAD_CLASS_VERSION = 2,
	MAD_METHOD = 3,
	MAD_STATUS = 4,
	MAD_CLASS_SPECIFIC = 6,
	MAD_TID = 8,
	MAD_ATTR_ID = 16,
	MAD_RESERVED = 18,
	MAD_ATTR_MOD = 20,
};
_Static_assert(MAD_ATTR_MOD + 4 == WQE_MAD_HDR_LEN, "MAD header is 24 bytes");
_Static_assert(WQE_MAD_HDR_LEN + WQE_CM_DATA_LEN == WQE_MAD_LEN, "CM MAD is 256 bytes");

size_t wqe_mad_hdr_encode(const struct wqe_mad_hdr *h, uint8_t *buf, size_t cap)
{
	if (!h || !buf || cap < WQE_MAD_HDR_LEN)
		return 0;
	buf[MAD_BASE_VERSION] = h->base_version;
	buf[MAD_MGMT_CLASS] = h->mgmt_class;
	buf[MAD_CLASS_VERSION] = h->class_version;
	buf[MAD_METHOD] = h->method;
	put_be16(buf + MAD_STATUS, h->status);
	put_be16(buf + MAD_CLASS_SPECIFIC, h->class_specific);
	put_be64(buf + MAD_TID, h->tid);
	put_be16(buf + MAD_ATTR_ID, h->attr_id);
	put_be16(buf + MAD_RESERVED, 0);
	put_be32(buf + MAD_ATTR_MOD, h->attr_mod);
	return WQE_MAD_HDR_LEN;
}

size_t wqe_mad_hdr_decode(const uint8_t *buf, size_t len, struct wqe_mad_hdr *h)
{
	if (!buf || !h || len < WQE_MAD_HDR_LEN)
		return 0;
	h->base_version = buf[MAD_BASE_VERSION];
	h->mgmt_class = buf[MAD_MGMT_CLASS];
	h->class_version = buf[MAD_CLASS_VERSION];
	h->method = buf[MAD_METHOD];
	h->status = get_be16(buf + MAD_STATUS);
	h->class_specific = get_be16(buf + MAD_CLASS_SPECIFIC);
	h->tid = get_be64(buf + MAD_TID);
	h->attr_id = get_be16(buf + MAD_ATTR_ID);
	h->attr_mod = get_be32(buf + MAD_ATTR_MOD);
	return WQE_MAD_HDR_LEN;
}

void wqe_cm_msg_init(struct wqe_cm_msg *m, enum wqe_cm_attr attr, uint64_t tid)
{
	if (!m)
		return;
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = WQE_MAD_BASE_VERSION;
	m->hdr.mgmt_class = WQE_MGMT_CLASS_CM;
	m->hdr.class_version = WQE_CM_CLASS_VERSION;
	m->hdr.method = WQE_MAD_METHOD_SEND;
	m->hdr.tid = tid;
	m->hdr.attr_id = (uint16_t)attr;
}

static int fail(const char **field, const char *name, int err)
{
	if (field)
		*field = name;
	return err;
}

/*
 * The header rules both directions share. 13.4.2: base version 1; CM is
 * class 0x07 at class version 2 (16.7). 12.6: every CM message is sent
 * with the Send method; ClassPortInfo (Get/GetResp), LAP and APR exist but
 * are not carried here. 13.4.7: status is meaningful in responses only, and
 * a Send is not one. CM gives the class-specific field no meaning.
 */
static int check_hdr(const struct wqe_mad_hdr *h, const struct cm_layout **lay, const char **field)
{
	if (h->base_version != WQE_MAD_BASE_VERSION)
		return fail(field, "MAD.base_version", WQE_CM_EBASE_VERSION);
	if (h->mgmt_class != WQE_MGMT_CLASS_CM)
		return fail(field, "MAD.mgmt_class", WQE_CM_ECLASS);
	if (h->class_version != WQE_CM_CLASS_VERSION)
		return fail(field, "MAD.class_version", WQE_CM_ECLASS_VERSION);
	*lay = cm_layout_of(h->attr_id);
	if (!*lay) {
		if (h->attr_id == WQE_CM_ATTR_CLASS_PORT_INFO || h->attr_id == WQE_CM_ATTR_LAP ||
		    h->attr_id == WQE_CM_ATTR_APR)
			return fail(field, "MAD.attr_id", WQE_CM_EUNSUPPORTED);
		return fail(field, "MAD.attr_id", WQE_CM_EATTR);
	}
	if (h->method != WQE_MAD_METHOD_SEND)
		return fail(field, "MAD.method", WQE_CM_EMETHOD);
	if (h->status != 0)
		return fail(field, "MAD.status", WQE_CM_ESTATUS);
	if (h->class_specific != 0)
		return fail(field, "MAD.class_specific", WQE_CM_ERESERVED);
	return 0;
}

/* Bit @i of @d, counting from the most significant bit of d[0]. */
static unsigned bit_get(const uint8_t *d, unsigned i)
{
	return (unsigned)(d[i >> 3] >> (7 - (i & 7))) & 1u;
}

static void bit_set(uint8_t *d, unsigned i, unsigned v)
{
	const uint8_t m = (uint8_t)(0x80u >> (i & 7));

	d[i >> 3] = (uint8_t)(v ? d[i >> 3] | m : d[i >> 3] & ~m);
}

static uint64_t member_get(const uint8_t *msg, const struct cm_field *f)
{
	uint8_t b8;
	uint16_t b16;
	uint32_t b32;
	uint64_t b64;

	switch (f->size) {
	case 1:
		memcpy(&b8, msg + f->member, 1);
		return b8;
	case 2:
		memcpy(&b16, msg + f->member, 2);
		return b16;
	case 4:
		memcpy(&b32, msg + f->member, 4);
		return b32;
	default:
		memcpy(&b64, msg + f->member, 8);
		return b64;
	}
}

/* ORs @v into the member (pieces of a split member land in turn). */
static void member_or(uint8_t *msg, const struct cm_field *f, uint64_t v)
{
	const uint64_t all = member_get(msg, f) | v;
	const uint8_t b8 = (uint8_t)all;
	const uint16_t b16 = (uint16_t)all;
	const uint32_t b32 = (uint32_t)all;

	switch (f->size) {
	case 1:
		memcpy(msg + f->member, &b8, 1);
		break;
	case 2:
		memcpy(msg + f->member, &b16, 2);
		break;
	case 4:
		memcpy(msg + f->member, &b32, 4);
		break;
	default:
		memcpy(msg + f->member, &all, 8);
		break;
	}
}

static unsigned first_bit(const struct cm_field *f)
{
	return (unsigned)f->byte * 8u + f->bit;
}

/* The bits a member's pieces cover together: the highest vshift + width. */
static unsigned member_bits(const struct cm_layout *lay, const struct cm_field *f)
{
	unsigned top = 0;

	for (size_t i = 0; i < lay->nfields; i++) {
		const struct cm_field *g = &lay->fields[i];

		if (g->member == f->member && g->size == f->size && g->vshift + g->width > top)
			top = g->vshift + g->width;
	}
	return top;
}

/* Every value of *@msg fits its wire field (split members as a whole). */
static int check_widths(const struct cm_layout *lay, const uint8_t *msg, const char **field)
{
	for (size_t i = 0; i < lay->nfields; i++) {
		const struct cm_field *f = &lay->fields[i];
		const unsigned bits = f->size ? member_bits(lay, f) : 0;

		if (f->size && bits < 64 && member_get(msg, f) >> bits)
			return fail(field, f->name, WQE_CM_EWIDTH);
	}
	return 0;
}

int wqe_cm_encode(const struct wqe_cm_msg *m, uint8_t *buf, size_t cap, const char **field)
{
	const struct cm_layout *lay;
	const char *why = NULL;
	const uint8_t *msg;
	uint8_t *data;
	int err;

	if (field)
		*field = NULL;
	if (!m || !buf)
		return WQE_CM_EINVAL;
	if (cap < WQE_MAD_LEN)
		return WQE_CM_ENOSPC;
	err = check_hdr(&m->hdr, &lay, field);
	if (err)
		return err;
	msg = (const uint8_t *)&m->u;
	err = check_widths(lay, msg, field);
	if (!err)
		err = lay->check(msg, &why);
	if (err && field && !*field)
		*field = why;
	if (err)
		return err;

	memset(buf, 0, WQE_MAD_LEN);
	wqe_mad_hdr_encode(&m->hdr, buf, WQE_MAD_HDR_LEN);
	data = buf + WQE_MAD_HDR_LEN;
	for (size_t i = 0; i < lay->nfields; i++) {
		const struct cm_field *f = &lay->fields[i];

		if (!f->size) {
			memcpy(data + f->byte, msg + f->member, f->width / 8u);
			continue;
		}
		const uint64_t v = member_get(msg, f) >> f->vshift;

		for (unsigned b = 0; b < f->width; b++)
			bit_set(data, first_bit(f) + b, (unsigned)(v >> (f->width - 1 - b)) & 1u);
	}
	return WQE_MAD_LEN;
}

/* A reserved bit of the attribute data is set: one no field covers. */
static int check_reserved(const struct cm_layout *lay, const uint8_t *data)
{
	uint8_t cover[WQE_CM_DATA_LEN] = {0};

	for (size_t i = 0; i < lay->nfields; i++) {
		const struct cm_field *f = &lay->fields[i];

		for (unsigned b = 0; b < f->width; b++)
			bit_set(cover, first_bit(f) + b, 1);
	}
	for (size_t i = 0; i < WQE_CM_DATA_LEN; i++)
		if (data[i] & ~cover[i])
			return WQE_CM_ERESERVED;
	return 0;
}

int wqe_cm_decode(const uint8_t *buf, size_t len, struct wqe_cm_msg *m, const char **field)
{
	const struct cm_layout *lay;
	struct wqe_cm_msg out;
	const char *why = NULL;
	const uint8_t *data;
	uint8_t *msg;
	int err;

	if (field)
		*field = NULL;
	if (!buf || !m)
		return WQE_CM_EINVAL;
	if (len != WQE_MAD_LEN)
		return fail(field, "MAD.length", WQE_CM_ELEN);
	memset(&out, 0, sizeof(out));
	wqe_mad_hdr_decode(buf, len, &out.hdr);
	err = check_hdr(&out.hdr, &lay, field);
	if (err)
		return err;
	if (get_be16(buf + MAD_RESERVED) != 0)
		return fail(field, "MAD.reserved", WQE_CM_ERESERVED);
	data = buf + WQE_MAD_HDR_LEN;
	if (check_reserved(lay, data))
		return fail(field, lay->reserved_name, WQE_CM_ERESERVED);

	msg = (uint8_t *)&out.u;
	for (size_t i = 0; i < lay->nfields; i++) {
		const struct cm_field *f = &lay->fields[i];
		uint64_t v = 0;

		if (!f->size) {
			memcpy(msg + f->member, data + f->byte, f->width / 8u);
			continue;
		}
		for (unsigned b = 0; b < f->width; b++)
			v = v << 1 | bit_get(data, first_bit(f) + b);
		member_or(msg, f, v << f->vshift);
	}
	err = lay->check(msg, &why);
	if (err)
		return fail(field, why, err);
	*m = out;
	return 0;
}

const char *wqe_cm_err_str(int err)
{
	switch (err) {
	case WQE_CM_OK:
		return "ok";
	case WQE_CM_ELEN:
		return "MAD is not 256 bytes";
	case WQE_CM_EBASE_VERSION:
		return "MAD base version is not 1";
	case WQE_CM_ECLASS:
		return "management class is not CM (0x07)";
	case WQE_CM_ECLASS_VERSION:
		return "CM class version is not 2";
	case WQE_CM_EATTR:
		return "not a CM attribute";
	case WQE_CM_EUNSUPPORTED:
		return "CM attribute not supported (ClassPortInfo, LAP, APR)";
	case WQE_CM_EMETHOD:
		return "method not legal for the attribute (CM messages are Sends)";
	case WQE_CM_ESTATUS:
		return "nonzero status in a Send";
	case WQE_CM_ERESERVED:
		return "reserved field not zero";
	case WQE_CM_ERANGE:
		return "field value the spec does not define";
	case WQE_CM_EWIDTH:
		return "value wider than its wire field";
	case WQE_CM_ENOSPC:
		return "output buffer too small";
	case WQE_CM_EINVAL:
		return "invalid argument";
	default:
		return "unknown error";
	}
}
