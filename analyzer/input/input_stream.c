/* input_stream.c - plain, gzip, xz and zstd captures behind one FILE.
 *
 * A compressed file is a stdio stream of our own (fopencookie) whose read
 * function inflates; a plain file is the file itself with a large buffer;
 * plain standard input is a stream that first gives back the bytes read to
 * tell its format.  fopencookie is glibc's (and musl's): the analyzer is
 * for Linux, where the RDMA stacks are.
 */
#define _GNU_SOURCE
#include "input_stream.h"

#include <errno.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* libpcap reads each record with two small freads: a large buffer turns
 * that into one read(2) per 256 KiB. */
#define READ_BUFFER (256 * 1024)
#define MAGIC_MAX   6

enum compression { PLAIN, GZIP, XZ, ZSTD };

static const struct {
    enum compression kind;
    const char *name;
    size_t len;
    unsigned char magic[MAGIC_MAX];
} formats[] = {
    { GZIP, "gzip", 2, { 0x1f, 0x8b } },
    { XZ, "xz", 6, { 0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00 } },
    { ZSTD, "zstd", 4, { 0x28, 0xb5, 0x2f, 0xfd } },
};

struct input_stream {
    FILE *raw; /* the file as stored */
    bool raw_is_stdin;
    bool direct;   /* a pipe, FIFO or terminal: read(2) what is there, so
                    * that a live stream is analysed as it comes */
    char *raw_buf; /* raw's stdio buffer (not for stdin) */
    enum compression kind;
    const char *name;
    unsigned char magic[MAGIC_MAX]; /* the first bytes, read to tell the format */
    unsigned char *in;              /* compressed bytes waiting to be decoded */
    size_t in_len, in_pos;
    bool raw_eof;
    bool ended; /* the last member or frame was complete */
    uint64_t consumed;
    const char *error;
    char error_buf[64];
    z_stream z;
    lzma_stream x;
    ZSTD_DCtx *zs;
};

const char *input_stream_compression(const struct input_stream *s)
{
    return s->kind == PLAIN ? NULL : s->name;
}

const char *input_stream_error(const struct input_stream *s)
{
    return s->error;
}

uint64_t input_stream_consumed(const struct input_stream *s)
{
    if (s->kind == PLAIN && !s->raw_is_stdin) {
        long pos = ftell(s->raw);
        return pos > 0 ? (uint64_t)pos : 0;
    }
    return s->consumed;
}

/* Up to n bytes of the raw file: from a pipe whatever has arrived (at least
 * one byte, or 0 at its end), from a file as many as it has.  -1 on error. */
static ssize_t raw_read(struct input_stream *s, void *buf, size_t n)
{
    if (!s->direct) {
        size_t got = fread(buf, 1, n, s->raw);
        return got == 0 && ferror(s->raw) ? -1 : (ssize_t)got;
    }
    for (;;) {
        ssize_t got = read(fileno(s->raw), buf, n);
        if (got >= 0 || errno != EINTR)
            return got;
    }
}

/* Refills the compressed input; false at the end of the file. */
static bool refill(struct input_stream *s)
{
    if (s->in_pos < s->in_len)
        return true;
    if (s->raw_eof)
        return false;
    ssize_t got = raw_read(s, s->in, READ_BUFFER);
    s->in_len = got > 0 ? (size_t)got : 0;
    s->in_pos = 0;
    s->consumed += s->in_len;
    if (got <= 0) {
        s->raw_eof = true;
        if (got < 0)
            s->error = "read error";
        return false;
    }
    return true;
}

static ssize_t fail(struct input_stream *s, const char *why)
{
    if (!s->error) {
        snprintf(s->error_buf, sizeof s->error_buf, "%s %s", s->name, why);
        s->error = s->error_buf;
    }
    errno = EIO;
    return -1;
}

/* One step of the decoder: out[*produced..size) filled as far as it goes.
 * Returns 1 to go on, 0 at the end of a member/frame, -1 on corrupt data. */
static int inflate_step(struct input_stream *s, char *out, size_t size, size_t *produced)
{
    const unsigned char *in = s->in + s->in_pos;
    size_t avail = s->in_len - s->in_pos, used = 0, made = 0;
    int rc = 1;
    switch (s->kind) {
    case GZIP: {
        s->z.next_in = (unsigned char *)in;
        s->z.avail_in = (uInt)avail;
        s->z.next_out = (unsigned char *)out + *produced;
        s->z.avail_out = (uInt)(size - *produced);
        int zr = inflate(&s->z, Z_NO_FLUSH);
        used = avail - s->z.avail_in;
        made = size - *produced - s->z.avail_out;
        if (zr == Z_STREAM_END)
            rc = inflateReset(&s->z) == Z_OK ? 0 : -1;
        else if (zr != Z_OK && zr != Z_BUF_ERROR)
            rc = -1;
        break;
    }
    case XZ: {
        s->x.next_in = in;
        s->x.avail_in = avail;
        s->x.next_out = (uint8_t *)out + *produced;
        s->x.avail_out = size - *produced;
        lzma_ret xr = lzma_code(&s->x, s->raw_eof && avail == 0 ? LZMA_FINISH : LZMA_RUN);
        used = avail - s->x.avail_in;
        made = size - *produced - s->x.avail_out;
        if (xr == LZMA_STREAM_END)
            rc = 0;
        else if (xr != LZMA_OK && xr != LZMA_BUF_ERROR)
            rc = -1;
        break;
    }
    case ZSTD: {
        ZSTD_inBuffer ib = { in, avail, 0 };
        ZSTD_outBuffer ob = { out + *produced, size - *produced, 0 };
        size_t zr = ZSTD_decompressStream(s->zs, &ob, &ib);
        used = ib.pos;
        made = ob.pos;
        if (ZSTD_isError(zr))
            rc = -1;
        else if (zr == 0)
            rc = 0;
        break;
    }
    case PLAIN: break;
    }
    s->in_pos += used;
    *produced += made;
    s->ended = rc == 0;
    return rc;
}

static ssize_t decompress_read(void *cookie, char *out, size_t size)
{
    struct input_stream *s = cookie;
    size_t produced = 0;
    if (s->error)
        return fail(s, NULL);
    while (produced < size) {
        /* What is decoded goes out before waiting on a pipe for more. */
        if (produced > 0 && s->in_pos >= s->in_len && s->direct)
            break;
        bool more = refill(s);
        if (s->error)
            return produced ? (ssize_t)produced : fail(s, NULL);
        if (!more && s->ended)
            break; /* the file ended after a whole member or frame */
        size_t before = produced;
        int rc = inflate_step(s, out, size, &produced);
        if (rc < 0) {
            fail(s, "data is corrupt");
            return produced ? (ssize_t)produced : -1;
        }
        /* No input left and nothing more comes out: cut short. */
        if (!more && rc != 0 && produced == before) {
            fail(s, "stream ends early");
            return produced ? (ssize_t)produced : -1;
        }
    }
    return (ssize_t)produced;
}

const char *input_stream_verify(struct input_stream *s)
{
    char sink[16 * 1024];
    if (s->kind != PLAIN && !s->direct)
        while (!s->error && decompress_read(s, sink, sizeof sink) > 0)
            ;
    return input_stream_error(s);
}

/* Plain input that cannot seek back (a pipe): the bytes read to tell the
 * format, then the rest. */
static ssize_t prefixed_read(void *cookie, char *out, size_t size)
{
    struct input_stream *s = cookie;
    if (s->in_pos < s->in_len) {
        size_t n = s->in_len - s->in_pos < size ? s->in_len - s->in_pos : size;
        memcpy(out, s->magic + s->in_pos, n);
        s->in_pos += n;
        return (ssize_t)n;
    }
    ssize_t n = raw_read(s, out, size);
    if (n < 0) {
        errno = EIO;
        return -1;
    }
    s->consumed += (size_t)n;
    return n;
}

static int stream_close(void *cookie)
{
    struct input_stream *s = cookie;
    if (s->raw && !s->raw_is_stdin)
        fclose(s->raw);
    s->raw = NULL;
    return 0;
}

void input_stream_free(struct input_stream *s)
{
    if (!s)
        return;
    if (s->kind == GZIP)
        inflateEnd(&s->z);
    else if (s->kind == XZ)
        lzma_end(&s->x);
    else if (s->kind == ZSTD)
        ZSTD_freeDCtx(s->zs);
    free(s->in);
    free(s->raw_buf);
    free(s);
}

static bool start_decoder(struct input_stream *s)
{
    switch (s->kind) {
    case GZIP: /* 15 + 32: a zlib or gzip header, told apart by zlib */
        return inflateInit2(&s->z, 15 + 32) == Z_OK;
    case XZ: {
        lzma_stream init = LZMA_STREAM_INIT;
        s->x = init;
        return lzma_stream_decoder(&s->x, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK;
    }
    case ZSTD: return (s->zs = ZSTD_createDCtx()) != NULL;
    case PLAIN: break;
    }
    return true;
}

/* The FILE libpcap reads, or NULL with errno set. */
static FILE *reader_for(struct input_stream *s)
{
    cookie_io_functions_t io = { NULL, NULL, NULL, stream_close };
    if (s->kind != PLAIN) {
        /* Decoding starts with the bytes already read. */
        if (!(s->in = malloc(READ_BUFFER)) || !start_decoder(s)) {
            errno = ENOMEM;
            return NULL;
        }
        memcpy(s->in, s->magic, s->in_len);
        io.read = decompress_read;
        return fopencookie(s, "rb", io);
    }
    if (!s->raw_is_stdin && !s->direct && fseek(s->raw, 0, SEEK_SET) == 0)
        return s->raw; /* a plain file is read as it is */
    io.read = prefixed_read;
    return fopencookie(s, "rb", io);
}

FILE *input_stream_open(const char *path, struct input_stream **stream)
{
    struct input_stream *s = calloc(1, sizeof *s);
    *stream = NULL;
    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    s->raw_is_stdin = strcmp(path, "-") == 0;
    s->raw = s->raw_is_stdin ? stdin : fopen(path, "rb");
    if (!s->raw) {
        int err = errno;
        input_stream_free(s);
        errno = err;
        return NULL;
    }
    struct stat st;
    s->direct = fstat(fileno(s->raw), &st) == 0 && !S_ISREG(st.st_mode);
    /* stdin outlives us: it keeps its own buffer. */
    if (!s->raw_is_stdin && !s->direct && (s->raw_buf = malloc(READ_BUFFER)))
        setvbuf(s->raw, s->raw_buf, _IOFBF, READ_BUFFER);
    ssize_t got = 0;
    for (s->in_len = 0; s->in_len < MAGIC_MAX; s->in_len += (size_t)got)
        if ((got = raw_read(s, s->magic + s->in_len, MAGIC_MAX - s->in_len)) <= 0)
            break;
    s->consumed = s->in_len;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (s->in_len >= formats[i].len && memcmp(s->magic, formats[i].magic, formats[i].len) == 0)
            s->kind = formats[i].kind, s->name = formats[i].name;
    FILE *fp = got < 0 ? NULL : reader_for(s);
    if (!fp) {
        int err = errno ? errno : EIO;
        stream_close(s);
        input_stream_free(s);
        errno = err;
        return NULL;
    }
    *stream = s;
    return fp;
}
