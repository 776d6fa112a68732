/* html_writer.h - escaping and small pieces of HTML and SVG for the HTML
 * report (report_html.c). */
#ifndef IBSCOPE_HTML_WRITER_H
#define IBSCOPE_HTML_WRITER_H

#include <stdint.h>
#include <stdio.h>

/* Text with & < > " ' escaped: safe in element content and quoted attributes. */
void html_text(FILE *out, const char *s);
/* printf, then escaped. */
void html_textf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rows of a findings table: past this many a page is slow to open (2,000
 * rows take about half a second in Chromium here); the counts have all. */
#define HTML_FINDINGS_LISTED 2000

/* The page around a report: doctype, head with the styles (light and dark,
 * print), the arrow heads of chain graphs; at the end the script that sorts
 * tables (th[data-sort]) and filters #findings-table by #filter. */
void html_page_begin(FILE *out, const char *title, const char *version);
void html_page_end(FILE *out);

/* A chart's plot area: times [t_min, t_max] across x..x+w, values
 * [0, v_max] from y+h up to y. */
struct plot {
    double x, y, w, h;
    int64_t t_min, t_max;
    double v_max;
};
double plot_x(const struct plot *p, int64_t t);
double plot_y(const struct plot *p, double v);
/* Axes: a time axis in seconds from t_min and a value axis, with ticks. */
void plot_axes(FILE *out, const struct plot *p, const char *value_label);

#endif
