/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cm - the CM MAD decoder (wqe_cm_decode), the IP CM header decoder
 * (wqe_cm_ip_hdr_decode) and the CM encoder's validation.
 *
 * Input: byte 0 selects what the rest is:
 *   bits 0-1  0: a MAD as it arrives, any length;
 *             1: a MAD (zero-extended to 256 bytes) whose header is made
 *                a valid CM Send of attribute REQ + (its byte 1, the
 *                class, mod 9), status and class-specific zeroed, so that
 *                the search reaches the message layouts;
 *             2: the bytes of a struct wqe_cm_msg (zero-extended), its
 *                header made valid for attribute REQ + (first byte mod 9)
 *                (TID and attribute modifier kept), handed to
 *                wqe_cm_encode();
 *             3: an IP CM header (rdma_cm's private-data header), any
 *                length.
 * The bytes are a heap copy of exactly their length, so any read past the
 * end is an ASan report.
 *
 * Checks: a refusal is a known error code with a name, blames a field
 * (every error but EINVAL), and leaves the output untouched; an accepted
 * MAD encodes back to the same 256 bytes with no field blamed; a message
 * the encoder accepts decodes, to the same message, and encodes back to
 * the same bytes; an accepted IP CM header encodes back to its 36 bytes.
 *
 * WQE_FUZZ_SEEDS=DIR fuzz_cm -runs=0 writes the seed corpus to DIR: every
 * message type as a raw MAD (mode 0) and as mode 1, and an IPv4 and an
 * IPv6 IP CM header.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cm_int.h"
#include "fuzz_util.h"
#include "wqe/cm.h"

static void check_refusal(int err, const char *field, const void *out, const void *canary, size_t n,
			  const char *what)
{
	if (err >= 0 || strcmp(wqe_cm_err_str(err), "unknown error") == 0)
		fz_die("%s: return %d is not an error code", what, err);
	if (err != WQE_CM_EINVAL && !field)
		fz_die("%s: %s without a field", what, wqe_cm_err_str(err));
	if (memcmp(out, canary, n) != 0)
		fz_die("%s: refusal (%s) changed the output", what, wqe_cm_err_str(err));
}

static void decode_mad(const uint8_t *buf, size_t len)
{
	struct wqe_cm_msg m, canary;
	uint8_t again[WQE_MAD_LEN];
	const char *field = "unset";
	int err;

	memset(&m, 0xa5, sizeof(m));
	canary = m;
	err = wqe_cm_decode(buf, len, &m, &field);
	if (err) {
		check_refusal(err, field, &m, &canary, sizeof(m), "decode");
		return;
	}
	if (field)
		fz_die("decode accepted but blamed %s", field);
	err = wqe_cm_encode(&m, again, sizeof(again), &field);
	if (err != WQE_MAD_LEN)
		fz_die("a decoded MAD does not encode: %s (%s)", wqe_cm_err_str(err),
		       field ? field : "");
	if (len != WQE_MAD_LEN || memcmp(buf, again, WQE_MAD_LEN) != 0)
		fz_die("encode(decode(b)) != b for %s", wqe_cm_attr_str(m.hdr.attr_id));
}

static void make_valid_hdr(uint8_t *mad, uint8_t sel)
{
	struct wqe_mad_hdr h;

	wqe_mad_hdr_decode(mad, WQE_MAD_HDR_LEN, &h);
	h.base_version = WQE_MAD_BASE_VERSION;
	h.mgmt_class = WQE_MGMT_CLASS_CM;
	h.class_version = WQE_CM_CLASS_VERSION;
	h.method = WQE_MAD_METHOD_SEND;
	h.status = 0;
	h.class_specific = 0;
	h.attr_id = (uint16_t)(WQE_CM_ATTR_REQ + sel % 9);
	wqe_mad_hdr_encode(&h, mad, WQE_MAD_HDR_LEN);
}

static void encode_struct(const uint8_t *data, size_t size, uint8_t sel)
{
	const struct cm_layout *lay;
	struct wqe_cm_msg m, back;
	uint8_t mad[WQE_MAD_LEN], again[WQE_MAD_LEN], before[WQE_MAD_LEN];
	const char *field = "unset";
	int err;

	memset(&m, 0, sizeof(m));
	memcpy(&m, data, size < sizeof(m) ? size : sizeof(m));
	wqe_cm_msg_init(&back, (enum wqe_cm_attr)(WQE_CM_ATTR_REQ + sel % 9), m.hdr.tid);
	back.hdr.attr_mod = m.hdr.attr_mod;
	m.hdr = back.hdr;
	memset(mad, 0x3c, sizeof(mad));
	memcpy(before, mad, sizeof(mad));
	err = wqe_cm_encode(&m, mad, sizeof(mad), &field);
	if (err != WQE_MAD_LEN) {
		check_refusal(err, field, mad, before, sizeof(mad), "encode");
		return;
	}
	err = wqe_cm_decode(mad, sizeof(mad), &back, &field);
	if (err)
		fz_die("an encoded %s does not decode: %s (%s)", wqe_cm_attr_str(m.hdr.attr_id),
		       wqe_cm_err_str(err), field ? field : "");
	/* Member by member (the input's padding bytes are not the message). */
	if (memcmp(&back.hdr, &m.hdr, offsetof(struct wqe_mad_hdr, attr_id)) != 0 ||
	    back.hdr.attr_id != m.hdr.attr_id || back.hdr.attr_mod != m.hdr.attr_mod)
		fz_die("decode(encode(x)) changed the header");
	lay = cm_layout_of(m.hdr.attr_id);
	for (size_t i = 0; lay && i < lay->nfields; i++) {
		const struct cm_field *f = &lay->fields[i];
		const size_t n = f->size ? f->size : f->width / 8u;

		if (memcmp((const uint8_t *)&back.u + f->member, (const uint8_t *)&m.u + f->member,
			   n) != 0)
			fz_die("decode(encode(x)) changed %s", f->name);
	}
	if (wqe_cm_encode(&back, again, sizeof(again), NULL) != WQE_MAD_LEN ||
	    memcmp(mad, again, sizeof(mad)) != 0)
		fz_die("encode(decode(encode(x))) != encode(x)");
}

static void decode_ip_hdr(const uint8_t *buf, size_t len)
{
	struct wqe_cm_ip_hdr h, canary;
	uint8_t again[WQE_CM_IP_HDR_LEN];
	int n;

	memset(&h, 0xa5, sizeof(h));
	canary = h;
	n = wqe_cm_ip_hdr_decode(buf, len, &h);
	if (n < 0) {
		if (memcmp(&h, &canary, sizeof(h)) != 0)
			fz_die("ip_hdr: refusal (%s) changed the output", wqe_cm_err_str(n));
		return;
	}
	if (n != WQE_CM_IP_HDR_LEN || wqe_cm_ip_hdr_encode(&h, again, sizeof(again)) != n ||
	    memcmp(again, buf, WQE_CM_IP_HDR_LEN) != 0)
		fz_die("ip_hdr: encode(decode(b)) != b");
}

static void write_seed(const char *dir, int i, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%02d", dir, i);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		fz_die("cannot write %s", path);
}

static void seeds(const char *dir)
{
	uint8_t buf[1 + WQE_MAD_LEN];
	struct wqe_cm_msg m;
	struct wqe_cm_ip_hdr ip = {.ip_version = 4, .src_port = 40000};
	int n = 0;

	for (int k = 0; k < 9; k++) {
		wqe_cm_msg_init(&m, (enum wqe_cm_attr)(WQE_CM_ATTR_REQ + k),
				0x100000000ull + (unsigned)k);
		if (k == 0) {
			m.u.req.path_mtu = WQE_MTU_1024;
			m.u.req.service_id = wqe_cm_service_id(WQE_RDMA_PS_TCP, 7471);
			m.u.req.local_qpn = 0xabcd;
			m.u.req.starting_psn = 0x5a5a5a;
		}
		if (k == 2)
			m.u.rej.reason = WQE_CM_REJ_CONSUMER_DEFINED;
		if (wqe_cm_encode(&m, buf + 1, WQE_MAD_LEN, NULL) != WQE_MAD_LEN)
			fz_die("seed %d does not encode", k);
		buf[0] = 0;
		write_seed(dir, n++, buf, sizeof(buf));
		buf[0] = 1;
		buf[1 + 1] = (uint8_t)k; /* mode 1 takes the attribute from byte 1 */
		write_seed(dir, n++, buf, sizeof(buf));
	}
	test_gid_v4(&ip.src, 10, 0, 0, 1);
	test_gid_v4(&ip.dst, 10, 0, 0, 2);
	buf[0] = 3;
	if (wqe_cm_ip_hdr_encode(&ip, buf + 1, WQE_CM_IP_HDR_LEN) != WQE_CM_IP_HDR_LEN)
		fz_die("IP CM header seed does not encode");
	write_seed(dir, n++, buf, 1 + WQE_CM_IP_HDR_LEN);
	ip.ip_version = 6;
	test_gid_v6(&ip.src, 1);
	test_gid_v6(&ip.dst, 2);
	(void)wqe_cm_ip_hdr_encode(&ip, buf + 1, WQE_CM_IP_HDR_LEN);
	write_seed(dir, n++, buf, 1 + WQE_CM_IP_HDR_LEN);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_seeds_from_env(seeds);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;
	size_t len;

	if (size < 1)
		return 0;
	len = size - 1;
	switch (data[0] & 3) {
	case 0:
		copy = malloc(len ? len : 1);
		if (!copy)
			return 0;
		memcpy(copy, data + 1, len);
		decode_mad(copy, len);
		free(copy);
		break;
	case 1:
		copy = calloc(1, WQE_MAD_LEN);
		if (!copy)
			return 0;
		memcpy(copy, data + 1, len < WQE_MAD_LEN ? len : WQE_MAD_LEN);
		make_valid_hdr(copy, len > 1 ? data[2] : 0);
		decode_mad(copy, WQE_MAD_LEN);
		free(copy);
		break;
	case 2:
		encode_struct(data + 1, len, len > 0 ? data[1] : 0);
		break;
	default:
		copy = malloc(len ? len : 1);
		if (!copy)
			return 0;
		memcpy(copy, data + 1, len);
		decode_ip_hdr(copy, len);
		free(copy);
		break;
	}
	return 0;
}
