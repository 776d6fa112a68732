/* test_support.c - helpers shared by the unit tests. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *ts_exact_copy(const void *data, size_t len)
{
    uint8_t *p = malloc(len ? len : 1);
    if (!p)
        abort();
    if (len)
        memcpy(p, data, len);
    return p;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t ts_hex(const char *hex, uint8_t *buf, size_t size)
{
    size_t n = 0;
    int hi = -1;
    for (; *hex; hex++) {
        if (*hex == ' ' || *hex == '\n' || *hex == ':')
            continue;
        int d = hex_digit(*hex);
        if (d < 0 || n >= size) {
            fprintf(stderr, "ts_hex: bad input at '%c'\n", *hex);
            abort();
        }
        if (hi < 0) {
            hi = d;
        } else {
            buf[n++] = (uint8_t)(hi << 4 | d);
            hi = -1;
        }
    }
    if (hi >= 0)
        abort();
    return n;
}
