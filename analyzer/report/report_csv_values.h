/* report_csv_values.h - a member of the report's tables (report_schema.h)
 * as one CSV cell, for report_csv.c's rows: its value as JSON writes it,
 * unquoted, text from outside through csv_field, nothing for null or a
 * member not there; a frame as "capture:frame" when several captures were
 * given. */
#ifndef IBSCOPE_REPORT_CSV_VALUES_H
#define IBSCOPE_REPORT_CSV_VALUES_H

#include <stdbool.h>
#include <stdio.h>

#include "report_model.h"
#include "report_schema.h"

/* Whether the member is one cell: a value, not an object or a list (of
 * the codecs, a connection's reject reason, setup latency and seen_at). */
bool cv_cell(const struct rs_member *mb);

/* The member's cell, obj the object of its table, at its place. */
void cv_member(FILE *out, const struct report_model *m, const struct rs_member *mb, const void *obj,
               const struct rs_place *at);

#endif
