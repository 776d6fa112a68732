/* engine_table.h - the engine's hash table, slab pool and FIFO list.
 *
 * Internal to the engine (engine*.c).  The pool hands out fixed-size items
 * from blocks, each with an index (32 bits, stable while it lives), and
 * keeps freed ones on a free list.  The table is open addressing with
 * linear probing and backward-shift deletion (no tombstones), unique keys,
 * over the items of one pool: a slot is 8 bytes, the low 32 bits of the
 * hash and the item's index, so that a cache line holds eight and a table
 * of many entries stays small.  The caller supplies the key comparison.  It
 * grows by doubling when three quarters full and never shrinks, so in steady state
 * neither inserting nor removing allocates.
 */
#ifndef IBSCOPE_ENGINE_TABLE_H
#define IBSCOPE_ENGINE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- hashing ---- */

/* A multiply-xorshift hash over 8-byte words; keys are short fixed structs.
 * Inline: with the key's size known where it is called, the loop unrolls
 * (every data packet hashes one or two keys). */
static inline uint64_t et_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static inline uint64_t et_hash(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
    /* One multiply per word, a full mix at the end. */
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    if (len) {
        uint64_t w = 0;
        memcpy(&w, p, len);
        h = (h ^ w ^ 0xff) * 0x9e3779b97f4a7c15ull;
    }
    return et_mix64(h);
}

/* ---- slab pool ---- */

struct ep_pool {
    size_t item_size;
    void *free_list; /* each free item: the next one's address, then its index */
    char **blocks;   /* block b: EP_BLOCK_FIRST << b items, at most EP_BLOCK_MAX */
    size_t block_count, block_cap;
    uint32_t next_index; /* items ever made */
    size_t live;
};

/* Blocks double from 16 items up to EP_BLOCK_MAX (small engines stay small;
 * past that a doubling could leave a third of the memory unused). */
#define EP_BLOCK_FIRST 16u
#define EP_BLOCK_MAX   1024u
#define EP_RAMP_BLOCKS 6u    /* 16, 32, ..., 512 */
#define EP_RAMP_ITEMS  1008u /* the items in them */
#define EP_BLOCK_ALIGN 64u   /* a cache line */

void ep_init(struct ep_pool *p, size_t item_size);
/* A zeroed item and its index, NULL when out of memory. */
void *ep_alloc(struct ep_pool *p, uint32_t *index);
void ep_release(struct ep_pool *p, void *item, uint32_t index);
void ep_destroy(struct ep_pool *p);

static inline void *ep_item(const struct ep_pool *p, uint32_t index)
{
    size_t b, at;
    if (index < EP_RAMP_ITEMS) {
        b = (size_t)(31 - __builtin_clz(index / EP_BLOCK_FIRST + 1));
        at = index - EP_BLOCK_FIRST * ((1u << b) - 1);
    } else {
        b = EP_RAMP_BLOCKS + (index - EP_RAMP_ITEMS) / EP_BLOCK_MAX;
        at = (index - EP_RAMP_ITEMS) % EP_BLOCK_MAX;
    }
    return p->blocks[b] + at * p->item_size;
}

/* ---- hash table ---- */

struct et_slot {
    uint32_t tag; /* the hash's low 32 bits: its home slot and a first check */
    uint32_t ref; /* the item's pool index + 1; 0: empty */
};

struct et_table {
    struct et_slot *slots;
    size_t mask; /* slot count - 1, a power of two minus one (below 2^32) */
    size_t count;
    const struct ep_pool *pool; /* where the items are */
};

typedef bool (*et_eq_fn)(const void *item, const void *key);

bool et_init(struct et_table *t, size_t min_slots, const struct ep_pool *pool);
void et_destroy(struct et_table *t);
/* The caller checked the key is not there yet.  False when out of memory. */
bool et_insert(struct et_table *t, uint64_t hash, uint32_t index);
void *et_find(const struct et_table *t, uint64_t hash, et_eq_fn eq, const void *key);
/* Removes the item of this index under the key of this hash (found along
 * its probe run by index and tag: an item may be in under two keys). */
bool et_remove(struct et_table *t, uint64_t hash, uint32_t index);

/* Starts loading the slot where a lookup of hash begins.  With many entries
 * open the slots are out of cache: a frame that will look up several keys
 * asks for all their slots first, so that the misses overlap. */
static inline void et_prefetch(const struct et_table *t, uint64_t hash)
{
    __builtin_prefetch(&t->slots[(uint32_t)hash & t->mask]);
}

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

#define EL_ENTRY(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

#endif
