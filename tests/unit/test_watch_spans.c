/* test_watch_spans.c - the runs of a capture's frames (watch_spans.h):
 * frames no more than IB_WATCH_GAP_NS apart make one run, in any order;
 * a watch is held only by one run; past the cap a frame stretches the last
 * run instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric.h"
#include "watch_spans.h"

#define S 1000000000LL
#define G IB_WATCH_GAP_NS

static void test_runs(void **state)
{
    (void)state;
    struct watch_spans w = { 0 };
    /* 0, 1 s (a gap of exactly G joins), 2.5 s (1.5 s: a new run), 3 s;
     * then 100 s and, the clock back, 1.2 s (in the first run) */
    const int64_t t[] = { 0, G, 5 * S / 2, 3 * S, 100 * S, 6 * S / 5 };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        assert_true(ws_add(&w, t[i], true));
    ws_finish(&w);
    assert_int_equal(w.count, 3);
    assert_true(w.runs[0].from == 0 && w.runs[0].to == 6 * S / 5);
    assert_true(w.runs[1].from == 5 * S / 2 && w.runs[1].to == 3 * S);
    assert_true(w.runs[2].from == 100 * S && w.runs[2].to == 100 * S);
    assert_true(ws_covers(&w, 0, 6 * S / 5));
    assert_true(ws_covers(&w, S / 2, S));
    assert_false(ws_covers(&w, S, 5 * S / 2));     /* across the gap */
    assert_false(ws_covers(&w, -1, S));            /* before the first frame */
    assert_true(ws_covers(&w, 11 * S / 4, 3 * S)); /* inside the second */
    assert_false(ws_covers(&w, 3 * S, 3 * S + 1)); /* just past it */
    assert_false(ws_covers(&w, 50 * S, 100 * S));  /* a stray frame's gap */
    assert_true(ws_covers(&w, 100 * S, 100 * S));
    ws_free(&w);
}

/* Runs apart that later frames bridge are joined at the end. */
static void test_bridged(void **state)
{
    (void)state;
    struct watch_spans w = { 0 };
    const int64_t t[] = { 0,     10 * S, 9 * S / 2, 5 * S, 17 * S / 2, 3 * S / 4, 4 * S,    3 * S,
                          2 * S, 7 * S,  6 * S,     8 * S, 19 * S / 2, 5 * S / 2, 3 * S / 2 };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        ws_add(&w, t[i], true);
    ws_finish(&w);
    assert_int_equal(w.count, 1);
    assert_true(ws_covers(&w, 0, 10 * S));
    ws_free(&w);
}

/* No room: the frame stretches the last run over its gap, and says so. */
static void test_no_room(void **state)
{
    (void)state;
    struct watch_spans w = { 0 };
    assert_true(ws_add(&w, 0, true));
    assert_false(ws_add(&w, 10 * S, false));
    ws_finish(&w);
    assert_int_equal(w.count, 1);
    assert_true(ws_covers(&w, S, 9 * S));
    ws_free(&w);
    assert_false(ws_add(&w, 0, false)); /* and with no run at all, none */
    assert_false(ws_covers(&w, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_bridged),
        cmocka_unit_test(test_no_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
