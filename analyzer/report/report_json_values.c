/* report_json_values.c - the report's things as JSON values: one writer per
 * thing, shared by the JSON document and the JSON Lines stream, so that a
 * finding or a connection has the same keys in both (docs/report-schema.md). */
#include "report_json_values.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cm.h"
#include "names.h"
#include "report_format.h"
#include "report_model.h"
#include "report_schema.h"

void jv_number(struct json_writer *w, double v, int decimals)
{
    if (fabs(v) < 0.5 * pow(10, -decimals))
        v = 0; /* no "-0" */
    char b[64];
    int n = snprintf(b, sizeof b, "%.*f", decimals, v);
    if (n > 0 && (size_t)n < sizeof b && strchr(b, '.'))
        while (decimals > 0 && b[n - 1] == '0') {
            n--;
            decimals--;
        }
    jw_double(w, v, decimals);
}

void jv_time(struct json_writer *w, int64_t ns)
{
    char buf[48];
    fmt_time_rfc3339(ns, buf, sizeof(buf));
    jw_string(w, buf);
}

/* A frame reference as {capture, frame, time}, or null for none. */
void jv_frame(struct json_writer *w, const struct ib_frame_ref *f)
{
    if (f->frame == 0) {
        jw_null(w);
        return;
    }
    jw_begin_object(w);
    jw_key(w, "capture");
    jw_uint(w, f->capture);
    jw_key(w, "frame");
    jw_uint(w, f->frame);
    jw_key(w, "time");
    jv_time(w, f->time_ns);
    jw_end_object(w);
}

void jv_gid(struct json_writer *w, const uint8_t gid[16])
{
    char buf[64];
    ib_format_gid(gid, buf, sizeof(buf));
    jw_string(w, buf);
}

void jv_endpoint(struct json_writer *w, const struct ib_endpoint *ep)
{
    jw_begin_object(w);
    jw_key(w, "lid");
    jw_uint(w, ep->lid);
    jw_key(w, "gid");
    if (ep->has_gid)
        jv_gid(w, ep->gid);
    else
        jw_null(w);
    jw_end_object(w);
}

void jv_ip(struct json_writer *w, uint8_t version, const uint8_t ip[16])
{
    char buf[64];
    ib_format_ip(version, ip, buf, sizeof(buf));
    jw_string(w, buf);
}

void jv_port_space(struct json_writer *w, uint16_t ps)
{
    char buf[PORT_SPACE_BUF];
    fmt_port_space(ps, buf);
    jw_string(w, buf);
}

/* Where a redirect sends the requester: lid, gid, qp, qkey, pkey. */
static void target_members(struct json_writer *w, const struct ib_redirect_hop *h)
{
    jw_key(w, "lid");
    jw_uint(w, h->lid);
    jw_key(w, "gid");
    jv_gid(w, h->gid);
    jw_key(w, "qp");
    jw_uint(w, h->qp);
    jw_key(w, "qkey");
    jw_uint(w, h->qkey);
    jw_key(w, "pkey");
    jw_uint(w, h->pkey);
}

void jv_finding_members(struct json_writer *w, const struct ib_finding *f)
{
    jv_members(w, &rs_finding, f, &(struct rs_place){ 0 });
}

void jv_connection_members(struct json_writer *w, const struct ib_connection_record *rec)
{
    jv_members(w, &rs_connection_record, rec, &(struct rs_place){ 0 });
}

/* The codecs' writers (report_schema.h): a source's members the kinds
 * cannot say. */
static void ip_version_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                             const struct rs_place *at)
{
    (void)mb, (void)at;
    jw_uint(w, ((const struct ib_source_stats *)obj)->ip_version);
}

static void hex64_value(struct json_writer *w, const struct rs_member *mb, const void *p)
{
    uint64_t v;
    char buf[24];
    memcpy(&v, p, sizeof v);
    snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
    jw_string(w, mb->nullable && v == 0 ? NULL : buf);
}

static void reject_reason_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                                const struct rs_place *at)
{
    const struct ib_connection_record *rec = obj;
    (void)mb, (void)at;
    if (rec->rej.frame != 0)
        jw_uint(w, rec->reject_reason);
    else
        jw_null(w);
}

static void setup_ns_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                           const struct rs_place *at)
{
    int64_t lat;
    (void)mb, (void)at;
    if (report_connection_latency(obj, &lat))
        jw_int(w, lat);
    else
        jw_null(w);
}

static void seen_at_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                          const struct rs_place *at)
{
    uint64_t mask = ((const struct ib_connection_record *)obj)->seen_at;
    (void)mb, (void)at;
    jw_begin_array(w);
    for (unsigned i = 0; i < 64; i++)
        if (mask & (1ull << i))
            jw_uint(w, i);
    jw_end_array(w);
}

static void addresses_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                            const struct rs_place *at)
{
    (void)mb, (void)at;
    const struct ib_source_stats *s = obj;
    jw_begin_array(w);
    for (uint32_t i = 0; i < s->addresses_listed; i++)
        jv_ip(w, s->addresses[i].ip_version, s->addresses[i].ip);
    jw_end_array(w);
}

static void destination_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                              const struct rs_place *at)
{
    (void)mb, (void)at;
    const struct ib_source_stats *s = obj;
    if (s->peak_per_destination_at.frame == 0) {
        jw_null(w);
        return;
    }
    jw_begin_object(w);
    jw_key(w, "ip");
    jv_ip(w, s->peak_dst_ip_version, s->peak_dst_ip);
    jw_key(w, "port");
    jw_uint(w, s->peak_dst_port);
    jw_end_object(w);
}

static void hops_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                       const struct rs_place *at)
{
    (void)mb, (void)at;
    const struct ib_redirect_chain *c = obj;
    jw_begin_array(w);
    unsigned hops = c->hop_count < IB_CHAIN_HOPS_MAX ? c->hop_count : IB_CHAIN_HOPS_MAX;
    for (unsigned h = 0; h < hops; h++) {
        const struct ib_redirect_hop *hop = &c->hops[h];
        jw_begin_object(w);
        target_members(w, hop);
        jw_key(w, "frame");
        jv_frame(w, &hop->frame);
        jw_end_object(w);
    }
    jw_end_array(w);
}

static void linktype_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                           const struct rs_place *at)
{
    (void)mb, (void)at;
    const struct report_capture *c = obj;
    if (c->info.linktype >= 0)
        jw_int(w, c->info.linktype);
    else
        jw_null(w);
}

static void error_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                        const struct rs_place *at)
{
    (void)mb, (void)at;
    const struct report_capture *c = obj;
    jw_string(w, c->info.error[0] ? c->info.error : NULL);
}

static void latency_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                          const struct rs_place *at)
{
    const struct ib_latency *l = (const struct ib_latency *)((const char *)obj + mb->at);
    jw_begin_object(w);
    jw_key(w, "count");
    jw_uint(w, l->count);
    jw_key(w, "min_ns");
    if (l->count)
        jw_int(w, l->min_ns);
    else
        jw_null(w);
    jw_key(w, "median_ns");
    if (l->count && at->medians)
        jw_int(w, l->median_ns);
    else
        jw_null(w);
    jw_key(w, "max_ns");
    if (l->count)
        jw_int(w, l->max_ns);
    else
        jw_null(w);
    jw_end_object(w);
}

static void by_message_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                             const struct rs_place *at)
{
    const uint64_t *n = (const uint64_t *)((const char *)obj + mb->at);
    (void)at;
    jw_begin_object(w);
    for (unsigned m = 0; m < IB_CM_MSG_COUNT; m++) {
        jw_key(w, ib_name_lookup(ib_cm_attr_names, IB_CM_MSG_FIRST + m));
        jw_uint(w, n[m]);
    }
    jw_end_object(w);
}

static void reject_reasons_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                                 const struct rs_place *at)
{
    const uint64_t *n = (const uint64_t *)((const char *)obj + mb->at);
    (void)at;
    jw_begin_object(w);
    for (unsigned r = 0; r < IB_REJ_REASON_MAX; r++) {
        if (n[r] == 0)
            continue;
        char key[8];
        snprintf(key, sizeof(key), "%u", r);
        jw_key(w, key);
        jw_uint(w, n[r]);
    }
    jw_end_object(w);
}

/* A finding's details the kinds cannot say. */
static void tuple_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                        const struct rs_place *at)
{
    const struct ib_tuple *t = (const struct ib_tuple *)((const char *)obj + mb->at);
    (void)at;
    if (t->ip_version == 0) { /* not IP CM */
        jw_null(w);
        return;
    }
    jw_begin_object(w);
    jw_key(w, "port_space");
    jv_port_space(w, t->port_space);
    jw_key(w, "src_ip");
    jv_ip(w, t->ip_version, t->src_ip);
    jw_key(w, "src_port");
    jw_uint(w, t->src_port);
    jw_key(w, "dst_ip");
    jv_ip(w, t->ip_version, t->dst_ip);
    jw_key(w, "dst_port");
    jw_uint(w, t->dst_port);
    jw_end_object(w);
}

static void target_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                         const struct rs_place *at)
{
    (void)at;
    jw_begin_object(w);
    target_members(w, (const struct ib_redirect_hop *)((const char *)obj + mb->at));
    jw_end_object(w);
}

static void problems_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                           const struct rs_place *at)
{
    uint8_t bits = *((const uint8_t *)obj + mb->at);
    (void)at;
    jw_begin_array(w);
    for (unsigned i = 0; i < RS_TARGET_PROBLEMS; i++)
        if (bits & (1u << i))
            jw_string(w, rs_target_problem_names[i]);
    jw_end_array(w);
}

static void chain_value(struct json_writer *w, const struct rs_member *mb, const void *obj,
                        const struct rs_place *at)
{
    const struct ib_finding_data *d = obj;
    (void)mb, (void)at;
    if (d->has_chain)
        jw_uint(w, d->chain);
    else
        jw_null(w);
}

static void (*const codec_writers[RS_CODEC_COUNT])(struct json_writer *, const struct rs_member *,
                                                   const void *, const struct rs_place *) = {
    [RS_CODEC_IP_VERSION] = ip_version_value,
    [RS_CODEC_ADDRESSES] = addresses_value,
    [RS_CODEC_DESTINATION] = destination_value,
    [RS_CODEC_HOPS] = hops_value,
    [RS_CODEC_LINKTYPE] = linktype_value,
    [RS_CODEC_ERROR] = error_value,
    [RS_CODEC_REJECT_REASONS] = reject_reasons_value,
    [RS_CODEC_BY_MESSAGE] = by_message_value,
    [RS_CODEC_LATENCY] = latency_value,
    [RS_CODEC_REJECT_REASON] = reject_reason_value,
    [RS_CODEC_SETUP_NS] = setup_ns_value,
    [RS_CODEC_SEEN_AT] = seen_at_value,
    [RS_CODEC_TUPLE] = tuple_value,
    [RS_CODEC_TARGET] = target_value,
    [RS_CODEC_PROBLEMS] = problems_value,
    [RS_CODEC_CHAIN] = chain_value,
};

/* An enum by its name, or its number when it has none. */
static void enum_value(struct json_writer *w, const struct rs_member *mb, const void *p)
{
    unsigned v = (unsigned)rs_uint_at(p, mb->size);
    const char *name = mb->names->name(v);
    if (name)
        jw_string(w, name);
    else
        jw_uint(w, v);
}

static void object_value(struct json_writer *w, const struct rs_object *o, const void *p,
                         const struct rs_place *at)
{
    jw_begin_object(w);
    jv_members(w, o, p, at);
    jw_end_object(w);
}

/* Each object of the list, in order (RS_LIST). */
static void list_value(struct json_writer *w, const struct rs_member *mb, const char *obj)
{
    const char *items;
    uint32_t n;
    memcpy(&items, obj + mb->at, sizeof items);
    memcpy(&n, obj + mb->aux, sizeof n);
    jw_begin_array(w);
    for (uint32_t i = 0; i < n; i++)
        object_value(w, mb->object, items + (size_t)i * mb->size, &(struct rs_place){ .index = i });
    jw_end_array(w);
}

static void real_value(struct json_writer *w, const struct rs_member *mb, const void *p)
{
    double v;
    memcpy(&v, p, sizeof v);
    if (mb->trim)
        jv_number(w, v, mb->decimals);
    else
        jw_double(w, v, mb->decimals);
}

static void member_value(struct json_writer *w, const struct rs_member *mb, const char *obj,
                         const struct rs_place *at)
{
    const void *p = obj + mb->at;
    int64_t i64;
    char text[RS_TEXT_MAX];
    if (!rs_has(mb, obj) && mb->kind != RS_OBJECT) {
        jw_null(w);
        return;
    }
    switch (mb->kind) {
    case RS_UINT: jw_uint(w, rs_uint_at(p, mb->size)); break;
    case RS_INT: memcpy(&i64, p, sizeof i64), jw_int(w, i64); break;
    case RS_TIME: memcpy(&i64, p, sizeof i64), jv_time(w, i64); break;
    case RS_BOOL: jw_bool(w, *(const bool *)p); break;
    case RS_FRAME: jv_frame(w, p); break;
    case RS_ENDPOINT: jv_endpoint(w, p); break;
    case RS_IP: jv_ip(w, *(const uint8_t *)(obj + mb->aux), p); break;
    case RS_PORT_SPACE: jv_port_space(w, (uint16_t)rs_uint_at(p, 2)); break;
    case RS_REAL: real_value(w, mb, p); break;
    case RS_STRING: jw_string(w, *(const char *const *)p); break;
    case RS_HEX64: hex64_value(w, mb, p); break;
    case RS_ENUM: enum_value(w, mb, p); break;
    case RS_TEXT: jw_string(w, mb->text(obj, text, sizeof text)); break;
    case RS_INDEX: jw_uint(w, at->index); break;
    case RS_CAPTURE:
    case RS_FRAME_NUMBER: jw_uint(w, rs_uint_at(p, mb->size)); break;
    case RS_OBJECT: object_value(w, mb->object, p, at); break;
    case RS_VARIANT: object_value(w, mb->variant(obj), p, at); break;
    case RS_RECORDS: break; /* the renderer's, after the others */
    case RS_LIST: list_value(w, mb, obj); break;
    case RS_CODEC: codec_writers[mb->codec](w, mb, obj, at); break;
    }
}

void jv_members(struct json_writer *w, const struct rs_object *o, const void *obj,
                const struct rs_place *at)
{
    for (size_t i = 0; i < o->count; i++) {
        const struct rs_member *mb = &o->members[i];
        if ((mb->fabric && !at->fabric) || (mb->kind == RS_OBJECT && !rs_has(mb, obj)) ||
            mb->kind == RS_RECORDS || (mb->present && !mb->present(obj)))
            continue;
        jw_key(w, mb->key);
        member_value(w, mb, obj, at);
    }
}

void jv_source_members(struct json_writer *w, const struct ib_source_stats *s)
{
    jv_members(w, &rs_source, s, &(struct rs_place){ 0 });
}

void jv_qp_members(struct json_writer *w, const struct report_qp *q)
{
    jv_members(w, &rs_qp, q, &(struct rs_place){ 0 });
}

void jv_wire_members(struct json_writer *w, const struct report_wire *d)
{
    jv_members(w, &rs_wire, d, &(struct rs_place){ 0 });
}

void jv_chain_members(struct json_writer *w, const struct ib_redirect_chain *c, size_t index)
{
    jv_members(w, &rs_chain, c, &(struct rs_place){ .index = index });
}

void jv_finding_counts(struct json_writer *w, const struct ib_engine_stats *es)
{
    jw_begin_object(w);
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        jw_key(w, ib_finding_kind_name((enum ib_finding_kind)k));
        jw_uint(w, es->findings[k]);
    }
    jw_end_object(w);
}

void jv_frames(struct json_writer *w, const struct report_model *m)
{
    jw_begin_object(w);
    jv_members(w, &rs_frames, m, &(struct rs_place){ 0 });
    jw_end_object(w);
}

void jv_limits(struct json_writer *w, const struct report_model *m)
{
    jw_begin_object(w);
    jv_members(w, &rs_limits, m, &(struct rs_place){ 0 });
    jw_end_object(w);
}

void jv_host_member(struct json_writer *w, const struct report_model *m, uint32_t host)
{
    if (!m->host_count || host >= m->host_count)
        return;
    jw_key(w, "host");
    jw_string(w, m->hosts[host].name);
}

void jv_fabric(struct json_writer *w, const struct report_model *m)
{
    const struct ib_fabric_stats *fs = ib_fabric_stats(m->fabric);
    jw_begin_object(w);
    jw_key(w, "window_ns");
    jw_int(w, IB_DELIVERY_WINDOW_NS);
    jw_key(w, "repeat_sightings");
    jw_uint(w, fs->repeats);
    jw_key(w, "deliveries");
    jw_begin_array(w);
    for (size_t i = 0; i < ib_fabric_delivery_count(m->fabric); i++) {
        const struct ib_delivery *d = ib_fabric_delivery(m->fabric, i);
        jw_begin_object(w);
        jw_key(w, "from");
        jw_uint(w, d->from);
        jw_key(w, "to");
        jw_uint(w, d->to);
        jw_key(w, "sent");
        jw_uint(w, d->sent);
        jw_key(w, "not_delivered");
        jw_uint(w, d->not_delivered);
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_key(w, "clock_steps");
    jw_begin_array(w);
    for (size_t i = 0; i < ib_fabric_gap_count(m->fabric); i++) {
        struct ib_clock_step s;
        if (!ib_fabric_clock_step(m->fabric, i, &s))
            continue;
        jw_begin_object(w);
        jw_key(w, "capture");
        jw_uint(w, s.capture);
        jw_key(w, "frame");
        jw_uint(w, s.frame);
        jw_key(w, "step_ns");
        jw_int(w, s.step_ns);
        jw_key(w, "error_ns");
        jw_int(w, s.error_ns);
        jw_key(w, "against");
        jw_uint(w, s.against);
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_key(w, "sightings_evicted");
    jw_uint(w, fs->sightings_evicted);
    jw_key(w, "clock_figures_dropped");
    jw_uint(w, m->clock_dropped);
    jw_key(w, "allocation_failures");
    jw_uint(w, fs->allocation_failures);
    jw_end_object(w);
}

static void capture_members(struct json_writer *w, const struct report_model *m, size_t i)
{
    jv_members(w, &rs_capture, &m->captures[i],
               &(struct rs_place){ .index = i, .fabric = m->fabric != NULL });
    jv_host_member(w, m, m->captures[i].host);
}

void jv_captures(struct json_writer *w, const struct report_model *m)
{
    jw_begin_array(w);
    for (size_t i = 0; i < m->capture_count; i++) {
        jw_begin_object(w);
        capture_members(w, m, i);
        jw_end_object(w);
    }
    jw_end_array(w);
}

void jv_crc_capture_members(struct json_writer *w, const struct report_model *m, size_t i)
{
    jv_members(w, &rs_crc_capture, &m->captures[i], &(struct rs_place){ .index = i });
    jv_host_member(w, m, m->captures[i].host);
}

void jv_pool(struct json_writer *w, const struct report_pool *p)
{
    jw_begin_object(w);
    jv_members(w, &rs_pool, p, &(struct rs_place){ 0 });
    jw_end_object(w);
}

void jv_connection_stats_members(struct json_writer *w, const struct ib_connection_stats *cs,
                                 bool medians)
{
    jv_members(w, &rs_connections, cs, &(struct rs_place){ .medians = medians });
}
