/* report_format.c - value formatting shared by every renderer. */
#include "report_format.h"

#include "linktype.h"
#include "ipcm.h"
#include "names.h"
#include "printable.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Days since 1970-01-01 to a civil date (proleptic Gregorian), so that
 * formatting needs neither gmtime_r nor the time zone database. */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* v's last n decimal digits, zero-padded, written backwards ending at end. */
static char *digits_back(char *end, uint64_t v, int n)
{
    while (n-- > 0) {
        *--end = (char)('0' + v % 10);
        v /= 10;
    }
    return end;
}

void fmt_time_rfc3339(int64_t ns, char *buf, size_t size)
{
    int64_t secs = ns / 1000000000;
    int64_t frac = ns % 1000000000;
    if (frac < 0) {
        frac += 1000000000;
        secs--;
    }
    int64_t days = secs / 86400;
    int64_t rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 0 || y > 9999) { /* not a capture's: printf says it as it is */
        snprintf(buf, size, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u.%09" PRId64 "Z", y, m, d,
                 (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60), (unsigned)(rem % 60), frac);
        return;
    }
    /* By hand: a report writes a time per record, and printf cost most of it. */
    char text[sizeof "2026-12-03T00:00:00.000000000Z"], *p = text + sizeof text - 1;
    *p = '\0';
    *--p = 'Z';
    p = digits_back(p, (uint64_t)frac, 9);
    *--p = '.';
    p = digits_back(p, (uint64_t)(rem % 60), 2);
    *--p = ':';
    p = digits_back(p, (uint64_t)(rem / 60 % 60), 2);
    *--p = ':';
    p = digits_back(p, (uint64_t)(rem / 3600), 2);
    *--p = 'T';
    p = digits_back(p, d, 2);
    *--p = '-';
    p = digits_back(p, m, 2);
    *--p = '-';
    p = digits_back(p, (uint64_t)y, 4);
    if (size) {
        size_t n = sizeof text - 1 < size - 1 ? sizeof text - 1 : size - 1;
        memcpy(buf, p, n);
        buf[n] = '\0';
    }
}

void fmt_seconds(int64_t ns, char *buf, size_t size)
{
    const char *sign = ns < 0 ? "-" : "";
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, size, "%s%" PRIu64 ".%06" PRIu64, sign, a / 1000000000, a % 1000000000 / 1000);
}

void fmt_duration(int64_t ns, char *buf, size_t size)
{
    double v = (double)ns;
    if (ns < 0)
        v = -v;
    const char *sign = ns < 0 ? "-" : "";
    if (v < 1e3)
        snprintf(buf, size, "%s%.0f ns", sign, v);
    else if (v < 1e6)
        snprintf(buf, size, "%s%.1f us", sign, v / 1e3);
    else if (v < 1e9)
        snprintf(buf, size, "%s%.2f ms", sign, v / 1e6);
    else
        snprintf(buf, size, "%s%.3f s", sign, v / 1e9);
}

void fmt_frame(const struct ib_frame_ref *f, size_t capture_count, char *buf, size_t size)
{
    if (capture_count > 1)
        snprintf(buf, size, "%" PRIu32 ":%" PRIu64, f->capture, f->frame);
    else
        snprintf(buf, size, "%" PRIu64, f->frame);
}

void fmt_endpoint(const struct ib_endpoint *ep, char *buf, size_t size)
{
    ib_format_endpoint(ep, buf, size);
}

void fmt_node(const struct ib_endpoint *ep, char *buf, size_t size)
{
    ib_format_node(ep, buf, size);
}

void fmt_qp(uint32_t qp, char *buf, size_t size)
{
    if (qp <= 1)
        snprintf(buf, size, "QP%u", (unsigned)qp);
    else
        snprintf(buf, size, "QP 0x%" PRIx32, qp);
}

const char *linktype_name(int linktype)
{
    const struct ib_linktype_info *lt = ib_linktype(linktype);
    return lt ? lt->name : NULL;
}

void fmt_port_space(uint16_t ps, char buf[PORT_SPACE_BUF])
{
    const char *n = ib_name_lookup(ib_port_space_names, ps);
    if (n)
        snprintf(buf, PORT_SPACE_BUF, "%s", n);
    else
        snprintf(buf, PORT_SPACE_BUF, "0x%04x", (unsigned)ps);
}

const char *rej_reason_name(unsigned reason)
{
    return ib_name_lookup(ib_rej_reason_names, reason);
}

void fmt_finding_text(const struct ib_finding *f, size_t capture_count, char *buf, size_t size)
{
    char msg[IB_FINDING_TEXT_MAX], rel[32];
    ib_finding_format(f, msg, sizeof msg);
    fmt_frame(&f->related, capture_count, rel, sizeof(rel));
    if (f->related.frame != 0 && (unsigned)f->kind < IB_FIND_COUNT &&
        (capture_count > 1 || !ib_finding_kinds[f->kind].names_related))
        snprintf(buf, size, "%s (see frame %s)", msg, rel);
    else
        snprintf(buf, size, "%s", msg);
}

bool report_host_shown(const struct ib_source_stats *s)
{
    return s->address_count > 1 || s->host_name;
}

void fmt_host(const struct ib_source_stats *s, char *buf, size_t size)
{
    char name[PRINTABLE_MAX];
    printable(s->host_name ? s->host_name : "", name, sizeof name);
    switch (s->host_from) {
    case IB_HOST_FROM_OPTION: snprintf(buf, size, "host %s (--host)", name); break;
    case IB_HOST_FROM_CAPTURE: snprintf(buf, size, "host %s (its capture)", name); break;
    case IB_HOST_FROM_CA_GUID:
        snprintf(buf, size, "one HCA (LocalCAGUID 0x%016" PRIx64 ")", s->ca_guid);
        break;
    default: snprintf(buf, size, "one address"); break;
    }
}

void fmt_host_line(const struct ib_source_stats *s, char *buf, size_t size)
{
    char how[PRINTABLE_MAX + 32];
    fmt_host(s, how, sizeof how);
    int head = snprintf(buf, size, "%s, %" PRIu32 " address%s: ", how, s->address_count,
                        s->address_count == 1 ? "" : "es");
    size_t used = head > 0 ? (size_t)head : 0;
    for (uint32_t i = 0; i < s->addresses_listed && used < size; i++) {
        char ip[64];
        ib_format_ip(s->addresses[i].ip_version, s->addresses[i].ip, ip, sizeof ip);
        int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", ip);
        used += n > 0 ? (size_t)n : 0;
    }
    if (s->address_count > s->addresses_listed && used < size) {
        int n = snprintf(buf + used, size - used, " and %" PRIu32 " more",
                         s->address_count - s->addresses_listed);
        used += n > 0 ? (size_t)n : 0;
    }
    if (used >= size && size > 4)
        memcpy(buf + size - 4, "...", 4);
}

void fmt_source_label(const struct ib_source_stats *s, char *buf, size_t size)
{
    if (s->host_name)
        printable(s->host_name, buf, size);
    else
        ib_format_ip(s->ip_version, s->ip, buf, size);
}

const char *fmt_wire_value(unsigned field, uint8_t value, bool known, char buf[8])
{
    return known ? ib_wire_value_text(field, value, buf) : "-";
}

void fmt_wire_values(unsigned field, const struct ib_wire_mix *mix,
                     const struct ib_wire_count *values, char *buf, size_t size)
{
    size_t len = 0;
    char v[8];
    buf[0] = '\0';
    bool one = mix->count == 1 && mix->other == 0;
    for (uint32_t i = 0; i < mix->count && len < size; i++) {
        const char *text = fmt_wire_value(field, values[i].value, values[i].known, v);
        int n = one ? snprintf(buf + len, size - len, "%s", text)
                    : snprintf(buf + len, size - len, "%s%s\u00d7%" PRIu64, i ? ", " : "", text,
                               values[i].packets);
        len += n > 0 ? (size_t)n : 0;
    }
    if (mix->other && len < size)
        snprintf(buf + len, size - len, "%sother\u00d7%" PRIu64, mix->count ? ", " : "",
                 mix->other);
}
