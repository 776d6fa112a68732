/* merge_read.c - one JSON report read into the merge as it streams by.
 *
 * Each member of the report fills the merge's model straight away: the
 * captures, sources and chains are appended with their host, their
 * capture and chain numbers moved past the previous reports', the counts
 * added; each finding goes to the merge's scratch file.  Nothing of the
 * document is built: an unknown member is skipped unread, and memory
 * holds only what the model keeps (merge_fabric.h's caps).  What a
 * report names must be in it (a finding's capture, a chain number): that
 * is checked at its end, whatever order its members came in.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "merge_fabric.h"
#include "merge_schema.h"
#include "names.h"
#include "printable.h"
#include "temp_file.h"

#define ALL(n) ((1u << (n)) - 1)

/* The capture of the report numbered i (its slot made when first named:
 * by captures[] or by crc.captures[]). */
static struct report_capture *capture_slot(struct merge_report *mr, uint64_t i)
{
    struct merge *mg = mr->mg;
    uint64_t at = mr->rd.capture_base + i;
    if (at >= MERGE_CAPTURES_MAX)
        return rd_fail(&mr->rd, "more than %d captures in all", MERGE_CAPTURES_MAX), NULL;
    while (mg->capture_count <= at) {
        if (!merge_grow((void **)&mg->captures, &mg->capture_cap, mg->capture_count,
                        sizeof *mg->captures))
            return rd_fail(&mr->rd, "out of memory"), NULL;
        struct report_capture *c = &mg->captures[mg->capture_count++];
        memset(c, 0, sizeof *c);
        c->host = mr->host;
        c->info.path = NULL; /* captures[] must give it */
        c->info.linktype = -1;
    }
    return &mg->captures[at];
}

static bool read_captures(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    size_t list = r->path_len;
    bool more;
    if (!rd_open(r, JP_ARRAY, "an array (captures)"))
        return false;
    for (uint64_t i = 0; rd_item(r, list, i, &more) && more; i++) {
        uint64_t seen = 0;
        if (!rd_open(r, JP_OBJECT, "a capture"))
            return false;
        struct report_capture *c = capture_slot(mr, i);
        if (!c || !ms_read_members(r, &rs_capture, c, &(struct ms_scratch){ .index = i }, &seen))
            return false;
        mr->captures = i + 1;
    }
    return !r->jp->error[0];
}

/* The frame counts added up; the earliest first time, the latest last. */
static bool read_frames(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    struct report_model *sum = &mr->mg->sum;
    uint64_t seen = 0;
    struct report_model *n = calloc(1, sizeof *n);
    if (!n)
        return rd_fail(r, "out of memory");
    n->first_ns = INT64_MAX; /* null: none (the times held are within 2^62) */
    n->last_ns = INT64_MIN;
    bool ok = rd_open(r, JP_OBJECT, "an object (frames)") &&
              ms_read_members(r, &rs_frames, n, &(struct ms_scratch){ 0 }, &seen);
    if (ok) {
        ms_add_counts(&rs_frames, sum, n);
        int64_t t[2] = { n->first_ns, n->last_ns };
        for (int i = 0; i < 2; i++) {
            if (t[i] == (i == 0 ? INT64_MAX : INT64_MIN))
                continue;
            if (!sum->have_time)
                sum->first_ns = sum->last_ns = t[i];
            sum->have_time = true;
            if (i == 0 && t[i] < sum->first_ns)
                sum->first_ns = t[i];
            if (i == 1 && t[i] > sum->last_ns)
                sum->last_ns = t[i];
        }
    }
    free(n);
    return ok;
}

static bool read_pool(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    uint64_t seen = 0;
    struct report_pool p = { 0 };
    if (!rd_open(r, JP_OBJECT, "an object (pool)") ||
        !ms_read_members(r, &rs_pool, &p, &(struct ms_scratch){ 0 }, &seen))
        return false;
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = p.low;
    cfg.pool_high = p.high;
    cfg.threshold_pct = p.threshold_pct;
    cfg.forecast_horizon_s = p.forecast_horizon_s;
    uint64_t size = p.size;
    double window = p.forecast_window_s;
    const char *problem = ib_engine_config_problem(&cfg);
    if (problem)
        return rd_fail(r, "%s", problem);
    uint32_t want = (uint32_t)cfg.pool_high - cfg.pool_low + 1;
    if (size != want)
        return rd_path_key(r, "size"), rd_fail(r, "%llu is not high - low + 1 (%u)",
                                               (unsigned long long)size, (unsigned)want);
    /* Both written to the nanosecond: the window is the horizon's fifth to
     * within their rounding. */
    double fifth = cfg.forecast_horizon_s / IB_FORECAST_WINDOW_DIVISOR;
    if (!(fabs(window - fifth) <= 1e-9 + fifth * 1e-12))
        return rd_path_key(r, "forecast_window_s"),
               rd_fail(r, "%.9g is not forecast_horizon_s / %d (%.9g)", window,
                       IB_FORECAST_WINDOW_DIVISOR, fifth);
    mr->mg->hosts[mr->host].pool = (struct report_pool){ cfg.pool_low,
                                                         cfg.pool_high,
                                                         want,
                                                         cfg.threshold_pct,
                                                         ib_engine_config_threshold_ports(&cfg),
                                                         cfg.forecast_horizon_s,
                                                         window };
    return true;
}

/* A latency added: counts add, the extremes hold (medians do not merge). */
static void add_latency(struct ib_latency *into, const struct ib_latency *l)
{
    if (!l->count)
        return;
    if (!into->count || l->min_ns < into->min_ns)
        into->min_ns = l->min_ns;
    if (!into->count || l->max_ns > into->max_ns)
        into->max_ns = l->max_ns;
    merge_add(&into->count, l->count);
}

/* The CM figures, added up. */
static bool read_connections(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    struct ib_connection_stats *cs = &mr->mg->sum.connections;
    struct ib_connection_stats n = { 0 };
    uint64_t seen = 0;
    if (!rd_open(r, JP_OBJECT, "an object (connections)") ||
        !ms_read_members(r, &rs_connections, &n, &(struct ms_scratch){ 0 }, &seen))
        return false;
    ms_add_counts(&rs_connections, cs, &n);
    add_latency(&cs->setup, &n.setup);
    add_latency(&cs->req_rep, &n.req_rep);
    return true;
}

/* The estimates as the engine makes them: none before the source's first
 * port event (forecast_frame), and a time left only at a rate of 0 or more
 * (above 0, but written to 6 decimals). */
static bool check_forecast(struct rd *r, const struct ib_source_stats *s)
{
    for (unsigned m = 0; m < IB_MODEL_COUNT; m++) {
        const struct ib_forecast *fc = &s->forecast[m];
        const char *rate = ms_key_at(
            &rs_source, offsetof(struct ib_source_stats, forecast[0].rate_per_s) + m * sizeof *fc);
        const char *eta = ms_key_at(
            &rs_source, offsetof(struct ib_source_stats, forecast[0].eta_s) + m * sizeof *fc);
        if (!s->forecast_at.frame && (fc->has_rate || fc->has_eta))
            return rd_path_key(r, fc->has_rate ? rate : eta),
                   rd_fail(r, "not null while forecast_frame is (no port event yet)");
        if (fc->has_eta && !(fc->has_rate && fc->rate_per_s >= 0))
            return rd_path_key(r, eta),
                   rd_fail(r, "not null while %s is %s", rate, fc->has_rate ? "below 0" : "null");
    }
    return true;
}

/* A host as the engine makes it: its addresses (a report before hosts
 * had none: its ip alone), the first of them its ip, as many as counted
 * when fewer than the most listed, a name when declared, a GUID when
 * joined by one. */
static bool check_host(struct rd *r, struct ib_source_stats *s, uint64_t seen)
{
    const uint64_t host_keys = ms_optional(&rs_source);
    if ((seen & host_keys) == 0) {
        struct ib_host_address *a = calloc(1, sizeof *a);
        if (!a)
            return rd_fail(r, "out of memory");
        a->ip_version = s->ip_version;
        memcpy(a->ip, s->ip, 16);
        s->addresses = a;
        s->addresses_listed = s->address_count = 1;
        return true;
    }
    if ((seen & host_keys) != host_keys)
        return rd_fail(r,
                       "host_name, host_from, ca_guid, address_count and addresses come together");
    if (!s->addresses_listed || s->addresses[0].ip_version != s->ip_version ||
        memcmp(s->addresses[0].ip, s->ip, 16) != 0)
        return rd_path_key(r, "addresses"), rd_fail(r, "does not begin with the source's ip");
    if (s->address_count < s->addresses_listed ||
        (s->addresses_listed < IB_HOST_ADDRESSES_MAX && s->address_count != s->addresses_listed))
        return rd_path_key(r, "address_count"),
               rd_fail(r, "is not the number of addresses listed (or more, past %d)",
                       IB_HOST_ADDRESSES_MAX);
    bool named = s->host_from == IB_HOST_FROM_OPTION || s->host_from == IB_HOST_FROM_CAPTURE;
    if (named != (s->host_name != NULL))
        return rd_path_key(r, "host_name"),
               rd_fail(r,
                       named ? "is null for a named host" : "names a host its host_from does not");
    if ((s->host_from == IB_HOST_FROM_CA_GUID) != (s->ca_guid != 0))
        return rd_path_key(r, "ca_guid"),
               rd_fail(r, "must be given exactly when host_from is ca_guid");
    return true;
}

static bool read_source(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    struct merge *mg = mr->mg;
    uint64_t seen = 0;
    struct ms_scratch scratch = { 0 };
    if (!rd_open(r, JP_OBJECT, "a source"))
        return false;
    if (mr->sources == MERGE_REPORT_SOURCES)
        return rd_fail(r, "past the %d sources an analysis keeps", MERGE_REPORT_SOURCES);
    if (!merge_grow((void **)&mg->sources, &mg->source_cap, mg->source_count, sizeof *mg->sources))
        return rd_fail(r, "out of memory");
    struct merge_source *ms = &mg->sources[mg->source_count];
    memset(ms, 0, sizeof *ms);
    ms->host = mr->host;
    bool ok = ms_read_members(r, &rs_source, &ms->s, &scratch, &seen);
    if (ok && scratch.ip_version != ms->s.ip_version)
        ok = rd_fail(r, "its ip is not of its ip_version");
    ok = ok && check_host(r, &ms->s, seen) && check_forecast(r, &ms->s);
    if (!ok) {
        free((void *)ms->s.host_name);
        free((void *)ms->s.addresses);
        return false;
    }
    mg->source_count++;
    mr->sources++;
    return true;
}

static bool read_sources(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    size_t list = r->path_len;
    bool more;
    if (!rd_open(r, JP_ARRAY, "an array (sources)"))
        return false;
    for (uint64_t i = 0; rd_item(r, list, i, &more) && more; i++)
        if (!read_source(mr))
            return false;
    return !r->jp->error[0];
}

/* A report from before chains had "end": the views' old reading of it. */
static enum ib_chain_end old_end(const struct ib_redirect_chain *c)
{
    return c->loop                 ? IB_CHAIN_LOOP
           : c->final_answer.frame ? IB_CHAIN_ANSWERED
           : c->followed           ? IB_CHAIN_NO_ANSWER
                                   : IB_CHAIN_NOT_FOLLOWED;
}

static bool read_chain(struct merge_report *mr, uint64_t i)
{
    struct rd *r = &mr->rd;
    struct merge *mg = mr->mg;
    uint64_t seen = 0;
    if (!rd_open(r, JP_OBJECT, "a redirect chain"))
        return false;
    if (mr->chains == MERGE_REPORT_CHAINS)
        return rd_fail(r, "past the %d chains an analysis keeps", MERGE_REPORT_CHAINS);
    if (!merge_grow((void **)&mg->chains, &mg->chain_cap, mg->chain_count, sizeof *mg->chains))
        return rd_fail(r, "out of memory");
    struct merge_chain *mc = &mg->chains[mg->chain_count];
    memset(mc, 0, sizeof *mc);
    mc->host = mr->host;
    if (!ms_read_members(r, &rs_chain, &mc->c, &(struct ms_scratch){ .index = i }, &seen))
        return false;
    if (!ms_given(&rs_chain, seen, "end"))
        mc->c.end = old_end(&mc->c);
    mg->chain_count++;
    mr->chains++;
    return true;
}

static bool read_chains(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    size_t list = r->path_len;
    bool more;
    if (!rd_open(r, JP_ARRAY, "an array (redirect_chains)"))
        return false;
    for (uint64_t i = 0; rd_item(r, list, i, &more) && more; i++)
        if (!read_chain(mr, i))
            return false;
    return !r->jp->error[0];
}

/* A queue pair's requester direction, renumbered after the earlier
 * reports' (as its findings' details.qp.index are). */
static bool read_qp(struct merge_report *mr, uint64_t i)
{
    struct rd *r = &mr->rd;
    struct merge *mg = mr->mg;
    uint64_t seen = 0;
    if (!rd_open(r, JP_OBJECT, "a queue pair"))
        return false;
    if (i == MERGE_REPORT_QPS)
        return rd_fail(r, "past the %u queue pairs an analysis keeps", MERGE_REPORT_QPS);
    if (!merge_grow((void **)&mg->qps, &mg->qp_cap, mg->qp_count, sizeof *mg->qps))
        return rd_fail(r, "out of memory");
    struct merge_qp *mq = &mg->qps[mg->qp_count];
    memset(mq, 0, sizeof *mq);
    mq->host = mr->host;
    if (!ms_read_members(r, &rs_qp, &mq->q, &(struct ms_scratch){ .index = i }, &seen) ||
        !merge_qp_number(mr, &mq->q.stats.qp.index)) {
        free((void *)mq->q.trace); /* not counted: merge_free would not see it */
        return false;
    }
    mg->qp_count++;
    return true;
}

static bool read_qps(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    size_t list = r->path_len;
    bool more;
    if (!rd_open(r, JP_ARRAY, "an array (qps)"))
        return false;
    for (uint64_t i = 0; rd_item(r, list, i, &more) && more; i++)
        if (!read_qp(mr, i))
            return false;
    return !r->jp->error[0];
}

/* A direction of the wire audit, numbered after the earlier reports'
 * (its pair too, checked once the report's last is read). */
static bool read_wire(struct merge_report *mr, uint64_t i)
{
    struct rd *r = &mr->rd;
    struct merge *mg = mr->mg;
    uint64_t seen = 0;
    if (!rd_open(r, JP_OBJECT, "a direction (settings)"))
        return false;
    if (i == MERGE_REPORT_WIRES)
        return rd_fail(r, "past the %u directions an analysis keeps", MERGE_REPORT_WIRES);
    if (!merge_grow((void **)&mg->wires, &mg->wire_cap, mg->wire_count, sizeof *mg->wires))
        return rd_fail(r, "out of memory");
    struct merge_wire *mw = &mg->wires[mg->wire_count];
    memset(mw, 0, sizeof *mw);
    mw->host = mr->host;
    bool ok = ms_read_members(r, &rs_wire, &mw->w, &(struct ms_scratch){ .index = i }, &seen);
    if (ok && mw->w.dir.index != i) {
        rd_path_key(r, "index");
        ok = rd_fail(r, "%" PRIu32 " is not its place in settings (%" PRIu64 ")", mw->w.dir.index,
                     i);
    }
    if (!ok) {
        for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
            free((void *)mw->w.values[f]); /* not counted: merge_free would not see them */
        return false;
    }
    mg->wire_count++;
    return true;
}

static bool read_settings(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    struct merge *mg = mr->mg;
    size_t list = r->path_len, first = mg->wire_count;
    bool more;
    if (!rd_open(r, JP_ARRAY, "an array (settings)"))
        return false;
    for (uint64_t i = 0; rd_item(r, list, i, &more) && more; i++)
        if (!read_wire(mr, i))
            return false;
    if (r->jp->error[0])
        return false;
    size_t n = mg->wire_count - first;
    for (size_t i = first; i < mg->wire_count; i++) {
        struct ib_wire_direction *d = &mg->wires[i].w.dir;
        if (d->has_pair && d->pair >= n) {
            snprintf(r->path, sizeof r->path, "settings[%zu].pair", i - first);
            r->path_len = strlen(r->path);
            return rd_fail(r, "%" PRIu32 " is not a direction of the report", d->pair);
        }
        d->index += (uint32_t)first;
        if (d->has_pair)
            d->pair += (uint32_t)first;
    }
    return true;
}

/* Appends n items of size bytes to a merge's list, held to max in all. */
static bool append(struct rd *r, void **items, size_t *count, size_t *cap, const void *more,
                   size_t n, size_t size, size_t max, const char *what)
{
    if (n > max - *count)
        return rd_fail(r, "past the %zu %s a merge keeps", max, what);
    for (size_t i = 0; i < n; i++) {
        if (!merge_grow(items, cap, *count, size))
            return rd_fail(r, "out of memory");
        memcpy((char *)*items + *count * size, (const char *)more + i * size, size);
        (*count)++;
    }
    return true;
}

/* congestion: its lists after the earlier reports', its settings the first
 * report's (reports from before it have none). */
static bool read_congestion(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    struct merge *mg = mr->mg;
    struct report_congestion g;
    uint64_t seen = 0;
    memset(&g, 0, sizeof g);
    bool ok = rd_open(r, JP_OBJECT, "an object (congestion)") &&
              ms_read_members(r, &rs_congestion, &g, &(struct ms_scratch){ 0 }, &seen) &&
              append(r, (void **)&mg->cnps, &mg->cnp_count, &mg->cnp_cap, g.cnps, g.cnp_count,
                     sizeof *g.cnps, REPORT_CNP_FLOWS_MAX, "CE/CNP flows") &&
              append(r, (void **)&mg->pfcs, &mg->pfc_count, &mg->pfc_cap, g.pfcs, g.pfc_count,
                     sizeof *g.pfcs, REPORT_PFC_CLASSES_MAX, "paused priorities");
    free((void *)g.cnps);
    free((void *)g.pfcs);
    if (ok && !mg->congestion_read) {
        mg->congestion_read = true;
        mg->sum.congestion = (struct report_congestion){
            g.cnp_window_us, g.pfc_storm_ms, g.pfc_link_gbps, 0, NULL, 0, NULL
        };
    }
    return ok;
}

static bool read_crc_capture(struct merge_report *mr, uint64_t i)
{
    struct rd *r = &mr->rd;
    uint64_t seen = 0;
    if (!rd_open(r, JP_OBJECT, "an object (a capture's CRCs)"))
        return false;
    struct report_capture *c = capture_slot(mr, i);
    if (!c || !ms_read_members(r, &rs_crc_capture, c, &(struct ms_scratch){ .index = i }, &seen))
        return false;
    mr->crc_captures = i + 1;
    return true;
}

static bool read_crc(struct merge_report *mr)
{
    static const char *const keys[] = { "checked", "captures", NULL };
    struct rd *r = &mr->rd;
    size_t base = r->path_len;
    uint64_t seen = 0;
    bool checked = true, more;
    if (!rd_open(r, JP_OBJECT, "an object (crc)"))
        return false;
    for (int k; (k = rd_member(r, base, keys, &seen)) != RD_END;) {
        if (k == 0 && !rd_bool(r, &checked))
            return false;
        if (k == 0)
            mr->mg->render.crc &= checked;
        if (k == 1) {
            size_t list = r->path_len;
            if (!rd_open(r, JP_ARRAY, "an array (crc.captures)"))
                return false;
            for (uint64_t i = 0; rd_item(r, list, i, &more) && more; i++)
                if (!read_crc_capture(mr, i))
                    return false;
        }
        if (k < 0 && !(k == RD_OTHER && rd_skip(r)))
            return false;
    }
    return !r->jp->error[0] && rd_required(r, base, keys, seen, ALL(2));
}

static int kind_index(const char *name)
{
    return (int)ib_finding_kind_by_name(name);
}

static int rule_index(const char *name)
{
    enum ib_diag_id d = ib_diag_by_name(name);
    return d != IB_DIAG_COUNT && ib_diag_info(d)->addressing ? (int)d : -1;
}

static int diagnostic_index(const char *name)
{
    enum ib_diag_id d = ib_diag_by_name(name);
    return d != IB_DIAG_COUNT && !ib_diag_info(d)->addressing ? (int)d : -1;
}

/* The limits, added up. */
static bool read_limits(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    uint64_t seen = 0;
    struct report_model *n = calloc(1, sizeof *n);
    if (!n)
        return rd_fail(r, "out of memory");
    bool ok = rd_open(r, JP_OBJECT, "an object (limits)") &&
              ms_read_members(r, &rs_limits, n, &(struct ms_scratch){ 0 }, &seen);
    if (ok)
        ms_add_counts(&rs_limits, &mr->mg->sum, n);
    free(n);
    return ok;
}

/* A finding into the scratch file, and its time into the keys to sort. */
static bool keep_finding(struct merge_report *mr, const struct ib_finding *f)
{
    struct merge *mg = mr->mg;
    if (!mg->findings && !(mg->findings = temp_file()))
        mg->scratch_error = errno;
    if (mg->findings && fwrite(f, sizeof *f, 1, mg->findings) != 1)
        mg->scratch_error = errno ? errno : EIO;
    if (mg->scratch_error)
        return rd_fail(&mr->rd, "a scratch file in %s: %s", temp_dir(),
                       strerror(mg->scratch_error));
    if (!merge_grow((void **)&mg->keys, &mg->key_cap, mg->finding_count, sizeof *mg->keys))
        return rd_fail(&mr->rd, "out of memory");
    mg->keys[mg->finding_count] = (struct merge_key){ f->at.time_ns, mg->finding_count };
    mg->finding_count++;
    mg->hosts[mr->host].findings[f->kind]++;
    mg->hosts[mr->host].findings_total++;
    return true;
}

static bool read_findings(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    size_t list = r->path_len;
    bool more;
    if (!rd_open(r, JP_ARRAY, "an array (findings)"))
        return false;
    for (uint64_t i = 0; rd_item(r, list, i, &more) && more; i++) {
        struct ib_finding f;
        if (!merge_read_finding(mr, &f) || !keep_finding(mr, &f))
            return false;
    }
    return !r->jp->error[0];
}

static const char *const top_keys[] = {
    "captures",   "frames",      "pool", "connections",    "sources",    "redirect_chains",
    "addressing", "diagnostics", "crc",  "finding_counts", "limits",     "findings",
    "hosts",      "version",     "qps",  "settings",       "congestion", NULL
};
#define TOP_VERSION (1u << 13) /* read first (read_version): a second is refused */

static bool read_top(struct merge_report *mr, int k)
{
    struct rd *r = &mr->rd;
    struct merge *mg = mr->mg;
    switch (k) {
    case 0: return read_captures(mr);
    case 1: return read_frames(mr);
    case 2: return read_pool(mr);
    case 3: return read_connections(mr);
    case 4: return read_sources(mr);
    case 5: return read_chains(mr);
    case 6:
    case 7:
        return ms_read_count_map(r, mg->sum.stats.diagnostics, IB_DIAG_COUNT,
                                 k == 6 ? rule_index : diagnostic_index,
                                 k == 6 ? "an addressing rule" : "a diagnostic");
    case 8: return read_crc(mr);
    case 9:
        return ms_read_count_map(r, mg->sum.stats.findings, IB_FIND_COUNT, kind_index,
                                 "a finding kind");
    case 10: return read_limits(mr);
    case 11: return read_findings(mr);
    case 12:
        snprintf(r->why, sizeof r->why, "already a merged report: merge the hosts' own reports");
        return false;
    case 14: return read_qps(mr);        /* reports before the transport analysis have none */
    case 15: return read_settings(mr);   /* nor before the wire audit */
    case 16: return read_congestion(mr); /* nor before its congestion part */
    default: return k == RD_OTHER && rd_skip(r);
    }
}

/* The report's first member: its version (a JSON Lines report's first
 * record starts with its type instead). */
static bool read_version(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    enum jp_type t;
    bool more;
    if (!jp_value(r->jp, &t))
        return false;
    if (t == JP_OBJECT && !jp_member(r->jp, &more))
        return false;
    if (t == JP_OBJECT && more && strcmp(r->jp->text, "type") == 0) {
        snprintf(r->why, sizeof r->why,
                 "not a JSON report (a JSON Lines report? merge reads "
                 "--format json reports)");
        return false;
    }
    if (t != JP_OBJECT || !more || strcmp(r->jp->text, "version") != 0 || !jp_value(r->jp, &t) ||
        t != JP_STRING) {
        if (!r->jp->error[0])
            snprintf(r->why, sizeof r->why, "not an ibscope report (no \"version\" first)");
        return false;
    }
    const char *version = mr->mg->version;
    if (mr->mg->any_version || strcmp(r->jp->text, version) == 0)
        return true;
    char made_by[160];
    r->jp->text[r->jp->text_len > 40 ? 40 : r->jp->text_len] = '\0';
    printable(r->jp->text, made_by, sizeof made_by);
    snprintf(r->why, sizeof r->why,
             "made by ibscope %s, this is %s: analyse the captures "
             "again with this version",
             made_by, version);
    return false;
}

/* What the report names, it has: the captures its frames name, the chains
 * its findings name, a CRC entry per capture. */
static bool check_names(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    if (r->capture_refs > mr->captures) {
        snprintf(r->path, sizeof r->path, "%s", r->capture_ref_at);
        r->path_len = strlen(r->path);
        return rd_fail(r, "capture %llu is not in the report's captures (%llu)",
                       (unsigned long long)r->capture_refs - 1, (unsigned long long)mr->captures);
    }
    if (mr->chain_refs > mr->chains) {
        snprintf(r->path, sizeof r->path, "%s", mr->chain_ref_at);
        r->path_len = strlen(r->path);
        return rd_fail(r, "chain %llu is not in the report's redirect_chains (%llu)",
                       (unsigned long long)mr->chain_refs - 1, (unsigned long long)mr->chains);
    }
    if (mr->crc_captures != mr->captures) {
        rd_path_back(r, 0);
        rd_path_key(r, "crc.captures");
        return rd_fail(r, "%llu entries for %llu captures", (unsigned long long)mr->crc_captures,
                       (unsigned long long)mr->captures);
    }
    return true;
}

static bool read_document(struct merge_report *mr)
{
    struct rd *r = &mr->rd;
    uint64_t seen = TOP_VERSION;
    if (!read_version(mr))
        return false;
    for (int k; (k = rd_member(r, 0, top_keys, &seen)) != RD_END;)
        if (!read_top(mr, k))
            return false;
    return jp_finish(r->jp) && rd_required(r, 0, top_keys, seen, ALL(12)) && check_names(mr);
}

/* A new host, its captures and chains after the others'. */
static bool add_host(struct merge *mg, const char *name)
{
    char *copy = strdup(name);
    if (!copy ||
        !merge_grow((void **)&mg->hosts, &mg->host_cap, mg->host_count, sizeof *mg->hosts)) {
        free(copy);
        return false;
    }
    mg->hosts[mg->host_count++] =
        (struct report_host){ .name = copy, .first_capture = (uint32_t)mg->capture_count };
    return true;
}

bool merge_read(struct merge *mg, FILE *in, const char *host, char *why, size_t size)
{
    struct json_pull *jp = malloc(sizeof *jp);
    if (!jp || !add_host(mg, host)) {
        free(jp);
        snprintf(why, size, "out of memory");
        return false;
    }
    jp_init(jp, in);
    struct merge_report mr = { .mg = mg,
                               .host = (uint32_t)mg->host_count - 1,
                               .chain_base = (uint32_t)mg->chain_count,
                               .qp_base = mg->qp_base };
    mr.rd.jp = jp;
    mr.rd.capture_base = (uint32_t)mg->capture_count;
    bool ok = read_document(&mr);
    if (!ok && jp->error[0])
        snprintf(why, size, "not a JSON report: %s", jp->error);
    else if (!ok)
        snprintf(why, size, "%s", mr.rd.why[0] ? mr.rd.why : "not an ibscope report");
    struct report_host *h = &mg->hosts[mr.host];
    h->capture_count = (uint32_t)mr.captures;
    h->source_count = mr.sources;
    for (size_t i = 0; ok && i < mr.captures; i++)
        merge_add(&h->frames, mg->captures[h->first_capture + i].info.frames);
    if (ok)
        mg->qp_base = mr.qp_base + mr.qp_end;
    free(jp);
    return ok;
}
