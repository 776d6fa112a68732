/* report_csv.c - the CSV report: one row per finding, as it happens.
 *
 * To a pipe or a terminal each finding and connection row goes out the
 * moment it is written, as JSON Lines records do, so that a reader of the
 * stream sees it while the capture runs; a regular file gets them in big
 * blocks.
 *
 * RFC 4180: comma-separated, CRLF after every record, fields quoted when
 * they hold a comma, quote or line break.  Each row names its capture by
 * index and by path.  With --connections, one row per connection follows in the
 * same columns (record = "connection"), so the header is always the same;
 * captures of several hosts correlated add three columns at its end
 * (seen_at and a clock row's offset and bound) and a clock row per capture.
 * A merge's CSV has the same columns and six more at the end: each row's
 * host, and the figures of its rows per source (record = "source").
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "csv_field.h"
#include "ipcm.h"
#include "printable.h"
#include "report_format.h"
#include "report_model.h"

struct csv_state {
    FILE *out;
};

/* RFC 4180 ends every record, the header's too, with CRLF. */
#define CRLF "\r\n"

static const char csv_header[] =
    "record,capture,capture_path,frame,time,kind,severity,rule,related_capture,related_frame,"
    "message,port_space,src_ip,src_port,dst_ip,dst_port,local_comm_id,remote_comm_id,state,"
    "reject_reason,retransmissions,req_frame,rep_frame,rtu_frame,dreq_frame,drep_frame,"
    "rej_frame,setup_latency_ns,verified,mismatch,not_present,conn";
static const char csv_merge_header[] = ",host,connections,peak_ports_in_use,pool_utilization,"
                                       "peak_ports_per_destination,exhausted";

/* With captures of several hosts correlated (fabric.h), three more: a
 * connection's captures, a capture's clock offset and its bound. */
static const char csv_fabric_header[] = ",seen_at,clock_offset_ns,clock_offset_error_ns";

/* Connection columns after message: 17 of them; then the CRC counts, 3;
 * then the connection's index (the plugin's ibscope.analysis.conn), 1. */
#define CSV_CONN_COLUMNS  17
#define CSV_CRC_COLUMNS   3
#define CSV_INDEX_COLUMNS 1

/* A merge's columns after the rest: the host of the row's capture, and
 * no source figures. */
static void host_columns(FILE *out, const struct report_model *m, uint32_t capture)
{
    const struct report_host *h = report_capture_host(m, capture);
    if (!m->host_count)
        return;
    fputc(',', out);
    if (h)
        csv_field(out, h->name);
    fputs(",,,,,", out);
}

/* The fabric columns of a row: seen_at (captures separated by ';') from a
 * connection's mask, the rest empty (a clock row writes its own). */
static void fabric_columns(FILE *out, const struct report_model *m, uint64_t seen_at)
{
    if (!m->fabric)
        return;
    fputc(',', out);
    bool first = true;
    for (unsigned i = 0; i < 64; i++)
        if (seen_at & (1ull << i)) {
            fprintf(out, "%s%u", first ? "" : ";", i);
            first = false;
        }
    fputs(",,", out);
}

/* The capture's path as given on the command line. */
static void capture_path(FILE *out, const struct report_model *m, uint32_t capture)
{
    if (capture < m->capture_count)
        csv_field(out, m->captures[capture].info.path);
}

static void *csv_begin(const struct report_model *m, FILE *out)
{
    struct csv_state *st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    st->out = out;
    fputs(csv_header, out);
    fputs(m->host_count ? csv_merge_header : "", out);
    fputs(m->fabric ? csv_fabric_header : "", out);
    fputs(CRLF, out);
    return st;
}

static void csv_finding(void *p, const struct report_model *m, const struct ib_finding *f)
{
    struct csv_state *st = p;
    char t[48];
    char msg[IB_FINDING_TEXT_MAX];
    fmt_time_rfc3339(f->at.time_ns, t, sizeof(t));
    fprintf(st->out, "finding,%" PRIu32 ",", f->at.capture);
    capture_path(st->out, m, f->at.capture);
    fprintf(st->out, ",%" PRIu64 ",%s,%s,%s,", f->at.frame, t, ib_finding_kind_name(f->kind),
            ib_severity_name(f->severity));
    if (f->kind == IB_FIND_ADDRESSING || f->kind == IB_FIND_MALFORMED)
        fputs(ib_diag_info((enum ib_diag_id)f->rule)->name, st->out);
    fputc(',', st->out);
    if (f->related.frame != 0)
        fprintf(st->out, "%" PRIu32 ",%" PRIu64 ",", f->related.capture, f->related.frame);
    else
        fputs(",,", st->out);
    csv_field(st->out, ib_finding_format(f, msg, sizeof msg));
    for (int i = 0; i < CSV_CONN_COLUMNS + CSV_CRC_COLUMNS + CSV_INDEX_COLUMNS; i++)
        fputc(',', st->out);
    host_columns(st->out, m, f->at.capture);
    fabric_columns(st->out, m, 0);
    fputs(CRLF, st->out);
    if (m->stream_records)
        fflush(st->out);
}

/* Frame numbers; "capture:frame" when several captures were merged. */
static void frame_col(FILE *out, const struct report_model *m, const struct ib_frame_ref *f)
{
    char buf[32];
    fputc(',', out);
    if (f->frame != 0) {
        fmt_frame(f, m->capture_count, buf, sizeof(buf));
        fputs(buf, out);
    }
}

static void csv_connection(void *p, const struct report_model *m,
                           const struct ib_connection_record *rec)
{
    struct csv_state *st = p;
    FILE *out = st->out;
    char t[48] = "";
    int64_t lat;
    if (rec->req.frame != 0)
        fmt_time_rfc3339(rec->req.time_ns, t, sizeof(t));
    fprintf(out, "connection,%" PRIu32 ",", rec->req.capture);
    capture_path(out, m, rec->req.capture);
    fputc(',', out);
    if (rec->req.frame != 0)
        fprintf(out, "%" PRIu64, rec->req.frame);
    fprintf(out, ",%s,,,,,,,", t); /* kind..message empty */
    if (rec->has_tuple) {
        char ps[PORT_SPACE_BUF], src[64], dst[64];
        fmt_port_space(rec->tuple.port_space, ps);
        ib_format_ip(rec->tuple.ip_version, rec->tuple.src_ip, src, sizeof(src));
        ib_format_ip(rec->tuple.ip_version, rec->tuple.dst_ip, dst, sizeof(dst));
        fprintf(out, "%s,%s,%u,%s,%u", ps, src, (unsigned)rec->tuple.src_port, dst,
                (unsigned)rec->tuple.dst_port);
    } else {
        fputs(",,,,", out);
    }
    fprintf(out, ",%" PRIu32 ",%" PRIu32 ",%s,", rec->local_comm_id, rec->remote_comm_id,
            ib_conn_state_name(rec->state));
    if (rec->rej.frame != 0)
        fprintf(out, "%u", (unsigned)rec->reject_reason);
    fprintf(out, ",%u", rec->retransmissions);
    frame_col(out, m, &rec->req);
    frame_col(out, m, &rec->rep);
    frame_col(out, m, &rec->rtu);
    frame_col(out, m, &rec->dreq);
    frame_col(out, m, &rec->drep);
    frame_col(out, m, &rec->rej);
    fputc(',', out);
    if (report_connection_latency(rec, &lat))
        fprintf(out, "%" PRId64, lat);
    fprintf(out, ",,,,%" PRIu32, rec->index); /* no CRC counts */
    fabric_columns(out, m, rec->seen_at);
    fputs(CRLF, out);
    if (m->stream_records)
        fflush(out);
}

/* Two rows per capture, kind icrc and vcrc: its frames by CRC status. */
static void crc_rows(FILE *out, const struct report_model *m)
{
    for (size_t i = 0; i < m->capture_count; i++) {
        const struct report_crc_counts *c = &m->captures[i].crc;
        for (int k = 0; k < 2; k++) {
            const uint64_t *n = k == 0 ? c->icrc : c->vcrc;
            fprintf(out, "crc,%zu,", i);
            capture_path(out, m, (uint32_t)i);
            fprintf(out, ",,,%s,", k == 0 ? "icrc" : "vcrc");
            for (int col = 0; col < 5 + CSV_CONN_COLUMNS; col++) /* severity .. latency */
                fputc(',', out);
            fprintf(out, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", n[IB_CRC_VERIFIED],
                    n[IB_CRC_MISMATCH], n[IB_CRC_NOT_PRESENT]);
            host_columns(out, m, (uint32_t)i);
            fabric_columns(out, m, 0);
            fputs(CRLF, out);
        }
    }
}

/* Captures correlated: a row per capture, its clock against its reference
 * in the last two columns (empty where nothing links it). */
static void clock_rows(FILE *out, const struct report_model *m)
{
    for (size_t i = 0; i < m->capture_count; i++) {
        const struct report_capture *c = &m->captures[i];
        fprintf(out, "clock,%zu,", i);
        capture_path(out, m, (uint32_t)i);
        /* frame .. seen_at empty */
        for (int col = 0; col < 8 + CSV_CONN_COLUMNS + CSV_CRC_COLUMNS + CSV_INDEX_COLUMNS + 1;
             col++)
            fputc(',', out);
        if (c->clock_linked)
            fprintf(out, ",%" PRId64 ",%" PRId64, c->clock_offset_ns, c->clock_error_ns);
        else
            fputs(",,", out);
        fputs(CRLF, out);
    }
}

/* A merge: a row per source, its address in port_space and src_ip, its
 * figures in the last columns. */
static void source_rows(FILE *out, const struct report_model *m)
{
    for (size_t i = 0; i < m->source_count; i++) {
        const struct ib_source_stats *s = m->sources[i];
        char ps[PORT_SPACE_BUF], ip[64];
        fmt_port_space(s->port_space, ps);
        ib_format_ip(s->ip_version, s->ip, ip, sizeof ip);
        fprintf(out, "source,,,,,,,,,,,%s,%s", ps, ip);
        /* src_port .. conn empty */
        for (int col = 0; col < CSV_CONN_COLUMNS - 2 + CSV_CRC_COLUMNS + CSV_INDEX_COLUMNS; col++)
            fputc(',', out);
        fputc(',', out);
        csv_field(out, m->hosts[m->source_host[i]].name);
        fprintf(out, ",%" PRIu64 ",%" PRIu32 ",%.2f,%" PRIu32 ",%s" CRLF, s->connections,
                s->peak_ports_in_use, s->pool_utilization, s->peak_ports_per_destination,
                s->exhausted ? "true" : "false");
    }
}

/* A row per address of each host that is more than its one address
 * (report_host_shown): how they were joined in kind (ib_host_from_name),
 * in words in message, the address in port_space and src_ip. */
static void host_rows(FILE *out, const struct report_model *m)
{
    for (size_t i = 0; i < m->source_count; i++) {
        const struct ib_source_stats *s = m->sources[i];
        if (!report_host_shown(s))
            continue;
        char how[PRINTABLE_MAX + 32], ps[PORT_SPACE_BUF], ip[64];
        fmt_host(s, how, sizeof how);
        fmt_port_space(s->port_space, ps);
        for (uint32_t a = 0; a < s->addresses_listed; a++) {
            ib_format_ip(s->addresses[a].ip_version, s->addresses[a].ip, ip, sizeof ip);
            fprintf(out, "host_address,,,,,%s,,,,,",
                    ib_host_from_name((enum ib_host_from)s->host_from));
            csv_field(out, how);
            fprintf(out, ",%s,%s", ps, ip);
            for (int col = 0; col < CSV_CONN_COLUMNS - 2 + CSV_CRC_COLUMNS + CSV_INDEX_COLUMNS;
                 col++)
                fputc(',', out);
            if (m->host_count) {
                fputc(',', out);
                csv_field(out, m->hosts[m->source_host[i]].name);
                fputs(",,,,,", out);
            }
            fabric_columns(out, m, 0);
            fputs(CRLF, out);
        }
    }
}

static int csv_end(void *p, const struct report_model *m)
{
    struct csv_state *st = p;
    if (m->render.crc)
        crc_rows(st->out, m);
    host_rows(st->out, m);
    if (m->host_count)
        source_rows(st->out, m);
    if (m->fabric)
        clock_rows(st->out, m);
    free(p);
    return 0;
}

const struct report_renderer report_csv = {
    .begin = csv_begin,
    .finding = csv_finding,
    .connection = csv_connection,
    .end = csv_end,
};
