/* engine_table.h - the engine's hash table, slab pool and FIFO list.
 *
 * Internal to the engine (engine*.c).  The table is open addressing with
 * linear probing and backward-shift deletion (no tombstones), unique keys,
 * storing (hash, item pointer); the caller owns the items and supplies the
 * key comparison.  It grows by doubling when half full and never shrinks, so
 * in steady state neither inserting nor removing allocates.  The pool hands
 * out fixed-size items from blocks and keeps freed ones on a free list.
 */
#ifndef IBSCOPE_ENGINE_TABLE_H
#define IBSCOPE_ENGINE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- hashing ---- */

uint64_t et_hash(const void *data, size_t len);

/* ---- hash table ---- */

struct et_slot {
    uint64_t hash;
    void *item; /* NULL: empty */
};

struct et_table {
    struct et_slot *slots;
    size_t mask; /* slot count - 1, a power of two minus one */
    size_t count;
};

typedef bool (*et_eq_fn)(const void *item, const void *key);

bool et_init(struct et_table *t, size_t min_slots);
void et_destroy(struct et_table *t);
/* The caller checked the key is not there yet.  False when out of memory. */
bool et_insert(struct et_table *t, uint64_t hash, void *item);
void *et_find(const struct et_table *t, uint64_t hash, et_eq_fn eq, const void *key);
/* Removes this very item (found by pointer along its hash's probe run). */
bool et_remove(struct et_table *t, uint64_t hash, const void *item);

/* Starts loading the slot where a lookup of hash begins.  With many entries
 * open the slots are out of cache: a frame that will look up several keys
 * asks for all their slots first, so that the misses overlap. */
static inline void et_prefetch(const struct et_table *t, uint64_t hash)
{
    __builtin_prefetch(&t->slots[(size_t)hash & t->mask]);
}

/* ---- slab pool ---- */

struct ep_pool {
    size_t item_size;
    size_t per_block;
    void *free_list;
    void *blocks; /* singly linked through each block's first word */
    size_t live;
};

void ep_init(struct ep_pool *p, size_t item_size);
/* A zeroed item, NULL when out of memory. */
void *ep_alloc(struct ep_pool *p);
void ep_release(struct ep_pool *p, void *item);
void ep_destroy(struct ep_pool *p);

/* ---- intrusive doubly linked list with a sentinel ---- */

struct el_link {
    struct el_link *prev, *next;
};

static inline void el_init(struct el_link *head)
{
    head->prev = head->next = head;
}

static inline bool el_empty(const struct el_link *head)
{
    return head->next == head;
}

static inline void el_append(struct el_link *head, struct el_link *l)
{
    l->prev = head->prev;
    l->next = head;
    head->prev->next = l;
    head->prev = l;
}

static inline void el_unlink(struct el_link *l)
{
    l->prev->next = l->next;
    l->next->prev = l->prev;
    l->prev = l->next = l;
}

#define EL_ENTRY(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#endif
