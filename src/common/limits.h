/* SPDX-License-Identifier: MIT */
/*
 * limits.h - the transport's size limits, which the driver (src/verbs:
 * post-time checks) and the NIC (src/engine: the requester's processing-
 * time checks, the responder's length checks) both enforce.
 *
 * Here in common/ because both may include it: tables/catalog.h, the other
 * private header the two share, brings in wqe/verbs.h, which the engine
 * must never reach (the engine_without_verbs_h build target checks it).
 */
#ifndef WQE_COMMON_LIMITS_H
#define WQE_COMMON_LIMITS_H

#include "wqe/types.h"

/* The largest message, and the largest RETH DMA length: 2^31 bytes (IBTA). */
#define MAX_MSG (1ull << 31)

/* The MTU of a UD QP: a UD message is one packet, and may be as large as
 * the port MTU (4096 bytes here). */
#define UD_MTU WQE_MTU_4096

#endif
