/* merge_values.c - a report's values read back and checked (merge_values.h). */
#include "merge_values.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "printable.h"
#include "report_format.h"

bool rd_fail(struct rd *r, const char *fmt, ...)
{
    if (r->why[0])
        return false;
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->why, sizeof r->why, "%s: %s", r->path_len ? r->path : "the report", what);
    return false;
}

bool rd_not(struct rd *r, enum jp_type t, const char *noun)
{
    static const char *const names[] = { "an object", "an array", NULL,  NULL,
                                         "true",      "false",    "null" };
    char value[PRINTABLE_MAX];
    if (t == JP_STRING || t == JP_NUMBER) {
        char cut[48];
        snprintf(cut, sizeof cut, "%.40s%s", r->jp->text, r->jp->text_len > 40 ? "..." : "");
        printable(cut, value, sizeof value);
    }
    if (t == JP_STRING)
        return rd_fail(r, "\"%s\" is not %s", value, noun);
    return rd_fail(r, "%s is not %s", t == JP_NUMBER ? value : names[t], noun);
}

size_t rd_path_key(struct rd *r, const char *key)
{
    size_t len = r->path_len;
    char k[PRINTABLE_MAX];
    printable(key, k, sizeof k);
    int n = snprintf(r->path + len, sizeof r->path - len, "%s%s", len ? "." : "", k);
    r->path_len = n < 0 ? len : strlen(r->path);
    return len;
}

size_t rd_path_index(struct rd *r, size_t i)
{
    size_t len = r->path_len;
    snprintf(r->path + len, sizeof r->path - len, "[%zu]", i);
    r->path_len = strlen(r->path);
    return len;
}

void rd_path_back(struct rd *r, size_t len)
{
    r->path_len = len;
    r->path[len] = '\0';
}

static bool value(struct rd *r, enum jp_type *t)
{
    return jp_value(r->jp, t);
}

bool rd_open(struct rd *r, enum jp_type want, const char *noun)
{
    enum jp_type t;
    return value(r, &t) && (t == want || rd_not(r, t, noun));
}

int rd_member(struct rd *r, size_t base, const char *const keys[], uint64_t *seen)
{
    bool more;
    rd_path_back(r, base);
    if (!jp_member(r->jp, &more))
        return RD_FAIL;
    if (!more)
        return RD_END;
    rd_path_key(r, r->jp->text);
    for (int i = 0; keys[i]; i++) {
        if (strcmp(keys[i], r->jp->text) != 0)
            continue;
        if (*seen & UINT64_C(1) << i)
            return rd_fail(r, "given twice"), RD_FAIL;
        *seen |= UINT64_C(1) << i;
        return i;
    }
    return RD_OTHER;
}

bool rd_required(struct rd *r, size_t base, const char *const keys[], uint64_t seen,
                 uint64_t required)
{
    for (int i = 0; keys[i]; i++) {
        if ((required & UINT64_C(1) << i) && !(seen & UINT64_C(1) << i)) {
            rd_path_back(r, base);
            rd_path_key(r, keys[i]);
            return rd_fail(r, "missing");
        }
    }
    rd_path_back(r, base);
    return true;
}

bool rd_item(struct rd *r, size_t base, size_t i, bool *more)
{
    rd_path_back(r, base);
    if (!jp_element(r->jp, more))
        return false;
    if (*more)
        rd_path_index(r, i);
    return true;
}

bool rd_skip(struct rd *r)
{
    enum jp_type t;
    return value(r, &t) && jp_skip(r->jp, t);
}

static bool digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The number just read, as a whole number 0..max. */
static bool uint_of(struct rd *r, enum jp_type t, uint64_t max, const char *noun, uint64_t *v)
{
    if (t != JP_NUMBER || !digits(r->jp->text))
        return rd_not(r, t, noun);
    errno = 0;
    unsigned long long x = strtoull(r->jp->text, NULL, 10);
    if (errno == ERANGE || x > max)
        return rd_not(r, t, noun);
    *v = x;
    return true;
}

bool rd_uint(struct rd *r, uint64_t max, const char *noun, uint64_t *v)
{
    enum jp_type t;
    return value(r, &t) && uint_of(r, t, max, noun, v);
}

bool rd_uint_or_null(struct rd *r, uint64_t max, const char *noun, uint64_t *v, bool *null)
{
    enum jp_type t;
    if (!value(r, &t))
        return false;
    *null = t == JP_NULL;
    return *null || uint_of(r, t, max, noun, v);
}

bool rd_count(struct rd *r, uint64_t *v)
{
    return rd_uint(r, UINT64_MAX, "a count", v);
}

bool rd_u32(struct rd *r, uint32_t max, const char *noun, uint32_t *v)
{
    uint64_t x;
    if (!rd_uint(r, max, noun, &x))
        return false;
    *v = (uint32_t)x;
    return true;
}

bool rd_u16(struct rd *r, const char *noun, uint16_t *v)
{
    uint64_t x;
    if (!rd_uint(r, UINT16_MAX, noun, &x))
        return false;
    *v = (uint16_t)x;
    return true;
}

bool rd_int(struct rd *r, const char *noun, int64_t *v, bool *null)
{
    enum jp_type t;
    if (!value(r, &t))
        return false;
    if (null && t == JP_NULL) {
        *null = true;
        return true;
    }
    const char *s = r->jp->text;
    if (t != JP_NUMBER || !digits(s + (*s == '-')))
        return rd_not(r, t, noun);
    errno = 0;
    long long x = strtoll(s, NULL, 10);
    if (errno == ERANGE)
        return rd_not(r, t, noun);
    *v = x;
    if (null)
        *null = false;
    return true;
}

/* The number just read, as a real in [lo, hi]. */
static bool real_of(struct rd *r, enum jp_type t, double lo, double hi, const char *noun, double *v)
{
    if (t != JP_NUMBER)
        return rd_not(r, t, noun);
    double x = strtod(r->jp->text, NULL);
    if (!isfinite(x) || x < lo || x > hi)
        return rd_not(r, t, noun);
    *v = x + 0.0; /* -0 is 0: the writers write no sign on a zero */
    return true;
}

bool rd_real(struct rd *r, double lo, double hi, const char *noun, double *v)
{
    enum jp_type t;
    return value(r, &t) && real_of(r, t, lo, hi, noun, v);
}

bool rd_real_or_null(struct rd *r, double lo, double hi, const char *noun, double *v, bool *null)
{
    enum jp_type t;
    if (!value(r, &t))
        return false;
    *null = t == JP_NULL;
    return *null || real_of(r, t, lo, hi, noun, v);
}

bool rd_bool(struct rd *r, bool *v)
{
    enum jp_type t;
    if (!value(r, &t))
        return false;
    if (t != JP_TRUE && t != JP_FALSE)
        return rd_not(r, t, "true or false");
    *v = t == JP_TRUE;
    return true;
}

bool rd_string(struct rd *r, bool null_ok, const char **s)
{
    enum jp_type t;
    if (!value(r, &t))
        return false;
    if (t == JP_NULL && null_ok) {
        *s = NULL;
        return true;
    }
    if (t != JP_STRING)
        return rd_not(r, t, null_ok ? "a string or null" : "a string");
    *s = r->jp->text;
    return true;
}

/* Days from 1970-01-01 to a civil date (proleptic Gregorian): the inverse
 * of report_format.c's civil_from_days. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "2026-01-01T00:00:00.000000123Z" to ns; the reports' own form only: the
 * time written back must be the same text. */
static bool parse_time(const char *s, int64_t *ns)
{
    int y, mo, d, h, mi, sec, n = 0;
    long frac;
    if (strlen(s) != 30 ||
        sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%9ldZ%n", &y, &mo, &d, &h, &mi, &sec, &frac, &n) != 7 ||
        n != 30 || mo < 1 || mo > 12)
        return false;
    int64_t secs, t;
    int64_t days = days_from_civil(y, (unsigned)mo, (unsigned)d);
    if (__builtin_mul_overflow(days, 86400, &secs) ||
        __builtin_add_overflow(secs, (int64_t)h * 3600 + mi * 60 + sec, &secs) ||
        __builtin_mul_overflow(secs, 1000000000, &t) || __builtin_add_overflow(t, frac, &t))
        return false;
    char back[48];
    fmt_time_rfc3339(t, back, sizeof back);
    *ns = t;
    return strcmp(back, s) == 0;
}

bool rd_time(struct rd *r, int64_t *ns, bool *null)
{
    enum jp_type t;
    if (!value(r, &t))
        return false;
    if (null && t == JP_NULL) {
        *null = true;
        return true;
    }
    if (t != JP_STRING || !parse_time(r->jp->text, ns))
        return rd_not(r, t, "a time (RFC 3339, UTC, nanoseconds)");
    if (*ns > IB_TIME_NS_LIMIT || *ns < -IB_TIME_NS_LIMIT)
        return rd_not(r, t, "a time ibscope holds (1823-11-12 to 2116-02-20)");
    if (null)
        *null = false;
    return true;
}

bool rd_capture(struct rd *r, uint32_t *capture)
{
    uint32_t c;
    if (!rd_u32(r, UINT32_MAX - 1, "a capture number", &c))
        return false;
    if (c + (uint64_t)1 > r->capture_refs) {
        r->capture_refs = c + (uint64_t)1;
        snprintf(r->capture_ref_at, sizeof r->capture_ref_at, "%s", r->path);
    }
    *capture = (uint32_t)(c + (uint64_t)r->capture_base);
    return true;
}

bool rd_frame_number(struct rd *r, uint64_t *frame)
{
    if (!rd_uint(r, ((uint64_t)1 << 40) - 1, "a frame number", frame))
        return false;
    if (*frame == 0)
        return rd_fail(r, "0 is not a frame number (they start at 1)");
    return true;
}

bool rd_frame(struct rd *r, struct ib_frame_ref *f)
{
    static const char *const keys[] = { "capture", "frame", "time", NULL };
    enum jp_type t;
    size_t base = r->path_len;
    uint64_t seen = 0;
    *f = (struct ib_frame_ref){ 0, 0, 0 };
    if (!value(r, &t))
        return false;
    if (t == JP_NULL)
        return true;
    if (t != JP_OBJECT)
        return rd_not(r, t, "a frame ({capture, frame, time}) or null");
    for (int k; (k = rd_member(r, base, keys, &seen)) != RD_END;) {
        bool ok = k == 0   ? rd_capture(r, &f->capture)
                  : k == 1 ? rd_frame_number(r, &f->frame)
                  : k == 2 ? rd_time(r, &f->time_ns, NULL)
                           : k == RD_OTHER && rd_skip(r);
        if (!ok)
            return false;
    }
    return rd_required(r, base, keys, seen, 7);
}

bool rd_gid(struct rd *r, uint8_t gid[16])
{
    const char *s = "";
    if (!rd_string(r, false, &s))
        return false;
    if (inet_pton(AF_INET6, s, gid) != 1)
        return rd_not(r, JP_STRING, "a GID");
    return true;
}

/* A GID or null. */
static bool gid_or_null(struct rd *r, struct ib_endpoint *ep)
{
    enum jp_type t;
    if (!value(r, &t))
        return false;
    if (t == JP_NULL)
        return true;
    if (t != JP_STRING || inet_pton(AF_INET6, r->jp->text, ep->gid) != 1)
        return rd_not(r, t, "a GID or null");
    ep->has_gid = true;
    return true;
}

bool rd_endpoint(struct rd *r, struct ib_endpoint *ep)
{
    static const char *const keys[] = { "lid", "gid", NULL };
    size_t base = r->path_len;
    uint64_t seen = 0;
    *ep = (struct ib_endpoint){ 0 };
    if (!rd_open(r, JP_OBJECT, "an endpoint ({lid, gid})"))
        return false;
    for (int k; (k = rd_member(r, base, keys, &seen)) != RD_END;) {
        bool ok = k == 0   ? rd_u16(r, "a LID", &ep->lid)
                  : k == 1 ? gid_or_null(r, ep)
                           : k == RD_OTHER && rd_skip(r);
        if (!ok)
            return false;
    }
    return rd_required(r, base, keys, seen, 3);
}

bool rd_ip(struct rd *r, uint8_t *version, uint8_t ip[16])
{
    const char *s = "";
    if (!rd_string(r, false, &s))
        return false;
    memset(ip, 0, 16);
    if (inet_pton(AF_INET, s, ip + 12) == 1)
        *version = 4;
    else if (inet_pton(AF_INET6, s, ip) == 1)
        *version = 6;
    else
        return rd_not(r, JP_STRING, "an IP address");
    return true;
}

bool rd_port_space(struct rd *r, uint16_t *ps)
{
    const char *s = "";
    if (!rd_string(r, false, &s))
        return false;
    unsigned long v = 0;
    if (strncmp(s, "0x", 2) == 0 && strlen(s) == 6 && strspn(s + 2, "0123456789abcdef") == 4)
        v = strtoul(s + 2, NULL, 16);
    else
        for (const struct ib_value_name *n = ib_port_space_names; n->name; n++)
            if (strcmp(n->name, s) == 0)
                v = n->value;
    char back[PORT_SPACE_BUF];
    fmt_port_space((uint16_t)v, back);
    if (strcmp(back, s) != 0)
        return rd_not(r, JP_STRING, "a port space");
    *ps = (uint16_t)v;
    return true;
}

bool rd_hop(struct rd *r, struct ib_redirect_hop *hop, bool with_frame)
{
    static const char *const keys[] = { "lid", "gid", "qp", "qkey", "pkey", "frame", NULL };
    size_t base = r->path_len;
    uint64_t seen = 0;
    memset(hop, 0, sizeof *hop);
    if (!rd_open(r, JP_OBJECT, "a redirect target ({lid, gid, qp, qkey, pkey})"))
        return false;
    for (int k; (k = rd_member(r, base, keys, &seen)) != RD_END;) {
        bool ok = k == 0                 ? rd_u16(r, "a LID", &hop->lid)
                  : k == 1               ? rd_gid(r, hop->gid)
                  : k == 2               ? rd_u32(r, RD_QP_MAX, "a QP number", &hop->qp)
                  : k == 3               ? rd_u32(r, UINT32_MAX, "a Q_Key", &hop->qkey)
                  : k == 4               ? rd_u16(r, "a P_Key", &hop->pkey)
                  : k == 5 && with_frame ? rd_frame(r, &hop->frame)
                                         : k != RD_FAIL && rd_skip(r);
        if (!ok)
            return false;
    }
    return rd_required(r, base, keys, seen, with_frame ? 0x3F : 0x1F);
}
