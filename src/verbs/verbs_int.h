/* SPDX-License-Identifier: MIT */
/*
 * verbs_int.h - the software side of the objects of wqe/verbs.h: what a
 * driver keeps in host memory next to the NIC's tables.
 */
#ifndef WQE_VERBS_INT_H
#define WQE_VERBS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/nic.h"
#include "ring/ring.h"
#include "tables/qpc.h"
#include "wqe/model.h"
#include "wqe/verbs.h"

#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

struct wqe_context {
	struct wqe_context_attr attr;
	struct nic *nic;
	struct wqe_link *link;
	struct link_port *port;
	uint32_t next_pd;
	uint32_t npd, nmr, ncq, nqp, nah;
};

struct wqe_pd {
	struct wqe_context *context;
	uint32_t handle;
	uint32_t refs; /* MRs, QPs and AHs using it */
};

struct wqe_cq {
	struct wqe_context *context;
	struct cqc cqc;
	uint32_t ci;   /* software consumer counter */
	uint32_t refs; /* QPs using it */
};

struct wqe_qp {
	struct qpc qpc; /* first: the NIC's table points here */
	struct wqe_context *context;
	struct wqe_pd *pd;
	struct wqe_cq *send_cq;
	struct wqe_cq *recv_cq;
	void *qp_context;
	struct wqe_qp_cap cap;
	enum wqe_qp_state sw_state; /* what post-time checks go by */
	struct sq_ring sq;
	struct rq_ring rq;
	uint32_t wqe_bytes;         /* largest WQE the sizing allows */
	uint64_t *sq_wrid;          /* wr_id per first block of each WQE */
	uint64_t *rq_wrid;          /* wr_id per receive slot */
	struct wqe_ah_attr ah_attr; /* as last set, for query */
};

static inline struct wqe_qp *qp_of_qpc(struct qpc *q)
{
	return container_of(q, struct wqe_qp, qpc);
}

/* Default UDP source port of a QP, in rxe's range 0xc000-0xffff. */
uint16_t verbs_default_sport(uint32_t qpn);

#endif
