/* live.h - ibscope --live IFACE: the analysis of an interface's traffic
 * as it happens.
 *
 * Frames come from libpcap (live_capture.h) into the same run the capture
 * files go through (run.h), so the findings and the final report are those
 * of the same frames read from a file.  Findings stream as they happen
 * (live_view.h, or the jsonl renderer); --duration, --count, SIGINT,
 * SIGTERM and SIGHUP end the watch cleanly, and the report follows. */
#ifndef IBSCOPE_LIVE_H
#define IBSCOPE_LIVE_H

#include "options.h"

/* Returns the exit status: 0 done, 1 a --fail-on finding occurred, 2 an
 * interface, filter or output error. */
int live_run(const struct options *opts, const char *version);

#endif
