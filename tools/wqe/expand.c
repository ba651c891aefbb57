/* SPDX-License-Identifier: MIT */
/*
 * What wqe encode --packets (packets.c) and libwqe_dpi (src/dpi) share to
 * expand a WQE: the packetizer's QP from the options, and the payload a
 * decoded WQE names. See packets.h.
 */
#include <stdlib.h>
#include <string.h>

#include "packets.h"

static int is_rd_atomic(enum wqe_op op)
{
	return op == WQE_OP_RDMA_READ || op == WQE_OP_ATOMIC_CMP_AND_SWP ||
	       op == WQE_OP_ATOMIC_FETCH_AND_ADD;
}

int cli_payload_of(const struct wqe_desc *d, struct wqe_iov iov[WQE_DESC_MAX_SGE], uint32_t *niov,
		   uint8_t **mem)
{
	uint64_t off = 0;

	*niov = 0;
	*mem = NULL;
	if (is_rd_atomic(d->op))
		return 0;
	if (d->is_inline) {
		iov[0].base = d->inline_data;
		iov[0].len = d->inline_len;
		*niov = 1;
		return 0;
	}
	if (d->total_len > CLI_PKT_MAX_MSG || d->num_sge > WQE_DESC_MAX_SGE)
		return -1;
	*mem = malloc(d->total_len ? (size_t)d->total_len : 1);
	if (!*mem)
		return -1;
	for (uint32_t i = 0; i < d->num_sge; i++) {
		const struct wqe_desc_sge *s = &d->sge[i];

		for (uint32_t k = 0; k < s->length; k++)
			(*mem)[off + k] = (uint8_t)(s->addr + k);
		iov[i].base = *mem + off;
		iov[i].len = s->length;
		off += s->length;
	}
	*niov = d->num_sge;
	return 0;
}

void cli_pktz_qp_of(const struct cli_pkt_cfg *c, const struct wqe_encode_qp *qp,
		    struct wqe_pktz_qp *out)
{
	memset(out, 0, sizeof(*out));
	out->type = qp->qp_type;
	out->qpn = qp->qpn;
	out->dest_qpn = c->dqpn;
	out->mtu = c->mtu;
	out->pkey = (uint16_t)c->pkey;
	out->qkey = c->qkey;
	memcpy(out->smac, c->smac, 6);
	memcpy(out->dmac, c->dmac, 6);
	out->sgid = c->sip;
	out->dgid = c->dip;
	out->udp_sport = (uint16_t)c->sport;
}
