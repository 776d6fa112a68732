/* seen_at.c - the captures that showed each CM packet (seen_at.h). */
#include "seen_at.h"

#include <string.h>

struct key {
    uint64_t frame;
    uint32_t capture;
};

static uint64_t hash_of(uint32_t capture, uint64_t frame)
{
    struct key k;
    memset(&k, 0, sizeof k);
    k.frame = frame;
    k.capture = capture;
    return et_hash(&k, sizeof k);
}

static bool same(const void *item, const void *key)
{
    const struct seen_at_entry *e = item;
    const struct key *k = key;
    return e->capture == k->capture && e->frame == k->frame;
}

bool seen_at_init(struct seen_at *s)
{
    memset(s, 0, sizeof *s);
    ep_init(&s->pool, sizeof(struct seen_at_entry));
    el_init(&s->ages);
    return et_init(&s->table, 64, &s->pool);
}

void seen_at_destroy(struct seen_at *s)
{
    et_destroy(&s->table);
    ep_destroy(&s->pool);
}

uint64_t seen_at_bit(uint32_t capture)
{
    return 1ull << (capture < 63 ? capture : 63);
}

static struct seen_at_entry *find(const struct seen_at *s, uint32_t capture, uint64_t frame,
                                  uint64_t h)
{
    struct key k;
    memset(&k, 0, sizeof k);
    k.frame = frame;
    k.capture = capture;
    return et_find(&s->table, h, same, &k);
}

static void drop(struct seen_at *s, struct seen_at_entry *e)
{
    el_unlink(&e->age);
    et_remove(&s->table, hash_of(e->capture, e->frame), e->index);
    ep_release(&s->pool, e, e->index);
}

bool seen_at_add(struct seen_at *s, struct ib_frame_ref first, uint32_t capture)
{
    uint64_t h = hash_of(first.capture, first.frame);
    struct seen_at_entry *e = find(s, first.capture, first.frame, h);
    if (!e) {
        if (s->pool.live >= IB_SEEN_AT_MAX) {
            drop(s, EL_ENTRY(s->ages.next, struct seen_at_entry, age));
            s->evicted++;
        }
        uint32_t index;
        if (!(e = ep_alloc(&s->pool, &index)))
            return false;
        e->capture = first.capture;
        e->frame = first.frame;
        e->mask = seen_at_bit(first.capture);
        e->index = index;
        if (!et_insert(&s->table, h, index)) {
            ep_release(&s->pool, e, index);
            return false;
        }
        el_append(&s->ages, &e->age);
    }
    e->mask |= seen_at_bit(capture);
    return true;
}

uint64_t seen_at_take(struct seen_at *s, struct ib_frame_ref ref)
{
    if (ref.frame == 0)
        return 0;
    struct seen_at_entry *e = find(s, ref.capture, ref.frame, hash_of(ref.capture, ref.frame));
    if (!e)
        return seen_at_bit(ref.capture);
    uint64_t mask = e->mask;
    drop(s, e);
    return mask;
}
