/* SPDX-License-Identifier: MIT */
/*
 * cm_gen.h - valid CM messages for the CM tests: random ones (every field
 * any value its width and the spec allow, often an edge) and one fixed,
 * distinctive message per type for the capture tshark reads. Fields are
 * set by hand, message by message, not through the codec's tables.
 */
#ifndef WQE_TEST_CM_GEN_H
#define WQE_TEST_CM_GEN_H

#include "testutil.h"
#include "wqe/cm.h"

/* The nine attributes the codec carries, REQ to SIDR_REP. */
#define CM_GEN_NATTRS 9
extern const uint16_t cm_gen_attrs[CM_GEN_NATTRS];

/* A valid message of type @attr with random fields and private data. */
void cm_gen_random(struct test_rng *r, uint16_t attr, struct wqe_cm_msg *m);

/* A valid message of type @attr with fixed values, every field nonzero
 * where it may be and distinct from its neighbours. A REQ or SIDR_REQ
 * carries an IPv4 IP CM header (rdma_cm's) before its private data. */
void cm_gen_fixed(uint16_t attr, struct wqe_cm_msg *m);

#endif
