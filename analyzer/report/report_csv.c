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
 *
 * The columns are members of the report's tables (report_schema.h), named
 * by their keys: a row fills each column from the tables it shows (a
 * finding's, a connection's, a capture's CRC counts, a source's), written
 * as JSON writes the value, and the few columns of the CSV's own (record,
 * capture_path, a connection's REQ) from cells of its own.  A member added
 * to a table the CSV shows whole (a finding's own members, the CRC counts)
 * gets a column at the end of the base columns; one added elsewhere fills
 * the column of its key, when the header has one.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "csv_field.h"
#include "ipcm.h"
#include "printable.h"
#include "report_format.h"
#include "report_model.h"
#include "report_csv_values.h"
#include "report_schema.h"

/* RFC 4180 ends every record, the header's too, with CRLF. */
#define CRLF "\r\n"

/* The header's columns, in order: appended to, never moved. */
static const char base_columns[] =
    "record,capture,capture_path,frame,time,kind,severity,rule,related_capture,related_frame,"
    "message,port_space,src_ip,src_port,dst_ip,dst_port,local_comm_id,remote_comm_id,state,"
    "reject_reason,retransmissions,req_frame,rep_frame,rtu_frame,dreq_frame,drep_frame,"
    "rej_frame,setup_latency_ns,verified,mismatch,not_present,conn,"
    /* the wire audit's directions (record = "setting"): a direction's number,
     * endpoints and settings (mixes as "26×1000, 0×3"); its first frame in
     * frame, its CM REQ in req_frame */
    "direction,src,dst,qpn,pair,path_mtu,packets,max_payload,dscp,ecn,priority,version,gid_kind,"
    /* congestion's cnp[] and pfc[] rows (docs/wire-audit.md; priority is the
     * settings' column) */
    "sender_qp,qp,ce_marks,cnps,answered,unanswered,open_at_end,delay_min_ns,delay_mean_ns,"
    "delay_max_ns,cnp_gap_min_ns,cnp_rate_per_s,roce,frames,pauses,xons,storms,"
    "paused_ns,longest_ns,paused_at_end";
/* A merge's: the host of the row's capture, and a source's figures. */
static const char merge_columns[] =
    "host,connections,peak_ports_in_use,pool_utilization,peak_ports_per_destination,exhausted";
/* With captures of several hosts correlated (fabric.h): a connection's
 * captures, a capture's clock offset and its bound. */
static const char fabric_columns[] = "seen_at,clock_offset_ns,clock_offset_error_ns";
/* The tables a row shows whole: each member a column. */
static const struct rs_object *const whole[] = { &rs_finding, &rs_crc_counts };

#define CSV_COLUMNS_MAX 96

struct csv_state {
    FILE *out;
    const char *columns[CSV_COLUMNS_MAX];
    size_t column_count;
    char names[sizeof base_columns + sizeof merge_columns + sizeof fabric_columns];
    size_t names_used;
};

/* A column a row fills itself; text a string from outside (csv_field). */
struct csv_cell {
    const char *column;
    const char *value;
    bool text;
};

/* A table a row shows: columns of its members' keys, and of aliases
 * (column, member key or "object.key") where the names differ. */
struct csv_source {
    const struct rs_object *o;
    const void *obj;
    struct rs_place at;
    const char *const (*aliases)[2];
};

struct csv_row {
    const struct csv_cell *cells;
    size_t cell_count;
    const struct csv_source *sources;
    size_t source_count;
};

static void add_column(struct csv_state *st, const char *name)
{
    for (size_t i = 0; i < st->column_count; i++)
        if (strcmp(st->columns[i], name) == 0)
            return;
    if (st->column_count < CSV_COLUMNS_MAX)
        st->columns[st->column_count++] = name;
}

/* The columns of a list ("a,b,c"), its names kept in st->names. */
static void add_columns(struct csv_state *st, const char *list)
{
    char *names = st->names + st->names_used;
    size_t size = strlen(list) + 1;
    if (size > sizeof st->names - st->names_used)
        return;
    memcpy(names, list, size);
    st->names_used += size;
    for (char *name = names, *comma; name; name = comma ? comma + 1 : NULL) {
        if ((comma = strchr(name, ',')))
            *comma = '\0';
        add_column(st, name);
    }
}

/* The header: the base columns, then a member of a table shown whole that
 * has none yet, then a merge's and the fabric's. */
static void header_columns(struct csv_state *st, const struct report_model *m)
{
    add_columns(st, base_columns);
    for (size_t t = 0; t < sizeof whole / sizeof whole[0]; t++)
        for (size_t i = 0; i < whole[t]->count; i++)
            if (cv_cell(&whole[t]->members[i]) && whole[t]->members[i].kind != RS_INDEX)
                add_column(st, whole[t]->members[i].key);
    if (m->host_count)
        add_columns(st, merge_columns);
    if (m->fabric)
        add_columns(st, fabric_columns);
}

/* The member a column names in a source ("object.key" through its
 * object), and the object it is in; NULL for none. */
static const struct rs_member *source_member(const struct csv_source *s, const char *column,
                                             const char **obj)
{
    const char *key = column;
    for (size_t a = 0; s->aliases && s->aliases[a][0]; a++)
        if (strcmp(s->aliases[a][0], column) == 0)
            key = s->aliases[a][1];
    const struct rs_object *o = s->o;
    *obj = s->obj;
    const char *dot;
    char head[32];
    while ((dot = strchr(key, '.')) && (size_t)(dot - key) < sizeof head) {
        memcpy(head, key, (size_t)(dot - key));
        head[dot - key] = '\0';
        const struct rs_member *mb = rs_member_of(o, head);
        if (!mb || mb->kind != RS_OBJECT)
            return NULL;
        *obj += mb->at;
        o = mb->object;
        key = dot + 1;
    }
    const struct rs_member *mb = rs_member_of(o, key);
    return mb && cv_cell(mb) ? mb : NULL;
}

static void column_cell(FILE *out, const struct report_model *m, const struct csv_row *row,
                        const char *column)
{
    for (size_t c = 0; c < row->cell_count; c++)
        if (strcmp(row->cells[c].column, column) == 0) {
            if (row->cells[c].text)
                csv_field(out, row->cells[c].value);
            else if (row->cells[c].value)
                fputs(row->cells[c].value, out);
            return;
        }
    for (size_t s = 0; s < row->source_count; s++) {
        const char *obj;
        const struct rs_member *mb = source_member(&row->sources[s], column, &obj);
        if (mb) {
            cv_member(out, m, mb, obj, &row->sources[s].at);
            return;
        }
    }
}

static void write_row(const struct csv_state *st, const struct report_model *m,
                      const struct csv_row *row)
{
    for (size_t i = 0; i < st->column_count; i++) {
        if (i)
            fputc(',', st->out);
        column_cell(st->out, m, row, st->columns[i]);
    }
    fputs(CRLF, st->out);
}

#define ROW(cells, sources)                                                                        \
    (struct csv_row)                                                                               \
    {                                                                                              \
        cells, sizeof(cells) / sizeof((cells)[0]), sources, sizeof(sources) / sizeof((sources)[0]) \
    }

/* The capture's path as given on the command line. */
static const char *capture_path(const struct report_model *m, uint32_t capture)
{
    return capture < m->capture_count ? m->captures[capture].info.path : NULL;
}

/* A merge's host of the capture. */
static const char *host_name(const struct report_model *m, uint32_t capture)
{
    const struct report_host *h = report_capture_host(m, capture);
    return h ? h->name : NULL;
}

static void *csv_begin(const struct report_model *m, FILE *out)
{
    struct csv_state *st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    st->out = out;
    header_columns(st, m);
    for (size_t i = 0; i < st->column_count; i++)
        fprintf(out, "%s%s", i ? "," : "", st->columns[i]);
    fputs(CRLF, out);
    return st;
}

static void csv_finding(void *p, const struct report_model *m, const struct ib_finding *f)
{
    struct csv_state *st = p;
    const struct csv_cell cells[] = {
        { "record", "finding", false },
        { "capture_path", capture_path(m, f->at.capture), true },
        { "host", host_name(m, f->at.capture), true },
    };
    const struct csv_source sources[] = { { &rs_finding, f, { 0 }, NULL } };
    write_row(st, m, &ROW(cells, sources));
    if (m->stream_records)
        fflush(st->out);
}

static const char *const connection_aliases[][2] = {
    { "req_frame", "frames.req" },
    { "rep_frame", "frames.rep" },
    { "rtu_frame", "frames.rtu" },
    { "dreq_frame", "frames.dreq" },
    { "drep_frame", "frames.drep" },
    { "rej_frame", "frames.rej" },
    { NULL, NULL },
};

/* A connection's row: capture, frame and time are its REQ's. */
static void csv_connection(void *p, const struct report_model *m,
                           const struct ib_connection_record *rec)
{
    struct csv_state *st = p;
    char capture[16], frame[24] = "", t[48] = "";
    snprintf(capture, sizeof capture, "%" PRIu32, rec->req.capture);
    if (rec->req.frame != 0) {
        snprintf(frame, sizeof frame, "%" PRIu64, rec->req.frame);
        fmt_time_rfc3339(rec->req.time_ns, t, sizeof(t));
    }
    const struct csv_cell cells[] = {
        { "record", "connection", false },
        { "capture", capture, false },
        { "capture_path", capture_path(m, rec->req.capture), true },
        { "frame", frame, false },
        { "time", t, false },
    };
    const struct csv_source sources[] = {
        { &rs_connection_record, rec, { 0 }, connection_aliases },
    };
    write_row(st, m, &ROW(cells, sources));
    if (m->stream_records)
        fflush(st->out);
}

/* Two rows per capture, kind icrc and vcrc (crc.captures[]'s objects):
 * its frames by CRC status. */
static void crc_rows(const struct csv_state *st, const struct report_model *m)
{
    for (size_t i = 0; i < m->capture_count; i++)
        for (size_t k = 0; k < rs_crc_capture.count; k++) {
            const struct rs_member *counts = &rs_crc_capture.members[k];
            if (counts->kind != RS_OBJECT)
                continue;
            const struct csv_cell cells[] = {
                { "record", "crc", false },
                { "capture_path", capture_path(m, (uint32_t)i), true },
                { "kind", counts->key, false },
                { "host", host_name(m, (uint32_t)i), true },
            };
            const struct csv_source sources[] = {
                { &rs_crc_capture, &m->captures[i], { .index = i }, NULL },
                { counts->object, (const char *)&m->captures[i] + counts->at, { 0 }, NULL },
            };
            write_row(st, m, &ROW(cells, sources));
        }
}

/* Captures correlated: a row per capture, its clock against its reference
 * in the last two columns (empty where nothing links it). */
static void clock_rows(const struct csv_state *st, const struct report_model *m)
{
    static const char *const aliases[][2] = { { "capture", "index" }, { NULL, NULL } };
    for (size_t i = 0; i < m->capture_count; i++) {
        const struct csv_cell cells[] = {
            { "record", "clock", false },
            { "capture_path", capture_path(m, (uint32_t)i), true },
        };
        const struct csv_source sources[] = {
            { &rs_capture, &m->captures[i], { .index = i }, aliases },
        };
        write_row(st, m, &ROW(cells, sources));
    }
}

/* A merge: a row per source, its address in port_space and src_ip, its
 * figures in the last columns. */
static void source_rows(const struct csv_state *st, const struct report_model *m)
{
    static const char *const aliases[][2] = { { "src_ip", "ip" }, { NULL, NULL } };
    for (size_t i = 0; i < m->source_count; i++) {
        const struct csv_cell cells[] = {
            { "record", "source", false },
            { "host", m->hosts[m->source_host[i]].name, true },
        };
        const struct csv_source sources[] = { { &rs_source, m->sources[i], { 0 }, aliases } };
        write_row(st, m, &ROW(cells, sources));
    }
}

/* A row per CE/CNP flow (record = "cnp": its sender and receiver in src_ip
 * and dst_ip, its first frame in capture, frame, time) and per paused
 * priority of a link (record = "pfc": the capture, its longest pause's
 * first frame), after the findings. */
static void congestion_rows(const struct csv_state *st, const struct report_model *m)
{
    const struct report_congestion *g = &m->congestion;
    for (uint32_t i = 0; i < g->cnp_count; i++) {
        const struct ib_cnp_stats *c = &g->cnps[i];
        char sender[64], receiver[64], cap[16], frame[24], time[48];
        fmt_node(&c->sender, sender, sizeof sender);
        fmt_node(&c->receiver, receiver, sizeof receiver);
        snprintf(cap, sizeof cap, "%" PRIu32, c->first.capture);
        snprintf(frame, sizeof frame, "%" PRIu64, c->first.frame);
        fmt_time_rfc3339(c->first.time_ns, time, sizeof time);
        const struct csv_cell cells[] = {
            { "record", "cnp", false },
            { "capture", cap, false },
            { "capture_path", capture_path(m, c->first.capture), true },
            { "frame", frame, false },
            { "time", time, false },
            { "src_ip", sender, true },
            { "dst_ip", receiver, true },
            { "host", host_name(m, c->first.capture), true },
        };
        const struct csv_source sources[] = { { &rs_cnp, c, { 0 }, NULL } };
        write_row(st, m, &ROW(cells, sources));
    }
    for (uint32_t i = 0; i < g->pfc_count; i++) {
        const struct ib_pfc_stats *p = &g->pfcs[i];
        char frame[24], time[48];
        snprintf(frame, sizeof frame, "%" PRIu64, p->longest_at.frame);
        fmt_time_rfc3339(p->longest_at.time_ns, time, sizeof time);
        const struct csv_cell cells[] = {
            { "record", "pfc", false },
            { "capture_path", capture_path(m, p->capture), true },
            { "frame", p->longest_at.frame ? frame : NULL, false },
            { "time", p->longest_at.frame ? time : NULL, false },
            { "host", host_name(m, p->capture), true },
        };
        const struct csv_source sources[] = { { &rs_pfc, p, { 0 }, NULL } };
        write_row(st, m, &ROW(cells, sources));
    }
}

/* A row per address of each host that is more than its one address
 * (report_host_shown): how they were joined in kind (ib_host_from_name),
 * in words in message, the address in port_space and src_ip. */
static void host_rows(const struct csv_state *st, const struct report_model *m)
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
            const struct csv_cell cells[] = {
                { "record", "host_address", false },
                { "kind", ib_host_from_name((enum ib_host_from)s->host_from), false },
                { "message", how, true },
                { "port_space", ps, false },
                { "src_ip", ip, false },
                { "host", m->host_count ? m->hosts[m->source_host[i]].name : NULL, true },
            };
            write_row(st, m, &(struct csv_row){ cells, sizeof cells / sizeof cells[0], NULL, 0 });
        }
    }
}

/* A row per direction of the wire audit that carried data packets. */
static void setting_rows(const struct csv_state *st, const struct report_model *m)
{
    static const char *const aliases[][2] = {
        { "direction", "index" }, { "frame", "first" }, { "req_frame", "req" }, { NULL, NULL }
    };
    struct report_wire buf;
    for (size_t i = 0; i < m->wire_count; i++) {
        const struct report_wire *w = report_wire(m, i, &buf);
        if (w->dir.packets == 0)
            continue;
        char capture[16], src[64], dst[64], v[IB_WIRE_FIELD_COUNT][WIRE_VALUES_BUF];
        snprintf(capture, sizeof capture, "%" PRIu32, w->dir.first.capture);
        fmt_node(&w->dir.src, src, sizeof src);
        fmt_node(&w->dir.dst, dst, sizeof dst);
        for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
            fmt_wire_values(f, &w->dir.fields[f], w->values[f], v[f], sizeof v[f]);
        const struct csv_cell cells[] = {
            { "record", "setting", false },
            { "capture", capture, false },
            { "capture_path", capture_path(m, w->dir.first.capture), true },
            { "src", src, false },
            { "dst", dst, false },
            { "dscp", v[IB_WIRE_DSCP], true },
            { "ecn", v[IB_WIRE_ECN], true },
            { "priority", v[IB_WIRE_PRIORITY], true },
            { "version", v[IB_WIRE_VERSION], true },
            { "gid_kind", v[IB_WIRE_GID_KIND], true },
            { "host", m->host_count ? m->hosts[m->wire_host[i]].name : NULL, true },
        };
        const struct csv_source sources[] = { { &rs_wire, w, { .index = i }, aliases } };
        write_row(st, m, &ROW(cells, sources));
    }
}

static int csv_end(void *p, const struct report_model *m)
{
    struct csv_state *st = p;
    setting_rows(st, m);
    if (m->render.crc)
        crc_rows(st, m);
    congestion_rows(st, m);
    host_rows(st, m);
    if (m->host_count)
        source_rows(st, m);
    if (m->fabric)
        clock_rows(st, m);
    free(p);
    return 0;
}

const struct report_renderer report_csv = {
    .begin = csv_begin,
    .finding = csv_finding,
    .connection = csv_connection,
    .end = csv_end,
};
