/* SPDX-License-Identifier: MIT */
/*
 * fuzz_rx - the packet parser and everything behind it on the receive
 * side: the receive filters, the responder (RC, UC, UD), the completer of
 * a requester with READ, atomic and WRITE requests outstanding, and the
 * frames they answer with.
 *
 * Every frame that parses is also built again (byte for byte), and an
 * IPv4 one's identification is looked for from its ICRC
 * (wqe_icrc_find_ipv4_id()).
 *
 * Input: a sequence of records, each
 *   byte m      bits 0-1: 0 a raw frame (as it arrives, ICRC included),
 *                         1 a UDP payload (BTH onward, no ICRC) sent from
 *                           the peer over IPv4, 2 the same over IPv6,
 *                           3 over IPv4 with the fix-ups below;
 *               bit 2: destination QP = QP (byte 7 of the BTH mod 4), P_Key
 *                      0xffff, UD Q_Key the QP's (fix-up mode 3 only);
 *               bit 3: PSN = the PSN the QP expects (requests) or the first
 *                      unacknowledged one (responses) + (int8) byte 11;
 *               bit 4: RETH/AtomicETH/IETH rkey = one of the context's
 *                      keys (its low byte mod the number of keys), VA =
 *                      that region's address + the VA's low 16 bits;
 *               bit 5: after the frame, let a second pass (timers fire,
 *                      the requester retransmits)
 *   u16 (LE)    length
 *   bytes
 * up to 16 records. Each is handed to wqe_context_receive() of a context
 * with four live QPs and registered memory (an arena at a fixed address,
 * so a frame may name a region by its address).
 *
 * Checks after every input: no byte outside what the frames were allowed
 * to touch changed (canaries around every region; a region without remote
 * access, of another PD, deregistered or with its rkey invalidated never
 * changes; of the receive buffers only the posted SGEs, of the requester's
 * READ/atomic destination only the bytes its requests named); every frame
 * the context sent parses with a good ICRC and checksums; and for every
 * raw frame that parses, building the parsed packet again gives the same
 * bytes (wqe_pkt_parse() promises that round trip).
 *
 * WQE_FUZZ_SEEDS=DIR fuzz_rx -runs=0 writes the seed corpus to DIR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "engine/services.h"
#include "verbs/verbs_int.h"
#include "wqe/wire.h"

#define ARENA_AT    0x300000000000ull
#define ARENA_SIZE  (64u * 1024u)
#define PEER_QPN    0x4242u
#define QKEY	    0x11111111u
#define MAX_RECORDS 16
#define FRAME_MAX   9000u

static struct fz_arena arena;
static uint64_t now_ns;

enum { R_RW, R_RO, R_LW, R_RECV, R_RDST, R_PD2, R_DEREG, R_INVAL, NREG };
static const char *const reg_names[NREG] = {"rw (all access)",
					    "ro (REMOTE_READ)",
					    "lw (LOCAL_WRITE only)",
					    "recv (receive buffers)",
					    "rdst (READ/atomic destination)",
					    "pd2 (another PD)",
					    "dereg (deregistered)",
					    "inval (rkey invalidated)"};
static const uint32_t reg_len[NREG] = {4096, 1024, 1024, 4096, 1024, 1024, 512, 512};

enum { Q_RC, Q_UC, Q_UD, Q_RC2, NQP };

static struct {
	int ready;
	struct wqe_context *ctx;
	struct wqe_link *sink;
	struct wqe_pd *pd, *pd2;
	struct wqe_mr *mr[NREG];
	uint32_t key[NREG]; /* the rkey of each region (stale for dereg) */
	uint8_t *reg[NREG];
	/* per input */
	struct wqe_cq *cq;
	struct wqe_qp *qp[NQP];
} E;

static const uint8_t peer_mac[6] = {0x02, 0, 0, 0, 0, 0x02};

static void base_open(void)
{
	const unsigned all = WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
			     WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;
	static const unsigned acc[NREG] = {all,
					   WQE_ACCESS_REMOTE_READ,
					   WQE_ACCESS_LOCAL_WRITE,
					   WQE_ACCESS_LOCAL_WRITE,
					   WQE_ACCESS_LOCAL_WRITE,
					   all,
					   all,
					   all};
	struct wqe_context_attr ca;

	if (E.ready)
		return;
	fz_arena_init(&arena, ARENA_AT, ARENA_SIZE);
	fz_arena_reset(&arena, 0x3c);
	memset(&ca, 0, sizeof(ca));
	ca.mac[0] = 0x02;
	ca.mac[5] = 0x01;
	ca.num_gids = 2;
	fz_gid_v4(&ca.gid[0], 1);
	test_gid_v6(&ca.gid[1], 1);
	E.ctx = wqe_open_context(&ca);
	E.sink = wqe_link_sink_create(1u << 16);
	if (!E.ctx || !E.sink || wqe_context_attach_link(E.ctx, E.sink) ||
	    wqe_context_set_clock(E.ctx, fz_clock, &now_ns))
		fz_die("cannot open the context");
	E.pd = wqe_alloc_pd(E.ctx);
	E.pd2 = wqe_alloc_pd(E.ctx);
	if (!E.pd || !E.pd2)
		fz_die("cannot allocate PDs");
	for (int i = 0; i < NREG; i++) {
		E.reg[i] = fz_arena_take(&arena, reg_names[i], reg_len[i]);
		E.mr[i] = wqe_reg_mr(i == R_PD2 ? E.pd2 : E.pd, E.reg[i], reg_len[i], acc[i]);
		if (!E.mr[i])
			fz_die("cannot register %s", reg_names[i]);
		E.key[i] = E.mr[i]->rkey;
	}
	if (wqe_dereg_mr(E.mr[R_DEREG]))
		fz_die("cannot deregister");
	E.mr[R_DEREG] = NULL;
	/* Allowed to change: the all-access region (WRITE, atomics), the
	 * posted receive buffers, the READ and atomic destinations. */
	fz_allow(&arena, E.reg[R_RW], reg_len[R_RW]);
	fz_allow(&arena, E.reg[R_RECV] + 0, 256);
	fz_allow(&arena, E.reg[R_RECV] + 256, 256);
	fz_allow(&arena, E.reg[R_RECV] + 768, 256);
	fz_allow(&arena, E.reg[R_RECV] + 1024, 512);
	fz_allow(&arena, E.reg[R_RECV] + 2048, 2048);
	fz_allow(&arena, E.reg[R_RDST], 520);
	E.ready = 1;
}

static struct wqe_qp *make_qp(struct wqe_pd *pd, enum wqe_qp_type t, enum wqe_mtu mtu,
			      unsigned access, uint8_t rd_atomic)
{
	struct wqe_qp_init_attr ia;
	struct fz_conn k;
	struct wqe_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = E.cq;
	ia.recv_cq = E.cq;
	ia.qp_type = t;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 2;
	qp = wqe_create_qp(pd, &ia);
	if (!qp)
		fz_die("cannot create a QP");
	memset(&k, 0, sizeof(k));
	k.mtu = mtu;
	k.dest_qpn = PEER_QPN;
	fz_gid_v4(&k.dgid, 2);
	memcpy(k.dmac, peer_mac, 6);
	k.rq_psn = 0x100;
	k.sq_psn = 0x200;
	k.access = access;
	k.qkey = QKEY;
	k.max_dest_rd_atomic = rd_atomic;
	k.max_rd_atomic = 4;
	k.timeout = 1;
	k.retry_cnt = 2;
	k.rnr_retry = 2;
	k.min_rnr_timer = 1;
	if (fz_qp_to_rts(qp, t, &k))
		fz_die("cannot bring a QP to RTS");
	return qp;
}

static void recv1(struct wqe_qp *qp, int region, uint32_t off, uint32_t len, uint32_t lkey)
{
	struct wqe_sge sg = {(uint64_t)(uintptr_t)E.reg[region] + off, len, lkey};
	struct wqe_recv_wr r = {.wr_id = off, .sg_list = &sg, .num_sge = 1}, *bad;

	if (wqe_post_recv(qp, &r, &bad))
		fz_die("cannot post a receive");
}

static void recv2(struct wqe_qp *qp, uint32_t off1, uint32_t len1, uint32_t off2, uint32_t len2)
{
	uint32_t lkey = E.mr[R_RECV]->lkey;
	struct wqe_sge sg[2] = {{(uint64_t)(uintptr_t)E.reg[R_RECV] + off1, len1, lkey},
				{(uint64_t)(uintptr_t)E.reg[R_RECV] + off2, len2, lkey}};
	struct wqe_recv_wr r = {.wr_id = off1, .sg_list = sg, .num_sge = 2}, *bad;

	if (wqe_post_recv(qp, &r, &bad))
		fz_die("cannot post a receive");
}

static void post(struct wqe_qp *qp, enum wqe_wr_opcode op, int region, uint32_t off, uint32_t len)
{
	struct wqe_sge sg = {(uint64_t)(uintptr_t)E.reg[region] + off, len, E.mr[region]->lkey};
	struct wqe_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.sg_list = &sg;
	w.num_sge = 1;
	w.opcode = op;
	w.send_flags = WQE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = 0x7f0000001000ull;
	w.wr.rdma.rkey = 0x5577;
	if (op == WQE_WR_ATOMIC_FETCH_AND_ADD) {
		w.wr.atomic.remote_addr = 0x7f0000002000ull;
		w.wr.atomic.compare_add = 1;
		w.wr.atomic.rkey = 0x5577;
	}
	if (wqe_post_send(qp, &w, &bad))
		fz_die("cannot post a request");
}

static void env_open(void)
{
	struct key_table *kt;

	base_open();
	fz_arena_refill(&arena);
	now_ns = 1000000000ull;
	wqe_link_sink_clear(E.sink);
	/* An input may have invalidated any rkey (SEND_WITH_INV). */
	kt = &E.ctx->nic->keys;
	for (int i = 0; i < NREG; i++)
		if (E.mr[i])
			kt->e[E.mr[i]->rkey >> 8].rkey_valid = i != R_INVAL;
	E.cq = wqe_create_cq(E.ctx, 256);
	if (!E.cq)
		fz_die("cannot create the CQ");
	E.qp[Q_RC] =
	    make_qp(E.pd, WQE_QPT_RC, WQE_MTU_256,
		    WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC, 4);
	E.qp[Q_UC] = make_qp(E.pd, WQE_QPT_UC, WQE_MTU_256, WQE_ACCESS_REMOTE_WRITE, 0);
	E.qp[Q_UD] = make_qp(E.pd, WQE_QPT_UD, WQE_MTU_256, 0, 0);
	E.qp[Q_RC2] = make_qp(E.pd2, WQE_QPT_RC, WQE_MTU_1024, 0, 0);
	/* RC: 256 B; 256 + 256 B; then a WQE whose lkey is of another PD. */
	recv1(E.qp[Q_RC], R_RECV, 0, 256, E.mr[R_RECV]->lkey);
	recv2(E.qp[Q_RC], 256, 256, 768, 256);
	recv1(E.qp[Q_RC], R_LW, 0, 256, E.mr[R_PD2]->lkey);
	/* UC: 256 B twice; then one into a region without LOCAL_WRITE. */
	recv1(E.qp[Q_UC], R_RECV, 1024, 256, E.mr[R_RECV]->lkey);
	recv1(E.qp[Q_UC], R_RECV, 1280, 256, E.mr[R_RECV]->lkey);
	recv1(E.qp[Q_UC], R_RO, 0, 256, E.mr[R_RO]->lkey);
	/* UD: 1 KiB twice (GRH included). */
	recv1(E.qp[Q_UD], R_RECV, 2048, 1024, E.mr[R_RECV]->lkey);
	recv1(E.qp[Q_UD], R_RECV, 3072, 1024, E.mr[R_RECV]->lkey);
	/* The requester side of the RC QP: a READ (PSN 0x200-0x201), an
	 * atomic (0x202) and a WRITE (0x203) wait for their responses. */
	post(E.qp[Q_RC], WQE_WR_RDMA_READ, R_RDST, 0, 512);
	post(E.qp[Q_RC], WQE_WR_ATOMIC_FETCH_AND_ADD, R_RDST, 512, 8);
	post(E.qp[Q_RC], WQE_WR_RDMA_WRITE, R_RW, 0, 64);
	wqe_progress(E.ctx);
}

/* WQE_FUZZ_DEBUG=1 prints the completions and the frames sent. */
static void debug_print(void)
{
	size_t n = wqe_link_sink_count(E.sink);

	for (size_t i = 0; i < n; i++) {
		const uint8_t *f;
		size_t len;
		struct wqe_pkt p;

		if (wqe_link_sink_frame(E.sink, i, &f, &len) || wqe_pkt_parse(f, len, &p))
			continue;
		fprintf(stderr, "sent %s psn %#x to %#x syndrome %s msn %u len %u\n",
			wqe_wire_opcode_str(p.bth.opcode), p.bth.psn, p.bth.destqp,
			(p.hdrs & WQE_HDR_AETH) ? wqe_aeth_syndrome_str(p.aeth.syndrome) : "-",
			p.aeth.msn, p.payload_len);
	}
}

static void env_close(void)
{
	static int debug = -1;
	struct wqe_wc wc[64];
	int n;

	if (debug < 0)
		debug = getenv("WQE_FUZZ_DEBUG") != NULL;
	if (debug)
		debug_print();
	while ((n = wqe_poll_cq(E.cq, 64, wc)) > 0)
		for (int i = 0; i < n; i++) {
			if ((unsigned)wc[i].status > WQE_WC_GENERAL_ERR)
				fz_die("completion with status %d", (int)wc[i].status);
			if (debug)
				fprintf(stderr, "cqe qp %#x %s %s byte_len %u\n", wc[i].qp_num,
					wqe_wc_opcode_str(wc[i].opcode),
					wqe_wc_status_str(wc[i].status), wc[i].byte_len);
		}
	for (int i = 0; i < NQP; i++) {
		wqe_destroy_qp(E.qp[i]);
		E.qp[i] = NULL;
	}
	wqe_destroy_cq(E.cq);
	E.cq = NULL;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put24(p + 1, v);
	p[0] = (uint8_t)(v >> 24);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* A key and an address the context knows, from the bytes a frame gave. */
static void fix_key_va(uint8_t *rkey, uint8_t *va)
{
	int r = rkey[3] % NREG;

	put32(rkey, E.key[r]);
	if (va)
		put64(va, (uint64_t)(uintptr_t)E.reg[r] + ((uint32_t)va[6] << 8 | va[7]));
}

static void fixups(uint8_t m, uint8_t *u, size_t len)
{
	struct wqe_wire_opinfo oi;
	struct qpc *q;
	int off;

	if (len < WQE_BTH_LEN || wqe_wire_opcode_info(u[0], &oi))
		return;
	q = &E.qp[u[7] % NQP]->qpc;
	if (m & 4) {
		put24(u + 5, q->qpn);
		u[2] = u[3] = 0xff;
		off = wqe_hdr_offset(oi.hdrs, WQE_HDR_DETH);
		if (off >= 0 && (size_t)off + 4 <= len)
			put32(u + off, QKEY);
	}
	if (m & 8) {
		uint32_t base = oi.is_response ? q->eng->req.comp_psn : q->eng->resp.epsn;

		put24(u + 9, (base + (uint32_t)(int32_t)(int8_t)u[11]) & 0xffffff);
	}
	if (m & 16) {
		off = wqe_hdr_offset(oi.hdrs, WQE_HDR_RETH);
		if (off >= 0 && (size_t)off + WQE_RETH_LEN <= len)
			fix_key_va(u + off + 8, u + off);
		off = wqe_hdr_offset(oi.hdrs, WQE_HDR_ATOMICETH);
		if (off >= 0 && (size_t)off + WQE_ATOMICETH_LEN <= len)
			fix_key_va(u + off + 8, u + off);
		off = wqe_hdr_offset(oi.hdrs, WQE_HDR_IETH);
		if (off >= 0 && (size_t)off + WQE_IETH_LEN <= len)
			fix_key_va(u + off, NULL);
	}
}

/* wqe_pkt_parse() sets everything (opts included) so that building the
 * parsed struct gives back the frame: check it on every raw frame. */
/* wqe_icrc_find_ipv4_id() on a parsed IPv4 packet (@n bytes from @l3 to
 * the ICRC): an answer must make the ICRC match when written into the
 * header, and a packet whose ICRC matches (no fragment, no reserved flag)
 * must get its own identification and DF back. */
static void find_id(const uint8_t *l3, size_t n, const struct wqe_pkt *p)
{
	static uint8_t c[FRAME_MAX];
	uint16_t id;
	int df, r;

	if (n > sizeof(c))
		return;
	r = wqe_icrc_find_ipv4_id(l3, n, p->icrc, &id, &df);
	if (r < 0)
		fz_die("wqe_icrc_find_ipv4_id refused a parsed packet of %zu bytes", n);
	if (p->icrc_ok && !(p->ip_flags & ~2u) &&
	    (r != 1 || id != p->ip_id || df != ((p->ip_flags & 2) != 0)))
		fz_die("the identification of an intact packet was not found");
	if (r == 1) {
		memcpy(c, l3, n);
		c[4] = (uint8_t)(id >> 8);
		c[5] = (uint8_t)id;
		c[6] = df ? 0x40 : 0;
		c[7] = 0;
		if (wqe_icrc(c, n, 4) != p->icrc)
			fz_die("the identification found does not make the ICRC match");
	}
	/* The same packet sent with an identification and DF of the input's
	 * choosing: they are found again whatever bytes 4-7 hold. */
	{
		uint16_t want = (uint16_t)(p->bth.psn ^ (uint32_t)n);
		int want_df = (int)(p->bth.psn >> 16 & 1);
		uint32_t icrc;

		memcpy(c, l3, n);
		c[4] = (uint8_t)(want >> 8);
		c[5] = (uint8_t)want;
		c[6] = want_df ? 0x40 : 0;
		c[7] = 0;
		icrc = wqe_icrc(c, n, 4);
		c[4] ^= c[9];
		c[7] ^= c[8];
		if (wqe_icrc_find_ipv4_id(c, n, icrc, &id, &df) != 1 || id != want || df != want_df)
			fz_die("identification 0x%04x DF %d not found again", want, want_df);
	}
}

static void parse_round_trip(const uint8_t *f, size_t len)
{
	static uint8_t out[FRAME_MAX + 64];
	struct wqe_pkt p;
	size_t n = 0;
	int err;

	if (wqe_pkt_parse(f, len, &p))
		return;
	if (p.payload_len > len ||
	    (p.payload_len && (p.payload < f || p.payload + p.payload_len > f + len)))
		fz_die("parsed payload outside the frame");
	err = wqe_pkt_build(&p, p.payload, p.payload_len, out, sizeof(out), &n);
	if (err)
		fz_die("a parsed frame does not build again: %s", wqe_pkt_err_str(err));
	if (n > len)
		fz_die("parse/build round trip: %zu bytes built from %zu", n, len);
	for (size_t i = 0; i < n; i++)
		if (out[i] != f[i])
			fz_die("parse/build round trip differs at byte %zu of %zu: built 0x%02x, "
			       "frame 0x%02x",
			       i, n, out[i], f[i]);
	if (p.ipver == 4)
		find_id(f + WQE_ETH_LEN + (p.has_vlan ? 4u : 0u), p.ip_len - WQE_ICRC_LEN, &p);
}

static void deliver(uint8_t m, const uint8_t *b, size_t len)
{
	static uint8_t frame[FRAME_MAX + 128];
	static uint8_t udp[FRAME_MAX];
	struct fz_addr a;
	size_t n;
	uint8_t *heap;

	if ((m & 3) == 0) {
		/* A heap copy of exactly the frame: ASan sees any over-read. */
		heap = malloc(len ? len : 1);
		memcpy(heap, b, len);
		parse_round_trip(heap, len);
		wqe_context_receive(E.ctx, heap, len);
		free(heap);
		return;
	}
	memcpy(udp, b, len);
	if ((m & 3) == 3)
		fixups(m, udp, len);
	memset(&a, 0, sizeof(a));
	a.ipver = (m & 3) == 2 ? 6 : 4;
	memcpy(a.dmac, E.ctx->attr.mac, 6);
	memcpy(a.smac, peer_mac, 6);
	if (a.ipver == 6) {
		test_gid_v6(&a.src, 2);
		test_gid_v6(&a.dst, 1);
	} else {
		fz_gid_v4(&a.src, 2);
		fz_gid_v4(&a.dst, 1);
	}
	a.sport = 0xc123;
	n = fz_wrap(&a, udp, len, frame, sizeof(frame));
	if (!n)
		return;
	heap = malloc(n);
	memcpy(heap, frame, n);
	wqe_context_receive(E.ctx, heap, n);
	free(heap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = {data, size, 0};

	env_open();
	for (int r = 0; r < MAX_RECORDS && in.pos < in.len; r++) {
		uint8_t m = fz_u8(&in);
		size_t want = fz_u16(&in), got;
		const uint8_t *b;

		if (want > FRAME_MAX)
			want = FRAME_MAX;
		b = fz_bytes(&in, want, &got);
		deliver(m, b, got);
		if (m & 32) {
			now_ns += 1000000000ull;
			wqe_progress(E.ctx);
		}
	}
	wqe_progress(E.ctx);
	fz_arena_check(&arena, "after the frames");
	fz_check_sink(E.sink, "the context");
	env_close();
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Seeds: frames built with wqe_pkt_build, kept as UDP payloads (mode 1).  */

struct seed {
	uint8_t buf[65536];
	size_t len;
};

static void req(struct wqe_pkt *p, uint8_t opcode, int qp, uint32_t psn)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->dmac, E.ctx->attr.mac, 6);
	memcpy(p->smac, peer_mac, 6);
	p->ipver = 4;
	fz_gid_v4(&p->src, 2);
	fz_gid_v4(&p->dst, 1);
	p->ttl = 64;
	p->ip_flags = 2;
	p->sport = 0xc123;
	p->dport = WQE_ROCEV2_PORT;
	p->bth.opcode = opcode;
	p->bth.pkey = 0xffff;
	p->bth.destqp = wqe_qp_num(E.qp[qp]);
	p->bth.psn = psn;
	p->bth.ackreq = 1;
	p->deth.qkey = QKEY;
	p->deth.srcqp = PEER_QPN;
}

/* Adds @p with @len payload bytes as a record of mode @m (1: the UDP
 * payload; 0: the whole frame). */
static void add(struct seed *s, uint8_t m, const struct wqe_pkt *p, uint32_t len)
{
	static uint8_t payload[4096], frame[FRAME_MAX];
	size_t n = 0, l4;

	for (uint32_t i = 0; i < len && i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 1);
	if (wqe_pkt_build(p, payload, len, frame, sizeof(frame), &n))
		fz_die("seed frame does not build");
	l4 = WQE_ETH_LEN + (p->ipver == 6 ? WQE_IPV6_LEN : WQE_IPV4_LEN) + WQE_UDP_LEN;
	if (m == 0) {
		l4 = 0;
	} else {
		n -= WQE_ICRC_LEN;
	}
	s->buf[s->len++] = m;
	s->buf[s->len++] = (uint8_t)(n - l4);
	s->buf[s->len++] = (uint8_t)((n - l4) >> 8);
	memcpy(s->buf + s->len, frame + l4, n - l4);
	s->len += n - l4;
}

static void save(const char *dir, const char *name, const struct seed *s)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		fz_die("cannot write %s", path);
	fwrite(s->buf, 1, s->len, f);
	fclose(f);
}

static uint64_t va(int r, uint32_t off)
{
	return (uint64_t)(uintptr_t)E.reg[r] + off;
}

static void write_seeds(const char *dir)
{
	static struct seed s;
	struct wqe_pkt p;

	env_open();
	/* RC SEND ONLY, then FIRST/LAST into the two-piece WQE, then one that
	 * meets the receive WQE with another PD's lkey. */
	s.len = 0;
	req(&p, WQE_WIRE_RC_SEND_ONLY, Q_RC, 0x100);
	add(&s, 1, &p, 200);
	req(&p, WQE_WIRE_RC_SEND_FIRST, Q_RC, 0x101);
	add(&s, 1, &p, 256);
	req(&p, WQE_WIRE_RC_SEND_LAST_WITH_IMMEDIATE, Q_RC, 0x102);
	p.immdt.imm = 0x01020304;
	add(&s, 1, &p, 40);
	req(&p, WQE_WIRE_RC_SEND_ONLY, Q_RC, 0x103);
	add(&s, 1, &p, 10);
	save(dir, "seed-rc-send", &s);

	s.len = 0;
	req(&p, WQE_WIRE_RC_RDMA_WRITE_FIRST, Q_RC, 0x100);
	p.reth = (struct wqe_reth){va(R_RW, 100), E.key[R_RW], 600};
	add(&s, 1, &p, 256);
	req(&p, WQE_WIRE_RC_RDMA_WRITE_MIDDLE, Q_RC, 0x101);
	add(&s, 1, &p, 256);
	req(&p, WQE_WIRE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, Q_RC, 0x102);
	p.immdt.imm = 7;
	add(&s, 1, &p, 88);
	req(&p, WQE_WIRE_RC_RDMA_READ_REQUEST, Q_RC, 0x103);
	p.reth = (struct wqe_reth){va(R_RO, 8), E.key[R_RO], 700};
	add(&s, 1, &p, 0);
	req(&p, WQE_WIRE_RC_RDMA_READ_REQUEST, Q_RC, 0x103);
	p.reth = (struct wqe_reth){va(R_RO, 8), E.key[R_RO], 700};
	add(&s, 1, &p, 0); /* a duplicate: answered again */
	req(&p, WQE_WIRE_RC_COMPARE_SWAP, Q_RC, 0x106);
	p.atomiceth = (struct wqe_atomiceth){va(R_RW, 8), E.key[R_RW], 5, 0};
	add(&s, 1, &p, 0);
	req(&p, WQE_WIRE_RC_FETCH_ADD, Q_RC, 0x107);
	p.atomiceth = (struct wqe_atomiceth){va(R_RW, 16), E.key[R_RW], 3, 0};
	add(&s, 1, &p, 0);
	req(&p, WQE_WIRE_RC_SEND_ONLY_WITH_INVALIDATE, Q_RC, 0x108);
	p.ieth.rkey = E.key[R_RW];
	add(&s, 1, &p, 16);
	req(&p, WQE_WIRE_RC_RDMA_WRITE_ONLY, Q_RC, 0x109);
	p.reth = (struct wqe_reth){va(R_RW, 0), E.key[R_RW], 4}; /* after the invalidation */
	add(&s, 1, &p, 4);
	save(dir, "seed-rc-rdma", &s);

	/* Every access violation, one per input (the QP goes to ERR). */
	{
		static const struct {
			const char *name;
			uint8_t op;
			int r;
			uint32_t key_r;
			int64_t off;
			uint32_t len;
		} v[] = {
		    {"seed-rc-write-ro", WQE_WIRE_RC_RDMA_WRITE_ONLY, R_RO, R_RO, 0, 8},
		    {"seed-rc-write-pd2", WQE_WIRE_RC_RDMA_WRITE_ONLY, R_PD2, R_PD2, 0, 8},
		    {"seed-rc-write-dereg", WQE_WIRE_RC_RDMA_WRITE_ONLY, R_DEREG, R_DEREG, 0, 8},
		    {"seed-rc-write-inval", WQE_WIRE_RC_RDMA_WRITE_ONLY, R_INVAL, R_INVAL, 0, 8},
		    {"seed-rc-write-below", WQE_WIRE_RC_RDMA_WRITE_ONLY, R_RW, R_RW, -1, 8},
		    {"seed-rc-write-past", WQE_WIRE_RC_RDMA_WRITE_ONLY, R_RW, R_RW, 4090, 8},
		    {"seed-rc-write-wrap", WQE_WIRE_RC_RDMA_WRITE_FIRST, R_RW, R_RW, 16,
		     0x80000000u},
		    {"seed-rc-read-lw", WQE_WIRE_RC_RDMA_READ_REQUEST, R_LW, R_LW, 0, 64},
		    {"seed-rc-atomic-misaligned", WQE_WIRE_RC_FETCH_ADD, R_RW, R_RW, 4, 0},
		    {"seed-rc-atomic-ro", WQE_WIRE_RC_COMPARE_SWAP, R_RO, R_RO, 0, 0},
		};

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			uint32_t pl = v[i].op == WQE_WIRE_RC_RDMA_WRITE_FIRST  ? 256
				      : v[i].op == WQE_WIRE_RC_RDMA_WRITE_ONLY ? v[i].len
									       : 0;

			s.len = 0;
			req(&p, v[i].op, Q_RC, 0x100);
			p.reth = (struct wqe_reth){va(v[i].r, 0) + (uint64_t)v[i].off,
						   E.key[v[i].key_r], v[i].len};
			p.atomiceth = (struct wqe_atomiceth){va(v[i].r, 0) + (uint64_t)v[i].off,
							     E.key[v[i].key_r], 1, 0};
			add(&s, 1, &p, pl);
			save(dir, v[i].name, &s);
		}
	}

	/* The requester's responses: READ response FIRST/LAST, atomic ACK,
	 * ACK; then a NAK and an RNR NAK with time passing. */
	s.len = 0;
	req(&p, WQE_WIRE_RC_RDMA_READ_RESPONSE_FIRST, Q_RC, 0x200);
	p.aeth.syndrome = WQE_AETH_ACK_UNLIMITED;
	add(&s, 1, &p, 256);
	req(&p, WQE_WIRE_RC_RDMA_READ_RESPONSE_LAST, Q_RC, 0x201);
	p.aeth.syndrome = WQE_AETH_ACK_UNLIMITED;
	add(&s, 1, &p, 256);
	req(&p, WQE_WIRE_RC_ATOMIC_ACKNOWLEDGE, Q_RC, 0x202);
	p.aeth.syndrome = WQE_AETH_ACK_UNLIMITED;
	p.atomicacketh.orig = 0x1122334455667788ull;
	add(&s, 1, &p, 0);
	req(&p, WQE_WIRE_RC_ACKNOWLEDGE, Q_RC, 0x203);
	p.aeth.syndrome = WQE_AETH_ACK_UNLIMITED;
	add(&s, 1, &p, 0);
	save(dir, "seed-rc-responses", &s);
	s.len = 0;
	req(&p, WQE_WIRE_RC_ACKNOWLEDGE, Q_RC, 0x200);
	p.aeth.syndrome = wqe_aeth_rnr_nak(1);
	add(&s, 1 | 32, &p, 0);
	req(&p, WQE_WIRE_RC_ACKNOWLEDGE, Q_RC, 0x200);
	p.aeth.syndrome = WQE_AETH_NAK_PSN_SEQ_ERR;
	add(&s, 1 | 32, &p, 0);
	req(&p, WQE_WIRE_RC_ACKNOWLEDGE, Q_RC, 0x202);
	p.aeth.syndrome = WQE_AETH_NAK_REM_ACCESS_ERR;
	add(&s, 1 | 32, &p, 0);
	save(dir, "seed-rc-naks", &s);

	/* UC: a WRITE in three packets, a SEND, one into no LOCAL_WRITE. */
	s.len = 0;
	req(&p, WQE_WIRE_UC_RDMA_WRITE_FIRST, Q_UC, 0x100);
	p.reth = (struct wqe_reth){va(R_RW, 1000), E.key[R_RW], 700};
	add(&s, 1, &p, 256);
	req(&p, WQE_WIRE_UC_RDMA_WRITE_MIDDLE, Q_UC, 0x101);
	add(&s, 1, &p, 256);
	req(&p, WQE_WIRE_UC_RDMA_WRITE_LAST, Q_UC, 0x102);
	add(&s, 1, &p, 188);
	req(&p, WQE_WIRE_UC_SEND_ONLY_WITH_IMMEDIATE, Q_UC, 0x103);
	p.immdt.imm = 9;
	add(&s, 1, &p, 100);
	req(&p, WQE_WIRE_UC_SEND_ONLY, Q_UC, 0x104);
	add(&s, 1, &p, 256);
	req(&p, WQE_WIRE_UC_SEND_ONLY, Q_UC, 0x105);
	add(&s, 1, &p, 20);
	save(dir, "seed-uc", &s);

	/* UD over IPv4 and IPv6, a wrong Q_Key. */
	s.len = 0;
	req(&p, WQE_WIRE_UD_SEND_ONLY, Q_UD, 0);
	add(&s, 1, &p, 300);
	req(&p, WQE_WIRE_UD_SEND_ONLY_WITH_IMMEDIATE, Q_UD, 1);
	p.immdt.imm = 1;
	p.ipver = 6;
	test_gid_v6(&p.src, 2);
	test_gid_v6(&p.dst, 1);
	add(&s, 2, &p, 100);
	req(&p, WQE_WIRE_UD_SEND_ONLY, Q_UD, 2);
	p.deth.qkey = 0x22222222;
	add(&s, 1, &p, 8);
	save(dir, "seed-ud", &s);

	/* The RC QP without remote access, in the other PD. */
	s.len = 0;
	req(&p, WQE_WIRE_RC_RDMA_WRITE_ONLY, Q_RC2, 0x100);
	p.reth = (struct wqe_reth){va(R_PD2, 0), E.key[R_PD2], 8};
	add(&s, 1, &p, 8);
	save(dir, "seed-rc-no-access", &s);

	/* Raw frames (the parser's own input) and fix-up records. */
	s.len = 0;
	req(&p, WQE_WIRE_RC_SEND_ONLY, Q_RC, 0x100);
	add(&s, 0, &p, 5);
	req(&p, WQE_WIRE_UD_SEND_ONLY, Q_UD, 0);
	p.has_vlan = 1;
	p.vlan_tci = 0x2005;
	add(&s, 0, &p, 33);
	req(&p, WQE_WIRE_RC_RDMA_WRITE_ONLY, Q_RC, 0x100);
	p.reth = (struct wqe_reth){0, 3, 8};
	add(&s, 3 | 4 | 8 | 16, &p, 8);
	req(&p, WQE_WIRE_CNP, Q_RC, 0);
	add(&s, 0, &p, 0);
	save(dir, "seed-raw-and-fixups", &s);
	env_close();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_seeds_from_env(write_seeds);
	return 0;
}
