/* SPDX-License-Identifier: MIT */
/*
 * bench_post - nanoseconds per request for wqe_post_send(), against the
 * same WQE bytes written with rdma-core's mlx5dv.h helpers.
 *
 * Requests: an RDMA WRITE with one 64-byte SGE (UC), a SEND of 16 bytes
 * inline (UC), a UD SEND with one 64-byte SGE; all unsignaled; posted one
 * per call and as a chain of 32 per call.
 *
 * The measured region is posting only: a batch of 512 requests into a ring
 * with room for 1024. The context has no link; between batches, outside
 * the clock, wqe_progress() lets the engine fetch, packetize and retire
 * them (UC and UD WQEs retire when their packets have left), so every
 * batch starts on an empty ring.
 *
 * The baseline (base_post_send) is what the mlx5 provider's post loop does
 * for these requests, without its validation and bookkeeping: per request,
 * zero control bytes 8-11, mlx5dv_set_dgram_seg (UD) or the remote-address
 * segment filled by hand (WRITE), mlx5dv_set_data_seg per SGE or the inline
 * header and payload copied by hand, mlx5dv_set_ctrl_seg; then per call one
 * doorbell-record store with release. Its bytes are checked against
 * wqe_encode() before anything is timed.
 */
#include <errno.h>
#include <infiniband/mlx5dv.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "wqe/model.h"

#define BATCH 512u    /* requests per timed region */
#define CHAIN 32u     /* requests per call when chained */
#define SQ_WR 1024u   /* max_send_wr of the QPs */
#define PAYLOAD 64u   /* bytes of the SGE-carried payload */
#define INLINE_LEN 16u

/* The baseline's view of a send queue: the ring and what the provider keeps. */
struct base_qp {
	uint8_t *buf;
	uint32_t nblocks;
	uint32_t cur_post;
	uint32_t qpn;
	enum wqe_qp_type type;
	_Atomic uint32_t dbrec; /* big-endian, as qp->db[MLX5_SND_DBR] */
};

struct pcase {
	const char *name;
	struct wqe_context *ctx;
	struct wqe_qp *qp;
	struct base_qp bq;
	struct wqe_send_wr chain[CHAIN];  /* linked: one call posts all 32 */
	struct wqe_send_wr single[CHAIN]; /* next = NULL */
	struct wqe_sge sge[CHAIN];
};

struct post_env {
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *cq;
	struct wqe_mr *mr;
	struct wqe_ah *ah;
	struct wqe_qp *uc, *ud;
	uint8_t *payload;
	struct pcase cases[3];
};

static BENCH_NOINLINE void base_post_send(struct base_qp *q,
						     const struct wqe_send_wr *wr)
{
	uint32_t n = 0;

	for (; wr; wr = wr->next, n++) {
		uint8_t *ctrl = q->buf + (size_t)(q->cur_post & (q->nblocks - 1)) * 64u;
		uint8_t *seg = ctrl + sizeof(struct mlx5_wqe_ctrl_seg);
		uint8_t opcode = wr->opcode == WQE_WR_RDMA_WRITE ? MLX5_OPCODE_RDMA_WRITE
								  : MLX5_OPCODE_SEND;
		uint8_t fm_ce_se = (wr->send_flags & WQE_SEND_SIGNALED) ? MLX5_WQE_CTRL_CQ_UPDATE : 0;
		uint32_t ds = 1;

		memset(ctrl + 8, 0, 4); /* the provider: *(uint32_t *)(seg + 8) = 0 */
		if (q->type == WQE_QPT_UD) {
			const struct wqe_ah_attr *ah = &wr->wr.ud.ah->attr;

			mlx5dv_set_dgram_seg((struct mlx5_wqe_datagram_seg *)(void *)seg,
					     (uint64_t)wr->wr.ud.remote_qkey << 32,
					     wr->wr.ud.remote_qpn, 1, (uint8_t)((ah->sl & 7u) << 1), 0,
					     ah->udp_sport, (uint8_t *)(uintptr_t)ah->dmac,
					     ah->grh.traffic_class, ah->grh.hop_limit,
					     (uint32_t)ah->grh.sgid_index << 20 | ah->grh.flow_label,
					     (uint8_t *)(uintptr_t)ah->grh.dgid.raw);
			seg += sizeof(struct mlx5_wqe_datagram_seg);
			ds += sizeof(struct mlx5_wqe_datagram_seg) / 16;
		} else if (wr->opcode == WQE_WR_RDMA_WRITE) {
			struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)(void *)seg;

			r->raddr = htobe64(wr->wr.rdma.remote_addr);
			r->rkey = htobe32(wr->wr.rdma.rkey);
			r->reserved = 0;
			seg += sizeof(*r);
			ds++;
		}
		if (wr->send_flags & WQE_SEND_INLINE) {
			struct mlx5_wqe_inl_data_seg *inl = (struct mlx5_wqe_inl_data_seg *)(void *)seg;
			uint8_t *dst = seg + sizeof(*inl);
			uint32_t len = 0;

			for (int i = 0; i < wr->num_sge; i++) {
				memcpy(dst + len, (const void *)(uintptr_t)wr->sg_list[i].addr,
				       wr->sg_list[i].length);
				len += wr->sg_list[i].length;
			}
			if (len) {
				inl->byte_count = htobe32(len | MLX5_INLINE_SEG);
				ds += (len + (uint32_t)sizeof(*inl) + 15) / 16;
			}
		} else {
			for (int i = 0; i < wr->num_sge; i++) {
				if (!wr->sg_list[i].length)
					continue;
				mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)seg,
						    wr->sg_list[i].length, wr->sg_list[i].lkey,
						    (uintptr_t)wr->sg_list[i].addr);
				seg += sizeof(struct mlx5_wqe_data_seg);
				ds++;
			}
		}
		mlx5dv_set_ctrl_seg((struct mlx5_wqe_ctrl_seg *)(void *)ctrl,
				    (uint16_t)(q->cur_post & 0xffffu), opcode, 0, q->qpn, fm_ce_se,
				    (uint8_t)ds, 0, 0);
		q->cur_post += (ds * 16 + 63) / 64;
	}
	/* Release: the WQE bytes are written before the record says so. */
	if (n)
		atomic_store_explicit(&q->dbrec, htobe32(q->cur_post & 0xffffu),
				      memory_order_release);
}

static int modify(struct wqe_qp *qp, enum wqe_qp_state s, struct wqe_qp_attr *a, int mask)
{
	a->qp_state = s;
	return wqe_modify_qp(qp, a, WQE_QP_STATE | mask);
}

static struct wqe_qp *make_qp(struct post_env *e, enum wqe_qp_type t)
{
	struct wqe_qp_init_attr ia;
	struct wqe_qp_attr a;
	struct wqe_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	ia.qp_type = t;
	ia.cap.max_send_wr = SQ_WR;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = t == WQE_QPT_UD ? 0 : 28;
	qp = wqe_create_qp(e->pd, &ia);
	if (!qp)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.qkey = 0x11111111;
	a.qp_access_flags = WQE_ACCESS_REMOTE_WRITE;
	if (modify(qp, WQE_QPS_INIT, &a,
		   WQE_QP_PKEY_INDEX | WQE_QP_PORT |
			   (t == WQE_QPT_UD ? WQE_QP_QKEY : WQE_QP_ACCESS_FLAGS)))
		return NULL;
	memset(&a, 0, sizeof(a));
	if (t == WQE_QPT_UC) {
		a.path_mtu = WQE_MTU_4096;
		a.dest_qp_num = 0x100;
		a.ah_attr = e->ah->attr;
		if (modify(qp, WQE_QPS_RTR, &a,
			   WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN | WQE_QP_RQ_PSN))
			return NULL;
	} else if (modify(qp, WQE_QPS_RTR, &a, 0)) {
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	return modify(qp, WQE_QPS_RTS, &a, WQE_QP_SQ_PSN) ? NULL : qp;
}

static int base_init(struct base_qp *b, struct wqe_qp *qp, enum wqe_qp_type t)
{
	struct wqe_qp_attr a;
	struct wqe_qp_init_attr ia;
	uint32_t wqe_bytes, blocks;

	if (wqe_query_qp(qp, &a, 0, &ia) ||
	    wqe_calc_sq(WQE_FORMAT_MLX5, t, &ia.cap, &wqe_bytes, &blocks))
		return -1;
	memset(b, 0, sizeof(*b));
	b->nblocks = blocks; /* the same ring size as the QP's */
	b->qpn = wqe_qp_num(qp);
	b->type = t;
	if (posix_memalign((void **)&b->buf, 64, (size_t)blocks * 64u))
		return -1;
	memset(b->buf, 0, (size_t)blocks * 64u);
	return 0;
}

static void fill_case(struct post_env *e, struct pcase *c, const char *name, struct wqe_qp *qp,
		      enum wqe_wr_opcode op, unsigned int flags, uint32_t len)
{
	c->name = name;
	c->ctx = e->ctx;
	c->qp = qp;
	for (uint32_t i = 0; i < CHAIN; i++) {
		struct wqe_send_wr *w = &c->chain[i];

		c->sge[i].addr = (uintptr_t)e->payload;
		c->sge[i].length = len;
		c->sge[i].lkey = e->mr->lkey;
		memset(w, 0, sizeof(*w));
		w->wr_id = i;
		w->sg_list = &c->sge[i];
		w->num_sge = 1;
		w->opcode = op;
		w->send_flags = flags;
		if (op == WQE_WR_RDMA_WRITE) {
			w->wr.rdma.remote_addr = 0x200000000040ull;
			w->wr.rdma.rkey = 0xabcd;
		}
		if (qp == e->ud) {
			w->wr.ud.ah = e->ah;
			w->wr.ud.remote_qpn = 0x456;
			w->wr.ud.remote_qkey = 0x11111111;
		}
		c->single[i] = *w;
		w->next = i + 1 < CHAIN ? &c->chain[i + 1] : NULL;
	}
}

/* The baseline's bytes are the library's: checked with wqe_encode(). */
static int check_bytes(const struct pcase *c)
{
	static uint8_t lib[64 * 64], base[64 * 64];
	struct wqe_qp_attr a;
	struct wqe_qp_init_attr ia;
	struct wqe_encode_qp eqp;
	struct wqe_ring_view view = {lib, 64};
	struct base_qp b = {base, 64, 5, 0, 0, 0};
	uint32_t nb = 0, ds;

	memset(lib, 0xee, sizeof(lib));
	memset(base, 0xee, sizeof(base));
	memset(lib + 5 * 64, 0, 2 * 64);
	memset(base + 5 * 64, 0, 2 * 64);
	if (wqe_query_qp(c->qp, &a, 0, &ia))
		return -1;
	eqp.qp_type = ia.qp_type;
	eqp.qpn = wqe_qp_num(c->qp);
	eqp.max_send_sge = a.cap.max_send_sge;
	eqp.max_inline_data = a.cap.max_inline_data;
	eqp.sq_sig_all = 0;
	b.qpn = eqp.qpn;
	b.type = ia.qp_type;
	if (wqe_encode(WQE_FORMAT_MLX5, &eqp, &c->single[0], &view, 5, 5, &nb))
		return -1;
	base_post_send(&b, &c->single[0]);
	ds = lib[5 * 64 + 7] & 0x3fu;
	if (b.cur_post != 5 + nb || memcmp(lib + 5 * 64, base + 5 * 64, ds * 16)) {
		fprintf(stderr, "bench_post: %s: baseline bytes differ from wqe_encode()\n",
			c->name);
		return -1;
	}
	return 0;
}

static int env_open(struct post_env *e)
{
	struct wqe_ah_attr aa;

	memset(e, 0, sizeof(*e));
	e->ctx = wqe_open_context(NULL); /* no link: frames go nowhere */
	if (!e->ctx)
		return -1;
	e->pd = wqe_alloc_pd(e->ctx);
	e->cq = wqe_create_cq(e->ctx, 1024);
	if (posix_memalign((void **)&e->payload, 64, 4096))
		return -1;
	memset(e->payload, 0xa5, 4096);
	e->mr = e->pd ? wqe_reg_mr(e->pd, e->payload, 4096, WQE_ACCESS_LOCAL_WRITE) : NULL;
	if (!e->pd || !e->cq || !e->mr)
		return -1;
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.dmac[0] = 0x02;
	aa.dmac[5] = 0x02;
	aa.grh.dgid.raw[10] = 0xff;
	aa.grh.dgid.raw[11] = 0xff;
	aa.grh.dgid.raw[12] = 192;
	aa.grh.dgid.raw[14] = 2;
	aa.grh.dgid.raw[15] = 2;
	aa.grh.hop_limit = 64;
	aa.udp_sport = 0xc123;
	e->ah = wqe_create_ah(e->pd, &aa);
	if (!e->ah)
		return -1;
	e->uc = make_qp(e, WQE_QPT_UC);
	e->ud = make_qp(e, WQE_QPT_UD);
	if (!e->uc || !e->ud)
		return -1;
	fill_case(e, &e->cases[0], "RDMA WRITE, 1 SGE (UC)", e->uc, WQE_WR_RDMA_WRITE, 0, PAYLOAD);
	fill_case(e, &e->cases[1], "SEND inline 16 B (UC)", e->uc, WQE_WR_SEND, WQE_SEND_INLINE,
		  INLINE_LEN);
	fill_case(e, &e->cases[2], "UD SEND, 1 SGE", e->ud, WQE_WR_SEND, 0, PAYLOAD);
	for (int i = 0; i < 3; i++) {
		struct pcase *c = &e->cases[i];

		if (base_init(&c->bq, c->qp, i == 2 ? WQE_QPT_UD : WQE_QPT_UC) || check_bytes(c))
			return -1;
	}
	return 0;
}

/* Outside the clock: the engine takes every posted WQE off the ring. */
static void drain(struct wqe_context *ctx)
{
	while (wqe_progress(ctx) > 0)
		;
}

/* One batch through wqe_post_send; returns the first error. */
static BENCH_NOINLINE int lib_batch(struct pcase *c, uint32_t per_call)
{
	struct wqe_send_wr *bad;
	int err = 0;

	if (per_call == CHAIN) {
		for (uint32_t k = 0; k < BATCH / CHAIN; k++)
			err |= wqe_post_send(c->qp, c->chain, &bad);
	} else {
		for (uint32_t k = 0; k < BATCH; k++)
			err |= wqe_post_send(c->qp, &c->single[k % CHAIN], &bad);
	}
	return err;
}

static BENCH_NOINLINE void base_batch(struct pcase *c, uint32_t per_call)
{
	if (per_call == CHAIN) {
		for (uint32_t k = 0; k < BATCH / CHAIN; k++)
			base_post_send(&c->bq, c->chain);
	} else {
		for (uint32_t k = 0; k < BATCH; k++)
			base_post_send(&c->bq, &c->single[k % CHAIN]);
	}
}

/* ns per request over @reps batches. */
static double time_lib(struct pcase *c, uint32_t per_call, int reps)
{
	uint64_t ns = 0;

	for (int r = 0; r < reps; r++) {
		uint64_t t0 = bench_now_ns();
		int err = lib_batch(c, per_call);

		ns += bench_now_ns() - t0;
		if (err) {
			fprintf(stderr, "bench_post: wqe_post_send failed: %s\n", strerror(err));
			exit(1);
		}
		drain(c->ctx);
	}
	return (double)ns / ((double)reps * BATCH);
}

static double time_base(struct pcase *c, uint32_t per_call, int reps)
{
	uint64_t ns = 0;

	for (int r = 0; r < reps; r++) {
		uint64_t t0 = bench_now_ns();

		base_batch(c, per_call);
		ns += bench_now_ns() - t0;
	}
	return (double)ns / ((double)reps * BATCH);
}

/* Under callgrind: each (case, per_call) region on its own, lib and baseline. */
static void callgrind_run(struct post_env *e)
{
	static const uint32_t per[2] = {1, CHAIN};
	char name[128];

	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < 2; k++) {
			struct pcase *c = &e->cases[i];

			lib_batch(c, per[k]); /* warm */
			drain(c->ctx);
			base_batch(c, per[k]);
			for (int r = 0; r < 4; r++) {
				bench_cg_on();
				lib_batch(c, per[k]);
				bench_cg_off();
				drain(c->ctx);
			}
			snprintf(name, sizeof(name), "post|%s|%u|lib|%u", c->name, per[k], 4 * BATCH);
			bench_cg_dump(name);
			bench_cg_on();
			for (int r = 0; r < 4; r++)
				base_batch(c, per[k]);
			bench_cg_off();
			snprintf(name, sizeof(name), "post|%s|%u|base|%u", c->name, per[k], 4 * BATCH);
			bench_cg_dump(name);
		}
	}
}

#define ROUNDS 9
#define REPS 100

int main(int argc, char **argv)
{
	static const uint32_t per[2] = {1, CHAIN};
	static struct post_env e;
	double lib[3][2][ROUNDS], base[3][2][ROUNDS], ratio[3][2][ROUNDS];
	struct bench_allocs a0, a1;
	static const struct bench_usage usage = {"[--callgrind | --profile]", BENCH_NUM_NONE,
						 BENCH_NUM_NONE};
	enum bench_mode mode;
	char machine[256];
	uint64_t posted = 0;
	uint32_t num;

	mode = bench_args(argc, argv, &usage, &num);
	if (env_open(&e)) {
		fprintf(stderr, "bench_post: setup failed\n");
		return 1;
	}
	bench_allocs_track_bytes(0);
	if (mode == BENCH_CALLGRIND) {
		callgrind_run(&e);
		return 0;
	}
	if (mode == BENCH_PROFILE) {
		/* For a profiler: the library's batches only, no client requests. */
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 2; k++)
				time_lib(&e.cases[i], per[k], 20);
		return 0;
	}
	for (int i = 0; i < 3; i++) /* warm-up round, not counted */
		for (int k = 0; k < 2; k++) {
			time_base(&e.cases[i], per[k], REPS / 4);
			time_lib(&e.cases[i], per[k], REPS / 4);
		}
	bench_allocs_get(&a0);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 2; k++) {
				base[i][k][r] = time_base(&e.cases[i], per[k], REPS);
				lib[i][k][r] = time_lib(&e.cases[i], per[k], REPS);
				ratio[i][k][r] = lib[i][k][r] / base[i][k][r];
				posted += (uint64_t)REPS * BATCH;
			}
	bench_allocs_get(&a1);

	bench_machine(machine, sizeof(machine));
	printf("## post: wqe_post_send vs mlx5dv.h helpers + doorbell record\n\n");
	printf("machine: %s\n", machine);
	printf("median of %d alternating rounds, %d batches of %u requests each; "
	       "ring drained by wqe_progress() outside the clock (no link)\n\n",
	       ROUNDS, REPS, BATCH);
	printf("| request | per call | wqe_post_send ns/req | baseline ns/req | ratio | goal |\n");
	printf("|---|---:|---:|---:|---:|---|\n");
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 2; k++) {
			double goal = per[k] == CHAIN ? 1.3 : 2.0;
			double rt = bench_median(ratio[i][k], ROUNDS);
			int ok = rt <= goal;

			printf("| %s | %u | %.1f | %.1f | %.2fx | <= %.1fx %s |\n", e.cases[i].name,
			       per[k], bench_median(lib[i][k], ROUNDS), bench_median(base[i][k], ROUNDS),
			       rt, goal, ok ? "met" : "MISSED");
		}
	printf("\nallocations after setup: %llu calls, %llu frees over %llu posted requests "
	       "(post + engine drain) = %.4f per request\n\n",
	       (unsigned long long)(a1.calls - a0.calls), (unsigned long long)(a1.frees - a0.frees),
	       (unsigned long long)posted, (double)(a1.calls - a0.calls) / (double)posted);
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 2; k++) {
			double goal = per[k] == CHAIN ? 1.3 : 2.0;
			double rt = bench_median(ratio[i][k], ROUNDS);

			printf("RESULT post %-24s %2u/call: %.2fx baseline (goal <= %.1fx) %s\n",
			       e.cases[i].name, per[k], rt, goal, rt <= goal ? "MET" : "MISSED");
		}
	printf("RESULT post allocations: %.4f per request (goal 0) %s\n",
	       (double)(a1.calls - a0.calls) / (double)posted,
	       a1.calls == a0.calls ? "MET" : "MISSED");
	return 0;
}
