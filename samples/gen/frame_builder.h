/* frame_builder.h - bounded byte-buffer writer with big-endian put helpers.
 *
 * The caller owns the memory; nothing here allocates.  A write past the
 * capacity sets `overflow` and is dropped, so builders never corrupt memory;
 * callers check fb_ok() once at the end.
 */
#ifndef IBSCOPE_GEN_FRAME_BUILDER_H
#define IBSCOPE_GEN_FRAME_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fb {
    uint8_t *buf;
    size_t len;
    size_t cap;
    bool overflow;
} fb_t;

void fb_init(fb_t *fb, uint8_t *mem, size_t cap);
static inline bool fb_ok(const fb_t *fb)
{
    return !fb->overflow;
}

void fb_u8(fb_t *fb, uint8_t v);
void fb_be16(fb_t *fb, uint16_t v);
void fb_be24(fb_t *fb, uint32_t v);
void fb_be32(fb_t *fb, uint32_t v);
void fb_be64(fb_t *fb, uint64_t v);
void fb_le16(fb_t *fb, uint16_t v);
void fb_le32(fb_t *fb, uint32_t v);
void fb_le64(fb_t *fb, uint64_t v);
void fb_bytes(fb_t *fb, const void *p, size_t n);
void fb_fill(fb_t *fb, uint8_t v, size_t n);

/* Patch already-written bytes (offsets from the start of the buffer). */
void fb_set_be16(fb_t *fb, size_t off, uint16_t v);

/* Raw big-endian stores/loads into plain arrays (no bounds: fixed layouts). */
static inline void put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void put_be24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}
static inline void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}
static inline uint16_t get_be16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

#endif
