/* not_ib.h - what a capture without InfiniBand holds instead, so that an
 * empty report says why: iWARP (MPA, DDP and RDMAP over TCP), which ibscope
 * does not analyse, or RoCEv2 on a UDP port other than --rocev2-port. */
#ifndef IBSCOPE_NOT_IB_H
#define IBSCOPE_NOT_IB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "packet.h"

/* Frames looked at per capture: the rest add nothing to what is said. */
#define NOT_IB_LOOK_MAX 100000

struct not_ib {
    uint64_t looked;     /* frames the core found no InfiniBand in */
    uint64_t iwarp;      /* of them, carrying MPA's start (RFC 5044's key) */
    uint64_t roce;       /* RoCEv2 on another UDP port (other_port) */
    uint16_t other_port; /* the first such port */
};

/* One frame that ib_parse_frame, under popts, found no InfiniBand in. */
void not_ib_frame(struct not_ib *n, const struct ib_parse_opts *popts, uint32_t linktype,
                  const uint8_t *frame, size_t caplen, size_t wirelen);

/* For a capture of frames frames, none of them InfiniBand: one line on err
 * naming what it held and what to do ("ibscope: PATH: ..."), when n knows.
 * True if a line was written. */
bool not_ib_report(const struct not_ib *n, const char *path, uint64_t frames, FILE *err);

#endif
