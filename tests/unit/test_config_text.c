/* test_config_text.c - the core's reading of percentages and seconds
 * (core/parse/config_text.c), which the analyzer's --threshold,
 * --forecast-horizon and --duration and the plugin's ibscope.threshold and
 * ibscope.forecast_horizon share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config_text.h"

/* Seconds are kept to the nanosecond the reports write, so a report's
 * forecast_horizon_s is what ran and merge reads it back. */
static void test_seconds(void **state)
{
    (void)state;
    double v = 0;
    assert_true(ib_text_seconds("0.0000000015", &v));
    assert_true(v == 2e-9);
    assert_true(ib_text_seconds("1e9", &v));
    assert_true(v == 1e9);
    assert_true(ib_text_seconds("0.5", &v));
    assert_true(v == 0.5);
    assert_false(ib_text_seconds("1e-10", &v));
    assert_false(ib_text_seconds("1.1e9", &v));
    assert_false(ib_text_seconds("0", &v));
    assert_false(ib_text_seconds(" 300", &v));
    assert_false(ib_text_seconds("300 ", &v));
    assert_false(ib_text_seconds("", &v));
    assert_false(ib_text_seconds(NULL, &v));
}

/* The threshold: above 0, at most 100, to the hundredth; the same text
 * is taken by --threshold and the plugin's ibscope.threshold. */
static void test_percent(void **state)
{
    (void)state;
    double v = 0;
    assert_true(ib_text_percent("90", &v));
    assert_true(v == 90);
    assert_true(ib_text_percent("87.5", &v));
    assert_true(v == 87.5);
    assert_true(ib_text_percent("0.01", &v));
    assert_true(v == 0.01);
    assert_true(ib_text_percent("100.00", &v));
    assert_true(v == 100);
    assert_true(ib_text_percent("050.5", &v));
    assert_true(v == 50.5);
    const char *bad[] = { "0",  "0.00", "100.01", "101", "87,5", "87.", ".5",  "87.555", "-5",
                          "+5", "1e2",  " 90",    "90 ", "90%",  "",    "nan", "inf",    "9.9.9" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = -1;
        if (ib_text_percent(bad[i], &v))
            fail_msg("'%s' was taken as %g", bad[i], v);
        assert_true(v == -1);
    }
    assert_false(ib_text_percent(NULL, &v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seconds),
        cmocka_unit_test(test_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
