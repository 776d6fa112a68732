/* test_utf8.c - the one UTF-8 decoder (analyzer/output/utf8.c) on the edges
 * RFC 3629 draws: each length's least and greatest code point, overlong
 * forms, surrogates, past U+10FFFF, cut short, a NUL inside. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "utf8.h"

/* The bytes (n of them) decode to cp with length len, or not at all (len 0). */
static void decodes(const char *bytes, size_t n, size_t len, uint32_t cp)
{
    uint32_t got = 0xFFFFFFFF;
    assert_int_equal(utf8_decode((const unsigned char *)bytes, n, &got), len);
    if (len)
        assert_int_equal(got, cp);
}

static void test_valid_edges(void **state)
{
    (void)state;
    decodes("\x00", 1, 1, 0x00);
    decodes("\x7F", 1, 1, 0x7F);
    decodes("\xC2\x80", 2, 2, 0x80);
    decodes("\xDF\xBF", 2, 2, 0x7FF);
    decodes("\xE0\xA0\x80", 3, 3, 0x800);
    decodes("\xED\x9F\xBF", 3, 3, 0xD7FF);
    decodes("\xEE\x80\x80", 3, 3, 0xE000);
    decodes("\xEF\xBF\xBF", 3, 3, 0xFFFF);
    decodes("\xF0\x90\x80\x80", 4, 4, 0x10000);
    decodes("\xF4\x8F\xBF\xBF", 4, 4, 0x10FFFF);
    decodes("\xE2\x82\xAC rest", 8, 3, 0x20AC); /* the first character only */
}

static void test_invalid(void **state)
{
    (void)state;
    decodes("\x80", 1, 0, 0);             /* a continuation byte */
    decodes("\xC0\x80", 2, 0, 0);         /* overlong NUL */
    decodes("\xC1\xBF", 2, 0, 0);         /* overlong */
    decodes("\xE0\x9F\xBF", 3, 0, 0);     /* overlong */
    decodes("\xF0\x8F\xBF\xBF", 4, 0, 0); /* overlong */
    decodes("\xED\xA0\x80", 3, 0, 0);     /* a surrogate */
    decodes("\xED\xBF\xBF", 3, 0, 0);     /* a surrogate */
    decodes("\xF4\x90\x80\x80", 4, 0, 0); /* past U+10FFFF */
    decodes("\xF5\x80\x80\x80", 4, 0, 0);
    decodes("\xFF", 1, 0, 0);
    decodes("\xE2\x82", 2, 0, 0);            /* cut short by n */
    decodes("\xE2\x00\xAC", UTF8_MAX, 0, 0); /* a NUL ends it */
    decodes("\xE2\x82\xAC", 0, 0, 0);
    assert_int_equal(utf8_lead_length(0xC1), 0);
    assert_int_equal(utf8_lead_length(0xF4), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_edges),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
