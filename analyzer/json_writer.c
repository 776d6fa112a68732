/* json_writer.c - streaming JSON output with correct string escaping. */
#include "json_writer.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void json_writer_init(struct json_writer *w, FILE *out, bool pretty)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->pretty = pretty;
    w->first[0] = true;
}

void json_writer_fragment(struct json_writer *w, FILE *out, bool pretty,
                          unsigned depth)
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
    if (!w->pretty)
        return;
    fputc('\n', w->out);
    for (unsigned i = 0; i < depth; i++)
        fputs("  ", w->out);
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
        fputc(',', w->out);
    w->first[w->depth] = false;
    newline_indent(w, w->depth);
}

static void open_container(struct json_writer *w, char c)
{
    before_value(w);
    fputc(c, w->out);
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
    fputc(c, w->out);
    if (w->depth == 0 && w->pretty)
        fputc('\n', w->out);
}

void json_begin_object(struct json_writer *w) { open_container(w, '{'); }
void json_end_object(struct json_writer *w) { close_container(w, '}'); }
void json_begin_array(struct json_writer *w) { open_container(w, '['); }
void json_end_array(struct json_writer *w) { close_container(w, ']'); }

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid.
 * Rejects overlong forms, surrogates and code points past U+10FFFF. */
static size_t utf8_valid(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

void json_escape(FILE *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        switch (c) {
        case '"': fputs("\\\"", out); i++; continue;
        case '\\': fputs("\\\\", out); i++; continue;
        case '\n': fputs("\\n", out); i++; continue;
        case '\r': fputs("\\r", out); i++; continue;
        case '\t': fputs("\\t", out); i++; continue;
        case '\b': fputs("\\b", out); i++; continue;
        case '\f': fputs("\\f", out); i++; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7F) {
            fprintf(out, "\\u%04x", c);
            i++;
            continue;
        }
        size_t n = utf8_valid(s + i, len - i);
        if (n == 0) {
            fputs("\\ufffd", out); /* one replacement per invalid byte */
            i++;
            continue;
        }
        fwrite(s + i, 1, n, out);
        i += n;
    }
}

void json_key(struct json_writer *w, const char *key)
{
    before_value(w);
    fputc('"', w->out);
    json_escape(w->out, key, strlen(key));
    fputs(w->pretty ? "\": " : "\":", w->out);
    w->after_key = true;
}

void json_string_n(struct json_writer *w, const char *s, size_t len)
{
    before_value(w);
    fputc('"', w->out);
    json_escape(w->out, s, len);
    fputc('"', w->out);
}

void json_string(struct json_writer *w, const char *s)
{
    if (!s) {
        json_null(w);
        return;
    }
    json_string_n(w, s, strlen(s));
}

void json_uint(struct json_writer *w, uint64_t v)
{
    before_value(w);
    fprintf(w->out, "%" PRIu64, v);
}

void json_int(struct json_writer *w, int64_t v)
{
    before_value(w);
    fprintf(w->out, "%" PRId64, v);
}

void json_double(struct json_writer *w, double v, int decimals)
{
    if (!isfinite(v)) {
        json_null(w);
        return;
    }
    before_value(w);
    fprintf(w->out, "%.*f", decimals, v);
}

void json_bool(struct json_writer *w, bool v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->out);
}

void json_null(struct json_writer *w)
{
    before_value(w);
    fputs("null", w->out);
}

bool json_splice(struct json_writer *w, FILE *src, uint64_t count)
{
    char buf[65536];
    size_t n;
    bool ok = true;
    if (w->after_key || w->depth == 0)
        w->error = true;
    if (!src)
        return count == 0;
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
