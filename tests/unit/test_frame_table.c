/* test_frame_table.c - the plugin's table of what the first pass left, by
 * frame number (plugin/frame_table.c, which needs no Wireshark): lookups in
 * order, between entries, at random, and appends out of order refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frame_table.h"

static struct ibs_stored entry(uint32_t frame)
{
    return (struct ibs_stored){ .frame = frame, .conn1 = frame * 3 };
}

static void test_in_order_and_between(void **state)
{
    (void)state;
    struct ibs_frame_table t = { 0 };
    const uint32_t frames[] = { 3, 4, 9, 10, 11, 40 };
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        struct ibs_stored e = entry(frames[i]);
        assert_true(ibs_frame_table_add(&t, &e));
    }
    /* A second pass over frames 1..50: entries where added, NULL elsewhere. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t f = 1; f <= 50; f++) {
            const struct ibs_stored *s = ibs_frame_table_find(&t, f);
            bool want = f == 3 || f == 4 || f == 9 || f == 10 || f == 11 || f == 40;
            if (want) {
                assert_non_null(s);
                assert_int_equal(s->frame, f);
                assert_int_equal(s->conn1, f * 3);
            } else {
                assert_null(s);
            }
        }
    }
    /* Backwards, as a user scrolling up clicks. */
    for (uint32_t f = 50; f >= 1; f--)
        assert_true((ibs_frame_table_find(&t, f) != NULL) ==
                    (f == 3 || f == 4 || f == 9 || f == 10 || f == 11 || f == 40));
    ibs_frame_table_clear(&t);
    assert_null(ibs_frame_table_find(&t, 3));
}

static void test_out_of_order_refused(void **state)
{
    (void)state;
    struct ibs_frame_table t = { 0 };
    struct ibs_stored a = entry(7), b = entry(7), c = entry(2);
    assert_true(ibs_frame_table_add(&t, &a));
    assert_false(ibs_frame_table_add(&t, &b));
    assert_false(ibs_frame_table_add(&t, &c));
    assert_int_equal(t.count, 1);
    assert_null(ibs_frame_table_find(&t, 2));
    ibs_frame_table_clear(&t);
}

/* 100,000 entries on every third frame, looked up at random against the
 * rule that made them. */
static void test_random_lookups(void **state)
{
    (void)state;
    struct ibs_frame_table t = { 0 };
    for (uint32_t f = 1; f <= 300000; f += 3) {
        struct ibs_stored e = entry(f);
        assert_true(ibs_frame_table_add(&t, &e));
    }
    assert_int_equal(t.count, 100000);
    uint32_t x = 12345;
    for (int i = 0; i < 200000; i++) {
        x = x * 1103515245u + 12345u;
        uint32_t f = (x >> 8) % 300010;
        const struct ibs_stored *s = ibs_frame_table_find(&t, f);
        if (f % 3 == 1 && f <= 300000) {
            assert_non_null(s);
            assert_int_equal(s->conn1, f * 3);
        } else {
            assert_null(s);
        }
    }
    ibs_frame_table_clear(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order_and_between),
        cmocka_unit_test(test_out_of_order_refused),
        cmocka_unit_test(test_random_lookups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
