/* SPDX-License-Identifier: MIT */
/*
 * encode_opt.h - the options of `wqe encode` and the checks they make,
 * private to the tool and to libwqe_dpi (src/dpi), which compiles
 * encode_opt.c, packets_opt.c, expand.c and util.c too: the CLI, the DPI-C
 * layer and the Python module parse options with this one code, so they
 * cannot disagree about what an option means.
 *
 * Nothing here prints: every refusal is a message in a caller buffer.
 * Reentrant: no static state.
 */
#ifndef WQE_CLI_ENCODE_OPT_H
#define WQE_CLI_ENCODE_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "packets.h"

/* What the options of wqe encode say. */
struct cli_encode_cfg {
	enum wqe_format fmt[CLI_MAX_FORMATS]; /* shown one after the other */
	size_t nfmt;
	struct wqe_encode_qp qp;		   /* as the options give it */
	struct wqe_encode_qp fqp[CLI_MAX_FORMATS]; /* the QP of each format (check_cfg) */
	uint32_t wqe_index;
	uint32_t max_recv_sge; /* receive requests: sizes their slot */
	int raw;
	int max_inline_given;
	struct cli_pkt_cfg pkt;
};

/* The defaults: mlx5, RC, QPN 0x000123, 4 SGEs, inline as wqe_calc_sq
 * gives, WQE index 0, 4 receive SGEs, and cli_pkt_defaults(). */
void cli_encode_defaults(struct cli_encode_cfg *cfg);

/*
 * cli_encode_opt - take argv[*@i], an option of wqe encode (--packets and
 * its options included). Returns 0 (taken, *@i advanced past a separate
 * value) or -1 with @msg filled: an unknown option, a missing or bad value.
 */
int cli_encode_opt(int argc, char **argv, int *i, struct cli_encode_cfg *cfg, char *msg,
		   size_t cap);

/*
 * cli_encode_check_cfg - the options together (what cannot be judged one
 * option at a time), and the QP of each format (cfg->fqp). 0, or -1 with
 * @msg filled.
 */
int cli_encode_check_cfg(struct cli_encode_cfg *cfg, char *msg, size_t cap);

/*
 * cli_encode_check_wr - the checks of wqe_post_send() of the parsed request
 * @wr (from the line @line, @len bytes) against the QP of every format,
 * then what --packets asks of it. 0, or -1 with @msg filled and *@col the
 * 1-based column of the line the problem is about.
 */
int cli_encode_check_wr(const struct cli_encode_cfg *cfg, const char *line, size_t len,
			const struct wqe_send_wr *wr, char *msg, size_t cap, uint32_t *col);

/*
 * cli_encode_wr - wqe_encode() of the checked request @wr for format @k at
 * WQE index @index into @bytes (CLI_RING_BLOCKS blocks, the first at 0).
 * 0 with *@nbytes the bytes written (whole blocks; rxe: the whole slot),
 * or -1 (the encoder refused: EINVAL).
 */
int cli_encode_wr(const struct cli_encode_cfg *cfg, size_t k, const struct wqe_send_wr *wr,
		  uint32_t index, uint8_t bytes[CLI_RING_BLOCKS * WQE_BLOCK_SIZE],
		  uint32_t *nbytes);

#endif /* WQE_CLI_ENCODE_OPT_H */
