/* SPDX-License-Identifier: MIT */
/* What the files of libwqe_dpi share (private). */
#ifndef WQE_DPI_INT_H
#define WQE_DPI_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "encode_opt.h"
#include "wqe/desc.h"
#include "wqe/dpi.h"
#include "wqe/packetize.h"

/* What a call parses its options for: which of them it takes. */
enum dpi_mode {
	DPI_ENCODE = 0, /* the WQE options only */
	DPI_PACKETS = 1 /* and the path: as wqe encode --packets */
};

/* Writes the message (printf-style) to @msg, cut to @msgcap; returns @err. */
int dpi_fail(unsigned char *msg, int msgcap, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Sets @msg to "" (success). */
void dpi_ok(unsigned char *msg, int msgcap);

/* The options string -> @cfg, checked together: 0 or a negative error. */
int dpi_options(const char *opts, enum dpi_mode mode, struct cli_encode_cfg *cfg,
		unsigned char *msg, int msgcap);

/*
 * Parses, checks and encodes the one request of @line for @cfg into
 * @bytes: 0 with *@nbytes, or a negative error (message written).
 * @req is the parser's storage (large: the caller's heap).
 */
int dpi_encode_line(const struct cli_encode_cfg *cfg, const char *line, struct wqe_text_wr *req,
		    uint8_t bytes[CLI_RING_BLOCKS * WQE_BLOCK_SIZE], uint32_t *nbytes,
		    unsigned char *msg, int msgcap);

/* Decodes @wqe for the QP of @cfg into @d: 0 or WQE_DPI_EWQE (message). */
int dpi_decode(const struct cli_encode_cfg *cfg, const unsigned char *wqe, int len,
	       struct wqe_desc *d, unsigned char *msg, int msgcap);

/* One WQE's expansion: the packetizer, its payload and its verdict. */
struct dpi_expansion {
	struct wqe_desc d;
	struct wqe_pktz z;
	struct wqe_iov iov[WQE_DESC_MAX_SGE];
	uint32_t niov;
	uint8_t *mem;		   /* the synthetic memory; NULL when none */
	enum wqe_wc_status status; /* what the NIC completes the WQE with */
	uint8_t dummy;		   /* what a count-only expansion points at */
};

/*
 * Starts expanding the decoded x->d for @cfg at PSN cfg->pkt.psn with IPv4
 * identification @ip_id. With @payload the payload is built (the synthetic
 * memory); without, the pieces only have their lengths and no packet may
 * be built (counting needs no bytes). A WQE the NIC refuses sets
 * x->status and x->z.npkts = 0. Returns 0 or WQE_DPI_ENOMEM (message).
 */
int dpi_expand(const struct cli_encode_cfg *cfg, struct dpi_expansion *x, int payload,
	       uint16_t ip_id, unsigned char *msg, int msgcap);

#endif /* WQE_DPI_INT_H */
