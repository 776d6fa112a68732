/* printable.c - escaping and column widths for terminal text (UTF-8). */
#define _XOPEN_SOURCE 700 /* wcwidth */
#include "printable.h"

#include <locale.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "utf8.h"

static int is_unsafe(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void printable(const char *s, char *buf, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = 0;
    if (size == 0)
        return;
    while (*p) {
        char esc[12];
        const char *piece = (const char *)p;
        uint32_t cp;
        size_t n = utf8_decode(p, UTF8_MAX, &cp), out_n = n;
        if (n == 0) {
            snprintf(esc, sizeof esc, "\\x%02X", *p);
            piece = esc, n = 1, out_n = 4;
        } else if (is_unsafe(cp)) {
            if (cp < 0x100)
                snprintf(esc, sizeof esc, "\\x%02X", (unsigned)cp);
            else
                snprintf(esc, sizeof esc, "\\u%04X", (unsigned)cp);
            piece = esc, out_n = strlen(esc);
        }
        if (len + out_n >= size)
            break;
        memcpy(buf + len, piece, out_n);
        len += out_n;
        p += n;
    }
    buf[len] = '\0';
}

bool utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp;
    for (size_t n; *p; p += n)
        if ((n = utf8_decode(p, UTF8_MAX, &cp)) == 0)
            return false;
    return true;
}

/* Columns of one character; anything wcwidth cannot place counts as one. */
static size_t char_width(uint32_t cp)
{
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : (size_t)w;
}

size_t display_width(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t cols = 0;
    while (*p) {
        uint32_t cp;
        size_t n = utf8_decode(p, UTF8_MAX, &cp);
        cols += n ? char_width(cp) : 1;
        p += n ? n : 1;
    }
    return cols;
}

void print_column(FILE *out, const char *s, size_t width)
{
    size_t w = display_width(s);
    if (w > width && width > 3) {
        /* Skip characters from the front until the rest fits after "...". */
        const unsigned char *p = (const unsigned char *)s;
        while (*p && w > width - 3) {
            uint32_t cp;
            size_t n = utf8_decode(p, UTF8_MAX, &cp);
            w -= n ? char_width(cp) : 1;
            p += n ? n : 1;
        }
        fputs("...", out);
        s = (const char *)p;
        w += 3;
    }
    fputs(s, out);
    for (; w < width; w++)
        fputc(' ', out);
}

void printable_init(void)
{
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "C.utf8");
}

int file_problem(const char *file, const char *msg)
{
    char path[PRINTABLE_MAX];
    printable(file, path, sizeof path);
    fprintf(stderr, "ibscope: %s: %s\n", path, msg);
    return 2;
}
