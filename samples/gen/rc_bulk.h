/* rc_bulk.h - ibscope-gen rc-bulk: one big capture of reliable-connected
 * traffic over many queue pairs, for the transport analysis's speed and
 * memory (bench/transport.py), where ibscope-gen rc (rc.h) writes small
 * captures with their truth.
 *
 * N connections are set up by the CM (REQ/REP/RTU), then SENDs, WRITEs and
 * READs run on them, interleaved across the queue pairs, each burst of
 * requests answered by READ responses and one coalesced ACK; optionally a
 * share of the requests is lost before the capture point (a PSN gap, a PSN
 * sequence error NAK, go-back-N).  Frames are written as they are made:
 * memory grows with the queue pairs, never with the frames.
 */
#ifndef IBSCOPE_GEN_RC_BULK_H
#define IBSCOPE_GEN_RC_BULK_H

#include <stdint.h>

#include "gen.h"
#include "rc.h"

#define RC_BULK_MAX_QPS 1000000u

typedef struct rc_bulk_opts {
    link_t link;       /* LINK_ETH (RoCEv2) or LINK_LRH */
    uint32_t qps;      /* connections: a queue pair on each side */
    uint64_t frames;   /* frames in all, CM included */
    uint64_t seed;     /* PRNG seed */
    uint32_t loss_ppm; /* requests lost before the capture point, per million */
} rc_bulk_opts_t;

typedef struct rc_bulk_result {
    uint64_t frames, cm_frames;
    uint64_t messages[RC_FETCH_ADD + 1]; /* by kind */
    uint64_t requests;                   /* request packets, first sends */
    uint64_t lost, resent; /* lost before the capture point (each NAKed), sent again */
    uint64_t read_responses, acks;
} rc_bulk_result_t;

void rc_bulk_defaults(rc_bulk_opts_t *o);
/* NULL, or what is wrong with the options. */
const char *rc_bulk_check(const rc_bulk_opts_t *o);
/* Writes the capture to path: 0, or -1 said on standard error. */
int rc_bulk_write(const char *path, const rc_bulk_opts_t *o, rc_bulk_result_t *res);

#endif
