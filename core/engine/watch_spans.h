/* watch_spans.h - when a capture was capturing: the runs of its frames.
 *
 * Internal to the engine (clock_sync.c gathers, fabric.c asks).  A capture
 * shows that it was capturing where it has frames: its frames' times, on
 * its own clock, joined into runs wherever two are no more than
 * IB_WATCH_GAP_NS apart.  A gap longer than that (a capture stopped, its
 * host's clock stepped, a stray frame long after the rest) is not watched.
 * Memory: one run per gap; past the caller's cap a frame extends the last
 * run instead, as if the gap had been watched.
 */
#ifndef IBSCOPE_WATCH_SPANS_H
#define IBSCOPE_WATCH_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct watch_run {
    int64_t from, to;
};

struct watch_spans {
    struct watch_run *runs;
    size_t count, cap;
};

/* A frame at t (frames in the capture's order, its clock may step back).
 * room: a new run may be made.  False when t made no run it needed (no
 * room, or no memory): the last run was stretched over the gap. */
bool ws_add(struct watch_spans *w, int64_t t, bool room);
/* After the last frame: the runs in time order, those that meet joined. */
void ws_finish(struct watch_spans *w);
/* Whether one run holds [from, to] (after ws_finish). */
bool ws_covers(const struct watch_spans *w, int64_t from, int64_t to);
void ws_free(struct watch_spans *w);

#endif
