/* SPDX-License-Identifier: MIT */
/*
 * The one-line Work Request text form: the formatter, the inverse of
 * wqe_parse_send_wr() and wqe_parse_recv_wr() (see wqe/text.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "text/text_int.h"

/* An snprintf-style appender: counts what it would write past @cap. */
struct out {
	char *buf;
	size_t cap;
	size_t len;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
	char *dst = o->len < o->cap ? o->buf + o->len : NULL;
	size_t room = o->len < o->cap ? o->cap - o->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put_key(struct out *o, enum text_key k, uint64_t v, int hex)
{
	if (hex)
		put(o, " %s=0x%" PRIx64, text_keys[k].name, v);
	else
		put(o, " %s=%" PRIu64, text_keys[k].name, v);
}

static void put_sges(struct out *o, const struct wqe_send_wr *wr)
{
	for (int i = 0; i < wr->num_sge; i++)
		put(o, " sge=0x%" PRIx64 ":%" PRIu32 ":0x%" PRIx32, wr->sg_list[i].addr,
		    wr->sg_list[i].length, wr->sg_list[i].lkey);
}

static int inline_total(const struct wqe_send_wr *wr, uint64_t *total)
{
	*total = 0;
	for (int i = 0; i < wr->num_sge; i++)
		*total += wr->sg_list[i].length;
	return *total > WQE_TEXT_MAX_INLINE ? -EINVAL : 0;
}

/* The inline payload the SGEs name, read from memory as the post path reads it. */
static void put_inline(struct out *o, const struct wqe_send_wr *wr)
{
	put(o, " inline=");
	for (int i = 0; i < wr->num_sge; i++) {
		const uint8_t *src = (const uint8_t *)(uintptr_t)wr->sg_list[i].addr;

		for (uint32_t j = 0; j < wr->sg_list[i].length; j++)
			put(o, "%02x", src[j]);
	}
}

static int is_atomic(enum wqe_wr_opcode op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

static void put_remote(struct out *o, const struct wqe_send_wr *wr, uint32_t keys)
{
	int atomic = is_atomic(wr->opcode);
	uint32_t imm_be;

	if (keys & TK_BIT(TK_RADDR)) {
		put_key(o, TK_RADDR, atomic ? wr->wr.atomic.remote_addr : wr->wr.rdma.remote_addr,
			1);
		put_key(o, TK_RKEY, atomic ? wr->wr.atomic.rkey : wr->wr.rdma.rkey, 1);
	}
	if (keys & TK_BIT(TK_IMM)) {
		const uint8_t *b = (const uint8_t *)&wr->imm_data;

		imm_be = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
		put(o, " imm=0x%08" PRIx32, imm_be);
	}
	if (keys & TK_BIT(TK_INV))
		put_key(o, TK_INV, wr->invalidate_rkey, 1);
	if (keys & TK_BIT(TK_SWAP))
		put_key(o, TK_SWAP, wr->wr.atomic.swap, 1);
	if (keys & TK_BIT(TK_COMPARE))
		put_key(o, TK_COMPARE, wr->wr.atomic.compare_add, 1);
	if (keys & TK_BIT(TK_ADD))
		put_key(o, TK_ADD, wr->wr.atomic.compare_add, 1);
}

static void put_gid(struct out *o, const union wqe_gid *gid)
{
	char text[INET6_ADDRSTRLEN];
	static const union wqe_gid zero;

	if (memcmp(gid, &zero, sizeof(zero)) == 0)
		return;
	if (wqe_gid_is_v4(gid))
		inet_ntop(AF_INET, gid->raw + 12, text, sizeof(text));
	else
		inet_ntop(AF_INET6, gid->raw, text, sizeof(text));
	put(o, " dgid=%s", text);
}

static void put_ud(struct out *o, const struct wqe_send_wr *wr)
{
	const struct wqe_ah_attr *a;
	static const uint8_t zero_mac[6];

	put(o, " dqpn=0x%06" PRIx32 " qkey=0x%" PRIx32, wr->wr.ud.remote_qpn,
	    wr->wr.ud.remote_qkey);
	if (!wr->wr.ud.ah)
		return;
	a = &wr->wr.ud.ah->attr;
	if (a->udp_sport)
		put_key(o, TK_SPORT, a->udp_sport, 0);
	put_gid(o, &a->grh.dgid);
	if (memcmp(a->dmac, zero_mac, 6) != 0)
		put(o, " dmac=%02x:%02x:%02x:%02x:%02x:%02x", a->dmac[0], a->dmac[1], a->dmac[2],
		    a->dmac[3], a->dmac[4], a->dmac[5]);
	if (a->grh.hop_limit)
		put_key(o, TK_HOP, a->grh.hop_limit, 0);
	if (a->grh.traffic_class)
		put_key(o, TK_TCLASS, a->grh.traffic_class, 0);
	if (a->grh.flow_label)
		put_key(o, TK_FLOW, a->grh.flow_label, 1);
	if (a->sl)
		put_key(o, TK_SL, a->sl, 0);
	if (a->grh.sgid_index)
		put_key(o, TK_SGID_INDEX, a->grh.sgid_index, 0);
}

static void put_flags(struct out *o, unsigned int flags)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{WQE_SEND_FENCE, "fence"},
		{WQE_SEND_SIGNALED, "signaled"},
		{WQE_SEND_SOLICITED, "solicited"},
	};
	const char *sep = " flags=";

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].bit))
			continue;
		put(o, "%s%s", sep, names[i].name);
		sep = ",";
	}
}

static int check_wr(const struct wqe_send_wr *wr, const struct text_opcode *op)
{
	unsigned int known = WQE_SEND_FENCE | WQE_SEND_SIGNALED | WQE_SEND_SOLICITED |
			     WQE_SEND_INLINE;
	uint64_t total;

	if (!op || (wr->send_flags & ~known))
		return -EINVAL;
	if (wr->num_sge < 0 || (unsigned int)wr->num_sge > WQE_DESC_MAX_SGE)
		return -EINVAL;
	if (wr->num_sge > 0 && !wr->sg_list)
		return -EINVAL;
	if ((wr->send_flags & WQE_SEND_INLINE) && inline_total(wr, &total))
		return -EINVAL;
	return 0;
}

int wqe_format_send_wr(const struct wqe_send_wr *wr, enum wqe_qp_type t, char *buf, size_t cap)
{
	const struct text_opcode *op = wr ? text_opcode_find(wr->opcode) : NULL;
	struct out o = {.buf = buf, .cap = buf ? cap : 0, .len = 0};
	uint32_t keys;

	if (o.cap)
		buf[0] = '\0';
	if (!wr || check_wr(wr, op))
		return -EINVAL;
	keys = op->keys;
	if (t != WQE_QPT_UD)
		keys &= ~(uint32_t)TK_UD;
	put(&o, "%s", op->name);
	if (wr->wr_id)
		put_key(&o, TK_ID, wr->wr_id, 0);
	put_remote(&o, wr, keys);
	if (keys & TK_BIT(TK_DQPN))
		put_ud(&o, wr);
	if (wr->send_flags & WQE_SEND_INLINE)
		put_inline(&o, wr);
	else
		put_sges(&o, wr);
	put_flags(&o, wr->send_flags);
	if (o.len > INT32_MAX)
		return -EINVAL;
	return (int)o.len;
}

int wqe_format_recv_wr(const struct wqe_recv_wr *wr, char *buf, size_t cap)
{
	struct out o = {.buf = buf, .cap = buf ? cap : 0, .len = 0};

	if (o.cap)
		buf[0] = '\0';
	if (!wr || wr->num_sge < 0 || (unsigned int)wr->num_sge > WQE_DESC_MAX_SGE ||
	    (wr->num_sge > 0 && !wr->sg_list))
		return -EINVAL;
	put(&o, "%s", text_recv_opcode.name);
	if (wr->wr_id)
		put_key(&o, TK_ID, wr->wr_id, 0);
	for (int i = 0; i < wr->num_sge; i++)
		put(&o, " sge=0x%" PRIx64 ":%" PRIu32 ":0x%" PRIx32, wr->sg_list[i].addr,
		    wr->sg_list[i].length, wr->sg_list[i].lkey);
	if (o.len > INT32_MAX)
		return -EINVAL;
	return (int)o.len;
}
