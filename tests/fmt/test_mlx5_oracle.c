/* SPDX-License-Identifier: MIT */
/*
 * test_mlx5_oracle.c - wqe_encode() against the shipped mlx5 layout.
 *
 * The expected bytes are built here with rdma-core's own public header
 * (Debian libibverbs-dev, <infiniband/mlx5dv.h>): mlx5dv_set_ctrl_seg,
 * mlx5dv_set_data_seg and mlx5dv_set_dgram_seg, and the header's structs
 * for the raddr, atomic and inline segments, which have no helper. The
 * composition follows _mlx5_post_send (rdma-core providers/mlx5/qp.c) as
 * shared/reference/mlx5-send-path.md section 3 describes it. The oracle
 * writes the WQE linearly, then copies it into a ring with the same
 * starting contents at the slot, wrapping at the end; the whole ring is
 * compared, so nothing outside the WQE may change. The header is required:
 * without it this test does not build.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "fmt_gen.h"
#include "testutil.h"
#include "wqe/model.h"

#define ROUNDS_PER_CASE 12

static uint8_t oracle_opcode(enum wqe_wr_opcode op)
{
	switch (op) {
	case WQE_WR_SEND: return MLX5_OPCODE_SEND;
	case WQE_WR_SEND_WITH_IMM: return MLX5_OPCODE_SEND_IMM;
	case WQE_WR_SEND_WITH_INV: return MLX5_OPCODE_SEND_INVAL;
	case WQE_WR_RDMA_WRITE: return MLX5_OPCODE_RDMA_WRITE;
	case WQE_WR_RDMA_WRITE_WITH_IMM: return MLX5_OPCODE_RDMA_WRITE_IMM;
	case WQE_WR_RDMA_READ: return MLX5_OPCODE_RDMA_READ;
	case WQE_WR_ATOMIC_CMP_AND_SWP: return MLX5_OPCODE_ATOMIC_CS;
	case WQE_WR_ATOMIC_FETCH_AND_ADD: return MLX5_OPCODE_ATOMIC_FA;
	}
	return 0xff;
}

/* send_ieth() of qp.c */
static uint32_t oracle_imm(const struct wqe_send_wr *wr)
{
	switch (wr->opcode) {
	case WQE_WR_SEND_WITH_IMM:
	case WQE_WR_RDMA_WRITE_WITH_IMM:
		return wr->imm_data;
	case WQE_WR_SEND_WITH_INV:
		return htobe32(wr->invalidate_rkey);
	default:
		return 0;
	}
}

static uint8_t oracle_fm_ce_se(const struct gen_req *g)
{
	unsigned int f = g->wr.send_flags;

	return (uint8_t)((g->qp.sq_sig_all ? MLX5_WQE_CTRL_CQ_UPDATE : 0) |
			 (f & WQE_SEND_FENCE ? MLX5_WQE_CTRL_FENCE : 0) |
			 (f & WQE_SEND_SIGNALED ? MLX5_WQE_CTRL_CQ_UPDATE : 0) |
			 (f & WQE_SEND_SOLICITED ? MLX5_WQE_CTRL_SOLICITED : 0));
}

static uint8_t *put_raddr(uint8_t *seg, uint64_t raddr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)seg;

	r->raddr = htobe64(raddr);
	r->rkey = htobe32(rkey);
	r->reserved = 0;
	return seg + sizeof(*r);
}

static uint8_t *put_atomic(uint8_t *seg, const struct wqe_send_wr *wr)
{
	struct mlx5_wqe_atomic_seg *a = (struct mlx5_wqe_atomic_seg *)seg;

	if (wr->opcode == WQE_WR_ATOMIC_CMP_AND_SWP) {
		a->swap_add = htobe64(wr->wr.atomic.swap);
		a->compare = htobe64(wr->wr.atomic.compare_add);
	} else {
		a->swap_add = htobe64(wr->wr.atomic.compare_add); /* compare unwritten: 0 */
	}
	return seg + sizeof(*a);
}

/* mlx5_create_ah for a RoCEv2 GID, then _set_datagram_seg. */
static uint8_t *put_dgram(uint8_t *seg, const struct wqe_send_wr *wr)
{
	const struct wqe_ah_attr *a = &wr->wr.ud.ah->attr;
	uint8_t rmac[6], rgid[16];

	memcpy(rmac, a->dmac, 6);
	memcpy(rgid, a->grh.dgid.raw, 16);
	mlx5dv_set_dgram_seg((struct mlx5_wqe_datagram_seg *)seg,
			     (uint64_t)wr->wr.ud.remote_qkey << 32, wr->wr.ud.remote_qpn, 1,
			     (uint8_t)((a->sl & 0x7) << 1), 0, a->udp_sport, rmac,
			     a->grh.traffic_class, a->grh.hop_limit,
			     (uint32_t)(a->grh.sgid_index & 0xff) << 20 | (a->grh.flow_label & 0xfffff),
			     rgid);
	return seg + sizeof(struct mlx5_wqe_datagram_seg);
}

/* The transport switch of _mlx5_post_send; returns the DS added. */
static int oracle_transport(const struct gen_req *g, uint8_t **seg)
{
	const struct wqe_send_wr *wr = &g->wr;

	switch (g->qp.qp_type) {
	case WQE_QPT_RC:
		if (wr->opcode == WQE_WR_RDMA_READ || wr->opcode == WQE_WR_RDMA_WRITE ||
		    wr->opcode == WQE_WR_RDMA_WRITE_WITH_IMM) {
			*seg = put_raddr(*seg, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
			return 1;
		}
		if (gen_is_atomic(wr->opcode)) {
			*seg = put_raddr(*seg, wr->wr.atomic.remote_addr, wr->wr.atomic.rkey);
			*seg = put_atomic(*seg, wr);
			return 2;
		}
		return 0;
	case WQE_QPT_UC:
		if (wr->opcode == WQE_WR_RDMA_WRITE || wr->opcode == WQE_WR_RDMA_WRITE_WITH_IMM) {
			*seg = put_raddr(*seg, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
			return 1;
		}
		return 0;
	case WQE_QPT_UD:
		*seg = put_dgram(*seg, wr);
		return 3;
	}
	return 0;
}

/* set_data_inl_seg, or one data segment per non-empty SGE. */
static int oracle_data(const struct gen_req *g, uint8_t *seg)
{
	const struct wqe_send_wr *wr = &g->wr;
	struct mlx5_wqe_inl_data_seg *inl = (struct mlx5_wqe_inl_data_seg *)seg;
	uint8_t *p = seg + sizeof(*inl);
	uint32_t total = 0;
	int i, ds = 0;

	if ((wr->send_flags & WQE_SEND_INLINE) && wr->num_sge) {
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
			total += wr->sg_list[i].length;
		}
		if (!total)
			return 0;
		inl->byte_count = htobe32(total | MLX5_INLINE_SEG);
		return (int)((total + sizeof(*inl) + 15) / 16);
	}
	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *s = &wr->sg_list[i];

		if (!s->length)
			continue;
		mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(seg + 16 * ds),
				    gen_is_atomic(wr->opcode) ? 8 : s->length, s->lkey,
				    (uintptr_t)s->addr);
		ds++;
	}
	return ds;
}

/* Builds the expected WQE in @lin (cleared); returns its DS. */
static int oracle_wqe(const struct gen_req *g, uint8_t *lin)
{
	struct mlx5_wqe_ctrl_seg *ctrl = (struct mlx5_wqe_ctrl_seg *)lin;
	uint8_t *seg = lin + sizeof(*ctrl);
	int ds = 1;

	ds += oracle_transport(g, &seg);
	ds += oracle_data(g, seg);
	mlx5dv_set_ctrl_seg(ctrl, (uint16_t)(g->wqe_index & 0xffff), oracle_opcode(g->wr.opcode),
			    0, g->qp.qpn, oracle_fm_ce_se(g), (uint8_t)ds, 0, oracle_imm(&g->wr));
	ctrl->dci_stream_channel_id = 0; /* the helper leaves bytes 9-10 alone */
	return ds;
}

static _Alignas(64) uint8_t lin[2048];
static uint8_t ring_got[GEN_MAX_RING_BLOCKS * 64];
static uint8_t ring_want[GEN_MAX_RING_BLOCKS * 64];

static void one_request(struct test_rng *r, const struct gen_case *c, unsigned long *wraps)
{
	static struct gen_req g;
	struct wqe_ring_view view;
	uint32_t size, bytes = 0, nblocks = 0, i, start, blocks;
	int ds, rc;

	gen_request(r, c, false, &g);
	size = g.ring_blocks * 64;
	test_rng_fill(r, ring_got, size);
	memcpy(ring_want, ring_got, size);

	memset(lin, 0, sizeof(lin));
	ds = oracle_wqe(&g, lin);
	blocks = (uint32_t)(ds * 16 + 63) / 64;
	start = (g.slot & (g.ring_blocks - 1)) * 64;
	for (i = 0; i < blocks * 64; i++)
		ring_want[(start + i) & (size - 1)] = lin[i];
	*wraps += start + blocks * 64 > size;

	view.buf = ring_got;
	view.nblocks = g.ring_blocks;
	CHECK_EQ(wqe_encoded_size(WQE_FORMAT_MLX5, &g.qp, &g.wr, &bytes), 0);
	CHECK_EQ(bytes, blocks * 64);
	rc = wqe_encode(WQE_FORMAT_MLX5, &g.qp, &g.wr, &view, g.slot, g.wqe_index, &nblocks);
	CHECK_EQ(rc, 0);
	CHECK_EQ(nblocks, blocks);
	if (test_memdiff(ring_got, ring_want, size, __FILE__, __LINE__, "encoded", "oracle")) {
		test_failures++;
		fprintf(stderr, "  case qpt %d op %d flags 0x%x sig_all %d ds %d slot %u/%u\n",
			c->qpt, c->op, c->flags, c->sig_all, ds, g.slot, g.ring_blocks);
	}
	test_checks++;
}

int main(void)
{
	static struct gen_case cases[GEN_MAX_CASES];
	struct test_rng r;
	unsigned long requests = 0, wraps = 0;
	size_t n, i;
	int k;

	test_rng_seed(&r, 0x6d6c7835u);
	n = gen_cases(cases, GEN_MAX_CASES);
	CHECK_EQ(n, (8 * 16 - 3 * 8 + 4 * 16 + 2 * 16) * 2); /* 400 cases */
	for (i = 0; i < n; i++)
		for (k = 0; k < ROUNDS_PER_CASE; k++, requests++)
			one_request(&r, &cases[i], &wraps);
	CHECK(requests >= 1000);
	CHECK(wraps > 100);
	printf("%lu requests, %lu wrapping the ring end\n", requests, wraps);
	return test_finish();
}
