/* report_schema.h - the report's objects as tables: one row per member,
 * in the order the reports write them (docs/report-schema.md).
 *
 * A row says the member's key, the kind of its value, where the value
 * lives in the object (offsetof) and what a report may hold there (the
 * bounds a reader checks).  One walker writes an object from its table
 * (report_json_values.c's jv_members), one reads it back (merge's
 * ms_read_members), and `ibscope --list-report-keys` prints the tables for
 * docs.lists.  A member the kinds cannot say (a value made of several
 * fields, a list) names a codec: its writer is report_json_values.c's, its
 * reader merge_schema.c's (a finding's details': merge_finding.c's).
 * Adding a member is one row here (and its line in
 * docs/report-schema.md); a new finding kind's details, one table and its
 * place in rs_finding_details.
 */
#ifndef IBSCOPE_REPORT_SCHEMA_H
#define IBSCOPE_REPORT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rs_kind {
    RS_UINT,         /* an unsigned integer of `size` bytes, 0..max */
    RS_INT,          /* int64_t (nanoseconds) */
    RS_TIME,         /* int64_t nanoseconds since the epoch, written in RFC 3339 */
    RS_BOOL,         /* bool */
    RS_FRAME,        /* struct ib_frame_ref: {capture, frame, time}, null for frame 0 */
    RS_ENDPOINT,     /* struct ib_endpoint: {lid, gid} */
    RS_IP,           /* uint8_t[16], its version the uint8_t at aux */
    RS_PORT_SPACE,   /* uint16_t: "TCP", "UDP", "IB", "IPoIB" or "0x0123" */
    RS_REAL,         /* double in [lo, hi], `decimals` decimals (trim: no trailing zeros) */
    RS_STRING,       /* const char *: a copy the reader owns; null for NULL (nullable) */
    RS_HEX64,        /* uint64_t as "0x" and 16 hex digits; nullable: null for 0 */
    RS_ENUM,         /* an enum of `size` bytes, written by its name (names) */
    RS_TEXT,         /* text(obj), a name of another member's value (or the finding's
                        message): read back and not kept (the views word it again) */
    RS_INDEX,        /* the object's place in its array: must be where it is */
    RS_CAPTURE,      /* uint32_t, a capture's index: renumbered in a merge */
    RS_FRAME_NUMBER, /* uint64_t, a frame number, 1 up */
    RS_OBJECT,       /* an object at `at` with its own table (object) */
    RS_VARIANT,      /* an object at `at` whose table variant(obj) chooses from a
                        member read before it (after): a finding's details */
    RS_RECORDS,      /* an array of records the renderer writes itself, after the
                        others (JSON: spliced in; JSON Lines: records of their own);
                        merge skips it */
    RS_LIST,         /* an array of objects of one table (object): at, a const pointer
                        to the first; aux, offsetof their uint32_t count; size, the
                        size of one; max, the most a reader takes */
    RS_CODEC,        /* the member's own writer and reader (codec) */
};

/* The members whose value the kinds cannot say. */
enum rs_codec {
    RS_CODEC_NONE,
    RS_CODEC_IP_VERSION,     /* a source's ip_version: its ip's, checked against it */
    RS_CODEC_CA_GUID,        /* "0x" and 16 hex digits, null for 0 */
    RS_CODEC_ADDRESSES,      /* a host's addresses, up to IB_HOST_ADDRESSES_MAX */
    RS_CODEC_DESTINATION,    /* a source's busiest destination: {ip, port} or null */
    RS_CODEC_HOPS,           /* a chain's hops, up to IB_CHAIN_HOPS_MAX */
    RS_CODEC_LINKTYPE,       /* an int, null for -1 */
    RS_CODEC_ERROR,          /* a capture's first problem: char[], null for "" */
    RS_CODEC_REJECT_REASONS, /* uint64_t[IB_REJ_REASON_MAX]: "reason" -> count, non-zero */
    RS_CODEC_BY_MESSAGE,     /* uint64_t[IB_CM_MSG_COUNT]: "REQ" -> count, every message */
    RS_CODEC_LATENCY,        /* struct ib_latency: {count, min_ns, median_ns, max_ns} */
    /* A connection record's (written only: the merge keeps no records). */
    RS_CODEC_REJECT_REASON, /* int, null unless a REJ was seen */
    RS_CODEC_SETUP_NS,      /* RTU time - REQ time, null unless both seen */
    RS_CODEC_SEEN_AT,       /* the captures that showed it, from a mask */
    /* A finding's details (read by merge_finding.c's codecs). */
    RS_CODEC_TUPLE,    /* struct ib_tuple: {port_space, src_ip, ...}, null for none */
    RS_CODEC_TARGET,   /* struct ib_redirect_hop: {lid, gid, qp, qkey, pkey} */
    RS_CODEC_PROBLEMS, /* IB_TARGET_* bits as a list of names */
    RS_CODEC_CHAIN,    /* a chain's index, null without has_chain: renumbered in a merge */
    RS_CODEC_COUNT
};

/* An enum's names: by value and back (count: none by that name, and past
 * every value; by_name NULL: looked up by name).  A value without a name
 * is written as its number. */
struct rs_names {
    const char *(*name)(unsigned value);
    unsigned (*by_name)(const char *name);
    unsigned count;
};

struct rs_object;

struct rs_member {
    const char *key;
    enum rs_kind kind;
    size_t at;  /* offsetof the value in the object */
    size_t aux; /* RS_IP: offsetof its version */
    /* 1 + offsetof a bool: when false, the value is null (RS_UINT, RS_INT,
     * RS_REAL) or the member is not written (RS_OBJECT); 0 for none.  With
     * has_bit, a uint8_t of flags instead, and the value is null without
     * that bit. */
    size_t has;
    uint8_t has_bit;
    /* 1 + offsetof a bool the reader sets when the member is given (the
     * key itself says it: request_id, a SIDR's); 0 for none. */
    size_t marks;
    size_t size;
    uint64_t max;
    double lo, hi;
    int decimals;
    bool trim;
    bool nullable;
    bool optional;    /* reports written before it came lack it */
    bool fabric;      /* written only with captures correlated; merge does not read it */
    bool sums;        /* uint64_t counts (size bytes), added up by a merge */
    const char *noun; /* what a refused value is not: "a count of ports" */
    const struct rs_names *names;
    const char *(*text)(const void *obj, char *buf, size_t size); /* buf: RS_TEXT_MAX */
    /* NULL: always written; else written only when true, and then required
     * (unless optional) once the others are read. */
    bool (*present)(const void *obj);
    const struct rs_object *object;
    const struct rs_object *(*variant)(const void *obj);
    const char *after; /* RS_VARIANT: the key variant reads, given first */
    enum rs_codec codec;
};

/* Room for an RS_TEXT: a finding's message (IB_FINDING_TEXT_MAX). */
#define RS_TEXT_MAX 256

struct rs_object {
    const char *name; /* as docs/report-schema.md heads it: "sources[]" */
    const struct rs_member *members;
    size_t count;
};

/* Where an object is written: its place in its array (RS_INDEX), and
 * whether the report has captures correlated. */
struct rs_place {
    uint64_t index;
    bool fabric;
    bool medians; /* latencies have a median (a merge's have none) */
};

/* sources[] (and JSON Lines' "source" records): struct ib_source_stats. */
extern const struct rs_object rs_source;
/* redirect_chains[]: struct ib_redirect_chain. */
extern const struct rs_object rs_chain;
/* captures[]: struct report_capture. */
extern const struct rs_object rs_capture;
/* crc.captures[] (and JSON Lines' "crc" records): struct report_capture. */
extern const struct rs_object rs_crc_capture;
/* crc.captures[].icrc and .vcrc: uint64_t[3], by enum ib_crc_status. */
extern const struct rs_object rs_crc_counts;
/* frames: struct report_model (its frame counts and times). */
extern const struct rs_object rs_frames;
/* pool (a merge's pools[] and hosts[].pool): struct report_pool. */
extern const struct rs_object rs_pool;
/* connections: struct ib_connection_stats. */
extern const struct rs_object rs_connections;
/* connections.list[] (and JSON Lines' "connection" records): struct
 * ib_connection_record. */
extern const struct rs_object rs_connection_record;
/* limits: struct report_model (its findings_dropped and stats). */
extern const struct rs_object rs_limits;
/* findings[] (and JSON Lines' "finding" records): struct ib_finding. */
extern const struct rs_object rs_finding;
/* findings[].details, a table per kind (or kinds of the same keys): over
 * struct ib_finding_data, by enum ib_finding_kind. */
extern const struct rs_object *const rs_finding_details[];

/* redirect_bad_target's problems: the names of IB_TARGET_*'s bits, lowest
 * first. */
#define RS_TARGET_PROBLEMS 3
extern const char *const rs_target_problem_names[RS_TARGET_PROBLEMS];

/* qps[] (and JSON Lines' "qp" records): struct report_qp; its objects. */
extern const struct rs_object rs_qp, rs_qp_requests, rs_qp_naks, rs_qp_resends, rs_qp_rtt;
/* qps[].trace[]: struct report_trace_point. */
extern const struct rs_object rs_qp_trace;
/* settings[] (and JSON Lines' "setting" records): struct report_wire; each
 * setting's values (struct ib_wire_count). */
extern const struct rs_object rs_wire, rs_wire_dscp, rs_wire_ecn, rs_wire_priority, rs_wire_version,
    rs_wire_gid_kind;
/* findings[].details.qp: struct ib_qp_ref. */
extern const struct rs_object rs_qp_ref;
/* congestion, its cnp[] and pfc[] (docs/wire-audit.md). */
extern const struct rs_object rs_congestion, rs_cnp, rs_pfc;

/* Every table, for --list-report-keys. */
extern const struct rs_object *const rs_objects[];
extern const size_t rs_object_count;

/* A row's unsigned value: size bytes at p (RS_UINT, RS_ENUM, RS_CAPTURE, ...). */
uint64_t rs_uint_at(const void *p, size_t size);
/* Whether a row's value is there: the bool (or bit) its `has` names, in
 * obj (no such bool: true). */
bool rs_has(const struct rs_member *mb, const void *obj);
/* o's row of that key; NULL for none. */
const struct rs_member *rs_member_of(const struct rs_object *o, const char *key);

/* --list-report-keys: a line per member, "OBJECT\tKEY", in order. */
void rs_list(FILE *out);

#endif
