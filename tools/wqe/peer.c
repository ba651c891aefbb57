/* SPDX-License-Identifier: MIT */
/*
 * wqe peer: one RoCEv2 endpoint per process, perftest style. The server
 * waits; the client connects to it over TCP (out of band), the two trade
 * what each needs to know of the other, then the client drives RDMA WRITE,
 * READ or SEND on an RC queue pair over a UDP link, and every byte that
 * lands is checked against a pattern both sides compute.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "wqe/link.h"

enum peer_op { PEER_WRITE, PEER_READ, PEER_SEND };
static const char *const op_names[] = {"write", "read", "send"};

#define PEER_MAX_SIZE	      (1u << 20)
#define PEER_BUF_BYTES	      (16u << 20)  /* message slots per side, at most */
#define PEER_WINDOW	      (256u << 10) /* default bytes in flight */
#define PEER_MAX_DEPTH	      1024u
#define PEER_DEFAULT_OOB_PORT 18515u /* perftest's */
#define PEER_BATCH	      16

/* Options given explicitly (a server checks them against the client's). */
enum { SET_OP = 1, SET_SIZE = 2, SET_COUNT = 4, SET_MTU = 8 };

struct peer_cfg {
	const char *local, *connect, *pcap;
	enum peer_op op;
	uint32_t size, count, mtu, oob_port, timeout, depth;
	enum wqe_format format;
	int ipv4_rx; /* --ipv4-rx: enum wqe_udp_ipv4_rx */
	unsigned int set;
};

struct peer {
	struct peer_cfg c;
	const char *role;
	struct cli_addr local, remote;
	struct wqe_context *ctx;
	bool nic_thread;          /* the context's NIC runs on its own (WQE_NIC_MODE=thread) */
	struct wqe_link *link;
	struct wqe_pd *pd;
	struct wqe_cq *scq, *rcq;
	struct wqe_qp *qp;
	struct wqe_mr *mr;
	uint8_t *buf;
	uint32_t slots, depth, rdepth, psn;
	uint32_t r_qpn, r_psn, r_rkey;
	uint64_t r_addr;
	uint64_t t0, t1;
	struct cli_oob oob;
	uint64_t messages, bad_data, recv_posted;
};

static int fail(const struct peer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const struct peer *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "wqe peer (%s): ", p->role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

void usage_peer(FILE *f)
{
	fprintf(f, "usage: wqe peer --local ADDR [--connect PEER_ADDR] [options]\n"
		   "One RoCEv2 endpoint in this process, on a UDP link bound to ADDR port 4791\n"
		   "(an IPv4 or IPv6 address of this host). Without --connect it is the server:\n"
		   "it waits for one client on TCP port 18515 of ADDR, answers its RDMA traffic\n"
		   "and checks what landed. With --connect it is the client: it connects, then\n"
		   "posts --count messages of --size bytes on an RC queue pair and checks them.\n"
		   "The two exchange QP numbers, first PSNs, GIDs, buffer address and rkey, size\n"
		   "and operation over TCP first, as perftest does.\n"
		   "Exit status: 0 every completion succeeded and every byte matched on both\n"
		   "sides; 1 the run failed (a completion error, wrong data, a timeout, a socket\n"
		   "error); 2 bad usage.\n"
		   "\n"
		   "options:\n"
		   "  --local ADDR       the address to bind (required)\n"
		   "  --connect ADDR     be the client of the server at ADDR\n"
		   "  --op write|read|send  the operation (client; default write). WRITE: the\n"
		   "                     server checks its buffer when the client is done; READ:\n"
		   "                     the client checks what it read; SEND: the server checks\n"
		   "                     every receive\n"
		   "  --size BYTES       message size, 1..1048576 (default 65536)\n"
		   "  --count N          messages (default 100)\n"
		   "  --mtu 256|512|1024|2048|4096  path MTU (default 1024)\n"
		   "  --tx-depth N       messages in flight, 1..1024 (default: 256 KiB worth)\n"
		   "  --format mlx5|rxe  WQE format of this side's send queue (default mlx5)\n"
		   "  --pcap FILE        record this side's frames (as its NIC sees them)\n"
		   "  --oob-port PORT    TCP port of the exchange (default 18515)\n"
		   "  --timeout SECONDS  the whole run, waiting included (default 30)\n"
		   "  --ipv4-rx auto|raw|search|assume  IPv4: how the IP header an arriving\n"
		   "                     packet had is known (its ICRC covers the identification,\n"
		   "                     which a UDP socket hides): raw, read with it (needs\n"
		   "                     CAP_NET_RAW; all 32 ICRC bits checked); search, found\n"
		   "                     from the ICRC (15 bits checked); assume, 0 (peers that\n"
		   "                     write other identifications, as rxe, fail); auto\n"
		   "                     (default): raw where permitted, else search\n"
		   "A server given --op, --size, --count or --mtu refuses a client that asks\n"
		   "for other values.\n");
}

static int parse_op(const char *s, enum peer_op *op)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (strcmp(s, op_names[i]) == 0) {
			*op = (enum peer_op)i;
			return 0;
		}
	return -1;
}

static int parse_mtu(uint32_t bytes, enum wqe_mtu *m)
{
	for (int i = WQE_MTU_256; i <= WQE_MTU_4096; i++)
		if (wqe_mtu_to_bytes((enum wqe_mtu)i) == bytes) {
			*m = (enum wqe_mtu)i;
			return 0;
		}
	return -1;
}

/* One option at argv[*i]: 1 taken, 0 not an option of ours, -1 bad value
 * (reported). */
static int parse_one(int argc, char **argv, int *i, struct peer_cfg *c)
{
	const struct {
		const char *name;
		uint32_t lo, hi;
		uint32_t *v;
		unsigned int set;
	} nums[] = {
	    {"--size", 1, PEER_MAX_SIZE, &c->size, SET_SIZE},
	    {"--count", 1, UINT32_MAX, &c->count, SET_COUNT},
	    {"--mtu", 256, 4096, &c->mtu, SET_MTU},
	    {"--tx-depth", 1, PEER_MAX_DEPTH, &c->depth, 0},
	    {"--oob-port", 1, 65535, &c->oob_port, 0},
	    {"--timeout", 1, 86400, &c->timeout, 0},
	};
	const char *v;
	int r;

	if ((r = cli_opt(argc, argv, i, "--ipv4-rx", &v)) > 0 &&
	    (c->ipv4_rx = wqe_udp_ipv4_rx_parse(v)) < 0) {
		cli_usage_error("peer", usage_peer, "bad --ipv4-rx '%s'", v);
		return -1;
	}
	if (r)
		return r;
	if ((r = cli_opt(argc, argv, i, "--local", &v)) != 0)
		c->local = v;
	else if ((r = cli_opt(argc, argv, i, "--connect", &v)) != 0)
		c->connect = v;
	else if ((r = cli_opt(argc, argv, i, "--pcap", &v)) != 0)
		c->pcap = v;
	if (r)
		return r;
	if ((r = cli_opt(argc, argv, i, "--op", &v)) > 0 && parse_op(v, &c->op)) {
		cli_usage_error("peer", usage_peer, "bad --op '%s'", v);
		return -1;
	}
	if (r) {
		c->set |= SET_OP;
		return r;
	}
	if ((r = cli_opt(argc, argv, i, "--format", &v)) > 0 && cli_parse_format(v, &c->format)) {
		cli_usage_error("peer", usage_peer, "bad --format '%s'", v);
		return -1;
	}
	for (size_t k = 0; !r && k < sizeof(nums) / sizeof(nums[0]); k++) {
		r = cli_opt(argc, argv, i, nums[k].name, &v);
		if (r > 0 && (cli_parse_u32(v, nums[k].hi, nums[k].v) || *nums[k].v < nums[k].lo)) {
			cli_usage_error("peer", usage_peer,
					"bad %s '%s' (%" PRIu32 "..%" PRIu32 ")", nums[k].name, v,
					nums[k].lo, nums[k].hi);
			return -1;
		}
		if (r > 0)
			c->set |= nums[k].set;
	}
	return r;
}

/* 0, or CLI_USAGE (reported). */
static int parse_args(int argc, char **argv, struct peer_cfg *c)
{
	enum wqe_mtu m;

	for (int i = 1; i < argc; i++) {
		int r = parse_one(argc, argv, &i, c);

		if (r < 0)
			return CLI_USAGE;
		if (r == 0)
			return cli_usage_error("peer", usage_peer, "unknown argument '%s'",
					       argv[i]);
	}
	if (!c->local)
		return cli_usage_error("peer", usage_peer, "--local ADDR is required");
	if (parse_mtu(c->mtu, &m))
		return cli_usage_error("peer", usage_peer,
				       "bad --mtu %" PRIu32 " (256, 512, 1024, 2048 or 4096)",
				       c->mtu);
	return 0;
}

/* ---- the pattern both sides compute ------------------------------------ */

/* Byte j of message @msg: 8 bytes at a time from a mix of (msg, j / 8). */
static uint64_t pattern_word(uint64_t msg, uint64_t k)
{
	uint64_t x = (msg << 32 ^ k) * 0xd6e8feb86659fd93ull;

	return x ^ x >> 32;
}

/* @w as it is laid out in memory read back little-endian: the pattern
 * puts word k's bytes at 8k, 8k+1, ... lowest first, on any host. */
static uint64_t le64(uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(w);
#else
	return w;
#endif
}

/* Whole words with one store each (memcpy: @b need not be aligned), the
 * tail a byte at a time: byte by byte, a 1 MiB message cost the client
 * some 15 % of its time. */
static void pattern_fill(uint8_t *b, uint32_t len, uint64_t msg)
{
	uint32_t j = 0;

	for (; len - j >= 8; j += 8) {
		uint64_t w = le64(pattern_word(msg, j / 8));

		memcpy(b + j, &w, 8);
	}
	if (j < len) {
		uint64_t w = pattern_word(msg, j / 8);

		for (uint32_t k = 0; j + k < len; k++)
			b[j + k] = (uint8_t)(w >> (8 * k));
	}
}

/* The first byte where @b differs from message @msg, or -1. */
static long pattern_diff(const uint8_t *b, uint32_t len, uint64_t msg)
{
	uint32_t j = 0;

	for (; len - j >= 8; j += 8) {
		uint64_t got, x;

		memcpy(&got, b + j, 8);
		x = le64(got) ^ pattern_word(msg, j / 8);
		if (x) /* the lowest differing byte is the first in memory */
			return (long)(j + (uint32_t)__builtin_ctzll(x) / 8);
	}
	if (j < len) {
		uint64_t w = pattern_word(msg, j / 8);

		for (uint32_t k = 0; j + k < len; k++)
			if (b[j + k] != (uint8_t)(w >> (8 * k)))
				return (long)(j + k);
	}
	return -1;
}

static uint8_t *slot(const struct peer *p, uint64_t msg)
{
	return p->buf + (size_t)(msg % p->slots) * p->c.size;
}

static int check_msg(struct peer *p, const uint8_t *b, uint64_t msg, const char *what)
{
	long at = pattern_diff(b, p->c.size, msg);

	if (at < 0)
		return 0;
	p->bad_data++;
	return fail(p, "%s of message %" PRIu64 " differs at byte %ld", what, msg, at);
}

/* ---- the endpoint ------------------------------------------------------- */

/* Buffer geometry: message slots that fit PEER_BUF_BYTES, at most count. */
static void plan(struct peer *p)
{
	uint32_t fit = PEER_BUF_BYTES / p->c.size;

	p->slots = p->c.count < fit ? p->c.count : fit;
	p->depth = p->c.depth ? p->c.depth : PEER_WINDOW / p->c.size;
	if (p->depth < 1)
		p->depth = 1;
	if (p->depth > 128 && !p->c.depth)
		p->depth = 128;
	if (p->depth > p->slots)
		p->depth = p->slots;
	/* SEND: a receive for every slot, so the client rarely meets RNR. */
	p->rdepth = p->slots < PEER_MAX_DEPTH ? p->slots : PEER_MAX_DEPTH;
}

static int open_context(struct peer *p)
{
	struct wqe_context_attr ca;
	struct wqe_udp_cfg uc = {.local = p->local.text, .ipv4_rx = p->c.ipv4_rx};
	int rc;

	memset(&ca, 0, sizeof(ca));
	ca.format = p->c.format;
	ca.mac[0] = 0x02;
	memcpy(ca.mac + 1, p->local.gid.raw + 11, 5);
	ca.num_gids = 1;
	ca.gid[0] = p->local.gid;
	p->ctx = wqe_open_context(&ca);
	if (!p->ctx)
		return fail(p, "cannot open a context: %s", strerror(errno));
	{
		struct wqe_context_attr got;

		p->nic_thread = wqe_query_context(p->ctx, &got) == 0 &&
				got.nic_mode == WQE_NIC_THREAD;
	}
	p->link = wqe_link_udp_create(&uc);
	if (!p->link)
		return fail(p, "cannot bind UDP %s port 4791: %s%s", p->local.text, strerror(errno),
			    errno == EADDRINUSE ? " (another wqe peer, or the kernel's rdma_rxe?)"
						: "");
	rc = wqe_context_attach_link(p->ctx, p->link);
	if (!rc && p->c.pcap)
		rc = wqe_context_set_pcap(p->ctx, p->c.pcap);
	if (rc)
		return fail(p, "%s: %s", p->c.pcap ? p->c.pcap : "attach", strerror(rc));
	return 0;
}

/* PD, CQs, the message buffer and its MR, the QP. */
static int open_resources(struct peer *p, unsigned int access)
{
	struct wqe_qp_init_attr ia;
	size_t bytes = (size_t)p->slots * p->c.size;

	p->pd = wqe_alloc_pd(p->ctx);
	p->scq = wqe_create_cq(p->ctx, (int)p->depth * 2 + 16);
	p->rcq = wqe_create_cq(p->ctx, (int)p->rdepth * 2 + 16);
	p->buf = calloc(1, bytes);
	if (!p->pd || !p->scq || !p->rcq || !p->buf)
		return fail(p, "out of memory (%zu-byte buffer)", bytes);
	p->mr = wqe_reg_mr(p->pd, p->buf, bytes, access);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = p->scq;
	ia.recv_cq = p->rcq;
	ia.qp_type = WQE_QPT_RC;
	ia.cap.max_send_wr = p->depth;
	ia.cap.max_recv_wr = p->rdepth;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	p->qp = p->mr ? wqe_create_qp(p->pd, &ia) : NULL;
	if (!p->qp)
		return fail(p, "cannot create the MR or QP: %s", strerror(errno));
	p->psn = (uint32_t)(cli_now_ns() ^ (uint64_t)getpid() * 2654435761u) & 0xffffffu;
	return 0;
}

/* RESET -> INIT -> RTR -> RTS towards the other side. */
static int connect_qp(struct peer *p)
{
	struct wqe_qp_attr a;
	enum wqe_mtu mtu = WQE_MTU_1024;
	int rc;

	parse_mtu(p->c.mtu, &mtu);
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ;
	rc = wqe_modify_qp(p->qp, &a,
			   WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_ACCESS_FLAGS);
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = p->r_qpn;
	a.rq_psn = p->r_psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = p->remote.gid;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.dmac[0] = 0x02;
	memcpy(a.ah_attr.dmac + 1, p->remote.gid.raw + 11, 5);
	rc = rc ? rc
		: wqe_modify_qp(p->qp, &a,
				WQE_QP_STATE | WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN |
				    WQE_QP_RQ_PSN | WQE_QP_MAX_DEST_RD_ATOMIC |
				    WQE_QP_MIN_RNR_TIMER);
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTS;
	a.sq_psn = p->psn;
	a.timeout = 14; /* 4.096 us x 2^14: 67 ms */
	a.retry_cnt = 7;
	a.rnr_retry = 7; /* for ever: the server reposts receives as it checks them */
	a.max_rd_atomic = 16;
	rc = rc ? rc
		: wqe_modify_qp(p->qp, &a,
				WQE_QP_STATE | WQE_QP_SQ_PSN | WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT |
				    WQE_QP_RNR_RETRY | WQE_QP_MAX_QP_RD_ATOMIC);
	return rc ? fail(p, "cannot connect the QP: %s", strerror(rc)) : 0;
}

static void close_peer(struct peer *p)
{
	if (p->qp)
		wqe_destroy_qp(p->qp);
	if (p->mr)
		wqe_dereg_mr(p->mr);
	if (p->scq)
		wqe_destroy_cq(p->scq);
	if (p->rcq)
		wqe_destroy_cq(p->rcq);
	if (p->pd)
		wqe_dealloc_pd(p->pd);
	if (p->ctx) {
		wqe_context_set_pcap(p->ctx, NULL);
		wqe_context_attach_link(p->ctx, NULL);
		wqe_close_context(p->ctx);
	}
	if (p->link)
		wqe_link_destroy(p->link);
	cli_oob_close(&p->oob);
	free(p->buf);
}

/* ---- waiting ------------------------------------------------------------ */

/*
 * Lets the NIC run once; when it had nothing to do, sleeps in poll() until
 * a datagram or an out-of-band byte arrives, or its next timer is due.
 * 0, or -1 (reported) once the run's time is up.
 */
static int step(struct peer *p)
{
	struct pollfd pf[2] = {{wqe_link_udp_fd(p->link), POLLIN, 0}, {p->oob.fd, POLLIN, 0}};
	uint64_t now, until = p->oob.deadline, t;
	int ms;

	if (wqe_progress(p->ctx) > 0)
		return 0;
	now = cli_now_ns();
	if (now >= p->oob.deadline)
		return fail(p, "timed out after %" PRIu32 " s", p->c.timeout);
	if (p->nic_thread) {
		/* The NIC thread takes the datagrams and runs the timers: wait
		 * for an out-of-band byte, and look at the CQ again within a
		 * millisecond. */
		(void)poll(pf + 1, pf[1].fd >= 0 ? 1 : 0, 1);
		return 0;
	}
	if (wqe_context_next_deadline(p->ctx, &t) == 1 && t < until)
		until = t;
	if (until <= now)
		return 0;
	ms = until - now > 1000000000ull ? 1000 : (int)((until - now + 999999) / 1000000);
	(void)poll(pf, pf[1].fd >= 0 ? 2 : 1, ms);
	return 0;
}

/* Waits for a line while the NIC keeps running. 0 or -1 (reported). */
static int oob_wait_line(struct peer *p, char *line)
{
	for (;;) {
		int r = cli_oob_poll_line(&p->oob, line);

		if (r)
			return r > 0 ? 0 : -1;
		if (step(p))
			return -1;
	}
}

/* The other side's QP, PSN, GID, buffer and key from its hello line. */
static int parse_hello(struct peer *p, const char *line)
{
	char addr[sizeof(p->remote.text)];

	if (strncmp(line, "wqe-peer 1 ", 11) != 0)
		return fail(p, "not a wqe peer on the other side ('%.60s')", line);
	if (cli_kv_word(line, "gid", addr, sizeof(addr)) ||
	    cli_kv_u32(line, "qpn", 0xffffff, &p->r_qpn) ||
	    cli_kv_u32(line, "psn", 0xffffff, &p->r_psn) ||
	    cli_kv_u32(line, "rkey", UINT32_MAX, &p->r_rkey) ||
	    cli_kv_u64(line, "addr", UINT64_MAX, &p->r_addr) || cli_parse_addr(addr, &p->remote))
		return fail(p, "bad hello from the other side ('%.80s')", line);
	if (p->remote.family != p->local.family)
		return fail(p, "the other side is %s, this side %s: one address family only",
			    p->remote.text, p->local.text);
	return 0;
}

static int send_hello(struct peer *p, const char *extra)
{
	return cli_oob_send(&p->oob,
			    "wqe-peer 1 %sqpn=0x%06" PRIx32 " psn=0x%06" PRIx32
			    " addr=0x%016" PRIx64 " rkey=0x%08" PRIx32 " gid=%s\n",
			    extra, wqe_qp_num(p->qp), p->psn, (uint64_t)(uintptr_t)p->buf,
			    p->mr->rkey, p->local.text);
}

/* ---- the client --------------------------------------------------------- */

/* Posts messages [*posted, ...) while fewer than depth are in flight. */
static int client_post(struct peer *p, uint64_t *posted, uint64_t completed)
{
	struct wqe_send_wr wr[PEER_BATCH], *bad;
	struct wqe_sge sge[PEER_BATCH];
	int n = 0, rc;

	while (n < PEER_BATCH && *posted + (uint64_t)n < p->c.count &&
	       *posted + (uint64_t)n - completed < p->depth) {
		uint64_t i = *posted + (uint64_t)n;
		uint8_t *b = slot(p, i);

		memset(&wr[n], 0, sizeof(wr[n]));
		if (p->c.op == PEER_READ) {
			memset(b, 0, p->c.size); /* so a read that lands nothing shows */
			wr[n].opcode = WQE_WR_RDMA_READ;
		} else {
			pattern_fill(b, p->c.size, i);
			wr[n].opcode = p->c.op == PEER_WRITE ? WQE_WR_RDMA_WRITE : WQE_WR_SEND;
		}
		sge[n].addr = (uint64_t)(uintptr_t)b;
		sge[n].length = p->c.size;
		sge[n].lkey = p->mr->lkey;
		wr[n].wr_id = i;
		wr[n].sg_list = &sge[n];
		wr[n].num_sge = 1;
		wr[n].send_flags = WQE_SEND_SIGNALED;
		/* The server's slots are the client's: message i at slot i. */
		wr[n].wr.rdma.remote_addr = p->r_addr + (uint64_t)(i % p->slots) * p->c.size;
		wr[n].wr.rdma.rkey = p->r_rkey;
		if (n)
			wr[n - 1].next = &wr[n];
		n++;
	}
	if (!n)
		return 0;
	rc = wqe_post_send(p->qp, wr, &bad);
	if (rc)
		return fail(p, "post_send: %s", strerror(rc));
	*posted += (uint64_t)n;
	return 0;
}

static int client_complete(struct peer *p, const struct wqe_wc *wc, uint64_t *completed)
{
	if (wc->status != WQE_WC_SUCCESS)
		return fail(p, "message %" PRIu64 " completed with %s", wc->wr_id,
			    wqe_wc_status_str(wc->status));
	if (wc->wr_id != *completed)
		return fail(p, "completion of message %" PRIu64 " where %" PRIu64 " was due",
			    wc->wr_id, *completed);
	/* READ: the server's slot s holds message s's pattern. */
	if (p->c.op == PEER_READ &&
	    check_msg(p, slot(p, wc->wr_id), wc->wr_id % p->slots, "what READ brought back"))
		return -1;
	++*completed;
	return 0;
}

static int client_data(struct peer *p)
{
	uint64_t posted = 0;
	struct wqe_wc wc[32];
	char line[CLI_OOB_LINE];

	p->t0 = cli_now_ns();
	while (p->messages < p->c.count) {
		int n;

		if (client_post(p, &posted, p->messages))
			return -1;
		n = wqe_poll_cq(p->scq, 32, wc);
		if (n < 0)
			return fail(p, "poll_cq: %s", strerror(-n));
		for (int k = 0; k < n; k++)
			if (client_complete(p, &wc[k], &p->messages))
				return -1;
		if (n)
			continue;
		n = cli_oob_poll_line(&p->oob, line);
		if (n)
			return n < 0 ? -1 : fail(p, "the server stopped: '%.80s'", line);
		if (step(p))
			return -1;
	}
	p->t1 = cli_now_ns();
	return 0;
}

static int run_client(struct peer *p)
{
	char line[CLI_OOB_LINE], extra[128];

	if (cli_parse_addr(p->c.connect, &p->remote))
		return fail(p, "--connect '%s' is not an IPv4 or IPv6 address", p->c.connect);
	if (open_context(p) || open_resources(p, WQE_ACCESS_LOCAL_WRITE) ||
	    cli_oob_dial(&p->oob, &p->remote, (uint16_t)p->c.oob_port))
		return -1;
	snprintf(extra, sizeof(extra), "op=%s size=%" PRIu32 " count=%" PRIu32 " mtu=%" PRIu32 " ",
		 op_names[p->c.op], p->c.size, p->c.count, p->c.mtu);
	if (send_hello(p, extra) || oob_wait_line(p, line))
		return -1;
	if (strncmp(line, "error ", 6) == 0)
		return fail(p, "the server refused: %s", line + 6);
	if (parse_hello(p, line) || connect_qp(p))
		return -1;
	if (client_data(p)) {
		cli_oob_send(&p->oob, "abort\n"); /* the server stops now, not at its timeout */
		return -1;
	}
	if (cli_oob_send(&p->oob, "done messages=%" PRIu64 "\n", p->messages) ||
	    oob_wait_line(p, line))
		return -1;
	if (strcmp(line, "result ok") != 0)
		return fail(p, "the server's verdict: %s", line);
	return 0;
}

/* ---- the server --------------------------------------------------------- */

/* Takes the client's op, size, count and MTU; checks them against ours. */
static int server_terms(struct peer *p, const char *line, char *why, size_t cap)
{
	struct peer_cfg c = p->c;
	char name[8];
	enum wqe_mtu m;

	if (cli_kv_word(line, "op", name, sizeof(name)) || parse_op(name, &c.op) ||
	    cli_kv_u32(line, "size", PEER_MAX_SIZE, &c.size) || !c.size ||
	    cli_kv_u32(line, "count", UINT32_MAX, &c.count) || !c.count ||
	    cli_kv_u32(line, "mtu", 4096, &c.mtu) || parse_mtu(c.mtu, &m)) {
		snprintf(why, cap, "bad terms");
		return -1;
	}
	if (((p->c.set & SET_OP) && c.op != p->c.op) ||
	    ((p->c.set & SET_SIZE) && c.size != p->c.size) ||
	    ((p->c.set & SET_COUNT) && c.count != p->c.count) ||
	    ((p->c.set & SET_MTU) && c.mtu != p->c.mtu)) {
		snprintf(why, cap, "the server was started for other terms");
		return -1;
	}
	p->c.op = c.op;
	p->c.size = c.size;
	p->c.count = c.count;
	p->c.mtu = c.mtu;
	return 0;
}

/* Posts the receive for message recv_posted, in its slot. */
static int post_recv(struct peer *p)
{
	uint64_t i = p->recv_posted;
	struct wqe_sge s = {(uint64_t)(uintptr_t)slot(p, i), p->c.size, p->mr->lkey};
	struct wqe_recv_wr r = {.wr_id = i, .sg_list = &s, .num_sge = 1}, *bad;
	int rc = wqe_post_recv(p->qp, &r, &bad);

	if (rc)
		return fail(p, "post_recv: %s", strerror(rc));
	p->recv_posted++;
	return 0;
}

/* SEND: checks each receive and posts the next in its slot. */
static int server_recv(struct peer *p)
{
	struct wqe_wc wc[32];
	int n = wqe_poll_cq(p->rcq, 32, wc);

	if (n < 0)
		return fail(p, "poll_cq: %s", strerror(-n));
	for (int k = 0; k < n; k++) {
		uint64_t i = p->messages;

		if (wc[k].status != WQE_WC_SUCCESS)
			return fail(p, "receive %" PRIu64 " completed with %s", i,
				    wqe_wc_status_str(wc[k].status));
		if (wc[k].wr_id != i || wc[k].opcode != WQE_WC_RECV || wc[k].byte_len != p->c.size)
			return fail(
			    p, "receive %" PRIu64 ": wr_id %" PRIu64 ", %s, %" PRIu32 " bytes", i,
			    wc[k].wr_id, wqe_wc_opcode_str(wc[k].opcode), wc[k].byte_len);
		if (check_msg(p, slot(p, i), i, "SEND"))
			return -1;
		p->messages++;
		if (p->recv_posted < p->c.count && post_recv(p))
			return -1;
	}
	return n;
}

/* WRITE: each slot holds the last message the client wrote there. */
static int server_check_writes(struct peer *p)
{
	for (uint64_t s = 0; s < p->slots; s++) {
		uint64_t last = s + (p->c.count - 1 - s) / p->slots * p->slots;

		if (check_msg(p, slot(p, s), last, "the buffer after WRITE"))
			return -1;
	}
	p->messages = p->c.count;
	return 0;
}

static int server_data(struct peer *p)
{
	uint64_t n = 0;
	char line[CLI_OOB_LINE];
	int r;

	p->t0 = cli_now_ns();
	for (;;) {
		if (p->c.op == PEER_SEND && (r = server_recv(p)) != 0) {
			if (r < 0)
				return -1;
			continue;
		}
		if ((r = cli_oob_poll_line(&p->oob, line)) < 0)
			return -1;
		if (r > 0)
			break;
		if (step(p))
			return -1;
	}
	p->t1 = cli_now_ns();
	/* The receives the NIC completed after the last empty poll above and
	 * before "done" was read: each CQE is written before the ACK that let
	 * the client finish, so one drain now finds them all (with the NIC on
	 * a thread, a descheduled server missed 24 of 200 in CI). */
	while (p->c.op == PEER_SEND && (r = server_recv(p)) != 0)
		if (r < 0)
			return -1;
	if (strncmp(line, "done ", 5) != 0 || cli_kv_u64(line, "messages", UINT64_MAX, &n))
		return fail(p, "the client stopped: '%.80s'", line);
	if (p->c.op == PEER_WRITE && server_check_writes(p))
		return -1;
	if (p->c.op == PEER_READ)
		p->messages = n;
	if (p->messages != p->c.count || n != p->c.count)
		return fail(p, "%" PRIu64 " messages of %" PRIu32 " arrived", p->messages,
			    p->c.count);
	return 0;
}

static int run_server(struct peer *p)
{
	char line[CLI_OOB_LINE], why[96];
	int rc;

	if (open_context(p) || cli_oob_accept(&p->oob, &p->local, (uint16_t)p->c.oob_port) ||
	    oob_wait_line(p, line))
		return -1;
	if (server_terms(p, line, why, sizeof(why))) {
		cli_oob_send(&p->oob, "error %s\n", why);
		return fail(p, "refused the client: %s ('%.80s')", why, line);
	}
	plan(p);
	if (open_resources(p, WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
				  WQE_ACCESS_REMOTE_READ) ||
	    parse_hello(p, line) || connect_qp(p)) {
		cli_oob_send(&p->oob, "error setup failed\n");
		return -1;
	}
	if (p->c.op == PEER_READ)
		for (uint64_t s = 0; s < p->slots; s++)
			pattern_fill(slot(p, s), p->c.size, s);
	while (p->c.op == PEER_SEND && p->recv_posted < p->rdepth && p->recv_posted < p->c.count)
		if (post_recv(p))
			return -1;
	if (send_hello(p, ""))
		return -1;
	rc = server_data(p);
	cli_oob_send(&p->oob, rc ? "result bad\n" : "result ok\n");
	return rc;
}

/* ---- summary ------------------------------------------------------------ */

static void summary(const struct peer *p, int rc)
{
	struct wqe_qp_stats q;
	struct wqe_link_stats l;
	struct wqe_port_stats ps;
	int ndrops = 0;
	double secs = p->t1 > p->t0 ? (double)(p->t1 - p->t0) * 1e-9 : 0;
	double bytes = (double)p->messages * p->c.size;

	memset(&q, 0, sizeof(q));
	memset(&l, 0, sizeof(l));
	if (p->qp)
		wqe_query_qp_stats(p->qp, &q);
	if (p->link)
		wqe_link_stats(p->link, &l);
	printf("wqe peer: %s %s, %s: %" PRIu64 " messages x %" PRIu32 " B = %.0f B in %.6f s"
	       " = %.3f Gbit/s (mtu %" PRIu32 ", %s)\n",
	       p->role, op_names[p->c.op], rc ? "FAILED" : "ok", p->messages, p->c.size, bytes,
	       secs, secs > 0 ? bytes * 8 / secs / 1e9 : 0.0, p->c.mtu,
	       wqe_format_str(p->c.format));
	printf("  qp: %" PRIu64 " request packets and %" PRIu64 " responses sent; %" PRIu64
	       " retransmits, %" PRIu64 " timeouts, %" PRIu64 " RNR NAKs and %" PRIu64
	       " sequence NAKs received; %" PRIu64 " duplicates, %" PRIu64 " out of sequence\n",
	       q.packets_sent,
	       q.acks_sent + q.naks_sent + q.rnr_naks_sent + q.read_responses_sent +
		   q.atomic_acks_sent,
	       q.retransmits, q.timeouts, q.rnr_naks_received, q.seq_naks_received, q.duplicates,
	       q.out_of_sequence);
	printf("  link: %" PRIu64 " datagrams sent, %" PRIu64 " received; dropped: %" PRIu64
	       " buffer full, %" PRIu64 " send errors, %" PRIu64 " not routable, %" PRIu64
	       " truncated, %" PRIu64 " short, %" PRIu64 " by the kernel\n",
	       l.delivered, l.rx_datagrams, l.queue_full, l.tx_errors, l.no_destination,
	       l.rx_truncated, l.rx_short, l.rx_kernel_drops);
	if (p->link && wqe_link_udp_ipv4_rx(p->link) >= 0)
		printf("  link: IPv4 headers %s: %" PRIu64 " as they arrived, %" PRIu64
		       " found from the ICRC (%" PRIu64 " of them not identification 0 and DF), %"
		       PRIu64 " assumed; %" PRIu64 " malformed\n",
		       wqe_udp_ipv4_rx_str(wqe_link_udp_ipv4_rx(p->link)), l.rx_ipv4_raw,
		       l.rx_ipv4_searched, l.rx_ipv4_id_found, l.rx_ipv4_assumed, l.rx_malformed);
	if (l.tx_sport_shared || l.tx_sport_fallback)
		printf("  link: %" PRIu64 " datagrams sent from another QP's source port, %" PRIu64
		       " from 4791\n", l.tx_sport_shared, l.tx_sport_fallback);
	printf("  nic drops:");
	memset(&ps, 0, sizeof(ps));
	if (p->ctx)
		wqe_context_port_stats(p->ctx, &ps);
	for (int i = 0; i < WQE_RX_DROP_COUNT; i++)
		if (ps.rx_drops[i])
			printf("%s %" PRIu64 " %s", ndrops++ ? "," : "", ps.rx_drops[i],
			       wqe_rx_drop_str((enum wqe_rx_drop)i));
	if (!ndrops)
		printf(" none");
	printf("\n  data: %s\n", p->bad_data ? "MISMATCH" : rc ? "not all checked" : "checked, ok");
}

int cmd_peer(int argc, char **argv)
{
	struct peer p;
	int rc;

	memset(&p, 0, sizeof(p));
	p.oob.fd = -1;
	p.c.op = PEER_WRITE;
	p.c.size = 65536;
	p.c.count = 100;
	p.c.mtu = 1024;
	p.c.oob_port = PEER_DEFAULT_OOB_PORT;
	p.c.timeout = 30;
	p.c.format = WQE_FORMAT_MLX5;
	if (parse_args(argc, argv, &p.c))
		return CLI_USAGE;
	if (cli_parse_addr(p.c.local, &p.local))
		return cli_usage_error("peer", usage_peer, "--local '%s' is not an address",
				       p.c.local);
	if (p.c.connect) {
		struct cli_addr a;

		if (cli_parse_addr(p.c.connect, &a))
			return cli_usage_error("peer", usage_peer,
					       "--connect '%s' is not an address", p.c.connect);
		if (a.family != p.local.family)
			return cli_usage_error("peer", usage_peer,
					       "--local and --connect: one address family");
	}
	p.role = p.c.connect ? "client" : "server";
	p.oob.who = p.role;
	p.oob.deadline = cli_now_ns() + (uint64_t)p.c.timeout * 1000000000ull;
	if (p.c.connect)
		plan(&p);
	rc = p.c.connect ? run_client(&p) : run_server(&p);
	summary(&p, rc);
	close_peer(&p);
	return rc ? CLI_FAIL : CLI_OK;
}
