/* prng.h - xorshift64* generator: fixed seeds make every capture reproducible. */
#ifndef IBSCOPE_GEN_PRNG_H
#define IBSCOPE_GEN_PRNG_H

#include <stdint.h>

typedef struct prng {
    uint64_t s;
} prng_t;

void prng_seed(prng_t *r, uint64_t seed);
uint64_t prng_next(prng_t *r);
/* Uniform in [0, n) (n > 0); slight modulo bias is irrelevant here. */
uint32_t prng_below(prng_t *r, uint32_t n);

#endif
