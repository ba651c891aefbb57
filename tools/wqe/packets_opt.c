/* SPDX-License-Identifier: MIT */
/*
 * The options of wqe encode --packets and the checks they make: one option
 * at a time, the options together, and each request against them.
 */
#include <arpa/inet.h>
#include <string.h>

#include "packets.h"

#define PSN_MASK 0xffffffu

/* Which options were given (struct cli_pkt_cfg.given). */
enum {
	G_PMTU = 1u << 0,
	G_PSN = 1u << 1,
	G_DQPN = 1u << 2,
	G_SIP = 1u << 3,
	G_DIP = 1u << 4,
	G_SPORT = 1u << 5,
	G_SMAC = 1u << 6,
	G_DMAC = 1u << 7,
	G_PKEY = 1u << 8,
	G_QKEY = 1u << 9,
	G_PCAP = 1u << 10,
};
#define G_RC_UC_ONLY (G_DQPN | G_DIP | G_SPORT | G_DMAC)

static int set_pmtu(struct cli_pkt_cfg *c, const char *v)
{
	uint32_t n;

	if (cli_parse_u32(v, 4096, &n))
		return -1;
	for (enum wqe_mtu m = WQE_MTU_256; m <= WQE_MTU_4096; m++) {
		if (wqe_mtu_to_bytes(m) == n) {
			c->mtu = m;
			return 0;
		}
	}
	return -1;
}

static int set_psn(struct cli_pkt_cfg *c, const char *v)
{
	return cli_parse_u32(v, PSN_MASK, &c->psn);
}

static int set_dqpn(struct cli_pkt_cfg *c, const char *v)
{
	return cli_parse_u32(v, 0xffffff, &c->dqpn);
}

static int set_qkey(struct cli_pkt_cfg *c, const char *v)
{
	return cli_parse_u32(v, UINT32_MAX, &c->qkey);
}

static int set_pkey(struct cli_pkt_cfg *c, const char *v)
{
	return cli_parse_u32(v, 0xffff, &c->pkey);
}

static int set_sport(struct cli_pkt_cfg *c, const char *v)
{
	return cli_parse_u32(v, 0xffff, &c->sport) || c->sport < 0xc000 ? -1 : 0;
}

/* An IPv4 address becomes the GID ::ffff:a.b.c.d, as RoCEv2 keeps it. */
static int parse_ip(const char *v, union wqe_gid *g)
{
	uint8_t a[16];

	memset(g, 0, sizeof(*g));
	if (inet_pton(AF_INET, v, a) == 1) {
		g->raw[10] = 0xff;
		g->raw[11] = 0xff;
		memcpy(g->raw + 12, a, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, v, a) == 1) {
		memcpy(g->raw, a, 16);
		return 0;
	}
	return -1;
}

static int set_sip(struct cli_pkt_cfg *c, const char *v)
{
	return parse_ip(v, &c->sip);
}

static int set_dip(struct cli_pkt_cfg *c, const char *v)
{
	return parse_ip(v, &c->dip);
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Six colon-separated hex pairs. */
static int parse_mac(const char *v, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++, v += 3) {
		int hi = hexval(v[0]), lo = hi < 0 ? -1 : hexval(v[1]);

		if (lo < 0 || v[2] != (i == 5 ? '\0' : ':'))
			return -1;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int set_smac(struct cli_pkt_cfg *c, const char *v)
{
	return parse_mac(v, c->smac);
}

static int set_dmac(struct cli_pkt_cfg *c, const char *v)
{
	return parse_mac(v, c->dmac);
}

static int set_pcap(struct cli_pkt_cfg *c, const char *v)
{
	c->pcap = v;
	return *v ? 0 : -1;
}

static const struct pkt_opt {
	const char *name;
	unsigned int bit;
	int (*set)(struct cli_pkt_cfg *c, const char *v);
	const char *takes;
} pkt_opts[] = {
    {"--pmtu", G_PMTU, set_pmtu, "256, 512, 1024, 2048 or 4096"},
    {"--psn", G_PSN, set_psn, "a 24-bit PSN"},
    {"--dqpn", G_DQPN, set_dqpn, "a 24-bit QP number"},
    {"--src-ip", G_SIP, set_sip, "an IPv4 or IPv6 address"},
    {"--dst-ip", G_DIP, set_dip, "an IPv4 or IPv6 address"},
    {"--sport", G_SPORT, set_sport, "a UDP source port from 0xc000 to 0xffff"},
    {"--smac", G_SMAC, set_smac, "a MAC address xx:xx:xx:xx:xx:xx"},
    {"--dmac", G_DMAC, set_dmac, "a MAC address xx:xx:xx:xx:xx:xx"},
    {"--pkey", G_PKEY, set_pkey, "a 16-bit P_Key"},
    {"--qkey", G_QKEY, set_qkey, "a 32-bit Q_Key"},
    {"--pcap", G_PCAP, set_pcap, "a file name"},
};
#define NUM_PKT_OPTS (sizeof(pkt_opts) / sizeof(pkt_opts[0]))

void cli_pkt_defaults(struct cli_pkt_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->mtu = WQE_MTU_1024;
	c->dqpn = 0x000456;
	c->sport = 0xc000;
	c->pkey = 0xffff;
	parse_ip("192.0.2.1", &c->sip);
	parse_ip("192.0.2.2", &c->dip);
	parse_mac("02:00:00:00:00:01", c->smac);
	parse_mac("02:00:00:00:00:02", c->dmac);
}

int cli_pkt_opt(int argc, char **argv, int *i, struct cli_pkt_cfg *c, char *msg, size_t cap)
{
	const char *v;

	if (strcmp(argv[*i], "--packets") == 0) {
		c->on = 1;
		return 1;
	}
	for (size_t k = 0; k < NUM_PKT_OPTS; k++) {
		const struct pkt_opt *o = &pkt_opts[k];
		int m = cli_opt_msg(argc, argv, i, o->name, &v, msg, cap);

		if (m == 0)
			continue;
		if (m < 0)
			return -1;
		if (o->set(c, v)) {
			snprintf(msg, cap, "bad value '%s' for %s: it takes %s", v, o->name, o->takes);
			return -1;
		}
		c->given |= o->bit;
		return 1;
	}
	return 0;
}

int cli_pkt_check_cfg(const struct cli_pkt_cfg *c, enum wqe_qp_type t, char *msg, size_t cap)
{
	if (!c->on) {
		for (size_t k = 0; k < NUM_PKT_OPTS; k++) {
			if (c->given & pkt_opts[k].bit) {
				snprintf(msg, cap, "%s needs --packets", pkt_opts[k].name);
				return -1;
			}
		}
		return 0;
	}
	if (t == WQE_QPT_UD && (c->given & G_RC_UC_ONLY)) {
		snprintf(msg, cap,
			 "--dst-ip, --dqpn, --sport and --dmac are for RC and UC: on "
			 "UD the request's dgid=, dqpn=, sport= and dmac= say where it goes");
		return -1;
	}
	if (t != WQE_QPT_UD && (c->given & G_QKEY)) {
		snprintf(msg, cap, "--qkey is for UD QPs");
		return -1;
	}
	if (t != WQE_QPT_UD && wqe_gid_is_v4(&c->sip) != wqe_gid_is_v4(&c->dip)) {
		snprintf(msg, cap, "--src-ip and --dst-ip must be of the same IP family");
		return -1;
	}
	return 0;
}

static int carries_payload(enum wqe_wr_opcode op)
{
	return op != WQE_WR_RDMA_READ && op != WQE_WR_ATOMIC_CMP_AND_SWP &&
	       op != WQE_WR_ATOMIC_FETCH_AND_ADD;
}

int cli_pkt_check_wr(const struct cli_pkt_cfg *c, enum wqe_qp_type t, const struct wqe_send_wr *wr,
		     char *msg, size_t cap, const char **key)
{
	uint64_t total = 0;

	*key = wr->send_flags & WQE_SEND_INLINE ? "inline" : "sge";
	if (!c->on || !carries_payload(wr->opcode))
		return 0;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (t == WQE_QPT_UD && total > wqe_mtu_to_bytes(c->mtu)) {
		snprintf(msg, cap,
			 "a UD message of %llu bytes is over the MTU of %u bytes (--pmtu)",
			 (unsigned long long)total, wqe_mtu_to_bytes(c->mtu));
		return -1;
	}
	if (total > CLI_PKT_MAX_MSG) {
		snprintf(msg, cap, "--packets expands messages of up to %u bytes, not %llu",
			 CLI_PKT_MAX_MSG, (unsigned long long)total);
		return -1;
	}
	*key = "dgid";
	if (t == WQE_QPT_UD && wr->wr.ud.ah &&
	    wqe_gid_is_v4(&wr->wr.ud.ah->attr.grh.dgid) != wqe_gid_is_v4(&c->sip)) {
		snprintf(msg, cap,
			 "the destination dgid= must be of the IP family of --src-ip (%s)",
			 wqe_gid_is_v4(&c->sip) ? "IPv4" : "IPv6");
		return -1;
	}
	return 0;
}
