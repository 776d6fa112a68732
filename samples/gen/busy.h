/* busy.h - many connections open at once: several sources connect to several
 * servers with source ports drawn at random, and the open set is held at a
 * size, for the analyzer's speed when its state tables are full. */
#ifndef IBSCOPE_GEN_BUSY_H
#define IBSCOPE_GEN_BUSY_H

#include <stdint.h>

#include "gen.h"

typedef struct busy_opts {
    uint16_t pool_lo, pool_hi; /* inclusive */
    uint32_t sources, servers;
    uint64_t open;        /* connections held open once reached */
    uint64_t connections; /* connections made in all */
    link_t link;
    uint64_t seed;
    uint32_t gap_us; /* time between connections */
} busy_opts_t;

typedef struct busy_result {
    uint64_t established, closed, max_open;
} busy_result_t;

void busy_defaults(busy_opts_t *o);
/* Checks that the open set fits the sources' pools; NULL or what is wrong. */
const char *busy_check(const busy_opts_t *o);
int busy_run(gen_t *g, const busy_opts_t *o, busy_result_t *res);

#endif
