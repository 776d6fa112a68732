/* correlate.h - several captures of one fabric: the first reading, for the
 * clocks and the owners of the addresses (fabric.h, step 1). */
#ifndef IBSCOPE_CORRELATE_H
#define IBSCOPE_CORRELATE_H

#include <stddef.h>

#include "fabric.h"
#include "options.h"

/* Reads every capture once for the management packets they share, and
 * solves their clocks.  NULL when the run is analysed as one capture: fewer
 * than two inputs, one that cannot be read twice (standard input, a pipe),
 * --allow-duplicate-inputs (a capture given twice is to count twice), or
 * no management packet seen on two of them (one host's rotated files);
 * and when out of memory (said). */
struct ib_clock_sync *correlate_clocks(const struct options *opts);

#endif
