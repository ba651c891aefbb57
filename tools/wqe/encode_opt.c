/* SPDX-License-Identifier: MIT */
/*
 * The options of wqe encode and the checks of a request against them,
 * shared by the CLI (encode.c) and libwqe_dpi (src/dpi): see encode_opt.h.
 */
#include <string.h>

#include "encode_opt.h"

void cli_encode_defaults(struct cli_encode_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->fmt[0] = WQE_FORMAT_MLX5;
	cfg->nfmt = 1;
	cli_pkt_defaults(&cfg->pkt);
	cfg->qp.qp_type = WQE_QPT_RC;
	cfg->qp.qpn = CLI_DEFAULT_QPN;
	cfg->qp.max_send_sge = 4;
	cfg->max_recv_sge = 4;
}

/* The options of the WQE itself: 1 taken, 0 not one of them, -1 bad. */
static int qp_opt(int argc, char **argv, int *i, struct cli_encode_cfg *cfg, char *msg, size_t cap)
{
	const char *v;
	int m;

	if ((m = cli_opt_msg(argc, argv, i, "--qp", &v, msg, cap)) != 0)
		return m < 0 || cli_parse_qp(v, &cfg->qp.qp_type) ? -1 : 1;
	if ((m = cli_opt_msg(argc, argv, i, "--qpn", &v, msg, cap)) != 0)
		return m < 0 || cli_parse_u32(v, 0xffffff, &cfg->qp.qpn) ? -1 : 1;
	if ((m = cli_opt_msg(argc, argv, i, "--wqe-index", &v, msg, cap)) != 0)
		return m < 0 || cli_parse_u32(v, UINT32_MAX, &cfg->wqe_index) ? -1 : 1;
	if ((m = cli_opt_msg(argc, argv, i, "--max-sge", &v, msg, cap)) != 0)
		return m < 0 || cli_parse_u32(v, WQE_DESC_MAX_SGE, &cfg->qp.max_send_sge) ? -1 : 1;
	if ((m = cli_opt_msg(argc, argv, i, "--max-inline", &v, msg, cap)) != 0) {
		cfg->max_inline_given = 1;
		return m < 0 || cli_parse_u32(v, WQE_MLX5_MAX_WQE_BYTES, &cfg->qp.max_inline_data)
			   ? -1
			   : 1;
	}
	if ((m = cli_opt_msg(argc, argv, i, "--max-recv-sge", &v, msg, cap)) != 0)
		return m < 0 || cli_parse_u32(v, WQE_DESC_MAX_SGE, &cfg->max_recv_sge) ? -1 : 1;
	if ((m = cli_opt_msg(argc, argv, i, "--format", &v, msg, cap)) != 0)
		return m < 0 || cli_parse_formats(v, cfg->fmt, &cfg->nfmt) ? -1 : 1;
	if (strcmp(argv[*i], "--sig-all") == 0) {
		cfg->qp.sq_sig_all = 1;
		return 1;
	}
	if (strcmp(argv[*i], "--raw") == 0) {
		cfg->raw = 1;
		return 1;
	}
	return 0;
}

int cli_encode_opt(int argc, char **argv, int *i, struct cli_encode_cfg *cfg, char *msg, size_t cap)
{
	int m;

	msg[0] = '\0';
	m = cli_pkt_opt(argc, argv, i, &cfg->pkt, msg, cap);
	if (m > 0)
		return 0;
	if (m < 0)
		return -1;
	m = qp_opt(argc, argv, i, cfg, msg, cap);
	if (m > 0)
		return 0;
	/* A missing value has its own message; anything else is named (the
	 * value when there was one: *@i has moved to it). */
	if (m == 0 || !msg[0])
		snprintf(msg, cap, "bad option or value '%s'", argv[*i]);
	return -1;
}

/*
 * The QP of format @k: what a QP created with --max-sge SGEs allows inline
 * (mlx5_calc_send_wqe, rxe_init_sq), unless --max-inline says. An rxe QP
 * is checked against its limits even then (32 SGEs, 512 bytes inline):
 * its slot is sized from both.
 */
static int format_qp(struct cli_encode_cfg *cfg, size_t k)
{
	struct wqe_qp_cap qcap = {
	    .max_send_wr = 1,
	    .max_recv_wr = 1,
	    .max_send_sge = cfg->qp.max_send_sge,
	    .max_recv_sge = 1,
	    .max_inline_data = cfg->max_inline_given ? cfg->qp.max_inline_data : 0,
	};
	uint32_t wqe_bytes, ring_blocks;

	cfg->fqp[k] = cfg->qp;
	if (cfg->max_inline_given && cfg->fmt[k] != WQE_FORMAT_RXE)
		return 0;
	if (wqe_calc_sq(cfg->fmt[k], cfg->qp.qp_type, &qcap, &wqe_bytes, &ring_blocks))
		return -1;
	if (!cfg->max_inline_given)
		cfg->fqp[k].max_inline_data = qcap.max_inline_data;
	return 0;
}

int cli_encode_check_cfg(struct cli_encode_cfg *cfg, char *msg, size_t cap)
{
	if (cfg->raw && cfg->pkt.on) {
		snprintf(msg, cap, "--raw and --packets exclude each other");
		return -1;
	}
	if (cfg->nfmt > 1 && (cfg->raw || cfg->pkt.on)) {
		snprintf(msg, cap, "%s takes one format: give --format mlx5 or --format rxe",
			 cfg->raw ? "--raw" : "--packets");
		return -1;
	}
	if (cli_pkt_check_cfg(&cfg->pkt, cfg->qp.qp_type, msg, cap))
		return -1;
	for (size_t k = 0; k < cfg->nfmt; k++) {
		if (!format_qp(cfg, k))
			continue;
		if (cfg->max_inline_given)
			snprintf(msg, cap,
				 "no %s %s QP holds %u SGEs and %u bytes inline "
				 "(--max-sge, --max-inline; rxe: at most 32 and 512)",
				 wqe_format_str(cfg->fmt[k]), wqe_qp_type_str(cfg->qp.qp_type),
				 cfg->qp.max_send_sge, cfg->qp.max_inline_data);
		else
			snprintf(msg, cap, "no %s WQE holds %u SGEs (--max-sge)%s",
				 wqe_qp_type_str(cfg->qp.qp_type), cfg->qp.max_send_sge,
				 cfg->fmt[k] == WQE_FORMAT_RXE ? " in the rxe format (at most 32)"
							       : "");
		return -1;
	}
	return 0;
}

int cli_encode_check_wr(const struct cli_encode_cfg *cfg, const char *line, size_t len,
			const struct wqe_send_wr *wr, char *msg, size_t cap, uint32_t *col)
{
	char why[200];
	const char *key;
	int nth;

	for (size_t k = 0; k < cfg->nfmt; k++) {
		const struct wqe_encode_qp *qp = &cfg->fqp[k];
		struct cli_check chk = {qp->qp_type, qp->max_send_sge, qp->max_inline_data};

		if (cli_check_request(&chk, wr, why, sizeof(why), &key, &nth)) {
			snprintf(msg, cap, "%s%s%s",
				 cfg->nfmt > 1 ? wqe_format_str(cfg->fmt[k]) : "",
				 cfg->nfmt > 1 ? ": " : "", why);
			*col = cli_key_column(line, len, key, nth);
			return -1;
		}
	}
	if (cli_pkt_check_wr(&cfg->pkt, cfg->qp.qp_type, wr, msg, cap, &key)) {
		*col = cli_key_column(line, len, key, 1);
		return -1;
	}
	return 0;
}

int cli_encode_wr(const struct cli_encode_cfg *cfg, size_t k, const struct wqe_send_wr *wr,
		  uint32_t index, uint8_t bytes[CLI_RING_BLOCKS * WQE_BLOCK_SIZE], uint32_t *nbytes)
{
	struct wqe_ring_view ring = {bytes, CLI_RING_BLOCKS};
	uint32_t nblocks = 0;

	if (wqe_encode(cfg->fmt[k], &cfg->fqp[k], wr, &ring, 0, index, &nblocks))
		return -1;
	*nbytes = nblocks * WQE_BLOCK_SIZE;
	return 0;
}
