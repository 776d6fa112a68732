/* report_schema.c - the report's objects as tables (report_schema.h).
 *
 * One row a member, in the reports' order; the rows are laid out by hand,
 * one a line, so that a member added is a line added.
 */
#include "report_schema.h"

#include <float.h>
#include <string.h>

#include "cm.h"
#include "engine.h"
#include "names.h"
#include "psn.h"
#include "qp_trace.h"
#include "report_format.h"
#include "report_model.h"

/* clang-format off */

#define ROWS(a) (a), sizeof(a) / sizeof((a)[0])

static const char *host_from_name(unsigned v) { return ib_host_from_name((enum ib_host_from)v); }
static unsigned host_from_by_name(const char *s) { return (unsigned)ib_host_from_by_name(s); }
static const struct rs_names host_from_names = { host_from_name, host_from_by_name, IB_HOST_FROM_COUNT };

static const char *chain_end_name(unsigned v) { return ib_chain_end_name((enum ib_chain_end)v); }
static unsigned chain_end_by_name(const char *s) { return (unsigned)ib_chain_end_by_name(s); }
static const struct rs_names chain_end_names = { chain_end_name, chain_end_by_name, IB_CHAIN_END_COUNT };

static const char *mgmt_class_text(const void *c, char *buf, size_t size)
{
    (void)buf, (void)size;
    return ib_mgmt_class_name(((const struct ib_redirect_chain *)c)->mgmt_class);
}

static const char *linktype_text(const void *c, char *buf, size_t size)
{
    (void)buf, (void)size;
    return linktype_name(((const struct report_capture *)c)->info.linktype);
}

/* The QP numbers' 24 bits. */
#define QP_MAX 0xFFFFFFu

/* The kinds' rows for a member at field of the object type T. */
#define AT(T, field)            offsetof(T, field), .size = sizeof(((T *)0)->field)
#define COUNT(T, key, field)    { key, RS_UINT, AT(T, field), .max = UINT64_MAX, .noun = "a count", .sums = true }
#define U32(T, key, field, n)   { key, RS_UINT, AT(T, field), .max = UINT32_MAX, .noun = n }
#define FLAG(T, key, field)     { key, RS_BOOL, AT(T, field) }
#define FRAME(T, key, field)    { key, RS_FRAME, AT(T, field) }
#define CODEC(T, key, field, c) { key, RS_CODEC, AT(T, field), .codec = c }
#define HAS(T, field)           .has = 1 + offsetof(T, field)

#define S struct ib_source_stats
static const struct rs_member source_members[] = {
    { "ip", RS_IP, AT(S, ip), .aux = offsetof(S, ip_version) },
    CODEC(S, "ip_version", ip_version, RS_CODEC_IP_VERSION),
    { "port_space", RS_PORT_SPACE, AT(S, port_space) },
    { "host_name", RS_STRING, AT(S, host_name), .nullable = true, .optional = true },
    { "host_from", RS_ENUM, AT(S, host_from), .names = &host_from_names, .optional = true,
      .noun = "how a host is known (address, ca_guid, capture, option)" },
    { "ca_guid", RS_HEX64, AT(S, ca_guid), .nullable = true, .optional = true,
      .noun = "a GUID (0x and 16 hex digits, not 0) or null" },
    { "address_count", RS_UINT, AT(S, address_count), .max = UINT32_MAX, .optional = true,
      .noun = "a count of addresses" },
    { "addresses", RS_CODEC, AT(S, addresses), .codec = RS_CODEC_ADDRESSES, .optional = true },
    COUNT(S, "connections", connections),
    U32(S, "ports_in_use", ports_in_use, "a count of ports"),
    U32(S, "peak_ports_in_use", peak_ports_in_use, "a count of ports"),
    FRAME(S, "peak_frame", peak_at),
    { "pool_utilization", RS_REAL, AT(S, pool_utilization), .lo = 0, .hi = 100, .decimals = 2,
      .noun = "a percentage" },
    FLAG(S, "exhausted", exhausted),
    U32(S, "peak_ports_per_destination", peak_ports_per_destination, "a count of ports"),
    FRAME(S, "peak_per_destination_frame", peak_per_destination_at),
    CODEC(S, "peak_destination", peak_dst_ip, RS_CODEC_DESTINATION),
    FLAG(S, "exhausted_per_destination", exhausted_per_destination),
    COUNT(S, "ports_outside_pool", ports_outside_pool),
    FRAME(S, "forecast_frame", forecast_at),
    { "rate_per_s", RS_REAL, AT(S, forecast[IB_MODEL_ONE_PORT].rate_per_s),
      HAS(S, forecast[IB_MODEL_ONE_PORT].has_rate),
      .lo = -DBL_MAX, .hi = DBL_MAX, .decimals = 6, .trim = true,
      .noun = "a rate (ports a second) or null" },
    { "eta_s", RS_REAL, AT(S, forecast[IB_MODEL_ONE_PORT].eta_s),
      HAS(S, forecast[IB_MODEL_ONE_PORT].has_eta),
      .lo = 0, .hi = DBL_MAX, .decimals = 3, .trim = true, .noun = "a number of seconds or null" },
    { "rate_per_destination_per_s", RS_REAL, AT(S, forecast[IB_MODEL_PER_DESTINATION].rate_per_s),
      HAS(S, forecast[IB_MODEL_PER_DESTINATION].has_rate),
      .lo = -DBL_MAX, .hi = DBL_MAX, .decimals = 6, .trim = true,
      .noun = "a rate (ports a second) or null" },
    { "eta_per_destination_s", RS_REAL, AT(S, forecast[IB_MODEL_PER_DESTINATION].eta_s),
      HAS(S, forecast[IB_MODEL_PER_DESTINATION].has_eta),
      .lo = 0, .hi = DBL_MAX, .decimals = 3, .trim = true, .noun = "a number of seconds or null" },
};
#undef S
const struct rs_object rs_source = { "sources[]", ROWS(source_members) };

#define C struct ib_redirect_chain
static const struct rs_member chain_members[] = {
    { "chain", RS_INDEX, 0, .noun = "the chain's place in redirect_chains" },
    { "requester", RS_ENDPOINT, AT(C, requester) },
    { "mgmt_class", RS_UINT, AT(C, mgmt_class), .max = UINT8_MAX, .noun = "a management class" },
    { "mgmt_class_name", RS_TEXT, 0, .text = mgmt_class_text, .nullable = true },
    { "origin", RS_ENDPOINT, AT(C, origin) },
    U32(C, "origin_qp", origin_qp, "a QP number"),
    FRAME(C, "first_request", first_request),
    CODEC(C, "hops", hops, RS_CODEC_HOPS),
    U32(C, "hops_dropped", hops_dropped, "a count of hops"),
    FRAME(C, "final_answer", final_answer),
    FLAG(C, "loop", loop),
    FLAG(C, "followed", followed),
    { "end", RS_ENUM, AT(C, end), .names = &chain_end_names, .optional = true },
};
#undef C
const struct rs_object rs_chain = { "redirect_chains[]", ROWS(chain_members) };

#define L struct report_live
static const struct rs_member live_members[] = {
    { "filter", RS_STRING, AT(L, filter) },
    FLAG(L, "default_filter", default_filter),
    COUNT(L, "received", received),
    COUNT(L, "kernel_dropped", dropped),
    COUNT(L, "interface_dropped", if_dropped),
    { "ended_by", RS_STRING, AT(L, ended_by), .nullable = true },
};
#undef L
static const struct rs_object rs_live = { "captures[].live", ROWS(live_members) };

#define K struct report_capture
static const struct rs_member capture_members[] = {
    { "index", RS_INDEX, 0, .noun = "the capture's place in captures" },
    { "path", RS_STRING, AT(K, info.path) },
    CODEC(K, "linktype", info.linktype, RS_CODEC_LINKTYPE),
    { "linktype_name", RS_TEXT, 0, .text = linktype_text, .nullable = true },
    COUNT(K, "frames", info.frames),
    COUNT(K, "ib_frames", ib_frames),
    COUNT(K, "errors", info.errors),
    CODEC(K, "error", info.error, RS_CODEC_ERROR),
    COUNT(K, "snaplen_cut", info.snaplen_cut),
    { "live", RS_OBJECT, AT(K, live), HAS(K, live.on), .object = &rs_live, .optional = true },
    { "clock_reference", RS_UINT, AT(K, clock_reference), HAS(K, clock_linked), .fabric = true },
    { "clock_offset_ns", RS_INT, AT(K, clock_offset_ns), HAS(K, clock_linked), .fabric = true },
    { "clock_offset_error_ns", RS_INT, AT(K, clock_error_ns), HAS(K, clock_linked),
      .fabric = true },
};
const struct rs_object rs_capture = { "captures[]", ROWS(capture_members) };

static const char *conn_state_name(unsigned v) { return ib_conn_state_name((enum ib_conn_state)v); }
static const struct rs_names conn_state_names = { conn_state_name, NULL, IB_CONN_UNREACHABLE + 1 };
static bool has_tuple(const void *rec) { return ((const struct ib_connection_record *)rec)->has_tuple; }
static bool seen(const void *rec) { return ((const struct ib_connection_record *)rec)->seen_at != 0; }

#define R struct ib_connection_record
static const struct rs_member conn_frames_members[] = {
    FRAME(R, "req", req), FRAME(R, "mra", mra), FRAME(R, "rep", rep), FRAME(R, "rtu", rtu),
    FRAME(R, "dreq", dreq), FRAME(R, "drep", drep), FRAME(R, "rej", rej),
};
static const struct rs_object rs_conn_frames = { "connections.list[].frames", ROWS(conn_frames_members) };

static const struct rs_member connection_record_members[] = {
    U32(R, "conn", index, "a connection number"),
    { "port_space", RS_PORT_SPACE, AT(R, tuple.port_space), .present = has_tuple },
    { "src_ip", RS_IP, AT(R, tuple.src_ip), .aux = offsetof(R, tuple.ip_version), .present = has_tuple },
    { "src_port", RS_UINT, AT(R, tuple.src_port), .max = UINT16_MAX, .noun = "a port", .present = has_tuple },
    { "dst_ip", RS_IP, AT(R, tuple.dst_ip), .aux = offsetof(R, tuple.ip_version), .present = has_tuple },
    { "dst_port", RS_UINT, AT(R, tuple.dst_port), .max = UINT16_MAX, .noun = "a port", .present = has_tuple },
    { "service_id", RS_HEX64, AT(R, service_id), .noun = "a service ID (0x and 16 hex digits)" },
    U32(R, "local_comm_id", local_comm_id, "a comm ID"),
    U32(R, "remote_comm_id", remote_comm_id, "a comm ID"),
    { "active", RS_ENDPOINT, AT(R, active) },
    { "passive", RS_ENDPOINT, AT(R, passive) },
    { "state", RS_ENUM, AT(R, state), .names = &conn_state_names },
    CODEC(R, "reject_reason", reject_reason, RS_CODEC_REJECT_REASON),
    U32(R, "retransmissions", retransmissions, "a count"),
    U32(R, "frames_from_active", frames_from_active, "a count"),
    U32(R, "frames_from_passive", frames_from_passive, "a count"),
    { "frames", RS_OBJECT, 0, .object = &rs_conn_frames },
    CODEC(R, "setup_latency_ns", req, RS_CODEC_SETUP_NS),
    FLAG(R, "evicted", evicted),
    FLAG(R, "timed_out", timed_out),
    FLAG(R, "waiting_at_end", waiting),
    { "seen_at", RS_CODEC, AT(R, seen_at), .codec = RS_CODEC_SEEN_AT, .present = seen },
};
#undef R
const struct rs_object rs_connection_record = { "connections.list[]", ROWS(connection_record_members) };

/* Frames by CRC status (enum ib_crc_status): a uint64_t[3]. */
#define STATUS(key, s) { key, RS_UINT, sizeof(uint64_t) * (s), .size = sizeof(uint64_t), \
                         .max = UINT64_MAX, .noun = "a count" }
static const struct rs_member crc_count_members[] = {
    STATUS("verified", IB_CRC_VERIFIED),
    STATUS("mismatch", IB_CRC_MISMATCH),
    STATUS("not_present", IB_CRC_NOT_PRESENT),
};
const struct rs_object rs_crc_counts = { "crc.captures[].icrc", ROWS(crc_count_members) };

static const struct rs_member crc_capture_members[] = {
    { "capture", RS_INDEX, 0, .noun = "its place in crc.captures" },
    { "icrc", RS_OBJECT, AT(K, crc.icrc), .object = &rs_crc_counts },
    { "vcrc", RS_OBJECT, AT(K, crc.vcrc), .object = &rs_crc_counts },
};
const struct rs_object rs_crc_capture = { "crc.captures[]", ROWS(crc_capture_members) };
#undef K

#define P struct report_pool
static const struct rs_member pool_members[] = {
    { "low", RS_UINT, AT(P, low), .max = UINT16_MAX, .noun = "a port" },
    { "high", RS_UINT, AT(P, high), .max = UINT16_MAX, .noun = "a port" },
    U32(P, "size", size, "a count"),
    { "threshold_pct", RS_REAL, AT(P, threshold_pct), .lo = 0, .hi = 100, .decimals = 2,
      .trim = true, .noun = "a percentage" },
    { "forecast_horizon_s", RS_REAL, AT(P, forecast_horizon_s), .lo = 0,
      .hi = IB_FORECAST_HORIZON_MAX, .decimals = 9, .trim = true, .noun = "a number of seconds" },
    { "forecast_window_s", RS_REAL, AT(P, forecast_window_s), .lo = 0,
      .hi = IB_FORECAST_HORIZON_MAX, .decimals = 9, .trim = true, .noun = "a number of seconds" },
};
#undef P
const struct rs_object rs_pool = { "pool", ROWS(pool_members) };

#define N struct ib_connection_stats
static const struct rs_member connection_members[] = {
    COUNT(N, "requests", requests),
    COUNT(N, "established", established),
    COUNT(N, "rejected", rejected),
    COUNT(N, "closed", closed),
    { "unreachable", RS_UINT, AT(N, unreachable), .max = UINT64_MAX, .noun = "a count", .sums = true, .optional = true },
    { "disconnect_timeouts", RS_UINT, AT(N, disconnect_timeouts), .max = UINT64_MAX, .noun = "a count", .sums = true, .optional = true },
    { "waiting_at_end", RS_UINT, AT(N, waiting_at_end), .max = UINT64_MAX, .noun = "a count", .sums = true, .optional = true },
    COUNT(N, "retransmissions", retransmissions),
    { "retransmissions_by_message", RS_CODEC, AT(N, retransmissions_by_message), .codec = RS_CODEC_BY_MESSAGE, .sums = true, .optional = true },
    COUNT(N, "sidr_requests", sidr_requests),
    COUNT(N, "sidr_replies", sidr_replies),
    { "reject_reasons", RS_CODEC, AT(N, reject_reasons), .codec = RS_CODEC_REJECT_REASONS, .sums = true },
    CODEC(N, "setup_latency", setup, RS_CODEC_LATENCY),
    CODEC(N, "req_rep_latency", req_rep, RS_CODEC_LATENCY),
    { "list", RS_RECORDS, 0, .optional = true },
};
#undef N
const struct rs_object rs_connections = { "connections", ROWS(connection_members) };

#define M struct report_model
static const struct rs_member frames_members[] = {
    COUNT(M, "total", frames),
    COUNT(M, "ib", ib_frames),
    COUNT(M, "link_records", link_records),
    { "mac_control", RS_UINT, AT(M, mac_control_frames), .max = UINT64_MAX, .noun = "a count",
      .sums = true, .optional = true },
    { "first_time", RS_TIME, AT(M, first_ns), HAS(M, have_time) },
    { "last_time", RS_TIME, AT(M, last_ns), HAS(M, have_time) },
};
const struct rs_object rs_frames = { "frames", ROWS(frames_members) };

static const struct rs_member limits_members[] = {
    COUNT(M, "findings_dropped", findings_dropped),
    COUNT(M, "connections_evicted", stats.connections_evicted),
    COUNT(M, "transactions_evicted", stats.transactions_evicted),
    COUNT(M, "chains_dropped", stats.chains_dropped),
    COUNT(M, "sources_dropped", stats.sources_dropped),
    COUNT(M, "allocation_failures", stats.allocation_failures),
    { "connections_forgotten", RS_UINT, AT(M, stats.ended_forgotten), .max = UINT64_MAX,
      .noun = "a count", .sums = true, .optional = true },
    { "qps_not_traced", RS_UINT, AT(M, qps_not_traced), .max = UINT64_MAX, .noun = "a count",
      .sums = true, .optional = true },
    { "trace_points_dropped", RS_UINT, AT(M, trace_points_dropped), .max = UINT64_MAX,
      .noun = "a count", .sums = true, .optional = true },
    { "qps_dropped", RS_UINT, AT(M, stats.qps_dropped), .max = UINT64_MAX, .noun = "a count",
      .sums = true, .optional = true },
    { "qp_setups_forgotten", RS_UINT, AT(M, stats.qp_setups_forgotten), .max = UINT64_MAX,
      .noun = "a count", .sums = true, .optional = true },
    { "wire_directions_dropped", RS_UINT, AT(M, stats.wire_directions_dropped), .max = UINT64_MAX,
      .noun = "a count", .sums = true, .optional = true },
    { "wire_mixes_dropped", RS_UINT, AT(M, stats.wire_mixes_dropped), .max = UINT64_MAX,
      .noun = "a count", .sums = true, .optional = true },
    { "wire_conversations_dropped", RS_UINT, AT(M, stats.wire_conversations_dropped),
      .max = UINT64_MAX, .noun = "a count", .sums = true, .optional = true },
    { "wire_setups_forgotten", RS_UINT, AT(M, stats.wire_setups_forgotten), .max = UINT64_MAX,
      .noun = "a count", .sums = true, .optional = true },
    { "ce_pending_dropped", RS_UINT, AT(M, stats.ce_pending_dropped), .max = UINT64_MAX,
      .noun = "a count", .sums = true, .optional = true },
    { "cnp_flows_dropped", RS_UINT, AT(M, stats.cnp_flows_dropped), .max = UINT64_MAX,
      .noun = "a count", .sums = true, .optional = true },
    { "pfc_links_dropped", RS_UINT, AT(M, stats.pfc_links_dropped), .max = UINT64_MAX,
      .noun = "a count", .sums = true, .optional = true },
};
#undef M
const struct rs_object rs_limits = { "limits", ROWS(limits_members) };

/* findings[]: the finding's own members, then its details, whose table its
 * kind chooses (rs_finding_details). */
static const char *kind_name(unsigned v) { return ib_finding_kind_name((enum ib_finding_kind)v); }
static unsigned kind_by_name(const char *s) { return (unsigned)ib_finding_kind_by_name(s); }
static const struct rs_names kind_names = { kind_name, kind_by_name, IB_FIND_COUNT };
static const char *severity_name(unsigned v) { return ib_severity_name((enum ib_severity)v); }
static const struct rs_names severity_names = { severity_name, NULL, IB_SEV_ERROR + 1 };
static const char *rule_name(unsigned v) { return ib_diag_info((enum ib_diag_id)v)->name; }
static const struct rs_names rule_names = { rule_name, NULL, IB_DIAG_COUNT };

_Static_assert(IB_FINDING_TEXT_MAX <= RS_TEXT_MAX, "a finding's message fits an RS_TEXT");
static const char *message_text(const void *f, char *buf, size_t size)
{
    return ib_finding_format(f, buf, size);
}
static bool related(const void *f) { return ((const struct ib_finding *)f)->related.frame != 0; }
static bool ruled(const void *f)
{
    enum ib_finding_kind k = ((const struct ib_finding *)f)->kind;
    return k == IB_FIND_ADDRESSING || k == IB_FIND_MALFORMED;
}
static const struct rs_object *details_of(const void *f)
{
    return rs_finding_details[((const struct ib_finding *)f)->kind];
}

#define F struct ib_finding
static const struct rs_member finding_members[] = {
    { "capture", RS_CAPTURE, AT(F, at.capture) },
    { "frame", RS_FRAME_NUMBER, AT(F, at.frame) },
    { "time", RS_TIME, AT(F, at.time_ns) },
    { "kind", RS_ENUM, AT(F, kind), .names = &kind_names, .noun = "a finding kind" },
    { "severity", RS_ENUM, AT(F, severity), .names = &severity_names, .noun = "a severity" },
    { "message", RS_TEXT, 0, .text = message_text },
    /* written with a related frame, or a rule: merge_finding.c checks them against the kind */
    { "related_capture", RS_CAPTURE, AT(F, related.capture), .present = related, .optional = true },
    { "related_frame", RS_FRAME_NUMBER, AT(F, related.frame), .present = related, .optional = true },
    { "rule", RS_ENUM, AT(F, rule), .names = &rule_names, .noun = "a rule", .present = ruled,
      .optional = true },
    { "details", RS_VARIANT, AT(F, data), .variant = details_of, .after = "kind" },
};
#undef F
const struct rs_object rs_finding = { "findings[]", ROWS(finding_members) };

/* Any CM message by name (what a retransmission repeated, what went
 * unanswered); read back from those the engine follows. */
static const char *cm_message_name(unsigned v) { return ib_name_lookup(ib_cm_attr_names, v); }
static unsigned cm_message_by_name(const char *s)
{
    for (unsigned m = 0; m < IB_CM_MSG_COUNT; m++) {
        const char *n = ib_name_lookup(ib_cm_attr_names, IB_CM_MSG_FIRST + m);
        if (n && strcmp(n, s) == 0)
            return IB_CM_MSG_FIRST + m;
    }
    return UINT16_MAX + 1;
}
static const struct rs_names cm_message_names = { cm_message_name, cm_message_by_name, UINT16_MAX + 1 };
/* A CM redirect's message: a REJ or a SIDR_REP. */
static const char *redirect_message_name(unsigned v) { return v == IB_CM_REJ ? "REJ" : "SIDR_REP"; }
static unsigned redirect_message_by_name(const char *s)
{
    return strcmp(s, "REJ") == 0 ? IB_CM_REJ : strcmp(s, "SIDR_REP") == 0 ? IB_CM_SIDR_REP : UINT16_MAX + 1;
}
static const struct rs_names redirect_message_names = { redirect_message_name, redirect_message_by_name, UINT16_MAX + 1 };
static const char *model_name(unsigned v) { return ib_pool_model_name((enum ib_pool_model)v); }
static const struct rs_names model_names = { model_name, NULL, IB_MODEL_COUNT };

#define D struct ib_finding_data
static bool by_comm_id(const void *d) { return !((const D *)d)->sidr; }
static bool by_request_id(const void *d) { return ((const D *)d)->sidr; }
static bool cm_redirect(const void *d) { return ((const D *)d)->cm_attr != 0; }
static bool rejected(const void *d) { return ((const D *)d)->cm_attr == IB_CM_REJ; }

#define TUPLE CODEC(D, "tuple", tuple, RS_CODEC_TUPLE)
/* A connection by its LocalCommID, a SIDR by its RequestID. */
#define COMM_IDS                                                                                   \
    { "local_comm_id", RS_UINT, AT(D, comm_id), .max = UINT32_MAX, .noun = "a comm ID", .present = by_comm_id }, \
    { "request_id", RS_UINT, AT(D, comm_id), .max = UINT32_MAX, .noun = "a comm ID",              \
      .present = by_request_id, .marks = 1 + offsetof(D, sidr) }
#define CM_MESSAGE(key) { key, RS_ENUM, AT(D, cm_attr), .names = &cm_message_names, \
                          .noun = "a CM message (REQ, MRA, REJ, REP, ...)" }
#define U8(key, field, m, n) { key, RS_UINT, AT(D, field), .max = m, .noun = n }

static const struct rs_member retransmission_members[] = {
    /* repeated: a report from before other messages were followed has none (its REQ) */
    TUPLE, COMM_IDS, { "repeated", RS_ENUM, AT(D, cm_attr), .names = &cm_message_names,
                       .noun = "a CM message (REQ, MRA, REJ, REP, ...)", .optional = true },
};
static const struct rs_object rs_details_retransmission = { "findings[].details: retransmission", ROWS(retransmission_members) };

static const struct rs_member unreachable_members[] = {
    TUPLE, COMM_IDS, CM_MESSAGE("unanswered"),
    U32(D, "sent", sent, "a number of copies"),
    { "tried_ns", RS_INT, AT(D, tried_ns), .noun = "a time in ns" },
};
static const struct rs_object rs_details_unreachable = { "findings[].details: unreachable", ROWS(unreachable_members) };

static const struct rs_member path_ignored_members[] = { TUPLE, COMM_IDS, CM_MESSAGE("ignored") };
static const struct rs_object rs_details_path_ignored = { "findings[].details: path_ignored", ROWS(path_ignored_members) };

static const struct rs_member new_req_members[] = { TUPLE };
static const struct rs_object rs_details_new_req = { "findings[].details: port_reused, explicit_port_shared", ROWS(new_req_members) };

static const struct rs_member duplicate_tuple_members[] = {
    TUPLE, U32(D, "open_local_comm_id", comm_id, "a comm ID"),
};
static const struct rs_object rs_details_duplicate_tuple = { "findings[].details: duplicate_tuple", ROWS(duplicate_tuple_members) };

#define POOL_SOURCE                                                                         \
    { "source", RS_IP, AT(D, tuple.src_ip), .aux = offsetof(D, tuple.ip_version) },        \
    { "port_space", RS_PORT_SPACE, AT(D, tuple.port_space) }
#define POOL_FIGURES                                                                        \
    U32(D, "ports_in_use", ports_in_use, "a count of ports"),                               \
    { "pool_size", RS_UINT, AT(D, pool_size), .max = UINT16_MAX, .noun = "a pool size" },   \
    { "host_addresses", RS_UINT, AT(D, host_addresses), .max = UINT32_MAX,                  \
      .noun = "a count of addresses", .optional = true }
static const struct rs_member pool_high_members[] = { POOL_SOURCE, POOL_FIGURES };
static const struct rs_object rs_details_pool_high = { "findings[].details: pool_high", ROWS(pool_high_members) };

static const struct rs_member pool_forecast_members[] = {
    POOL_SOURCE,
    { "model", RS_ENUM, AT(D, model), .names = &model_names, .noun = "a model (one_port, per_destination)" },
    POOL_FIGURES,
    { "eta_s", RS_REAL, AT(D, eta_s), .lo = 0, .hi = DBL_MAX, .decimals = 3, .trim = true,
      .noun = "a number of seconds" },
    /* above 0 when it fired, but written to 6 decimals */
    { "rate_per_s", RS_REAL, AT(D, rate_per_s), .lo = 0, .hi = DBL_MAX, .decimals = 6, .trim = true,
      .noun = "a rate (ports a second)" },
};
static const struct rs_object rs_details_pool_forecast = { "findings[].details: pool_forecast", ROWS(pool_forecast_members) };

/* Every redirect kind's: the chain it belongs to and the target; a CM
 * redirect's message, and a REJ's reason. */
#define REDIRECT                                                                                   \
    U8("mgmt_class", mgmt_class, UINT8_MAX, "a management class"),                                \
    CODEC(D, "chain", chain, RS_CODEC_CHAIN),                                                      \
    CODEC(D, "target", target, RS_CODEC_TARGET),                                                   \
    { "cm_message", RS_ENUM, AT(D, cm_attr), .names = &redirect_message_names,                    \
      .noun = "a CM message (REJ, SIDR_REP)", .present = cm_redirect },                            \
    { "reject_reason", RS_UINT, AT(D, reject_reason), .max = UINT16_MAX, .noun = "a reject reason", \
      .present = rejected }

static const struct rs_member redirect_members[] = { REDIRECT, U8("sl", sl, 15, "a service level") };
static const struct rs_object rs_details_redirect = { "findings[].details: redirect", ROWS(redirect_members) };

static const struct rs_member redirect_followed_members[] = {
    REDIRECT, U32(D, "hop", hops, "a number of redirects"),
};
static const struct rs_object rs_details_redirect_followed = { "findings[].details: redirect_followed", ROWS(redirect_followed_members) };

static const struct rs_member redirect_loop_members[] = {
    REDIRECT, U32(D, "chain_length", hops, "a number of redirects"),
};
static const struct rs_object rs_details_redirect_loop = { "findings[].details: redirect_loop", ROWS(redirect_loop_members) };

static const struct rs_member redirect_gid_only_members[] = { REDIRECT };
static const struct rs_object rs_details_redirect_gid_only = { "findings[].details: redirect_gid_only", ROWS(redirect_gid_only_members) };

static const struct rs_member redirect_bad_target_members[] = {
    REDIRECT, CODEC(D, "problems", problems, RS_CODEC_PROBLEMS),
};
static const struct rs_object rs_details_redirect_bad_target = { "findings[].details: redirect_bad_target", ROWS(redirect_bad_target_members) };

/* The keys carried, each null when it matched (no bit in problems). */
static const struct rs_member redirect_key_mismatch_members[] = {
    REDIRECT,
    { "carried_qkey", RS_UINT, AT(D, qkey), HAS(D, problems), .has_bit = IB_KEY_QKEY,
      .max = UINT32_MAX, .noun = "a Q_Key or null" },
    { "carried_pkey", RS_UINT, AT(D, pkey), HAS(D, problems), .has_bit = IB_KEY_PKEY,
      .max = UINT16_MAX, .noun = "a P_Key or null" },
};
static const struct rs_object rs_details_redirect_key_mismatch = { "findings[].details: redirect_key_mismatch", ROWS(redirect_key_mismatch_members) };

static const struct rs_member redirect_not_followed_members[] = {
    REDIRECT,
    { "sent_to", RS_ENDPOINT, AT(D, sent_to) },
    U32(D, "sent_to_qp", sent_to_qp, "a QP number"),
};
static const struct rs_object rs_details_redirect_not_followed = { "findings[].details: redirect_not_followed", ROWS(redirect_not_followed_members) };

const char *const rs_target_problem_names[RS_TARGET_PROBLEMS] = { "no_address", "qp0", "no_pkey" };

/* addressing, malformed: none (the finding's rule says it). */
static const struct rs_object rs_details_none = { "findings[].details: addressing, malformed", NULL, 0 };

static const struct rs_member crc_mismatch_members[] = {
    U32(D, "carried", crc_carried, "a CRC"),
    U32(D, "computed", crc_computed, "a CRC"),
};
static const struct rs_object rs_details_crc_mismatch = { "findings[].details: icrc_mismatch, vcrc_mismatch", ROWS(crc_mismatch_members) };

static const struct rs_member not_delivered_members[] = {
    U8("mgmt_class", mgmt_class, UINT8_MAX, "a management class"),
    U8("method", method, UINT8_MAX, "a MAD method"),
    { "attr_id", RS_UINT, AT(D, attr_id), .max = UINT16_MAX, .noun = "an attribute ID" },
    { "from", RS_ENDPOINT, AT(D, from) },
    { "to", RS_ENDPOINT, AT(D, to) },
    { "to_capture", RS_CAPTURE, AT(D, to_capture) },
};
static const struct rs_object rs_details_not_delivered = { "findings[].details: not_delivered", ROWS(not_delivered_members) };

/* The transport kinds' (docs/transport.md): the queue pair, then the PSN
 * and what the kind says of it. */
#define R struct ib_qp_ref
static const struct rs_member qp_ref_members[] = {
    U32(R, "index", index, "a queue pair's number"),
    { "dst", RS_ENDPOINT, AT(R, dst) },
    { "qpn", RS_UINT, AT(R, qpn), .max = QP_MAX, .noun = "a QP number" },
};
#undef R
const struct rs_object rs_qp_ref = { "findings[].details.qp", ROWS(qp_ref_members) };

static const char *resend_cause_name(unsigned v) { return ib_resend_cause_name(v); }
static const struct rs_names resend_cause_names = { resend_cause_name, ib_resend_cause_by_name, IB_RESEND_CAUSE_COUNT };
static const char *exhausted_cause_name(unsigned v) { return ib_exhausted_cause_name(v); }
static const struct rs_names exhausted_cause_names = { exhausted_cause_name, ib_exhausted_cause_by_name, IB_EXHAUSTED_CAUSE_COUNT };
static const char *nak_code_name(unsigned v) { return ib_nak_code_key(v); }
static const struct rs_names nak_code_names = { nak_code_name, ib_nak_code_by_key, IB_NAK_CODES };
static bool after_rnr_nak(const void *d) { return ((const D *)d)->cause == IB_RESEND_RNR_NAK; }

#define QP_OF { "qp", RS_OBJECT, AT(D, qp), .object = &rs_qp_ref }
#define PSN_OF(key, field) { key, RS_UINT, AT(D, field), .max = IB_PSN_MASK, .noun = "a PSN" }
#define NS_OF(key, field) { key, RS_INT, AT(D, field), .noun = "a time in ns" }

static const struct rs_member psn_gap_members[] = {
    QP_OF, PSN_OF("expected_psn", expected_psn), PSN_OF("psn", psn),
    U32(D, "missing", missing, "a count of PSNs"),
};
static const struct rs_object rs_details_psn_gap = { "findings[].details: psn_gap", ROWS(psn_gap_members) };

static const struct rs_member capture_loss_members[] = {
    QP_OF, PSN_OF("first_psn", psn), U32(D, "missing", missing, "a count of PSNs"),
};
static const struct rs_object rs_details_capture_loss = { "findings[].details: capture_loss", ROWS(capture_loss_members) };

static const struct rs_member out_of_order_members[] = { QP_OF, PSN_OF("psn", psn) };
static const struct rs_object rs_details_out_of_order = { "findings[].details: out_of_order", ROWS(out_of_order_members) };

static const struct rs_member transport_retransmission_members[] = {
    QP_OF, PSN_OF("psn", psn),
    { "cause", RS_ENUM, AT(D, cause), .names = &resend_cause_names,
      .noun = "a cause (nak, rnr_nak, timeout, spurious)" },
    { "wait_ns", RS_INT, AT(D, wait_ns), .noun = "a time in ns", .present = after_rnr_nak },
};
static const struct rs_object rs_details_transport_retransmission = { "findings[].details: transport_retransmission", ROWS(transport_retransmission_members) };

static const struct rs_member nak_members[] = {
    QP_OF,
    { "code", RS_ENUM, AT(D, code), .names = &nak_code_names,
      .noun = "a NAK code (psn_sequence_error, invalid_request, remote_access_error, ...)" },
    PSN_OF("psn", psn),
};
static const struct rs_object rs_details_nak = { "findings[].details: nak", ROWS(nak_members) };

static const struct rs_member rnr_nak_members[] = {
    QP_OF, PSN_OF("psn", psn), U8("timer", code, 31, "an RNR timer code"),
    NS_OF("timer_ns", wait_ns),
};
static const struct rs_object rs_details_rnr_nak = { "findings[].details: rnr_nak", ROWS(rnr_nak_members) };

static const struct rs_member retries_exhausted_members[] = {
    QP_OF, PSN_OF("psn", psn), U32(D, "sent", sent, "a number of sends"),
    { "cause", RS_ENUM, AT(D, cause), .names = &exhausted_cause_names,
      .noun = "a cause (never_acked, naks, late_acks)" },
};
static const struct rs_object rs_details_retries_exhausted = { "findings[].details: retries_exhausted", ROWS(retries_exhausted_members) };

static const struct rs_member ack_timeout_members[] = {
    QP_OF, PSN_OF("psn", psn), NS_OF("waited_ns", wait_ns), NS_OF("timeout_ns", limit_ns),
};
static const struct rs_object rs_details_ack_timeout = { "findings[].details: ack_timeout", ROWS(ack_timeout_members) };

static const struct rs_member psn_start_mismatch_members[] = {
    QP_OF, PSN_OF("expected_psn", expected_psn), PSN_OF("psn", psn),
};
static const struct rs_object rs_details_psn_start_mismatch = { "findings[].details: psn_start_mismatch", ROWS(psn_start_mismatch_members) };

/* The wire audit's kinds (docs/wire-audit.md), keys in the order of
 * samples/gen/wire_contract.md. */
static const char *ecn_name(unsigned v) { return ib_name_lookup(ib_ecn_names, v); }
static const struct rs_names ecn_names = { ecn_name, NULL, IB_ECN_CE + 1 };
static const char *gid_kind_name(unsigned v) { return ib_gid_kind_name((enum ib_gid_kind)v); }
static const struct rs_names gid_kind_names = { gid_kind_name, NULL, IB_GID_KIND_IPV4_MAPPED + 1 };
static const char *class_field_name(unsigned v)
{
    return v == IB_WIRE_DSCP || v == IB_WIRE_PRIORITY ? ib_wire_field_name(v) : NULL;
}
static unsigned class_field_by_name(const char *s)
{
    unsigned f = ib_wire_field_by_name(s);
    return f == IB_WIRE_DSCP || f == IB_WIRE_PRIORITY ? f : IB_WIRE_PRIORITY + 1;
}
static const struct rs_names class_field_names = { class_field_name, class_field_by_name, IB_WIRE_PRIORITY + 1 };
static bool link_form(const void *d) { return ((const D *)d)->link_mtu != 0; }
static bool path_form(const void *d) { return ((const D *)d)->link_mtu == 0; }

#define DEST_QP { "qp", RS_UINT, AT(D, dest_qp), .max = QP_MAX, .noun = "a QP number" }

static const struct rs_member asymmetric_class_members[] = {
    DEST_QP,
    { "field", RS_ENUM, AT(D, class_field), .names = &class_field_names, .noun = "a class field (dscp, priority)" },
    { "value", RS_UINT, AT(D, value), HAS(D, known), .has_bit = IB_KNOWN_VALUE, .max = 63,
      .noun = "a DSCP or priority, or null" },
    { "other", RS_UINT, AT(D, other), HAS(D, known), .has_bit = IB_KNOWN_OTHER, .max = 63,
      .noun = "a DSCP or priority, or null" },
};
static const struct rs_object rs_details_asymmetric_class = { "findings[].details: asymmetric_class", ROWS(asymmetric_class_members) };

static const struct rs_member not_ect_members[] = {
    DEST_QP,
    { "ecn", RS_ENUM, AT(D, value), .names = &ecn_names, .noun = "an ECN codepoint (Not-ECT, ECT(1), ECT(0), CE)" },
};
static const struct rs_object rs_details_not_ect = { "findings[].details: not_ect", ROWS(not_ect_members) };

static const struct rs_member mtu_exceeded_members[] = {
    { "qp", RS_UINT, AT(D, dest_qp), .max = QP_MAX, .noun = "a QP number", .present = path_form },
    { "payload", RS_UINT, AT(D, payload), .max = UINT32_MAX, .noun = "a count of bytes", .present = path_form },
    U32(D, "path_mtu", path_mtu, "a count of bytes"),
    { "link_mtu", RS_UINT, AT(D, link_mtu), .max = UINT32_MAX, .noun = "a count of bytes", .present = link_form },
    { "needed", RS_UINT, AT(D, needed), .max = UINT32_MAX, .noun = "a count of bytes", .present = link_form },
};
static const struct rs_object rs_details_mtu_exceeded = { "findings[].details: mtu_exceeded", ROWS(mtu_exceeded_members) };

static const struct rs_member roce_version_mix_members[] = {
    DEST_QP,
    { "version", RS_UINT, AT(D, value), .max = 2, .noun = "a RoCE version (1, 2)" },
    { "other", RS_UINT, AT(D, other), .max = 2, .noun = "a RoCE version (1, 2)" },
};
static const struct rs_object rs_details_roce_version_mix = { "findings[].details: roce_version_mix", ROWS(roce_version_mix_members) };

static const struct rs_member link_local_gid_routed_members[] = {
    { "gid_kind", RS_ENUM, AT(D, value), .names = &gid_kind_names, .noun = "a GID kind (global, link-local, IPv4-mapped)" },
    U8("hop_limit", other, UINT8_MAX, "a hop limit"),
};
static const struct rs_object rs_details_link_local_gid_routed = { "findings[].details: link_local_gid_routed", ROWS(link_local_gid_routed_members) };
#undef DEST_QP

/* The congestion kinds' (docs/wire-audit.md): the contract's keys first. */
static const struct rs_member ce_without_cnp_members[] = {
    { "qp", RS_UINT, AT(D, qp.qpn), .max = QP_MAX, .noun = "a QP number" },
    { "sender_qp", RS_UINT, AT(D, sender_qpn), .max = QP_MAX, .noun = "a QP number" },
    { "window_us", RS_UINT, AT(D, window_us), .max = IB_CNP_WINDOW_US_MAX, .noun = "a window in us" },
    { "sender", RS_ENDPOINT, AT(D, from) },
    { "receiver", RS_ENDPOINT, AT(D, to) },
};
static const struct rs_object rs_details_ce_without_cnp = { "findings[].details: ce_without_cnp", ROWS(ce_without_cnp_members) };

static const struct rs_member pfc_storm_members[] = {
    U8("priority", priority, 7, "a priority (0 to 7)"),
    { "paused_us", RS_UINT, AT(D, paused_us), .max = UINT64_MAX, .noun = "a time in us" },
    { "roce", RS_BOOL, AT(D, roce) },
};
static const struct rs_object rs_details_pfc_storm = { "findings[].details: pfc_storm", ROWS(pfc_storm_members) };
#undef D

const struct rs_object *const rs_finding_details[IB_FIND_COUNT] = {
    [IB_FIND_RETRANSMISSION] = &rs_details_retransmission,
    [IB_FIND_PORT_REUSED] = &rs_details_new_req,
    [IB_FIND_DUPLICATE_TUPLE] = &rs_details_duplicate_tuple,
    [IB_FIND_EXPLICIT_PORT_SHARED] = &rs_details_new_req,
    [IB_FIND_POOL_HIGH] = &rs_details_pool_high,
    [IB_FIND_POOL_FORECAST] = &rs_details_pool_forecast,
    [IB_FIND_UNREACHABLE] = &rs_details_unreachable,
    [IB_FIND_PATH_IGNORED] = &rs_details_path_ignored,
    [IB_FIND_REDIRECT] = &rs_details_redirect,
    [IB_FIND_REDIRECT_FOLLOWED] = &rs_details_redirect_followed,
    [IB_FIND_REDIRECT_LOOP] = &rs_details_redirect_loop,
    [IB_FIND_REDIRECT_GID_ONLY] = &rs_details_redirect_gid_only,
    [IB_FIND_REDIRECT_BAD_TARGET] = &rs_details_redirect_bad_target,
    [IB_FIND_REDIRECT_KEY_MISMATCH] = &rs_details_redirect_key_mismatch,
    [IB_FIND_REDIRECT_NOT_FOLLOWED] = &rs_details_redirect_not_followed,
    [IB_FIND_ADDRESSING] = &rs_details_none,
    [IB_FIND_MALFORMED] = &rs_details_none,
    [IB_FIND_ICRC_MISMATCH] = &rs_details_crc_mismatch,
    [IB_FIND_VCRC_MISMATCH] = &rs_details_crc_mismatch,
    [IB_FIND_NOT_DELIVERED] = &rs_details_not_delivered,
    [IB_FIND_PSN_GAP] = &rs_details_psn_gap,
    [IB_FIND_CAPTURE_LOSS] = &rs_details_capture_loss,
    [IB_FIND_OUT_OF_ORDER] = &rs_details_out_of_order,
    [IB_FIND_TRANSPORT_RETRANSMISSION] = &rs_details_transport_retransmission,
    [IB_FIND_NAK] = &rs_details_nak,
    [IB_FIND_RNR_NAK] = &rs_details_rnr_nak,
    [IB_FIND_RETRIES_EXHAUSTED] = &rs_details_retries_exhausted,
    [IB_FIND_ACK_TIMEOUT] = &rs_details_ack_timeout,
    [IB_FIND_PSN_START_MISMATCH] = &rs_details_psn_start_mismatch,
    [IB_FIND_ASYMMETRIC_CLASS] = &rs_details_asymmetric_class,
    [IB_FIND_NOT_ECT] = &rs_details_not_ect,
    [IB_FIND_MTU_EXCEEDED] = &rs_details_mtu_exceeded,
    [IB_FIND_ROCE_VERSION_MIX] = &rs_details_roce_version_mix,
    [IB_FIND_LINK_LOCAL_GID_ROUTED] = &rs_details_link_local_gid_routed,
    [IB_FIND_CE_WITHOUT_CNP] = &rs_details_ce_without_cnp,
    [IB_FIND_PFC_STORM] = &rs_details_pfc_storm,
};

/* qps[]: struct ib_qp_stats, each requester direction of an RC queue pair
 * (docs/transport.md). */
#define COUNT_AT(key, i) { key, RS_UINT, (i) * sizeof(uint64_t), .size = sizeof(uint64_t), \
                           .max = UINT64_MAX, .noun = "a count", .sums = true }
static const struct rs_member qp_request_members[] = {
    COUNT_AT("send", IB_QP_SEND), COUNT_AT("write", IB_QP_WRITE), COUNT_AT("read", IB_QP_READ),
    COUNT_AT("atomic", IB_QP_ATOMIC),
};
const struct rs_object rs_qp_requests = { "qps[].requests", ROWS(qp_request_members) };

static const struct rs_member qp_nak_members[] = {
    COUNT_AT("psn_sequence_error", IB_NAK_PSN_SEQUENCE), COUNT_AT("invalid_request", IB_NAK_INVALID_REQUEST),
    COUNT_AT("remote_access_error", IB_NAK_REMOTE_ACCESS),
    COUNT_AT("remote_operational_error", IB_NAK_REMOTE_OPERATIONAL),
    COUNT_AT("invalid_rd_request", IB_NAK_INVALID_RD_REQUEST),
};
const struct rs_object rs_qp_naks = { "qps[].naks", ROWS(qp_nak_members) };

static const struct rs_member qp_resend_members[] = {
    COUNT_AT("nak", IB_RESEND_NAK), COUNT_AT("rnr_nak", IB_RESEND_RNR_NAK),
    COUNT_AT("timeout", IB_RESEND_TIMEOUT), COUNT_AT("spurious", IB_RESEND_SPURIOUS),
};
const struct rs_object rs_qp_resends = { "qps[].resends", ROWS(qp_resend_members) };
#undef COUNT_AT

#define T struct ib_rtt
static const struct rs_member rtt_members[] = {
    COUNT(T, "count", count),
    { "min_ns", RS_INT, AT(T, min_ns), .noun = "a time in ns" },
    { "median_ns", RS_INT, AT(T, median_ns), .noun = "a time in ns" },
    { "p99_ns", RS_INT, AT(T, p99_ns), .noun = "a time in ns" },
    { "max_ns", RS_INT, AT(T, max_ns), .noun = "a time in ns" },
};
#undef T
const struct rs_object rs_qp_rtt = { "qps[].ack_rtt", ROWS(rtt_members) };

/* qps[].trace[]: a traced queue pair's frames (qp_trace.h). */
static const char *trace_kind_name(unsigned v) { return report_trace_kind_name(v); }
static const struct rs_names trace_kind_names = { trace_kind_name, report_trace_kind_by_name, REPORT_TRACE_KIND_COUNT };
static bool traced(const void *q) { return ((const struct report_qp *)q)->traced; }

#define T struct report_trace_point
static const struct rs_member trace_members[] = {
    { "time", RS_TIME, AT(T, time_ns) },
    { "capture", RS_CAPTURE, AT(T, capture) },
    { "frame", RS_FRAME_NUMBER, AT(T, frame) },
    { "psn", RS_UINT, AT(T, psn), .max = IB_PSN_MASK, .noun = "a PSN" },
    { "kind", RS_ENUM, AT(T, kind), .names = &trace_kind_names,
      .noun = "a point's kind (request, resend, ack, response, nak, rnr_nak)" },
    { "finding", RS_ENUM, AT(T, finding), HAS(T, has_finding), .names = &kind_names, .nullable = true,
      .noun = "a finding kind or null" },
};
#undef T
const struct rs_object rs_qp_trace = { "qps[].trace[]", ROWS(trace_members) };

#define Q struct report_qp
static const struct rs_member qp_members[] = {
    U32(Q, "index", stats.qp.index, "a queue pair's number"),
    { "dst", RS_ENDPOINT, AT(Q, stats.qp.dst) },
    { "qpn", RS_UINT, AT(Q, stats.qp.qpn), .max = QP_MAX, .noun = "a QP number" },
    FLAG(Q, "from_cm", stats.from_cm),
    { "retry_count", RS_UINT, AT(Q, stats.retry_count), HAS(Q, stats.from_cm), .max = 7, .noun = "a retry count or null" },
    { "rnr_retry_count", RS_UINT, AT(Q, stats.rnr_retry_count), HAS(Q, stats.from_cm), .max = 7,
      .noun = "an RNR retry count or null" },
    { "ack_timeout", RS_UINT, AT(Q, stats.ack_timeout), HAS(Q, stats.from_cm), .max = 31,
      .noun = "a local ACK timeout or null" },
    FRAME(Q, "first", stats.first),
    FRAME(Q, "last", stats.last),
    { "requests", RS_OBJECT, AT(Q, stats.requests), .object = &rs_qp_requests },
    COUNT(Q, "payload_bytes", stats.payload_bytes),
    COUNT(Q, "answers", stats.answers),
    { "naks", RS_OBJECT, AT(Q, stats.naks), .object = &rs_qp_naks },
    COUNT(Q, "rnr_naks", stats.rnr_naks),
    { "rnr_wait_ns", RS_INT, AT(Q, stats.rnr_wait_ns), .noun = "a time in ns" },
    { "resends", RS_OBJECT, AT(Q, stats.resends), .object = &rs_qp_resends },
    COUNT(Q, "psn_gaps", stats.psn_gaps),
    COUNT(Q, "psns_missing", stats.psns_missing),
    { "ack_rtt", RS_OBJECT, AT(Q, stats.ack_rtt), .object = &rs_qp_rtt },
    FLAG(Q, "died", stats.died),
    { "trace", RS_LIST, offsetof(Q, trace), .aux = offsetof(Q, trace_count),
      .size = sizeof(struct report_trace_point), .max = REPORT_TRACE_POINTS_MAX,
      .object = &rs_qp_trace, .marks = 1 + offsetof(Q, traced), .present = traced,
      .optional = true },
    { "trace_dropped", RS_UINT, AT(Q, trace_dropped), .max = UINT64_MAX, .noun = "a count",
      .present = traced, .optional = true },
};
#undef Q
const struct rs_object rs_qp = { "qps[]", ROWS(qp_members) };

/* settings[]: struct report_wire, a direction of the wire audit
 * (docs/wire-audit.md); each setting a list of its values with their
 * packets, in order of first sight. */
static const struct rs_names version_names = { ib_wire_version_name, NULL, IB_WIRE_VERSIONS };

#define V struct ib_wire_count
#define PACKETS COUNT(V, "packets", packets)
static const struct rs_member wire_dscp_members[] = {
    { "value", RS_UINT, AT(V, value), HAS(V, known), .max = 63, .noun = "a DSCP or null" }, PACKETS,
};
const struct rs_object rs_wire_dscp = { "settings[].dscp[]", ROWS(wire_dscp_members) };
static const struct rs_member wire_ecn_members[] = {
    { "value", RS_ENUM, AT(V, value), HAS(V, known), .names = &ecn_names, .nullable = true,
      .noun = "an ECN codepoint (Not-ECT, ECT(1), ECT(0), CE) or null" }, PACKETS,
};
const struct rs_object rs_wire_ecn = { "settings[].ecn[]", ROWS(wire_ecn_members) };
static const struct rs_member wire_priority_members[] = {
    { "value", RS_UINT, AT(V, value), HAS(V, known), .max = 7, .noun = "a priority or null" }, PACKETS,
};
const struct rs_object rs_wire_priority = { "settings[].priority[]", ROWS(wire_priority_members) };
static const struct rs_member wire_version_members[] = {
    { "value", RS_ENUM, AT(V, value), HAS(V, known), .names = &version_names,
      .noun = "a carrier (native, RoCEv1, RoCEv2)" }, PACKETS,
};
const struct rs_object rs_wire_version = { "settings[].version[]", ROWS(wire_version_members) };
static const struct rs_member wire_gid_kind_members[] = {
    { "value", RS_ENUM, AT(V, value), HAS(V, known), .names = &gid_kind_names, .nullable = true,
      .noun = "a GID kind (global, link-local, IPv4-mapped) or null" }, PACKETS,
};
const struct rs_object rs_wire_gid_kind = { "settings[].gid_kind[]", ROWS(wire_gid_kind_members) };
#undef PACKETS
#undef V

#define W struct report_wire
#define NOT_KEPT(key, f) { key, RS_UINT, AT(W, dir.fields[f].other), .max = UINT64_MAX, .noun = "a count" }
static const struct rs_member wire_not_kept_members[] = {
    NOT_KEPT("dscp", IB_WIRE_DSCP), NOT_KEPT("ecn", IB_WIRE_ECN),
    NOT_KEPT("priority", IB_WIRE_PRIORITY), NOT_KEPT("version", IB_WIRE_VERSION),
    NOT_KEPT("gid_kind", IB_WIRE_GID_KIND),
};
#undef NOT_KEPT
static const struct rs_object rs_wire_not_kept = { "settings[].not_kept", ROWS(wire_not_kept_members) };
static bool values_not_kept(const void *w)
{
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
        if (((const W *)w)->dir.fields[f].other)
            return true;
    return false;
}
#define VALUES(key, f, o) { key, RS_LIST, offsetof(W, values[f]), .aux = offsetof(W, dir.fields[f].count), \
                            .size = sizeof(struct ib_wire_count), .max = IB_WIRE_VALUES_MAX, .object = &o }
static const struct rs_member wire_members[] = {
    U32(W, "index", dir.index, "a direction's number"),
    { "src", RS_ENDPOINT, AT(W, dir.src) },
    { "dst", RS_ENDPOINT, AT(W, dir.dst) },
    { "qpn", RS_UINT, AT(W, dir.qpn), .max = QP_MAX, .noun = "a QP number" },
    { "pair", RS_UINT, AT(W, dir.pair), HAS(W, dir.has_pair), .max = UINT32_MAX,
      .noun = "a direction's number or null" },
    { "path_mtu", RS_UINT, AT(W, dir.path_mtu), HAS(W, dir.has_pair), .max = 4096,
      .noun = "a path MTU or null" },
    FRAME(W, "req", dir.req),
    COUNT(W, "packets", dir.packets),
    U32(W, "max_payload", dir.max_payload, "a count of bytes"),
    FRAME(W, "first", dir.first),
    VALUES("dscp", IB_WIRE_DSCP, rs_wire_dscp),
    VALUES("ecn", IB_WIRE_ECN, rs_wire_ecn),
    VALUES("priority", IB_WIRE_PRIORITY, rs_wire_priority),
    VALUES("version", IB_WIRE_VERSION, rs_wire_version),
    VALUES("gid_kind", IB_WIRE_GID_KIND, rs_wire_gid_kind),
    { "not_kept", RS_OBJECT, 0, .object = &rs_wire_not_kept, .present = values_not_kept,
      .optional = true },
};
#undef VALUES
#undef W
const struct rs_object rs_wire = { "settings[]", ROWS(wire_members) };

/* congestion: the settings, cnp[] (struct ib_cnp_stats) and pfc[] (struct
 * ib_pfc_stats); docs/wire-audit.md. */
#define NS_OR_NULL(T, key, field, has) { key, RS_INT, AT(T, field), HAS(T, has), .noun = "a time in ns or null" }
#define C struct ib_cnp_stats
static const struct rs_member cnp_members[] = {
    { "sender", RS_ENDPOINT, AT(C, sender) },
    { "sender_qp", RS_UINT, AT(C, sender_qpn), .max = QP_MAX, .noun = "a QP number" },
    { "receiver", RS_ENDPOINT, AT(C, receiver) },
    { "qp", RS_UINT, AT(C, qpn), HAS(C, has_qpn), .max = QP_MAX, .noun = "a QP number or null" },
    COUNT(C, "ce_marks", ce_marks),
    COUNT(C, "cnps", cnps),
    COUNT(C, "answered", answered),
    COUNT(C, "unanswered", unanswered),
    COUNT(C, "open_at_end", open_at_end),
    FRAME(C, "first", first),
    FRAME(C, "last", last),
    NS_OR_NULL(C, "delay_min_ns", delay_min_ns, has_delay),
    NS_OR_NULL(C, "delay_mean_ns", delay_mean_ns, has_delay),
    NS_OR_NULL(C, "delay_max_ns", delay_max_ns, has_delay),
    NS_OR_NULL(C, "cnp_gap_min_ns", cnp_gap_min_ns, has_cnp_gap),
    { "cnp_rate_per_s", RS_REAL, AT(C, cnp_rate_per_s), HAS(C, has_cnp_rate), .lo = 0, .hi = DBL_MAX,
      .decimals = 3, .trim = true, .noun = "a rate (CNPs a second) or null" },
};
#undef C
const struct rs_object rs_cnp = { "congestion.cnp[]", ROWS(cnp_members) };

#define P struct ib_pfc_stats
static const struct rs_member pfc_members[] = {
    { "capture", RS_CAPTURE, AT(P, capture) },
    { "priority", RS_UINT, AT(P, priority), HAS(P, pfc), .max = 7,
      .noun = "a priority (0 to 7), or null for PAUSE" },
    FLAG(P, "roce", roce),
    COUNT(P, "frames", frames),
    COUNT(P, "pauses", pauses),
    COUNT(P, "xons", xons),
    COUNT(P, "storms", storms),
    { "paused_ns", RS_INT, AT(P, paused_ns), .noun = "a time in ns" },
    { "longest_ns", RS_INT, AT(P, longest_ns), .noun = "a time in ns" },
    FRAME(P, "longest_frame", longest_at),
    FLAG(P, "paused_at_end", paused_at_end),
};
#undef P
const struct rs_object rs_pfc = { "congestion.pfc[]", ROWS(pfc_members) };

#define G struct report_congestion
static const struct rs_member congestion_members[] = {
    { "cnp_window_us", RS_UINT, AT(G, cnp_window_us), .max = IB_CNP_WINDOW_US_MAX,
      .noun = "a window in us" },
    { "pfc_storm_ms", RS_UINT, AT(G, pfc_storm_ms), .max = IB_PFC_STORM_MS_MAX, .noun = "a time in ms" },
    { "pfc_link_gbps", RS_UINT, AT(G, pfc_link_gbps), .max = UINT32_MAX, .noun = "a speed in Gb/s" },
    { "cnp", RS_LIST, offsetof(G, cnps), .aux = offsetof(G, cnp_count),
      .size = sizeof(struct ib_cnp_stats), .max = REPORT_CNP_FLOWS_MAX, .object = &rs_cnp },
    { "pfc", RS_LIST, offsetof(G, pfcs), .aux = offsetof(G, pfc_count),
      .size = sizeof(struct ib_pfc_stats), .max = REPORT_PFC_CLASSES_MAX, .object = &rs_pfc },
};
#undef G
const struct rs_object rs_congestion = { "congestion", ROWS(congestion_members) };

/* clang-format on */

/* In the order of the JSON report. */
const struct rs_object *const rs_objects[] = {
    &rs_capture,
    &rs_live,
    &rs_frames,
    &rs_pool,
    &rs_connections,
    &rs_connection_record,
    &rs_conn_frames,
    &rs_source,
    &rs_chain,
    &rs_qp,
    &rs_qp_requests,
    &rs_qp_naks,
    &rs_qp_resends,
    &rs_qp_rtt,
    &rs_qp_trace,
    &rs_wire,
    &rs_wire_dscp,
    &rs_wire_ecn,
    &rs_wire_priority,
    &rs_wire_version,
    &rs_wire_gid_kind,
    &rs_wire_not_kept,
    &rs_congestion,
    &rs_cnp,
    &rs_pfc,
    &rs_crc_capture,
    &rs_crc_counts,
    &rs_limits,
    &rs_finding,
    /* the details, in the order of the kinds */
    &rs_details_retransmission,
    &rs_details_new_req,
    &rs_details_duplicate_tuple,
    &rs_details_pool_high,
    &rs_details_pool_forecast,
    &rs_details_unreachable,
    &rs_details_path_ignored,
    &rs_details_redirect,
    &rs_details_redirect_followed,
    &rs_details_redirect_loop,
    &rs_details_redirect_gid_only,
    &rs_details_redirect_bad_target,
    &rs_details_redirect_key_mismatch,
    &rs_details_redirect_not_followed,
    &rs_details_none,
    &rs_details_crc_mismatch,
    &rs_details_not_delivered,
    &rs_details_psn_gap,
    &rs_details_capture_loss,
    &rs_details_out_of_order,
    &rs_details_transport_retransmission,
    &rs_details_nak,
    &rs_details_rnr_nak,
    &rs_details_retries_exhausted,
    &rs_details_ack_timeout,
    &rs_details_psn_start_mismatch,
    &rs_details_asymmetric_class,
    &rs_details_not_ect,
    &rs_details_mtu_exceeded,
    &rs_details_roce_version_mix,
    &rs_details_link_local_gid_routed,
    &rs_details_ce_without_cnp,
    &rs_details_pfc_storm,
    &rs_qp_ref,
};
const size_t rs_object_count = sizeof rs_objects / sizeof rs_objects[0];

void rs_list(FILE *out)
{
    for (size_t o = 0; o < rs_object_count; o++)
        for (size_t i = 0; i < rs_objects[o]->count; i++)
            fprintf(out, "%s\t%s\n", rs_objects[o]->name, rs_objects[o]->members[i].key);
}

uint64_t rs_uint_at(const void *p, size_t size)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (size) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

bool rs_has(const struct rs_member *mb, const void *obj)
{
    bool there = true;
    if (!mb->has)
        return true;
    const char *at = (const char *)obj + mb->has - 1;
    if (mb->has_bit)
        return (*(const uint8_t *)at & mb->has_bit) != 0;
    memcpy(&there, at, sizeof there);
    return there;
}

const struct rs_member *rs_member_of(const struct rs_object *o, const char *key)
{
    for (size_t i = 0; i < o->count; i++)
        if (strcmp(o->members[i].key, key) == 0)
            return &o->members[i];
    return NULL;
}
