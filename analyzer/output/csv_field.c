/* csv_field.c - one CSV field as RFC 4180 has it (csv_field.h). */
#include "csv_field.h"

#include <stdbool.h>
#include <string.h>

/* A control other than a line break: ESC from a file name would reach the
 * terminal of whoever cats the report. */
static bool is_control(char c)
{
    return ((unsigned char)c < 0x20 && c != '\n' && c != '\r') || c == 0x7f;
}

/* A spreadsheet runs a cell that starts with these as a formula. */
static bool starts_formula(const char *s)
{
    return s[0] && s[1] && strchr("=+-@", s[0]) != NULL;
}

void csv_field(FILE *out, const char *s)
{
    if (!s)
        return;
    bool formula = starts_formula(s);
    bool quote = formula || strpbrk(s, ",\"\r\n") != NULL;
    if (quote)
        fputc('"', out);
    if (formula)
        fputc('\'', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        if (is_control(*s))
            fprintf(out, "\\x%02X", (unsigned char)*s);
        else
            fputc(*s, out);
    }
    if (quote)
        fputc('"', out);
}
