/* json_pull.h - JSON read a token at a time, nothing built.
 *
 * The caller asks for the next value, the next member of an object or the
 * next element of an array; the reader checks the grammar (RFC 8259) as it
 * goes and keeps only the current token and a stack of the containers it
 * is in.  What the caller does not want it skips, at the cost of its
 * nesting alone: reading a report takes memory for what is kept of it, not
 * for the document (merge_read.c).  Bounds: a string holds at most
 * JP_STRING_MAX bytes, a number JP_NUMBER_MAX characters, nesting goes
 * JP_DEPTH_MAX deep; past them the document is refused.  A UTF-8 byte
 * order mark before the document is skipped (RFC 8259 section 8.1 lets a
 * parser ignore it; editors on some systems add one); a UTF-16 one is named.
 */
#ifndef IBSCOPE_JSON_PULL_H
#define IBSCOPE_JSON_PULL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JP_STRING_MAX 65536
#define JP_NUMBER_MAX 64
#define JP_DEPTH_MAX  32

enum jp_type { JP_OBJECT, JP_ARRAY, JP_STRING, JP_NUMBER, JP_TRUE, JP_FALSE, JP_NULL };

struct json_pull {
    FILE *in;
    unsigned char buf[16384];
    size_t pos, len;
    bool eof;
    bool started;       /* the document's first byte is looked at */
    unsigned long line; /* of the next byte, from 1 */
    unsigned depth;     /* containers open */
    bool is_object[JP_DEPTH_MAX];
    bool first[JP_DEPTH_MAX]; /* no member or element read yet */
    size_t text_len;
    char text[JP_STRING_MAX + 1]; /* the last key, string or number, NUL-ended */
    char error[96];               /* the first error, "" while none */
};

void jp_init(struct json_pull *p, FILE *in);

/* The next value: an object or array is entered (read its members or
 * elements next), a string or number is in text.  False on an error. */
bool jp_value(struct json_pull *p, enum jp_type *type);
/* The next member of the object just entered or being read: its key in
 * text, its value next (*more); or the object's end (!*more). */
bool jp_member(struct json_pull *p, bool *more);
/* The next element of the array being read (*more: read its value), or
 * the array's end (!*more). */
bool jp_element(struct json_pull *p, bool *more);
/* The rest of a value whose start jp_value returned as type. */
bool jp_skip(struct json_pull *p, enum jp_type type);
/* After the top-level value: nothing but white space may follow. */
bool jp_finish(struct json_pull *p);

#endif
