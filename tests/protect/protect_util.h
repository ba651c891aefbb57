/* SPDX-License-Identifier: MIT */
/*
 * protect_util.h - what the protection-matrix tests share.
 *
 * An arena: one static buffer carved into regions, each between 64-byte
 * canary bands, all filled with a known pattern. After a case,
 * arena_changed() counts every byte that differs from the pattern outside
 * the ranges the case allowed (arena_allow()): a protection error must
 * leave it at 0, and a region without the access must never change.
 *
 * The endpoints: a connected pair (tests/e2e/pair.h) with every region of
 * the matrix registered on both sides, and helpers to post one request and
 * wait for what it gives.
 */
#ifndef WQE_TEST_PROTECT_UTIL_H
#define WQE_TEST_PROTECT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "pair.h"
#include "wqe/verbs.h"

#define ARENA_GUARD 64u

/* Carves @len bytes (64-byte aligned) after a canary band. */
uint8_t *arena_take(size_t len);
/* Forgets every region and allowance. */
void arena_reset(void);
/* Refills every byte with the pattern and forgets the allowances. */
void arena_fill(void);
/* Bytes [p, p + len) may change in the current case. */
void arena_allow(const void *p, size_t len);
/* Changed bytes outside what was allowed (prints the first few). */
size_t arena_changed(const char *label);

/* The regions of the matrix, on A (requester) and B (responder). */
enum {
	A_SRC,	 /* A: LOCAL_WRITE */
	A_NOLW,	 /* A: no access at all */
	A_PD2,	 /* A: LOCAL_WRITE, in A's second PD */
	A_DEREG, /* A: LOCAL_WRITE, deregistered */
	A_RECV,	 /* A: LOCAL_WRITE, its receive buffers */
	B_RW,	 /* B: all access */
	B_NOW,	 /* B: all but REMOTE_WRITE */
	B_NOR,	 /* B: all but REMOTE_READ */
	B_NOA,	 /* B: all but REMOTE_ATOMIC */
	B_PD2,	 /* B: all access, in B's second PD */
	B_DEREG, /* B: all access, deregistered */
	B_INV,	 /* B: all access, its rkey to be invalidated */
	B_RECV,	 /* B: LOCAL_WRITE, its receive buffers */
	B_NOLW,	 /* B: no access (a receive buffer without LOCAL_WRITE) */
	NREGION
};
#define REGION_LEN 4096u

/* What a context put on the wire and what it dropped (its trace). */
#define TAP_MAX 256
struct tap {
	uint32_t ntx;
	uint8_t op[TAP_MAX];	   /* BTH opcode of each frame sent */
	uint8_t syndrome[TAP_MAX]; /* AETH syndrome, 0xff when none */
	uint32_t psn[TAP_MAX];
	uint32_t ndrop;
	const char *drop_reason; /* of the last drop */
	uint32_t ncheck_fail;
	enum wqe_check check; /* of the last processing-time check failure */
};

/* Frames of @t with opcode ACKNOWLEDGE and AETH @syndrome. */
uint32_t tap_count(const struct tap *t, uint8_t opcode, uint8_t syndrome);
/* Frames of @t whose opcode is a response (READ response, ACK, atomic ACK). */
uint32_t tap_responses(const struct tap *t);

struct penv {
	struct pair p;
	struct tap ta, tb;
	struct wqe_pd *a_pd2, *b_pd2;
	uint8_t *buf[NREGION];
	struct wqe_mr *mr[NREGION];
	uint32_t key[NREGION]; /* lkey = rkey; kept after deregistration */
};

/* Opens the pair (@t, MTU 1024, 16 WRs) and registers every region. */
void penv_open(struct penv *e, enum wqe_qp_type t);
void penv_close(struct penv *e);

/* An SGE over [off, off + len) of region @r with its lkey (or @lkey_override
 * when non-zero). */
struct wqe_sge penv_sge(const struct penv *e, int r, uint32_t off, uint32_t len);
uint64_t penv_addr(const struct penv *e, int r, uint32_t off);

/* Posts a one-SGE receive on @ep. */
void penv_recv(struct penv *e, struct ep *ep, struct wqe_sge sge, uint64_t wr_id);

/* Posts @w (signaled, wr_id 100) and then two good SENDs (101, 102) behind
 * it on A. For UD the address of B is filled in. Returns wqe_post_send(). */
int penv_post_three(struct penv *e, struct wqe_send_wr *w);

/* Polls @cq until @n completions or the rounds run out; returns the count. */
int penv_wait(struct penv *e, struct wqe_cq *cq, int n, struct wqe_wc *wc);

enum wqe_qp_state qp_state(struct wqe_qp *qp);

/* Frames A has put on the wire so far (its QP's packets_sent). */
uint64_t a_packets(struct penv *e);

/*
 * The checks every remote case ends with: A's send queue gives @st for
 * wr_id 100 then two flushes, A's two receives are flushed, A is in ERR;
 * B answered with exactly one NAK of @syndrome and nothing else (no data,
 * no READ response); B is in @b_state and its @b_recvs receives completed
 * with @b_first (its first) and WR_FLUSH_ERR (the rest); no byte of the
 * arena changed outside what was allowed.
 */
void penv_check_remote(struct penv *e, const char *label, enum wqe_wc_status st, uint8_t syndrome,
		       enum wqe_qp_state b_state, int b_recvs, enum wqe_wc_status b_first);

#endif
