/* SPDX-License-Identifier: MIT */
/*
 * opcode.c - the one table indexed by wire opcode: which headers a packet
 * carries (in wire order), its transport, its role in a message, its
 * operation family. Header lengths and offsets are computed from it.
 *
 * Values: IBA vol. 1 table 38 / include/rdma/ib_pack.h; headers and
 * lengths match rxe_opcode.c (tests/wire/test_codec.c checks every length
 * against rxe's table). CNP 0x81 is RoCEv2 annex A17.
 */
#include <assert.h>

#include "wire/wire_int.h"

/* The wire size of each header, checked against its fields' widths. */
static_assert(1 + 1 + 2 + 4 + 4 == WQE_BTH_LEN, "BTH: opcode, flags, pkey, qpn word, psn word");
static_assert(8 + 4 + 4 == WQE_RETH_LEN, "RETH: va, rkey, dma length");
static_assert(1 + 3 == WQE_AETH_LEN, "AETH: syndrome, msn");
static_assert(8 + 4 + 8 + 8 == WQE_ATOMICETH_LEN, "AtomicETH: va, rkey, swap/add, compare");
static_assert(8 == WQE_ATOMICACKETH_LEN, "AtomicAckETH: original value");
static_assert(4 == WQE_IMMDT_LEN && 4 == WQE_IETH_LEN, "ImmDt, IETH: one word");
static_assert(4 + 1 + 3 == WQE_DETH_LEN, "DETH: qkey, reserved, source qp");
static_assert(8 + 8 == WQE_CNP_LEN, "CNP: 16 reserved bytes");
static_assert(6 + 6 + 2 == WQE_ETH_LEN && 2 + 2 == WQE_VLAN_LEN, "Ethernet, 802.1Q");
static_assert(WQE_HDR_CNP == 1u << (WQE_HDR_COUNT - 1), "header bits are dense");

/* clang-format off */
/* Header sizes by bit number, in wire order. */
const uint8_t wire_hdr_sizes[WQE_HDR_COUNT] = {
	WQE_BTH_LEN, WQE_DETH_LEN, WQE_RETH_LEN, WQE_ATOMICETH_LEN, WQE_AETH_LEN,
	WQE_ATOMICACKETH_LEN, WQE_IMMDT_LEN, WQE_IETH_LEN, WQE_CNP_LEN,
};
static const char *const hdr_name_tab[WQE_HDR_COUNT] = {
	"BTH", "DETH", "RETH", "AtomicETH", "AETH", "AtomicAckETH", "ImmDt", "IETH", "CNP",
};

/* The rows' lengths are WIRE_HDRS_LEN() (wire/layout.h), the same sum as
 * wqe_hdrs_len(); test_codec checks every row against it. */
static_assert(WIRE_HDRS_LEN(0x1ff) == 12 + 8 + 16 + 28 + 4 + 8 + 4 + 4 + 16,
	      "WIRE_HDRS_LEN covers every header");
static_assert(WIRE_HDR_OFFSET(WQE_HDR_BTH | WQE_HDR_RETH | WQE_HDR_IMMDT, WQE_HDR_IMMDT) == 28,
	      "WIRE_HDR_OFFSET: the headers before, in wire order");
/* The longest frame with payload (wqe/wire.h); test_codec builds every
 * opcode's longest and checks it against WQE_FRAME_MAX too. */
static_assert(WQE_ETH_LEN + WQE_VLAN_LEN + WQE_IPV6_LEN + WQE_UDP_LEN +
			  WIRE_HDRS_LEN(WQE_HDR_BTH | WQE_HDR_RETH | WQE_HDR_IMMDT) + 4096 +
			  WQE_ICRC_LEN <=
		      WQE_FRAME_MAX,
	      "WQE_FRAME_MAX holds a WRITE ONLY with immediate of 4096 bytes, tagged, over IPv6");

/* One row: name, headers, transport, role, kind, payload, response. */
#define OP(name, hdrs, t, role, kind, payload, resp)                                           \
	{ name, hdrs, t, role, kind, payload, resp, WIRE_HDRS_LEN(hdrs) }

#define B WQE_HDR_BTH
#define FIRST WQE_ROLE_FIRST
#define MIDDLE WQE_ROLE_MIDDLE
#define LAST WQE_ROLE_LAST
#define ONLY WQE_ROLE_ONLY

/* One transport's SEND and RDMA WRITE rows (RC and UC share them). */
#define SEND_WRITE_ROWS(base, T, t)                                                            \
	[base + 0x00] = OP(#T "_SEND_FIRST", B, t, FIRST, WQE_KIND_SEND, 1, 0),                \
	[base + 0x01] = OP(#T "_SEND_MIDDLE", B, t, MIDDLE, WQE_KIND_SEND, 1, 0),              \
	[base + 0x02] = OP(#T "_SEND_LAST", B, t, LAST, WQE_KIND_SEND, 1, 0),                  \
	[base + 0x03] = OP(#T "_SEND_LAST_WITH_IMMEDIATE", B | WQE_HDR_IMMDT, t, LAST,         \
			 WQE_KIND_SEND, 1, 0),                                                 \
	[base + 0x04] = OP(#T "_SEND_ONLY", B, t, ONLY, WQE_KIND_SEND, 1, 0),                  \
	[base + 0x05] = OP(#T "_SEND_ONLY_WITH_IMMEDIATE", B | WQE_HDR_IMMDT, t, ONLY,         \
			 WQE_KIND_SEND, 1, 0),                                                 \
	[base + 0x06] = OP(#T "_RDMA_WRITE_FIRST", B | WQE_HDR_RETH, t, FIRST,                 \
			 WQE_KIND_RDMA_WRITE, 1, 0),                                           \
	[base + 0x07] = OP(#T "_RDMA_WRITE_MIDDLE", B, t, MIDDLE, WQE_KIND_RDMA_WRITE, 1, 0),  \
	[base + 0x08] = OP(#T "_RDMA_WRITE_LAST", B, t, LAST, WQE_KIND_RDMA_WRITE, 1, 0),      \
	[base + 0x09] = OP(#T "_RDMA_WRITE_LAST_WITH_IMMEDIATE", B | WQE_HDR_IMMDT, t, LAST,   \
			 WQE_KIND_RDMA_WRITE, 1, 0),                                           \
	[base + 0x0a] = OP(#T "_RDMA_WRITE_ONLY", B | WQE_HDR_RETH, t, ONLY,                   \
			 WQE_KIND_RDMA_WRITE, 1, 0),                                           \
	[base + 0x0b] = OP(#T "_RDMA_WRITE_ONLY_WITH_IMMEDIATE",                               \
			 B | WQE_HDR_RETH | WQE_HDR_IMMDT, t, ONLY, WQE_KIND_RDMA_WRITE, 1, 0)

const struct wire_op wire_op_tab[256] = {
	SEND_WRITE_ROWS(0x00, RC, WQE_TRANSPORT_RC),
	[0x0c] = OP("RC_RDMA_READ_REQUEST", B | WQE_HDR_RETH, WQE_TRANSPORT_RC, ONLY,
		  WQE_KIND_READ_REQUEST, 0, 0),
	[0x0d] = OP("RC_RDMA_READ_RESPONSE_FIRST", B | WQE_HDR_AETH, WQE_TRANSPORT_RC, FIRST,
		  WQE_KIND_READ_RESPONSE, 1, 1),
	[0x0e] = OP("RC_RDMA_READ_RESPONSE_MIDDLE", B, WQE_TRANSPORT_RC, MIDDLE,
		  WQE_KIND_READ_RESPONSE, 1, 1),
	[0x0f] = OP("RC_RDMA_READ_RESPONSE_LAST", B | WQE_HDR_AETH, WQE_TRANSPORT_RC, LAST,
		  WQE_KIND_READ_RESPONSE, 1, 1),
	[0x10] = OP("RC_RDMA_READ_RESPONSE_ONLY", B | WQE_HDR_AETH, WQE_TRANSPORT_RC, ONLY,
		  WQE_KIND_READ_RESPONSE, 1, 1),
	[0x11] = OP("RC_ACKNOWLEDGE", B | WQE_HDR_AETH, WQE_TRANSPORT_RC, ONLY, WQE_KIND_ACK, 0, 1),
	[0x12] = OP("RC_ATOMIC_ACKNOWLEDGE", B | WQE_HDR_AETH | WQE_HDR_ATOMICACKETH,
		  WQE_TRANSPORT_RC, ONLY, WQE_KIND_ATOMIC_ACK, 0, 1),
	[0x13] = OP("RC_COMPARE_SWAP", B | WQE_HDR_ATOMICETH, WQE_TRANSPORT_RC, ONLY,
		  WQE_KIND_COMPARE_SWAP, 0, 0),
	[0x14] = OP("RC_FETCH_ADD", B | WQE_HDR_ATOMICETH, WQE_TRANSPORT_RC, ONLY,
		  WQE_KIND_FETCH_ADD, 0, 0),
	[0x16] = OP("RC_SEND_LAST_WITH_INVALIDATE", B | WQE_HDR_IETH, WQE_TRANSPORT_RC, LAST,
		  WQE_KIND_SEND, 1, 0),
	[0x17] = OP("RC_SEND_ONLY_WITH_INVALIDATE", B | WQE_HDR_IETH, WQE_TRANSPORT_RC, ONLY,
		  WQE_KIND_SEND, 1, 0),
	SEND_WRITE_ROWS(0x20, UC, WQE_TRANSPORT_UC),
	[0x64] = OP("UD_SEND_ONLY", B | WQE_HDR_DETH, WQE_TRANSPORT_UD, ONLY, WQE_KIND_SEND, 1, 0),
	[0x65] = OP("UD_SEND_ONLY_WITH_IMMEDIATE", B | WQE_HDR_DETH | WQE_HDR_IMMDT,
		  WQE_TRANSPORT_UD, ONLY, WQE_KIND_SEND, 1, 0),
	[0x81] = OP("CNP", B | WQE_HDR_CNP, WQE_TRANSPORT_CNP, ONLY, WQE_KIND_CNP, 0, 0),
};

#undef OP
#undef B
#undef FIRST
#undef MIDDLE
#undef LAST
#undef ONLY
/* clang-format on */

static int hdr_bit(enum wqe_hdr h)
{
	for (int i = 0; i < WQE_HDR_COUNT; i++)
		if ((unsigned)h == 1u << i)
			return i;
	return -1;
}

const char *wqe_hdr_str(enum wqe_hdr h)
{
	int i = hdr_bit(h);

	return i < 0 ? "unknown" : hdr_name_tab[i];
}

uint32_t wqe_hdr_size(enum wqe_hdr h)
{
	int i = hdr_bit(h);

	return i < 0 ? 0 : wire_hdr_sizes[i];
}

uint32_t wqe_hdrs_len(uint32_t mask)
{
	uint32_t len = 0;

	for (unsigned int i = 0; i < WQE_HDR_COUNT && mask >> i; i++)
		if (mask >> i & 1u)
			len += wire_hdr_sizes[i];
	return len;
}

int wqe_hdr_offset(uint32_t mask, enum wqe_hdr h)
{
	int i = hdr_bit(h);

	if (i < 0 || !(mask & (uint32_t)h))
		return -1;
	return (int)wqe_hdrs_len(mask & ((uint32_t)h - 1));
}

int wqe_wire_opcode_info(uint8_t op, struct wqe_wire_opinfo *out)
{
	const struct wire_op *w = wire_op_lookup(op);

	if (!w)
		return -1;
	out->name = w->name;
	out->hdrs = w->hdrs;
	out->hdr_len = w->hdr_len;
	out->transport = w->transport;
	out->role = w->role;
	out->kind = w->kind;
	out->has_payload = w->payload;
	out->is_response = w->response;
	return 0;
}

const char *wqe_wire_opcode_str(uint8_t op)
{
	const struct wire_op *w = wire_op_lookup(op);

	return w ? w->name : "unknown";
}

const char *wqe_wire_transport_str(enum wqe_wire_transport t)
{
	static const char *const names[] = {"RC", "UC", "UD", "CNP"};

	if ((unsigned)t < sizeof(names) / sizeof(names[0]))
		return names[t];
	return "unknown";
}

const char *wqe_wire_role_str(enum wqe_wire_role r)
{
	static const char *const names[] = {"FIRST", "MIDDLE", "LAST", "ONLY"};

	if ((unsigned)r < sizeof(names) / sizeof(names[0]))
		return names[r];
	return "unknown";
}

const char *wqe_wire_kind_str(enum wqe_wire_kind k)
{
	static const char *const names[] = {
	    "SEND",	  "RDMA_WRITE",	  "READ_REQUEST", "READ_RESPONSE", "ACK",
	    "ATOMIC_ACK", "COMPARE_SWAP", "FETCH_ADD",	  "CNP",
	};

	if ((unsigned)k < sizeof(names) / sizeof(names[0]))
		return names[k];
	return "unknown";
}
