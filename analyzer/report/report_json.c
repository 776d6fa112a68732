/* report_json.c - the JSON report (schema: docs/report-schema.md).
 *
 * Findings and connection records are written as they happen, each into a
 * temporary file as elements of an array, and spliced into the document at
 * the end: memory stays bounded however many there are, and the summary
 * keys can still come first.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"
#include "json_writer.h"
#include "report_json_values.h"
#include "names.h"
#include "report_format.h"
#include "report_model.h"
#include "report_schema.h"
#include "temp_file.h"

struct json_state {
    FILE *out;
    FILE *findings_tmp;
    FILE *conn_tmp;
    struct json_writer findings;
    struct json_writer conns;
    int error; /* errno of the first scratch-file failure */
    const struct report_model *model;
};

/* Depth of the findings array's elements: top object (1), array (2). */
#define FINDINGS_DEPTH 2
/* connections.list: top (1), connections (2), list (3). */
#define CONN_DEPTH 3

static void fail(struct json_state *st)
{
    if (!st->error)
        st->error = errno ? errno : EIO;
}

static void *json_begin(const struct report_model *m, FILE *out)
{
    struct json_state *st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    st->out = out;
    st->findings_tmp = temp_file();
    if (!st->findings_tmp)
        fail(st);
    else
        json_writer_fragment(&st->findings, st->findings_tmp, true, FINDINGS_DEPTH);
    if (m->render.connections) {
        st->conn_tmp = temp_file();
        if (!st->conn_tmp)
            fail(st);
        else
            json_writer_fragment(&st->conns, st->conn_tmp, true, CONN_DEPTH);
    }
    return st;
}

static void write_connections(struct json_writer *w, const struct report_model *m,
                              const struct jv_list *list)
{
    jw_key(w, "connections");
    jw_begin_object(w);
    jv_connection_stats_members(w, &m->connections, m->medians);
    if (list) {
        jw_key(w, "list");
        list->write(w, list->ctx);
    }
    jw_end_object(w);
}

/* connections.list, spliced from the scratch file. */
static void connection_list(struct json_writer *w, void *ctx)
{
    struct json_state *st = ctx;
    const struct report_model *m = st->model;
    jw_begin_array(w);
    if (st->conn_tmp && !jw_flush(&st->conns))
        fail(st);
    if (!jw_splice(w, st->conn_tmp, m->connections_listed))
        fail(st);
    jw_end_array(w);
}

static void source_value(struct json_writer *w, const struct report_model *m, size_t i)
{
    jw_begin_object(w);
    jv_source_members(w, m->sources[i]);
    if (m->host_count)
        jv_host_member(w, m, m->source_host[i]);
    jw_end_object(w);
}

/* A merge: the sources with the largest share of their own host's pool
 * in use, nearest first. */
static void write_nearest(struct json_writer *w, const struct report_model *m)
{
    jw_key(w, "nearest_exhaustion");
    jw_begin_array(w);
    for (size_t k = 0; k < m->nearest_count; k++)
        source_value(w, m, m->nearest[k]);
    jw_end_array(w);
}

/* A merge: each host, where its captures start, and its pool. */
static void write_hosts(struct json_writer *w, const struct report_model *m)
{
    jw_key(w, "hosts");
    jw_begin_array(w);
    for (size_t i = 0; i < m->host_count; i++) {
        const struct report_host *h = &m->hosts[i];
        jw_begin_object(w);
        jw_key(w, "host");
        jw_string(w, h->name);
        jw_key(w, "first_capture");
        jw_uint(w, h->first_capture);
        jw_key(w, "captures");
        jw_uint(w, h->capture_count);
        jw_key(w, "pool");
        jv_pool(w, &h->pool);
        jw_end_object(w);
    }
    jw_end_array(w);
}

static void write_sources(struct json_writer *w, const struct report_model *m)
{
    jw_key(w, "sources");
    jw_begin_array(w);
    for (size_t i = 0; i < m->source_count; i++)
        source_value(w, m, i);
    jw_end_array(w);
}

static void write_chains(struct json_writer *w, const struct report_model *m)
{
    jw_key(w, "redirect_chains");
    jw_begin_array(w);
    for (size_t i = 0; i < m->chain_count; i++) {
        jw_begin_object(w);
        jv_chain_members(w, m->chains[i], i);
        if (m->host_count)
            jv_host_member(w, m, m->chain_host[i]);
        jw_end_object(w);
    }
    jw_end_array(w);
}

static void write_qps(struct json_writer *w, const struct report_model *m)
{
    jw_key(w, "qps");
    jw_begin_array(w);
    struct report_qp buf;
    for (size_t i = 0; i < m->qp_count; i++) {
        jw_begin_object(w);
        jv_qp_members(w, report_qp(m, i, &buf));
        if (m->host_count)
            jv_host_member(w, m, m->qp_host[i]);
        jw_end_object(w);
    }
    jw_end_array(w);
}

static void write_settings(struct json_writer *w, const struct report_model *m)
{
    jw_key(w, "settings");
    jw_begin_array(w);
    struct report_wire buf;
    for (size_t i = 0; i < m->wire_count; i++) {
        jw_begin_object(w);
        jv_wire_members(w, report_wire(m, i, &buf));
        if (m->host_count)
            jv_host_member(w, m, m->wire_host[i]);
        jw_end_object(w);
    }
    jw_end_array(w);
}

/* congestion: the settings, cnp[] and pfc[] (in JSON Lines' summary too:
 * they are few, a list per flow and per paused priority). */
static void write_congestion(struct json_writer *w, const struct report_model *m)
{
    jw_key(w, "congestion");
    jw_begin_object(w);
    jv_members(w, &rs_congestion, &m->congestion, &(struct rs_place){ 0 });
    jw_end_object(w);
}

static void write_frames(struct json_writer *w, const struct report_model *m)
{
    jw_key(w, "frames");
    jv_frames(w, m);
}

static void write_pool(struct json_writer *w, const struct report_model *m)
{
    if (!m->host_count) {
        jw_key(w, "pool");
        jv_pool(w, &m->pool);
        return;
    }
    jw_key(w, "pools"); /* a merge: each host's, in host order */
    jw_begin_array(w);
    for (size_t i = 0; i < m->host_count; i++)
        jv_pool(w, &m->hosts[i].pool);
    jw_end_array(w);
}

/* Packets per diagnostic: the addressing rules all (zeros too), the others
 * only when seen. */
static void write_diagnostics(struct json_writer *w, const struct report_model *m, const char *key,
                              bool addressing)
{
    const struct ib_engine_stats *es = &m->stats;
    jw_key(w, key);
    jw_begin_object(w);
    for (int d = 0; d < IB_DIAG_COUNT; d++) {
        const struct ib_diag_info *info = ib_diag_info((enum ib_diag_id)d);
        if (info->addressing != addressing || (!addressing && es->diagnostics[d] == 0))
            continue;
        jw_key(w, info->name);
        jw_uint(w, es->diagnostics[d]);
    }
    jw_end_object(w);
}

static void json_finding(void *p, const struct report_model *m, const struct ib_finding *f)
{
    struct json_state *st = p;
    if (!st->findings_tmp)
        return;
    jw_begin_object(&st->findings);
    jv_finding_members(&st->findings, f);
    if (m->host_count && f->at.capture < m->capture_count)
        jv_host_member(&st->findings, m, m->captures[f->at.capture].host);
    jw_end_object(&st->findings);
}

static void json_connection(void *p, const struct report_model *m,
                            const struct ib_connection_record *rec)
{
    struct json_state *st = p;
    (void)m;
    if (!st->conn_tmp)
        return;
    jw_begin_object(&st->conns);
    jv_connection_members(&st->conns, rec);
    jw_end_object(&st->conns);
}

/* ICRC and VCRC of the InfiniBand frames, per capture (JSON Lines: in
 * records of their own). */
static void write_crc(struct json_writer *w, const struct report_model *m, bool streamed)
{
    jw_key(w, "crc");
    jw_begin_object(w);
    jw_key(w, "checked");
    jw_bool(w, m->render.crc);
    if (!streamed) {
        jw_key(w, "captures");
        jw_begin_array(w);
        for (size_t i = 0; i < m->capture_count; i++) {
            jw_begin_object(w);
            jv_crc_capture_members(w, m, i);
            jw_end_object(w);
        }
        jw_end_array(w);
    }
    jw_end_object(w);
}

static void write_counts(struct json_writer *w, const struct report_model *m)
{
    const struct ib_engine_stats *es = &m->stats;
    jw_key(w, "finding_counts");
    jv_finding_counts(w, es);
    jw_key(w, "limits");
    jv_limits(w, m);
}

void jv_summary_members(struct json_writer *w, const struct report_model *m, bool streamed,
                        const struct jv_list *list)
{
    jw_key(w, "version");
    jw_string(w, m->version);
    if (m->host_count)
        write_hosts(w, m);
    jw_key(w, "captures");
    jv_captures(w, m);
    write_frames(w, m);
    write_pool(w, m);
    write_connections(w, m, list);
    if (m->host_count)
        write_nearest(w, m);
    if (!streamed) {
        write_sources(w, m);
        write_chains(w, m);
        write_qps(w, m);
        write_settings(w, m);
    }
    write_congestion(w, m);
    write_diagnostics(w, m, "addressing", true);
    write_diagnostics(w, m, "diagnostics", false);
    write_crc(w, m, streamed);
    write_counts(w, m);
    if (m->fabric) {
        jw_key(w, "fabric");
        jv_fabric(w, m);
    }
}

static int json_end(void *p, const struct report_model *m)
{
    struct json_state *st = p;
    struct json_writer w;
    st->model = m;
    json_writer_init(&w, st->out, true);
    jw_begin_object(&w);
    jv_summary_members(&w, m, false,
                       m->render.connections ? &(struct jv_list){ connection_list, st } : NULL);

    jw_key(&w, "findings");
    jw_begin_array(&w);
    if (st->findings_tmp && !jw_flush(&st->findings))
        fail(st);
    if (!jw_splice(&w, st->findings_tmp, m->findings_total))
        fail(st);
    jw_end_array(&w);
    jw_end_object(&w);

    if (w.error || st->findings.error || st->conns.error)
        fail(st);
    int error = st->error;
    if (st->findings_tmp)
        fclose(st->findings_tmp);
    if (st->conn_tmp)
        fclose(st->conn_tmp);
    free(st);
    return error;
}

const struct report_renderer report_json = {
    .begin = json_begin,
    .finding = json_finding,
    .connection = json_connection,
    .end = json_end,
};
