/* engine_cm.h - CM connections (engine_cm.c): their state in the engine and
 * what the entry points call. */
#ifndef IBSCOPE_ENGINE_CM_H
#define IBSCOPE_ENGINE_CM_H

#include "engine.h"
#include "engine_table.h"

/* A due time of the connection timers (FIFO or heap): the connection of pool index
 * self and record index `index` (stale once that connection is gone). */
struct eng_due {
    int64_t at_ns;
    uint32_t self, index;
};

struct eng_cm {
    struct et_table conns; /* (active node, LocalCommID, SIDR?) -> eng_conn */
    struct et_table alts;  /* (alternate path's active LID, LocalCommID) -> eng_conn, for
                            * connections whose REQ or LAP names an alternate path */
    struct ep_pool conn_pool;
    struct ep_pool extra_pool; /* the rarely needed parts of connections (conn_extra) */
    struct el_link age;        /* open connections, oldest REQ first */
    struct el_link ended;      /* ended ones still findable for late copies, oldest end first */
    size_t conn_count;         /* open and ended ones */
    size_t ended_count;        /* of them ended */
    size_t waiting;            /* open ones waiting for an answer (REQ, REP, DREQ sent) */
    uint32_t next_conn_index;
    struct eng_due *ring; /* the connections' timers set in order of due time, a FIFO */
    size_t ring_head, ring_count, ring_cap; /* ring_cap: 0 or a power of two */
    struct eng_due *heap;                   /* the others, a binary min-heap */
    size_t heap_len, heap_cap;
    size_t heap_count; /* the timers pending, heap_len + ring_count (ib_engine_has_timers) */
    int64_t first_due; /* the earliest of them (INT64_MAX: none) */
};

bool eng_cm_init(struct ib_engine *e);
void eng_cm_destroy(struct ib_engine *e);
/* The timers of connections due before now: gave up, or forgotten. */
void eng_cm_expire(struct ib_engine *e, int64_t now_ns);
void eng_cm_feed(struct ib_engine *e, const struct ib_packet *p);
void eng_cm_finish(struct ib_engine *e);

#endif
