/* SPDX-License-Identifier: MIT */
/*
 * What the drop-in librdmacm does not provide, with the errors rdma-core's
 * would give on a device without it: multicast (a wqe device has no
 * multicast groups: no subnet manager, no IGMP), ECE (no vendor options
 * to negotiate) and rsockets (-1 with errno ENODEV, as the socket calls
 * they stand for). Each is listed in docs/rdma-cm.md.
 */
#include <errno.h>
#include <stddef.h>

#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

static int fail_minus1(void)
{
	errno = ENODEV;
	return -1;
}

static int unsupported(void)
{
	errno = EOPNOTSUPP;
	return -1;
}

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	(void)id;
	(void)addr;
	(void)context;
	return unsupported();
}

/* (RDMACM_1.1) */
int rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr,
			   void *context)
{
	(void)id;
	(void)mc_join_attr;
	(void)context;
	return unsupported();
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id;
	(void)addr;
	return unsupported();
}

/* (RDMACM_1.3) */
int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id;
	(void)ece;
	return unsupported();
}

/* (RDMACM_1.3) */
int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id;
	(void)ece;
	return unsupported();
}

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
