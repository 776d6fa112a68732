/* read_ahead.h - a reader thread that runs ahead of the analysis.
 *
 * On a machine with two cores the reading (libpcap, decompression, the
 * time-ordered merge of the captures) and the CRC checks, which need no
 * analysis state, run on a thread of their own, a few batches ahead of
 * the analysis.  Frames come out exactly as capture_set_next() gives them,
 * in the same order, each with its CRC verdicts (capture_frame.crc) when
 * the reader had the time to check them (else the analysis checks them:
 * the work goes to whichever thread is waiting).  For files, not streams: a
 * batch is handed over when full.  Memory is bounded: a few batches of at
 * most READ_AHEAD_BATCH_BYTES each (more only for a frame larger than that).
 * For tests, the environment variable IBSCOPE_READ_AHEAD=reader, =analysis
 * or =either starts the thread for files of any size and pins where the
 * CRCs are checked (either: as without it).
 */
#ifndef IBSCOPE_READ_AHEAD_H
#define IBSCOPE_READ_AHEAD_H

#include <stdbool.h>
#include <stdint.h>

#include "capture_reader.h"
#include "packet.h"

#define READ_AHEAD_BATCH_FRAMES 1024
#define READ_AHEAD_BATCH_BYTES  (512 * 1024)
#define READ_AHEAD_BATCHES      4
/* The reader checks a batch's CRCs when this many batches are handed over
 * and not yet given back (the one the analysis is on counts): it is well
 * ahead.  Else it leaves them to the analysis.  Measured on the busy
 * benchmark: 2 beats 1 and 3. */
#define READ_AHEAD_CRC_AHEAD 2
/* Pauses the analysis spins for a batch before it sleeps. */
#define READ_AHEAD_SPIN (1u << 14)
/* Below this much input the thread's start and hand-overs (about a
 * millisecond) cost more than it saves. */
#define READ_AHEAD_MIN_BYTES (8u << 20)

struct read_ahead;

/* Whether a reader thread can help here: two or more cores this process may
 * use and at least READ_AHEAD_MIN_BYTES to read. */
bool read_ahead_worthwhile(uint64_t input_bytes);

/* Starts the thread over an open set, which it owns until read_ahead_stop().
 * crc_opts: the parse options to check CRCs with (rocev2_port), or NULL not
 * to check them.  NULL when no thread or memory could be had: read the set
 * directly then. */
struct read_ahead *read_ahead_start(struct capture_set *set, const struct ib_parse_opts *crc_opts);

/* The next frame, valid until the next call; false after the last. */
bool read_ahead_next(struct read_ahead *ra, struct capture_frame *out);

/* capture_set_position() as of the last frame handed out's batch. */
void read_ahead_position(const struct read_ahead *ra, uint64_t *done, uint64_t *total);

/* Stops the thread (at any point) and frees everything; the set is the
 * caller's again, its capture_info final when every frame was taken.
 * False when the reader ran out of memory for a frame and stopped there
 * (said on standard error, naming the capture and the frame). */
bool read_ahead_stop(struct read_ahead *ra);

#endif
