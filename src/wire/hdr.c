/* SPDX-License-Identifier: MIT */
/*
 * hdr.c - the BTH and extension header codecs: one put and one get per
 * header over a bounded cursor, big-endian, every reserved field written
 * from its struct member. The public encode/decode wrappers check the
 * buffer length first and assert they moved exactly the header's size.
 */
#include <assert.h>

#include "wire/wire_int.h"

static void put_bth(struct cursor *c, const struct wqe_bth *h)
{
	cur_put8(c, h->opcode);
	cur_put8(c, (uint8_t)((h->se & 1u) << 7 | (h->migreq & 1u) << 6 | (h->padcnt & 3u) << 4 |
			      (h->tver & 0xfu)));
	cur_put16(c, h->pkey);
	cur_put8(c, (uint8_t)((h->fecn & 1u) << 7 | (h->becn & 1u) << 6 | (h->resv6 & 0x3fu)));
	cur_put24(c, h->destqp);
	cur_put8(c, (uint8_t)((h->ackreq & 1u) << 7 | (h->resv7 & 0x7fu)));
	cur_put24(c, h->psn);
}

static void get_bth(struct cursor *c, struct wqe_bth *h)
{
	uint8_t b;

	h->opcode = cur_get8(c);
	b = cur_get8(c);
	h->se = b >> 7;
	h->migreq = (b >> 6) & 1u;
	h->padcnt = (b >> 4) & 3u;
	h->tver = b & 0xfu;
	h->pkey = cur_get16(c);
	b = cur_get8(c);
	h->fecn = b >> 7;
	h->becn = (b >> 6) & 1u;
	h->resv6 = b & 0x3fu;
	h->destqp = cur_get24(c);
	b = cur_get8(c);
	h->ackreq = b >> 7;
	h->resv7 = b & 0x7fu;
	h->psn = cur_get24(c);
}

static void put_reth(struct cursor *c, const struct wqe_reth *h)
{
	cur_put64(c, h->va);
	cur_put32(c, h->rkey);
	cur_put32(c, h->dma_len);
}

static void get_reth(struct cursor *c, struct wqe_reth *h)
{
	h->va = cur_get64(c);
	h->rkey = cur_get32(c);
	h->dma_len = cur_get32(c);
}

static void put_aeth(struct cursor *c, const struct wqe_aeth *h)
{
	cur_put8(c, h->syndrome);
	cur_put24(c, h->msn);
}

static void get_aeth(struct cursor *c, struct wqe_aeth *h)
{
	h->syndrome = cur_get8(c);
	h->msn = cur_get24(c);
}

static void put_atomiceth(struct cursor *c, const struct wqe_atomiceth *h)
{
	cur_put64(c, h->va);
	cur_put32(c, h->rkey);
	cur_put64(c, h->swap_add);
	cur_put64(c, h->compare);
}

static void get_atomiceth(struct cursor *c, struct wqe_atomiceth *h)
{
	h->va = cur_get64(c);
	h->rkey = cur_get32(c);
	h->swap_add = cur_get64(c);
	h->compare = cur_get64(c);
}

static void put_atomicacketh(struct cursor *c, const struct wqe_atomicacketh *h)
{
	cur_put64(c, h->orig);
}

static void get_atomicacketh(struct cursor *c, struct wqe_atomicacketh *h)
{
	h->orig = cur_get64(c);
}

static void put_immdt(struct cursor *c, const struct wqe_immdt *h)
{
	cur_put32(c, h->imm);
}

static void get_immdt(struct cursor *c, struct wqe_immdt *h)
{
	h->imm = cur_get32(c);
}

static void put_ieth(struct cursor *c, const struct wqe_ieth *h)
{
	cur_put32(c, h->rkey);
}

static void get_ieth(struct cursor *c, struct wqe_ieth *h)
{
	h->rkey = cur_get32(c);
}

static void put_deth(struct cursor *c, const struct wqe_deth *h)
{
	cur_put32(c, h->qkey);
	cur_put8(c, h->resv8);
	cur_put24(c, h->srcqp);
}

static void get_deth(struct cursor *c, struct wqe_deth *h)
{
	h->qkey = cur_get32(c);
	h->resv8 = cur_get8(c);
	h->srcqp = cur_get24(c);
}

static void put_cnp(struct cursor *c, const struct wqe_cnp *h)
{
	cur_putmem(c, h->rsvd, sizeof(h->rsvd));
}

static void get_cnp(struct cursor *c, struct wqe_cnp *h)
{
	const uint8_t *q = cur_take(c, sizeof(h->rsvd));

	if (q)
		memcpy(h->rsvd, q, sizeof(h->rsvd));
}

/* clang-format off */
void wire_put_hdr(struct cursor *c, enum wqe_hdr h, const struct wqe_pkt *p)
{
	switch (h) {
	case WQE_HDR_BTH: put_bth(c, &p->bth); break;
	case WQE_HDR_DETH: put_deth(c, &p->deth); break;
	case WQE_HDR_RETH: put_reth(c, &p->reth); break;
	case WQE_HDR_ATOMICETH: put_atomiceth(c, &p->atomiceth); break;
	case WQE_HDR_AETH: put_aeth(c, &p->aeth); break;
	case WQE_HDR_ATOMICACKETH: put_atomicacketh(c, &p->atomicacketh); break;
	case WQE_HDR_IMMDT: put_immdt(c, &p->immdt); break;
	case WQE_HDR_IETH: put_ieth(c, &p->ieth); break;
	case WQE_HDR_CNP: put_cnp(c, &p->cnp); break;
	}
}

void wire_get_hdr(struct cursor *c, enum wqe_hdr h, struct wqe_pkt *p)
{
	switch (h) {
	case WQE_HDR_BTH: get_bth(c, &p->bth); break;
	case WQE_HDR_DETH: get_deth(c, &p->deth); break;
	case WQE_HDR_RETH: get_reth(c, &p->reth); break;
	case WQE_HDR_ATOMICETH: get_atomiceth(c, &p->atomiceth); break;
	case WQE_HDR_AETH: get_aeth(c, &p->aeth); break;
	case WQE_HDR_ATOMICACKETH: get_atomicacketh(c, &p->atomicacketh); break;
	case WQE_HDR_IMMDT: get_immdt(c, &p->immdt); break;
	case WQE_HDR_IETH: get_ieth(c, &p->ieth); break;
	case WQE_HDR_CNP: get_cnp(c, &p->cnp); break;
	}
}

/*
 * The public wrappers: a cursor over exactly the header's bytes, so a codec
 * that moved a different amount trips the assert.
 */
#define HDR_CODEC(name, LEN)                                                                   \
	size_t wqe_##name##_encode(const struct wqe_##name *h, uint8_t *buf, size_t cap)       \
	{                                                                                      \
		struct cursor c;                                                               \
		if (cap < LEN)                                                                 \
			return 0;                                                              \
		cur_init(&c, buf, LEN);                                                        \
		put_##name(&c, h);                                                             \
		assert(c.ok && c.off == LEN);                                                  \
		return LEN;                                                                    \
	}                                                                                      \
	size_t wqe_##name##_decode(const uint8_t *buf, size_t len, struct wqe_##name *h)       \
	{                                                                                      \
		uint8_t tmp[LEN];                                                              \
		struct cursor c;                                                               \
		if (len < LEN)                                                                 \
			return 0;                                                              \
		memcpy(tmp, buf, LEN);                                                         \
		cur_init(&c, tmp, LEN);                                                        \
		get_##name(&c, h);                                                             \
		assert(c.ok && c.off == LEN);                                                  \
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
