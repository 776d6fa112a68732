/* engine_table.c - hash table, slab pool and hashing for the engine's state. */
#include "engine_table.h"

#include <stdlib.h>
#include <string.h>

bool et_init(struct et_table *t, size_t min_slots, const struct ep_pool *pool)
{
    size_t n = 16;
    while (n < min_slots)
        n <<= 1;
    t->slots = calloc(n, sizeof *t->slots);
    t->mask = n - 1;
    t->count = 0;
    t->pool = pool;
    return t->slots != NULL;
}

void et_destroy(struct et_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->mask = 0;
    t->count = 0;
}

static void place(struct et_slot *slots, size_t mask, struct et_slot s)
{
    size_t i = s.tag & mask;
    while (slots[i].ref)
        i = (i + 1) & mask;
    slots[i] = s;
}

static bool grow(struct et_table *t)
{
    /* The home slot is read from the tag's 32 bits: the mask stays within
     * them (and n cannot wrap where size_t is 32 bits). */
    if (t->mask > UINT32_MAX / 2)
        return false;
    size_t n = (t->mask + 1) * 2;
    struct et_slot *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i <= t->mask; i++)
        if (t->slots[i].ref)
            place(slots, n - 1, t->slots[i]);
    free(t->slots);
    t->slots = slots;
    t->mask = n - 1;
    return true;
}

bool et_insert(struct et_table *t, uint64_t hash, uint32_t index)
{
    /* Keep the load at most three quarters: probe runs stay within a
     * cache line or two (eight slots a line, the tag checked before the
     * key), and a table of many entries takes a third less than at half. */
    if ((t->count + 1) * 4 > (t->mask + 1) * 3 && !grow(t))
        return false;
    struct et_slot s = { (uint32_t)hash, index + 1 };
    place(t->slots, t->mask, s);
    t->count++;
    return true;
}

void *et_find(const struct et_table *t, uint64_t hash, et_eq_fn eq, const void *key)
{
    uint32_t tag = (uint32_t)hash;
    size_t i = tag & t->mask;
    for (;;) {
        const struct et_slot *s = &t->slots[i];
        if (!s->ref)
            return NULL;
        if (s->tag == tag) {
            void *item = ep_item(t->pool, s->ref - 1);
            if (eq(item, key))
                return item;
        }
        i = (i + 1) & t->mask;
    }
}

bool et_remove(struct et_table *t, uint64_t hash, uint32_t index)
{
    /* An item may be in the table under two keys: the tag tells which. */
    uint32_t tag = (uint32_t)hash;
    size_t i = tag & t->mask;
    while (t->slots[i].ref != index + 1 || t->slots[i].tag != tag) {
        if (!t->slots[i].ref)
            return false;
        i = (i + 1) & t->mask;
    }
    /* Backward shift: pull later members of the run into the hole when
     * their home slot is not between the hole and where they sit. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & t->mask;
        if (!t->slots[j].ref)
            break;
        size_t home = t->slots[j].tag & t->mask;
        bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        t->slots[i] = t->slots[j];
        i = j;
    }
    t->slots[i].ref = 0;
    t->slots[i].tag = 0;
    t->count--;
    return true;
}

/* ---- pool ---- */

/* Items hold integers and pointers, nothing wider: 8-byte alignment (not
 * max_align_t's 16) keeps a 40-byte item at 40 bytes. */
union ep_widest {
    uint64_t u;
    int64_t i;
    void *p;
    double d;
};
#define EP_ALIGN _Alignof(union ep_widest)

_Static_assert(EP_RAMP_ITEMS == EP_BLOCK_FIRST * ((1u << EP_RAMP_BLOCKS) - 1) &&
                   (EP_BLOCK_FIRST << EP_RAMP_BLOCKS) == EP_BLOCK_MAX,
               "ep_item's block arithmetic");

/* A free item: where the next free one is, and its own index. */
struct ep_free {
    void *next;
    uint32_t index;
};

void ep_init(struct ep_pool *p, size_t item_size)
{
    if (item_size < sizeof(struct ep_free))
        item_size = sizeof(struct ep_free);
    p->item_size = (item_size + EP_ALIGN - 1) / EP_ALIGN * EP_ALIGN;
    p->free_list = NULL;
    p->blocks = NULL;
    p->block_count = p->block_cap = 0;
    p->next_index = 0;
    p->live = 0;
}

static void free_push(struct ep_pool *p, void *item, uint32_t index)
{
    struct ep_free f = { p->free_list, index };
    memcpy(item, &f, sizeof f);
    p->free_list = item;
}

/* A new block, its items on the free list (the first on top). */
static bool add_block(struct ep_pool *p)
{
    size_t b = p->block_count;
    size_t n = b < EP_RAMP_BLOCKS ? (size_t)EP_BLOCK_FIRST << b : EP_BLOCK_MAX;
    if ((uint64_t)p->next_index + n > UINT32_MAX)
        return false; /* indices are 32 bits (and 0 + 1 marks a slot used) */
    if (p->block_count == p->block_cap) {
        size_t cap = p->block_cap ? p->block_cap * 2 : 16;
        char **l = realloc(p->blocks, cap * sizeof *l);
        if (!l)
            return false;
        p->blocks = l;
        p->block_cap = cap;
    }
    /* On a cache line: a record laid out by lines (eng_qp) stays so.  The
     * size, items of at least 8 bytes times 16 << k, is a multiple of 64. */
    char *block = aligned_alloc(EP_BLOCK_ALIGN, p->item_size * n);
    if (!block)
        return false;
    p->blocks[p->block_count++] = block;
    for (size_t i = n; i-- > 0;)
        free_push(p, block + i * p->item_size, p->next_index + (uint32_t)i);
    p->next_index += (uint32_t)n;
    return true;
}

void *ep_alloc(struct ep_pool *p, uint32_t *index)
{
    if (!p->free_list && !add_block(p))
        return NULL;
    void *item = p->free_list;
    struct ep_free f;
    memcpy(&f, item, sizeof f);
    p->free_list = f.next;
    *index = f.index;
    memset(item, 0, p->item_size);
    p->live++;
    return item;
}

void ep_release(struct ep_pool *p, void *item, uint32_t index)
{
    if (!item)
        return;
    free_push(p, item, index);
    p->live--;
}

void ep_destroy(struct ep_pool *p)
{
    for (size_t b = 0; b < p->block_count; b++)
        free(p->blocks[b]);
    free(p->blocks);
    p->blocks = NULL;
    p->block_count = p->block_cap = 0;
    p->free_list = NULL;
    p->next_index = 0;
    p->live = 0;
}
