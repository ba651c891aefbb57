/* SPDX-License-Identifier: MIT */
/*
 * What a request must become on the wire, written out again from the IBTA
 * (vol. 1, 9.2-9.4 and table 38) rather than taken from src/engine, and
 * the manifest line of each packet.
 */
#include <string.h>

#include "capture.h"

/* Wire opcodes of one operation: ONLY, FIRST, MIDDLE, LAST (RC base). */
struct op_codes {
	enum wqe_wr_opcode op;
	const char *name;
	uint8_t only, first, middle, last;
};

static const struct op_codes codes[] = {
    {WQE_WR_SEND, "send", 0x04, 0x00, 0x01, 0x02},
    {WQE_WR_SEND_WITH_IMM, "send_imm", 0x05, 0x00, 0x01, 0x03},
    {WQE_WR_SEND_WITH_INV, "send_inv", 0x17, 0x00, 0x01, 0x16},
    {WQE_WR_RDMA_WRITE, "write", 0x0a, 0x06, 0x07, 0x08},
    {WQE_WR_RDMA_WRITE_WITH_IMM, "write_imm", 0x0b, 0x06, 0x07, 0x09},
    {WQE_WR_RDMA_READ, "read", 0x0c, 0x0c, 0x0c, 0x0c},
    {WQE_WR_ATOMIC_CMP_AND_SWP, "cas", 0x13, 0x13, 0x13, 0x13},
    {WQE_WR_ATOMIC_FETCH_AND_ADD, "faa", 0x14, 0x14, 0x14, 0x14},
};

static const struct op_codes *codes_of(enum wqe_wr_opcode op)
{
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (codes[i].op == op)
			return &codes[i];
	return &codes[0];
}

static int is_send(enum wqe_wr_opcode op)
{
	return op == WQE_WR_SEND || op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_SEND_WITH_INV;
}

static int is_write(enum wqe_wr_opcode op)
{
	return op == WQE_WR_RDMA_WRITE || op == WQE_WR_RDMA_WRITE_WITH_IMM;
}

static int is_atomic(enum wqe_wr_opcode op)
{
	return op == WQE_WR_ATOMIC_CMP_AND_SWP || op == WQE_WR_ATOMIC_FETCH_AND_ADD;
}

static int has_imm(enum wqe_wr_opcode op)
{
	return op == WQE_WR_SEND_WITH_IMM || op == WQE_WR_RDMA_WRITE_WITH_IMM;
}

/* Transport base of the opcode (bits 7:5): RC 000, UC 001, UD 011. */
static uint8_t base_of(enum wqe_qp_type t)
{
	return t == WQE_QPT_RC ? 0x00 : t == WQE_QPT_UC ? 0x20 : 0x60;
}

static unsigned int hdrs_of(const struct cap_case *c, int first, int last)
{
	unsigned int h = c->t == WQE_QPT_UD ? CAP_DETH : 0;

	if ((is_write(c->op) && first) || c->op == WQE_WR_RDMA_READ)
		h |= CAP_RETH;
	if (is_atomic(c->op))
		h |= CAP_ATOMICETH;
	if (has_imm(c->op) && last)
		h |= CAP_IMMDT;
	if (c->op == WQE_WR_SEND_WITH_INV && last)
		h |= CAP_IETH;
	return h;
}

uint32_t cap_expect(const struct cap_case *c, struct cap_pkt out[CAP_MAX_PKTS])
{
	const struct op_codes *oc = codes_of(c->op);
	/* A UD message is one packet up to the port MTU, 4096 here. */
	uint32_t m = c->t == WQE_QPT_UD ? 4096 : wqe_mtu_to_bytes(c->mtu);
	int payload = is_send(c->op) || is_write(c->op);
	uint32_t n = payload && c->len ? (c->len + m - 1) / m : 1;

	if (n > CAP_MAX_PKTS)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		struct cap_pkt *p = &out[i];
		int first = i == 0, last = i + 1 == n;

		memset(p, 0, sizeof(*p));
		p->opcode = (uint8_t)(base_of(c->t) + (first && last ? oc->only
						       : first	     ? oc->first
						       : last	     ? oc->last
								     : oc->middle));
		p->psn = (c->psn + i) & 0xffffff;
		p->off = i * m;
		p->len = payload ? (c->len - p->off < m ? c->len - p->off : m) : 0;
		p->padcnt = (uint8_t)((4 - p->len % 4) % 4);
		p->hdrs = hdrs_of(c, first, last);
		/* 9.2.3: SE on the last packet of a SEND or an RDMA WRITE with
		 * immediate, when the request is solicited. */
		p->se = (uint8_t)(c->se && last &&
				  (is_send(c->op) || c->op == WQE_WR_RDMA_WRITE_WITH_IMM));
		/* RC asks for an acknowledgement on the last packet of every
		 * request, an RDMA READ request and an atomic included (the
		 * IBTA leaves it to the requester; the kernel's rxe sets it on
		 * every END packet, and so does wqe), and every 64 packets of a
		 * long message, which no case reaches. */
		p->ackreq = (uint8_t)(c->t == WQE_QPT_RC && (last || i % 64 == 63));
	}
	return n;
}

const char *cap_case_name(const struct cap_case *c, char *buf, size_t cap)
{
	const char *t = c->t == WQE_QPT_RC ? "rc" : c->t == WQE_QPT_UC ? "uc" : "ud";

	snprintf(buf, cap, "%u: %s %s mtu=%u len=%u%s%s", c->id, t, codes_of(c->op)->name,
		 wqe_mtu_to_bytes(c->mtu), c->len, c->inl ? " inline" : "", c->se ? " se" : "");
	return buf;
}

static void put_hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

static void put_headers(FILE *f, unsigned int h)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} order[] = {{CAP_DETH, "DETH"},
		     {CAP_RETH, "RETH"},
		     {CAP_ATOMICETH, "AtomicETH"},
		     {CAP_IMMDT, "ImmDt"},
		     {CAP_IETH, "IETH"}};

	fprintf(f, ", \"headers\": [\"BTH\"");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (h & order[i].bit)
			fprintf(f, ", \"%s\"", order[i].name);
	fprintf(f, "]");
}

static void put_ext(FILE *f, const struct cap_case *c, const struct cap_pkt *p)
{
	if (p->hdrs & CAP_DETH)
		fprintf(f, ", \"deth\": {\"qkey\": %u, \"srcqp\": %u}", c->qkey, c->srcqp);
	if (p->hdrs & CAP_RETH)
		fprintf(f, ", \"reth\": {\"va\": %llu, \"rkey\": %u, \"dmalen\": %u}",
			(unsigned long long)c->raddr, c->rkey, c->len);
	if (p->hdrs & CAP_ATOMICETH)
		fprintf(f,
			", \"atomiceth\": {\"va\": %llu, \"rkey\": %u, \"swap_add\": %llu, "
			"\"compare\": %llu}",
			(unsigned long long)c->raddr, c->rkey, (unsigned long long)c->swap_add,
			(unsigned long long)c->compare);
	if (p->hdrs & CAP_IMMDT)
		fprintf(f, ", \"immdt\": {\"imm\": %u}", c->imm);
	if (p->hdrs & CAP_IETH)
		fprintf(f, ", \"ieth\": {\"rkey\": %u}", c->imm);
}

void cap_manifest_line(FILE *f, const struct cap_case *c, const struct cap_pkt *p,
		       const uint8_t *frame, size_t flen)
{
	static const uint8_t zeros[4];
	char name[96];

	fprintf(
	    f,
	    "{\"case\": \"%s\", \"bth\": {\"opcode\": %u, \"se\": %u, \"m\": 0, \"padcnt\": %u, "
	    "\"tver\": 0, \"pkey\": 65535, \"fecn\": 0, \"becn\": 0, \"resv6\": 0, "
	    "\"destqp\": %u, \"ackreq\": %u, \"resv7\": 0, \"psn\": %u}",
	    cap_case_name(c, name, sizeof(name)), p->opcode, p->se, p->padcnt, c->destqp, p->ackreq,
	    p->psn);
	put_headers(f, p->hdrs);
	put_ext(f, c, p);
	fprintf(f, ", \"payload_len\": %u, \"payload_hex\": \"", p->len);
	put_hex(f, c->msg + p->off, p->len);
	fprintf(f, "\", \"pad_hex\": \"");
	put_hex(f, zeros, p->padcnt);
	fprintf(f, "\", \"icrc_hex\": \"");
	put_hex(f, frame && flen >= 4 ? frame + flen - 4 : zeros, 4);
	fprintf(f, "\"}\n");
}
