/* time_series.c - a value over time in a fixed number of columns (time_series.h). */
#include "time_series.h"

#include <string.h>

/* The first column's width: one microsecond, doubled as the capture goes on. */
#define SERIES_FIRST_WIDTH_NS 1000

void series_init(struct series *s, enum series_kind kind)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
}

static void merge(struct series_column *into, const struct series_column *a,
                  const struct series_column *b, enum series_kind kind)
{
    if (kind == SERIES_SUM) {
        if (__builtin_add_overflow(a->sum, b->sum, &into->sum))
            into->sum = UINT64_MAX;
    } else if (kind == SERIES_COUNT) {
        uint64_t sum = (uint64_t)a->hi + b->hi;
        into->lo = 0;
        into->hi = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
    } else {
        into->lo = a->lo < b->lo ? a->lo : b->lo;
        into->hi = a->hi > b->hi ? a->hi : b->hi;
    }
}

/* Doubles the columns' width.  A level column past `last` was never
 * written: it holds the level, which the column `last` already spans. */
static void widen(struct series *s)
{
    for (uint32_t i = 0; i < SERIES_COLUMNS / 2; i++) {
        uint32_t a = 2 * i, b = 2 * i + 1;
        if (s->kind == SERIES_LEVEL && b > s->last)
            s->col[i] = s->col[a];
        else
            merge(&s->col[i], &s->col[a], &s->col[b], s->kind);
    }
    memset(&s->col[SERIES_COLUMNS / 2], 0, sizeof(s->col) / 2);
    s->last /= 2;
    s->width *= 2;
}

void series_start(struct series *s, int64_t t0)
{
    if (s->started)
        return;
    s->started = true;
    s->t0 = t0;
    s->width = SERIES_FIRST_WIDTH_NS;
}

void series_widen_to(struct series *s, int64_t width)
{
    while (s->started && s->width < width)
        widen(s);
}

/* The column for time t, widening until there is one; the first time seen
 * starts the series. */
static uint32_t place(struct series *s, int64_t t)
{
    series_start(s, t);
    if (t <= s->t0)
        return 0; /* clocks can step back: the first column takes it */
    while ((uint64_t)(t - s->t0) / (uint64_t)s->width >= SERIES_COLUMNS)
        widen(s);
    return (uint32_t)((t - s->t0) / s->width);
}

int64_t series_column_start(const struct series *s, uint32_t i)
{
    int64_t off, at;
    if (__builtin_mul_overflow((int64_t)i, s->width, &off) ||
        __builtin_add_overflow(s->t0, off, &at))
        return INT64_MAX; /* past any capture's end: clocks near the limits */
    return at;
}

uint32_t series_column_of(const struct series *s, int64_t t)
{
    if (!s->started || t <= s->t0)
        return 0;
    uint64_t c = (uint64_t)(t - s->t0) / (uint64_t)s->width;
    return c >= SERIES_COLUMNS ? SERIES_COLUMNS - 1 : (uint32_t)c;
}

void series_level(struct series *s, int64_t t, uint32_t v)
{
    bool first = !s->started;
    uint32_t c = place(s, t);
    /* A time before the last change (clocks can step back) counts in the
     * last column: the level it leaves is the level from there on. */
    if (!first && c < s->last)
        c = s->last;
    if (first) {
        s->col[0].lo = s->col[0].hi = 0; /* nothing in use before */
        s->last = 0;
    }
    /* Columns between the last change and this one held the level. */
    for (uint32_t i = s->last + 1; i <= c; i++)
        s->col[i].lo = s->col[i].hi = s->level;
    if (c > s->last)
        s->last = c;
    struct series_column *col = &s->col[c];
    if (v < col->lo)
        col->lo = v;
    if (v > col->hi)
        col->hi = v;
    s->level = v;
}

void series_count(struct series *s, int64_t t, uint32_t n)
{
    uint32_t c = place(s, t);
    uint64_t sum = (uint64_t)s->col[c].hi + n;
    s->col[c].hi = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
    if (c > s->last)
        s->last = c;
}

void series_add_span(struct series *s, int64_t from, int64_t to)
{
    if (to <= from)
        return;
    series_start(s, from);
    uint32_t last = place(s, to - 1), first = series_column_of(s, from);
    for (uint32_t c = first; c <= last; c++) {
        int64_t lo = c == first ? from : series_column_start(s, c);
        int64_t hi = c == last ? to : series_column_start(s, c + 1);
        if (__builtin_add_overflow(s->col[c].sum, (uint64_t)hi - (uint64_t)lo, &s->col[c].sum))
            s->col[c].sum = UINT64_MAX;
    }
    if (last > s->last)
        s->last = last;
}
