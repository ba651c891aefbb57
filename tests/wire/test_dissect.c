/* SPDX-License-Identifier: MIT */
/*
 * test_dissect.c - wqe_dissect_file: the golden capture dissects clean
 * (0); a copy with one payload byte flipped returns 1 and names that frame;
 * unreadable files return 2; non-RoCEv2 frames are skipped with a note and
 * malformed RoCEv2 frames are named; DLT_RAW and Linux cooked captures work.
 */
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "wqe/wire.h"

static char *out_buf;
static size_t out_len;

/* Run the dissector, keeping its output in out_buf. */
static int dissect(const char *path, unsigned flags)
{
	FILE *f;
	int rc;

	free(out_buf);
	out_buf = NULL;
	f = open_memstream(&out_buf, &out_len);
	if (!f)
		return -1;
	rc = wqe_dissect_file(path, f, flags);
	fclose(f);
	return rc;
}

static int has(const char *s)
{
	int found = out_buf && strstr(out_buf, s) != NULL;

	if (!found)
		fprintf(stderr, "output lacks \"%s\"\n", s);
	return found;
}

static int count(const char *s)
{
	int n = 0;

	for (const char *p = out_buf; p && (p = strstr(p, s)); p++)
		n++;
	return n;
}

/* Copy @in to @out through our reader and writer, XOR-ing frame @fno's
 * byte @off with 1 (fno 0: no change); returns the frame count. */
static int copy_capture(const char *in, const char *out, int fno, size_t off)
{
	struct wqe_pcap_reader *r = wqe_pcap_reader_open(in, NULL, 0);
	struct wqe_pcap *w = wqe_pcap_open(out);
	uint8_t buf[4096];
	const uint8_t *f;
	size_t len;
	uint64_t ts;
	int n = 0;

	if (!r || !w)
		return -1;
	while (wqe_pcap_read(r, &f, &len, &ts) == 1 && len <= sizeof(buf)) {
		memcpy(buf, f, len);
		if (++n == fno && off < len)
			buf[off] ^= 1;
		wqe_pcap_write(w, buf, len, ts);
	}
	wqe_pcap_reader_close(r);
	wqe_pcap_close(w);
	return n;
}

static void test_golden(const char *golden, const char *dir)
{
	char path[1024];

	CHECK_EQ(dissect(golden, 0), 0);
	CHECK(has("60 frames: 60 RoCEv2, 0 skipped, 0 bad\n"));
	CHECK(has("frame 1: 74 bytes, RC_SEND_ONLY\n"));
	CHECK(has("  IPv4 192.0.2.1 > 192.0.2.2 tos 0x00 ttl 64 id 0x1000 flags 0x2 (DF)"));
	CHECK(has("  UDP 49152 > 4791 len 40 csum 0x0000 (none)\n"));
	CHECK(has("  BTH RC_SEND_ONLY (0x04) se 0 m 0 pad 0 tver 0 pkey 0xffff"));
	CHECK(has("  ICRC 0x0740e9c4 ok\n"));
	CHECK(has("  RETH va 0x00007f1234560000 rkey 0x11223344 dmalen 160\n"));
	CHECK(has("  AETH syndrome 0x2e RNR_NAK (timer 14) msn 8\n"));
	CHECK(has("  AETH syndrome 0x60 NAK_PSN_SEQ_ERR (code 0) msn 8\n"));
	CHECK(has("  DETH qkey 0x11111111 resv8 0 srcqp 0x000042\n"));
	CHECK(has("  IPv6 2001:db8::1 > 2001:db8::2 tclass 0x00"));
	CHECK(has("  PAYLOAD 13 bytes pad 3\n"));
	CHECK(!strstr(out_buf, "BAD"));
	CHECK_EQ(dissect(golden, WQE_DISSECT_HEX), 0);
	CHECK(has("    0000  00 0d 1a 27 34 41 4e 5b 68 75 82 8f 9c a9 b6 c3\n"));

	/* Frame 5, byte 60: the second payload byte of RC_SEND_LAST_WITH_IMM. */
	snprintf(path, sizeof(path), "%s/dissect_flip.pcap", dir);
	CHECK_EQ(copy_capture(golden, path, 5, 60), 60);
	CHECK_EQ(dissect(path, 0), 1);
	CHECK(has("frame 5: BAD ICRC 0x1e3420f7, expected 0x"));
	CHECK(has("60 frames: 60 RoCEv2, 0 skipped, 1 bad (bad frames: 5)\n"));
	/* Nothing before frame 5 is BAD; its ICRC line and its note are. */
	CHECK(strstr(out_buf, "BAD") > strstr(out_buf, "frame 5: "));
	CHECK(has("  ICRC 0x1e3420f7 BAD\n"));
	CHECK_EQ(count("BAD"), 2);
}

static void test_unreadable(const char *dir)
{
	char path[1024];
	FILE *f;

	CHECK_EQ(dissect("/nonexistent-dir/none.pcap", 0), 2);
	CHECK(has("cannot read /nonexistent-dir/none.pcap: "));
	snprintf(path, sizeof(path), "%s/dissect_text.pcap", dir);
	f = fopen(path, "w");
	if (f) {
		fputs("this is not a capture file\n", f);
		fclose(f);
	}
	CHECK_EQ(dissect(path, 0), 2);
	CHECK(has("cannot read "));
}

static void test_mixed(const char *golden, const char *dir)
{
	struct wqe_pcap_reader *r = wqe_pcap_reader_open(golden, NULL, 0);
	uint8_t dns[74], cut[60];
	char path[1024];
	struct wqe_pcap *w;
	const uint8_t *f;
	size_t len;
	uint64_t ts;

	snprintf(path, sizeof(path), "%s/dissect_mixed.pcap", dir);
	w = wqe_pcap_open(path);
	CHECK(r && w && wqe_pcap_read(r, &f, &len, &ts) == 1 && len == 74);
	if (!r || !w)
		return;
	memcpy(dns, f, 74);
	dns[36] = 0; /* UDP destination port 53 */
	dns[37] = 53;
	memcpy(cut, f, sizeof(cut));
	wqe_pcap_write(w, f, len, ts);
	wqe_pcap_write(w, dns, sizeof(dns), ts);
	wqe_pcap_write(w, f, 10, ts); /* shorter than Ethernet */
	wqe_pcap_close(w);
	CHECK_EQ(dissect(path, 0), 0);
	CHECK(has("frame 2: 74 bytes, skipped: not RoCEv2 (UDP destination port is not 4791)"));
	CHECK(has("frame 3: 10 bytes, skipped: not RoCEv2 (truncated Ethernet header)"));
	CHECK(has("3 frames: 1 RoCEv2, 2 skipped, 0 bad\n"));
	w = wqe_pcap_open(path);
	wqe_pcap_write(w, f, len, ts);
	wqe_pcap_write(w, cut, sizeof(cut), ts); /* RoCEv2, cut short */
	wqe_pcap_close(w);
	wqe_pcap_reader_close(r);
	CHECK_EQ(dissect(path, 0), 1);
	CHECK(has("frame 2: 60 bytes, BAD: malformed RoCEv2 packet: IP length"));
	CHECK(has("2 frames: 2 RoCEv2, 0 skipped, 1 bad (bad frames: 2)\n"));
}

/* Re-write the golden frames under another link type, with libpcap. */
static void relink(const char *golden, const char *path, int dlt, size_t hdr)
{
	struct wqe_pcap_reader *r = wqe_pcap_reader_open(golden, NULL, 0);
	pcap_t *dead = pcap_open_dead(dlt, 65535);
	pcap_dumper_t *d = pcap_dump_open(dead, path);
	struct pcap_pkthdr h;
	uint8_t buf[4096];
	const uint8_t *f;
	size_t len;
	uint64_t ts;

	CHECK(r && d);
	while (r && d && wqe_pcap_read(r, &f, &len, &ts) == 1) {
		memset(buf, 0, hdr);
		if (dlt == DLT_LINUX_SLL) {
			buf[14] = f[12]; /* protocol = EtherType */
			buf[15] = f[13];
		}
		memcpy(buf + hdr, f + 14, len - 14);
		memset(&h, 0, sizeof(h));
		h.caplen = h.len = (bpf_u_int32)(len - 14 + hdr);
		pcap_dump((u_char *)d, &h, buf);
	}
	if (d)
		pcap_dump_close(d);
	pcap_close(dead);
	wqe_pcap_reader_close(r);
}

static void test_link_types(const char *golden, const char *dir)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/dissect_raw.pcap", dir);
	relink(golden, path, DLT_RAW, 0);
	CHECK_EQ(dissect(path, 0), 0);
	CHECK(has("60 frames: 60 RoCEv2, 0 skipped, 0 bad\n"));
	CHECK(!strstr(out_buf, "  ETH "));
	snprintf(path, sizeof(path), "%s/dissect_sll.pcap", dir);
	relink(golden, path, DLT_LINUX_SLL, 16);
	CHECK_EQ(dissect(path, 0), 0);
	CHECK(has("60 frames: 60 RoCEv2, 0 skipped, 0 bad\n"));
	snprintf(path, sizeof(path), "%s/dissect_user.pcap", dir);
	relink(golden, path, DLT_USER0, 0);
	CHECK_EQ(dissect(path, 0), 2);
	CHECK(has("not supported"));
}

int main(int argc, char **argv)
{
	const char *vectors = argc > 1 ? argv[1] : WQE_TEST_VECTORS;
	const char *dir = argc > 2 ? argv[2] : WQE_TEST_BINDIR;
	char golden[1024];

	snprintf(golden, sizeof(golden), "%s/golden.pcap", vectors);
	test_golden(golden, dir);
	test_unreadable(dir);
	test_mixed(golden, dir);
	test_link_types(golden, dir);
	free(out_buf);
	return test_finish();
}
