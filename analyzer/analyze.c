/* analyze.c - drives reader, parser, engine and renderer over a run. */
#include "analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "capture_reader.h"
#include "input_guard.h"
#include "output_file.h"
#include "packet.h"
#include "printable.h"
#include "progress.h"
#include "report_model.h"
#include "temp_file.h"

struct run {
    const struct options *opts;
    const struct report_renderer *renderer;
    void *rstate;
    struct report_model model;
    bool fail_hit;
};

static void on_connection(void *ctx, const struct ib_connection_record *rec)
{
    struct run *r = ctx;
    r->model.connections_listed++;
    r->renderer->connection(r->rstate, &r->model, rec);
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
        r->renderer->finding(r->rstate, &r->model, f);
    }
}

static const struct report_renderer *renderer_for(enum report_format f)
{
    switch (f) {
    case FORMAT_JSON: return &report_json;
    case FORMAT_JSONL: return &report_jsonl;
    case FORMAT_CSV: return &report_csv;
    case FORMAT_TEXT:
    default: return &report_text;
    }
}

/* Reads every frame through the engine; counts per capture. */
static void read_all(struct run *r, struct capture_set *set, struct ib_engine *engine)
{
    struct ib_parse_opts popts;
    struct capture_frame fr;
    struct progress prog;
    static struct ib_packet pkt;        /* large; one is enough */
    static struct ib_frame_analysis fa;
    ib_parse_opts_init(&popts);
    popts.is_mad_qp = ib_engine_is_mad_qp;
    popts.ctx = engine;
    popts.verify_crc = r->opts->crc;
    progress_init(&prog, r->opts->progress);
    while (capture_set_next(set, &fr)) {
        struct ib_frame_ref at = { fr.capture, fr.frame, fr.time_ns };
        enum ib_frame_result res =
            ib_parse_frame(&popts, (uint32_t)fr.linktype, fr.data, fr.caplen, fr.wirelen, &pkt);
        if (!r->model.have_time) {
            r->model.have_time = true;
            r->model.first_ns = r->model.min_ns = r->model.max_ns = fr.time_ns;
        }
        r->model.last_ns = fr.time_ns;
        if (fr.time_ns < r->model.min_ns)
            r->model.min_ns = fr.time_ns;
        if (fr.time_ns > r->model.max_ns)
            r->model.max_ns = fr.time_ns;
        r->model.frames++;
        if (res == IB_FRAME_IB) {
            struct report_capture *c = &r->model.captures[fr.capture];
            r->model.ib_frames++;
            c->ib_frames++;
            c->crc.icrc[pkt.crc.icrc]++;
            c->crc.vcrc[pkt.crc.vcrc]++;
        } else if (res == IB_FRAME_LINK_RECORD) {
            r->model.link_records++;
        }
        ib_engine_feed(engine, at, res == IB_FRAME_IB ? &pkt : NULL, &fa);
        if (fa.count || fa.dropped)
            on_findings(r, &fa);
        if ((r->model.frames & 0xFFF) == 0) {
            uint64_t done, total;
            capture_set_position(set, &done, &total);
            progress_update(&prog, r->model.frames, done, total);
        }
    }
    progress_finish(&prog);
}

/* One line per problem file: "ibscope: FILE: problem".  True if any. */
static bool report_input_errors(const struct report_model *m)
{
    bool any = false;
    for (size_t i = 0; i < m->capture_count; i++)
        any = capture_info_report(&m->captures[i].info, stderr) || any;
    return any;
}

/* Captures are read side by side (a time-ordered merge), so each holds a
 * descriptor for the whole run.  The soft limit is raised as far as the
 * hard one allows; past that the run stops before reading anything. */
#define FDS_RESERVED 32 /* standard streams, output, scratch files */

static bool enough_descriptors(size_t captures)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return true;
    rlim_t need = (rlim_t)captures + FDS_RESERVED;
    if (need <= rl.rlim_cur)
        return true;
    if (rl.rlim_max == RLIM_INFINITY || need <= rl.rlim_max) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            return true;
    }
    fprintf(stderr,
            "ibscope: %zu captures are read at once and need %llu open files, but the limit "
            "is %llu (ulimit -n); raise it, or analyse fewer at a time and merge the "
            "reports\n",
            captures, (unsigned long long)need,
            (unsigned long long)(rl.rlim_max == RLIM_INFINITY ? rl.rlim_cur : rl.rlim_max));
    return false;
}

/* Renders the report into out, which is then committed or abandoned. */
static int render(struct run *r, struct capture_set *set, struct ib_engine *engine,
                  struct output_file *out)
{
    r->rstate = r->renderer->begin(&r->model, out->fp);
    if (!r->rstate) {
        fprintf(stderr, "ibscope: out of memory\n");
        output_abort(out);
        return 2;
    }
    if (r->opts->connections)
        ib_engine_set_connection_sink(engine, on_connection, r);
    read_all(r, set, engine);
    ib_engine_finish(engine);
    for (size_t i = 0; i < r->model.capture_count; i++)
        r->model.captures[i].info = *capture_set_info(set, i);
    int scratch_err = r->renderer->end(r->rstate, &r->model);
    char where[PRINTABLE_MAX];
    if (scratch_err && !ferror(out->fp)) {
        printable(temp_dir(), where, sizeof where);
        fprintf(stderr, "ibscope: scratch file in %s: %s; no report written\n", where,
                strerror(scratch_err));
        output_abort(out);
        return 2;
    }
    bool atomic = out->atomic;
    int err = output_commit(out);
    if (err || scratch_err) {
        printable(out->path, where, sizeof where);
        fprintf(stderr, "ibscope: %s: %s%s\n", where, strerror(err ? err : EIO),
                atomic ? "; no report written (a file already there is unchanged)" : "");
        return 2;
    }
    return 0;
}

int analyze_run(const struct options *opts, const char *version)
{
    if (!input_guard_check(opts->captures, opts->capture_count, opts->output,
                           opts->allow_duplicate_inputs) ||
        !enough_descriptors(opts->capture_count))
        return 2;

    struct run r;
    memset(&r, 0, sizeof(r));
    r.opts = opts;
    r.renderer = renderer_for(opts->format);
    r.model.opts = opts;
    r.model.version = version;
    r.model.capture_count = opts->capture_count;

    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = opts->pool_low;
    cfg.pool_high = opts->pool_high;
    cfg.threshold_pct = opts->threshold_pct;

    int status = 2;
    struct output_file out;
    struct capture_set *set = capture_set_open(opts->captures, opts->capture_count);
    r.model.captures = calloc(opts->capture_count, sizeof(*r.model.captures));
    struct ib_engine *engine = ib_engine_new(&cfg);
    if (!set || !r.model.captures || !engine) {
        fprintf(stderr, "ibscope: out of memory\n");
        goto done;
    }
    r.model.engine = engine;
    bool any_open = false;
    for (size_t i = 0; i < opts->capture_count; i++) {
        r.model.captures[i].info = *capture_set_info(set, i);
        any_open |= r.model.captures[i].info.opened;
    }
    if (!any_open) { /* nothing to report on: only the errors */
        report_input_errors(&r.model);
        goto done;
    }
    int err = output_open(&out, opts->output);
    if (err) {
        char path[PRINTABLE_MAX];
        printable(opts->output, path, sizeof path);
        fprintf(stderr, "ibscope: %s: %s\n", path, strerror(err));
        goto done;
    }
    /* Reports can be hundreds of megabytes (--connections): big blocks. */
    setvbuf(out.fp, NULL, _IOFBF, 1 << 20);
    status = render(&r, set, engine, &out);

    const struct ib_engine_stats *es = ib_engine_stats(engine);
    for (int k = 0; k < IB_FIND_COUNT; k++)
        if (opts->fail_on[k] && (es->findings[k] > 0 || r.model.findings[k] > 0))
            r.fail_hit = true;
    if (es->allocation_failures) {
        fprintf(stderr, "ibscope: out of memory: %llu connections, transactions or chains were "
                        "not tracked; the analysis is incomplete\n",
                (unsigned long long)es->allocation_failures);
        status = 2;
    }
    if (report_input_errors(&r.model))
        status = 2;
    else if (status == 0 && r.fail_hit)
        status = 1;
done:
    capture_set_close(set);
    if (engine)
        ib_engine_free(engine);
    free(r.model.captures);
    return status;
}
