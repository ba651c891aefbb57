/* SPDX-License-Identifier: MIT */
/*
 * wqe_describe() and the printers on encoded WQEs: the fields tile the WQE
 * in the order and at the offsets of rdma-core's <infiniband/mlx5dv.h>
 * structs (the oracle: offsetof/sizeof of the shipped layout), every value
 * is the bytes it covers, the values are the request's, and a malformed
 * WQE is refused with the decoder's error.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "testutil.h"
#include "wqe/model.h"
#include "wqe/text.h"

/* One expected field: segment, name, offset within the segment, length. */
struct want {
	char seg[24];
	const char *name;
	size_t off;
	size_t len;
};

struct wants {
	struct want w[WQE_FIELD_MAX];
	unsigned int n;
	size_t base; /* offset of the current segment */
};

static void want(struct wants *ws, const char *seg, const char *name, size_t off, size_t len)
{
	struct want *w = &ws->w[ws->n++];

	snprintf(w->seg, sizeof(w->seg), "%s", seg);
	w->name = name;
	w->off = ws->base + off;
	w->len = len;
}

#define M(type, member) offsetof(struct type, member), sizeof(((struct type *)0)->member)

static void want_ctrl(struct wants *ws)
{
	size_t o = offsetof(struct mlx5_wqe_ctrl_seg, opmod_idx_opcode);
	size_t q = offsetof(struct mlx5_wqe_ctrl_seg, qpn_ds);

	want(ws, "ctrl", "opmod", o, 1);
	want(ws, "ctrl", "wqe_index", o + 1, 2);
	want(ws, "ctrl", "opcode", o + 3, 1);
	want(ws, "ctrl", "qpn", q, 3);
	want(ws, "ctrl", "ds", q + 3, 1);
	want(ws, "ctrl", "signature", M(mlx5_wqe_ctrl_seg, signature));
	want(ws, "ctrl", "dci_stream", M(mlx5_wqe_ctrl_seg, dci_stream_channel_id));
	want(ws, "ctrl", "fm_ce_se", M(mlx5_wqe_ctrl_seg, fm_ce_se));
	want(ws, "ctrl", "imm", M(mlx5_wqe_ctrl_seg, imm));
	ws->base += sizeof(struct mlx5_wqe_ctrl_seg);
}

static void want_raddr(struct wants *ws)
{
	want(ws, "raddr", "raddr", M(mlx5_wqe_raddr_seg, raddr));
	want(ws, "raddr", "rkey", M(mlx5_wqe_raddr_seg, rkey));
	want(ws, "raddr", "reserved", M(mlx5_wqe_raddr_seg, reserved));
	ws->base += sizeof(struct mlx5_wqe_raddr_seg);
}

static void want_atomic(struct wants *ws)
{
	want(ws, "atomic", "swap_add", M(mlx5_wqe_atomic_seg, swap_add));
	want(ws, "atomic", "compare", M(mlx5_wqe_atomic_seg, compare));
	ws->base += sizeof(struct mlx5_wqe_atomic_seg);
}

static void want_dgram(struct wants *ws)
{
	want(ws, "datagram", "qkey", M(mlx5_wqe_av, key.qkey.qkey));
	want(ws, "datagram", "reserved", M(mlx5_wqe_av, key.qkey.reserved));
	want(ws, "datagram", "dqp_dct", M(mlx5_wqe_av, dqp_dct));
	want(ws, "datagram", "stat_rate_sl", M(mlx5_wqe_av, stat_rate_sl));
	want(ws, "datagram", "fl_mlid", M(mlx5_wqe_av, fl_mlid));
	want(ws, "datagram", "rlid", M(mlx5_wqe_av, rlid));
	want(ws, "datagram", "reserved0", M(mlx5_wqe_av, reserved0));
	want(ws, "datagram", "rmac", M(mlx5_wqe_av, rmac));
	want(ws, "datagram", "tclass", M(mlx5_wqe_av, tclass));
	want(ws, "datagram", "hop_limit", M(mlx5_wqe_av, hop_limit));
	want(ws, "datagram", "grh_gid_fl", M(mlx5_wqe_av, grh_gid_fl));
	want(ws, "datagram", "rgid", M(mlx5_wqe_av, rgid));
	ws->base += sizeof(struct mlx5_wqe_datagram_seg);
}

static void want_data(struct wants *ws, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		char seg[24];

		snprintf(seg, sizeof(seg), "data[%u]", i);
		want(ws, seg, "byte_count", M(mlx5_wqe_data_seg, byte_count));
		want(ws, seg, "lkey", M(mlx5_wqe_data_seg, lkey));
		want(ws, seg, "addr", M(mlx5_wqe_data_seg, addr));
		ws->base += sizeof(struct mlx5_wqe_data_seg);
	}
}

static void want_inline(struct wants *ws, size_t len)
{
	size_t hdr = sizeof(struct mlx5_wqe_inl_data_seg), end = hdr + len;
	size_t padded = (end + 15) / 16 * 16;

	want(ws, "inline", "byte_count", M(mlx5_wqe_inl_data_seg, byte_count));
	want(ws, "inline", "payload", hdr, len);
	if (padded > end)
		want(ws, "inline", "pad", end, padded - end);
	ws->base += padded;
}

/* The segments _mlx5_post_send writes (mlx5-send-path.md 1.3). */
static void want_layout(struct wants *ws, enum wqe_qp_type t, const struct wqe_send_wr *wr,
			uint32_t inline_len)
{
	enum wqe_wr_opcode op = wr->opcode;
	int atomic = op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
	int rdma = op == WQE_WR_RDMA_WRITE || op == WQE_WR_RDMA_WRITE_WITH_IMM ||
		   (t == WQE_QPT_RC && op == WQE_WR_RDMA_READ);
	unsigned int nsge = 0;

	memset(ws, 0, sizeof(*ws));
	want_ctrl(ws);
	if (t == WQE_QPT_UD)
		want_dgram(ws);
	else if (t == WQE_QPT_RC && atomic) {
		want_raddr(ws);
		want_atomic(ws);
	} else if (rdma) {
		want_raddr(ws);
	}
	if (wr->send_flags & WQE_SEND_INLINE) {
		if (inline_len)
			want_inline(ws, inline_len);
		return;
	}
	for (int i = 0; i < wr->num_sge; i++)
		nsge += wr->sg_list[i].length != 0;
	want_data(ws, nsge);
}

static uint64_t be(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static const struct wqe_field *find(const struct wqe_description *d, const char *seg,
				    const char *name)
{
	for (uint32_t i = 0; i < d->num_fields; i++)
		if (strcmp(d->field[i].segment, seg) == 0 && strcmp(d->field[i].name, name) == 0)
			return &d->field[i];
	test_fail(__FILE__, __LINE__, "no field %s.%s", seg, name);
	return &d->field[0];
}

static uint64_t val(const struct wqe_description *d, const char *seg, const char *name)
{
	return find(d, seg, name)->value;
}

static struct wqe_text_wr req;
static struct wqe_description desc;
static struct wqe_desc plain;
static uint8_t ring[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];

/* Fields against the oracle layout, tiling, and values against the bytes. */
static void check_fields(const struct wants *ws, const uint8_t *wqe)
{
	uint32_t next = 0;

	CHECK_EQ(desc.num_fields, ws->n);
	for (uint32_t i = 0; i < desc.num_fields && i < ws->n; i++) {
		const struct wqe_field *f = &desc.field[i];

		if (strcmp(f->segment, ws->w[i].seg) || strcmp(f->name, ws->w[i].name) ||
		    f->offset != ws->w[i].off || f->length != ws->w[i].len)
			test_fail(__FILE__, __LINE__, "field %u: %s.%s @%u+%u, want %s.%s @%zu+%zu",
				  i, f->segment, f->name, f->offset, f->length, ws->w[i].seg,
				  ws->w[i].name, ws->w[i].off, ws->w[i].len);
		CHECK_EQ(f->offset, next);
		next = f->offset + f->length;
		CHECK_EQ(f->has_value, f->length <= 8);
		if (f->has_value)
			CHECK_EQ(f->value, be(wqe + f->offset, f->length));
		CHECK(f->meaning[0] != '\0');
	}
	CHECK_EQ(next, desc.desc.size);
	CHECK_EQ(ws->base, desc.desc.size);
}

static void check_ctrl(const struct wqe_encode_qp *qp, uint8_t opcode, uint32_t wqe_index)
{
	const struct wqe_send_wr *wr = &req.wr;
	uint8_t fm = (uint8_t)(((wr->send_flags & WQE_SEND_FENCE) ? MLX5_WQE_CTRL_FENCE : 0) |
			       ((wr->send_flags & WQE_SEND_SIGNALED) ? MLX5_WQE_CTRL_CQ_UPDATE : 0) |
			       ((wr->send_flags & WQE_SEND_SOLICITED) ? MLX5_WQE_CTRL_SOLICITED : 0));

	CHECK_EQ(val(&desc, "ctrl", "opmod"), 0);
	CHECK_EQ(val(&desc, "ctrl", "wqe_index"), wqe_index & 0xffff);
	CHECK_EQ(val(&desc, "ctrl", "opcode"), opcode);
	CHECK_EQ(val(&desc, "ctrl", "qpn"), qp->qpn);
	CHECK_EQ(val(&desc, "ctrl", "ds"), desc.desc.size / 16);
	CHECK_EQ(val(&desc, "ctrl", "fm_ce_se"), fm);
	if (wr->opcode == WQE_WR_SEND_WITH_INV)
		CHECK_EQ(val(&desc, "ctrl", "imm"), wr->invalidate_rkey);
	else if (wr->opcode == WQE_WR_SEND_WITH_IMM || wr->opcode == WQE_WR_RDMA_WRITE_WITH_IMM)
		CHECK_EQ(val(&desc, "ctrl", "imm"), be((const uint8_t *)&wr->imm_data, 4));
	else
		CHECK_EQ(val(&desc, "ctrl", "imm"), 0);
}

static void check_segments(enum wqe_qp_type t)
{
	const struct wqe_send_wr *wr = &req.wr;
	const struct wqe_ah_attr *a = &req.ah.attr;

	if (t == WQE_QPT_UD) {
		CHECK_EQ(val(&desc, "datagram", "qkey"), wr->wr.ud.remote_qkey);
		CHECK_EQ(val(&desc, "datagram", "dqp_dct"),
			 wr->wr.ud.remote_qpn | MLX5_EXTENDED_UD_AV);
		CHECK_EQ(val(&desc, "datagram", "rlid"), a->udp_sport);
		CHECK_EQ(val(&desc, "datagram", "rmac"), be(a->dmac, 6));
		CHECK_EQ(val(&desc, "datagram", "tclass"), a->grh.traffic_class);
		CHECK_EQ(val(&desc, "datagram", "hop_limit"), a->grh.hop_limit);
		CHECK_EQ(val(&desc, "datagram", "grh_gid_fl"),
			 (uint32_t)a->grh.sgid_index << 20 | a->grh.flow_label);
		CHECK_EQ(val(&desc, "datagram", "stat_rate_sl"), (uint32_t)a->sl << 1);
		CHECK(!find(&desc, "datagram", "rgid")->has_value);
	} else if (wr->opcode == WQE_WR_ATOMIC_CMP_AND_SWP) {
		CHECK_EQ(val(&desc, "raddr", "raddr"), wr->wr.atomic.remote_addr);
		CHECK_EQ(val(&desc, "raddr", "rkey"), wr->wr.atomic.rkey);
		CHECK_EQ(val(&desc, "atomic", "swap_add"), wr->wr.atomic.swap);
		CHECK_EQ(val(&desc, "atomic", "compare"), wr->wr.atomic.compare_add);
	} else if (wr->opcode == WQE_WR_ATOMIC_FETCH_AND_ADD) {
		CHECK_EQ(val(&desc, "atomic", "swap_add"), wr->wr.atomic.compare_add);
	} else if (wr->opcode == WQE_WR_RDMA_WRITE || wr->opcode == WQE_WR_RDMA_WRITE_WITH_IMM ||
		   (wr->opcode == WQE_WR_RDMA_READ && t == WQE_QPT_RC)) {
		CHECK_EQ(val(&desc, "raddr", "raddr"), wr->wr.rdma.remote_addr);
		CHECK_EQ(val(&desc, "raddr", "rkey"), wr->wr.rdma.rkey);
		CHECK_EQ(val(&desc, "raddr", "reserved"), 0);
	}
}

static void check_data(const uint8_t *wqe)
{
	const struct wqe_send_wr *wr = &req.wr;
	int atomic = wr->opcode == WQE_WR_ATOMIC_CMP_AND_SWP ||
		     wr->opcode == WQE_WR_ATOMIC_FETCH_AND_ADD;

	if (wr->send_flags & WQE_SEND_INLINE) {
		const struct wqe_field *p;

		if (!req.inline_len)
			return;
		CHECK_EQ(val(&desc, "inline", "byte_count"), req.inline_len | MLX5_INLINE_SEG);
		p = find(&desc, "inline", "payload");
		CHECK_EQ(p->length, req.inline_len);
		CHECK_MEM(wqe + p->offset, req.inline_data, req.inline_len);
		return;
	}
	for (int i = 0, k = 0; i < wr->num_sge; i++) {
		char seg[24];

		if (!wr->sg_list[i].length)
			continue;
		snprintf(seg, sizeof(seg), "data[%d]", k++);
		CHECK_EQ(val(&desc, seg, "byte_count"), atomic ? 8 : wr->sg_list[i].length);
		CHECK_EQ(val(&desc, seg, "lkey"), wr->sg_list[i].lkey);
		CHECK_EQ(val(&desc, seg, "addr"), wr->sg_list[i].addr);
	}
}

struct dcase {
	enum wqe_qp_type t;
	uint8_t opcode; /* the mlx5 opcode, from mlx5dv.h */
	const char *text;
};

static const struct dcase cases[] = {
	{WQE_QPT_RC, MLX5_OPCODE_SEND, "send sge=0x7f0000001000:64:0x1234 sge=0x10:0:1 sge=2:3:4"},
	{WQE_QPT_RC, MLX5_OPCODE_SEND_IMM,
	 "send_imm imm=0x01020304 sge=1:2:3 flags=fence,signaled,solicited"},
	{WQE_QPT_RC, MLX5_OPCODE_SEND_INVAL, "send_inv inv=0xdeadbeef sge=1:2:3 flags=signaled"},
	{WQE_QPT_RC, MLX5_OPCODE_RDMA_WRITE,
	 "write raddr=0x200000000040 rkey=0xabcd inline="
	 "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babb"},
	{WQE_QPT_RC, MLX5_OPCODE_RDMA_WRITE,
	 "write raddr=1 rkey=2 inline=a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbc"},
	{WQE_QPT_RC, MLX5_OPCODE_RDMA_WRITE, "write raddr=1 rkey=2 inline=ff"},
	{WQE_QPT_RC, MLX5_OPCODE_RDMA_WRITE, "write raddr=1 rkey=2 inline="},
	{WQE_QPT_RC, MLX5_OPCODE_RDMA_WRITE_IMM,
	 "write_imm raddr=0xffffffffffffffff rkey=0xffffffff imm=0xa0b0c0d0 sge=1:2:3 sge=4:5:6"},
	{WQE_QPT_RC, MLX5_OPCODE_RDMA_READ, "read raddr=0x1000 rkey=7 sge=0x2000:4096:8"},
	{WQE_QPT_RC, MLX5_OPCODE_ATOMIC_CS,
	 "cas raddr=0x100 rkey=9 swap=0x1122334455667788 compare=0x99 sge=0x3000:8:10"},
	{WQE_QPT_RC, MLX5_OPCODE_ATOMIC_FA, "faa raddr=0x108 rkey=9 add=5 sge=0x3000:8:10"},
	{WQE_QPT_UC, MLX5_OPCODE_RDMA_WRITE, "write raddr=0x40 rkey=3 sge=1:100:2 flags=signaled"},
	{WQE_QPT_UC, MLX5_OPCODE_SEND, "send inline=000102030405060708090a0b0c0d0e0f10"},
	/* illegal on UC, encoded as the provider would: no raddr segment */
	{WQE_QPT_UC, MLX5_OPCODE_RDMA_READ, "read raddr=0x40 rkey=3 sge=1:100:2"},
	{WQE_QPT_UD, MLX5_OPCODE_SEND,
	 "send dqpn=0x456 qkey=0x11111111 sport=49152 dgid=192.168.0.2 dmac=02:00:00:00:00:02 "
	 "hop=64 sge=0x7f0000001000:64:0x1234"},
	{WQE_QPT_UD, MLX5_OPCODE_SEND_IMM,
	 "send_imm imm=7 dqpn=0xffffff qkey=1 sport=65535 dgid=2001:db8::2 dmac=ff:ee:dd:cc:bb:aa "
	 "hop=1 tclass=96 flow=0xfffff sl=7 sgid_index=3 inline=48656c6c6f flags=solicited"},
};

static void run_case(const struct dcase *c, uint32_t wqe_index)
{
	struct wqe_text_opts opts = {c->t, NULL, NULL};
	struct wqe_encode_qp qp = {c->t, 0x123456, WQE_DESC_MAX_SGE, 900, 0};
	struct wqe_ring_view view = {ring, WQE_MAX_BLOCKS};
	struct wqe_decode_ctx ctx = {.qp_type = c->t, .max_bytes = 0};
	struct wqe_text_err err;
	struct wants *ws = malloc(sizeof(*ws));
	uint32_t nb = 0;
	unsigned long before = test_failures;

	CHECK_EQ(wqe_parse_send_wr(c->text, strlen(c->text), &opts, &req, &err), 0);
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &qp, &req.wr, &view, 0, wqe_index, &nb), 0);
	ctx.max_bytes = nb * WQE_BLOCK_SIZE;
	CHECK_EQ(wqe_describe(WQE_FORMAT_MLX5, &ctx, ring, ctx.max_bytes, &desc), WQE_DEC_OK);
	CHECK_EQ(wqe_decode(WQE_FORMAT_MLX5, &ctx, ring, ctx.max_bytes, &plain), WQE_DEC_OK);
	CHECK_EQ(desc.desc.op, plain.op);
	CHECK_EQ(desc.desc.size, plain.size);
	CHECK_EQ(desc.desc.num_sge, plain.num_sge);
	CHECK_EQ(desc.desc.inline_len, plain.inline_len);
	want_layout(ws, c->t, &req.wr, req.inline_len);
	check_fields(ws, ring);
	check_ctrl(&qp, c->opcode, wqe_index);
	check_segments(c->t);
	check_data(ring);
	if (test_failures != before)
		fprintf(stderr, "  case: %s QP: %s\n", wqe_qp_type_str(c->t), c->text);
	free(ws);
}

/* The largest mlx5 WQE: a control segment and 62 data segments, DS 63. */
static void test_largest(void)
{
	static char line[64 * 16];
	struct dcase c = {WQE_QPT_RC, MLX5_OPCODE_SEND, line};
	size_t n = (size_t)snprintf(line, sizeof(line), "send");

	for (int i = 0; i < 62; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " sge=%d:%d:%d", i, i + 1, i + 2);
	run_case(&c, 0xfffff);
	CHECK_EQ(desc.desc.ds, 63);
	CHECK_EQ(desc.num_fields, 9 + 62 * 3);
	CHECK(strcmp(desc.field[desc.num_fields - 1].segment, "data[61]") == 0);
}

static void test_refused(void)
{
	struct wqe_decode_ctx ctx = {.qp_type = WQE_QPT_RC, .max_bytes = 64};
	uint8_t w[64];

	run_case(&cases[0], 0);
	memcpy(w, ring, sizeof(w));
	w[3] = 0x7f; /* unknown opcode */
	CHECK_EQ(wqe_describe(WQE_FORMAT_MLX5, &ctx, w, sizeof(w), &desc), WQE_DEC_BAD_OPCODE);
	CHECK_EQ(wqe_print_wqe(stdout, WQE_FORMAT_MLX5, &ctx, w, sizeof(w)), WQE_DEC_BAD_OPCODE);
	memcpy(w, ring, sizeof(w));
	w[7] = 0; /* DS 0 */
	CHECK_EQ(wqe_describe(WQE_FORMAT_MLX5, &ctx, w, sizeof(w), &desc),
		 wqe_decode(WQE_FORMAT_MLX5, &ctx, w, sizeof(w), &plain));
	CHECK_EQ(wqe_describe(WQE_FORMAT_MLX5, &ctx, ring, 20, &desc), WQE_DEC_TRUNCATED);
	memcpy(w, ring, sizeof(w));
	w[9] = 1; /* dci_stream must be 0 */
	CHECK_EQ(wqe_describe(WQE_FORMAT_MLX5, &ctx, w, sizeof(w), &desc), WQE_DEC_BAD_FIELD);
	CHECK_EQ(wqe_describe(WQE_FORMAT_RXE, &ctx, ring, 64, &desc), WQE_DEC_TRUNCATED);
	CHECK_EQ(wqe_describe((enum wqe_format)7, &ctx, ring, 64, &desc), WQE_DEC_BAD_OPCODE);
	CHECK_EQ(wqe_describe(WQE_FORMAT_MLX5, &ctx, ring, 64, NULL), WQE_DEC_BAD_FIELD);
}

/* Captures what @fn prints. */
static char *capture_wqe(enum wqe_qp_type t)
{
	struct wqe_decode_ctx ctx = {.qp_type = t, .max_bytes = 128};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	CHECK_EQ(wqe_print_wqe(f, WQE_FORMAT_MLX5, &ctx, ring, 128), WQE_DEC_OK);
	wqe_decode(WQE_FORMAT_MLX5, &ctx, ring, 128, &plain);
	wqe_print_desc(f, &plain, t);
	CHECK_EQ(wqe_print_send_wr(f, &req.wr, t), 0);
	fclose(f);
	return buf;
}

static void test_print(void)
{
	char *out;

	run_case(&cases[3], 5); /* RC WRITE, 28 B inline */
	out = capture_wqe(WQE_QPT_RC);
	CHECK(strstr(out, "64 bytes, ds=4, 1 block of 64 B; inline payload of 28 bytes at offset "
			  "36\n") != NULL);
	CHECK(strstr(out, "RDMA_WRITE (0x08)") != NULL);
	CHECK(strstr(out, "ds=4 -> 64 B, 1 block") != NULL);
	CHECK(strstr(out, "inline 28 B") != NULL);
	CHECK(strstr(out, "00 00 05 08  12 34 56 04  00 00 00 00  00 00 00 00") != NULL);
	CHECK(strstr(out, "INLINE (0x8)") != NULL);
	free(out);

	run_case(&cases[1], 0); /* RC SEND_IMM, all three flags */
	out = capture_wqe(WQE_QPT_RC);
	CHECK(strstr(out, "FENCE|CQ_UPDATE|SOLICITED") != NULL);
	CHECK(strstr(out, "immediate 01 02 03 04") != NULL);
	CHECK(strstr(out, "FENCE|SIGNALED|SOLICITED (0x7)") != NULL);
	CHECK(strstr(out, "bytes 01 02 03 04 (network order)") != NULL);
	CHECK(strstr(out, "; 1 data segment naming 2 bytes") != NULL);
	free(out);

	run_case(&cases[14], 0); /* UD SEND */
	out = capture_wqe(WQE_QPT_UD);
	CHECK(strstr(out, "80 bytes, ds=5, 2 blocks of 64 B") != NULL);
	CHECK(strstr(out, "remote QPN 0x000456, extended AV") != NULL);
	CHECK(strstr(out, "UDP source port 49152") != NULL);
	CHECK(strstr(out, "::ffff:192.168.0.2") != NULL);
	CHECK(strstr(out, "ud.remote_qpn") != NULL);
	free(out);
	CHECK_EQ(wqe_print_send_wr(NULL, &req.wr, WQE_QPT_RC), EINVAL);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i], (uint32_t)i * 3);
	test_largest();
	test_refused();
	test_print();
	return test_finish();
}
