/* text_wrap.h - words wrapped at a width, for the text report, --help and
 * the live view. */
#ifndef IBSCOPE_TEXT_WRAP_H
#define IBSCOPE_TEXT_WRAP_H

#include <stddef.h>
#include <stdio.h>

/* Glues words that must stay on one line; printed as a space. */
#define TEXT_WRAP_NBSP '\x1f'
#define TEXT_WRAP_NB   "\x1f"

/* Writes text and a newline, wrapped at `width` columns: the first line
 * after `first` columns already used, continuation lines indented by
 * `indent`.  Breaks at spaces only; a word longer than a line stays whole. */
void text_wrap(FILE *out, const char *text, size_t first, size_t indent, size_t width);

#endif
