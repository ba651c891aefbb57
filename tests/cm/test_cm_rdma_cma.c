/* SPDX-License-Identifier: MIT */
/*
 * test_cm_rdma_cma.c - wqe/cm.h's rdma_cm constants against the system's
 * <rdma/rdma_cma.h> (librdmacm-dev): the port spaces, the IP service-ID
 * bases and mask, and the Q_Key rdma_cm gives UD QPs.
 */
#include <rdma/rdma_cma.h>

#include "testutil.h"
#include "wqe/cm.h"

int main(void)
{
	CHECK_EQ(WQE_RDMA_PS_TCP, RDMA_PS_TCP);
	CHECK_EQ(WQE_RDMA_PS_UDP, RDMA_PS_UDP);
	CHECK_EQ(WQE_RDMA_PS_IB, RDMA_PS_IB);
	CHECK_EQ(WQE_RDMA_UDP_QKEY, RDMA_UDP_QKEY);
	CHECK_EQ(wqe_cm_service_id(WQE_RDMA_PS_TCP, 0), RDMA_IB_IP_PS_TCP);
	CHECK_EQ(wqe_cm_service_id(WQE_RDMA_PS_UDP, 0), RDMA_IB_IP_PS_UDP);
	for (uint32_t port = 0; port <= 0xffff; port += 257) {
		const uint64_t sid = wqe_cm_service_id(WQE_RDMA_PS_TCP, (uint16_t)port);
		enum wqe_rdma_ps ps;
		uint16_t p;

		CHECK_EQ(sid & RDMA_IB_IP_PS_MASK, RDMA_IB_IP_PS_TCP);
		CHECK_EQ(sid & RDMA_IB_IP_PORT_MASK, port);
		CHECK_EQ(wqe_cm_service_id_parse(sid, &ps, &p), 0);
		CHECK_EQ(ps, RDMA_PS_TCP);
		CHECK_EQ(p, port);
	}
	/* RDMA_PS_IPOIB's IDs are not IP CM service IDs. */
	CHECK_EQ(wqe_cm_service_id_parse((uint64_t)RDMA_PS_IPOIB << 16 | 1, NULL, NULL),
		 WQE_CM_ERANGE);
	return test_finish();
}
