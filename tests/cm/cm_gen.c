/* SPDX-License-Identifier: MIT */
/* cm_gen.c - valid CM messages for the CM tests (cm_gen.h). */
#include <string.h>

#include "cm_gen.h"

const uint16_t cm_gen_attrs[CM_GEN_NATTRS] = {
    WQE_CM_ATTR_REQ,  WQE_CM_ATTR_MRA,	WQE_CM_ATTR_REJ,      WQE_CM_ATTR_REP,	    WQE_CM_ATTR_RTU,
    WQE_CM_ATTR_DREQ, WQE_CM_ATTR_DREP, WQE_CM_ATTR_SIDR_REQ, WQE_CM_ATTR_SIDR_REP,
};

#define E(bits) test_rng_edge(r, (bits))

static void rand_path(struct test_rng *r, struct wqe_cm_path *p)
{
	p->local_lid = (uint16_t)E(16);
	p->remote_lid = (uint16_t)E(16);
	test_rng_fill(r, p->local_gid.raw, 16);
	test_rng_fill(r, p->remote_gid.raw, 16);
	p->flow_label = (uint32_t)E(20);
	p->packet_rate = (uint8_t)E(6);
	p->traffic_class = (uint8_t)E(8);
	p->hop_limit = (uint8_t)E(8);
	p->sl = (uint8_t)E(4);
	p->subnet_local = (uint8_t)E(1);
	p->local_ack_timeout = (uint8_t)E(5);
}

static void rand_req(struct test_rng *r, struct wqe_cm_req *q)
{
	q->local_comm_id = (uint32_t)E(32);
	q->vendor_id = (uint32_t)E(24);
	q->service_id = E(64);
	q->local_ca_guid = E(64);
	q->local_qkey = (uint32_t)E(32);
	q->local_qpn = (uint32_t)E(24);
	q->responder_resources = (uint8_t)E(8);
	q->local_eecn = (uint32_t)E(24);
	q->initiator_depth = (uint8_t)E(8);
	q->remote_eecn = (uint32_t)E(24);
	q->remote_cm_response_timeout = (uint8_t)E(5);
	q->transport_type = (uint8_t)E(2);
	q->ext_transport_type = q->transport_type == WQE_CM_TRANSPORT_EXTENDED ? 1 : 0;
	q->e2e_flow_control = (uint8_t)E(1);
	q->starting_psn = (uint32_t)E(24);
	q->local_cm_response_timeout = (uint8_t)E(5);
	q->retry_count = (uint8_t)E(3);
	q->pkey = (uint16_t)E(16);
	q->path_mtu = (uint8_t)(1 + test_rng_below(r, 5));
	q->rdc_exists = (uint8_t)E(1);
	q->rnr_retry_count = (uint8_t)E(3);
	q->max_cm_retries = (uint8_t)E(4);
	q->srq = (uint8_t)E(1);
	rand_path(r, &q->primary);
	rand_path(r, &q->alternate);
	q->sap_supported = (uint8_t)E(1);
	test_rng_fill(r, q->private_data, sizeof(q->private_data));
}

void cm_gen_random(struct test_rng *r, uint16_t attr, struct wqe_cm_msg *m)
{
	wqe_cm_msg_init(m, (enum wqe_cm_attr)attr, E(64));
	m->hdr.attr_mod = (uint32_t)E(32);
	switch (attr) {
	case WQE_CM_ATTR_REQ:
		rand_req(r, &m->u.req);
		break;
	case WQE_CM_ATTR_MRA:
		m->u.mra.local_comm_id = (uint32_t)E(32);
		m->u.mra.remote_comm_id = (uint32_t)E(32);
		m->u.mra.msg_mraed = (uint8_t)test_rng_below(r, 3);
		m->u.mra.service_timeout = (uint8_t)E(5);
		test_rng_fill(r, m->u.mra.private_data, sizeof(m->u.mra.private_data));
		break;
	case WQE_CM_ATTR_REJ:
		m->u.rej.local_comm_id = (uint32_t)E(32);
		m->u.rej.remote_comm_id = (uint32_t)E(32);
		m->u.rej.msg_rejected = (uint8_t)test_rng_below(r, 3);
		m->u.rej.ari_len = (uint8_t)test_rng_below(r, WQE_CM_ARI_LEN + 1);
		m->u.rej.reason = (uint16_t)(1 + test_rng_below(r, WQE_CM_REJ_REASON_MAX));
		test_rng_fill(r, m->u.rej.ari, sizeof(m->u.rej.ari));
		test_rng_fill(r, m->u.rej.private_data, sizeof(m->u.rej.private_data));
		break;
	case WQE_CM_ATTR_REP: {
		struct wqe_cm_rep *p = &m->u.rep;

		p->local_comm_id = (uint32_t)E(32);
		p->remote_comm_id = (uint32_t)E(32);
		p->local_qkey = (uint32_t)E(32);
		p->local_qpn = (uint32_t)E(24);
		p->vendor_id = (uint32_t)E(24);
		p->local_eecn = (uint32_t)E(24);
		p->starting_psn = (uint32_t)E(24);
		p->responder_resources = (uint8_t)E(8);
		p->initiator_depth = (uint8_t)E(8);
		p->target_ack_delay = (uint8_t)E(5);
		p->failover_accepted = (uint8_t)test_rng_below(r, 3);
		p->e2e_flow_control = (uint8_t)E(1);
		p->rnr_retry_count = (uint8_t)E(3);
		p->srq = (uint8_t)E(1);
		p->local_ca_guid = E(64);
		test_rng_fill(r, p->private_data, sizeof(p->private_data));
		break;
	}
	case WQE_CM_ATTR_RTU:
		m->u.rtu.local_comm_id = (uint32_t)E(32);
		m->u.rtu.remote_comm_id = (uint32_t)E(32);
		test_rng_fill(r, m->u.rtu.private_data, sizeof(m->u.rtu.private_data));
		break;
	case WQE_CM_ATTR_DREQ:
		m->u.dreq.local_comm_id = (uint32_t)E(32);
		m->u.dreq.remote_comm_id = (uint32_t)E(32);
		m->u.dreq.remote_qpn = (uint32_t)E(24);
		test_rng_fill(r, m->u.dreq.private_data, sizeof(m->u.dreq.private_data));
		break;
	case WQE_CM_ATTR_DREP:
		m->u.drep.local_comm_id = (uint32_t)E(32);
		m->u.drep.remote_comm_id = (uint32_t)E(32);
		test_rng_fill(r, m->u.drep.private_data, sizeof(m->u.drep.private_data));
		break;
	case WQE_CM_ATTR_SIDR_REQ:
		m->u.sidr_req.request_id = (uint32_t)E(32);
		m->u.sidr_req.pkey = (uint16_t)E(16);
		m->u.sidr_req.service_id = E(64);
		test_rng_fill(r, m->u.sidr_req.private_data, sizeof(m->u.sidr_req.private_data));
		break;
	case WQE_CM_ATTR_SIDR_REP: {
		struct wqe_cm_sidr_rep *p = &m->u.sidr_rep;

		p->request_id = (uint32_t)E(32);
		p->status = (uint8_t)test_rng_below(r, WQE_CM_SIDR_STATUS_MAX + 1);
		p->info_len = (uint8_t)test_rng_below(r, WQE_CM_SIDR_INFO_LEN + 1);
		p->vendor_id = (uint32_t)E(24);
		p->qpn = (uint32_t)E(24);
		p->service_id = E(64);
		p->qkey = (uint32_t)E(32);
		test_rng_fill(r, p->info, sizeof(p->info));
		test_rng_fill(r, p->private_data, sizeof(p->private_data));
		break;
	}
	default:
		break;
	}
}

/* Private data 0x<seed>, 0x<seed>+1, ... */
static void fill_seq(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i);
}

/* rdma_cm's IP CM header (10.0.0.1:40000 -> 10.0.0.2), then user data. */
static void ip_pdata(uint8_t *pd, size_t n)
{
	struct wqe_cm_ip_hdr h = {.ip_version = 4, .src_port = 40000};

	fill_seq(pd, n, 0x40);
	test_gid_v4(&h.src, 10, 0, 0, 1);
	test_gid_v4(&h.dst, 10, 0, 0, 2);
	(void)wqe_cm_ip_hdr_encode(&h, pd, n);
}

static void fixed_req(struct wqe_cm_req *q)
{
	q->local_comm_id = 0x1a2b3c4d;
	q->vendor_id = 0; /* tshark 4.0 shows bytes 4-7 as one reserved field */
	q->service_id = wqe_cm_service_id(WQE_RDMA_PS_TCP, 7471);
	q->local_ca_guid = 0x0002c90300a1b2c3ull;
	q->local_qkey = 0x01234567;
	q->local_qpn = 0x00abcd;
	q->responder_resources = 4;
	q->local_eecn = 0;
	q->initiator_depth = 3;
	q->remote_eecn = 0;
	q->remote_cm_response_timeout = 20;
	q->transport_type = WQE_CM_TRANSPORT_RC;
	q->e2e_flow_control = 1;
	q->starting_psn = 0x5a5a5a;
	q->local_cm_response_timeout = 18;
	q->retry_count = 7;
	q->pkey = 0xffff;
	q->path_mtu = WQE_MTU_1024;
	q->rnr_retry_count = 6;
	q->max_cm_retries = 15;
	q->srq = 0;
	q->primary.local_lid = 0xffff;
	q->primary.remote_lid = 0xffff;
	test_gid_v4(&q->primary.local_gid, 10, 0, 0, 1);
	test_gid_v4(&q->primary.remote_gid, 10, 0, 0, 2);
	q->primary.flow_label = 0x12345;
	q->primary.packet_rate = 16;
	q->primary.traffic_class = 0x68;
	q->primary.hop_limit = 64;
	q->primary.sl = 3;
	q->primary.subnet_local = 0;
	q->primary.local_ack_timeout = 19;
	ip_pdata(q->private_data, sizeof(q->private_data));
}

void cm_gen_fixed(uint16_t attr, struct wqe_cm_msg *m)
{
	wqe_cm_msg_init(m, (enum wqe_cm_attr)attr, 0x0000000100000000ull | attr);
	switch (attr) {
	case WQE_CM_ATTR_REQ:
		fixed_req(&m->u.req);
		break;
	case WQE_CM_ATTR_MRA:
		m->u.mra.local_comm_id = 0x2b3c4d5e;
		m->u.mra.remote_comm_id = 0x1a2b3c4d;
		m->u.mra.msg_mraed = WQE_CM_MSG_REQ;
		m->u.mra.service_timeout = 21;
		fill_seq(m->u.mra.private_data, sizeof(m->u.mra.private_data), 0x11);
		break;
	case WQE_CM_ATTR_REJ:
		m->u.rej.local_comm_id = 0x2b3c4d5e;
		m->u.rej.remote_comm_id = 0x1a2b3c4d;
		m->u.rej.msg_rejected = WQE_CM_MSG_REQ;
		m->u.rej.ari_len = 0;
		m->u.rej.reason = WQE_CM_REJ_CONSUMER_DEFINED;
		fill_seq(m->u.rej.private_data, sizeof(m->u.rej.private_data), 0x12);
		break;
	case WQE_CM_ATTR_REP: {
		struct wqe_cm_rep *p = &m->u.rep;

		p->local_comm_id = 0x2b3c4d5e;
		p->remote_comm_id = 0x1a2b3c4d;
		p->local_qkey = 0x07654321;
		p->local_qpn = 0x00bcde;
		p->starting_psn = 0x3c3c3c;
		p->responder_resources = 2;
		p->initiator_depth = 5;
		p->target_ack_delay = 15;
		p->failover_accepted = WQE_CM_FAILOVER_NOT_SUPPORTED;
		p->e2e_flow_control = 1;
		p->rnr_retry_count = 7;
		p->srq = 1;
		p->local_ca_guid = 0x0002c90300d4e5f6ull;
		fill_seq(p->private_data, sizeof(p->private_data), 0x13);
		break;
	}
	case WQE_CM_ATTR_RTU:
		m->u.rtu.local_comm_id = 0x1a2b3c4d;
		m->u.rtu.remote_comm_id = 0x2b3c4d5e;
		fill_seq(m->u.rtu.private_data, sizeof(m->u.rtu.private_data), 0x14);
		break;
	case WQE_CM_ATTR_DREQ:
		m->u.dreq.local_comm_id = 0x1a2b3c4d;
		m->u.dreq.remote_comm_id = 0x2b3c4d5e;
		m->u.dreq.remote_qpn = 0x00bcde;
		fill_seq(m->u.dreq.private_data, sizeof(m->u.dreq.private_data), 0x15);
		break;
	case WQE_CM_ATTR_DREP:
		m->u.drep.local_comm_id = 0x2b3c4d5e;
		m->u.drep.remote_comm_id = 0x1a2b3c4d;
		fill_seq(m->u.drep.private_data, sizeof(m->u.drep.private_data), 0x16);
		break;
	case WQE_CM_ATTR_SIDR_REQ:
		m->u.sidr_req.request_id = 0x3c4d5e6f;
		m->u.sidr_req.pkey = 0xffff;
		m->u.sidr_req.service_id = wqe_cm_service_id(WQE_RDMA_PS_UDP, 7174);
		ip_pdata(m->u.sidr_req.private_data, sizeof(m->u.sidr_req.private_data));
		break;
	case WQE_CM_ATTR_SIDR_REP: {
		struct wqe_cm_sidr_rep *p = &m->u.sidr_rep;

		p->request_id = 0x3c4d5e6f;
		p->status = WQE_CM_SIDR_SUCCESS;
		p->info_len = 0;
		p->vendor_id = 0x02c903; /* ECE: bytes 6-7 and 11 */
		p->qpn = 0x00cdef;
		p->service_id = wqe_cm_service_id(WQE_RDMA_PS_UDP, 7174);
		p->qkey = WQE_RDMA_UDP_QKEY;
		fill_seq(p->private_data, sizeof(p->private_data), 0x18);
		break;
	}
	default:
		break;
	}
}
