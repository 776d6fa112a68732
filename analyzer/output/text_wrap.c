/* text_wrap.c - greedy word wrap at spaces. */
#include "text_wrap.h"

#include <stdbool.h>
#include <string.h>

void text_wrap(FILE *out, const char *text, size_t first, size_t indent, size_t width)
{
    size_t col = first;
    bool first_word = true;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " ");
        if (!first_word && col + 1 + len <= width) {
            fputc(' ', out);
            col++;
        } else if (col > indent && col + len + !first_word > width) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
        }
        for (size_t i = 0; i < len; i++)
            fputc(p[i] == TEXT_WRAP_NBSP ? ' ' : p[i], out);
        col += len;
        p += len;
        first_word = false;
    }
    fputc('\n', out);
}
