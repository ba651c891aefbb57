/* SPDX-License-Identifier: MIT */
/*
 * fuzz_wqe_ring - the WQE decoder of every format, as the NIC meets it: a
 * live QP whose send ring is overwritten with the input, whose doorbell
 * record (producer counter) and doorbell register are set from the input,
 * and whose engine then runs to quiescence against a live peer.
 *
 * The decoder is also called directly on the input bytes (wqe_peek_size,
 * wqe_decode, wqe_describe) for every format and transport first, and the
 * receive-WQE decoder and describer (wqe_decode_recv, wqe_describe_recv)
 * for every format.
 *
 * Input:
 *   byte 0   bits 0-1 transport (RC, UC, UD, RC), bit 2 format (mlx5, rxe),
 *            bit 3 check policy (at post, in engine), bits 4-5 max_send_wr
 *            (1, 4, 16, 64), bits 6-7 path MTU (256, 1024, 4096, 512)
 *   byte 1   max_send_sge - 1 (mod 16)
 *   byte 2   max_inline_data / 4
 *   byte 3   bit 0: write bytes 12-19 to the doorbell register; bit 1: the
 *            doorbell names this QP (as a correct driver's would); bit 2:
 *            let time pass (retransmit and RNR timers fire); bit 3: move the
 *            QP to ERR at the end (the flush reads the ring again); bit 4:
 *            the input's last bytes (up to four of the peer's receive
 *            slots) overwrite the peer's four posted receive WQEs, so the
 *            responder meets raw receive WQEs of the format
 *   4-7      the counters' starting point (free-running, rounded down to a
 *            ring multiple): the ring has wrapped that many blocks before
 *   8-11     the doorbell record, relative to that starting point
 *   12-19    a doorbell register value
 *   20-      the ring's bytes (the rest of the ring stays zero); with
 *            byte 3 bit 4, the last 4 x (receive slot) bytes are also the
 *            peer's receive ring
 *
 * The peer (RC/UC: connected QP; UD: a QP the WQEs may address) and the
 * memory both sides registered live in an arena at a fixed address; the
 * contexts, keys and QP numbers are the same for every input: a seed
 * written by posting real requests (WQE_FUZZ_SEEDS, below) names real
 * regions, keys and QPs, and its mutations stay close to them.
 *
 * After each input: no byte outside what the WQEs could legitimately
 * write changed (canaries around every region; regions without
 * LOCAL_WRITE on the requester side, regions without remote access, of
 * another PD, deregistered or invalidated on the responder side, never
 * change), and neither NIC ever received a malformed frame or a bad
 * ICRC/checksum from the other: whatever the ring holds, what the engine
 * puts on the wire is well-formed.
 *
 * WQE_FUZZ_SEEDS=DIR fuzz_wqe_ring -runs=0 writes the seed corpus to DIR.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rx.h"
#include "fuzz_util.h"
#include "engine/services.h"
#include "verbs/verbs_int.h"
#include "wqe/model.h"
#include "wqe/text.h"

#define ARENA_AT   0x200000000000ull
#define ARENA_SIZE (64u * 1024u)
#define HDR_LEN	   20u
#define QKEY	   0x11111111u

static struct fz_arena arena;
static uint64_t now_ns;

/*
 * Contexts, PDs, memory registrations and the link are built once per
 * (format, check policy) and kept: a fresh context costs megabytes of
 * tables, and a kept one hands out the same keys and, for QPs created in
 * the same order, the same QP numbers. CQs and QPs are made per input, and
 * everything an input can change in the kept part (the arena, invalidated
 * rkeys, frames in flight, counters) is put back or measured as a delta.
 */
struct side {
	struct wqe_context *ctx;
	struct wqe_pd *pd, *pd2;
	struct wqe_mr *mr[6];
	unsigned nmr;
	uint64_t drops0[RX_DROP_COUNT]; /* rx_drops when the input started */
	/* per input */
	struct wqe_cq *cq;
	struct wqe_qp *qp;
};

struct env {
	int ready;
	struct wqe_link *link;
	struct side a, b;
	struct wqe_ah *ah; /* A's address of B (UD) */
	uint32_t inval_rkey;
	/* regions */
	uint8_t *a_src, *a_ro, *a_pd2, *a_dereg;
	uint8_t *b_rw, *b_ro, *b_pd2, *b_recv, *b_inval;
};

static struct env envs[2][2]; /* [format][check policy] */

struct cfg {
	enum wqe_qp_type type;
	enum wqe_format format;
	enum wqe_check_policy checks;
	uint32_t max_send_wr, max_send_sge, max_inline;
	enum wqe_mtu mtu;
};

static void cfg_of(uint8_t b0, uint8_t b1, uint8_t b2, struct cfg *c)
{
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD, WQE_QPT_RC};
	static const uint32_t wrs[] = {1, 4, 16, 64};
	static const enum wqe_mtu mtus[] = {WQE_MTU_256, WQE_MTU_1024, WQE_MTU_4096, WQE_MTU_512};

	c->type = types[b0 & 3];
	c->format = b0 & 4 ? WQE_FORMAT_RXE : WQE_FORMAT_MLX5;
	c->checks = b0 & 8 ? WQE_CHECKS_IN_ENGINE : WQE_CHECKS_AT_POST;
	c->max_send_wr = wrs[b0 >> 4 & 3];
	c->mtu = mtus[b0 >> 6 & 3];
	c->max_send_sge = (uint32_t)(b1 % 16) + 1;
	c->max_inline = (uint32_t)b2 * 4;
}

static struct wqe_context *open_ctx(uint8_t idx, enum wqe_format f, enum wqe_check_policy p)
{
	struct wqe_context_attr ca;

	memset(&ca, 0, sizeof(ca));
	ca.format = f;
	ca.checks = p;
	ca.mac[0] = 0x02;
	ca.mac[5] = idx;
	ca.num_gids = 1;
	fz_gid_v4(&ca.gid[0], idx);
	return wqe_open_context(&ca);
}

static struct wqe_mr *reg(struct side *s, struct wqe_pd *pd, void *p, size_t len, unsigned acc)
{
	struct wqe_mr *m = wqe_reg_mr(pd, p, len, acc);

	if (!m)
		fz_die("wqe_reg_mr failed");
	s->mr[s->nmr++] = m;
	return m;
}

static int side_open(struct side *s, uint8_t idx, const struct cfg *c, struct wqe_link *l)
{
	memset(s, 0, sizeof(*s));
	/* Both sides in the input's format: the peer's receive ring holds
	 * that format's receive WQEs (byte 3 bit 4). */
	s->ctx = open_ctx(idx, c->format, c->checks);
	if (!s->ctx)
		return -1;
	wqe_context_set_clock(s->ctx, fz_clock, &now_ns);
	s->pd = wqe_alloc_pd(s->ctx);
	s->pd2 = wqe_alloc_pd(s->ctx);
	if (!s->pd || !s->pd2 || wqe_context_attach_link(s->ctx, l))
		fz_die("cannot open a side");
	return 0;
}

/* The kept part, once per (format, check policy). -1 if the configuration
 * does not exist (a format that is not available yet). */
static int base_open(struct env *e, const struct cfg *c)
{
	const unsigned all = WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
			     WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;
	struct wqe_ah_attr aa;
	struct wqe_mr *m;

	if (e->ready)
		return e->ready > 0 ? 0 : -1;
	e->ready = -1;
	if (!arena.buf) {
		fz_arena_init(&arena, ARENA_AT, ARENA_SIZE);
		fz_arena_reset(&arena, 0xa5);
		envs[0][0].a_src = fz_arena_take(&arena, "A src (LOCAL_WRITE)", 8192);
		envs[0][0].a_ro = fz_arena_take(&arena, "A ro (no access)", 1024);
		envs[0][0].a_pd2 = fz_arena_take(&arena, "A pd2 (another PD)", 1024);
		envs[0][0].a_dereg = fz_arena_take(&arena, "A dereg (deregistered)", 512);
		envs[0][0].b_rw = fz_arena_take(&arena, "B rw (all access)", 8192);
		envs[0][0].b_ro = fz_arena_take(&arena, "B ro (REMOTE_READ)", 1024);
		envs[0][0].b_pd2 = fz_arena_take(&arena, "B pd2 (another PD)", 1024);
		envs[0][0].b_recv = fz_arena_take(&arena, "B recv (receive buffers)", 4096);
		envs[0][0].b_inval = fz_arena_take(&arena, "B inval (rkey invalidated)", 512);
		/* What an input may change: A's LOCAL_WRITE region (READ and
		 * atomic results), B's all-access region, B's receive buffers. */
		fz_allow(&arena, envs[0][0].a_src, 8192);
		fz_allow(&arena, envs[0][0].b_rw, 8192);
		fz_allow(&arena, envs[0][0].b_recv, 4096);
	}
	e->a_src = envs[0][0].a_src;
	e->a_ro = envs[0][0].a_ro;
	e->a_pd2 = envs[0][0].a_pd2;
	e->a_dereg = envs[0][0].a_dereg;
	e->b_rw = envs[0][0].b_rw;
	e->b_ro = envs[0][0].b_ro;
	e->b_pd2 = envs[0][0].b_pd2;
	e->b_recv = envs[0][0].b_recv;
	e->b_inval = envs[0][0].b_inval;
	e->link = wqe_link_loopback_create();
	if (!e->link)
		fz_die("no loopback");
	if (side_open(&e->a, 1, c, e->link) || side_open(&e->b, 2, c, e->link))
		return -1;
	reg(&e->a, e->a.pd, e->a_src, 8192, WQE_ACCESS_LOCAL_WRITE);
	reg(&e->a, e->a.pd, e->a_ro, 1024, 0);
	reg(&e->a, e->a.pd2, e->a_pd2, 1024, WQE_ACCESS_LOCAL_WRITE);
	m = wqe_reg_mr(e->a.pd, e->a_dereg, 512, WQE_ACCESS_LOCAL_WRITE);
	if (!m || wqe_dereg_mr(m))
		fz_die("cannot deregister");
	reg(&e->b, e->b.pd, e->b_rw, 8192, all);
	reg(&e->b, e->b.pd, e->b_ro, 1024, WQE_ACCESS_REMOTE_READ);
	reg(&e->b, e->b.pd2, e->b_pd2, 1024, all);
	reg(&e->b, e->b.pd, e->b_recv, 4096, WQE_ACCESS_LOCAL_WRITE);
	m = reg(&e->b, e->b.pd, e->b_inval, 512, all);
	e->inval_rkey = m->rkey;
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	fz_gid_v4(&aa.grh.dgid, 2);
	aa.dmac[0] = 0x02;
	aa.dmac[5] = 2;
	e->ah = wqe_create_ah(e->a.pd, &aa);
	if (!e->ah)
		fz_die("cannot create the AH");
	e->ready = 1;
	return 0;
}

static struct wqe_qp *make_qp(struct side *s, const struct cfg *c, uint32_t max_wr,
			      uint32_t max_sge, uint32_t max_inline)
{
	struct wqe_qp_init_attr ia;
	struct wqe_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.qp_type = c->type;
	ia.cap.max_send_wr = max_wr;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = max_sge;
	ia.cap.max_recv_sge = 2;
	ia.cap.max_inline_data = max_inline;
	qp = wqe_create_qp(s->pd, &ia);
	if (!qp) {
		ia.cap.max_inline_data = 0; /* over the format's largest WQE */
		ia.cap.max_send_sge = 1;
		qp = wqe_create_qp(s->pd, &ia);
	}
	return qp;
}

static void qp_connect(struct wqe_qp *qp, const struct cfg *c, uint32_t peer_qpn, uint8_t peer)
{
	struct fz_conn k;

	memset(&k, 0, sizeof(k));
	k.mtu = c->mtu;
	k.dest_qpn = peer_qpn;
	fz_gid_v4(&k.dgid, peer);
	k.dmac[0] = 0x02;
	k.dmac[5] = peer;
	k.rq_psn = 0x100;
	k.sq_psn = 0x100;
	k.access = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ | WQE_ACCESS_REMOTE_ATOMIC;
	k.qkey = QKEY;
	k.max_dest_rd_atomic = 4;
	k.max_rd_atomic = 4;
	k.timeout = 1;
	k.retry_cnt = 1;
	k.rnr_retry = 1;
	k.min_rnr_timer = 1;
	if (fz_qp_to_rts(qp, c->type, &k))
		fz_die("cannot bring the QP to RTS");
}

/* The per-input part on top of the kept one. */
static struct env *env_open(const struct cfg *c)
{
	struct env *e = &envs[c->format == WQE_FORMAT_RXE][c->checks == WQE_CHECKS_IN_ENGINE];
	struct key_table *kt;

	if (base_open(e, c))
		return NULL;
	fz_arena_refill(&arena);
	/* An input may have invalidated any of B's rkeys (SEND_WITH_INV). */
	kt = &e->b.ctx->nic->keys;
	for (unsigned i = 0; i < e->b.nmr; i++)
		kt->e[e->b.mr[i]->rkey >> 8].rkey_valid = e->b.mr[i]->rkey != e->inval_rkey;
	memcpy(e->a.drops0, e->a.ctx->nic->rx_drops, sizeof(e->a.drops0));
	memcpy(e->b.drops0, e->b.ctx->nic->rx_drops, sizeof(e->b.drops0));
	e->a.cq = wqe_create_cq(e->a.ctx, 512);
	e->b.cq = wqe_create_cq(e->b.ctx, 512);
	if (!e->a.cq || !e->b.cq)
		fz_die("cannot create the CQs");
	e->a.qp = make_qp(&e->a, c, c->max_send_wr, c->max_send_sge, c->max_inline);
	e->b.qp = make_qp(&e->b, c, 16, 1, 0);
	if (!e->a.qp || !e->b.qp)
		fz_die("cannot create the QPs");
	qp_connect(e->a.qp, c, wqe_qp_num(e->b.qp), 2);
	qp_connect(e->b.qp, c, wqe_qp_num(e->a.qp), 1);
	for (int i = 0; i < 4; i++) {
		struct wqe_sge sg[2] = {
		    {(uint64_t)(uintptr_t)e->b_recv + (uint64_t)i * 1024, 512, e->b.mr[3]->lkey},
		    {(uint64_t)(uintptr_t)e->b_recv + (uint64_t)i * 1024 + 512, 512,
		     e->b.mr[3]->lkey}};
		struct wqe_recv_wr r = {.wr_id = (uint64_t)i, .sg_list = sg, .num_sge = 2}, *bad;

		if (wqe_post_recv(e->b.qp, &r, &bad))
			fz_die("cannot post a receive");
	}
	return e;
}

/* Ends an input: the QPs and CQs go, frames still on the link are taken
 * and dropped (no QP has their number now), the doorbell mailbox drains. */
static void env_close(struct env *e)
{
	wqe_destroy_qp(e->a.qp);
	wqe_destroy_qp(e->b.qp);
	e->a.qp = e->b.qp = NULL;
	while (wqe_progress(e->a.ctx) + wqe_progress(e->b.ctx) > 0)
		;
	wqe_destroy_cq(e->a.cq);
	wqe_destroy_cq(e->b.cq);
	e->a.cq = e->b.cq = NULL;
}

static int spin(struct env *e, int rounds)
{
	int total = 0;

	for (int i = 0; i < rounds; i++) {
		int w = wqe_progress(e->a.ctx) + wqe_progress(e->b.ctx);

		total += w;
		if (w == 0)
			break;
	}
	return total;
}

/* WQE_FUZZ_DEBUG=1 prints every completion (to see what an input does). */
static void drain(struct side *s, const char *who)
{
	static int debug = -1;
	struct wqe_wc wc[64];
	int n;

	if (debug < 0)
		debug = getenv("WQE_FUZZ_DEBUG") != NULL;
	while ((n = wqe_poll_cq(s->cq, 64, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			if ((unsigned)wc[i].status > WQE_WC_GENERAL_ERR)
				fz_die("completion with status %d", (int)wc[i].status);
			if (debug)
				fprintf(stderr, "%s: wr_id %llu %s %s byte_len %u\n", who,
					(unsigned long long)wc[i].wr_id,
					wqe_wc_opcode_str(wc[i].opcode),
					wqe_wc_status_str(wc[i].status), wc[i].byte_len);
		}
	}
}

static void check_rx(const struct side *s, const char *who)
{
	uint64_t d[RX_DROP_COUNT];

	for (int i = 0; i < RX_DROP_COUNT; i++)
		d[i] = s->ctx->nic->rx_drops[i] - s->drops0[i];
	if (d[RX_DROP_MALFORMED] || d[RX_DROP_BAD_ICRC] || d[RX_DROP_BAD_CSUM] ||
	    d[RX_DROP_NOT_ROCE] || d[RX_DROP_BAD_TVER])
		fz_die("%s received a malformed frame from its peer (malformed %llu, ICRC %llu, "
		       "checksum %llu)",
		       who, (unsigned long long)d[RX_DROP_MALFORMED],
		       (unsigned long long)d[RX_DROP_BAD_ICRC],
		       (unsigned long long)d[RX_DROP_BAD_CSUM]);
}

/* The pure decoder on the raw bytes, every format and transport. */
/* wqe_decode_simple()'s @s of the block at @p reads what wqe_decode()'s
 * @d does: the same fields, the inline bytes in the block, or the one SGE,
 * or nothing for no payload. */
static bool simple_agrees(const struct wqe_desc *d, const struct wqe_desc_simple *s,
			  const uint8_t *p)
{
	if (d->op != s->op || d->nblocks != 1 || d->total_len != s->length ||
	    d->remote_addr != s->remote_addr || d->rkey != s->rkey || d->imm != s->imm ||
	    d->fence != s->fence || d->signaled != s->signaled || d->solicited != s->solicited)
		return false;
	if (s->inline_data)
		return d->is_inline && !d->num_sge && d->inline_data == s->inline_data &&
		       s->inline_data + s->length <= p + 64;
	if (!s->length)
		return !d->is_inline && !d->num_sge && !s->addr && !s->lkey;
	return !d->is_inline && d->num_sge == 1 && d->sge[0].addr == s->addr &&
	       d->sge[0].lkey == s->lkey;
}

static void decode_raw(const uint8_t *p, size_t len)
{
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};
	static struct wqe_description desc;
	static struct wqe_recv_desc rd;
	static struct wqe_recv_description rdesc;
	static const enum wqe_format fmts[] = {WQE_FORMAT_MLX5, WQE_FORMAT_RXE};

	for (size_t f = 0; f < 2; f++) {
		uint32_t size = 0;

		(void)wqe_peek_size(fmts[f], p, len, &size);
		for (size_t t = 0; t < 3; t++) {
			struct wqe_decode_ctx dc = {
			    .qp_type = types[t], .max_bytes = (uint32_t)len, .qpn = 0x123};
			struct wqe_desc d;

			struct wqe_desc_simple s;
			enum wqe_decode_err de = wqe_decode(fmts[f], &dc, p, len, &d);

			if (de == WQE_DEC_OK && d.num_sge > WQE_DESC_MAX_SGE)
				fz_die("decoded %u SGEs", d.num_sge);
			/* The fast path's decoder takes only what the general
			 * one decodes, and reads the same fields. */
			if (len >= 64 && wqe_decode_simple(fmts[f], types[t], 0x123, p, &s) &&
			    (de != WQE_DEC_OK || !simple_agrees(&d, &s, p)))
				fz_die("the simple decoder took a WQE the decoder reads otherwise");
			(void)wqe_describe(fmts[f], &dc, p, len, &desc);
		}
		if (wqe_decode_recv(fmts[f], p, len, &rd) == WQE_DEC_OK &&
		    (rd.num_sge > WQE_DESC_MAX_SGE || rd.size > len))
			fz_die("decoded a receive WQE of %u SGEs in %u of %zu bytes", rd.num_sge,
			       rd.size, len);
		/* The receive description: what the decoder says, its fields
		 * tiling the bytes it used. */
		if (wqe_describe_recv(fmts[f], p, len, &rdesc) == WQE_DEC_OK) {
			uint32_t end = 0;

			if (wqe_decode_recv(fmts[f], p, len, &rd) != WQE_DEC_OK ||
			    rd.size != rdesc.desc.size || rd.num_sge != rdesc.desc.num_sge)
				fz_die("wqe_describe_recv() and wqe_decode_recv() disagree");
			for (uint32_t i = 0; i < rdesc.num_fields; i++) {
				if (rdesc.field[i].offset != end)
					fz_die("receive field %u at %u, not %u", i,
					       rdesc.field[i].offset, end);
				end += rdesc.field[i].length;
			}
			if (end != rdesc.desc.size)
				fz_die("receive fields end at %u of %u", end, rdesc.desc.size);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct env *e;
	struct cfg c;
	struct wqe_qp *qp;
	uint32_t x, d, nb;
	uint8_t flags;
	size_t ring_bytes, n;
	uint8_t *heap;

	if (size < HDR_LEN)
		return 0;
	/* A heap copy of exactly the ring bytes: ASan sees any over-read. */
	n = size - HDR_LEN;
	heap = malloc(n ? n : 1);
	memcpy(heap, data + HDR_LEN, n);
	decode_raw(heap, n);
	free(heap);

	cfg_of(data[0], data[1], data[2], &c);
	flags = data[3];
	now_ns = 1000000000ull;
	e = env_open(&c);
	if (!e)
		return 0;
	qp = e->a.qp;
	nb = qp->sq.nblocks;
	x = (uint32_t)data[4] | (uint32_t)data[5] << 8 | (uint32_t)data[6] << 16 |
	    (uint32_t)data[7] << 24;
	d = (uint32_t)data[8] | (uint32_t)data[9] << 8 | (uint32_t)data[10] << 16 |
	    (uint32_t)data[11] << 24;
	x &= ~(nb - 1);
	/* As if x blocks had been posted and retired before. */
	qp->sq.pi = x;
	qp->sq.posted_wqes = x;
	atomic_store(&qp->sq.ci, x);
	atomic_store(&qp->sq.ci_wqes, x);
	qp->qpc.eng->req.fetch = x;
	ring_bytes = (size_t)nb * WQE_BLOCK_SIZE;
	memset(qp->sq.buf, 0, ring_bytes);
	memcpy(qp->sq.buf, data + HDR_LEN, n < ring_bytes ? n : ring_bytes);
	qp->sq.pi = x + d;
	atomic_store_explicit(&qp->sq.dbrec, x + d, memory_order_release);
	if (flags & 16) {
		struct rq_ring *rq = &e->b.qp->rq;
		size_t k = (size_t)4 * rq->stride;

		if (k > n)
			k = n;
		memcpy(rq->buf, data + size - k, k);
		/* A raw receive WQE may name any of B's regions with
		 * LOCAL_WRITE: its all-access region whose rkey is
		 * invalidated too (the lkey stays valid). */
		fz_allow(&arena, e->b_inval, 512);
	}
	if (flags & 1)
		nic_doorbell(e->a.ctx->nic, data + 12);
	if (flags & 2)
		nic_kick(&qp->qpc);
	spin(e, 200);
	if (flags & 4) {
		for (int i = 0; i < 8; i++) {
			now_ns += 2000000000ull;
			spin(e, 50);
		}
	}
	if (flags & 8) {
		struct wqe_qp_attr a = {.qp_state = WQE_QPS_ERR};

		wqe_modify_qp(qp, &a, WQE_QP_STATE);
		spin(e, 50);
	}
	fz_arena_check(&arena, "after the engine ran the ring");
	fz_disallow(&arena, e->b_inval, 512);
	check_rx(&e->a, "A");
	check_rx(&e->b, "B");
	drain(&e->a, "A");
	drain(&e->b, "B");
	env_close(e);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Seeds: real requests posted through the API, captured as ring bytes.     */

/* The header, the ring (its trailing zeros dropped when no @tail follows)
 * and @tail (the peer's receive slots, byte 3 bit 4). */
static void seed_write(const char *dir, const char *name, const uint8_t *hdr, const uint8_t *ring,
		       size_t len, const uint8_t *tail, size_t tail_len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		fz_die("cannot write %s", path);
	/* The rest of the ring is zero anyway: keep the seed short. */
	while (!tail_len && len && !ring[len - 1])
		len--;
	fwrite(hdr, 1, HDR_LEN, f);
	fwrite(ring, 1, (len + 63) & ~(size_t)63, f);
	if (tail_len)
		fwrite(tail, 1, tail_len, f);
	fclose(f);
}

/* Names in the seed lines: the regions and their keys. */
static int seed_resolve(void *arg, const char *name, size_t len, enum wqe_text_ref kind,
			uint64_t *v)
{
	struct env *e = arg;
	static const char *const names[] = {"src", "ro",   "apd2", "adereg", "rw",
					    "bro", "bpd2", "recv", "inval"};
	uint8_t *bases[9] = {e->a_src, e->a_ro,	 e->a_pd2,  e->a_dereg, e->b_rw,
			     e->b_ro,  e->b_pd2, e->b_recv, e->b_inval};
	/* keys: A's MRs 0-2, a stale key, B's MRs 0-4 */
	uint32_t keys[9] = {e->a.mr[0]->lkey, e->a.mr[1]->lkey, e->a.mr[2]->lkey,
			    0x4242,	      e->b.mr[0]->rkey, e->b.mr[1]->rkey,
			    e->b.mr[2]->rkey, e->b.mr[3]->rkey, e->b.mr[4]->rkey};

	for (size_t i = 0; i < 9; i++) {
		if (strlen(names[i]) != len || memcmp(names[i], name, len))
			continue;
		*v = kind == WQE_TEXT_REF_ADDR ? (uint64_t)(uintptr_t)bases[i] : keys[i];
		return 0;
	}
	return 1;
}

static void seed_one(const char *dir, const char *name, uint8_t b0, uint8_t flags,
		     const char *const *lines)
{
	struct env *e;
	struct cfg c;
	uint8_t hdr[HDR_LEN];
	struct wqe_qp *qp;
	uint32_t posted;

	memset(hdr, 0, sizeof(hdr));
	hdr[0] = b0;
	hdr[1] = 3;  /* 4 SGEs */
	hdr[2] = 16; /* 64 bytes inline */
	hdr[3] = flags;
	cfg_of(hdr[0], hdr[1], hdr[2], &c);
	e = env_open(&c);
	if (!e)
		return;
	qp = e->a.qp;
	for (; *lines; lines++) {
		static struct wqe_text_wr w;
		struct wqe_text_opts o = {c.type, seed_resolve, e};
		struct wqe_text_err err;
		struct wqe_send_wr *bad;

		if (wqe_parse_send_wr(*lines, strlen(*lines), &o, &w, &err))
			fz_die("seed line refused: %s: %s", *lines, err.msg);
		if (c.type == WQE_QPT_UD) {
			w.wr.wr.ud.ah = e->ah;
			if (!w.wr.wr.ud.remote_qpn)
				w.wr.wr.ud.remote_qpn = wqe_qp_num(e->b.qp);
		}
		if (wqe_post_send(qp, &w.wr, &bad))
			break; /* e.g. inline over this format's limit: the seed stops here */
	}
	posted = atomic_load(&qp->sq.dbrec);
	memcpy(hdr + 8, &posted, 4); /* little-endian host, as the harness reads it */
	memcpy(hdr + 12, qp->sq.buf, 8);
	/* With bit 4 the peer's four posted receive WQEs follow, as posted:
	 * mutations start from real ones. */
	seed_write(dir, name, hdr, qp->sq.buf, (size_t)qp->sq.nblocks * WQE_BLOCK_SIZE,
		   e->b.qp->rq.buf, flags & 16 ? (size_t)4 * e->b.qp->rq.stride : 0);
	env_close(e);
}

static void write_seeds(const char *dir)
{
	static const char *const rc[] = {
	    "write raddr=rw+16 rkey=rw.rkey sge=src:300:src.lkey sge=ro+8:20:ro.lkey "
	    "flags=signaled",
	    "send_imm imm=0x01020304 sge=src+64:100:src.lkey flags=solicited",
	    "read raddr=rw+1024 rkey=rw.rkey sge=src+4096:700:src.lkey flags=signaled",
	    "cas raddr=rw+8 rkey=rw.rkey compare=0 swap=7 sge=src+16:8:src.lkey flags=fence",
	    "faa raddr=rw rkey=rw.rkey add=3 sge=src+24:8:src.lkey flags=signaled",
	    "write_imm imm=9 raddr=rw+4000 rkey=rw.rkey inline=00112233445566778899",
	    "send_inv inv=inval.rkey sge=src:16:src.lkey",
	    NULL};
	static const char *const bad_keys[] = {
	    "write raddr=ro rkey=bro.rkey sge=src:64:src.lkey",
	    "write raddr=bpd2 rkey=bpd2.rkey sge=src:64:src.lkey",
	    "write raddr=inval rkey=inval.rkey sge=src:64:src.lkey",
	    "read raddr=rw rkey=rw.rkey sge=ro:64:ro.lkey",
	    "read raddr=rw rkey=rw.rkey sge=apd2:64:apd2.lkey",
	    "send sge=adereg:64:adereg.lkey",
	    "write raddr=rw+8000 rkey=rw.rkey sge=src+8190:64:src.lkey",
	    NULL};
	static const char *const uc[] = {
	    "write raddr=rw rkey=rw.rkey sge=src:3000:src.lkey",
	    "send sge=src:100:src.lkey sge=src+200:50:src.lkey flags=signaled",
	    "write_imm imm=1 raddr=rw+64 rkey=rw.rkey inline=0102", NULL};
	static const char *const ud[] = {"send qkey=0x11111111 sge=src:256:src.lkey flags=signaled",
					 "send_imm imm=5 qkey=0x11111111 inline=48656c6c6f",
					 "send qkey=0x22222222 sge=src:8:src.lkey", NULL};
	static const char *const illegal[] = {"read raddr=rw rkey=rw.rkey sge=src:8:src.lkey",
					      NULL};
	/* Four requests that take the peer's four receive WQEs (byte 3 bit 4:
	 * the seed carries those WQEs, as posted, for the fuzzer to spoil). */
	static const char *const recv[] = {
	    "send sge=src:100:src.lkey flags=signaled",
	    "send_imm imm=7 sge=src+128:900:src.lkey",
	    "write_imm imm=9 raddr=rw rkey=rw.rkey sge=src:32:src.lkey",
	    "send_inv inv=inval.rkey sge=src:16:src.lkey flags=signaled", NULL};

	for (uint8_t f = 0; f < 2; f++) {
		uint8_t fb = (uint8_t)(f << 2);
		char name[64];

		snprintf(name, sizeof(name), "seed-%s-rc", f ? "rxe" : "mlx5");
		seed_one(dir, name, (uint8_t)(fb | 0x30), 2, rc);
		snprintf(name, sizeof(name), "seed-%s-rc-timers", f ? "rxe" : "mlx5");
		seed_one(dir, name, (uint8_t)(fb | 0x20 | 0x40), 2 | 4, rc);
		snprintf(name, sizeof(name), "seed-%s-rc-badkeys", f ? "rxe" : "mlx5");
		seed_one(dir, name, (uint8_t)(fb | 0x30), 2 | 8, bad_keys);
		snprintf(name, sizeof(name), "seed-%s-uc", f ? "rxe" : "mlx5");
		seed_one(dir, name, (uint8_t)(fb | 1 | 0x10), 2, uc);
		snprintf(name, sizeof(name), "seed-%s-ud", f ? "rxe" : "mlx5");
		seed_one(dir, name, (uint8_t)(fb | 2 | 0x20), 2 | 1, ud);
		snprintf(name, sizeof(name), "seed-%s-uc-engine-checks", f ? "rxe" : "mlx5");
		seed_one(dir, name, (uint8_t)(fb | 1 | 8 | 0x10), 2, illegal);
		snprintf(name, sizeof(name), "seed-%s-rc-rawrecv", f ? "rxe" : "mlx5");
		seed_one(dir, name, (uint8_t)(fb | 0x10), 2 | 16, recv);
		snprintf(name, sizeof(name), "seed-%s-ud-rawrecv", f ? "rxe" : "mlx5");
		seed_one(dir, name, (uint8_t)(fb | 2 | 0x10), 2 | 16, ud);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_seeds_from_env(write_seeds);
	return 0;
}
