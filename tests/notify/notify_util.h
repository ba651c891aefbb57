/* SPDX-License-Identifier: MIT */
/*
 * notify_util.h - what the completion-event tests share: a connected pair
 * whose CQs sit on completion channels (pair_opts.comp_channel), its
 * buffers, and small helpers to post, drain and read events without ever
 * waiting.
 */
#ifndef WQE_TEST_NOTIFY_UTIL_H
#define WQE_TEST_NOTIFY_UTIL_H

#include <stdint.h>

#include "pair.h"

#define NT_BUF 65536u

struct nt_env {
	struct pair p;
	struct wqe_mr *a_mr, *b_mr;
	uint8_t *a_buf, *b_buf; /* NT_BUF bytes each */
};

/* Opens a pair of @t at PMTU 1024 with both sides' CQs on channels made
 * non-blocking, and a registered buffer on each side. 0 or -1. */
int nt_open(struct nt_env *e, enum wqe_qp_type t);
void nt_close(struct nt_env *e);

/* 1 if @fd polls readable now (timeout 0), else 0. */
int nt_readable(int fd);
/* Makes @ch's fd non-blocking (O_NONBLOCK). 0 or -1. */
int nt_nonblock(struct wqe_comp_channel *ch);

/* Takes one event of @ch without waiting (its fd is non-blocking): 1 with
 * *@cq and *@ctx, or 0 if none is pending (and checks that the call said
 * EAGAIN). Acknowledges it. */
int nt_event(struct wqe_comp_channel *ch, struct wqe_cq **cq, void **ctx);
/* Takes every event pending on @ch (acknowledging each); how many. */
int nt_drain_events(struct wqe_comp_channel *ch);

/* Posts one receive of @len bytes (B's buffer) on @ep's QP. */
void nt_recv(struct nt_env *e, struct ep *ep, uint32_t len, uint64_t id);
/*
 * Posts one request of @op and @len bytes from A to B (for WRITE_WITH_IMM
 * and WRITE into B's buffer), signaled, with @flags besides (e.g.
 * WQE_SEND_SOLICITED). @from is e->p.a or e->p.b; it sends to the other.
 */
void nt_send(struct nt_env *e, struct ep *from, enum wqe_wr_opcode op, uint32_t len,
	     unsigned int flags, uint64_t id);

/* Progress on both sides until @cq has @n completions (at most 2 s);
 * checks that exactly @n came and returns the first one's status in
 * *@st if @st is not NULL. */
void nt_complete(struct nt_env *e, struct wqe_cq *cq, int n, enum wqe_wc_status *st);
/* Progress on both sides @rounds times without polling any CQ. */
void nt_spin(struct nt_env *e, int rounds);

#endif
