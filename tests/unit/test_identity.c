/* test_identity.c - a packet's identity across captures (identity.h): the
 * same on every sighting of one packet whatever the fabric rewrote, another
 * for any other byte, another under another key, and the 128 bits compared
 * by the table that holds the sightings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "identity.h"
#include "linktype.h"
#include "packet.h"
#include "sightings.h"
#include "test_support.h"

#define FRAME 8 + 12 + 8 + 256 + 4 + 2 /* LRH BTH DETH MAD ICRC VCRC */

static const struct ib_hash_key KEY = { 0x0123456789abcdefull, 0xfedcba9876543210ull };

/* A native UD MAD (LID 0x0BCD to 0x1234, QP1), its MAD bytes i * 7. */
static void put_frame(uint8_t f[FRAME])
{
    struct ts_lrh l = {
        .vl = 0, .sl = 5, .lnh = 2, .dlid = 0x1234, .pktlen = (FRAME - 2) / 4, .slid = 0x0BCD
    };
    struct ts_bth t = { .opcode = 0x64, .pkey = 0xFFFF, .destqp = 1, .psn = 0x00BEEF };
    size_t at = ts_put_lrh(f, 0, &l);
    at = ts_put_bth(f, at, &t);
    at = ts_put_deth(f, at, 0x80010000u, 1);
    for (size_t i = 0; i < 256; i++)
        f[at + i] = (uint8_t)(i * 7);
    ts_put32(f, at + 256, 0xC1C2C3C4u);
    ts_put16(f, at + 260, 0xD1D2);
}

static struct ib_identity identity_of(const struct ib_hash_key *key, const uint8_t f[FRAME])
{
    struct ib_packet p;
    assert_int_equal(ib_parse_frame(NULL, IB_DLT_INFINIBAND, f, FRAME, FRAME, &p), IB_FRAME_IB);
    struct ib_identity id;
    assert_true(ib_packet_identity(key, f, FRAME, &p, &id));
    return id;
}

static bool differ(struct ib_identity a, struct ib_identity b)
{
    return a.hash != b.hash && a.check != b.check;
}

/* VL, the BTH's reserved byte and the VCRC are the fabric's to change: the
 * same packet.  Any other byte: another. */
static void test_what_counts(void **state)
{
    (void)state;
    uint8_t f[FRAME], g[FRAME];
    put_frame(f);
    struct ib_identity id = identity_of(&KEY, f);
    memcpy(g, f, FRAME);
    g[0] = (uint8_t)(g[0] | 0x70); /* VL 7 */
    g[8 + 4] = 0x5A;               /* Resv8a */
    g[FRAME - 1] ^= 0xFF;          /* VCRC */
    assert_true(ib_identity_equal(identity_of(&KEY, g), id));
    for (size_t at = 1; at < FRAME - 2; at++) {
        if (at == 8 + 4 || (at >= 4 && at < 6))
            continue; /* Resv8a; PktLen (another length: not the same frame) */
        memcpy(g, f, FRAME);
        g[at] ^= 0x01;
        struct ib_packet p;
        if (ib_parse_frame(NULL, IB_DLT_INFINIBAND, g, FRAME, FRAME, &p) != IB_FRAME_IB)
            continue;
        struct ib_identity other;
        if (ib_packet_identity(&KEY, g, FRAME, &p, &other))
            assert_true(differ(other, id));
    }
}

/* Another key, another identity, for the packet and its addresses. */
static void test_keyed(void **state)
{
    (void)state;
    uint8_t f[FRAME];
    put_frame(f);
    struct ib_hash_key other = { KEY.k0, KEY.k1 ^ 0x100 };
    assert_true(differ(identity_of(&KEY, f), identity_of(&other, f)));
    struct ib_endpoint ep = { .lid = 0x0BCD };
    assert_true(ib_endpoint_key(&KEY, &ep) != ib_endpoint_key(&other, &ep));
    struct ib_endpoint gid = { .has_gid = true, .lid = 0x0BCD };
    assert_true(ib_endpoint_key(&KEY, &ep) != ib_endpoint_key(&KEY, &gid));
}

/* A sighting is found only by its whole identity: the same table key with
 * another check is another packet. */
static void test_sightings_compare_128_bits(void **state)
{
    (void)state;
    struct ib_sightings s;
    assert_true(ib_sightings_init(&s, 16, 1000));
    struct ib_frame_ref at = { 0, 1, 0 };
    struct ib_identity a = { 42, 1 }, b = { 42, 2 };
    assert_non_null(ib_sightings_insert(&s, a, at));
    assert_null(ib_sightings_find(&s, b));
    assert_non_null(ib_sightings_insert(&s, b, at));
    assert_true(ib_identity_equal(ib_sightings_find(&s, a)->identity, a));
    assert_true(ib_identity_equal(ib_sightings_find(&s, b)->identity, b));
    ib_sightings_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_counts),
        cmocka_unit_test(test_keyed),
        cmocka_unit_test(test_sightings_compare_128_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
