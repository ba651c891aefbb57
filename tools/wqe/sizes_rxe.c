/* SPDX-License-Identifier: MIT */
/*
 * wqe sizes --format rxe: struct rxe_send_wqe as wqe_describe() lays it
 * out, the power-of-two slots of wqe_calc_sq beside mlx5's WQE sizes for
 * the same QP, the inline limits of both, the receive slots of wqe_calc_rq
 * (struct rxe_recv_wqe) beside mlx5's, and why the layouts differ.
 * Every number comes from the library.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const enum wqe_wr_opcode rxe_ops[] = {
    WQE_WR_SEND,
    WQE_WR_SEND_WITH_IMM,
    WQE_WR_SEND_WITH_INV,
    WQE_WR_RDMA_WRITE,
    WQE_WR_RDMA_WRITE_WITH_IMM,
    WQE_WR_RDMA_READ,
    WQE_WR_ATOMIC_CMP_AND_SWP,
    WQE_WR_ATOMIC_FETCH_AND_ADD,
};
static const enum wqe_qp_type rxe_qps[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};

#define N_OPS (sizeof(rxe_ops) / sizeof(rxe_ops[0]))
#define N_QPS (sizeof(rxe_qps) / sizeof(rxe_qps[0]))

/* One field names list per segment: "wr_id, reserved, opcode, ...". */
static void field_names(const struct wqe_description *d, uint32_t from, uint32_t to, char *buf,
			size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t i = from; i < to && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i > from ? ", " : "",
				      d->field[i].name);
}

/* Encodes a UD SEND with one SGE (the address carried: ah_num 0) and prints
 * the segments wqe_describe() finds in it. */
static int print_layout(struct wqe_description *d)
{
	static uint8_t slot[WQE_MAX_BLOCKS * WQE_BLOCK_SIZE];
	struct wqe_ah ah = {.attr = {.port_num = 1}};
	struct wqe_sge sge = {0x7f0000001000ull, 64, 0x1234};
	struct wqe_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = WQE_WR_SEND};
	struct wqe_encode_qp qp = {WQE_QPT_UD, CLI_DEFAULT_QPN, 1, 0, 0};
	struct wqe_ring_view ring = {slot, WQE_MAX_BLOCKS};
	struct wqe_decode_ctx ctx = {.qp_type = WQE_QPT_UD, .qpn = CLI_DEFAULT_QPN};
	uint32_t nb = 0;
	char names[160];

	wr.wr.ud.ah = &ah;
	if (wqe_encode(WQE_FORMAT_RXE, &qp, &wr, &ring, 0, 0, &nb))
		return CLI_FAIL;
	ctx.max_bytes = nb * WQE_BLOCK_SIZE;
	if (wqe_describe(WQE_FORMAT_RXE, &ctx, slot, ctx.max_bytes, d) != WQE_DEC_OK)
		return CLI_FAIL;
	printf("struct rxe_send_wqe, as wqe_describe() lays it over a UD SEND with one SGE:\n");
	for (uint32_t i = 0; i < d->num_fields;) {
		uint32_t j = i, first = d->field[i].offset, end;

		while (j < d->num_fields && strcmp(d->field[j].segment, d->field[i].segment) == 0)
			j++;
		end = d->field[j - 1].offset + d->field[j - 1].length;
		field_names(d, i, j, names, sizeof(names));
		printf("  %-9s bytes %3u-%-3u %3u B  %s\n", d->field[i].segment, first, end - 1,
		       end - first, names);
		i = j;
	}
	printf("  (rdma, atomic or ud+av share bytes 24-143: the 120-byte union of struct "
	       "rxe_send_wr)\n");
	return CLI_OK;
}

/* The fixed part: the same for every opcode, transport and inline choice? */
static void print_fixed_rxe(void)
{
	uint32_t first = 0, n = 0;
	int same = 1;

	for (size_t o = 0; o < N_OPS; o++)
		for (size_t q = 0; q < N_QPS; q++)
			for (int inl = 0; inl <= 1; inl++) {
				uint32_t b =
				    wqe_fixed_size(WQE_FORMAT_RXE, rxe_qps[q], rxe_ops[o], inl);

				if (!b)
					continue; /* no inline on READ/atomics */
				if (!n++)
					first = b;
				same &= b == first;
			}
	printf("  fixed part (wqe_fixed_size): %u B for %s of the %u opcode, transport and "
	       "inline cases;\n  the SGE array (16 B each) or the inline bytes start at byte "
	       "%u\n\n",
	       first, same ? "every one" : "NOT every one", n, first);
}

/* One row: the slot rxe gives a QP asking @sge SGEs and @inl bytes inline,
 * and the WQE size mlx5 gives the same QP. */
static void print_slot_row(enum wqe_qp_type t, uint32_t sge, uint32_t inl)
{
	struct wqe_qp_cap rc = {64, 1, sge, 1, inl}, mc = {64, 1, sge, 1, inl};
	uint32_t slot = 0, ring = 0, mwqe = 0, mring = 0;

	printf("  %5u %7u  |", sge, inl);
	if (wqe_calc_sq(WQE_FORMAT_RXE, t, &rc, &slot, &ring))
		printf(" %6s %6s %6s %8s %8s %10s  |", "refused", "", "", "", "", "");
	else
		printf(" %6u %6u %6u %8u %8u %10u  |", slot, slot / WQE_BLOCK_SIZE, ring,
		       rc.max_send_wr, rc.max_send_sge, rc.max_inline_data);
	if (wqe_calc_sq(WQE_FORMAT_MLX5, t, &mc, &mwqe, &mring))
		printf(" %6s\n", "refused");
	else
		printf(" %6u %8u %10u\n", mwqe, mc.max_send_sge, mc.max_inline_data);
}

static const uint32_t slot_rows[][2] = {{1, 0},	   {1, 28}, {3, 0},   {4, 0},	{1, 64}, {16, 0},
					{16, 256}, {32, 0}, {1, 512}, {1, 513}, {33, 0}};
#define N_ROWS (sizeof(slot_rows) / sizeof(slot_rows[0]))

/* 1 if UC and UD get the slots RC gets for every row. */
static int slots_transport_free(void)
{
	for (size_t r = 0; r < N_ROWS; r++) {
		uint32_t want = 0, got, ring;
		struct wqe_qp_cap c = {64, 1, slot_rows[r][0], 1, slot_rows[r][1]};
		int refused = wqe_calc_sq(WQE_FORMAT_RXE, WQE_QPT_RC, &c, &want, &ring);

		for (size_t q = 1; q < N_QPS; q++) {
			struct wqe_qp_cap d = {64, 1, slot_rows[r][0], 1, slot_rows[r][1]};

			got = 0;
			if (wqe_calc_sq(WQE_FORMAT_RXE, rxe_qps[q], &d, &got, &ring) != refused ||
			    got != want)
				return 0;
		}
	}
	return 1;
}

static void print_slots(void)
{
	printf("QP creation sizing (wqe_calc_sq, max_send_wr 64), RC: every WQE of a QP fills one\n"
	       "slot of roundup_pow_of_two(fixed + max(16 x max_send_sge, max_inline_data)) "
	       "bytes;\none slot is always empty, so 64 WQEs need 128 slots. mlx5 for the "
	       "same QP on the right.\n");
	printf("  %5s %7s  | %6s %6s %6s %8s %8s %10s  | %6s %8s %10s\n", "sge", "inline", "slot",
	       "blocks", "ring", "send_wr", "send_sge", "max_inline", "mlx5 B", "send_sge",
	       "max_inline");
	for (size_t r = 0; r < N_ROWS; r++)
		print_slot_row(WQE_QPT_RC, slot_rows[r][0], slot_rows[r][1]);
	printf("  UC and UD: %s\n\n", slots_transport_free()
					  ? "the same slots (an rxe slot does not depend on the "
					    "transport; mlx5's UD WQEs are larger)"
					  : "DIFFERENT slots from RC");
}

/* The largest max_inline_data wqe_calc_sq accepts, and that QP's slot. */
static uint32_t rxe_max_inline(uint32_t *slot)
{
	uint32_t best = 0;

	*slot = 0;
	for (uint32_t inl = 0; inl <= WQE_MLX5_MAX_WQE_BYTES; inl++) {
		struct wqe_qp_cap c = {1, 1, 1, 1, inl};
		uint32_t bytes, ring;

		if (wqe_calc_sq(WQE_FORMAT_RXE, WQE_QPT_RC, &c, &bytes, &ring))
			break;
		best = c.max_inline_data;
		*slot = bytes;
	}
	return best;
}

static void print_inline(void)
{
	uint32_t slot, rxe_max = rxe_max_inline(&slot);
	uint32_t fixed = wqe_fixed_size(WQE_FORMAT_RXE, WQE_QPT_RC, WQE_WR_RDMA_WRITE, 1);
	uint32_t mfixed = wqe_fixed_size(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_RDMA_WRITE, 1);
	uint32_t one =
	    cli_max_inline_within(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_RDMA_WRITE, WQE_BLOCK_SIZE);
	uint32_t most = cli_max_inline_within(WQE_FORMAT_MLX5, WQE_QPT_RC, WQE_WR_RDMA_WRITE,
					      WQE_MAX_BLOCKS * WQE_BLOCK_SIZE);

	printf("Inline data (an RDMA_WRITE on RC):\n");
	printf("  rxe:  at most %u B (wqe_calc_sq refuses %u), copied after the %u-byte fixed "
	       "part:\n        %u + %u = %u B, so such a QP has %u-byte slots\n",
	       rxe_max, rxe_max + 1, fixed, fixed, rxe_max, fixed + rxe_max, slot);
	printf("  mlx5: %u B keep the WQE in one %u-byte block (fixed part %u B: ctrl + raddr + "
	       "inline header);\n        its largest WQE (DS 63: %u B in %u blocks) holds %u B\n\n",
	       one, WQE_BLOCK_SIZE, mfixed, WQE_MLX5_MAX_WQE_BYTES, WQE_MAX_BLOCKS, most);
}

/* The bytes of a receive WQE of @nsge SGEs, as wqe_decode_recv() reads
 * back what wqe_encode_recv() wrote; 0 if either refuses. */
static uint32_t recv_bytes(int nsge)
{
	static uint8_t slot[2048];
	struct wqe_sge sg[2] = {{0x7f0000001000ull, 64, 0x1234}, {0x7f0000002000ull, 64, 0x1234}};
	struct wqe_recv_wr wr = {.wr_id = 1, .sg_list = sg, .num_sge = nsge};
	static struct wqe_recv_desc d;

	if (wqe_encode_recv(WQE_FORMAT_RXE, &wr, slot, sizeof(slot)) ||
	    wqe_decode_recv(WQE_FORMAT_RXE, slot, sizeof(slot), &d) != WQE_DEC_OK)
		return 0;
	return d.size;
}

static void print_recv_row(uint32_t sge)
{
	struct wqe_qp_cap rc = {1, 64, 1, sge, 0}, mc = {1, 64, 1, sge, 0};
	uint32_t slot = 0, n = 0, mslot = 0, mn = 0;

	printf("  %8u  |", sge);
	if (wqe_calc_rq(WQE_FORMAT_RXE, &rc, &slot, &n))
		printf(" %-30s  |", "refused");
	else
		printf(" %6u %6u %7u %8u  |", slot, n, slot * n, rc.max_recv_wr);
	if (wqe_calc_rq(WQE_FORMAT_MLX5, &mc, &mslot, &mn))
		printf(" %6s\n", "refused");
	else
		printf(" %6u %6u %8u\n", mslot, mn, mc.max_recv_wr);
}

static void print_recv(void)
{
	static const uint32_t rows[] = {1, 2, 5, 6, 13, 14, 29, 30, 32, 33, 64};
	uint32_t fixed = recv_bytes(0), sge = recv_bytes(1) - fixed;

	printf("Receive queue (wqe_calc_rq, max_recv_wr 64): struct rxe_recv_wqe is %u B (wr_id,\n"
	       "reserved, padding, then the dma header: length, resid, cur_sge, num_sge,\n"
	       "sge_offset, reserved), then %u B per SGE (addr, length, lkey), in a slot of\n"
	       "roundup_pow_of_two(%u + %u x max_recv_sge) bytes, at least a 64-byte cache line;\n"
	       "one slot is always empty, so 64 receives need 128 slots. mlx5's receive slots\n"
	       "(%u-byte data segments, no header) for the same QP on the right.\n",
	       fixed, sge, fixed, sge, sge);
	printf("  %8s  | %6s %6s %7s %8s  | %6s %6s %8s\n", "recv_sge", "slot", "slots", "ring",
	       "recv_wr", "mlx5 B", "slots", "recv_wr");
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		print_recv_row(rows[r]);
	printf("\n");
}

static void print_why(void)
{
	printf("Why they differ:\n"
	       "  mlx5 writes what its hardware parses: packed big-endian 16-byte segments in\n"
	       "  64-byte blocks, as few as the request needs (a 6-bit DS count says how many).\n"
	       "  The control segment carries the opcode, the WQE index and the QP number, and\n"
	       "  its first 8 bytes are the doorbell; inline data shares the first block.\n"
	       "  rxe's WQE is a software struct in host byte order: the verbs Work Request\n"
	       "  nearly verbatim (wr_id included, a union sized for a whole UD address), then\n"
	       "  progress state the driver updates in place (iova, PSNs, dma cursor). It has no\n"
	       "  size, index or QP number: the doorbell is a system call naming the QP, and\n"
	       "  every WQE fills a power-of-two slot sized for the QP's largest, so inline data\n"
	       "  has the room of the SGE array (32 x 16 = 512 B) and a UD send names its\n"
	       "  address by ah_num, for the NIC to look up in its address-handle table.\n");
}

int cli_sizes_rxe(void)
{
	struct wqe_description *d = malloc(sizeof(*d));
	int rc = d ? print_layout(d) : CLI_FAIL;

	free(d);
	if (rc != CLI_OK) {
		fprintf(stderr,
			"wqe sizes: the rxe encoder or describer refused a plain UD SEND\n");
		return rc;
	}
	print_fixed_rxe();
	print_slots();
	print_inline();
	print_recv();
	print_why();
	return CLI_OK;
}
