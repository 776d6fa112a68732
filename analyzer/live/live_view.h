/* live_view.h - what a live run shows while it runs.
 *
 * Each finding is printed as one line the moment it is determined.  On a
 * terminal a status block stays below those lines and is redrawn about
 * once a second: frames per second, the kernel's drops, findings per kind,
 * and the sources with the most ports in use against the pool.  Off a
 * terminal only the finding lines are written. */
#ifndef IBSCOPE_LIVE_VIEW_H
#define IBSCOPE_LIVE_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "live_capture.h"
#include "report_model.h"

#define LIVE_VIEW_SOURCES 8 /* sources listed in the status block */

struct live_view {
    FILE *out;
    int fd;             /* out's descriptor, for the terminal's width */
    bool terminal;      /* draw the status block */
    bool finding_lines; /* print a line per finding */
    unsigned drawn;     /* lines of the status block on screen now */
    bool cleared;       /* taken off for finding lines, not yet back */
};

/* What the status block says besides the model's counts. */
struct live_view_status {
    const char *quiet; /* why no RoCE may have come (live_hint.h), or NULL */
    const char *iface;
    const char *filter;
    int64_t elapsed_ns;
    double frames_per_second;
    struct live_capture_stats kernel;
    const struct ib_engine *engine; /* the sources and the pool, as they stand */
};

void live_view_init(struct live_view *v, FILE *out, int fd, bool terminal, bool finding_lines);
void live_view_finding(struct live_view *v, const struct report_model *m,
                       const struct ib_finding *f);
void live_view_draw(struct live_view *v, const struct report_model *m,
                    const struct live_view_status *st);
/* True when finding lines have pushed the status block off the screen. */
bool live_view_needs_redraw(const struct live_view *v);
/* Removes the status block (before the final report). */
void live_view_clear(struct live_view *v);

#endif
