/* SPDX-License-Identifier: MIT */
/*
 * wqe sizes: the WQE sizes of a format, every number computed by the
 * library's own functions (wqe_fixed_size, wqe_encoded_size, wqe_calc_sq).
 */
#include <string.h>

#include "cli.h"

void usage_sizes(FILE *f)
{
	fprintf(f,
		"usage: wqe sizes [--format mlx5|rxe]\n"
		"Prints the segment sizes, the fixed part of every WQE kind per transport, the\n"
		"figures of Kong et al. (NSDI 2023: 36-byte RC/UC and 68-byte UD WQEs, 28 bytes\n"
		"of inline data in one 64-byte block) and the QP-creation sizing, all computed\n"
		"by the library (wqe_fixed_size, wqe_encoded_size, wqe_calc_sq).\n"
		"--format rxe: the 208-byte struct rxe_send_wqe and its parts, the power-of-two\n"
		"slots wqe_calc_sq gives beside mlx5's WQE sizes for the same QP, the inline\n"
		"limits of both (512 bytes in a 1024-byte slot; 28 in one 64-byte block), and\n"
		"why the two layouts differ.\n");
}

static const enum wqe_wr_opcode all_ops[] = {
	WQE_WR_SEND,       WQE_WR_SEND_WITH_IMM,       WQE_WR_SEND_WITH_INV,
	WQE_WR_RDMA_WRITE, WQE_WR_RDMA_WRITE_WITH_IMM, WQE_WR_RDMA_READ,
	WQE_WR_ATOMIC_CMP_AND_SWP, WQE_WR_ATOMIC_FETCH_AND_ADD,
};
static const enum wqe_qp_type all_qps[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};

#define NUM_OPS (sizeof(all_ops) / sizeof(all_ops[0]))
#define NUM_QPS (sizeof(all_qps) / sizeof(all_qps[0]))

/* Bytes wqe_encoded_size() gives a request of @nsge SGEs of @len bytes each. */
static uint32_t encoded(enum wqe_format fmt, enum wqe_qp_type t, enum wqe_wr_opcode op,
			uint32_t nsge, uint32_t len, int is_inline)
{
	static uint8_t payload[WQE_MLX5_MAX_WQE_BYTES];
	struct wqe_sge sge[WQE_DESC_MAX_SGE];
	struct wqe_ah ah;
	struct wqe_send_wr wr;
	/* The most a QP of the format holds (rxe: 32 SGEs, 512 bytes inline). */
	struct wqe_encode_qp qp = {t, CLI_DEFAULT_QPN, WQE_DESC_MAX_SGE, WQE_MLX5_MAX_WQE_BYTES,
				   0};
	uint32_t bytes = 0;

	if (fmt == WQE_FORMAT_RXE) {
		qp.max_send_sge = 32;
		qp.max_inline_data = 512;
	}
	memset(&wr, 0, sizeof(wr));
	memset(&ah, 0, sizeof(ah));
	for (uint32_t i = 0; i < nsge && i < WQE_DESC_MAX_SGE; i++) {
		sge[i].addr = (uint64_t)(uintptr_t)payload;
		sge[i].length = len;
		sge[i].lkey = 1;
	}
	wr.opcode = op;
	wr.sg_list = sge;
	wr.num_sge = (int)nsge;
	wr.send_flags = is_inline ? WQE_SEND_INLINE : 0;
	if (t == WQE_QPT_UD)
		wr.wr.ud.ah = &ah;
	if (wqe_encoded_size(fmt, &qp, &wr, &bytes))
		return 0;
	return bytes;
}

uint32_t cli_max_inline_within(enum wqe_format fmt, enum wqe_qp_type t, enum wqe_wr_opcode op,
			       uint32_t limit)
{
	uint32_t best = 0;

	for (uint32_t len = 1; len <= WQE_MLX5_MAX_WQE_BYTES; len++) {
		uint32_t b = encoded(fmt, t, op, 1, len, 1);

		if (b == 0 || b > limit)
			break;
		best = len;
	}
	return best;
}

/* The data-segment size: the block that holds the most SGEs after the fixed part. */
static uint32_t data_seg_size(enum wqe_format fmt)
{
	uint32_t fixed = wqe_fixed_size(fmt, WQE_QPT_RC, WQE_WR_RDMA_WRITE, 0), n = 1;

	while (n < WQE_DESC_MAX_SGE &&
	       encoded(fmt, WQE_QPT_RC, WQE_WR_RDMA_WRITE, n + 1, 1, 0) == WQE_BLOCK_SIZE)
		n++;
	return (WQE_BLOCK_SIZE - fixed) / n;
}

static void print_segments(enum wqe_format fmt)
{
	uint32_t ctrl = wqe_fixed_size(fmt, WQE_QPT_RC, WQE_WR_SEND, 0);
	uint32_t rdma = wqe_fixed_size(fmt, WQE_QPT_RC, WQE_WR_RDMA_WRITE, 0);
	uint32_t atomic = wqe_fixed_size(fmt, WQE_QPT_RC, WQE_WR_ATOMIC_CMP_AND_SWP, 0);
	uint32_t ud = wqe_fixed_size(fmt, WQE_QPT_UD, WQE_WR_SEND, 0);
	uint32_t inl = wqe_fixed_size(fmt, WQE_QPT_RC, WQE_WR_SEND, 1);

	printf("Segments (bytes):\n");
	printf("  ctrl %u, raddr %u, atomic %u, datagram %u, data %u, inline header %u\n", ctrl,
	       rdma - ctrl, atomic - rdma, ud - ctrl, data_seg_size(fmt), inl - ctrl);
	printf("  a WQE takes whole %u-byte blocks; at most %u bytes (DS is 6 bits: 63 x 16)\n\n",
	       WQE_BLOCK_SIZE, WQE_MLX5_MAX_WQE_BYTES);
}

static void print_fixed_row(enum wqe_format fmt, enum wqe_wr_opcode op)
{
	enum wqe_op o = WQE_OP_SEND;

	cli_op_of_wr(op, &o);
	printf("  %-22s", wqe_wr_opcode_str(op));
	for (int inl = 0; inl <= 1; inl++) {
		for (size_t q = 0; q < NUM_QPS; q++) {
			uint32_t b = wqe_fixed_size(fmt, all_qps[q], op, inl);

			if (b && wqe_op_legal(o, all_qps[q]))
				printf(" %6u", b);
			else
				printf(" %6s", "-");
		}
		printf(inl ? "\n" : "   ");
	}
}

static void print_fixed(enum wqe_format fmt)
{
	printf("Fixed part of a WQE: every segment but its data segments or inline payload\n"
	       "(wqe_fixed_size; the inline columns count the 4-byte inline header;\n"
	       "'-' = not legal on the transport or no inline):\n");
	printf("  %-22s %6s %6s %6s   %6s %6s %6s\n", "opcode", "RC", "UC", "UD", "RC inl",
	       "UC inl", "UD inl");
	for (size_t i = 0; i < NUM_OPS; i++)
		print_fixed_row(fmt, all_ops[i]);
	printf("\n");
}

static void print_kong(enum wqe_format fmt)
{
	uint32_t rc = wqe_fixed_size(fmt, WQE_QPT_RC, WQE_WR_RDMA_WRITE, 1);
	uint32_t uc = wqe_fixed_size(fmt, WQE_QPT_UC, WQE_WR_RDMA_WRITE, 1);
	uint32_t ud = wqe_fixed_size(fmt, WQE_QPT_UD, WQE_WR_SEND, 1);
	uint32_t rc_max = cli_max_inline_within(fmt, WQE_QPT_RC, WQE_WR_RDMA_WRITE, WQE_BLOCK_SIZE);
	uint32_t uc_max = cli_max_inline_within(fmt, WQE_QPT_UC, WQE_WR_RDMA_WRITE, WQE_BLOCK_SIZE);

	printf("Kong et al. (NSDI 2023), recomputed:\n");
	printf("  RC/UC inline WQE fixed part: %u B (RC) / %u B (UC): RDMA_WRITE, ctrl + raddr "
	       "+ inline header\n", rc, uc);
	printf("  UD inline WQE fixed part: %u B: SEND, ctrl + datagram + inline header\n", ud);
	printf("  largest inline payload keeping an RDMA_WRITE in one %u-byte block: %u B (RC) "
	       "/ %u B (UC)\n", WQE_BLOCK_SIZE, rc_max, uc_max);
	printf("    searched with wqe_encoded_size: %u B inline -> %u B, %u B inline -> %u B\n",
	       rc_max, encoded(fmt, WQE_QPT_RC, WQE_WR_RDMA_WRITE, 1, rc_max, 1), rc_max + 1,
	       encoded(fmt, WQE_QPT_RC, WQE_WR_RDMA_WRITE, 1, rc_max + 1, 1));
	printf("  for comparison: an RC SEND keeps %u B inline in one block; a UD SEND never "
	       "fits one block and keeps %u B in two\n\n",
	       cli_max_inline_within(fmt, WQE_QPT_RC, WQE_WR_SEND, WQE_BLOCK_SIZE),
	       cli_max_inline_within(fmt, WQE_QPT_UD, WQE_WR_SEND, 2 * WQE_BLOCK_SIZE));
}

static void print_calc_row(enum wqe_format fmt, enum wqe_qp_type t, uint32_t sge,
			   uint32_t inl)
{
	struct wqe_qp_cap cap = {64, 1, sge, 1, inl};
	uint32_t wqe_bytes = 0, ring = 0;

	printf("  %-3s %5u %7u  |", wqe_qp_type_str(t), sge, inl);
	if (wqe_calc_sq(fmt, t, &cap, &wqe_bytes, &ring)) {
		printf("  refused (EINVAL)\n");
		return;
	}
	printf(" %6u %6u %6u %8u %8u %10u\n", wqe_bytes, wqe_bytes / WQE_BLOCK_SIZE, ring,
	       cap.max_send_wr, cap.max_send_sge, cap.max_inline_data);
}

static void print_calc(enum wqe_format fmt)
{
	static const uint32_t rows[][2] = {{1, 0}, {1, 28}, {1, 29}, {1, 64}, {4, 0}, {16, 256}};

	printf("QP creation sizing (wqe_calc_sq, max_send_wr 64): asked -> given\n");
	printf("  %-3s %5s %7s  | %6s %6s %6s %8s %8s %10s\n", "QP", "sge", "inline", "WQE B",
	       "blocks", "ring", "send_wr", "send_sge", "max_inline");
	for (size_t q = 0; q < NUM_QPS; q++)
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
			print_calc_row(fmt, all_qps[q], rows[r][0], rows[r][1]);
}

int cmd_sizes(int argc, char **argv)
{
	enum wqe_format fmt = WQE_FORMAT_MLX5;
	const char *v;

	for (int i = 1; i < argc; i++) {
		int m = cli_opt(argc, argv, &i, "--format", &v);

		if (m <= 0 || cli_parse_format(v, &fmt))
			return cli_usage_error("sizes", usage_sizes, "bad argument '%s'", argv[i]);
	}
	printf("WQE sizes of the %s format, computed by the library\n\n", wqe_format_str(fmt));
	if (fmt == WQE_FORMAT_RXE)
		return cli_sizes_rxe();
	print_segments(fmt);
	print_fixed(fmt);
	print_kong(fmt);
	print_calc(fmt);
	return CLI_OK;
}
