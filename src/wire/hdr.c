/* SPDX-License-Identifier: MIT */
/*
 * hdr.c - the BTH and extension header codecs: one put and one get per
 * header, big-endian, every reserved field written from its struct member.
 * Each codec reads or writes exactly its header's bytes (the sizes of
 * opcode.c, checked there with static_assert) at a pointer whose length
 * the caller has checked once for the whole header: the public wrappers
 * below against their buffer, the frame builder and parser against the
 * frame, with the header set's length from the opcode table.
 */
#include "wire/wire_int.h"

static void put_bth(uint8_t *b, const struct wqe_bth *h)
{
	b[0] = h->opcode;
	b[1] = (uint8_t)((h->se & 1u) << 7 | (h->migreq & 1u) << 6 | (h->padcnt & 3u) << 4 |
			 (h->tver & 0xfu));
	put_be16(b + 2, h->pkey);
	b[4] = (uint8_t)((h->fecn & 1u) << 7 | (h->becn & 1u) << 6 | (h->resv6 & 0x3fu));
	put_be24(b + 5, h->destqp);
	b[8] = (uint8_t)((h->ackreq & 1u) << 7 | (h->resv7 & 0x7fu));
	put_be24(b + 9, h->psn);
}

/* The readers of wire/layout.h, which the fast paths read frames with. */
static void get_bth(const uint8_t *b, struct wqe_bth *h)
{
	h->opcode = bth_opcode(b);
	h->se = bth_se(b);
	h->migreq = bth_migreq(b);
	h->padcnt = bth_padcnt(b);
	h->tver = bth_tver(b);
	h->pkey = bth_pkey(b);
	h->fecn = bth_fecn(b);
	h->becn = bth_becn(b);
	h->resv6 = bth_resv6(b);
	h->destqp = bth_destqp(b);
	h->ackreq = bth_ackreq(b);
	h->resv7 = bth_resv7(b);
	h->psn = bth_psn(b);
}

static void put_reth(uint8_t *b, const struct wqe_reth *h)
{
	put_be64(b, h->va);
	put_be32(b + 8, h->rkey);
	put_be32(b + 12, h->dma_len);
}

static void get_reth(const uint8_t *b, struct wqe_reth *h)
{
	h->va = reth_va(b);
	h->rkey = reth_rkey(b);
	h->dma_len = reth_dma_len(b);
}

static void put_aeth(uint8_t *b, const struct wqe_aeth *h)
{
	b[0] = h->syndrome;
	put_be24(b + 1, h->msn);
}

static void get_aeth(const uint8_t *b, struct wqe_aeth *h)
{
	h->syndrome = aeth_syndrome(b);
	h->msn = aeth_msn(b);
}

static void put_atomiceth(uint8_t *b, const struct wqe_atomiceth *h)
{
	put_be64(b, h->va);
	put_be32(b + 8, h->rkey);
	put_be64(b + 12, h->swap_add);
	put_be64(b + 20, h->compare);
}

static void get_atomiceth(const uint8_t *b, struct wqe_atomiceth *h)
{
	h->va = get_be64(b);
	h->rkey = get_be32(b + 8);
	h->swap_add = get_be64(b + 12);
	h->compare = get_be64(b + 20);
}

static void put_atomicacketh(uint8_t *b, const struct wqe_atomicacketh *h)
{
	put_be64(b, h->orig);
}

static void get_atomicacketh(const uint8_t *b, struct wqe_atomicacketh *h)
{
	h->orig = get_be64(b);
}

static void put_immdt(uint8_t *b, const struct wqe_immdt *h)
{
	put_be32(b, h->imm);
}

static void get_immdt(const uint8_t *b, struct wqe_immdt *h)
{
	h->imm = immdt_imm(b);
}

static void put_ieth(uint8_t *b, const struct wqe_ieth *h)
{
	put_be32(b, h->rkey);
}

static void get_ieth(const uint8_t *b, struct wqe_ieth *h)
{
	h->rkey = get_be32(b);
}

static void put_deth(uint8_t *b, const struct wqe_deth *h)
{
	put_be32(b, h->qkey);
	b[4] = h->resv8;
	put_be24(b + 5, h->srcqp);
}

static void get_deth(const uint8_t *b, struct wqe_deth *h)
{
	h->qkey = get_be32(b);
	h->resv8 = b[4];
	h->srcqp = get_be24(b + 5);
}

static void put_cnp(uint8_t *b, const struct wqe_cnp *h)
{
	memcpy(b, h->rsvd, sizeof(h->rsvd));
}

static void get_cnp(const uint8_t *b, struct wqe_cnp *h)
{
	memcpy(h->rsvd, b, sizeof(h->rsvd));
}

/* clang-format off */
size_t wire_put_hdr(uint8_t *b, enum wqe_hdr h, const struct wqe_pkt *p)
{
	switch (h) {
	case WQE_HDR_BTH: put_bth(b, &p->bth); return WQE_BTH_LEN;
	case WQE_HDR_DETH: put_deth(b, &p->deth); return WQE_DETH_LEN;
	case WQE_HDR_RETH: put_reth(b, &p->reth); return WQE_RETH_LEN;
	case WQE_HDR_ATOMICETH: put_atomiceth(b, &p->atomiceth); return WQE_ATOMICETH_LEN;
	case WQE_HDR_AETH: put_aeth(b, &p->aeth); return WQE_AETH_LEN;
	case WQE_HDR_ATOMICACKETH:
		put_atomicacketh(b, &p->atomicacketh);
		return WQE_ATOMICACKETH_LEN;
	case WQE_HDR_IMMDT: put_immdt(b, &p->immdt); return WQE_IMMDT_LEN;
	case WQE_HDR_IETH: put_ieth(b, &p->ieth); return WQE_IETH_LEN;
	case WQE_HDR_CNP: put_cnp(b, &p->cnp); return WQE_CNP_LEN;
	}
	return 0;
}

size_t wire_get_hdr(const uint8_t *b, enum wqe_hdr h, struct wqe_pkt *p)
{
	switch (h) {
	case WQE_HDR_BTH: get_bth(b, &p->bth); return WQE_BTH_LEN;
	case WQE_HDR_DETH: get_deth(b, &p->deth); return WQE_DETH_LEN;
	case WQE_HDR_RETH: get_reth(b, &p->reth); return WQE_RETH_LEN;
	case WQE_HDR_ATOMICETH: get_atomiceth(b, &p->atomiceth); return WQE_ATOMICETH_LEN;
	case WQE_HDR_AETH: get_aeth(b, &p->aeth); return WQE_AETH_LEN;
	case WQE_HDR_ATOMICACKETH:
		get_atomicacketh(b, &p->atomicacketh);
		return WQE_ATOMICACKETH_LEN;
	case WQE_HDR_IMMDT: get_immdt(b, &p->immdt); return WQE_IMMDT_LEN;
	case WQE_HDR_IETH: get_ieth(b, &p->ieth); return WQE_IETH_LEN;
	case WQE_HDR_CNP: get_cnp(b, &p->cnp); return WQE_CNP_LEN;
	}
	return 0;
}
/* clang-format on */

/* Bit order is wire order: the loops walk the set bits past the BTH. */
void wire_put_ext_hdrs(uint8_t *b, uint32_t hdrs, const struct wqe_pkt *p)
{
	for (uint32_t m = hdrs & ~(uint32_t)WQE_HDR_BTH; m; m &= m - 1)
		b += wire_put_hdr(b, (enum wqe_hdr)(m & -m), p);
}

void wire_get_ext_hdrs(const uint8_t *b, uint32_t hdrs, struct wqe_pkt *p)
{
	for (uint32_t m = hdrs & ~(uint32_t)WQE_HDR_BTH; m; m &= m - 1)
		b += wire_get_hdr(b, (enum wqe_hdr)(m & -m), p);
}

/* clang-format off */
/* The public wrappers: the length check, then the codec. */
#define HDR_CODEC(name, LEN)                                                                   \
	size_t wqe_##name##_encode(const struct wqe_##name *h, uint8_t *buf, size_t cap)       \
	{                                                                                      \
		if (cap < LEN)                                                                 \
			return 0;                                                              \
		put_##name(buf, h);                                                            \
		return LEN;                                                                    \
	}                                                                                      \
	size_t wqe_##name##_decode(const uint8_t *buf, size_t len, struct wqe_##name *h)       \
	{                                                                                      \
		if (len < LEN)                                                                 \
			return 0;                                                              \
		get_##name(buf, h);                                                            \
		return LEN;                                                                    \
	}

HDR_CODEC(bth, WQE_BTH_LEN)
HDR_CODEC(reth, WQE_RETH_LEN)
HDR_CODEC(aeth, WQE_AETH_LEN)
HDR_CODEC(atomiceth, WQE_ATOMICETH_LEN)
HDR_CODEC(atomicacketh, WQE_ATOMICACKETH_LEN)
HDR_CODEC(immdt, WQE_IMMDT_LEN)
HDR_CODEC(ieth, WQE_IETH_LEN)
HDR_CODEC(deth, WQE_DETH_LEN)
HDR_CODEC(cnp, WQE_CNP_LEN)
/* clang-format on */

enum wqe_aeth_type wqe_aeth_type(uint8_t syndrome)
{
	return (enum wqe_aeth_type)((syndrome >> 5) & 3u);
}

uint8_t wqe_aeth_value(uint8_t syndrome)
{
	return syndrome & 0x1fu;
}

uint8_t wqe_aeth_ack(uint8_t credits)
{
	return (uint8_t)(WQE_AETH_ACK | (credits & 0x1fu));
}

uint8_t wqe_aeth_rnr_nak(uint8_t timer)
{
	return (uint8_t)(WQE_AETH_RNR_NAK | (timer & 0x1fu));
}

const char *wqe_aeth_syndrome_str(uint8_t syndrome)
{
	if (syndrome & 0x80u)
		return "reserved";
	switch (wqe_aeth_type(syndrome)) {
	case WQE_AETH_TYPE_ACK:
		return "ACK";
	case WQE_AETH_TYPE_RNR_NAK:
		return "RNR_NAK";
	case WQE_AETH_TYPE_RESERVED:
		return "reserved";
	case WQE_AETH_TYPE_NAK:
		break;
	}
	switch (syndrome) {
	case WQE_AETH_NAK_PSN_SEQ_ERR:
		return "NAK_PSN_SEQ_ERR";
	case WQE_AETH_NAK_INVALID_REQ:
		return "NAK_INVALID_REQ";
	case WQE_AETH_NAK_REM_ACCESS_ERR:
		return "NAK_REM_ACCESS_ERR";
	case WQE_AETH_NAK_REM_OP_ERR:
		return "NAK_REM_OP_ERR";
	case WQE_AETH_NAK_INVALID_RD_REQ:
		return "NAK_INVALID_RD_REQ";
	default:
		return "reserved";
	}
}
