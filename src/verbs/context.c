/* SPDX-License-Identifier: MIT */
/* Context, protection domain and address handle. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/verbs_int.h"
#include "wqe/link.h"

static const struct wqe_context_attr default_attr = {
	.format = WQE_FORMAT_MLX5,
	.mac = {0x02, 0, 0, 0, 0, 0x01},
	.num_gids = 1,
	.gid = {{{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1}}},
	.num_pkeys = 1,
	.pkey = {0xffff},
};

/* WQE_NIC_MODE, over @m: 0, or EINVAL for a value it does not name. */
static int env_nic_mode(enum wqe_nic_mode *m)
{
	const char *v = getenv("WQE_NIC_MODE");

	if (!v)
		return 0;
	if (strcmp(v, "caller") == 0)
		*m = WQE_NIC_CALLER;
	else if (strcmp(v, "thread") == 0)
		*m = WQE_NIC_THREAD;
	else
		return EINVAL;
	return 0;
}

struct wqe_context *wqe_open_context(const struct wqe_context_attr *attr)
{
	const char *fast = getenv("WQE_FAST_PATH");
	struct nic_config cfg = {0};
	struct wqe_context *ctx;
	enum wqe_nic_mode mode;
	int err;

	if (!attr)
		attr = &default_attr;
	mode = attr->nic_mode;
	if ((fast && strcmp(fast, "0") != 0 && strcmp(fast, "1") != 0) || env_nic_mode(&mode) ||
	    (attr->format != WQE_FORMAT_MLX5 && attr->format != WQE_FORMAT_RXE) ||
	    (attr->checks != WQE_CHECKS_AT_POST && attr->checks != WQE_CHECKS_IN_ENGINE) ||
	    (mode != WQE_NIC_CALLER && mode != WQE_NIC_THREAD) ||
	    attr->num_gids > WQE_MAX_GIDS || attr->num_pkeys > WQE_MAX_PKEYS ||
	    attr->qpn_base > 0x7fffffu) {
		errno = EINVAL;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx)
		ctx->qps = calloc(1, sizeof(*ctx->qps));
	if (!ctx || !ctx->qps) {
		free(ctx);
		errno = ENOMEM;
		return NULL;
	}
	ctx->attr = *attr;
	ctx->attr.nic_mode = mode;
	if (ctx->attr.num_gids == 0) {
		ctx->attr.num_gids = 1;
		ctx->attr.gid[0] = default_attr.gid[0];
	}
	if (ctx->attr.num_pkeys == 0) {
		ctx->attr.num_pkeys = 1;
		ctx->attr.pkey[0] = 0xffff;
	}
	cfg.format = ctx->attr.format;
	memcpy(cfg.port.mac, ctx->attr.mac, 6);
	cfg.port.num_gids = ctx->attr.num_gids;
	memcpy(cfg.port.gid, ctx->attr.gid, sizeof(cfg.port.gid));
	cfg.port.num_pkeys = ctx->attr.num_pkeys;
	memcpy(cfg.port.pkey, ctx->attr.pkey, sizeof(cfg.port.pkey));
	cfg.mode = mode == WQE_NIC_THREAD ? NIC_THREAD : NIC_CALLER;
	cfg.no_fast_path = fast && strcmp(fast, "0") == 0;
	cfg.qpn_base = ctx->attr.qpn_base;
	/* The event queue first: a NIC thread may raise an event as soon as
	 * it has a QP, and it has none before nic_set_event(). */
	err = verbs_async_init(ctx);
	if (!err) {
		ctx->nic = nic_create(&cfg);
		if (!ctx->nic) {
			err = errno ? errno : ENOMEM;
			verbs_async_fini(ctx);
		}
	}
	if (err) {
		free(ctx->qps);
		free(ctx);
		errno = err;
		return NULL;
	}
	nic_cmd_begin(ctx->nic);
	nic_set_event(ctx->nic, verbs_async_raise, ctx);
	nic_cmd_end(ctx->nic);
	ctx->next_pd = 1;
	return ctx;
}

int wqe_close_context(struct wqe_context *ctx)
{
	if (!ctx)
		return EINVAL;
	if (ctx->npd || ctx->nmr || ctx->ncq || ctx->nqp || ctx->nah || ctx->nchannel || ctx->nsrq)
		return EBUSY;
	wqe_context_attach_link(ctx, NULL);
	wqe_context_set_pcap(ctx, NULL);
	nic_destroy(ctx->nic);
	verbs_async_fini(ctx);
	for (uint32_t i = 0; i < VERBS_QP_PAGES; i++)
		free(atomic_load_explicit(&ctx->qps->page[i], memory_order_relaxed));
	free(ctx->qps);
	free(ctx);
	return 0;
}

int verbs_qp_register(struct wqe_context *ctx, struct wqe_qp *qp)
{
	uint32_t qpn = qp->qpc.qpn;
	_Atomic(struct verbs_qp_page *) *slot = &ctx->qps->page[qpn / VERBS_QP_PAGE];
	struct verbs_qp_page *p = atomic_load_explicit(slot, memory_order_relaxed);

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return ENOMEM;
		/* Release: the zeroed page is whole before a poll can find it. */
		atomic_store_explicit(slot, p, memory_order_release);
	}
	/* Release: the QP is whole before a poll or an event can find it. */
	atomic_store_explicit(&p->qp[qpn % VERBS_QP_PAGE], qp, memory_order_release);
	return 0;
}

void verbs_qp_unregister(struct wqe_context *ctx, struct wqe_qp *qp)
{
	uint32_t qpn = qp->qpc.qpn;
	struct verbs_qp_page *p =
	    atomic_load_explicit(&ctx->qps->page[qpn / VERBS_QP_PAGE], memory_order_relaxed);

	if (p)
		atomic_store_explicit(&p->qp[qpn % VERBS_QP_PAGE], NULL, memory_order_release);
}

const char *wqe_nic_mode_str(enum wqe_nic_mode m)
{
	switch (m) {
	case WQE_NIC_CALLER: return "caller";
	case WQE_NIC_THREAD: return "thread";
	}
	return "unknown";
}

int wqe_query_context(const struct wqe_context *ctx, struct wqe_context_attr *attr)
{
	if (!ctx || !attr)
		return EINVAL;
	*attr = ctx->attr;
	return 0;
}

struct wqe_pd *wqe_alloc_pd(struct wqe_context *ctx)
{
	struct wqe_pd *pd;

	if (!ctx) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->context = ctx;
	pd->handle = ctx->next_pd++;
	ctx->npd++;
	return pd;
}

int wqe_dealloc_pd(struct wqe_pd *pd)
{
	if (!pd)
		return EINVAL;
	if (pd->refs)
		return EBUSY;
	pd->context->npd--;
	free(pd);
	return 0;
}

uint16_t verbs_default_sport(uint32_t qpn)
{
	/* Like rxe: 0xc000 plus a 14-bit hash of the QP number. */
	uint32_t h = qpn * 0x61c88647u;

	return (uint16_t)(0xc000u | (h >> 18));
}

static int check_ah_attr(const struct wqe_context *ctx, const struct wqe_ah_attr *a)
{
	if (a->port_num != 1 || a->grh.sgid_index >= ctx->attr.num_gids || a->sl > 7 ||
	    a->grh.flow_label > 0xfffff || (a->udp_sport && a->udp_sport < 0xc000))
		return EINVAL;
	return 0;
}

struct wqe_ah *wqe_create_ah(struct wqe_pd *pd, const struct wqe_ah_attr *attr)
{
	struct qpc_addr addr = {0};
	struct wqe_ah *ah;

	if (!pd || !attr || check_ah_attr(pd->context, attr)) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ah->context = pd->context;
	ah->pd = pd;
	ah->attr = *attr;
	if (!ah->attr.grh.hop_limit)
		ah->attr.grh.hop_limit = 64;
	if (!ah->attr.udp_sport)
		ah->attr.udp_sport = (uint16_t)(0xc000u | (ah->attr.grh.flow_label & 0x3fff));
	ah->sgid = pd->context->attr.gid[ah->attr.grh.sgid_index];
	addr.dgid = ah->attr.grh.dgid;
	memcpy(addr.dmac, ah->attr.dmac, 6);
	addr.flow_label = ah->attr.grh.flow_label;
	addr.sgid_index = ah->attr.grh.sgid_index;
	addr.hop_limit = ah->attr.grh.hop_limit;
	addr.tclass = ah->attr.grh.traffic_class;
	addr.sl = ah->attr.sl;
	addr.udp_sport = ah->attr.udp_sport;
	nic_cmd_begin(pd->context->nic);
	ah->ah_num = nic_ah_create(pd->context->nic, pd->handle, &addr);
	nic_cmd_end(pd->context->nic);
	if (!ah->ah_num) {
		free(ah);
		errno = ENOMEM;
		return NULL;
	}
	pd->refs++;
	pd->context->nah++;
	return ah;
}

int wqe_destroy_ah(struct wqe_ah *ah)
{
	if (!ah || !ah->pd)
		return EINVAL;
	nic_cmd_begin(ah->context->nic);
	nic_ah_destroy(ah->context->nic, ah->ah_num);
	nic_cmd_end(ah->context->nic);
	ah->pd->refs--;
	ah->context->nah--;
	free(ah);
	return 0;
}

int verbs_check_ah_attr(const struct wqe_context *ctx, const struct wqe_ah_attr *a)
{
	return check_ah_attr(ctx, a);
}

const char *wqe_check_policy_str(enum wqe_check_policy p)
{
	switch (p) {
	case WQE_CHECKS_AT_POST: return "post";
	case WQE_CHECKS_IN_ENGINE: return "engine";
	}
	return "unknown";
}
