/* reader.h - the one bounds-checked way ibscope reads bytes off the wire.
 *
 * Every parser takes a span (pointer + length) and reads through these
 * accessors, so no parser does its own pointer arithmetic on packet bytes.
 * Multi-byte fields are big-endian (IBA Vol. 1 §5.1), except where a caller
 * asks for little-endian (the ERF timestamp).  A read that would pass the end
 * of the span returns 0 and never touches memory outside it; parsers check
 * ib_span_has() first so that truncation becomes a diagnostic, and the zero
 * fallback is only a second line of defence.
 */
#ifndef IBSCOPE_READER_H
#define IBSCOPE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ib_span {
    const uint8_t *data;
    size_t len;
};

static inline struct ib_span ib_span_make(const uint8_t *data, size_t len)
{
    struct ib_span s = { data, data ? len : 0 };
    return s;
}

/* True when n bytes starting at off lie inside the span. */
static inline bool ib_span_has(struct ib_span s, size_t off, size_t n)
{
    return off <= s.len && n <= s.len - off;
}

/* The part of s from off on (empty when off is past the end). */
static inline struct ib_span ib_span_from(struct ib_span s, size_t off)
{
    if (off > s.len)
        return ib_span_make(NULL, 0);
    return ib_span_make(s.data + off, s.len - off);
}

/* The first n bytes of s (all of s when it is shorter). */
static inline struct ib_span ib_span_head(struct ib_span s, size_t n)
{
    return ib_span_make(s.data, n < s.len ? n : s.len);
}

static inline uint8_t ib_rd8(struct ib_span s, size_t off)
{
    return ib_span_has(s, off, 1) ? s.data[off] : 0;
}

static inline uint16_t ib_rd16(struct ib_span s, size_t off)
{
    if (!ib_span_has(s, off, 2))
        return 0;
    return (uint16_t)((unsigned)s.data[off] << 8 | s.data[off + 1]);
}

static inline uint32_t ib_rd24(struct ib_span s, size_t off)
{
    if (!ib_span_has(s, off, 3))
        return 0;
    return (uint32_t)s.data[off] << 16 | (uint32_t)s.data[off + 1] << 8 | s.data[off + 2];
}

static inline uint32_t ib_rd32(struct ib_span s, size_t off)
{
    if (!ib_span_has(s, off, 4))
        return 0;
    return (uint32_t)s.data[off] << 24 | (uint32_t)s.data[off + 1] << 16 |
           (uint32_t)s.data[off + 2] << 8 | s.data[off + 3];
}

static inline uint64_t ib_rd64(struct ib_span s, size_t off)
{
    if (!ib_span_has(s, off, 8))
        return 0;
    return (uint64_t)ib_rd32(s, off) << 32 | ib_rd32(s, off + 4);
}

static inline uint16_t ib_rd16le(struct ib_span s, size_t off)
{
    if (!ib_span_has(s, off, 2))
        return 0;
    return (uint16_t)(s.data[off] | (unsigned)s.data[off + 1] << 8);
}

static inline uint32_t ib_rd32le(struct ib_span s, size_t off)
{
    if (!ib_span_has(s, off, 4))
        return 0;
    return s.data[off] | (uint32_t)s.data[off + 1] << 8 | (uint32_t)s.data[off + 2] << 16 |
           (uint32_t)s.data[off + 3] << 24;
}

static inline uint64_t ib_rd64le(struct ib_span s, size_t off)
{
    if (!ib_span_has(s, off, 8))
        return 0;
    return (uint64_t)ib_rd32le(s, off + 4) << 32 | ib_rd32le(s, off);
}

/* Copies n bytes at off into out, or zeroes out when they are not all there. */
static inline bool ib_rdbytes(struct ib_span s, size_t off, void *out, size_t n)
{
    if (!ib_span_has(s, off, n)) {
        memset(out, 0, n);
        return false;
    }
    memcpy(out, s.data + off, n);
    return true;
}

#endif
