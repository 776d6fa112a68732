/* frame_table.c - what the first pass left for later passes, by frame number. */
#include "frame_table.h"

#include <stdlib.h>

bool ibs_frame_table_add(struct ibs_frame_table *t, const struct ibs_stored *st)
{
    if (t->count > 0 && st->frame <= t->items[t->count - 1].frame)
        return false;
    if (t->count == t->capacity) {
        size_t cap = t->capacity ? t->capacity * 2 : 1024;
        if (cap > SIZE_MAX / sizeof *t->items)
            return false;
        struct ibs_stored *grown = realloc(t->items, cap * sizeof *t->items);
        if (!grown)
            return false;
        t->items = grown;
        t->capacity = cap;
    }
    t->items[t->count++] = *st;
    return true;
}

const struct ibs_stored *ibs_frame_table_find(struct ibs_frame_table *t, uint32_t frame)
{
    /* In order (tshark -2, a redissection): a step or two past the cursor
     * settles it, whether the frame has an entry or falls between two. */
    size_t c = t->cursor;
    if (c < t->count && t->items[c].frame <= frame) {
        for (size_t steps = 0; steps < 2 && c + 1 < t->count && t->items[c + 1].frame <= frame;
             steps++)
            c++;
        if (t->items[c].frame == frame || c + 1 == t->count || t->items[c + 1].frame > frame) {
            t->cursor = c;
            return t->items[c].frame == frame ? &t->items[c] : NULL;
        }
    }
    /* Anywhere else (a click in the GUI): the first entry not below frame. */
    size_t lo = 0, hi = t->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->items[mid].frame < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->count && t->items[lo].frame == frame) {
        t->cursor = lo;
        return &t->items[lo];
    }
    t->cursor = lo > 0 ? lo - 1 : 0;
    return NULL;
}

void ibs_frame_table_clear(struct ibs_frame_table *t)
{
    free(t->items);
    *t = (struct ibs_frame_table){ 0 };
}

struct ibs_stored *ibs_frame_table_find_mut(struct ibs_frame_table *t, uint32_t frame)
{
    /* The entry is the table's own: found through the one search. */
    const struct ibs_stored *st = ibs_frame_table_find(t, frame);
    return st ? &t->items[st - t->items] : NULL;
}
