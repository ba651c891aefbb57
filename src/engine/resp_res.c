/* SPDX-License-Identifier: MIT */
/*
 * Responder resources: the READ and atomic requests a QP has accepted,
 * kept so that a duplicate is answered again without executing again. The
 * ring has max_dest_rd_atomic entries (at most RESP_MAX_RD_ATOMIC); the
 * requester never has more outstanding, so the oldest is reused (rxe
 * rxe_prepare_res()).
 */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "engine/resp_int.h"

/*
 * The slots live outside struct eng_resp, sized by the largest
 * max_dest_rd_atomic the QP was given: most QPs never see a READ or an
 * atomic, and the slots would cost every packet's cache lines if they sat
 * among the per-packet state. A QP that never had slots behaves as if it
 * had all-empty ones.
 */
int resp_res_reserve(struct eng_resp *r, uint32_t n)
{
	struct resp_res *res;

	if (n > RESP_MAX_RD_ATOMIC)
		n = RESP_MAX_RD_ATOMIC;
	if (n <= r->res_cap)
		return 0;
	res = calloc(n, sizeof(*res));
	if (!res)
		return ENOMEM;
	if (r->res)
		memcpy(res, r->res, r->res_cap * sizeof(*res));
	free(r->res);
	r->res = res;
	r->res_cap = n;
	return 0;
}

void resp_destroy(struct eng_resp *r)
{
	free(r->res);
	r->res = NULL;
	r->res_cap = 0;
}

static uint32_t nres(const struct qpc *q)
{
	uint32_t m = q->max_dest_rd_atomic;

	if (m == 0)
		return 1;
	return m < RESP_MAX_RD_ATOMIC ? m : RESP_MAX_RD_ATOMIC;
}

/* Only reached with max_dest_rd_atomic > 0 (chk_resource()), which the
 * QP got through a modify that reserved that many slots. */
struct resp_res *resp_res_new(struct resp_ctx *c, uint8_t kind)
{
	struct eng_resp *r = c->r;
	const struct wqe_pkt *p = c->p;
	uint32_t max = nres(c->q);
	struct resp_res *res;

	assert(r->res && max <= r->res_cap);
	res = &r->res[r->res_head % max];

	r->res_head = (r->res_head + 1) % max;
	memset(res, 0, sizeof(*res));
	res->kind = kind;
	res->first_psn = p->bth.psn;
	res->last_psn = p->bth.psn;
	if (kind == RESP_RES_READ) {
		uint32_t mtu = resp_mtu(c->q);
		uint32_t npkts = p->reth.dma_len ? (p->reth.dma_len + mtu - 1) / mtu : 1;

		res->va = p->reth.va;
		res->rkey = p->reth.rkey;
		res->len = p->reth.dma_len;
		res->last_psn = psn_add(p->bth.psn, npkts - 1);
	}
	return res;
}

struct resp_res *resp_res_find(struct eng_resp *r, const struct qpc *q, uint32_t psn)
{
	uint32_t max = nres(q);

	if (max > r->res_cap)
		max = r->res_cap; /* the slots past it were never written */
	for (uint32_t i = 0; i < max; i++) {
		struct resp_res *res = &r->res[i];

		if (res->kind != RESP_RES_NONE && psn_diff(psn, res->first_psn) >= 0 &&
		    psn_diff(psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

/*
 * The target is host memory holding a host-order uint64_t, as a verbs
 * program sees it; chk_rkey() made sure it is 8-byte aligned, so it can be
 * accessed as an _Atomic uint64_t and the operation is atomic against any
 * other C11 atomic access, on this NIC or by the host.
 * COMPARE_SWAP: if the value equals the compare operand it becomes the
 * swap operand; FETCH_ADD adds modulo 2^64. Both return the value before.
 */
uint64_t resp_atomic_exec(const struct resp_ctx *c)
{
	_Atomic uint64_t *v = (_Atomic uint64_t *)(void *)c->host;
	const struct wqe_atomiceth *a = &c->p->atomiceth;

	if (c->oi.kind == WQE_KIND_COMPARE_SWAP) {
		uint64_t expected = a->compare;

		/* On failure @expected receives the current value: either way
		 * it ends up holding the original. */
		atomic_compare_exchange_strong(v, &expected, a->swap_add);
		return expected;
	}
	return atomic_fetch_add(v, a->swap_add);
}
