/* test_crc_fast.c - the fast CRCs against a CRC computed one bit at a time.
 *
 * Every length from 0 to 700 bytes (the tables below 64, the folding from
 * 64, every remainder mod 16 and mod 64), each with a starting register of
 * zero, of all ones and a random one, and each also split in two at every
 * 37th byte so that a register is carried from one call to the next.  The
 * data lies in a heap block of exactly its length, so an over-read traps
 * under AddressSanitizer.  A known answer first: the CRC-32 check value
 * of "123456789", 0xCBF43926.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../core/parse/crc_fast.h"

#define CRC32_POLY 0x04C11DB7u
#define CRC16_POLY 0x100Bu
#define LONGEST    700

/* Reflected, one bit at a time: the definition. */
static uint32_t bitwise(unsigned width, uint32_t poly, uint32_t reg, const uint8_t *p, size_t n)
{
    uint32_t rpoly = 0;
    for (unsigned i = 0; i < width; i++)
        if (poly & (1u << i))
            rpoly |= 1u << (width - 1 - i);
    for (size_t i = 0; i < n; i++) {
        reg ^= p[i];
        for (int b = 0; b < 8; b++)
            reg = reg & 1 ? (reg >> 1) ^ rpoly : reg >> 1;
    }
    return reg;
}

static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* clmul false: the tables alone, as on a CPU that cannot fold. */
static void check_width(unsigned width, uint32_t poly, bool clmul)
{
    struct crc_fast c;
    crc_fast_init(&c, width, poly);
    c.clmul = c.clmul && clmul;
    uint32_t mask = width == 32 ? 0xFFFFFFFFu : (1u << width) - 1;
    uint32_t seed = 0x9E3779B9u;
    for (size_t n = 0; n <= LONGEST; n++) {
        uint8_t *data = malloc(n ? n : 1);
        assert_non_null(data);
        for (size_t i = 0; i < n; i++)
            data[i] = (uint8_t)next_random(&seed);
        uint32_t regs[3] = { 0, mask, next_random(&seed) & mask };
        for (unsigned r = 0; r < 3; r++) {
            uint32_t want = bitwise(width, poly, regs[r], data, n);
            uint32_t got = crc_fast_update(&c, regs[r], data, n);
            if (got != want)
                fail_msg("CRC-%u, %zu bytes, register 0x%X: 0x%X, should be 0x%X", width, n,
                         regs[r], got, want);
            for (size_t cut = 0; cut <= n; cut += 37) {
                uint32_t split = crc_fast_update(&c, regs[r], data, cut);
                split = crc_fast_update(&c, split, data + cut, n - cut);
                if (split != want)
                    fail_msg("CRC-%u, %zu bytes cut at %zu: 0x%X, should be 0x%X", width, n, cut,
                             split, want);
            }
        }
        free(data);
    }
}

static void test_check_value(void **state)
{
    (void)state;
    struct crc_fast c;
    crc_fast_init(&c, 32, CRC32_POLY);
    const uint8_t digits[] = "123456789";
    assert_int_equal(~crc_fast_update(&c, 0xFFFFFFFFu, digits, 9), 0xCBF43926u);
    assert_int_equal(~bitwise(32, CRC32_POLY, 0xFFFFFFFFu, digits, 9), 0xCBF43926u);
}

static void test_crc32_every_length(void **state)
{
    (void)state;
    check_width(32, CRC32_POLY, true);
    check_width(32, CRC32_POLY, false);
}

static void test_crc16_every_length(void **state)
{
    (void)state;
    check_width(16, CRC16_POLY, true);
    check_width(16, CRC16_POLY, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_value),
        cmocka_unit_test(test_crc32_every_length),
        cmocka_unit_test(test_crc16_every_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
