/* SPDX-License-Identifier: MIT */
/*
 * pcap.c - capture files through libpcap: a writer that flushes every frame
 * (an interrupted run still leaves a readable file), a reader, link-type
 * framing in front of the RoCEv2 parser, and the dissector built on them.
 */
/* libpcap's headers use u_char and u_int, which glibc hides in strict C11. */
#define _DEFAULT_SOURCE 1

#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "wqe/wire.h"

#define PCAP_SNAPLEN 262144u /* libpcap's MAXIMUM_SNAPLEN */
#define NS_PER_SEC   1000000000ull

struct wqe_pcap {
	pcap_t *dead;
	pcap_dumper_t *dumper;
};

struct wqe_pcap_reader {
	pcap_t *pcap;
};

struct wqe_pcap *wqe_pcap_open(const char *path)
{
	struct wqe_pcap *w = calloc(1, sizeof(*w));
	FILE *fp;

	if (!w)
		return NULL;
	fp = fopen(path, "wb");
	if (!fp) {
		free(w);
		return NULL;
	}
	w->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)PCAP_SNAPLEN,
						       PCAP_TSTAMP_PRECISION_NANO);
	w->dumper = w->dead ? pcap_dump_fopen(w->dead, fp) : NULL;
	if (!w->dumper) {
		fclose(fp);
		if (w->dead)
			pcap_close(w->dead);
		free(w);
		errno = EIO;
		return NULL;
	}
	/* The file header goes out now: a capture interrupted before its
	 * first frame is still a readable, empty capture. */
	if (pcap_dump_flush(w->dumper) != 0) {
		wqe_pcap_close(w);
		errno = EIO;
		return NULL;
	}
	return w;
}

int wqe_pcap_write(struct wqe_pcap *w, const uint8_t *frame, size_t len, uint64_t ts_ns)
{
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(ts_ns / NS_PER_SEC);
	/* With nanosecond precision, libpcap keeps nanoseconds in tv_usec. */
	h.ts.tv_usec = (suseconds_t)(ts_ns % NS_PER_SEC);
	h.len = len > UINT32_MAX ? UINT32_MAX : (bpf_u_int32)len;
	h.caplen = len > PCAP_SNAPLEN ? PCAP_SNAPLEN : (bpf_u_int32)len;
	/* libpcap passes the dumper as pcap_dump's opaque user argument. */
	pcap_dump((u_char *)w->dumper, &h, frame);
	if (pcap_dump_flush(w->dumper) != 0) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

int wqe_pcap_close(struct wqe_pcap *w)
{
	int rc = 0;

	if (!w)
		return 0;
	if (pcap_dump_flush(w->dumper) != 0) {
		rc = -1;
		if (!errno)
			errno = EIO;
	}
	pcap_dump_close(w->dumper);
	pcap_close(w->dead);
	free(w);
	return rc;
}

struct wqe_pcap_reader *wqe_pcap_reader_open(const char *path, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct wqe_pcap_reader *r = calloc(1, sizeof(*r));

	if (r)
		r->pcap =
		    pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	else
		snprintf(ebuf, sizeof(ebuf), "out of memory");
	if (r && r->pcap)
		return r;
	free(r);
	if (err && errlen)
		snprintf(err, errlen, "%s", ebuf);
	return NULL;
}

int wqe_pcap_reader_linktype(const struct wqe_pcap_reader *r)
{
	return pcap_datalink(r->pcap);
}

int wqe_pcap_read(struct wqe_pcap_reader *r, const uint8_t **frame, size_t *len, uint64_t *ts_ns)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(r->pcap, &h, &data);

	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1)
		return -1;
	*frame = data;
	*len = h->caplen;
	*ts_ns = (uint64_t)h->ts.tv_sec * NS_PER_SEC + (uint64_t)h->ts.tv_usec;
	return 1;
}

void wqe_pcap_reader_close(struct wqe_pcap_reader *r)
{
	if (!r)
		return;
	pcap_close(r->pcap);
	free(r);
}

/* Linux cooked captures: v1 has the protocol at byte 14 of 16, v2 at 0 of 20. */
static int parse_sll(const uint8_t *f, size_t len, size_t hdr, size_t proto_off,
		     struct wqe_pkt *out)
{
	uint16_t proto;

	memset(out, 0, sizeof(*out));
	if (len < hdr)
		return WQE_PKT_ETRUNC_ETH;
	proto = get_be16(f + proto_off);
	if (proto != WQE_ETHERTYPE_IPV4 && proto != WQE_ETHERTYPE_IPV6)
		return WQE_PKT_ENOT_IP;
	return wqe_pkt_parse_ip(f + hdr, len - hdr, out);
}

static int linktype_supported(int lt)
{
	return lt == DLT_EN10MB || lt == DLT_RAW || lt == DLT_IPV4 || lt == DLT_IPV6 ||
	       lt == DLT_LINUX_SLL || lt == DLT_LINUX_SLL2 || lt == DLT_NULL || lt == DLT_LOOP;
}

int wqe_pkt_parse_link(int linktype, const uint8_t *frame, size_t len, struct wqe_pkt *out)
{
	switch (linktype) {
	case DLT_EN10MB:
		return wqe_pkt_parse(frame, len, out);
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return wqe_pkt_parse_ip(frame, len, out);
	case DLT_LINUX_SLL:
		return parse_sll(frame, len, 16, 14, out);
	case DLT_LINUX_SLL2:
		return parse_sll(frame, len, 20, 0, out);
	case DLT_NULL:
	case DLT_LOOP:
		/* A 4-byte address family in either byte order: let the IP
		 * version nibble decide. */
		memset(out, 0, sizeof(*out));
		if (len < 4)
			return WQE_PKT_ETRUNC_ETH;
		return wqe_pkt_parse_ip(frame + 4, len - 4, out);
	default:
		memset(out, 0, sizeof(*out));
		return WQE_PKT_ENOT_IP;
	}
}

/* ------------------------------------------------------------------------ */
/* The dissector.                                                           */

#define BAD_LIST_MAX 32

struct dissect_stats {
	unsigned long frames, roce, skipped, bad;
	unsigned long bad_list[BAD_LIST_MAX];
};

static void note_bad(struct dissect_stats *st)
{
	if (st->bad < BAD_LIST_MAX)
		st->bad_list[st->bad] = st->frames;
	st->bad++;
}

static void hexdump(FILE *out, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i % 16 == 0)
			fprintf(out, "    %04x ", (unsigned)i);
		fprintf(out, " %02x", p[i]);
		if (i % 16 == 15 || i + 1 == n)
			fputc('\n', out);
	}
}

/* The ICRC the packet should carry: its IP header sits right before its
 * UDP header, which sits right before the BTH, all inside the frame. */
static uint32_t expected_icrc(const struct wqe_pkt *p)
{
	const uint8_t *bth = p->payload - wqe_hdrs_len(p->hdrs);
	size_t hl = p->ipver == 4 ? WQE_IPV4_LEN : WQE_IPV6_LEN;

	return wqe_icrc(bth - WQE_UDP_LEN - hl, hl + p->udp_len - WQE_ICRC_LEN, p->ipver);
}

static void dissect_one(FILE *out, int lt, const uint8_t *f, size_t len, unsigned flags,
			struct dissect_stats *st)
{
	struct wqe_pkt p;
	int rc = wqe_pkt_parse_link(lt, f, len, &p);

	if (rc && wqe_pkt_err_not_roce(rc)) {
		st->skipped++;
		fprintf(out, "frame %lu: %zu bytes, skipped: not RoCEv2 (%s)\n", st->frames, len,
			wqe_pkt_err_str(rc));
		return;
	}
	st->roce++;
	if (rc) {
		note_bad(st);
		fprintf(out, "frame %lu: %zu bytes, BAD: malformed RoCEv2 packet: %s\n", st->frames,
			len, wqe_pkt_err_str(rc));
		return;
	}
	fprintf(out, "frame %lu: %zu bytes, %s\n", st->frames, len,
		wqe_wire_opcode_str(p.bth.opcode));
	wqe_pkt_print(out, &p);
	if ((flags & WQE_DISSECT_HEX) && p.payload_len)
		hexdump(out, p.payload, p.payload_len);
	if (!p.icrc_ok) {
		note_bad(st);
		fprintf(out, "frame %lu: BAD ICRC 0x%08x, expected 0x%08x\n", st->frames,
			(unsigned)p.icrc, (unsigned)expected_icrc(&p));
	}
}

static void summary(FILE *out, const struct dissect_stats *st)
{
	fprintf(out, "%lu frames: %lu RoCEv2, %lu skipped, %lu bad", st->frames, st->roce,
		st->skipped, st->bad);
	for (unsigned long i = 0; i < st->bad && i < BAD_LIST_MAX; i++)
		fprintf(out, "%s%lu", i ? ", " : " (bad frames: ", st->bad_list[i]);
	if (st->bad)
		fputs(st->bad > BAD_LIST_MAX ? ", ...)" : ")", out);
	fputc('\n', out);
}

int wqe_dissect_file(const char *path, FILE *out, unsigned flags)
{
	char err[PCAP_ERRBUF_SIZE];
	struct dissect_stats st;
	struct wqe_pcap_reader *r;
	const uint8_t *f;
	uint64_t ts;
	size_t len;
	int lt, rc;

	memset(&st, 0, sizeof(st));
	r = wqe_pcap_reader_open(path, err, sizeof(err));
	if (!r) {
		fprintf(out, "cannot read %s: %s\n", path, err);
		return 2;
	}
	lt = wqe_pcap_reader_linktype(r);
	if (!linktype_supported(lt)) {
		fprintf(out, "cannot dissect %s: link type %s (%d) not supported\n", path,
			pcap_datalink_val_to_name(lt) ? pcap_datalink_val_to_name(lt) : "?", lt);
		wqe_pcap_reader_close(r);
		return 2;
	}
	while ((rc = wqe_pcap_read(r, &f, &len, &ts)) == 1) {
		st.frames++;
		dissect_one(out, lt, f, len, flags, &st);
	}
	if (rc < 0)
		fprintf(out, "cannot read %s after frame %lu: %s\n", path, st.frames,
			pcap_geterr(r->pcap));
	wqe_pcap_reader_close(r);
	summary(out, &st);
	if (rc < 0)
		return 2;
	return st.bad ? 1 : 0;
}
