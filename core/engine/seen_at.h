/* seen_at.h - which captures showed each CM packet, by its first sighting,
 * until the connection it belongs to is reported ("seen at").
 *
 * Internal to the engine (fabric.c).  A capture set is a 64-bit mask: bit
 * i for capture i, captures 63 and above in bit 63.  Bounded: past the cap
 * the oldest entry goes (its connection then shows fewer captures).
 */
#ifndef IBSCOPE_SEEN_AT_H
#define IBSCOPE_SEEN_AT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine_table.h"
#include "finding.h"

#define IB_SEEN_AT_MAX (1u << 18)

struct seen_at_entry {
    uint32_t capture;
    uint64_t frame; /* the first sighting */
    uint64_t mask;
    uint32_t index;
    struct el_link age;
};

struct seen_at {
    struct ep_pool pool;
    struct et_table table;
    struct el_link ages;
    uint64_t evicted;
};

bool seen_at_init(struct seen_at *s);
void seen_at_destroy(struct seen_at *s);
uint64_t seen_at_bit(uint32_t capture);
/* first was seen again on capture; false without memory. */
bool seen_at_add(struct seen_at *s, struct ib_frame_ref first, uint32_t capture);
/* The captures that showed the packet first seen at ref (its own at
 * least), and the entry forgotten: asked once, when its connection ends. */
uint64_t seen_at_take(struct seen_at *s, struct ib_frame_ref ref);

#endif
