/* merge_fabric.h - the merge's state, shared by the reader of each report
 * (merge_read.c, merge_finding.c) and the fabric it builds (merge.c). */
#ifndef IBSCOPE_MERGE_FABRIC_H
#define IBSCOPE_MERGE_FABRIC_H

#include "merge.h"
#include "merge_values.h"

/* What one report may hold, as an analysis keeps it (engine.h's default
 * caps); more is a report no ibscope wrote. */
#define MERGE_REPORT_SOURCES 65536
#define MERGE_REPORT_CHAINS  10000
#define MERGE_REPORT_QPS     (1u << 17)
/* A report's directions of the wire audit: the engine keeps two a queue pair. */
#define MERGE_REPORT_WIRES (2u * MERGE_REPORT_QPS)
/* Captures in all: a fixed cap, since each costs some 450 bytes here. */
#define MERGE_CAPTURES_MAX 65536

/* A finding's place in the scratch file, and its time to sort by. */
struct merge_key {
    int64_t time_ns;
    uint64_t seq;
};

struct merge_source {
    struct ib_source_stats s;
    uint32_t host;
};

struct merge_chain {
    struct ib_redirect_chain c;
    uint32_t host;
};

struct merge_qp {
    struct report_qp q; /* its trace owned */
    uint32_t host;
};

/* A direction of the wire audit (settings[]), numbered across the merge. */
struct merge_wire {
    struct report_wire w; /* its values owned */
    uint32_t host;
};

struct merge {
    const char *version;
    bool any_version;
    struct report_render render; /* every finding listed; crc: unless a report did not check */

    size_t host_count, host_cap;
    struct report_host *hosts; /* names owned */
    size_t capture_count, capture_cap;
    struct report_capture *captures; /* paths and live strings owned */
    size_t source_count, source_cap;
    struct merge_source *sources;
    size_t chain_count, chain_cap;
    struct merge_chain *chains;
    size_t qp_count, qp_cap;
    struct merge_qp *qps;
    uint32_t qp_base; /* the next report's first queue pair number */
    size_t wire_count, wire_cap;
    struct merge_wire *wires;
    /* congestion's lists, the reports' one after the other; its settings
     * the first report's (sum.congestion, once congestion_read). */
    size_t cnp_count, cnp_cap;
    struct ib_cnp_stats *cnps;
    size_t pfc_count, pfc_cap;
    struct ib_pfc_stats *pfcs;
    bool congestion_read;

    FILE *findings; /* struct ib_finding records, as read */
    size_t finding_count, key_cap;
    struct merge_key *keys;
    int scratch_error; /* errno of a failed write to findings */

    /* Totals, as the model keeps them: frames, ib_frames, link_records,
     * findings_dropped, connections, stats; have_time, first_ns (the
     * earliest first) and last_ns (the latest last). */
    struct report_model sum;
};

/* One report being read into the merge. */
struct merge_report {
    struct rd rd;
    struct merge *mg;
    uint32_t host;
    uint32_t chain_base; /* its first chain, numbered in the merge */
    uint32_t qp_base;    /* its first queue pair number in the merge */
    uint32_t qp_end;     /* 1 + the largest queue pair number it names */
    uint64_t captures, crc_captures, sources, chains;
    uint64_t chain_refs; /* 1 + the largest chain a finding names, 0 for none */
    char chain_ref_at[RD_PATH_MAX];
};

/* The next value of mr's report, a finding (merge_finding.c): capture
 * and chain numbers renumbered. */
bool merge_read_finding(struct merge_report *mr, struct ib_finding *f);

/* A queue pair's number in mr's report, renumbered in the merge (after
 * the earlier reports' queue pairs); false past the cap. */
bool merge_qp_number(struct merge_report *mr, uint32_t *index);

/* Adds b to *a, held at the largest count. */
void merge_add(uint64_t *a, uint64_t b);

/* Room for one more item in an array of *cap items of size each (grown by
 * half); false when out of memory. */
bool merge_grow(void **items, size_t *cap, size_t count, size_t size);

#endif
