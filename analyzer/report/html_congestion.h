/* html_congestion.h - the HTML report's congestion section: CE marks, CNPs
 * and time paused per priority over time (from the engine's congestion
 * events, time_series.h), and the tables of congestion.cnp[] and pfc[]. */
#ifndef IBSCOPE_HTML_CONGESTION_H
#define IBSCOPE_HTML_CONGESTION_H

#include <stdio.h>

#include "report_model.h"

/* Rows of each table at most; the JSON report has every one. */
#define HTML_CONGESTION_LISTED 256

/* The series the events are counted in (about 45 KB). */
struct html_congestion;
struct html_congestion *html_congestion_new(void); /* NULL: out of memory */
void html_congestion_free(struct html_congestion *c);

/* Each event, as the engine's congestion sink tells it. */
void html_congestion_event(struct html_congestion *c, const struct ib_congestion_change *e);

/* The section, only when the report has CE marks, CNPs or pause frames:
 * the chart (none when no event came: a merge of reports has none; the
 * page says so) and the tables.  c's series are widened alike. */
void html_congestion_section(FILE *out, const struct report_model *m, struct html_congestion *c);

#endif
