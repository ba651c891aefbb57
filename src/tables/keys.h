/* SPDX-License-Identifier: MIT */
/*
 * keys.h - the key table: what a NIC knows of registered memory.
 *
 * A key is index << 8 | tag, as mlx5 mkeys are: the index selects the entry
 * and the 8-bit tag (never 0) changes on every registration, so a key kept
 * after its region was deregistered and the slot reused resolves to nothing.
 * An lkey and its rkey are the same number; the rkey can be invalidated on
 * its own (SEND_WITH_INV).
 */
#ifndef WQE_TABLES_KEYS_H
#define WQE_TABLES_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "wqe/types.h"

struct key_entry {
	uint8_t *host;       /* where the region's bytes are */
	uint64_t iova;       /* the address SGEs and RETHs name */
	uint64_t length;
	uint32_t pd;         /* protection-domain handle */
	uint32_t access;     /* enum wqe_access_flags */
	uint8_t tag;
	bool valid;
	bool rkey_valid;     /* false once invalidated */
};

struct key_table {
	struct key_entry *e;
	uint32_t cap;
	uint32_t used;
	uint32_t next_tag;
};

/* Why a key lookup failed (each maps to a completion status or NAK). */
enum key_err {
	KEY_OK = 0,
	KEY_ERR_INVALID,  /* no such key, deregistered, stale tag, invalidated */
	KEY_ERR_PD,       /* region of another protection domain */
	KEY_ERR_ACCESS,   /* region lacks the access the operation needs */
	KEY_ERR_BOUNDS,   /* [addr, addr+len) not inside the region, or wraps */
};

int keys_init(struct key_table *t, uint32_t cap);
void keys_fini(struct key_table *t);
/* Adds a region of @length bytes at @host, named by SGEs and RETHs from
 * @iova on; returns its key (>= 0x100) or 0 if the table is full. */
uint32_t keys_add(struct key_table *t, uint8_t *host, uint64_t iova, uint64_t length,
		  uint32_t pd, uint32_t access);
/* Removes @key; false if it does not name a live entry. */
bool keys_remove(struct key_table *t, uint32_t key);
/* Invalidates the remote use of @key; false if it does not name a live entry. */
bool keys_invalidate_rkey(struct key_table *t, uint32_t key);

/* The live entry @key names (index key >> 8, tag key & 0xff), or NULL. */
static inline const struct key_entry *keys_lookup(const struct key_table *t, uint32_t key)
{
	uint32_t i = key >> 8;

	if (i == 0 || i >= t->cap || !t->e[i].valid || t->e[i].tag != (key & 0xff))
		return NULL;
	return &t->e[i];
}

/*
 * Resolves [@addr, @addr + @len) through @key for protection domain @pd
 * needing @access (0 for a plain local read). @remote selects the rkey view.
 * On KEY_OK, *@host points at the first byte. Inline: every request and
 * every packet received goes through it.
 */
static inline enum key_err keys_check(const struct key_table *t, uint32_t key, bool remote,
				      uint32_t pd, uint64_t addr, uint64_t len, uint32_t access,
				      uint8_t **host)
{
	const struct key_entry *k = keys_lookup(t, key);

	if (!k || (remote && !k->rkey_valid))
		return KEY_ERR_INVALID;
	if (k->pd != pd)
		return KEY_ERR_PD;
	if ((k->access & access) != access)
		return KEY_ERR_ACCESS;
	/* Written so that no sum can wrap: addr - iova and length - off. */
	if (addr < k->iova || addr - k->iova > k->length || len > k->length - (addr - k->iova))
		return KEY_ERR_BOUNDS;
	*host = k->host + (addr - k->iova);
	return KEY_OK;
}

#endif
