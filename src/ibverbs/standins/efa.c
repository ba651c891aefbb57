/* SPDX-License-Identifier: MIT */
/*
 * Stand-in libefa.so.1. Debian's perftest links libefa directly, and the real
 * one imports rdma-core's private provider ABI (IBVERBS_PRIVATE_34), which
 * wqe's drop-in libibverbs does not export. This library exports the same
 * symbols and versions as Debian's and answers "not this vendor's device":
 * every call fails as its man page documents, with EOPNOTSUPP. It prints
 * nothing.
 */
#include <errno.h>
#include <stddef.h>

#include <infiniband/efadv.h>

/* Creations and look-ups that return a pointer: NULL with errno set. */
static void *fail_null(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

/* The queries return the errno value itself (0 on success); errno is set too. */
static int fail_int(void)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

/* The calls come in the order of their version nodes, as in efa.map. */

/* ------------------------------------------------------------------------ */
/* EFA_1.0 */

struct ibv_qp *efadv_create_driver_qp(struct ibv_pd *ibvpd, struct ibv_qp_init_attr *attr,
				      uint32_t driver_qp_type)
{
	(void)ibvpd;
	(void)attr;
	(void)driver_qp_type;
	return fail_null();
}

/* ------------------------------------------------------------------------ */
/* EFA_1.1 */

struct ibv_qp *efadv_create_qp_ex(struct ibv_context *ibvctx, struct ibv_qp_init_attr_ex *attr_ex,
				  struct efadv_qp_init_attr *efa_attr, uint32_t inlen)
{
	(void)ibvctx;
	(void)attr_ex;
	(void)efa_attr;
	(void)inlen;
	return fail_null();
}

int efadv_query_ah(struct ibv_ah *ibvah, struct efadv_ah_attr *attr, uint32_t inlen)
{
	(void)ibvah;
	(void)attr;
	(void)inlen;
	return fail_int();
}

int efadv_query_device(struct ibv_context *ibvctx, struct efadv_device_attr *attr, uint32_t inlen)
{
	(void)ibvctx;
	(void)attr;
	(void)inlen;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* EFA_1.2 */

/* Pointer arithmetic in the real library; no EFA CQ exists here, so NULL. */
struct efadv_cq *efadv_cq_from_ibv_cq_ex(struct ibv_cq_ex *ibvcqx)
{
	(void)ibvcqx;
	return fail_null();
}

/* No man page in this release; NULL with errno like the other creations. */
struct ibv_cq_ex *efadv_create_cq(struct ibv_context *ibvctx, struct ibv_cq_init_attr_ex *attr_ex,
				  struct efadv_cq_init_attr *efa_attr, uint32_t inlen)
{
	(void)ibvctx;
	(void)attr_ex;
	(void)efa_attr;
	(void)inlen;
	return fail_null();
}
