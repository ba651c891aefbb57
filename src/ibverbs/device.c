/* SPDX-License-Identifier: MIT */
/*
 * The drop-in's devices: one per address of WQE_IBV_LOCAL, each a wqe
 * context with its NIC on a thread and a UDP link on port 4791 of that
 * address; the device list, opening and closing, and the queries.
 */
#define _GNU_SOURCE /* IP_MTU, struct ifreq, getifaddrs() */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ibverbs/ibv_int.h"
#include "wqe/wire.h"

#undef ibv_get_device_list
#undef ibv_query_port

#define WI_MAX_DEVICES 8

pthread_mutex_t wi_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static struct wi_device table[WI_MAX_DEVICES];
static int ndevices;
static enum wqe_format table_format = WQE_FORMAT_MLX5;
static int table_ipv4_rx = WQE_UDP_IPV4_AUTO; /* WQE_IBV_IPV4_RX */
static struct wqe_fault_cfg table_fault; /* WQE_IBV_FAULT */
static bool table_faulty;

/* A random first QPN for each device a process opens, as QPNs on a
 * kernel device differ between processes. From the MAC alone, a program
 * run again on the same address got the QPNs of its last run, and a peer
 * still holding the old connection (the kernel's ib_cm, or wqe's) refused
 * every new REQ as a stale connection (REJ 10). 256 to 0x7fff00: room
 * above for millions of QPs. */
static uint32_t qpn_base(void)
{
	uint32_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint32_t)ts.tv_nsec * 2654435761u ^ (uint32_t)getpid();
	}
	return 0x100u + r % (0x7fff00u - 0x100u);
}

/* The MTU of the interface that holds @ss (what rxe takes from its
 * netdev); for an address no interface holds (127.0.0.2 and the rest of
 * 127/8, which Linux answers on lo), the route's: a UDP socket connected
 * to it, IP_MTU. 0 if unknown. */
static unsigned if_mtu_of(const struct sockaddr_storage *ss)
{
	socklen_t len = ss->ss_family == AF_INET ? sizeof(struct sockaddr_in)
						 : sizeof(struct sockaddr_in6);
	struct sockaddr_storage to = *ss;
	struct ifaddrs *ifs = NULL;
	int fd = socket(ss->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), mtu = 0;
	socklen_t ml = sizeof(mtu);

	if (fd < 0)
		return 0;
	if (!getifaddrs(&ifs)) {
		for (struct ifaddrs *i = ifs; i && !mtu; i = i->ifa_next) {
			struct ifreq r;

			if (!i->ifa_addr || i->ifa_addr->sa_family != ss->ss_family ||
			    (ss->ss_family == AF_INET &&
			     memcmp(&((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr,
				    &((const struct sockaddr_in *)(const void *)ss)->sin_addr, 4)) ||
			    (ss->ss_family == AF_INET6 &&
			     memcmp(&((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr,
				    &((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr, 16)))
				continue;
			memset(&r, 0, sizeof(r));
			snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", i->ifa_name);
			if (!ioctl(fd, SIOCGIFMTU, &r) && r.ifr_mtu > 0)
				mtu = r.ifr_mtu;
		}
		freeifaddrs(ifs);
	}
	((struct sockaddr_in *)(void *)&to)->sin_port = htons(WQE_ROCEV2_PORT);
	if (!mtu && (connect(fd, (struct sockaddr *)&to, len) ||
		     getsockopt(fd, ss->ss_family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6,
				ss->ss_family == AF_INET ? IP_MTU : IPV6_MTU, &mtu, &ml)))
		mtu = 0;
	close(fd);
	return mtu > 0 ? (unsigned)mtu : 0;
}

/* As rxe: the largest IB MTU that fits the interface's with the RoCEv2
 * headers (IP, UDP, BTH and the rest, ICRC). */
static enum ibv_mtu mtu_for(unsigned if_mtu)
{
	static const enum ibv_mtu m[] = {IBV_MTU_4096, IBV_MTU_2048, IBV_MTU_1024, IBV_MTU_512};
	const unsigned overhead = 40 + 8 + 12 + 16 + 4 + 4; /* IPv6 worst case, as rxe */

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (if_mtu >= (128u << m[i]) + overhead)
			return m[i];
	return IBV_MTU_256;
}

static int add_device(const char *a)
{
	struct wi_device *d = &table[ndevices];
	struct sockaddr_storage ss;
	struct in6_addr a6;
	struct in_addr a4;

	memset(&ss, 0, sizeof(ss));
	memset(d->gid.raw, 0, 16);
	if (inet_pton(AF_INET, a, &a4) == 1) {
		d->gid.raw[10] = d->gid.raw[11] = 0xff;
		memcpy(d->gid.raw + 12, &a4, 4);
		ss.ss_family = AF_INET;
		((struct sockaddr_in *)(void *)&ss)->sin_addr = a4;
	} else if (inet_pton(AF_INET6, a, &a6) == 1) {
		memcpy(d->gid.raw, &a6, 16);
		ss.ss_family = AF_INET6;
		((struct sockaddr_in6 *)(void *)&ss)->sin6_addr = a6;
	} else {
		return -1;
	}
	snprintf(d->addr, sizeof(d->addr), "%s", a);
	/* A locally administered MAC and an EUI-64 GUID from the address: its
	 * four bytes for IPv4, a hash of its sixteen for IPv6, so two devices of
	 * a host differ. */
	{
		uint8_t k[4], g[8] = {0x02, 0, 0, 0xff, 0xfe, 0, 0, 0};
		uint32_t h = 2166136261u; /* FNV-1a */

		for (int i = 0; i < 16; i++)
			h = (h ^ d->gid.raw[i]) * 16777619u;
		if (ss.ss_family == AF_INET)
			memcpy(k, d->gid.raw + 12, 4);
		else
			memcpy(k, &h, 4);
		d->mac[0] = 0x02;
		d->mac[1] = 0x00;
		memcpy(d->mac + 2, k, 4);
		g[2] = k[0];
		memcpy(g + 5, k + 1, 3);
		memcpy(&d->guid, g, 8);
	}
	d->active_mtu = mtu_for(if_mtu_of(&ss));
	d->index = ndevices;
	d->dev.node_type = IBV_NODE_CA;
	d->dev.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->dev.name, sizeof(d->dev.name), "wqe%d", ndevices);
	snprintf(d->dev.dev_name, sizeof(d->dev.dev_name), "uverbs%d", ndevices);
	snprintf(d->dev.dev_path, sizeof(d->dev.dev_path), "/sys/class/infiniband_verbs/uverbs%d",
		 ndevices);
	snprintf(d->dev.ibdev_path, sizeof(d->dev.ibdev_path), "/sys/class/infiniband/wqe%d",
		 ndevices);
	ndevices++;
	return 0;
}

/* WQE_IBV_LOCAL: addresses separated by commas or spaces; WQE_IBV_FORMAT:
 * mlx5 (default) or rxe; WQE_IBV_IPV4_RX: auto (default), raw, search or
 * assume (wqe_udp_cfg.ipv4_rx); WQE_IBV_FAULT: faults on the frames each
 * device sends. A bad value is said once on stderr and gives no device at
 * all (not a partial list). */
static void table_init(void)
{
	const char *env = getenv("WQE_IBV_LOCAL"), *fmt = getenv("WQE_IBV_FORMAT");
	const char *rx = getenv("WQE_IBV_IPV4_RX");
	char buf[1024], *save = NULL;
	int faulty;

	if (fmt && strcmp(fmt, "mlx5") && strcmp(fmt, "rxe")) {
		fprintf(stderr, "wqe: WQE_IBV_FORMAT must be mlx5 or rxe\n");
		return;
	}
	if (rx && wqe_udp_ipv4_rx_parse(rx) < 0) {
		fprintf(stderr, "wqe: WQE_IBV_IPV4_RX must be auto, raw, search or assume\n");
		return;
	}
	table_ipv4_rx = rx ? wqe_udp_ipv4_rx_parse(rx) : WQE_UDP_IPV4_AUTO;
	if (fmt && !strcmp(fmt, "rxe"))
		table_format = WQE_FORMAT_RXE;
	faulty = wi_fault_from_env(&table_fault);
	if (faulty < 0)
		return;
	table_faulty = faulty > 0;
	if (!env)
		return;
	if (strlen(env) >= sizeof(buf)) {
		fprintf(stderr, "wqe: WQE_IBV_LOCAL is too long\n");
		return;
	}
	memcpy(buf, env, strlen(env) + 1);
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		if (ndevices == WI_MAX_DEVICES) {
			fprintf(stderr, "wqe: WQE_IBV_LOCAL: at most %d addresses\n",
				WI_MAX_DEVICES);
			ndevices = 0;
			return;
		}
		if (add_device(t)) {
			fprintf(stderr, "wqe: WQE_IBV_LOCAL: not an IPv4 or IPv6 address\n");
			ndevices = 0;
			return;
		}
	}
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **l;

	pthread_once(&table_once, table_init);
	l = calloc((size_t)ndevices + 1, sizeof(*l));
	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < ndevices; i++)
		l[i] = &table[i].dev;
	if (num_devices)
		*num_devices = ndevices;
	return l;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

static struct wi_device *dev_of(struct ibv_device *d)
{
	for (int i = 0; i < ndevices; i++)
		if (d == &table[i].dev)
			return &table[i];
	return NULL;
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device ? device->name : NULL;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	struct wi_device *d = dev_of(device);

	return d ? d->guid : 0;
}

int ibv_get_device_index(struct ibv_device *device)
{
	struct wi_device *d = dev_of(device);

	return d ? d->index : -1;
}

/* The first open of a device makes its wqe context and link. */
static int dev_up(struct wi_device *d)
{
	struct wqe_context_attr a;
	struct wqe_udp_cfg u = {.local = d->addr};
	const char *pcap = getenv("WQE_IBV_PCAP");
	int err;

	if (d->opens++)
		return 0;
	/* wqe_open_context() would take WQE_NIC_MODE over the attribute: the
	 * drop-in's devices run their NIC on a thread, as hardware does. */
	if (getenv("WQE_NIC_MODE") && strcmp(getenv("WQE_NIC_MODE"), "thread")) {
		fprintf(stderr, "wqe: WQE_NIC_MODE=%s: the drop-in's NIC runs on a thread; unset it\n",
			getenv("WQE_NIC_MODE"));
		d->opens = 0;
		return EINVAL;
	}
	memset(&a, 0, sizeof(a));
	a.format = table_format;
	a.checks = WQE_CHECKS_AT_POST;
	memcpy(a.mac, d->mac, 6);
	a.num_gids = 1;
	a.gid[0] = d->gid;
	a.num_pkeys = 1;
	a.pkey[0] = 0xffff;
	a.nic_mode = WQE_NIC_THREAD;
	a.qpn_base = qpn_base();
	u.ipv4_rx = table_ipv4_rx;
	d->w = wqe_open_context(&a);
	if (!d->w)
		goto fail;
	d->link = wqe_link_udp_create(&u);
	if (!d->link)
		goto fail;
	if (table_faulty && !(d->fault = wqe_link_fault_create(d->link, &table_fault)))
		goto fail;
	err = wqe_context_attach_link(d->w, d->fault ? d->fault : d->link);
	if (!err && pcap && *pcap) {
		char path[4096];

		/* wqe0 writes the file named; wqeN (N > 0) that name and ".N" */
		if (d->index)
			snprintf(path, sizeof(path), "%s.%d", pcap, d->index);
		else
			snprintf(path, sizeof(path), "%s", pcap);
		err = wqe_context_set_pcap(d->w, path);
	}
	if (err) {
		errno = err;
		goto fail;
	}
	return 0;
fail:
	err = errno;
	if (d->w)
		wqe_close_context(d->w);
	if (d->fault)
		wqe_link_destroy(d->fault);
	if (d->link)
		wqe_link_destroy(d->link);
	d->w = NULL;
	d->link = d->fault = NULL;
	d->opens = 0;
	return err;
}

static void dev_down(struct wi_device *d)
{
	if (--d->opens)
		return;
	wqe_context_set_pcap(d->w, NULL);
	wqe_close_context(d->w);
	if (d->fault)
		wqe_link_destroy(d->fault);
	wqe_link_destroy(d->link);
	d->w = NULL;
	d->link = d->fault = NULL;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct wi_device *d = dev_of(device);
	struct wi_context *c;
	int err;

	if (!d) {
		errno = ENODEV;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&wi_lock);
	err = dev_up(d);
	pthread_mutex_unlock(&wi_lock);
	if (err) {
		free(c);
		errno = err;
		return NULL;
	}
	c->dev = d;
	pthread_mutex_init(&c->lock, NULL);
	c->objs.next = c->objs.prev = &c->objs;
	c->vctx.context.device = device;
	c->vctx.context.cmd_fd = -1;
	c->vctx.context.async_fd = wqe_context_async_fd(d->w);
	c->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&c->vctx.context.mutex, NULL);
	c->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	c->vctx.sz = sizeof(c->vctx);
	wi_fill_ops(c);
	return &c->vctx.context;
}

int ibv_close_device(struct ibv_context *context)
{
	struct wi_context *c;

	if (!context)
		return EINVAL;
	c = wi_ctx(context);
	/* What the program left is freed, users before what they use, as the
	 * kernel does when libibverbs closes the command fd. */
	for (int k = 0; k < WI_KINDS; k++) {
		struct wi_obj *o = c->objs.next, *next;

		for (; o != &c->objs; o = next) {
			next = o->next;
			if (o->kind == (enum wi_kind)k)
				wi_destroy_obj(o, true);
		}
	}
	pthread_mutex_lock(&wi_lock);
	dev_down(c->dev);
	pthread_mutex_unlock(&wi_lock);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&context->mutex);
	free(c);
	return 0;
}

void wi_obj_add(struct wi_context *c, struct wi_obj *o, enum wi_kind kind)
{
	o->kind = kind;
	pthread_mutex_lock(&c->lock);
	o->next = &c->objs;
	o->prev = c->objs.prev;
	c->objs.prev->next = o;
	c->objs.prev = o;
	pthread_mutex_unlock(&c->lock);
}

void wi_obj_del(struct wi_context *c, struct wi_obj *o)
{
	pthread_mutex_lock(&c->lock);
	o->prev->next = o->next;
	o->next->prev = o->prev;
	pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------------------------ */
/* Device and port attributes: what a RoCE device reports.                  */

static void fill_device_attr(struct wi_device *d, struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "wqe-0.1.0");
	a->node_guid = d->guid;
	a->sys_image_guid = d->guid;
	a->max_mr_size = 1ull << 32;
	a->page_size_cap = 4096;
	a->vendor_id = 0;
	a->vendor_part_id = 0;
	a->hw_ver = 0;
	a->max_qp = 16384;
	a->max_qp_wr = 32768;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_SHUTDOWN_PORT |
			      IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID;
	a->max_sge = 32;
	a->max_sge_rd = 32;
	a->max_cq = 16384;
	a->max_cqe = 65536;
	a->max_mr = 65536;
	a->max_pd = 65536;
	a->max_qp_rd_atom = 16;
	a->max_ee_rd_atom = 0;
	a->max_res_rd_atom = 16 * 16384;
	a->max_qp_init_rd_atom = 16;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_ah = 65536;
	a->max_srq = 1024;         /* wqe_create_srq()'s limits */
	a->max_srq_wr = 32767;
	a->max_srq_sge = 32;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
}

static int wi_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	if (!context || !attr)
		return EINVAL;
	fill_device_attr(wi_ctx(context)->dev, attr);
	return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	return wi_query_device(context, device_attr);
}

int wi_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;

	if (!context || !attr || (input && input->comp_mask) ||
	    attr_size < offsetof(struct ibv_device_attr_ex, comp_mask) + sizeof(a.comp_mask))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	fill_device_attr(wi_ctx(context)->dev, &a.orig_attr);
	a.device_cap_flags_ex = a.orig_attr.device_cap_flags;
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

static void fill_port_attr(struct wi_device *d, struct ibv_port_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = d->active_mtu;
	a->gid_tbl_len = 1;
	a->port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_DEVICE_MGMT_SUP | IBV_PORT_VENDOR_CLASS_SUP;
	a->max_msg_sz = 1u << 31;
	a->pkey_tbl_len = 1;
	a->lid = 0;
	a->sm_lid = 0;
	a->lmc = 0;
	a->max_vl_num = 1;
	a->sm_sl = 0;
	a->subnet_timeout = 0;
	a->init_type_reply = 0;
	a->active_width = 2;  /* 4x */
	a->active_speed = 32; /* 25 Gb/s (EDR) lane: 100 Gb/s, as rxe reports for a fast netdev */
	a->phys_state = 5;    /* LinkUp */
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
}

int wi_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr,
		  size_t len)
{
	struct ibv_port_attr a;

	if (!context || !attr)
		return EINVAL;
	if (port_num != 1)
		return EINVAL;
	fill_port_attr(wi_ctx(context)->dev, &a);
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr)
{
	/* rdma-core's _compat_ibv_port_attr: the fields up to flags */
	return wi_query_port(context, port_num, (struct ibv_port_attr *)(void *)port_attr,
			     offsetof(struct ibv_port_attr, flags) + 1);
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	if (!context || !gid || port_num != 1 || index != 0)
		return -1;
	memcpy(gid->raw, wi_ctx(context)->dev->gid.raw, 16);
	return 0;
}

/* rdma-core's private enum (libibverbs/driver.h): the type as sysfs says it. */
enum wi_gid_type_sysfs {
	WI_GID_TYPE_SYSFS_IB_ROCE_V1,
	WI_GID_TYPE_SYSFS_ROCE_V2,
};
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
		       enum wi_gid_type_sysfs *type);

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
		       enum wi_gid_type_sysfs *type)
{
	if (!context || !type || port_num != 1 || index != 0) {
		errno = EINVAL;
		return -1;
	}
	*type = WI_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

static int gid_entry(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		     struct ibv_gid_entry *e)
{
	if (port_num != 1 || gid_index != 0)
		return ENODATA;
	memset(e, 0, sizeof(*e));
	memcpy(e->gid.raw, wi_ctx(context)->dev->gid.raw, 16);
	e->gid_index = 0;
	e->port_num = 1;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
	e->ndev_ifindex = 0;
	return 0;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	if (!context || !entry || flags || entry_size < sizeof(*entry))
		return EINVAL;
	return gid_entry(context, port_num, gid_index, entry);
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags, size_t entry_size)
{
	if (!context || !entries || flags || entry_size < sizeof(*entries))
		return -EINVAL;
	if (max_entries < 1)
		return -EINVAL;
	gid_entry(context, 1, 0, entries);
	return 1;
}

int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	if (!context || !pkey || port_num != 1 || index != 0)
		return -1;
	*pkey = htons(0xffff);
	return 0;
}

int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	if (!context || port_num != 1 || ntohs(pkey) != 0xffff)
		return -1; /* the one entry is 0xffff */
	return 0;
}

/* No sysfs: the files a program reads about a device, given from what the
 * device reports. Others do not exist (-1, as a missing file). */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	const char *val = NULL;
	char tmp[96]; /* "wqe " and an address */

	if (!dir || !file || !buf || !size)
		return -1;
	for (int i = 0; i < ndevices; i++) {
		struct wi_device *d = &table[i];

		if (strcmp(dir, d->dev.ibdev_path))
			continue;
		if (!strcmp(file, "node_desc")) {
			snprintf(tmp, sizeof(tmp), "wqe %s", d->addr);
			val = tmp;
		} else if (!strcmp(file, "fw_ver")) {
			val = "wqe-0.1.0";
		} else if (!strcmp(file, "board_id")) {
			val = "wqe";
		}
	}
	if (!val)
		return -1;
	/* as rdma-core: the file's text without its newline */
	snprintf(buf, size, "%s", val);
	return (int)strlen(buf);
}

const char *ibv_get_sysfs_path(void)
{
	return "/sys";
}
