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
#include "names.h"
#include "report_format.h"
#include "report_model.h"
#include "temp_file.h"

struct json_state {
    FILE *out;
    FILE *findings_tmp;
    FILE *conn_tmp;
    struct json_writer findings;
    struct json_writer conns;
    int error;                  /* errno of the first scratch-file failure */
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
    if (m->opts->connections) {
        st->conn_tmp = temp_file();
        if (!st->conn_tmp)
            fail(st);
        else
            json_writer_fragment(&st->conns, st->conn_tmp, true, CONN_DEPTH);
    }
    return st;
}

/* A percentage to 0.01 with no trailing zeros: 90, 87.5, 33.33. */
static void percent_value(struct json_writer *w, double pct)
{
    long centi = lround(pct * 100);
    json_double(w, pct, centi % 100 == 0 ? 0 : centi % 10 == 0 ? 1 : 2);
}

static void time_value(struct json_writer *w, int64_t ns)
{
    char buf[48];
    fmt_time_rfc3339(ns, buf, sizeof(buf));
    json_string(w, buf);
}

/* A frame reference as {capture, frame, time}, or null for none. */
static void frame_value(struct json_writer *w, const struct ib_frame_ref *f)
{
    if (f->frame == 0) {
        json_null(w);
        return;
    }
    json_begin_object(w);
    json_key(w, "capture");
    json_uint(w, f->capture);
    json_key(w, "frame");
    json_uint(w, f->frame);
    json_key(w, "time");
    time_value(w, f->time_ns);
    json_end_object(w);
}

static void gid_value(struct json_writer *w, const uint8_t gid[16])
{
    char buf[64];
    ib_format_gid(gid, buf, sizeof(buf));
    json_string(w, buf);
}

static void endpoint_value(struct json_writer *w, const struct ib_endpoint *ep)
{
    json_begin_object(w);
    json_key(w, "lid");
    json_uint(w, ep->lid);
    json_key(w, "gid");
    if (ep->has_gid)
        gid_value(w, ep->gid);
    else
        json_null(w);
    json_end_object(w);
}

static void ip_value(struct json_writer *w, uint8_t version, const uint8_t ip[16])
{
    char buf[64];
    ib_format_ip(version, ip, buf, sizeof(buf));
    json_string(w, buf);
}

static void port_space_value(struct json_writer *w, uint16_t ps)
{
    char buf[PORT_SPACE_BUF];
    fmt_port_space(ps, buf);
    json_string(w, buf);
}

/* The tuple's five keys, in the object w has open. */
static void tuple_members(struct json_writer *w, const struct ib_tuple *t)
{
    json_key(w, "port_space");
    port_space_value(w, t->port_space);
    json_key(w, "src_ip");
    ip_value(w, t->ip_version, t->src_ip);
    json_key(w, "src_port");
    json_uint(w, t->src_port);
    json_key(w, "dst_ip");
    ip_value(w, t->ip_version, t->dst_ip);
    json_key(w, "dst_port");
    json_uint(w, t->dst_port);
}

static void tuple_value(struct json_writer *w, const struct ib_tuple *t)
{
    json_begin_object(w);
    tuple_members(w, t);
    json_end_object(w);
}

/* Where a redirect sends the requester: {lid, gid, qp, qkey, pkey}. */
static void target_value(struct json_writer *w, const struct ib_redirect_hop *h)
{
    json_begin_object(w);
    json_key(w, "lid");
    json_uint(w, h->lid);
    json_key(w, "gid");
    gid_value(w, h->gid);
    json_key(w, "qp");
    json_uint(w, h->qp);
    json_key(w, "qkey");
    json_uint(w, h->qkey);
    json_key(w, "pkey");
    json_uint(w, h->pkey);
    json_end_object(w);
}

static void cm_details(struct json_writer *w, const struct ib_finding *f)
{
    const struct ib_finding_data *d = &f->data;
    bool has_tuple = d->tuple.ip_version != 0;
    if (f->kind == IB_FIND_POOL_HIGH) {
        json_key(w, "source");
        ip_value(w, d->tuple.ip_version, d->tuple.src_ip);
        json_key(w, "port_space");
        port_space_value(w, d->tuple.port_space);
        json_key(w, "ports_in_use");
        json_uint(w, d->ports_in_use);
        json_key(w, "pool_size");
        json_uint(w, d->pool_size);
        return;
    }
    json_key(w, "tuple");
    if (has_tuple)
        tuple_value(w, &d->tuple);
    else
        json_null(w);
    if (f->kind == IB_FIND_RETRANSMISSION) {
        json_key(w, d->sidr ? "request_id" : "local_comm_id");
        json_uint(w, d->comm_id);
    } else if (f->kind == IB_FIND_DUPLICATE_TUPLE) {
        json_key(w, "open_local_comm_id");
        json_uint(w, d->comm_id);
    }
}

static void redirect_details(struct json_writer *w, const struct ib_finding *f)
{
    static const char *const problems[] = { "no_address", "qp0", "no_pkey" };
    const struct ib_finding_data *d = &f->data;
    json_key(w, "mgmt_class");
    json_uint(w, d->mgmt_class);
    json_key(w, "chain");
    if (d->has_chain) json_uint(w, d->chain); else json_null(w);
    json_key(w, "target");
    target_value(w, &d->target);
    if (d->cm_attr) {
        json_key(w, "cm_message");
        json_string(w, d->cm_attr == IB_CM_REJ ? "REJ" : "SIDR_REP");
        if (d->cm_attr == IB_CM_REJ) {
            json_key(w, "reject_reason");
            json_uint(w, d->reject_reason);
        }
    }
    switch (f->kind) {
    case IB_FIND_REDIRECT:
        json_key(w, "sl");
        json_uint(w, d->sl);
        break;
    case IB_FIND_REDIRECT_BAD_TARGET:
        json_key(w, "problems");
        json_begin_array(w);
        for (unsigned i = 0; i < 3; i++)
            if (d->problems & (1u << i))
                json_string(w, problems[i]);
        json_end_array(w);
        break;
    case IB_FIND_REDIRECT_LOOP:
    case IB_FIND_REDIRECT_FOLLOWED:
        json_key(w, f->kind == IB_FIND_REDIRECT_LOOP ? "chain_length" : "hop");
        json_uint(w, d->hops);
        break;
    case IB_FIND_REDIRECT_KEY_MISMATCH:
        json_key(w, "carried_qkey");
        if (d->problems & IB_KEY_QKEY) json_uint(w, d->qkey); else json_null(w);
        json_key(w, "carried_pkey");
        if (d->problems & IB_KEY_PKEY) json_uint(w, d->pkey); else json_null(w);
        break;
    case IB_FIND_REDIRECT_NOT_FOLLOWED:
        json_key(w, "sent_to");
        endpoint_value(w, &d->sent_to);
        json_key(w, "sent_to_qp");
        json_uint(w, d->sent_to_qp);
        break;
    default:
        break;
    }
}

/* What the finding is about, as values: the keys its kind has
 * (docs/report-schema.md). */
static void details_value(struct json_writer *w, const struct ib_finding *f)
{
    json_begin_object(w);
    switch (f->kind) {
    case IB_FIND_RETRANSMISSION:
    case IB_FIND_PORT_REUSED:
    case IB_FIND_DUPLICATE_TUPLE:
    case IB_FIND_POOL_HIGH:
        cm_details(w, f);
        break;
    case IB_FIND_ICRC_MISMATCH:
    case IB_FIND_VCRC_MISMATCH:
        json_key(w, "carried");
        json_uint(w, f->data.crc_carried);
        json_key(w, "computed");
        json_uint(w, f->data.crc_computed);
        break;
    case IB_FIND_ADDRESSING:
    case IB_FIND_MALFORMED:
    case IB_FIND_COUNT:
        break;
    default:
        redirect_details(w, f);
        break;
    }
    json_end_object(w);
}

static void json_finding(void *p, const struct report_model *m, const struct ib_finding *f)
{
    struct json_state *st = p;
    struct json_writer *w = &st->findings;
    (void)m;
    if (!st->findings_tmp)
        return;
    json_begin_object(w);
    json_key(w, "capture");
    json_uint(w, f->at.capture);
    json_key(w, "frame");
    json_uint(w, f->at.frame);
    json_key(w, "time");
    time_value(w, f->at.time_ns);
    json_key(w, "kind");
    json_string(w, ib_finding_kind_name(f->kind));
    json_key(w, "severity");
    json_string(w, ib_severity_name(f->severity));
    char msg[IB_FINDING_TEXT_MAX];
    json_key(w, "message");
    json_string(w, ib_finding_format(f, msg, sizeof msg));
    if (f->related.frame != 0) {
        json_key(w, "related_capture");
        json_uint(w, f->related.capture);
        json_key(w, "related_frame");
        json_uint(w, f->related.frame);
    }
    if (f->kind == IB_FIND_ADDRESSING || f->kind == IB_FIND_MALFORMED) {
        json_key(w, "rule");
        json_string(w, ib_diag_info((enum ib_diag_id)f->rule)->name);
    }
    json_key(w, "details");
    details_value(w, f);
    json_end_object(w);
}

static void json_connection(void *p, const struct report_model *m,
                            const struct ib_connection_record *rec)
{
    struct json_state *st = p;
    struct json_writer *w = &st->conns;
    int64_t lat;
    (void)m;
    if (!st->conn_tmp)
        return;
    json_begin_object(w);
    if (rec->has_tuple)
        tuple_members(w, &rec->tuple);
    json_key(w, "service_id");
    {
        char buf[24];
        snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)rec->service_id);
        json_string(w, buf);
    }
    json_key(w, "local_comm_id");
    json_uint(w, rec->local_comm_id);
    json_key(w, "remote_comm_id");
    json_uint(w, rec->remote_comm_id);
    json_key(w, "active");
    endpoint_value(w, &rec->active);
    json_key(w, "passive");
    endpoint_value(w, &rec->passive);
    json_key(w, "state");
    json_string(w, ib_conn_state_name(rec->state));
    json_key(w, "reject_reason");
    if (rec->rej.frame != 0)
        json_uint(w, rec->reject_reason);
    else
        json_null(w);
    json_key(w, "retransmissions");
    json_uint(w, rec->retransmissions);
    static const char *const names[] = { "req", "mra", "rep", "rtu", "dreq", "drep", "rej" };
    const struct ib_frame_ref *refs[] = { &rec->req, &rec->mra, &rec->rep, &rec->rtu,
                                          &rec->dreq, &rec->drep, &rec->rej };
    json_key(w, "frames");
    json_begin_object(w);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        json_key(w, names[i]);
        frame_value(w, refs[i]);
    }
    json_end_object(w);
    json_key(w, "setup_latency_ns");
    if (report_connection_latency(rec, &lat))
        json_int(w, lat);
    else
        json_null(w);
    json_key(w, "evicted");
    json_bool(w, rec->evicted);
    json_end_object(w);
}

static void latency_value(struct json_writer *w, const struct ib_latency *l)
{
    json_begin_object(w);
    json_key(w, "count");
    json_uint(w, l->count);
    json_key(w, "min_ns");
    if (l->count) json_int(w, l->min_ns); else json_null(w);
    json_key(w, "median_ns");
    if (l->count) json_int(w, l->median_ns); else json_null(w);
    json_key(w, "max_ns");
    if (l->count) json_int(w, l->max_ns); else json_null(w);
    json_end_object(w);
}

static void write_captures(struct json_writer *w, const struct report_model *m)
{
    json_key(w, "captures");
    json_begin_array(w);
    for (size_t i = 0; i < m->capture_count; i++) {
        const struct report_capture *c = &m->captures[i];
        json_begin_object(w);
        json_key(w, "index");
        json_uint(w, i);
        json_key(w, "path");
        json_string(w, c->info.path);
        json_key(w, "linktype");
        if (c->info.linktype >= 0)
            json_int(w, c->info.linktype);
        else
            json_null(w);
        json_key(w, "linktype_name");
        json_string(w, linktype_name(c->info.linktype));
        json_key(w, "frames");
        json_uint(w, c->info.frames);
        json_key(w, "ib_frames");
        json_uint(w, c->ib_frames);
        json_key(w, "errors");
        json_uint(w, c->info.errors);
        json_key(w, "error");
        json_string(w, c->info.error[0] ? c->info.error : NULL);
        json_key(w, "snaplen_cut");
        json_uint(w, c->info.snaplen_cut);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_connections(struct json_writer *w, struct json_state *st,
                              const struct report_model *m)
{
    const struct ib_connection_stats *cs = ib_engine_connections(m->engine);
    json_key(w, "connections");
    json_begin_object(w);
    json_key(w, "requests");
    json_uint(w, cs->requests);
    json_key(w, "established");
    json_uint(w, cs->established);
    json_key(w, "rejected");
    json_uint(w, cs->rejected);
    json_key(w, "closed");
    json_uint(w, cs->closed);
    json_key(w, "retransmissions");
    json_uint(w, cs->retransmissions);
    json_key(w, "sidr_requests");
    json_uint(w, cs->sidr_requests);
    json_key(w, "sidr_replies");
    json_uint(w, cs->sidr_replies);
    json_key(w, "reject_reasons");
    json_begin_object(w);
    for (unsigned r = 0; r < IB_REJ_REASON_MAX; r++) {
        if (cs->reject_reasons[r] == 0)
            continue;
        char key[8];
        snprintf(key, sizeof(key), "%u", r);
        json_key(w, key);
        json_uint(w, cs->reject_reasons[r]);
    }
    json_end_object(w);
    json_key(w, "setup_latency");
    latency_value(w, &cs->setup);
    json_key(w, "req_rep_latency");
    latency_value(w, &cs->req_rep);
    if (m->opts->connections) {
        json_key(w, "list");
        json_begin_array(w);
        if (st->conn_tmp && !json_flush(&st->conns))
            fail(st);
        if (!json_splice(w, st->conn_tmp, m->connections_listed))
            fail(st);
        json_end_array(w);
    }
    json_end_object(w);
}

static void write_sources(struct json_writer *w, const struct report_model *m)
{
    size_t n = ib_engine_source_count(m->engine);
    json_key(w, "sources");
    json_begin_array(w);
    for (size_t i = 0; i < n; i++) {
        const struct ib_source_stats *s = ib_engine_source(m->engine, i);
        json_begin_object(w);
        json_key(w, "ip");
        ip_value(w, s->ip_version, s->ip);
        json_key(w, "ip_version");
        json_uint(w, s->ip_version);
        json_key(w, "port_space");
        port_space_value(w, s->port_space);
        json_key(w, "connections");
        json_uint(w, s->connections);
        json_key(w, "ports_in_use");
        json_uint(w, s->ports_in_use);
        json_key(w, "peak_ports_in_use");
        json_uint(w, s->peak_ports_in_use);
        json_key(w, "peak_frame");
        frame_value(w, &s->peak_at);
        json_key(w, "pool_utilization");
        json_double(w, s->pool_utilization, 2);
        json_key(w, "exhausted");
        json_bool(w, s->exhausted);
        json_key(w, "peak_ports_per_destination");
        json_uint(w, s->peak_ports_per_destination);
        json_key(w, "peak_per_destination_frame");
        frame_value(w, &s->peak_per_destination_at);
        json_key(w, "peak_destination");
        if (s->peak_per_destination_at.frame != 0) {
            json_begin_object(w);
            json_key(w, "ip");
            ip_value(w, s->ip_version, s->peak_dst_ip);
            json_key(w, "port");
            json_uint(w, s->peak_dst_port);
            json_end_object(w);
        } else {
            json_null(w);
        }
        json_key(w, "exhausted_per_destination");
        json_bool(w, s->exhausted_per_destination);
        json_key(w, "ports_outside_pool");
        json_uint(w, s->ports_outside_pool);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_chains(struct json_writer *w, const struct report_model *m)
{
    size_t n = ib_engine_chain_count(m->engine);
    json_key(w, "redirect_chains");
    json_begin_array(w);
    for (size_t i = 0; i < n; i++) {
        const struct ib_redirect_chain *c = ib_engine_chain(m->engine, i);
        json_begin_object(w);
        json_key(w, "requester");
        endpoint_value(w, &c->requester);
        json_key(w, "mgmt_class");
        json_uint(w, c->mgmt_class);
        json_key(w, "mgmt_class_name");
        json_string(w, ib_mgmt_class_name(c->mgmt_class));
        json_key(w, "origin");
        endpoint_value(w, &c->origin);
        json_key(w, "origin_qp");
        json_uint(w, c->origin_qp);
        json_key(w, "first_request");
        frame_value(w, &c->first_request);
        json_key(w, "hops");
        json_begin_array(w);
        unsigned hops = c->hop_count < IB_CHAIN_HOPS_MAX ? c->hop_count : IB_CHAIN_HOPS_MAX;
        for (unsigned h = 0; h < hops; h++) {
            const struct ib_redirect_hop *hop = &c->hops[h];
            json_begin_object(w);
            json_key(w, "lid");
            json_uint(w, hop->lid);
            json_key(w, "gid");
            gid_value(w, hop->gid);
            json_key(w, "qp");
            json_uint(w, hop->qp);
            json_key(w, "qkey");
            json_uint(w, hop->qkey);
            json_key(w, "pkey");
            json_uint(w, hop->pkey);
            json_key(w, "frame");
            frame_value(w, &hop->frame);
            json_end_object(w);
        }
        json_end_array(w);
        json_key(w, "hops_dropped");
        json_uint(w, c->hops_dropped);
        json_key(w, "final_answer");
        frame_value(w, &c->final_answer);
        json_key(w, "loop");
        json_bool(w, c->loop);
        json_key(w, "followed");
        json_bool(w, c->followed);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_frames(struct json_writer *w, const struct report_model *m)
{
    json_key(w, "frames");
    json_begin_object(w);
    json_key(w, "total");
    json_uint(w, m->frames);
    json_key(w, "ib");
    json_uint(w, m->ib_frames);
    json_key(w, "link_records");
    json_uint(w, m->link_records);
    json_key(w, "first_time");
    if (m->have_time) time_value(w, m->first_ns); else json_null(w);
    json_key(w, "last_time");
    if (m->have_time) time_value(w, m->last_ns); else json_null(w);
    json_end_object(w);
}

static void write_pool(struct json_writer *w, const struct report_model *m)
{
    const struct ib_engine_config *cfg = ib_engine_get_config(m->engine);
    json_key(w, "pool");
    json_begin_object(w);
    json_key(w, "low");
    json_uint(w, cfg->pool_low);
    json_key(w, "high");
    json_uint(w, cfg->pool_high);
    json_key(w, "size");
    json_uint(w, (unsigned)cfg->pool_high - cfg->pool_low + 1);
    json_key(w, "threshold_pct");
    percent_value(w, cfg->threshold_pct);
    json_end_object(w);
}

/* Packets per diagnostic: the addressing rules all (zeros too), the others
 * only when seen. */
static void write_diagnostics(struct json_writer *w, const struct report_model *m,
                              const char *key, bool addressing)
{
    const struct ib_engine_stats *es = ib_engine_stats(m->engine);
    json_key(w, key);
    json_begin_object(w);
    for (int d = 0; d < IB_DIAG_COUNT; d++) {
        const struct ib_diag_info *info = ib_diag_info((enum ib_diag_id)d);
        if (info->addressing != addressing || (!addressing && es->diagnostics[d] == 0))
            continue;
        json_key(w, info->name);
        json_uint(w, es->diagnostics[d]);
    }
    json_end_object(w);
}

static void crc_counts_value(struct json_writer *w, const uint64_t n[3])
{
    json_begin_object(w);
    json_key(w, "verified");
    json_uint(w, n[IB_CRC_VERIFIED]);
    json_key(w, "mismatch");
    json_uint(w, n[IB_CRC_MISMATCH]);
    json_key(w, "not_present");
    json_uint(w, n[IB_CRC_NOT_PRESENT]);
    json_end_object(w);
}

/* ICRC and VCRC of the InfiniBand frames, per capture. */
static void write_crc(struct json_writer *w, const struct report_model *m)
{
    json_key(w, "crc");
    json_begin_object(w);
    json_key(w, "checked");
    json_bool(w, m->opts->crc);
    json_key(w, "captures");
    json_begin_array(w);
    for (size_t i = 0; i < m->capture_count; i++) {
        json_begin_object(w);
        json_key(w, "capture");
        json_uint(w, i);
        json_key(w, "icrc");
        crc_counts_value(w, m->captures[i].crc.icrc);
        json_key(w, "vcrc");
        crc_counts_value(w, m->captures[i].crc.vcrc);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

static void write_counts(struct json_writer *w, const struct report_model *m)
{
    const struct ib_engine_stats *es = ib_engine_stats(m->engine);
    json_key(w, "finding_counts");
    json_begin_object(w);
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        json_key(w, ib_finding_kind_name((enum ib_finding_kind)k));
        json_uint(w, es->findings[k]);
    }
    json_end_object(w);

    json_key(w, "limits");
    json_begin_object(w);
    json_key(w, "findings_dropped");
    json_uint(w, m->findings_dropped);
    json_key(w, "connections_evicted");
    json_uint(w, es->connections_evicted);
    json_key(w, "transactions_evicted");
    json_uint(w, es->transactions_evicted);
    json_key(w, "chains_dropped");
    json_uint(w, es->chains_dropped);
    json_key(w, "sources_dropped");
    json_uint(w, es->sources_dropped);
    json_key(w, "allocation_failures");
    json_uint(w, es->allocation_failures);
    json_end_object(w);
}

static int json_end(void *p, const struct report_model *m)
{
    struct json_state *st = p;
    struct json_writer w;
    json_writer_init(&w, st->out, true);
    json_begin_object(&w);
    json_key(&w, "version");
    json_string(&w, m->version);
    write_captures(&w, m);
    write_frames(&w, m);
    write_pool(&w, m);
    write_connections(&w, st, m);
    write_sources(&w, m);
    write_chains(&w, m);
    write_diagnostics(&w, m, "addressing", true);
    write_diagnostics(&w, m, "diagnostics", false);
    write_crc(&w, m);
    write_counts(&w, m);

    json_key(&w, "findings");
    json_begin_array(&w);
    if (st->findings_tmp && !json_flush(&st->findings))
        fail(st);
    if (!json_splice(&w, st->findings_tmp, m->findings_total))
        fail(st);
    json_end_array(&w);
    json_end_object(&w);

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
    json_begin, json_finding, json_connection, json_end,
};
