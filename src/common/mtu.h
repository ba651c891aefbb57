/* SPDX-License-Identifier: MIT */
/* mtu.h - path MTU enum to bytes, inline for the per-packet paths
 * (wqe_mtu_to_bytes() is the public form of the same). */
#ifndef WQE_COMMON_MTU_H
#define WQE_COMMON_MTU_H

#include <stdint.h>

#include "wqe/types.h"

/* 256 to 4096 for WQE_MTU_256..WQE_MTU_4096, 0 for anything else. */
static inline uint32_t mtu_bytes(enum wqe_mtu m)
{
	if (m < WQE_MTU_256 || m > WQE_MTU_4096)
		return 0;
	return 128u << (unsigned)m;
}

#endif
