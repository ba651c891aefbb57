/* SPDX-License-Identifier: MIT */
/*
 * async_util.h - what the asynchronous-event tests share: a connected pair
 * (tests/e2e/pair.h) with registered buffers and both contexts' async fds
 * made non-blocking, extra QPs connected up to a chosen state on chosen
 * CQs, posting helpers, and checks that take events without ever waiting.
 */
#ifndef WQE_TEST_ASYNC_UTIL_H
#define WQE_TEST_ASYNC_UTIL_H

#include <stdint.h>

#include "pair.h"

#define AS_BUF 65536u

struct as_env {
	struct pair p;
	struct pair_opts o;
	enum wqe_mtu mtu;
	struct wqe_mr *a_mr, *b_mr;
	uint8_t *a_buf, *b_buf; /* AS_BUF bytes each */
};

/* Opens a pair of @t at @mtu over a loopback (wrapped in a fault injector
 * with @f unless NULL), with @o (NULL: pair_defaults), a registered buffer
 * on each side, and both async fds non-blocking. 0 or -1. */
int as_open(struct as_env *e, enum wqe_qp_type t, enum wqe_mtu mtu, const struct wqe_fault_cfg *f,
	    const struct pair_opts *o);
void as_close(struct as_env *e);

/* Makes @ctx's async fd non-blocking (1) or blocking (0). 0 or -1. */
int as_set_nonblock(struct wqe_context *ctx, int on);
/* 1 if @ctx's async fd polls readable now (timeout 0), else 0. */
int as_readable(struct wqe_context *ctx);

/* Takes one event of @ctx without waiting (its fd is non-blocking): 1 and
 * *@ev, acknowledged; or 0 if none is waiting (and checks that the call
 * said EAGAIN). */
int as_take(struct wqe_context *ctx, struct wqe_async_event *ev);
/* Takes exactly one event and checks its type and element (a QP or a CQ). */
#define AS_EXPECT(ctx, type, elem) as_expect_at((ctx), (type), (elem), __FILE__, __LINE__)
void as_expect_at(struct wqe_context *ctx, enum wqe_event_type type, const void *elem,
		  const char *file, int line);
/* Checks that no event is waiting: the fd is not readable, the call says
 * EAGAIN. */
#define AS_NONE(ctx) as_none_at((ctx), __FILE__, __LINE__)
void as_none_at(struct wqe_context *ctx, const char *file, int line);

/* A QP of @e's type on @ep's PD with send CQ @scq and receive CQ @rcq
 * (NULL: the ep's own), or NULL. */
struct wqe_qp *as_qp(struct as_env *e, struct ep *ep, struct wqe_cq *scq, struct wqe_cq *rcq);
/* Takes @qp (of side @idx, 1 = A, 2 = B) from RESET through INIT, RTR
 * and RTS, stopping at @upto, connected to @peer_qpn (RC/UC) with the
 * pair's options and PSNs @sq_psn (sent) and @rq_psn (expected). 0 or the
 * first failing errno. */
int as_connect(struct as_env *e, struct wqe_qp *qp, int idx, uint32_t peer_qpn,
	       enum wqe_qp_state upto, uint32_t sq_psn, uint32_t rq_psn);
/* Moves @qp to @s with nothing else set; returns wqe_modify_qp()'s result. */
int as_modify(struct wqe_qp *qp, enum wqe_qp_state s);
/* RTS -> SQD with EN_SQD_ASYNC_NOTIFY in the mask and the field @notify
 * (@mask 0: the mask bit left out). Returns wqe_modify_qp()'s result. */
int as_sqd(struct wqe_qp *qp, int mask, uint8_t notify);
/* The QP's state and sq_draining, from wqe_query_qp(). */
enum wqe_qp_state as_state(struct wqe_qp *qp);
int as_draining(struct wqe_qp *qp);

/* Posts a signaled RDMA WRITE (or READ, @op) of @len bytes from @qp (on
 * side A, B's buffer the target, @rkey B's unless @rkey_xor flips bits of
 * it) with wr_id @id. */
void as_rdma(struct as_env *e, struct wqe_qp *qp, enum wqe_wr_opcode op, uint32_t len,
	     uint32_t rkey_xor, uint64_t id);
/* Posts a signaled SEND of @len bytes from @qp (side A) to @dest (UD:
 * B's QP number), wr_id @id. */
void as_send(struct as_env *e, struct wqe_qp *qp, uint32_t len, uint32_t dest_qpn, uint64_t id);
/* Posts a receive of @len bytes (B's buffer; UD: plus the GRH) on @qp. */
void as_recv(struct as_env *e, struct wqe_qp *qp, uint32_t len, uint64_t id);

/* Progress on both sides until @cq has @n completions (at most @seconds of
 * real time); returns how many came, the first's status in *@st. */
int as_wait(struct as_env *e, struct wqe_cq *cq, int n, double seconds, enum wqe_wc_status *st);

#endif
