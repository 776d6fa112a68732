/* merge.h - `ibscope merge`: per-host JSON reports combined into one view
 * of the fabric.
 *
 * Each report is what `ibscope --format json` wrote on one host.  The merged
 * document has the same keys as a report, every capture, source, chain and
 * finding labelled with its host (the report's file name without .json),
 * capture and chain numbers made global, counts summed, plus "hosts" and
 * "nearest_exhaustion" (the sources with the largest share of their pool in
 * use, across the fabric).  Its renderers (merge_render.c) write it as JSON,
 * text, CSV or HTML.
 */
#ifndef IBSCOPE_MERGE_H
#define IBSCOPE_MERGE_H

#include <jansson.h>
#include <stdio.h>

#include "engine.h"

int merge_main(int argc, char **argv, const char *version);

/* NULL when doc is a report of this version with every key a report has
 * (and chain ends the engine names), else why not (in buf, or a constant). */
const char *merge_check_report(const json_t *doc, const char *version, char *buf,
                               size_t size);
/* The fabric document of count checked reports (changed: labelled and
 * renumbered in place), hosts[i] labelling reports[i]. */
json_t *merge_combine(json_t **reports, char **hosts, size_t count, const char *version);

/* Reading the merged document, whatever a report held: 0, "" or 0 for a
 * member that is missing or of another type. */
json_int_t merge_int(const json_t *o, const char *key);
/* A chain of the document: its redirects (drawn and dropped), and how it
 * ended (its "end", which merge_check_report has checked). */
json_int_t merge_chain_hops(const json_t *chain);
enum ib_chain_end merge_chain_end(const json_t *chain);
/* a + b, held at the largest or smallest integer JSON can carry. */
json_int_t merge_add(json_int_t a, json_int_t b);
const char *merge_str(const json_t *o, const char *key);
/* Elements of list whose "host" is host (and "kind" is kind, unless NULL). */
json_int_t merge_count_host(const json_t *list, const char *host, const char *kind);

/* How many of the sources nearest exhaustion the views list. */
#define MERGE_NEAREST 20

/* The renderers of the merged document. */
void merge_write_json(FILE *out, const json_t *fabric);
void merge_write_text(FILE *out, const json_t *fabric);
void merge_write_csv(FILE *out, const json_t *fabric);
void merge_write_html(FILE *out, const json_t *fabric);

#endif
