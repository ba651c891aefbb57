/* SPDX-License-Identifier: MIT */
/*
 * print.c - one line per header of a parsed packet, and error names.
 * Shared by the dissector and the engine's trace.
 */
#include <arpa/inet.h>
#include <inttypes.h>

#include "wire/wire_int.h"

const char *wqe_pkt_err_str(int err)
{
	static const char *const names[] = {
	    [0] = "ok",
	    [1] = "truncated Ethernet header",
	    [2] = "EtherType is neither IPv4 nor IPv6",
	    [3] = "truncated IP header",
	    [4] = "IP version does not match",
	    [5] = "IPv4 options (IHL != 5) not supported",
	    [6] = "IPv4 fragment",
	    [7] = "not UDP",
	    [8] = "truncated UDP header",
	    [9] = "UDP destination port is not 4791",
	    [10] = "IP length below its headers or past the frame",
	    [11] = "UDP length does not match the IP length",
	    [12] = "UDP payload shorter than a BTH",
	    [13] = "opcode not in the table",
	    [14] = "truncated transport headers or ICRC",
	    [15] = "pad count larger than the payload",
	    [16] = "BTH to ICRC not a multiple of 4 bytes",
	    [17] = "payload on an opcode that carries none",
	    [18] = "output buffer too small",
	    [19] = "invalid packet fields",
	};

	if (err <= 0 && (unsigned)-err < sizeof(names) / sizeof(names[0]))
		return names[-err];
	return "unknown error";
}

int wqe_pkt_err_not_roce(int err)
{
	return err <= WQE_PKT_ETRUNC_ETH && err >= WQE_PKT_ENOT_ROCE;
}

static void print_addr(FILE *f, const struct wqe_pkt *p, const union wqe_gid *g)
{
	char buf[64];

	if (p->ipver == 4)
		fprintf(f, "%u.%u.%u.%u", g->raw[12], g->raw[13], g->raw[14], g->raw[15]);
	else if (inet_ntop(AF_INET6, g->raw, buf, sizeof(buf)))
		fputs(buf, f);
	else
		fputs("?", f);
}

static void print_l2(FILE *f, const struct wqe_pkt *p)
{
	const uint8_t *s = p->smac, *d = p->dmac;

	fprintf(f, "  ETH %02x:%02x:%02x:%02x:%02x:%02x > %02x:%02x:%02x:%02x:%02x:%02x", s[0],
		s[1], s[2], s[3], s[4], s[5], d[0], d[1], d[2], d[3], d[4], d[5]);
	if (p->has_vlan)
		fprintf(f, " vlan tpid 0x%04x pcp %u dei %u vid %u", p->vlan_tpid,
			p->vlan_tci >> 13, (p->vlan_tci >> 12) & 1u, p->vlan_tci & 0xfffu);
	fprintf(f, " type 0x%04x\n", p->ethertype);
}

static void print_l3(FILE *f, const struct wqe_pkt *p)
{
	fprintf(f, "  IPv%u ", p->ipver);
	print_addr(f, p, &p->src);
	fputs(" > ", f);
	print_addr(f, p, &p->dst);
	if (p->ipver == 4)
		fprintf(f, " tos 0x%02x ttl %u id 0x%04x flags 0x%x%s len %u csum 0x%04x %s\n",
			p->tos, p->ttl, p->ip_id, p->ip_flags, p->ip_flags & 2u ? " (DF)" : "",
			p->ip_len, p->ip_csum, p->ip_csum_ok ? "ok" : "BAD");
	else
		fprintf(f, " tclass 0x%02x flow 0x%05x hlim %u plen %u\n", p->tos,
			(unsigned)p->flow_label, p->ttl, p->ip_len);
	fprintf(f, "  UDP %u > %u len %u csum 0x%04x %s\n", p->sport, p->dport, p->udp_len,
		p->udp_csum,
		p->udp_csum == 0 ? "(none)"
		: p->udp_csum_ok ? "ok"
				 : "BAD");
}

static void print_bth(FILE *f, const struct wqe_bth *b)
{
	fprintf(f,
		"  BTH %s (0x%02x) se %u m %u pad %u tver %u pkey 0x%04x fecn %u becn %u "
		"resv6 %u dqpn 0x%06x ackreq %u resv7 %u psn %u\n",
		wqe_wire_opcode_str(b->opcode), b->opcode, b->se, b->migreq, b->padcnt, b->tver,
		b->pkey, b->fecn, b->becn, b->resv6, (unsigned)b->destqp, b->ackreq, b->resv7,
		(unsigned)b->psn);
}

static void print_aeth(FILE *f, const struct wqe_aeth *a)
{
	const char *what = "value";

	switch (wqe_aeth_type(a->syndrome)) {
	case WQE_AETH_TYPE_ACK:
		what = "credits";
		break;
	case WQE_AETH_TYPE_RNR_NAK:
		what = "timer";
		break;
	case WQE_AETH_TYPE_NAK:
		what = "code";
		break;
	case WQE_AETH_TYPE_RESERVED:
		break;
	}
	fprintf(f, "  AETH syndrome 0x%02x %s (%s %u) msn %u\n", a->syndrome,
		wqe_aeth_syndrome_str(a->syndrome), what, wqe_aeth_value(a->syndrome),
		(unsigned)a->msn);
}

static void print_ext(FILE *f, enum wqe_hdr h, const struct wqe_pkt *p)
{
	switch (h) {
	case WQE_HDR_BTH:
		print_bth(f, &p->bth);
		break;
	case WQE_HDR_DETH:
		fprintf(f, "  DETH qkey 0x%08" PRIx32 " resv8 %u srcqp 0x%06" PRIx32 "\n",
			p->deth.qkey, p->deth.resv8, p->deth.srcqp);
		break;
	case WQE_HDR_RETH:
		fprintf(f, "  RETH va 0x%016" PRIx64 " rkey 0x%08" PRIx32 " dmalen %" PRIu32 "\n",
			p->reth.va, p->reth.rkey, p->reth.dma_len);
		break;
	case WQE_HDR_ATOMICETH:
		fprintf(f,
			"  AtomicETH va 0x%016" PRIx64 " rkey 0x%08" PRIx32
			" swap_add 0x%016" PRIx64 " compare 0x%016" PRIx64 "\n",
			p->atomiceth.va, p->atomiceth.rkey, p->atomiceth.swap_add,
			p->atomiceth.compare);
		break;
	case WQE_HDR_AETH:
		print_aeth(f, &p->aeth);
		break;
	case WQE_HDR_ATOMICACKETH:
		fprintf(f, "  AtomicAckETH orig 0x%016" PRIx64 "\n", p->atomicacketh.orig);
		break;
	case WQE_HDR_IMMDT:
		fprintf(f, "  ImmDt imm 0x%08" PRIx32 "\n", p->immdt.imm);
		break;
	case WQE_HDR_IETH:
		fprintf(f, "  IETH rkey 0x%08" PRIx32 "\n", p->ieth.rkey);
		break;
	case WQE_HDR_CNP:
		fputs("  CNP reserved ", f);
		for (size_t i = 0; i < sizeof(p->cnp.rsvd); i++)
			fprintf(f, "%02x", p->cnp.rsvd[i]);
		fputc('\n', f);
		break;
	}
}

void wqe_pkt_print(FILE *f, const struct wqe_pkt *p)
{
	if (p->has_eth)
		print_l2(f, p);
	print_l3(f, p);
	for (unsigned i = 0; i < WQE_HDR_COUNT; i++)
		if (p->hdrs & 1u << i)
			print_ext(f, (enum wqe_hdr)(1u << i), p);
	fprintf(f, "  PAYLOAD %" PRIu32 " bytes pad %u\n", p->payload_len, p->bth.padcnt);
	fprintf(f, "  ICRC 0x%08" PRIx32 " %s\n", p->icrc, p->icrc_ok ? "ok" : "BAD");
}
