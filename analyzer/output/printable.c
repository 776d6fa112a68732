/* printable.c - escaping and column widths for terminal text (UTF-8). */
#define _XOPEN_SOURCE 700 /* wcwidth */
#include "printable.h"

#include <locale.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

/* Decodes one UTF-8 character at s (shortest form, no surrogates, at most
 * U+10FFFF); returns its length, or 0 when the bytes are not valid. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t n;
    uint32_t c, min;
    if ((s[0] & 0xE0) == 0xC0) {
        n = 2, c = s[0] & 0x1F, min = 0x80;
    } else if ((s[0] & 0xF0) == 0xE0) {
        n = 3, c = s[0] & 0x0F, min = 0x800;
    } else if ((s[0] & 0xF8) == 0xF0) {
        n = 4, c = s[0] & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

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
        size_t n = utf8_decode(p, &cp), out_n = n;
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
        if ((n = utf8_decode(p, &cp)) == 0)
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
        size_t n = utf8_decode(p, &cp);
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
            size_t n = utf8_decode(p, &cp);
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
