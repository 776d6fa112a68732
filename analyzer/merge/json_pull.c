/* json_pull.c - JSON read a token at a time (json_pull.h). */
#include "json_pull.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "utf8.h"

static bool fail(struct json_pull *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(struct json_pull *p, const char *fmt, ...)
{
    if (p->error[0])
        return false;
    char what[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(p->error, sizeof p->error, "%s at line %lu", what, p->line);
    return false;
}

void jp_init(struct json_pull *p, FILE *in)
{
    p->in = in;
    p->pos = p->len = 0;
    p->eof = false;
    p->started = false;
    p->line = 1;
    p->depth = 0;
    p->text_len = 0;
    p->text[0] = '\0';
    p->error[0] = '\0';
}

/* The next byte, still unread; -1 at the end. */
static int peek(struct json_pull *p)
{
    if (p->pos == p->len) {
        if (p->eof)
            return -1;
        p->len = fread(p->buf, 1, sizeof p->buf, p->in);
        p->pos = 0;
        if (p->len == 0) {
            p->eof = true;
            if (ferror(p->in))
                fail(p, "a read error");
            return -1;
        }
    }
    return p->buf[p->pos];
}

static int get(struct json_pull *p)
{
    int c = peek(p);
    if (c >= 0) {
        p->pos++;
        if (c == '\n')
            p->line++;
    }
    return c;
}

/* The next byte that is not white space, consumed. */
static int get_token(struct json_pull *p)
{
    int c;
    while ((c = get(p)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        ;
    return c;
}

static bool unexpected(struct json_pull *p, int c)
{
    if (c < 0)
        return fail(p, "the document is cut short");
    if (c >= 0x20 && c < 0x7f)
        return fail(p, "unexpected '%c'", c);
    return fail(p, "unexpected byte 0x%02x", (unsigned)c);
}

static size_t put_utf8(uint32_t cp, unsigned char *u)
{
    if (cp < 0x80) {
        u[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        u[0] = (unsigned char)(0xC0 | cp >> 6);
        u[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        u[0] = (unsigned char)(0xE0 | cp >> 12);
        u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        u[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    u[0] = (unsigned char)(0xF0 | cp >> 18);
    u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    u[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Four hex digits of a \u escape. */
static bool hex4(struct json_pull *p, uint32_t *cp)
{
    *cp = 0;
    for (int i = 0; i < 4; i++) {
        int c = get(p), v = c >= '0' && c <= '9'   ? c - '0'
                            : c >= 'a' && c <= 'f' ? c - 'a' + 10
                            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                   : -1;
        if (v < 0)
            return fail(p, "a \\u escape without four hex digits");
        *cp = *cp << 4 | (uint32_t)v;
    }
    return true;
}

/* The escape after a backslash, as UTF-8 in u. */
static bool escape(struct json_pull *p, unsigned char *u, size_t *k)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    int c = get(p);
    const char *at = c > 0 ? strchr(from, c) : NULL;
    if (at) {
        u[0] = (unsigned char)to[at - from];
        *k = 1;
        return true;
    }
    uint32_t cp, low;
    if (c != 'u')
        return c < 0 ? unexpected(p, c) : fail(p, "an unknown escape in a string");
    if (!hex4(p, &cp))
        return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) { /* a pair: the low half must follow */
        if (get(p) != '\\' || get(p) != 'u' || !hex4(p, &low) || low < 0xDC00 || low > 0xDFFF)
            return fail(p, "a lone UTF-16 surrogate in a string");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return fail(p, "a lone UTF-16 surrogate in a string");
    }
    if (cp == 0)
        return fail(p, "\\u0000 in a string");
    *k = put_utf8(cp, u);
    return true;
}

/* One UTF-8 character from its lead byte: shortest form, no surrogates,
 * at most U+10FFFF (utf8_decode). */
static bool utf8_char(struct json_pull *p, int lead, unsigned char *u, size_t *k)
{
    size_t n = utf8_lead_length((unsigned char)lead);
    u[0] = (unsigned char)lead;
    for (size_t i = 1; i < n; i++) {
        int c = get(p);
        if (c < 0x80 || c > 0xBF)
            return fail(p, "invalid UTF-8 in a string");
        u[i] = (unsigned char)c;
    }
    uint32_t cp;
    if (n < 2 || utf8_decode(u, n, &cp) != n)
        return fail(p, "invalid UTF-8 in a string");
    *k = n;
    return true;
}

/* A string's contents after its opening quote, into text. */
static bool read_string(struct json_pull *p)
{
    size_t n = 0;
    for (;;) {
        int c = get(p);
        unsigned char u[4];
        size_t k = 1;
        if (c == '"')
            break;
        if (c < 0)
            return unexpected(p, c);
        if (c == '\\') {
            if (!escape(p, u, &k))
                return false;
        } else if (c < 0x20) {
            return fail(p, "a control character in a string");
        } else if (c < 0x80) {
            u[0] = (unsigned char)c;
        } else if (!utf8_char(p, c, u, &k)) {
            return false;
        }
        if (n + k > JP_STRING_MAX)
            return fail(p, "a string longer than %d bytes", JP_STRING_MAX);
        memcpy(p->text + n, u, k);
        n += k;
    }
    p->text[n] = '\0';
    p->text_len = n;
    return true;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* RFC 8259's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool number_grammar(const char *s)
{
    s += *s == '-';
    if (*s == '0')
        s++;
    else if (is_digit(*s))
        while (is_digit(*s))
            s++;
    else
        return false;
    if (*s == '.') {
        if (!is_digit(*++s))
            return false;
        while (is_digit(*s))
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        s += *s == '+' || *s == '-';
        if (!is_digit(*s))
            return false;
        while (is_digit(*s))
            s++;
    }
    return *s == '\0';
}

static bool read_number(struct json_pull *p, int first)
{
    size_t n = 0;
    p->text[n++] = (char)first;
    for (int c; (c = peek(p)) > 0 && (is_digit((char)c) || strchr("+-.eE", c));) {
        if (n == JP_NUMBER_MAX)
            return fail(p, "a number longer than %d characters", JP_NUMBER_MAX);
        p->text[n++] = (char)get(p);
    }
    p->text[n] = '\0';
    p->text_len = n;
    return number_grammar(p->text) || fail(p, "a malformed number");
}

static bool literal(struct json_pull *p, const char *rest)
{
    for (; *rest; rest++) {
        int c = get(p);
        if (c != *rest)
            return unexpected(p, c);
    }
    return true;
}

/* Whether the next bytes are the n of s (within the buffer: the first
 * fill holds the document's first bytes, as fread fills all it can). */
static bool ahead(struct json_pull *p, const char *s, size_t n)
{
    return peek(p) >= 0 && p->len - p->pos >= n && memcmp(p->buf + p->pos, s, n) == 0;
}

/* A byte order mark before the document: UTF-8's skipped, UTF-16's named. */
static bool byte_order_mark(struct json_pull *p)
{
    p->started = true;
    if (ahead(p, "\xEF\xBB\xBF", 3)) {
        p->pos += 3;
        return true;
    }
    if (ahead(p, "\xFF\xFE", 2) || ahead(p, "\xFE\xFF", 2))
        return fail(p, "a UTF-16 byte order mark (a report is UTF-8)");
    return true;
}

bool jp_value(struct json_pull *p, enum jp_type *type)
{
    if (p->error[0] || (!p->started && !byte_order_mark(p)))
        return false;
    bool top = p->depth == 0;
    int c = get_token(p);
    switch (c) {
    case '{':
    case '[':
        if (p->depth == JP_DEPTH_MAX)
            return fail(p, "nesting deeper than %d", JP_DEPTH_MAX);
        p->is_object[p->depth] = c == '{';
        p->first[p->depth++] = true;
        *type = c == '{' ? JP_OBJECT : JP_ARRAY;
        return true;
    case '"': *type = JP_STRING; return read_string(p);
    case 't': *type = JP_TRUE; return literal(p, "rue");
    case 'f': *type = JP_FALSE; return literal(p, "alse");
    case 'n': *type = JP_NULL; return literal(p, "ull");
    case -1:
        if (!top || p->error[0])
            return unexpected(p, c);
        snprintf(p->error, sizeof p->error, "the file is empty");
        return false;
    default:
        *type = JP_NUMBER;
        return c == '-' || is_digit((char)c) ? read_number(p, c) : unexpected(p, c);
    }
}

bool jp_member(struct json_pull *p, bool *more)
{
    if (p->error[0])
        return false;
    unsigned d = p->depth - 1;
    int c = get_token(p);
    *more = false;
    if (c == '}') {
        p->depth--;
        return true;
    }
    if (!p->first[d]) {
        if (c != ',')
            return unexpected(p, c);
        c = get_token(p);
    }
    if (c != '"')
        return unexpected(p, c);
    if (!read_string(p))
        return false;
    if ((c = get_token(p)) != ':')
        return unexpected(p, c);
    p->first[d] = false;
    *more = true;
    return true;
}

bool jp_element(struct json_pull *p, bool *more)
{
    if (p->error[0])
        return false;
    unsigned d = p->depth - 1;
    *more = false;
    if (p->first[d]) {
        int c;
        while ((c = peek(p)) == ' ' || c == '\t' || c == '\n' || c == '\r')
            get(p);
        if (c == ']') {
            get(p);
            p->depth--;
            return true;
        }
        p->first[d] = false;
        *more = true;
        return true;
    }
    int c = get_token(p);
    if (c == ']') {
        p->depth--;
        return true;
    }
    if (c != ',')
        return unexpected(p, c);
    *more = true;
    return true;
}

bool jp_skip(struct json_pull *p, enum jp_type type)
{
    if (type != JP_OBJECT && type != JP_ARRAY)
        return true;
    unsigned base = p->depth - 1;
    while (p->depth > base) {
        bool more;
        enum jp_type t;
        bool ok = p->is_object[p->depth - 1] ? jp_member(p, &more) : jp_element(p, &more);
        if (!ok || (more && !jp_value(p, &t)))
            return false;
    }
    return true;
}

bool jp_finish(struct json_pull *p)
{
    if (p->error[0])
        return false;
    int c = get_token(p);
    return c < 0 ? !p->error[0] : fail(p, "more text after the document");
}
