/* clock_sync.h - what step 1 of fabric.h gathers, for its solver.
 * Internal to the engine (clock_sync.c gathers, clock_solve.c solves). */
#ifndef IBSCOPE_CLOCK_SYNC_H
#define IBSCOPE_CLOCK_SYNC_H

#include "clock_steps.h"
#include "engine_table.h"
#include "fabric.h"
#include "sightings.h"
#include "watch_spans.h"

/* The packets one source sent, seen on captures lo < hi: the least and the
 * most of t_hi - t_lo. */
struct pair_source {
    uint32_t lo, hi;
    uint64_t src;
    int64_t min_diff, max_diff;
    uint32_t index;
};

struct ib_clock_sync {
    struct ib_hash_key key;
    size_t count;
    struct ib_capture_clock *clocks;
    struct watch_spans *watch; /* one per capture */
    size_t watch_runs;         /* all captures' */
    struct clock_steps steps;
    struct ib_sightings window;
    struct ep_pool pool; /* struct pair_source */
    struct et_table table;
    uint64_t shared, dropped;
    struct owner {
        uint64_t key;
        uint32_t capture;
    } * owners;
    size_t owner_count;
};

#endif
