/* report_model.c - the model filled from the engine, and helpers over it
 * shared by the renderers. */
#include "report_model.h"

#include "qp_trace.h"

#include <stdlib.h>
#include <string.h>

static const char *const trace_kind_names[REPORT_TRACE_KIND_COUNT] = {
    [REPORT_TRACE_REQUEST] = "request", [REPORT_TRACE_RESEND] = "resend",
    [REPORT_TRACE_ACK] = "ack",         [REPORT_TRACE_RESPONSE] = "response",
    [REPORT_TRACE_NAK] = "nak",         [REPORT_TRACE_RNR_NAK] = "rnr_nak",
};

const char *report_trace_kind_name(unsigned kind)
{
    return kind < REPORT_TRACE_KIND_COUNT ? trace_kind_names[kind] : NULL;
}

unsigned report_trace_kind_by_name(const char *name)
{
    unsigned k = 0;
    while (k < REPORT_TRACE_KIND_COUNT && strcmp(trace_kind_names[k], name) != 0)
        k++;
    return k;
}

uint64_t report_qp_trouble(const struct ib_qp_stats *q)
{
    uint64_t n = q->psn_gaps + q->rnr_naks;
    for (unsigned c = 0; c < IB_NAK_CODES; c++)
        n += q->naks[c];
    for (unsigned c = 0; c < IB_RESEND_CAUSE_COUNT; c++)
        n += q->resends[c];
    return n;
}

const struct report_qp *report_qp(const struct report_model *m, size_t i, struct report_qp *buf)
{
    if (m->qps)
        return &m->qps[i];
    memset(buf, 0, sizeof *buf);
    ib_engine_qp(m->qp_engine, m->qp_order[i], &buf->stats);
    if (m->qp_traces)
        qp_trace_fill(m->qp_traces, buf);
    return buf;
}

const struct report_wire *report_wire(const struct report_model *m, size_t i,
                                      struct report_wire *buf)
{
    if (m->wires)
        return &m->wires[i];
    ib_engine_wire_direction(m->wire_engine, i, &buf->dir);
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
        buf->values[f] = buf->dir.fields[f].values;
    return buf;
}

/* The report's order of queue pairs: those that died, then by trouble,
 * then by number; what it needs of one packed in a word, so that ranking
 * 10,000 queue pairs takes 8 bytes each rather than a copy of their
 * statistics: died in the top bit, trouble (saturating at 2^31 - 1: beyond
 * that, by number) below it, the number inverted in the low 32 bits, so
 * that the larger word comes first. */
#define RANK_TROUBLE_MAX ((UINT64_C(1) << 31) - 1)

static uint64_t rank_of(const struct ib_qp_stats *q)
{
    uint64_t trouble = report_qp_trouble(q);
    if (trouble > RANK_TROUBLE_MAX)
        trouble = RANK_TROUBLE_MAX;
    return (uint64_t)q->died << 63 | trouble << 32 | (UINT32_MAX - q->qp.index);
}

static uint32_t rank_index(uint64_t rank)
{
    return UINT32_MAX - (uint32_t)rank;
}

static int rank_order(const void *a, const void *b)
{
    uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return p > q ? -1 : p < q;
}

int report_qp_order(const void *a, const void *b)
{
    uint64_t p = rank_of(a), q = rank_of(b);
    return rank_order(&p, &q);
}

static bool summarize_qps(struct report_model *m, const struct ib_engine *e)
{
    size_t n = ib_engine_qp_count(e);
    uint64_t *ranks = malloc((n ? n : 1) * sizeof *ranks);
    if (!ranks)
        return false;
    /* A queue pair the CM set up that never carried a packet is left out. */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        struct ib_qp_stats q;
        ib_engine_qp(e, i, &q);
        if (q.first.frame == 0)
            continue;
        ranks[kept++] = rank_of(&q);
    }
    qsort(ranks, kept, sizeof *ranks, rank_order);
    /* Made after the sort, whose scratch space is as large as the ranks. */
    uint32_t *order = malloc((kept ? kept : 1) * sizeof *order);
    if (!order) {
        free(ranks);
        return false;
    }
    for (size_t i = 0; i < kept; i++)
        order[i] = rank_index(ranks[i]);
    free(ranks);
    m->qp_count = kept;
    m->qp_engine = e;
    m->qp_order = order;
    m->qps = NULL;
    return true;
}

/* The engine's CE/CNP flows and PFC pauses, copied: a few of each. */
static bool summarize_congestion(struct report_model *m, const struct ib_engine *e)
{
    const struct ib_engine_config *cfg = ib_engine_get_config(e);
    struct report_congestion *g = &m->congestion;
    g->cnp_window_us = cfg->cnp_window_us;
    g->pfc_storm_ms = cfg->pfc_storm_ms;
    g->pfc_link_gbps = IB_PFC_LINK_GBPS;
    size_t nc = ib_engine_cnp_count(e), np = ib_engine_pfc_count(e);
    struct ib_cnp_stats *cnps = malloc((nc ? nc : 1) * sizeof *cnps);
    struct ib_pfc_stats *pfcs = malloc((np ? np : 1) * sizeof *pfcs);
    if (!cnps || !pfcs) {
        free(cnps);
        free(pfcs);
        return false;
    }
    for (size_t i = 0; i < nc; i++)
        ib_engine_cnp(e, i, &cnps[i]);
    for (size_t i = 0; i < np; i++)
        ib_engine_pfc(e, i, &pfcs[i]);
    g->cnp_count = (uint32_t)nc; /* at most max_cnp_flows and REPORT_PFC_CLASSES_MAX */
    g->cnps = cnps;
    g->pfc_count = (uint32_t)np;
    g->pfcs = pfcs;
    return true;
}

bool report_model_summarize(struct report_model *m, const struct ib_engine *e)
{
    const struct ib_engine_config *cfg = ib_engine_get_config(e);
    m->pool = (struct report_pool){
        .low = cfg->pool_low,
        .high = cfg->pool_high,
        .size = ib_engine_pool_size(e),
        .threshold_pct = cfg->threshold_pct,
        .threshold_ports = ib_engine_threshold_ports(e),
        .forecast_horizon_s = cfg->forecast_horizon_s,
        .forecast_window_s = cfg->forecast_horizon_s / IB_FORECAST_WINDOW_DIVISOR,
    };
    ib_engine_connections(e, &m->connections);
    m->medians = true;
    m->stats = *ib_engine_stats(e);
    size_t ns = ib_engine_source_count(e), nc = ib_engine_chain_count(e);
    const struct ib_source_stats **sources = malloc((ns ? ns : 1) * sizeof *sources);
    const struct ib_redirect_chain **chains = malloc((nc ? nc : 1) * sizeof *chains);
    if (!sources || !chains) {
        free(sources);
        free(chains);
        return false;
    }
    for (size_t i = 0; i < ns; i++)
        sources[i] = ib_engine_source(e, i);
    for (size_t i = 0; i < nc; i++)
        chains[i] = ib_engine_chain(e, i);
    m->source_count = ns;
    m->sources = sources;
    m->chain_count = nc;
    m->chains = chains;
    m->wire_count = ib_engine_wire_count(e);
    m->wire_engine = e;
    m->wires = NULL;
    return summarize_congestion(m, e) && summarize_qps(m, e);
}

void report_model_summary_free(struct report_model *m)
{
    free((void *)m->sources);
    free((void *)m->chains);
    free((void *)m->qp_order);
    free((void *)m->congestion.cnps);
    free((void *)m->congestion.pfcs);
    m->congestion.cnps = NULL;
    m->congestion.pfcs = NULL;
    m->congestion.cnp_count = m->congestion.pfc_count = 0;
    m->sources = NULL;
    m->chains = NULL;
    m->qp_order = NULL;
    m->source_count = m->chain_count = m->qp_count = m->wire_count = 0;
}

bool report_one_pool(const struct report_model *m)
{
    for (size_t h = 0; h < m->host_count; h++) {
        const struct report_pool *p = &m->hosts[h].pool, *q = &m->hosts[0].pool;
        if (p->low != q->low || p->high != q->high || p->threshold_pct != q->threshold_pct ||
            p->forecast_horizon_s != q->forecast_horizon_s)
            return false;
    }
    return true;
}

const struct report_pool *report_source_pool(const struct report_model *m, size_t i)
{
    if (m->host_count && m->source_host)
        return &m->hosts[m->source_host[i]].pool;
    return &m->pool;
}

const struct report_host *report_capture_host(const struct report_model *m, uint32_t capture)
{
    if (!m->host_count || capture >= m->capture_count)
        return NULL;
    return &m->hosts[m->captures[capture].host];
}

bool report_connection_latency(const struct ib_connection_record *rec, int64_t *ns)
{
    if (rec->req.frame == 0 || rec->rtu.frame == 0)
        return false;
    *ns = rec->rtu.time_ns - rec->req.time_ns;
    return true;
}
