/* SPDX-License-Identifier: MIT */
/*
 * The three shapes printed for people: the WQE bytes grouped by segment
 * (from wqe_describe()), the decoded WQE, and the software Work Request.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "text/text_int.h"

/* Bytes of a field shown beside its name; longer fields are cut. */
#define FIELD_BYTES_SHOWN 8u

static bool zero_line(const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

void text_print_hex_lines(FILE *f, const uint8_t *p, uint32_t off, uint32_t len,
			  const char *indent, bool squeeze)
{
	bool starred = false;

	for (uint32_t i = 0; i < len; i += 16) {
		if (squeeze && i && i + 16 <= len && zero_line(p + off + i - 16, 32)) {
			if (!starred)
				fprintf(f, "%s*\n", indent);
			starred = true;
			continue;
		}
		starred = false;
		fprintf(f, "%s%04" PRIx32 " ", indent, off + i);
		for (uint32_t j = i; j < len && j < i + 16; j++)
			fprintf(f, "%s%02x", j % 4 == 0 ? "  " : " ", p[off + j]);
		fputc('\n', f);
	}
}

void text_print_field(FILE *f, const struct wqe_field *fd, const uint8_t *wqe)
{
	char bytes[3 * FIELD_BYTES_SHOWN + 4];
	uint32_t shown = fd->length <= FIELD_BYTES_SHOWN ? fd->length : FIELD_BYTES_SHOWN - 2;
	size_t n = 0;

	for (uint32_t i = 0; i < shown; i++)
		n += (size_t)snprintf(bytes + n, sizeof(bytes) - n, "%s%02x", i ? " " : "",
				      wqe[fd->offset + i]);
	if (shown < fd->length)
		snprintf(bytes + n, sizeof(bytes) - n, " ..");
	fprintf(f, "          %4" PRIu32 "  %-13s %-24s %s\n", fd->offset, fd->name, bytes,
		fd->meaning);
}

/* One past the last field of the segment that starts at field @i. */
static uint32_t segment_end(const struct wqe_description *d, uint32_t i)
{
	uint32_t j = i;

	while (j < d->num_fields && strcmp(d->field[j].segment, d->field[i].segment) == 0)
		j++;
	return j;
}

/* "64 bytes, ds=4, 1 block of 64 B" or "236 bytes used of a 512-byte slot
 * (8 blocks)": an rxe WQE has no size of its own, it fills a slot. */
static void print_size(FILE *f, const struct wqe_desc *d)
{
	if (d->format == WQE_FORMAT_RXE)
		fprintf(f, "%" PRIu32 " bytes used of a %u-byte slot (%u block%s)", d->size,
			d->nblocks * WQE_BLOCK_SIZE, d->nblocks, d->nblocks == 1 ? "" : "s");
	else
		fprintf(f, "%" PRIu32 " bytes, ds=%u, %u block%s of %u B", d->size, d->ds,
			d->nblocks, d->nblocks == 1 ? "" : "s", WQE_BLOCK_SIZE);
}

static void print_summary(FILE *f, const struct wqe_desc *d, const uint8_t *wqe)
{
	print_size(f, d);
	if (d->is_inline)
		fprintf(f, "; inline payload of %" PRIu32 " bytes at offset %" PRIu32 "\n",
			d->inline_len, (uint32_t)(d->inline_data - wqe));
	else
		fprintf(f, "; %" PRIu32 " data segment%s naming %" PRIu64 " bytes\n", d->num_sge,
			d->num_sge == 1 ? "" : "s", d->total_len);
}

enum wqe_decode_err wqe_print_wqe(FILE *f, enum wqe_format fmt, const struct wqe_decode_ctx *ctx,
				  const uint8_t *wqe, size_t len)
{
	struct wqe_description d;
	enum wqe_decode_err err;

	if (!f)
		return WQE_DEC_BAD_FIELD;
	err = wqe_describe(fmt, ctx, wqe, len, &d);
	if (err)
		return err;
	for (uint32_t i = 0; i < d.num_fields;) {
		uint32_t end = segment_end(&d, i);
		const struct wqe_field *last = &d.field[end - 1];
		uint32_t start = d.field[i].offset, stop = last->offset + last->length;

		fprintf(f, "  %-10s bytes %" PRIu32 "-%" PRIu32 "\n", d.field[i].segment, start,
			stop - 1);
		text_print_hex_lines(f, wqe, start, stop - start, "    ", fmt == WQE_FORMAT_RXE);
		for (; i < end; i++)
			text_print_field(f, &d.field[i], wqe);
	}
	print_summary(f, &d.desc, wqe);
	return WQE_DEC_OK;
}

static void print_bytes(FILE *f, const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i += 16) {
		fprintf(f, "                 ");
		for (uint64_t j = i; j < n && j < i + 16; j++)
			fprintf(f, " %02x", p[j]);
		fputc('\n', f);
	}
}

static void print_sge(FILE *f, const char *what, uint32_t i, uint64_t addr, uint32_t length,
		      uint32_t lkey)
{
	char label[24];

	snprintf(label, sizeof(label), "%s[%" PRIu32 "]", what, i & 0xffu);
	fprintf(f, "  %-16saddr 0x%016" PRIx64 "  length %" PRIu32 "  lkey 0x%08" PRIx32 "\n",
		label, addr, length, lkey);
}

static void print_gid(FILE *f, const char *label, const union wqe_gid *gid)
{
	char text[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, gid->raw, text, sizeof(text)))
		snprintf(text, sizeof(text), "?");
	fprintf(f, "  %-16s%s%s\n", label, text, wqe_gid_is_v4(gid) ? " (IPv4-mapped)" : "");
}

static void print_mac(FILE *f, const char *label, const uint8_t *m)
{
	fprintf(f, "  %-16s%02x:%02x:%02x:%02x:%02x:%02x\n", label, m[0], m[1], m[2], m[3], m[4],
		m[5]);
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static bool op_has_imm(enum wqe_op op)
{
	return op == WQE_OP_SEND_WITH_IMM || op == WQE_OP_RDMA_WRITE_WITH_IMM;
}

static bool op_is_atomic(enum wqe_op op)
{
	return op == WQE_OP_ATOMIC_CMP_AND_SWP || op == WQE_OP_ATOMIC_FETCH_AND_ADD;
}

static bool op_is_remote(enum wqe_op op)
{
	return op == WQE_OP_RDMA_WRITE || op == WQE_OP_RDMA_WRITE_WITH_IMM ||
	       op == WQE_OP_RDMA_READ || op_is_atomic(op);
}

static void print_desc_ud(FILE *f, const struct wqe_desc_ud *ud)
{
	fprintf(f, "  %-16s0x%08" PRIx32 "\n", "ud.qkey", ud->qkey);
	fprintf(f, "  %-16s0x%06" PRIx32 "\n", "ud.dqpn", ud->dqpn);
	fprintf(f, "  %-16s%u\n", "ud.udp_sport", ud->udp_sport);
	fprintf(f, "  %-16s%u\n", "ud.sl", ud->sl);
	print_mac(f, "ud.dmac", ud->dmac);
	fprintf(f, "  %-16s%u\n", "ud.tclass", ud->tclass);
	fprintf(f, "  %-16s%u\n", "ud.hop_limit", ud->hop_limit);
	fprintf(f, "  %-16s%u\n", "ud.sgid_index", ud->sgid_index);
	fprintf(f, "  %-16s0x%05" PRIx32 "\n", "ud.flow_label", ud->flow_label);
	print_gid(f, "ud.dgid", &ud->dgid);
}

/* rxe with an address-handle number: the WQE carries no address. */
static void print_desc_ah_num(FILE *f, const struct wqe_desc_ud *ud)
{
	fprintf(f, "  %-16s0x%08" PRIx32 "\n", "ud.qkey", ud->qkey);
	fprintf(f, "  %-16s0x%06" PRIx32 "\n", "ud.dqpn", ud->dqpn);
	fprintf(f, "  %-16s%" PRIu32 " (the address is in the NIC's AH table, not the WQE)\n",
		"ud.ah_num", ud->ah_num);
}

static void print_desc_data(FILE *f, const struct wqe_desc *d)
{
	if (d->is_inline) {
		fprintf(f, "  %-16s%" PRIu32 " bytes, copied in the WQE (no lkey to check)\n",
			"inline_len", d->inline_len);
		if (d->inline_data)
			print_bytes(f, d->inline_data, d->inline_len);
	} else {
		fprintf(f, "  %-16s%" PRIu32 "\n", "num_sge", d->num_sge);
		for (uint32_t i = 0; i < d->num_sge && i < WQE_DESC_MAX_SGE; i++)
			print_sge(f, "sge", i, d->sge[i].addr, d->sge[i].length, d->sge[i].lkey);
	}
	fprintf(f, "  %-16s%" PRIu64 "\n", "total_len", d->total_len);
}

void wqe_print_desc(FILE *f, const struct wqe_desc *d, enum wqe_qp_type t)
{
	if (!f || !d)
		return;
	fprintf(f, "  %-16s%s\n", "format", wqe_format_str(d->format));
	fprintf(f, "  %-16s%s%s%s\n", "op", wqe_op_str(d->op),
		wqe_op_legal(d->op, t) ? "" : ": not legal on ", wqe_op_legal(d->op, t) ? "" :
		wqe_qp_type_str(t));
	if (d->format == WQE_FORMAT_RXE) {
		fprintf(f, "  %-16s0x%06" PRIx32 " (the QP's: rxe WQEs do not carry it)\n", "qpn",
			d->qpn);
		fprintf(f, "  %-16s- (rxe WQEs carry none: the slot is the index)\n", "wqe_index");
		fprintf(f, "  %-16s", "size");
		print_size(f, d);
		fputc('\n', f);
	} else {
		fprintf(f, "  %-16s0x%06" PRIx32 "\n", "qpn", d->qpn);
		fprintf(f, "  %-16s%u\n", "wqe_index", d->wqe_index);
		fprintf(f, "  %-16s%" PRIu32 " B (ds=%u, %u block%s)\n", "size", d->size, d->ds,
			d->nblocks, d->nblocks == 1 ? "" : "s");
	}
	fprintf(f, "  %-16sfence %s, signaled %s, solicited %s, inline %s\n", "flags",
		yes_no(d->fence), yes_no(d->signaled), yes_no(d->solicited), yes_no(d->is_inline));
	if (op_has_imm(d->op))
		fprintf(f, "  %-16s0x%08" PRIx32 " (the bytes ImmDt carries)\n", "imm", d->imm);
	else if (d->op == WQE_OP_SEND_WITH_INV)
		fprintf(f, "  %-16s0x%08" PRIx32 " (rkey to invalidate)\n", "imm", d->imm);
	if (op_is_remote(d->op) && t != WQE_QPT_UD) {
		fprintf(f, "  %-16s0x%016" PRIx64 "\n", "remote_addr", d->remote_addr);
		fprintf(f, "  %-16s0x%08" PRIx32 "\n", "rkey", d->rkey);
	}
	if (d->op == WQE_OP_ATOMIC_CMP_AND_SWP) {
		fprintf(f, "  %-16s0x%016" PRIx64 " (swap)\n", "swap_add", d->swap_add);
		fprintf(f, "  %-16s0x%016" PRIx64 "\n", "compare", d->compare);
	} else if (d->op == WQE_OP_ATOMIC_FETCH_AND_ADD) {
		fprintf(f, "  %-16s0x%016" PRIx64 " (add)\n", "swap_add", d->swap_add);
	}
	if (t == WQE_QPT_UD && d->format == WQE_FORMAT_RXE && d->ud.ah_num)
		print_desc_ah_num(f, &d->ud);
	else if (t == WQE_QPT_UD)
		print_desc_ud(f, &d->ud);
	print_desc_data(f, d);
}

static bool wr_is_atomic(enum wqe_wr_opcode op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

static bool wr_is_send(enum wqe_wr_opcode op)
{
	return op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_SEND_WITH_INV;
}

static void print_send_flags(FILE *f, unsigned int flags)
{
	const char *sep = "";

	fprintf(f, "  %-16s", "send_flags");
	for (unsigned int bit = 1; bit <= WQE_SEND_INLINE; bit <<= 1) {
		if (!(flags & bit))
			continue;
		fprintf(f, "%s%s", sep, wqe_send_flags_str((enum wqe_send_flags)bit));
		sep = "|";
	}
	if (flags & ~(unsigned int)(2 * WQE_SEND_INLINE - 1))
		fprintf(f, "%sunknown bits", sep);
	fprintf(f, "%s(0x%x)%s\n", flags ? " " : "none ", flags,
		flags & WQE_SEND_SIGNALED ? "" : ", unsignaled");
}

static void print_wr_sges(FILE *f, const struct wqe_send_wr *wr)
{
	uint64_t total = 0;

	fprintf(f, "  %-16s%d\n", "num_sge", wr->num_sge);
	for (int i = 0; wr->sg_list && i < wr->num_sge; i++) {
		print_sge(f, "sg_list", (uint32_t)i, wr->sg_list[i].addr, wr->sg_list[i].length,
			  wr->sg_list[i].lkey);
		total += wr->sg_list[i].length;
	}
	if (!(wr->send_flags & WQE_SEND_INLINE) || !wr->sg_list)
		return;
	fprintf(f, "  %-16s%" PRIu64 " bytes read through sg_list at post time (lkeys unused)\n",
		"inline", total);
	for (int i = 0; i < wr->num_sge; i++) {
		const uint8_t *src = (const uint8_t *)(uintptr_t)wr->sg_list[i].addr;

		if (src)
			print_bytes(f, src, wr->sg_list[i].length);
	}
}

static void print_wr_imm(FILE *f, const struct wqe_send_wr *wr)
{
	const uint8_t *b = (const uint8_t *)&wr->imm_data;

	if (wr->opcode == WQE_WR_SEND_WITH_IMM || wr->opcode == WQE_WR_RDMA_WRITE_WITH_IMM)
		fprintf(f, "  %-16sbytes %02x %02x %02x %02x (network order)\n", "imm_data", b[0],
			b[1], b[2], b[3]);
	else if (wr->opcode == WQE_WR_SEND_WITH_INV)
		fprintf(f, "  %-16s0x%08" PRIx32 "\n", "invalidate_rkey", wr->invalidate_rkey);
}

static void print_wr_ud(FILE *f, const struct wqe_send_wr *wr)
{
	const struct wqe_ah *ah = wr->wr.ud.ah;

	fprintf(f, "  %-16s0x%06" PRIx32 "\n", "ud.remote_qpn", wr->wr.ud.remote_qpn);
	fprintf(f, "  %-16s0x%08" PRIx32 "\n", "ud.remote_qkey", wr->wr.ud.remote_qkey);
	if (!ah) {
		fprintf(f, "  %-16sNULL\n", "ud.ah");
		return;
	}
	print_gid(f, "ah.dgid", &ah->attr.grh.dgid);
	print_mac(f, "ah.dmac", ah->attr.dmac);
	fprintf(f, "  %-16s%u\n", "ah.udp_sport", ah->attr.udp_sport);
	fprintf(f, "  %-16s%u\n", "ah.sl", ah->attr.sl);
	fprintf(f, "  %-16s%u\n", "ah.tclass", ah->attr.grh.traffic_class);
	fprintf(f, "  %-16s%u%s\n", "ah.hop_limit", ah->attr.grh.hop_limit,
		ah->attr.grh.hop_limit ? "" : " (64 on the wire)");
	fprintf(f, "  %-16s0x%05" PRIx32 "\n", "ah.flow_label", ah->attr.grh.flow_label);
	fprintf(f, "  %-16s%u\n", "ah.sgid_index", ah->attr.grh.sgid_index);
}

static void print_wr_remote(FILE *f, const struct wqe_send_wr *wr, enum wqe_qp_type t)
{
	if (wr_is_atomic(wr->opcode)) {
		fprintf(f, "  %-16s0x%016" PRIx64 "\n", "remote_addr", wr->wr.atomic.remote_addr);
		fprintf(f, "  %-16s0x%08" PRIx32 "\n", "rkey", wr->wr.atomic.rkey);
		fprintf(f, "  %-16s0x%016" PRIx64 "%s\n", "compare_add", wr->wr.atomic.compare_add,
			wr->opcode == WQE_WR_ATOMIC_CMP_AND_SWP ? " (compare)" : " (add)");
		if (wr->opcode == WQE_WR_ATOMIC_CMP_AND_SWP)
			fprintf(f, "  %-16s0x%016" PRIx64 "\n", "swap", wr->wr.atomic.swap);
	} else if (!wr_is_send(wr->opcode)) {
		fprintf(f, "  %-16s0x%016" PRIx64 "\n", "remote_addr", wr->wr.rdma.remote_addr);
		fprintf(f, "  %-16s0x%08" PRIx32 "\n", "rkey", wr->wr.rdma.rkey);
	} else if (t == WQE_QPT_UD) {
		print_wr_ud(f, wr);
	}
}

int wqe_print_send_wr(FILE *f, const struct wqe_send_wr *wr, enum wqe_qp_type t)
{
	if (!f || !wr)
		return EINVAL;
	fprintf(f, "  %-16s%" PRIu64 "\n", "wr_id", wr->wr_id);
	fprintf(f, "  %-16s%s\n", "next", wr->next ? "set (another request follows)" : "NULL");
	fprintf(f, "  %-16s%s (%d)\n", "opcode", wqe_wr_opcode_str(wr->opcode), (int)wr->opcode);
	print_send_flags(f, wr->send_flags);
	print_wr_sges(f, wr);
	print_wr_imm(f, wr);
	print_wr_remote(f, wr, t);
	return 0;
}
