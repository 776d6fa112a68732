/* progress.h - a progress line on standard error, only when it is a
 * terminal and the run has taken over a second (scripts and short runs see
 * nothing). */
#ifndef IBSCOPE_PROGRESS_H
#define IBSCOPE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
    bool enabled;
    bool shown;
    int64_t start_ns, last_ns;
};

void progress_init(struct progress *p, bool wanted);
/* Cheap enough to call every few thousand frames; total 0 = unknown. */
void progress_update(struct progress *p, uint64_t frames, uint64_t done, uint64_t total);
/* Erases the line when one was shown. */
void progress_finish(struct progress *p);

#endif
