/* SPDX-License-Identifier: MIT */
/* pair.h - two endpoints (contexts) joined by a link, one QP each, connected. */
#ifndef WQE_TEST_PAIR_H
#define WQE_TEST_PAIR_H

#include "wqe/link.h"
#include "wqe/verbs.h"

struct ep {
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *scq;
	struct wqe_cq *rcq;
	struct wqe_qp *qp;
	struct wqe_ah *ah; /* UD: address of the other side */
};

struct pair {
	struct wqe_link *loop;
	struct wqe_link *link; /* what the contexts attach to (loop or a fault link) */
	struct ep a, b;
	enum wqe_qp_type type;
};

/* Builds A and B (GIDs ::ffff:192.0.2.1 and .2), connects their QPs.
 * @faults NULL for a plain loopback. Returns 0 or -1. */
int pair_open(struct pair *p, enum wqe_qp_type t, enum wqe_mtu mtu,
	      const struct wqe_fault_cfg *faults, uint32_t max_wr);
void pair_close(struct pair *p);
/* Progress on both sides until @cq has @n completions or @max_rounds pass;
 * returns how many were written to @wc. */
int pair_wait(struct pair *p, struct wqe_cq *cq, int n, struct wqe_wc *wc, int max_rounds);
/* Progress on both sides @rounds times. */
void pair_spin(struct pair *p, int rounds);

#endif
