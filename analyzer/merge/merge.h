/* merge.h - `ibscope merge`: per-host JSON reports combined into one view
 * of the fabric.
 *
 * Each report (what `ibscope --format json` wrote on one host) is read
 * back into the report model (report_model.h) as it streams by: values
 * checked, captures and chains numbered across the merge, every item
 * labelled with its host (the report's file name without .json), counts
 * added up.  The fabric is then rendered by the report's own renderers,
 * whatever the format.  Memory: the model, 16 bytes per finding (the
 * findings themselves wait in a scratch file) and what the renderer keeps
 * (docs/merge.md).
 */
#ifndef IBSCOPE_MERGE_H
#define IBSCOPE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report_model.h"

/* How many of the sources nearest exhaustion the views list. */
#define MERGE_NEAREST 20

struct merge;

/* A merge for ibscope `version`: each report must be of it, unless
 * any_version (the fuzz target).  NULL when out of memory. */
struct merge *merge_new(const char *version, bool any_version);
void merge_free(struct merge *mg);

/* Reads one report from in, as host's.  False with why set to one line,
 * "frames.total: 1.5 is not a count"; the merge is then unusable. */
bool merge_read(struct merge *mg, FILE *in, const char *host, char *why, size_t size);

/* Every report read so far, rendered by r to out.  0, or the errno of the
 * first failure of a scratch file (the renderer's or the merge's own). */
int merge_render(struct merge *mg, const struct report_renderer *r, FILE *out);

int merge_main(int argc, char **argv, const char *version);

#endif
