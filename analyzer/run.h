/* run.h - one analysis, whatever the frames come from.
 *
 * A run owns the engine, the report model and the renderer's state.  Its
 * driver (analyze.c for capture files, live.c through run_live for an
 * interface) opens the report, hands over frames one by one and ends it; the
 * run decodes each frame with the core, feeds the engine, counts, and streams
 * findings and connection records to the renderer and to an optional
 * observer (the live view). */
#ifndef IBSCOPE_RUN_H
#define IBSCOPE_RUN_H

#include <stdbool.h>

#include "capture_reader.h"
#include "not_ib.h"
#include "options.h"
#include "output_file.h"
#include "packet.h"
#include "report_model.h"

/* Sees each finding as it is determined, after the renderer. */
typedef void (*run_finding_observer)(void *ctx, const struct report_model *m,
                                     const struct ib_finding *f);

struct run {
    const struct options *opts;
    const struct report_renderer *renderer;
    void *rstate;
    struct report_model model;
    struct ib_engine *engine;
    struct ib_parse_opts popts;
    run_finding_observer observer;
    void *observer_ctx;
    struct ib_fabric *fabric;          /* several hosts' captures as one (run_correlate) */
    const struct ib_clock_sync *clock; /* then: which capture owns an address */
    int *capture_host;                 /* and each capture's host in the engine */
    struct not_ib *not_ib;             /* per capture, while it has shown no InfiniBand */
    struct qp_trace *traces;           /* the queue pairs with problems, frame by frame */
};

/* The engine and the model for capture_count inputs (their capture_info
 * is the driver's to fill).  False when out of memory (said on stderr). */
bool run_init(struct run *r, const struct options *opts, const char *version, size_t capture_count);
void run_free(struct run *r);

/* The captures are of several hosts and share packets (correlate.h): each
 * packet is analysed once, on the corrected clock.  cs must outlive the
 * run.  False when out of memory (said). */
bool run_correlate(struct run *r, const struct ib_clock_sync *cs);

/* Starts the report on out->fp.  False when out of memory (said; out is
 * abandoned). */
bool run_begin(struct run *r, struct output_file *out);

/* One frame, in the order the driver reads them. */
void run_frame(struct run *r, const struct capture_frame *fr);

/* No frame until now_ns (a live capture gone quiet): the connections whose
 * wait ran out before it are given up now, not at the next frame. */
void run_advance(struct run *r, int64_t now_ns);

/* Finishes the engine, renders the report and commits out.  Returns 0, or
 * 2 with the reason said on stderr. */
int run_end(struct run *r, struct output_file *out);

/* The exit status after run_end returned status: the problems of the
 * inputs (one line each) and the engine's, and --fail-on. */
int run_exit_status(struct run *r, int status);

/* The model's copy of what capture i's reader found (the driver's, before
 * run_begin and again before run_end). */
void run_capture_info(struct run *r, size_t i, const struct capture_info *ci);

/* One line per problem input: "ibscope: FILE: problem".  True if any. */
bool run_report_input_errors(const struct run *r);

/* ibscope --live: the watch of live.h on a run of one capture.  Returns
 * live_run's exit status, or 2 when out of memory (said). */
int run_live(const struct options *opts, const char *version);

#endif
