/* test_parse_reader.c - the bounds-checked byte readers of core/include/reader.h.
 *
 * Expected values are worked out by hand: the buffer holds 0x01, 0x02, ...
 * 0x10, so a big-endian read at offset k of n bytes is the bytes k+1 .. k+n
 * in order, and a little-endian one the same bytes reversed.  Every buffer is
 * an exact-size heap copy so that AddressSanitizer traps any over-read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "reader.h"
#include "test_support.h"

static const uint8_t seq16[16] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                                   0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10 };

static void test_big_endian_reads(void **state)
{
    (void)state;
    uint8_t *buf = ts_exact_copy(seq16, sizeof seq16);
    struct ib_span s = ib_span_make(buf, sizeof seq16);
    assert_int_equal(s.len, 16);
    assert_int_equal(ib_rd8(s, 0), 0x01);
    assert_int_equal(ib_rd8(s, 15), 0x10);
    assert_int_equal(ib_rd16(s, 0), 0x0102);
    assert_int_equal(ib_rd16(s, 1), 0x0203);
    assert_int_equal(ib_rd16(s, 14), 0x0F10);
    assert_int_equal(ib_rd24(s, 2), 0x030405);
    assert_int_equal(ib_rd24(s, 13), 0x0E0F10);
    assert_int_equal(ib_rd32(s, 3), 0x04050607u);
    assert_int_equal(ib_rd32(s, 12), 0x0D0E0F10u);
    assert_true(ib_rd64(s, 4) == 0x05060708090A0B0Cull);
    assert_true(ib_rd64(s, 8) == 0x090A0B0C0D0E0F10ull);
    assert_true(ib_rd64(s, 0) == 0x0102030405060708ull);
    free(buf);
}

static void test_high_bits_not_sign_extended(void **state)
{
    (void)state;
    static const uint8_t ff[8] = { 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0xFA, 0xF9, 0xF8 };
    uint8_t *buf = ts_exact_copy(ff, sizeof ff);
    struct ib_span s = ib_span_make(buf, sizeof ff);
    assert_int_equal(ib_rd8(s, 0), 0xFF);
    assert_int_equal(ib_rd16(s, 0), 0xFFFE);
    assert_int_equal(ib_rd24(s, 0), 0xFFFEFD);
    assert_true(ib_rd32(s, 0) == 0xFFFEFDFCu);
    assert_true(ib_rd64(s, 0) == 0xFFFEFDFCFBFAF9F8ull);
    assert_true(ib_rd32le(s, 4) == 0xF8F9FAFBu);
    assert_true(ib_rd64le(s, 0) == 0xF8F9FAFBFCFDFEFFull);
    free(buf);
}

static void test_little_endian_reads(void **state)
{
    (void)state;
    uint8_t *buf = ts_exact_copy(seq16, sizeof seq16);
    struct ib_span s = ib_span_make(buf, sizeof seq16);
    assert_int_equal(ib_rd16le(s, 0), 0x0201);
    assert_int_equal(ib_rd16le(s, 1), 0x0302);
    assert_int_equal(ib_rd16le(s, 14), 0x100F);
    assert_true(ib_rd32le(s, 3) == 0x07060504u);
    assert_true(ib_rd32le(s, 12) == 0x100F0E0Du);
    assert_true(ib_rd64le(s, 4) == 0x0C0B0A0908070605ull);
    assert_true(ib_rd64le(s, 8) == 0x100F0E0D0C0B0A09ull);
    free(buf);
}

/* A read that would pass the end returns 0 (reader.h), for every width. */
static void test_reads_past_end_return_zero(void **state)
{
    (void)state;
    uint8_t *buf = ts_exact_copy(seq16, sizeof seq16);
    struct ib_span s = ib_span_make(buf, sizeof seq16);
    assert_int_equal(ib_rd8(s, 16), 0);
    assert_int_equal(ib_rd16(s, 15), 0);
    assert_int_equal(ib_rd16(s, 16), 0);
    assert_int_equal(ib_rd24(s, 14), 0);
    assert_int_equal(ib_rd32(s, 13), 0);
    assert_true(ib_rd64(s, 9) == 0);
    assert_int_equal(ib_rd16le(s, 15), 0);
    assert_true(ib_rd32le(s, 13) == 0);
    assert_int_equal(ib_rd8(s, SIZE_MAX), 0);
    assert_int_equal(ib_rd16(s, SIZE_MAX), 0);
    assert_int_equal(ib_rd24(s, SIZE_MAX - 1), 0);
    assert_true(ib_rd32(s, SIZE_MAX - 2) == 0);
    assert_true(ib_rd64(s, SIZE_MAX - 3) == 0);
    assert_true(ib_rd32le(s, SIZE_MAX - 1) == 0);
    free(buf);
}

/* Regression (bug found by this test, fixed in a5db222; core/include/reader.h
 * ib_rd64le): it read two 32-bit halves separately, so when only the low
 * 4..7 bytes were there it returned the low half instead of 0, and off + 4
 * could wrap around (off = SIZE_MAX - 3 read bytes 0-3).  reader.h promises
 * "a read that would pass the end of the span returns 0". */
static void test_rd64le_partial_returns_zero(void **state)
{
    (void)state;
    uint8_t *buf = ts_exact_copy(seq16, sizeof seq16);
    struct ib_span s = ib_span_make(buf, sizeof seq16);
    /* offset 9: bytes 9..16 needed, only 9..15 there */
    assert_true(ib_rd64le(s, 9) == 0);
    assert_true(ib_rd64le(s, 12) == 0);
    assert_true(ib_rd64le(s, SIZE_MAX - 3) == 0);
    free(buf);
}

static void test_span_has_edges(void **state)
{
    (void)state;
    uint8_t *buf = ts_exact_copy(seq16, 10);
    struct ib_span s = ib_span_make(buf, 10);
    assert_true(ib_span_has(s, 0, 0));
    assert_true(ib_span_has(s, 0, 10));
    assert_false(ib_span_has(s, 0, 11));
    assert_true(ib_span_has(s, 9, 1));
    assert_false(ib_span_has(s, 9, 2));
    assert_true(ib_span_has(s, 10, 0)); /* empty read at the very end */
    assert_false(ib_span_has(s, 10, 1));
    assert_false(ib_span_has(s, 11, 0)); /* off > len, even for nothing */
    assert_false(ib_span_has(s, SIZE_MAX, 0));
    /* huge n, and off + n wrapping around, must not pass */
    assert_false(ib_span_has(s, 0, SIZE_MAX));
    assert_false(ib_span_has(s, 1, SIZE_MAX));
    assert_false(ib_span_has(s, 5, SIZE_MAX - 4)); /* 5 + n wraps to 0 */
    assert_false(ib_span_has(s, SIZE_MAX, 2));     /* off + n wraps to 1 */
    assert_false(ib_span_has(s, SIZE_MAX - 1, 3));

    struct ib_span empty = ib_span_make(buf, 0);
    assert_true(ib_span_has(empty, 0, 0));
    assert_false(ib_span_has(empty, 0, 1));
    assert_false(ib_span_has(empty, 1, 0));
    free(buf);
}

static void test_span_make_null(void **state)
{
    (void)state;
    struct ib_span s = ib_span_make(NULL, 100);
    assert_null(s.data);
    assert_int_equal(s.len, 0);
    assert_int_equal(ib_rd8(s, 0), 0);
    assert_int_equal(ib_rd16(s, 0), 0);
    assert_true(ib_rd64(s, 0) == 0);
    assert_true(ib_rd64le(s, 0) == 0);
    uint8_t out[4] = { 1, 2, 3, 4 };
    assert_false(ib_rdbytes(s, 0, out, sizeof out));
    assert_int_equal(out[0] | out[1] | out[2] | out[3], 0);
}

static void test_span_from_and_head(void **state)
{
    (void)state;
    uint8_t *buf = ts_exact_copy(seq16, 8);
    struct ib_span s = ib_span_make(buf, 8);
    struct ib_span f = ib_span_from(s, 3);
    assert_ptr_equal(f.data, buf + 3);
    assert_int_equal(f.len, 5);
    assert_int_equal(ib_rd8(f, 0), 0x04);
    assert_int_equal(ib_rd32(f, 1), 0x05060708u);
    assert_int_equal(ib_rd8(f, 5), 0);
    f = ib_span_from(s, 8);
    assert_int_equal(f.len, 0);
    f = ib_span_from(s, 9);
    assert_int_equal(f.len, 0);
    assert_null(f.data);
    f = ib_span_from(s, SIZE_MAX);
    assert_int_equal(f.len, 0);

    struct ib_span h = ib_span_head(s, 3);
    assert_ptr_equal(h.data, buf);
    assert_int_equal(h.len, 3);
    assert_int_equal(ib_rd16(h, 1), 0x0203);
    assert_int_equal(ib_rd16(h, 2), 0); /* byte 3 exists in s but not in the head */
    h = ib_span_head(s, 100);
    assert_int_equal(h.len, 8);
    h = ib_span_head(s, SIZE_MAX);
    assert_int_equal(h.len, 8);
    free(buf);
}

static void test_rdbytes(void **state)
{
    (void)state;
    uint8_t *buf = ts_exact_copy(seq16, sizeof seq16);
    struct ib_span s = ib_span_make(buf, sizeof seq16);
    uint8_t out[6];
    memset(out, 0xAA, sizeof out);
    assert_true(ib_rdbytes(s, 10, out, 6));
    static const uint8_t want[6] = { 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10 };
    assert_memory_equal(out, want, 6);

    /* one byte too many: nothing copied, all zeroed */
    memset(out, 0xAA, sizeof out);
    assert_false(ib_rdbytes(s, 11, out, 6));
    static const uint8_t zero[6];
    assert_memory_equal(out, zero, 6);

    memset(out, 0xAA, sizeof out);
    assert_false(ib_rdbytes(s, 17, out, 1)); /* off > len */
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0xAA); /* only n bytes touched */

    memset(out, 0xAA, sizeof out);
    assert_false(ib_rdbytes(s, SIZE_MAX - 2, out, 4)); /* off + n wraps */
    assert_memory_equal(out, zero, 4);

    assert_true(ib_rdbytes(s, 16, out, 0)); /* nothing at the end is fine */
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_big_endian_reads),
        cmocka_unit_test(test_high_bits_not_sign_extended),
        cmocka_unit_test(test_little_endian_reads),
        cmocka_unit_test(test_reads_past_end_return_zero),
        cmocka_unit_test(test_rd64le_partial_returns_zero),
        cmocka_unit_test(test_span_has_edges),
        cmocka_unit_test(test_span_make_null),
        cmocka_unit_test(test_span_from_and_head),
        cmocka_unit_test(test_rdbytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
