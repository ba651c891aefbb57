/* SPDX-License-Identifier: MIT */
/*
 * test_golden.c - wqe_pkt_parse, wqe_pkt_build and the ICRC against the
 * golden RoCEv2 vectors (vectors/golden.pcap, built with scapy, ICRCs from
 * two independent implementations).
 *
 * golden.jsonl is flattened by golden_flat.py (python3 stdlib) into
 * "index<TAB>path<TAB>value" lines; this test flattens its own decode of
 * each frame the same way and compares the two sets both ways, so every
 * field of the vectors is checked and nothing we decode goes unchecked.
 * Only "name" and "note" (prose) are not compared. A missing python, script
 * or vectors folder is a failure. The UDP-socket path rebuilds each
 * packet's headers as a receiver that never saw them would, and finds each
 * IPv4 vector's identification and DF from its ICRC alone.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "wqe/wire.h"

#define NFRAMES 60
#define MAXKV	64
#define VALLEN	1024

struct kv {
	char path[32];
	char val[VALLEN];
};

struct kvset {
	int n;
	struct kv kv[MAXKV];
};

static struct kvset expect[NFRAMES];

static void kv_add(struct kvset *s, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#include <stdarg.h>

static void kv_add(struct kvset *s, const char *path, const char *fmt, ...)
{
	va_list ap;

	if (s->n >= MAXKV) {
		test_checks++;
		test_fail(__FILE__, __LINE__, "too many fields");
		return;
	}
	snprintf(s->kv[s->n].path, sizeof(s->kv[s->n].path), "%s", path);
	va_start(ap, fmt);
	vsnprintf(s->kv[s->n].val, VALLEN, fmt, ap);
	va_end(ap);
	s->n++;
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

static int load_expect(const char *python, const char *script, const char *jsonl)
{
	char cmd[2048], line[4096];
	int records = 0, st;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", python, script, jsonl);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *t1 = strchr(line, '\t'), *t2, *nl;
		long idx = strtol(line, NULL, 10);

		if (!t1 || !(t2 = strchr(t1 + 1, '\t')) || idx < 0 || idx >= NFRAMES)
			continue;
		*t2 = 0;
		if ((nl = strchr(t2 + 1, '\n')))
			*nl = 0;
		if (!strcmp(t1 + 1, "name") || !strcmp(t1 + 1, "note"))
			continue;
		if (!strcmp(t1 + 1, "index"))
			records++;
		kv_add(&expect[idx], t1 + 1, "%s", t2 + 1);
	}
	st = pclose(f);
	return st == 0 ? records : -1;
}

static void addr(char *out, const struct wqe_pkt *p, const union wqe_gid *g)
{
	if (p->ipver == 4)
		sprintf(out, "%u.%u.%u.%u", g->raw[12], g->raw[13], g->raw[14], g->raw[15]);
	else
		inet_ntop(AF_INET6, g->raw, out, 64);
}

static void flatten_l2l3(struct kvset *s, const struct wqe_pkt *p)
{
	char a[64];

	kv_add(s, "ipver", "%u", p->ipver);
	kv_add(s, "eth.dst", "%02x:%02x:%02x:%02x:%02x:%02x", p->dmac[0], p->dmac[1], p->dmac[2],
	       p->dmac[3], p->dmac[4], p->dmac[5]);
	kv_add(s, "eth.src", "%02x:%02x:%02x:%02x:%02x:%02x", p->smac[0], p->smac[1], p->smac[2],
	       p->smac[3], p->smac[4], p->smac[5]);
	kv_add(s, "eth.type", "%u", p->ethertype);
	addr(a, p, &p->src);
	kv_add(s, "ip.src", "%s", a);
	addr(a, p, &p->dst);
	kv_add(s, "ip.dst", "%s", a);
	if (p->ipver == 4) {
		kv_add(s, "ip.tos", "%u", p->tos);
		kv_add(s, "ip.ttl", "%u", p->ttl);
		kv_add(s, "ip.id", "%u", p->ip_id);
		kv_add(s, "ip.flags", "%u", p->ip_flags);
		kv_add(s, "ip.len", "%u", p->ip_len);
		kv_add(s, "ip.chksum", "%u", p->ip_csum);
		kv_add(s, "ip.proto", "%u", p->ip_proto);
	} else {
		kv_add(s, "ip.tc", "%u", p->tos);
		kv_add(s, "ip.fl", "%u", (unsigned)p->flow_label);
		kv_add(s, "ip.hlim", "%u", p->ttl);
		kv_add(s, "ip.plen", "%u", p->ip_len);
		kv_add(s, "ip.nh", "%u", p->ip_proto);
	}
	kv_add(s, "udp.sport", "%u", p->sport);
	kv_add(s, "udp.dport", "%u", p->dport);
	kv_add(s, "udp.len", "%u", p->udp_len);
	kv_add(s, "udp.chksum", "%u", p->udp_csum);
}

static void flatten_bth(struct kvset *s, const struct wqe_bth *b)
{
	kv_add(s, "bth.opcode", "%u", b->opcode);
	kv_add(s, "bth.opcode_name", "%s", wqe_wire_opcode_str(b->opcode));
	kv_add(s, "bth.se", "%u", b->se);
	kv_add(s, "bth.m", "%u", b->migreq);
	kv_add(s, "bth.padcnt", "%u", b->padcnt);
	kv_add(s, "bth.tver", "%u", b->tver);
	kv_add(s, "bth.pkey", "%u", b->pkey);
	kv_add(s, "bth.fecn", "%u", b->fecn);
	kv_add(s, "bth.becn", "%u", b->becn);
	kv_add(s, "bth.resv6", "%u", b->resv6);
	kv_add(s, "bth.destqp", "%u", (unsigned)b->destqp);
	kv_add(s, "bth.ackreq", "%u", b->ackreq);
	kv_add(s, "bth.resv7", "%u", b->resv7);
	kv_add(s, "bth.psn", "%u", (unsigned)b->psn);
}

static uint64_t be64_at(const uint8_t *q)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | q[i];
	return v;
}

static void flatten_ext(struct kvset *s, const struct wqe_pkt *p)
{
	char list[128] = "";

	for (unsigned i = 0; i < WQE_HDR_COUNT; i++) {
		if (!(p->hdrs & 1u << i))
			continue;
		if (list[0])
			strcat(list, ",");
		strcat(list, wqe_hdr_str((enum wqe_hdr)(1u << i)));
	}
	kv_add(s, "headers", "%s", list);
	if (p->hdrs & WQE_HDR_RETH) {
		kv_add(s, "reth.va", "%" PRIu64, p->reth.va);
		kv_add(s, "reth.rkey", "%" PRIu32, p->reth.rkey);
		kv_add(s, "reth.dmalen", "%" PRIu32, p->reth.dma_len);
	}
	if (p->hdrs & WQE_HDR_AETH) {
		kv_add(s, "aeth.syndrome", "%u", p->aeth.syndrome);
		kv_add(s, "aeth.msn", "%" PRIu32, p->aeth.msn);
	}
	if (p->hdrs & WQE_HDR_IMMDT)
		kv_add(s, "immdt.imm", "%" PRIu32, p->immdt.imm);
	if (p->hdrs & WQE_HDR_IETH)
		kv_add(s, "ieth.rkey", "%" PRIu32, p->ieth.rkey);
	if (p->hdrs & WQE_HDR_DETH) {
		kv_add(s, "deth.qkey", "%" PRIu32, p->deth.qkey);
		kv_add(s, "deth.resv", "%u", p->deth.resv8);
		kv_add(s, "deth.srcqp", "%" PRIu32, p->deth.srcqp);
	}
	if (p->hdrs & WQE_HDR_ATOMICETH) {
		kv_add(s, "atomiceth.va", "%" PRIu64, p->atomiceth.va);
		kv_add(s, "atomiceth.rkey", "%" PRIu32, p->atomiceth.rkey);
		kv_add(s, "atomiceth.swap_add", "%" PRIu64, p->atomiceth.swap_add);
		kv_add(s, "atomiceth.compare", "%" PRIu64, p->atomiceth.compare);
	}
	if (p->hdrs & WQE_HDR_ATOMICACKETH)
		kv_add(s, "atomicacketh.orig", "%" PRIu64, p->atomicacketh.orig);
	if (p->hdrs & WQE_HDR_CNP) {
		kv_add(s, "cnp.reserved1", "%" PRIu64, be64_at(p->cnp.rsvd));
		kv_add(s, "cnp.reserved2", "%" PRIu64, be64_at(p->cnp.rsvd + 8));
	}
}

static void flatten(struct kvset *s, int idx, const uint8_t *f, size_t len, const struct wqe_pkt *p)
{
	static char h[2 * 4096 + 1];
	uint8_t icrc[4];

	kv_add(s, "index", "%d", idx);
	kv_add(s, "frame_len", "%zu", len);
	hex(h, f, len);
	kv_add(s, "hex", "%s", h);
	flatten_l2l3(s, p);
	flatten_bth(s, &p->bth);
	flatten_ext(s, p);
	kv_add(s, "payload_len", "%" PRIu32, p->payload_len);
	hex(h, p->payload, p->payload_len);
	kv_add(s, "payload_hex", "%s", h);
	hex(h, p->pad, p->bth.padcnt);
	kv_add(s, "pad_hex", "%s", h);
	icrc[0] = (uint8_t)p->icrc;
	icrc[1] = (uint8_t)(p->icrc >> 8);
	icrc[2] = (uint8_t)(p->icrc >> 16);
	icrc[3] = (uint8_t)(p->icrc >> 24);
	hex(h, icrc, 4);
	kv_add(s, "icrc_hex", "%s", h);
	kv_add(s, "icrc_crc32", "0x%08" PRIx32, p->icrc);
}

static const struct kv *kv_find(const struct kvset *s, const char *path)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->kv[i].path, path))
			return &s->kv[i];
	return NULL;
}

static void compare(int idx, const struct kvset *got)
{
	const struct kvset *exp = &expect[idx];

	CHECK(exp->n > 20);
	for (int i = 0; i < exp->n; i++) {
		const struct kv *g = kv_find(got, exp->kv[i].path);

		test_checks++;
		if (!g)
			test_fail(__FILE__, __LINE__, "frame %d: %s not decoded", idx + 1,
				  exp->kv[i].path);
		else if (strcmp(g->val, exp->kv[i].val))
			test_fail(__FILE__, __LINE__, "frame %d: %s = '%s', golden '%s'", idx + 1,
				  exp->kv[i].path, g->val, exp->kv[i].val);
	}
	for (int i = 0; i < got->n; i++) {
		test_checks++;
		if (!kv_find(exp, got->kv[i].path))
			test_fail(__FILE__, __LINE__, "frame %d: decoded %s not in golden", idx + 1,
				  got->kv[i].path);
	}
}

/* Build from the decoded fields, in one call and gathered in pieces. */
static void rebuild(int idx, const uint8_t *f, size_t len, const struct wqe_pkt *p)
{
	uint8_t out[4096];
	struct wqe_pkt_layout lay;
	size_t n = 0, cut;

	CHECK_EQ(wqe_pkt_build(p, p->payload, p->payload_len, out, sizeof(out), &n), 0);
	CHECK_EQ(n, len);
	CHECK_EQ(wqe_pkt_frame_len(p, p->payload_len), len);
	test_checks++;
	if (n == len && memcmp(out, f, len)) {
		test_fail(__FILE__, __LINE__, "frame %d: rebuilt frame differs", idx + 1);
		test_memdiff(out, f, len, __FILE__, __LINE__, "built", "golden");
	}
	memset(out, 0xa5, sizeof(out));
	CHECK_EQ(wqe_pkt_build_hdrs(p, p->payload_len, out, len, &lay), 0);
	cut = p->payload_len / 3;
	memcpy(out + lay.payload_off, p->payload, cut);
	memcpy(out + lay.payload_off + cut, p->payload + cut, p->payload_len - cut);
	wqe_pkt_build_finish(out, &lay);
	CHECK_EQ(lay.frame_len, len);
	CHECK_MEM(out, f, len);
	CHECK_EQ(wqe_pkt_build(p, p->payload, p->payload_len, out, len - 1, &n), WQE_PKT_ENOSPC);
}

/* The UDP-socket path: the same ICRC from rebuilt IP/UDP headers. */
static void udp_path(const uint8_t *f, size_t len, const struct wqe_pkt *p)
{
	size_t bth_off = WQE_ETH_LEN + (p->ipver == 4 ? WQE_IPV4_LEN : WQE_IPV6_LEN) + WQE_UDP_LEN;
	struct wqe_pkt q;

	memset(&q, 0, sizeof(q));
	q.ipver = p->ipver;
	q.src = p->src;
	q.dst = p->dst;
	q.sport = p->sport;
	q.dport = p->dport;
	q.ip_id = p->ip_id;
	q.ip_flags = p->ip_flags;
	CHECK_EQ(wqe_pkt_parse_bth(f + bth_off, len - bth_off, &q), 0);
	CHECK(q.icrc_ok);
	CHECK_EQ(q.icrc, p->icrc);
	CHECK_EQ(q.payload_len, p->payload_len);
	CHECK_EQ(q.udp_len, p->udp_len);
	CHECK_EQ(q.ip_len, p->ip_len);
	/* A UDP socket sees no identification: the ICRC alone gives the
	 * vector's back (they are 0x1000 and up, DF set). */
	if (p->ipver == 4) {
		static uint8_t l3[4500];
		size_t n = len - WQE_ETH_LEN - WQE_ICRC_LEN;
		uint16_t id = 0;
		int df = -1;

		memcpy(l3, f + WQE_ETH_LEN, n);
		memset(l3 + 4, 0xa5, 4); /* not read */
		CHECK(p->ip_id != 0);
		CHECK_EQ(wqe_icrc_find_ipv4_id(l3, n, p->icrc, &id, &df), 1);
		CHECK_EQ(id, p->ip_id);
		CHECK_EQ(df, (p->ip_flags & 2) != 0);
		/* One bit of the payload changed: no identification explains it. */
		l3[n - 1] ^= 0x10;
		CHECK_EQ(wqe_icrc_find_ipv4_id(l3, n, p->icrc, &id, &df), 0);
	}
}

static void check_frame(int idx, const uint8_t *f, size_t len, struct wqe_pkt *saved)
{
	static struct kvset got;
	struct wqe_pkt p;
	size_t l3 = WQE_ETH_LEN;
	int rc;

	rc = wqe_pkt_parse(f, len, &p);
	test_checks++;
	if (rc) {
		test_fail(__FILE__, __LINE__, "frame %d: %s", idx + 1, wqe_pkt_err_str(rc));
		return;
	}
	CHECK(p.icrc_ok);
	CHECK(p.ip_csum_ok);
	CHECK(p.udp_csum_ok);
	CHECK_EQ(wqe_icrc(f + l3, len - l3 - WQE_ICRC_LEN, p.ipver), p.icrc);
	CHECK_EQ(!!(p.opts & WQE_PKT_OPT_UDP_CSUM), p.ipver == 6);
	memset(&got, 0, sizeof(got));
	flatten(&got, idx, f, len, &p);
	compare(idx, &got);
	rebuild(idx, f, len, &p);
	udp_path(f, len, &p);
	saved[idx] = p;
}

int main(int argc, char **argv)
{
	const char *python = argc > 1 ? argv[1] : WQE_TEST_PYTHON;
	const char *vectors = argc > 2 ? argv[2] : WQE_TEST_VECTORS;
	static struct wqe_pkt saved[NFRAMES];
	char path[1024], err[512];
	struct wqe_pcap_reader *r;
	const uint8_t *f;
	size_t len;
	uint64_t ts;
	int n = 0, rc;

	snprintf(path, sizeof(path), "%s/golden.jsonl", vectors);
	rc = load_expect(python, WQE_TEST_SRCDIR "/golden_flat.py", path);
	test_checks++;
	if (rc != NFRAMES)
		test_fail(__FILE__, __LINE__, "%s: %d records via %s (want %d)", path, rc, python,
			  NFRAMES);
	snprintf(path, sizeof(path), "%s/golden.pcap", vectors);
	r = wqe_pcap_reader_open(path, err, sizeof(err));
	test_checks++;
	if (!r) {
		test_fail(__FILE__, __LINE__, "%s: %s", path, err);
		return test_finish();
	}
	CHECK_EQ(wqe_pcap_reader_linktype(r), 1); /* DLT_EN10MB */
	while ((rc = wqe_pcap_read(r, &f, &len, &ts)) == 1 && n < NFRAMES) {
		check_frame(n, f, len, saved);
		n++;
	}
	CHECK_EQ(rc, 0);
	CHECK_EQ(n, NFRAMES);
	wqe_pcap_reader_close(r);
	/* The masked-fields frames (29, 59) differ from frames 1 and 31 only
	 * in fields the ICRC masks: same ICRC. */
	CHECK_EQ(saved[28].icrc, saved[0].icrc);
	CHECK_EQ(saved[58].icrc, saved[30].icrc);
	CHECK(saved[28].ttl != saved[0].ttl && saved[28].bth.fecn != saved[0].bth.fecn);
	CHECK(saved[58].flow_label != saved[30].flow_label);
	return test_finish();
}
