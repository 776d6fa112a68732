/* crc_fast.c - reflected CRCs by carry-less folding, or by sliced tables.
 *
 * Folding: a message M of 16-byte blocks B0, B1, ... is congruent, modulo
 * the generator P, to F = (..((B0 x^128 + B1) x^128 + B2)..), and each step
 * keeps F to 128 bits: with F = H x^64 + L,
 *     F x^128 = H x^192 + L x^128 == H (x^192 mod P) + L (x^128 mod P),
 * two 64 x 32-bit carry-less products.  Congruent messages have the same
 * CRC, so the CRC of M is the CRC of the last F: F x^w mod P.  Two more folds
 * by x^64 mod P bring F to 64 bits, and Barrett's reduction takes the rest:
 * with mu = x^(64+w) / P, the quotient of F x^w by P is F mu / x^64, and the
 * remainder the low w bits of that quotient times P.  In
 * reflected order a product comes out multiplied by x once more, so the
 * constants are x^191 and x^127 mod P.  A register value other than zero is the same as
 * that value XORed into the first bytes of the data.
 */
#include "crc_fast.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC_FAST_CLMUL 1
#include <immintrin.h>
#endif

static uint64_t reflect(uint64_t v, unsigned bits)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        if (v & (1ull << i))
            r |= 1ull << (bits - 1 - i);
    return r;
}

/* x^k mod P, not reflected. */
static uint32_t xpow_mod(unsigned k, unsigned width, uint32_t poly)
{
    uint64_t top = 1ull << width, r = 1;
    for (unsigned i = 0; i < k; i++) {
        r <<= 1;
        if (r & top)
            r ^= top | poly;
    }
    return (uint32_t)r;
}

/* x^(64+width) / P, without its x^64 term (always there), not reflected. */
static uint64_t barrett_mu(unsigned width, uint32_t poly)
{
    uint64_t top = 1ull << width, rem = top, q = 0;
    for (int d = 64; d >= 0; d--) {
        if (rem & top) {
            if (d < 64)
                q |= 1ull << d;
            rem ^= top | poly;
        }
        rem <<= 1;
    }
    return q;
}

/* Whether this CPU can fold (read once, by crc_fast_init). */
static bool have_clmul(void)
{
#ifdef CRC_FAST_CLMUL
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3") &&
           __builtin_cpu_supports("sse4.1");
#else
    return false;
#endif
}

void crc_fast_init(struct crc_fast *c, unsigned width, uint32_t poly)
{
    uint32_t rpoly = reflect(poly, width);
    c->width = width;
    c->clmul = have_clmul();
    for (unsigned i = 0; i < 256; i++) {
        uint32_t r = i;
        for (int b = 0; b < 8; b++)
            r = r & 1 ? (r >> 1) ^ rpoly : r >> 1;
        c->table[0][i] = r;
    }
    for (unsigned k = 1; k < 8; k++)
        for (unsigned i = 0; i < 256; i++)
            c->table[k][i] = (c->table[k - 1][i] >> 8) ^ c->table[0][c->table[k - 1][i] & 0xFF];
    /* A reflected 64-bit operand has x^63 in bit 0: a degree < width
     * polynomial sits in its top width bits. */
    c->k_hi = (uint64_t)reflect(xpow_mod(191, width, poly), width) << (64 - width);
    c->k_lo = (uint64_t)reflect(xpow_mod(127, width, poly), width) << (64 - width);
    c->k4_hi = (uint64_t)reflect(xpow_mod(575, width, poly), width) << (64 - width);
    c->k4_lo = (uint64_t)reflect(xpow_mod(511, width, poly), width) << (64 - width);
    c->k63 = (uint64_t)reflect(xpow_mod(63, width, poly), width) << (64 - width);
    c->mu = reflect(barrett_mu(width, poly), 64);
    c->poly_r = reflect(poly, width) << (64 - width);
}

static uint32_t by_table(const struct crc_fast *c, uint32_t reg, const uint8_t *p, size_t n)
{
    const uint32_t(*t)[256] = c->table;
    for (; n >= 8; p += 8, n -= 8) {
        /* A 16-bit register only reaches into the first two bytes. */
        uint32_t lo = reg ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                             (uint32_t)p[3] << 24);
        reg = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
              t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
    }
    for (; n > 0; p++, n--)
        reg = (reg >> 8) ^ t[0][(reg ^ *p) & 0xFF];
    return reg;
}

#ifdef CRC_FAST_CLMUL
#define CLMUL_TARGET __attribute__((target("pclmul,ssse3,sse4.1")))

/* f x^(128 n) + next, kept to 128 bits, with the constants k for that n. */
CLMUL_TARGET static inline __m128i fold(__m128i f, __m128i k, __m128i next)
{
    __m128i hi = _mm_clmulepi64_si128(f, k, 0x00); /* H (low qword) x high-degree constant */
    __m128i lo = _mm_clmulepi64_si128(f, k, 0x11); /* L (high qword) x low-degree constant */
    return _mm_xor_si128(_mm_xor_si128(hi, lo), next);
}

/* The carry-less product of two 64-bit operands, 128 bits. */
CLMUL_TARGET static inline __m128i product(uint64_t a, uint64_t b)
{
    return _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)a), _mm_cvtsi64_si128((long long)b),
                                0x00);
}

/* F x^w mod P for the 128 bits of f (see the top of this file).  Reflected,
 * a 64-bit operand holds x^63 in bit 0 and a product comes out times x; the
 * shifts below undo that where it matters. */
CLMUL_TARGET static uint32_t reduce(const struct crc_fast *c, __m128i f)
{
    const __m128i k = _mm_cvtsi64_si128((long long)c->k63);
    /* F = H x^64 + L == H (x^64 mod P) + L, under 64 + w bits... */
    __m128i m =
        _mm_xor_si128(_mm_clmulepi64_si128(f, k, 0x00), _mm_unpackhi_epi64(_mm_setzero_si128(), f));
    /* ...and its top w bits folded the same way: 64 bits. */
    uint64_t g = (uint64_t)_mm_extract_epi64(_mm_xor_si128(_mm_clmulepi64_si128(m, k, 0x00), m), 1);
    /* The quotient: g mu / x^64, mu's own x^64 giving g itself. */
    uint64_t q = g ^ ((uint64_t)_mm_cvtsi128_si64(product(g, c->mu)) << 1);
    return (uint32_t)((uint64_t)_mm_extract_epi64(product(q, c->poly_r), 1) >> (63 - c->width));
}

CLMUL_TARGET static inline __m128i load(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* Four independent streams of 16-byte blocks, 64 bytes apart, hide the
 * multiplier's latency; they are folded into one at the end.  Zero bytes
 * before a message leave a zero register zero, so the message is taken as
 * if padded at its front to whole blocks: nothing is left over at its end
 * for the tables, only the last 16 bytes of F.  n >= 64. */
CLMUL_TARGET static uint32_t by_folding(const struct crc_fast *c, uint32_t reg, const uint8_t *p,
                                        size_t n)
{
    const __m128i k1 = _mm_set_epi64x((long long)c->k_lo, (long long)c->k_hi);
    const __m128i k4 = _mm_set_epi64x((long long)c->k4_lo, (long long)c->k4_hi);
    /* The first block: pad zero bytes, then the data's first bytes with
     * the register XORed into them; byte shuffles move both up by pad, and
     * what of the register passes the block's end goes into the next. */
    static const uint8_t up[32] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                    0,    1,    2,    3,    4,    5,    6,    7,
                                    8,    9,    10,   11,   12,   13,   14,   15 };
    static const uint8_t down[32] = { 0,    1,    2,    3,    4,    5,    6,    7,
                                      8,    9,    10,   11,   12,   13,   14,   15,
                                      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80 };
    size_t pad = (16 - n % 16) % 16;
    __m128i r = _mm_cvtsi32_si128((int)reg);
    __m128i f0 = _mm_shuffle_epi8(_mm_xor_si128(load(p), r), load(up + 16 - pad));
    p += 16 - pad;
    n -= 16 - pad; /* now whole blocks, at least three */
    __m128i f1 = _mm_xor_si128(load(p), _mm_shuffle_epi8(r, load(down + 16 - pad)));
    __m128i f2 = load(p + 16), f3 = load(p + 32);
    p += 48;
    n -= 48;
    size_t at = 0;
    for (; at + 64 <= n; at += 64) {
        f0 = fold(f0, k4, load(p + at));
        f1 = fold(f1, k4, load(p + at + 16));
        f2 = fold(f2, k4, load(p + at + 32));
        f3 = fold(f3, k4, load(p + at + 48));
    }
    __m128i f = fold(fold(fold(f0, k1, f1), k1, f2), k1, f3);
    for (; at < n; at += 16)
        f = fold(f, k1, load(p + at));
    return reduce(c, f);
}

#endif

uint32_t crc_fast_update(const struct crc_fast *c, uint32_t reg, const uint8_t *data, size_t n)
{
#ifdef CRC_FAST_CLMUL
    if (n >= 64 && c->clmul)
        return by_folding(c, reg, data, n);
#endif
    return by_table(c, reg, data, n);
}
