/* SPDX-License-Identifier: MIT */
/*
 * The drop-in libibverbs.so.1: libibverbs' own structures (from the
 * system's <infiniband/verbs.h>) wrapped around wqe's objects.
 *
 * Every libibverbs object a program holds is the first member of a wrapper
 * here, so a pointer the program passes back converts with a cast. The
 * wrappers of one ibv_context are on its list (struct wi_obj) so that
 * ibv_close_device() can free what the program left, as libibverbs'
 * closing of the command fd does.
 */
#ifndef WQE_IBV_INT_H
#define WQE_IBV_INT_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>

#include "wqe/link.h"
#include "wqe/verbs.h"

/* The kinds of object on a context's list, in the order
 * ibv_close_device() frees them (users before what they use). */
enum wi_kind {
	WI_QP,
	WI_SRQ,
	WI_AH,
	WI_MR,
	WI_CQ,
	WI_CHANNEL,
	WI_PD,
	WI_KINDS,
};

struct wi_obj {
	struct wi_obj *prev, *next;
	enum wi_kind kind;
};

/* One device: a local address (WQE_IBV_LOCAL) and, while open, the wqe
 * context and UDP link every ibv_context on it shares. */
struct wi_device {
	struct ibv_device dev;
	char addr[64];          /* the address literal */
	union wqe_gid gid;      /* GID index 0: the address as a RoCEv2 GID */
	uint8_t mac[6];
	uint64_t guid;          /* network order, as ibv_get_device_guid() */
	enum ibv_mtu active_mtu;
	int index;
	/* under wi_lock */
	int opens;
	struct wqe_context *w;
	struct wqe_link *link;
	struct wqe_link *fault; /* WQE_IBV_FAULT's injector around link, or NULL */
};

/*
 * wi_fault_from_env - WQE_IBV_FAULT ("drop=0.02,seed=7": KEY=VALUE fields
 * separated by commas, the keys drop, dup, reorder, delay, corrupt, seed)
 * into *@cfg. Returns 1 if it asks for a fault, 0 if unset or every rate
 * is 0, -1 for a bad value (said in one line on stderr).
 */
int wi_fault_from_env(struct wqe_fault_cfg *cfg);

struct wi_context {
	struct verbs_context vctx; /* vctx.context is the program's */
	struct wi_device *dev;
	pthread_mutex_t lock;      /* the object list */
	struct wi_obj objs;        /* list head */
};

struct wi_pd {
	struct ibv_pd pd;
	struct wi_obj obj;
	struct wqe_pd *w;
};

struct wi_mr {
	struct ibv_mr mr;
	struct wi_obj obj;
	struct wqe_mr *w;
};

struct wi_channel {
	struct ibv_comp_channel ch;
	struct wi_obj obj;
	struct wqe_comp_channel *w;
};

/* Both the classic and the extended CQ: ibv_cq is ibv_cq_ex's head. */
struct wi_cq {
	struct ibv_cq_ex cq;
	struct wi_obj obj;
	struct wqe_cq *w;
	pthread_spinlock_t lock; /* the data path: libibverbs' is thread-safe */
	/* events returned (under cq.mutex): ibv_destroy_cq() waits until
	 * comp_events_completed and async_events_completed reach them */
	unsigned int comp_delivered, async_delivered;
	struct wqe_wc cur;       /* ibv_start_poll()'s current completion */
	bool polling;            /* between start_poll() and end_poll() */
};

struct wi_srq {
	struct ibv_srq srq;
	struct wi_obj obj;
	struct wqe_srq *w;
	unsigned int async_delivered; /* as wi_cq's, against events_completed */
};

struct wi_ah {
	struct ibv_ah ah;
	struct wi_obj obj;
	struct wqe_ah *w;
};

/* ibv_wr_*() build requests here until ibv_wr_complete(). */
#define WI_WR_BATCH 64u
#define WI_WR_SGES 16u
#define WI_WR_INLINE 16384u

struct wi_qp {
	struct ibv_qp_ex qpx; /* qpx.qp_base is the classic ibv_qp */
	struct wi_obj obj;
	struct wqe_qp *w;
	pthread_spinlock_t sq_lock, rq_lock;
	bool extended;        /* made by ibv_create_qp_ex() with send_ops_flags */
	unsigned int async_delivered; /* as wi_cq's, against events_completed */
	/* the ibv_wr_*() batch */
	uint32_t nwr;
	int wr_err;
	struct wqe_send_wr wr[WI_WR_BATCH];
	struct wqe_sge sge[WI_WR_BATCH][WI_WR_SGES];
	/* inline data, copied when ibv_wr_set_inline_data*() is called */
	uint32_t inl_used;
	uint8_t inl[WI_WR_INLINE];
};

/* The lock over the device table's open counts and every object list
 * change of every context (commands are rare; the data path never takes it). */
extern pthread_mutex_t wi_lock;

void wi_obj_add(struct wi_context *c, struct wi_obj *o, enum wi_kind kind);
void wi_obj_del(struct wi_context *c, struct wi_obj *o);

static inline struct wi_context *wi_ctx(struct ibv_context *c)
{
	return (struct wi_context *)(void *)((char *)c - offsetof(struct verbs_context, context));
}

static inline struct wqe_context *wi_w(struct ibv_context *c)
{
	return wi_ctx(c)->dev->w;
}

/* Exported by libibverbs, declared only in rdma-core's driver.h. */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
const char *ibv_get_sysfs_path(void);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* Object creation and the queries (objects.c, qp.c), data path (datapath.c). */
void wi_fill_ops(struct wi_context *c);
int wi_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size);
int wi_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr,
		  size_t len);
struct ibv_cq_ex *wi_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *a);
struct ibv_qp *wi_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *a);
int wi_destroy_obj(struct wi_obj *o, bool closing);
int wi_qp_free(struct wi_qp *q, bool closing);
/* SRQs (srq.c). */
struct ibv_srq *wi_create_srq_ex(struct ibv_context *context, struct ibv_srq_init_attr_ex *a);
int wi_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int wi_srq_free(struct wi_srq *s, bool closing);

int wi_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int wi_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int wi_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int wi_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void wi_cq_ex_ops(struct wi_cq *cq, uint64_t wc_flags);
void wi_qp_ex_ops(struct wi_qp *qp);

/* WQE_PRIVATE_1, for wqe's librdmacm: the device's GSI QP (QP1) on @pd,
 * UD, no SRQ; NULL with errno (EINVAL, EBUSY: the context has one). */
struct ibv_qp *wqe_ibv_create_gsi_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);

/* struct ibv_ah_attr to wqe's (EINVAL: not global, as RoCE refuses). */
int wi_ah_attr_in(struct wi_device *d, const struct ibv_ah_attr *in, struct wqe_ah_attr *out);
void wi_ah_attr_out(const struct wqe_ah_attr *in, struct ibv_ah_attr *out);

#endif
