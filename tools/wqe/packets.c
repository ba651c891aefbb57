/* SPDX-License-Identifier: MIT */
/*
 * wqe encode --packets: each encoded WQE is decoded as the NIC decodes it
 * and run through the public packetizer; every packet is parsed back and
 * printed, and optionally written to a capture. The capture is written to
 * OUT.tmp and renamed to OUT only when everything went right, so OUT is
 * complete or absent.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "packets.h"
#include "wqe/packetize.h"
#include "wqe/wire.h"

#define PSN_MASK 0xffffffu

/* ------------------------------------------------------------------------ */
/* The capture: OUT.tmp while it is written, removed on a failure or on a
 * signal. A signal handler reaches only static storage, hence this one. */

static const char *volatile scratch_path;

static void on_signal(int sig)
{
	const char *p = scratch_path;

	if (p)
		unlink(p);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Guards @path against the signals that end a run (NULL: stop guarding).
 * A signal the caller ignores stays ignored. */
static void guard(const char *path)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};
	struct sigaction sa, old;

	scratch_path = path;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = path ? on_signal : SIG_DFL;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

struct pkt_run {
	const struct cli_pkt_cfg *cfg;
	struct wqe_pktz_qp qp;
	struct wqe_pcap *pcap;
	char *tmp;
	uint32_t psn;
	uint16_t ip_id;
	uint64_t written;
	uint8_t *mem; /* the synthetic memory the SGEs name */
	struct wqe_iov iov[WQE_DESC_MAX_SGE];
	uint32_t niov;
	struct wqe_desc d;
	struct wqe_pkt pkt;
	uint8_t frame[WQE_FRAME_MAX]; /* any frame wqe_pktz_next() builds */
};

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "wqe encode: %s: %s\n", what, why);
	return CLI_FAIL;
}

static int open_capture(struct pkt_run *r)
{
	size_t n = strlen(r->cfg->pcap) + sizeof(".tmp");

	r->tmp = malloc(n);
	if (!r->tmp)
		return fail(r->cfg->pcap, strerror(ENOMEM));
	snprintf(r->tmp, n, "%s.tmp", r->cfg->pcap);
	guard(r->tmp);
	r->pcap = wqe_pcap_open(r->tmp);
	if (!r->pcap) {
		int err = errno;

		guard(NULL);
		return fail(r->tmp, strerror(err));
	}
	return CLI_OK;
}

/* Closes the capture and renames it into place, or removes it. */
static int close_capture(struct pkt_run *r, int rc)
{
	if (!r->pcap)
		return rc;
	if (wqe_pcap_close(r->pcap) && rc == CLI_OK)
		rc = fail(r->tmp, strerror(errno));
	if (fflush(stdout) && rc == CLI_OK)
		rc = fail("stdout", strerror(errno));
	if (rc == CLI_OK && rename(r->tmp, r->cfg->pcap))
		rc = fail(r->cfg->pcap, strerror(errno));
	if (rc != CLI_OK)
		unlink(r->tmp);
	guard(NULL);
	if (rc == CLI_OK)
		printf("\n%llu packets written to %s\n", (unsigned long long)r->written,
		       r->cfg->pcap);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* One WQE. */

static void print_summary(const struct pkt_run *r, const struct wqe_pktz *z)
{
	const struct wqe_desc *d = &r->d;

	printf("decoded WQE (%u bytes): %s, %llu byte%s%s -> %u packet%s, PSN %u", d->size,
	       wqe_op_str(d->op), (unsigned long long)d->total_len, d->total_len == 1 ? "" : "s",
	       d->is_inline ? " inline" : "", z->npkts, z->npkts == 1 ? "" : "s", z->first_psn);
	if (z->npsn > 1)
		printf(" to %u", (z->first_psn + z->npsn - 1) & PSN_MASK);
	if (d->op == WQE_OP_RDMA_READ && z->npsn > 1)
		printf(" (one per response packet)");
	putchar('\n');
}

static int print_packet(struct pkt_run *r, uint32_t k, uint32_t n, size_t len)
{
	int err = wqe_pkt_parse(r->frame, len, &r->pkt);

	if (err)
		return fail("the parser refuses a packet", wqe_pkt_err_str(err));
	printf("packet %u of %u: %zu bytes, %s\n", k, n, len,
	       wqe_wire_opcode_str(r->pkt.bth.opcode));
	wqe_pkt_print(stdout, &r->pkt);
	return CLI_OK;
}

static int emit_all(struct pkt_run *r, struct wqe_pktz *z)
{
	size_t len;
	int got, rc = CLI_OK;

	for (uint32_t k = 1; rc == CLI_OK; k++) {
		got = wqe_pktz_next(z, r->frame, sizeof(r->frame), &len, NULL);
		if (got == 0)
			break;
		if (got < 0)
			return fail("the packetizer failed", wqe_pkt_err_str(got));
		/* Timestamps 1 us apart, so the capture is the same every run. */
		if (r->pcap && wqe_pcap_write(r->pcap, r->frame, len, r->written * 1000u))
			return fail(r->tmp, strerror(errno));
		r->written++;
		rc = print_packet(r, k, z->npkts, len);
	}
	return rc;
}

static int one_wqe(struct pkt_run *r, enum wqe_format fmt, enum wqe_qp_type t,
		   const struct cli_encoded *e)
{
	struct wqe_decode_ctx ctx = {.qp_type = t, .max_bytes = e->nbytes};
	enum wqe_decode_err de = wqe_decode(fmt, &ctx, e->bytes, e->nbytes, &r->d);
	struct wqe_pktz z;
	int rc;

	if (de != WQE_DEC_OK)
		return fail("the decoder refuses the WQE", wqe_decode_err_str(de));
	if (cli_payload_of(&r->d, r->iov, &r->niov, &r->mem))
		return fail("the payload", strerror(ENOMEM));
	if (wqe_pktz_init(&z, &r->qp, &r->d, r->psn, r->iov, r->niov, r->ip_id)) {
		rc = fail("the packetizer refuses the WQE", strerror(EINVAL));
	} else {
		print_summary(r, &z);
		rc = emit_all(r, &z);
		/* The QP's next PSN: every packet takes one (a READ one per
		 * response), on UD too, as rxe and the IBA intend. */
		r->psn = (r->psn + z.npsn) & PSN_MASK;
		r->ip_id = z.ip_id;
	}
	free(r->mem);
	r->mem = NULL;
	return rc;
}

int cli_packets(const struct cli_pkt_cfg *c, enum wqe_format fmt, const struct wqe_encode_qp *qp,
		const struct cli_encoded *e, size_t n, const char *input)
{
	struct pkt_run *r = calloc(1, sizeof(*r));
	int rc = CLI_OK;

	if (!r)
		return fail("--packets", strerror(ENOMEM));
	r->cfg = c;
	r->psn = c->psn;
	cli_pktz_qp_of(c, qp, &r->qp);
	if (c->pcap)
		rc = open_capture(r);
	for (size_t i = 0; i < n && rc == CLI_OK; i++) {
		printf("%s%s:%u: %s\n", i ? "\n" : "", input, e[i].lineno, e[i].text);
		rc = one_wqe(r, fmt, qp->qp_type, &e[i]);
	}
	rc = close_capture(r, rc);
	free(r->tmp);
	free(r);
	return rc;
}
