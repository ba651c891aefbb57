/* SPDX-License-Identifier: MIT */
/*
 * libwqe_dpi: a WQE's packets and a frame's ICRC (wqe/dpi.h). The
 * expansion is the one of wqe encode --packets: the WQE bytes are decoded
 * as the NIC decodes them and run through the public packetizer, the
 * payload and the path from the CLI's own code (tools/wqe/expand.c).
 */
#include <stdlib.h>
#include <string.h>

#include "dpi/dpi_int.h"
#include "wqe/wire.h"

#define PSN_MASK 0xffffffu
/* Longest message the engine takes (src/engine: MAX_MSG): 2^31 bytes. */
#define DPI_MAX_MSG (1ull << 31)

static int is_rd_atomic(enum wqe_op op)
{
	return op == WQE_OP_RDMA_READ || op == WQE_OP_ATOMIC_CMP_AND_SWP ||
	       op == WQE_OP_ATOMIC_FETCH_AND_ADD;
}

/* Pieces with the payload's lengths and no bytes: init only sums them. */
static void count_only_payload(struct dpi_expansion *x)
{
	const struct wqe_desc *d = &x->d;

	x->niov = 0;
	if (is_rd_atomic(d->op))
		return;
	if (d->is_inline) {
		x->iov[0] = (struct wqe_iov){d->inline_data, d->inline_len};
		x->niov = 1;
		return;
	}
	for (uint32_t i = 0; i < d->num_sge; i++)
		x->iov[i] = (struct wqe_iov){&x->dummy, d->sge[i].length};
	x->niov = d->num_sge;
}

int dpi_expand(const struct cli_encode_cfg *cfg, struct dpi_expansion *x, int payload,
	       uint16_t ip_id, unsigned char *msg, int msgcap)
{
	const struct wqe_desc *d = &x->d;
	struct wqe_pktz_qp qp;

	memset(&x->z, 0, sizeof(x->z));
	x->mem = NULL;
	x->status = WQE_WC_SUCCESS;
	/* The requester's processing-time checks that need no key table,
	 * in its order: a refused WQE sends nothing. */
	if (!wqe_op_legal(d->op, cfg->qp.qp_type)) {
		x->status = WQE_WC_LOC_QP_OP_ERR;
		return 0;
	}
	if (d->total_len > DPI_MAX_MSG) {
		x->status = WQE_WC_LOC_LEN_ERR;
		return 0;
	}
	if (!payload) {
		count_only_payload(x);
	} else if (!is_rd_atomic(d->op) && !d->is_inline && d->total_len > CLI_PKT_MAX_MSG) {
		return dpi_fail(msg, msgcap, WQE_DPI_ENOMEM,
				"the model builds the packets of messages of up to %u bytes, "
				"not %llu",
				CLI_PKT_MAX_MSG, (unsigned long long)d->total_len);
	} else if (cli_payload_of(d, x->iov, &x->niov, &x->mem)) {
		return dpi_fail(msg, msgcap, WQE_DPI_ENOMEM, "out of memory");
	}
	cli_pktz_qp_of(&cfg->pkt, &cfg->fqp[0], &qp);
	/* What the packetizer refuses of a decoded WQE is a UD message over
	 * the MTU, which the NIC sends as nothing and completes successfully
	 * (IBTA C10-93.1.1, as rxe): no packet, no error. */
	if (wqe_pktz_init(&x->z, &qp, d, cfg->pkt.psn, x->iov, x->niov, ip_id))
		memset(&x->z, 0, sizeof(x->z));
	return 0;
}

/* The working storage of one expansion. */
struct pkt_work {
	struct cli_encode_cfg cfg;
	struct dpi_expansion x;
	struct wqe_text_wr req;
	uint8_t bytes[CLI_RING_BLOCKS * WQE_BLOCK_SIZE];
	uint8_t frame[WQE_FRAME_MAX];
};

static struct pkt_work *work_new(unsigned char *msg, int msgcap)
{
	struct pkt_work *w = malloc(sizeof(*w));

	if (!w)
		dpi_fail(msg, msgcap, WQE_DPI_ENOMEM, "out of memory");
	else
		w->x.mem = NULL;
	return w;
}

static void work_free(struct pkt_work *w)
{
	free(w->x.mem);
	free(w);
}

/* @opts parsed, @wqe decoded and expanded into w->x (with its payload if
 * @payload): 0 or a negative error, said in @msg. */
static int work_expand(struct pkt_work *w, const char *opts, const unsigned char *wqe, int len,
		       int payload, uint16_t ip_id, unsigned char *msg, int msgcap)
{
	int rc = dpi_options(opts, DPI_PACKETS, &w->cfg, msg, msgcap);

	if (!rc)
		rc = dpi_decode(&w->cfg, wqe, len, &w->x.d, msg, msgcap);
	if (!rc)
		rc = dpi_expand(&w->cfg, &w->x, payload, ip_id, msg, msgcap);
	return rc;
}

int wqe_dpi_packet_count(const char *opts, const unsigned char *wqe, int len, unsigned char *msg,
			 int msgcap)
{
	struct pkt_work *w = work_new(msg, msgcap);
	int rc;

	if (!w)
		return WQE_DPI_ENOMEM;
	rc = work_expand(w, opts, wqe, len, 0, 0, msg, msgcap);
	if (!rc) {
		rc = (int)w->x.z.npkts;
		dpi_ok(msg, msgcap);
	}
	work_free(w);
	return rc;
}

/* Builds the next packet into w->frame: its length, or a negative error. */
static int next_frame(struct pkt_work *w, unsigned char *msg, int msgcap)
{
	size_t flen;
	int got = wqe_pktz_next(&w->x.z, w->frame, sizeof(w->frame), &flen, NULL);

	if (got < 0)
		return dpi_fail(msg, msgcap, WQE_DPI_ESPACE, "the packetizer failed: %s",
				wqe_pkt_err_str(got));
	if (got == 0)
		return dpi_fail(msg, msgcap, WQE_DPI_ERANGE, "no packet left");
	return (int)flen;
}

int wqe_dpi_packet(const char *opts, const unsigned char *wqe, int len, int index,
		   unsigned char *frame, int cap, unsigned char *msg, int msgcap)
{
	struct pkt_work *w;
	int rc;

	if (!frame || cap < 0 || index < 0)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "no frame buffer, or a negative index");
	w = work_new(msg, msgcap);
	if (!w)
		return WQE_DPI_ENOMEM;
	/* Packet k carries IPv4 identification k: the first starts at 0. */
	rc = work_expand(w, opts, wqe, len, 1, (uint16_t)index, msg, msgcap);
	if (!rc && (uint32_t)index >= w->x.z.npkts)
		rc = dpi_fail(msg, msgcap, WQE_DPI_ERANGE, "packet %d of a WQE of %u packets",
			      index, w->x.z.npkts);
	/* Every packet but a READ's one takes one PSN, so the packet's PSN
	 * is its index past the first; a READ has one packet. */
	if (!rc && index > 0 &&
	    wqe_pktz_seek(&w->x.z, (w->cfg.pkt.psn + (uint32_t)index) & PSN_MASK))
		rc = dpi_fail(msg, msgcap, WQE_DPI_ERANGE, "cannot seek to packet %d", index);
	if (!rc)
		rc = next_frame(w, msg, msgcap);
	if (rc > cap)
		rc = dpi_fail(msg, msgcap, WQE_DPI_ESPACE, "the frame is %d bytes, the buffer %d",
			      rc, cap);
	if (rc >= 0) {
		memcpy(frame, w->frame, (size_t)rc);
		dpi_ok(msg, msgcap);
	}
	work_free(w);
	return rc;
}

/* Every frame of w->x into @out: the count, or a negative error. */
static int all_frames(struct pkt_work *w, unsigned char *out, int cap, int *lens, int maxpkts,
		      int *needed, unsigned char *msg, int msgcap)
{
	long long total = 0;
	int n = 0, flen;

	for (uint32_t k = 0; k < w->x.z.npkts; k++, n++) {
		flen = next_frame(w, msg, msgcap);
		if (flen < 0)
			return flen;
		if (out && total + flen <= cap)
			memcpy(out + total, w->frame, (size_t)flen);
		if (lens && n < maxpkts)
			lens[n] = flen;
		total += flen;
	}
	if (needed)
		*needed = total > 0x7fffffff ? 0x7fffffff : (int)total;
	if (total > cap || n > maxpkts)
		return dpi_fail(msg, msgcap, WQE_DPI_ESPACE,
				"%d frames of %lld bytes, room for %d frames of %d bytes", n, total,
				maxpkts, cap);
	return n;
}

int wqe_dpi_line_packets(const char *line, const char *opts, unsigned char *out, int cap, int *lens,
			 int maxpkts, int *needed, unsigned char *msg, int msgcap)
{
	struct pkt_work *w;
	uint32_t nbytes = 0;
	int rc;

	if (cap < 0 || maxpkts < 0 || (cap && !out) || (maxpkts && !lens))
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "bad output buffers");
	if (needed)
		*needed = 0;
	w = work_new(msg, msgcap);
	if (!w)
		return WQE_DPI_ENOMEM;
	rc = dpi_options(opts, DPI_PACKETS, &w->cfg, msg, msgcap);
	if (!rc)
		rc = dpi_encode_line(&w->cfg, line, &w->req, w->bytes, &nbytes, msg, msgcap);
	if (!rc)
		rc = dpi_decode(&w->cfg, w->bytes, (int)nbytes, &w->x.d, msg, msgcap);
	if (!rc)
		rc = dpi_expand(&w->cfg, &w->x, 1, 0, msg, msgcap);
	if (!rc)
		rc = all_frames(w, out, cap, lens, maxpkts, needed, msg, msgcap);
	if (rc >= 0)
		dpi_ok(msg, msgcap);
	work_free(w);
	return rc;
}

int wqe_dpi_icrc(const unsigned char *frame, int len, unsigned int *icrc, unsigned char *msg,
		 int msgcap)
{
	struct wqe_pkt p;
	size_t l3, n;
	int err;

	if (!frame || len < 0 || !icrc)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "no frame or no result");
	err = wqe_pkt_parse(frame, (size_t)len, &p);
	if (err)
		return dpi_fail(msg, msgcap, WQE_DPI_EFRAME, "not a RoCEv2 frame: %s",
				wqe_pkt_err_str(err));
	/* The parser checked these lengths against the frame. */
	l3 = WQE_ETH_LEN + (p.has_vlan ? WQE_VLAN_LEN : 0u);
	n = (p.ipver == 4 ? p.ip_len : (size_t)WQE_IPV6_LEN + p.ip_len) - WQE_ICRC_LEN;
	*icrc = wqe_icrc(frame + l3, n, p.ipver);
	dpi_ok(msg, msgcap);
	return 0;
}
