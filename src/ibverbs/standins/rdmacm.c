/* SPDX-License-Identifier: MIT */
/*
 * Stand-in librdmacm.so.1. Debian's perftest links librdmacm directly, and the
 * real one imports rdma-core's private ABI, which wqe's drop-in libibverbs
 * does not export. This library exports the same symbols and versions as
 * Debian's and has no device the connection manager can use: every call fails
 * as its man page documents (NULL or -1, errno ENODEV), except the helpers
 * that need no device. It prints nothing.
 */
#include <errno.h>
#include <stddef.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h> /* rdma_create_srq and rdma_create_srq_ex, rdma_destroy_srq */
#include <rdma/rsocket.h>

/* Calls documented to return a pointer: NULL with errno set. */
static void *fail_null(void)
{
	errno = ENODEV;
	return NULL;
}

/* Calls documented to return 0 or -1 with errno (rsockets too). */
static int fail_minus1(void)
{
	errno = ENODEV;
	return -1;
}

/*
 * The void calls (destroys and frees) do nothing: this library never hands
 * out an object for them to act on. Out-parameters of the failing creations
 * are set to NULL so that a caller that frees them on its error path is safe.
 * Calls not in RDMACM_1.0 say their version node (see rdmacm.map).
 */

/* ------------------------------------------------------------------------ */
/* Event channels and events */

struct rdma_event_channel *rdma_create_event_channel(void)
{
	return fail_null();
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	(void)channel;
}

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	(void)channel;
	if (event)
		*event = NULL;
	return fail_minus1();
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	(void)event;
	return fail_minus1();
}

/* A pure helper: the enumerator's name, as rdma-core gives it. */
const char *rdma_event_str(enum rdma_cm_event_type event)
{
	switch (event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		return "RDMA_CM_EVENT_ADDR_RESOLVED";
	case RDMA_CM_EVENT_ADDR_ERROR:
		return "RDMA_CM_EVENT_ADDR_ERROR";
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		return "RDMA_CM_EVENT_ROUTE_RESOLVED";
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return "RDMA_CM_EVENT_ROUTE_ERROR";
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return "RDMA_CM_EVENT_CONNECT_REQUEST";
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		return "RDMA_CM_EVENT_CONNECT_RESPONSE";
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return "RDMA_CM_EVENT_CONNECT_ERROR";
	case RDMA_CM_EVENT_UNREACHABLE:
		return "RDMA_CM_EVENT_UNREACHABLE";
	case RDMA_CM_EVENT_REJECTED:
		return "RDMA_CM_EVENT_REJECTED";
	case RDMA_CM_EVENT_ESTABLISHED:
		return "RDMA_CM_EVENT_ESTABLISHED";
	case RDMA_CM_EVENT_DISCONNECTED:
		return "RDMA_CM_EVENT_DISCONNECTED";
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return "RDMA_CM_EVENT_DEVICE_REMOVAL";
	case RDMA_CM_EVENT_MULTICAST_JOIN:
		return "RDMA_CM_EVENT_MULTICAST_JOIN";
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		return "RDMA_CM_EVENT_MULTICAST_ERROR";
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return "RDMA_CM_EVENT_ADDR_CHANGE";
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return "RDMA_CM_EVENT_TIMEWAIT_EXIT";
	}
	return "UNKNOWN EVENT";
}

/* ------------------------------------------------------------------------ */
/* Communication identifiers and connections */

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps)
{
	(void)channel;
	(void)context;
	(void)ps;
	if (id)
		*id = NULL;
	return fail_minus1();
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	(void)id;
	return fail_minus1();
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	(void)res;
	(void)pd;
	(void)qp_init_attr;
	if (id)
		*id = NULL;
	return fail_minus1();
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	(void)id;
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	(void)id;
	(void)channel;
	return fail_minus1();
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	(void)id;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return fail_minus1();
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id;
	(void)addr;
	return fail_minus1();
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
		      int timeout_ms)
{
	(void)id;
	(void)src_addr;
	(void)dst_addr;
	(void)timeout_ms;
	return fail_minus1();
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void)id;
	(void)timeout_ms;
	return fail_minus1();
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id;
	(void)backlog;
	return fail_minus1();
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	(void)listen;
	if (id)
		*id = NULL;
	return fail_minus1();
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void)id;
	(void)conn_param;
	return fail_minus1();
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void)id;
	(void)conn_param;
	return fail_minus1();
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	(void)id;
	(void)private_data;
	(void)private_data_len;
	return fail_minus1();
}

/* (RDMACM_1.3) */
int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	(void)id;
	(void)private_data;
	(void)private_data_len;
	return fail_minus1();
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	(void)id;
	(void)event;
	return fail_minus1();
}

/* (RDMACM_1.2) */
int rdma_establish(struct rdma_cm_id *id)
{
	(void)id;
	return fail_minus1();
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	(void)id;
	return fail_minus1();
}

/* (RDMACM_1.2) */
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	(void)id;
	(void)qp_attr;
	(void)qp_attr_mask;
	return fail_minus1();
}

/* (RDMACM_1.3) */
int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id;
	(void)ece;
	return fail_minus1();
}

/* (RDMACM_1.3) */
int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id;
	(void)ece;
	return fail_minus1();
}

/* No rdma_cm_id can exist, so none is bound: 0, as documented. */
__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	(void)id;
	return 0;
}

/* No rdma_cm_id can exist, so none is connected: 0, as documented. */
__be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	(void)id;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* QPs and SRQs on an identifier */

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	(void)id;
	(void)pd;
	(void)qp_init_attr;
	return fail_minus1();
}

int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *qp_init_attr)
{
	(void)id;
	(void)qp_init_attr;
	return fail_minus1();
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	(void)id;
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	(void)id;
	(void)pd;
	(void)attr;
	return fail_minus1();
}

int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
	(void)id;
	(void)attr;
	return fail_minus1();
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
	(void)id;
}

/* ------------------------------------------------------------------------ */
/* Multicast */

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	(void)id;
	(void)addr;
	(void)context;
	return fail_minus1();
}

/* (RDMACM_1.1) */
int rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr,
			   void *context)
{
	(void)id;
	(void)mc_join_attr;
	(void)context;
	return fail_minus1();
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id;
	(void)addr;
	return fail_minus1();
}

/* ------------------------------------------------------------------------ */
/* Devices and address resolution */

/* NULL with errno, as documented; *num_devices is 0 for callers that read it anyway. */
struct ibv_context **rdma_get_devices(int *num_devices)
{
	if (num_devices)
		*num_devices = 0;
	return fail_null();
}

void rdma_free_devices(struct ibv_context **list)
{
	(void)list;
}

/* The -1-and-errno failure, not an EAI_ code: there is no device to resolve to. */
int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	(void)node;
	(void)service;
	(void)hints;
	if (res)
		*res = NULL;
	return fail_minus1();
}

/* rdma_getaddrinfo() never returns a list, so there is nothing to free (NULL included). */
void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	(void)res;
}

/* ------------------------------------------------------------------------ */
/* rsockets: -1 with errno, like the socket calls they stand for */

int rsocket(int domain, int type, int protocol)
{
	(void)domain;
	(void)type;
	(void)protocol;
	return fail_minus1();
}

int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return fail_minus1();
}

int rlisten(int socket, int backlog)
{
	(void)socket;
	(void)backlog;
	return fail_minus1();
}

int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return fail_minus1();
}

int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return fail_minus1();
}

int rshutdown(int socket, int how)
{
	(void)socket;
	(void)how;
	return fail_minus1();
}

int rclose(int socket)
{
	(void)socket;
	return fail_minus1();
}

ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)flags;
	return fail_minus1();
}

ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags, struct sockaddr *src_addr,
		  socklen_t *addrlen)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)flags;
	(void)src_addr;
	(void)addrlen;
	return fail_minus1();
}

ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	(void)socket;
	(void)msg;
	(void)flags;
	return fail_minus1();
}

ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)flags;
	return fail_minus1();
}

ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
		const struct sockaddr *dest_addr, socklen_t addrlen)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)flags;
	(void)dest_addr;
	(void)addrlen;
	return fail_minus1();
}

ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	(void)socket;
	(void)msg;
	(void)flags;
	return fail_minus1();
}

ssize_t rread(int socket, void *buf, size_t count)
{
	(void)socket;
	(void)buf;
	(void)count;
	return fail_minus1();
}

ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket;
	(void)iov;
	(void)iovcnt;
	return fail_minus1();
}

ssize_t rwrite(int socket, const void *buf, size_t count)
{
	(void)socket;
	(void)buf;
	(void)count;
	return fail_minus1();
}

ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket;
	(void)iov;
	(void)iovcnt;
	return fail_minus1();
}

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	(void)fds;
	(void)nfds;
	(void)timeout;
	return fail_minus1();
}

int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout)
{
	(void)nfds;
	(void)readfds;
	(void)writefds;
	(void)exceptfds;
	(void)timeout;
	return fail_minus1();
}

int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return fail_minus1();
}

int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return fail_minus1();
}

int rsetsockopt(int socket, int level, int optname, const void *optval, socklen_t optlen)
{
	(void)socket;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return fail_minus1();
}

int rgetsockopt(int socket, int level, int optname, void *optval, socklen_t *optlen)
{
	(void)socket;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return fail_minus1();
}

/* The variadic argument is not read: the call fails before it would be. */
int rfcntl(int socket, int cmd, ...)
{
	(void)socket;
	(void)cmd;
	return fail_minus1();
}

off_t riomap(int socket, void *buf, size_t len, int prot, int flags, off_t offset)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)prot;
	(void)flags;
	(void)offset;
	return fail_minus1();
}

int riounmap(int socket, void *buf, size_t len)
{
	(void)socket;
	(void)buf;
	(void)len;
	return fail_minus1();
}

/* Returns size_t: its failure is (size_t)-1 with errno, as rdma-core's. */
size_t riowrite(int socket, const void *buf, size_t count, off_t offset, int flags)
{
	(void)socket;
	(void)buf;
	(void)count;
	(void)offset;
	(void)flags;
	errno = ENODEV;
	return (size_t)-1;
}
