/* pcapng_writer.c - the three pcapng blocks ibscope writes (pcapng
 * specification, sections 4.1 SHB, 4.2 IDB, 4.3 EPB), in host byte order
 * as the byte-order magic allows. */
#include "pcapng_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK_SHB           0x0A0D0D0Au
#define BLOCK_IDB           0x00000001u
#define BLOCK_EPB           0x00000006u
#define BYTE_ORDER_MAGIC    0x1A2B3C4Du
#define OPT_END             0
#define OPT_IF_NAME         2
#define OPT_IF_TSRESOL      9
#define OPT_IF_TSOFFSET     14
#define TSRESOL_NANOSECONDS 9 /* 10^-9 s per tick */
#define IFNAME_MAX          256
/* The second interface's epoch, in seconds: at or before INT64_MIN ns, so
 * that every negative time is a tick count from 0 to below 2^64. */
#define BEFORE_1970_OFFSET_S (-9223372037LL)

struct pcapng_writer {
    FILE *fp;
    bool owns_fp;
    bool before_1970; /* the second interface is written */
    int error;
    int linktype;
    uint32_t snaplen;
    char ifname[IFNAME_MAX + 1];
};

static size_t pad4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

static void put(struct pcapng_writer *w, const void *p, size_t n)
{
    if (!w->error && n && fwrite(p, 1, n, w->fp) != n)
        w->error = errno ? errno : EIO;
}

static void put32(struct pcapng_writer *w, uint32_t v)
{
    put(w, &v, 4);
}

static void put_padding(struct pcapng_writer *w, size_t n)
{
    static const uint8_t zeros[4];
    put(w, zeros, pad4(n) - n);
}

static void put_option(struct pcapng_writer *w, uint16_t code, const void *value, uint16_t len)
{
    uint16_t head[2] = { code, len };
    put(w, head, sizeof head);
    put(w, value, len);
    put_padding(w, len);
}

/* An interface: the link type, the name if there is one, nanoseconds, and
 * for the second one the epoch moved back. */
static void write_idb(struct pcapng_writer *w, bool offset)
{
    size_t name_len = strlen(w->ifname);
    const uint8_t tsresol = TSRESOL_NANOSECONDS;
    const int64_t tsoffset = BEFORE_1970_OFFSET_S;
    size_t len = 16 + 4 + pad4(1) + 4 + 4; /* the tsresol and end options, the trailer */
    if (name_len)
        len += 4 + pad4(name_len);
    if (offset)
        len += 4 + 8;
    put32(w, BLOCK_IDB);
    put32(w, (uint32_t)len);
    uint16_t type_reserved[2] = { (uint16_t)w->linktype, 0 };
    put(w, type_reserved, sizeof type_reserved);
    put32(w, w->snaplen);
    if (name_len)
        put_option(w, OPT_IF_NAME, w->ifname, (uint16_t)name_len);
    put_option(w, OPT_IF_TSRESOL, &tsresol, 1);
    if (offset)
        put_option(w, OPT_IF_TSOFFSET, &tsoffset, 8);
    put_option(w, OPT_END, NULL, 0);
    put32(w, (uint32_t)len);
}

static void write_headers(struct pcapng_writer *w)
{
    const uint32_t shb_len = 28;
    const int64_t section_length_unknown = -1;
    put32(w, BLOCK_SHB);
    put32(w, shb_len);
    put32(w, BYTE_ORDER_MAGIC);
    uint16_t version[2] = { 1, 0 };
    put(w, version, sizeof version);
    put(w, &section_length_unknown, 8);
    put32(w, shb_len);
    write_idb(w, false);
}

static struct pcapng_writer *writer_new(int linktype, uint32_t snaplen, const char *ifname)
{
    struct pcapng_writer *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->linktype = linktype;
    w->snaplen = snaplen;
    if (ifname)
        snprintf(w->ifname, sizeof w->ifname, "%s", ifname);
    return w;
}

struct pcapng_writer *pcapng_writer_open(const char *path, int linktype, uint32_t snaplen,
                                         const char *ifname, int *err)
{
    struct pcapng_writer *w = writer_new(linktype, snaplen, ifname);
    if (!w) {
        *err = ENOMEM;
        return NULL;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || !(w->fp = fdopen(fd, "wb"))) {
        *err = errno;
        if (fd >= 0)
            close(fd);
        free(w);
        return NULL;
    }
    w->owns_fp = true;
    write_headers(w);
    return w;
}

struct pcapng_writer *pcapng_writer_on(FILE *fp, int linktype, uint32_t snaplen, const char *ifname)
{
    struct pcapng_writer *w = writer_new(linktype, snaplen, ifname);
    if (!w)
        return NULL;
    w->fp = fp;
    write_headers(w);
    return w;
}

void pcapng_writer_frame(struct pcapng_writer *w, int64_t time_ns, const uint8_t *data,
                         uint32_t caplen, uint32_t wirelen)
{
    uint32_t iface = 0;
    /* Modulo 2^64: for a negative time, the ticks after the moved epoch. */
    uint64_t ticks = (uint64_t)time_ns;
    if (time_ns < 0) {
        if (!w->before_1970)
            write_idb(w, true);
        w->before_1970 = true;
        iface = 1;
        ticks += (uint64_t)-BEFORE_1970_OFFSET_S * 1000000000u;
    }
    uint32_t len = (uint32_t)(28 + pad4(caplen) + 4);
    uint32_t head[7] = { BLOCK_EPB,       len,    iface,  (uint32_t)(ticks >> 32),
                         (uint32_t)ticks, caplen, wirelen };
    put(w, head, sizeof head);
    put(w, data, caplen);
    put_padding(w, caplen);
    put32(w, len);
}

void pcapng_writer_flush(struct pcapng_writer *w)
{
    if (!w->error && fflush(w->fp) != 0)
        w->error = errno ? errno : EIO;
}

int pcapng_writer_close(struct pcapng_writer *w)
{
    pcapng_writer_flush(w);
    if (w->owns_fp) {
        if (!w->error && fsync(fileno(w->fp)) != 0 && errno != EINVAL)
            w->error = errno;
        if (fclose(w->fp) != 0 && !w->error)
            w->error = errno ? errno : EIO;
    }
    int err = w->error;
    free(w);
    return err;
}
