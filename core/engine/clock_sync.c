/* clock_sync.c - the captures' clock offsets and who owns which address,
 * from packets seen on two captures (fabric.h, step 1). */
#include "fabric.h"

#include <stdlib.h>
#include <string.h>

#include "clock_sync.h"
#include "identity.h"

struct ib_clock_sync *ib_clock_sync_new(size_t captures, const struct ib_hash_key *key)
{
    struct ib_clock_sync *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    cs->key = *key;
    cs->count = captures;
    cs->clocks = calloc(captures ? captures : 1, sizeof *cs->clocks);
    cs->watch = calloc(captures ? captures : 1, sizeof *cs->watch);
    ep_init(&cs->pool, sizeof(struct pair_source));
    bool ok = et_init(&cs->table, 64, &cs->pool) && cst_init(&cs->steps, captures);
    if (!ib_sightings_init(&cs->window, IB_SIGHTINGS_MAX, IB_CLOCK_MAX_OFFSET_NS) || !ok ||
        !cs->clocks || !cs->watch) {
        ib_clock_sync_free(cs);
        return NULL;
    }
    for (size_t i = 0; i < captures; i++)
        cs->clocks[i].reference = (uint32_t)i;
    return cs;
}

void ib_clock_sync_free(struct ib_clock_sync *cs)
{
    if (!cs)
        return;
    ib_sightings_destroy(&cs->window);
    cst_free(&cs->steps);
    et_destroy(&cs->table);
    ep_destroy(&cs->pool);
    for (size_t i = 0; cs->watch && i < cs->count; i++)
        ws_free(&cs->watch[i]);
    free(cs->watch);
    free(cs->clocks);
    free(cs->owners);
    free(cs);
}

const struct ib_hash_key *ib_clock_sync_key(const struct ib_clock_sync *cs)
{
    return &cs->key;
}

void ib_clock_sync_frame(struct ib_clock_sync *cs, uint32_t capture, int64_t time_ns)
{
    if (capture >= cs->count)
        return;
    struct ib_capture_clock *c = &cs->clocks[capture];
    if (!c->has_span) {
        c->has_span = true;
        c->first_ns = c->last_ns = time_ns;
    }
    if (time_ns < c->first_ns)
        c->first_ns = time_ns;
    if (time_ns > c->last_ns)
        c->last_ns = time_ns;
    cst_frame(&cs->steps, capture, time_ns);
    struct watch_spans *w = &cs->watch[capture];
    size_t before = w->count;
    if (!ws_add(w, time_ns, cs->watch_runs < IB_WATCH_RUNS_MAX))
        cs->dropped++;
    cs->watch_runs += w->count - before;
}

bool ib_clock_sync_watching(const struct ib_clock_sync *cs, uint32_t capture, int64_t from_ns,
                            int64_t to_ns)
{
    return capture < cs->count && ws_covers(&cs->watch[capture], from_ns, to_ns);
}

static bool same_pair_source(const void *item, const void *key)
{
    const struct pair_source *a = item, *b = key;
    return a->lo == b->lo && a->hi == b->hi && a->src == b->src;
}

/* One packet of source src seen on captures a (at ta) and b (at tb). */
static void add_pair(struct ib_clock_sync *cs, uint32_t a, int64_t ta, uint32_t b, int64_t tb,
                     uint64_t src)
{
    struct pair_source key = { a < b ? a : b, a < b ? b : a, src, 0, 0, 0 };
    int64_t diff = a < b ? tb - ta : ta - tb;
    uint64_t h = et_hash(&key, offsetof(struct pair_source, min_diff));
    struct pair_source *ps = et_find(&cs->table, h, same_pair_source, &key);
    if (ps) {
        if (diff < ps->min_diff)
            ps->min_diff = diff;
        if (diff > ps->max_diff)
            ps->max_diff = diff;
        return;
    }
    uint32_t index;
    if (cs->pool.live >= IB_CLOCK_SOURCES_MAX || !(ps = ep_alloc(&cs->pool, &index))) {
        cs->dropped++;
        return;
    }
    *ps = key;
    ps->min_diff = ps->max_diff = diff;
    ps->index = index;
    if (!et_insert(&cs->table, h, index)) {
        ep_release(&cs->pool, ps, index);
        cs->dropped++;
    }
}

void ib_clock_sync_packet(struct ib_clock_sync *cs, uint32_t capture, int64_t time_ns,
                          struct ib_identity identity, const struct ib_packet *p)
{
    bool early;
    struct ib_sighting *old;
    cst_packet(&cs->steps, capture, time_ns, identity);
    while ((old = ib_sightings_due(&cs->window, time_ns, &early)))
        ib_sightings_release(&cs->window, old);
    struct ib_sighting *g = ib_sightings_find(&cs->window, identity);
    if (g && !ib_sighting_seen_by(g, capture)) {
        if (g->capture_count == 1)
            cs->shared++;
        /* with every capture that saw it before, not the first only: a
         * capture that saw both directions (a mirror) must not stand
         * between two hosts that share the packet */
        for (unsigned i = 0; i < g->capture_count; i++)
            add_pair(cs, g->captures[i], g->times[i], capture, time_ns, g->src_key);
        ib_sighting_add_capture(g, capture, time_ns);
        return;
    }
    if (g) /* the same bytes sent again by its host: a packet of its own */
        ib_sightings_detach(&cs->window, g);
    struct ib_frame_ref at = { capture, 0, time_ns };
    g = ib_sightings_insert(&cs->window, identity, at);
    if (g)
        g->src_key = ib_endpoint_key(&cs->key, &p->src);
    else
        cs->dropped++;
}

uint64_t ib_clock_sync_shared(const struct ib_clock_sync *cs)
{
    return cs->shared;
}

const struct ib_capture_clock *ib_clock_sync_capture(const struct ib_clock_sync *cs,
                                                     uint32_t capture)
{
    return capture < cs->count ? &cs->clocks[capture] : NULL;
}

uint64_t ib_clock_sync_dropped(const struct ib_clock_sync *cs)
{
    return cs->dropped + cs->window.evicted + cs->steps.dropped;
}
