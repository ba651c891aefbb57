/* SPDX-License-Identifier: MIT */
/*
 * fuzz_util.h - what the live fuzz targets share: an arena of memory
 * regions with canary bands around each, and a per-byte "may change" mask
 * checked after every input; a clock the harness owns; a QP brought to RTS
 * with chosen attributes; RoCEv2 framing of a UDP payload with a correct
 * ICRC; a byte reader over the fuzz input.
 */
#ifndef WQE_FUZZ_UTIL_H
#define WQE_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "test_gid.h"
#include "wqe/link.h"
#include "wqe/verbs.h"
#include "wqe/wire.h"

/* Canary bytes before and after every region. */
#define FZ_GUARD 64u

/* Stops the process with a message: a finding (libFuzzer saves the input). */
__attribute__((noreturn, format(printf, 1, 2))) void fz_die(const char *fmt, ...);

/*
 * An arena: one buffer carved into regions separated by canary bands. Every
 * byte starts as a known pattern; fz_allow() marks bytes that the input may
 * legitimately change; fz_arena_check() dies naming the first byte that
 * changed without being allowed to.
 */
struct fz_arena {
	uint8_t *buf;
	uint8_t *allow; /* 1 per byte that may change */
	uint8_t *tmpl;	/* the pattern every byte starts as */
	size_t size;
	size_t used;
	uint8_t seed; /* pattern of this input */
	struct {
		const char *name;
		size_t off;
		size_t len;
	} reg[32];
	unsigned nreg;
};

/*
 * Maps @size bytes at the fixed address @at (once per process), so that
 * region addresses, like the keys of a fresh context, are the same in every
 * run: a seed that names a region by address stays meaningful.
 */
void fz_arena_init(struct fz_arena *a, uintptr_t at, size_t size);
/* Starts an input: forgets every region, refills the pattern from @seed. */
void fz_arena_reset(struct fz_arena *a, uint8_t seed);
/* Starts an input on a kept layout: refills the pattern, keeps the regions
 * and what may change. */
void fz_arena_refill(struct fz_arena *a);
/* Carves a region of @len bytes (64-byte aligned) after a canary band. */
uint8_t *fz_arena_take(struct fz_arena *a, const char *name, size_t len);
/* Bytes [p, p+len) may change during this input. */
void fz_allow(struct fz_arena *a, const void *p, size_t len);
/* Bytes [p, p+len) must not change (undoes fz_allow). */
void fz_disallow(struct fz_arena *a, const void *p, size_t len);
/* Dies if a byte not allowed to change has changed; @what names the input step. */
void fz_arena_check(const struct fz_arena *a, const char *what);

/* With WQE_FUZZ_SEEDS=DIR in the environment: @write(DIR) writes the
 * target's seed corpus there, then the process exits 0. Otherwise nothing. */
void fz_seeds_from_env(void (*write)(const char *dir));

/* A clock the harness moves: pass &fz_clock_ns to wqe_context_set_clock. */
uint64_t fz_clock(void *arg);

/* Attributes of fz_qp_to_rts() beyond the defaults. */
struct fz_conn {
	enum wqe_mtu mtu;
	uint32_t dest_qpn;
	union wqe_gid dgid; /* the peer's GID */
	uint8_t dmac[6];
	uint32_t rq_psn, sq_psn;
	unsigned access; /* qp_access_flags (RC/UC) */
	uint32_t qkey;	 /* UD */
	uint8_t max_dest_rd_atomic, max_rd_atomic;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
};
/* RESET -> INIT -> RTR -> RTS; returns 0 or the errno of the step that failed. */
int fz_qp_to_rts(struct wqe_qp *qp, enum wqe_qp_type t, const struct fz_conn *c);

/* ::ffff:192.0.2.@last */
static inline void fz_gid_v4(union wqe_gid *g, uint8_t last)
{
	test_gid_v4(g, 192, 0, 2, last);
}

/* Addressing of a frame built around a UDP payload. */
struct fz_addr {
	int ipver; /* 4 or 6 */
	uint8_t dmac[6], smac[6];
	union wqe_gid src, dst;
	uint16_t sport;
	uint16_t ip_id;
};
/*
 * Builds Ethernet / IPv4 or IPv6 / UDP(4791) around the UDP payload @udp
 * (BTH onward, without an ICRC) and appends the ICRC it must have.
 * Returns the frame length, or 0 if @cap is too small.
 */
size_t fz_wrap(const struct fz_addr *a, const uint8_t *udp, size_t len, uint8_t *out, size_t cap);

/*
 * Dies unless every frame of sink @l parses as RoCEv2 with a good ICRC
 * and IP checksum: whatever the input, the NIC only sends well-formed frames.
 */
void fz_check_sink(struct wqe_link *l, const char *who);

/* A cursor over the fuzz input; reads past the end give zeros. */
struct fz_in {
	const uint8_t *p;
	size_t len;
	size_t pos;
};
uint8_t fz_u8(struct fz_in *in);
uint16_t fz_u16(struct fz_in *in);
uint32_t fz_u32(struct fz_in *in);
uint64_t fz_u64(struct fz_in *in);
/* Up to @n bytes at the cursor (fewer at the end); *@got says how many. */
const uint8_t *fz_bytes(struct fz_in *in, size_t n, size_t *got);

#endif
