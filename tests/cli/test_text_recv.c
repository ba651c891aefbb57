/* SPDX-License-Identifier: MIT */
/*
 * The receive request text form (wqe_parse_recv_wr, wqe_format_recv_wr):
 * parse(format(x)) == x for random receive requests, the format is a fixed
 * point, every error with its column, the resolver, the formatter's
 * snprintf-style length and the requests it refuses.
 */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "wqe/text.h"

#define ROUNDS 20000

static struct wqe_text_recv_wr req;
static struct wqe_text_err err;
static char line[WQE_TEXT_LINE_MAX], line2[WQE_TEXT_LINE_MAX];

static int parse(const char *s)
{
	return wqe_parse_recv_wr(s, strlen(s), NULL, &req, &err);
}

static void round_trip(struct test_rng *r)
{
	struct wqe_sge sge[WQE_DESC_MAX_SGE];
	struct wqe_recv_wr wr = {.wr_id = test_rng_edge(r, 64), .sg_list = sge};
	unsigned long before = test_failures;
	int n, n2;

	wr.num_sge = (int)test_rng_below(r, test_rng_below(r, 8) ? 5 : WQE_DESC_MAX_SGE + 1);
	for (int i = 0; i < wr.num_sge; i++)
		sge[i] = (struct wqe_sge){test_rng_edge(r, 64), (uint32_t)test_rng_edge(r, 32), (uint32_t)test_rng_edge(r, 32)};
	n = wqe_format_recv_wr(&wr, line, sizeof(line));
	CHECK(n > 0 && (size_t)n < sizeof(line));
	CHECK_EQ(strlen(line), (size_t)n);
	CHECK_EQ(parse(line), 0);
	CHECK_EQ(req.wr.wr_id, wr.wr_id);
	CHECK(req.wr.next == NULL);
	CHECK(req.wr.sg_list == req.sge);
	CHECK_EQ(req.wr.num_sge, wr.num_sge);
	for (int i = 0; i < wr.num_sge && i < req.wr.num_sge; i++) {
		CHECK_EQ(req.sge[i].addr, sge[i].addr);
		CHECK_EQ(req.sge[i].length, sge[i].length);
		CHECK_EQ(req.sge[i].lkey, sge[i].lkey);
	}
	n2 = wqe_format_recv_wr(&req.wr, line2, sizeof(line2));
	CHECK_EQ(n2, n);
	CHECK(strcmp(line, line2) == 0);
	if (test_failures != before)
		fprintf(stderr, "  %s\n  parse: %u %s\n", line, err.column, err.msg);
}

static void test_forms(void)
{
	CHECK_EQ(parse("recv id=7 sge=0x7f0000001000:256:0x1234 sge=0x7f0000002000:1024:0x1234"),
		 0);
	CHECK_EQ(req.wr.wr_id, 7);
	CHECK_EQ(req.wr.num_sge, 2);
	CHECK_EQ(req.sge[1].addr, 0x7f0000002000ull);
	CHECK_EQ(req.sge[1].length, 1024);
	CHECK_EQ(req.sge[1].lkey, 0x1234);
	CHECK_EQ(wqe_format_recv_wr(&req.wr, line, sizeof(line)),
		 strlen("recv id=7 sge=0x7f0000001000:256:0x1234 sge=0x7f0000002000:1024:0x1234"));
	CHECK(strcmp(line, "recv id=7 sge=0x7f0000001000:256:0x1234 "
			   "sge=0x7f0000002000:1024:0x1234") == 0);
	/* blanks, tabs and a comment; no keys at all */
	CHECK_EQ(parse("\t recv\tsge=1:2:3   # a comment"), 0);
	CHECK_EQ(req.wr.num_sge, 1);
	CHECK_EQ(parse("recv"), 0);
	CHECK_EQ(req.wr.num_sge, 0);
	CHECK_EQ(req.wr.wr_id, 0);
	CHECK_EQ(wqe_format_recv_wr(&req.wr, line, sizeof(line)), 4);
	CHECK(strcmp(line, "recv") == 0);
	/* the opcode test the tool uses to pick a ring */
	CHECK(wqe_text_is_recv("  recv sge=1:2:3", 16));
	CHECK(wqe_text_is_recv("recv#x", 6));
	CHECK(!wqe_text_is_recv("recvx", 5));
	CHECK(!wqe_text_is_recv("send", 4));
	CHECK(!wqe_text_is_recv("recv", 3));
	CHECK(!wqe_text_is_recv(NULL, 0));
}

struct err_case {
	const char *line;
	uint32_t column;
	const char *msg; /* a substring of the message */
};

static const struct err_case err_cases[] = {
	{"", 1, "empty request: expected an opcode (recv)"},
	{"  # comment", 3, "empty request"},
	{"send sge=1:2:3", 1, "unknown opcode 'send': expected recv"},
	{"recvx", 1, "unknown opcode 'recvx': expected recv"},
	{"recv foo=1", 6, "unknown key 'foo': recv takes id sge"},
	{"recv flags=signaled", 6, "'flags=' does not apply to recv, which takes: id sge"},
	{"recv inline=00", 6, "'inline=' does not apply to recv"},
	{"recv raddr=1", 6, "'raddr=' does not apply to recv"},
	{"recv imm=1", 6, "'imm=' does not apply to recv"},
	{"recv dqpn=1", 6, "'dqpn=' does not apply to recv"},
	{"recv id", 8, "expected '=' after 'id'"},
	{"recv id=1 id=2", 11, "'id=' given twice"},
	{"recv id=", 9, "expected a number after 'id='"},
	{"recv id=0x10000000000000000", 9, "out of range after 'id='"},
	{"recv id=12z", 11, "unexpected 'z' in the number after 'id='"},
	{"recv sge=12", 10, "expected ADDR:LEN:LKEY after 'sge='"},
	{"recv sge=1:2", 13, "expected ':LKEY' after the length in 'sge='"},
	{"recv sge=:1:2", 10, "expected a number for the address in 'sge='"},
	{"recv sge=1::2", 12, "expected a number for the length in 'sge='"},
	{"recv sge=1:2:", 14, "expected a number for the lkey in 'sge='"},
	{"recv sge=1:0x100000000:2", 12, "out of range for the length in 'sge='"},
	{"recv sge=1:2:0x100000000", 14, "out of range for the lkey in 'sge='"},
	{"recv sge=1:2:3:4", 15, "unexpected ':' in the number for the lkey"},
	{"recv sge=buf:1:2", 10, "'buf' is a name, and no resolver was given"},
};

static void test_errors(void)
{
	static char many[64 * 12 + 64];
	size_t n, col = 0;

	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];

		CHECK_EQ(parse(c->line), EINVAL);
		if (err.column != c->column || !strstr(err.msg, c->msg))
			test_fail(__FILE__, __LINE__, "[%s]: got column %u '%s', want %u '%s'",
				  c->line, err.column, err.msg, c->column, c->msg);
	}
	/* too many SGEs: the first one over the limit is named */
	n = (size_t)snprintf(many, sizeof(many), "recv");
	for (unsigned int i = 0; i <= WQE_DESC_MAX_SGE; i++) {
		col = n + 2;
		n += (size_t)snprintf(many + n, sizeof(many) - n, " sge=1:2:3");
	}
	CHECK_EQ(parse(many), EINVAL);
	CHECK_EQ(err.column, col);
	CHECK(strstr(err.msg, "too many sge= entries: at most 64") != NULL);
	many[col - 2] = '\0';
	CHECK_EQ(parse(many), 0);
	CHECK_EQ(req.wr.num_sge, WQE_DESC_MAX_SGE);
	/* the send parser names recv as unknown; NULL pointers are tolerated */
	{
		static struct wqe_text_wr send;

		CHECK_EQ(wqe_parse_send_wr("recv", 4, NULL, &send, &err), EINVAL);
		CHECK(strstr(err.msg, "unknown opcode 'recv'") != NULL);
	}
	CHECK_EQ(wqe_parse_recv_wr("bogus", 5, NULL, &req, NULL), EINVAL);
	CHECK_EQ(wqe_parse_recv_wr("recv", 4, NULL, NULL, &err), EINVAL);
}

static int resolve(void *arg, const char *name, size_t len, enum wqe_text_ref kind,
		   uint64_t *value)
{
	(void)arg;
	if (len != 3 || memcmp(name, "buf", 3) != 0)
		return -1;
	*value = kind == WQE_TEXT_REF_ADDR ? 0x1000 : 0x11;
	return 0;
}

static void test_resolver(void)
{
	struct wqe_text_opts opts = {WQE_QPT_RC, resolve, NULL};
	const char *s = "recv sge=buf+16:64:buf.lkey";

	CHECK_EQ(wqe_parse_recv_wr(s, strlen(s), &opts, &req, &err), 0);
	CHECK_EQ(req.sge[0].addr, 0x1010);
	CHECK_EQ(req.sge[0].lkey, 0x11);
	s = "recv sge=nope:64:1";
	CHECK_EQ(wqe_parse_recv_wr(s, strlen(s), &opts, &req, &err), EINVAL);
	CHECK_EQ(err.column, 10);
	CHECK(strstr(err.msg, "cannot resolve 'nope'") != NULL);
}

static void test_format_limits(void)
{
	struct wqe_sge sge[WQE_DESC_MAX_SGE + 1];
	struct wqe_recv_wr wr = {.wr_id = UINT64_MAX, .sg_list = sge,
				 .num_sge = WQE_DESC_MAX_SGE};
	char small[8];

	for (unsigned int i = 0; i <= WQE_DESC_MAX_SGE; i++)
		sge[i] = (struct wqe_sge){UINT64_MAX, UINT32_MAX, UINT32_MAX};
	CHECK(wqe_format_recv_wr(&wr, NULL, 0) < (int)WQE_TEXT_LINE_MAX);
	/* snprintf semantics */
	wr.num_sge = 1;
	wr.wr_id = 7;
	sge[0] = (struct wqe_sge){0x10, 2, 3};
	CHECK_EQ(wqe_format_recv_wr(&wr, small, sizeof(small)), strlen("recv id=7 sge=0x10:2:0x3"));
	CHECK(strcmp(small, "recv id") == 0);
	/* refused */
	CHECK_EQ(wqe_format_recv_wr(NULL, line, sizeof(line)), -EINVAL);
	wr.num_sge = -1;
	CHECK_EQ(wqe_format_recv_wr(&wr, line, sizeof(line)), -EINVAL);
	CHECK_EQ(line[0], '\0');
	wr.num_sge = WQE_DESC_MAX_SGE + 1;
	CHECK_EQ(wqe_format_recv_wr(&wr, line, sizeof(line)), -EINVAL);
	wr.num_sge = 1;
	wr.sg_list = NULL;
	CHECK_EQ(wqe_format_recv_wr(&wr, line, sizeof(line)), -EINVAL);
}

int main(void)
{
	struct test_rng r;

	test_rng_seed(&r, 0x7ecf0001);
	for (int i = 0; i < ROUNDS; i++)
		round_trip(&r);
	test_forms();
	test_errors();
	test_resolver();
	test_format_limits();
	return test_finish();
}
