/* config_text.c - a configuration's numbers as a person writes them
 * (config_text.h): the analyzer's options and the plugin's preferences. */
#include "config_text.h"

#include <errno.h>
#include <math.h> /* isfinite, a macro: the core needs no libm */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Decimal digits only, at most max: false for anything else. */
static bool whole(const char *s, size_t len, unsigned long max, unsigned long *out)
{
    unsigned long v = 0;
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned long)(s[i] - '0');
        if (v > max)
            return false;
    }
    *out = v;
    return true;
}

bool ib_text_percent(const char *s, double *out)
{
    if (!s)
        return false;
    const char *dot = strchr(s, '.');
    size_t wl = dot ? (size_t)(dot - s) : strlen(s);
    size_t fl = dot ? strlen(dot + 1) : 0;
    unsigned long w, frac = 0;
    if (!whole(s, wl, 100, &w) || (dot && (fl == 0 || fl > 2 || !whole(dot + 1, fl, 99, &frac))))
        return false;
    if (fl == 1)
        frac *= 10;
    unsigned long centi = w * 100 + frac;
    if (centi == 0 || centi > 10000)
        return false;
    *out = (double)centi / 100;
    return true;
}

bool ib_text_seconds(const char *s, double *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    double v = strtod(s, &end);
    /* at most about 31 years: the end time stays far inside int64 ns */
    if (errno != 0 || *end != '\0' || !isfinite(v) || v <= 0 || v > 1e9)
        return false;
    /* to the nanosecond, as the reports write it: what merge reads back is
     * what ran, and 1e-10 is refused here rather than written as 0 */
    v = (double)(int64_t)(v * 1e9 + 0.5) / 1e9; /* v * 1e9 <= 1e18 fits */
    if (v <= 0)
        return false;
    *out = v;
    return true;
}
