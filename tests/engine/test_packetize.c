/* SPDX-License-Identifier: MIT */
/*
 * The packetizer's header template (struct wqe_pktz_tmpl): every packet
 * built through a template is byte for byte the packet the full builder
 * writes, whatever the operation, transport, payload size, MTU, IP version
 * and path, including when consecutive messages switch paths (the template
 * is rebuilt) and when a retry seeks into a message. Each frame also parses
 * back with a good ICRC and IPv4 checksum. A buffer too small gives
 * WQE_PKT_ENOSPC with or without a template, and the iterator stays put.
 */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "wqe/packetize.h"
#include "wqe/wire.h"

#define CAP 4400u

static uint8_t payload[3 * 4096 + 64];

static const enum wqe_op ops[] = {
	WQE_OP_SEND, WQE_OP_SEND_WITH_IMM, WQE_OP_SEND_WITH_INV, WQE_OP_RDMA_WRITE,
	WQE_OP_RDMA_WRITE_WITH_IMM, WQE_OP_RDMA_READ, WQE_OP_ATOMIC_CMP_AND_SWP,
	WQE_OP_ATOMIC_FETCH_AND_ADD,
};

static void gid_v6(union wqe_gid *g, uint8_t last)
{
	memset(g, 0, sizeof(*g));
	g->raw[0] = 0xfe;
	g->raw[1] = 0x80;
	g->raw[15] = last;
}

/* Path number @k: IPv4 or IPv6, a few different MACs, classes, ports. */
static void path_qp(struct wqe_pktz_qp *q, enum wqe_qp_type t, enum wqe_mtu mtu, unsigned k)
{
	memset(q, 0, sizeof(*q));
	q->type = t;
	q->qpn = 0x1200 + k;
	q->dest_qpn = 0x3400 + k;
	q->mtu = mtu;
	q->pkey = 0xffff;
	q->qkey = 0x11111111;
	memcpy(q->smac, "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(q->dmac, "\x02\x00\x00\x00\x00\x02", 6);
	q->dmac[5] = (uint8_t)(2 + (k & 1));
	if (k & 2) {
		gid_v6(&q->sgid, 1);
		gid_v6(&q->dgid, (uint8_t)(2 + k));
	} else {
		test_gid_v4(&q->sgid, 192, 168, 7, 1);
		test_gid_v4(&q->dgid, 192, 168, 7, (uint8_t)(2 + k));
	}
	q->udp_sport = (uint16_t)(0xc000 + 7 * k);
	q->tclass = (uint8_t)(k & 4 ? 0x68 : 0);
	q->hop_limit = (uint8_t)(k & 4 ? 17 : 0);
	q->flow_label = k & 4 ? 0x12345 : 0;
}

static void make_desc(struct wqe_desc *d, enum wqe_op op, uint64_t len, unsigned k)
{
	memset(d, 0, sizeof(*d));
	d->op = op;
	d->total_len = op == WQE_OP_ATOMIC_CMP_AND_SWP || op == WQE_OP_ATOMIC_FETCH_AND_ADD ? 8 : len;
	d->remote_addr = 0x7f0000001000ull + 8 * k;
	d->rkey = 0xabc00 + k;
	d->imm = 0xdeadbe00 + k;
	d->swap_add = 0x0102030405060708ull;
	d->compare = 0x1111222233334444ull;
	d->solicited = k & 1;
	d->ud.qkey = k & 2 ? 0x80000000u : 0x22222222u;
	d->ud.dqpn = 0x5600 + k;
	memcpy(d->ud.dmac, "\x02\x00\x00\x00\x00\x09", 6);
	d->ud.udp_sport = (uint16_t)(0xd000 + k);
	if (k & 2)
		gid_v6(&d->ud.dgid, 9);
	else
		test_gid_v4(&d->ud.dgid, 192, 168, 7, 9);
}

/* Expands the message twice, without and with @t, and compares. */
static void compare(const struct wqe_pktz_qp *q, const struct wqe_desc *d, struct wqe_pktz_tmpl *t,
		    int seek_to)
{
	static uint8_t a[CAP], b[CAP];
	struct wqe_iov iov = {payload, (uint32_t)d->total_len};
	struct wqe_pktz za, zb;
	uint32_t niov = d->total_len && d->op != WQE_OP_RDMA_READ ? 1 : 0;
	size_t la, lb;
	int ra, rb;

	CHECK_EQ(wqe_pktz_init(&za, q, d, 0xfffff0, &iov, niov, 0xfff0), 0);
	CHECK_EQ(wqe_pktz_init(&zb, q, d, 0xfffff0, &iov, niov, 0xfff0), 0);
	wqe_pktz_use_tmpl(&zb, t);
	if (seek_to >= 0 && (uint32_t)seek_to < za.npsn) {
		CHECK_EQ(wqe_pktz_seek(&za, (0xfffff0 + (uint32_t)seek_to) & 0xffffff), 0);
		CHECK_EQ(wqe_pktz_seek(&zb, (0xfffff0 + (uint32_t)seek_to) & 0xffffff), 0);
	}
	for (;;) {
		struct wqe_pkt p;

		memset(a, 0x5a, sizeof(a));
		memset(b, 0xa5, sizeof(b));
		ra = wqe_pktz_next(&za, a, sizeof(a), &la, NULL);
		rb = wqe_pktz_next(&zb, b, sizeof(b), &lb, NULL);
		CHECK_EQ(ra, rb);
		if (ra != 1)
			break;
		CHECK_EQ(la, lb);
		if (la != lb)
			break;
		CHECK_MEM(a, b, la);
		if (memcmp(a, b, la))
			break;
		CHECK_EQ(wqe_pkt_parse(b, lb, &p), 0);
		CHECK(p.icrc_ok);
		CHECK(p.ip_csum_ok);
		CHECK(p.udp_csum_ok);
	}
	if (ra != 0)
		test_fail(__FILE__, __LINE__, "op %d len %llu type %d mtu %d: %s", (int)d->op,
			  (unsigned long long)d->total_len, (int)q->type, (int)q->mtu,
			  wqe_pkt_err_str(ra));
}

static void all_shapes(void)
{
	static const uint64_t lens[] = {0, 1, 3, 64, 255, 256, 257, 1023, 1024, 4096, 4097, 3 * 4096 + 5};
	static const enum wqe_mtu mtus[] = {WQE_MTU_256, WQE_MTU_1024, WQE_MTU_4096};
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};
	struct wqe_pktz_tmpl t;
	unsigned n = 0;

	memset(&t, 0, sizeof(t));
	for (unsigned ti = 0; ti < 3; ti++)
		for (unsigned mi = 0; mi < 3; mi++)
			for (unsigned oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++)
				for (unsigned li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
					for (unsigned k = 0; k < 8; k++) {
						struct wqe_pktz_qp q;
						struct wqe_desc d;

						if (!wqe_op_legal(ops[oi], types[ti]))
							continue;
						if (types[ti] == WQE_QPT_UD &&
						    lens[li] > wqe_mtu_to_bytes(mtus[mi]))
							continue;
						/* The same path twice in a row, then another. */
						path_qp(&q, types[ti], mtus[mi], k >> 1);
						make_desc(&d, ops[oi], lens[li], k);
						compare(&q, &d, &t, -1);
						compare(&q, &d, &t, (int)(li % 3));
						n++;
					}
	CHECK(n > 1000);
}

/* Too small a buffer: ENOSPC, the iterator does not move, and the next
 * call with room gives the first packet. */
static void enospc(void)
{
	struct wqe_pktz_tmpl t;
	struct wqe_pktz_qp q;
	struct wqe_desc d;
	struct wqe_iov iov = {payload, 2048};
	struct wqe_pktz z;
	static uint8_t buf[CAP];
	size_t len = 0;

	memset(&t, 0, sizeof(t));
	path_qp(&q, WQE_QPT_RC, WQE_MTU_1024, 0);
	make_desc(&d, WQE_OP_RDMA_WRITE, 2048, 0);
	for (int round = 0; round < 2; round++) {
		/* round 0 builds the template, round 1 uses it */
		CHECK_EQ(wqe_pktz_init(&z, &q, &d, 100, &iov, 1, 1), 0);
		wqe_pktz_use_tmpl(&z, &t);
		CHECK_EQ(wqe_pktz_next(&z, buf, 100, &len, NULL), WQE_PKT_ENOSPC);
		CHECK_EQ(z.next, 0);
		CHECK_EQ(wqe_pktz_next(&z, buf, sizeof(buf), &len, NULL), 1);
		CHECK_EQ(wqe_pktz_opcode(&z, 0), 0x06); /* RDMA WRITE FIRST */
		CHECK_EQ(wqe_pktz_next(&z, buf, 100, &len, NULL), WQE_PKT_ENOSPC);
		CHECK_EQ(z.next, 1);
		CHECK_EQ(wqe_pktz_next(&z, buf, sizeof(buf), &len, NULL), 1);
		CHECK_EQ(wqe_pktz_next(&z, buf, sizeof(buf), &len, NULL), 0);
	}
	CHECK(t.valid);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	all_shapes();
	enospc();
	return test_finish();
}
