/* SPDX-License-Identifier: MIT */
/*
 * libwqe_dpi: WQE bytes and frames as arrays of named 64-bit fields
 * (wqe_dpi_decode(), wqe_dpi_parse()), the shape a testbench compares
 * with its design's outputs one signal at a time.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "dpi/dpi_int.h"
#include "wqe/wire.h"

/* The names are the SystemVerilog package's too (examples/dpi/wqe_pkg.sv:
 * WQE_D_<NAME> and WQE_P_<NAME>, checked by tests/dpi/test_dpi.c). */
static const char *const decode_names[WQE_DPI_D_SGE_BASE] = {
    [WQE_DPI_D_FORMAT] = "format",
    [WQE_DPI_D_OP] = "op",
    [WQE_DPI_D_QPN] = "qpn",
    [WQE_DPI_D_WQE_INDEX] = "wqe_index",
    [WQE_DPI_D_DS] = "ds",
    [WQE_DPI_D_NBLOCKS] = "nblocks",
    [WQE_DPI_D_SIZE] = "size",
    [WQE_DPI_D_FENCE] = "fence",
    [WQE_DPI_D_SIGNALED] = "signaled",
    [WQE_DPI_D_SOLICITED] = "solicited",
    [WQE_DPI_D_INLINE] = "inline",
    [WQE_DPI_D_IMM] = "imm",
    [WQE_DPI_D_REMOTE_ADDR] = "remote_addr",
    [WQE_DPI_D_RKEY] = "rkey",
    [WQE_DPI_D_SWAP_ADD] = "swap_add",
    [WQE_DPI_D_COMPARE] = "compare",
    [WQE_DPI_D_NUM_SGE] = "num_sge",
    [WQE_DPI_D_TOTAL_LEN] = "total_len",
    [WQE_DPI_D_INLINE_LEN] = "inline_len",
    [WQE_DPI_D_UD_QKEY] = "ud_qkey",
    [WQE_DPI_D_UD_DQPN] = "ud_dqpn",
    [WQE_DPI_D_UD_SPORT] = "ud_sport",
    [WQE_DPI_D_UD_SL] = "ud_sl",
    [WQE_DPI_D_UD_TCLASS] = "ud_tclass",
    [WQE_DPI_D_UD_HOP_LIMIT] = "ud_hop_limit",
    [WQE_DPI_D_UD_FLOW_LABEL] = "ud_flow_label",
    [WQE_DPI_D_UD_DMAC] = "ud_dmac",
    [WQE_DPI_D_UD_DGID_HI] = "ud_dgid_hi",
    [WQE_DPI_D_UD_DGID_LO] = "ud_dgid_lo",
    [WQE_DPI_D_UD_AH_NUM] = "ud_ah_num",
    [WQE_DPI_D_STATUS] = "status",
    [WQE_DPI_D_COMPLETES] = "completes",
    [WQE_DPI_D_NPKTS] = "npkts",
    [WQE_DPI_D_NPSN] = "npsn",
    [WQE_DPI_D_FIRST_OPCODE] = "first_opcode",
};
static const char *const sge_names[3] = {"sge_addr", "sge_length", "sge_lkey"};
static_assert(WQE_DPI_D_SGE_BASE + 3 * WQE_DESC_MAX_SGE <= WQE_DPI_FIELDS_MAX,
	      "WQE_DPI_FIELDS_MAX holds every SGE");

const char *wqe_dpi_decode_field(int i)
{
	if (i < 0 || i >= WQE_DPI_D_SGE_BASE + 3 * (int)WQE_DESC_MAX_SGE)
		return "";
	if (i >= WQE_DPI_D_SGE_BASE)
		return sge_names[(i - WQE_DPI_D_SGE_BASE) % 3];
	return decode_names[i];
}

/* Bytes @p[0..n) as one big-endian number (n <= 8). */
static uint64_t be_bytes(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void decode_fields(const struct cli_encode_cfg *cfg, const struct dpi_expansion *x,
			  unsigned long long *f)
{
	const struct wqe_desc *d = &x->d;

	f[WQE_DPI_D_FORMAT] = d->format;
	f[WQE_DPI_D_OP] = d->op;
	f[WQE_DPI_D_QPN] = d->qpn;
	f[WQE_DPI_D_WQE_INDEX] = d->wqe_index;
	f[WQE_DPI_D_DS] = d->ds;
	f[WQE_DPI_D_NBLOCKS] = d->nblocks;
	f[WQE_DPI_D_SIZE] = d->size;
	f[WQE_DPI_D_FENCE] = d->fence;
	f[WQE_DPI_D_SIGNALED] = d->signaled;
	f[WQE_DPI_D_SOLICITED] = d->solicited;
	f[WQE_DPI_D_INLINE] = d->is_inline;
	f[WQE_DPI_D_IMM] = d->imm;
	f[WQE_DPI_D_REMOTE_ADDR] = d->remote_addr;
	f[WQE_DPI_D_RKEY] = d->rkey;
	f[WQE_DPI_D_SWAP_ADD] = d->swap_add;
	f[WQE_DPI_D_COMPARE] = d->compare;
	f[WQE_DPI_D_NUM_SGE] = d->num_sge;
	f[WQE_DPI_D_TOTAL_LEN] = d->total_len;
	f[WQE_DPI_D_INLINE_LEN] = d->inline_len;
	f[WQE_DPI_D_UD_QKEY] = d->ud.qkey;
	f[WQE_DPI_D_UD_DQPN] = d->ud.dqpn;
	f[WQE_DPI_D_UD_SPORT] = d->ud.udp_sport;
	f[WQE_DPI_D_UD_SL] = d->ud.sl;
	f[WQE_DPI_D_UD_TCLASS] = d->ud.tclass;
	f[WQE_DPI_D_UD_HOP_LIMIT] = d->ud.hop_limit;
	f[WQE_DPI_D_UD_FLOW_LABEL] = d->ud.flow_label;
	f[WQE_DPI_D_UD_DMAC] = be_bytes(d->ud.dmac, 6);
	f[WQE_DPI_D_UD_DGID_HI] = be_bytes(d->ud.dgid.raw, 8);
	f[WQE_DPI_D_UD_DGID_LO] = be_bytes(d->ud.dgid.raw + 8, 8);
	f[WQE_DPI_D_UD_AH_NUM] = d->ud.ah_num;
	f[WQE_DPI_D_STATUS] = x->status;
	f[WQE_DPI_D_COMPLETES] = d->signaled || cfg->qp.sq_sig_all || x->status != WQE_WC_SUCCESS;
	f[WQE_DPI_D_NPKTS] = x->z.npkts;
	f[WQE_DPI_D_NPSN] = x->z.npkts ? x->z.npsn : 0;
	f[WQE_DPI_D_FIRST_OPCODE] = x->z.npkts ? (unsigned)wqe_pktz_opcode(&x->z, 0) : 256u;
	for (uint32_t i = 0; i < d->num_sge; i++) {
		unsigned long long *s = f + WQE_DPI_D_SGE_BASE + 3 * i;

		s[0] = d->sge[i].addr;
		s[1] = d->sge[i].length;
		s[2] = d->sge[i].lkey;
	}
}

/* The working storage of one decode. */
struct decode_work {
	struct cli_encode_cfg cfg;
	struct dpi_expansion x;
};

int wqe_dpi_decode(const char *opts, const unsigned char *wqe, int len, unsigned long long *fields,
		   int nfields, unsigned char *msg, int msgcap)
{
	struct decode_work *w;
	int rc, n;

	if (!fields || nfields < 0)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "no field array");
	w = calloc(1, sizeof(*w));
	if (!w)
		return dpi_fail(msg, msgcap, WQE_DPI_ENOMEM, "out of memory");
	rc = dpi_options(opts, DPI_PACKETS, &w->cfg, msg, msgcap);
	if (!rc)
		rc = dpi_decode(&w->cfg, wqe, len, &w->x.d, msg, msgcap);
	if (!rc)
		rc = dpi_expand(&w->cfg, &w->x, 0, 0, msg, msgcap);
	n = WQE_DPI_D_SGE_BASE + 3 * (int)w->x.d.num_sge;
	if (!rc && n > nfields)
		rc = dpi_fail(msg, msgcap, WQE_DPI_ESPACE, "%d fields, room for %d", n, nfields);
	if (!rc) {
		decode_fields(&w->cfg, &w->x, fields);
		dpi_ok(msg, msgcap);
		rc = n;
	}
	free(w->x.mem);
	free(w);
	return rc;
}

static const char *const parse_names[WQE_DPI_P_COUNT] = {
    [WQE_DPI_P_HAS_VLAN] = "has_vlan",
    [WQE_DPI_P_VLAN_TCI] = "vlan_tci",
    [WQE_DPI_P_DMAC] = "dmac",
    [WQE_DPI_P_SMAC] = "smac",
    [WQE_DPI_P_ETHERTYPE] = "ethertype",
    [WQE_DPI_P_IPVER] = "ipver",
    [WQE_DPI_P_SRC_HI] = "src_hi",
    [WQE_DPI_P_SRC_LO] = "src_lo",
    [WQE_DPI_P_DST_HI] = "dst_hi",
    [WQE_DPI_P_DST_LO] = "dst_lo",
    [WQE_DPI_P_TOS] = "tos",
    [WQE_DPI_P_TTL] = "ttl",
    [WQE_DPI_P_FLOW_LABEL] = "flow_label",
    [WQE_DPI_P_IP_ID] = "ip_id",
    [WQE_DPI_P_IP_FLAGS] = "ip_flags",
    [WQE_DPI_P_IP_LEN] = "ip_len",
    [WQE_DPI_P_IP_CSUM] = "ip_csum",
    [WQE_DPI_P_IP_CSUM_OK] = "ip_csum_ok",
    [WQE_DPI_P_SPORT] = "sport",
    [WQE_DPI_P_DPORT] = "dport",
    [WQE_DPI_P_UDP_LEN] = "udp_len",
    [WQE_DPI_P_UDP_CSUM] = "udp_csum",
    [WQE_DPI_P_UDP_CSUM_OK] = "udp_csum_ok",
    [WQE_DPI_P_OPCODE] = "opcode",
    [WQE_DPI_P_SE] = "se",
    [WQE_DPI_P_MIGREQ] = "migreq",
    [WQE_DPI_P_PADCNT] = "padcnt",
    [WQE_DPI_P_TVER] = "tver",
    [WQE_DPI_P_PKEY] = "pkey",
    [WQE_DPI_P_FECN] = "fecn",
    [WQE_DPI_P_BECN] = "becn",
    [WQE_DPI_P_DESTQP] = "destqp",
    [WQE_DPI_P_ACKREQ] = "ackreq",
    [WQE_DPI_P_PSN] = "psn",
    [WQE_DPI_P_HDRS] = "hdrs",
    [WQE_DPI_P_RETH_VA] = "reth_va",
    [WQE_DPI_P_RETH_RKEY] = "reth_rkey",
    [WQE_DPI_P_RETH_DMA_LEN] = "reth_dma_len",
    [WQE_DPI_P_AETH_SYNDROME] = "aeth_syndrome",
    [WQE_DPI_P_AETH_MSN] = "aeth_msn",
    [WQE_DPI_P_ATOMIC_VA] = "atomic_va",
    [WQE_DPI_P_ATOMIC_RKEY] = "atomic_rkey",
    [WQE_DPI_P_ATOMIC_SWAP_ADD] = "atomic_swap_add",
    [WQE_DPI_P_ATOMIC_COMPARE] = "atomic_compare",
    [WQE_DPI_P_ATOMICACK_ORIG] = "atomicack_orig",
    [WQE_DPI_P_IMM] = "imm",
    [WQE_DPI_P_IETH_RKEY] = "ieth_rkey",
    [WQE_DPI_P_DETH_QKEY] = "deth_qkey",
    [WQE_DPI_P_DETH_SRCQP] = "deth_srcqp",
    [WQE_DPI_P_PAYLOAD_OFF] = "payload_off",
    [WQE_DPI_P_PAYLOAD_LEN] = "payload_len",
    [WQE_DPI_P_ICRC] = "icrc",
    [WQE_DPI_P_ICRC_OK] = "icrc_ok",
};

const char *wqe_dpi_parse_field(int i)
{
	return i >= 0 && i < WQE_DPI_P_COUNT ? parse_names[i] : "";
}

static void parse_l2_l4(const struct wqe_pkt *p, unsigned long long *f)
{
	f[WQE_DPI_P_HAS_VLAN] = p->has_vlan;
	f[WQE_DPI_P_VLAN_TCI] = p->vlan_tci;
	f[WQE_DPI_P_DMAC] = be_bytes(p->dmac, 6);
	f[WQE_DPI_P_SMAC] = be_bytes(p->smac, 6);
	f[WQE_DPI_P_ETHERTYPE] = p->ethertype;
	f[WQE_DPI_P_IPVER] = p->ipver;
	f[WQE_DPI_P_SRC_HI] = be_bytes(p->src.raw, 8);
	f[WQE_DPI_P_SRC_LO] = be_bytes(p->src.raw + 8, 8);
	f[WQE_DPI_P_DST_HI] = be_bytes(p->dst.raw, 8);
	f[WQE_DPI_P_DST_LO] = be_bytes(p->dst.raw + 8, 8);
	f[WQE_DPI_P_TOS] = p->tos;
	f[WQE_DPI_P_TTL] = p->ttl;
	f[WQE_DPI_P_FLOW_LABEL] = p->flow_label;
	f[WQE_DPI_P_IP_ID] = p->ip_id;
	f[WQE_DPI_P_IP_FLAGS] = p->ip_flags;
	f[WQE_DPI_P_IP_LEN] = p->ip_len;
	f[WQE_DPI_P_IP_CSUM] = p->ip_csum;
	f[WQE_DPI_P_IP_CSUM_OK] = p->ip_csum_ok;
	f[WQE_DPI_P_SPORT] = p->sport;
	f[WQE_DPI_P_DPORT] = p->dport;
	f[WQE_DPI_P_UDP_LEN] = p->udp_len;
	f[WQE_DPI_P_UDP_CSUM] = p->udp_csum;
	f[WQE_DPI_P_UDP_CSUM_OK] = p->udp_csum_ok;
}

/* The transport headers; those the opcode does not carry stay 0. */
static void parse_transport(const struct wqe_pkt *p, const unsigned char *frame,
			    unsigned long long *f)
{
	uint32_t h = p->hdrs;

	f[WQE_DPI_P_OPCODE] = p->bth.opcode;
	f[WQE_DPI_P_SE] = p->bth.se;
	f[WQE_DPI_P_MIGREQ] = p->bth.migreq;
	f[WQE_DPI_P_PADCNT] = p->bth.padcnt;
	f[WQE_DPI_P_TVER] = p->bth.tver;
	f[WQE_DPI_P_PKEY] = p->bth.pkey;
	f[WQE_DPI_P_FECN] = p->bth.fecn;
	f[WQE_DPI_P_BECN] = p->bth.becn;
	f[WQE_DPI_P_DESTQP] = p->bth.destqp;
	f[WQE_DPI_P_ACKREQ] = p->bth.ackreq;
	f[WQE_DPI_P_PSN] = p->bth.psn;
	f[WQE_DPI_P_HDRS] = h;
	f[WQE_DPI_P_RETH_VA] = h & WQE_HDR_RETH ? p->reth.va : 0;
	f[WQE_DPI_P_RETH_RKEY] = h & WQE_HDR_RETH ? p->reth.rkey : 0;
	f[WQE_DPI_P_RETH_DMA_LEN] = h & WQE_HDR_RETH ? p->reth.dma_len : 0;
	f[WQE_DPI_P_AETH_SYNDROME] = h & WQE_HDR_AETH ? p->aeth.syndrome : 0;
	f[WQE_DPI_P_AETH_MSN] = h & WQE_HDR_AETH ? p->aeth.msn : 0;
	f[WQE_DPI_P_ATOMIC_VA] = h & WQE_HDR_ATOMICETH ? p->atomiceth.va : 0;
	f[WQE_DPI_P_ATOMIC_RKEY] = h & WQE_HDR_ATOMICETH ? p->atomiceth.rkey : 0;
	f[WQE_DPI_P_ATOMIC_SWAP_ADD] = h & WQE_HDR_ATOMICETH ? p->atomiceth.swap_add : 0;
	f[WQE_DPI_P_ATOMIC_COMPARE] = h & WQE_HDR_ATOMICETH ? p->atomiceth.compare : 0;
	f[WQE_DPI_P_ATOMICACK_ORIG] = h & WQE_HDR_ATOMICACKETH ? p->atomicacketh.orig : 0;
	f[WQE_DPI_P_IMM] = h & WQE_HDR_IMMDT ? p->immdt.imm : 0;
	f[WQE_DPI_P_IETH_RKEY] = h & WQE_HDR_IETH ? p->ieth.rkey : 0;
	f[WQE_DPI_P_DETH_QKEY] = h & WQE_HDR_DETH ? p->deth.qkey : 0;
	f[WQE_DPI_P_DETH_SRCQP] = h & WQE_HDR_DETH ? p->deth.srcqp : 0;
	f[WQE_DPI_P_PAYLOAD_OFF] = p->payload ? (unsigned long long)(p->payload - frame) : 0;
	f[WQE_DPI_P_PAYLOAD_LEN] = p->payload_len;
	f[WQE_DPI_P_ICRC] = p->icrc;
	f[WQE_DPI_P_ICRC_OK] = p->icrc_ok;
}

int wqe_dpi_parse(const unsigned char *frame, int len, unsigned long long *fields, int nfields,
		  unsigned char *msg, int msgcap)
{
	struct wqe_pkt p;
	int err;

	if (!frame || len < 0 || !fields)
		return dpi_fail(msg, msgcap, WQE_DPI_EARG, "no frame or no field array");
	if (nfields < WQE_DPI_P_COUNT)
		return dpi_fail(msg, msgcap, WQE_DPI_ESPACE, "%d fields, room for %d",
				WQE_DPI_P_COUNT, nfields);
	err = wqe_pkt_parse(frame, (size_t)len, &p);
	if (err)
		return dpi_fail(msg, msgcap, WQE_DPI_EFRAME, "not a RoCEv2 frame: %s",
				wqe_pkt_err_str(err));
	parse_l2_l4(&p, fields);
	parse_transport(&p, frame, fields);
	dpi_ok(msg, msgcap);
	return WQE_DPI_P_COUNT;
}
