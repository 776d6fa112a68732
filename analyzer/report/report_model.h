/* report_model.h - the one result model every report renders.
 *
 * The model is what a run concluded: the captures read, the engine (whose
 * summary - connections, sources, chains, counts - is read at the end) and
 * the counts the analyzer keeps itself.  Findings and connection records are
 * too many to keep, so they are not in the model: they are streamed to the
 * renderer as they happen, and each renderer keeps them in bounded memory
 * (temporary files) until it writes its report.
 */
#ifndef IBSCOPE_REPORT_MODEL_H
#define IBSCOPE_REPORT_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture_reader.h"
#include "engine.h"
#include "options.h"

/* Frames by CRC status (enum ib_crc_status). */
struct report_crc_counts {
    uint64_t icrc[3], vcrc[3];
};

/* What a live capture adds: its filter and the kernel's counts. */
struct report_live {
    bool on;                  /* this capture is an interface (--live) */
    const char *filter;       /* "" for none */
    bool default_filter;      /* ibscope's RoCE filter, not --filter */
    uint64_t received;        /* frames that passed the filter */
    uint64_t dropped;         /* by the kernel, for want of buffer space */
    uint64_t if_dropped;      /* by the interface */
    const char *ended_by;     /* "SIGINT", "--duration", ...; NULL: still running */
};

struct report_capture {
    struct capture_info info;
    struct report_live live;
    uint64_t ib_frames;
    struct report_crc_counts crc; /* its InfiniBand frames */
};

struct report_model {
    const struct options *opts;
    const char *version;
    size_t capture_count;
    struct report_capture *captures;
    const struct ib_engine *engine;  /* summaries, valid after finish */
    uint64_t findings[IB_FIND_COUNT]; /* findings handed to the renderer */
    uint64_t findings_total;
    uint64_t findings_dropped;        /* past IB_FRAME_FINDINGS_MAX in a frame */
    uint64_t connections_listed;
    uint64_t frames, ib_frames, link_records;
    bool have_time;
    int64_t first_ns, last_ns;        /* first and last frame read */
    int64_t min_ns, max_ns;           /* earliest and latest (clocks can step back) */
    /* The output is read as it comes (a pipe, a terminal, a socket), not a
     * regular file: a renderer that writes records as they happen (CSV)
     * sends each out at once, as JSON Lines always does. */
    bool stream_records;
};

/* A renderer: begin before the first frame, then findings and connection
 * records as they happen, end with the whole model.  end returns 0, or the
 * errno of the first failure of its scratch files (temp_file.h); a failed
 * write to `out` is the caller's to find (ferror). */
struct report_renderer {
    void *(*begin)(const struct report_model *m, FILE *out);
    void (*finding)(void *st, const struct report_model *m, const struct ib_finding *f);
    void (*connection)(void *st, const struct report_model *m,
                       const struct ib_connection_record *rec);
    int (*end)(void *st, const struct report_model *m);
    /* Optional: each change of a source's ports in use (charts). */
    void (*usage)(void *st, const struct report_model *m, const struct ib_usage_change *u);
    bool wants_connections; /* connection records even without --connections */
};

extern const struct report_renderer report_text;
extern const struct report_renderer report_json;
extern const struct report_renderer report_jsonl;
extern const struct report_renderer report_csv;
extern const struct report_renderer report_html;

/* Setup latency (REQ to RTU) of one connection; false when not both seen. */
bool report_connection_latency(const struct ib_connection_record *rec, int64_t *ns);

#endif
