/* SPDX-License-Identifier: MIT */
/*
 * fuzz_text - the request text form of `wqe encode` (wqe_parse_send_wr,
 * and with bit 3 of the first byte the receive form, wqe_parse_recv_wr).
 *
 * Input: one byte choosing the QP type, whether a resolver is given and
 * which form, then the line (not NUL-terminated: the parser must stop at @len).
 * Checks beyond "no crash": a refusal names a column inside the line (or
 * just past it) and a NUL-terminated message; an accepted line formats
 * (wqe_format_send_wr) into a line that parses again to the same text
 * (format is a fixpoint after one round), and the request encodes into a
 * WQE that decodes back with the same opcode and length whenever the
 * post-time rules allow it.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tables/catalog.h"
#include "wqe/model.h"
#include "wqe/text.h"

static int resolve(void *arg, const char *name, size_t name_len, enum wqe_text_ref kind,
		   uint64_t *value)
{
	uint64_t h = 1469598103934665603ull;

	(void)arg;
	if (name_len && name[0] == 'x')
		return 1; /* unknown name */
	for (size_t i = 0; i < name_len; i++)
		h = (h ^ (uint8_t)name[i]) * 1099511628211ull;
	*value = kind == WQE_TEXT_REF_ADDR ? h : (uint32_t)h;
	return 0;
}

static struct wqe_text_wr w1, w2;
static char line1[WQE_TEXT_LINE_MAX], line2[WQE_TEXT_LINE_MAX];

/* The post-time rules of wqe_post_send() that the encoder leaves to it. */
static int postable(const struct wqe_send_wr *wr, enum wqe_qp_type t, uint32_t max_inline)
{
	enum wqe_op op;
	uint64_t total = 0;

	if (!catalog_op_from_wr(wr->opcode, &op) || !wqe_op_legal(op, t))
		return 0;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > 1ull << 31)
		return 0;
	if ((wr->send_flags & WQE_SEND_INLINE) && (!wqe_op_inline_ok(op) || total > max_inline))
		return 0;
	if ((wr->opcode == WQE_WR_ATOMIC_CMP_AND_SWP ||
	     wr->opcode == WQE_WR_ATOMIC_FETCH_AND_ADD) &&
	    (wr->num_sge != 1 || total != 8 || (wr->wr.atomic.remote_addr & 7)))
		return 0;
	return 1;
}

static void check_encode(const struct wqe_text_wr *w, enum wqe_qp_type t)
{
	static uint8_t ring[64 * 64];
	struct wqe_encode_qp eqp = {t, 0x123, WQE_DESC_MAX_SGE, 960, 0};
	struct wqe_ring_view v = {ring, 64};
	struct wqe_decode_ctx dc;
	struct wqe_desc d;
	uint32_t nb = 0;
	enum wqe_decode_err de;

	if (!postable(&w->wr, t, eqp.max_inline_data))
		return;
	if (wqe_encode(WQE_FORMAT_MLX5, &eqp, &w->wr, &v, 0, 0, &nb))
		return; /* too large for the format: wqe_post_send() refuses it too */
	if (nb == 0 || nb > WQE_MAX_BLOCKS)
		fz_die("wqe_encode wrote %u blocks", nb);
	dc.qp_type = t;
	dc.max_bytes = nb * WQE_BLOCK_SIZE;
	de = wqe_decode(WQE_FORMAT_MLX5, &dc, ring, dc.max_bytes, &d);
	if (de != WQE_DEC_OK)
		fz_die("an encoded request does not decode: %s", wqe_decode_err_str(de));
	{
		uint64_t total = 0;

		for (int i = 0; i < w->wr.num_sge; i++)
			total += w->wr.sg_list[i].length;
		if (d.total_len != total)
			fz_die("decoded length %llu, request length %llu",
			       (unsigned long long)d.total_len, (unsigned long long)total);
	}
}

/* The receive form (wqe_parse_recv_wr): the same checks on a refusal, and
 * format/parse a fixpoint after one round for an accepted line. */
static void recv_form(const char *line, size_t len, const struct wqe_text_opts *o)
{
	static struct wqe_text_recv_wr r1, r2;
	struct wqe_text_opts plain = *o;
	struct wqe_text_err err;
	int n1, n2;

	memset(&err, 0x5a, sizeof(err));
	if (wqe_parse_recv_wr(line, len, o, &r1, &err)) {
		if (err.column < 1 || err.column > len + 1)
			fz_die("recv: error column %u for a line of %zu bytes", err.column, len);
		if (!memchr(err.msg, 0, sizeof(err.msg)) || !err.msg[0])
			fz_die("recv: error message empty or not NUL-terminated");
		return;
	}
	n1 = wqe_format_recv_wr(&r1.wr, line1, sizeof(line1));
	if (n1 < 0 || (size_t)n1 >= sizeof(line1))
		fz_die("recv: an accepted request does not format (%d)", n1);
	plain.resolve = NULL;
	if (wqe_parse_recv_wr(line1, (size_t)n1, &plain, &r2, &err))
		fz_die("recv: formatted line refused at column %u (%s): %s", err.column, err.msg,
		       line1);
	n2 = wqe_format_recv_wr(&r2.wr, line2, sizeof(line2));
	if (n2 != n1 || memcmp(line1, line2, (size_t)n1))
		fz_die("recv: format/parse is not a fixpoint:\n  %s\n  %s", line1, line2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum wqe_qp_type types[] = {WQE_QPT_RC, WQE_QPT_UC, WQE_QPT_UD};
	struct wqe_text_opts o;
	struct wqe_text_err err;
	const char *line;
	size_t len;
	int n1, n2;
	char *copy;

	if (size < 1)
		return 0;
	memset(&o, 0, sizeof(o));
	o.qp_type = types[data[0] % 3];
	if (data[0] & 4)
		o.resolve = resolve;
	/* A heap copy of exactly @len bytes: ASan sees any read past it. */
	len = size - 1;
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, len);
	line = copy;
	if (data[0] & 8) {
		recv_form(line, len, &o);
		free(copy);
		return 0;
	}
	memset(&err, 0x5a, sizeof(err));
	if (wqe_parse_send_wr(line, len, &o, &w1, &err)) {
		if (err.column < 1 || err.column > len + 1)
			fz_die("error column %u for a line of %zu bytes", err.column, len);
		if (!memchr(err.msg, 0, sizeof(err.msg)) || !err.msg[0])
			fz_die("error message empty or not NUL-terminated");
		free(copy);
		return 0;
	}
	free(copy);
	n1 = wqe_format_send_wr(&w1.wr, o.qp_type, line1, sizeof(line1));
	if (n1 < 0 || (size_t)n1 >= sizeof(line1))
		fz_die("an accepted request does not format (%d)", n1);
	/* The formatted line names numbers only: no resolver is needed. */
	o.resolve = NULL;
	if (wqe_parse_send_wr(line1, (size_t)n1, &o, &w2, &err))
		fz_die("formatted line refused at column %u (%s): %s", err.column, err.msg, line1);
	n2 = wqe_format_send_wr(&w2.wr, o.qp_type, line2, sizeof(line2));
	if (n2 != n1 || memcmp(line1, line2, (size_t)n1))
		fz_die("format/parse is not a fixpoint:\n  %s\n  %s", line1, line2);
	check_encode(&w1, o.qp_type);
	return 0;
}
