/* SPDX-License-Identifier: MIT */
/*
 * test_pcap.c - the capture writer and reader, and link-type framing.
 *
 * Writes wire_gen.pcap (every opcode, IPv4 and IPv6, some VLAN-tagged, from
 * our builder) and wire_gen.jsonl (its fields, golden schema) into the
 * build folder: the CTests wire_scapy_gen and wire_tshark_gen then check our
 * frames with scapy and Wireshark. Also: frames are readable before the
 * writer is closed (flushed per frame), read back byte for byte with their
 * nanosecond timestamps, and parse the same behind DLT_RAW, Linux cooked
 * (v1, v2) and BSD loopback headers.
 */
#include <errno.h>
#include <inttypes.h>
#include <pcap/dlt.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "wire_gen.h"

#define NGEN 200

static uint8_t frames[NGEN][2048];
static size_t lens[NGEN];
static uint8_t pay[2048];

static void json_hex(FILE *f, const char *key, const uint8_t *p, size_t n)
{
	fprintf(f, ", \"%s\": \"", key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

static uint64_t be64_at(const uint8_t *q)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | q[i];
	return v;
}

static void json_ext(FILE *f, const struct wqe_pkt *q)
{
	if (q->hdrs & WQE_HDR_RETH)
		fprintf(f,
			", \"reth\": {\"va\": %" PRIu64 ", \"rkey\": %" PRIu32
			", \"dmalen\": %" PRIu32 "}",
			q->reth.va, q->reth.rkey, q->reth.dma_len);
	if (q->hdrs & WQE_HDR_AETH)
		fprintf(f, ", \"aeth\": {\"syndrome\": %u, \"msn\": %" PRIu32 "}", q->aeth.syndrome,
			q->aeth.msn);
	if (q->hdrs & WQE_HDR_IMMDT)
		fprintf(f, ", \"immdt\": {\"imm\": %" PRIu32 "}", q->immdt.imm);
	if (q->hdrs & WQE_HDR_IETH)
		fprintf(f, ", \"ieth\": {\"rkey\": %" PRIu32 "}", q->ieth.rkey);
	if (q->hdrs & WQE_HDR_DETH)
		fprintf(f,
			", \"deth\": {\"qkey\": %" PRIu32 ", \"resv\": %u, \"srcqp\": %" PRIu32 "}",
			q->deth.qkey, q->deth.resv8, q->deth.srcqp);
	if (q->hdrs & WQE_HDR_ATOMICETH)
		fprintf(f,
			", \"atomiceth\": {\"va\": %" PRIu64 ", \"rkey\": %" PRIu32
			", \"swap_add\": %" PRIu64 ", \"compare\": %" PRIu64 "}",
			q->atomiceth.va, q->atomiceth.rkey, q->atomiceth.swap_add,
			q->atomiceth.compare);
	if (q->hdrs & WQE_HDR_ATOMICACKETH)
		fprintf(f, ", \"atomicacketh\": {\"orig\": %" PRIu64 "}", q->atomicacketh.orig);
	if (q->hdrs & WQE_HDR_CNP)
		fprintf(f, ", \"cnp\": {\"reserved1\": %" PRIu64 ", \"reserved2\": %" PRIu64 "}",
			be64_at(q->cnp.rsvd), be64_at(q->cnp.rsvd + 8));
}

/* One golden-schema line for the frame @f, decoded by us. */
static void json_line(FILE *f, const uint8_t *frame, size_t len)
{
	const struct wqe_bth *b;
	struct wqe_pkt q;
	uint8_t icrc[4];
	const char *sep = "";

	CHECK_EQ(wqe_pkt_parse(frame, len, &q), 0);
	b = &q.bth;
	fprintf(f,
		"{\"ipver\": %u, \"bth\": {\"opcode\": %u, \"opcode_name\": \"%s\", \"se\": %u, "
		"\"m\": %u, \"padcnt\": %u, \"tver\": %u, \"pkey\": %u, \"fecn\": %u, "
		"\"becn\": %u, \"resv6\": %u, \"destqp\": %" PRIu32 ", \"ackreq\": %u, "
		"\"resv7\": %u, \"psn\": %" PRIu32 "}, \"headers\": [",
		q.ipver, b->opcode, wqe_wire_opcode_str(b->opcode), b->se, b->migreq, b->padcnt,
		b->tver, b->pkey, b->fecn, b->becn, b->resv6, b->destqp, b->ackreq, b->resv7,
		b->psn);
	for (unsigned i = 0; i < WQE_HDR_COUNT; i++) {
		if (q.hdrs & 1u << i) {
			fprintf(f, "%s\"%s\"", sep, wqe_hdr_str((enum wqe_hdr)(1u << i)));
			sep = ", ";
		}
	}
	fputc(']', f);
	json_ext(f, &q);
	fprintf(f, ", \"payload_len\": %" PRIu32, q.payload_len);
	json_hex(f, "payload_hex", q.payload, q.payload_len);
	json_hex(f, "pad_hex", q.pad, q.bth.padcnt);
	memcpy(icrc, frame + len - 4, 4);
	json_hex(f, "icrc_hex", icrc, 4);
	fputs("}\n", f);
}

static void gen_all(void)
{
	uint8_t ops[64];
	int nops = gen_opcodes(ops, 64);
	struct test_rng r;
	struct wqe_pkt p;
	uint32_t n;

	test_rng_seed(&r, 30);
	for (int i = 0; i < NGEN; i++) {
		gen_pkt(&r, ops[i % nops], (i / nops) % 2 ? 6 : 4, &p, pay, 120, &n);
		p.bth.tver = 0; /* Wireshark dissects TVer 0 only */
		lens[i] = gen_frame(&p, pay, n, frames[i], sizeof(frames[i]));
		CHECK(lens[i] > 0);
	}
}

static void read_back(const char *path, int want)
{
	char err[256];
	struct wqe_pcap_reader *rd = wqe_pcap_reader_open(path, err, sizeof(err));
	const uint8_t *f;
	size_t len;
	uint64_t ts;
	int n = 0, rc;

	CHECK(rd != NULL);
	if (!rd)
		return;
	CHECK_EQ(wqe_pcap_reader_linktype(rd), DLT_EN10MB);
	while ((rc = wqe_pcap_read(rd, &f, &len, &ts)) == 1 && n < want) {
		CHECK_EQ(len, lens[n]);
		if (len == lens[n])
			CHECK_MEM(f, frames[n], len);
		CHECK_EQ(ts, 1700000000123456789ull + (uint64_t)n * 1001);
		n++;
	}
	CHECK_EQ(rc, 0);
	CHECK_EQ(n, want);
	wqe_pcap_reader_close(rd);
}

static void test_write_read(const char *dir)
{
	char path[1024];
	struct wqe_pcap *w;
	FILE *js;

	snprintf(path, sizeof(path), "%s/wire_gen.jsonl", dir);
	js = fopen(path, "w");
	CHECK(js != NULL);
	snprintf(path, sizeof(path), "%s/wire_gen.pcap", dir);
	w = wqe_pcap_open(path);
	CHECK(w != NULL);
	if (!w || !js)
		return;
	for (int i = 0; i < NGEN; i++) {
		CHECK_EQ(wqe_pcap_write(w, frames[i], lens[i],
					1700000000123456789ull + (uint64_t)i * 1001),
			 0);
		json_line(js, frames[i], lens[i]);
		if (i == NGEN / 2)
			read_back(path, i + 1); /* flushed: readable mid-run */
	}
	fclose(js);
	CHECK_EQ(wqe_pcap_close(w), 0);
	read_back(path, NGEN);
	CHECK_EQ(wqe_pcap_close(NULL), 0);
	wqe_pcap_reader_close(NULL);
	errno = 0;
	CHECK(wqe_pcap_open("/nonexistent-dir/x.pcap") == NULL);
	CHECK_EQ(errno, ENOENT);
	CHECK(wqe_pcap_reader_open("/nonexistent-dir/x.pcap", NULL, 0) == NULL);
}

/* The same packet behind other link-layer headers. */
static void test_link_types(void)
{
	uint8_t buf[2200];
	struct wqe_pkt a, b;

	for (int i = 0; i < NGEN; i++) {
		const uint8_t *f = frames[i];
		size_t l3 = f[12] == 0x81 || f[12] == 0x88 ? 18 : 14, n = lens[i] - l3;
		uint16_t et = (uint16_t)(f[l3 - 2] << 8 | f[l3 - 1]);

		CHECK_EQ(wqe_pkt_parse_link(DLT_EN10MB, f, lens[i], &a), 0);
		CHECK(a.icrc_ok);
		CHECK_EQ(wqe_pkt_parse_link(DLT_RAW, f + l3, n, &b), 0);
		CHECK(b.icrc_ok && !b.has_eth && b.bth.psn == a.bth.psn);
		CHECK_EQ(wqe_pkt_parse_link(a.ipver == 4 ? DLT_IPV4 : DLT_IPV6, f + l3, n, &b), 0);
		memset(buf, 0, 16);
		buf[14] = (uint8_t)(et >> 8);
		buf[15] = (uint8_t)et;
		memcpy(buf + 16, f + l3, n);
		CHECK_EQ(wqe_pkt_parse_link(DLT_LINUX_SLL, buf, n + 16, &b), 0);
		CHECK(b.icrc_ok && b.payload_len == a.payload_len);
		memset(buf, 0, 20);
		buf[0] = (uint8_t)(et >> 8);
		buf[1] = (uint8_t)et;
		memcpy(buf + 20, f + l3, n);
		CHECK_EQ(wqe_pkt_parse_link(DLT_LINUX_SLL2, buf, n + 20, &b), 0);
		CHECK(b.icrc_ok && b.bth.destqp == a.bth.destqp);
		buf[0] = 0x08;
		buf[1] = 0x06; /* ARP */
		CHECK_EQ(wqe_pkt_parse_link(DLT_LINUX_SLL2, buf, n + 20, &b), WQE_PKT_ENOT_IP);
		CHECK_EQ(wqe_pkt_parse_link(DLT_LINUX_SLL2, buf, 19, &b), WQE_PKT_ETRUNC_ETH);
		memset(buf, 0, 4);
		buf[0] = a.ipver == 4 ? 2 : 10;
		memcpy(buf + 4, f + l3, n);
		CHECK_EQ(wqe_pkt_parse_link(DLT_NULL, buf, n + 4, &b), 0);
		CHECK(b.icrc_ok);
		CHECK_EQ(wqe_pkt_parse_link(DLT_USER0, f, lens[i], &b), WQE_PKT_ENOT_IP);
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : WQE_TEST_BINDIR;

	gen_all();
	test_write_read(dir);
	test_link_types();
	return test_finish();
}
