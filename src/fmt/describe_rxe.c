/* SPDX-License-Identifier: MIT */
/*
 * describe_rxe.c - an rxe slot (struct rxe_send_wqe) broken down field by
 * field for wqe_describe(): the rxe_send_wr the provider copies from the
 * verbs Work Request, the union member its opcode uses, the progress fields
 * the driver owns, the dma cursor, then the SGE array or the inline bytes.
 * Offsets: fmt/rxe.h (rocev2-wire-and-rxe.md section 5). Integers are host
 * order (little-endian); imm_data is a __be32 and byte arrays read as bytes.
 * The union member is chosen by the decoder's own rule (rxe_decode.c), so
 * the two cannot disagree.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "common/bytes.h"
#include "fmt/describe.h"
#include "fmt/rxe.h"
#include "tables/catalog.h"

enum {
	RXE_UNION_END = RXE_WR_BYTES, /* the 120-byte wr union ends the rxe_send_wr */
	RXE_AV_GRH_PAD = 31,	      /* the byte after traffic_class (grh is 24 B) */
	AF_INET_HOST = 2,	      /* sa_family values as Linux stores them */
	AF_INET6_HOST = 10,
};

static const char *ib_wr_name(uint32_t opc)
{
	switch (opc) {
	case WQE_WR_RDMA_WRITE:
		return "IB_WR_RDMA_WRITE";
	case WQE_WR_RDMA_WRITE_WITH_IMM:
		return "IB_WR_RDMA_WRITE_WITH_IMM";
	case WQE_WR_SEND:
		return "IB_WR_SEND";
	case WQE_WR_SEND_WITH_IMM:
		return "IB_WR_SEND_WITH_IMM";
	case WQE_WR_RDMA_READ:
		return "IB_WR_RDMA_READ";
	case WQE_WR_ATOMIC_CMP_AND_SWP:
		return "IB_WR_ATOMIC_CMP_AND_SWP";
	case WQE_WR_ATOMIC_FETCH_AND_ADD:
		return "IB_WR_ATOMIC_FETCH_AND_ADD";
	case WQE_WR_SEND_WITH_INV:
		return "IB_WR_SEND_WITH_INV";
	}
	return "unknown";
}

static void send_flag_names(uint32_t v, char *buf, size_t cap)
{
	static const char *const names[] = {"FENCE", "SIGNALED", "SOLICITED", "INLINE"};
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < 4; i++)
		if (v & (1u << i))
			n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "|" : "", names[i]);
	if (!v)
		snprintf(buf, cap, "none (signaled only by sq_sig_all)");
}

static bool op_uses_rdma(enum wqe_op op)
{
	return op == WQE_OP_RDMA_WRITE || op == WQE_OP_RDMA_WRITE_WITH_IMM ||
	       op == WQE_OP_RDMA_READ;
}

static void add_wr(struct desc_builder *b, const struct wqe_desc *d)
{
	const uint8_t *w = b->wqe;
	uint32_t opc = get_le32(w + RXE_WR_OPCODE);
	char flags[48];

	db_segment(b, "wr");
	db_add(b, "wr_id", RXE_WR_ID, 8, "wr_id %" PRIu64 " (in the WQE: the CQE copies it)",
	       get_le64(w + RXE_WR_ID));
	db_add(b, "reserved", RXE_WR_RESERVED, 4, "reserved (srq_num in newer headers)");
	db_add(b, "opcode", RXE_WR_OPCODE, 4, "%s (%" PRIu32 ")", ib_wr_name(opc), opc);
	send_flag_names(get_le32(w + RXE_WR_SEND_FLAGS), flags, sizeof(flags));
	db_add(b, "send_flags", RXE_WR_SEND_FLAGS, 4, "%s", flags);
	if (catalog_op_has_imm(d->op))
		db_add_order(b, DB_BE, "imm_data", RXE_WR_EX, 4,
			     "immediate %02x %02x %02x %02x (__be32)", w[RXE_WR_EX],
			     w[RXE_WR_EX + 1], w[RXE_WR_EX + 2], w[RXE_WR_EX + 3]);
	else if (d->op == WQE_OP_SEND_WITH_INV)
		db_add(b, "invalidate_rkey", RXE_WR_EX, 4, "invalidate rkey 0x%08" PRIx32, d->imm);
	else
		db_add(b, "ex", RXE_WR_EX, 4, "unused (imm_data / invalidate_rkey)");
}

static void add_unused(struct desc_builder *b, uint32_t off, const char *why)
{
	if (off < RXE_UNION_END)
		db_add(b, "unused", off, RXE_UNION_END - off, "%u B %s", RXE_UNION_END - off, why);
}

static void add_rdma(struct desc_builder *b)
{
	const uint8_t *w = b->wqe;

	db_segment(b, "rdma");
	db_add(b, "remote_addr", RXE_WR_RDMA_ADDR, 8, "remote address 0x%" PRIx64,
	       get_le64(w + RXE_WR_RDMA_ADDR));
	db_add(b, "rkey", RXE_WR_RDMA_RKEY, 4, "rkey 0x%08" PRIx32, get_le32(w + RXE_WR_RDMA_RKEY));
	db_add(b, "reserved", RXE_WR_RDMA_RKEY + 4, 4, "reserved");
	add_unused(b, RXE_WR_RDMA_RKEY + 8, "of the wr union, unused by rdma");
}

static void add_atomic(struct desc_builder *b, const struct wqe_desc *d)
{
	const uint8_t *w = b->wqe;
	uint64_t ca = get_le64(w + RXE_WR_ATOMIC_COMPARE_ADD),
		 swap = get_le64(w + RXE_WR_ATOMIC_SWAP);

	db_segment(b, "atomic");
	db_add(b, "remote_addr", RXE_WR_ATOMIC_ADDR, 8, "remote address 0x%" PRIx64,
	       get_le64(w + RXE_WR_ATOMIC_ADDR));
	if (d->op == WQE_OP_ATOMIC_CMP_AND_SWP) {
		db_add(b, "compare_add", RXE_WR_ATOMIC_COMPARE_ADD, 8, "compare 0x%" PRIx64, ca);
		db_add(b, "swap", RXE_WR_ATOMIC_SWAP, 8, "swap 0x%" PRIx64, swap);
	} else {
		db_add(b, "compare_add", RXE_WR_ATOMIC_COMPARE_ADD, 8, "add %" PRIu64, ca);
		db_add(b, "swap", RXE_WR_ATOMIC_SWAP, 8, "unused by FETCH_AND_ADD");
	}
	db_add(b, "rkey", RXE_WR_ATOMIC_RKEY, 4, "rkey 0x%08" PRIx32,
	       get_le32(w + RXE_WR_ATOMIC_RKEY));
	db_add(b, "reserved", RXE_WR_ATOMIC_RKEY + 4, 4, "reserved");
	add_unused(b, RXE_WR_ATOMIC_RKEY + 8, "of the wr union, unused by atomic");
}

/* A sockaddr_in / sockaddr_in6 as rdma_gid2ip() fills it (28 bytes). */
static void add_sockaddr(struct desc_builder *b, const char *name, uint32_t off)
{
	const uint8_t *s = b->wqe + off;
	uint16_t family = get_le16(s);
	char text[INET6_ADDRSTRLEN];

	if (family == AF_INET_HOST && inet_ntop(AF_INET, s + 4, text, sizeof(text)))
		db_add(b, name, off, 28, "sockaddr_in %s", text);
	else if (family == AF_INET6_HOST && inet_ntop(AF_INET6, s + 8, text, sizeof(text)))
		db_add(b, name, off, 28, "sockaddr_in6 %s", text);
	else
		db_add(b, name, off, 28, "sa_family %u", family);
}

/* struct rxe_av: the whole address, carried when ah_num is 0. */
static void add_av(struct desc_builder *b, const struct wqe_desc *d)
{
	const uint8_t *av = b->wqe + RXE_WR_UD_AV;
	const uint32_t o = RXE_WR_UD_AV;
	char gid[INET6_ADDRSTRLEN];

	db_segment(b, "av");
	if (d->ud.ah_num) {
		db_add(b, "av", o, RXE_AV_BYTES, "unused: the NIC looks up AH %" PRIu32,
		       d->ud.ah_num);
		return;
	}
	db_add(b, "port_num", o + RXE_AV_PORT, 1, "port %u", av[RXE_AV_PORT]);
	db_add(b, "network_type", o + RXE_AV_NETWORK_TYPE, 1, "%u = %s", av[RXE_AV_NETWORK_TYPE],
	       av[RXE_AV_NETWORK_TYPE] == RXE_NETWORK_IPV4   ? "IPv4"
	       : av[RXE_AV_NETWORK_TYPE] == RXE_NETWORK_IPV6 ? "IPv6"
							     : "unknown");
	db_add_order(b, DB_BE, "dmac", o + RXE_AV_DMAC, 6, "%02x:%02x:%02x:%02x:%02x:%02x", av[2],
		     av[3], av[4], av[5], av[6], av[7]);
	if (!inet_ntop(AF_INET6, av + RXE_AV_DGID, gid, sizeof(gid)))
		snprintf(gid, sizeof(gid), "?");
	db_add(b, "dgid", o + RXE_AV_DGID, 16, "%s", gid);
	db_add(b, "flow_label", o + RXE_AV_FLOW_LABEL, 4, "flow label 0x%05" PRIx32,
	       get_le32(av + RXE_AV_FLOW_LABEL));
	db_add(b, "sgid_index", o + RXE_AV_SGID_INDEX, 1, "sgid_index %u", av[RXE_AV_SGID_INDEX]);
	db_add(b, "hop_limit", o + RXE_AV_HOP_LIMIT, 1, "hop limit %u", av[RXE_AV_HOP_LIMIT]);
	db_add(b, "traffic_class", o + RXE_AV_TCLASS, 1, "traffic class %u", av[RXE_AV_TCLASS]);
	db_add(b, "pad", o + RXE_AV_GRH_PAD, 1, "padding of the grh");
	add_sockaddr(b, "sgid_addr", o + RXE_AV_SGID_ADDR);
	add_sockaddr(b, "dgid_addr", o + RXE_AV_DGID_ADDR);
}

static void add_ud(struct desc_builder *b, const struct wqe_desc *d)
{
	const uint8_t *w = b->wqe;

	db_segment(b, "ud");
	db_add(b, "remote_qpn", RXE_WR_UD_QPN, 4, "remote QPN 0x%06" PRIx32, d->ud.dqpn);
	db_add(b, "remote_qkey", RXE_WR_UD_QKEY, 4, "Q_Key 0x%08" PRIx32, d->ud.qkey);
	db_add(b, "pkey_index", RXE_WR_UD_PKEY_INDEX, 2, "P_Key index %u (GSI only)",
	       get_le16(w + RXE_WR_UD_PKEY_INDEX));
	db_add(b, "reserved", RXE_WR_UD_PKEY_INDEX + 2, 2, "reserved");
	db_add(b, "ah_num", RXE_WR_UD_AH_NUM, 4,
	       d->ud.ah_num ? "AH %" PRIu32 " in the NIC's table" : "%" PRIu32 ": av below",
	       d->ud.ah_num);
	db_add(b, "pad", RXE_WR_UD_AH_NUM + 4, RXE_WR_UD_AV - RXE_WR_UD_AH_NUM - 4, "padding");
	add_av(b, d);
}

/* The wr union, by the decoder's rule: atomic, rdma, else ud on a UD QP. */
static void add_union(struct desc_builder *b, const struct wqe_decode_ctx *ctx,
		      const struct wqe_desc *d)
{
	if (catalog_op_is_atomic(d->op)) {
		add_atomic(b, d);
	} else if (op_uses_rdma(d->op)) {
		add_rdma(b);
	} else if (ctx->qp_type == WQE_QPT_UD) {
		add_ud(b, d);
	} else {
		db_segment(b, "union");
		add_unused(b, RXE_WR_RDMA_ADDR, "of the wr union, unused by a SEND on RC/UC");
	}
}

static void add_progress(struct desc_builder *b, const struct wqe_decode_ctx *ctx,
			 const struct wqe_desc *d)
{
	uint64_t iova = get_le64(b->wqe + RXE_IOVA);

	db_segment(b, "progress");
	db_add(b, "status", RXE_STATUS, 4, "%" PRIu32 " (the driver's ib_wc_status)",
	       get_le32(b->wqe + RXE_STATUS));
	db_add(b, "state", RXE_STATE, 4, "%" PRIu32 " = posted", get_le32(b->wqe + RXE_STATE));
	if (catalog_op_is_atomic(d->op) || op_uses_rdma(d->op))
		db_add(b, "iova", RXE_IOVA, 8, "0x%" PRIx64 ": remote address cursor", iova);
	else if (ctx->qp_type == WQE_QPT_UD)
		db_add(b, "iova", RXE_IOVA, 8, "0x%" PRIx64 ": wr.ud.ah pointer (provider quirk)",
		       iova);
	else
		db_add(b, "iova", RXE_IOVA, 8, "0x%" PRIx64 " (not read for a SEND)", iova);
	db_add(b, "mask", RXE_MASK, 4, "0x%" PRIx32 " (driver: WR_*_MASK)",
	       get_le32(b->wqe + RXE_MASK));
	db_add(b, "first_psn", RXE_FIRST_PSN, 4, "%" PRIu32 " (driver)",
	       get_le32(b->wqe + RXE_FIRST_PSN));
	db_add(b, "last_psn", RXE_LAST_PSN, 4, "%" PRIu32 " (driver)",
	       get_le32(b->wqe + RXE_LAST_PSN));
	db_add(b, "ack_length", RXE_ACK_LENGTH, 4, "%" PRIu32 " (driver)",
	       get_le32(b->wqe + RXE_ACK_LENGTH));
	db_add(b, "ssn", RXE_SSN, 4, "%" PRIu32 " (kernel posts number it)",
	       get_le32(b->wqe + RXE_SSN));
	db_add(b, "has_rd_atomic", RXE_HAS_RD_ATOMIC, 4, "%" PRIu32 " (driver)",
	       get_le32(b->wqe + RXE_HAS_RD_ATOMIC));
}

static void add_dma(struct desc_builder *b, const struct wqe_desc *d)
{
	const uint8_t *w = b->wqe;

	db_segment(b, "dma");
	db_add(b, "length", RXE_DMA_LENGTH, 4, "%" PRIu32 " B in all",
	       get_le32(w + RXE_DMA_LENGTH));
	db_add(b, "resid", RXE_DMA_RESID, 4, "%" PRIu32 " B left (nothing sent yet)",
	       get_le32(w + RXE_DMA_RESID));
	db_add(b, "cur_sge", RXE_DMA_CUR_SGE, 4, "%" PRIu32 " (cursor)",
	       get_le32(w + RXE_DMA_CUR_SGE));
	db_add(b, "num_sge", RXE_DMA_NUM_SGE, 4, "%" PRIu32 " SGE%s%s",
	       get_le32(w + RXE_DMA_NUM_SGE), get_le32(w + RXE_DMA_NUM_SGE) == 1 ? "" : "s",
	       d->is_inline ? " named (payload copied inline)" : "");
	db_add(b, "sge_offset", RXE_DMA_SGE_OFFSET, 4, "%" PRIu32 " (cursor)",
	       get_le32(w + RXE_DMA_SGE_OFFSET));
	db_add(b, "reserved", RXE_DMA_RESERVED, 4, "reserved");
}

static void add_body(struct desc_builder *b, const struct wqe_desc *d)
{
	if (d->is_inline) {
		if (!d->inline_len)
			return;
		db_segment(b, "inline");
		db_add_order(b, DB_BE, "payload", RXE_WQE_FIXED, d->inline_len,
			     "%" PRIu32 " B of payload", d->inline_len);
		return;
	}
	for (uint32_t i = 0; i < d->num_sge; i++) {
		uint32_t off = RXE_WQE_FIXED + i * RXE_SGE_BYTES;
		const uint8_t *s = b->wqe + off;

		db_segment(b, "sge[%u]", i & 0xffu); /* i < WQE_DESC_MAX_SGE */
		db_add(b, "addr", off, 8, "address 0x%" PRIx64, get_le64(s));
		db_add(b, "length", off + 8, 4, "%" PRIu32 " B%s", get_le32(s + 8),
		       catalog_op_is_atomic(d->op) ? " (atomic result)" : "");
		db_add(b, "lkey", off + 12, 4, "lkey 0x%08" PRIx32, get_le32(s + 12));
	}
}

bool rxe_describe_fields(struct desc_builder *b, const struct wqe_decode_ctx *ctx,
			 const struct wqe_desc *d)
{
	const struct wqe_field *last;

	add_wr(b, d);
	add_union(b, ctx, d);
	add_progress(b, ctx, d);
	add_dma(b, d);
	add_body(b, d);
	last = &b->field[*b->num_fields - 1];
	return last->offset + last->length == d->size;
}
