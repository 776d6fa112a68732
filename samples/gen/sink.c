/* sink.c - pcap output (see sink.h). */
#include "sink.h"

#include <errno.h>
#include <string.h>

#define SINK_SNAPLEN  65535u
#define PCAP_MAGIC_US 0xa1b2c3d4u

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Writes n bytes; the first failure is kept. */
static void put(sink_t *s, const void *p, size_t n)
{
    if (s->error || n == 0)
        return;
    errno = 0;
    if (fwrite(p, 1, n, s->f) != n)
        s->error = errno ? errno : EIO;
}

int sink_open(sink_t *s, const char *path, int linktype)
{
    memset(s, 0, sizeof(*s));
    if (!path)
        return 0;
    s->path = path;
    s->f = fopen(path, "wb");
    if (!s->f) {
        fprintf(stderr, "ibscope-gen: %s: %s\n", path, strerror(errno));
        return -1;
    }
    uint8_t h[24];
    put_le32(h, PCAP_MAGIC_US);
    h[4] = 2; /* version 2.4 */
    h[5] = 0;
    h[6] = 4;
    h[7] = 0;
    put_le32(h + 8, 0);  /* thiszone */
    put_le32(h + 12, 0); /* sigfigs */
    put_le32(h + 16, SINK_SNAPLEN);
    put_le32(h + 20, (uint32_t)linktype);
    put(s, h, sizeof(h));
    return 0;
}

void sink_write(sink_t *s, uint64_t ts_us, const uint8_t *data, size_t caplen, size_t len)
{
    s->frames++;
    s->bytes += caplen;
    if (!s->f)
        return;
    uint8_t h[16];
    put_le32(h, (uint32_t)(ts_us / 1000000u));
    put_le32(h + 4, (uint32_t)(ts_us % 1000000u));
    put_le32(h + 8, (uint32_t)caplen);
    put_le32(h + 12, (uint32_t)(len < caplen ? caplen : len));
    put(s, h, sizeof(h));
    put(s, data, caplen);
}

int sink_close(sink_t *s)
{
    int error = s->error;
    if (s->f) {
        errno = 0;
        if (fflush(s->f) != 0 && !error)
            error = errno ? errno : EIO;
        errno = 0;
        if (fclose(s->f) != 0 && !error)
            error = errno ? errno : EIO;
    }
    s->f = NULL;
    if (error) {
        fprintf(stderr, "ibscope-gen: %s: %s\n", s->path, strerror(error));
        return -1;
    }
    return 0;
}
