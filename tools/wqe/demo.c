/* SPDX-License-Identifier: MIT */
/*
 * wqe demo: a handful of Work Requests, covering the eight operation
 * families on RC, UC and UD and the four flags, each shown in its shapes:
 * the software Work Request, the WQE in the send-queue ring, and what the
 * NIC side decodes from it; then requests that post-time validation
 * (wqe_post_send on real QPs) refuses before they reach the ring.
 *
 * Extension point: the packets and completions of each request slot in
 * after show_request()'s decode step.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DEMO_RING_BLOCKS 64u

/* Memory the requests name; the demo resolves the names, nothing is read. */
struct demo_mem {
	const char *name;
	uint64_t addr;
	uint32_t lkey;
	uint32_t rkey;
};

static const struct demo_mem demo_mems[] = {
	{"buf", 0x00007f0000001000ull, 0x00001234, 0},
	{"buf2", 0x00007f0000002000ull, 0x00001235, 0},
	{"result", 0x00007f0000003000ull, 0x00001236, 0},
	{"remote", 0x0000200000000040ull, 0, 0x0000abcd},
};

struct demo_qp {
	const char *label;
	struct wqe_encode_qp qp;
	uint32_t pi; /* free-running block counter: slot and WQE index */
	uint8_t ring[DEMO_RING_BLOCKS * WQE_BLOCK_SIZE];
};

struct demo_req {
	enum wqe_qp_type t;
	const char *title;
	const char *text;
};

#define HEX28 "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babb"
#define HEX16 "48656c6c6f2c20554420706565722100"

static const struct demo_req demo_reqs[] = {
	{WQE_QPT_RC, "SEND, one SGE, signaled",
	 "send id=1 sge=buf:64:buf.lkey flags=signaled"},
	{WQE_QPT_RC, "SEND_WITH_IMM, solicited: sets the BTH SE bit at the responder",
	 "send_imm id=2 sge=buf:16:buf.lkey imm=0x01020304 flags=signaled,solicited"},
	{WQE_QPT_RC, "SEND_WITH_INV, unsignaled: no completion unless it fails",
	 "send_inv id=3 sge=buf:32:buf.lkey inv=remote.rkey"},
	{WQE_QPT_RC, "RDMA_WRITE, 28 bytes inline: 16 + 16 + 4 + 28 = one 64-byte block",
	 "write id=4 raddr=remote rkey=remote.rkey inline=" HEX28 " flags=signaled"},
	{WQE_QPT_RC, "RDMA_WRITE, 29 bytes inline: one byte past the threshold, two blocks",
	 "write id=5 raddr=remote+28 rkey=remote.rkey inline=" HEX28 "bc flags=signaled"},
	{WQE_QPT_RC, "RDMA_WRITE_WITH_IMM, two SGEs gathered, unsignaled",
	 "write_imm id=6 sge=buf:64:buf.lkey sge=buf2:32:buf2.lkey raddr=remote+64 "
	 "rkey=remote.rkey imm=0x0a0b0c0d"},
	{WQE_QPT_RC, "RDMA_READ: the SGE is where the response lands",
	 "read id=7 sge=buf:128:buf.lkey raddr=remote rkey=remote.rkey flags=signaled"},
	{WQE_QPT_RC, "ATOMIC_CMP_AND_SWP, fenced: waits for the READ before it",
	 "cas id=8 sge=result:8:result.lkey raddr=remote+256 rkey=remote.rkey compare=0 swap=1 "
	 "flags=fence,signaled"},
	{WQE_QPT_RC, "ATOMIC_FETCH_AND_ADD",
	 "faa id=9 sge=result:8:result.lkey raddr=remote+264 rkey=remote.rkey add=1 "
	 "flags=signaled"},
	{WQE_QPT_UC, "RDMA_WRITE on UC, unsignaled",
	 "write id=10 sge=buf:64:buf.lkey raddr=remote rkey=remote.rkey"},
	{WQE_QPT_UD, "SEND on UD, 16 bytes inline: the datagram segment names the peer",
	 "send id=11 inline=" HEX16 " dqpn=0x000456 qkey=0x11111111 sport=49152 "
	 "dgid=192.168.0.2 dmac=02:00:00:00:00:02 hop=64 flags=signaled"},
	{WQE_QPT_UD, "SEND_WITH_IMM on UD to an IPv6 peer",
	 "send_imm id=12 sge=buf:256:buf.lkey imm=0xcafef00d dqpn=0x000789 qkey=0x22222222 "
	 "sport=50000 dgid=2001:db8::2 dmac=02:00:00:00:00:03 hop=32 tclass=96 flow=0x12345 "
	 "sl=3"},
};

#define NUM_REQS (sizeof(demo_reqs) / sizeof(demo_reqs[0]))

void usage_demo(FILE *f)
{
	fprintf(f,
		"usage: wqe demo\n"
		"Shows a handful of Work Requests, covering the eight operation families on RC,\n"
		"UC and UD and the four flags (fence, signaled, solicited, inline on either side\n"
		"of the 28-byte threshold), in their shapes: the software Work Request, the\n"
		"WQE in the ring, what the NIC decodes; then requests that wqe_post_send()\n"
		"refuses at post time. Needs no arguments and no files.\n");
}

int demo_resolve(void *arg, const char *name, size_t len, enum wqe_text_ref kind,
			uint64_t *v)
{
	(void)arg;
	for (size_t i = 0; i < sizeof(demo_mems) / sizeof(demo_mems[0]); i++) {
		const struct demo_mem *m = &demo_mems[i];

		if (strlen(m->name) != len || memcmp(m->name, name, len) != 0)
			continue;
		*v = kind == WQE_TEXT_REF_ADDR ? m->addr :
		     kind == WQE_TEXT_REF_LKEY ? m->lkey : m->rkey;
		return kind == WQE_TEXT_REF_ADDR || *v ? 0 : -1;
	}
	return -1;
}

static void rule(const char *title, unsigned int n)
{
	printf("\n== %u. %s ", n, title);
	for (size_t i = strlen(title) + 7; i < 78; i++)
		putchar('=');
	putchar('\n');
}

/* Sizes a demo QP as wqe_create_qp() would for 2 SGEs and 64 B inline. */
static int demo_qp_init(struct demo_qp *q, const char *label, enum wqe_qp_type t, uint32_t qpn)
{
	struct wqe_qp_cap cap = {64, 1, 2, 1, 64};
	uint32_t wqe_bytes, ring_blocks;

	if (wqe_calc_sq(WQE_FORMAT_MLX5, t, &cap, &wqe_bytes, &ring_blocks))
		return -1;
	q->label = label;
	q->qp.qp_type = t;
	q->qp.qpn = qpn;
	q->qp.max_send_sge = cap.max_send_sge;
	q->qp.max_inline_data = cap.max_inline_data;
	q->qp.sq_sig_all = 0;
	q->pi = 0;
	printf("%s QP 0x%06x: WQEs up to %u B, max_send_sge %u, max_inline_data %u "
	       "(wqe_calc_sq for 2 SGEs and 64 B inline)\n",
	       label, qpn, wqe_bytes, cap.max_send_sge, cap.max_inline_data);
	return 0;
}

/* The three shapes of one request, as far as the model has them. */
static int show_request(struct demo_qp *q, const struct demo_req *r, unsigned int n,
			struct wqe_text_wr *req, struct wqe_desc *d)
{
	struct wqe_text_opts opts = {r->t, demo_resolve, NULL};
	struct wqe_ring_view ring = {q->ring, DEMO_RING_BLOCKS};
	struct wqe_decode_ctx ctx;
	struct wqe_text_err err;
	uint32_t nb = 0, slot = q->pi % DEMO_RING_BLOCKS;
	const uint8_t *wqe = q->ring + (size_t)slot * WQE_BLOCK_SIZE;

	rule(r->title, n);
	printf("request text (%s): %s\n", q->label, r->text);
	if (wqe_parse_send_wr(r->text, strlen(r->text), &opts, req, &err)) {
		printf("  parse error at column %u: %s\n", err.column, err.msg);
		return -1;
	}
	printf("\n-- shape 1: the software Work Request (struct wqe_send_wr)\n");
	wqe_print_send_wr(stdout, &req->wr, r->t);
	if (wqe_encode(WQE_FORMAT_MLX5, &q->qp, &req->wr, &ring, q->pi, q->pi, &nb)) {
		printf("  the encoder refused it\n");
		return -1;
	}
	printf("\n-- shape 2: the WQE in the send-queue ring (mlx5, %s QP 0x%06x, block %u)\n",
	       q->label, q->qp.qpn, slot);
	ctx.qp_type = r->t;
	ctx.max_bytes = nb * WQE_BLOCK_SIZE;
	wqe_print_wqe(stdout, WQE_FORMAT_MLX5, &ctx, wqe, ctx.max_bytes);
	printf("\n-- what the NIC side decodes from those bytes (struct wqe_desc)\n");
	if (wqe_decode(WQE_FORMAT_MLX5, &ctx, wqe, ctx.max_bytes, d) != WQE_DEC_OK) {
		printf("  the decoder refused it\n");
		return -1;
	}
	wqe_print_desc(stdout, d, r->t);
	q->pi += nb;
	return 0;
}

int cmd_demo(int argc, char **argv)
{
	struct demo_qp *qps = calloc(3, sizeof(*qps));
	struct wqe_text_wr *req = malloc(sizeof(*req));
	struct wqe_desc *d = malloc(sizeof(*d));
	int rc = CLI_OK;

	(void)argv;
	if (argc > 1) {
		rc = cli_usage_error("demo", usage_demo, "takes no arguments");
		goto out;
	}
	if (!qps || !req || !d) {
		rc = CLI_FAIL;
		goto out;
	}
	printf("wqe demo: one Work Request in its shapes, for each operation family\n\n");
	if (demo_qp_init(&qps[0], "RC", WQE_QPT_RC, 0x000123) ||
	    demo_qp_init(&qps[1], "UC", WQE_QPT_UC, 0x000124) ||
	    demo_qp_init(&qps[2], "UD", WQE_QPT_UD, 0x000125)) {
		rc = CLI_FAIL;
		goto out;
	}
	for (unsigned int i = 0; i < NUM_REQS; i++) {
		struct demo_qp *q = &qps[demo_reqs[i].t == WQE_QPT_RC ? 0 :
					 demo_reqs[i].t == WQE_QPT_UC ? 1 : 2];

		if (show_request(q, &demo_reqs[i], i + 1, req, d))
			rc = CLI_FAIL;
	}
	if (demo_rejections(req))
		rc = CLI_FAIL;
out:
	free(qps);
	free(req);
	free(d);
	return rc;
}
