/* crc_fast.h - reflected CRCs of up to 32 bits, fast (private to crc.c).
 *
 * Where the CPU multiplies without carries (x86-64 PCLMULQDQ), 16 bytes are
 * folded at a time and the last 16 reduced by multiplies too (no table is
 * read, so none needs to be in cache); elsewhere, and for messages under 64
 * bytes, tables take eight bytes a step.  The register is the CRC's shift register: no initial
 * value or final mask is applied here, so a CRC can be continued across buffers.
 */
#ifndef IBSCOPE_CRC_FAST_H
#define IBSCOPE_CRC_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct crc_fast {
    unsigned width;         /* 16 or 32 */
    bool clmul;             /* the CPU folds with carry-less multiplies */
    uint64_t k_hi, k_lo;    /* folding by 128 bits: x^191 and x^127 mod P, reflected */
    uint64_t k4_hi, k4_lo;  /* by 512 bits, four streams: x^575 and x^511 mod P */
    uint64_t k63;           /* the last 128 bits to 64: x^63 mod P, reflected */
    uint64_t mu;            /* Barrett: x^(64+width) / P without its x^64, reflected */
    uint64_t poly_r;        /* P without its top bit, reflected */
    uint32_t table[8][256]; /* slicing by 8; last, so the rest share a cache line */
};

/* poly: the generator without its top bit, not reflected (0x04C11DB7). */
void crc_fast_init(struct crc_fast *c, unsigned width, uint32_t poly);

/* The register after n more bytes of data. */
uint32_t crc_fast_update(const struct crc_fast *c, uint32_t reg, const uint8_t *data, size_t n);

#endif
