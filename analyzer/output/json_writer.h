/* json_writer.h - a small streaming JSON writer: no document in memory.
 *
 * Values are written straight to a FILE as they come; the writer keeps only
 * a stack of open containers (to place commas and indentation).  Strings are
 * escaped as RFC 8259 asks: quote, backslash and control characters escaped,
 * valid UTF-8 passed through, each byte of invalid UTF-8 replaced by U+FFFD
 * so that the output is always valid UTF-8 JSON.
 *
 * A writer can also produce a fragment: the elements of an array that lives
 * in another writer's document (json_writer_fragment), written to a separate
 * file and spliced in later (jw_splice).  The report streams its findings
 * that way in bounded memory.
 */
#ifndef IBSCOPE_JSON_WRITER_H
#define IBSCOPE_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 32
#define JSON_BUFFER    65536

/* Output is gathered in buf and written in blocks: a report can be millions
 * of tiny tokens, and a stdio call per token costs more than the rest. */
struct json_writer {
    FILE *out;
    size_t len; /* bytes waiting in buf */
    char buf[JSON_BUFFER];
    bool pretty;
    unsigned depth;
    unsigned base_depth;            /* > 0 for a fragment */
    bool after_key;                 /* a key was written, its value comes next */
    bool first[JSON_DEPTH_MAX + 1]; /* no element yet at this depth */
    bool error;                     /* misuse (depth overflow); output is wrong */
};

/* A whole document. */
void json_writer_init(struct json_writer *w, FILE *out, bool pretty);
/* Elements of an array opened at depth `depth` - 1 of another document. */
void json_writer_fragment(struct json_writer *w, FILE *out, bool pretty, unsigned depth);

void jw_begin_object(struct json_writer *w);
void jw_end_object(struct json_writer *w);
void jw_begin_array(struct json_writer *w);
void jw_end_array(struct json_writer *w);

/* A member's key: one of the program's own names, written unescaped. */
void jw_key(struct json_writer *w, const char *key);
void jw_string(struct json_writer *w, const char *s);
void jw_string_n(struct json_writer *w, const char *s, size_t len);
void jw_uint(struct json_writer *w, uint64_t v);
void jw_int(struct json_writer *w, int64_t v);
/* A finite double with `decimals` digits after the point (from 1e15 up, in
 * exponent form: 1.7976931348623157e+308); null otherwise.  A number that
 * cannot be written sets the error rather than leave its key without one. */
void jw_double(struct json_writer *w, double v, int decimals);
void jw_bool(struct json_writer *w, bool v);
void jw_null(struct json_writer *w);

/* Writes out what is buffered; false on a write error.  The document's
 * last json_end_* flushes by itself; a fragment must be flushed before it
 * is spliced. */
bool jw_flush(struct json_writer *w);

/* Copies the elements a fragment writer wrote (from the start of src) into
 * the array w has open.  `count` tells whether there were any. */
bool jw_splice(struct json_writer *w, FILE *src, uint64_t count);

/* Writes s as the contents of a JSON string (no quotes). */
void jw_escape(struct json_writer *w, const char *s, size_t len);

#endif
