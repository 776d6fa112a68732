/* html_congestion.c - the HTML report's congestion section (html_congestion.h).
 *
 * A run's engine tells each CE mark, CNP and pause as it happens; they are
 * counted into series that start together, so their columns line up: CE
 * marks and CNPs per interval, and per priority the time paused in each
 * interval (a pause's time split across the intervals it lasted).  The
 * chart is one lane per series, each bar with its number in data-n and
 * each lane its total in data-total, for the tests to add up.  The tables
 * are the report's congestion.cnp[] and pfc[], the rows that carry a
 * finding (no CNP, a storm) marked with a shape as well as a colour. */
#include "html_congestion.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_writer.h"
#include "report_format.h"
#include "time_series.h"

/* The series: CE marks, CNPs, and the time paused per PFC priority
 * (IB_PFC_ALL: 802.3x PAUSE), every capture's together. */
enum { LANE_CE, LANE_CNP, LANE_PAUSED, LANES = LANE_PAUSED + IB_PFC_CLASSES };

struct html_congestion {
    struct series lane[LANES];
    int64_t paused_ns[IB_PFC_CLASSES]; /* the lanes' totals, as the engine adds them */
};

#define LANE_H    36.0
#define BAR_MAX   26.0
#define WARN_MARK "\xe2\x96\xb2" /* the warning's triangle */

struct html_congestion *html_congestion_new(void)
{
    struct html_congestion *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    series_init(&c->lane[LANE_CE], SERIES_COUNT);
    series_init(&c->lane[LANE_CNP], SERIES_COUNT);
    for (unsigned p = 0; p < IB_PFC_CLASSES; p++)
        series_init(&c->lane[LANE_PAUSED + p], SERIES_SUM);
    return c;
}

void html_congestion_free(struct html_congestion *c)
{
    free(c);
}

void html_congestion_event(struct html_congestion *c, const struct ib_congestion_change *e)
{
    int64_t t = e->event == IB_EVENT_PAUSE_END ? e->start_ns : e->time_ns;
    for (unsigned i = 0; i < LANES; i++)
        series_start(&c->lane[i], t);
    switch (e->event) {
    case IB_EVENT_CE: series_count(&c->lane[LANE_CE], e->time_ns, 1); break;
    case IB_EVENT_CNP: series_count(&c->lane[LANE_CNP], e->time_ns, 1); break;
    case IB_EVENT_PAUSE_START: break; /* its time comes with its end */
    case IB_EVENT_PAUSE_END:
        if (e->priority < IB_PFC_CLASSES && e->time_ns > e->start_ns) {
            series_add_span(&c->lane[LANE_PAUSED + e->priority], e->start_ns, e->time_ns);
            c->paused_ns[e->priority] += e->time_ns - e->start_ns;
        }
        break;
    }
}

/* ---- the chart ---- */

static uint64_t column_value(const struct series *s, uint32_t i)
{
    return s->kind == SERIES_SUM ? s->col[i].sum : s->col[i].hi;
}

static uint64_t lane_total(const struct html_congestion *c, unsigned lane)
{
    const struct series *s = &c->lane[lane];
    if (lane >= LANE_PAUSED)
        return (uint64_t)c->paused_ns[lane - LANE_PAUSED];
    uint64_t n = 0;
    for (uint32_t i = 0; s->started && i <= s->last; i++)
        n += column_value(s, i);
    return n;
}

/* Priority 0..7, or "all" for PAUSE: the page's and data-priority's word. */
static void priority_word(unsigned cls, char buf[8])
{
    if (cls >= IB_PFC_ALL)
        snprintf(buf, 8, "all");
    else
        snprintf(buf, 8, "%u", cls & 7u);
}

/* Whether any pfc[] entry of this class had a storm, or RoCE used it. */
static void class_flags(const struct report_model *m, unsigned cls, bool *storm, bool *roce)
{
    *storm = *roce = false;
    for (uint32_t i = 0; i < m->congestion.pfc_count; i++) {
        const struct ib_pfc_stats *p = &m->congestion.pfcs[i];
        if (p->priority != cls)
            continue;
        *storm |= p->storms != 0;
        *roce |= p->roce;
    }
}

/* The lane's label: its name, and under it its total. */
static void lane_label(FILE *out, const struct report_model *m, const struct html_congestion *c,
                       unsigned lane, double y)
{
    char total[48], prio[8] = "";
    const char *name = lane == LANE_CE ? "CE marks" : "CNPs";
    bool storm = false, roce = false;
    if (lane < LANE_PAUSED) {
        snprintf(total, sizeof total, "%" PRIu64 " in all", lane_total(c, lane));
    } else {
        unsigned cls = lane - LANE_PAUSED;
        class_flags(m, cls, &storm, &roce);
        fmt_duration(c->paused_ns[cls], total, sizeof total);
        strncat(total, roce ? ", RoCE uses it" : "", sizeof total - strlen(total) - 1);
        priority_word(cls, prio);
        name = cls == IB_PFC_ALL ? "PAUSE (every priority)" : NULL;
    }
    fprintf(out, "<text x=\"184\" y=\"%.1f\" text-anchor=\"end\">", y + 13);
    if (name)
        fputs(name, out);
    else
        fprintf(out, "priority %s paused", prio);
    if (storm)
        fputs(" <tspan class=\"cg-storm\">" WARN_MARK " storm</tspan>", out);
    fprintf(out,
            "</text><text class=\"cg-total\" x=\"184\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
            y + 26, total);
}

/* The bar of columns i to j, which hold the same number each (a long
 * pause: one bar, not hundreds): their sum, their interval, a tooltip. */
static void write_bar(FILE *out, const struct plot *p, const struct report_model *m,
                      const struct series *s, unsigned lane, uint32_t i, uint32_t j, double y,
                      double most)
{
    bool paused = lane >= LANE_PAUSED;
    uint64_t each = column_value(s, i), n = each * (j - i + 1);
    int64_t t = series_column_start(s, i), end = series_column_start(s, j + 1);
    double x = plot_x(p, t), w = plot_x(p, end) - x;
    double v = (double)each / (paused ? (double)s->width : 1.0);
    double h = 2 + (BAR_MAX - 2) * v / most;
    char at[32], to[32], what[48];
    fmt_seconds(t - m->min_ns, at, sizeof at);
    fmt_seconds(end - m->min_ns, to, sizeof to);
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" data-n=\"%" PRIu64
            "\" data-from-ns=\"%" PRId64 "\" data-to-ns=\"%" PRId64 "\"><title>",
            x, y + 4 + BAR_MAX - h, w < 1.5 ? 1.5 : w, h, n, t, end);
    if (paused) {
        fmt_duration((int64_t)n, what, sizeof what);
        fprintf(out, "%s paused", what);
    } else {
        fprintf(out, "%" PRIu64 " %s", n,
                lane == LANE_CE ? (n == 1 ? "CE mark" : "CE marks") : (n == 1 ? "CNP" : "CNPs"));
    }
    fprintf(out, " from %s to %s s</title></rect>", at, to);
}

/* One lane's bars: counts against the lane's most, time paused against
 * the interval's length (a full bar: paused all of it, on one link). */
static void write_lane(FILE *out, const struct plot *p, const struct report_model *m,
                       const struct html_congestion *c, unsigned lane, uint32_t last, double y)
{
    const struct series *s = &c->lane[lane];
    bool paused = lane >= LANE_PAUSED;
    char prio[8] = "";
    if (paused)
        priority_word(lane - LANE_PAUSED, prio);
    const char *key = paused ? "paused" : lane == LANE_CE ? "ce" : "cnp";
    fprintf(out, "<g class=\"cg-lane cg-%s\" data-series=\"%s\"", key, key);
    if (paused)
        fprintf(out, " data-priority=\"%s\"", prio);
    fprintf(out, " data-total=\"%" PRIu64 "\">", lane_total(c, lane));
    lane_label(out, m, c, lane, y);
    double most = 1;
    for (uint32_t i = 0; i <= last; i++) {
        double v = (double)column_value(s, i) / (paused ? (double)s->width : 1.0);
        most = v > most ? v : most;
    }
    for (uint32_t i = 0, j; i <= last; i = j + 1) {
        for (j = i; j < last && column_value(s, j + 1) == column_value(s, i);)
            j++;
        if (column_value(s, i))
            write_bar(out, p, m, s, lane, i, j, y, most);
    }
    fputs("</g>\n", out);
}

/* The lanes with something in them: CE and CNP when the report has
 * flows, each priority that was paused. */
static unsigned chart_lanes(const struct report_model *m, const struct html_congestion *c,
                            unsigned lanes[LANES])
{
    unsigned n = 0;
    for (unsigned l = 0; l < LANES; l++)
        if (l < LANE_PAUSED ? m->congestion.cnp_count != 0 : c->paused_ns[l - LANE_PAUSED] > 0)
            lanes[n++] = l;
    return n;
}

static void write_chart(FILE *out, const struct report_model *m, struct html_congestion *c)
{
    unsigned lanes[LANES], n = chart_lanes(m, c, lanes);
    if (!c->lane[0].started || !n) {
        fputs("<p id=\"congestion-no-chart\">No CE mark, CNP or pause to chart over time.</p>\n",
              out);
        return;
    }
    int64_t width = 0;
    uint32_t last = 0;
    for (unsigned l = 0; l < LANES; l++)
        width = c->lane[l].width > width ? c->lane[l].width : width;
    for (unsigned l = 0; l < LANES; l++) {
        series_widen_to(&c->lane[l], width);
        last = c->lane[l].last > last ? c->lane[l].last : last;
    }
    struct plot p = { 190, 14, 490, n * LANE_H, m->min_ns, m->max_ns, 0 };
    fprintf(out,
            "<figure id=\"congestion-chart\"><svg viewBox=\"0 0 700 %.0f\" role=\"img\" "
            "aria-labelledby=\"cgt cgd\"><title id=\"cgt\">CE marks, CNPs and pauses over "
            "time</title><desc id=\"cgd\">Per interval of the capture: CE marks and CNPs "
            "counted, and for each paused priority the time it was paused.</desc>\n",
            p.y + p.h + 34);
    for (unsigned k = 0; k < n; k++)
        write_lane(out, &p, m, c, lanes[k], last, p.y + k * LANE_H);
    plot_axes(out, &p, "");
    fputs("</svg><figcaption>CE marks and CNPs per interval, each lane against its busiest "
          "interval; time paused per priority, a full bar for a whole interval paused (every "
          "link's pauses together). Each bar's tooltip says how much and from when.</figcaption>"
          "</figure>\n",
          out);
}

/* ---- the tables ---- */

/* A merge's host of a frame's capture, as a cell. */
static void host_cell(FILE *out, const struct report_model *m, uint32_t capture)
{
    const struct report_host *h = report_capture_host(m, capture);
    if (!m->host_count)
        return;
    fputs("<td>", out);
    html_text(out, h ? h->name : "-");
    fputs("</td>", out);
}

static void duration_cell(FILE *out, bool has, int64_t ns)
{
    char d[32] = "-";
    if (has)
        fmt_duration(ns, d, sizeof d);
    fprintf(out, "<td class=\"n\">%s</td>", d);
}

/* A table's end, and how many rows past HTML_CONGESTION_LISTED it left to
 * the JSON report's congestion.KEY[]. */
static void table_end(FILE *out, uint32_t count, const char *rows, const char *key)
{
    fputs("</tbody></table></div>\n", out);
    if (count > HTML_CONGESTION_LISTED)
        fprintf(out,
                "<p data-not-listed=\"%" PRIu32 "\">The first %d of %" PRIu32 " %s are listed; "
                "the JSON report's congestion.%s[] has every one.</p>\n",
                count - HTML_CONGESTION_LISTED, HTML_CONGESTION_LISTED, count, rows, key);
}

static void cnp_row(FILE *out, const struct report_model *m, uint32_t i)
{
    const struct ib_cnp_stats *c = &m->congestion.cnps[i];
    char sender[64], receiver[64], rate[32] = "-";
    fmt_node(&c->sender, sender, sizeof sender);
    fmt_node(&c->receiver, receiver, sizeof receiver);
    if (c->has_cnp_rate)
        snprintf(rate, sizeof rate, "%.0f/s", c->cnp_rate_per_s);
    fprintf(out,
            "<tr data-cnp=\"%" PRIu32 "\" data-ce-marks=\"%" PRIu64 "\" data-cnps=\"%" PRIu64
            "\" data-unanswered=\"%" PRIu64 "\"%s>",
            i, c->ce_marks, c->cnps, c->unanswered,
            c->unanswered ? " class=\"mark\" data-finding=\"ce_without_cnp\"" : "");
    host_cell(out, m, c->first.capture);
    fputs("<td>", out);
    html_text(out, sender);
    fprintf(out, "</td><td>0x%06" PRIx32 "</td><td>", c->sender_qpn);
    html_text(out, receiver);
    fprintf(out,
            "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
            "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%s%" PRIu64
            "</td><td class=\"n\">%" PRIu64 "</td>",
            c->ce_marks, c->cnps, c->answered, c->unanswered ? WARN_MARK " " : "", c->unanswered,
            c->open_at_end);
    duration_cell(out, c->has_delay, c->delay_min_ns);
    duration_cell(out, c->has_delay, c->delay_mean_ns);
    duration_cell(out, c->has_delay, c->delay_max_ns);
    duration_cell(out, c->has_cnp_gap, c->cnp_gap_min_ns);
    fprintf(out, "<td class=\"n\">%s</td></tr>\n", rate);
}

static void write_cnps(FILE *out, const struct report_model *m)
{
    const struct report_congestion *g = &m->congestion;
    if (!g->cnp_count)
        return;
    fprintf(out,
            "<h3>CE marks and CNPs per sender QP</h3><div class=\"wide\"><table id=\"cnp-table\" "
            "class=\"dense\"><thead><tr>%s"
            "<th>sender</th><th>QP</th><th>receiver</th><th class=\"n\">CE marks</th>"
            "<th class=\"n\">CNPs</th><th class=\"n\">answered</th><th class=\"n\">no CNP</th>"
            "<th class=\"n\">open at end</th><th class=\"n\">delay min</th><th class=\"n\">"
            "mean</th><th class=\"n\">max</th><th class=\"n\">shortest CNP gap</th>"
            "<th class=\"n\">CNP rate</th></tr></thead><tbody>\n",
            m->host_count ? "<th>host</th>" : "");
    for (uint32_t i = 0; i < g->cnp_count && i < HTML_CONGESTION_LISTED; i++)
        cnp_row(out, m, i);
    table_end(out, g->cnp_count, "flows", "cnp");
}

static void pfc_row(FILE *out, const struct report_model *m, uint32_t i)
{
    const struct ib_pfc_stats *p = &m->congestion.pfcs[i];
    char prio[8], paused[32], longest[32], fr[32] = "-";
    priority_word(p->pfc ? p->priority : IB_PFC_ALL, prio);
    fmt_duration(p->paused_ns, paused, sizeof paused);
    fmt_duration(p->longest_ns, longest, sizeof longest);
    if (p->longest_at.frame)
        fmt_frame(&p->longest_at, m->capture_count, fr, sizeof fr);
    fprintf(out,
            "<tr data-pfc=\"%" PRIu32 "\" data-capture=\"%" PRIu32 "\" data-priority=\"%s\" "
            "data-paused-ns=\"%" PRId64 "\" data-pauses=\"%" PRIu64 "\" data-storms=\"%" PRIu64
            "\"%s>",
            i, p->capture, prio, p->paused_ns, p->pauses, p->storms,
            p->storms ? " class=\"mark\" data-finding=\"pfc_storm\"" : "");
    host_cell(out, m, p->capture);
    fprintf(out,
            "<td class=\"n\">%" PRIu32 "</td><td>%s</td><td>%s</td><td class=\"n\">%" PRIu64
            "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
            "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
            "<td class=\"n\">%s%" PRIu64 "</td><td>%s</td></tr>\n",
            p->capture, p->pfc ? prio : "all (PAUSE)", p->roce ? "yes" : "no", p->frames, p->pauses,
            p->xons, paused, longest, fr, p->storms ? WARN_MARK " " : "", p->storms,
            p->paused_at_end ? "yes" : "");
}

static void write_pfcs(FILE *out, const struct report_model *m)
{
    const struct report_congestion *g = &m->congestion;
    if (!g->pfc_count)
        return;
    fprintf(out,
            "<h3>PFC and PAUSE: pauses per link and priority</h3><div class=\"wide\"><table "
            "id=\"pfc-table\" class=\"dense\">"
            "<thead><tr>%s<th class=\"n\">capture</th><th>priority</th><th>RoCE uses it</th>"
            "<th class=\"n\">frames</th><th class=\"n\">pauses</th><th class=\"n\">XONs</th>"
            "<th class=\"n\">paused</th><th class=\"n\">longest</th><th class=\"n\">from frame"
            "</th><th class=\"n\">storms</th><th>paused at end</th></tr></thead><tbody>\n",
            m->host_count ? "<th>host</th>" : "");
    for (uint32_t i = 0; i < g->pfc_count && i < HTML_CONGESTION_LISTED; i++)
        pfc_row(out, m, i);
    table_end(out, g->pfc_count, "priorities", "pfc");
}

void html_congestion_section(FILE *out, const struct report_model *m, struct html_congestion *c)
{
    const struct report_congestion *g = &m->congestion;
    if (!g->cnp_count && !g->pfc_count)
        return;
    fprintf(out,
            "<section id=\"congestion\"><h2>Congestion</h2>\n<p>CE marks followed to their CNPs "
            "within %" PRIu32 " us (--cnp-window), pauses per link and priority with quanta "
            "counted at %" PRIu32 " Gb/s; a pause that lasts %" PRIu32 " ms (--pfc-storm) is a "
            "storm. Rows with a finding are marked " WARN_MARK ".</p>\n",
            g->cnp_window_us, g->pfc_link_gbps, g->pfc_storm_ms);
    if (m->host_count)
        fputs("<p id=\"congestion-no-chart\">A merge of reports has their totals, not their "
              "events: the chart of CE marks, CNPs and pauses over time is drawn by ibscope "
              "--format html on the captures.</p>\n",
              out);
    else
        write_chart(out, m, c);
    write_cnps(out, m);
    write_pfcs(out, m);
    fputs("</section>\n", out);
}
