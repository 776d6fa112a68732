/* engine_table.c - hash table, slab pool and hashing for the engine's state. */
#include "engine_table.h"

#include <stdlib.h>
#include <string.h>

/* A multiply-xorshift hash over 8-byte words; keys are short fixed structs. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

uint64_t et_hash(const void *data, size_t len)
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
    return mix64(h);
}

bool et_init(struct et_table *t, size_t min_slots)
{
    size_t n = 16;
    while (n < min_slots)
        n <<= 1;
    t->slots = calloc(n, sizeof *t->slots);
    t->mask = n - 1;
    t->count = 0;
    return t->slots != NULL;
}

void et_destroy(struct et_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->mask = 0;
    t->count = 0;
}

static void place(struct et_slot *slots, size_t mask, uint64_t hash, void *item)
{
    size_t i = (size_t)hash & mask;
    while (slots[i].item)
        i = (i + 1) & mask;
    slots[i].hash = hash;
    slots[i].item = item;
}

static bool grow(struct et_table *t)
{
    size_t n = (t->mask + 1) * 2;
    struct et_slot *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i <= t->mask; i++)
        if (t->slots[i].item)
            place(slots, n - 1, t->slots[i].hash, t->slots[i].item);
    free(t->slots);
    t->slots = slots;
    t->mask = n - 1;
    return true;
}

bool et_insert(struct et_table *t, uint64_t hash, void *item)
{
    /* Keep the load at most one half so probe runs stay short. */
    if ((t->count + 1) * 2 > t->mask + 1 && !grow(t))
        return false;
    place(t->slots, t->mask, hash, item);
    t->count++;
    return true;
}

void *et_find(const struct et_table *t, uint64_t hash, et_eq_fn eq, const void *key)
{
    size_t i = (size_t)hash & t->mask;
    for (;;) {
        const struct et_slot *s = &t->slots[i];
        if (!s->item)
            return NULL;
        if (s->hash == hash && eq(s->item, key))
            return s->item;
        i = (i + 1) & t->mask;
    }
}

bool et_remove(struct et_table *t, uint64_t hash, const void *item)
{
    size_t i = (size_t)hash & t->mask;
    while (t->slots[i].item != item) {
        if (!t->slots[i].item)
            return false;
        i = (i + 1) & t->mask;
    }
    /* Backward shift: pull later members of the run into the hole when
     * their home slot is not between the hole and where they sit. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & t->mask;
        if (!t->slots[j].item)
            break;
        size_t home = (size_t)t->slots[j].hash & t->mask;
        bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        t->slots[i] = t->slots[j];
        i = j;
    }
    t->slots[i].item = NULL;
    t->slots[i].hash = 0;
    t->count--;
    return true;
}

/* ---- pool ---- */

#define EP_ALIGN sizeof(max_align_t)
#define EP_BLOCK_MAX 1024

void ep_init(struct ep_pool *p, size_t item_size)
{
    if (item_size < sizeof(void *))
        item_size = sizeof(void *);
    p->item_size = (item_size + EP_ALIGN - 1) / EP_ALIGN * EP_ALIGN;
    p->per_block = 16; /* doubles per block: small engines stay small */
    p->free_list = NULL;
    p->blocks = NULL;
    p->live = 0;
}

void *ep_alloc(struct ep_pool *p)
{
    if (!p->free_list) {
        /* The block's first EP_ALIGN bytes link the blocks together. */
        char *block = malloc(EP_ALIGN + p->item_size * p->per_block);
        if (!block)
            return NULL;
        memcpy(block, &p->blocks, sizeof(void *));
        p->blocks = block;
        for (size_t i = p->per_block; i-- > 0;) {
            void *item = block + EP_ALIGN + i * p->item_size;
            memcpy(item, &p->free_list, sizeof(void *));
            p->free_list = item;
        }
        /* Grow geometrically so that big captures take few mallocs, up to
         * blocks of EP_BLOCK_MAX items: past that a doubling would leave up
         * to half the newest block unused (a third of the memory). */
        if (p->per_block < EP_BLOCK_MAX)
            p->per_block *= 2;
    }
    void *item = p->free_list;
    memcpy(&p->free_list, item, sizeof(void *));
    memset(item, 0, p->item_size);
    p->live++;
    return item;
}

void ep_release(struct ep_pool *p, void *item)
{
    if (!item)
        return;
    memcpy(item, &p->free_list, sizeof(void *));
    p->free_list = item;
    p->live--;
}

void ep_destroy(struct ep_pool *p)
{
    void *b = p->blocks;
    while (b) {
        void *next;
        memcpy(&next, b, sizeof(void *));
        free(b);
        b = next;
    }
    p->blocks = NULL;
    p->free_list = NULL;
    p->live = 0;
}
