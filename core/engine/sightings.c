/* sightings.c - the window of recent packets by identity (sightings.h). */
#include "sightings.h"

#include <string.h>

bool ib_sightings_init(struct ib_sightings *s, size_t cap, int64_t window_ns)
{
    memset(s, 0, sizeof *s);
    ep_init(&s->pool, sizeof(struct ib_sighting));
    el_init(&s->ages);
    s->cap = cap ? cap : 1;
    s->window_ns = window_ns;
    return et_init(&s->table, 1024, &s->pool);
}

void ib_sightings_destroy(struct ib_sightings *s)
{
    et_destroy(&s->table);
    ep_destroy(&s->pool);
    memset(s, 0, sizeof *s);
}

static bool same_identity(const void *item, const void *key)
{
    return ib_identity_equal(((const struct ib_sighting *)item)->identity,
                             *(const struct ib_identity *)key);
}

struct ib_sighting *ib_sightings_find(const struct ib_sightings *s, struct ib_identity identity)
{
    return et_find(&s->table, identity.hash, same_identity, &identity);
}

struct ib_sighting *ib_sightings_insert(struct ib_sightings *s, struct ib_identity identity,
                                        struct ib_frame_ref at)
{
    uint32_t index;
    struct ib_sighting *g = ep_alloc(&s->pool, &index);
    if (!g)
        return NULL;
    g->identity = identity;
    g->first = at;
    g->index = index;
    g->captures[0] = at.capture;
    g->times[0] = at.time_ns;
    g->capture_count = 1;
    if (!et_insert(&s->table, identity.hash, index)) {
        ep_release(&s->pool, g, index);
        return NULL;
    }
    el_append(&s->ages, &g->age);
    s->live++;
    return g;
}

bool ib_sighting_seen_by(const struct ib_sighting *g, uint32_t capture)
{
    for (unsigned i = 0; i < g->capture_count; i++)
        if (g->captures[i] == capture)
            return true;
    return false;
}

void ib_sighting_add_capture(struct ib_sighting *g, uint32_t capture, int64_t time_ns)
{
    if (g->capture_count < IB_SIGHTING_CAPTURES) {
        g->captures[g->capture_count] = capture;
        g->times[g->capture_count++] = time_ns;
    }
}

void ib_sightings_detach(struct ib_sightings *s, struct ib_sighting *g)
{
    if (!g->detached)
        et_remove(&s->table, g->identity.hash, g->index);
    g->detached = true;
}

/* Out of the table and the age list; still allocated. */
static struct ib_sighting *take_oldest(struct ib_sightings *s)
{
    struct ib_sighting *g = EL_ENTRY(s->ages.next, struct ib_sighting, age);
    el_unlink(&g->age);
    ib_sightings_detach(s, g);
    s->live--;
    return g;
}

struct ib_sighting *ib_sightings_due(struct ib_sightings *s, int64_t now_ns, bool *early)
{
    *early = false;
    if (el_empty(&s->ages))
        return NULL;
    const struct ib_sighting *old = EL_ENTRY(s->ages.next, struct ib_sighting, age);
    if (now_ns - old->first.time_ns > s->window_ns)
        return take_oldest(s);
    if (s->live >= s->cap) {
        *early = true;
        s->evicted++;
        return take_oldest(s);
    }
    return NULL;
}

struct ib_sighting *ib_sightings_next_left(struct ib_sightings *s)
{
    return el_empty(&s->ages) ? NULL : take_oldest(s);
}

void ib_sightings_release(struct ib_sightings *s, struct ib_sighting *g)
{
    ep_release(&s->pool, g, g->index);
}
