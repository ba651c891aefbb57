/* SPDX-License-Identifier: MIT */
/*
 * cm_jsonl.c - a CM MAD as a frame of a capture and, beside it, the line
 * of expected values tshark_cm_check.py compares with Wireshark's
 * dissection (cm_jsonl.h). Shared by cm_pcap (every message the codec
 * carries) and cm_agent_pcap (every MAD the agents send).
 */
#include <stdio.h>
#include <string.h>

#include "cm_jsonl.h"
#include "test_gid.h"
#include "testutil.h"
#include "wqe/wire.h"

static FILE *js;

void cm_jsonl_open(FILE *f)
{
	js = f;
}

static int first;

static void begin(const struct wqe_cm_msg *m)
{
	fprintf(js, "{\"attr\": %u, \"name\": \"%s\", \"tid\": %llu, \"attr_mod\": %u",
		m->hdr.attr_id, wqe_cm_attr_str(m->hdr.attr_id), (unsigned long long)m->hdr.tid,
		m->hdr.attr_mod);
	fprintf(js, ", \"fields\": {");
	first = 1;
}

static void u(const char *name, uint64_t v)
{
	fprintf(js, "%s\"%s\": %llu", first ? "" : ", ", name, (unsigned long long)v);
	first = 0;
}

static void hex(const char *name, const uint8_t *p, size_t n)
{
	fprintf(js, "%s\"%s\": \"", first ? "" : ", ", name);
	for (size_t i = 0; i < n; i++)
		fprintf(js, "%02x", p[i]);
	fputc('"', js);
	first = 0;
}

/* A GID as tshark shows it: an IPv4 field for ::ffff:a.b.c.d (name_v4),
 * else the IPv6 field, both as 16 hex bytes (the checker compares
 * addresses, not spellings). */
static void gid(const char *name, const char *name_v4, const union wqe_gid *g)
{
	if (wqe_gid_is_v4(g))
		hex(name_v4, g->raw, 16);
	else
		hex(name, g->raw, 16);
}

static void end(void)
{
	fputs("}}\n", js);
}

static void path(const char *pfx, const struct wqe_cm_path *p)
{
	char n[96], n4[96];

#define PF(x) (snprintf(n, sizeof(n), "infiniband.cm.req.%s_%s", pfx, x), n)
	u(PF("locallid"), p->local_lid);
	u(PF("remotelid"), p->remote_lid);
	if (strcmp(pfx, "prim") == 0) {
		snprintf(n4, sizeof(n4), "infiniband.cm.req.%s_localgid_ipv4", pfx);
		gid(PF("localgid"), n4, &p->local_gid);
		snprintf(n4, sizeof(n4), "infiniband.cm.req.%s_remotegid_ipv4", pfx);
		gid(PF("remotegid"), n4, &p->remote_gid);
	} else { /* tshark 4.0 shows the alternate GIDs as bytes */
		hex(PF("localgid"), p->local_gid.raw, 16);
		hex(PF("remotegid"), p->remote_gid.raw, 16);
	}
	u(PF("flowlabel"), p->flow_label);
	u(PF("pktrate"), p->packet_rate);
	u(PF("tfcclass"), p->traffic_class);
	u(PF("hoplim"), p->hop_limit);
	u(PF("sl"), p->sl);
	u(PF("subnetlocal"), p->subnet_local);
	u(PF("localacktout"), p->local_ack_timeout);
#undef PF
}

static void emit_req(const struct wqe_cm_req *q)
{
	struct wqe_cm_ip_hdr ip;

	u("infiniband.cm.req", q->local_comm_id);
	u("infiniband.cm.req.serviceid", q->service_id);
	u("infiniband.cm.req.localcaguid", q->local_ca_guid);
	u("infiniband.cm.req.localqkey", q->local_qkey);
	u("infiniband.cm.req.localqpn", q->local_qpn);
	u("infiniband.cm.req.responderres", q->responder_resources);
	u("infiniband.cm.req.localeecn", q->local_eecn);
	u("infiniband.cm.req.initdepth", q->initiator_depth);
	u("infiniband.cm.req.remoteeecn", q->remote_eecn);
	u("infiniband.cm.req.remoteresptout", q->remote_cm_response_timeout);
	u("infiniband.cm.req.transpsvctype", q->transport_type);
	u("infiniband.cm.req.e2eflowctrl", q->e2e_flow_control);
	u("infiniband.cm.req.startpsn", q->starting_psn);
	u("infiniband.cm.req.localresptout", q->local_cm_response_timeout);
	u("infiniband.cm.req.retrcount", q->retry_count);
	u("infiniband.cm.req.pkey", q->pkey);
	u("infiniband.cm.req.pppmtu", q->path_mtu);
	u("infiniband.cm.req.rdcexist", q->rdc_exists);
	u("infiniband.cm.req.rnrretrcount", q->rnr_retry_count);
	u("infiniband.cm.req.maxcmretr", q->max_cm_retries);
	u("infiniband.cm.req.srq", q->srq);
	u("infiniband.cm.req.ext_transport", q->ext_transport_type);
	path("prim", &q->primary);
	path("alt", &q->alternate);
	/* rdma_cm's header, which tshark decodes as "IP CM" for an IP
	 * service ID; the consumer's private data follows it. */
	if (wqe_cm_ip_hdr_decode(q->private_data, sizeof(q->private_data), &ip) > 0) {
		u("infiniband.cm.req.ip_cm.majv", 0);
		u("infiniband.cm.req.ip_cm.minv", 0);
		u("infiniband.cm.req.ip_cm.ipv", ip.ip_version);
		u("infiniband.cm.req.ip_cm.sport", ip.src_port);
		if (ip.ip_version == 4) {
			hex("infiniband.cm.req.ip_cm.sip4", ip.src.raw, 16);
			hex("infiniband.cm.req.ip_cm.dip4", ip.dst.raw, 16);
		} else {
			hex("infiniband.cm.req.ip_cm.sip6", ip.src.raw, 16);
			hex("infiniband.cm.req.ip_cm.dip6", ip.dst.raw, 16);
		}
		hex("infiniband.cm.req.ip_cm.private", q->private_data + WQE_CM_IP_HDR_LEN,
		    sizeof(q->private_data) - WQE_CM_IP_HDR_LEN);
	} else {
		hex("infiniband.cm.req.private", q->private_data, sizeof(q->private_data));
	}
}

void cm_jsonl_emit(const struct wqe_cm_msg *m)
{
	begin(m);
	switch (m->hdr.attr_id) {
	case WQE_CM_ATTR_REQ:
		emit_req(&m->u.req);
		break;
	case WQE_CM_ATTR_MRA:
		u("local_comm_id", m->u.mra.local_comm_id);
		u("remote_comm_id", m->u.mra.remote_comm_id);
		u("msg_mraed", m->u.mra.msg_mraed);
		u("service_timeout", m->u.mra.service_timeout);
		hex("private_data", m->u.mra.private_data, sizeof(m->u.mra.private_data));
		break;
	case WQE_CM_ATTR_REJ:
		u("infiniband.cm.rej.localcommid", m->u.rej.local_comm_id);
		u("infiniband.cm.rej.remotecommid", m->u.rej.remote_comm_id);
		u("infiniband.cm.rej.msgrej", m->u.rej.msg_rejected);
		u("infiniband.cm.rej.rejinfolen", m->u.rej.ari_len);
		u("infiniband.cm.rej.reason", m->u.rej.reason);
		hex("infiniband.cm.rej.ari", m->u.rej.ari, sizeof(m->u.rej.ari));
		hex("infiniband.cm.rej.private", m->u.rej.private_data,
		    sizeof(m->u.rej.private_data));
		break;
	case WQE_CM_ATTR_REP: {
		const struct wqe_cm_rep *p = &m->u.rep;

		u("infiniband.cm.rep", p->local_comm_id);
		u("infiniband.cm.rep.remotecommid", p->remote_comm_id);
		u("infiniband.cm.rep.localqkey", p->local_qkey);
		u("infiniband.cm.rep.localqpn", p->local_qpn);
		u("infiniband.cm.rep.localeecn", p->local_eecn);
		u("infiniband.cm.rep.startpsn", p->starting_psn);
		u("infiniband.cm.rep.respres", p->responder_resources);
		u("infiniband.cm.rep.initdepth", p->initiator_depth);
		u("infiniband.cm.rep.tgtackdelay", p->target_ack_delay);
		u("infiniband.cm.rep.failoveracc", p->failover_accepted);
		u("infiniband.cm.rep.e2eflowctrl", p->e2e_flow_control);
		u("infiniband.cm.rep.rnrretrcount", p->rnr_retry_count);
		u("infiniband.cm.rep.srq", p->srq);
		u("infiniband.cm.rep.localcaguid", p->local_ca_guid);
		hex("infiniband.cm.rep.private", p->private_data, sizeof(p->private_data));
		break;
	}
	case WQE_CM_ATTR_RTU:
		u("infiniband.cm.rtu.localcommid", m->u.rtu.local_comm_id);
		u("infiniband.cm.rtu.remotecommid", m->u.rtu.remote_comm_id);
		hex("infiniband.cm.rtu.private", m->u.rtu.private_data,
		    sizeof(m->u.rtu.private_data));
		break;
	case WQE_CM_ATTR_DREQ:
		u("infiniband.cm.dreq.localcommid", m->u.dreq.local_comm_id);
		u("infiniband.cm.dreq.remotecommid", m->u.dreq.remote_comm_id);
		u("infiniband.cm.req.remoteqpneecn", m->u.dreq.remote_qpn);
		hex("infiniband.cm.dreq.private", m->u.dreq.private_data,
		    sizeof(m->u.dreq.private_data));
		break;
	case WQE_CM_ATTR_DREP:
		u("infiniband.cm.drsp.localcommid", m->u.drep.local_comm_id);
		u("infiniband.cm.drsp.remotecommid", m->u.drep.remote_comm_id);
		hex("infiniband.cm.drsp.private", m->u.drep.private_data,
		    sizeof(m->u.drep.private_data));
		break;
	case WQE_CM_ATTR_SIDR_REQ:
		u("request_id", m->u.sidr_req.request_id);
		u("pkey", m->u.sidr_req.pkey);
		u("service_id", m->u.sidr_req.service_id);
		hex("private_data", m->u.sidr_req.private_data, sizeof(m->u.sidr_req.private_data));
		break;
	case WQE_CM_ATTR_SIDR_REP: {
		const struct wqe_cm_sidr_rep *p = &m->u.sidr_rep;

		u("request_id", p->request_id);
		u("status", p->status);
		u("info_len", p->info_len);
		u("vendor_id", p->vendor_id);
		u("qpn", p->qpn);
		u("service_id", p->service_id);
		u("qkey", p->qkey);
		hex("info", p->info, sizeof(p->info));
		hex("private_data", p->private_data, sizeof(p->private_data));
		break;
	}
	default:
		break;
	}
	end();
}

void cm_frame_out(struct wqe_pcap *pc, const struct wqe_cm_msg *m, int ipver, uint32_t psn,
		  uint64_t ts)
{
	struct wqe_pkt a;
	struct wqe_cm_msg back;
	uint8_t mad[WQE_MAD_LEN], frame[512];
	size_t len = 0;
	const char *field = NULL;

	memset(&a, 0, sizeof(a));
	a.ipver = (uint8_t)ipver;
	memcpy(a.dmac, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(a.smac, "\x02\x00\x00\x00\x00\x01", 6);
	if (ipver == 4) {
		test_gid_v4(&a.src, 10, 0, 0, 1);
		test_gid_v4(&a.dst, 10, 0, 0, 2);
		a.ip_flags = 2;
	} else {
		test_gid_v6(&a.src, 1);
		test_gid_v6(&a.dst, 2);
	}
	a.ttl = 64;
	a.sport = 0xc000;
	a.bth.psn = psn;
	CHECK_EQ(wqe_cm_encode(m, mad, sizeof(mad), &field), WQE_MAD_LEN);
	if (field)
		fprintf(stderr, "encode blamed %s\n", field);
	CHECK_EQ(wqe_cm_decode(mad, sizeof(mad), &back, NULL), 0);
	CHECK_MEM(&back, m, sizeof(back));
	CHECK_EQ(wqe_cm_frame_build(&a, mad, frame, sizeof(frame), &len), 0);
	CHECK_EQ(wqe_pcap_write(pc, frame, len, ts), 0);
	cm_jsonl_emit(m);
}
