/* pcapng_writer.c - the three pcapng blocks a live run needs (pcapng
 * specification, sections 4.1 SHB, 4.2 IDB, 4.3 EPB), in host byte order
 * as the byte-order magic allows. */
#include "pcapng_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
#define TSRESOL_NANOSECONDS 9 /* 10^-9 s per tick */
#define IFNAME_MAX          256

struct pcapng_writer {
    FILE *fp;
    int error;
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

static void write_headers(struct pcapng_writer *w, int linktype, uint32_t snaplen,
                          const char *ifname)
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

    size_t name_len = strnlen(ifname, IFNAME_MAX);
    const uint8_t tsresol = TSRESOL_NANOSECONDS;
    uint32_t idb_len = (uint32_t)(16 + 4 + pad4(name_len) + 4 + pad4(1) + 4 + 4);
    put32(w, BLOCK_IDB);
    put32(w, idb_len);
    uint16_t type_reserved[2] = { (uint16_t)linktype, 0 };
    put(w, type_reserved, sizeof type_reserved);
    put32(w, snaplen);
    put_option(w, OPT_IF_NAME, ifname, (uint16_t)name_len);
    put_option(w, OPT_IF_TSRESOL, &tsresol, 1);
    put_option(w, OPT_END, NULL, 0);
    put32(w, idb_len);
}

struct pcapng_writer *pcapng_writer_open(const char *path, int linktype, uint32_t snaplen,
                                         const char *ifname, int *err)
{
    struct pcapng_writer *w = calloc(1, sizeof(*w));
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
    write_headers(w, linktype, snaplen, ifname);
    return w;
}

void pcapng_writer_frame(struct pcapng_writer *w, int64_t time_ns, const uint8_t *data,
                         uint32_t caplen, uint32_t wirelen)
{
    uint64_t ticks = time_ns > 0 ? (uint64_t)time_ns : 0;
    uint32_t len = (uint32_t)(28 + pad4(caplen) + 4);
    uint32_t head[7] = { BLOCK_EPB,       len,    0,      (uint32_t)(ticks >> 32),
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
    if (!w->error && fsync(fileno(w->fp)) != 0 && errno != EINVAL)
        w->error = errno;
    if (fclose(w->fp) != 0 && !w->error)
        w->error = errno ? errno : EIO;
    int err = w->error;
    free(w);
    return err;
}
