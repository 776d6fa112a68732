/* merge_schema.h - a report's object read back by its table
 * (report_schema.h): each member found by its key, its value checked by
 * its row's kind and bounds, a key given twice or a member a report must
 * have missing refused naming it, an unknown key skipped unread. */
#ifndef IBSCOPE_MERGE_SCHEMA_H
#define IBSCOPE_MERGE_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "merge_values.h"
#include "report_schema.h"

struct ms_scratch;
typedef bool ms_codec_reader(struct rd *r, const struct rs_member *mb, void *obj,
                             struct ms_scratch *scratch);

/* What the reader is told of the object (its place in its array, for
 * RS_INDEX) and what a codec's reader keeps beside it (a source's
 * ip_version, checked against its ip once both are read); the reader of
 * the codecs this file has none for (a finding's, which renumber its
 * chain in the merge: merge_finding.c), and what they read into. */
struct ms_scratch {
    uint64_t index;
    uint64_t ip_version;
    uint64_t variant_seen; /* the members an RS_VARIANT's table read, a bit a row */
    ms_codec_reader *codec;
    void *codec_ctx;
};

/* The members of the object just opened (rd_open) into obj; *seen gets a
 * bit per member read, by its row.  Strings and lists read are the
 * caller's to free, whether or not it succeeds. */
bool ms_read_members(struct rd *r, const struct rs_object *o, void *obj, struct ms_scratch *scratch,
                     uint64_t *seen);

/* The key of o's member whose value is at offset at (for a check's
 * message); "?" for none. */
const char *ms_key_at(const struct rs_object *o, size_t at);

/* Adds the counts (the members marked sums) of from to those of into,
 * both objects of o's type, each held at the largest count. */
void ms_add_counts(const struct rs_object *o, void *into, const void *from);

/* An object of name -> count whose names are those of a table (finding
 * kinds, diagnostics, CM messages): each count added to counts[the name's
 * index]. */
bool ms_read_count_map(struct rd *r, uint64_t *counts, int size, int (*index)(const char *),
                       const char *noun);

/* Whether o's member of that key was read (seen as ms_read_members set it). */
bool ms_given(const struct rs_object *o, uint64_t seen, const char *key);

/* The bits of o's optional members. */
uint64_t ms_optional(const struct rs_object *o);

#endif
