/* SPDX-License-Identifier: MIT */
#include "bench.h"
#include <errno.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_HAVE_CALLGRIND 1
#endif
#endif

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int bench_poll_ok(const char *prog, struct wqe_cq *cq, int max, struct wqe_wc *wc)
{
	int n = wqe_poll_cq(cq, max, wc);

	if (n < 0) {
		fprintf(stderr, "%s: wqe_poll_cq failed\n", prog);
		exit(1);
	}
	for (int i = 0; i < n; i++)
		if (wc[i].status != WQE_WC_SUCCESS) {
			fprintf(stderr, "%s: %s\n", prog, wqe_wc_status_str(wc[i].status));
			exit(1);
		}
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_machine(char *buf, size_t cap)
{
	char line[256], model[128] = "unknown CPU", date[32] = "";
	int cores = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");
	time_t t = time(NULL);
	struct tm tm;

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (!strncmp(line, "processor", 9))
				cores++;
			if (!strncmp(line, "model name", 10) && colon && !strcmp(model, "unknown CPU")) {
				snprintf(model, sizeof(model), "%s", colon + 2);
				model[strcspn(model, "\n")] = 0;
			}
		}
		fclose(f);
	}
	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	snprintf(buf, cap, "%d cores, %s, %s", cores, model, date);
}

/* A decimal number from 1 to 2^32 - 1, the whole string. */
static int parse_num(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

enum bench_mode bench_args(int argc, char **argv, const struct bench_usage *u, uint32_t *num)
{
	const char *name = argv[0] ? argv[0] : "bench";
	enum bench_mode mode = BENCH_MEASURE;
	int takes = 0;

	*num = 0;
	if (argc < 2)
		return BENCH_MEASURE;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: %s %s\n", name, u->text);
		exit(0);
	}
	if (!strcmp(argv[1], "--callgrind")) {
		mode = BENCH_CALLGRIND;
		takes = u->callgrind_num;
	} else if (!strcmp(argv[1], "--profile")) {
		mode = BENCH_PROFILE;
		takes = u->profile_num;
	} else {
		fprintf(stderr, "%s: unknown argument '%s'\nusage: %s %s\n", name, argv[1], name,
			u->text);
		exit(2);
	}
	if (argc > 3 || (argc == 3 && takes == BENCH_NUM_NONE) ||
	    (argc == 2 && takes == BENCH_NUM_REQUIRED) ||
	    (argc == 3 && parse_num(argv[2], num))) {
		fprintf(stderr, "%s: bad arguments to %s\nusage: %s %s\n", name, argv[1], name,
			u->text);
		exit(2);
	}
	return mode;
}

static void side_addr(int idx, uint8_t mac[6], union wqe_gid *gid)
{
	memset(mac, 0, 6);
	memset(gid, 0, sizeof(*gid));
	mac[0] = 0x02;
	mac[5] = (uint8_t)idx;
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	gid->raw[12] = 192;
	gid->raw[14] = 2;
	gid->raw[15] = (uint8_t)idx;
}

static int side_open(struct bench_side *s, int idx, const struct bench_pair_cfg *cfg)
{
	struct wqe_context_attr ca;

	memset(&ca, 0, sizeof(ca));
	ca.format = WQE_FORMAT_MLX5;
	ca.num_gids = 1;
	ca.nic_mode = cfg->nic_mode;
	side_addr(idx, ca.mac, &ca.gid[0]);
	s->ctx = wqe_open_context(&ca);
	if (!s->ctx)
		return -1;
	s->pd = wqe_alloc_pd(s->ctx);
	s->scq = wqe_create_cq(s->ctx, (int)cfg->cq_depth);
	s->rcq = wqe_create_cq(s->ctx, (int)cfg->cq_depth);
	if (posix_memalign((void **)&s->buf, 4096, cfg->buf_bytes))
		s->buf = NULL;
	s->qp = calloc(cfg->nqp, sizeof(*s->qp));
	if (!s->pd || !s->scq || !s->rcq || !s->buf || !s->qp)
		return -1;
	memset(s->buf, idx, cfg->buf_bytes);
	s->mr = wqe_reg_mr(s->pd, s->buf, cfg->buf_bytes,
			   WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ);
	return s->mr ? 0 : -1;
}

static int qp_create(struct bench_side *s, uint32_t i, const struct bench_pair_cfg *cfg)
{
	struct wqe_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = s->scq;
	ia.recv_cq = s->rcq;
	ia.qp_type = WQE_QPT_RC;
	ia.cap.max_send_wr = cfg->max_send_wr;
	ia.cap.max_recv_wr = cfg->max_recv_wr ? cfg->max_recv_wr : 1;
	ia.cap.max_inline_data = cfg->max_inline_data;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	s->qp[i] = wqe_create_qp(s->pd, &ia);
	return s->qp[i] ? 0 : -1;
}

/* RESET -> INIT -> RTR -> RTS, as an RC QP talking to @peer_qpn at @peer_idx. */
static int qp_connect(struct wqe_qp *qp, uint32_t peer_qpn, int peer_idx, enum wqe_mtu mtu)
{
	struct wqe_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ;
	if (wqe_modify_qp(qp, &a,
			  WQE_QP_STATE | WQE_QP_PKEY_INDEX | WQE_QP_PORT | WQE_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = peer_qpn;
	a.rq_psn = 0x1000;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	side_addr(peer_idx, a.ah_attr.dmac, &a.ah_attr.grh.dgid);
	if (wqe_modify_qp(qp, &a,
			  WQE_QP_STATE | WQE_QP_AV | WQE_QP_PATH_MTU | WQE_QP_DEST_QPN |
				  WQE_QP_RQ_PSN | WQE_QP_MAX_DEST_RD_ATOMIC |
				  WQE_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = WQE_QPS_RTS;
	a.sq_psn = 0x1000;
	a.timeout = 14; /* 67 ms: a retransmission would be a benchmark bug */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	return wqe_modify_qp(qp, &a,
			     WQE_QP_STATE | WQE_QP_SQ_PSN | WQE_QP_TIMEOUT | WQE_QP_RETRY_CNT |
				     WQE_QP_RNR_RETRY | WQE_QP_MAX_QP_RD_ATOMIC)
		       ? -1
		       : 0;
}

int bench_pair_open(struct bench_pair *p, const struct bench_pair_cfg *cfg)
{
	return bench_pair_open_ctx(p, cfg) || bench_pair_open_qps(p, cfg) ? -1 : 0;
}

int bench_pair_open_ctx(struct bench_pair *p, const struct bench_pair_cfg *cfg)
{
	memset(p, 0, sizeof(*p));
	p->nqp = cfg->nqp;
	p->link = wqe_link_loopback_create();
	if (!p->link || side_open(&p->a, 1, cfg) || side_open(&p->b, 2, cfg) ||
	    wqe_context_attach_link(p->a.ctx, p->link) ||
	    wqe_context_attach_link(p->b.ctx, p->link)) {
		fprintf(stderr, "bench: cannot open the contexts\n");
		return -1;
	}
	return 0;
}

int bench_pair_open_qps(struct bench_pair *p, const struct bench_pair_cfg *cfg)
{
	for (uint32_t i = 0; i < cfg->nqp; i++) {
		if (qp_create(&p->a, i, cfg) || qp_create(&p->b, i, cfg)) {
			fprintf(stderr, "bench: cannot create QP pair %u\n", i);
			return -1;
		}
	}
	for (uint32_t i = 0; i < cfg->nqp; i++) {
		if (qp_connect(p->a.qp[i], wqe_qp_num(p->b.qp[i]), 2, cfg->mtu) ||
		    qp_connect(p->b.qp[i], wqe_qp_num(p->a.qp[i]), 1, cfg->mtu)) {
			fprintf(stderr, "bench: cannot connect QP pair %u\n", i);
			return -1;
		}
	}
	return 0;
}

static void side_close(struct bench_side *s, uint32_t nqp)
{
	for (uint32_t i = 0; s->qp && i < nqp; i++)
		if (s->qp[i])
			wqe_destroy_qp(s->qp[i]);
	if (s->mr)
		wqe_dereg_mr(s->mr);
	if (s->scq)
		wqe_destroy_cq(s->scq);
	if (s->rcq)
		wqe_destroy_cq(s->rcq);
	if (s->pd)
		wqe_dealloc_pd(s->pd);
	if (s->ctx) {
		wqe_context_attach_link(s->ctx, NULL);
		wqe_close_context(s->ctx);
	}
	free(s->qp);
	free(s->buf);
}

void bench_pair_close(struct bench_pair *p)
{
	side_close(&p->a, p->nqp);
	side_close(&p->b, p->nqp);
	if (p->link)
		wqe_link_destroy(p->link);
	memset(p, 0, sizeof(*p));
}

static int cg_enabled = 1;

void bench_cg_enable(int on)
{
	cg_enabled = on;
}

void bench_cg_on(void)
{
#ifdef BENCH_HAVE_CALLGRIND
	if (cg_enabled)
		CALLGRIND_TOGGLE_COLLECT;
#endif
}

void bench_cg_off(void)
{
#ifdef BENCH_HAVE_CALLGRIND
	if (cg_enabled)
		CALLGRIND_TOGGLE_COLLECT;
#endif
}

void bench_cg_dump(const char *name)
{
#ifdef BENCH_HAVE_CALLGRIND
	if (cg_enabled)
		CALLGRIND_DUMP_STATS_AT(name);
#else
	(void)name;
#endif
}
