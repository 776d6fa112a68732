/* live.c - the live run: poll the interface, feed the analysis, redraw. */
#include "live.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live_capture.h"
#include "live_hint.h"
#include "live_view.h"
#include "output_file.h"
#include "pcapng_writer.h"
#include "printable.h"

#define REDRAW_NS    1000000000LL /* the status block, about once a second */
#define BATCH_FRAMES 4096         /* frames between looks at the clock */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

/* A clock's time in nanoseconds: CLOCK_MONOTONIC for the watch's own
 * pace, CLOCK_REALTIME for the frames' (the kernel stamps them with the
 * wall clock). */
static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* A frame reaches the analysis up to a capture timeout and a batch after
 * its timestamp: timers are run this far behind the clock, so that no frame
 * still on its way is older than the time they ran at. */
#define FRAME_LAG_NS (1000000000LL)

struct live {
    const struct live_settings *settings;
    const struct live_analysis *analysis;
    struct live_capture *cap;
    struct live_view view;
    struct pcapng_writer *save;
    struct output_file view_out; /* standard output, when only the view writes there */
    bool view_out_open;
    int64_t started, last_draw;
    uint64_t frames_at_last_draw;
    double frames_per_second; /* over the last tick */
    const char *ended_by;
    char rdma_dev[64]; /* the RDMA NIC the interface is a port of, or "" */
};

/* The status view's "no RoCE yet" line comes after this long without any. */
#define QUIET_NS (5 * 1000000000LL)

static void on_frame(void *ctx, const struct capture_frame *fr)
{
    struct live *l = ctx;
    if (l->save)
        pcapng_writer_frame(l->save, fr->time_ns, fr->data, fr->caplen, fr->wirelen);
    l->analysis->model->captures[0].info.frames++;
    if (fr->caplen < fr->wirelen) {
        struct report_capture_file *ci = &l->analysis->model->captures[0].info;
        if (!ci->snaplen_cut++)
            ci->first_cut = fr->frame;
        ci->errors++;
    }
    l->analysis->frame(l->analysis->ctx, fr);
}

static void on_finding(void *ctx, const struct report_model *m, const struct ib_finding *f)
{
    live_view_finding(ctx, m, f);
}

/* Redraws the status block.  A tick (once a second) also measures the
 * frame rate over the second past; between ticks the block is redrawn
 * only to come back under new finding lines. */
static void draw(struct live *l, int64_t now, bool tick)
{
    if (tick) {
        int64_t span = now - l->last_draw;
        uint64_t frames = l->analysis->model->frames;
        l->frames_per_second =
            span > 0 ? (double)(frames - l->frames_at_last_draw) * 1e9 / (double)span : 0;
        l->last_draw = now;
        l->frames_at_last_draw = frames;
        if (l->save)
            pcapng_writer_flush(l->save);
    }
    char why[PRINTABLE_MAX];
    struct live_quiet q = {
        .iface = l->settings->iface,
        .rdma_dev = l->rdma_dev[0] ? l->rdma_dev : NULL,
        .default_filter = !l->settings->filter,
        .frames = l->analysis->model->frames,
    };
    l->analysis->not_ib(l->analysis->ctx, &q.other_port, &q.iwarp);
    live_quiet_hint(&q, why, sizeof why);
    bool quiet = l->analysis->model->ib_frames == 0 && now - l->started >= QUIET_NS;
    struct live_view_status st = {
        .quiet = quiet ? why : NULL,
        .iface = l->settings->iface,
        .filter = l->settings->filter ? live_capture_filter(l->cap) : "RoCE, the default filter",
        .elapsed_ns = now - l->started,
        .frames_per_second = l->frames_per_second,
        .engine = l->analysis->engine,
    };
    live_capture_stats(l->cap, &st.kernel);
    live_view_draw(&l->view, l->analysis->model, &st);
}

/* Polls and reads until a signal, --duration or --count ends the watch.
 * Returns 0, or 2 when the capture failed (said on stderr). */
static int watch(struct live *l)
{
    const struct live_settings *o = l->settings;
    int64_t end = o->duration_s > 0 ? l->started + (int64_t)(o->duration_s * 1e9) : INT64_MAX;
    struct pollfd pfd = { .fd = live_capture_fd(l->cap), .events = POLLIN };
    char err[LIVE_CAPTURE_ERROR_MAX];
    for (;;) {
        int64_t now = now_ns();
        if (stop_signal) {
            l->ended_by = stop_signal == SIGINT    ? "SIGINT"
                          : stop_signal == SIGTERM ? "SIGTERM"
                                                   : "SIGHUP";
            return 0;
        }
        if (now >= end) {
            l->ended_by = "--duration";
            return 0;
        }
        if (o->max_frames && l->analysis->model->frames >= o->max_frames) {
            l->ended_by = "--count";
            return 0;
        }
        if (now - l->last_draw >= REDRAW_NS) {
            l->analysis->advance(l->analysis->ctx, clock_ns(CLOCK_REALTIME) - FRAME_LAG_NS);
            draw(l, now, true);
        } else if (live_view_needs_redraw(&l->view))
            draw(l, now, false);
        int64_t wait = l->last_draw + REDRAW_NS - now;
        if (end - now < wait)
            wait = end - now;
        int ms = (int)(wait / 1000000) + 1;
        if (poll(&pfd, 1, ms) < 0 && errno != EINTR) {
            fprintf(stderr, "ibscope: %s: poll: %s\n", o->iface, strerror(errno));
            return 2;
        }
        /* Read what is there even without POLLIN: libpcap may hold frames
         * of a block it has already taken from the ring. */
        int batch = BATCH_FRAMES;
        if (o->max_frames && o->max_frames - l->analysis->model->frames < (uint64_t)batch)
            batch = (int)(o->max_frames - l->analysis->model->frames);
        if (live_capture_dispatch(l->cap, batch, on_frame, l, err) < 0) {
            fprintf(stderr, "ibscope: %s: %s\n", o->iface, err);
            l->ended_by = "a capture error";
            return 2;
        }
    }
}

/* Where the finding lines and the status block go: the terminal or
 * stream the report is not written to.  jsonl on standard output carries
 * the findings itself; a view there would break its lines.  On standard
 * output the view writes through an output of its own (output_file.h), or
 * the text report's, so that its write errors are found too.  False when
 * standard output cannot be opened (said). */
static bool choose_view(struct live *l, struct output_file *report)
{
    const struct live_settings *o = l->settings;
    bool report_on_stdout = report->kind == OUTPUT_STDOUT;
    if (report_on_stdout && !o->text_report) {
        if (isatty(STDOUT_FILENO) || o->jsonl_report)
            live_view_init(&l->view, stderr, STDERR_FILENO,
                           isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO), false);
        else
            live_view_init(&l->view, stderr, STDERR_FILENO, isatty(STDERR_FILENO), true);
        return true;
    }
    FILE *out = report->fp;
    if (!report_on_stdout) {
        if (!output_open_or_say(&l->view_out, NULL))
            return false;
        l->view_out_open = true;
        out = l->view_out.fp;
    }
    live_view_init(&l->view, out, STDOUT_FILENO, isatty(STDOUT_FILENO), true);
    return true;
}

/* -w and -o must not be one file: the report would replace the frames. */
static bool save_is_output(const struct live_settings *o)
{
    struct stat a, b;
    return o->write_path && o->output && stat(o->write_path, &a) == 0 && stat(o->output, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static bool open_save(struct live *l)
{
    const struct live_settings *o = l->settings;
    if (!o->write_path)
        return true;
    int err = 0;
    char path[PRINTABLE_MAX];
    printable(o->write_path, path, sizeof path);
    l->save = pcapng_writer_open(o->write_path, live_capture_linktype(l->cap), LIVE_CAPTURE_SNAPLEN,
                                 o->iface, &err);
    if (!l->save) {
        fprintf(stderr, "ibscope: %s: %s%s\n", path, strerror(err),
                err == EEXIST ? "; -w writes a new capture and never replaces one" : "");
        return false;
    }
    if (save_is_output(o)) {
        fprintf(stderr, "ibscope: %s: -w and -o name the same file\n", path);
        pcapng_writer_close(l->save);
        unlink(o->write_path);
        l->save = NULL;
        return false;
    }
    return true;
}

static int close_save(struct live *l)
{
    if (!l->save)
        return 0;
    int err = pcapng_writer_close(l->save);
    l->save = NULL;
    if (err) {
        char path[PRINTABLE_MAX];
        printable(l->settings->write_path, path, sizeof path);
        fprintf(stderr, "ibscope: %s: %s; the saved capture is incomplete\n", path, strerror(err));
        return 2;
    }
    return 0;
}

/* The capture's entry in the report: the interface, its filter, the
 * kernel's counts and how the watch ended. */
static void describe_capture(struct live *l)
{
    struct report_capture *c = &l->analysis->model->captures[0];
    struct live_capture_stats ks;
    live_capture_stats(l->cap, &ks);
    c->info.path = l->settings->iface;
    c->info.linktype = live_capture_linktype(l->cap);
    c->live.on = true;
    c->live.filter = live_capture_filter(l->cap);
    c->live.default_filter = !l->settings->filter && c->live.filter[0];
    c->live.received = ks.received;
    c->live.dropped = ks.dropped;
    c->live.if_dropped = ks.if_dropped;
    c->live.ended_by = l->ended_by;
}

/* Like tcpdump's "listening on": the capture is live from here on. */
static void say_watching(const struct live *l)
{
    char iface[PRINTABLE_MAX];
    printable(l->settings->iface, iface, sizeof iface);
    fprintf(stderr, "ibscope: watching %s (%s); Ctrl-C ends it with the report\n", iface,
            l->settings->filter ? "--filter" : "default RoCE filter");
    if (l->rdma_dev[0])
        fprintf(stderr,
                "ibscope: note: %s is a port of RDMA device %s: RoCE the NIC offloads does not "
                "pass through the kernel, so this watch sees none of it (docs/live.md, "
                "Capturing on real hardware)\n",
                iface, l->rdma_dev);
    fflush(stderr);
}

/* Drops are never hidden: a last line on stderr, whatever the format. */
static void say_drops(const struct live *l)
{
    const struct report_capture *c = &l->analysis->model->captures[0];
    char iface[PRINTABLE_MAX];
    printable(l->settings->iface, iface, sizeof iface);
    fprintf(stderr,
            "ibscope: %s: %llu frames, ended by %s; dropped: kernel %llu, "
            "interface %llu\n",
            iface, (unsigned long long)l->analysis->model->frames, l->ended_by ? l->ended_by : "-",
            (unsigned long long)c->live.dropped, (unsigned long long)c->live.if_dropped);
}

int live_run(const struct live_settings *s, const struct live_analysis *a)
{
    struct live l;
    memset(&l, 0, sizeof l);
    l.settings = s;
    l.analysis = a;
    char err[LIVE_CAPTURE_ERROR_MAX];
    struct live_capture_config cfg = { s->iface, s->filter, s->rocev2_port };
    l.cap = live_capture_open(&cfg, err);
    if (!l.cap) {
        char safe[LIVE_CAPTURE_ERROR_MAX * 4];
        printable(err, safe, sizeof safe);
        fprintf(stderr, "ibscope: %s\n", safe);
        return 2;
    }
    int status = 2;
    struct output_file out;
    if (!output_open_or_say(&out, s->output))
        goto done;
    if (!open_save(&l)) {
        output_abort(&out);
        goto done;
    }
    describe_capture(&l);
    /* SIGINT, SIGTERM and SIGHUP end the watch and the report is still
     * written: after output_open, whose handlers would end the process. */
    output_catch_end_signals(on_stop);
    if (!choose_view(&l, &out)) {
        output_abort(&out);
        goto done;
    }
    if (!a->begin(a->ctx, &out, on_finding, &l.view))
        goto done;
    if (!live_rdma_device(LIVE_SYS_NET, s->iface, l.rdma_dev, sizeof l.rdma_dev))
        l.rdma_dev[0] = '\0';
    say_watching(&l);
    l.started = l.last_draw = now_ns();
    draw(&l, l.started, true);
    int watch_status = watch(&l);
    /* Watched until now, not only until the last frame: what the timers
     * had given up by then (a count of frames ends the watch at its last). */
    if (watch_status == 0 && strcmp(l.ended_by, "--count") != 0)
        a->advance(a->ctx, clock_ns(CLOCK_REALTIME) - FRAME_LAG_NS);
    live_view_clear(&l.view);
    describe_capture(&l);
    int save_status = close_save(&l);
    say_drops(&l);
    status = a->end(a->ctx, &out);
    /* After the report: the view's commit, like any, stops the signals. */
    if (l.view_out_open) {
        l.view_out_open = false;
        if (!output_commit_or_say(&l.view_out, NULL))
            status = 2;
    }
    if (watch_status || save_status)
        status = 2;
    status = a->exit_status(a->ctx, status);
done:
    if (l.view_out_open)
        output_abort(&l.view_out);
    if (l.save)
        close_save(&l);
    live_capture_close(l.cap);
    return status;
}
