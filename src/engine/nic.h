/* SPDX-License-Identifier: MIT */
/*
 * nic.h - the modelled NIC: the engine's state and the device interface the
 * verbs layer drives it through.
 *
 * The interface is the one a driver has to its hardware and firmware:
 * commands that create and change table entries (QP context, CQ context,
 * keys), the doorbell register, and a progress call that stands for the
 * NIC's own clock. The engine includes wqe/desc.h and wqe/types.h, never
 * wqe/verbs.h: it cannot see a software Work Request.
 */
#ifndef WQE_ENGINE_NIC_H
#define WQE_ENGINE_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "ring/ring.h"
#include "tables/keys.h"
#include "tables/qpc.h"
#include "wqe/desc.h"
#include "wqe/wire.h"
#include "wqe/types.h"

/* The port's addresses, as the NIC knows them. */
struct nic_port {
	uint8_t mac[6];
	uint32_t num_gids;
	union wqe_gid gid[4];
	uint32_t num_pkeys;
	uint16_t pkey[4];
};

/* Per-QP statistics the engine keeps (wqe/link.h struct wqe_qp_stats). */
struct nic_qp_stats {
	uint64_t wqes_fetched;
	uint64_t wqe_fetch_blocks;  /* 64-byte blocks read from the ring */
	uint64_t payload_reads;     /* host-memory reads for payload (one per SGE) */
	uint64_t payload_bytes;
	uint64_t inline_wqes;
	uint64_t fence_stalls;
	uint64_t rd_atomic_stalls;
	uint64_t packets_sent;
	uint64_t bytes_sent;
	uint64_t wqe_errors;
	uint64_t flushed;
};

/* An RC WQE whose packets have left and that waits for its response. */
struct inflight {
	uint32_t start;     /* first block */
	uint32_t nblocks;
	uint32_t first_psn;
	uint32_t npsn;
	uint64_t len;
	uint8_t op;         /* enum wqe_op */
	bool signaled;
};

/* The requester's state for one QP. */
struct eng_req {
	uint32_t fetch;          /* block counter of the next WQE to fetch */
	uint32_t psn;            /* next PSN to send */
	uint32_t rd_atomic;      /* outstanding READ and atomic requests */
	uint16_t ip_id;
	bool stalled;            /* the current stall was already counted */
	struct inflight *inflight; /* RC: WQEs sent, not yet completed */
	uint32_t nflight;        /* capacity: one per ring block */
	uint32_t fl_head, fl_tail;
};

struct eng_qp {
	struct nic_qp_stats stats;
	struct eng_req req;
	bool doorbell;          /* the doorbell register named this QP */
};

/* Where the NIC's frames go: the attached link and the capture tap. */
struct nic_tx {
	void (*xmit)(void *arg, const uint8_t *frame, size_t len);
	void *arg;
	struct wqe_pcap *tap;
};

/* Largest frame: Ethernet + VLAN + IPv6 + UDP + BTH + RETH/AtomicETH +
 * 4096 payload + pad + ICRC, rounded up. */
#define NIC_FRAME_MAX 4352u

struct nic {
	enum wqe_format format;
	struct nic_tx tx;
	uint8_t frame[NIC_FRAME_MAX];
	struct nic_port port;
	struct key_table keys;
	struct qp_table qps;
	struct doorbell_reg db;
	uint64_t progress_calls;
	uint64_t clock_ns;         /* timestamp of captured frames */
};

struct nic *nic_create(enum wqe_format fmt, const struct nic_port *port);
void nic_destroy(struct nic *n);

/* Commands. Each returns 0 or a positive errno. */
int nic_qp_create(struct nic *n, struct qpc *q);
void nic_qp_destroy(struct nic *n, struct qpc *q);
/* Applies a state change already validated by the state machine. */
void nic_qp_set_state(struct nic *n, struct qpc *q, enum wqe_qp_state s);

/* The doorbell register write of one post call (8 bytes). */
void nic_doorbell(struct nic *n, const uint8_t val[8]);

/* Sends one frame to the link and the tap. */
void nic_xmit(struct nic *n, const uint8_t *frame, size_t len);

/* Lets the NIC run: drains doorbells, processes work. Returns work done. */
int nic_progress(struct nic *n);

#endif
