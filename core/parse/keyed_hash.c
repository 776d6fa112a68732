/* keyed_hash.c - SipHash-2-4, 128-bit output (keyed_hash.h), written from
 * the paper's description: two rounds per word, four to finish, and the
 * 128-bit variant's 0xee and 0xdd. */
#include "keyed_hash.h"

static uint64_t rotl(uint64_t x, unsigned b)
{
    return x << b | x >> (64 - b);
}

static void sip_round(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = rotl(v[1], 13) ^ v[0];
    v[0] = rotl(v[0], 32);
    v[2] += v[3];
    v[3] = rotl(v[3], 16) ^ v[2];
    v[0] += v[3];
    v[3] = rotl(v[3], 21) ^ v[0];
    v[2] += v[1];
    v[1] = rotl(v[1], 17) ^ v[2];
    v[2] = rotl(v[2], 32);
}

static void compress(uint64_t v[4], uint64_t m)
{
    v[3] ^= m;
    sip_round(v);
    sip_round(v);
    v[0] ^= m;
}

void ib_siphash_init(struct ib_siphash *s, const struct ib_hash_key *key)
{
    /* "somepseudorandomlygeneratedbytes" */
    s->v[0] = key->k0 ^ 0x736f6d6570736575ull;
    s->v[1] = key->k1 ^ 0x646f72616e646f6dull ^ 0xee; /* the 128-bit output */
    s->v[2] = key->k0 ^ 0x6c7967656e657261ull;
    s->v[3] = key->k1 ^ 0x7465646279746573ull;
    s->tail = 0;
    s->len = 0;
}

void ib_siphash_update(struct ib_siphash *s, const uint8_t *data, size_t len)
{
    size_t i = 0;
    while (i < len && s->len % 8) { /* the word an earlier piece began */
        s->tail |= (uint64_t)data[i++] << 8 * (s->len++ % 8);
        if (s->len % 8 == 0) {
            compress(s->v, s->tail);
            s->tail = 0;
        }
    }
    for (; len - i >= 8; i += 8, s->len += 8) {
        uint64_t m = 0;
        for (unsigned b = 0; b < 8; b++)
            m |= (uint64_t)data[i + b] << 8 * b;
        compress(s->v, m);
    }
    for (; i < len; i++, s->len++)
        s->tail |= (uint64_t)data[i] << 8 * (s->len % 8);
}

static uint64_t finish(uint64_t v[4])
{
    for (int r = 0; r < 4; r++)
        sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

struct ib_hash128 ib_siphash_final(struct ib_siphash *s)
{
    compress(s->v, s->tail | (uint64_t)(s->len & 0xFF) << 56);
    s->v[2] ^= 0xee;
    struct ib_hash128 out;
    out.lo = finish(s->v);
    s->v[1] ^= 0xdd;
    out.hi = finish(s->v);
    return out;
}
