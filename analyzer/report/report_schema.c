/* report_schema.c - the report's objects as tables (report_schema.h).
 *
 * One row a member, in the reports' order; the rows are laid out by hand,
 * one a line, so that a member added is a line added.
 */
#include "report_schema.h"

#include <float.h>

#include "engine.h"
#include "names.h"
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

static const char *mgmt_class_text(const void *c)
{
    return ib_mgmt_class_name(((const struct ib_redirect_chain *)c)->mgmt_class);
}

static const char *linktype_text(const void *c)
{
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
    { "mgmt_class_name", RS_TEXT, 0, .text = mgmt_class_text },
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
    { "linktype_name", RS_TEXT, 0, .text = linktype_text },
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
static const struct rs_object rs_crc_counts = { "crc.captures[].icrc", ROWS(crc_count_members) };

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
      .noun = "a count", .optional = true },
};
#undef M
const struct rs_object rs_limits = { "limits", ROWS(limits_members) };

/* clang-format on */

/* In the order of the JSON report. */
const struct rs_object *const rs_objects[] = {
    &rs_capture,           &rs_live,        &rs_frames, &rs_pool,  &rs_connections,
    &rs_connection_record, &rs_conn_frames, &rs_source, &rs_chain, &rs_crc_capture,
    &rs_crc_counts,        &rs_limits,
};
const size_t rs_object_count = sizeof rs_objects / sizeof rs_objects[0];

void rs_list(FILE *out)
{
    for (size_t o = 0; o < rs_object_count; o++)
        for (size_t i = 0; i < rs_objects[o]->count; i++)
            fprintf(out, "%s\t%s\n", rs_objects[o]->name, rs_objects[o]->members[i].key);
}
