/* SPDX-License-Identifier: MIT */
/*
 * describe.c - wqe_describe(): an mlx5 WQE broken down field by field.
 *
 * The decoder says what the WQE is (opcode, inline or data segments, how
 * many); this file only lays the named fields of mlx5dv.h over the bytes in
 * the order the segments have (mlx5-send-path.md section 1) and says what
 * each holds. It shares the choice of transport segments with the encoder
 * and the decoder (mlx5_transport_segs), so the three cannot disagree.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "common/bytes.h"
#include "fmt/mlx5.h"
#include "tables/catalog.h"
#include "wqe/text.h"

struct builder {
	struct wqe_description *out;
	const uint8_t *wqe;
	char seg[16];
};

static void seg_name(struct builder *b, const char *name)
{
	snprintf(b->seg, sizeof(b->seg), "%s", name);
}

static uint64_t be_value(const uint8_t *p, uint32_t len)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < len; i++)
		v = v << 8 | p[i];
	return v;
}

/* Adds one field at @off (from the WQE start); @len <= 8 gets a value. */
__attribute__((format(printf, 5, 6))) static void add(struct builder *b, const char *name,
						       uint32_t off, uint32_t len,
						       const char *fmt, ...)
{
	struct wqe_field *f;
	va_list ap;

	if (b->out->num_fields >= WQE_FIELD_MAX)
		return;
	f = &b->out->field[b->out->num_fields++];
	memcpy(f->segment, b->seg, sizeof(f->segment));
	f->name = name;
	f->offset = off;
	f->length = len;
	f->has_value = len <= 8;
	f->value = f->has_value ? be_value(b->wqe + off, len) : 0;
	va_start(ap, fmt);
	vsnprintf(f->meaning, sizeof(f->meaning), fmt, ap);
	va_end(ap);
}

static const char *mlx5_opcode_name(uint8_t opc)
{
	switch (opc) {
	case MLX5_OPC_SEND_INVAL: return "SEND_INVAL";
	case MLX5_OPC_RDMA_WRITE: return "RDMA_WRITE";
	case MLX5_OPC_RDMA_WRITE_IMM: return "RDMA_WRITE_IMM";
	case MLX5_OPC_SEND: return "SEND";
	case MLX5_OPC_SEND_IMM: return "SEND_IMM";
	case MLX5_OPC_RDMA_READ: return "RDMA_READ";
	case MLX5_OPC_ATOMIC_CS: return "ATOMIC_CS";
	case MLX5_OPC_ATOMIC_FA: return "ATOMIC_FA";
	}
	return "unknown";
}

static void fm_ce_se_names(uint8_t v, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s%s", v & MLX5_CTRL_FENCE ? "FENCE" : "",
		 (v & MLX5_CTRL_FENCE) && (v & (MLX5_CTRL_CQ_UPDATE | MLX5_CTRL_SOLICITED)) ? "|"
											     : "",
		 v & MLX5_CTRL_CQ_UPDATE ? "CQ_UPDATE" : "",
		 (v & MLX5_CTRL_CQ_UPDATE) && (v & MLX5_CTRL_SOLICITED) ? "|" : "",
		 v & MLX5_CTRL_SOLICITED ? "SOLICITED" : "");
	if (!v)
		snprintf(buf, cap, "none (unsignaled)");
}

static void add_ctrl(struct builder *b, const struct wqe_desc *d)
{
	const uint8_t *c = b->wqe;
	char flags[40];

	seg_name(b, "ctrl");
	add(b, "opmod", 0, 1, "%u", c[0]);
	add(b, "wqe_index", 1, 2, "WQE index %u", get_be16(c + 1));
	add(b, "opcode", 3, 1, "%s (0x%02x)", mlx5_opcode_name(c[3]), c[3]);
	add(b, "qpn", 4, 3, "QP 0x%06" PRIx32, d->qpn);
	add(b, "ds", 7, 1, "ds=%u -> %u B, %u block%s", d->ds, d->size, d->nblocks,
	    d->nblocks == 1 ? "" : "s");
	add(b, "signature", 8, 1, c[8] ? "0x%02x" : "%u (not computed)", c[8]);
	add(b, "dci_stream", 9, 2, "%u (reserved on RC/UC/UD)", get_be16(c + 9));
	fm_ce_se_names(c[11], flags, sizeof(flags));
	add(b, "fm_ce_se", 11, 1, "%s", flags);
	if (catalog_op_has_imm(d->op))
		add(b, "imm", 12, 4, "immediate %02x %02x %02x %02x", c[12], c[13], c[14], c[15]);
	else if (d->op == WQE_OP_SEND_WITH_INV)
		add(b, "imm", 12, 4, "invalidate rkey 0x%08" PRIx32, d->imm);
	else
		add(b, "imm", 12, 4, "unused");
}

static void add_raddr(struct builder *b, uint32_t off)
{
	const uint8_t *s = b->wqe + off;

	seg_name(b, "raddr");
	add(b, "raddr", off, 8, "remote address 0x%" PRIx64, get_be64(s));
	add(b, "rkey", off + 8, 4, "rkey 0x%08" PRIx32, get_be32(s + 8));
	add(b, "reserved", off + 12, 4, "reserved");
}

static void add_atomic(struct builder *b, const struct wqe_desc *d, uint32_t off)
{
	const uint8_t *s = b->wqe + off;

	seg_name(b, "atomic");
	if (d->op == WQE_OP_ATOMIC_CMP_AND_SWP) {
		add(b, "swap_add", off, 8, "swap 0x%" PRIx64, get_be64(s));
		add(b, "compare", off + 8, 8, "compare 0x%" PRIx64, get_be64(s + 8));
	} else {
		add(b, "swap_add", off, 8, "add %" PRIu64, get_be64(s));
		add(b, "compare", off + 8, 8, "unused by FETCH_AND_ADD");
	}
}

static void add_dgram_gid(struct builder *b, uint32_t off)
{
	char text[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, b->wqe + off, text, sizeof(text)))
		snprintf(text, sizeof(text), "?");
	add(b, "rgid", off, 16, "%s", text);
}

static void add_dgram(struct builder *b, uint32_t off)
{
	const uint8_t *s = b->wqe + off;
	uint32_t dqp = get_be32(s + 8), gfl = get_be32(s + 28);

	seg_name(b, "datagram");
	add(b, "qkey", off, 4, "Q_Key 0x%08" PRIx32, get_be32(s));
	add(b, "reserved", off + 4, 4, "reserved");
	add(b, "dqp_dct", off + 8, 4, "remote QPN 0x%06" PRIx32 "%s", dqp & MLX5_QPN_MASK,
	    dqp & MLX5_EXTENDED_UD_AV ? ", extended AV" : "");
	add(b, "stat_rate_sl", off + 12, 1, "sl %u, static rate %u", (s[12] >> 1) & 7u,
	    s[12] >> 4);
	add(b, "fl_mlid", off + 13, 1, "%u", s[13]);
	add(b, "rlid", off + 14, 2, "UDP source port %u", get_be16(s + 14));
	add(b, "reserved0", off + 16, 4, "reserved");
	add(b, "rmac", off + 20, 6, "%02x:%02x:%02x:%02x:%02x:%02x", s[20], s[21], s[22], s[23],
	    s[24], s[25]);
	add(b, "tclass", off + 26, 1, "traffic class %u", s[26]);
	add(b, "hop_limit", off + 27, 1, "hop limit %u", s[27]);
	add(b, "grh_gid_fl", off + 28, 4, "sgid_index %u, flow label 0x%05" PRIx32,
	    (gfl >> 20) & 0xffu, gfl & MLX5_FLOW_LABEL_MASK);
	add_dgram_gid(b, off + 32);
}

static void add_data(struct builder *b, const struct wqe_desc *d, uint32_t off, uint32_t i)
{
	const uint8_t *s = b->wqe + off;

	snprintf(b->seg, sizeof(b->seg), "data[%u]", i & 0xffu); /* i < 64 */
	if (catalog_op_is_atomic(d->op))
		add(b, "byte_count", off, 4, "%" PRIu32 " B (atomic result)", get_be32(s));
	else
		add(b, "byte_count", off, 4, "%" PRIu32 " B", get_be32(s));
	add(b, "lkey", off + 4, 4, "lkey 0x%08" PRIx32, get_be32(s + 4));
	add(b, "addr", off + 8, 8, "address 0x%" PRIx64, get_be64(s + 8));
}

static void add_inline(struct builder *b, const struct wqe_desc *d, uint32_t off)
{
	uint32_t end = off + MLX5_INL_HDR_BYTES + d->inline_len;

	seg_name(b, "inline");
	add(b, "byte_count", off, 4, "inline %" PRIu32 " B", d->inline_len);
	add(b, "payload", off + MLX5_INL_HDR_BYTES, d->inline_len, "%" PRIu32 " B of payload",
	    d->inline_len);
	if (d->size > end)
		add(b, "pad", end, d->size - end, "%" PRIu32 " B of padding to 16", d->size - end);
}

/* Lays the fields over the bytes; false if they do not fill desc.size. */
static bool add_segments(struct builder *b, const struct wqe_decode_ctx *ctx,
			 const struct wqe_desc *d)
{
	unsigned int segs = mlx5_transport_segs(ctx->qp_type, d->op);
	uint32_t off = MLX5_CTRL_BYTES;

	add_ctrl(b, d);
	if (segs & MLX5_SEG_RADDR) {
		add_raddr(b, off);
		off += MLX5_RADDR_BYTES;
	}
	if (segs & MLX5_SEG_ATOMIC) {
		add_atomic(b, d, off);
		off += MLX5_ATOMIC_BYTES;
	}
	if (segs & MLX5_SEG_DGRAM) {
		add_dgram(b, off);
		off += MLX5_DGRAM_BYTES;
	}
	if (d->is_inline) {
		add_inline(b, d, off);
		return mlx5_align((uint64_t)off + MLX5_INL_HDR_BYTES + d->inline_len,
				  MLX5_DS_BYTES) == d->size;
	}
	for (uint32_t i = 0; i < d->num_sge; i++, off += MLX5_DATA_BYTES)
		add_data(b, d, off, i);
	return off == d->size;
}

enum wqe_decode_err wqe_describe(enum wqe_format fmt, const struct wqe_decode_ctx *ctx,
				 const uint8_t *wqe, size_t len, struct wqe_description *out)
{
	struct builder b = {.out = out, .wqe = wqe};
	enum wqe_decode_err err;

	if (!out)
		return WQE_DEC_BAD_FIELD;
	if (fmt != WQE_FORMAT_MLX5)
		return WQE_DEC_BAD_OPCODE;
	err = wqe_decode(fmt, ctx, wqe, len, &out->desc);
	if (err)
		return err;
	out->num_fields = 0;
	if (!add_segments(&b, ctx, &out->desc))
		return WQE_DEC_BAD_SEGMENTS;
	return WQE_DEC_OK;
}
