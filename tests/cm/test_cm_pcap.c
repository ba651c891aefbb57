/* SPDX-License-Identifier: MIT */
/*
 * test_cm_pcap.c - writes the capture the tshark oracle reads: every CM
 * message the codec carries, encoded by wqe_cm_encode() and framed by
 * wqe_cm_frame_build() as a RoCEv2 UD SEND ONLY to QP1, and beside it
 * cm.jsonl, one line per frame with the values encoded, under the names
 * of Wireshark's fields (for the messages tshark 4.0 dissects: REQ, REP,
 * RTU, REJ, DREQ, DREP) or of the IBTA's (MRA, SIDR_REQ, SIDR_REP, which
 * tshark_cm_check.py reads from the MAD data itself).
 *
 * Frames: the nine fixed messages over IPv4; a REQ over IPv6 with IPv6
 * GIDs and an IPv6 IP CM header, an alternate path and an XRC transport;
 * a REJ with ARI; an MRA of a REP. Each is decoded again here too.
 */
#include <stdio.h>
#include <string.h>

#include "cm_gen.h"
#include "cm_jsonl.h"
#include "testutil.h"
#include "wqe/wire.h"

#ifndef WQE_TEST_BINDIR
#define WQE_TEST_BINDIR "."
#endif

int main(void)
{
	const char *pcap = WQE_TEST_BINDIR "/cm.pcap";
	const char *jsonl = WQE_TEST_BINDIR "/cm.jsonl";
	struct wqe_pcap *pc = wqe_pcap_open(pcap);
	struct wqe_cm_msg m;
	uint32_t psn = 100;
	uint64_t ts = 1700000000000000000ull;

	FILE *js = fopen(jsonl, "w");

	cm_jsonl_open(js);
	CHECK(pc != NULL && js != NULL);
	if (!pc || !js)
		return test_finish();
	for (size_t k = 0; k < CM_GEN_NATTRS; k++) {
		cm_gen_fixed(cm_gen_attrs[k], &m);
		cm_frame_out(pc, &m, 4, psn++, ts += 1000);
	}

	/* A REQ over IPv6: IPv6 GIDs and IP CM header, an alternate path,
	 * XRC, the ECE attribute modifier. */
	struct wqe_cm_ip_hdr ip = {.ip_version = 6, .src_port = 50001};
	cm_gen_fixed(WQE_CM_ATTR_REQ, &m);
	m.hdr.tid = 0x00000002deadbeefull;
	m.hdr.attr_mod = 0x00000001;
	m.u.req.transport_type = WQE_CM_TRANSPORT_EXTENDED;
	m.u.req.ext_transport_type = WQE_CM_EXT_TRANSPORT_XRC;
	m.u.req.srq = 1;
	m.u.req.rdc_exists = 1;
	m.u.req.path_mtu = WQE_MTU_4096;
	m.u.req.service_id = wqe_cm_service_id(WQE_RDMA_PS_TCP, 20049);
	test_gid_v6(&m.u.req.primary.local_gid, 1);
	test_gid_v6(&m.u.req.primary.remote_gid, 2);
	m.u.req.primary.subnet_local = 1;
	m.u.req.alternate = m.u.req.primary;
	m.u.req.alternate.local_lid = 0x0011;
	m.u.req.alternate.remote_lid = 0x0022;
	m.u.req.alternate.flow_label = 0xfffff;
	m.u.req.alternate.packet_rate = 0x3f;
	m.u.req.alternate.sl = 15;
	m.u.req.alternate.local_ack_timeout = 31;
	test_gid_v6(&ip.src, 1);
	test_gid_v6(&ip.dst, 2);
	CHECK_EQ(wqe_cm_ip_hdr_encode(&ip, m.u.req.private_data, sizeof(m.u.req.private_data)),
		 WQE_CM_IP_HDR_LEN);
	cm_frame_out(pc, &m, 6, psn++, ts += 1000);

	/* A REJ of a REP with ARI (a GID, as for "invalid GID"). */
	cm_gen_fixed(WQE_CM_ATTR_REJ, &m);
	m.u.rej.msg_rejected = WQE_CM_MSG_REP;
	m.u.rej.reason = WQE_CM_REJ_INVALID_GID;
	m.u.rej.ari_len = 16;
	for (int i = 0; i < 16; i++)
		m.u.rej.ari[i] = (uint8_t)(0xa0 + i);
	cm_frame_out(pc, &m, 4, psn++, ts += 1000);

	/* An MRA of a REP. */
	cm_gen_fixed(WQE_CM_ATTR_MRA, &m);
	m.u.mra.msg_mraed = WQE_CM_MSG_REP;
	m.u.mra.service_timeout = 31;
	cm_frame_out(pc, &m, 4, psn++, ts += 1000);

	CHECK_EQ(wqe_pcap_close(pc), 0);
	CHECK_EQ(fclose(js), 0);
	printf("wrote %s and %s\n", pcap, jsonl);
	return test_finish();
}
