/* SPDX-License-Identifier: MIT */
/*
 * libwqe_dpi (wqe/dpi.h): known bytes, the text and field forms agreeing,
 * decode and the NIC's verdict, packets one at a time against all at once
 * (PSN wrap, IPv4 identification, READ), the ICRC, every error path and
 * every truncated prefix, two threads at once, and the SystemVerilog
 * package's field indices (examples/dpi/wqe_pkg.sv) against the library.
 *
 * usage: test_dpi PATH/TO/wqe_pkg.sv
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wqe/dpi.h"
#include "wqe/wire.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

static int unhex(const char *s, unsigned char *out)
{
	int n = 0;

	for (; s[0] && s[1]; s += 2) {
		unsigned v;

		if (sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = (unsigned char)v;
	}
	return n;
}

/* The example of `wqe encode --help`, as docs/cli.md shows its bytes. */
static void test_known_bytes(void)
{
	static const char *want =
	    "0000000800012303000000080000000000002000000000400000abcd0000000080000004"
	    "a0a1a2a3000000000000000000000000000000000000000000000000";
	unsigned char wqe[WQE_DPI_WQE_MAX], ref[64], msg[WQE_DPI_MSG_MAX] = "x";
	int n = wqe_dpi_encode("write raddr=0x200000000040 rkey=0xabcd inline=a0a1a2a3 "
			       "flags=signaled # a comment",
			       NULL, wqe, sizeof(wqe), msg, sizeof(msg));

	CHECK(n == 64 && unhex(want, ref) == 64 && memcmp(wqe, ref, 64) == 0, "got %d", n);
	CHECK(msg[0] == '\0', "message on success: %s", msg);
	/* The same request by fields takes the same path. */
	unsigned char inl[4] = {0xa0, 0xa1, 0xa2, 0xa3}, wqe2[WQE_DPI_WQE_MAX];
	int n2 =
	    wqe_dpi_encode_fields("", 0, 2, 0, 0x200000000040ull, 0xabcd, 0, 0, 0, 0, 0, 0, NULL,
				  NULL, NULL, inl, 4, wqe2, sizeof(wqe2), msg, sizeof(msg));
	CHECK(n2 == 64 && memcmp(wqe2, ref, 64) == 0, "fields: %d %s", n2, msg);
}

/* A line and its fields on both formats and a few transports. */
static void test_fields_match_text(void)
{
	static const struct {
		const char *opts, *line;
		int op;
		unsigned flags;
		unsigned long long raddr;
		unsigned rkey, imm;
		unsigned long long swap, cmp;
		unsigned dqpn, qkey;
	} c[] = {
	    {"--qp uc", "send_imm sge=0x1000:100:7 sge=0x2000:5:8 imm=0x01020304 flags=fence", 3, 1,
	     0, 0, 0x01020304, 0, 0, 0, 0},
	    {"--format rxe", "cas sge=0x1000:8:7 raddr=0x40 rkey=9 swap=5 compare=6", 5, 0, 0x40, 9,
	     0, 5, 6, 0, 0},
	    {"--format rxe --qp rc", "faa sge=0x1000:8:7 raddr=0x48 rkey=9 add=11", 6, 0, 0x48, 9,
	     0, 11, 0, 0, 0},
	    {"--qp rc --sig-all", "send_inv sge=0x1000:100:7 sge=0x2000:5:8 inv=0xdead", 9, 0, 0, 0,
	     0xdead, 0, 0, 0, 0},
	    {"--qp ud --qpn 5",
	     "send sge=0x1000:100:7 sge=0x2000:5:8 dqpn=0x77 qkey=0x11 flags=solicited", 2, 4, 0, 0,
	     0, 0, 0, 0x77, 0x11},
	};
	unsigned long long addr[2] = {0x1000, 0x2000};
	unsigned len[2] = {100, 5}, lkey[2] = {7, 8};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		unsigned char a[WQE_DPI_WQE_MAX], b[WQE_DPI_WQE_MAX], msg[WQE_DPI_MSG_MAX];
		int atomic = c[i].op == 5 || c[i].op == 6, ns = atomic ? 1 : 2;
		unsigned alen[1] = {8};
		int na = wqe_dpi_encode(c[i].line, c[i].opts, a, sizeof(a), msg, sizeof(msg));
		int nb = wqe_dpi_encode_fields(c[i].opts, c[i].op, c[i].flags, 0, c[i].raddr,
					       c[i].rkey, c[i].imm, c[i].swap, c[i].cmp, c[i].dqpn,
					       c[i].qkey, ns, addr, atomic ? alen : len, lkey, NULL,
					       0, b, sizeof(b), msg, sizeof(msg));

		CHECK(na > 0 && na == nb && memcmp(a, b, (size_t)na) == 0, "case %zu: %d %d %s", i,
		      na, nb, msg);
	}
}

static unsigned long long field(const unsigned long long *f, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(wqe_dpi_decode_field(i), name) == 0)
			return f[i];
	return ~0ull;
}

static void test_decode(void)
{
	unsigned char wqe[WQE_DPI_WQE_MAX], msg[WQE_DPI_MSG_MAX];
	unsigned long long f[WQE_DPI_FIELDS_MAX];
	int n = wqe_dpi_encode("write sge=0x1000:3000:0x77 sge=0x9000:8:0x78 raddr=0x5000 "
			       "rkey=0x99 flags=solicited",
			       "--qpn 0x42 --wqe-index 9", wqe, sizeof(wqe), msg, sizeof(msg));
	int k = wqe_dpi_decode("--pmtu 1024", wqe, n, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg));

	CHECK(k == WQE_DPI_D_SGE_BASE + 6, "%d %s", k, msg);
	CHECK(f[WQE_DPI_D_OP] == 3 && f[WQE_DPI_D_RKEY] == 0x99 &&
		  f[WQE_DPI_D_REMOTE_ADDR] == 0x5000 && f[WQE_DPI_D_QPN] == 0x42 &&
		  f[WQE_DPI_D_WQE_INDEX] == 9 && f[WQE_DPI_D_SOLICITED] == 1 &&
		  f[WQE_DPI_D_SIGNALED] == 0 && f[WQE_DPI_D_COMPLETES] == 0,
	      "fields");
	CHECK(f[WQE_DPI_D_NPKTS] == 3 && f[WQE_DPI_D_STATUS] == 0 &&
		  f[WQE_DPI_D_FIRST_OPCODE] == WQE_WIRE_RC_RDMA_WRITE_FIRST,
	      "verdict %llu %llu", f[WQE_DPI_D_NPKTS], f[WQE_DPI_D_STATUS]);
	CHECK(field(f, k, "sge_lkey") == 0x77 && f[WQE_DPI_D_SGE_BASE + 5] == 0x78, "sges");
	/* The same bytes on a UD QP: an mlx5 RC WRITE has no datagram
	 * segment, so the decoder refuses them. */
	k = wqe_dpi_decode("--qp ud", wqe, n, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg));
	CHECK(k == WQE_DPI_EWQE && strstr((char *)msg, "decoder"), "%d %s", k, msg);
	/* A SEND_INV (RC's) decodes on UC, whose NIC refuses it at processing
	 * time: no packet, an error completion even unsignaled. */
	n = wqe_dpi_encode("send_inv sge=0x1000:64:1 inv=2", NULL, wqe, sizeof(wqe), msg,
			   sizeof(msg));
	k = wqe_dpi_decode("--qp uc", wqe, n, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg));
	CHECK(k > 0 && f[WQE_DPI_D_STATUS] == 2 && f[WQE_DPI_D_NPKTS] == 0 &&
		  f[WQE_DPI_D_COMPLETES] == 1 && f[WQE_DPI_D_FIRST_OPCODE] == 256,
	      "%d status %llu", k, f[WQE_DPI_D_STATUS]);
	k = wqe_dpi_decode(NULL, wqe, n, f, WQE_DPI_D_SGE_BASE, msg, sizeof(msg));
	CHECK(k == WQE_DPI_ESPACE, "%d", k);
	/* A UD SEND over the path MTU: the NIC sends nothing and completes it
	 * successfully (IBTA C10-93.1.1, as rxe). */
	n = wqe_dpi_encode("send sge=0x1000:2000:1 flags=signaled", "--qp ud", wqe, sizeof(wqe),
			   msg, sizeof(msg));
	k = wqe_dpi_decode("--qp ud --pmtu 1024", wqe, n, f, WQE_DPI_FIELDS_MAX, msg,
			   sizeof(msg));
	CHECK(k > 0 && f[WQE_DPI_D_STATUS] == 0 && f[WQE_DPI_D_NPKTS] == 0 &&
		  f[WQE_DPI_D_COMPLETES] == 1,
	      "%d %s status %llu npkts %llu", k, msg, f[WQE_DPI_D_STATUS], f[WQE_DPI_D_NPKTS]);
}

/* Packet k alone is frame k of the whole expansion, its ICRC verifies. */
static void check_packets(const char *line, const char *encode_opts, const char *path)
{
	static unsigned char all[1 << 20];
	static int lens[4096];
	unsigned char wqe[WQE_DPI_WQE_MAX], msg[WQE_DPI_MSG_MAX], frame[WQE_DPI_FRAME_MAX];
	char opts[512];
	int needed = -1, n, count, off = 0, len;

	snprintf(opts, sizeof(opts), "%s %s", encode_opts, path);
	n = wqe_dpi_line_packets(line, opts, NULL, 0, NULL, 0, &needed, msg, sizeof(msg));
	CHECK(n == WQE_DPI_ESPACE && needed > 0, "%s: %d %d %s", line, n, needed, msg);
	n = wqe_dpi_line_packets(line, opts, all, sizeof(all), lens, 4096, &needed, msg,
				 sizeof(msg));
	len = wqe_dpi_encode(line, encode_opts, wqe, sizeof(wqe), msg, sizeof(msg));
	count = wqe_dpi_packet_count(opts, wqe, len, msg, sizeof(msg));
	CHECK(n > 0 && n == count, "%s: %d packets, count %d: %s", line, n, count, msg);
	for (int k = 0; k < n; k++) {
		unsigned int icrc = 0;
		unsigned long long f[WQE_DPI_FIELDS_MAX];
		int fl = wqe_dpi_packet(opts, wqe, len, k, frame, sizeof(frame), msg, sizeof(msg));

		CHECK(fl == lens[k] && memcmp(frame, all + off, (size_t)fl) == 0,
		      "%s: packet %d: %d bytes, %d expected: %s", line, k, fl, lens[k], msg);
		CHECK(wqe_dpi_icrc(frame, fl, &icrc, msg, sizeof(msg)) == 0 &&
			  icrc == ((unsigned)frame[fl - 1] << 24 | (unsigned)frame[fl - 2] << 16 |
				   (unsigned)frame[fl - 3] << 8 | frame[fl - 4]),
		      "%s: packet %d icrc", line, k);
		CHECK(wqe_dpi_parse(frame, fl, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg)) ==
			      WQE_DPI_P_COUNT &&
			  f[WQE_DPI_P_ICRC_OK] == 1 && f[WQE_DPI_P_ICRC] == icrc,
		      "%s: packet %d parse", line, k);
		off += lens[k];
	}
	CHECK(off == needed, "%d bytes, needed %d", off, needed);
	CHECK(wqe_dpi_packet(opts, wqe, len, n, frame, sizeof(frame), msg, sizeof(msg)) ==
		  WQE_DPI_ERANGE,
	      "past the last");
	CHECK(wqe_dpi_packet(opts, wqe, len, 0, frame, 10, msg, sizeof(msg)) == WQE_DPI_ESPACE,
	      "short frame buffer");
}

static void test_packets(void)
{
	check_packets("send sge=0x1000:3000:1 sge=0x10:7:2 flags=solicited", "",
		      "--pmtu 256 --psn 0xfffffa");
	check_packets("write_imm sge=0x1000:5000:1 raddr=0x9000 rkey=3 imm=7", "--format rxe",
		      "--src-ip 2001:db8::1 --dst-ip 2001:db8::2 --pmtu 1024");
	check_packets("read sge=0x1000:9000:1 raddr=0x9000 rkey=3", "--qpn 9", "--psn 5");
	check_packets("send_imm inline=00112233 imm=1 dqpn=3 qkey=0x80000000 dgid=10.0.0.9",
		      "--qp ud", "--qkey 0x1234");
	check_packets("send sge=0x1000:20000:1", "", "--pmtu 256"); /* > 64 packets: AckReq */
}

/* Every error path returns its code, fills the message, never crashes. */
static void test_errors(void)
{
	unsigned char wqe[WQE_DPI_WQE_MAX], msg[WQE_DPI_MSG_MAX], tiny[4];
	unsigned long long f[WQE_DPI_FIELDS_MAX];
	unsigned int icrc;
	static const struct {
		const char *line, *opts;
		int err;
	} c[] = {
	    {"write raddr=0x10 rkey=zz", "", WQE_DPI_EREQUEST},
	    {"sned", "", WQE_DPI_EREQUEST},
	    {"", "", WQE_DPI_EREQUEST},
	    {"send\nsend", "", WQE_DPI_EREQUEST},
	    {"recv sge=1:2:3 sge=4:5:6", "--max-recv-sge 1", WQE_DPI_EREQUEST},
	    {"recv sge=1:2:3", "--max-recv-sge 65", WQE_DPI_EOPT},
	    {"recv inline=00", "", WQE_DPI_EREQUEST},
	    {"read raddr=8 rkey=1 sge=1:8:1", "--qp ud", WQE_DPI_EREQUEST},
	    {"send", "--bogus", WQE_DPI_EOPT},
	    {"send", "--qp", WQE_DPI_EOPT},
	    {"send", "--qp xx", WQE_DPI_EOPT},
	    {"send", "--pmtu 1024", WQE_DPI_EOPT},
	    {"send", "--raw", WQE_DPI_EOPT},
	    {"send", "--pcap=x", WQE_DPI_EOPT},
	    {"send", "--format mlx5,rxe", WQE_DPI_EOPT},
	    {"send", "send", WQE_DPI_EOPT},
	    {"send", "--max-sge 62", WQE_DPI_EOPT},
	    {NULL, "", WQE_DPI_EARG},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int rc = wqe_dpi_encode(c[i].line, c[i].opts, wqe, sizeof(wqe), msg, sizeof(msg));

		CHECK(rc == c[i].err && msg[0], "case %zu: %d (%s)", i, rc, msg);
		/* No message buffer, or a one-byte one, is fine too. */
		CHECK(wqe_dpi_encode(c[i].line, c[i].opts, wqe, sizeof(wqe), NULL, 0) == c[i].err,
		      "case %zu without a message", i);
		CHECK(wqe_dpi_encode(c[i].line, c[i].opts, wqe, sizeof(wqe), tiny, 1) == c[i].err &&
			  tiny[0] == 0,
		      "case %zu with a one-byte message", i);
	}
	/* A receive request is one slot of the receive ring (rxe: 40 + 2 x 16
	 * bytes, a power of two); it sends nothing. */
	CHECK(wqe_dpi_encode("recv id=5 sge=0x1000:64:7", "--format rxe --max-recv-sge 2", wqe,
			     sizeof(wqe), msg, sizeof(msg)) == 128 &&
		  wqe[0] == 5 && wqe[40 + 8] == 64,
	      "rxe receive slot: %s", msg);
	CHECK(wqe_dpi_line_packets("recv sge=1:2:3", "", NULL, 0, NULL, 0, NULL, msg,
				   sizeof(msg)) == WQE_DPI_EREQUEST,
	      "packets of a receive request");
	CHECK(wqe_dpi_encode("send", NULL, wqe, 32, msg, sizeof(msg)) == WQE_DPI_ESPACE, "cap");
	CHECK(wqe_dpi_encode("send", NULL, NULL, 64, msg, sizeof(msg)) == WQE_DPI_EARG, "NULL");
	CHECK(wqe_dpi_encode("send", NULL, wqe, -1, msg, sizeof(msg)) == WQE_DPI_EARG, "cap -1");
	{
		char big[WQE_DPI_OPTS_MAX + 2];

		memset(big, ' ', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		CHECK(wqe_dpi_encode("send", big, wqe, 64, msg, sizeof(msg)) == WQE_DPI_EARG,
		      "long options");
	}
	CHECK(wqe_dpi_encode_fields("", 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, 0,
				    wqe, 64, msg, sizeof(msg)) == WQE_DPI_EARG,
	      "bad opcode");
	CHECK(wqe_dpi_encode_fields("", 2, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, 0,
				    wqe, 64, msg, sizeof(msg)) == WQE_DPI_EARG,
	      "INLINE flag");
	CHECK(wqe_dpi_encode_fields("", 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, NULL, NULL, NULL, NULL, 0,
				    wqe, 64, msg, sizeof(msg)) == WQE_DPI_EARG,
	      "NULL SGEs");
	CHECK(wqe_dpi_encode_fields("--qp ud", 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL,
				    NULL, 0, wqe, 64, msg, sizeof(msg)) == WQE_DPI_EREQUEST,
	      "READ on UD");
	memset(wqe, 0, sizeof(wqe));
	CHECK(wqe_dpi_decode("", wqe, 64, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg)) == WQE_DPI_EWQE,
	      "zeros");
	CHECK(wqe_dpi_decode("", NULL, 64, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg)) == WQE_DPI_EARG,
	      "NULL WQE");
	CHECK(wqe_dpi_decode("", wqe, 64, NULL, 0, msg, sizeof(msg)) == WQE_DPI_EARG,
	      "NULL fields");
	CHECK(wqe_dpi_packet_count("", wqe, 0, msg, sizeof(msg)) == WQE_DPI_EARG, "empty");
	CHECK(wqe_dpi_packet("", wqe, 64, -1, wqe, 64, msg, sizeof(msg)) == WQE_DPI_EARG, "index");
	CHECK(wqe_dpi_icrc(wqe, 64, &icrc, msg, sizeof(msg)) == WQE_DPI_EFRAME, "icrc of zeros");
	CHECK(wqe_dpi_icrc(NULL, 64, &icrc, msg, sizeof(msg)) == WQE_DPI_EARG, "icrc NULL");
	CHECK(wqe_dpi_parse(wqe, 64, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg)) == WQE_DPI_EFRAME,
	      "parse of zeros");
	CHECK(wqe_dpi_line_packets("send", "", NULL, 5, NULL, 0, NULL, msg, sizeof(msg)) ==
		  WQE_DPI_EARG,
	      "NULL out with a capacity");
	CHECK(strcmp(wqe_dpi_err_str(WQE_DPI_ERANGE), "unknown error") != 0 &&
		  strcmp(wqe_dpi_err_str(-99), "unknown error") == 0,
	      "err_str");
	CHECK(wqe_dpi_decode_field(-1)[0] == '\0' && wqe_dpi_parse_field(WQE_DPI_P_COUNT)[0] == 0,
	      "names past the end");
}

/* Every prefix of a WQE and of a frame: an error or a result, no crash. */
static void test_prefixes(void)
{
	unsigned char wqe[WQE_DPI_WQE_MAX], frame[WQE_DPI_FRAME_MAX], msg[WQE_DPI_MSG_MAX];
	unsigned long long f[WQE_DPI_FIELDS_MAX];
	unsigned int icrc;
	int n = wqe_dpi_encode("send_imm sge=0x1000:64:1 sge=0x2000:64:2 imm=3", "--format rxe",
			       wqe, sizeof(wqe), msg, sizeof(msg));
	int fl = wqe_dpi_packet("--format rxe", wqe, n, 0, frame, sizeof(frame), msg, sizeof(msg));

	CHECK(n > 0 && fl > 0, "%d %d", n, fl);
	for (int k = 0; k < n; k++) {
		int rc =
		    wqe_dpi_decode("--format rxe", wqe, k, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg));

		CHECK(rc < 0 || (rc > 0 && f[WQE_DPI_D_SIZE] <= (unsigned)k), "prefix %d: %d", k,
		      rc);
	}
	for (int k = 0; k < fl; k++) {
		CHECK(wqe_dpi_icrc(frame, k, &icrc, msg, sizeof(msg)) == WQE_DPI_EFRAME,
		      "frame prefix %d", k);
		CHECK(wqe_dpi_parse(frame, k, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg)) ==
			  WQE_DPI_EFRAME,
		      "frame prefix %d", k);
	}
	/* Random bytes: any answer but a crash. */
	srand(27);
	for (int r = 0; r < 2000; r++) {
		for (int i = 0; i < 256; i++)
			wqe[i] = (unsigned char)rand();
		(void)wqe_dpi_decode(r & 1 ? "--format rxe" : "", wqe, 1 + r % 256, f,
				     WQE_DPI_FIELDS_MAX, msg, sizeof(msg));
		(void)wqe_dpi_packet_count(r & 2 ? "--qp ud" : "", wqe, 256, msg, sizeof(msg));
		(void)wqe_dpi_parse(wqe, 1 + r % 256, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg));
	}
}

/* Two threads at once, each checking its results against the single-threaded
 * ones: no shared state, no static buffer. */
#define MT_REQS	  64
#define MT_ROUNDS 40

struct mt_ref {
	char line[200];
	unsigned char wqe[WQE_DPI_WQE_MAX];
	int len;
	unsigned char frame[WQE_DPI_FRAME_MAX];
	int flen;
};
static struct mt_ref mt_refs[MT_REQS];

static int mt_one(const struct mt_ref *r, unsigned char *wqe, unsigned char *frame)
{
	unsigned char msg[WQE_DPI_MSG_MAX];
	unsigned long long f[WQE_DPI_FIELDS_MAX];
	int len =
	    wqe_dpi_encode(r->line, "--format rxe --qpn 7", wqe, WQE_DPI_WQE_MAX, msg, sizeof(msg));
	int flen = wqe_dpi_packet("--format rxe --qpn 7 --pmtu 256", wqe, len, 1, frame,
				  WQE_DPI_FRAME_MAX, msg, sizeof(msg));

	if (wqe_dpi_decode("--format rxe", wqe, len, f, WQE_DPI_FIELDS_MAX, msg, sizeof(msg)) < 0)
		return -1;
	if (wqe_dpi_encode("bad line", "", wqe + len, 64, msg, sizeof(msg)) != WQE_DPI_EREQUEST ||
	    strstr((char *)msg, "unknown opcode") == NULL)
		return -1;
	return len == r->len && flen == r->flen && memcmp(wqe, r->wqe, (size_t)len) == 0 &&
		       memcmp(frame, r->frame, (size_t)flen) == 0
		   ? 0
		   : -1;
}

static void *mt_thread(void *arg)
{
	unsigned char *wqe = malloc(2 * WQE_DPI_WQE_MAX), *frame = malloc(WQE_DPI_FRAME_MAX);
	long bad = 0;

	(void)arg;
	for (int round = 0; wqe && frame && round < MT_ROUNDS; round++)
		for (int i = 0; i < MT_REQS; i++)
			bad += mt_one(&mt_refs[i], wqe, frame) != 0;
	if (!wqe || !frame)
		bad = -1;
	free(wqe);
	free(frame);
	return (void *)bad;
}

static void test_threads(void)
{
	pthread_t t[2];
	void *res[2];
	unsigned char msg[WQE_DPI_MSG_MAX];

	for (int i = 0; i < MT_REQS; i++) {
		struct mt_ref *r = &mt_refs[i];

		snprintf(r->line, sizeof(r->line), "send_imm sge=0x%x:%d:%d imm=%d flags=%s",
			 0x1000 * (i + 1), 300 + 37 * i, i, i * 7,
			 i & 1 ? "signaled" : "solicited");
		r->len = wqe_dpi_encode(r->line, "--format rxe --qpn 7", r->wqe, sizeof(r->wqe),
					msg, sizeof(msg));
		r->flen = wqe_dpi_packet("--format rxe --qpn 7 --pmtu 256", r->wqe, r->len, 1,
					 r->frame, sizeof(r->frame), msg, sizeof(msg));
		CHECK(r->len > 0 && r->flen > 0, "reference %d: %s", i, msg);
	}
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, mt_thread, NULL) == 0, "thread %d", i);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &res[i]);
		CHECK(res[i] == NULL, "thread %d: %ld results differ", i, (long)res[i]);
	}
}

/* The package's "localparam int WQE_D_NAME = N;" lines name field N. */
static void test_sv_package(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[64], upper[64];
	int seen_d = 0, seen_p = 0, idx;

	CHECK(f != NULL, "cannot open %s", path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char kind;
		const char *lib;

		if (sscanf(line, " localparam int WQE_%c_%63[A-Z0-9_] = %d;", &kind, name, &idx) !=
			3 ||
		    (kind != 'D' && kind != 'P'))
			continue;
		lib = kind == 'D' ? wqe_dpi_decode_field(idx) : wqe_dpi_parse_field(idx);
		if (strcmp(name, "SGE_BASE") == 0 || strcmp(name, "COUNT") == 0) {
			CHECK(idx == (kind == 'D' ? WQE_DPI_D_SGE_BASE : WQE_DPI_P_COUNT),
			      "%s: WQE_%c_%s = %d", path, kind, name, idx);
			continue;
		}
		for (size_t i = 0; lib[i] && i + 1 < sizeof(upper); i++)
			upper[i] = (char)(lib[i] >= 'a' && lib[i] <= 'z' ? lib[i] - 32 : lib[i]),
			upper[i + 1] = '\0';
		if (!lib[0])
			upper[0] = '\0';
		CHECK(strcmp(upper, name) == 0,
		      "%s: WQE_%c_%s = %d, the library's field %d is '%s'", path, kind, name, idx,
		      idx, lib);
		if (kind == 'D')
			seen_d++;
		else
			seen_p++;
	}
	fclose(f);
	CHECK(seen_d == WQE_DPI_D_SGE_BASE && seen_p == WQE_DPI_P_COUNT,
	      "%s names %d decode and %d parse fields", path, seen_d, seen_p);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_dpi PATH/TO/wqe_pkg.sv\n");
		return 2;
	}
	test_known_bytes();
	test_fields_match_text();
	test_decode();
	test_packets();
	test_errors();
	test_prefixes();
	test_threads();
	test_sv_package(argv[1]);
	if (failures)
		fprintf(stderr, "test_dpi: %d failures\n", failures);
	else
		printf("test_dpi: ok\n");
	return failures ? 1 : 0;
}
