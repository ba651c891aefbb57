/* SPDX-License-Identifier: MIT */
/*
 * wqe_describe() on rxe slots: for seeded random requests of every legal
 * case (fmt_gen's case list), the fields tile bytes 0 to desc.size - 1 in
 * order, at the offsets and sizes of the kernel's uapi header
 * <rdma/rdma_user_rxe.h> (the oracle: offsetof/sizeof of struct
 * rxe_send_wqe), every value is its bytes read in the field's own byte
 * order (host order; imm_data and byte arrays big-endian), the values are
 * the request's, and wqe_print_wqe()/wqe_print_desc() print the rxe size
 * line. Malformed slots are refused with the decoder's error.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>

#include <rdma/rdma_user_rxe.h>

#include "fmt_gen.h"
#include "testutil.h"
#include "wqe/model.h"
#include "wqe/text.h"

struct want {
	char seg[24];
	const char *name;
	size_t off;
	size_t len;
};

struct wants {
	struct want w[WQE_FIELD_MAX];
	unsigned int n;
};

static void want(struct wants *ws, const char *seg, const char *name, size_t off, size_t len)
{
	struct want *w = &ws->w[ws->n++];

	snprintf(w->seg, sizeof(w->seg), "%s", seg);
	w->name = name;
	w->off = off;
	w->len = len;
}

/* offset and size of a member of struct rxe_send_wqe */
#define Q(member)   offsetof(struct rxe_send_wqe, member), sizeof(((struct rxe_send_wqe *)0)->member)
#define AV(member)  offsetof(struct rxe_send_wqe, wr.wr.ud.av.member)
#define AVS(member) sizeof(((struct rxe_send_wqe *)0)->wr.wr.ud.av.member)

static const size_t union_end = offsetof(struct rxe_send_wqe, wr) + sizeof(struct rxe_send_wr);

static void want_wr(struct wants *ws, enum wqe_wr_opcode op)
{
	want(ws, "wr", "wr_id", Q(wr.wr_id));
	want(ws, "wr", "reserved", Q(wr.reserved));
	want(ws, "wr", "opcode", Q(wr.opcode));
	want(ws, "wr", "send_flags", Q(wr.send_flags));
	if (op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_RDMA_WRITE_WITH_IMM)
		want(ws, "wr", "imm_data", Q(wr.ex.imm_data));
	else if (op == WQE_WR_SEND_WITH_INV)
		want(ws, "wr", "invalidate_rkey", Q(wr.ex.invalidate_rkey));
	else
		want(ws, "wr", "ex", Q(wr.ex));
}

static void want_unused(struct wants *ws, const char *seg, size_t from)
{
	want(ws, seg, "unused", from, union_end - from);
}

static void want_av(struct wants *ws, uint32_t ah_num)
{
	size_t grh_end = AV(grh) + AVS(grh);

	if (ah_num) {
		want(ws, "av", "av", Q(wr.wr.ud.av));
		return;
	}
	want(ws, "av", "port_num", AV(port_num), AVS(port_num));
	want(ws, "av", "network_type", AV(network_type), AVS(network_type));
	want(ws, "av", "dmac", AV(dmac), AVS(dmac));
	want(ws, "av", "dgid", AV(grh.dgid), AVS(grh.dgid));
	want(ws, "av", "flow_label", AV(grh.flow_label), AVS(grh.flow_label));
	want(ws, "av", "sgid_index", AV(grh.sgid_index), AVS(grh.sgid_index));
	want(ws, "av", "hop_limit", AV(grh.hop_limit), AVS(grh.hop_limit));
	want(ws, "av", "traffic_class", AV(grh.traffic_class), AVS(grh.traffic_class));
	want(ws, "av", "pad", AV(grh.traffic_class) + 1, grh_end - AV(grh.traffic_class) - 1);
	want(ws, "av", "sgid_addr", AV(sgid_addr), AVS(sgid_addr));
	want(ws, "av", "dgid_addr", AV(dgid_addr), AVS(dgid_addr));
}

static void want_union(struct wants *ws, enum wqe_qp_type t, enum wqe_wr_opcode op, uint32_t ah_num)
{
	if (gen_is_atomic(op)) {
		want(ws, "atomic", "remote_addr", Q(wr.wr.atomic.remote_addr));
		want(ws, "atomic", "compare_add", Q(wr.wr.atomic.compare_add));
		want(ws, "atomic", "swap", Q(wr.wr.atomic.swap));
		want(ws, "atomic", "rkey", Q(wr.wr.atomic.rkey));
		want(ws, "atomic", "reserved", Q(wr.wr.atomic.reserved));
		want_unused(ws, "atomic", offsetof(struct rxe_send_wqe, wr.wr.atomic.reserved) + 4);
	} else if (op == WQE_WR_RDMA_WRITE || op == WQE_WR_RDMA_WRITE_WITH_IMM ||
		   op == WQE_WR_RDMA_READ) {
		want(ws, "rdma", "remote_addr", Q(wr.wr.rdma.remote_addr));
		want(ws, "rdma", "rkey", Q(wr.wr.rdma.rkey));
		want(ws, "rdma", "reserved", Q(wr.wr.rdma.reserved));
		want_unused(ws, "rdma", offsetof(struct rxe_send_wqe, wr.wr.rdma.reserved) + 4);
	} else if (t == WQE_QPT_UD) {
		want(ws, "ud", "remote_qpn", Q(wr.wr.ud.remote_qpn));
		want(ws, "ud", "remote_qkey", Q(wr.wr.ud.remote_qkey));
		want(ws, "ud", "pkey_index", Q(wr.wr.ud.pkey_index));
		want(ws, "ud", "reserved", Q(wr.wr.ud.reserved));
		want(ws, "ud", "ah_num", Q(wr.wr.ud.ah_num));
		want(ws, "ud", "pad", Q(wr.wr.ud.pad));
		want_av(ws, ah_num);
	} else {
		want_unused(ws, "union", offsetof(struct rxe_send_wqe, wr.wr));
	}
}

static void want_rest(struct wants *ws, const struct wqe_send_wr *wr, uint32_t inline_len)
{
	want(ws, "progress", "status", Q(status));
	want(ws, "progress", "state", Q(state));
	want(ws, "progress", "iova", Q(iova));
	want(ws, "progress", "mask", Q(mask));
	want(ws, "progress", "first_psn", Q(first_psn));
	want(ws, "progress", "last_psn", Q(last_psn));
	want(ws, "progress", "ack_length", Q(ack_length));
	want(ws, "progress", "ssn", Q(ssn));
	want(ws, "progress", "has_rd_atomic", Q(has_rd_atomic));
	want(ws, "dma", "length", Q(dma.length));
	want(ws, "dma", "resid", Q(dma.resid));
	want(ws, "dma", "cur_sge", Q(dma.cur_sge));
	want(ws, "dma", "num_sge", Q(dma.num_sge));
	want(ws, "dma", "sge_offset", Q(dma.sge_offset));
	want(ws, "dma", "reserved", Q(dma.reserved));
	if (wr->send_flags & WQE_SEND_INLINE) {
		if (inline_len)
			want(ws, "inline", "payload",
			     offsetof(struct rxe_send_wqe, dma.inline_data), inline_len);
		return;
	}
	for (int i = 0; i < wr->num_sge; i++) {
		char seg[24];
		size_t base =
		    offsetof(struct rxe_send_wqe, dma.sge) + (size_t)i * sizeof(struct rxe_sge);

		snprintf(seg, sizeof(seg), "sge[%d]", i);
		want(ws, seg, "addr", base + offsetof(struct rxe_sge, addr), 8);
		want(ws, seg, "length", base + offsetof(struct rxe_sge, length), 4);
		want(ws, seg, "lkey", base + offsetof(struct rxe_sge, lkey), 4);
	}
}

static uint64_t le(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static uint64_t be(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Fields stored as bytes or as a __be32: their value reads big-endian. */
static int big_endian_field(const char *name)
{
	return strcmp(name, "imm_data") == 0 || strcmp(name, "dmac") == 0 ||
	       strcmp(name, "payload") == 0;
}

static struct wqe_description desc;

static const struct wqe_field *find(const char *seg, const char *name)
{
	for (uint32_t i = 0; i < desc.num_fields; i++)
		if (strcmp(desc.field[i].segment, seg) == 0 &&
		    strcmp(desc.field[i].name, name) == 0)
			return &desc.field[i];
	test_fail(__FILE__, __LINE__, "no field %s.%s", seg, name);
	return &desc.field[0];
}

static uint64_t val(const char *seg, const char *name)
{
	return find(seg, name)->value;
}

/* Tiling against the uapi layout, and every value against its bytes. */
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
			CHECK_EQ(f->value, big_endian_field(f->name)
					       ? be(wqe + f->offset, f->length)
					       : le(wqe + f->offset, f->length));
		CHECK(f->meaning[0] != '\0');
	}
	CHECK_EQ(next, desc.desc.size);
}

struct req {
	struct wqe_encode_qp qp;
	struct wqe_send_wr wr;
	struct wqe_sge sge[32];
	struct wqe_ah ah;
	uint32_t inline_len;
};

static uint8_t payload[4096];

static void make_ud(struct test_rng *r, struct req *q)
{
	test_rng_fill(r, q->ah.attr.grh.dgid.raw, 16);
	if (test_rng_below(r, 2)) {
		memset(q->ah.attr.grh.dgid.raw, 0, 10);
		q->ah.attr.grh.dgid.raw[10] = q->ah.attr.grh.dgid.raw[11] = 0xff;
	}
	q->ah.attr.port_num = 1;
	test_rng_fill(r, q->ah.attr.dmac, 6);
	q->ah.attr.grh.flow_label = (uint32_t)test_rng_below(r, 1u << 20);
	q->ah.attr.grh.hop_limit = (uint8_t)test_rng_next(r);
	q->ah.attr.grh.traffic_class = (uint8_t)test_rng_next(r);
	q->ah.attr.grh.sgid_index = (uint8_t)test_rng_below(r, 4);
	q->ah.ah_num = test_rng_below(r, 2) ? (uint32_t)test_rng_below(r, 1000) + 1 : 0;
	q->wr.wr.ud.ah = &q->ah;
	q->wr.wr.ud.remote_qpn = (uint32_t)test_rng_below(r, 1u << 24);
	q->wr.wr.ud.remote_qkey = (uint32_t)test_rng_next(r);
}

static void make(struct test_rng *r, const struct gen_case *c, struct req *q)
{
	struct wqe_qp_cap cap = {16, 16, 1 + (uint32_t)test_rng_below(r, 32), 1,
				 (uint32_t)test_rng_below(r, 513)};
	uint32_t wb, rb, n;
	bool inl = c->flags & WQE_SEND_INLINE;

	memset(q, 0, sizeof(*q));
	CHECK_EQ(wqe_calc_sq(WQE_FORMAT_RXE, c->qpt, &cap, &wb, &rb), 0);
	q->qp = (struct wqe_encode_qp){c->qpt, (uint32_t)test_rng_below(r, 1u << 24),
				       cap.max_send_sge, cap.max_inline_data, c->sig_all};
	q->wr.wr_id = test_rng_next(r);
	q->wr.opcode = c->op;
	q->wr.send_flags = c->flags;
	q->wr.imm_data = (uint32_t)test_rng_next(r);
	n = gen_is_atomic(c->op) ? 1 : (uint32_t)test_rng_below(r, cap.max_send_sge + 1);
	for (uint32_t i = 0, left = cap.max_inline_data; i < n; i++) {
		uint32_t len = gen_is_atomic(c->op) ? 8 : (uint32_t)test_rng_below(r, 300);

		if (inl) {
			len = left ? (uint32_t)test_rng_below(r, left + 1) : 0;
			left -= len;
			q->inline_len += len;
			q->sge[i].addr = (uint64_t)(uintptr_t)(payload + test_rng_below(r, 3000));
		} else {
			q->sge[i].addr = test_rng_next(r);
		}
		q->sge[i].length = len;
		q->sge[i].lkey = (uint32_t)test_rng_next(r);
	}
	q->wr.sg_list = q->sge;
	q->wr.num_sge = (int)n;
	if (c->qpt == WQE_QPT_UD) {
		make_ud(r, q);
	} else if (gen_is_atomic(c->op)) {
		q->wr.wr.atomic.remote_addr = test_rng_next(r) & ~7ull;
		q->wr.wr.atomic.compare_add = test_rng_next(r);
		q->wr.wr.atomic.swap = test_rng_next(r);
		q->wr.wr.atomic.rkey = (uint32_t)test_rng_next(r);
	} else {
		q->wr.wr.rdma.remote_addr = test_rng_next(r);
		q->wr.wr.rdma.rkey = (uint32_t)test_rng_next(r);
	}
}

/* The values are the request's. */
static void check_values(const struct req *q)
{
	const struct wqe_send_wr *wr = &q->wr;
	uint64_t total = 0;

	CHECK_EQ(val("wr", "wr_id"), wr->wr_id);
	CHECK_EQ(val("wr", "opcode"), wr->opcode);
	CHECK_EQ(val("wr", "send_flags"), wr->send_flags);
	if (wr->opcode == WQE_WR_SEND_WITH_INV)
		CHECK_EQ(val("wr", "invalidate_rkey"), wr->invalidate_rkey);
	else if (wr->opcode == WQE_WR_SEND_WITH_IMM || wr->opcode == WQE_WR_RDMA_WRITE_WITH_IMM)
		CHECK_EQ(val("wr", "imm_data"), be((const uint8_t *)&wr->imm_data, 4));
	if (gen_is_atomic(wr->opcode)) {
		CHECK_EQ(val("atomic", "remote_addr"), wr->wr.atomic.remote_addr);
		CHECK_EQ(val("atomic", "compare_add"), wr->wr.atomic.compare_add);
		CHECK_EQ(val("atomic", "swap"), wr->wr.atomic.swap);
		CHECK_EQ(val("atomic", "rkey"), wr->wr.atomic.rkey);
		CHECK_EQ(val("progress", "iova"), wr->wr.atomic.remote_addr);
	} else if (q->qp.qp_type == WQE_QPT_UD) {
		CHECK_EQ(val("ud", "remote_qpn"), wr->wr.ud.remote_qpn);
		CHECK_EQ(val("ud", "remote_qkey"), wr->wr.ud.remote_qkey);
		CHECK_EQ(val("ud", "ah_num"), q->ah.ah_num);
		/* the provider's quirk: iova read through the union is the AH pointer */
		CHECK_EQ(val("progress", "iova"), (uint64_t)(uintptr_t)wr->wr.ud.ah);
		if (!q->ah.ah_num) {
			CHECK_EQ(val("av", "dmac"), be(q->ah.attr.dmac, 6));
			CHECK_EQ(val("av", "flow_label"), q->ah.attr.grh.flow_label);
			CHECK_EQ(val("av", "hop_limit"), q->ah.attr.grh.hop_limit);
			CHECK_EQ(val("av", "traffic_class"), q->ah.attr.grh.traffic_class);
			CHECK_EQ(val("av", "sgid_index"), q->ah.attr.grh.sgid_index);
			CHECK_EQ(val("av", "port_num"), 1);
		}
	} else if (wr->opcode != WQE_WR_SEND && wr->opcode != WQE_WR_SEND_WITH_IMM &&
		   wr->opcode != WQE_WR_SEND_WITH_INV) {
		CHECK_EQ(val("rdma", "remote_addr"), wr->wr.rdma.remote_addr);
		CHECK_EQ(val("rdma", "rkey"), wr->wr.rdma.rkey);
		CHECK_EQ(val("progress", "iova"), wr->wr.rdma.remote_addr);
	}
	CHECK_EQ(val("progress", "state"), 0);
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	CHECK_EQ(val("dma", "length"), total);
	CHECK_EQ(val("dma", "resid"), total);
	CHECK_EQ(val("dma", "num_sge"), wr->num_sge);
	if (wr->send_flags & WQE_SEND_INLINE)
		return;
	for (int i = 0; i < wr->num_sge; i++) {
		char seg[24];

		snprintf(seg, sizeof(seg), "sge[%d]", i);
		CHECK_EQ(val(seg, "addr"), wr->sg_list[i].addr);
		CHECK_EQ(val(seg, "length"), wr->sg_list[i].length);
		CHECK_EQ(val(seg, "lkey"), wr->sg_list[i].lkey);
	}
}

/* wqe_print_wqe() and wqe_print_desc() print the rxe size line. */
static void check_print(const struct wqe_decode_ctx *ctx, const uint8_t *slot, uint32_t bytes)
{
	char want_line[96];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ(wqe_print_wqe(f, WQE_FORMAT_RXE, ctx, slot, bytes), WQE_DEC_OK);
	wqe_print_desc(f, &desc.desc, ctx->qp_type);
	fclose(f);
	snprintf(want_line, sizeof(want_line), "%u bytes used of a %u-byte slot (%u blocks)",
		 desc.desc.size, bytes, bytes / WQE_BLOCK_SIZE);
	CHECK(strstr(buf, want_line) != NULL);
	CHECK(strstr(buf, "ds=") == NULL); /* an rxe WQE has no DS */
	CHECK(strstr(buf, "  wr         bytes 0-23\n") != NULL);
	CHECK(strstr(buf, "  dma        bytes 184-207\n") != NULL);
	free(buf);
}

static void check_refused(const struct wqe_decode_ctx *ctx, const uint8_t *slot, uint32_t bytes)
{
	uint8_t *b = malloc(bytes);

	memcpy(b, slot, bytes);
	b[offsetof(struct rxe_send_wqe, state)] = 1;
	CHECK_EQ(wqe_describe(WQE_FORMAT_RXE, ctx, b, bytes, &desc), WQE_DEC_BAD_FIELD);
	memcpy(b, slot, bytes);
	b[offsetof(struct rxe_send_wqe, wr.opcode)] = 7; /* LOCAL_INV: not modelled */
	CHECK_EQ(wqe_describe(WQE_FORMAT_RXE, ctx, b, bytes, &desc), WQE_DEC_BAD_OPCODE);
	CHECK_EQ(wqe_describe(WQE_FORMAT_RXE, ctx, slot, 207, &desc), WQE_DEC_TRUNCATED);
	CHECK_EQ(wqe_print_wqe(NULL, WQE_FORMAT_RXE, ctx, slot, bytes), WQE_DEC_BAD_FIELD);
	free(b);
}

int main(void)
{
	static struct gen_case cases[GEN_MAX_CASES];
	static struct wants ws;
	static uint8_t slot[1024];
	size_t ncases = gen_cases(cases, GEN_MAX_CASES);
	struct test_rng rng;
	unsigned long n = 0, bytes_described = 0;

	test_rng_seed(&rng, 0xde5c);
	test_rng_fill(&rng, payload, sizeof(payload));
	for (int round = 0; round < 8; round++)
		for (size_t c = 0; c < ncases; c++, n++) {
			struct req q;
			struct wqe_ring_view v = {slot, sizeof(slot) / WQE_BLOCK_SIZE};
			struct wqe_decode_ctx ctx;
			uint32_t nb = 0;
			unsigned long before = test_failures;

			make(&rng, &cases[c], &q);
			CHECK_EQ(wqe_encode(WQE_FORMAT_RXE, &q.qp, &q.wr, &v, 0, 0, &nb), 0);
			ctx = (struct wqe_decode_ctx){q.qp.qp_type, nb * WQE_BLOCK_SIZE, q.qp.qpn};
			CHECK_EQ(wqe_describe(WQE_FORMAT_RXE, &ctx, slot, ctx.max_bytes, &desc),
				 WQE_DEC_OK);
			memset(&ws, 0, sizeof(ws));
			want_wr(&ws, q.wr.opcode);
			want_union(&ws, q.qp.qp_type, q.wr.opcode, q.ah.ah_num);
			want_rest(&ws, &q.wr, q.inline_len);
			check_fields(&ws, slot);
			check_values(&q);
			check_print(&ctx, slot, ctx.max_bytes);
			if (round == 0)
				check_refused(&ctx, slot, ctx.max_bytes);
			bytes_described += desc.desc.size;
			if (test_failures != before)
				fprintf(stderr, "  case %zu: %s op %d flags 0x%x\n", c,
					wqe_qp_type_str(q.qp.qp_type), (int)q.wr.opcode,
					q.wr.send_flags);
		}
	printf("%lu rxe WQEs described, %lu bytes, each field against rdma_user_rxe.h\n", n,
	       bytes_described);
	CHECK(n >= 1000);
	return test_finish();
}
