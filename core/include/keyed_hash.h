/* keyed_hash.h - SipHash-2-4 with its 128-bit output: a hash that cannot be
 * steered by whoever chooses the input, as long as the key is secret.
 *
 * SipHash (J.-P. Aumasson and D. J. Bernstein, "SipHash: a fast short-input
 * PRF", INDOCRYPT 2012) is a pseudorandom function of a 128-bit key: without
 * the key, no input can be chosen to give an output, or two inputs to give
 * the same one, any better than by chance.  The packet identity
 * (identity.h) is keyed with it, with a key drawn for each run, so that a
 * capture cannot be written to collide with another's packets.  Input is
 * absorbed in pieces; the output is the same as for the pieces joined.
 */
#ifndef IBSCOPE_KEYED_HASH_H
#define IBSCOPE_KEYED_HASH_H

#include <stddef.h>
#include <stdint.h>

/* k0 and k1: the key's bytes 0-7 and 8-15, little-endian. */
struct ib_hash_key {
    uint64_t k0, k1;
};

/* The output's bytes 0-7 and 8-15, little-endian, as the reference's
 * vectors_sip128 lists them. */
struct ib_hash128 {
    uint64_t lo, hi;
};

struct ib_siphash {
    uint64_t v[4];
    uint64_t tail; /* the bytes of a word not yet whole */
    size_t len;    /* bytes absorbed */
};

void ib_siphash_init(struct ib_siphash *s, const struct ib_hash_key *key);
void ib_siphash_update(struct ib_siphash *s, const uint8_t *data, size_t len);
struct ib_hash128 ib_siphash_final(struct ib_siphash *s);

#endif
