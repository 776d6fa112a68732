/* report_json_values.c - the report's things as JSON values: one writer per
 * thing, shared by the JSON document and the JSON Lines stream, so that a
 * finding or a connection has the same keys in both (docs/report-schema.md). */
#include "report_json_values.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cm.h"
#include "names.h"
#include "report_format.h"
#include "report_model.h"

void jv_percent(struct json_writer *w, double pct)
{
    long centi = lround(pct * 100);
    json_double(w, pct, centi % 100 == 0 ? 0 : centi % 10 == 0 ? 1 : 2);
}

void jv_time(struct json_writer *w, int64_t ns)
{
    char buf[48];
    fmt_time_rfc3339(ns, buf, sizeof(buf));
    json_string(w, buf);
}

/* A frame reference as {capture, frame, time}, or null for none. */
void jv_frame(struct json_writer *w, const struct ib_frame_ref *f)
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
    jv_time(w, f->time_ns);
    json_end_object(w);
}

void jv_gid(struct json_writer *w, const uint8_t gid[16])
{
    char buf[64];
    ib_format_gid(gid, buf, sizeof(buf));
    json_string(w, buf);
}

void jv_endpoint(struct json_writer *w, const struct ib_endpoint *ep)
{
    json_begin_object(w);
    json_key(w, "lid");
    json_uint(w, ep->lid);
    json_key(w, "gid");
    if (ep->has_gid)
        jv_gid(w, ep->gid);
    else
        json_null(w);
    json_end_object(w);
}

void jv_ip(struct json_writer *w, uint8_t version, const uint8_t ip[16])
{
    char buf[64];
    ib_format_ip(version, ip, buf, sizeof(buf));
    json_string(w, buf);
}

void jv_port_space(struct json_writer *w, uint16_t ps)
{
    char buf[PORT_SPACE_BUF];
    fmt_port_space(ps, buf);
    json_string(w, buf);
}

/* The tuple's five keys, in the object w has open. */
static void tuple_members(struct json_writer *w, const struct ib_tuple *t)
{
    json_key(w, "port_space");
    jv_port_space(w, t->port_space);
    json_key(w, "src_ip");
    jv_ip(w, t->ip_version, t->src_ip);
    json_key(w, "src_port");
    json_uint(w, t->src_port);
    json_key(w, "dst_ip");
    jv_ip(w, t->ip_version, t->dst_ip);
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
    jv_gid(w, h->gid);
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
        jv_ip(w, d->tuple.ip_version, d->tuple.src_ip);
        json_key(w, "port_space");
        jv_port_space(w, d->tuple.port_space);
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
        jv_endpoint(w, &d->sent_to);
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

void jv_finding_members(struct json_writer *w, const struct ib_finding *f)
{
    json_key(w, "capture");
    json_uint(w, f->at.capture);
    json_key(w, "frame");
    json_uint(w, f->at.frame);
    json_key(w, "time");
    jv_time(w, f->at.time_ns);
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
}

void jv_connection_members(struct json_writer *w, const struct ib_connection_record *rec)
{
    int64_t lat;
    json_key(w, "conn");
    json_uint(w, rec->index);
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
    jv_endpoint(w, &rec->active);
    json_key(w, "passive");
    jv_endpoint(w, &rec->passive);
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
        jv_frame(w, refs[i]);
    }
    json_end_object(w);
    json_key(w, "setup_latency_ns");
    if (report_connection_latency(rec, &lat))
        json_int(w, lat);
    else
        json_null(w);
    json_key(w, "evicted");
    json_bool(w, rec->evicted);
}

void jv_latency(struct json_writer *w, const struct ib_latency *l)
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

void jv_crc_counts(struct json_writer *w, const uint64_t n[3])
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


void jv_source_members(struct json_writer *w, const struct ib_source_stats *s)
{
    json_key(w, "ip");
    jv_ip(w, s->ip_version, s->ip);
    json_key(w, "ip_version");
    json_uint(w, s->ip_version);
    json_key(w, "port_space");
    jv_port_space(w, s->port_space);
    json_key(w, "connections");
    json_uint(w, s->connections);
    json_key(w, "ports_in_use");
    json_uint(w, s->ports_in_use);
    json_key(w, "peak_ports_in_use");
    json_uint(w, s->peak_ports_in_use);
    json_key(w, "peak_frame");
    jv_frame(w, &s->peak_at);
    json_key(w, "pool_utilization");
    json_double(w, s->pool_utilization, 2);
    json_key(w, "exhausted");
    json_bool(w, s->exhausted);
    json_key(w, "peak_ports_per_destination");
    json_uint(w, s->peak_ports_per_destination);
    json_key(w, "peak_per_destination_frame");
    jv_frame(w, &s->peak_per_destination_at);
    json_key(w, "peak_destination");
    if (s->peak_per_destination_at.frame != 0) {
        json_begin_object(w);
        json_key(w, "ip");
        jv_ip(w, s->ip_version, s->peak_dst_ip);
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
}

void jv_chain_members(struct json_writer *w, const struct ib_redirect_chain *c, size_t index)
{
    json_key(w, "chain");
    json_uint(w, index);
    json_key(w, "requester");
    jv_endpoint(w, &c->requester);
    json_key(w, "mgmt_class");
    json_uint(w, c->mgmt_class);
    json_key(w, "mgmt_class_name");
    json_string(w, ib_mgmt_class_name(c->mgmt_class));
    json_key(w, "origin");
    jv_endpoint(w, &c->origin);
    json_key(w, "origin_qp");
    json_uint(w, c->origin_qp);
    json_key(w, "first_request");
    jv_frame(w, &c->first_request);
    json_key(w, "hops");
    json_begin_array(w);
    unsigned hops = c->hop_count < IB_CHAIN_HOPS_MAX ? c->hop_count : IB_CHAIN_HOPS_MAX;
    for (unsigned h = 0; h < hops; h++) {
        const struct ib_redirect_hop *hop = &c->hops[h];
        json_begin_object(w);
        json_key(w, "lid");
        json_uint(w, hop->lid);
        json_key(w, "gid");
        jv_gid(w, hop->gid);
        json_key(w, "qp");
        json_uint(w, hop->qp);
        json_key(w, "qkey");
        json_uint(w, hop->qkey);
        json_key(w, "pkey");
        json_uint(w, hop->pkey);
        json_key(w, "frame");
        jv_frame(w, &hop->frame);
        json_end_object(w);
    }
    json_end_array(w);
    json_key(w, "hops_dropped");
    json_uint(w, c->hops_dropped);
    json_key(w, "final_answer");
    jv_frame(w, &c->final_answer);
    json_key(w, "loop");
    json_bool(w, c->loop);
    json_key(w, "followed");
    json_bool(w, c->followed);
}

void jv_finding_counts(struct json_writer *w, const struct ib_engine_stats *es)
{
    json_begin_object(w);
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        json_key(w, ib_finding_kind_name((enum ib_finding_kind)k));
        json_uint(w, es->findings[k]);
    }
    json_end_object(w);
}

void jv_limits(struct json_writer *w, uint64_t findings_dropped, const struct ib_engine_stats *es)
{
    json_begin_object(w);
    json_key(w, "findings_dropped");
    json_uint(w, findings_dropped);
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

static void capture_members(struct json_writer *w, const struct report_model *m, size_t i)
{
    const struct report_capture *c = &m->captures[i];
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
    if (c->live.on) {
        json_key(w, "live");
        json_begin_object(w);
        json_key(w, "filter");
        json_string(w, c->live.filter);
        json_key(w, "default_filter");
        json_bool(w, c->live.default_filter);
        json_key(w, "received");
        json_uint(w, c->live.received);
        json_key(w, "kernel_dropped");
        json_uint(w, c->live.dropped);
        json_key(w, "interface_dropped");
        json_uint(w, c->live.if_dropped);
        json_key(w, "ended_by");
        json_string(w, c->live.ended_by);
        json_end_object(w);
    }
}

void jv_captures(struct json_writer *w, const struct report_model *m)
{
    json_begin_array(w);
    for (size_t i = 0; i < m->capture_count; i++) {
        json_begin_object(w);
        capture_members(w, m, i);
        json_end_object(w);
    }
    json_end_array(w);
}

void jv_crc_capture_members(struct json_writer *w, const struct report_model *m, size_t i)
{
    json_key(w, "capture");
    json_uint(w, i);
    json_key(w, "icrc");
    jv_crc_counts(w, m->captures[i].crc.icrc);
    json_key(w, "vcrc");
    jv_crc_counts(w, m->captures[i].crc.vcrc);
}

void jv_connection_stats_members(struct json_writer *w, const struct ib_connection_stats *cs)
{
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
    jv_latency(w, &cs->setup);
    json_key(w, "req_rep_latency");
    jv_latency(w, &cs->req_rep);
}
