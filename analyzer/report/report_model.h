/* report_model.h - the one result model every report renders.
 *
 * The model is what was concluded: the captures read, the counts the
 * analyzer keeps itself, and the summary (pool, connections, sources,
 * chains, counts) - copied from the engine at the end of a run
 * (report_model_summarize), or read back from JSON reports by `ibscope
 * merge`, which also fills the hosts each item came from.  Findings and
 * connection records are too many to keep, so they are not in the model:
 * they are streamed to the renderer, and each renderer keeps them in
 * bounded memory (temporary files) until it writes its report.
 */
#ifndef IBSCOPE_REPORT_MODEL_H
#define IBSCOPE_REPORT_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "fabric.h"

/* What a renderer is told of the run's choices, filled by whoever runs
 * it (the top from the command line's options, merge from the reports):
 * renderers know no options. */
struct report_render {
    bool frames;      /* the text lists every finding, not only the counts */
    bool connections; /* each connection is listed */
    bool crc;         /* ICRC and VCRC were checked */
};

/* What the report says of one capture file (the top copies it from the
 * reader's capture_info). */
#define REPORT_CAPTURE_ERROR_MAX 256
struct report_capture_file {
    const char *path;                     /* as given; "-" for standard input */
    int linktype;                         /* -1 when the header could not be read */
    uint64_t frames;                      /* records read */
    uint64_t errors;                      /* problems counted (snaplen cuts included) */
    uint64_t snaplen_cut, first_cut;      /* frames shorter than on the wire, the first */
    char error[REPORT_CAPTURE_ERROR_MAX]; /* first problem (not snaplen), "" if none */
};

/* Frames by CRC status (enum ib_crc_status). */
struct report_crc_counts {
    uint64_t icrc[3], vcrc[3];
};

/* What a live capture adds: its filter and the kernel's counts. */
struct report_live {
    bool on;              /* this capture is an interface (--live) */
    const char *filter;   /* "" for none */
    bool default_filter;  /* ibscope's RoCE filter, not --filter */
    uint64_t received;    /* frames that passed the filter */
    uint64_t dropped;     /* by the kernel, for want of buffer space */
    uint64_t if_dropped;  /* by the interface */
    const char *ended_by; /* "SIGINT", "--duration", ...; NULL: still running */
};

struct report_capture {
    struct report_capture_file info;
    struct report_live live;
    uint64_t ib_frames;
    struct report_crc_counts crc; /* its InfiniBand frames */
    uint32_t host;                /* a merge's: the host it came from */
    /* With captures correlated (report_model.fabric): its clock against its
     * group's first capture (fabric.h), when they share packets both ways. */
    bool clock_linked;
    uint32_t clock_reference;
    int64_t clock_offset_ns, clock_error_ns;
};

/* The source port pool a report assumed. */
struct report_pool {
    uint16_t low, high;
    uint32_t size;             /* high - low + 1 */
    double threshold_pct;      /* pool_high fires at this share... */
    uint32_t threshold_ports;  /* ...that is, at this many ports in use */
    double forecast_horizon_s; /* pool_forecast when a pool would run out within it */
    double forecast_window_s;  /* the rate is taken over this long (horizon / 5) */
};

/* What a point of a queue pair's sequence chart is (qp_trace.h). */
enum report_trace_kind {
    REPORT_TRACE_REQUEST,  /* a request, first sent */
    REPORT_TRACE_RESEND,   /* a request sent again (transport_retransmission) */
    REPORT_TRACE_ACK,      /* an Acknowledge */
    REPORT_TRACE_RESPONSE, /* a READ response or an atomic ACK */
    REPORT_TRACE_NAK,
    REPORT_TRACE_RNR_NAK,
    REPORT_TRACE_KIND_COUNT
};
/* Its name in the reports ("request", ...); NULL past the kinds. */
const char *report_trace_kind_name(unsigned kind);
/* And back: REPORT_TRACE_KIND_COUNT for none by that name. */
unsigned report_trace_kind_by_name(const char *name);

/* One frame of a traced queue pair: when, its PSN, what it was, and the
 * most severe transport finding on it (has_finding). */
struct report_trace_point {
    int64_t time_ns;
    uint64_t frame;
    uint32_t capture;
    uint32_t psn;
    uint8_t kind; /* enum report_trace_kind */
    bool has_finding;
    uint8_t finding; /* enum ib_finding_kind */
};

/* A queue pair's requester direction as the reports list it: the engine's
 * statistics and, for the first REPORT_TRACED_QPS_MAX with a transport
 * finding, its trace (qp_trace.h).  Traces are the collector's (a run) or
 * the merge's (read back). */
struct report_qp {
    struct ib_qp_stats stats; /* first: report_qp_order sorts either */
    bool traced;
    uint32_t trace_count;
    uint64_t trace_dropped; /* points past REPORT_TRACE_POINTS_MAX */
    const struct report_trace_point *trace;
};

/* A direction of the wire audit as the reports list it (docs/wire-audit.md):
 * the engine's settings, each setting's values as a list (dir.fields[f]'s,
 * or a merge's copies, which it owns). */
struct report_wire {
    struct ib_wire_direction dir;
    const struct ib_wire_count *values[IB_WIRE_FIELD_COUNT];
};

/* Congestion (docs/wire-audit.md): the settings it was judged by, CE marks
 * and CNPs per (sender, QP) in order of first sight, PFC and PAUSE pauses
 * per capture and priority in order of first frame.  A run's are copied
 * from the engine; a merge's read back, its reports' one after the other
 * (the settings its first report's), their captures renumbered. */
#define REPORT_CNP_FLOWS_MAX   (1u << 20)
#define REPORT_PFC_CLASSES_MAX (IB_PFC_CAPTURES_MAX * IB_PFC_CLASSES)
struct report_congestion {
    uint32_t cnp_window_us, pfc_storm_ms, pfc_link_gbps;
    uint32_t cnp_count;
    const struct ib_cnp_stats *cnps;
    uint32_t pfc_count;
    const struct ib_pfc_stats *pfcs;
};

/* A merge: one host's report.  Its captures are numbered across the
 * merge, first_capture onwards. */
struct report_host {
    const char *name; /* the report's file name without .json */
    uint32_t first_capture, capture_count;
    struct report_pool pool;
    uint64_t frames; /* of its captures */
    uint64_t source_count;
    uint64_t findings[IB_FIND_COUNT]; /* its findings listed, by kind */
    uint64_t findings_total;
};

struct qp_trace;

struct report_model {
    struct report_render render;
    const char *version;
    size_t capture_count;
    struct report_capture *captures;
    uint64_t findings[IB_FIND_COUNT]; /* findings handed to the renderer */
    uint64_t findings_total;
    uint64_t findings_dropped; /* past IB_FRAME_FINDINGS_MAX in a frame */
    uint64_t qps_not_traced;   /* with transport findings, past REPORT_TRACED_QPS_MAX */
    uint64_t trace_points_dropped;
    uint64_t connections_listed;
    uint64_t frames, ib_frames, link_records;
    uint64_t mac_control_frames; /* Ethernet PAUSE and PFC frames */
    bool have_time;
    int64_t first_ns, last_ns; /* first and last frame read */
    int64_t min_ns, max_ns;    /* earliest and latest (clocks can step back) */

    /* The summary, for the renderers' end. */
    struct report_pool pool;
    struct ib_connection_stats connections;
    bool medians;                 /* latencies have a median (medians do not merge) */
    struct ib_engine_stats stats; /* finding counts, diagnostics, limits */
    size_t source_count;
    const struct ib_source_stats *const *sources;
    size_t chain_count;
    const struct ib_redirect_chain *const *chains;
    /* The RC queue pairs' requester directions (docs/transport.md), those
     * with problems first (report_qp_trouble), then by number. */
    size_t qp_count;
    /* One run's are read from the engine as they are written (report_qp),
     * in the order of qp_order, with their traces from qp_traces: the report
     * holds 4 bytes a queue pair, not a copy of its statistics.  A merge's
     * are in qps. */
    const struct ib_engine *qp_engine;
    const uint32_t *qp_order;
    const struct qp_trace *qp_traces;
    const struct report_qp *qps;
    const uint32_t *qp_host; /* a merge's: the host of each queue pair */
    /* The wire audit's directions (docs/wire-audit.md), by number: one
     * run's read from wire_engine as they are written (report_wire), a
     * merge's in wires. */
    size_t wire_count;
    const struct ib_engine *wire_engine;
    const struct report_wire *wires;
    const uint32_t *wire_host; /* a merge's: the host of each direction */

    struct report_congestion congestion;

    /* A merge of hosts' reports; host_count is 0 for one run's report. */
    size_t host_count;
    const struct report_host *hosts;
    const uint32_t *source_host, *chain_host; /* the host of each source, chain */
    size_t nearest_count;                     /* sources nearest exhaustion, nearest first */
    const size_t *nearest;

    /* Captures of several hosts correlated (fabric.h): repeat sightings,
     * deliveries per direction.  NULL when the run was one capture's (or
     * the captures shared no packet): the report is then as it always was. */
    const struct ib_fabric *fabric;
    uint64_t clock_dropped; /* its first reading's figures past the caps */

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
    /* Optional: each CE mark, CNP, pause start and end (CE/CNP and pause
     * charts; engine.h's struct ib_congestion_change). */
    void (*congestion)(void *st, const struct report_model *m,
                       const struct ib_congestion_change *c);
    bool wants_connections; /* connection records even without --connections */
};

extern const struct report_renderer report_text;
extern const struct report_renderer report_json;
extern const struct report_renderer report_jsonl;
extern const struct report_renderer report_csv;
extern const struct report_renderer report_html;

/* The engine's summary into m (sources and chains by pointer: the engine
 * must outlive m's use).  False when out of memory. */
bool report_model_summarize(struct report_model *m, const struct ib_engine *e);
/* How much went wrong on a queue pair, for the order reports list them
 * in: 0 for none. */
uint64_t report_qp_trouble(const struct ib_qp_stats *q);
/* The i-th queue pair of the report: in m->qps, or read from the engine
 * (and its trace) into buf. */
const struct report_qp *report_qp(const struct report_model *m, size_t i, struct report_qp *buf);
/* The i-th direction of the wire audit: in m->wires, or read from the
 * engine into buf. */
const struct report_wire *report_wire(const struct report_model *m, size_t i,
                                      struct report_wire *buf);
/* qsort's order of struct ib_qp_stats (or of structs that start with one):
 * those that died first, then by trouble, most first, then by number. */
int report_qp_order(const void *a, const void *b);
/* Frees what report_model_summarize allocated. */
void report_model_summary_free(struct report_model *m);

/* Whether every host had the same pool, threshold and forecast horizon
 * (always, for one run's report). */
bool report_one_pool(const struct report_model *m);
/* The pool a source was measured against: its host's in a merge. */
const struct report_pool *report_source_pool(const struct report_model *m, size_t i);
/* The host of a capture's frame in a merge, NULL for one run's report. */
const struct report_host *report_capture_host(const struct report_model *m, uint32_t capture);

/* Setup latency (REQ to RTU) of one connection; false when not both seen. */
bool report_connection_latency(const struct ib_connection_record *rec, int64_t *ns);

#endif
