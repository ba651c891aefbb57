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
	struct wqe_comp_channel *ch; /* pair_opts.comp_channel: scq's and rcq's */
};

/* Connection parameters (RC); pair_open() uses pair_defaults when NULL. */
struct pair_opts {
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	uint32_t max_inline;
	/* Each endpoint's two CQs on one completion channel of its context
	 * (ep.ch), with cq_context the address of the ep's scq or rcq field. */
	int comp_channel;
};
extern const struct pair_opts pair_defaults;

struct pair {
	struct wqe_link *loop;
	struct wqe_link *link; /* what the contexts attach to (loop or a fault link) */
	struct ep a, b;
	enum wqe_qp_type type;
};

/* Builds A and B (GIDs ::ffff:192.0.2.1 and .2, or with WQE_TEST_IPV6=1
 * in the environment 2001:db8::1 and ::2), connects their QPs.
 * @faults NULL for a plain loopback. Returns 0 or -1. */
int pair_open(struct pair *p, enum wqe_qp_type t, enum wqe_mtu mtu,
	      const struct wqe_fault_cfg *faults, uint32_t max_wr);
int pair_open_opts(struct pair *p, enum wqe_qp_type t, enum wqe_mtu mtu,
		   const struct wqe_fault_cfg *faults, uint32_t max_wr,
		   const struct pair_opts *o);
/* A zeroed buffer of @bytes on each side, registered with every access:
 * *@a / *@b and their MRs *@am / *@bm. 0 or -1 (what was made is set, for
 * pair_free_bufs()). */
int pair_reg_bufs(struct pair *p, size_t bytes, uint8_t **a, uint8_t **b, struct wqe_mr **am,
		  struct wqe_mr **bm);
/* Deregisters and frees what pair_reg_bufs() made (NULLs are skipped). */
void pair_free_bufs(uint8_t *a, uint8_t *b, struct wqe_mr *am, struct wqe_mr *bm);

/* The PSN both sides of a pair start at. */
#define PAIR_PSN 0x1000u

/* A QP of @t on @e's PD with send CQ @scq and receive CQ @rcq (NULL: the
 * endpoint's own), @max_wr each way, 4 SGEs, @o's inline size; or NULL. */
struct wqe_qp *pair_new_qp(const struct ep *e, enum wqe_qp_type t, struct wqe_cq *scq,
			   struct wqe_cq *rcq, uint32_t max_wr, const struct pair_opts *o);
/* The address of side @peer_idx (1 = A, 2 = B): MAC 02:00:00:00:00:idx,
 * GID ::ffff:192.0.2.idx (2001:db8::idx with WQE_TEST_IPV6=1), hop limit 64. */
void pair_peer_av(struct wqe_ah_attr *aa, int peer_idx);
/* Takes @qp from RESET through INIT, RTR and RTS, stopping at @upto,
 * towards side @peer_idx's QP @peer_qpn (RC/UC) with @o's settings, PSNs
 * @sq_psn (sent) and @rq_psn (expected); UD gets Q_Key 0x11111111. 0 or
 * the first failing errno. */
int pair_connect_qp(struct wqe_qp *qp, enum wqe_qp_type t, int peer_idx, uint32_t peer_qpn,
		    enum wqe_mtu mtu, const struct pair_opts *o, enum wqe_qp_state upto,
		    uint32_t sq_psn, uint32_t rq_psn);

/* Another connected RC or UC QP on each side, on the pair's PDs and CQs
 * (the caller destroys them before pair_close()). Returns 0 or -1. */
int pair_extra(struct pair *p, enum wqe_mtu mtu, uint32_t max_wr, const struct pair_opts *o,
	       struct wqe_qp **qa, struct wqe_qp **qb);
/* Progress until @cq has @n completions or @seconds of real time passed. */
int pair_wait_time(struct pair *p, struct wqe_cq *cq, int n, struct wqe_wc *wc, double seconds);
void pair_close(struct pair *p);
/* Progress on both sides until @cq has @n completions or @max_rounds pass;
 * returns how many were written to @wc. */
int pair_wait(struct pair *p, struct wqe_cq *cq, int n, struct wqe_wc *wc, int max_rounds);
/* Progress on both sides @rounds times. */
void pair_spin(struct pair *p, int rounds);

#endif
