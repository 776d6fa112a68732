/* erf_file.c - reads raw ERF records one after another. */
#include "erf_file.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ERF_HEADER     16
#define ERF_RECORD_MAX 65535 /* rlen is 16 bits */
#define ERF_TYPE_MAX   48    /* the highest type Endace has assigned */
#define ERF_EXTENSION  0x80
/* Timestamps a capture can have: 1990-01-01 to 2100-01-01. */
#define ERF_FIRST_SECOND 631152000u
#define ERF_LAST_SECOND  4102444800u

struct erf_file {
    FILE *fp;
    uint64_t records;
    bool have_first; /* the probe's record waits in buf */
    uint8_t buf[ERF_RECORD_MAX];
};

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* 32.32 fixed-point seconds to nanoseconds, rounded to nearest. */
static int64_t erf_time_ns(uint64_t ts)
{
    uint64_t frac_ns = ((ts & 0xFFFFFFFFu) * 1000000000u + (1u << 31)) >> 32;
    return (int64_t)(ts >> 32) * 1000000000 + (int64_t)frac_ns;
}

/* Reads one record into e->buf: 1, 0 at a clean end, -1 with err worded. */
static int read_record(struct erf_file *e, char err[ERF_ERROR_MAX])
{
    size_t got = fread(e->buf, 1, ERF_HEADER, e->fp);
    if (got == 0 && !ferror(e->fp))
        return 0;
    if (got < ERF_HEADER) {
        snprintf(err, ERF_ERROR_MAX, "truncated ERF record header after frame %" PRIu64,
                 e->records);
        return -1;
    }
    uint16_t rlen = be16(e->buf + 10);
    size_t min = ERF_HEADER + ((e->buf[8] & ERF_EXTENSION) ? 8 : 0);
    if (rlen < min) {
        snprintf(err, ERF_ERROR_MAX,
                 "ERF record %" PRIu64 " is %u bytes long, shorter than its header", e->records + 1,
                 rlen);
        return -1;
    }
    got = fread(e->buf + ERF_HEADER, 1, rlen - ERF_HEADER, e->fp);
    if (got < (size_t)rlen - ERF_HEADER) {
        snprintf(err, ERF_ERROR_MAX, "truncated record data in frame %" PRIu64 " (%zu of %u bytes)",
                 e->records + 1, got + ERF_HEADER, rlen);
        return -1;
    }
    return 1;
}

/* What a DAG card writes: a known type, reserved flag bits clear, a
 * length that holds the header, a timestamp of our era. */
static bool plausible(const uint8_t *h)
{
    unsigned type = h[8] & 0x7F;
    uint32_t seconds = (uint32_t)(le64(h) >> 32);
    return type >= 1 && type <= ERF_TYPE_MAX && (h[9] & 0xC0) == 0 && be16(h + 10) >= ERF_HEADER &&
           seconds >= ERF_FIRST_SECOND && seconds < ERF_LAST_SECOND;
}

struct erf_file *erf_file_open(FILE *fp)
{
    struct erf_file *e = calloc(1, sizeof *e);
    char err[ERF_ERROR_MAX];
    if (!e)
        return NULL;
    e->fp = fp;
    if (read_record(e, err) != 1 || !plausible(e->buf)) {
        free(e);
        return NULL;
    }
    e->have_first = true;
    return e;
}

int erf_file_next(struct erf_file *e, struct erf_record *r, char err[ERF_ERROR_MAX])
{
    if (!e->have_first) {
        int rc = read_record(e, err);
        if (rc != 1)
            return rc;
    }
    e->have_first = false;
    e->records++;
    r->data = e->buf;
    r->len = be16(e->buf + 10);
    r->time_ns = erf_time_ns(le64(e->buf));
    return 1;
}

void erf_file_close(struct erf_file *e)
{
    if (!e)
        return;
    fclose(e->fp);
    free(e);
}
