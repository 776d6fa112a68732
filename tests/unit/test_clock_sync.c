/* test_clock_sync.c - the clocks of several captures (fabric.h, step 1) on
 * sightings made up here, whose true offsets and delays the tests choose:
 * each estimate within its bound of the truth, the bound NTP's, the owners
 * of the addresses, no link from one-way traffic, links chained through a
 * third capture, and the window's cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric.h"
#include "identity.h"
#include "packet.h"
#include "sightings.h"

#define T0 1767225600000000000LL
#define US 1000LL

static const struct ib_hash_key KEY = { 1, 2 };

/* A made-up identity: n in both halves. */
static struct ib_identity id(uint64_t n)
{
    return (struct ib_identity){ n, ~n };
}

static struct ib_packet from_lid(uint16_t src, uint16_t dst)
{
    struct ib_packet p;
    memset(&p, 0, sizeof p);
    p.src.lid = src;
    p.dst.lid = dst;
    return p;
}

/* Capture a's host (LID la) and capture b's (LID lb) exchange n packets
 * each way; b's clock is off_ns ahead.  Delays: d_ab + (k % 3) us one way,
 * d_ba + (k % 5) us the other.  Identities from seed. */
static void exchange(struct ib_clock_sync *cs, uint32_t a, uint16_t la, uint32_t b, uint16_t lb,
                     int64_t off_ns, int64_t d_ab, int64_t d_ba, int n, uint64_t seed)
{
    struct ib_packet ab = from_lid(la, lb), ba = from_lid(lb, la);
    for (int k = 0; k < n; k++) {
        int64_t t = T0 + k * 1000 * US;
        ib_clock_sync_frame(cs, a, t);
        ib_clock_sync_packet(cs, a, t, id(seed + 2 * (uint64_t)k), &ab);
        int64_t arrive = t + d_ab + (k % 3) * US;
        ib_clock_sync_frame(cs, b, arrive + off_ns);
        ib_clock_sync_packet(cs, b, arrive + off_ns, id(seed + 2 * (uint64_t)k), &ab);
        int64_t back = t + 500 * US; /* b answers, a receives */
        ib_clock_sync_frame(cs, b, back + off_ns);
        ib_clock_sync_packet(cs, b, back + off_ns, id(seed + 2 * (uint64_t)k + 1), &ba);
        ib_clock_sync_frame(cs, a, back + d_ba + (k % 5) * US);
        ib_clock_sync_packet(cs, a, back + d_ba + (k % 5) * US, id(seed + 2 * (uint64_t)k + 1),
                             &ba);
    }
}

static int64_t llabs64(int64_t v)
{
    return v < 0 ? -v : v;
}

static void test_symmetric(void **state)
{
    (void)state;
    struct ib_clock_sync *cs = ib_clock_sync_new(2, &KEY);
    assert_non_null(cs);
    exchange(cs, 0, 1, 1, 2, 3200 * US, 20 * US, 20 * US, 50, 100);
    ib_clock_sync_solve(cs);
    const struct ib_capture_clock *c = ib_clock_sync_capture(cs, 1);
    assert_true(c->linked);
    assert_int_equal(c->reference, 0);
    /* least delays 20 us both ways: exact, bound 20 us */
    assert_int_equal(c->offset_ns, 3200 * US);
    assert_int_equal(c->error_ns, 20 * US);
    assert_int_equal(ib_clock_sync_shared(cs), 100);
    struct ib_endpoint e1 = { .lid = 1 }, e2 = { .lid = 2 }, e3 = { .lid = 3 };
    assert_int_equal(ib_clock_sync_owner(cs, ib_endpoint_key(&KEY, &e1)), 0);
    assert_int_equal(ib_clock_sync_owner(cs, ib_endpoint_key(&KEY, &e2)), 1);
    assert_int_equal(ib_clock_sync_owner(cs, ib_endpoint_key(&KEY, &e3)), -1);
    ib_clock_sync_free(cs);
}

/* Unequal delays: the estimate is off by half their difference, and the
 * bound (half their sum) still holds it, whichever clock is ahead. */
static void test_asymmetric(void **state)
{
    (void)state;
    const int64_t offs[] = { 3200 * US, -1700 * US, 0, 59 * 1000000 * US };
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        struct ib_clock_sync *cs = ib_clock_sync_new(2, &KEY);
        exchange(cs, 0, 1, 1, 2, offs[i], 10 * US, 70 * US, 30, 1000);
        ib_clock_sync_solve(cs);
        const struct ib_capture_clock *c = ib_clock_sync_capture(cs, 1);
        assert_true(c->linked);
        assert_true(llabs64(c->offset_ns - offs[i]) <= c->error_ns);
        assert_int_equal(c->error_ns, 40 * US);
        assert_int_equal(llabs64(c->offset_ns - offs[i]), 30 * US);
        ib_clock_sync_free(cs);
    }
}

/* Packets one way only say offset + delay, never the offset: no link. */
static void test_one_way(void **state)
{
    (void)state;
    struct ib_clock_sync *cs = ib_clock_sync_new(2, &KEY);
    struct ib_packet ab = from_lid(1, 2);
    for (int k = 0; k < 20; k++) {
        int64_t t = T0 + k * 1000 * US;
        ib_clock_sync_packet(cs, 0, t, id(500 + (uint64_t)k), &ab);
        ib_clock_sync_packet(cs, 1, t + 25 * US + 3200 * US, id(500 + (uint64_t)k), &ab);
    }
    ib_clock_sync_solve(cs);
    assert_int_equal(ib_clock_sync_shared(cs), 20);
    assert_false(ib_clock_sync_capture(cs, 1)->linked);
    assert_int_equal(ib_clock_sync_capture(cs, 1)->reference, 1);
    ib_clock_sync_free(cs);
}

/* Capture 2 shares packets with capture 1 only: corrected through it, the
 * errors added. */
static void test_chained(void **state)
{
    (void)state;
    struct ib_clock_sync *cs = ib_clock_sync_new(3, &KEY);
    /* true clocks: 0 at 0, 1 at +3.2 ms, 2 at -1.7 ms */
    exchange(cs, 0, 1, 1, 2, 3200 * US, 20 * US, 30 * US, 20, 100);
    exchange(cs, 1, 2, 2, 3, -4900 * US, 15 * US, 15 * US, 20, 900);
    ib_clock_sync_solve(cs);
    const struct ib_capture_clock *c1 = ib_clock_sync_capture(cs, 1);
    const struct ib_capture_clock *c2 = ib_clock_sync_capture(cs, 2);
    assert_true(c2->linked);
    assert_int_equal(c2->reference, 0);
    assert_int_equal(c2->error_ns, c1->error_ns + 15 * US);
    assert_true(llabs64(c2->offset_ns - -1700 * US) <= c2->error_ns);
    ib_clock_sync_free(cs);
}

/* The same bytes twice on one capture are two packets, not a pair. */
static void test_same_capture(void **state)
{
    (void)state;
    struct ib_clock_sync *cs = ib_clock_sync_new(2, &KEY);
    struct ib_packet p = from_lid(1, 2);
    ib_clock_sync_packet(cs, 0, T0, id(7), &p);
    ib_clock_sync_packet(cs, 0, T0 + US, id(7), &p);
    assert_int_equal(ib_clock_sync_shared(cs), 0);
    ib_clock_sync_free(cs);
}

/* The window keeps at most its cap, oldest out first, and counts them. */
static void test_window_cap(void **state)
{
    (void)state;
    struct ib_sightings s;
    assert_true(ib_sightings_init(&s, 4, 1000));
    bool early;
    for (uint64_t k = 0; k < 10; k++) {
        struct ib_sighting *g;
        while ((g = ib_sightings_due(&s, T0 + (int64_t)k, &early)))
            ib_sightings_release(&s, g);
        struct ib_frame_ref at = { 0, k + 1, T0 + (int64_t)k };
        assert_non_null(ib_sightings_insert(&s, id(1000 + k), at));
    }
    assert_true(s.live <= 4);
    assert_int_equal(s.evicted, 6);
    assert_null(ib_sightings_find(&s, id(1000)));
    assert_non_null(ib_sightings_find(&s, id(1009)));
    /* past the window, each goes on time, not early */
    struct ib_sighting *g = ib_sightings_due(&s, T0 + 5000, &early);
    assert_non_null(g);
    assert_false(early);
    ib_sightings_release(&s, g);
    ib_sightings_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symmetric),    cmocka_unit_test(test_asymmetric),
        cmocka_unit_test(test_one_way),      cmocka_unit_test(test_chained),
        cmocka_unit_test(test_same_capture), cmocka_unit_test(test_window_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
