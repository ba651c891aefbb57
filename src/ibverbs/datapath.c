/* SPDX-License-Identifier: MIT */
/*
 * The drop-in's data path: what <infiniband/verbs.h> inlines through
 * ibv_context.ops (post_send, post_recv, poll_cq, req_notify_cq), the
 * extended CQ's start/next/end_poll and read_*() accessors, and the
 * extended QP's ibv_wr_*() calls.
 *
 * ibv_sge, ibv_wc and ibv_recv_wr have wqe's layout (asserted below), so
 * receives and completions pass through as they are; a send request is
 * copied into wqe's shape (its first 72 bytes are the same; the chain and
 * the UD address handle are not). libibverbs' data path is thread-safe:
 * each queue and CQ has a spinlock, as rdma-core's providers do.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "ibverbs/ibv_int.h"

#define SAME(a, b, f)                                                                          \
	_Static_assert(offsetof(struct a, f) == offsetof(struct b, f), #a "." #f " placement")
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct wqe_sge), "ibv_sge");
SAME(ibv_sge, wqe_sge, lkey);
_Static_assert(sizeof(struct ibv_wc) == sizeof(struct wqe_wc), "ibv_wc");
SAME(ibv_wc, wqe_wc, status);
SAME(ibv_wc, wqe_wc, opcode);
SAME(ibv_wc, wqe_wc, byte_len);
SAME(ibv_wc, wqe_wc, imm_data);
SAME(ibv_wc, wqe_wc, qp_num);
SAME(ibv_wc, wqe_wc, src_qp);
SAME(ibv_wc, wqe_wc, wc_flags);
SAME(ibv_wc, wqe_wc, pkey_index);
SAME(ibv_wc, wqe_wc, slid);
SAME(ibv_wc, wqe_wc, sl);
SAME(ibv_wc, wqe_wc, dlid_path_bits);
_Static_assert(sizeof(struct ibv_recv_wr) == sizeof(struct wqe_recv_wr), "ibv_recv_wr");
SAME(ibv_recv_wr, wqe_recv_wr, next);
SAME(ibv_recv_wr, wqe_recv_wr, sg_list);
SAME(ibv_recv_wr, wqe_recv_wr, num_sge);
SAME(ibv_send_wr, wqe_send_wr, sg_list);
SAME(ibv_send_wr, wqe_send_wr, opcode);
SAME(ibv_send_wr, wqe_send_wr, send_flags);
SAME(ibv_send_wr, wqe_send_wr, imm_data);
SAME(ibv_send_wr, wqe_send_wr, wr.atomic.rkey);
SAME(ibv_send_wr, wqe_send_wr, wr.ud.remote_qkey);
#define SEND_WR_HEAD (offsetof(struct wqe_send_wr, wr) + sizeof(((struct wqe_send_wr *)0)->wr))
_Static_assert(SEND_WR_HEAD == 72 && sizeof(struct wqe_send_wr) == 72,
	       "the first 72 bytes of ibv_send_wr are wqe_send_wr");
_Static_assert(IBV_WR_SEND_WITH_INV == (int)WQE_WR_SEND_WITH_INV, "opcode values");
_Static_assert(IBV_WC_RECV_RDMA_WITH_IMM == (int)WQE_WC_RECV_RDMA_WITH_IMM, "opcode values");
_Static_assert(IBV_SEND_INLINE == (int)WQE_SEND_INLINE, "send flags");

/* Requests taken into wqe's shape at a time: one doorbell for each batch. */
#define POST_BATCH 16

int wi_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct wi_qp *q = (struct wi_qp *)(void *)qp;
	struct wqe_send_wr w[POST_BATCH], *wbad = NULL;
	struct ibv_send_wr *src[POST_BATCH];
	int err = 0;

	pthread_spin_lock(&q->sq_lock);
	/* One connected-QP request (perftest's default): its first 72 bytes
	 * are a wqe_send_wr with no next, read in place. */
	if (wr && !wr->next && qp->qp_type != IBV_QPT_UD) {
		err = wqe_post_send(q->w, (struct wqe_send_wr *)(void *)wr, &wbad);
		if (err)
			*bad = wr;
		pthread_spin_unlock(&q->sq_lock);
		return err;
	}
	while (wr && !err) {
		int n = 0;

		for (; wr && n < POST_BATCH; wr = wr->next, n++) {
			memcpy(&w[n], wr, SEND_WR_HEAD);
			if (qp->qp_type == IBV_QPT_UD)
				w[n].wr.ud.ah = wr->wr.ud.ah ? ((struct wi_ah *)wr->wr.ud.ah)->w : NULL;
			w[n].next = &w[n + 1];
			src[n] = wr;
		}
		w[n - 1].next = NULL;
		err = wqe_post_send(q->w, w, &wbad);
		if (err)
			*bad = src[wbad - w];
	}
	pthread_spin_unlock(&q->sq_lock);
	return err;
}

int wi_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct wi_qp *q = (struct wi_qp *)(void *)qp;
	int err;

	pthread_spin_lock(&q->rq_lock);
	err = wqe_post_recv(q->w, (struct wqe_recv_wr *)(void *)wr, (struct wqe_recv_wr **)(void *)bad);
	pthread_spin_unlock(&q->rq_lock);
	return err;
}

int wi_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct wi_cq *c = (struct wi_cq *)(void *)cq;
	int got;

	pthread_spin_lock(&c->lock);
	got = wqe_poll_cq(c->w, n, (struct wqe_wc *)(void *)wc);
	pthread_spin_unlock(&c->lock);
	return got < 0 ? -1 : got; /* libibverbs: a negative value on error */
}

int wi_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct wi_cq *c = (struct wi_cq *)(void *)cq;
	int err;

	pthread_spin_lock(&c->lock);
	err = wqe_req_notify_cq(c->w, solicited_only);
	pthread_spin_unlock(&c->lock);
	return err;
}

/* ------------------------------------------------------------------------ */
/* The extended CQ                                                          */

static struct wi_cq *cqx(struct ibv_cq_ex *cq)
{
	return (struct wi_cq *)(void *)cq;
}

/* One completion into cur, and wr_id and status where the header has them. */
static int cqx_take(struct wi_cq *c)
{
	int got = wqe_poll_cq(c->w, 1, &c->cur);

	if (got <= 0)
		return got < 0 ? EINVAL : ENOENT;
	c->cq.wr_id = c->cur.wr_id;
	c->cq.status = (enum ibv_wc_status)c->cur.status;
	return 0;
}

static int cqx_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	struct wi_cq *c = cqx(cq);
	int err;

	if (!attr || attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&c->lock);
	err = cqx_take(c);
	if (err)
		pthread_spin_unlock(&c->lock); /* ENOENT: no end_poll() follows */
	else
		c->polling = true;
	return err;
}

static int cqx_next_poll(struct ibv_cq_ex *cq)
{
	return cqx_take(cqx(cq));
}

static void cqx_end_poll(struct ibv_cq_ex *cq)
{
	struct wi_cq *c = cqx(cq);

	c->polling = false;
	pthread_spin_unlock(&c->lock);
}

static enum ibv_wc_opcode cqx_opcode(struct ibv_cq_ex *cq)
{
	return (enum ibv_wc_opcode)cqx(cq)->cur.opcode;
}

static uint32_t cqx_vendor_err(struct ibv_cq_ex *cq)
{
	return cqx(cq)->cur.vendor_err;
}

static uint32_t cqx_byte_len(struct ibv_cq_ex *cq)
{
	return cqx(cq)->cur.byte_len;
}

static __be32 cqx_imm(struct ibv_cq_ex *cq)
{
	return cqx(cq)->cur.imm_data;
}

static uint32_t cqx_qp_num(struct ibv_cq_ex *cq)
{
	return cqx(cq)->cur.qp_num;
}

static uint32_t cqx_src_qp(struct ibv_cq_ex *cq)
{
	return cqx(cq)->cur.src_qp;
}

static unsigned int cqx_wc_flags(struct ibv_cq_ex *cq)
{
	return cqx(cq)->cur.wc_flags;
}

static uint32_t cqx_slid(struct ibv_cq_ex *cq)
{
	return cqx(cq)->cur.slid;
}

static uint8_t cqx_sl(struct ibv_cq_ex *cq)
{
	return cqx(cq)->cur.sl;
}

static uint8_t cqx_dlid_path_bits(struct ibv_cq_ex *cq)
{
	return cqx(cq)->cur.dlid_path_bits;
}

void wi_cq_ex_ops(struct wi_cq *c, uint64_t wc_flags)
{
	struct ibv_cq_ex *cq = &c->cq;

	cq->start_poll = cqx_start_poll;
	cq->next_poll = cqx_next_poll;
	cq->end_poll = cqx_end_poll;
	cq->read_opcode = cqx_opcode;
	cq->read_vendor_err = cqx_vendor_err;
	cq->read_wc_flags = cqx_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cq->read_byte_len = cqx_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM) /* and ibv_wc_read_invalidated_rkey() */
		cq->read_imm_data = cqx_imm;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cq->read_qp_num = cqx_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cq->read_src_qp = cqx_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cq->read_slid = cqx_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cq->read_sl = cqx_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cq->read_dlid_path_bits = cqx_dlid_path_bits;
}

/* ------------------------------------------------------------------------ */
/* The extended QP: ibv_wr_*() build wqe requests, ibv_wr_complete() posts. */

static struct wi_qp *qpx(struct ibv_qp_ex *qp)
{
	return (struct wi_qp *)(void *)qp;
}

/* The next request of the batch, its wr_id and flags from the QP's fields. */
static struct wqe_send_wr *wr_next(struct ibv_qp_ex *qp, enum wqe_wr_opcode op)
{
	struct wi_qp *q = qpx(qp);
	struct wqe_send_wr *w;

	if (q->wr_err)
		return NULL;
	if (q->nwr == WI_WR_BATCH) {
		q->wr_err = ENOMEM;
		return NULL;
	}
	w = &q->wr[q->nwr++];
	memset(w, 0, sizeof(*w));
	w->wr_id = qp->wr_id;
	w->send_flags = qp->wr_flags;
	w->opcode = op;
	return w;
}

static struct wqe_send_wr *wr_cur(struct ibv_qp_ex *qp)
{
	struct wi_qp *q = qpx(qp);

	return q->wr_err || !q->nwr ? NULL : &q->wr[q->nwr - 1];
}

static void wr_start(struct ibv_qp_ex *qp)
{
	struct wi_qp *q = qpx(qp);

	pthread_spin_lock(&q->sq_lock);
	q->nwr = 0;
	q->wr_err = 0;
	q->inl_used = 0;
}

static int wr_complete(struct ibv_qp_ex *qp)
{
	struct wi_qp *q = qpx(qp);
	struct wqe_send_wr *bad;
	int err = q->wr_err;

	if (!err && q->nwr) {
		for (uint32_t i = 0; i + 1 < q->nwr; i++)
			q->wr[i].next = &q->wr[i + 1];
		q->wr[q->nwr - 1].next = NULL;
		err = wqe_post_send(q->w, q->wr, &bad);
	}
	q->nwr = 0;
	pthread_spin_unlock(&q->sq_lock);
	return err;
}

static void wr_abort(struct ibv_qp_ex *qp)
{
	struct wi_qp *q = qpx(qp);

	q->nwr = 0;
	pthread_spin_unlock(&q->sq_lock);
}

static void wr_rdma(struct ibv_qp_ex *qp, enum wqe_wr_opcode op, uint32_t rkey,
		    uint64_t remote_addr)
{
	struct wqe_send_wr *w = wr_next(qp, op);

	if (w) {
		w->wr.rdma.rkey = rkey;
		w->wr.rdma.remote_addr = remote_addr;
	}
}

static void wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{
	wr_rdma(qp, WQE_WR_RDMA_WRITE, rkey, remote_addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
			      __be32 imm)
{
	wr_rdma(qp, WQE_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr);
	if (wr_cur(qp))
		wr_cur(qp)->imm_data = imm;
}

static void wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{
	wr_rdma(qp, WQE_WR_RDMA_READ, rkey, remote_addr);
}

static void wr_atomic(struct ibv_qp_ex *qp, enum wqe_wr_opcode op, uint32_t rkey,
		      uint64_t remote_addr, uint64_t compare_add, uint64_t swap)
{
	struct wqe_send_wr *w = wr_next(qp, op);

	if (w) {
		w->wr.atomic.rkey = rkey;
		w->wr.atomic.remote_addr = remote_addr;
		w->wr.atomic.compare_add = compare_add;
		w->wr.atomic.swap = swap;
	}
}

static void wr_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		       uint64_t compare, uint64_t swap)
{
	wr_atomic(qp, WQE_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare, swap);
}

static void wr_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
	wr_atomic(qp, WQE_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

static void wr_send(struct ibv_qp_ex *qp)
{
	wr_next(qp, WQE_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *qp, __be32 imm)
{
	struct wqe_send_wr *w = wr_next(qp, WQE_WR_SEND_WITH_IMM);

	if (w)
		w->imm_data = imm;
}

static void wr_send_inv(struct ibv_qp_ex *qp, uint32_t rkey)
{
	struct wqe_send_wr *w = wr_next(qp, WQE_WR_SEND_WITH_INV);

	if (w)
		w->invalidate_rkey = rkey;
}

static void wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah, uint32_t remote_qpn,
			   uint32_t remote_qkey)
{
	struct wqe_send_wr *w = wr_cur(qp);

	if (w) {
		w->wr.ud.ah = ah ? ((struct wi_ah *)ah)->w : NULL;
		w->wr.ud.remote_qpn = remote_qpn;
		w->wr.ud.remote_qkey = remote_qkey;
	}
}

static void wr_set_sge_list(struct ibv_qp_ex *qp, size_t num_sge, const struct ibv_sge *sg)
{
	struct wi_qp *q = qpx(qp);
	struct wqe_send_wr *w = wr_cur(qp);

	if (!w)
		return;
	if (num_sge > WI_WR_SGES) {
		q->wr_err = EINVAL;
		return;
	}
	memcpy(q->sge[q->nwr - 1], sg, num_sge * sizeof(*sg));
	w->sg_list = q->sge[q->nwr - 1];
	w->num_sge = (int)num_sge;
}

static void wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct ibv_sge s = {.addr = addr, .length = length, .lkey = lkey};

	wr_set_sge_list(qp, 1, &s);
}

/* Inline data: copied now, as ibv_wr_set_inline_data(3) promises (the
 * buffer may be reused when the call returns); the WQE is written at
 * ibv_wr_complete() from the copy. */
static void wr_set_inline_data_list(struct ibv_qp_ex *qp, size_t num_buf,
				    const struct ibv_data_buf *buf)
{
	struct wi_qp *q = qpx(qp);
	struct wqe_send_wr *w = wr_cur(qp);
	size_t total = 0;

	if (!w)
		return;
	for (size_t i = 0; i < num_buf; i++)
		total += buf[i].length;
	if (num_buf > WI_WR_SGES || total > WI_WR_INLINE - q->inl_used) {
		q->wr_err = num_buf > WI_WR_SGES ? EINVAL : ENOMEM;
		return;
	}
	for (size_t i = 0; i < num_buf; i++) {
		memcpy(q->inl + q->inl_used, buf[i].addr, buf[i].length);
		q->sge[q->nwr - 1][i] = (struct wqe_sge){
		    .addr = (uint64_t)(uintptr_t)(q->inl + q->inl_used),
		    .length = (uint32_t)buf[i].length};
		q->inl_used += (uint32_t)buf[i].length;
	}
	w->sg_list = q->sge[q->nwr - 1];
	w->num_sge = (int)num_buf;
	w->send_flags |= WQE_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *qp, void *addr, size_t length)
{
	struct ibv_data_buf b = {.addr = addr, .length = length};

	wr_set_inline_data_list(qp, 1, &b);
}

void wi_qp_ex_ops(struct wi_qp *q)
{
	struct ibv_qp_ex *x = &q->qpx;

	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	x->wr_rdma_write = wr_rdma_write;
	x->wr_rdma_write_imm = wr_rdma_write_imm;
	x->wr_rdma_read = wr_rdma_read;
	x->wr_atomic_cmp_swp = wr_cmp_swp;
	x->wr_atomic_fetch_add = wr_fetch_add;
	x->wr_send = wr_send;
	x->wr_send_imm = wr_send_imm;
	x->wr_send_inv = wr_send_inv;
	x->wr_set_ud_addr = wr_set_ud_addr;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
}

/* ------------------------------------------------------------------------ */

static int ctx_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	return ibv_query_device(context, attr);
}

static int ctx_query_port(struct ibv_context *context, uint8_t port_num,
			  struct _compat_ibv_port_attr *attr)
{
	/* rdma-core's _compat_ibv_port_attr: the fields up to flags */
	return wi_query_port(context, port_num, (struct ibv_port_attr *)(void *)attr,
			     offsetof(struct ibv_port_attr, flags) + 1);
}

void wi_fill_ops(struct wi_context *c)
{
	struct ibv_context_ops *o = &c->vctx.context.ops;

	o->_compat_query_device = ctx_query_device;
	o->_compat_query_port = ctx_query_port;
	o->poll_cq = wi_poll_cq;
	o->req_notify_cq = wi_req_notify_cq;
	o->post_send = wi_post_send;
	o->post_recv = wi_post_recv;
	o->post_srq_recv = wi_post_srq_recv;
	c->vctx.create_srq_ex = wi_create_srq_ex;
	c->vctx.query_port = wi_query_port;
	c->vctx.query_device_ex = wi_query_device_ex;
	c->vctx.create_cq_ex = wi_create_cq_ex;
	c->vctx.create_qp_ex = wi_create_qp_ex;
}
