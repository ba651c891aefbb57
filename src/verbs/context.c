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

struct wqe_context *wqe_open_context(const struct wqe_context_attr *attr)
{
	const char *fast = getenv("WQE_FAST_PATH");
	struct wqe_context *ctx;
	struct nic_port port;
	int err;

	if (!attr)
		attr = &default_attr;
	if ((fast && strcmp(fast, "0") != 0 && strcmp(fast, "1") != 0) ||
	    (attr->format != WQE_FORMAT_MLX5 && attr->format != WQE_FORMAT_RXE) ||
	    (attr->checks != WQE_CHECKS_AT_POST && attr->checks != WQE_CHECKS_IN_ENGINE) ||
	    attr->num_gids > WQE_MAX_GIDS || attr->num_pkeys > WQE_MAX_PKEYS) {
		errno = EINVAL;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->attr = *attr;
	if (ctx->attr.num_gids == 0) {
		ctx->attr.num_gids = 1;
		ctx->attr.gid[0] = default_attr.gid[0];
	}
	if (ctx->attr.num_pkeys == 0) {
		ctx->attr.num_pkeys = 1;
		ctx->attr.pkey[0] = 0xffff;
	}
	memcpy(port.mac, ctx->attr.mac, 6);
	port.num_gids = ctx->attr.num_gids;
	memcpy(port.gid, ctx->attr.gid, sizeof(port.gid));
	port.num_pkeys = ctx->attr.num_pkeys;
	memcpy(port.pkey, ctx->attr.pkey, sizeof(port.pkey));
	ctx->nic = nic_create(ctx->attr.format, &port);
	if (!ctx->nic) {
		free(ctx);
		errno = ENOMEM;
		return NULL;
	}
	ctx->nic->no_fast_path = fast && strcmp(fast, "0") == 0;
	err = verbs_async_init(ctx);
	if (err) {
		nic_destroy(ctx->nic);
		free(ctx);
		errno = err;
		return NULL;
	}
	ctx->next_pd = 1;
	return ctx;
}

int wqe_close_context(struct wqe_context *ctx)
{
	if (!ctx)
		return EINVAL;
	if (ctx->npd || ctx->nmr || ctx->ncq || ctx->nqp || ctx->nah || ctx->nchannel)
		return EBUSY;
	wqe_context_attach_link(ctx, NULL);
	wqe_context_set_pcap(ctx, NULL);
	verbs_async_fini(ctx);
	nic_destroy(ctx->nic);
	free(ctx);
	return 0;
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
	ah->ah_num = nic_ah_create(pd->context->nic, pd->handle, &ah->attr.grh.dgid, ah->attr.dmac,
				   ah->attr.grh.flow_label, ah->attr.grh.sgid_index,
				   ah->attr.grh.hop_limit, ah->attr.grh.traffic_class, ah->attr.sl,
				   ah->attr.udp_sport);
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
	nic_ah_destroy(ah->context->nic, ah->ah_num);
	ah->pd->refs--;
	ah->context->nah--;
	free(ah);
	return 0;
}

/* Exposed to the QP code: the same rules for a QP's peer address. */
int verbs_check_ah_attr(const struct wqe_context *ctx, const struct wqe_ah_attr *a);
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
