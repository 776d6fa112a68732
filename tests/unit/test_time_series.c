/* test_time_series.c - the HTML charts' columns (analyzer/report/
 * time_series.c): a sum series spreads a span over the columns it covers,
 * each its share, and keeps the total as the columns widen; a count series
 * beside it, started together, lines up with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "time_series.h"

static uint64_t total(const struct series *s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < SERIES_COLUMNS; i++)
        n += s->col[i].sum;
    return n;
}

static void test_span_shares(void **state)
{
    (void)state;
    static struct series s;
    series_init(&s, SERIES_SUM);
    series_start(&s, 0); /* columns 1 us wide */
    series_add_span(&s, 500, 2300);
    assert_int_equal(s.col[0].sum, 500);
    assert_int_equal(s.col[1].sum, 1000);
    assert_int_equal(s.col[2].sum, 300);
    assert_int_equal(s.last, 2);
    series_add_span(&s, 2300, 2300); /* nothing */
    series_add_span(&s, 3000, 2000); /* backwards: nothing */
    assert_int_equal(total(&s), 1800);
    series_add_span(&s, -700, 200); /* before the first column: counted in it */
    assert_int_equal(s.col[0].sum, 1400);
    assert_int_equal(total(&s), 2700);
}

static void test_widen_keeps_total(void **state)
{
    (void)state;
    static struct series s, ce;
    series_init(&s, SERIES_SUM);
    series_init(&ce, SERIES_COUNT);
    series_start(&s, 0);
    series_start(&ce, 0);
    uint64_t want = 0;
    for (int64_t t = 0; t < 2000000; t += 3000) { /* 2 ms of 1.2 us pauses, then one long */
        series_add_span(&s, t, t + 1200);
        series_count(&ce, t, 1);
        want += 1200;
    }
    series_add_span(&s, 3000000, 9000000);
    want += 6000000;
    assert_true(s.width > 1000);
    assert_int_equal(total(&s), want);
    series_widen_to(&ce, s.width);
    assert_int_equal(ce.width, s.width);
    /* The long pause fills every column it spans whole. */
    uint32_t a = series_column_of(&s, 3000000), b = series_column_of(&s, 9000000 - 1);
    for (uint32_t i = a + 1; i < b; i++)
        assert_int_equal(s.col[i].sum, (uint64_t)s.width);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_span_shares),
        cmocka_unit_test(test_widen_keeps_total),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
