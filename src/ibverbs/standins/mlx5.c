/* SPDX-License-Identifier: MIT */
/*
 * Stand-in libmlx5.so.1. Debian's perftest links libmlx5 directly, and the
 * real one imports rdma-core's private provider ABI (IBVERBS_PRIVATE_34),
 * which wqe's drop-in libibverbs does not export. This library exports the
 * same symbols and versions as Debian's and answers "not this vendor's
 * device": mlx5dv_is_supported() is false and every other call fails as its
 * man page documents, with EOPNOTSUPP. It prints nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include <infiniband/mlx5dv.h>

/* Creations and look-ups that return a pointer: NULL with errno set. */
static void *fail_null(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

/*
 * Most int calls return the errno value itself (0 on success); errno is set
 * too, which costs nothing and helps a caller that reads it.
 */
static int fail_int(void)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

/*
 * The void calls (frees, destroys and setters) do nothing: this library never hands out
 * an object for them to act on. The calls come in the order of their version
 * nodes, as in mlx5.map.
 */

/* ------------------------------------------------------------------------ */
/* MLX5_1.0 */

int mlx5dv_query_device(struct ibv_context *ctx_in, struct mlx5dv_context *attrs_out)
{
	(void)ctx_in;
	(void)attrs_out;
	return fail_int();
}

/*
 * mlx5dv_init_obj has two versions, as in Debian's library: MLX5_1.0 (kept for
 * programs linked against it, not the default) and MLX5_1.2 (the default).
 * Each is defined under an internal name and bound to its version by .symver;
 * the map lists the name in both nodes and keeps the internal names local.
 * The header's prototype is the one both must have.
 */
int wqe_standin_mlx5dv_init_obj_1_0(struct mlx5dv_obj *obj, uint64_t obj_type);
int wqe_standin_mlx5dv_init_obj_1_2(struct mlx5dv_obj *obj, uint64_t obj_type);
_Static_assert(__builtin_types_compatible_p(__typeof__(&mlx5dv_init_obj),
					    __typeof__(&wqe_standin_mlx5dv_init_obj_1_0)),
	       "mlx5dv_init_obj@MLX5_1.0 has the header's prototype");
_Static_assert(__builtin_types_compatible_p(__typeof__(&mlx5dv_init_obj),
					    __typeof__(&wqe_standin_mlx5dv_init_obj_1_2)),
	       "mlx5dv_init_obj@@MLX5_1.2 has the header's prototype");
__asm__(".symver wqe_standin_mlx5dv_init_obj_1_0, mlx5dv_init_obj@MLX5_1.0");
__asm__(".symver wqe_standin_mlx5dv_init_obj_1_2, mlx5dv_init_obj@@MLX5_1.2");

int wqe_standin_mlx5dv_init_obj_1_0(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	(void)obj;
	(void)obj_type;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.1 */

struct ibv_cq_ex *mlx5dv_create_cq(struct ibv_context *context, struct ibv_cq_init_attr_ex *cq_attr,
				   struct mlx5dv_cq_init_attr *mlx5_cq_attr)
{
	(void)context;
	(void)cq_attr;
	(void)mlx5_cq_attr;
	return fail_null();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.2 */

/* mlx5dv_init_obj@@MLX5_1.2: see the MLX5_1.0 one above. */
int wqe_standin_mlx5dv_init_obj_1_2(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	(void)obj;
	(void)obj_type;
	return fail_int();
}

/* No man page; the errno value, as the other mlx5dv int calls. */
int mlx5dv_set_context_attr(struct ibv_context *context, enum mlx5dv_set_ctx_attr_type type,
			    void *attr)
{
	(void)context;
	(void)type;
	(void)attr;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.3 */

struct ibv_qp *mlx5dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_attr,
				struct mlx5dv_qp_init_attr *mlx5_qp_attr)
{
	(void)context;
	(void)qp_attr;
	(void)mlx5_qp_attr;
	return fail_null();
}

struct ibv_wq *mlx5dv_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr,
				struct mlx5dv_wq_init_attr *mlx5_wq_attr)
{
	(void)context;
	(void)wq_init_attr;
	(void)mlx5_wq_attr;
	return fail_null();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.4 */

int mlx5dv_get_clock_info(struct ibv_context *context, struct mlx5dv_clock_info *clock_info)
{
	(void)context;
	(void)clock_info;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.5 */

struct ibv_flow_action *mlx5dv_create_flow_action_esp(struct ibv_context *ctx,
						      struct ibv_flow_action_esp_attr *esp,
						      struct mlx5dv_flow_action_esp *mlx5_attr)
{
	(void)ctx;
	(void)esp;
	(void)mlx5_attr;
	return fail_null();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.6 */

struct ibv_flow *mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
				    struct mlx5dv_flow_match_parameters *match_value,
				    size_t num_actions,
				    struct mlx5dv_flow_action_attr *actions_attr)
{
	(void)matcher;
	(void)match_value;
	(void)num_actions;
	(void)actions_attr;
	return fail_null();
}

struct mlx5dv_flow_matcher *
mlx5dv_create_flow_matcher(struct ibv_context *context,
			   struct mlx5dv_flow_matcher_attr *matcher_attr)
{
	(void)context;
	(void)matcher_attr;
	return fail_null();
}

int mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	(void)matcher;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.7 */

struct ibv_flow_action *
mlx5dv_create_flow_action_modify_header(struct ibv_context *ctx, size_t actions_sz,
					uint64_t *actions,
					enum mlx5_ib_uapi_flow_table_type ft_type)
{
	(void)ctx;
	(void)actions_sz;
	(void)actions;
	(void)ft_type;
	return fail_null();
}

struct ibv_flow_action *mlx5dv_create_flow_action_packet_reformat(
    struct ibv_context *ctx, size_t data_sz, void *data,
    enum mlx5_ib_uapi_flow_action_packet_reformat_type reformat_type,
    enum mlx5_ib_uapi_flow_table_type ft_type)
{
	(void)ctx;
	(void)data_sz;
	(void)data;
	(void)reformat_type;
	(void)ft_type;
	return fail_null();
}

struct mlx5dv_devx_uar *mlx5dv_devx_alloc_uar(struct ibv_context *context, uint32_t flags)
{
	(void)context;
	(void)flags;
	return fail_null();
}

void mlx5dv_devx_free_uar(struct mlx5dv_devx_uar *devx_uar)
{
	(void)devx_uar;
}

int mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in, size_t inlen, void *out,
			    size_t outlen)
{
	(void)context;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

struct mlx5dv_devx_obj *mlx5dv_devx_obj_create(struct ibv_context *context, const void *in,
					       size_t inlen, void *out, size_t outlen)
{
	(void)context;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_null();
}

int mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	(void)obj;
	return fail_int();
}

int mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
			   size_t outlen)
{
	(void)obj;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
			  size_t outlen)
{
	(void)obj;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_query_eqn(struct ibv_context *context, uint32_t vector, uint32_t *eqn)
{
	(void)context;
	(void)vector;
	(void)eqn;
	return fail_int();
}

int mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *umem)
{
	(void)umem;
	return fail_int();
}

struct mlx5dv_devx_umem *mlx5dv_devx_umem_reg(struct ibv_context *ctx, void *addr, size_t size,
					      uint32_t access)
{
	(void)ctx;
	(void)addr;
	(void)size;
	(void)access;
	return fail_null();
}

struct ibv_context *mlx5dv_open_device(struct ibv_device *device, struct mlx5dv_context_attr *attr)
{
	(void)device;
	(void)attr;
	return fail_null();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.8 */

int mlx5dv_devx_cq_modify(struct ibv_cq *cq, const void *in, size_t inlen, void *out, size_t outlen)
{
	(void)cq;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_cq_query(struct ibv_cq *cq, const void *in, size_t inlen, void *out, size_t outlen)
{
	(void)cq;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_ind_tbl_modify(struct ibv_rwq_ind_table *ind_tbl, const void *in, size_t inlen,
			       void *out, size_t outlen)
{
	(void)ind_tbl;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_ind_tbl_query(struct ibv_rwq_ind_table *ind_tbl, const void *in, size_t inlen,
			      void *out, size_t outlen)
{
	(void)ind_tbl;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_qp_modify(struct ibv_qp *qp, const void *in, size_t inlen, void *out, size_t outlen)
{
	(void)qp;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_qp_query(struct ibv_qp *qp, const void *in, size_t inlen, void *out, size_t outlen)
{
	(void)qp;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_srq_modify(struct ibv_srq *srq, const void *in, size_t inlen, void *out,
			   size_t outlen)
{
	(void)srq;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_srq_query(struct ibv_srq *srq, const void *in, size_t inlen, void *out,
			  size_t outlen)
{
	(void)srq;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_wq_modify(struct ibv_wq *wq, const void *in, size_t inlen, void *out, size_t outlen)
{
	(void)wq;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

int mlx5dv_devx_wq_query(struct ibv_wq *wq, const void *in, size_t inlen, void *out, size_t outlen)
{
	(void)wq;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_int();
}

/* The one answer that is not a failure: no device here is an mlx5. */
bool mlx5dv_is_supported(struct ibv_device *device)
{
	(void)device;
	return false;
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.9 */

struct mlx5dv_devx_cmd_comp *mlx5dv_devx_create_cmd_comp(struct ibv_context *context)
{
	(void)context;
	return fail_null();
}

void mlx5dv_devx_destroy_cmd_comp(struct mlx5dv_devx_cmd_comp *cmd_comp)
{
	(void)cmd_comp;
}

int mlx5dv_devx_get_async_cmd_comp(struct mlx5dv_devx_cmd_comp *cmd_comp,
				   struct mlx5_ib_uapi_devx_async_cmd_hdr *cmd_resp,
				   size_t cmd_resp_len)
{
	(void)cmd_comp;
	(void)cmd_resp;
	(void)cmd_resp_len;
	return fail_int();
}

int mlx5dv_devx_obj_query_async(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
				size_t outlen, uint64_t wr_id,
				struct mlx5dv_devx_cmd_comp *cmd_comp)
{
	(void)obj;
	(void)in;
	(void)inlen;
	(void)outlen;
	(void)wr_id;
	(void)cmd_comp;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.10 */

struct ibv_dm *mlx5dv_alloc_dm(struct ibv_context *context, struct ibv_alloc_dm_attr *dm_attr,
			       struct mlx5dv_alloc_dm_attr *mlx5_dm_attr)
{
	(void)context;
	(void)dm_attr;
	(void)mlx5_dm_attr;
	return fail_null();
}

struct mlx5dv_mkey *mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *mkey_init_attr)
{
	(void)mkey_init_attr;
	return fail_null();
}

int mlx5dv_destroy_mkey(struct mlx5dv_mkey *mkey)
{
	(void)mkey;
	return fail_int();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_dest_ibv_qp(struct ibv_qp *ibqp)
{
	(void)ibqp;
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_dest_table(struct mlx5dv_dr_table *table)
{
	(void)table;
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_dest_vport(struct mlx5dv_dr_domain *domain,
							    uint32_t vport)
{
	(void)domain;
	(void)vport;
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_drop(void)
{
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_flow_counter(struct mlx5dv_devx_obj *devx_obj,
							      uint32_t offset)
{
	(void)devx_obj;
	(void)offset;
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_modify_header(struct mlx5dv_dr_domain *domain,
							       uint32_t flags, size_t actions_sz,
							       __be64 *actions)
{
	(void)domain;
	(void)flags;
	(void)actions_sz;
	(void)actions;
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_packet_reformat(
    struct mlx5dv_dr_domain *domain, uint32_t flags,
    enum mlx5_ib_uapi_flow_action_packet_reformat_type reformat_type, size_t data_sz, void *data)
{
	(void)domain;
	(void)flags;
	(void)reformat_type;
	(void)data_sz;
	(void)data;
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_tag(uint32_t tag_value)
{
	(void)tag_value;
	return fail_null();
}

int mlx5dv_dr_action_destroy(struct mlx5dv_dr_action *action)
{
	(void)action;
	return fail_int();
}

struct mlx5dv_dr_domain *mlx5dv_dr_domain_create(struct ibv_context *ctx,
						 enum mlx5dv_dr_domain_type type)
{
	(void)ctx;
	(void)type;
	return fail_null();
}

int mlx5dv_dr_domain_destroy(struct mlx5dv_dr_domain *domain)
{
	(void)domain;
	return fail_int();
}

int mlx5dv_dr_domain_sync(struct mlx5dv_dr_domain *domain, uint32_t flags)
{
	(void)domain;
	(void)flags;
	return fail_int();
}

struct mlx5dv_dr_matcher *mlx5dv_dr_matcher_create(struct mlx5dv_dr_table *table, uint16_t priority,
						   uint8_t match_criteria_enable,
						   struct mlx5dv_flow_match_parameters *mask)
{
	(void)table;
	(void)priority;
	(void)match_criteria_enable;
	(void)mask;
	return fail_null();
}

int mlx5dv_dr_matcher_destroy(struct mlx5dv_dr_matcher *matcher)
{
	(void)matcher;
	return fail_int();
}

struct mlx5dv_dr_rule *mlx5dv_dr_rule_create(struct mlx5dv_dr_matcher *matcher,
					     struct mlx5dv_flow_match_parameters *value,
					     size_t num_actions, struct mlx5dv_dr_action **actions)
{
	(void)matcher;
	(void)value;
	(void)num_actions;
	(void)actions;
	return fail_null();
}

int mlx5dv_dr_rule_destroy(struct mlx5dv_dr_rule *rule)
{
	(void)rule;
	return fail_int();
}

struct mlx5dv_dr_table *mlx5dv_dr_table_create(struct mlx5dv_dr_domain *domain, uint32_t level)
{
	(void)domain;
	(void)level;
	return fail_null();
}

int mlx5dv_dr_table_destroy(struct mlx5dv_dr_table *table)
{
	(void)table;
	return fail_int();
}

/* Pointer arithmetic in the real library; no mlx5 QP exists here, so NULL. */
struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp)
{
	(void)qp;
	return fail_null();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.11 */

struct mlx5dv_devx_event_channel *
mlx5dv_devx_create_event_channel(struct ibv_context *context,
				 enum mlx5_ib_uapi_devx_create_event_channel_flags flags)
{
	(void)context;
	(void)flags;
	return fail_null();
}

void mlx5dv_devx_destroy_event_channel(struct mlx5dv_devx_event_channel *event_channel)
{
	(void)event_channel;
}

/* Documented as read(2): bytes read, or -1 with errno. */
ssize_t mlx5dv_devx_get_event(struct mlx5dv_devx_event_channel *event_channel,
			      struct mlx5_ib_uapi_devx_async_event_hdr *event_data,
			      size_t event_resp_len)
{
	(void)event_channel;
	(void)event_data;
	(void)event_resp_len;
	errno = EOPNOTSUPP;
	return -1;
}

/* Its man page gives no return value; the errno value, as its DEVX siblings. */
int mlx5dv_devx_subscribe_devx_event(struct mlx5dv_devx_event_channel *event_channel,
				     struct mlx5dv_devx_obj *obj, uint16_t events_sz,
				     uint16_t *events_num, uint64_t cookie)
{
	(void)event_channel;
	(void)obj;
	(void)events_sz;
	(void)events_num;
	(void)cookie;
	return fail_int();
}

int mlx5dv_devx_subscribe_devx_event_fd(struct mlx5dv_devx_event_channel *event_channel, int fd,
					struct mlx5dv_devx_obj *obj, uint16_t event_num)
{
	(void)event_channel;
	(void)fd;
	(void)obj;
	(void)event_num;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.12 */

struct mlx5dv_var *mlx5dv_alloc_var(struct ibv_context *context, uint32_t flags)
{
	(void)context;
	(void)flags;
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_flow_meter(struct mlx5dv_dr_flow_meter_attr *attr)
{
	(void)attr;
	return fail_null();
}

int mlx5dv_dr_action_modify_flow_meter(struct mlx5dv_dr_action *action,
				       struct mlx5dv_dr_flow_meter_attr *attr,
				       __be64 modify_field_select)
{
	(void)action;
	(void)attr;
	(void)modify_field_select;
	return fail_int();
}

int mlx5dv_dump_dr_domain(FILE *fout, struct mlx5dv_dr_domain *domain)
{
	(void)fout;
	(void)domain;
	return fail_int();
}

int mlx5dv_dump_dr_matcher(FILE *fout, struct mlx5dv_dr_matcher *matcher)
{
	(void)fout;
	(void)matcher;
	return fail_int();
}

int mlx5dv_dump_dr_rule(FILE *fout, struct mlx5dv_dr_rule *rule)
{
	(void)fout;
	(void)rule;
	return fail_int();
}

int mlx5dv_dump_dr_table(FILE *fout, struct mlx5dv_dr_table *table)
{
	(void)fout;
	(void)table;
	return fail_int();
}

void mlx5dv_free_var(struct mlx5dv_var *dv_var)
{
	(void)dv_var;
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.13 */

struct mlx5dv_pp *mlx5dv_pp_alloc(struct ibv_context *context, size_t pp_context_sz,
				  const void *pp_context, uint32_t flags)
{
	(void)context;
	(void)pp_context_sz;
	(void)pp_context;
	(void)flags;
	return fail_null();
}

void mlx5dv_pp_free(struct mlx5dv_pp *pp)
{
	(void)pp;
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.14 */

struct mlx5dv_dr_action *mlx5dv_dr_action_create_default_miss(void)
{
	return fail_null();
}

void mlx5dv_dr_domain_set_reclaim_device_memory(struct mlx5dv_dr_domain *dmn, bool enable)
{
	(void)dmn;
	(void)enable;
}

int mlx5dv_modify_qp_lag_port(struct ibv_qp *qp, uint8_t port_num)
{
	(void)qp;
	(void)port_num;
	return fail_int();
}

int mlx5dv_query_qp_lag_port(struct ibv_qp *qp, uint8_t *port_num, uint8_t *active_port_num)
{
	(void)qp;
	(void)port_num;
	(void)active_port_num;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.15 */

struct mlx5dv_dr_action *mlx5dv_dr_action_create_dest_devx_tir(struct mlx5dv_devx_obj *devx_obj)
{
	(void)devx_obj;
	return fail_null();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.16 */

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_array(struct mlx5dv_dr_domain *domain, size_t num_dest,
				   struct mlx5dv_dr_action_dest_attr **dests)
{
	(void)domain;
	(void)num_dest;
	(void)dests;
	return fail_null();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_flow_sampler(struct mlx5dv_dr_flow_sampler_attr *attr)
{
	(void)attr;
	return fail_null();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.17 */

struct mlx5dv_dr_action *mlx5dv_dr_action_create_aso(struct mlx5dv_dr_domain *domain,
						     struct mlx5dv_devx_obj *devx_obj,
						     uint32_t offset, uint32_t flags,
						     uint8_t return_reg_c)
{
	(void)domain;
	(void)devx_obj;
	(void)offset;
	(void)flags;
	(void)return_reg_c;
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_pop_vlan(void)
{
	return fail_null();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_push_vlan(struct mlx5dv_dr_domain *domain,
							   __be32 vlan_hdr)
{
	(void)domain;
	(void)vlan_hdr;
	return fail_null();
}

int mlx5dv_dr_action_modify_aso(struct mlx5dv_dr_action *action, uint32_t offset, uint32_t flags,
				uint8_t return_reg_c)
{
	(void)action;
	(void)offset;
	(void)flags;
	(void)return_reg_c;
	return fail_int();
}

int mlx5dv_modify_qp_sched_elem(struct ibv_qp *qp, const struct mlx5dv_sched_leaf *requestor,
				const struct mlx5dv_sched_leaf *responder)
{
	(void)qp;
	(void)requestor;
	(void)responder;
	return fail_int();
}

int mlx5dv_modify_qp_udp_sport(struct ibv_qp *qp, uint16_t udp_sport)
{
	(void)qp;
	(void)udp_sport;
	return fail_int();
}

struct mlx5dv_sched_leaf *mlx5dv_sched_leaf_create(struct ibv_context *context,
						   const struct mlx5dv_sched_attr *sched_attr)
{
	(void)context;
	(void)sched_attr;
	return fail_null();
}

int mlx5dv_sched_leaf_destroy(struct mlx5dv_sched_leaf *leaf)
{
	(void)leaf;
	return fail_int();
}

int mlx5dv_sched_leaf_modify(struct mlx5dv_sched_leaf *leaf,
			     const struct mlx5dv_sched_attr *sched_attr)
{
	(void)leaf;
	(void)sched_attr;
	return fail_int();
}

struct mlx5dv_sched_node *mlx5dv_sched_node_create(struct ibv_context *context,
						   const struct mlx5dv_sched_attr *sched_attr)
{
	(void)context;
	(void)sched_attr;
	return fail_null();
}

int mlx5dv_sched_node_destroy(struct mlx5dv_sched_node *node)
{
	(void)node;
	return fail_int();
}

int mlx5dv_sched_node_modify(struct mlx5dv_sched_node *node,
			     const struct mlx5dv_sched_attr *sched_attr)
{
	(void)node;
	(void)sched_attr;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.18 */

int mlx5dv_reserved_qpn_alloc(struct ibv_context *ctx, uint32_t *qpn)
{
	(void)ctx;
	(void)qpn;
	return fail_int();
}

int mlx5dv_reserved_qpn_dealloc(struct ibv_context *ctx, uint32_t qpn)
{
	(void)ctx;
	(void)qpn;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.19 */

/* Behind the header's inline mlx5dv_query_port(): the errno value. */
int _mlx5dv_query_port(struct ibv_context *context, uint32_t port_num,
		       struct mlx5_ib_uapi_query_port *info, size_t info_len)
{
	(void)context;
	(void)port_num;
	(void)info;
	(void)info_len;
	return fail_int();
}

struct mlx5dv_devx_umem *mlx5dv_devx_umem_reg_ex(struct ibv_context *ctx,
						 struct mlx5dv_devx_umem_in *umem_in)
{
	(void)ctx;
	(void)umem_in;
	return fail_null();
}

void *mlx5dv_dm_map_op_addr(struct ibv_dm *dm, uint8_t op)
{
	(void)dm;
	(void)op;
	return fail_null();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.20 */

/* Behind the header's inline mlx5dv_mkey_check(): the errno value. */
int _mlx5dv_mkey_check(struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err_info,
		       size_t err_info_size)
{
	(void)mkey;
	(void)err_info;
	(void)err_info_size;
	return fail_int();
}

void mlx5dv_dr_domain_allow_duplicate_rules(struct mlx5dv_dr_domain *domain, bool allow)
{
	(void)domain;
	(void)allow;
}

int mlx5dv_map_ah_to_qp(struct ibv_ah *ah, uint32_t qp_num)
{
	(void)ah;
	(void)qp_num;
	return fail_int();
}

/* Documented to return the count cancelled, or -errno. */
int mlx5dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *mqp, uint64_t wr_id)
{
	(void)mqp;
	(void)wr_id;
	errno = EOPNOTSUPP;
	return -EOPNOTSUPP;
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.21 */

int mlx5dv_crypto_login(struct ibv_context *context, struct mlx5dv_crypto_login_attr *login_attr)
{
	(void)context;
	(void)login_attr;
	return fail_int();
}

int mlx5dv_crypto_login_query_state(struct ibv_context *context,
				    enum mlx5dv_crypto_login_state *state)
{
	(void)context;
	(void)state;
	return fail_int();
}

int mlx5dv_crypto_logout(struct ibv_context *context)
{
	(void)context;
	return fail_int();
}

int mlx5dv_dci_stream_id_reset(struct ibv_qp *qp, uint16_t stream_id)
{
	(void)qp;
	(void)stream_id;
	return fail_int();
}

struct mlx5dv_dek *mlx5dv_dek_create(struct ibv_context *context,
				     struct mlx5dv_dek_init_attr *init_attr)
{
	(void)context;
	(void)init_attr;
	return fail_null();
}

int mlx5dv_dek_destroy(struct mlx5dv_dek *dek)
{
	(void)dek;
	return fail_int();
}

int mlx5dv_dek_query(struct mlx5dv_dek *dek, struct mlx5dv_dek_attr *attr)
{
	(void)dek;
	(void)attr;
	return fail_int();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_dest_ib_port(struct mlx5dv_dr_domain *domain,
							      uint32_t ib_port)
{
	(void)domain;
	(void)ib_port;
	return fail_null();
}

int mlx5dv_dr_matcher_set_layout(struct mlx5dv_dr_matcher *matcher,
				 struct mlx5dv_dr_matcher_layout *layout)
{
	(void)matcher;
	(void)layout;
	return fail_int();
}

struct ibv_device **mlx5dv_get_vfio_device_list(struct mlx5dv_vfio_context_attr *attr)
{
	(void)attr;
	return fail_null();
}

/* Returns a file descriptor, so -1 is its failure. */
int mlx5dv_vfio_get_events_fd(struct ibv_context *ibctx)
{
	(void)ibctx;
	errno = EOPNOTSUPP;
	return -1;
}

int mlx5dv_vfio_process_events(struct ibv_context *context)
{
	(void)context;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.22 */

int mlx5dv_dr_aso_other_domain_link(struct mlx5dv_devx_obj *devx_obj,
				    struct mlx5dv_dr_domain *peer_dmn, struct mlx5dv_dr_domain *dmn,
				    uint32_t flags, uint8_t return_reg_c)
{
	(void)devx_obj;
	(void)peer_dmn;
	(void)dmn;
	(void)flags;
	(void)return_reg_c;
	return fail_int();
}

int mlx5dv_dr_aso_other_domain_unlink(struct mlx5dv_devx_obj *devx_obj,
				      struct mlx5dv_dr_domain *dmn)
{
	(void)devx_obj;
	(void)dmn;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.23 */

struct mlx5dv_devx_msi_vector *mlx5dv_devx_alloc_msi_vector(struct ibv_context *ibctx)
{
	(void)ibctx;
	return fail_null();
}

struct mlx5dv_devx_eq *mlx5dv_devx_create_eq(struct ibv_context *ibctx, const void *in,
					     size_t inlen, void *out, size_t outlen)
{
	(void)ibctx;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return fail_null();
}

int mlx5dv_devx_destroy_eq(struct mlx5dv_devx_eq *eq)
{
	(void)eq;
	return fail_int();
}

int mlx5dv_devx_free_msi_vector(struct mlx5dv_devx_msi_vector *msi)
{
	(void)msi;
	return fail_int();
}

/* ------------------------------------------------------------------------ */
/* MLX5_1.24 */

struct mlx5dv_steering_anchor *
mlx5dv_create_steering_anchor(struct ibv_context *context, struct mlx5dv_steering_anchor_attr *attr)
{
	(void)context;
	(void)attr;
	return fail_null();
}

struct mlx5dv_crypto_login_obj *
mlx5dv_crypto_login_create(struct ibv_context *context,
			   struct mlx5dv_crypto_login_attr_ex *login_attr)
{
	(void)context;
	(void)login_attr;
	return fail_null();
}

int mlx5dv_crypto_login_destroy(struct mlx5dv_crypto_login_obj *crypto_login)
{
	(void)crypto_login;
	return fail_int();
}

int mlx5dv_crypto_login_query(struct mlx5dv_crypto_login_obj *crypto_login,
			      struct mlx5dv_crypto_login_query_attr *query_attr)
{
	(void)crypto_login;
	(void)query_attr;
	return fail_int();
}

int mlx5dv_destroy_steering_anchor(struct mlx5dv_steering_anchor *sa)
{
	(void)sa;
	return fail_int();
}

struct mlx5dv_dr_action *mlx5dv_dr_action_create_dest_root_table(struct mlx5dv_dr_table *table,
								 uint16_t priority)
{
	(void)table;
	(void)priority;
	return fail_null();
}
