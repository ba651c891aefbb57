/* SPDX-License-Identifier: MIT */
/*
 * check_symbols.sh's probe of the stand-ins: run with them on
 * LD_LIBRARY_PATH, it calls a few functions of each library and checks the
 * "not this vendor's device" answers. Silent and exit 0 when all hold; each
 * failure is one line on stderr. With --event-str it prints rdma_event_str()
 * for a range of values instead, so that the script can diff the stand-in's
 * strings against Debian's librdmacm.
 */
#define _GNU_SOURCE /* dlvsym */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <infiniband/efadv.h>
#include <infiniband/mlx5dv.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "probe: %s\n", what);
		failures++;
	}
}

static void probe_mlx5(void)
{
	struct mlx5dv_context dv;
	struct mlx5dv_obj obj;
	int (*init_obj_1_0)(struct mlx5dv_obj *, uint64_t);
	void *self, *sym;

	memset(&dv, 0, sizeof(dv));
	memset(&obj, 0, sizeof(obj));
	check(!mlx5dv_is_supported(NULL), "mlx5dv_is_supported(NULL) is true");
	errno = 0;
	check(mlx5dv_open_device(NULL, NULL) == NULL && errno == EOPNOTSUPP,
	      "mlx5dv_open_device: not NULL with EOPNOTSUPP");
	check(mlx5dv_query_device(NULL, &dv) == EOPNOTSUPP, "mlx5dv_query_device: not EOPNOTSUPP");
	check(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP) == EOPNOTSUPP,
	      "mlx5dv_init_obj@@MLX5_1.2: not EOPNOTSUPP");
	errno = 0;
	check(mlx5dv_create_qp(NULL, NULL, NULL) == NULL && errno == EOPNOTSUPP,
	      "mlx5dv_create_qp: not NULL with EOPNOTSUPP");
	check(mlx5dv_qp_cancel_posted_send_wrs(NULL, 0) == -EOPNOTSUPP,
	      "mlx5dv_qp_cancel_posted_send_wrs: not -EOPNOTSUPP");

	/* The old, non-default version is reachable only by dlvsym. */
	self = dlopen("libmlx5.so.1", RTLD_NOW | RTLD_NOLOAD);
	check(self != NULL, "libmlx5.so.1 is not loaded");
	if (!self)
		return;
	sym = dlvsym(self, "mlx5dv_init_obj", "MLX5_1.0");
	memcpy(&init_obj_1_0, &sym, sizeof(sym)); /* object to function pointer */
	check(init_obj_1_0 != NULL, "no mlx5dv_init_obj@MLX5_1.0");
	if (init_obj_1_0)
		check(init_obj_1_0(&obj, MLX5DV_OBJ_QP) == EOPNOTSUPP,
		      "mlx5dv_init_obj@MLX5_1.0: not EOPNOTSUPP");
	dlclose(self);
}

static void probe_efa(void)
{
	struct efadv_device_attr attr;

	memset(&attr, 0, sizeof(attr));
	check(efadv_query_device(NULL, &attr, (uint32_t)sizeof(attr)) == EOPNOTSUPP,
	      "efadv_query_device: not EOPNOTSUPP");
	errno = 0;
	check(efadv_create_qp_ex(NULL, NULL, NULL, 0) == NULL && errno == EOPNOTSUPP,
	      "efadv_create_qp_ex: not NULL with EOPNOTSUPP");
}

/* The drop-in librdmacm with no device (WQE_IBV_LOCAL unset): IDs and
 * channels work, anything that needs a device fails as documented. */
static void probe_rdmacm(void)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	struct rdma_addrinfo *res = NULL;
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
	int n = -1;
	struct ibv_context **devs;

	ch = rdma_create_event_channel();
	check(ch != NULL && ch->fd >= 0, "rdma_create_event_channel: no channel");
	check(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0 && id != NULL,
	      "rdma_create_id: not 0 with an id");
	errno = 0;
	check(id && rdma_bind_addr(id, (struct sockaddr *)&sin) == -1 && errno == EADDRNOTAVAIL,
	      "rdma_bind_addr(127.0.0.1) with no device: not -1 with EADDRNOTAVAIL");
	errno = 0;
	check(id && rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 100) == -1 &&
		  errno == ENODEV,
	      "rdma_resolve_addr with no device: not -1 with ENODEV");
	check(id && rdma_destroy_id(id) == 0, "rdma_destroy_id: not 0");
	if (ch)
		rdma_destroy_event_channel(ch);
	check(rdma_getaddrinfo("127.0.0.1", "18515", NULL, &res) == 0 && res && res->ai_dst_addr &&
		  res->ai_dst_addr->sa_family == AF_INET,
	      "rdma_getaddrinfo: no IPv4 destination");
	rdma_freeaddrinfo(res);
	rdma_freeaddrinfo(NULL);
	devs = rdma_get_devices(&n);
	check(devs && !devs[0] && n == 0, "rdma_get_devices: not an empty list");
	rdma_free_devices(devs);
	check(strcmp(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "RDMA_CM_EVENT_ESTABLISHED") == 0,
	      "rdma_event_str(RDMA_CM_EVENT_ESTABLISHED): wrong string");
	check(strcmp(rdma_event_str((enum rdma_cm_event_type)99), "UNKNOWN EVENT") == 0,
	      "rdma_event_str(99): not \"UNKNOWN EVENT\"");
	errno = 0;
	check(rsocket(AF_INET, SOCK_STREAM, 0) == -1 && errno == ENODEV,
	      "rsocket: not -1 with ENODEV");
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--event-str") == 0) {
		for (int e = -2; e < 24; e++)
			printf("%d %s\n", e, rdma_event_str((enum rdma_cm_event_type)e));
		return 0;
	}
	probe_mlx5();
	probe_efa();
	probe_rdmacm();
	return failures ? 1 : 0;
}
