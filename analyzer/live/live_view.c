/* live_view.c - finding lines and the redrawn status block.
 *
 * The block is redrawn in place with two ANSI controls only: cursor up
 * (CSI n A) and erase to the end of the screen (CSI J), which every
 * terminal emulator and tmux know.  Lines are cut to the terminal's width
 * so that none wraps and the count of lines to go back up stays right. */
#include "live_view.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ipcm.h"
#include "names.h"
#include "printable.h"
#include "report_format.h"
#include "text_wrap.h"

#define LINE_MAX_BYTES 512
#define FINDING_INDENT 13 /* under the text, past "HH:MM:SS.mmm " */

void live_view_init(struct live_view *v, FILE *out, int fd, bool terminal, bool finding_lines)
{
    memset(v, 0, sizeof(*v));
    v->out = out;
    v->fd = fd;
    v->terminal = terminal;
    v->finding_lines = finding_lines;
}

void live_view_clear(struct live_view *v)
{
    if (v->drawn)
        fprintf(v->out, "\r\033[%uA\033[J", v->drawn);
    v->drawn = 0;
    fflush(v->out);
}

/* "HH:MM:SS.mmm" of a frame's time, UTC like the reports. */
static void time_of_day(int64_t ns, char buf[16])
{
    int64_t ms = ns / 1000000 % 86400000;
    if (ms < 0)
        ms += 86400000;
    snprintf(buf, 16, "%02d:%02d:%02d.%03d", (int)(ms / 3600000), (int)(ms / 60000 % 60),
             (int)(ms / 1000 % 60), (int)(ms % 1000));
}

static unsigned terminal_width(const struct live_view *v)
{
    struct winsize ws;
    if (ioctl(v->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

void live_view_finding(struct live_view *v, const struct report_model *m,
                       const struct ib_finding *f)
{
    if (!v->finding_lines || (unsigned)f->kind >= IB_FIND_COUNT)
        return;
    char when[16], at[32], text[FINDING_TEXT_MAX], safe[FINDING_TEXT_MAX * 4];
    time_of_day(f->at.time_ns, when);
    fmt_frame(&f->at, m->capture_count, at, sizeof at);
    fmt_finding_text(f, m->capture_count, text, sizeof text);
    printable(text, safe, sizeof safe);
    if (v->terminal && v->drawn) { /* the line goes above the block */
        live_view_clear(v);
        v->cleared = true;
    }
    int head = fprintf(v->out, "%s frame %-6s %s %s: ", when, at, ib_finding_kind_name(f->kind),
                       ib_severity_name(f->severity));
    /* A log line stays one line; on a terminal it is wrapped under the text. */
    if (v->terminal)
        text_wrap(v->out, safe, head > 0 ? (size_t)head : 0, FINDING_INDENT, terminal_width(v));
    else
        fprintf(v->out, "%s\n", safe);
    fflush(v->out);
}

bool live_view_needs_redraw(const struct live_view *v)
{
    return v->cleared;
}

/* One line of the block, cut to the width (no line wraps). */
static void block_line(struct live_view *v, unsigned width, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void block_line(struct live_view *v, unsigned width, const char *fmt, ...)
{
    char line[LINE_MAX_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (strlen(line) >= width)
        line[width - 1] = '\0';
    fprintf(v->out, "%s\n", line);
    v->drawn++;
}

/* The indices of the sources with the most ports in use now (then the
 * highest peak), most first; returns how many. */
static size_t busiest_sources(const struct ib_engine *e, size_t top[LIVE_VIEW_SOURCES])
{
    size_t n = ib_engine_source_count(e), kept = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ib_source_stats *s = ib_engine_source(e, i);
        size_t at = kept;
        while (at > 0) {
            const struct ib_source_stats *t = ib_engine_source(e, top[at - 1]);
            if (t->ports_in_use > s->ports_in_use || (t->ports_in_use == s->ports_in_use &&
                                                      t->peak_ports_in_use >= s->peak_ports_in_use))
                break;
            at--;
        }
        if (at >= LIVE_VIEW_SOURCES)
            continue;
        size_t last = kept < LIVE_VIEW_SOURCES ? kept : LIVE_VIEW_SOURCES - 1;
        memmove(&top[at + 1], &top[at], (last - at) * sizeof top[0]);
        top[at] = i;
        if (kept < LIVE_VIEW_SOURCES)
            kept++;
    }
    return kept;
}

static void draw_findings(struct live_view *v, unsigned width, const struct report_model *m)
{
    char line[LINE_MAX_BYTES] = "findings:";
    size_t len = strlen(line);
    bool any = false;
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        if (!m->findings[k])
            continue;
        int n = snprintf(line + len, sizeof line - len, "%s %s %" PRIu64, any ? "," : "",
                         ib_finding_kind_name((enum ib_finding_kind)k), m->findings[k]);
        if (n < 0 || (size_t)n >= sizeof line - len)
            break;
        len += (size_t)n;
        any = true;
    }
    block_line(v, width, "%s", any ? line : "findings: none yet");
}

/* When source i's pool runs out, the sooner model's, as of the latest frame
 * (now_ns): the window slides on while a source is quiet. */
static void runs_out_in(const struct ib_engine *e, int64_t now_ns, size_t i, char *buf, size_t size)
{
    struct ib_forecast fc[IB_MODEL_COUNT];
    enum ib_pool_model model = IB_MODEL_ONE_PORT;
    ib_engine_source_forecast(e, i, now_ns, fc);
    if (ib_forecast_soonest(fc, &model))
        ib_format_time_left(fc[model].eta_s, buf, size);
    else
        snprintf(buf, size, "-");
}

/* Its host's name or first address, and "+N" for the other addresses of
 * a host of several (the report lists them). */
static void source_label(const struct ib_source_stats *s, char *buf, size_t size)
{
    char name[PRINTABLE_MAX];
    fmt_source_label(s, name, sizeof name);
    if (s->address_count > 1)
        snprintf(buf, size, "%s +%" PRIu32, name, s->address_count - 1);
    else
        snprintf(buf, size, "%s", name);
}

static void draw_sources(struct live_view *v, unsigned width, const struct ib_engine *e,
                         int64_t now_ns)
{
    const struct ib_engine_config *cfg = ib_engine_get_config(e);
    double pool = ib_engine_pool_size(e);
    size_t top[LIVE_VIEW_SOURCES];
    size_t n = busiest_sources(e, top);
    block_line(v, width,
               "port pool %u-%u (%.0f ports), pool_high %g%%, forecast %g s; %zu source%s",
               (unsigned)cfg->pool_low, (unsigned)cfg->pool_high, pool, cfg->threshold_pct,
               cfg->forecast_horizon_s, ib_engine_source_count(e),
               ib_engine_source_count(e) == 1 ? "" : "s");
    if (n == 0)
        return;
    block_line(v, width, "  %-18s %-5s | %-20s | %-13s |", "", "", "one port each",
               "per destination");
    /* each % says what it is a share of the pool of: ports in use now, or
     * the peak of the per-destination model */
    block_line(v, width, "  %-18s %-5s | %6s %6s %6s | %6s %6s | %s", "source", "space", "now",
               "peak", "now%", "peak", "peak%", "runs out in");
    for (size_t i = 0; i < n; i++) {
        const struct ib_source_stats *s = ib_engine_source(e, top[i]);
        char ip[PRINTABLE_MAX + 16], ps[PORT_SPACE_BUF], left[24];
        source_label(s, ip, sizeof ip);
        fmt_port_space(s->port_space, ps);
        runs_out_in(e, now_ns, top[i], left, sizeof left);
        block_line(v, width,
                   "  %-18s %-5s | %6" PRIu32 " %6" PRIu32 " %5.1f%s | %6" PRIu32 " %5.1f%s | %11s",
                   ip, ps, s->ports_in_use, s->peak_ports_in_use, 100.0 * s->ports_in_use / pool,
                   s->exhausted ? "!" : " ", s->peak_ports_per_destination,
                   100.0 * s->peak_ports_per_destination / pool,
                   s->exhausted_per_destination ? "!" : " ", left);
    }
}

void live_view_draw(struct live_view *v, const struct report_model *m,
                    const struct live_view_status *st)
{
    if (!v->terminal)
        return;
    unsigned width = terminal_width(v);
    char iface[PRINTABLE_MAX], filter[PRINTABLE_MAX], elapsed[32];
    printable(st->iface, iface, sizeof iface);
    printable(st->filter[0] ? st->filter : "no filter", filter, sizeof filter);
    snprintf(elapsed, sizeof elapsed, "%" PRId64 " s", st->elapsed_ns / 1000000000);
    live_view_clear(v);
    v->cleared = false;
    block_line(v, width, "-- ibscope live on %s (%s), %s --", iface, filter, elapsed);
    block_line(v, width,
               "frames %" PRIu64 " (InfiniBand %" PRIu64 "), %.0f/s; dropped: kernel %" PRIu64
               ", interface %" PRIu64,
               m->frames, m->ib_frames, st->frames_per_second, st->kernel.dropped,
               st->kernel.if_dropped);
    if (st->quiet)
        block_line(v, width, "no RoCE yet: %s", st->quiet);
    draw_findings(v, width, m);
    draw_sources(v, width, st->engine, m->max_ns);
    fflush(v->out);
}
