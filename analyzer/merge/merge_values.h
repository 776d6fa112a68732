/* merge_values.h - a report's values read back and checked, for the
 * merge's reader (merge_read.c, merge_finding.c).
 *
 * Each reader takes the next value from the pull reader and refuses what a
 * report of this ibscope cannot hold: a count that is not a whole number
 * from 0 up, a time that is not RFC 3339 as the reports write it, an
 * address, port space or name ibscope would not write.  A refusal is one
 * line naming where in the report it is: "findings[3].frame: 0 is not a
 * frame number".  Members are read with their keys checked against a
 * list: a known key given twice or missing is refused, an unknown one is
 * skipped unread.
 */
#ifndef IBSCOPE_MERGE_VALUES_H
#define IBSCOPE_MERGE_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "json_pull.h"

#define RD_PATH_MAX 160

struct rd {
    struct json_pull *jp;
    char path[RD_PATH_MAX]; /* where the reader is: "findings[3].details" */
    size_t path_len;
    char why[384];         /* the refusal; "" while none (or a syntax error: jp's) */
    uint32_t capture_base; /* the report's first capture, numbered in the merge */
    uint64_t capture_refs; /* 1 + the largest capture a frame names, 0 for none */
    char capture_ref_at[RD_PATH_MAX];
};

/* "<path>: <what>"; returns false. */
bool rd_fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "<path>: <the value just read> is not <noun>"; returns false. */
bool rd_not(struct rd *r, enum jp_type t, const char *noun);

/* The path, one member or element deeper; returns the length to go back to. */
size_t rd_path_key(struct rd *r, const char *key);
size_t rd_path_index(struct rd *r, size_t i);
void rd_path_back(struct rd *r, size_t len);

/* The next value, which must be an object (or array); noun names it. */
bool rd_open(struct rd *r, enum jp_type want, const char *noun);
/* The next member of the object at path length base: the index of its key
 * in keys (NULL-ended, at most 32), RD_OTHER for another key (skip it:
 * rd_skip), RD_END, or RD_FAIL.  The path names the member. */
enum { RD_FAIL = -3, RD_END = -2, RD_OTHER = -1 };
int rd_member(struct rd *r, size_t base, const char *const keys[], uint64_t *seen);
/* The object's end: each key of the required bits must have been seen. */
bool rd_required(struct rd *r, size_t base, const char *const keys[], uint64_t seen,
                 uint64_t required);
/* The next element of the array at path length base, as element i. */
bool rd_item(struct rd *r, size_t base, size_t i, bool *more);
/* A value not wanted, whatever it is (checked as JSON, nothing kept). */
bool rd_skip(struct rd *r);

/* Whole numbers: 0..max, else "is not <noun>". */
bool rd_uint(struct rd *r, uint64_t max, const char *noun, uint64_t *v);
/* The same, or null (*null). */
bool rd_uint_or_null(struct rd *r, uint64_t max, const char *noun, uint64_t *v, bool *null);
bool rd_count(struct rd *r, uint64_t *v);
bool rd_u32(struct rd *r, uint32_t max, const char *noun, uint32_t *v);
bool rd_u16(struct rd *r, const char *noun, uint16_t *v);
/* An int64 (nanoseconds), or null when null is not NULL. */
bool rd_int(struct rd *r, const char *noun, int64_t *v, bool *null);
/* A number in [lo, hi]. */
bool rd_real(struct rd *r, double lo, double hi, const char *noun, double *v);
/* The same, or null (*null). */
bool rd_real_or_null(struct rd *r, double lo, double hi, const char *noun, double *v, bool *null);
bool rd_bool(struct rd *r, bool *v);
/* A string (in r->jp->text until the next read), or NULL for null when
 * null_ok. */
bool rd_string(struct rd *r, bool null_ok, const char **s);
/* An RFC 3339 time as the reports write it; null when null is not NULL. */
bool rd_time(struct rd *r, int64_t *ns, bool *null);
/* A capture number of the report, renumbered in the merge (the report
 * must have it: checked at its end, rd->capture_refs). */
bool rd_capture(struct rd *r, uint32_t *capture);
/* A frame number: 1 up to 2^40 - 1. */
bool rd_frame_number(struct rd *r, uint64_t *frame);
/* {capture, frame, time}, or null: frame 0. */
bool rd_frame(struct rd *r, struct ib_frame_ref *f);
/* {lid, gid}; gid a GID or null. */
bool rd_endpoint(struct rd *r, struct ib_endpoint *ep);
bool rd_gid(struct rd *r, uint8_t gid[16]);
/* An IPv4 or IPv6 address; version 4 or 6 (IPv4 in the last 4 bytes). */
bool rd_ip(struct rd *r, uint8_t *version, uint8_t ip[16]);
/* "TCP", "UDP", "IB", "IPoIB" or "0x0123". */
bool rd_port_space(struct rd *r, uint16_t *ps);

/* Where a redirect sends the requester: {lid, gid, qp, qkey, pkey}, and
 * with_frame the redirecting response's "frame" too. */
bool rd_hop(struct rd *r, struct ib_redirect_hop *hop, bool with_frame);

/* The QP numbers' 24 bits. */
#define RD_QP_MAX 0xFFFFFFu

#endif
