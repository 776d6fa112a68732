/* utf8.c - the UTF-8 decoder (utf8.h), after RFC 3629. */
#include "utf8.h"

size_t utf8_lead_length(unsigned char lead)
{
    return lead < 0x80                    ? 1
           : lead >= 0xC2 && lead <= 0xDF ? 2
           : lead >= 0xE0 && lead <= 0xEF ? 3
           : lead >= 0xF0 && lead <= 0xF4 ? 4
                                          : 0;
}

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    static const uint32_t shortest[UTF8_MAX + 1] = { 0, 0, 0x80, 0x800, 0x10000 };
    size_t len = n ? utf8_lead_length(s[0]) : 0;
    if (len == 0 || len > n)
        return 0;
    uint32_t c = len == 1 ? s[0] : s[0] & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at a terminating NUL */
            return 0;
        c = c << 6 | (s[i] & 0x3Fu);
    }
    if (c < shortest[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}
