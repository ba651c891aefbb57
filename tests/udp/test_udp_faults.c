/* SPDX-License-Identifier: MIT */
/*
 * Faults over real sockets: two contexts on UDP links (127/8, one
 * process), each link wrapped in a fault injector that drops 5 %,
 * duplicates 1 %, reorders 5 % and corrupts 0.5 % of the frames its
 * context sends, before the kernel carries them. 300 RC messages of mixed
 * operations (WRITE, SEND, READ; 1 byte to 9 KiB at PMTU 1024) complete
 * exactly once, in order, with the right bytes; corrupted frames are
 * bad-ICRC drops at the receiver; the fault links and the UDP links count
 * what they did. Also: a fault link takes one context when it wraps a UDP
 * link, and the UDP link cannot be destroyed under it.
 */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "udp_pair.h"

#define NMSG	 300
#define MAXLEN	 9216u
#define REGION	 (NMSG * MAXLEN)
#define WAIT_S	 60.0

static uint8_t a_buf[REGION], b_buf[REGION], a_rd[REGION];
static struct test_rng rng;

static struct wqe_link *wrap(struct uep *e, uint64_t seed)
{
	struct wqe_fault_cfg f = {.drop = 0.05, .duplicate = 0.01, .reorder = 0.05,
				  .corrupt = 0.005, .seed = seed};
	struct wqe_link *fl = wqe_link_fault_create(e->link, &f);

	CHECK(fl != NULL);
	CHECK_EQ(wqe_context_attach_link(e->ctx, fl), 0);
	return fl;
}

int main(void)
{
	struct upair p;
	struct wqe_link *fa, *fb;
	struct wqe_mr *ma, *mb, *mr;
	struct wqe_link_stats sa, sb, ua, ub;
	struct wqe_wc wc[NMSG], rwc[NMSG];
	uint32_t len[NMSG];
	enum wqe_wr_opcode op[NMSG];
	int nrecv = 0, got, rgot;
	const unsigned all = WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE |
			     WQE_ACCESS_REMOTE_READ;

	test_rng_seed(&rng, 0x5eed);
	CHECK_EQ(upair_open(&p, WQE_QPT_RC, WQE_MTU_1024, 512), 0);
	fa = wrap(&p.a, 1);
	fb = wrap(&p.b, 2);
	/* A fault link over a UDP link serves one context, and the UDP link
	 * stays while the fault link uses it. */
	CHECK_EQ(wqe_context_attach_link(p.b.ctx, fa), EBUSY);
	CHECK_EQ(wqe_link_destroy(p.a.link), EBUSY);

	test_rng_fill(&rng, a_buf, REGION);
	test_rng_fill(&rng, b_buf, REGION);
	memset(a_rd, 0, REGION);
	ma = wqe_reg_mr(p.a.pd, a_buf, REGION, WQE_ACCESS_LOCAL_WRITE);
	mr = wqe_reg_mr(p.a.pd, a_rd, REGION, WQE_ACCESS_LOCAL_WRITE);
	mb = wqe_reg_mr(p.b.pd, b_buf, REGION, all);
	CHECK(ma && mr && mb);

	/* Message i uses slot i of each buffer: SENDs land in B's slot i
	 * (receive posted there), WRITEs too, READs fetch B's slot i into
	 * a_rd. */
	for (int i = 0; i < NMSG; i++) {
		struct wqe_sge s;
		struct wqe_send_wr w, *bad;
		size_t off = (size_t)i * MAXLEN;

		len[i] = 1 + (uint32_t)test_rng_below(&rng, MAXLEN);
		op[i] = i % 3 == 0 ? WQE_WR_SEND : i % 3 == 1 ? WQE_WR_RDMA_WRITE : WQE_WR_RDMA_READ;
		memset(&w, 0, sizeof(w));
		w.wr_id = (uint64_t)i;
		w.opcode = op[i];
		w.send_flags = WQE_SEND_SIGNALED;
		w.sg_list = &s;
		w.num_sge = 1;
		if (op[i] == WQE_WR_SEND) {
			struct wqe_sge rs = {(uint64_t)(uintptr_t)(b_buf + off), MAXLEN, mb->lkey};
			struct wqe_recv_wr r = {.wr_id = (uint64_t)i, .sg_list = &rs, .num_sge = 1},
					   *rbad;

			CHECK_EQ(wqe_post_recv(p.b.qp, &r, &rbad), 0);
			nrecv++;
		}
		if (op[i] == WQE_WR_RDMA_READ)
			s = (struct wqe_sge){(uint64_t)(uintptr_t)(a_rd + off), len[i], mr->lkey};
		else
			s = (struct wqe_sge){(uint64_t)(uintptr_t)(a_buf + off), len[i], ma->lkey};
		w.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b_buf + off);
		w.wr.rdma.rkey = mb->rkey;
		CHECK_EQ(wqe_post_send(p.a.qp, &w, &bad), 0);
		if (i % 16 == 15)
			upair_spin(&p, 1);
	}
	got = upair_wait(&p, p.a.scq, NMSG, wc, WAIT_S);
	CHECK_EQ(got, NMSG);
	rgot = upair_wait(&p, p.b.rcq, nrecv, rwc, WAIT_S);
	CHECK_EQ(rgot, nrecv);
	/* Exactly once, in order, successful. */
	for (int i = 0; i < got; i++) {
		CHECK_EQ(wc[i].wr_id, (uint64_t)i);
		CHECK_EQ(wc[i].status, WQE_WC_SUCCESS);
	}
	for (int i = 0, k = 0; i < NMSG && k < rgot; i++) {
		if (op[i] != WQE_WR_SEND)
			continue;
		CHECK_EQ(rwc[k].wr_id, (uint64_t)i);
		CHECK_EQ(rwc[k].status, WQE_WC_SUCCESS);
		CHECK_EQ(rwc[k].byte_len, len[i]);
		k++;
	}
	upair_spin(&p, 20);
	CHECK_EQ(wqe_poll_cq(p.a.scq, 1, wc), 0);
	CHECK_EQ(wqe_poll_cq(p.b.rcq, 1, rwc), 0);
	/* The bytes: SEND and WRITE put A's slot into B's, READ B's into A's. */
	for (int i = 0; i < NMSG; i++) {
		size_t off = (size_t)i * MAXLEN;

		if (op[i] == WQE_WR_RDMA_READ)
			CHECK_MEM(a_rd + off, b_buf + off, len[i]);
		else
			CHECK_MEM(b_buf + off, a_buf + off, len[i]);
	}
	/* The faults happened, and the receivers threw away what was corrupted. */
	CHECK_EQ(wqe_link_stats(fa, &sa), 0);
	CHECK_EQ(wqe_link_stats(fb, &sb), 0);
	CHECK_EQ(wqe_link_stats(p.a.link, &ua), 0);
	CHECK_EQ(wqe_link_stats(p.b.link, &ub), 0);
	CHECK(sa.dropped > 0 && sa.duplicated > 0 && sa.reordered > 0);
	CHECK(sa.corrupted + sb.corrupted > 0);
	/* A corrupted frame fails the receiver's ICRC check although the UDP
	 * link gave it a new ICRC for the kernel's headers: the link carries
	 * the damage over. (A bit flipped in an IP address may also make the
	 * kernel refuse the send: ua/ub tx_errors are not checked.) */
	CHECK(p.a.bad_icrc + p.b.bad_icrc + p.a.malformed + p.b.malformed > 0);
	CHECK(ua.delivered > 0 && ub.delivered > 0);
	/* The ports' own counters agree with what the trace saw. */
	{
		struct wqe_port_stats pa, pb;
		uint64_t da = 0, db = 0;

		CHECK_EQ(wqe_context_port_stats(p.a.ctx, &pa), 0);
		CHECK_EQ(wqe_context_port_stats(p.b.ctx, &pb), 0);
		CHECK_EQ(wqe_context_port_stats(NULL, &pa), EINVAL);
		CHECK_EQ(wqe_context_port_stats(p.a.ctx, NULL), EINVAL);
		CHECK_EQ(pa.rx_drops[WQE_RX_DROP_BAD_ICRC], p.a.bad_icrc);
		CHECK_EQ(pb.rx_drops[WQE_RX_DROP_BAD_ICRC], p.b.bad_icrc);
		CHECK_EQ(pa.rx_drops[WQE_RX_DROP_MALFORMED], p.a.malformed);
		CHECK_EQ(pb.rx_drops[WQE_RX_DROP_MALFORMED], p.b.malformed);
		for (int i = 0; i < WQE_RX_DROP_COUNT; i++) {
			da += pa.rx_drops[i];
			db += pb.rx_drops[i];
		}
		CHECK_EQ(da, p.a.drops);
		CHECK_EQ(db, p.b.drops);
		CHECK_EQ(pa.rx_frames, pa.rx_accepted + da);
		CHECK_EQ(pb.rx_frames, pb.rx_accepted + db);
		CHECK(pa.tx_frames >= sa.frames && pb.tx_frames >= sb.frames);
		CHECK(pa.progress_calls > 0);
		CHECK(strcmp(wqe_rx_drop_str(WQE_RX_DROP_BAD_ICRC), "bad ICRC") == 0);
		CHECK(strcmp(wqe_rx_drop_str(WQE_RX_DROP_COUNT), "unknown") == 0);
	}
	CHECK_EQ(wqe_context_attach_link(p.a.ctx, p.a.link), 0); /* back on the UDP link */
	CHECK_EQ(wqe_context_attach_link(p.b.ctx, p.b.link), 0);
	CHECK_EQ(wqe_link_destroy(fa), 0);
	CHECK_EQ(wqe_link_destroy(fb), 0);
	wqe_dereg_mr(ma);
	wqe_dereg_mr(mr);
	wqe_dereg_mr(mb);
	upair_close(&p);
	return test_finish();
}
