/* report_html.c - the HTML report: one self-contained page with charts.
 *
 * Inline CSS and SVG, and a small inline script that sorts and filters the
 * findings table (the page reads without it); nothing is fetched.  Fed like
 * every renderer: findings, connection records, the changes of each
 * source's ports in use and the congestion events (CE, CNP, pauses) as they
 * happen, the model at the end.  What it
 * keeps is bounded: each series is SERIES_COLUMNS columns (time_series.h),
 * the sources charted and the findings listed are capped, and the page says
 * how many were left out.  Every figure carries data-* attributes with the
 * numbers it shows, so that a test can read them back from the DOM.
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_congestion.h"
#include "html_transport.h"
#include "html_wire.h"
#include "html_writer.h"
#include "names.h"
#include "printable.h"
#include "report_format.h"
#include "report_model.h"
#include "time_series.h"

/* What the page holds, so that it opens in a browser within 2 s however
 * big the capture (measured: 1,000 sources and 40,000 findings, docs/
 * html-report.md): the series of the first 256 sources seen are kept, the
 * 48 of them with the highest peaks are charted, and the findings table
 * lists the first HTML_FINDINGS_LISTED findings.  Everything is in the
 * tables and counts. */
#define HTML_SOURCES_KEPT    256
#define HTML_SOURCES_CHARTED 48
#define HTML_CHAIN_MARKS     4096 /* chain findings remembered to colour hops */
#define LATENCY_BUCKETS      24   /* < 1 us, then one per power of two of us */

struct listed_finding {
    struct ib_frame_ref at;
    enum ib_finding_kind kind;
    enum ib_severity severity;
    char *message;
};

/* A finding about a redirect chain: which hop (by frame) it marks. */
struct chain_mark {
    uint32_t chain;
    enum ib_finding_kind kind;
    uint64_t frame, related;
    uint32_t capture;
};

struct source_usage {
    bool seen;
    struct series one, per_destination;
};

#define HTML_SEEN_SETS 32 /* distinct "seen at" sets counted; the rest together */

struct html_state {
    FILE *out;
    struct series kinds[IB_FIND_COUNT];
    struct listed_finding *listed;
    size_t listed_count;
    uint64_t not_listed;
    struct chain_mark *marks;
    size_t mark_count;
    struct source_usage *sources; /* HTML_SOURCES_KEPT of them */
    uint64_t req_rep[LATENCY_BUCKETS], req_rtu[LATENCY_BUCKETS];
    /* Captures correlated: connections by the captures that saw them. */
    struct seen_count {
        uint64_t mask, count;
    } seen[HTML_SEEN_SETS];
    size_t seen_sets;
    uint64_t seen_other;                /* in sets past HTML_SEEN_SETS */
    struct html_wire *wire;             /* the findings that mark settings */
    struct html_congestion *congestion; /* CE, CNP and pauses over time */
};

static void html_state_free(struct html_state *st)
{
    free(st->listed);
    free(st->marks);
    free(st->sources);
    html_wire_free(st->wire);
    html_congestion_free(st->congestion);
    free(st);
}

/* ---- streaming ---- */

static void *html_begin(const struct report_model *m, FILE *out)
{
    (void)m;
    struct html_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->out = out;
    st->listed = calloc(HTML_FINDINGS_LISTED, sizeof *st->listed);
    st->marks = calloc(HTML_CHAIN_MARKS, sizeof *st->marks);
    st->sources = calloc(HTML_SOURCES_KEPT, sizeof *st->sources);
    st->wire = html_wire_new();
    st->congestion = html_congestion_new();
    if (!st->listed || !st->marks || !st->sources || !st->wire || !st->congestion) {
        html_state_free(st);
        return NULL;
    }
    for (int k = 0; k < IB_FIND_COUNT; k++)
        series_init(&st->kinds[k], SERIES_COUNT);
    return st;
}

/* A shape for each severity, so they stay apart without colour: the
 * report's, which may use the core, not html_writer's. */
static const char *html_severity_mark(enum ib_severity s)
{
    /* A shape beside each colour, so severities stay apart in grayscale. */
    switch (s) {
    case IB_SEV_ERROR: return "\xe2\x96\xa0"; /* black square */
    case IB_SEV_WARN: return "\xe2\x96\xb2";  /* black triangle */
    case IB_SEV_NOTE: return "\xe2\x97\x8f";  /* black circle */
    default: return "\xe2\x97\x8b";           /* white circle */
    }
}

static bool marks_chain(enum ib_finding_kind k)
{
    return k == IB_FIND_REDIRECT_BAD_TARGET || k == IB_FIND_REDIRECT_KEY_MISMATCH ||
           k == IB_FIND_REDIRECT_LOOP;
}

static void html_finding(void *p, const struct report_model *m, const struct ib_finding *f)
{
    struct html_state *st = p;
    html_transport_finding(st->kinds, f);
    html_wire_finding(st->wire, f);
    series_count(&st->kinds[f->kind], f->at.time_ns, 1);
    if (st->listed_count < HTML_FINDINGS_LISTED) {
        char msg[FINDING_TEXT_MAX];
        fmt_finding_text(f, m->capture_count, msg, sizeof msg);
        struct listed_finding *l = &st->listed[st->listed_count];
        l->message = strdup(msg);
        if (l->message) {
            l->at = f->at;
            l->kind = f->kind;
            l->severity = f->severity;
            st->listed_count++;
        } else {
            st->not_listed++;
        }
    } else {
        st->not_listed++;
    }
    if (marks_chain(f->kind) && f->data.has_chain && st->mark_count < HTML_CHAIN_MARKS)
        st->marks[st->mark_count++] = (struct chain_mark){ f->data.chain, f->kind, f->at.frame,
                                                           f->related.frame, f->at.capture };
}

static unsigned latency_bucket(int64_t ns)
{
    unsigned b = 0;
    for (int64_t us = ns / 1000; us >= 1 && b < LATENCY_BUCKETS - 1; us /= 2)
        b++;
    return b;
}

static void count_seen_at(struct html_state *st, uint64_t mask)
{
    for (size_t i = 0; i < st->seen_sets; i++)
        if (st->seen[i].mask == mask) {
            st->seen[i].count++;
            return;
        }
    if (st->seen_sets == HTML_SEEN_SETS) {
        st->seen_other++;
        return;
    }
    st->seen[st->seen_sets].mask = mask;
    st->seen[st->seen_sets++].count = 1;
}

static void html_connection(void *p, const struct report_model *m,
                            const struct ib_connection_record *rec)
{
    struct html_state *st = p;
    if (m->fabric)
        count_seen_at(st, rec->seen_at);
    if (!rec->req.frame)
        return;
    if (rec->rep.frame && rec->rep.time_ns >= rec->req.time_ns)
        st->req_rep[latency_bucket(rec->rep.time_ns - rec->req.time_ns)]++;
    int64_t ns;
    if (report_connection_latency(rec, &ns) && ns >= 0)
        st->req_rtu[latency_bucket(ns)]++;
}

static void html_usage(void *p, const struct report_model *m, const struct ib_usage_change *u)
{
    struct html_state *st = p;
    (void)m;
    if (u->source >= HTML_SOURCES_KEPT)
        return;
    struct source_usage *s = &st->sources[u->source];
    if (!s->seen) {
        s->seen = true;
        series_init(&s->one, SERIES_LEVEL);
        series_init(&s->per_destination, SERIES_LEVEL);
    }
    series_level(&s->one, u->at.time_ns, u->ports_in_use);
    series_level(&s->per_destination, u->at.time_ns, u->destination_ports_in_use);
}

/* ---- the page ---- */

/* A source's name ("10.0.0.1 TCP") and the frames of its two peaks ("-"
 * for none), as the chart and the table show them. */
struct source_labels {
    char name[PRINTABLE_MAX + 16], peak[32], peak_per_destination[32];
};

static void source_labels(const struct report_model *m, const struct ib_source_stats *s,
                          struct source_labels *l)
{
    char ip[PRINTABLE_MAX], ps[PORT_SPACE_BUF];
    fmt_source_label(s, ip, sizeof ip);
    fmt_port_space(s->port_space, ps);
    snprintf(l->name, sizeof l->name, "%s %s", ip, ps);
    snprintf(l->peak, sizeof l->peak, "-");
    snprintf(l->peak_per_destination, sizeof l->peak_per_destination, "-");
    if (s->peak_at.frame)
        fmt_frame(&s->peak_at, m->capture_count, l->peak, sizeof l->peak);
    if (s->peak_per_destination_at.frame)
        fmt_frame(&s->peak_per_destination_at, m->capture_count, l->peak_per_destination,
                  sizeof l->peak_per_destination);
}

/* Under a source's name, when its host is more than its address: how its
 * addresses share the pool, and which they are. */
static void host_note(FILE *out, const struct ib_source_stats *s)
{
    if (!report_host_shown(s))
        return;
    char line[PRINTABLE_MAX + 1100];
    fmt_host_line(s, line, sizeof line);
    fputs("<div class=\"host\">", out);
    html_text(out, line);
    fputs("</div>", out);
}

/* A merge's host of an item, as a table cell. */
static void host_cell(FILE *out, const struct report_model *m, uint32_t host)
{
    if (!m->host_count)
        return;
    fputs("<td>", out);
    html_text(out, m->hosts[host].name);
    fputs("</td>", out);
}

/* Captures of several hosts: the clock cells of a capture's row. */
static void clock_cells(FILE *out, const struct report_capture *c)
{
    if (!c->clock_linked) {
        fputs("<td class=\"n\">-</td><td class=\"n\">-</td>", out);
        return;
    }
    fprintf(out,
            "<td class=\"n\" data-offset-ns=\"%" PRId64 "\">%+.6f ms</td>"
            "<td class=\"n\" data-error-ns=\"%" PRId64 "\">%.3f us</td>",
            c->clock_offset_ns, (double)c->clock_offset_ns / 1e6, c->clock_error_ns,
            (double)c->clock_error_ns / 1e3);
}

/* Management packets watched per direction, and those that never came. */
static void write_deliveries(FILE *out, const struct report_model *m)
{
    fprintf(out,
            "<p>Packets seen on two captures, counted once: %" PRIu64 ". Management "
            "packets not delivered within %lld ms:</p>\n<table id=\"deliveries\"><thead>"
            "<tr><th>from capture</th><th>to capture</th><th class=\"n\">watched</th>"
            "<th class=\"n\">not delivered</th></tr></thead><tbody>\n",
            ib_fabric_stats(m->fabric)->repeats, (long long)IB_DELIVERY_WINDOW_MS);
    for (size_t i = 0; i < ib_fabric_delivery_count(m->fabric); i++) {
        const struct ib_delivery *d = ib_fabric_delivery(m->fabric, i);
        fprintf(out,
                "<tr><td class=\"n\">%u</td><td class=\"n\">%u</td><td class=\"n\">%" PRIu64
                "</td><td class=\"n\">%" PRIu64 "</td></tr>\n",
                d->from, d->to, d->sent, d->not_delivered);
    }
    fputs("</tbody></table>\n", out);
}

static void write_captures(FILE *out, const struct report_model *m)
{
    fprintf(out,
            "<table><thead><tr><th>#</th>%s<th>capture</th><th>link type</th>"
            "<th class=\"n\">frames</th><th class=\"n\">InfiniBand frames</th>"
            "<th class=\"n\">errors</th>%s</tr></thead><tbody>\n",
            m->host_count ? "<th>host</th>" : "",
            m->fabric ? "<th class=\"n\">clock offset</th><th class=\"n\">error (+-)</th>" : "");
    for (size_t i = 0; i < m->capture_count; i++) {
        const struct report_capture *c = &m->captures[i];
        const char *lt = linktype_name(c->info.linktype);
        fprintf(out, "<tr data-capture=\"%zu\"><td class=\"n\">%zu</td>", i, i);
        host_cell(out, m, c->host);
        fputs("<td>", out);
        html_text(out, c->info.path);
        fprintf(out,
                "</td><td>%d %s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                "</td><td class=\"n\">%" PRIu64 "</td>",
                c->info.linktype, lt ? lt : "", c->info.frames, c->ib_frames, c->info.errors);
        if (m->fabric)
            clock_cells(out, c);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    if (m->fabric)
        write_deliveries(out, m);
}

/* Findings per kind; a merge's per host too. */
static void write_kinds(FILE *out, const struct report_model *m)
{
    fprintf(out, "<table id=\"kinds\"><thead><tr><th>finding kind</th><th>severity</th>"
                 "<th class=\"n\">count</th>");
    for (size_t h = 0; h < m->host_count; h++) {
        fputs("<th class=\"n\">", out);
        html_text(out, m->hosts[h].name);
        fputs("</th>", out);
    }
    fputs("</tr></thead><tbody>\n", out);
    bool any = false;
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        if (!m->findings[k])
            continue;
        any = true;
        enum ib_severity sev = ib_finding_kind_severity((enum ib_finding_kind)k);
        const char *name = ib_finding_kind_name((enum ib_finding_kind)k);
        fprintf(out,
                "<tr class=\"sev-%s\" data-kind=\"%s\" data-count=\"%" PRIu64
                "\"><td>%s %s</td><td>%s</td><td class=\"n\">%" PRIu64 "</td>",
                ib_severity_name(sev), name, m->findings[k], html_severity_mark(sev), name,
                ib_severity_name(sev), m->findings[k]);
        for (size_t h = 0; h < m->host_count; h++)
            fprintf(out, "<td class=\"n\">%" PRIu64 "</td>", m->hosts[h].findings[k]);
        fputs("</tr>\n", out);
    }
    if (!any)
        fputs("<tr><td colspan=\"3\">no findings</td></tr>\n", out);
    fprintf(out, "</tbody></table>\n<p>%" PRIu64 " finding%s in all.</p></section>\n",
            m->findings_total, m->findings_total == 1 ? "" : "s");
}

static void write_summary(FILE *out, const struct report_model *m)
{
    fputs("<section id=\"summary\"><h2>Summary</h2>\n", out);
    write_captures(out, m);
    fputs("<p>", out);
    if (m->have_time) {
        char from[48], span[32];
        fmt_time_rfc3339(m->min_ns, from, sizeof from);
        fmt_duration(m->max_ns - m->min_ns, span, sizeof span);
        fprintf(out, "%" PRIu64 " frames, %" PRIu64 " InfiniBand, from %s, spanning %s. ",
                m->frames, m->ib_frames, from, span);
    } else {
        fputs("No frames. ", out);
    }
    if (report_one_pool(m)) {
        char horizon[24], window[24];
        ib_format_time_left(m->pool.forecast_horizon_s, horizon, sizeof horizon);
        ib_format_time_left(m->pool.forecast_window_s, window, sizeof window);
        fprintf(out,
                "Port pool %u-%u (%" PRIu32 " ports), pool_high at %g%% (%" PRIu32
                " ports), pool_forecast when a source's pool would run out within %s at "
                "its net rate over the last %s.</p>\n",
                m->pool.low, m->pool.high, m->pool.size, m->pool.threshold_pct,
                m->pool.threshold_ports, horizon, window);
    } else {
        fputs("Each host's own port pool (Hosts).</p>\n", out);
    }
    write_kinds(out, m);
}

/* The end of the last column written, within the capture. */
static int64_t last_end(const struct series *s, int64_t t_max)
{
    int64_t end = series_column_start(s, s->last + 1);
    return end < t_max ? end : t_max;
}

/* Where column i's stretch at or above v ends: its own end, or, for the
 * last column written when the level stays there, the capture's end. */
static int64_t stretch_end(const struct series *s, uint32_t i, uint32_t v, int64_t t_max)
{
    if (i < s->last)
        return series_column_start(s, i + 1);
    return s->level >= v ? t_max : last_end(s, t_max);
}

/* The most of a level series, step by step: along each column's highest
 * value, then on at the level to t_end (the capture's end, which the plot
 * may run past to show a projection). */
static void level_path(FILE *out, const struct plot *p, const struct series *s, int64_t t_end)
{
    fprintf(out, "M%.1f %.1f", plot_x(p, p->t_min), plot_y(p, 0));
    double prev = 0;
    for (uint32_t i = 0; i <= s->last; i++) {
        double v = s->col[i].hi;
        if (v == prev)
            continue; /* the line runs on: one H for the whole run */
        fprintf(out, "H%.1fV%.1f", plot_x(p, series_column_start(s, i)), plot_y(p, v));
        prev = v;
    }
    fprintf(out, "H%.1fV%.1fH%.1f", plot_x(p, last_end(s, t_end)), plot_y(p, s->level),
            plot_x(p, t_end));
}

/* Time the series spent at or above v, to a column's width. */
static int64_t time_at_or_above(const struct series *s, uint32_t v, int64_t t_max)
{
    int64_t t = 0;
    for (uint32_t i = 0; i <= s->last; i++) {
        if (s->col[i].hi < v)
            continue;
        int64_t end = stretch_end(s, i, v, t_max);
        if (end > series_column_start(s, i))
            t += end - series_column_start(s, i);
    }
    return t;
}

/* The most a level series drew: its peak, if the columns kept it. */
static uint32_t series_most(const struct series *s)
{
    uint32_t most = 0;
    for (uint32_t i = 0; i <= s->last; i++)
        if (s->col[i].hi > most)
            most = s->col[i].hi;
    return most;
}

/* The source's last estimate drawn on: from where it was made to where the
 * pool runs out.  The chart runs past the capture's end to show it, by at
 * most the capture's span (a minute for a shorter one); a projection past
 * that is cut at the chart's edge. */
struct projection {
    bool on;
    enum ib_pool_model model;
    const struct ib_forecast *fc;
    int64_t from_ns;
    double to_ns; /* where it reaches the pool, maybe past any int64 */
};

static void projection_of(const struct ib_source_stats *s, struct projection *pr)
{
    memset(pr, 0, sizeof *pr);
    pr->on = s->forecast_at.frame && ib_forecast_soonest(s->forecast, &pr->model);
    if (!pr->on)
        return;
    pr->fc = &s->forecast[pr->model];
    pr->from_ns = s->forecast_at.time_ns;
    pr->to_ns = (double)pr->from_ns + pr->fc->eta_s * 1e9;
}

/* The chart's right edge: the capture's end, or later for a projection. */
static int64_t chart_end(const struct report_model *m, const struct projection *pr)
{
    if (!pr->on || pr->to_ns <= (double)m->max_ns)
        return m->max_ns;
    double span = (double)m->max_ns - (double)m->min_ns;
    double edge = (double)m->max_ns + (span > 60e9 ? span : 60e9);
    double to = pr->to_ns < edge ? pr->to_ns : edge;
    return to < 9e18 ? (int64_t)to : m->max_ns;
}

static void write_projection(FILE *out, const struct plot *p, const struct projection *pr,
                             uint32_t pool, const char *frame)
{
    if (!pr->on)
        return;
    double n = pr->fc->ports_in_use, to = pr->to_ns, v = pool;
    if (to > (double)p->t_max) { /* cut at the edge, on its way up */
        double part = ((double)p->t_max - (double)pr->from_ns) / (to - (double)pr->from_ns);
        to = (double)p->t_max;
        v = n + (pool - n) * part;
    }
    char left[24];
    ib_format_time_left(pr->fc->eta_s, left, sizeof left);
    fprintf(out,
            "<g data-projection=\"%s\" data-eta-s=\"%.3f\" data-rate=\"%.6f\" "
            "data-from-frame=\"%s\"><path class=\"projection\" d=\"M%.1f %.1fL%.1f "
            "%.1f\"/><title>at %.2f ports/s from frame %s, the pool runs out in %s (%s)"
            "</title></g>\n",
            ib_pool_model_name(pr->model), pr->fc->eta_s, pr->fc->rate_per_s, frame,
            plot_x(p, pr->from_ns), plot_y(p, n), plot_x(p, (int64_t)to), plot_y(p, v),
            pr->fc->rate_per_s, frame, left,
            pr->model == IB_MODEL_ONE_PORT ? "one port each" : "per destination");
}

/* "; runs out in 4m 05s at 2.00 ports/s (one port each, from frame 2101)",
 * or nothing. */
static void projection_words(const struct projection *pr, const char *frame, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!pr->on)
        return;
    char left[24];
    ib_format_time_left(pr->fc->eta_s, left, sizeof left);
    snprintf(buf, size, "; runs out in %s at %.2f ports/s (%s, from frame %s)", left,
             pr->fc->rate_per_s,
             pr->model == IB_MODEL_ONE_PORT ? "one port each" : "per destination", frame);
}

/* Time at or above the threshold, shaded: one rectangle per run of
 * columns that reach it. */
static void write_above(FILE *out, const struct plot *p, const struct series *s, uint32_t thr,
                        int64_t t_max)
{
    for (uint32_t i = 0; i <= s->last; i++) {
        if (s->col[i].hi < thr)
            continue;
        uint32_t j = i;
        while (j < s->last && s->col[j + 1].hi >= thr)
            j++;
        double x0 = plot_x(p, series_column_start(s, i));
        double x1 = plot_x(p, stretch_end(s, j, thr, t_max));
        fprintf(out,
                "<rect class=\"above\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                "height=\"%.1f\"/>",
                x0, p->y, x1 - x0 > 0.5 ? x1 - x0 : 0.5, p->h);
        i = j;
    }
}

/* The band between each column's least and most: along the most, then
 * back along the least. */
static void write_band(FILE *out, const struct plot *p, const struct series *s, int64_t t_max)
{
    fputs("<path class=\"band\" d=\"", out);
    level_path(out, p, s, t_max);
    fprintf(out, "H%.1f", plot_x(p, last_end(s, t_max)));
    double prev = -1;
    for (uint32_t i = s->last + 1; i-- > 0;) {
        double v = s->col[i].lo;
        if (v == prev)
            continue; /* one H for a run of equal columns, as along the most */
        fprintf(out, "H%.1fV%.1f",
                plot_x(p, i == s->last ? last_end(s, t_max) : series_column_start(s, i + 1)),
                plot_y(p, v));
        prev = v;
    }
    fprintf(out, "H%.1fZ\"/>\n", plot_x(p, series_column_start(s, 0)));
}

/* Line style and marker shape, not colour alone. */
static void write_legend(FILE *out, const struct plot *p, bool projection)
{
    fprintf(out,
            "<g transform=\"translate(%.1f,%.1f)\"><line class=\"one\" x1=\"0\" x2=\"24\" "
            "y1=\"0\" y2=\"0\"/><circle class=\"peak-one\" cx=\"12\" cy=\"0\" r=\"3\"/>"
            "<text x=\"30\" y=\"4\">one port each</text><line class=\"dest\" x1=\"140\" "
            "x2=\"164\" y1=\"0\" y2=\"0\"/><rect class=\"peak-dest\" x=\"149\" y=\"-3\" "
            "width=\"6\" height=\"6\"/><text x=\"170\" y=\"4\">per destination (to the "
            "busiest one)</text>",
            p->x, 206.0);
    if (projection)
        fputs("<line class=\"projection\" x1=\"390\" x2=\"414\" y1=\"0\" y2=\"0\"/>"
              "<text x=\"420\" y=\"4\">at the last rate, to the pool</text>",
              out);
    fputs("</g>", out);
}

/* " at or above pool_high (N) for about T": "for about 0 ns" would say it
 * was there, and a source below it all along never was. */
static void above_words(int64_t at, uint32_t thr, char *buf, size_t size)
{
    char dur[32];
    fmt_duration(at, dur, sizeof dur);
    snprintf(buf, size, "%s at or above pool_high (%" PRIu32 ")%s%s", at ? "" : " never", thr,
             at ? " for about " : "", at ? dur : "");
}

static void write_source_chart(FILE *out, const struct report_model *m,
                               const struct source_usage *u, const struct ib_source_stats *s,
                               size_t idx)
{
    struct source_labels l;
    source_labels(m, s, &l);
    const char *name = l.name, *f1 = l.peak, *f2 = l.peak_per_destination;
    char above[80], pfr[32] = "-", proj[160];
    struct projection pr;
    projection_of(s, &pr);
    if (pr.on)
        fmt_frame(&s->forecast_at, m->capture_count, pfr, sizeof pfr);
    projection_words(&pr, pfr, proj, sizeof proj);
    uint32_t pool = m->pool.size, thr = m->pool.threshold_ports;
    struct plot p = { 60, 24, 620, 150, m->min_ns, chart_end(m, &pr), pool * 1.05 };
    above_words(time_at_or_above(&u->one, thr, m->max_ns), thr, above, sizeof above);
    fprintf(out, "<figure class=\"source\" data-source=\"");
    html_text(out, name);
    fprintf(out,
            "\"><svg viewBox=\"0 0 700 214\" role=\"img\" aria-labelledby=\"st%zu sd%zu\">"
            "<title id=\"st%zu\">Ports in use by ",
            idx, idx, idx);
    html_text(out, name);
    fprintf(out,
            "</title><desc id=\"sd%zu\">Ports in use over time in two models, against the "
            "pool of %" PRIu32 " ports and the pool_high threshold of %" PRIu32
            ". One port each: peak %" PRIu32 " at frame %s. Per destination: peak %" PRIu32
            " at frame %s;%s%s.</desc>\n",
            idx, pool, thr, s->peak_ports_in_use, f1, s->peak_ports_per_destination, f2, above,
            proj);
    write_above(out, &p, &u->one, thr, m->max_ns);
    plot_axes(out, &p, "ports in use");
    fprintf(out,
            "<line class=\"pool\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
            "<text x=\"%.1f\" y=\"%.1f\">pool %" PRIu32 "</text>",
            p.x, p.x + p.w, plot_y(&p, pool), plot_y(&p, pool), p.x + 4, plot_y(&p, pool) - 3,
            pool);
    fprintf(out,
            "<line class=\"threshold\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
            "<text x=\"%.1f\" y=\"%.1f\">pool_high %" PRIu32 "</text>\n",
            p.x, p.x + p.w, plot_y(&p, thr), plot_y(&p, thr), p.x + 4, plot_y(&p, thr) + 12, thr);
    write_band(out, &p, &u->one, m->max_ns);
    fprintf(out,
            "<g data-model=\"one_port\" data-peak=\"%" PRIu32 "\" data-peak-frame=\"%s\" "
            "data-drawn-peak=\"%" PRIu32 "\"><path class=\"one\" d=\"",
            s->peak_ports_in_use, f1, series_most(&u->one));
    level_path(out, &p, &u->one, m->max_ns);
    fprintf(out,
            "\"/><circle class=\"peak-one\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>peak "
            "%" PRIu32 " ports, one each, frame %s</title></circle></g>\n",
            plot_x(&p, s->peak_at.time_ns), plot_y(&p, s->peak_ports_in_use), s->peak_ports_in_use,
            f1);
    fprintf(out,
            "<g data-model=\"per_destination\" data-peak=\"%" PRIu32 "\" "
            "data-peak-frame=\"%s\" data-drawn-peak=\"%" PRIu32 "\"><path class=\"dest\" "
            "d=\"",
            s->peak_ports_per_destination, f2, series_most(&u->per_destination));
    level_path(out, &p, &u->per_destination, m->max_ns);
    double px = plot_x(&p, s->peak_per_destination_at.time_ns);
    double py = plot_y(&p, s->peak_ports_per_destination);
    fprintf(out,
            "\"/><rect class=\"peak-dest\" x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\">"
            "<title>peak %" PRIu32 " ports to one destination, frame %s</title></rect></g>\n",
            px - 3.5, py - 3.5, s->peak_ports_per_destination, f2);
    double lx = plot_x(&p, s->peak_at.time_ns), ly = plot_y(&p, s->peak_ports_in_use) - 8;
    bool right_half = lx > p.x + p.w / 2;
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">peak %" PRIu32 " (frame %s)</text>",
            right_half ? lx - 8 : lx + 8, ly < p.y + 10 ? p.y + 10 : ly,
            right_half ? "end" : "start", s->peak_ports_in_use, f1);
    write_projection(out, &p, &pr, pool, pfr);
    write_legend(out, &p, pr.on);
    fprintf(out, "</svg><figcaption><strong>");
    html_text(out, name);
    fprintf(out,
            "</strong>: %" PRIu64 " connection requests; one port each: peak %" PRIu32
            " (%.1f%% of the pool%s) at frame %s; per destination: peak %" PRIu32
            " at frame %s;%s%s. Each column"
            " of the chart spans its interval's least to most.</figcaption></figure>\n",
            s->connections, s->peak_ports_in_use, s->pool_utilization,
            s->exhausted ? ": exhausted" : "", f1, s->peak_ports_per_destination, f2, above, proj);
}

/* A source's place in the order: its peaks copied beside its index, so the
 * comparison needs nothing else (qsort passes it no context). */
struct source_rank {
    uint32_t peak, peak_per_destination;
    size_t index;
};

/* Sources by peak, one port each, then per destination, then first seen. */
static int by_peak(const void *a, const void *b)
{
    const struct source_rank *x = a, *y = b;
    if (x->peak != y->peak)
        return x->peak < y->peak ? 1 : -1;
    if (x->peak_per_destination != y->peak_per_destination)
        return x->peak_per_destination < y->peak_per_destination ? 1 : -1;
    return x->index < y->index ? -1 : 1;
}

static void write_source_charts(FILE *out, struct html_state *st, const struct report_model *m,
                                const size_t *order)
{
    size_t n = m->source_count, charted = 0;
    fputs("<p>Sources ordered by peak. The solid line counts one port per connection; the "
          "dashed one the ports toward its busiest destination, which Linux's 4-tuple rule lets "
          "connections to different destinations share.</p>\n",
          out);
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        if (i >= HTML_SOURCES_KEPT || !st->sources[i].seen || charted == HTML_SOURCES_CHARTED)
            continue;
        write_source_chart(out, m, &st->sources[i], m->sources[i], i);
        charted++;
    }
    if (charted < n)
        fprintf(out,
                "<p>%zu of %zu sources are charted: those with the highest peaks among "
                "the first %d seen. Every source is in the table below.</p>\n",
                charted, n, HTML_SOURCES_KEPT);
}

static void write_sources(FILE *out, struct html_state *st, const struct report_model *m)
{
    size_t n = m->source_count;
    fputs("<section id=\"sources\"><h2>Ports in use, per source</h2>\n", out);
    if (n == 0) {
        fputs("<p>No IP CM connection requests.</p></section>\n", out);
        return;
    }
    size_t *order = malloc(n * sizeof *order);
    struct source_rank *rank = malloc(n * sizeof *rank);
    if (!order || !rank) {
        free(order);
        free(rank);
        fputs("<p>Out of memory for the charts.</p></section>\n", out);
        return;
    }
    for (size_t i = 0; i < n; i++)
        rank[i] = (struct source_rank){ m->sources[i]->peak_ports_in_use,
                                        m->sources[i]->peak_ports_per_destination, i };
    qsort(rank, n, sizeof *rank, by_peak);
    for (size_t k = 0; k < n; k++)
        order[k] = rank[k].index;
    free(rank);
    if (m->host_count)
        fputs("<p>Sources ordered by peak. A merge has no series of ports in use to chart: "
              "each source's peak is against its own host's pool.</p>\n",
              out);
    else
        write_source_charts(out, st, m, order);
    fprintf(out,
            "<table id=\"sources-table\"><thead><tr>%s<th>source</th><th class=\"n\">"
            "requests</th><th class=\"n\">peak, one each</th><th>frame</th><th class=\"n\">"
            "peak, per destination</th><th>frame</th></tr></thead><tbody>\n",
            m->host_count ? "<th>host</th>" : "");
    for (size_t k = 0; k < n; k++) {
        const struct ib_source_stats *s = m->sources[order[k]];
        struct source_labels l;
        source_labels(m, s, &l);
        fputs("<tr>", out);
        host_cell(out, m, m->host_count ? m->source_host[order[k]] : 0);
        fputs("<td>", out);
        html_text(out, l.name);
        host_note(out, s);
        fprintf(out,
                "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu32
                "</td><td>%s</td><td class=\"n\">%" PRIu32 "</td><td>%s</td></tr>\n",
                s->connections, s->peak_ports_in_use, l.peak, s->peak_ports_per_destination,
                l.peak_per_destination);
    }
    fputs("</tbody></table></section>\n", out);
    free(order);
}

static void write_timeline(FILE *out, struct html_state *st, const struct report_model *m)
{
    int lanes = 0;
    for (int k = 0; k < IB_FIND_COUNT; k++)
        lanes += m->findings[k] != 0;
    if (!lanes)
        return;
    double lane_h = 22, height = 30 + lanes * lane_h + 34;
    struct plot p = { 170, 24, 510, lanes * lane_h, m->min_ns, m->max_ns, 1 };
    fprintf(out,
            "<figure><svg viewBox=\"0 0 700 %.0f\" role=\"img\" aria-labelledby=\"tlt "
            "tld\"><title id=\"tlt\">Findings over time</title><desc id=\"tld\">One lane "
            "per finding kind; a mark in each interval that has findings of that kind, "
            "taller for more.</desc>\n",
            height);
    int lane = 0;
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        if (!m->findings[k])
            continue;
        enum ib_severity sev = ib_finding_kind_severity((enum ib_finding_kind)k);
        const char *name = ib_finding_kind_name((enum ib_finding_kind)k);
        double y = p.y + lane * lane_h;
        const struct series *s = &st->kinds[k];
        uint32_t most = 1;
        for (uint32_t i = 0; i <= s->last; i++)
            if (s->col[i].hi > most)
                most = s->col[i].hi;
        fprintf(out,
                "<g class=\"lane lane-%s\" data-kind=\"%s\" data-count=\"%" PRIu64 "\">"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s %s</text>",
                ib_severity_name(sev), name, m->findings[k], p.x - 6, y + 15,
                html_severity_mark(sev), name);
        for (uint32_t i = 0; i <= s->last; i++) {
            if (!s->col[i].hi)
                continue;
            double h = 4 + 14 * log1p(s->col[i].hi) / log1p(most);
            double x = plot_x(&p, series_column_start(s, i));
            double w = plot_x(&p, series_column_start(s, i + 1)) - x;
            fprintf(out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%" PRIu32
                    "</title></rect>",
                    x, y + 19 - h, w < 1.5 ? 1.5 : w, h, s->col[i].hi);
        }
        fputs("</g>\n", out);
        lane++;
    }
    struct plot axis = p;
    axis.v_max = 0;
    plot_axes(out, &axis, "");
    fputs("</svg><figcaption>Findings over time, one lane per kind (shape and colour give the"
          " severity: \xe2\x96\xa0 error, \xe2\x96\xb2 warning, \xe2\x97\x8f note, "
          "\xe2\x97\x8b chat).</figcaption></figure>\n",
          out);
}

static void write_findings(FILE *out, struct html_state *st, const struct report_model *m)
{
    fputs("<section id=\"findings\"><h2>Findings</h2>\n", out);
    if (m->findings_total == 0) {
        fputs("<p>No findings.</p></section>\n", out);
        return;
    }
    write_timeline(out, st, m);
    fprintf(out,
            "<input id=\"filter\" type=\"search\" placeholder=\"filter the table\" hidden "
            "aria-label=\"filter the findings\">\n<table id=\"findings-table\"><thead><tr>"
            "%s<th class=\"n\" data-sort=\"n\">frame</th><th class=\"n\" data-sort=\"n\">time, s"
            "</th><th data-sort=\"s\">kind</th><th data-sort=\"s\">severity</th>"
            "<th data-sort=\"s\">message</th></tr></thead><tbody>\n",
            m->host_count ? "<th data-sort=\"s\">host</th>" : "");
    for (size_t i = 0; i < st->listed_count; i++) {
        const struct listed_finding *l = &st->listed[i];
        char fr[32], t[32];
        fmt_frame(&l->at, m->capture_count, fr, sizeof fr);
        fmt_seconds(l->at.time_ns - m->min_ns, t, sizeof t);
        const char *sev = ib_severity_name(l->severity);
        fprintf(out, "<tr class=\"sev-%s\" data-kind=\"%s\">", sev, ib_finding_kind_name(l->kind));
        if (m->host_count)
            host_cell(out, m, m->captures[l->at.capture].host);
        fprintf(out,
                "<td class=\"n\" data-v=\"%zu\">%s</td><td class=\"n\">%s</td><td>%s</td>"
                "<td class=\"sev\">%s %s</td><td>",
                i, fr, t, ib_finding_kind_name(l->kind), html_severity_mark(l->severity), sev);
        html_text(out, l->message);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    if (st->not_listed)
        fprintf(out,
                "<p>The table lists the first %zu findings; %" PRIu64 " more are in the "
                "counts and the timeline, and every one is in the JSON report.</p>\n",
                st->listed_count, st->not_listed);
    fputs("</section>\n", out);
}

/* ---- redirect chains ---- */

struct chain_node {
    struct ib_endpoint ep;
    uint32_t qp;
};

/* One endpoint as the engine tells a loop (ib_endpoint_same). */
static bool same_node(const struct chain_node *a, const struct chain_node *b)
{
    return a->qp == b->qp && ib_endpoint_same(&a->ep, &b->ep);
}

static bool hop_marked(const struct html_state *st, size_t chain, const struct ib_frame_ref *f,
                       enum ib_finding_kind kind)
{
    for (size_t i = 0; i < st->mark_count; i++) {
        const struct chain_mark *k = &st->marks[i];
        if (k->chain == chain && k->kind == kind && k->capture == f->capture &&
            (k->frame == f->frame || k->related == f->frame))
            return true;
    }
    return false;
}

#define NODE_W          180
#define NODE_GAP        70
#define NODE_H          40
#define CHAIN_MIN_WIDTH 1060 /* every chain drawn at one scale: the page's width */

static void write_node(FILE *out, double x, double y, const struct chain_node *n, bool bad,
                       const char *role)
{
    char ep[80], qp[24];
    fmt_endpoint(&n->ep, ep, sizeof ep);
    fmt_qp(n->qp, qp, sizeof qp);
    fprintf(out,
            "<g class=\"node%s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" "
            "rx=\"6\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\"%s>",
            bad ? " bad" : "", x, y, NODE_W, NODE_H, x + NODE_W / 2.0, y + 16,
            strlen(ep) > 24 ? " font-size=\"9\"" : "");
    html_text(out, ep);
    fprintf(out, "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + NODE_W / 2.0,
            y + 31);
    html_textf(out, "%s%s%s", qp, role[0] ? ", " : "", role);
    fputs("</text></g>", out);
}

static double node_x(unsigned i)
{
    return 20 + i * (NODE_W + NODE_GAP);
}

/* Where a chain's endpoints go: each once, left to right in the order it
 * was first reached, and each hop from one to another. */
struct chain_layout {
    struct chain_node nodes[IB_CHAIN_HOPS_MAX + 1];
    unsigned from[IB_CHAIN_HOPS_MAX], to[IB_CHAIN_HOPS_MAX];
    bool fresh[IB_CHAIN_HOPS_MAX]; /* the hop reached a new endpoint */
    unsigned count, hops, back_edges;
};

static void chain_layout(const struct ib_redirect_chain *c, struct chain_layout *l)
{
    l->hops = c->hop_count < IB_CHAIN_HOPS_MAX ? c->hop_count : IB_CHAIN_HOPS_MAX;
    l->nodes[0] = (struct chain_node){ c->origin, c->origin_qp };
    l->count = 1;
    l->back_edges = 0;
    unsigned at = 0;
    for (unsigned h = 0; h < l->hops; h++) {
        struct chain_node n = { ib_hop_endpoint(&c->hops[h]), c->hops[h].qp };
        unsigned j = 0;
        while (j < l->count && !same_node(&l->nodes[j], &n))
            j++;
        l->fresh[h] = j == l->count;
        if (l->fresh[h])
            l->nodes[l->count++] = n;
        else
            l->back_edges++;
        l->from[h] = at;
        l->to[h] = j;
        at = j;
    }
}

/* A redirect to the next new endpoint is a straight arrow, one back to an
 * endpoint already visited (a loop) a curve below the boxes, deeper for
 * each. */
static void write_edges(FILE *out, const struct html_state *st, const struct report_model *m,
                        size_t ci, const struct chain_layout *l, double y)
{
    const struct ib_redirect_chain *c = m->chains[ci];
    unsigned depth = 0;
    for (unsigned h = 0; h < l->hops; h++) {
        const struct ib_redirect_hop *hop = &c->hops[h];
        char hf[32];
        fmt_frame(&hop->frame, m->capture_count, hf, sizeof hf);
        bool bad = hop_marked(st, ci, &hop->frame, IB_FIND_REDIRECT_BAD_TARGET);
        if (l->fresh[h] && l->to[h] == l->from[h] + 1) {
            double x0 = node_x(l->from[h]) + NODE_W, x1 = node_x(l->to[h]);
            fprintf(out,
                    "<path class=\"edge%s\" d=\"M%.1f %.1fH%.1f\" "
                    "marker-end=\"url(#arrow%s)\"/><text x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"middle\">frame %s</text>",
                    bad ? " bad" : "", x0, y + NODE_H / 2.0, x1 - 2, bad ? "-bad" : "",
                    (x0 + x1) / 2, y + NODE_H / 2.0 - 5, hf);
            continue;
        }
        double a = node_x(l->from[h]) + NODE_W / 2.0 + 10;
        double b = node_x(l->to[h]) + NODE_W / 2.0 - 10;
        double top = y + NODE_H, low = top + 30 + 36.0 * depth++;
        double bottom = 0.25 * top + 0.75 * low; /* where the curve turns */
        bool loop = !l->fresh[h];
        fprintf(out,
                "<path class=\"edge%s\" d=\"M%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f\" "
                "marker-end=\"url(#arrow%s)\"/><text class=\"end%s\" x=\"%.1f\" y=\"%.1f\" "
                "text-anchor=\"middle\">frame %s%s</text>",
                loop || bad ? " bad" : "", a, top, a, low, b, low, b, top + 3,
                loop || bad ? "-bad" : "", loop ? " bad" : "", (a + b) / 2, bottom + 12, hf,
                loop ? ": back to a visited endpoint" : "");
    }
}

/* The boxes, the agent first; one a request reached with other keys than
 * its redirect named is marked. */
static void write_nodes(FILE *out, const struct html_state *st, const struct report_model *m,
                        size_t ci, const struct chain_layout *l, double y)
{
    for (unsigned i = 0; i < l->count; i++) {
        bool bad = false;
        for (unsigned h = 0; h < l->hops && i > 0; h++)
            bad |= l->to[h] == i &&
                   hop_marked(st, ci, &m->chains[ci]->hops[h].frame, IB_FIND_REDIRECT_KEY_MISMATCH);
        write_node(out, node_x(i), y, &l->nodes[i], bad, i == 0 ? "agent" : "");
    }
}

/* How the chain ended, after its last box. */
static void write_chain_end(FILE *out, const struct report_model *m,
                            const struct ib_redirect_chain *c, double x, double y)
{
    bool bad_end = c->end != IB_CHAIN_ANSWERED;
    char label[64];
    if (c->end == IB_CHAIN_ANSWERED) {
        char af[32];
        fmt_frame(&c->final_answer, m->capture_count, af, sizeof af);
        snprintf(label, sizeof label, "answered, frame %s", af);
    } else {
        snprintf(label, sizeof label, "%s", ib_chain_end_name(c->end));
    }
    fprintf(out, "<text class=\"end%s\" x=\"%.1f\" y=\"%.1f\">%s%s</text>", bad_end ? " bad" : "",
            x, y + NODE_H / 2.0 + 4, bad_end ? "\xe2\x9c\x97 " : "\xe2\x9c\x93 ", label);
}

/* The chain as a graph (chain_layout), with its words in the title,
 * description and caption; a merge's names its host. */
static void write_chain(FILE *out, const struct html_state *st, const struct report_model *m,
                        size_t ci)
{
    const struct ib_redirect_chain *c = m->chains[ci];
    struct chain_layout l;
    chain_layout(c, &l);
    const char *cls = ib_mgmt_class_name(c->mgmt_class);
    const char *host = m->host_count ? m->hosts[m->chain_host[ci]].name : NULL;
    char req[80], fr[32];
    fmt_endpoint(&c->requester, req, sizeof req);
    fmt_frame(&c->first_request, m->capture_count, fr, sizeof fr);
    const char *end = ib_chain_end_name(c->end);
    unsigned total = c->hop_count + c->hops_dropped;
    double width = node_x(l.count) + 150;
    if (width < CHAIN_MIN_WIDTH)
        width = CHAIN_MIN_WIDTH;
    double y = 30, height = 90 + 36.0 * l.back_edges;
    fprintf(out, "<figure class=\"chain\" data-chain=\"%zu\" data-hops=\"%u\" data-end=\"%s\"", ci,
            total, end);
    if (host) {
        fputs(" data-host=\"", out);
        html_text(out, host);
        fputs("\"", out);
    }
    fprintf(out,
            "><svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-labelledby=\"ct%zu cd%zu\">"
            "<title id=\"ct%zu\">Redirect chain %zu</title><desc id=\"cd%zu\">",
            width, height, ci, ci, ci, ci, ci);
    if (host)
        html_textf(out, "On %s: ", host);
    html_textf(out,
               "%s (class 0x%02x) requests from %s, first request frame %s: %u redirect%s, "
               "ending: %s.",
               cls ? cls : "MAD", (unsigned)c->mgmt_class, req, fr, total, total == 1 ? "" : "s",
               end);
    fputs("</desc>\n", out);
    write_nodes(out, st, m, ci, &l, y);
    write_edges(out, st, m, ci, &l, y);
    write_chain_end(out, m, c, node_x(l.count - 1) + NODE_W + 12, y);
    fputs("</svg><figcaption>", out);
    html_textf(out, "Chain %zu", ci);
    if (host)
        html_textf(out, " (%s)", host);
    html_textf(out, ": %s (class 0x%02x) from %s, first request frame %s; %u redirect%s",
               cls ? cls : "MAD", (unsigned)c->mgmt_class, req, fr, total, total == 1 ? "" : "s");
    if (c->hops_dropped)
        html_textf(out, " (%u past the first %d not drawn)", c->hops_dropped, IB_CHAIN_HOPS_MAX);
    html_textf(out, "; %s.", end);
    fputs("</figcaption></figure>\n", out);
}

static void write_chains(FILE *out, const struct html_state *st, const struct report_model *m)
{
    size_t n = m->chain_count;
    fputs("<section id=\"chains\"><h2>Redirect chains</h2>\n", out);
    if (n == 0) {
        fputs("<p>No ClassPortInfo redirects.</p></section>\n", out);
        return;
    }
    fputs("<p>Each box is an endpoint (LID or GID, and QP); each arrow a redirect, labelled "
          "with the frame of the redirecting answer. Dashed in the warning colour: a loop, a "
          "redirect to no usable target, an endpoint reached with other keys than the "
          "redirect named; \xe2\x9c\x97 marks a chain that was not followed or got no answer."
          "</p>\n",
          out);
    for (size_t i = 0; i < n; i++)
        write_chain(out, st, m, i);
    fputs("</section>\n", out);
}

/* ---- CM outcomes and CRCs ---- */

static void write_bars(FILE *out, const struct ib_connection_stats *cs)
{
    struct {
        char label[64];
        uint64_t n;
        bool rejected;
        int reason;
    } bars[IB_REJ_REASON_MAX + 1];
    unsigned nb = 0;
    snprintf(bars[nb].label, sizeof bars[nb].label, "established");
    bars[nb].n = cs->established;
    bars[nb].rejected = false;
    bars[nb++].reason = -1;
    for (int r = 0; r < IB_REJ_REASON_MAX; r++) {
        if (!cs->reject_reasons[r])
            continue;
        const char *name = rej_reason_name((unsigned)r);
        snprintf(bars[nb].label, sizeof bars[nb].label, "rejected: %s (%d)", name ? name : "?", r);
        bars[nb].n = cs->reject_reasons[r];
        bars[nb].rejected = true;
        bars[nb++].reason = r;
    }
    uint64_t most = 1;
    for (unsigned i = 0; i < nb; i++)
        if (bars[i].n > most)
            most = bars[i].n;
    double row = 24, height = 20 + nb * row;
    fprintf(out,
            "<figure><svg viewBox=\"0 0 700 %.0f\" role=\"img\" aria-labelledby=\"obt "
            "obd\"><title id=\"obt\">Connection outcomes</title><desc id=\"obd\">"
            "%" PRIu64 " established, %" PRIu64 " rejected, by reject reason.</desc>\n",
            height, cs->established, cs->rejected);
    for (unsigned i = 0; i < nb; i++) {
        double y = 10 + i * row, w = 380.0 * (double)bars[i].n / (double)most;
        fprintf(out, "<g data-outcome=\"%s\" data-count=\"%" PRIu64 "\"",
                bars[i].rejected ? "rejected" : "established", bars[i].n);
        if (bars[i].rejected)
            fprintf(out, " data-reason=\"%d\"", bars[i].reason);
        fprintf(out, "><text x=\"240\" y=\"%.1f\" text-anchor=\"end\">", y + 14);
        html_text(out, bars[i].label);
        fprintf(out,
                "</text><rect class=\"bar%s\" x=\"250\" y=\"%.1f\" width=\"%.1f\" "
                "height=\"18\"/><text x=\"%.1f\" y=\"%.1f\">%" PRIu64 "%s</text></g>\n",
                bars[i].rejected ? " rejected" : "", y, w < 1 ? 1 : w, 256 + w, y + 14, bars[i].n,
                bars[i].rejected ? " \xe2\x9c\x97" : "");
    }
    fputs("</svg><figcaption>Connections established (RTU seen) and rejected, by the REJ's "
          "reason; rejected bars are marked \xe2\x9c\x97.</figcaption></figure>\n",
          out);
}

static void bucket_label(unsigned b, char *buf, size_t size)
{
    if (b == 0) {
        snprintf(buf, size, "< 1 us");
        return;
    }
    char lo[32];
    fmt_duration((int64_t)1000 << (b - 1), lo, sizeof lo);
    snprintf(buf, size, b == LATENCY_BUCKETS - 1 ? ">= %s" : "%s", lo);
}

#define HIST_LABEL_WIDTH 54.0

static void write_histogram(FILE *out, const struct html_state *st)
{
    unsigned first = LATENCY_BUCKETS, last = 0;
    uint64_t most = 0, total = 0;
    for (unsigned b = 0; b < LATENCY_BUCKETS; b++) {
        uint64_t n = st->req_rep[b] > st->req_rtu[b] ? st->req_rep[b] : st->req_rtu[b];
        if (st->req_rep[b] || st->req_rtu[b]) {
            first = b < first ? b : first;
            last = b;
        }
        most = n > most ? n : most;
        total += st->req_rep[b] + st->req_rtu[b];
    }
    if (!total)
        return;
    unsigned nb = last - first + 1;
    double col = 620.0 / nb > 90 ? 90 : 620.0 / nb;
    /* A label ("128.0 us") takes about 54 units at the chart's 11 px: where
     * columns are narrower, every step-th bucket has one, so none overlap. */
    unsigned step = (unsigned)ceil(HIST_LABEL_WIDTH / col);
    fprintf(out, "<figure><svg viewBox=\"0 0 700 220\" role=\"img\" aria-labelledby=\"lht lhd\">"
                 "<title id=\"lht\">Setup latency</title><desc id=\"lhd\">Histogram of REQ to "
                 "REP and REQ to RTU times, in buckets that double.</desc>\n");
    for (unsigned b = first; b <= last; b++) {
        double x = 60 + (b - first) * col;
        const uint64_t *v[2] = { st->req_rep, st->req_rtu };
        for (int k = 0; k < 2; k++) {
            double h = 150.0 * (double)v[k][b] / (double)most;
            fprintf(out,
                    "<rect class=\"hist%s\" data-bucket=\"%u\" data-series=\"%s\" "
                    "data-count=\"%" PRIu64 "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                    "height=\"%.1f\"%s><title>%" PRIu64 "</title></rect>",
                    k ? " rtu" : "", b, k ? "req_rtu" : "req_rep", v[k][b], x + 2 + k * col / 2,
                    170 - h, col / 2 - 3, h, k ? " fill-opacity=\"0.85\"" : "", v[k][b]);
        }
        char label[32];
        bucket_label(b, label, sizeof label);
        if ((b - first) % step == 0)
            fprintf(out, "<text x=\"%.1f\" y=\"186\" text-anchor=\"middle\">%s</text>\n",
                    x + col / 2, label);
    }
    fputs(
        "<line class=\"axis\" x1=\"60\" x2=\"680\" y1=\"170\" y2=\"170\" stroke=\"currentColor\"/>"
        "<g transform=\"translate(60,208)\"><rect class=\"hist\" width=\"12\" height=\"10\" "
        "y=\"-9\"/><text x=\"16\">REQ \xe2\x86\x92 REP (left of each pair)</text><rect "
        "class=\"hist rtu\" x=\"220\" width=\"12\" height=\"10\" y=\"-9\"/><text x=\"236\">"
        "REQ \xe2\x86\x92 RTU (right)</text></g></svg><figcaption>Connection setup times: "
        "each bucket runs from its label to twice it",
        out);
    if (step > 1)
        fprintf(out, " (a label every %u buckets)", step);
    fputs(".</figcaption></figure>\n", out);
}

/* Captures correlated: how many connections each set of captures saw. */
static void write_seen_at(FILE *out, const struct html_state *st)
{
    fputs("<table id=\"seen-at\"><thead><tr><th>seen at (captures)</th>"
          "<th class=\"n\">connections</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < st->seen_sets; i++) {
        fputs("<tr><td>", out);
        bool first = true;
        for (unsigned c = 0; c < 64; c++)
            if (st->seen[i].mask & (1ull << c)) {
                fprintf(out, "%s%u", first ? "" : ", ", c);
                first = false;
            }
        fprintf(out, "</td><td class=\"n\">%" PRIu64 "</td></tr>\n", st->seen[i].count);
    }
    if (st->seen_other)
        fprintf(out, "<tr><td>other sets</td><td class=\"n\">%" PRIu64 "</td></tr>\n",
                st->seen_other);
    fputs("</tbody></table>\n", out);
}

static void write_cm(FILE *out, const struct html_state *st, const struct report_model *m)
{
    const struct ib_connection_stats *cs = &m->connections;
    fputs("<section id=\"cm\"><h2>CM outcomes</h2>\n", out);
    fprintf(out,
            "<p data-requests=\"%" PRIu64 "\">%" PRIu64 " connection requests, %" PRIu64
            " established, %" PRIu64 " rejected, %" PRIu64 " closed; %" PRIu64
            " retransmissions; %" PRIu64 " SIDR requests.</p>\n",
            cs->requests, cs->requests, cs->established, cs->rejected, cs->closed,
            cs->retransmissions, cs->sidr_requests);
    if (cs->unreachable || cs->disconnect_timeouts || cs->waiting_at_end)
        fprintf(out,
                "<p data-unreachable=\"%" PRIu64 "\">Given up: %" PRIu64
                " unreachable (no answer, or no RTU, within the timeout), %" PRIu64
                " DREQs unanswered; %" PRIu64 " waiting at the end of the capture.</p>\n",
                cs->unreachable, cs->unreachable, cs->disconnect_timeouts, cs->waiting_at_end);
    if (cs->retransmissions) {
        fputs("<p data-retransmitted>Retransmitted:", out);
        const char *sep = " ";
        for (unsigned i = 0; i < IB_CM_MSG_COUNT; i++) {
            if (!cs->retransmissions_by_message[i])
                continue;
            fprintf(out, "%s%s %" PRIu64, sep,
                    ib_name_lookup(ib_cm_attr_names, IB_CM_MSG_FIRST + i),
                    cs->retransmissions_by_message[i]);
            sep = ", ";
        }
        fputs(".</p>\n", out);
    }
    if (cs->requests)
        write_bars(out, cs);
    write_histogram(out, st);
    if (m->fabric)
        write_seen_at(out, st);
    fputs("</section>\n", out);
}

static void write_crc(FILE *out, const struct report_model *m)
{
    fputs("<section id=\"crc\"><h2>CRCs</h2>\n", out);
    if (!m->render.crc) {
        fputs("<p>Not verified (--no-crc).</p></section>\n", out);
        return;
    }
    fputs("<table><thead><tr><th>capture</th><th>CRC</th><th class=\"n\">verified</th>"
          "<th class=\"n\">mismatch</th><th class=\"n\">not present</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < m->capture_count; i++) {
        const struct report_crc_counts *c = &m->captures[i].crc;
        const uint64_t *v[2] = { c->icrc, c->vcrc };
        for (int k = 0; k < 2; k++) {
            fprintf(out,
                    "<tr data-crc=\"%s\" data-capture=\"%zu\" data-verified=\"%" PRIu64
                    "\" data-mismatch=\"%" PRIu64 "\" data-not-present=\"%" PRIu64 "\"><td>",
                    k ? "vcrc" : "icrc", i, v[k][IB_CRC_VERIFIED], v[k][IB_CRC_MISMATCH],
                    v[k][IB_CRC_NOT_PRESENT]);
            html_text(out, m->captures[i].info.path);
            fprintf(out,
                    "</td><td>%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n%s\">%" PRIu64
                    "</td><td class=\"n\">%" PRIu64 "</td></tr>\n",
                    k ? "VCRC" : "ICRC", v[k][IB_CRC_VERIFIED],
                    v[k][IB_CRC_MISMATCH] ? " sev-warning" : "", v[k][IB_CRC_MISMATCH],
                    v[k][IB_CRC_NOT_PRESENT]);
        }
    }
    fputs("</tbody></table></section>\n", out);
}

/* ---- a merge's hosts ---- */

static void write_hosts(FILE *out, const struct report_model *m)
{
    fputs("<section id=\"hosts\"><h2>Hosts</h2><table><thead><tr><th data-sort=\"s\">host</th>"
          "<th class=\"n\" data-sort=\"n\">captures</th><th class=\"n\" data-sort=\"n\">"
          "frames</th><th class=\"n\" data-sort=\"n\">sources</th><th class=\"n\" "
          "data-sort=\"n\">findings</th><th>pool</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < m->host_count; i++) {
        const struct report_host *h = &m->hosts[i];
        fputs("<tr data-host=\"", out);
        html_text(out, h->name);
        fprintf(out, "\" data-findings=\"%" PRIu64 "\"><td>", h->findings_total);
        html_text(out, h->name);
        fprintf(out,
                "</td><td class=\"n\">%" PRIu32 "</td><td class=\"n\">%" PRIu64
                "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                "</td><td>%u-%u</td></tr>\n",
                h->capture_count, h->frames, h->source_count, h->findings_total, h->pool.low,
                h->pool.high);
    }
    fputs("</tbody></table><p>A merge sees each host's capture on its own: a source captured "
          "on two hosts is two sources here, and what one host's traffic did to another's is "
          "not seen.</p></section>\n",
          out);
}

/* One bar of the sources nearest exhaustion: its share of its host's pool. */
static void write_nearest_bar(FILE *out, const struct report_model *m, size_t k)
{
    size_t i = m->nearest[k];
    const struct ib_source_stats *s = m->sources[i];
    const char *host = m->hosts[m->source_host[i]].name;
    struct source_labels l;
    source_labels(m, s, &l);
    double pct = s->pool_utilization, y = 10 + k * 24.0, w = 480 * (pct > 100 ? 100 : pct) / 100;
    fputs("<g data-host=\"", out);
    html_text(out, host);
    fputs("\" data-source=\"", out);
    html_text(out, l.name);
    fprintf(out,
            "\" data-peak=\"%" PRIu32 "\" data-pool-pct=\"%.2f\"><text x=\"290\" "
            "y=\"%.1f\" text-anchor=\"end\">",
            s->peak_ports_in_use, pct, y + 14);
    html_textf(out, "%s: %s", host, l.name);
    fprintf(out,
            "</text><rect x=\"300\" y=\"%.1f\" width=\"480\" height=\"18\" "
            "class=\"above\"/><rect class=\"bar%s\" x=\"300\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"18\"/><text x=\"%.1f\" y=\"%.1f\">",
            y, s->exhausted ? " rejected" : "", y, w < 1 ? 1 : w, 788.0, y + 14);
    html_textf(out, "%" PRIu32 " (%.1f%%) frame %s%s", s->peak_ports_in_use, pct, l.peak,
               s->exhausted ? " \xe2\x9c\x97 exhausted" : "");
    fputs("</text></g>\n", out);
}

static void write_nearest(FILE *out, const struct report_model *m)
{
    fputs("<section id=\"nearest\"><h2>Sources nearest exhaustion</h2>\n", out);
    if (!m->nearest_count) {
        fputs("<p>No IP CM connection requests.</p></section>\n", out);
        return;
    }
    fprintf(out,
            "<figure><svg viewBox=\"0 0 1060 %.0f\" role=\"img\" aria-labelledby=\"nt nd\">"
            "<title id=\"nt\">Sources nearest exhaustion</title><desc id=\"nd\">The %zu "
            "sources with the largest share of their host's port pool in use at their "
            "peak, one port per connection.</desc>\n",
            30 + m->nearest_count * 24.0, m->nearest_count);
    for (size_t k = 0; k < m->nearest_count; k++)
        write_nearest_bar(out, m, k);
    fputs("</svg><figcaption>Peak ports in use, one port per connection, as a share of each "
          "host's own pool (the light bar is the whole pool); \xe2\x9c\x97 marks an exhausted "
          "pool.</figcaption></figure></section>\n",
          out);
}

static int html_end(void *p, const struct report_model *m)
{
    struct html_state *st = p;
    FILE *out = st->out;
    if (m->host_count) {
        html_page_begin(out, "ibscope fabric report", m->version);
        fprintf(out,
                "<header><h1>ibscope fabric report</h1><p>ibscope %s, %zu host%s merged."
                "</p></header>\n",
                m->version, m->host_count, m->host_count == 1 ? "" : "s");
        write_hosts(out, m);
    } else {
        html_page_begin(out, "ibscope report", m->version);
        fprintf(out,
                "<header><h1>ibscope report</h1><p>ibscope %s, %zu capture%s.</p>"
                "</header>\n",
                m->version, m->capture_count, m->capture_count == 1 ? "" : "s");
    }
    write_summary(out, m);
    write_sources(out, st, m);
    if (m->host_count)
        write_nearest(out, m);
    html_transport_section(out, m, st->kinds);
    html_wire_section(out, m, st->wire);
    html_congestion_section(out, m, st->congestion);
    write_findings(out, st, m);
    write_chains(out, st, m);
    write_cm(out, st, m);
    write_crc(out, m);
    html_page_end(out);
    for (size_t i = 0; i < st->listed_count; i++)
        free(st->listed[i].message);
    html_state_free(st);
    return 0;
}

static void html_congestion_change(void *p, const struct report_model *m,
                                   const struct ib_congestion_change *c)
{
    struct html_state *st = p;
    (void)m;
    html_congestion_event(st->congestion, c);
}

const struct report_renderer report_html = {
    .begin = html_begin,
    .finding = html_finding,
    .connection = html_connection,
    .end = html_end,
    .usage = html_usage,
    .congestion = html_congestion_change,
    .wants_connections = true,
};
