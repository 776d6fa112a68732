/* html_wire.h - the HTML report's wire settings: a row per direction of
 * the wire audit (settings[]), the cells the audit's findings point at
 * marked. */
#ifndef IBSCOPE_HTML_WIRE_H
#define IBSCOPE_HTML_WIRE_H

#include <stdio.h>

#include "report_model.h"

/* Rows at most, in number order: every direction with a marked cell (the
 * first HTML_WIRE_LISTED of them when more), the others to fill the rest;
 * the page says how many were left out, the JSON report has every one. */
#define HTML_WIRE_LISTED 256
/* Findings remembered to mark cells by; the page says when more came. */
#define HTML_WIRE_MARKS 4096

struct html_wire;
struct html_wire *html_wire_new(void); /* NULL: out of memory */
void html_wire_free(struct html_wire *w);

/* Each finding as it comes: those of the kinds that mark a cell are kept. */
void html_wire_finding(struct html_wire *w, const struct ib_finding *f);

/* The section, when a direction carried data. */
void html_wire_section(FILE *out, const struct report_model *m, struct html_wire *w);

#endif
