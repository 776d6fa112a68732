/* clock_solve.c - the offsets and owners from the (pair, source) figures
 * (fabric.h, step 1): each pair's sources split in their two directions,
 * NTP's estimate and bound, then each capture corrected to its group's
 * first along the links whose errors add up least. */
#include <stdlib.h>
#include <string.h>

#include "clock_sync.h"

struct link {
    uint32_t lo, hi;
    int64_t offset_ns; /* hi's clock minus lo's */
    int64_t error_ns;
};

static int by_pair_then_min(const void *a, const void *b)
{
    const struct pair_source *x = *(const struct pair_source *const *)a;
    const struct pair_source *y = *(const struct pair_source *const *)b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    if (x->min_diff != y->min_diff)
        return x->min_diff < y->min_diff ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

static int by_key(const void *a, const void *b)
{
    const struct owner *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->capture < y->capture ? -1 : x->capture > y->capture;
}

/* One pair's sources, sorted by their least difference: the split with the
 * widest gap between the most of those below and the least of those above.
 * Those above went lo -> hi (t_hi - t_lo = offset + delay), those below
 * hi -> lo (offset - delay).  False when no split leaves a gap. */
static bool split_pair(struct pair_source *const *ps, size_t n, size_t *at, struct link *l)
{
    int64_t below = 0, best = 0;
    for (size_t k = 1; k < n; k++) {
        below = k == 1 || ps[k - 1]->max_diff > below ? ps[k - 1]->max_diff : below;
        int64_t gap = ps[k]->min_diff - below;
        if (gap > best) {
            best = gap;
            *at = k;
            l->lo = ps[0]->lo;
            l->hi = ps[0]->hi;
            /* the offset lies strictly inside the gap */
            l->offset_ns = below + gap / 2;
            l->error_ns = (gap + 1) / 2;
        }
    }
    return best > 0;
}

static void add_owner(struct ib_clock_sync *cs, uint64_t key, uint32_t capture)
{
    cs->owners[cs->owner_count].key = key;
    cs->owners[cs->owner_count++].capture = capture;
}

/* Every pair's link, and the owners of its sources; the count of links. */
static size_t pair_links(struct ib_clock_sync *cs, struct pair_source **ps, size_t n,
                         struct link *links)
{
    size_t count = 0;
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && ps[b]->lo == ps[a]->lo && ps[b]->hi == ps[a]->hi; b++)
            ;
        size_t at = 0;
        if (!split_pair(ps + a, b - a, &at, &links[count]))
            continue;
        count++;
        for (size_t k = a; k < b; k++)
            add_owner(cs, ps[k]->src, k - a >= at ? ps[k]->lo : ps[k]->hi);
    }
    return count;
}

/* One owner per address: the capture most pairs name (sorted by key, then
 * capture), the first of those on a tie.  A host's capture is named by
 * every pair it is in; a capture that saw both directions (a mirror) is
 * named for another's addresses only by the pair it makes with that one. */
static void vote_owners(struct ib_clock_sync *cs)
{
    size_t n = 0;
    for (size_t a = 0, b; a < cs->owner_count; a = b) {
        size_t best = a, best_votes = 0;
        for (b = a; b < cs->owner_count && cs->owners[b].key == cs->owners[a].key;) {
            size_t c = b;
            while (b < cs->owner_count && cs->owners[b].key == cs->owners[c].key &&
                   cs->owners[b].capture == cs->owners[c].capture)
                b++;
            if (b - c > best_votes) {
                best = c;
                best_votes = b - c;
            }
        }
        cs->owners[n++] = cs->owners[best];
    }
    cs->owner_count = n;
}

/* Dijkstra from each capture not reached yet, by summed error. */
static void correct(struct ib_clock_sync *cs, const struct link *links, size_t nl, bool *done)
{
    struct ib_capture_clock *c = cs->clocks;
    for (size_t i = 0; i < cs->count; i++)
        c[i].error_ns = -1; /* not reached */
    for (size_t ref = 0; ref < cs->count; ref++) {
        if (done[ref])
            continue;
        c[ref].error_ns = 0;
        for (;;) {
            size_t u = cs->count;
            for (size_t i = 0; i < cs->count; i++)
                if (!done[i] && c[i].error_ns >= 0 &&
                    (u == cs->count || c[i].error_ns < c[u].error_ns))
                    u = i;
            if (u == cs->count)
                break;
            done[u] = true;
            c[u].reference = (uint32_t)ref;
            for (size_t k = 0; k < nl; k++) {
                const struct link *l = &links[k];
                if (l->lo != u && l->hi != u)
                    continue;
                size_t v = l->lo == u ? l->hi : l->lo;
                int64_t err = c[u].error_ns + l->error_ns;
                if (done[v] || (c[v].error_ns >= 0 && c[v].error_ns <= err))
                    continue;
                c[v].error_ns = err;
                c[v].offset_ns = c[u].offset_ns + (l->lo == u ? l->offset_ns : -l->offset_ns);
                c[v].linked = c[u].linked = true;
            }
        }
    }
}

static struct pair_source **gather(struct ib_clock_sync *cs, size_t *n)
{
    struct pair_source **ps = malloc((cs->pool.live ? cs->pool.live : 1) * sizeof *ps);
    *n = 0;
    if (!ps)
        return NULL;
    for (size_t i = 0; i <= cs->table.mask; i++)
        if (cs->table.slots[i].ref && *n < cs->pool.live)
            ps[(*n)++] = ep_item(&cs->pool, cs->table.slots[i].ref - 1);
    qsort(ps, *n, sizeof *ps, by_pair_then_min);
    return ps;
}

void ib_clock_sync_solve(struct ib_clock_sync *cs)
{
    size_t n;
    struct pair_source **ps = gather(cs, &n);
    struct link *links = malloc((n ? n : 1) * sizeof *links);
    bool *done = calloc(cs->count ? cs->count : 1, sizeof *done);
    free(cs->owners);
    cs->owner_count = 0;
    cs->owners = malloc((n ? n : 1) * sizeof *cs->owners);
    if (!ps || !links || !done || !cs->owners) {
        cs->dropped += n ? n : 1;
        n = 0;
    }
    size_t nl = cs->owners ? pair_links(cs, ps, n, links) : 0;
    if (cs->owners) {
        qsort(cs->owners, cs->owner_count, sizeof *cs->owners, by_key);
        vote_owners(cs);
    }
    if (done)
        correct(cs, links, nl, done);
    for (size_t i = 0; i < cs->count; i++)
        ws_finish(&cs->watch[i]);
    cst_finish(&cs->steps);
    for (size_t i = 0; i < cs->count; i++)
        if (!cs->clocks[i].linked)
            cs->clocks[i].offset_ns = cs->clocks[i].error_ns = 0;
    free(ps);
    free(links);
    free(done);
}

int64_t ib_clock_sync_owner(const struct ib_clock_sync *cs, uint64_t endpoint_key)
{
    size_t lo = 0, hi = cs->owner_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cs->owners[mid].key < endpoint_key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cs->owner_count && cs->owners[lo].key == endpoint_key
               ? (int64_t)cs->owners[lo].capture
               : -1;
}
