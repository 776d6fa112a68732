/* html_transport.c - the HTML report's RC queue pairs (html_transport.h).
 *
 * The timeline stacks, per interval of the capture, the NAKs, RNR NAKs and
 * transport retransmissions found, from the findings' own count series
 * (time_series.h).  A sequence chart draws a traced queue pair's PSNs
 * against time: requests, resends and the answers each with its shape,
 * the frames of its findings labelled.  Every mark carries data-* with
 * what it shows, for the tests to read back. */
#include "html_transport.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_writer.h"
#include "psn.h"
#include "qp_trace.h"
#include "report_format.h"

/* The timeline's kinds, bottom of the stack first. */
static const enum ib_finding_kind timeline_kinds[] = {
    IB_FIND_TRANSPORT_RETRANSMISSION,
    IB_FIND_NAK,
    IB_FIND_RNR_NAK,
};
#define TIMELINE_KINDS (sizeof timeline_kinds / sizeof timeline_kinds[0])

/* Labels on one chart at most, and the room one takes: a chart of
 * hundreds of resends would be all words. */
#define CHART_LABELS    24
#define PSN_HALF_WINDOW (1u << 23)

void html_transport_finding(struct series kinds[IB_FIND_COUNT], const struct ib_finding *f)
{
    for (size_t i = 0; i < TIMELINE_KINDS; i++)
        if (f->kind == timeline_kinds[i]) {
            for (size_t j = 0; j < TIMELINE_KINDS; j++)
                series_start(&kinds[timeline_kinds[j]], f->at.time_ns);
            return;
        }
}

/* ---- the timeline ---- */

/* The timeline's series widened alike; their last column and the most
 * any column holds, all kinds together. */
static void timeline_columns(struct series kinds[IB_FIND_COUNT], uint32_t *last, uint64_t *most)
{
    int64_t width = 0;
    for (size_t k = 0; k < TIMELINE_KINDS; k++)
        if (kinds[timeline_kinds[k]].started && kinds[timeline_kinds[k]].width > width)
            width = kinds[timeline_kinds[k]].width;
    *last = 0;
    for (size_t k = 0; k < TIMELINE_KINDS; k++) {
        series_widen_to(&kinds[timeline_kinds[k]], width);
        if (kinds[timeline_kinds[k]].started && kinds[timeline_kinds[k]].last > *last)
            *last = kinds[timeline_kinds[k]].last;
    }
    *most = 1;
    for (uint32_t i = 0; i <= *last; i++) {
        uint64_t sum = 0;
        for (size_t k = 0; k < TIMELINE_KINDS; k++)
            sum += kinds[timeline_kinds[k]].started ? kinds[timeline_kinds[k]].col[i].hi : 0;
        if (sum > *most)
            *most = sum;
    }
}

/* One kind's bars, on top of what the kinds below put in each column. */
static void timeline_kind(FILE *out, const struct plot *p, const struct report_model *m,
                          enum ib_finding_kind kind, const struct series *s, uint32_t last,
                          uint64_t below[SERIES_COLUMNS])
{
    const char *name = ib_finding_kind_name(kind);
    fprintf(out, "<g class=\"tl-%s\" data-tl-kind=\"%s\" data-tl-count=\"%" PRIu64 "\">", name,
            name, m->findings[kind]);
    for (uint32_t i = 0; s->started && i <= last; i++) {
        uint32_t n = s->col[i].hi;
        if (!n)
            continue;
        int64_t t = series_column_start(s, i);
        double x = plot_x(p, t), w = plot_x(p, series_column_start(s, i + 1)) - x;
        double y0 = plot_y(p, (double)below[i]), y1 = plot_y(p, (double)(below[i] + n));
        char at[32];
        fmt_seconds(t - m->min_ns, at, sizeof at);
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" data-n=\"%" PRIu32
                "\"><title>%" PRIu32 " %s from %s s</title></rect>",
                x, y1, w < 1.5 ? 1.5 : w, y0 - y1, n, n, name, at);
        below[i] += n;
    }
    fputs("</g>\n", out);
}

static void timeline_legend(FILE *out, double x, double y)
{
    fprintf(out, "<g transform=\"translate(%.1f,%.1f)\">", x, y);
    for (size_t k = 0; k < TIMELINE_KINDS; k++) {
        const char *name = ib_finding_kind_name(timeline_kinds[k]);
        fprintf(out,
                "<rect class=\"tl-%s\" x=\"%zu\" y=\"-8\" width=\"10\" height=\"10\"/>"
                "<text x=\"%zu\" y=\"1\">%s</text>",
                name, k * 200, k * 200 + 14, name);
    }
    fputs("</g>", out);
}

static void write_timeline(FILE *out, const struct report_model *m,
                           struct series kinds[IB_FIND_COUNT])
{
    uint64_t total = 0;
    for (size_t k = 0; k < TIMELINE_KINDS; k++)
        total += m->findings[timeline_kinds[k]];
    if (!total)
        return;
    uint32_t last;
    uint64_t most, *below = calloc(SERIES_COLUMNS, sizeof *below);
    if (!below)
        return;
    timeline_columns(kinds, &last, &most);
    struct plot p = { 60, 24, 620, 150, m->min_ns, m->max_ns, (double)most * 1.1 };
    fputs("<figure id=\"transport-timeline\"><svg viewBox=\"0 0 700 230\" role=\"img\" "
          "aria-labelledby=\"ttt ttd\"><title id=\"ttt\">NAKs, RNR NAKs and retransmissions "
          "over time</title><desc id=\"ttd\">Per interval of the capture, the transport "
          "retransmissions, NAKs and RNR NAKs found, stacked.</desc>\n",
          out);
    plot_axes(out, &p, "per interval");
    for (size_t k = 0; k < TIMELINE_KINDS; k++)
        timeline_kind(out, &p, m, timeline_kinds[k], &kinds[timeline_kinds[k]], last, below);
    timeline_legend(out, p.x, 222);
    free(below);
    fputs("</svg><figcaption>Transport retransmissions, NAKs and RNR NAKs per interval of the "
          "capture, stacked; each bar's tooltip says how many and from when.</figcaption>"
          "</figure>\n",
          out);
}

/* ---- the sequence charts ---- */

/* A PSN's distance from the one before, -2^23 to 2^23 - 1: PSNs wrap. */
static int64_t psn_step(uint32_t from, uint32_t to)
{
    uint32_t d = (to - from) & IB_PSN_MASK;
    return d >= PSN_HALF_WINDOW ? (int64_t)d - (IB_PSN_MASK + 1) : (int64_t)d;
}

/* The chart's scales: times of the points, PSNs unwrapped from the first. */
struct seq_scale {
    struct plot p;
    int64_t lo, hi; /* unwrapped PSNs */
    uint32_t first_psn;
};

static double seq_y(const struct seq_scale *sc, int64_t u)
{
    return sc->p.y + sc->p.h - (double)(u - sc->lo) / (double)(sc->hi - sc->lo) * sc->p.h;
}

static void seq_scale_of(const struct report_qp *q, struct seq_scale *sc)
{
    int64_t t0 = q->trace[0].time_ns, t1 = t0, u = 0;
    sc->lo = sc->hi = 0;
    sc->first_psn = q->trace[0].psn;
    for (uint32_t i = 1; i < q->trace_count; i++) {
        const struct report_trace_point *pt = &q->trace[i];
        u += psn_step(q->trace[i - 1].psn, pt->psn);
        sc->lo = u < sc->lo ? u : sc->lo;
        sc->hi = u > sc->hi ? u : sc->hi;
        t0 = pt->time_ns < t0 ? pt->time_ns : t0;
        t1 = pt->time_ns > t1 ? pt->time_ns : t1;
    }
    sc->lo -= 1;
    sc->hi += 1; /* a point on the edge stays inside */
    int64_t pad = (t1 - t0) / 40 + 1;
    sc->p = (struct plot){ 90, 24, 590, 200, t0 - pad, t1 + pad, 0 };
}

/* Each point's shape: a kind told by shape as much as colour. */
static void point_mark(FILE *out, const struct report_trace_point *pt, double x, double y)
{
    switch (pt->kind) {
    case REPORT_TRACE_REQUEST:
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"", x, y);
        break;
    case REPORT_TRACE_RESEND:
        fprintf(out, "<path d=\"M%.1f %.1fl7 7m0 -7l-7 7\"", x - 3.5, y - 3.5);
        break;
    case REPORT_TRACE_ACK: fprintf(out, "<path d=\"M%.1f %.1fh8l-4 7z\"", x - 4, y - 3.5); break;
    case REPORT_TRACE_RESPONSE:
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"", x, y);
        break;
    case REPORT_TRACE_NAK:
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\"", x - 3.5, y - 3.5);
        break;
    default: fprintf(out, "<path d=\"M%.1f %.1fl4.5 4.5l-4.5 4.5l-4.5 -4.5z\"", x, y - 4.5); break;
    }
}

static bool is_problem(uint8_t kind)
{
    return kind == REPORT_TRACE_RESEND || kind == REPORT_TRACE_NAK || kind == REPORT_TRACE_RNR_NAK;
}

/* One point: its mark, with what it is in data-* and its tooltip. */
static void write_point(FILE *out, const struct report_model *m,
                        const struct report_trace_point *pt, double x, double y)
{
    char fr[32];
    const char *kind = report_trace_kind_name(pt->kind);
    fmt_frame(&(struct ib_frame_ref){ pt->capture, pt->frame, pt->time_ns }, m->capture_count, fr,
              sizeof fr);
    point_mark(out, pt, x, y);
    fprintf(out,
            " class=\"tr-%s\" data-frame=\"%s\" data-psn=\"%" PRIu32 "\" data-kind=\"%s\""
            " data-finding=\"%s\"><title>frame %s: %s, PSN %" PRIu32 "%s%s</title>",
            kind, fr, pt->psn, kind,
            pt->has_finding ? ib_finding_kind_name((enum ib_finding_kind)pt->finding) : "", fr,
            kind, pt->psn, pt->has_finding ? ", " : "",
            pt->has_finding ? ib_finding_kind_name((enum ib_finding_kind)pt->finding) : "");
    switch (pt->kind) {
    case REPORT_TRACE_REQUEST:
    case REPORT_TRACE_RESPONSE: fputs("</circle>", out); break;
    case REPORT_TRACE_NAK: fputs("</rect>", out); break;
    default: fputs("</path>", out); break;
    }
}

/* The labels placed on a chart, as boxes, so that none covers another. */
struct label_room {
    unsigned count;
    struct {
        double x0, x1, y0, y1;
    } box[CHART_LABELS];
};

#define LABEL_CHAR_PX 6.2 /* a label's width per character, at 10px */
#define LABEL_HEIGHT  11.0

static bool label_fits(const struct label_room *r, double x0, double x1, double y)
{
    for (unsigned i = 0; i < r->count; i++)
        if (x0 < r->box[i].x1 && r->box[i].x0 < x1 && y - LABEL_HEIGHT < r->box[i].y1 &&
            r->box[i].y0 < y)
            return false;
    return true;
}

/* A label's place for a point at (x, y): right of it above, then below,
 * then left of it (the chart's right edge), else none (false: its tooltip
 * still says).  *lx is where the text starts. */
static bool place_label(struct label_room *r, const struct plot *p, double x, double y,
                        const char *text, double *lx, double *ly)
{
    double w = LABEL_CHAR_PX * (double)strlen(text);
    const double xs[] = { x + 5, x - 5 - w }, ys[] = { y - 6, y + 14 };
    for (size_t i = 0; i < 4 && r->count < CHART_LABELS; i++) {
        double x0 = xs[i / 2], x1 = x0 + w;
        if (x1 > p->x + p->w + 20 || x0 < p->x || !label_fits(r, x0, x1, ys[i % 2]))
            continue;
        *lx = x0;
        *ly = ys[i % 2];
        r->box[r->count].x0 = x0;
        r->box[r->count].x1 = x1;
        r->box[r->count].y0 = ys[i % 2] - LABEL_HEIGHT;
        r->box[r->count++].y1 = ys[i % 2];
        return true;
    }
    return false;
}

/* The findings' names by their frames, CHART_LABELS at most. */
static void write_labels(FILE *out, const struct report_qp *q, const struct seq_scale *sc)
{
    struct label_room room = { 0 };
    int64_t u = 0;
    for (uint32_t i = 0; i < q->trace_count && room.count < CHART_LABELS; i++) {
        const struct report_trace_point *pt = &q->trace[i];
        if (i)
            u += psn_step(q->trace[i - 1].psn, pt->psn);
        if (!pt->has_finding)
            continue;
        const char *name = ib_finding_kind_name((enum ib_finding_kind)pt->finding);
        double x = plot_x(&sc->p, pt->time_ns), y = seq_y(sc, u), lx, ly;
        if (!place_label(&room, &sc->p, x, y, name, &lx, &ly))
            continue;
        fprintf(out, "<text class=\"tr-label\" x=\"%.1f\" y=\"%.1f\">%s</text>", lx, ly, name);
    }
}

/* The PSN axis: up to PSN_TICKS PSNs as they are on the wire (a wrap
 * shows as 16777215 below 0). */
#define PSN_TICKS 5
static void psn_axis(FILE *out, const struct seq_scale *sc)
{
    int64_t lo = sc->lo + 1, hi = sc->hi - 1, prev = INT64_MIN;
    for (int i = 0; i < PSN_TICKS; i++) {
        int64_t u = lo + (hi - lo) * i / (PSN_TICKS - 1);
        if (u == prev)
            continue;
        prev = u;
        uint32_t psn = (uint32_t)((int64_t)sc->first_psn + u) & IB_PSN_MASK;
        double y = seq_y(sc, u);
        fprintf(out,
                "<g class=\"axis\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%" PRIu32 "</text>",
                sc->p.x - 4, y, sc->p.x, y, sc->p.x - 6, y + 4, psn);
    }
}

static void seq_legend(FILE *out, double y)
{
    static const double gap = 100;
    fprintf(out, "<g transform=\"translate(90,%.1f)\">", y);
    for (unsigned k = 0; k < REPORT_TRACE_KIND_COUNT; k++) {
        const struct report_trace_point pt = { .kind = (uint8_t)k };
        point_mark(out, &pt, k * gap + 5, -4);
        fprintf(out, " class=\"tr-%s\"/><text x=\"%.1f\" y=\"0\">%s</text>",
                report_trace_kind_name(k), k * gap + 14, report_trace_kind_name(k));
    }
    fputs("</g>", out);
}

static void chart_caption(FILE *out, const struct report_model *m, const struct report_qp *q)
{
    char dst[64], first[32], last[32];
    const struct report_trace_point *a = &q->trace[0], *b = &q->trace[q->trace_count - 1];
    fmt_node(&q->stats.qp.dst, dst, sizeof dst);
    fmt_frame(&(struct ib_frame_ref){ a->capture, a->frame, a->time_ns }, m->capture_count, first,
              sizeof first);
    fmt_frame(&(struct ib_frame_ref){ b->capture, b->frame, b->time_ns }, m->capture_count, last,
              sizeof last);
    fprintf(out,
            "<figcaption><strong>QP 0x%06" PRIx32 " of %s</strong> (queue pair %" PRIu32
            "%s): %" PRIu32 " frames, %s to %s",
            q->stats.qp.qpn, dst, q->stats.qp.index, q->stats.died ? ", died" : "", q->trace_count,
            first, last);
    if (q->trace_dropped)
        fprintf(out, "; %" PRIu64 " later frames past the %d a trace keeps are not drawn",
                q->trace_dropped, REPORT_TRACE_POINTS_MAX);
    fputs(". PSN against time from its first frame drawn; the frames with findings are "
          "labelled (each mark's tooltip says its frame).</figcaption>",
          out);
}

static void write_sequence_chart(FILE *out, const struct report_model *m, const struct report_qp *q)
{
    struct seq_scale sc;
    seq_scale_of(q, &sc);
    uint32_t idx = q->stats.qp.index;
    fprintf(out,
            "<figure class=\"sequence\" data-qp=\"%" PRIu32 "\" data-qpn=\"%" PRIu32
            "\" data-points=\"%" PRIu32 "\"><svg viewBox=\"0 0 700 270\" role=\"img\" "
            "aria-labelledby=\"sqt%" PRIu32 "\"><title id=\"sqt%" PRIu32
            "\">PSN against time, queue pair %" PRIu32 "</title>\n",
            idx, q->stats.qp.qpn, q->trace_count, idx, idx, idx);
    plot_axes(out, &sc.p, "PSN");
    psn_axis(out, &sc);
    /* The problems (resends, NAKs, RNR NAKs) over the rest: not hidden by them. */
    for (int pass = 0; pass < 2; pass++) {
        int64_t u = 0;
        for (uint32_t i = 0; i < q->trace_count; i++) {
            const struct report_trace_point *pt = &q->trace[i];
            if (i)
                u += psn_step(q->trace[i - 1].psn, pt->psn);
            if (is_problem(pt->kind) == (pass == 1))
                write_point(out, m, pt, plot_x(&sc.p, pt->time_ns), seq_y(&sc, u));
        }
    }
    write_labels(out, q, &sc);
    seq_legend(out, 262);
    fputs("</svg>", out);
    chart_caption(out, m, q);
    fputs("</figure>\n", out);
}

static void write_sequence_charts(FILE *out, const struct report_model *m)
{
    size_t traced = 0, charted = 0;
    struct report_qp buf;
    for (size_t i = 0; i < m->qp_count; i++) {
        const struct report_qp *q = report_qp(m, i, &buf);
        if (!q->traced || !q->trace_count)
            continue;
        traced++;
        if (charted == HTML_QPS_CHARTED)
            continue;
        write_sequence_chart(out, m, q);
        charted++;
    }
    if (traced > charted || m->qps_not_traced)
        fprintf(out,
                "<p id=\"sequence-left-out\" data-not-charted=\"%zu\" data-not-traced=\"%" PRIu64
                "\">%zu of the %zu traced queue pairs are charted; %" PRIu64
                " more with transport findings were not traced (the first %d are). Each is in "
                "the JSON report's qps[].</p>\n",
                traced - charted, m->qps_not_traced, charted, traced, m->qps_not_traced,
                REPORT_TRACED_QPS_MAX);
}

void html_transport_section(FILE *out, const struct report_model *m,
                            struct series kinds[IB_FIND_COUNT])
{
    if (!m->qp_count)
        return;
    fputs("<section id=\"transport\"><h2>RC queue pairs</h2>\n", out);
    fprintf(out,
            "<p>%zu queue pair direction%s followed. Each of the first %d with a transport "
            "finding is traced from its first one (with the frames of it just before): its "
            "sequence chart below, problems first.</p>\n",
            m->qp_count, m->qp_count == 1 ? "" : "s", REPORT_TRACED_QPS_MAX);
    write_timeline(out, m, kinds);
    write_sequence_charts(out, m);
    fputs("</section>\n", out);
}
