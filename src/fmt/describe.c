/* SPDX-License-Identifier: MIT */
/*
 * describe.c - wqe_describe(): a WQE broken down field by field, and the
 * field builder every format's describer shares (describe.h). The mlx5
 * fields are here; rxe's are in describe_rxe.c.
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
#include "fmt/describe.h"
#include "fmt/mlx5.h"
#include "tables/catalog.h"
#include "wqe/text.h"

static uint64_t field_value(const uint8_t *p, uint32_t len, enum db_order order)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < len; i++)
		v = v << 8 | p[order == DB_LE ? len - 1 - i : i];
	return v;
}

void db_segment(struct desc_builder *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->seg, sizeof(b->seg), fmt, ap);
	va_end(ap);
}

static void vadd(struct desc_builder *b, enum db_order order, const char *name, uint32_t off,
		 uint32_t len, const char *fmt, va_list ap)
{
	struct wqe_field *f;

	if (*b->num_fields >= WQE_FIELD_MAX)
		return;
	f = &b->field[(*b->num_fields)++];
	memcpy(f->segment, b->seg, sizeof(f->segment));
	f->name = name;
	f->offset = off;
	f->length = len;
	f->has_value = len <= 8;
	f->value = f->has_value ? field_value(b->wqe + off, len, order) : 0;
	vsnprintf(f->meaning, sizeof(f->meaning), fmt, ap);
}

void db_add(struct desc_builder *b, const char *name, uint32_t off, uint32_t len,
	    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(b, b->order, name, off, len, fmt, ap);
	va_end(ap);
}

void db_add_order(struct desc_builder *b, enum db_order order, const char *name, uint32_t off,
		  uint32_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(b, order, name, off, len, fmt, ap);
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

static void add_ctrl(struct desc_builder *b, const struct wqe_desc *d)
{
	const uint8_t *c = b->wqe;
	char flags[40];

	db_segment(b, "ctrl");
	db_add(b, "opmod", 0, 1, "%u", c[0]);
	db_add(b, "wqe_index", 1, 2, "WQE index %u", get_be16(c + 1));
	db_add(b, "opcode", 3, 1, "%s (0x%02x)", mlx5_opcode_name(c[3]), c[3]);
	db_add(b, "qpn", 4, 3, "QP 0x%06" PRIx32, d->qpn);
	db_add(b, "ds", 7, 1, "ds=%u -> %u B, %u block%s", d->ds, d->size, d->nblocks,
	    d->nblocks == 1 ? "" : "s");
	db_add(b, "signature", 8, 1, c[8] ? "0x%02x" : "%u (not computed)", c[8]);
	db_add(b, "dci_stream", 9, 2, "%u (reserved on RC/UC/UD)", get_be16(c + 9));
	fm_ce_se_names(c[11], flags, sizeof(flags));
	db_add(b, "fm_ce_se", 11, 1, "%s", flags);
	if (catalog_op_has_imm(d->op))
		db_add(b, "imm", 12, 4, "immediate %02x %02x %02x %02x", c[12], c[13], c[14], c[15]);
	else if (d->op == WQE_OP_SEND_WITH_INV)
		db_add(b, "imm", 12, 4, "invalidate rkey 0x%08" PRIx32, d->imm);
	else
		db_add(b, "imm", 12, 4, "unused");
}

static void add_raddr(struct desc_builder *b, uint32_t off)
{
	const uint8_t *s = b->wqe + off;

	db_segment(b, "raddr");
	db_add(b, "raddr", off, 8, "remote address 0x%" PRIx64, get_be64(s));
	db_add(b, "rkey", off + 8, 4, "rkey 0x%08" PRIx32, get_be32(s + 8));
	db_add(b, "reserved", off + 12, 4, "reserved");
}

static void add_atomic(struct desc_builder *b, const struct wqe_desc *d, uint32_t off)
{
	const uint8_t *s = b->wqe + off;

	db_segment(b, "atomic");
	if (d->op == WQE_OP_ATOMIC_CMP_AND_SWP) {
		db_add(b, "swap_add", off, 8, "swap 0x%" PRIx64, get_be64(s));
		db_add(b, "compare", off + 8, 8, "compare 0x%" PRIx64, get_be64(s + 8));
	} else {
		db_add(b, "swap_add", off, 8, "add %" PRIu64, get_be64(s));
		db_add(b, "compare", off + 8, 8, "unused by FETCH_AND_ADD");
	}
}

static void add_dgram_gid(struct desc_builder *b, uint32_t off)
{
	char text[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, b->wqe + off, text, sizeof(text)))
		snprintf(text, sizeof(text), "?");
	db_add(b, "rgid", off, 16, "%s", text);
}

static void add_dgram(struct desc_builder *b, uint32_t off)
{
	const uint8_t *s = b->wqe + off;
	uint32_t dqp = get_be32(s + 8), gfl = get_be32(s + 28);

	db_segment(b, "datagram");
	db_add(b, "qkey", off, 4, "Q_Key 0x%08" PRIx32, get_be32(s));
	db_add(b, "reserved", off + 4, 4, "reserved");
	db_add(b, "dqp_dct", off + 8, 4, "remote QPN 0x%06" PRIx32 "%s", dqp & MLX5_QPN_MASK,
	    dqp & MLX5_EXTENDED_UD_AV ? ", extended AV" : "");
	db_add(b, "stat_rate_sl", off + 12, 1, "sl %u, static rate %u", (s[12] >> 1) & 7u,
	    s[12] >> 4);
	db_add(b, "fl_mlid", off + 13, 1, "%u", s[13]);
	db_add(b, "rlid", off + 14, 2, "UDP source port %u", get_be16(s + 14));
	db_add(b, "reserved0", off + 16, 4, "reserved");
	db_add(b, "rmac", off + 20, 6, "%02x:%02x:%02x:%02x:%02x:%02x", s[20], s[21], s[22], s[23],
	    s[24], s[25]);
	db_add(b, "tclass", off + 26, 1, "traffic class %u", s[26]);
	db_add(b, "hop_limit", off + 27, 1, "hop limit %u", s[27]);
	db_add(b, "grh_gid_fl", off + 28, 4, "sgid_index %u, flow label 0x%05" PRIx32,
	    (gfl >> 20) & 0xffu, gfl & MLX5_FLOW_LABEL_MASK);
	add_dgram_gid(b, off + 32);
}

static void add_data(struct desc_builder *b, const struct wqe_desc *d, uint32_t off, uint32_t i)
{
	const uint8_t *s = b->wqe + off;

	db_segment(b, "data[%u]", i & 0xffu); /* i < 64 */
	if (catalog_op_is_atomic(d->op))
		db_add(b, "byte_count", off, 4, "%" PRIu32 " B (atomic result)", get_be32(s));
	else
		db_add(b, "byte_count", off, 4, "%" PRIu32 " B", get_be32(s));
	db_add(b, "lkey", off + 4, 4, "lkey 0x%08" PRIx32, get_be32(s + 4));
	db_add(b, "addr", off + 8, 8, "address 0x%" PRIx64, get_be64(s + 8));
}

static void add_inline(struct desc_builder *b, const struct wqe_desc *d, uint32_t off)
{
	uint32_t end = off + MLX5_INL_HDR_BYTES + d->inline_len;

	db_segment(b, "inline");
	db_add(b, "byte_count", off, 4, "inline %" PRIu32 " B", d->inline_len);
	db_add(b, "payload", off + MLX5_INL_HDR_BYTES, d->inline_len, "%" PRIu32 " B of payload",
	    d->inline_len);
	if (d->size > end)
		db_add(b, "pad", end, d->size - end, "%" PRIu32 " B of padding to 16", d->size - end);
}

/* Lays the fields over the bytes; false if they do not fill desc.size. */
static bool add_segments(struct desc_builder *b, const struct wqe_decode_ctx *ctx,
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
	struct desc_builder b = {.wqe = wqe, .order = DB_BE};
	enum wqe_decode_err err;
	bool ok;

	if (!out)
		return WQE_DEC_BAD_FIELD;
	b.field = out->field;
	b.num_fields = &out->num_fields;
	if (fmt != WQE_FORMAT_MLX5 && fmt != WQE_FORMAT_RXE)
		return WQE_DEC_BAD_OPCODE;
	err = wqe_decode(fmt, ctx, wqe, len, &out->desc);
	if (err)
		return err;
	out->num_fields = 0;
	if (fmt == WQE_FORMAT_RXE) {
		b.order = DB_LE; /* host order on the little-endian x86-64 the layout is from */
		ok = rxe_describe_fields(&b, ctx, &out->desc);
	} else {
		ok = add_segments(&b, ctx, &out->desc);
	}
	return ok ? WQE_DEC_OK : WQE_DEC_BAD_SEGMENTS;
}
