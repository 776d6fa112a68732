/* json_writer.c - streaming JSON output with correct string escaping. */
#include "json_writer.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "utf8.h"

bool jw_flush(struct json_writer *w)
{
    if (w->len && fwrite(w->buf, 1, w->len, w->out) != w->len)
        w->error = true;
    w->len = 0;
    return !w->error;
}

static void put(struct json_writer *w, const void *p, size_t n)
{
    if (w->len + n > sizeof(w->buf)) {
        jw_flush(w);
        if (n > sizeof(w->buf)) {
            if (fwrite(p, 1, n, w->out) != n)
                w->error = true;
            return;
        }
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void put_char(struct json_writer *w, char c)
{
    if (w->len == sizeof(w->buf))
        jw_flush(w);
    w->buf[w->len++] = c;
}

static void put_str(struct json_writer *w, const char *s)
{
    put(w, s, strlen(s));
}

void json_writer_init(struct json_writer *w, FILE *out, bool pretty)
{
    w->len = 0;
    memset(w->first, 0, sizeof(w->first));
    w->depth = 0;
    w->base_depth = 0;
    w->after_key = false;
    w->error = false;
    w->out = out;
    w->pretty = pretty;
    w->first[0] = true;
}

void json_writer_fragment(struct json_writer *w, FILE *out, bool pretty, unsigned depth)
{
    json_writer_init(w, out, pretty);
    if (depth > JSON_DEPTH_MAX) {
        w->error = true;
        depth = JSON_DEPTH_MAX;
    }
    w->depth = depth;
    w->base_depth = depth;
    w->first[depth] = true;
}

static void newline_indent(struct json_writer *w, unsigned depth)
{
    static const char spaces[] =
        "\n                                                                ";
    if (!w->pretty)
        return;
    size_t n = 1 + 2 * (size_t)depth; /* depth <= JSON_DEPTH_MAX: fits */
    put(w, spaces, n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1);
}

/* Places the comma and indentation that come before any value or key. */
static void before_value(struct json_writer *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0 && w->base_depth == 0) {
        if (!w->first[0])
            w->error = true; /* a second top-level value */
        w->first[0] = false;
        return;
    }
    if (!w->first[w->depth])
        put_char(w, ',');
    w->first[w->depth] = false;
    newline_indent(w, w->depth);
}

static void open_container(struct json_writer *w, char c)
{
    before_value(w);
    put_char(w, c);
    if (w->depth >= JSON_DEPTH_MAX) {
        w->error = true;
        return;
    }
    w->depth++;
    w->first[w->depth] = true;
}

static void close_container(struct json_writer *w, char c)
{
    if (w->depth <= w->base_depth) {
        w->error = true;
        return;
    }
    bool empty = w->first[w->depth];
    w->depth--;
    if (!empty)
        newline_indent(w, w->depth);
    put_char(w, c);
    if (w->depth == 0) {
        if (w->pretty)
            put_char(w, '\n');
        jw_flush(w);
    }
}

void jw_begin_object(struct json_writer *w)
{
    open_container(w, '{');
}
void jw_end_object(struct json_writer *w)
{
    close_container(w, '}');
}
void jw_begin_array(struct json_writer *w)
{
    open_container(w, '[');
}
void jw_end_array(struct json_writer *w)
{
    close_container(w, ']');
}

void jw_escape(struct json_writer *w, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        /* Copy the longest run that needs no escaping in one write. */
        size_t run = i;
        while (run < len && (unsigned)(s[run] - 0x20) < 0x5F && s[run] != '"' && s[run] != '\\')
            run++;
        if (run > i) {
            put(w, s + i, run - i);
            i = run;
            continue;
        }
        unsigned char c = s[i];
        const char *esc = NULL;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        if (esc) {
            put_str(w, esc);
            i++;
            continue;
        }
        if (c < 0x20 || c == 0x7F) {
            char u[8];
            snprintf(u, sizeof(u), "\\u%04x", c);
            put_str(w, u);
            i++;
            continue;
        }
        uint32_t cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        if (n == 0) {
            put_str(w, "\\ufffd"); /* one replacement per invalid byte */
            i++;
            continue;
        }
        put(w, s + i, n);
        i += n;
    }
}

void jw_key(struct json_writer *w, const char *key)
{
    before_value(w);
    put_char(w, '"');
    /* Keys are the program's own names (the report's tables): plain ASCII,
     * so not scanned for escapes, a fifth of a report's writing. */
    put(w, key, strlen(key));
    put_str(w, w->pretty ? "\": " : "\":");
    w->after_key = true;
}

void jw_string_n(struct json_writer *w, const char *s, size_t len)
{
    before_value(w);
    put_char(w, '"');
    jw_escape(w, s, len);
    put_char(w, '"');
}

void jw_string(struct json_writer *w, const char *s)
{
    if (!s) {
        jw_null(w);
        return;
    }
    jw_string_n(w, s, strlen(s));
}

/* v in decimal, ending at end; returns its first digit.  A report is mostly
 * numbers: printf's machinery cost more than the rest of the writer. */
static char *decimal(uint64_t v, char *end)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

void jw_uint(struct json_writer *w, uint64_t v)
{
    char b[24];
    before_value(w);
    char *p = decimal(v, b + sizeof b);
    put(w, p, (size_t)(b + sizeof b - p));
}

void jw_int(struct json_writer *w, int64_t v)
{
    char b[24];
    before_value(w);
    /* The magnitude in unsigned arithmetic: INT64_MIN has no positive twin. */
    char *p = decimal(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, b + sizeof b);
    if (v < 0)
        *--p = '-';
    put(w, p, (size_t)(b + sizeof b - p));
}

void jw_double(struct json_writer *w, double v, int decimals)
{
    if (!isfinite(v)) {
        jw_null(w);
        return;
    }
    char b[64];
    before_value(w);
    /* Past 1e15 a double has no digits after the point to show, and "%f"
     * of one near DBL_MAX is 309 digits: exponent form there ("%.17g"
     * reads back as the same double, in at most 24 characters). */
    int n = fabs(v) < 1e15 ? snprintf(b, sizeof(b), "%.*f",
                                      decimals < 0    ? 0
                                      : decimals > 17 ? 17
                                                      : decimals,
                                      v)
                           : snprintf(b, sizeof(b), "%.17g", v);
    if (n <= 0 || (size_t)n >= sizeof(b)) {
        w->error = true; /* never a member without its value */
        put_str(w, "null");
        return;
    }
    put(w, b, (size_t)n);
}

void jw_bool(struct json_writer *w, bool v)
{
    before_value(w);
    put_str(w, v ? "true" : "false");
}

void jw_null(struct json_writer *w)
{
    before_value(w);
    put_str(w, "null");
}

bool jw_splice(struct json_writer *w, FILE *src, uint64_t count)
{
    char buf[65536];
    size_t n;
    bool ok = true;
    if (w->after_key || w->depth == 0)
        w->error = true;
    if (!src)
        return count == 0;
    jw_flush(w); /* what w buffered comes before the spliced bytes */
    if (fflush(src) != 0 || fseek(src, 0, SEEK_SET) != 0)
        return false;
    while ((n = fread(buf, 1, sizeof(buf), src)) > 0) {
        if (fwrite(buf, 1, n, w->out) != n)
            ok = false;
    }
    if (ferror(src))
        ok = false;
    if (count > 0)
        w->first[w->depth] = false;
    return ok;
}
