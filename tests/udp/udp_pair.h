/* SPDX-License-Identifier: MIT */
/*
 * udp_pair.h - endpoints on UDP links in one process: each context has its
 * own UDP link bound to an address of 127/8 (Linux routes the whole block
 * to the loopback interface, so no root is needed), and the two talk
 * RoCEv2 through the kernel.
 *
 * The addresses are 127.X.Y.1, .2, ... with X.Y taken from the process id,
 * so that tests running in parallel never share a port 4791.
 */
#ifndef WQE_TEST_UDP_PAIR_H
#define WQE_TEST_UDP_PAIR_H

#include <sys/types.h> /* ssize_t */

#include "wqe/link.h"
#include "wqe/verbs.h"

/* One endpoint: its link, context, objects, and what its NIC dropped. */
struct uep {
	char addr[16];
	union wqe_gid gid;
	struct wqe_link *link;
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_cq *scq;
	struct wqe_cq *rcq;
	struct wqe_qp *qp;
	struct wqe_ah *ah; /* UD: the other side's address */
	struct wqe_comp_channel *channel; /* uep_open_channel(): both CQs' */
	/* trace counts (atomic: with WQE_NIC_MODE=thread the trace runs in
	 * the NIC thread) */
	_Atomic uint64_t rx;	   /* frames that passed the receive filters */
	_Atomic uint64_t drops;	   /* frames the NIC dropped, any reason */
	_Atomic uint64_t bad_icrc; /* of them, for a bad ICRC */
	_Atomic uint64_t malformed;
};

struct upair {
	struct uep a, b;
	enum wqe_qp_type type;
};

/* From now on this process and the children it forks use this process's
 * 127.X.Y (a test whose endpoints are in two processes). */
void udp_test_pin_net(void);
/* The test address 127.X.Y.@host of this process (@out: 16 bytes). */
void udp_test_addr(unsigned host, char *out);
/* The same address as a GID: ::ffff:127.X.Y.@host. */
void udp_test_gid(unsigned host, union wqe_gid *g);

/* A plain UDP socket (non-blocking) bound to 127.X.Y.3 port 4791 that
 * reports each datagram's TOS and TTL; its address as a GID in @gid. */
int udp_plain_socket(union wqe_gid *gid);
/* One datagram from @fd into @buf: its length (-1: none waiting), its TOS
 * and TTL in @tos and @ttl (-1 if not reported). */
ssize_t udp_plain_recv(int fd, uint8_t *buf, size_t cap, int *tos, int *ttl);

/*
 * An endpoint on a new UDP link bound to 127.X.Y.@host: context (GID
 * ::ffff:127.X.Y.@host, MAC 02:00:00:00:00:@host), PD, two CQs, a QP of
 * type @t in RESET with @max_wr entries each way. Returns 0 or an errno.
 */
int uep_open(struct uep *e, unsigned host, enum wqe_qp_type t, uint32_t max_wr);
/* The same with both CQs on a completion channel (e->channel) and no
 * trace. */
int uep_open_channel(struct uep *e, unsigned host, enum wqe_qp_type t, uint32_t max_wr);
void uep_close(struct uep *e);

/*
 * Moves @e's QP to RTS towards @dgid (RC/UC: QP @dest_qpn, PSN 0x1000 both
 * ways, RNR and retry counts 7, timeout 14; UD: Q_Key 0x11111111 and an
 * AH to @dgid in e->ah), with traffic class @tclass and hop limit @hop in
 * the address vector. Returns 0 or -1.
 */
int uep_connect(struct uep *e, const union wqe_gid *dgid, uint32_t dest_qpn, enum wqe_qp_type t,
		enum wqe_mtu mtu, uint8_t tclass, uint8_t hop);

/* A on host 1, B on host 2, QPs connected (RC/UC: PSN 0x1000, RNR and
 * retry counts 7, timeout 14; UD: Q_Key 0x11111111 and an AH each).
 * Returns 0 or -1. */
int upair_open(struct upair *p, enum wqe_qp_type t, enum wqe_mtu mtu, uint32_t max_wr);
void upair_close(struct upair *p);

/* Progress on both sides @rounds times. */
void upair_spin(struct upair *p, int rounds);
/* Progress on both sides until @cq has @n completions or @seconds of real
 * time passed; returns how many were written to @wc. */
int upair_wait(struct upair *p, struct wqe_cq *cq, int n, struct wqe_wc *wc, double seconds);

#endif
