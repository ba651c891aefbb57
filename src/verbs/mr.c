/* SPDX-License-Identifier: MIT */
/* Memory regions: keys in the NIC's key table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/verbs_int.h"

#define ACCESS_ALL                                                                       \
	(WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ |    \
	 WQE_ACCESS_REMOTE_ATOMIC)

struct wqe_mr *wqe_reg_mr(struct wqe_pd *pd, void *addr, uint64_t length, unsigned int access)
{
	return wqe_reg_mr_iova(pd, addr, length, (uint64_t)(uintptr_t)addr, access);
}

struct wqe_mr *wqe_reg_mr_iova(struct wqe_pd *pd, void *addr, uint64_t length, uint64_t iova,
			       unsigned int access)
{
	struct wqe_mr *mr;
	uint32_t key;

	/* IBTA 10.6.3.1 (and ibv_reg_mr): remote write or atomic access
	 * needs local write. */
	if (!pd || !addr || !length || (access & ~(unsigned)ACCESS_ALL) ||
	    (uint64_t)(uintptr_t)addr + length < (uint64_t)(uintptr_t)addr ||
	    iova + length < iova ||
	    ((access & (WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & WQE_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	nic_cmd_begin(pd->context->nic);
	key = nic_key_add(pd->context->nic, addr, iova, length, pd->handle, access);
	nic_cmd_end(pd->context->nic);
	if (!key) {
		free(mr);
		errno = ENOMEM;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->iova = iova;
	mr->handle = key >> 8;
	mr->lkey = key;
	mr->rkey = key;
	pd->refs++;
	pd->context->nmr++;
	return mr;
}

int wqe_dereg_mr(struct wqe_mr *mr)
{
	if (!mr || !mr->pd)
		return EINVAL;
	nic_cmd_begin(mr->context->nic);
	nic_key_remove(mr->context->nic, mr->lkey);
	nic_cmd_end(mr->context->nic);
	mr->pd->refs--;
	mr->context->nmr--;
	free(mr);
	return 0;
}
