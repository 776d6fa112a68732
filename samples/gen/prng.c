/* prng.c - xorshift64* (Vigna); seed 0 is remapped so the state is never 0. */
#include "prng.h"

void prng_seed(prng_t *r, uint64_t seed)
{
    /* splitmix64 step spreads small seeds over the state */
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    r->s = z ? z : 0x2545F4914F6CDD1Dull;
}

uint64_t prng_next(prng_t *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

uint32_t prng_below(prng_t *r, uint32_t n)
{
    return (uint32_t)((prng_next(r) >> 32) % n);
}
