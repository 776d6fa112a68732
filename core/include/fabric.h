/* fabric.h - several captures of one fabric (one per host) as one.
 *
 * A packet captured on its sender's host and on its receiver's is one
 * packet seen twice: its identity (identity.h) is the same in both.  Two
 * steps, over the captures read twice:
 *
 * 1. The clocks (ib_clock_sync): the management packets (CM and MADs) of
 *    every capture, each on its own clock.  For two captures A and B, a
 *    packet sent A -> B is seen at tB - tA = offset + delay, one sent
 *    B -> A at tB - tA = offset - delay: the two directions fall on either
 *    side of the offset.  As NTP has it, with d1 the least tB - tA of the
 *    first and d2 the least tA - tB of the second, offset = (d1 - d2) / 2
 *    and |error| <= (d1 + d2) / 2.  Which packets went which way: those of
 *    one source address all go one way, so the sources of a pair split in
 *    two groups whose differences do not overlap (the widest gap between
 *    them); the group above the gap was sent by A, whose host so owns
 *    those addresses (where pairs disagree, the capture most pairs name).
 *    A packet seen on several captures counts for every pair of them.
 *    Each capture is then corrected to the first capture of its group
 *    (capture 0 for all that share packets with it) along the links whose
 *    errors add up least.  Each capture's frames are kept as runs (where
 *    it was capturing: IB_WATCH_GAP_NS), and the packets either side of
 *    each gap between runs.
 * 2. The analysis (ib_fabric): every frame in corrected time order.  A
 *    packet already seen on another capture within the window is a repeat
 *    sighting, not fed to the engine; a management packet seen on the
 *    capture of its sender (whichever saw it first), to an address another
 *    capture's host owns, that this capture does not show within the
 *    window although one run of its frames holds the window, is
 *    not_delivered.  A gap whose packets' copies on another capture moved
 *    by as much as the frames jumped is the capture's clock stepping
 *    (clock_steps.h), reported; either way the gap is not watched.
 *
 * Memory is bounded: both steps keep a window of recent sightings (capped,
 * evictions counted), a table of (pair, source) figures (capped) and the
 * runs of frames (capped).
 */
#ifndef IBSCOPE_FABRIC_H
#define IBSCOPE_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "identity.h"

/* Clocks further apart than this are not linked (step 1 pairs sightings
 * this close on the captures' own clocks). */
#define IB_CLOCK_MAX_OFFSET_NS (60LL * 1000000000LL)
/* Step 2: a copy seen on another capture within this long after the first
 * sighting (corrected) is the same packet; a management packet not seen at
 * its destination within it is not_delivered. */
#define IB_DELIVERY_WINDOW_MS 100 /* (a bare number: finding.c spells it out) */
#define IB_DELIVERY_WINDOW_NS (IB_DELIVERY_WINDOW_MS * 1000000LL)
#define IB_SIGHTINGS_MAX      (1u << 18) /* packets kept in a window */
/* A capture watches where it shows frames: runs of its frames no more than
 * this far apart.  A longer gap (the capture stopped, its host's clock
 * stepped, one stray frame long after the rest) is not watched, and what
 * was sent to its host then is not judged. */
#define IB_WATCH_GAP_NS      1000000000LL
#define IB_WATCH_RUNS_MAX    (1u << 20) /* runs kept, all captures together */
#define IB_CLOCK_SOURCES_MAX (1u << 16) /* (pair, source) figures kept */
/* Gaps kept, all captures together, to tell a clock step from a pause. */
#define IB_CLOCK_GAPS_MAX (1u << 12)

/* A capture's clock that stepped within it (found as clock_steps.h says). */
struct ib_clock_step {
    uint32_t capture;
    uint64_t frame;   /* the first frame on the new clock */
    int64_t step_ns;  /* new clock minus old (forward: above 0) */
    int64_t error_ns; /* the true step is within step_ns +- error_ns */
    uint32_t against; /* the capture whose copies measured it */
};

struct ib_capture_clock {
    bool has_span;             /* it had frames: */
    int64_t first_ns, last_ns; /* the first's and the last's time, its own clock */
    bool linked;               /* shares packets both ways with its group */
    uint32_t reference;        /* the capture its clock is corrected to (itself if none) */
    int64_t offset_ns;         /* its clock minus the reference's */
    int64_t error_ns;          /* the true offset is within offset_ns +- error_ns */
};

struct ib_clock_sync;

/* key: the identities' (identity.h), drawn for the run and kept secret
 * from the captures; the fabric of step 2 uses the same.  NULL when out of
 * memory. */
struct ib_clock_sync *ib_clock_sync_new(size_t captures, const struct ib_hash_key *key);
const struct ib_hash_key *ib_clock_sync_key(const struct ib_clock_sync *cs);
void ib_clock_sync_free(struct ib_clock_sync *cs);
/* Every frame of a capture, its own clock's time (for its span). */
void ib_clock_sync_frame(struct ib_clock_sync *cs, uint32_t capture, int64_t time_ns);
/* A management packet with an identity (ib_packet_identity with the clock
 * sync's key), in time order of the captures' own clocks. */
void ib_clock_sync_packet(struct ib_clock_sync *cs, uint32_t capture, int64_t time_ns,
                          struct ib_identity identity, const struct ib_packet *p);
/* After the last frame: the offsets and the owners. */
void ib_clock_sync_solve(struct ib_clock_sync *cs);
/* Management packets seen on two captures or more. */
uint64_t ib_clock_sync_shared(const struct ib_clock_sync *cs);
const struct ib_capture_clock *ib_clock_sync_capture(const struct ib_clock_sync *cs,
                                                     uint32_t capture);
/* Whether capture c showed frames throughout [from_ns, to_ns] of its own
 * clock: one run of its frames, none more than IB_WATCH_GAP_NS apart,
 * holds it (after the solve). */
bool ib_clock_sync_watching(const struct ib_clock_sync *cs, uint32_t capture, int64_t from_ns,
                            int64_t to_ns);
/* The capture of the host that owns an address (ib_endpoint_key with the
 * clock sync's key), -1 when
 * no pair of captures told. */
int64_t ib_clock_sync_owner(const struct ib_clock_sync *cs, uint64_t endpoint_key);
/* Figures not kept for want of room (the caps), or of memory: (pair,
 * source) figures, sightings and watch runs. */
uint64_t ib_clock_sync_dropped(const struct ib_clock_sync *cs);

/* ---- step 2 ---- */

/* One direction between two captures' hosts: management packets sent, and
 * those that never arrived. */
struct ib_delivery {
    uint32_t from, to; /* captures */
    uint64_t sent;     /* watched: seen leaving, the other capturing then (and
                        * not pushed out of the window early by its cap) */
    uint64_t not_delivered;
};

struct ib_fabric_stats {
    uint64_t repeats;           /* sightings of a packet already seen on another capture */
    uint64_t sightings_evicted; /* left the window early, by its cap */
    uint64_t allocation_failures;
};

struct ib_fabric;

/* cs solved; it must outlive the fabric.  NULL when out of memory. */
struct ib_fabric *ib_fabric_new(const struct ib_clock_sync *cs);
void ib_fabric_free(struct ib_fabric *f);
/* A frame's time on the corrected clock (its capture's offset taken off). */
int64_t ib_fabric_corrected(const struct ib_fabric *f, uint32_t capture, int64_t time_ns);
/* An InfiniBand packet at `at` (corrected time, frames in that order):
 * true when it is a repeat sighting (*first: the first), which the caller
 * does not feed to the engine. */
bool ib_fabric_packet(struct ib_fabric *f, struct ib_frame_ref at, const uint8_t *frame,
                      size_t caplen, const struct ib_packet *p, struct ib_frame_ref *first);
/* The not_delivered findings whose window closed before now_ns (INT64_MAX:
 * all, at the end), at most max into out; call until it returns 0. */
size_t ib_fabric_due(struct ib_fabric *f, int64_t now_ns, struct ib_finding *out, size_t max);
/* The captures that showed a connection's CM messages as far as seen by
 * now (bit i: capture i; 63 and above in bit 63): asked once, when its
 * record comes (the copies of its last message, seen after it, are not
 * in).  Forgets them. */
uint64_t ib_fabric_seen_at(struct ib_fabric *f, const struct ib_connection_record *rec);
const struct ib_fabric_stats *ib_fabric_stats(const struct ib_fabric *f);
size_t ib_fabric_delivery_count(const struct ib_fabric *f);
const struct ib_delivery *ib_fabric_delivery(const struct ib_fabric *f, size_t i);
/* The gaps of step 1 (at most IB_CLOCK_GAPS_MAX), by capture and frame;
 * ib_fabric_clock_step says whether gap i is a clock step (after the last
 * frame). */
size_t ib_fabric_gap_count(const struct ib_fabric *f);
bool ib_fabric_clock_step(const struct ib_fabric *f, size_t i, struct ib_clock_step *out);

#endif
