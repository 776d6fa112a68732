/* ramp.h - port-pool ramp: one source address takes ports from a pool the way
 * Linux cma_alloc_any_port() does, one REQ/REP/RTU per connection, streaming. */
#ifndef IBSCOPE_GEN_RAMP_H
#define IBSCOPE_GEN_RAMP_H

#include <stdint.h>

#include "gen.h"

typedef struct ramp_opts {
    uint16_t pool_lo, pool_hi; /* inclusive */
    uint64_t connections;      /* connection attempts */
    link_t link;               /* LINK_ERF, LINK_LRH or LINK_ETH (RoCEv2) */
    uint64_t seed;
    unsigned disconnect_pct; /* after each connection, close a random open one with this
                                probability (DREQ/DREP), freeing its port */
    uint32_t gap_us;         /* time between connection attempts */
} ramp_opts_t;

typedef struct ramp_result {
    uint64_t established, failed, closed, max_in_use;
    uint32_t first_full_frame; /* frame at which every pool port was in use (0: never) */
} ramp_result_t;

void ramp_defaults(ramp_opts_t *o);
/* Runs on an opened gen_t; returns 0. */
int ramp_run(gen_t *g, const ramp_opts_t *o, ramp_result_t *res);

#endif
