/* clock_steps.h - a capture's clock that stepped: found where its frames
 * jump and the packets it shares with another capture move by as much.
 *
 * Internal to the engine (clock_sync.c gathers in step 1, fabric.c
 * measures in step 2; fabric.h).  Step 1: wherever two frames of a capture,
 * in its own order, are more than IB_WATCH_GAP_NS apart (either way), a
 * gap is kept with the identities of the last CLOCK_STEP_PROBES management
 * packets before it and the first as many after.  Step 2: each copy of one
 * of those on another capture gives t_this - t_other on the two own clocks;
 * a packet's copies may be a full window apart, so the pairing is by
 * identity alone, not by time.  The shift across the gap lies between
 * (least after - most before) and (most after - least before).  A gap is
 * a clock step when, against one other capture that has no gap of its own
 * between the copies, at least one packet before and two after were seen,
 * the whole interval is at least IB_WATCH_GAP_NS on one side of zero, and
 * the frames' jump holds it (a jump is the step plus the time that passed,
 * never less).  Anything else (a capture that paused, a packet sent again
 * with the same bytes) is left a gap: not watched, not reported.
 * Memory: IB_CLOCK_GAPS_MAX gaps, all captures together; past it gaps are
 * counted as dropped figures.
 */
#ifndef IBSCOPE_CLOCK_STEPS_H
#define IBSCOPE_CLOCK_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "identity.h"

#define CLOCK_STEP_PROBES 4

struct step_probe {
    struct ib_identity id;
    int64_t t; /* its capture's own clock */
};

/* What step 2 saw of one gap's packets on one other capture. */
struct step_figures {
    bool any;
    uint32_t other;
    int64_t min_before, max_before, min_after, max_after; /* t_this - t_other */
    uint32_t before, after;                               /* copies seen */
    uint64_t first_frame, last_frame;                     /* of the other's copies */
};

struct step_gap {
    uint32_t capture;
    uint64_t frame;  /* the first frame after the jump */
    int64_t jump_ns; /* its time minus the frame before's */
    struct step_probe before[CLOCK_STEP_PROBES], after[CLOCK_STEP_PROBES];
    uint8_t before_count, after_count;
};

struct step_capture {
    uint64_t frames;
    int64_t last_ns;
    struct step_probe recent[CLOCK_STEP_PROBES]; /* a ring: the last management packets */
    uint8_t recent_count, recent_next;
    size_t open; /* 1 + the gap whose after-probes are filling, 0 for none */
};

struct step_key {
    struct ib_identity id;
    uint32_t gap;
    bool after;
    int64_t t;
};

struct clock_steps {
    size_t count;
    struct step_capture *captures;
    struct step_gap *gaps;
    size_t gap_count, gap_cap;
    struct step_key *keys; /* sorted by identity (cst_finish) */
    size_t key_count;
    uint64_t dropped;
};

bool cst_init(struct clock_steps *st, size_t captures);
void cst_free(struct clock_steps *st);
/* Every frame of a capture, in its order, on its own clock. */
void cst_frame(struct clock_steps *st, uint32_t capture, int64_t time_ns);
/* A management packet of that frame. */
void cst_packet(struct clock_steps *st, uint32_t capture, int64_t time_ns, struct ib_identity id);
/* After the last frame: the gaps by capture and frame, their packets indexed. */
void cst_finish(struct clock_steps *st);

/* Step 2: a management packet on capture `capture`, frame `frame`, at
 * own_ns on its own clock; figures holds one per gap. */
void cst_seen(const struct clock_steps *st, struct step_figures *figures, uint32_t capture,
              uint64_t frame, int64_t own_ns, struct ib_identity id);
/* Whether gap i is a clock step by its figures; *out filled when it is. */
bool cst_step(const struct clock_steps *st, const struct step_figures *figures, size_t i,
              struct ib_clock_step *out);

#endif
