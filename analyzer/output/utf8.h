/* utf8.h - one UTF-8 decoder for every reader of text: the terminal's
 * escaping (printable.c), the JSON writer and the JSON reader. */
#ifndef IBSCOPE_UTF8_H
#define IBSCOPE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The longest sequence, and the length a lead byte announces (0: the byte
 * leads none: a continuation byte, or one no valid sequence starts with). */
#define UTF8_MAX 4
size_t utf8_lead_length(unsigned char lead);

/* Decodes one character from the n bytes at s (n may be UTF8_MAX for a
 * NUL-terminated string: the NUL ends any sequence): its length, and the
 * code point into *cp; 0 when the bytes are not its shortest form, or a
 * surrogate, or past U+10FFFF, or cut short. */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif
