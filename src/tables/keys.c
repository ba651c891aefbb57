/* SPDX-License-Identifier: MIT */
#include "tables/keys.h"

#include <stdlib.h>
#include <string.h>

int keys_init(struct key_table *t, uint32_t cap)
{
	memset(t, 0, sizeof(*t));
	t->e = calloc(cap, sizeof(*t->e));
	if (!t->e)
		return -1;
	t->cap = cap;
	t->next_tag = 1;
	return 0;
}

void keys_fini(struct key_table *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

uint32_t keys_add(struct key_table *t, uint8_t *host, uint64_t iova, uint64_t length,
		  uint32_t pd, uint32_t access)
{
	/* Index 0 is never used, so no key is below 0x100 and no key is
	 * 0x100 (mlx5's MLX5_INVALID_LKEY, which ends a receive WQE). */
	for (uint32_t i = 1; i < t->cap; i++) {
		struct key_entry *k = &t->e[i];

		if (k->valid)
			continue;
		k->host = host;
		k->iova = iova;
		k->length = length;
		k->pd = pd;
		k->access = access;
		k->tag = (uint8_t)t->next_tag;
		k->valid = true;
		k->rkey_valid = true;
		t->next_tag = t->next_tag % 255 + 1;
		t->used++;
		return i << 8 | k->tag;
	}
	return 0;
}

static struct key_entry *lookup(const struct key_table *t, uint32_t key)
{
	return (struct key_entry *)keys_lookup(t, key);
}

bool keys_remove(struct key_table *t, uint32_t key)
{
	struct key_entry *k = lookup(t, key);

	if (!k)
		return false;
	k->valid = false;
	k->host = NULL;
	t->used--;
	return true;
}

bool keys_invalidate_rkey(struct key_table *t, uint32_t key)
{
	struct key_entry *k = lookup(t, key);

	if (!k)
		return false;
	k->rkey_valid = false;
	return true;
}

