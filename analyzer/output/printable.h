/* printable.h - text from a capture or the command line made safe for a
 * terminal, and measured in the columns it takes there.
 *
 * A file name may hold ESC, CR or a newline: written raw, it moves the
 * cursor, recolours the terminal or forges a line of the report.  Every
 * such name goes through printable() before the text report or an error
 * line shows it.  Widths count display columns (a CJK character takes two,
 * a combining mark none), so UTF-8 names keep the tables aligned.
 */
#ifndef IBSCOPE_PRINTABLE_H
#define IBSCOPE_PRINTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Room for any name printable() is given in messages: 4 bytes out for
 * every byte in, at worst. */
#define PRINTABLE_MAX 1024

/* Copies s into buf (always terminated, cut at a character boundary when
 * it does not fit): C0 and C1 controls, DEL, invalid UTF-8 bytes and the
 * bidirectional overrides become \xNN or \uNNNN; the rest passes as is. */
void printable(const char *s, char *buf, size_t size);

/* Whether s is UTF-8 throughout. */
bool utf8_valid(const char *s);

/* Display columns of printable text (valid UTF-8, no controls). */
size_t display_width(const char *s);

/* Writes printable text padded with spaces to `width` columns.  Text wider
 * than that keeps its end, after "...", which names the file. */
void print_column(FILE *out, const char *s, size_t width);

/* Says "ibscope: FILE: MSG" on standard error, the file's name made
 * printable; returns 2, the exit status of an input or output error. */
int file_problem(const char *file, const char *msg);

/* Switches the C library's character functions to UTF-8 (LC_CTYPE only),
 * for display_width.  Called once from main. */
void printable_init(void);

#endif
