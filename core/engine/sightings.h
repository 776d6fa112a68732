/* sightings.h - the packets seen lately, by identity (identity.h), for
 * telling a packet seen on a second capture from a new one.
 *
 * Internal to the engine (clock_sync.c, fabric.c).  Entries are kept in the
 * order they were made, which is time order since frames come in time
 * order; the caller expires the oldest as time goes on (its window) or when
 * the cap is reached, looking at each before it is released.  Memory is
 * bounded by the cap whatever the capture's length.
 */
#ifndef IBSCOPE_SIGHTINGS_H
#define IBSCOPE_SIGHTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine_table.h"
#include "finding.h"
#include "identity.h"

#define IB_SIGHTING_CAPTURES 4 /* captures remembered per packet; more count as seen */

struct ib_sighting {
    struct ib_identity identity;
    struct ib_frame_ref first; /* the earliest sighting */
    uint64_t src_key, dst_key; /* ib_endpoint_key of its addresses */
    uint32_t captures[IB_SIGHTING_CAPTURES];
    int64_t times[IB_SIGHTING_CAPTURES]; /* each one's sighting, as the caller gave it */
    uint8_t capture_count;
    /* fabric.c: a management packet watched for its arrival */
    bool watched, reached;
    uint32_t watch_capture;   /* the capture of its destination's host */
    struct ib_frame_ref sent; /* its sighting on the sender's capture */
    struct ib_endpoint from, to;
    uint8_t mgmt_class, method;
    uint16_t attr_id;
    bool detached;  /* out of the table (ib_sightings_detach) */
    uint32_t index; /* in the pool */
    struct el_link age;
};

struct ib_sightings {
    struct ep_pool pool;
    struct et_table table;
    struct el_link ages; /* oldest first */
    size_t live, cap;
    int64_t window_ns;
    uint64_t evicted; /* expired early by the cap */
};

/* False when out of memory. */
bool ib_sightings_init(struct ib_sightings *s, size_t cap, int64_t window_ns);
void ib_sightings_destroy(struct ib_sightings *s);

/* The live entry of this identity (all 128 bits), NULL when none. */
struct ib_sighting *ib_sightings_find(const struct ib_sightings *s, struct ib_identity identity);
/* A new entry first seen at `at`, with that capture in its list; NULL when
 * out of memory.  An entry of the same identity must not be live. */
struct ib_sighting *ib_sightings_insert(struct ib_sightings *s, struct ib_identity identity,
                                        struct ib_frame_ref at);
bool ib_sighting_seen_by(const struct ib_sighting *g, uint32_t capture);
void ib_sighting_add_capture(struct ib_sighting *g, uint32_t capture, int64_t time_ns);

/* The same bytes again on a capture that showed them: a new packet.  The
 * old entry leaves the table (find no longer sees it) but keeps its place
 * in time, to be due as any other; the new one can then be inserted. */
void ib_sightings_detach(struct ib_sightings *s, struct ib_sighting *g);

/* The oldest entry when its window has passed at now_ns, or when the cap
 * is reached (*early set, counted in evicted); NULL when none is due.  It
 * is out of the table: look at it, then ib_sightings_release it. */
struct ib_sighting *ib_sightings_due(struct ib_sightings *s, int64_t now_ns, bool *early);
/* Every entry left, oldest first (the end of the input). */
struct ib_sighting *ib_sightings_next_left(struct ib_sightings *s);
void ib_sightings_release(struct ib_sightings *s, struct ib_sighting *g);

#endif
