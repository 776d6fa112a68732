/* frame_builder.c - bounded byte-buffer writer (see frame_builder.h). */
#include "frame_builder.h"

#include <string.h>

void fb_init(fb_t *fb, uint8_t *mem, size_t cap)
{
    fb->buf = mem;
    fb->len = 0;
    fb->cap = cap;
    fb->overflow = false;
}

static uint8_t *fb_take(fb_t *fb, size_t n)
{
    if (fb->overflow || n > fb->cap - fb->len) {
        fb->overflow = true;
        return NULL;
    }
    uint8_t *p = fb->buf + fb->len;
    fb->len += n;
    return p;
}

void fb_u8(fb_t *fb, uint8_t v)
{
    uint8_t *p = fb_take(fb, 1);
    if (p)
        p[0] = v;
}

void fb_be16(fb_t *fb, uint16_t v)
{
    uint8_t *p = fb_take(fb, 2);
    if (p)
        put_be16(p, v);
}

void fb_be24(fb_t *fb, uint32_t v)
{
    uint8_t *p = fb_take(fb, 3);
    if (p)
        put_be24(p, v);
}

void fb_be32(fb_t *fb, uint32_t v)
{
    uint8_t *p = fb_take(fb, 4);
    if (p)
        put_be32(p, v);
}

void fb_be64(fb_t *fb, uint64_t v)
{
    uint8_t *p = fb_take(fb, 8);
    if (p)
        put_be64(p, v);
}

void fb_le16(fb_t *fb, uint16_t v)
{
    uint8_t *p = fb_take(fb, 2);
    if (p) {
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
    }
}

void fb_le32(fb_t *fb, uint32_t v)
{
    fb_le16(fb, (uint16_t)v);
    fb_le16(fb, (uint16_t)(v >> 16));
}

void fb_le64(fb_t *fb, uint64_t v)
{
    fb_le32(fb, (uint32_t)v);
    fb_le32(fb, (uint32_t)(v >> 32));
}

void fb_bytes(fb_t *fb, const void *src, size_t n)
{
    uint8_t *p = fb_take(fb, n);
    if (p && n)
        memcpy(p, src, n);
}

void fb_fill(fb_t *fb, uint8_t v, size_t n)
{
    uint8_t *p = fb_take(fb, n);
    if (p && n)
        memset(p, v, n);
}

void fb_set_be16(fb_t *fb, size_t off, uint16_t v)
{
    if (off + 2 > fb->len) {
        fb->overflow = true;
        return;
    }
    put_be16(fb->buf + off, v);
}
