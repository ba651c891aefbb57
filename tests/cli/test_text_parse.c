/* SPDX-License-Identifier: MIT */
/*
 * The Work Request text form (wqe/text.h): every opcode and key, every
 * error with its column, the resolver hook, the line reader, and
 * parse(format(x)) == x for random requests.
 */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "wqe/text.h"

static struct wqe_text_wr req;
static struct wqe_text_err err;

static int parse_qp(const char *line, enum wqe_qp_type t)
{
	struct wqe_text_opts opts = {t, NULL, NULL};

	return wqe_parse_send_wr(line, strlen(line), &opts, &req, &err);
}

static int parse(const char *line)
{
	return wqe_parse_send_wr(line, strlen(line), NULL, &req, &err);
}

static void test_opcodes(void)
{
	static const struct {
		const char *text;
		enum wqe_wr_opcode op;
	} ops[] = {
		{"send", WQE_WR_SEND},
		{"send_imm", WQE_WR_SEND_WITH_IMM},
		{"send_inv", WQE_WR_SEND_WITH_INV},
		{"write", WQE_WR_RDMA_WRITE},
		{"write_imm", WQE_WR_RDMA_WRITE_WITH_IMM},
		{"read", WQE_WR_RDMA_READ},
		{"cas", WQE_WR_ATOMIC_CMP_AND_SWP},
		{"faa", WQE_WR_ATOMIC_FETCH_AND_ADD},
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		CHECK_EQ(parse(ops[i].text), 0);
		CHECK_EQ(req.wr.opcode, ops[i].op);
		CHECK_EQ(req.wr.num_sge, 0);
		CHECK(req.wr.sg_list == req.sge);
		CHECK_EQ(req.wr.send_flags, 0);
		CHECK(req.wr.next == NULL);
	}
	/* whitespace, tabs and a trailing comment are fine */
	CHECK_EQ(parse("  \tsend\t id=7   # a comment with sge=bad"), 0);
	CHECK_EQ(req.wr.wr_id, 7);
	/* the length bounds the line: "send id=12" read as "send id=1" */
	CHECK_EQ(wqe_parse_send_wr("send id=12", 9, NULL, &req, &err), 0);
	CHECK_EQ(req.wr.wr_id, 1);
}

static void test_common_keys(void)
{
	uint8_t imm[4] = {1, 2, 3, 4};

	CHECK_EQ(parse("send id=0xffffffffffffffff sge=0x1000:64:0x1234 sge=2:0:3 "
		       "sge=18446744073709551615:4294967295:4294967295 flags=solicited,fence"),
		 0);
	CHECK_EQ(req.wr.wr_id, UINT64_MAX);
	CHECK_EQ(req.wr.num_sge, 3);
	CHECK_EQ(req.sge[0].addr, 0x1000);
	CHECK_EQ(req.sge[0].length, 64);
	CHECK_EQ(req.sge[0].lkey, 0x1234);
	CHECK_EQ(req.sge[1].addr, 2);
	CHECK_EQ(req.sge[1].length, 0);
	CHECK_EQ(req.sge[1].lkey, 3);
	CHECK_EQ(req.sge[2].addr, UINT64_MAX);
	CHECK_EQ(req.sge[2].length, UINT32_MAX);
	CHECK_EQ(req.sge[2].lkey, UINT32_MAX);
	CHECK_EQ(req.wr.send_flags, WQE_SEND_SOLICITED | WQE_SEND_FENCE);

	CHECK_EQ(parse("send_imm imm=0x01020304 flags=signaled"), 0);
	CHECK_MEM(&req.wr.imm_data, imm, 4);
	CHECK_EQ(req.wr.send_flags, WQE_SEND_SIGNALED);
	CHECK_EQ(parse("write_imm imm=16909060"), 0);
	CHECK_MEM(&req.wr.imm_data, imm, 4);
	CHECK_EQ(parse("send_inv inv=0xABCD"), 0);
	CHECK_EQ(req.wr.invalidate_rkey, 0xabcd);

	CHECK_EQ(parse("write inline=a0A1ff"), 0);
	CHECK_EQ(req.wr.send_flags, WQE_SEND_INLINE);
	CHECK_EQ(req.inline_len, 3);
	CHECK_EQ(req.inline_data[0], 0xa0);
	CHECK_EQ(req.inline_data[1], 0xa1);
	CHECK_EQ(req.inline_data[2], 0xff);
	CHECK_EQ(req.wr.num_sge, 1);
	CHECK(req.sge[0].addr == (uint64_t)(uintptr_t)req.inline_data);
	CHECK_EQ(req.sge[0].length, 3);
	CHECK_EQ(req.sge[0].lkey, 0);
	/* an empty payload: INLINE with nothing to carry */
	CHECK_EQ(parse("send inline="), 0);
	CHECK_EQ(req.wr.send_flags, WQE_SEND_INLINE);
	CHECK_EQ(req.wr.num_sge, 0);
}

static void test_inline_max(void)
{
	static char line[2 * WQE_TEXT_MAX_INLINE + 32];
	size_t n = (size_t)snprintf(line, sizeof(line), "send inline=");

	for (unsigned int i = 0; i < WQE_TEXT_MAX_INLINE; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%02x", i & 0xffu);
	CHECK_EQ(parse(line), 0);
	CHECK_EQ(req.inline_len, WQE_TEXT_MAX_INLINE);
	CHECK_EQ(req.inline_data[WQE_TEXT_MAX_INLINE - 1], 0xff);
	snprintf(line + n, sizeof(line) - n, "00");
	CHECK_EQ(parse(line), EINVAL);
	CHECK_EQ(err.column, 13 + 2 * WQE_TEXT_MAX_INLINE);
	CHECK(strstr(err.msg, "over the limit of 4096") != NULL);
}

static void test_remote_keys(void)
{
	CHECK_EQ(parse("write raddr=0x200000000040 rkey=0xabcd"), 0);
	CHECK_EQ(req.wr.wr.rdma.remote_addr, 0x200000000040ull);
	CHECK_EQ(req.wr.wr.rdma.rkey, 0xabcd);
	CHECK_EQ(parse("read raddr=5 rkey=6"), 0);
	CHECK_EQ(req.wr.wr.rdma.remote_addr, 5);
	CHECK_EQ(req.wr.wr.rdma.rkey, 6);
	CHECK_EQ(parse("cas raddr=8 rkey=9 swap=0x1122334455667788 compare=0xffffffffffffffff"), 0);
	CHECK_EQ(req.wr.wr.atomic.remote_addr, 8);
	CHECK_EQ(req.wr.wr.atomic.rkey, 9);
	CHECK_EQ(req.wr.wr.atomic.swap, 0x1122334455667788ull);
	CHECK_EQ(req.wr.wr.atomic.compare_add, UINT64_MAX);
	CHECK_EQ(parse("faa raddr=16 rkey=1 add=42"), 0);
	CHECK_EQ(req.wr.wr.atomic.remote_addr, 16);
	CHECK_EQ(req.wr.wr.atomic.rkey, 1);
	CHECK_EQ(req.wr.wr.atomic.compare_add, 42);
}

static void test_ud_keys(void)
{
	static const uint8_t v4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 0, 2};
	static const uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				       0,    0,    0,    0,    0, 0, 0, 2};
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0xab, 0xCD};
	const struct wqe_ah_attr *a = &req.ah.attr;

	CHECK_EQ(parse_qp("send dqpn=0xffffff qkey=0xffffffff sport=65535 dgid=192.168.0.2 "
			  "dmac=02:00:00:00:ab:CD hop=255 tclass=255 flow=0xfffff sl=7 "
			  "sgid_index=255",
			  WQE_QPT_UD),
		 0);
	CHECK(req.wr.wr.ud.ah == &req.ah);
	CHECK_EQ(req.wr.wr.ud.remote_qpn, 0xffffff);
	CHECK_EQ(req.wr.wr.ud.remote_qkey, 0xffffffff);
	CHECK_EQ(a->udp_sport, 65535);
	CHECK_MEM(a->grh.dgid.raw, v4, 16);
	CHECK_MEM(a->dmac, mac, 6);
	CHECK_EQ(a->grh.hop_limit, 255);
	CHECK_EQ(a->grh.traffic_class, 255);
	CHECK_EQ(a->grh.flow_label, 0xfffff);
	CHECK_EQ(a->sl, 7);
	CHECK_EQ(a->grh.sgid_index, 255);
	CHECK_EQ(a->port_num, 1);
	CHECK_EQ(parse_qp("send_imm imm=1 dgid=2001:db8::2", WQE_QPT_UD), 0);
	CHECK_MEM(a->grh.dgid.raw, v6, 16);
	/* a UD send without address keys still gets the (all-zero) handle */
	CHECK_EQ(parse_qp("send_inv inv=1", WQE_QPT_UD), 0);
	CHECK(req.wr.wr.ud.ah == &req.ah);
	CHECK_EQ(req.ah.attr.port_num, 1);
	/* a READ on UD parses (post-time validation refuses it) */
	CHECK_EQ(parse_qp("read raddr=1 rkey=2", WQE_QPT_UD), 0);
	CHECK_EQ(req.wr.wr.rdma.remote_addr, 1);
}

struct err_case {
	const char *line;
	enum wqe_qp_type t;
	uint32_t column;
	const char *msg; /* a substring of the message */
};

static const struct err_case err_cases[] = {
	{"", WQE_QPT_RC, 1, "empty request: expected an opcode"},
	{"   # comment", WQE_QPT_RC, 4, "empty request"},
	{"sned", WQE_QPT_RC, 1,
	 "unknown opcode 'sned': expected one of send send_imm send_inv write write_imm read "
	 "cas faa"},
	{"send foo=1", WQE_QPT_RC, 6, "unknown key 'foo'"},
	{"send bar", WQE_QPT_RC, 6, "unknown key 'bar'"},
	{"write raddr=1 rkey", WQE_QPT_RC, 19, "expected '=' after 'rkey'"},
	{"write raddr=0x10 rkey=zz", WQE_QPT_RC, 23, "expected a number after 'rkey='"},
	{"write raddr=0x10 rkey=", WQE_QPT_RC, 23, "expected a number after 'rkey='"},
	{"write raddr=0x10 rkey=12z", WQE_QPT_RC, 25, "unexpected 'z' in the number after 'rkey='"},
	{"write rkey=0x", WQE_QPT_RC, 14, "expected hex digits after '0x'"},
	{"write rkey=0x100000000", WQE_QPT_RC, 12, "out of range after 'rkey=': at most 0xffffffff"},
	{"write raddr=18446744073709551616", WQE_QPT_RC, 13, "out of range after 'raddr='"},
	{"write raddr=-1", WQE_QPT_RC, 13, "expected a number after 'raddr='"},
	{"write swap=1", WQE_QPT_RC, 7, "'swap=' does not apply to write"},
	{"send raddr=1", WQE_QPT_RC, 6, "'raddr=' does not apply to send"},
	{"send imm=1", WQE_QPT_RC, 6, "'imm=' does not apply to send"},
	{"write_imm inv=1", WQE_QPT_RC, 11, "'inv=' does not apply to write_imm"},
	{"cas add=1", WQE_QPT_RC, 5, "'add=' does not apply to cas"},
	{"faa compare=1", WQE_QPT_RC, 5, "'compare=' does not apply to faa"},
	{"send dqpn=5", WQE_QPT_RC, 6, "'dqpn=' is a UD address key"},
	{"send sl=1", WQE_QPT_UC, 6, "'sl=' is a UD address key"},
	{"write dqpn=5", WQE_QPT_UD, 7, "'dqpn=' does not apply to write"},
	{"write rkey=1 rkey=2", WQE_QPT_RC, 14, "'rkey=' given twice"},
	{"send id=1 id=1", WQE_QPT_RC, 11, "'id=' given twice"},
	{"send flags=fence flags=signaled", WQE_QPT_RC, 18, "'flags=' given twice"},
	{"send inline=00 inline=11", WQE_QPT_RC, 16, "'inline=' given twice"},
	{"send sge=1:2", WQE_QPT_RC, 13, "expected ':LKEY' after the length in 'sge='"},
	{"send sge=12", WQE_QPT_RC, 10, "expected ADDR:LEN:LKEY after 'sge='"},
	{"send sge=:1:2", WQE_QPT_RC, 10, "expected a number for the address in 'sge='"},
	{"send sge=1::2", WQE_QPT_RC, 12, "expected a number for the length in 'sge='"},
	{"send sge=1:2:", WQE_QPT_RC, 14, "expected a number for the lkey in 'sge='"},
	{"send sge=1:0x100000000:2", WQE_QPT_RC, 12, "out of range for the length in 'sge='"},
	{"send sge=1:2:3:4", WQE_QPT_RC, 15, "unexpected ':' in the number for the lkey"},
	{"send sge=1:2:3 inline=00", WQE_QPT_RC, 16, "inline= and sge= cannot be combined"},
	{"send inline=00 sge=1:2:3", WQE_QPT_RC, 16, "inline= and sge= cannot be combined"},
	{"send inline=abc", WQE_QPT_RC, 15, "odd number of hex digits in 'inline='"},
	{"send inline=0g", WQE_QPT_RC, 14, "unexpected 'g' in the hex payload"},
	{"send flags=", WQE_QPT_RC, 12, "expected a flag name"},
	{"send flags=fence,", WQE_QPT_RC, 18, "expected a flag name"},
	{"send flags=fence,inline", WQE_QPT_RC, 18, "'inline' is not a flag here"},
	{"send flags=fence,bogus", WQE_QPT_RC, 18, "unknown flag 'bogus'"},
	{"send flags=fence,fence", WQE_QPT_RC, 18, "flag 'fence' given twice"},
	{"send dqpn=0x1000000", WQE_QPT_UD, 11, "at most 0xffffff (24 bits)"},
	{"send flow=0x100000", WQE_QPT_UD, 11, "at most 0xfffff (20 bits)"},
	{"send sl=8", WQE_QPT_UD, 9, "at most 0x7 (3 bits)"},
	{"send hop=256", WQE_QPT_UD, 10, "at most 0xff (8 bits)"},
	{"send tclass=256", WQE_QPT_UD, 13, "at most 0xff (8 bits)"},
	{"send sgid_index=256", WQE_QPT_UD, 17, "at most 0xff (8 bits)"},
	{"send sport=65536", WQE_QPT_UD, 12, "at most 0xffff (16 bits)"},
	{"send qkey=0x100000000", WQE_QPT_UD, 11, "at most 0xffffffff (32 bits)"},
	{"send dgid=1.2.3", WQE_QPT_UD, 11, "expected an IPv4 or IPv6 address after 'dgid='"},
	{"send dgid=", WQE_QPT_UD, 11, "expected an IPv4 or IPv6 address"},
	{"send dgid=1::2::3", WQE_QPT_UD, 11, "expected an IPv4 or IPv6 address"},
	{"send dmac=02:00:00:00:00", WQE_QPT_UD, 25, "expected a MAC address"},
	{"send dmac=02-00:00:00:00:00", WQE_QPT_UD, 13, "expected a MAC address"},
	{"send dmac=02:00:00:00:00:0g", WQE_QPT_UD, 27, "expected a MAC address"},
	{"send dmac=02:00:00:00:00:001", WQE_QPT_UD, 28, "unexpected '1' after the MAC"},
	{"send_imm imm=0x100000000", WQE_QPT_RC, 14, "at most 0xffffffff (32 bits)"},
	{"write raddr=buf", WQE_QPT_RC, 13, "'buf' is a name, and no resolver was given"},
};

static void test_errors(void)
{
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		int rc = parse_qp(c->line, c->t);

		CHECK_EQ(rc, EINVAL);
		if (err.column != c->column || !strstr(err.msg, c->msg))
			test_fail(__FILE__, __LINE__, "[%s]: got column %u '%s', want %u '%s'",
				  c->line, err.column, err.msg, c->column, c->msg);
	}
	/* too many SGEs: the first one over the limit is named */
	{
		static char line[64 * 12 + 64];
		size_t n = (size_t)snprintf(line, sizeof(line), "send");
		size_t col = 0;

		for (unsigned int i = 0; i <= WQE_DESC_MAX_SGE; i++) {
			col = n + 2;
			n += (size_t)snprintf(line + n, sizeof(line) - n, " sge=1:2:3");
		}
		CHECK_EQ(parse(line), EINVAL);
		CHECK_EQ(err.column, col);
		CHECK(strstr(err.msg, "too many sge= entries: at most 64") != NULL);
		line[col - 2] = '\0';
		CHECK_EQ(parse(line), 0);
		CHECK_EQ(req.wr.num_sge, WQE_DESC_MAX_SGE);
	}
	/* NULL error pointer and NULL output are tolerated */
	CHECK_EQ(wqe_parse_send_wr("bogus", 5, NULL, &req, NULL), EINVAL);
	CHECK_EQ(wqe_parse_send_wr("send", 4, NULL, NULL, &err), EINVAL);
}

/* The resolver of the hook tests: buf (addr 0x1000, lkey 0x11), remote
 * (addr 0x2000, rkey 0x22); a huge key to check the 32-bit limit. */
static int resolver_calls;

static int resolve(void *arg, const char *name, size_t len, enum wqe_text_ref kind,
		   uint64_t *value)
{
	CHECK(arg == &resolver_calls);
	resolver_calls++;
	if (len == 3 && memcmp(name, "buf", 3) == 0) {
		*value = kind == WQE_TEXT_REF_ADDR ? 0x1000 : kind == WQE_TEXT_REF_LKEY ? 0x11 : 0;
		return kind == WQE_TEXT_REF_RKEY;
	}
	if (len == 6 && memcmp(name, "remote", 6) == 0) {
		*value = kind == WQE_TEXT_REF_ADDR ? 0x2000 : kind == WQE_TEXT_REF_RKEY ? 0x22 : 0;
		return kind == WQE_TEXT_REF_LKEY;
	}
	if (len == 4 && memcmp(name, "huge", 4) == 0) {
		*value = kind == WQE_TEXT_REF_ADDR ? UINT64_MAX : 0x100000000ull;
		return 0;
	}
	return 1;
}

static int parse_res(const char *line, enum wqe_qp_type t)
{
	struct wqe_text_opts opts = {t, resolve, &resolver_calls};

	return wqe_parse_send_wr(line, strlen(line), &opts, &req, &err);
}

static void test_resolver(void)
{
	CHECK_EQ(parse_res("write sge=buf+16:64:buf.lkey sge=buf.addr:1:buf raddr=remote+8 "
			   "rkey=remote.rkey",
			   WQE_QPT_RC),
		 0);
	CHECK_EQ(resolver_calls, 6);
	CHECK_EQ(req.sge[0].addr, 0x1010);
	CHECK_EQ(req.sge[0].lkey, 0x11);
	CHECK_EQ(req.sge[1].addr, 0x1000);
	CHECK_EQ(req.sge[1].lkey, 0x11);
	CHECK_EQ(req.wr.wr.rdma.remote_addr, 0x2008);
	CHECK_EQ(req.wr.wr.rdma.rkey, 0x22);
	CHECK_EQ(parse_res("send_inv inv=remote", WQE_QPT_RC), 0);
	CHECK_EQ(req.wr.invalidate_rkey, 0x22);
	CHECK_EQ(parse_res("cas raddr=remote.addr+0x10 rkey=remote sge=buf:8:buf", WQE_QPT_RC), 0);
	CHECK_EQ(req.wr.wr.atomic.remote_addr, 0x2010);
	CHECK_EQ(req.wr.wr.atomic.rkey, 0x22);

	CHECK_EQ(parse_res("write raddr=nobody", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 13);
	CHECK(strstr(err.msg, "cannot resolve 'nobody' as an address after 'raddr='") != NULL);
	CHECK_EQ(parse_res("write raddr=1 rkey=buf", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 20);
	CHECK(strstr(err.msg, "cannot resolve 'buf' as a remote key") != NULL);
	CHECK_EQ(parse_res("write raddr=remote.rkey", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 13);
	CHECK(strstr(err.msg, "'remote.rkey' is a remote key, but an address is expected after "
			      "'raddr='") != NULL);
	CHECK_EQ(parse_res("write rkey=remote.foo", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 18);
	CHECK(strstr(err.msg, "unknown suffix '.foo'") != NULL);
	CHECK_EQ(parse_res("write rkey=remote+1", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 18);
	CHECK(strstr(err.msg, "an offset applies only to an address") != NULL);
	CHECK_EQ(parse_res("write raddr=remote+", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 20);
	CHECK(strstr(err.msg, "expected a number after '+'") != NULL);
	CHECK_EQ(parse_res("write raddr=remote-1", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 19);
	CHECK(strstr(err.msg, "unexpected '-' after the name") != NULL);
	CHECK_EQ(parse_res("write raddr=huge+1", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 13);
	CHECK(strstr(err.msg, "wraps past 2^64") != NULL);
	CHECK_EQ(parse_res("write rkey=huge", WQE_QPT_RC), EINVAL);
	CHECK(strstr(err.msg, "more than 32 bits") != NULL);
	/* names are not accepted where no address or key is expected */
	CHECK_EQ(parse_res("send id=buf", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 9);
	CHECK_EQ(parse_res("send sge=buf:buf:buf", WQE_QPT_RC), EINVAL);
	CHECK_EQ(err.column, 14);
	CHECK_EQ(strcmp(wqe_text_ref_str(WQE_TEXT_REF_LKEY), "local key"), 0);
}

static void test_reader(void)
{
	static const char text[] = "send id=1\n\n   \n# comment\r\nwrite id=2\r\n  # x\nread id=3";
	struct wqe_text_reader r;
	const char *line;
	size_t len;
	uint32_t lineno;

	wqe_text_reader_init(&r, text, sizeof(text) - 1);
	CHECK_EQ(wqe_text_reader_next(&r, &line, &len, &lineno), 1);
	CHECK_EQ(lineno, 1);
	CHECK(len == 9 && memcmp(line, "send id=1", 9) == 0);
	CHECK_EQ(wqe_text_reader_next(&r, &line, &len, &lineno), 1);
	CHECK_EQ(lineno, 5);
	CHECK(len == 10 && memcmp(line, "write id=2", 10) == 0);
	CHECK_EQ(wqe_text_reader_next(&r, &line, &len, &lineno), 1);
	CHECK_EQ(lineno, 7);
	CHECK(len == 9 && memcmp(line, "read id=3", 9) == 0);
	CHECK_EQ(wqe_text_reader_next(&r, &line, &len, &lineno), 0);
	CHECK_EQ(wqe_text_reader_next(&r, &line, &len, &lineno), 0);
	wqe_text_reader_init(&r, NULL, 5);
	CHECK_EQ(wqe_text_reader_next(&r, &line, &len, &lineno), 0);
}

int main(void)
{
	test_opcodes();
	test_common_keys();
	test_inline_max();
	test_remote_keys();
	test_ud_keys();
	test_errors();
	test_resolver();
	test_reader();
	return test_finish();
}
