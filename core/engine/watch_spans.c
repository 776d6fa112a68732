/* watch_spans.c - the runs of a capture's frames (watch_spans.h). */
#include "watch_spans.h"

#include <stdlib.h>

#include "fabric.h"

/* Times are within +-IB_TIME_NS_LIMIT: these differences cannot overflow. */
static bool near(const struct watch_run *r, int64_t t)
{
    return t >= r->from - IB_WATCH_GAP_NS && t <= r->to + IB_WATCH_GAP_NS;
}

static void stretch(struct watch_run *r, int64_t t)
{
    if (t < r->from)
        r->from = t;
    if (t > r->to)
        r->to = t;
}

bool ws_add(struct watch_spans *w, int64_t t, bool room)
{
    struct watch_run *last = w->count ? &w->runs[w->count - 1] : NULL;
    if (last && near(last, t)) {
        stretch(last, t);
        return true;
    }
    if (room && w->count == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        struct watch_run *r = realloc(w->runs, cap * sizeof *r);
        if (r) {
            w->runs = r;
            w->cap = cap;
        }
    }
    if (room && w->count < w->cap) {
        w->runs[w->count++] = (struct watch_run){ t, t };
        return true;
    }
    if (last)
        stretch(last, t);
    return false; /* without a run at all, the capture is never watching */
}

static int by_from(const void *a, const void *b)
{
    const struct watch_run *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

void ws_finish(struct watch_spans *w)
{
    if (w->count < 2)
        return;
    qsort(w->runs, w->count, sizeof *w->runs, by_from);
    size_t n = 0;
    for (size_t i = 1; i < w->count; i++) {
        if (near(&w->runs[n], w->runs[i].from))
            stretch(&w->runs[n], w->runs[i].to);
        else
            w->runs[++n] = w->runs[i];
    }
    w->count = n + 1;
}

bool ws_covers(const struct watch_spans *w, int64_t from, int64_t to)
{
    size_t lo = 0, hi = w->count; /* the first run that starts after from */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->runs[mid].from <= from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && w->runs[lo - 1].to >= to;
}

void ws_free(struct watch_spans *w)
{
    free(w->runs);
    w->runs = NULL;
    w->count = w->cap = 0;
}
