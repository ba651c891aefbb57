/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues: not yet on a wqe device (the NIC's responder takes
 * receive WQEs only from the QP's own queue). Refused with EOPNOTSUPP, as
 * a device without SRQ support refuses them.
 */
#include <errno.h>

#include "ibverbs/ibv_int.h"

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	(void)pd;
	(void)srq_init_attr;
	errno = EOPNOTSUPP;
	return NULL;
}

int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)
{
	(void)srq;
	(void)srq_attr;
	(void)srq_attr_mask;
	return EOPNOTSUPP;
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	(void)srq;
	(void)srq_attr;
	return EOPNOTSUPP;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	(void)srq;
	return EOPNOTSUPP;
}
