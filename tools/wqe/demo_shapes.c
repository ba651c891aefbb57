/* SPDX-License-Identifier: MIT */
/*
 * The demo's closing part: one request in the on-chip shapes of two real
 * NICs, mlx5 and Linux rxe, to show that the same software Work Request
 * becomes different bytes in different silicon (or software).
 */
#include <string.h>

#include "cli.h"

/* An RC RDMA WRITE of 28 bytes inline: the mlx5 one-block case. */
static const char request[] = "write id=7 raddr=0x200000000040 rkey=0xabcd "
			      "inline=a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babb "
			      "flags=signaled";

int demo_shape_encode(enum wqe_format fmt, const uint8_t **wqe, uint32_t *len)
{
	static struct wqe_text_wr req;
	struct wqe_text_err te;
	struct wqe_qp_cap cap = {16, 16, 1, 1, 28};
	uint32_t bytes, blocks, nb = 0;
	static uint8_t ring[1024 * 16];
	struct wqe_encode_qp eq;
	struct wqe_ring_view v = {ring, 16};

	if (wqe_parse_send_wr(request, sizeof(request) - 1, NULL, &req, &te) ||
	    wqe_calc_sq(fmt, WQE_QPT_RC, &cap, &bytes, &blocks))
		return -1;
	eq = (struct wqe_encode_qp){WQE_QPT_RC, CLI_DEFAULT_QPN, cap.max_send_sge,
				    cap.max_inline_data, 0};
	v.nblocks = bytes / WQE_BLOCK_SIZE < 16 ? 16 : bytes / WQE_BLOCK_SIZE;
	memset(ring, 0, sizeof(ring));
	if (wqe_encode(fmt, &eq, &req.wr, &v, 0, 0, &nb))
		return -1;
	*wqe = ring;
	*len = nb * WQE_BLOCK_SIZE;
	return 0;
}

const char *demo_shape_request(void)
{
	return request;
}

static int one_shape(enum wqe_format fmt)
{
	const uint8_t *wqe;
	uint32_t len;

	if (demo_shape_encode(fmt, &wqe, &len))
		return -1;
	printf("\n-- %s: %u bytes in the ring (%u block%s of 64 B)\n", wqe_format_str(fmt), len,
	       len / WQE_BLOCK_SIZE, len == WQE_BLOCK_SIZE ? "" : "s");
	return wqe_print_wqe(stdout, fmt,
			     &(struct wqe_decode_ctx){.qp_type = WQE_QPT_RC,
						      .max_bytes = len,
						      .qpn = CLI_DEFAULT_QPN},
			     wqe, len) ? -1 : 0;
}

int demo_two_shapes(void)
{
	printf("\n== One request, two on-chip shapes ==\n"
	       "The standard fixes what a Work Request says, not how a NIC stores it. The same "
	       "request,\n  %s\n"
	       "as an mlx5 NIC finds it in its ring (big-endian packed segments, 64-byte blocks; "
	       "the first\n8 bytes of the control segment also cross the doorbell) and as Linux "
	       "rxe stores it (a\nhost-endian struct carrying the verbs request nearly as is, "
	       "plus the driver's progress\nfields, in a power-of-two slot):\n",
	       request);
	if (one_shape(WQE_FORMAT_MLX5) || one_shape(WQE_FORMAT_RXE))
		return -1;
	printf("\nSame operation, same 28 payload bytes, same packets on the wire "
	       "(docs/formats.md).\n");
	return 0;
}
