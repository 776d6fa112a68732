/* clock_steps.c - gaps in a capture's frames, and which of them are its
 * clock stepping (clock_steps.h). */
#include "clock_steps.h"

#include <stdlib.h>
#include <string.h>

/* Differences of own-clock times past this are no clocks (73 years): left
 * out, so that the differences of two of them cannot overflow. */
#define DIFF_LIMIT (INT64_C(1) << 61)

bool cst_init(struct clock_steps *st, size_t captures)
{
    memset(st, 0, sizeof *st);
    st->count = captures;
    st->captures = calloc(captures ? captures : 1, sizeof *st->captures);
    return st->captures != NULL;
}

void cst_free(struct clock_steps *st)
{
    free(st->captures);
    free(st->gaps);
    free(st->keys);
    memset(st, 0, sizeof *st);
}

/* A new gap before this frame of c; false without room or memory. */
static bool open_gap(struct clock_steps *st, uint32_t capture, int64_t jump)
{
    if (st->gap_count == IB_CLOCK_GAPS_MAX)
        return false;
    if (st->gap_count == st->gap_cap) {
        size_t cap = st->gap_cap ? st->gap_cap * 2 : 8;
        struct step_gap *g = realloc(st->gaps, cap * sizeof *g);
        if (!g)
            return false;
        st->gaps = g;
        st->gap_cap = cap;
    }
    struct step_capture *c = &st->captures[capture];
    struct step_gap *g = &st->gaps[st->gap_count++];
    memset(g, 0, sizeof *g);
    g->capture = capture;
    g->frame = c->frames;
    g->jump_ns = jump;
    /* the ring, oldest first */
    for (uint8_t k = 0; k < c->recent_count; k++) {
        uint8_t at = (uint8_t)((c->recent_next + CLOCK_STEP_PROBES - c->recent_count + k) %
                               CLOCK_STEP_PROBES);
        g->before[g->before_count++] = c->recent[at];
    }
    c->open = st->gap_count;
    return true;
}

void cst_frame(struct clock_steps *st, uint32_t capture, int64_t time_ns)
{
    if (capture >= st->count)
        return;
    struct step_capture *c = &st->captures[capture];
    int64_t last = c->last_ns;
    bool first = c->frames++ == 0;
    c->last_ns = time_ns;
    /* times are within +-IB_TIME_NS_LIMIT: the difference fits */
    if (first || (time_ns - last <= IB_WATCH_GAP_NS && last - time_ns <= IB_WATCH_GAP_NS))
        return;
    if (!open_gap(st, capture, time_ns - last)) {
        st->dropped++;
        c->open = 0;
    }
    c->recent_count = 0; /* what came before this gap is not after the next */
}

void cst_packet(struct clock_steps *st, uint32_t capture, int64_t time_ns, struct ib_identity id)
{
    if (capture >= st->count)
        return;
    struct step_capture *c = &st->captures[capture];
    struct step_probe p = { id, time_ns };
    c->recent[c->recent_next] = p;
    c->recent_next = (uint8_t)((c->recent_next + 1) % CLOCK_STEP_PROBES);
    if (c->recent_count < CLOCK_STEP_PROBES)
        c->recent_count++;
    if (c->open) {
        struct step_gap *g = &st->gaps[c->open - 1];
        g->after[g->after_count++] = p;
        if (g->after_count == CLOCK_STEP_PROBES)
            c->open = 0;
    }
}

static int by_capture_frame(const void *a, const void *b)
{
    const struct step_gap *x = a, *y = b;
    if (x->capture != y->capture)
        return x->capture < y->capture ? -1 : 1;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int by_identity(const void *a, const void *b)
{
    const struct step_key *x = a, *y = b;
    if (x->id.hash != y->id.hash)
        return x->id.hash < y->id.hash ? -1 : 1;
    if (x->id.check != y->id.check)
        return x->id.check < y->id.check ? -1 : 1;
    return x->gap < y->gap ? -1 : x->gap > y->gap;
}

void cst_finish(struct clock_steps *st)
{
    if (st->gap_count == 0)
        return;
    qsort(st->gaps, st->gap_count, sizeof *st->gaps, by_capture_frame);
    st->keys = malloc(st->gap_count * 2 * CLOCK_STEP_PROBES * sizeof *st->keys);
    if (!st->keys) {
        st->dropped += st->gap_count;
        st->gap_count = 0;
        return;
    }
    for (size_t i = 0; i < st->gap_count; i++) {
        const struct step_gap *g = &st->gaps[i];
        if (g->before_count == 0 || g->after_count == 0)
            continue; /* nothing to measure it by */
        for (uint8_t k = 0; k < g->before_count; k++)
            st->keys[st->key_count++] =
                (struct step_key){ g->before[k].id, (uint32_t)i, false, g->before[k].t };
        for (uint8_t k = 0; k < g->after_count; k++)
            st->keys[st->key_count++] =
                (struct step_key){ g->after[k].id, (uint32_t)i, true, g->after[k].t };
    }
    qsort(st->keys, st->key_count, sizeof *st->keys, by_identity);
}

static void add_figure(struct step_figures *f, uint32_t other, uint64_t frame, bool after,
                       int64_t diff)
{
    if (!f->any) {
        f->any = true;
        f->other = other;
        f->first_frame = f->last_frame = frame;
    }
    if (f->other != other)
        return; /* one other capture measures a gap */
    if (frame < f->first_frame)
        f->first_frame = frame;
    if (frame > f->last_frame)
        f->last_frame = frame;
    int64_t *lo = after ? &f->min_after : &f->min_before;
    int64_t *hi = after ? &f->max_after : &f->max_before;
    uint32_t *n = after ? &f->after : &f->before;
    if (*n == 0 || diff < *lo)
        *lo = diff;
    if (*n == 0 || diff > *hi)
        *hi = diff;
    (*n)++;
}

void cst_seen(const struct clock_steps *st, struct step_figures *figures, uint32_t capture,
              uint64_t frame, int64_t own_ns, struct ib_identity id)
{
    size_t lo = 0, hi = st->key_count;
    while (lo < hi) { /* the first key of this identity */
        size_t mid = lo + (hi - lo) / 2;
        const struct ib_identity *k = &st->keys[mid].id;
        if (k->hash < id.hash || (k->hash == id.hash && k->check < id.check))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < st->key_count && ib_identity_equal(st->keys[lo].id, id); lo++) {
        const struct step_key *k = &st->keys[lo];
        int64_t diff = k->t - own_ns; /* both within +-IB_TIME_NS_LIMIT */
        if (st->gaps[k->gap].capture != capture && diff < DIFF_LIMIT && diff > -DIFF_LIMIT)
            add_figure(&figures[k->gap], capture, frame, k->after, diff);
    }
}

/* Whether capture c has a gap with a frame in (from, to]: its copies
 * would not all be on one clock. */
static bool gap_between(const struct clock_steps *st, uint32_t c, uint64_t from, uint64_t to)
{
    for (size_t i = 0; i < st->gap_count; i++)
        if (st->gaps[i].capture == c && st->gaps[i].frame > from && st->gaps[i].frame <= to)
            return true;
    return false;
}

bool cst_step(const struct clock_steps *st, const struct step_figures *figures, size_t i,
              struct ib_clock_step *out)
{
    if (i >= st->gap_count)
        return false;
    const struct step_gap *g = &st->gaps[i];
    const struct step_figures *f = &figures[i];
    if (!f->any || f->before < 1 || f->after < 2 ||
        gap_between(st, f->other, f->first_frame, f->last_frame))
        return false;
    /* each below DIFF_LIMIT in size: these cannot overflow */
    int64_t least = f->min_after - f->max_before, most = f->max_after - f->min_before;
    bool forward = least >= IB_WATCH_GAP_NS && g->jump_ns > 0;
    bool back = most <= -IB_WATCH_GAP_NS && g->jump_ns < 0;
    if (!(forward || back) || g->jump_ns < least)
        return false;
    out->capture = g->capture;
    out->frame = g->frame;
    out->against = f->other;
    out->step_ns = least + (most - least) / 2;
    out->error_ns = (most - least + 1) / 2;
    return true;
}
