/* merge.c - the fabric: the reports read (merge_read.c) made one report
 * model and rendered by the report's own renderers (merge.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge_fabric.h"

struct merge *merge_new(const char *version, bool any_version)
{
    struct merge *mg = calloc(1, sizeof *mg);
    if (!mg)
        return NULL;
    mg->version = version;
    mg->any_version = any_version;
    mg->render.frames = true; /* the text lists every finding, with its host */
    mg->render.crc = true;    /* unless a report says its CRCs were not checked */
    return mg;
}

void merge_free(struct merge *mg)
{
    if (!mg)
        return;
    for (size_t i = 0; i < mg->host_count; i++)
        free((void *)mg->hosts[i].name);
    for (size_t i = 0; i < mg->capture_count; i++) {
        free((void *)mg->captures[i].info.path);
        free((void *)mg->captures[i].live.filter);
        free((void *)mg->captures[i].live.ended_by);
    }
    if (mg->findings)
        fclose(mg->findings);
    free(mg->hosts);
    free(mg->captures);
    for (size_t i = 0; i < mg->source_count; i++) {
        free((void *)mg->sources[i].s.host_name);
        free((void *)mg->sources[i].s.addresses);
    }
    free(mg->sources);
    free(mg->chains);
    for (size_t i = 0; i < mg->qp_count; i++)
        free((void *)mg->qps[i].q.trace);
    free(mg->qps);
    for (size_t i = 0; i < mg->wire_count; i++)
        for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
            free((void *)mg->wires[i].w.values[f]);
    free(mg->wires);
    free(mg->cnps);
    free(mg->pfcs);
    free(mg->keys);
    free(mg);
}

void merge_add(uint64_t *a, uint64_t b)
{
    *a = *a > UINT64_MAX - b ? UINT64_MAX : *a + b;
}

bool merge_grow(void **items, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return true;
    size_t n = *cap ? *cap + *cap / 2 : 16;
    if (n > SIZE_MAX / size)
        return false;
    void *p = realloc(*items, n * size);
    if (!p)
        return false;
    *items = p;
    *cap = n;
    return true;
}

/* Findings in time order across the hosts; the order read (host by host,
 * each in its report's order) for equal times. */
static int by_time(const void *a, const void *b)
{
    const struct merge_key *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A source beside its index, so the comparison needs nothing else (qsort
 * passes it no context). */
struct source_ref {
    const struct ib_source_stats *s;
    size_t index;
};

/* Sources by the share of their own host's pool in use at their peak,
 * then by peak, then in the order read. */
static int by_utilization(const void *a, const void *b)
{
    const struct source_ref *x = a, *y = b;
    if (x->s->pool_utilization != y->s->pool_utilization)
        return x->s->pool_utilization < y->s->pool_utilization ? 1 : -1;
    if (x->s->peak_ports_in_use != y->s->peak_ports_in_use)
        return x->s->peak_ports_in_use < y->s->peak_ports_in_use ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* What the model points to, made for one rendering. */
struct views {
    const struct ib_source_stats **sources;
    const struct ib_redirect_chain **chains;
    uint32_t *source_host, *chain_host;
    size_t *nearest;
    struct report_qp *qps; /* in the order reports list them */
    uint32_t *qp_host;
    struct report_wire *wires; /* by number */
    uint32_t *wire_host;
};

static void views_free(struct views *v)
{
    free(v->sources);
    free(v->chains);
    free(v->source_host);
    free(v->chain_host);
    free(v->nearest);
    free(v->qps);
    free(v->qp_host);
    free(v->wires);
    free(v->wire_host);
}

static bool views_make(struct merge *mg, struct views *v)
{
    size_t ns = mg->source_count ? mg->source_count : 1;
    size_t nc = mg->chain_count ? mg->chain_count : 1;
    v->sources = malloc(ns * sizeof *v->sources);
    v->source_host = malloc(ns * sizeof *v->source_host);
    v->nearest = malloc(ns * sizeof *v->nearest);
    v->chains = malloc(nc * sizeof *v->chains);
    v->chain_host = malloc(nc * sizeof *v->chain_host);
    if (!v->sources || !v->source_host || !v->nearest || !v->chains || !v->chain_host)
        return false;
    struct source_ref *order = malloc(ns * sizeof *order);
    if (!order)
        return false;
    for (size_t i = 0; i < mg->source_count; i++) {
        v->sources[i] = &mg->sources[i].s;
        v->source_host[i] = mg->sources[i].host;
        order[i] = (struct source_ref){ &mg->sources[i].s, i };
    }
    for (size_t i = 0; i < mg->chain_count; i++) {
        v->chains[i] = &mg->chains[i].c;
        v->chain_host[i] = mg->chains[i].host;
    }
    size_t nq = mg->qp_count ? mg->qp_count : 1;
    v->qps = malloc(nq * sizeof *v->qps);
    v->qp_host = malloc(nq * sizeof *v->qp_host);
    if (!v->qps || !v->qp_host) {
        free(order);
        return false;
    }
    /* struct merge_qp starts with its struct report_qp, which starts with its
     * struct ib_qp_stats: one order for all. */
    if (mg->qp_count)
        qsort(mg->qps, mg->qp_count, sizeof *mg->qps, report_qp_order);
    for (size_t i = 0; i < mg->qp_count; i++) {
        v->qps[i] = mg->qps[i].q;
        v->qp_host[i] = mg->qps[i].host;
    }
    size_t nw = mg->wire_count ? mg->wire_count : 1;
    v->wires = malloc(nw * sizeof *v->wires);
    v->wire_host = malloc(nw * sizeof *v->wire_host);
    if (!v->wires || !v->wire_host) {
        free(order);
        return false;
    }
    for (size_t i = 0; i < mg->wire_count; i++) {
        v->wires[i] = mg->wires[i].w;
        v->wire_host[i] = mg->wires[i].host;
    }
    qsort(order, mg->source_count, sizeof *order, by_utilization);
    for (size_t k = 0; k < mg->source_count; k++)
        v->nearest[k] = order[k].index;
    free(order);
    return true;
}

static void model_make(const struct merge *mg, const struct views *v, struct report_model *m)
{
    memset(m, 0, sizeof *m);
    m->render = mg->render;
    m->version = mg->version;
    m->capture_count = mg->capture_count;
    m->captures = mg->captures;
    m->findings_dropped = mg->sum.findings_dropped;
    m->qps_not_traced = mg->sum.qps_not_traced; /* the merge keeps every host's traces */
    m->trace_points_dropped = mg->sum.trace_points_dropped;
    m->frames = mg->sum.frames;
    m->ib_frames = mg->sum.ib_frames;
    m->link_records = mg->sum.link_records;
    m->have_time = mg->sum.have_time;
    m->first_ns = m->min_ns = mg->sum.first_ns;
    m->last_ns = m->max_ns = mg->sum.last_ns;
    m->pool = mg->hosts[0].pool;
    m->connections = mg->sum.connections;
    m->medians = false; /* a median of medians is not a median */
    m->stats = mg->sum.stats;
    m->source_count = mg->source_count;
    m->sources = v->sources;
    m->chain_count = mg->chain_count;
    m->chains = v->chains;
    m->host_count = mg->host_count;
    m->hosts = mg->hosts;
    m->source_host = v->source_host;
    m->chain_host = v->chain_host;
    m->qp_count = mg->qp_count;
    m->qps = v->qps;
    m->qp_host = v->qp_host;
    m->wire_count = mg->wire_count;
    m->wires = v->wires;
    m->wire_host = v->wire_host;
    m->congestion = mg->sum.congestion;
    m->congestion.cnp_count = (uint32_t)mg->cnp_count; /* held to the model's maxima */
    m->congestion.cnps = mg->cnps;
    m->congestion.pfc_count = (uint32_t)mg->pfc_count;
    m->congestion.pfcs = mg->pfcs;
    m->nearest_count = mg->source_count < MERGE_NEAREST ? mg->source_count : MERGE_NEAREST;
    m->nearest = v->nearest;
}

/* Each finding from the scratch file, in time order, to the renderer. */
static int stream_findings(struct merge *mg, const struct report_renderer *r, void *st,
                           struct report_model *m)
{
    if (!mg->finding_count)
        return 0;
    qsort(mg->keys, mg->finding_count, sizeof *mg->keys, by_time);
    if (fflush(mg->findings) != 0)
        return errno ? errno : EIO;
    uint64_t next = UINT64_MAX; /* the record the file is at */
    for (size_t i = 0; i < mg->finding_count; i++) {
        uint64_t seq = mg->keys[i].seq;
        struct ib_finding f;
        if (seq != next && fseeko(mg->findings, (off_t)(seq * sizeof f), SEEK_SET) != 0)
            return errno ? errno : EIO;
        if (fread(&f, sizeof f, 1, mg->findings) != 1)
            return errno ? errno : EIO;
        next = seq + 1;
        m->findings[f.kind]++;
        m->findings_total++;
        r->finding(st, m, &f);
    }
    return 0;
}

int merge_render(struct merge *mg, const struct report_renderer *r, FILE *out)
{
    struct views v = { 0 };
    struct report_model m;
    if (!mg->host_count || mg->scratch_error)
        return mg->scratch_error ? mg->scratch_error : EINVAL;
    if (!views_make(mg, &v)) {
        views_free(&v);
        return ENOMEM;
    }
    model_make(mg, &v, &m);
    void *st = r->begin(&m, out);
    if (!st) {
        views_free(&v);
        return ENOMEM;
    }
    int err = stream_findings(mg, r, st, &m);
    int end_err = r->end(st, &m);
    views_free(&v);
    return err ? err : end_err;
}
