/* trend.h - one source whose ports in use follow a shape in time, step by
 * step on a fixed clock: a steady ramp, a flat level, a shrinking one, or a
 * level with bursts.  For the exhaustion forecast: the tests know from the
 * options alone when each REQ is sent and how many ports are in use after
 * it. */
#ifndef IBSCOPE_GEN_TREND_H
#define IBSCOPE_GEN_TREND_H

#include <stdint.h>

#include "gen.h"

typedef enum trend_shape {
    TREND_RAMP,   /* a step opens one connection, none is closed; with hold,
                   * every `every` steps `hold` steps open none */
    TREND_FLAT,   /* a step closes the oldest connection and opens one */
    TREND_SHRINK, /* a step closes the oldest connection */
    TREND_BURST,  /* flat, and bursts opened at once and closed again later */
} trend_shape_t;

typedef struct trend_opts {
    trend_shape_t shape;
    uint16_t pool_lo, pool_hi; /* inclusive */
    uint32_t start;            /* connections opened before the first step */
    uint64_t steps;
    uint32_t period_us; /* from one step to the next */
    uint32_t burst;     /* burst: connections opened at once */
    uint32_t every;     /* burst: steps from one burst to the next; ramp:
                         * steps from one pause to the next */
    uint32_t hold;      /* burst: steps a burst stays open; ramp: steps a
                         * pause lasts (0: none) */
    link_t link;
    uint64_t seed;
} trend_opts_t;

typedef struct trend_result {
    uint64_t opened, closed, failed, max_in_use;
} trend_result_t;

#define TREND_UNSET UINT32_MAX

/* The defaults of a shape; start and burst are TREND_UNSET and steps 0
 * until trend_resolve gives them theirs, which follow the pool's size. */
void trend_defaults(trend_opts_t *o, trend_shape_t shape);
/* After the options: start (ramp 0, shrink half the pool, else a quarter),
 * burst (a quarter of the pool), hold (burst 50, ramp 0) and steps (ramp:
 * until the pool is full, shrink: start, else 1000) where not given. */
void trend_resolve(trend_opts_t *o);
/* NULL, or what is wrong with the options. */
const char *trend_check(const trend_opts_t *o);
/* Runs on an opened gen_t; returns 0. */
int trend_run(gen_t *g, const trend_opts_t *o, trend_result_t *res);

#endif
