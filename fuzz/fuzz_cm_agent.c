/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cm_agent - the CM agent's state machine (wqe/cm.h) under arbitrary
 * sequences: two agents (table of 16 IDs, at most 6 in REQ_RCVD), a queue
 * of the MADs they send each other, and the input as a program of
 * operations, one opcode byte each (bit 3 picks the agent, bits 0-2 the
 * operation), then its operands:
 *   0 deliver: count, then per MAD its index in the queue (reordering) and
 *     a mode (drop, duplicate, deliver);
 *   1 forge: a message of attribute REQ + (byte mod 9) from up to 64
 *     input bytes laid over the message struct, its IDs (and for a REQ
 *     its service, MTU, transport) patched from an ID the harness holds
 *     when the selector says so, from the peer's GID or another; encoded,
 *     or, if the encoder refuses it, its raw bytes behind a valid header;
 *   2 raw: a MAD of any length up to 300 bytes, as received;
 *   3 call: a consumer call (accept, reject, MRA, RTU, disconnect, DREP,
 *     destroy, established, SIDR_REP, qp_attr) on an ID the harness holds,
 *     arguments from the input, legal or not;
 *   4 connect, 5 listen, 6 SIDR_REQ: new IDs from input parameters;
 *   7 time: the clock moves (up to hours), both agents tick.
 * Checks, after every operation: no crash or sanitizer report; the counts
 * stay within the bounds (IDs <= 16, REQ_RCVD <= 6, TIMEWAIT <= IDs: the
 * agent allocates nothing after creation, so memory is bounded by
 * construction and these counts are what it holds); every ID the harness
 * holds is in a defined state; a refusal code is a defined one; every MAD
 * an agent sends decodes (the agent never emits what the codec refuses);
 * a refused MAD leaves every held ID's state and peer ID, the agent's
 * counts and its next deadline as they were.
 *
 * WQE_FUZZ_SEEDS=DIR fuzz_cm_agent -runs=0 writes the seed corpus;
 * WQE_FUZZ_DEBUG=1 fuzz_cm_agent FILE prints every event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "wqe/cm.h"

#define NQ     64
#define NOWN   64
#define MAXIDS 16
#define MAXREQ 6

static const uint64_t sids[3] = {0x0000000001060000ull | 7471, 0x0000000001110000ull | 7,
				 0x000000000106ffffull};

struct qmad {
	int dst;
	struct wqe_cm_addr from;
	uint8_t mad[WQE_MAD_LEN];
};

static struct {
	struct wqe_cm_agent *ag[2];
	union wqe_gid gid[2];
	struct qmad q[NQ];
	int nq;
	struct {
		struct wqe_cm_id *id;
		int k;
	} own[NOWN];
	int nown;
	uint64_t now;
	uint32_t rnd;
} S;

static void own_add(struct wqe_cm_id *id, int k)
{
	if (!id)
		return;
	if (S.nown == NOWN) {
		(void)wqe_cm_destroy_id(id);
		return;
	}
	S.own[S.nown].id = id;
	S.own[S.nown].k = k;
	S.nown++;
}

static int agent_of(void *ctx)
{
	return ctx == &S.ag[1];
}

static int cb_send(void *ctx, const struct wqe_cm_addr *to, const uint8_t *mad)
{
	const int k = agent_of(ctx);
	struct wqe_cm_msg m;

	if (wqe_cm_decode(mad, WQE_MAD_LEN, &m, NULL) != 0)
		fz_die("agent %d sent a MAD the decoder refuses", k);
	if (to->qpn != 1)
		fz_die("agent %d sent to QPN %u", k, to->qpn);
	if (memcmp(to->gid.raw, S.gid[1 - k].raw, 16) != 0 || S.nq == NQ)
		return 0; /* to nobody we model, or the wire is full: lost */
	S.q[S.nq].dst = 1 - k;
	S.q[S.nq].from.gid = S.gid[k];
	S.q[S.nq].from.qpn = 1;
	S.q[S.nq].from.pkey = to->pkey;
	memcpy(S.q[S.nq].mad, mad, WQE_MAD_LEN);
	S.nq++;
	return 0;
}

static void cb_event(void *ctx, const struct wqe_cm_event *ev)
{
	if (!ev->id || (unsigned)wqe_cm_id_state(ev->id) >= WQE_CM_STATE_COUNT ||
	    !strcmp(wqe_cm_event_str(ev->type), "unknown"))
		fz_die("a malformed event");
	if (getenv("WQE_FUZZ_DEBUG"))
		fprintf(stderr, "agent %d: %s, ID now %s\n", agent_of(ctx),
			wqe_cm_event_str(ev->type), wqe_cm_state_str(wqe_cm_id_state(ev->id)));
	if (ev->type == WQE_CM_EV_REQ_RECEIVED || ev->type == WQE_CM_EV_SIDR_REQ_RECEIVED)
		own_add(ev->id, agent_of(ctx));
}

static uint64_t cb_now(void *ctx)
{
	(void)ctx;
	return S.now;
}

static uint32_t cb_random(void *ctx)
{
	(void)ctx;
	S.rnd = S.rnd * 1103515245u + 12345u;
	return S.rnd;
}

static void check_bounds(void)
{
	for (int k = 0; k < 2; k++) {
		struct wqe_cm_agent_stats st;

		wqe_cm_agent_stats(S.ag[k], &st);
		if (st.ids > MAXIDS || st.req_rcvd > MAXREQ || st.timewait > st.ids)
			fz_die("agent %d: %u IDs, %u in REQ_RCVD, %u in TIMEWAIT", k, st.ids,
			       st.req_rcvd, st.timewait);
	}
	for (int i = 0; i < S.nown; i++)
		if ((unsigned)wqe_cm_id_state(S.own[i].id) >= WQE_CM_STATE_COUNT)
			fz_die("an ID in an undefined state");
}

/* What a refusal must leave as it was: every held ID's state and peer
 * ID, the agent's counts and its next deadline. */
struct snap {
	enum wqe_cm_state st[NOWN];
	uint32_t rid[NOWN];
	struct wqe_cm_agent_stats as;
	uint64_t deadline;
};

static void take(struct snap *s, int k)
{
	for (int i = 0; i < S.nown; i++) {
		s->st[i] = wqe_cm_id_state(S.own[i].id);
		s->rid[i] = wqe_cm_id_remote_id(S.own[i].id);
	}
	wqe_cm_agent_stats(S.ag[k], &s->as);
	s->deadline = wqe_cm_agent_next_deadline(S.ag[k]);
}

static void receive(int k, const struct wqe_cm_addr *from, const uint8_t *mad, size_t len)
{
	struct snap before, after;
	const int nown = S.nown;
	int r;

	take(&before, k);
	r = wqe_cm_agent_receive(S.ag[k], from, mad, len);
	if (r < 0 || r >= WQE_CM_RX_REFUSAL_COUNT)
		fz_die("receive returned %d", r);
	if (r == WQE_CM_RX_OK)
		return;
	take(&after, k);
	if (S.nown != nown || after.as.ids != before.as.ids ||
	    after.as.req_rcvd != before.as.req_rcvd || after.as.timewait != before.as.timewait ||
	    after.deadline != before.deadline)
		fz_die("refusal %s changed the agent's counts or timers",
		       wqe_cm_refusal_str((enum wqe_cm_refusal)r));
	for (int i = 0; i < nown; i++)
		if (after.st[i] != before.st[i] || after.rid[i] != before.rid[i])
			fz_die("refusal %s changed an ID (%s -> %s)",
			       wqe_cm_refusal_str((enum wqe_cm_refusal)r),
			       wqe_cm_state_str(before.st[i]), wqe_cm_state_str(after.st[i]));
}

static void op_deliver(struct fz_in *in)
{
	int n = fz_u8(in) % 8 + 1;

	while (n-- > 0 && S.nq > 0) {
		const int i = fz_u8(in) % S.nq, mode = fz_u8(in) % 16;
		struct qmad m = S.q[i];

		if (mode != 1) { /* 1: duplicate (the copy stays queued) */
			memmove(&S.q[i], &S.q[i + 1], (size_t)(S.nq - i - 1) * sizeof(m));
			S.nq--;
		}
		if (mode != 0) /* 0: drop */
			receive(m.dst, &m.from, m.mad, WQE_MAD_LEN);
	}
}

static struct wqe_cm_id *pick(struct fz_in *in, int k, int *slot)
{
	int n = 0, want;

	for (int i = 0; i < S.nown; i++)
		n += S.own[i].k == k;
	if (!n)
		return NULL;
	want = fz_u8(in) % n;
	for (int i = 0; i < S.nown; i++)
		if (S.own[i].k == k && want-- == 0) {
			if (slot)
				*slot = i;
			return S.own[i].id;
		}
	return NULL;
}

static void op_forge(struct fz_in *in, int k)
{
	struct wqe_cm_msg m;
	struct wqe_cm_addr from = {.gid = S.gid[1 - k], .qpn = 1, .pkey = 0xffff};
	const uint16_t attr = (uint16_t)(WQE_CM_ATTR_REQ + fz_u8(in) % 9);
	const uint8_t sel = fz_u8(in);
	const struct wqe_cm_id *id = pick(in, k, NULL);
	uint8_t mad[WQE_MAD_LEN];
	const uint8_t *b;
	size_t got;

	wqe_cm_msg_init(&m, (enum wqe_cm_attr)attr, fz_u32(in));
	b = fz_bytes(in, 64, &got);
	memcpy(&m.u, b, got);
	if (attr == WQE_CM_ATTR_REQ) {
		m.u.req.service_id = sids[sel % 3];
		m.u.req.path_mtu = (uint8_t)(1 + (sel >> 2) % 5);
		m.u.req.transport_type = (uint8_t)((sel >> 5) % 2);
		m.u.req.ext_transport_type = 0;
	}
	if (id && (sel & 0x80)) {
		/* the ID fields of each message are its first two words
		 * (SIDR: the request ID alone) */
		m.u.rtu.local_comm_id = wqe_cm_id_remote_id(id);
		if (attr == WQE_CM_ATTR_SIDR_REP)
			m.u.sidr_rep.request_id = wqe_cm_id_local_id(id);
		else if (attr != WQE_CM_ATTR_REQ && attr != WQE_CM_ATTR_SIDR_REQ)
			m.u.rtu.remote_comm_id = wqe_cm_id_local_id(id);
	}
	if (sel & 0x40)
		from.gid.raw[15] ^= 0x5a;
	if (wqe_cm_encode(&m, mad, sizeof(mad), NULL) != WQE_MAD_LEN) {
		memset(mad, 0, sizeof(mad));
		(void)wqe_mad_hdr_encode(&m.hdr, mad, WQE_MAD_HDR_LEN);
		memcpy(mad + WQE_MAD_HDR_LEN, b, got);
	}
	receive(k, &from, mad, WQE_MAD_LEN);
}

static void op_raw(struct fz_in *in, int k)
{
	struct wqe_cm_addr from = {.gid = S.gid[1 - k], .qpn = 1, .pkey = 0xffff};
	const size_t want = fz_u16(in) % 300;
	size_t got;
	const uint8_t *b = fz_bytes(in, want, &got);
	uint8_t *copy = malloc(got ? got : 1);

	if (!copy)
		return;
	memcpy(copy, b, got);
	receive(k, &from, copy, got);
	free(copy);
}

static void op_call(struct fz_in *in, int k)
{
	int slot = -1;
	struct wqe_cm_id *id = pick(in, k, &slot);
	const uint8_t what = fz_u8(in), a1 = fz_u8(in), a2 = fz_u8(in);
	uint8_t pd[256];
	struct wqe_qp_attr qa;
	int mask;

	if (!id)
		return;
	memset(pd, a1, sizeof(pd));
	switch (what % 11) {
	case 0: {
		struct wqe_cm_accept_param p = {.local_qpn = 0x100u + a1,
						.starting_psn = (uint32_t)a2 << 16,
						.responder_resources = a1,
						.initiator_depth = a2,
						.target_ack_delay = (uint8_t)(a2 % 40),
						.rnr_retry_count = (uint8_t)(a1 % 9),
						.min_rnr_timer = (uint8_t)(a2 % 33),
						.srq = (uint8_t)(a1 & 1),
						.private_data = pd,
						.private_data_len = (size_t)a2};
		(void)wqe_cm_accept(id, &p);
		break;
	}
	case 1:
		(void)wqe_cm_reject(id, (uint16_t)(a1 % 40), pd, a2 % 80u, pd, a2);
		break;
	case 2:
		(void)wqe_cm_mra(id, (uint8_t)(a1 % 34), pd, a2);
		break;
	case 3:
		(void)wqe_cm_rtu(id, pd, a2);
		break;
	case 4:
		(void)wqe_cm_disconnect(id, pd, a2);
		break;
	case 5:
		(void)wqe_cm_drep(id, pd, a2);
		break;
	case 6:
		if (wqe_cm_destroy_id(id) != 0)
			fz_die("destroy of a held ID refused");
		S.own[slot] = S.own[--S.nown];
		break;
	case 7:
		(void)wqe_cm_established(id);
		break;
	case 8:
		(void)wqe_cm_sidr_rep(id, (uint8_t)(a1 % 7), 0x300u + a2, 0x11111111u, pd, a2);
		break;
	case 9:
		if (wqe_cm_qp_attr(id, (enum wqe_qp_state)(a1 % 5), &qa, &mask) == 0 &&
		    (!(mask & WQE_QP_STATE) || qa.max_rd_atomic > 16 || qa.max_dest_rd_atomic > 16))
			fz_die("qp_attr gave a mask without STATE or an illegal depth");
		break;
	default:
		wqe_cm_id_set_context(id, (void *)(uintptr_t)a1);
		if (wqe_cm_id_context(id) != (void *)(uintptr_t)a1)
			fz_die("context lost");
		break;
	}
}

static void op_connect(struct fz_in *in, int k)
{
	struct wqe_cm_conn_param p;
	const uint8_t sel = fz_u8(in), x = fz_u8(in), y = fz_u8(in);
	uint8_t pd[100];

	memset(&p, 0, sizeof(p));
	memset(pd, x, sizeof(pd));
	p.peer.gid = S.gid[1 - k];
	p.peer.qpn = 1;
	p.service_id = sids[sel % 3];
	p.transport = (uint8_t)((sel >> 2) % 3);
	p.local_qpn = 0x100u + x;
	p.starting_psn = (uint32_t)y << 8;
	p.path_mtu = (enum wqe_mtu)(1 + (x % 6));
	p.hop_limit = y;
	p.flow_label = (uint32_t)x << 12;
	p.packet_life_time = (uint8_t)(y % 32);
	p.remote_cm_response_timeout = (uint8_t)(x % 33);
	p.local_cm_response_timeout = (uint8_t)(y % 33);
	p.max_cm_retries = (uint8_t)(x % 17);
	p.retry_count = (uint8_t)(y % 8);
	p.rnr_retry_count = (uint8_t)(x % 8);
	p.responder_resources = x;
	p.initiator_depth = y;
	p.manual_rtu = (uint8_t)(sel >> 7);
	p.private_data = pd;
	p.private_data_len = (size_t)(y % 100);
	own_add(wqe_cm_connect(S.ag[k], &p, NULL), k);
}

static void op_listen(struct fz_in *in, int k)
{
	const uint8_t sel = fz_u8(in), backlog = fz_u8(in);

	own_add(wqe_cm_listen(S.ag[k], sids[sel % 3], backlog % 8u, NULL), k);
}

static void op_sidr(struct fz_in *in, int k)
{
	struct wqe_cm_sidr_param p;
	const uint8_t sel = fz_u8(in), x = fz_u8(in);

	memset(&p, 0, sizeof(p));
	p.peer.gid = S.gid[1 - k];
	p.service_id = sids[sel % 3];
	p.timeout = (uint8_t)(x % 33);
	p.max_cm_retries = (uint8_t)(sel % 17);
	own_add(wqe_cm_sidr_req(S.ag[k], &p, NULL), k);
}

static void op_time(struct fz_in *in)
{
	const uint32_t v = fz_u32(in);

	S.now += (uint64_t)v << (fz_u8(in) % 24);
	(void)wqe_cm_agent_tick(S.ag[0]);
	(void)wqe_cm_agent_tick(S.ag[1]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_seed(const char *dir, int i, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%02d", dir, i);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		fz_die("cannot write %s", path);
}

/* Programs that reach the states: listen on B; connect from A; deliver
 * (REQ), deliver (REP; RTU automatic), deliver (RTU); disconnect, DREP;
 * time (TIMEWAIT). And a SIDR exchange, an MRA, a REQ timeout. */
static void seeds(const char *dir)
{
	static const uint8_t conn[] = {
	    13, 0,    0,		    /* B listens on sids[0] */
	    4,	0,    10,   64,		    /* A connects (RC, MTU 1024...) */
	    0,	0,    0,    2,		    /* deliver the REQ: B has an ID */
	    11, 1,    0,    1,	  2,	    /* B: accept */
	    0,	1,    0,    2,	  0,	2,  /* deliver REP, RTU */
	    3,	0,    4,    0,	  0,	    /* A: disconnect */
	    0,	1,    0,    2,	  0,	2,  /* DREQ in */
	    11, 1,    5,    0,	  0,	    /* B: DREP */
	    0,	0,    0,    2,		    /* DREP in */
	    7,	0xff, 0xff, 0xff, 0xff, 20, /* time */
	};
	static const uint8_t sidr[] = {13, 1, 0, 6, 1, 12, 0, 0, 0, 2, 11, 1, 8, 0, 0, 0, 0, 0, 2};
	static const uint8_t mra[] = {13, 0,  0, 4, 0, 10, 64, 0, 0, 0, 2, 11, 1,
				      2,  20, 0, 0, 0, 0,  2,  7, 0, 0, 0, 1,  23,
				      11, 1,  0, 1, 2, 0,  7,  0, 2, 0, 2, 0,  2};
	static const uint8_t tmo[] = {4, 0,    3,    18,   7,	 0xff, 0xff, 0,	   0,	 23,
				      7, 0xff, 0xff, 0,	   0,	 23,   7,    0xff, 0xff, 0,
				      0, 23,   7,    0xff, 0xff, 0,    0,    23};
	static const uint8_t forge[] = {13, 0, 0, 9,	0, 0x81, 1, 2, 3,  4,	 5, 6, 7, 8,
					9,  9, 3, 0x80, 0, 0,	 0, 0, 10, 0x80, 0, 0, 0, 0};

	write_seed(dir, 0, conn, sizeof(conn));
	write_seed(dir, 1, sidr, sizeof(sidr));
	write_seed(dir, 2, mra, sizeof(mra));
	write_seed(dir, 3, tmo, sizeof(tmo));
	write_seed(dir, 4, forge, sizeof(forge));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_seeds_from_env(seeds);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct wqe_cm_agent_ops ops = {
	    .send = cb_send, .event = cb_event, .now_ns = cb_now, .random = cb_random};
	struct fz_in in = {.p = data, .len = size, .pos = 0};
	int ops_left = 512;

	memset(&S, 0, sizeof(S));
	S.now = 1000;
	S.rnd = 1;
	for (int k = 0; k < 2; k++) {
		struct wqe_cm_agent_attr at = {.max_ids = MAXIDS, .max_req_rcvd = MAXREQ};

		test_gid_v4(&S.gid[k], 10, 0, 0, (uint8_t)(k + 1));
		at.local_gid = S.gid[k];
		S.ag[k] = wqe_cm_agent_create(&at, &ops, &S.ag[k]);
		if (!S.ag[k])
			fz_die("agent create");
	}
	while (in.pos < in.len && ops_left-- > 0) {
		const uint8_t op = fz_u8(&in);
		const int k = (op >> 3) & 1;

		switch (op & 7) {
		case 0:
			op_deliver(&in);
			break;
		case 1:
			op_forge(&in, k);
			break;
		case 2:
			op_raw(&in, k);
			break;
		case 3:
			op_call(&in, k);
			break;
		case 4:
			op_connect(&in, k);
			break;
		case 5:
			op_listen(&in, k);
			break;
		case 6:
			op_sidr(&in, k);
			break;
		default:
			op_time(&in);
			break;
		}
		check_bounds();
	}
	wqe_cm_agent_destroy(S.ag[0]);
	wqe_cm_agent_destroy(S.ag[1]);
	return 0;
}
