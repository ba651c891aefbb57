/* SPDX-License-Identifier: MIT */
/*
 * mlx5.c - the mlx5 WQE encoder and sizing, as rdma-core's mlx5 provider
 * (providers/mlx5/qp.c _mlx5_post_send; verbs.c mlx5_calc_send_wqe) does
 * them. Layout: shared/reference/mlx5-send-path.md sections 1-3.
 *
 * Encoding follows the liburing habit: plan (validate and size the whole
 * request, touching nothing), clear the blocks, then one setter per segment
 * into a 16- or 48-byte staging buffer that is copied into the ring through
 * a cursor wrapping at the ring end. A setter writes every byte of its
 * segment, reserved ones included, in its own byte order.
 */
#include "fmt/mlx5.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "common/bytes.h"
#include "tables/catalog.h"

#define MLX5_KNOWN_SEND_FLAGS                                                          \
	(WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED | WQE_SEND_INLINE)

/* A UD SEND or SEND_WITH_IMM: the only requests whose wr.ud is meaningful. */
static bool ud_send(const struct wqe_send_wr *wr)
{
	return wr->opcode == WQE_WR_SEND || wr->opcode == WQE_WR_SEND_WITH_IMM;
}

static const uint8_t mlx5_opcodes[WQE_OP_COUNT] = {
	[WQE_OP_SEND] = MLX5_OPC_SEND,
	[WQE_OP_SEND_WITH_IMM] = MLX5_OPC_SEND_IMM,
	[WQE_OP_SEND_WITH_INV] = MLX5_OPC_SEND_INVAL,
	[WQE_OP_RDMA_WRITE] = MLX5_OPC_RDMA_WRITE,
	[WQE_OP_RDMA_WRITE_WITH_IMM] = MLX5_OPC_RDMA_WRITE_IMM,
	[WQE_OP_RDMA_READ] = MLX5_OPC_RDMA_READ,
	[WQE_OP_ATOMIC_CMP_AND_SWP] = MLX5_OPC_ATOMIC_CS,
	[WQE_OP_ATOMIC_FETCH_AND_ADD] = MLX5_OPC_ATOMIC_FA,
};

bool mlx5_qpt_valid(enum wqe_qp_type t)
{
	return t == WQE_QPT_RC || t == WQE_QPT_UC || t == WQE_QPT_UD;
}

uint8_t mlx5_opcode_of(enum wqe_op op)
{
	return mlx5_opcodes[op];
}

bool mlx5_op_of_opcode(uint8_t opc, enum wqe_op *op)
{
	unsigned int i;

	for (i = 0; i < WQE_OP_COUNT; i++) {
		if (mlx5_opcodes[i] == opc) {
			*op = (enum wqe_op)i;
			return true;
		}
	}
	return false;
}

unsigned int mlx5_transport_segs(enum wqe_qp_type t, enum wqe_op op)
{
	switch (t) {
	case WQE_QPT_RC:
		if (catalog_op_is_atomic(op))
			return MLX5_SEG_RADDR | MLX5_SEG_ATOMIC;
		if (op == WQE_OP_RDMA_READ || op == WQE_OP_RDMA_WRITE ||
		    op == WQE_OP_RDMA_WRITE_WITH_IMM)
			return MLX5_SEG_RADDR;
		return 0;
	case WQE_QPT_UC:
		if (op == WQE_OP_RDMA_WRITE || op == WQE_OP_RDMA_WRITE_WITH_IMM)
			return MLX5_SEG_RADDR;
		return 0;
	case WQE_QPT_UD:
		return MLX5_SEG_DGRAM;
	}
	return 0;
}

uint32_t mlx5_segs_bytes(unsigned int segs)
{
	uint32_t n = 0;

	if (segs & MLX5_SEG_RADDR)
		n += MLX5_RADDR_BYTES;
	if (segs & MLX5_SEG_ATOMIC)
		n += MLX5_ATOMIC_BYTES;
	if (segs & MLX5_SEG_DGRAM)
		n += MLX5_DGRAM_BYTES;
	return n;
}

/* Everything the encoder decided about one request before writing. */
struct mlx5_plan {
	enum wqe_op op;
	unsigned int segs;   /* MLX5_SEG_* */
	bool is_inline;      /* an inline segment is written (total > 0) */
	uint32_t inline_len;
	uint32_t ds;
	uint32_t nblocks;
};

static int plan_data(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		     struct mlx5_plan *p, uint64_t *data_ds)
{
	uint64_t total = 0, nseg = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *sge = &wr->sg_list[i];

		total += sge->length;
		nseg += sge->length != 0;
		/* inline bytes are read from this address: it must be one */
		if ((wr->send_flags & WQE_SEND_INLINE) && sge->length && !sge->addr)
			return EINVAL;
	}
	if (!(wr->send_flags & WQE_SEND_INLINE)) {
		*data_ds = nseg;
		return 0;
	}
	if (total > qp->max_inline_data)
		return EINVAL;
	/* set_data_inl_seg: a zero total adds no DS and no header */
	p->is_inline = total != 0;
	p->inline_len = (uint32_t)total;
	*data_ds = total ? mlx5_align(total + MLX5_INL_HDR_BYTES, MLX5_DS_BYTES) / MLX5_DS_BYTES
			 : 0;
	return 0;
}

/* Validates @wr for @qp and sizes its WQE; writes nothing. */
static int plan_wr(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		   struct mlx5_plan *p)
{
	uint64_t data_ds, ds;
	int err;

	memset(p, 0, sizeof(*p));
	if (!mlx5_qpt_valid(qp->qp_type) || !catalog_op_from_wr(wr->opcode, &p->op))
		return EINVAL;
	if (wr->send_flags & ~(unsigned int)MLX5_KNOWN_SEND_FLAGS)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge)
		return EINVAL;
	if (wr->num_sge > 0 && !wr->sg_list)
		return EINVAL;
	if ((wr->send_flags & WQE_SEND_INLINE) && !wqe_op_inline_ok(p->op))
		return EINVAL;
	if (qp->qp_type == WQE_QPT_UD && ud_send(wr) && !wr->wr.ud.ah)
		return EINVAL;
	err = plan_data(qp, wr, p, &data_ds);
	if (err)
		return err;
	p->segs = mlx5_transport_segs(qp->qp_type, p->op);
	ds = (MLX5_CTRL_BYTES + mlx5_segs_bytes(p->segs)) / MLX5_DS_BYTES + data_ds;
	if (ds > MLX5_MAX_DS)
		return EINVAL;
	p->ds = (uint32_t)ds;
	p->nblocks = (uint32_t)(mlx5_align(ds * MLX5_DS_BYTES, WQE_BLOCK_SIZE) / WQE_BLOCK_SIZE);
	return 0;
}

/* A write cursor over the ring that continues at byte 0 past the end. */
struct ring_cursor {
	uint8_t *buf;
	size_t size; /* bytes, a power of two */
	size_t off;
	size_t written;
};

static void ring_put(struct ring_cursor *w, const void *src, size_t n)
{
	const uint8_t *s = src;

	while (n) {
		size_t k = w->size - w->off;

		if (k > n)
			k = n;
		memcpy(w->buf + w->off, s, k);
		s += k;
		n -= k;
		w->written += k;
		w->off = (w->off + k) & (w->size - 1);
	}
}

/* Moves the cursor @n bytes on without writing (padding already zero). */
static void ring_skip(struct ring_cursor *w, size_t n)
{
	w->written += n;
	w->off = (w->off + n) & (w->size - 1);
}

/* Zeroes @nblocks blocks from the cursor on; the cursor does not move. */
static void ring_clear(const struct ring_cursor *w, uint32_t nblocks)
{
	size_t off = w->off;
	uint32_t i;

	for (i = 0; i < nblocks; i++) {
		memset(w->buf + off, 0, WQE_BLOCK_SIZE);
		off = (off + WQE_BLOCK_SIZE) & (w->size - 1);
	}
}

/* The 4 immediate bytes: imm_data as it lies in memory, or the rkey. */
static void ctrl_imm(const struct wqe_send_wr *wr, enum wqe_op op, uint8_t imm[4])
{
	if (catalog_op_has_imm(op))
		memcpy(imm, &wr->imm_data, 4); /* already network order */
	else if (op == WQE_OP_SEND_WITH_INV)
		put_be32(imm, wr->invalidate_rkey);
	else
		memset(imm, 0, 4);
}

static uint8_t ctrl_fm_ce_se(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr)
{
	uint8_t v = 0;

	if (wr->send_flags & WQE_SEND_FENCE)
		v |= MLX5_CTRL_FENCE;
	if ((wr->send_flags & WQE_SEND_SIGNALED) || qp->sq_sig_all)
		v |= MLX5_CTRL_CQ_UPDATE;
	if (wr->send_flags & WQE_SEND_SOLICITED)
		v |= MLX5_CTRL_SOLICITED;
	return v;
}

/* struct mlx5_wqe_ctrl_seg */
static void set_ctrl_seg(uint8_t seg[MLX5_CTRL_BYTES], uint32_t wqe_index, uint8_t opcode,
			 uint32_t qpn, uint32_t ds, uint8_t fm_ce_se, const uint8_t imm[4])
{
	put_be32(seg, 0u << 24 | (wqe_index & 0xffffu) << 8 | opcode); /* opmod 0 */
	put_be32(seg + 4, (qpn & MLX5_QPN_MASK) << 8 | ds);
	seg[8] = 0;  /* signature: MLX5_QP_SIGNATURE is not modelled */
	seg[9] = 0;  /* dci_stream_channel_id, reserved for RC/UC/UD */
	seg[10] = 0;
	seg[11] = fm_ce_se;
	memcpy(seg + 12, imm, 4);
}

/* struct mlx5_wqe_raddr_seg */
static void set_raddr_seg(uint8_t seg[MLX5_RADDR_BYTES], uint64_t raddr, uint32_t rkey)
{
	put_be64(seg, raddr);
	put_be32(seg + 8, rkey);
	put_be32(seg + 12, 0); /* reserved */
}

/* struct mlx5_wqe_atomic_seg; FAA leaves compare unwritten in the provider
 * (stale bytes), our cleared block makes it 0. */
static void set_atomic_seg(uint8_t seg[MLX5_ATOMIC_BYTES], uint64_t swap_add, uint64_t compare)
{
	put_be64(seg, swap_add);
	put_be64(seg + 8, compare);
}

/*
 * struct mlx5_wqe_datagram_seg, filled as the provider fills it for a
 * RoCEv2 address: mlx5_create_ah builds the AV (rlid holds the UDP source
 * port; stat_rate_sl = static_rate << 4 | (sl & 7) << 1 on Ethernet, the
 * model has no static rate; grh_gid_fl has the GRH bit 30 clear, "reserved
 * for RoCE"), then _set_datagram_seg copies it and sets dqp_dct to
 * remote_qpn | MLX5_EXTENDED_UD_AV and the Q_Key.
 */
static void set_dgram_seg(uint8_t seg[MLX5_DGRAM_BYTES], const struct wqe_ah_attr *ah,
			  uint32_t remote_qpn, uint32_t qkey)
{
	put_be32(seg, qkey);
	put_be32(seg + 4, 0); /* key.qkey.reserved */
	put_be32(seg + 8, remote_qpn | MLX5_EXTENDED_UD_AV);
	seg[12] = (uint8_t)((ah->sl & 7u) << 1); /* stat_rate_sl */
	seg[13] = 0;                            /* fl_mlid */
	put_be16(seg + 14, ah->udp_sport);      /* rlid */
	put_be32(seg + 16, 0);                  /* reserved0 */
	memcpy(seg + 20, ah->dmac, 6);          /* rmac */
	seg[26] = ah->grh.traffic_class;
	seg[27] = ah->grh.hop_limit;
	put_be32(seg + 28, (uint32_t)ah->grh.sgid_index << 20 |
				   (ah->grh.flow_label & MLX5_FLOW_LABEL_MASK));
	memcpy(seg + 32, ah->grh.dgid.raw, 16); /* rgid */
}

/* struct mlx5_wqe_data_seg */
static void set_data_seg(uint8_t seg[MLX5_DATA_BYTES], uint32_t byte_count, uint32_t lkey,
			 uint64_t addr)
{
	put_be32(seg, byte_count);
	put_be32(seg + 4, lkey);
	put_be64(seg + 8, addr);
}

static void put_transport(struct ring_cursor *w, const struct mlx5_plan *p,
			  const struct wqe_send_wr *wr)
{
	uint8_t seg[MLX5_DGRAM_BYTES];
	bool cas = p->op == WQE_OP_ATOMIC_CMP_AND_SWP;

	if (p->segs & MLX5_SEG_ATOMIC) {
		set_raddr_seg(seg, wr->wr.atomic.remote_addr, wr->wr.atomic.rkey);
		ring_put(w, seg, MLX5_RADDR_BYTES);
		set_atomic_seg(seg, cas ? wr->wr.atomic.swap : wr->wr.atomic.compare_add,
			       cas ? wr->wr.atomic.compare_add : 0);
		ring_put(w, seg, MLX5_ATOMIC_BYTES);
	} else if (p->segs & MLX5_SEG_RADDR) {
		set_raddr_seg(seg, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
		ring_put(w, seg, MLX5_RADDR_BYTES);
	}
	if (p->segs & MLX5_SEG_DGRAM) {
		if (ud_send(wr)) {
			set_dgram_seg(seg, &wr->wr.ud.ah->attr, wr->wr.ud.remote_qpn,
				      wr->wr.ud.remote_qkey);
		} else {
			/* Only a SEND names an address handle: for any other
			 * opcode wr.ud.ah aliases wr.rdma.remote_addr, and the
			 * provider would follow it. The segment stays empty
			 * (extended AV, QPN 0) for the NIC to refuse the opcode. */
			memset(seg, 0, MLX5_DGRAM_BYTES);
			put_be32(seg + 8, MLX5_EXTENDED_UD_AV);
		}
		ring_put(w, seg, MLX5_DGRAM_BYTES);
	}
}

/* One inline segment: header, every SGE's bytes, zero padding to 16. */
static void put_inline(struct ring_cursor *w, const struct mlx5_plan *p,
		       const struct wqe_send_wr *wr)
{
	uint8_t hdr[MLX5_INL_HDR_BYTES];
	size_t start = w->written, used;
	int i;

	put_be32(hdr, p->inline_len | MLX5_INLINE_SEG);
	ring_put(w, hdr, sizeof(hdr));
	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *sge = &wr->sg_list[i];

		if (sge->length)
			ring_put(w, (const void *)(uintptr_t)sge->addr, sge->length);
	}
	used = w->written - start;
	ring_skip(w, (size_t)mlx5_align(used, MLX5_DS_BYTES) - used);
}

/* One data segment per SGE of non-zero length (qp.c skips empty ones). */
static void put_data(struct ring_cursor *w, const struct mlx5_plan *p,
		     const struct wqe_send_wr *wr)
{
	uint8_t seg[MLX5_DATA_BYTES];
	bool atomic = catalog_op_is_atomic(p->op);
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct wqe_sge *sge = &wr->sg_list[i];

		if (!sge->length)
			continue;
		set_data_seg(seg, atomic ? MLX5_ATOMIC_SIZE : sge->length, sge->lkey, sge->addr);
		ring_put(w, seg, sizeof(seg));
	}
}

static bool ring_ok(const struct wqe_ring_view *ring)
{
	uint32_t n = ring->nblocks;

	/* at most 2^26 blocks, so that byte offsets fit 32 bits anywhere */
	return n >= WQE_MAX_BLOCKS && (n & (n - 1)) == 0 && n <= (1u << 26);
}

static int mlx5_encoded_size(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
			     uint32_t *bytes)
{
	struct mlx5_plan p;
	int err = plan_wr(qp, wr, &p);

	if (err)
		return err;
	*bytes = p.nblocks * WQE_BLOCK_SIZE;
	return 0;
}

static int mlx5_encode(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr,
		       const struct wqe_ring_view *ring, uint32_t slot, uint32_t wqe_index,
		       uint32_t *nblocks)
{
	struct mlx5_plan p;
	struct ring_cursor w;
	uint8_t seg[MLX5_CTRL_BYTES], imm[4];
	int err;

	if (!ring_ok(ring))
		return EINVAL;
	err = plan_wr(qp, wr, &p);
	if (err)
		return err;
	w.buf = ring->buf;
	w.size = (size_t)ring->nblocks * WQE_BLOCK_SIZE;
	w.off = (size_t)(slot & (ring->nblocks - 1)) * WQE_BLOCK_SIZE;
	w.written = 0;
	ring_clear(&w, p.nblocks);

	ctrl_imm(wr, p.op, imm);
	set_ctrl_seg(seg, wqe_index, mlx5_opcode_of(p.op), qp->qpn, p.ds,
		     ctrl_fm_ce_se(qp, wr), imm);
	ring_put(&w, seg, sizeof(seg));
	put_transport(&w, &p, wr);
	if (p.is_inline)
		put_inline(&w, &p, wr);
	else if (!(wr->send_flags & WQE_SEND_INLINE))
		put_data(&w, &p, wr);
	assert(w.written == (size_t)p.ds * MLX5_DS_BYTES);
	if (nblocks)
		*nblocks = p.nblocks;
	return 0;
}

static uint32_t mlx5_fixed_size(enum wqe_qp_type t, enum wqe_wr_opcode wr_op, int is_inline)
{
	enum wqe_op op;

	if (!mlx5_qpt_valid(t) || !catalog_op_from_wr(wr_op, &op))
		return 0;
	if (is_inline && !wqe_op_inline_ok(op))
		return 0;
	return MLX5_CTRL_BYTES + mlx5_segs_bytes(mlx5_transport_segs(t, op)) +
	       (is_inline ? MLX5_INL_HDR_BYTES : 0);
}

static uint32_t roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

static bool cap_in_range(const struct wqe_qp_cap *cap)
{
	return cap->max_send_wr >= 1 && cap->max_send_wr <= 32768 &&
	       cap->max_recv_wr >= 1 && cap->max_recv_wr <= 32768 &&
	       cap->max_recv_sge >= 1 && cap->max_recv_sge <= WQE_DESC_MAX_SGE;
}

/*
 * mlx5_calc_send_wqe with the overheads of the QP's own operations (as
 * ibv_create_qp_ex with send_ops_flags of exactly those): data-carrying
 * fixed part RC/UC ctrl + raddr, UD ctrl + datagram; RC at least an atomic
 * with its data segment. Unlike the provider, the inline term counts even
 * when no inline is asked for: that only changes a UD QP with no SGE, where
 * the provider's 64-byte WQE leaves max_inline_data = 64 - 64 - 4 < 0.
 */
static int mlx5_calc_sq(enum wqe_qp_type t, struct wqe_qp_cap *cap, uint32_t *wqe_bytes,
			uint32_t *ring_blocks)
{
	uint64_t fixed, data, inl, need, size, usable, sge;
	uint32_t wqe_blocks, ring;

	if (!mlx5_qpt_valid(t) || !cap_in_range(cap))
		return EINVAL;
	fixed = MLX5_CTRL_BYTES + (t == WQE_QPT_UD ? MLX5_DGRAM_BYTES : MLX5_RADDR_BYTES);
	data = fixed + (uint64_t)cap->max_send_sge * MLX5_DATA_BYTES;
	if (t == WQE_QPT_RC && data < MLX5_CTRL_BYTES + MLX5_RADDR_BYTES + MLX5_ATOMIC_BYTES +
					      MLX5_DATA_BYTES)
		data = MLX5_CTRL_BYTES + MLX5_RADDR_BYTES + MLX5_ATOMIC_BYTES + MLX5_DATA_BYTES;
	inl = fixed + mlx5_align(MLX5_INL_HDR_BYTES + (uint64_t)cap->max_inline_data,
				 MLX5_DS_BYTES);
	need = data > inl ? data : inl;
	if (need > WQE_MLX5_MAX_WQE_BYTES)
		return EINVAL;
	size = mlx5_align(need, WQE_BLOCK_SIZE);
	usable = size < WQE_MLX5_MAX_WQE_BYTES ? size : WQE_MLX5_MAX_WQE_BYTES;
	sge = (usable - fixed) / MLX5_DATA_BYTES;
	wqe_blocks = (uint32_t)(size / WQE_BLOCK_SIZE);
	ring = cap->max_send_wr * wqe_blocks;
	ring = roundup_pow2(ring < WQE_MAX_BLOCKS ? WQE_MAX_BLOCKS : ring);

	cap->max_inline_data = (uint32_t)(usable - fixed - MLX5_INL_HDR_BYTES);
	cap->max_send_sge = (uint32_t)(sge < WQE_DESC_MAX_SGE ? sge : WQE_DESC_MAX_SGE);
	cap->max_send_wr = ring / wqe_blocks;
	*wqe_bytes = (uint32_t)size;
	*ring_blocks = ring;
	return 0;
}

const struct fmt_ops mlx5_fmt_ops = {
	.format = WQE_FORMAT_MLX5,
	.encoded_size = mlx5_encoded_size,
	.encode = mlx5_encode,
	.fixed_size = mlx5_fixed_size,
	.calc_sq = mlx5_calc_sq,
	.peek_size = mlx5_peek_size,
	.decode = mlx5_decode,
};
