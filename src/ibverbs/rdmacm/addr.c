/* SPDX-License-Identifier: MIT */
/*
 * Addresses: binding an ID to a device and a port, resolving a peer's IP
 * address to its GID and a route (what the kernel's rdma_cm gets from the
 * neighbour table and the routing table for RoCE), rdma_getaddrinfo() and
 * the ID options.
 *
 * A wqe device is its address (WQE_IBV_LOCAL): an ID bound to an address
 * is on the device that has it. An active ID with no source takes the one
 * the host's routing table picks for the destination; if no device has
 * that address (a route over lo picks 127.0.0.1), the first device of the
 * destination's family.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibverbs/rdmacm/ucm_int.h"

socklen_t ucm_addrlen(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	return sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
	       : sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					   : 0;
}

uint16_t ucm_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
	return 0;
}

void ucm_set_port(struct sockaddr *sa, uint16_t port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)(void *)sa)->sin_port = htons(port);
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)(void *)sa)->sin6_port = htons(port);
}

/* The RoCEv2 GID of an address: IPv4-mapped, or the IPv6 address. */
void ucm_gid_of(const struct sockaddr *sa, union ibv_gid *gid)
{
	memset(gid->raw, 0, 16);
	if (sa->sa_family == AF_INET) {
		gid->raw[10] = gid->raw[11] = 0xff;
		memcpy(gid->raw + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(gid->raw, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
	}
}

void ucm_addr_of_gid(const union wqe_gid *gid, uint16_t port, struct sockaddr_storage *ss)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	memset(ss, 0, sizeof(*ss));
	if (!memcmp(gid->raw, mapped, 12)) {
		struct sockaddr_in *s = (struct sockaddr_in *)(void *)ss;

		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, gid->raw + 12, 4);
		s->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)(void *)ss;

		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, gid->raw, 16);
		s->sin6_port = htons(port);
	}
}

bool ucm_is_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr == INADDR_ANY;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
	return false;
}

static bool same_ip(const struct sockaddr *a, const struct sockaddr *b)
{
	union ibv_gid x, y;

	ucm_gid_of(a, &x);
	ucm_gid_of(b, &y);
	return !memcmp(x.raw, y.raw, 16);
}

extern struct ucm_id *ucm_ids;

/* Whether @u may hold @port of its port space on @sa, as the kernel's
 * cma_check_port(): each other ID bound there, unless both are reusable
 * (@reuse and its REUSEADDR; a listener's is cleared) or AFONLY of other
 * families, is EADDRNOTAVAIL where either address is a wildcard and
 * EADDRINUSE where they are the same. Under ucm_lock. 0 or an errno. */
int ucm_port_check(struct ucm_id *u, const struct sockaddr *sa, uint16_t port, bool reuse)
{
	for (struct ucm_id *o = ucm_ids; o; o = o->next) {
		const struct sockaddr *os = &o->id.route.addr.src_addr;

		if (o == u || !o->bound || o->id.ps != u->id.ps || ucm_port(os) != port)
			continue;
		if (reuse && o->reuseaddr)
			continue;
		if (u->afonly && o->afonly && os->sa_family != sa->sa_family)
			continue;
		if (o->wildcard || ucm_is_any(sa))
			return EADDRNOTAVAIL;
		if (same_ip(os, sa))
			return EADDRINUSE;
	}
	return 0;
}

/* Binds @u to @sa (its port, or an ephemeral one for port 0) and, unless
 * it is a wildcard, to the device with that address. Under ucm_lock.
 * 0 or an errno. */
int ucm_reserve_port(struct ucm_id *u, struct sockaddr *sa)
{
	struct sockaddr_storage ss;
	uint16_t port = ucm_port(sa);
	struct ucm_dev *d = NULL;
	socklen_t len = ucm_addrlen(sa);

	if (!len)
		return EAFNOSUPPORT;
	if (!ucm_is_any(sa) && !(d = ucm_dev_by_addr(sa)))
		return EADDRNOTAVAIL;
	if (port) {
		int err = ucm_port_check(u, sa, port, u->reuseaddr);

		if (err)
			return err;
	} else {
		/* the kernel's ephemeral range, from a random start */
		const uint32_t lo = 32768, n = 60999 - 32768 + 1;
		uint32_t start = ucm_random() % n, k;

		for (k = 0; k < n; k++) {
			port = (uint16_t)(lo + (start + k) % n);
			if (!ucm_port_check(u, sa, port, u->reuseaddr))
				break;
		}
		if (k == n)
			return EADDRINUSE;
	}
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, sa, len);
	ucm_set_port((struct sockaddr *)&ss, port);
	memcpy(&u->id.route.addr.src_storage, &ss, sizeof(ss));
	u->bound = true;
	u->wildcard = d == NULL;
	if (d)
		ucm_bind_dev(u, d);
	return 0;
}

/* A UDP socket connected to @dst (port 4791): the route the kernel's
 * RoCE stack would take. -1 if there is none. */
static int route_socket(const struct sockaddr *dst)
{
	struct sockaddr_storage to;
	int fd = socket(dst->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&to, 0, sizeof(to));
	memcpy(&to, dst, ucm_addrlen(dst));
	ucm_set_port((struct sockaddr *)&to, 4791);
	if (connect(fd, (struct sockaddr *)&to, ucm_addrlen(dst))) {
		close(fd);
		return -1;
	}
	return fd;
}

int ucm_route_hop_limit(const struct sockaddr *dst)
{
	int fd = route_socket(dst), v = 64;
	socklen_t l = sizeof(v);

	if (fd < 0)
		return 64;
	if (dst->sa_family == AF_INET6)
		(void)getsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &v, &l);
	else
		(void)getsockopt(fd, IPPROTO_IP, IP_TTL, &v, &l);
	close(fd);
	return v > 0 && v < 256 ? v : 64;
}

/* The path MTU: the device's, or less if the route's interface MTU is
 * smaller (the IB MTU that fits with the RoCEv2 headers, as rxe). */
enum ibv_mtu ucm_route_mtu(const struct sockaddr *dst, enum ibv_mtu dev_mtu)
{
	int fd = route_socket(dst), mtu = 0;
	socklen_t l = sizeof(mtu);
	enum ibv_mtu m = dev_mtu;

	if (fd < 0)
		return dev_mtu;
	if (getsockopt(fd, dst->sa_family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       dst->sa_family == AF_INET6 ? IPV6_MTU : IP_MTU, &mtu, &l))
		mtu = 0;
	close(fd);
	while (mtu > 0 && m > IBV_MTU_256 && (128 << m) + 40 + 8 + 12 + 16 + 4 + 4 > mtu)
		m = (enum ibv_mtu)(m - 1);
	return m;
}

/* The device a route to @dst leaves from. Under ucm_lock. */
static struct ucm_dev *dev_for_route(const struct sockaddr *dst)
{
	struct ucm_dev *l[UCM_MAX_DEVS], *d = NULL;
	struct sockaddr_storage src;
	socklen_t sl = sizeof(src);
	int fd = route_socket(dst), n;

	if (fd >= 0) {
		if (!getsockname(fd, (struct sockaddr *)&src, &sl))
			d = ucm_dev_by_addr((struct sockaddr *)&src);
		close(fd);
		if (d)
			return d;
	}
	n = ucm_devices(l);
	for (int i = 0; i < n; i++)
		if (l[i]->addr.ss_family == dst->sa_family)
			return l[i];
	return NULL;
}

/* ------------------------------------------------------------------------ */

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct ucm_id *u = ucm_of(id);
	int err;

	if (!id || !addr)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	if (u->bound || u->state != UCM_IDLE)
		err = EINVAL;
	else
		err = ucm_reserve_port(u, addr);
	if (!err)
		u->state = UCM_ADDR_BOUND;
	pthread_mutex_unlock(&ucm_lock);
	return err ? ucm_err(err) : 0;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
		      int timeout_ms)
{
	struct ucm_id *u = ucm_of(id);
	struct ucm_dev *d;
	int err = 0;

	(void)timeout_ms; /* resolved at once: no neighbour to wait for */
	if (!id || !dst_addr || !ucm_addrlen(dst_addr) || ucm_is_any(dst_addr))
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	if (u->state != UCM_IDLE && u->state != UCM_ADDR_BOUND) {
		pthread_mutex_unlock(&ucm_lock);
		return ucm_err(EINVAL);
	}
	if (!u->bound && src_addr && ucm_addrlen(src_addr))
		err = ucm_reserve_port(u, src_addr);
	if (!err && (!u->bound || u->wildcard)) {
		struct sockaddr_storage s;
		uint16_t port = u->bound ? ucm_port(&id->route.addr.src_addr) : 0;

		d = dev_for_route(dst_addr);
		if (!d) {
			err = ENODEV;
		} else {
			memcpy(&s, &d->addr, sizeof(s));
			ucm_set_port((struct sockaddr *)&s, port);
			u->bound = false;
			err = ucm_reserve_port(u, (struct sockaddr *)&s);
		}
	}
	if (!err && id->route.addr.src_addr.sa_family != dst_addr->sa_family)
		err = EAFNOSUPPORT;
	if (err) {
		pthread_mutex_unlock(&ucm_lock);
		return ucm_err(err);
	}
	memset(&id->route.addr.dst_storage, 0, sizeof(id->route.addr.dst_storage));
	memcpy(&id->route.addr.dst_storage, dst_addr, ucm_addrlen(dst_addr));
	ucm_gid_of(dst_addr, &id->route.addr.addr.ibaddr.dgid);
	memcpy(id->route.addr.addr.ibaddr.sgid.raw, u->dev->gid.raw, 16);
	id->route.addr.addr.ibaddr.pkey = htons(0xffff);
	u->state = UCM_ADDR_RESOLVED;
	ucm_queue(u, u, NULL, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0, NULL, NULL);
	pthread_mutex_unlock(&ucm_lock);
	return ucm_complete(u);
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct ucm_id *u = ucm_of(id);
	struct ibv_sa_path_rec *p;
	const struct sockaddr *dst;

	(void)timeout_ms;
	if (!id)
		return ucm_err(EINVAL);
	pthread_mutex_lock(&ucm_lock);
	/* the kernel's: from ADDR_RESOLVED only (once resolved, EINVAL) */
	if (u->state != UCM_ADDR_RESOLVED) {
		pthread_mutex_unlock(&ucm_lock);
		return ucm_err(EINVAL);
	}
	dst = &id->route.addr.dst_addr;
	p = &u->path;
	memset(p, 0, sizeof(*p));
	p->dgid = id->route.addr.addr.ibaddr.dgid;
	p->sgid = id->route.addr.addr.ibaddr.sgid;
	p->hop_limit = (uint8_t)ucm_route_hop_limit(dst);
	p->traffic_class = u->tos;
	p->reversible = 1;
	p->numb_path = 1;
	p->pkey = htons(0xffff);
	/* the kernel's iboe_tos_to_sl(): a priority only through a VLAN or
	 * traffic classes on the netdev, which a wqe device has not */
	p->sl = 0;
	p->mtu_selector = 2; /* exactly */
	p->mtu = (uint8_t)ucm_route_mtu(dst, u->dev->mtu);
	p->rate_selector = 2;
	p->rate = 3; /* IB_RATE_10_GBPS: not used on a wqe device */
	p->packet_life_time_selector = 2;
	p->packet_life_time = UCM_PACKET_LIFETIME;
	if (u->ack_timeout_set && u->ack_timeout > 0)
		p->packet_life_time = (uint8_t)(u->ack_timeout - 1);
	id->route.path_rec = p;
	id->route.num_paths = 1;
	u->state = UCM_ROUTE_RESOLVED;
	ucm_queue(u, u, NULL, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0, NULL, NULL);
	pthread_mutex_unlock(&ucm_lock);
	return ucm_complete(u);
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return id ? htons(ucm_port(&id->route.addr.src_addr)) : 0;
}

__be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id ? htons(ucm_port(&id->route.addr.dst_addr)) : 0;
}

/* RDMA_OPTION_ID as the kernel's ucma_set_option_id() and the rdma_set_*()
 * calls it makes: a known option of the wrong size EINVAL, an unknown one
 * ENOSYS. Under ucm_lock. 0 or an errno. */
static int set_id_option(struct ucm_id *u, int optname, const void *v, size_t len)
{
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		if (len != sizeof(uint8_t))
			return EINVAL;
		u->tos = *(const uint8_t *)v;
		u->tos_set = true;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		if (len != sizeof(int))
			return EINVAL;
		/* rdma_set_reuseaddr(): set in any state but LISTEN, cleared
		 * only before a bind */
		if (*(const int *)v ? u->state == UCM_LISTEN : u->bound || u->state != UCM_IDLE)
			return EINVAL;
		u->reuseaddr = *(const int *)v != 0;
		return 0;
	case RDMA_OPTION_ID_AFONLY:
		if (len != sizeof(int))
			return EINVAL;
		/* rdma_set_afonly(): unbound or bound, not further */
		if (u->state != UCM_IDLE && u->state != UCM_ADDR_BOUND)
			return EINVAL;
		u->afonly = *(const int *)v != 0;
		return 0;
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (len != sizeof(uint8_t))
			return EINVAL;
		/* rdma_set_ack_timeout(): RC IDs only; past 31 (which the
		 * kernel takes and the QP then refuses) refused here */
		if (u->id.qp_type != IBV_QPT_RC || *(const uint8_t *)v > 31)
			return EINVAL;
		u->ack_timeout = *(const uint8_t *)v;
		u->ack_timeout_set = true;
		return 0;
	default:
		return ENOSYS;
	}
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	struct ucm_id *u = ucm_of(id);
	int err;

	if (!id)
		return ucm_err(EINVAL);
	/* The kernel copies optlen bytes from optval first (memdup_user()):
	 * a NULL optval with a length faults; with none, the option's size
	 * check refuses it. */
	if (!optval && optlen)
		return ucm_err(EFAULT);
	pthread_mutex_lock(&ucm_lock);
	if (level == RDMA_OPTION_ID)
		err = set_id_option(u, optname, optval, optlen);
	else if (level == RDMA_OPTION_IB && optname == RDMA_OPTION_IB_PATH)
		err = EOPNOTSUPP; /* no subnet administrator's path records on RoCE */
	else
		err = ENOSYS; /* ucma_set_option_level(), ucma_set_option_ib() */
	pthread_mutex_unlock(&ucm_lock);
	return err ? ucm_err(err) : 0;
}

/* ------------------------------------------------------------------------ */
/* rdma_getaddrinfo(): getaddrinfo() with the RDMA hints turned into a
 * socket type and protocol, and back (as rdma-core's addrinfo.c). */

static int copy_addr(struct sockaddr **dst, socklen_t *dst_len, const struct sockaddr *src,
		     socklen_t len)
{
	*dst = malloc(len);
	if (!*dst)
		return -1;
	memcpy(*dst, src, len);
	*dst_len = len;
	return 0;
}

int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	static const struct rdma_addrinfo none;
	struct addrinfo ah, *ai = NULL;
	struct rdma_addrinfo *r;
	int ret;

	if (!res || (!node && !service && !hints))
		return ucm_err(EINVAL);
	if (!hints)
		hints = &none;
#ifdef RAI_SA
	if (hints->ai_flags & RAI_SA)
		return ucm_err(EOPNOTSUPP); /* no subnet administrator on RoCE */
#endif
	if (hints->ai_family == AF_IB)
		return ucm_err(EAFNOSUPPORT);
	r = calloc(1, sizeof(*r));
	if (!r)
		return ucm_err(ENOMEM);
	r->ai_flags = hints->ai_flags & RAI_PASSIVE;
	r->ai_family = hints->ai_family;
	r->ai_qp_type = hints->ai_qp_type;
	r->ai_port_space = hints->ai_port_space;
	if (node || service) {
		memset(&ah, 0, sizeof(ah));
		if (hints->ai_flags & RAI_PASSIVE)
			ah.ai_flags = AI_PASSIVE;
		if (hints->ai_flags & RAI_NUMERICHOST)
			ah.ai_flags |= AI_NUMERICHOST;
		ah.ai_family = hints->ai_family;
		ah.ai_socktype = hints->ai_qp_type == IBV_QPT_UD ? SOCK_DGRAM
				 : hints->ai_qp_type		 ? SOCK_STREAM
								 : 0;
		ah.ai_protocol = hints->ai_port_space == RDMA_PS_TCP   ? IPPROTO_TCP
				 : hints->ai_port_space == RDMA_PS_UDP ? IPPROTO_UDP
								       : 0;
		ret = getaddrinfo(node, service, &ah, &ai);
		if (ret) {
			free(r);
			return ret; /* an EAI_* code, as rdma-core returns it */
		}
		if (!r->ai_qp_type)
			r->ai_qp_type = ai->ai_socktype == SOCK_DGRAM ? IBV_QPT_UD : IBV_QPT_RC;
		if (!r->ai_port_space)
			r->ai_port_space = ai->ai_protocol == IPPROTO_UDP ? RDMA_PS_UDP : RDMA_PS_TCP;
		r->ai_family = ai->ai_family;
		if (ai->ai_flags & AI_PASSIVE)
			ret = copy_addr(&r->ai_src_addr, &r->ai_src_len, ai->ai_addr, ai->ai_addrlen);
		else
			ret = copy_addr(&r->ai_dst_addr, &r->ai_dst_len, ai->ai_addr, ai->ai_addrlen);
		if (!ret && ai->ai_canonname) {
			char **cn = ai->ai_flags & AI_PASSIVE ? &r->ai_src_canonname
							      : &r->ai_dst_canonname;

			*cn = strdup(ai->ai_canonname);
		}
		freeaddrinfo(ai);
		if (ret) {
			rdma_freeaddrinfo(r);
			return ucm_err(ENOMEM);
		}
	} else if (hints->ai_dst_len && hints->ai_dst_addr &&
		   copy_addr(&r->ai_dst_addr, &r->ai_dst_len, hints->ai_dst_addr, hints->ai_dst_len)) {
		rdma_freeaddrinfo(r);
		return ucm_err(ENOMEM);
	}
	if (!r->ai_src_len && hints->ai_src_len && hints->ai_src_addr &&
	    copy_addr(&r->ai_src_addr, &r->ai_src_len, hints->ai_src_addr, hints->ai_src_len)) {
		rdma_freeaddrinfo(r);
		return ucm_err(ENOMEM);
	}
	*res = r;
	return 0;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res) {
		struct rdma_addrinfo *n = res->ai_next;

		free(res->ai_connect);
		free(res->ai_route);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res);
		res = n;
	}
}
