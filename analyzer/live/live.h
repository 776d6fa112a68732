/* live.h - ibscope --live IFACE: the analysis of an interface's traffic
 * as it happens.
 *
 * Frames come from libpcap (live_capture.h) into the analysis the top gives
 * (the same run the capture files go through, run.h), so the findings and
 * the final report are those of the same frames read from a file.  Findings
 * stream as they happen (live_view.h, or the jsonl renderer); --duration,
 * --count, SIGINT, SIGTERM and SIGHUP end the watch cleanly, and the report
 * follows. */
#ifndef IBSCOPE_LIVE_H
#define IBSCOPE_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture_reader.h"
#include "output_file.h"
#include "report_model.h"

/* What the watch is asked for: the top fills it from its options. */
struct live_settings {
    const char *iface;      /* --live */
    const char *filter;     /* --filter BPF; NULL: the default for the link type */
    uint16_t rocev2_port;   /* --rocev2-port */
    double duration_s;      /* --duration; 0: until stopped */
    uint64_t max_frames;    /* --count; 0: no limit */
    const char *write_path; /* -w: save the frames seen as pcapng; NULL: not */
    const char *output;     /* -o; NULL: standard output */
    bool text_report;       /* the report is text (the view may share its stream) */
    bool jsonl_report;      /* the report is JSON Lines (it carries the findings) */
};

/* Sees each finding as the analysis determines it. */
typedef void (*live_finding_fn)(void *ctx, const struct report_model *m,
                                const struct ib_finding *f);

/* The analysis the watch feeds, set up by the top (run.h): its report model
 * and engine, and its steps, each called with ctx. */
struct live_analysis {
    void *ctx;
    struct report_model *model; /* one capture: the watch fills its entry */
    const struct ib_engine *engine;
    /* Starts the report on out, findings also to observer; false: said. */
    bool (*begin)(void *ctx, struct output_file *out, live_finding_fn observer, void *observer_ctx);
    void (*frame)(void *ctx, const struct capture_frame *fr);
    /* No frame until now_ns: the timers that ran out before it. */
    void (*advance)(void *ctx, int64_t now_ns);
    /* Of the frames without InfiniBand: the UDP port RoCEv2 was seen on
     * instead (0: none), and whether some start an iWARP connection. */
    void (*not_ib)(void *ctx, uint16_t *other_port, bool *iwarp);
    /* The report rendered and committed: 0, or 2 (said). */
    int (*end)(void *ctx, struct output_file *out);
    /* The exit status after end returned status: problems, --fail-on. */
    int (*exit_status)(void *ctx, int status);
};

/* Returns the exit status: 0 done, 1 a --fail-on finding occurred, 2 an
 * interface, filter or output error. */
int live_run(const struct live_settings *s, const struct live_analysis *a);

#endif
