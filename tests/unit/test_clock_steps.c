/* test_clock_steps.c - a capture's clock step told from a pause
 * (clock_steps.h): a jump in its frames is a step only when the packets it
 * shares with another capture moved by at least IB_WATCH_GAP_NS, no more
 * than the frames jumped, measured by one packet before and two after on
 * a capture with no jump of its own between its copies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "clock_steps.h"
#include "fabric.h"

#define S  1000000000LL
#define MS 1000000LL

static struct ib_identity id(uint64_t n)
{
    return (struct ib_identity){ n, ~n };
}

/* Capture 0: packets 1-4 at 1..4 ms, then its clock moves by `step` (its
 * frames jump by `jump`), packets 5-8 after.  Capture 1 (no jump) sees
 * each packet 10 us after capture 0's old clock; `seen` of the after ones. */
struct scene {
    struct clock_steps st;
    struct step_figures figures[4];
};

static void play(struct scene *sc, int64_t jump, int64_t step, int seen_after, bool pause1)
{
    assert_true(cst_init(&sc->st, 2));
    for (uint64_t k = 1; k <= 4; k++) {
        cst_frame(&sc->st, 0, (int64_t)k * MS);
        cst_packet(&sc->st, 0, (int64_t)k * MS, id(k));
    }
    for (uint64_t k = 5; k <= 8; k++) {
        int64_t t = 4 * MS + jump + (int64_t)(k - 5) * MS;
        cst_frame(&sc->st, 0, t);
        cst_packet(&sc->st, 0, t, id(k));
    }
    cst_finish(&sc->st);
    assert_int_equal(sc->st.gap_count, 1);
    assert_int_equal(sc->st.gaps[0].frame, 5);
    memset(sc->figures, 0, sizeof sc->figures);
    /* capture 1: the copies in order, frame k; a pause of its own (a jump
     * before frame 5) when pause1 */
    for (uint64_t k = 1; k <= 8; k++) {
        if (k >= 5 && (int)(k - 5) >= seen_after)
            continue;
        int64_t own0 = k <= 4 ? (int64_t)k * MS : 4 * MS + jump + (int64_t)(k - 5) * MS;
        int64_t t1 = own0 - (k >= 5 ? step : 0) + 10000;
        cst_seen(&sc->st, sc->figures, 1, k, t1, id(k));
    }
    if (pause1) { /* a gap of capture 1 at its frame 5, for the rule's sake */
        struct step_gap g = { .capture = 1, .frame = 5, .jump_ns = jump };
        sc->st.gaps[sc->st.gap_count++] = g;
    }
}

static void test_step_forward(void **state)
{
    (void)state;
    struct scene sc;
    play(&sc, 60 * S + MS, 60 * S, 4, false);
    struct ib_clock_step s;
    assert_true(cst_step(&sc.st, sc.figures, 0, &s));
    assert_int_equal(s.capture, 0);
    assert_int_equal(s.frame, 5);
    assert_int_equal(s.against, 1);
    assert_true(s.step_ns - s.error_ns <= 60 * S && 60 * S <= s.step_ns + s.error_ns);
    assert_true(s.error_ns < MS);
    /* capture 0's own copies never measure it */
    assert_int_equal(sc.figures[0].other, 1);
    cst_free(&sc.st);
}

static void test_step_back(void **state)
{
    (void)state;
    struct scene sc;
    play(&sc, -30 * S + MS, -30 * S, 2, false);
    struct ib_clock_step s;
    assert_true(cst_step(&sc.st, sc.figures, 0, &s));
    assert_true(s.step_ns - s.error_ns <= -30 * S && -30 * S <= s.step_ns + s.error_ns);
    cst_free(&sc.st);
}

/* The frames jumped 60 s but the clocks' difference did not move: a pause. */
static void test_pause(void **state)
{
    (void)state;
    struct scene sc;
    play(&sc, 60 * S, 0, 4, false);
    struct ib_clock_step s;
    assert_false(cst_step(&sc.st, sc.figures, 0, &s));
    cst_free(&sc.st);
}

/* A shift under 1 s, or larger than the frames jumped, or one packet after
 * only, or the other capture jumping too: no step. */
static void test_not_enough(void **state)
{
    (void)state;
    struct ib_clock_step s;
    struct scene sc;
    play(&sc, 2 * S, S / 2, 4, false);
    assert_false(cst_step(&sc.st, sc.figures, 0, &s));
    cst_free(&sc.st);
    play(&sc, 2 * S, 3 * S, 4, false);
    assert_false(cst_step(&sc.st, sc.figures, 0, &s));
    cst_free(&sc.st);
    play(&sc, 60 * S, 60 * S, 1, false);
    assert_false(cst_step(&sc.st, sc.figures, 0, &s));
    cst_free(&sc.st);
    play(&sc, 60 * S, 60 * S, 4, true);
    assert_false(cst_step(&sc.st, sc.figures, 0, &s));
    cst_free(&sc.st);
}

/* Frames no more than IB_WATCH_GAP_NS apart, either way, are no gap. */
static void test_no_gap(void **state)
{
    (void)state;
    struct clock_steps st;
    assert_true(cst_init(&st, 1));
    const int64_t t[] = { 0, IB_WATCH_GAP_NS, 0, IB_WATCH_GAP_NS };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        cst_frame(&st, 0, t[i]);
    cst_finish(&st);
    assert_int_equal(st.gap_count, 0);
    cst_frame(&st, 0, 2 * IB_WATCH_GAP_NS + 1);
    assert_int_equal(st.gap_count, 1);
    cst_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_forward), cmocka_unit_test(test_step_back),
        cmocka_unit_test(test_pause),        cmocka_unit_test(test_not_enough),
        cmocka_unit_test(test_no_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
