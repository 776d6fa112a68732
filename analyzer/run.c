/* run.c - one analysis: frames in, findings streamed, a report at the end. */
#include "run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "identity.h"
#include "live.h"
#include "printable.h"
#include "qp_trace.h"
#include "temp_file.h"

static const struct report_renderer *renderer_for(enum report_format f)
{
    switch (f) {
    case FORMAT_JSON: return &report_json;
    case FORMAT_JSONL: return &report_jsonl;
    case FORMAT_CSV: return &report_csv;
    case FORMAT_HTML: return &report_html;
    case FORMAT_TEXT:
    default: return &report_text;
    }
}

/* --host: each name with its addresses (options.c checked them). */
static bool declare_hosts(struct ib_engine *e, const struct options *opts)
{
    for (size_t i = 0; i < opts->host_count; i++) {
        char name[OPTIONS_HOST_NAME_MAX + 1];
        struct ib_host_address addrs[IB_HOST_ADDRESSES_MAX];
        size_t n;
        int other;
        if (options_parse_host(opts->hosts[i], name, addrs, &n))
            return false;
        int h = ib_engine_host_add(e, name, IB_HOST_FROM_OPTION);
        if (h < 0)
            return false;
        for (size_t a = 0; a < n; a++)
            if (!ib_engine_host_address(e, h, addrs[a].ip_version, addrs[a].ip, &other))
                return false;
    }
    return true;
}

bool run_init(struct run *r, const struct options *opts, const char *version, size_t capture_count)
{
    memset(r, 0, sizeof(*r));
    r->opts = opts;
    r->renderer = renderer_for(opts->format);
    r->model.render = (struct report_render){ .frames = opts->frames,
                                              .connections = opts->connections,
                                              .crc = opts->crc };
    r->model.version = version;
    r->model.capture_count = capture_count;

    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = opts->pool_low;
    cfg.pool_high = opts->pool_high;
    cfg.threshold_pct = opts->threshold_pct;
    cfg.forecast_horizon_s = opts->forecast_horizon_s;
    cfg.cnp_window_us = opts->cnp_window_us;
    cfg.pfc_storm_ms = opts->pfc_storm_ms;
    r->model.captures = calloc(capture_count ? capture_count : 1, sizeof(*r->model.captures));
    r->not_ib = calloc(capture_count ? capture_count : 1, sizeof(*r->not_ib));
    r->engine = ib_engine_new(&cfg);
    r->traces = qp_trace_new();
    if (!r->model.captures || !r->not_ib || !r->engine || !r->traces) {
        fprintf(stderr, "ibscope: out of memory\n");
        run_free(r);
        return false;
    }
    if (!declare_hosts(r->engine, opts)) {
        fprintf(stderr, "ibscope: out of memory\n");
        run_free(r);
        return false;
    }
    ib_parse_opts_init(&r->popts);
    r->popts.is_mad_qp = ib_engine_is_mad_qp;
    r->popts.ctx = r->engine;
    r->popts.verify_crc = opts->crc;
    r->popts.rocev2_port = opts->rocev2_port;
    return true;
}

void run_free(struct run *r)
{
    report_model_summary_free(&r->model);
    qp_trace_free(r->traces);
    r->traces = NULL;
    ib_fabric_free(r->fabric);
    r->fabric = NULL;
    free(r->capture_host);
    r->capture_host = NULL;
    r->model.fabric = NULL;
    if (r->engine)
        ib_engine_free(r->engine);
    free(r->model.captures);
    free(r->not_ib);
    r->not_ib = NULL;
    r->engine = NULL;
    r->model.captures = NULL;
}

/* With several hosts' captures: the host of the capture that owns the
 * packet's source address (fabric.h), or -1. */
static int sender_host(void *ctx, const struct ib_packet *p)
{
    const struct run *r = ctx;
    int64_t c =
        ib_clock_sync_owner(r->clock, ib_endpoint_key(ib_clock_sync_key(r->clock), &p->src));
    return c >= 0 && (size_t)c < r->model.capture_count ? r->capture_host[c] : -1;
}

/* A path's last component. */
static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* One host per capture, named as its file (its path when two files share
 * a name): the addresses it owns draw from one pool. */
static bool declare_capture_hosts(struct run *r, const struct ib_clock_sync *cs)
{
    size_t n = r->model.capture_count;
    if (!(r->capture_host = calloc(n ? n : 1, sizeof *r->capture_host)))
        return false;
    for (size_t i = 0; i < n; i++) {
        const char *path = r->opts->captures[i], *name = file_name(path);
        for (size_t j = 0; j < n && name != path; j++)
            if (j != i && strcmp(file_name(r->opts->captures[j]), name) == 0)
                name = path;
        if ((r->capture_host[i] = ib_engine_host_add(r->engine, name, IB_HOST_FROM_CAPTURE)) < 0)
            return false;
    }
    r->clock = cs;
    ib_engine_set_sender_host(r->engine, sender_host, r);
    return true;
}

bool run_correlate(struct run *r, const struct ib_clock_sync *cs)
{
    r->fabric = ib_fabric_new(cs);
    if (!r->fabric || !declare_capture_hosts(r, cs)) {
        fprintf(stderr, "ibscope: out of memory\n");
        return false;
    }
    r->model.fabric = r->fabric;
    r->model.clock_dropped = ib_clock_sync_dropped(cs);
    for (size_t i = 0; i < r->model.capture_count; i++) {
        const struct ib_capture_clock *k = ib_clock_sync_capture(cs, (uint32_t)i);
        struct report_capture *c = &r->model.captures[i];
        c->clock_linked = k->linked;
        c->clock_reference = k->reference;
        c->clock_offset_ns = k->offset_ns;
        c->clock_error_ns = k->error_ns;
    }
    return true;
}

static void on_connection(void *ctx, const struct ib_connection_record *rec)
{
    struct run *r = ctx;
    r->model.connections_listed++;
    if (r->fabric) {
        struct ib_connection_record seen = *rec;
        seen.seen_at = ib_fabric_seen_at(r->fabric, rec);
        r->renderer->connection(r->rstate, &r->model, &seen);
        return;
    }
    r->renderer->connection(r->rstate, &r->model, rec);
}

static void on_usage(void *ctx, const struct ib_usage_change *u)
{
    struct run *r = ctx;
    r->renderer->usage(r->rstate, &r->model, u);
}

static void on_congestion(void *ctx, const struct ib_congestion_change *c)
{
    struct run *r = ctx;
    r->renderer->congestion(r->rstate, &r->model, c);
}

bool run_begin(struct run *r, struct output_file *out)
{
    struct stat st;
    r->model.stream_records = fstat(out->fd, &st) != 0 || !S_ISREG(st.st_mode);
    r->rstate = r->renderer->begin(&r->model, out->fp);
    if (!r->rstate) {
        fprintf(stderr, "ibscope: out of memory\n");
        output_abort(out);
        return false;
    }
    if (r->opts->connections || r->renderer->wants_connections)
        ib_engine_set_connection_sink(r->engine, on_connection, r);
    if (r->renderer->usage)
        ib_engine_set_usage_sink(r->engine, on_usage, r);
    if (r->renderer->congestion)
        ib_engine_set_congestion_sink(r->engine, on_congestion, r);
    return true;
}

static void on_findings(struct run *r, const struct ib_frame_analysis *fa)
{
    r->model.findings_dropped += fa->dropped;
    for (unsigned i = 0; i < fa->count && i < IB_FRAME_FINDINGS_MAX; i++) {
        const struct ib_finding *f = &fa->findings[i];
        if ((unsigned)f->kind >= IB_FIND_COUNT)
            continue;
        r->model.findings[f->kind]++;
        r->model.findings_total++;
        qp_trace_finding(r->traces, f);
        r->renderer->finding(r->rstate, &r->model, f);
        if (r->observer)
            r->observer(r->observer_ctx, &r->model, f);
    }
}

/* The not_delivered findings whose window closed before now_ns. */
static void fabric_due(struct run *r, int64_t now_ns)
{
    struct ib_frame_analysis fa;
    fa.dropped = 0;
    while ((fa.count = (unsigned)ib_fabric_due(r->fabric, now_ns, fa.findings,
                                               IB_FRAME_FINDINGS_MAX)) > 0) {
        unsigned kept = 0;
        for (unsigned i = 0; i < fa.count; i++)
            if (ib_engine_count_finding(r->engine, fa.findings[i].kind))
                fa.findings[kept++] = fa.findings[i];
        fa.count = kept;
        on_findings(r, &fa);
    }
}

static void note_time(struct report_model *m, int64_t t)
{
    if (!m->have_time) {
        m->have_time = true;
        m->first_ns = m->min_ns = m->max_ns = t;
    }
    m->last_ns = t;
    if (t < m->min_ns)
        m->min_ns = t;
    if (t > m->max_ns)
        m->max_ns = t;
}

void run_frame(struct run *r, const struct capture_frame *fr)
{
    struct ib_packet pkt;
    struct ib_frame_analysis fa;
    struct ib_frame_ref at = { fr->capture, fr->frame, fr->time_ns };
    /* CRCs a reader thread checked ahead are not checked again. */
    r->popts.verify_crc = r->opts->crc && !fr->crc;
    enum ib_frame_result res =
        ib_parse_frame(&r->popts, (uint32_t)fr->linktype, fr->data, fr->caplen, fr->wirelen, &pkt);
    if (res == IB_FRAME_IB && fr->crc)
        pkt.crc = *fr->crc;
    note_time(&r->model, fr->time_ns);
    r->model.frames++;
    if (r->fabric)
        fabric_due(r, fr->time_ns);
    if (res == IB_FRAME_IB) {
        struct report_capture *c = &r->model.captures[fr->capture];
        r->model.ib_frames++;
        c->ib_frames++;
        c->crc.icrc[pkt.crc.icrc]++;
        c->crc.vcrc[pkt.crc.vcrc]++;
    } else if (res == IB_FRAME_LINK_RECORD) {
        r->model.link_records++;
    } else if (res == IB_FRAME_NOT_IB && r->model.captures[fr->capture].ib_frames == 0) {
        /* what the capture holds instead, for an empty report's why */
        not_ib_frame(&r->not_ib[fr->capture], &r->popts, (uint32_t)fr->linktype, fr->data,
                     fr->caplen, fr->wirelen);
    }
    /* A packet another capture showed first was analysed there. */
    struct ib_frame_ref first;
    if (r->fabric && res == IB_FRAME_IB &&
        ib_fabric_packet(r->fabric, at, fr->data, fr->caplen, &pkt, &first))
        return;
    if (res == IB_FRAME_MAC_CONTROL) {
        r->model.mac_control_frames++;
        ib_engine_feed_mac_control(r->engine, at, &pkt, &fa);
    } else {
        ib_engine_feed(r->engine, at, res == IB_FRAME_IB ? &pkt : NULL, &fa);
    }
    if (fa.links.has_qp)
        qp_trace_frame(r->traces, at, &pkt, fa.links.qp);
    if (fa.count || fa.dropped)
        on_findings(r, &fa);
}

void run_advance(struct run *r, int64_t now_ns)
{
    if (!ib_engine_has_timers(r->engine))
        return;
    struct ib_frame_analysis fa;
    ib_engine_advance(r->engine, now_ns, &fa);
    if (fa.count || fa.dropped)
        on_findings(r, &fa);
}

int run_end(struct run *r, struct output_file *out)
{
    if (r->fabric)
        fabric_due(r, INT64_MAX);
    struct ib_frame_analysis fa;
    bool more;
    do {
        more = ib_engine_drain(r->engine, &fa);
        if (fa.count || fa.dropped)
            on_findings(r, &fa);
    } while (more);
    ib_engine_finish(r->engine);
    if (!report_model_summarize(&r->model, r->engine)) {
        fprintf(stderr, "ibscope: out of memory; no report written\n");
        output_abort(out);
        return 2;
    }
    qp_trace_report(r->traces, &r->model);
    int scratch_err = r->renderer->end(r->rstate, &r->model);
    r->rstate = NULL;
    char where[PRINTABLE_MAX];
    if (scratch_err && !ferror(out->fp)) {
        printable(temp_dir(), where, sizeof where);
        fprintf(stderr, "ibscope: scratch file in %s: %s; no report written\n", where,
                strerror(scratch_err));
        output_abort(out);
        return 2;
    }
    /* A renderer's error with a failed output is the output's (said by
     * the commit, with the errno of its first failed write). */
    return output_commit_or_say(out, "report") ? 0 : 2;
}

_Static_assert(REPORT_CAPTURE_ERROR_MAX == CAPTURE_ERROR_MAX, "a capture's error fits the model");

void run_capture_info(struct run *r, size_t i, const struct capture_info *ci)
{
    struct report_capture_file *f = &r->model.captures[i].info;
    *f = (struct report_capture_file){ .path = ci->path,
                                       .linktype = ci->linktype,
                                       .frames = ci->frames,
                                       .errors = ci->errors,
                                       .snaplen_cut = ci->snaplen_cut,
                                       .first_cut = ci->first_cut };
    memcpy(f->error, ci->error, sizeof f->error);
}

bool run_report_input_errors(const struct run *r)
{
    bool any = false;
    for (size_t i = 0; i < r->model.capture_count; i++) {
        const struct report_capture_file *f = &r->model.captures[i].info;
        struct capture_info ci = { .path = f->path,
                                   .snaplen_cut = f->snaplen_cut,
                                   .first_cut = f->first_cut };
        memcpy(ci.error, f->error, sizeof ci.error);
        any = capture_info_report(&ci, stderr) || any;
    }
    return any;
}

int run_exit_status(struct run *r, int status)
{
    const struct ib_engine_stats *es = ib_engine_stats(r->engine);
    bool fail_hit = false;
    for (int k = 0; k < IB_FIND_COUNT; k++)
        if (r->opts->fail_on[k] && (es->findings[k] > 0 || r->model.findings[k] > 0))
            fail_hit = true;
    /* A frame cut by the snaplen is malformed input to --fail-on, even where
     * what was captured parses whole. */
    for (size_t i = 0; i < r->model.capture_count; i++)
        if (r->opts->fail_on[IB_FIND_MALFORMED] && r->model.captures[i].info.snaplen_cut)
            fail_hit = true;
    if (es->allocation_failures) {
        fprintf(stderr,
                "ibscope: out of memory: %llu connections, transactions or chains were "
                "not tracked; the analysis is incomplete\n",
                (unsigned long long)es->allocation_failures);
        status = 2;
    }
    for (size_t i = 0; i < r->model.capture_count; i++) {
        const struct report_capture *c = &r->model.captures[i];
        if (c->info.frames > 0 && c->ib_frames == 0)
            not_ib_report(&r->not_ib[i], c->info.path, c->info.frames, stderr);
    }
    if (run_report_input_errors(r))
        status = 2;
    else if (status == 0 && fail_hit)
        status = 1;
    return status;
}

/* ---- the run behind live.h: its steps as the watch calls them ---- */

static bool live_begin(void *ctx, struct output_file *out, live_finding_fn observer,
                       void *observer_ctx)
{
    struct run *r = ctx;
    r->observer = observer;
    r->observer_ctx = observer_ctx;
    return run_begin(r, out);
}

static void live_frame(void *ctx, const struct capture_frame *fr)
{
    run_frame(ctx, fr);
}

static void live_advance(void *ctx, int64_t now_ns)
{
    run_advance(ctx, now_ns);
}

static void live_not_ib(void *ctx, uint16_t *other_port, bool *iwarp)
{
    const struct not_ib *n = &((struct run *)ctx)->not_ib[0];
    *other_port = n->roce ? n->other_port : 0;
    *iwarp = n->iwarp > 0;
}

static int live_end(void *ctx, struct output_file *out)
{
    return run_end(ctx, out);
}

static int live_exit_status(void *ctx, int status)
{
    return run_exit_status(ctx, status);
}

int run_live(const struct options *opts, const char *version)
{
    struct live_settings s = {
        .iface = opts->live,
        .filter = opts->filter,
        .rocev2_port = opts->rocev2_port,
        .duration_s = opts->duration_s,
        .max_frames = opts->max_frames,
        .write_path = opts->write_path,
        .output = opts->output,
        .text_report = opts->format == FORMAT_TEXT,
        .jsonl_report = opts->format == FORMAT_JSONL,
    };
    struct run r;
    if (!run_init(&r, opts, version, 1))
        return 2;
    struct live_analysis a = {
        &r,           &r.model,    r.engine, live_begin,       live_frame,
        live_advance, live_not_ib, live_end, live_exit_status,
    };
    int status = live_run(&s, &a);
    run_free(&r);
    return status;
}
