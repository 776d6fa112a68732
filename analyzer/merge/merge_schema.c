/* merge_schema.c - a report's object read back by its table (merge_schema.h). */
#include "merge_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"
#include "engine.h"
#include "merge_fabric.h"
#include "names.h"
#include "report_model.h"

/* The codecs' readers (report_schema.h): a source's members the kinds
 * cannot say. */
static bool ip_version_read(struct rd *r, const struct rs_member *mb, void *obj,
                            struct ms_scratch *scratch)
{
    (void)mb, (void)obj;
    return rd_uint(r, 6, "an IP version (4 or 6)", &scratch->ip_version);
}

/* "0x" and 16 hex digits; nullable: null for 0 (so a 0 written out is no
 * value ibscope writes). */
static bool hex64_read(struct rd *r, const struct rs_member *mb, char *obj)
{
    const char *s = NULL;
    uint64_t v = 0;
    if (!rd_string(r, mb->nullable, &s))
        return false;
    if (s) {
        char back[24];
        v = strtoull(s, NULL, 16);
        snprintf(back, sizeof back, "0x%016llx", (unsigned long long)v);
        if (strcmp(back, s) != 0 || (mb->nullable && v == 0))
            return rd_not(r, JP_STRING, mb->noun);
    }
    memcpy(obj + mb->at, &v, sizeof v);
    return true;
}

/* Up to IB_HOST_ADDRESSES_MAX IP addresses, into a new array. */
static bool addresses_read(struct rd *r, const struct rs_member *mb, void *obj,
                           struct ms_scratch *scratch)
{
    struct ib_source_stats *s = obj;
    size_t list = r->path_len;
    bool more;
    (void)mb, (void)scratch;
    if (!rd_open(r, JP_ARRAY, "an array of IP addresses"))
        return false;
    struct ib_host_address *a = NULL;
    size_t cap = 0;
    for (size_t i = 0; rd_item(r, list, i, &more) && more; i++) {
        if (i == IB_HOST_ADDRESSES_MAX)
            return rd_fail(r, "past the %d addresses a host lists (address_count counts the rest)",
                           IB_HOST_ADDRESSES_MAX);
        if (i == cap) { /* most hosts have one or two */
            cap = cap ? cap * 2 : 1;
            if (!(a = realloc((void *)s->addresses, cap * sizeof *a)))
                return rd_fail(r, "out of memory");
            s->addresses = a;
        }
        if (!rd_ip(r, &a[i].ip_version, a[i].ip))
            return false;
        s->addresses_listed = (uint32_t)i + 1;
    }
    return !r->jp->error[0];
}

/* A source's busiest destination: {ip, port}, or null. */
static bool destination_read(struct rd *r, const struct rs_member *mb, void *obj,
                             struct ms_scratch *scratch)
{
    static const char *const keys[] = { "ip", "port", NULL };
    struct ib_source_stats *s = obj;
    size_t base = r->path_len;
    uint64_t seen = 0;
    enum jp_type t;
    (void)mb, (void)scratch;
    if (!jp_value(r->jp, &t))
        return false;
    if (t == JP_NULL)
        return true;
    if (t != JP_OBJECT)
        return rd_not(r, t, "a destination ({ip, port}) or null");
    for (int k; (k = rd_member(r, base, keys, &seen)) != RD_END;) {
        bool ok = k == 0   ? rd_ip(r, &s->peak_dst_ip_version, s->peak_dst_ip)
                  : k == 1 ? rd_u16(r, "a port", &s->peak_dst_port)
                           : k == RD_OTHER && rd_skip(r);
        if (!ok)
            return false;
    }
    return rd_required(r, base, keys, seen, 3);
}

static bool hops_read(struct rd *r, const struct rs_member *mb, void *obj,
                      struct ms_scratch *scratch)
{
    struct ib_redirect_chain *c = obj;
    size_t list = r->path_len;
    bool more;
    (void)mb, (void)scratch;
    if (!rd_open(r, JP_ARRAY, "an array of hops"))
        return false;
    for (size_t i = 0; rd_item(r, list, i, &more) && more; i++) {
        if (i == IB_CHAIN_HOPS_MAX)
            return rd_fail(r, "past the %d hops a chain keeps (hops_dropped counts the rest)",
                           IB_CHAIN_HOPS_MAX);
        if (!rd_hop(r, &c->hops[i], true))
            return false;
        c->hop_count = (unsigned)i + 1;
    }
    return !r->jp->error[0];
}

static bool linktype_read(struct rd *r, const struct rs_member *mb, void *obj,
                          struct ms_scratch *scratch)
{
    struct report_capture *c = obj;
    uint64_t v;
    bool null;
    (void)mb, (void)scratch;
    if (!rd_uint_or_null(r, INT32_MAX, "a link type or null", &v, &null))
        return false;
    c->info.linktype = null ? -1 : (int)v;
    return true;
}

/* A capture's first problem, cut to the model's room at a character. */
static bool error_read(struct rd *r, const struct rs_member *mb, void *obj,
                       struct ms_scratch *scratch)
{
    struct report_capture_file *info = &((struct report_capture *)obj)->info;
    const char *s;
    (void)mb, (void)scratch;
    if (!rd_string(r, true, &s) || !s)
        return !r->why[0] && !r->jp->error[0];
    size_t n = strlen(s);
    if (n >= sizeof info->error)
        for (n = sizeof info->error - 1; n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80;)
            n--;
    memcpy(info->error, s, n);
    info->error[n] = '\0';
    return true;
}

/* An object of name -> count whose names are those of a table (finding
 * kinds, diagnostics): each count added to counts[the name's index]. */
bool ms_read_count_map(struct rd *r, uint64_t *counts, int size, int (*index)(const char *),
                       const char *noun)
{
    size_t base = r->path_len;
    bool given[64 > IB_DIAG_COUNT ? 64 : IB_DIAG_COUNT] = { false };
    bool more;
    if (!rd_open(r, JP_OBJECT, "an object (name -> count)"))
        return false;
    while (rd_path_back(r, base), jp_member(r->jp, &more) && more) {
        int i = index(r->jp->text);
        rd_path_key(r, r->jp->text);
        if (i < 0 || i >= size)
            return rd_fail(r, "not %s", noun);
        if (given[i])
            return rd_fail(r, "given twice");
        given[i] = true;
        uint64_t n;
        if (!rd_count(r, &n))
            return false;
        merge_add(&counts[i], n);
    }
    rd_path_back(r, base);
    return !r->jp->error[0];
}

/* "REQ" ... "APR": the index of a per-message count. */
static int cm_message_index(const char *name)
{
    for (int m = 0; m < IB_CM_MSG_COUNT; m++) {
        const char *n = ib_name_lookup(ib_cm_attr_names, IB_CM_MSG_FIRST + (unsigned)m);
        if (n && strcmp(n, name) == 0)
            return m;
    }
    return -1;
}

/* connections.reject_reasons: "reason" -> count, added up. */
static bool reject_reasons_read(struct rd *r, const struct rs_member *mb, void *obj,
                                struct ms_scratch *scratch)
{
    uint64_t *counts = (uint64_t *)((char *)obj + mb->at);
    size_t base = r->path_len;
    uint64_t given = 0; /* reasons seen, a bit each */
    bool more;
    (void)scratch;
    if (!rd_open(r, JP_OBJECT, "an object (reason -> count)"))
        return false;
    while (rd_path_back(r, base), jp_member(r->jp, &more) && more) {
        const char *key = r->jp->text;
        char *end;
        unsigned long reason = strtoul(key, &end, 10);
        bool canonical = key[0] >= '0' && key[0] <= '9' && !*end && (key[0] != '0' || !key[1]);
        rd_path_key(r, key);
        if (!canonical || reason >= IB_REJ_REASON_MAX)
            return rd_fail(r, "not a reject reason (0 to %d)", IB_REJ_REASON_MAX - 1);
        if (given & (uint64_t)1 << reason)
            return rd_fail(r, "given twice");
        given |= (uint64_t)1 << reason;
        uint64_t n;
        if (!rd_count(r, &n))
            return false;
        counts[reason] = n;
    }
    rd_path_back(r, base);
    return !r->jp->error[0];
}

/* A latency as the engine makes it: a count, and min_ns <= median_ns <=
 * max_ns from 0 up, null when the count is 0 (median_ns: when unknown). */
static bool latency_read(struct rd *r, const struct rs_member *mb, void *obj,
                         struct ms_scratch *scratch)
{
    static const char *const keys[] = { "count", "min_ns", "median_ns", "max_ns", NULL };
    struct ib_latency *into = (struct ib_latency *)((char *)obj + mb->at);
    size_t base = r->path_len;
    uint64_t seen = 0;
    uint64_t count = 0;
    (void)scratch;
    int64_t v[3] = { 0 };
    bool null[3] = { true, true, true };
    if (!rd_open(r, JP_OBJECT, "an object (a latency)"))
        return false;
    for (int k; (k = rd_member(r, base, keys, &seen)) != RD_END;) {
        bool ok = k == 0  ? rd_count(r, &count)
                  : k > 0 ? rd_int(r, "a time in ns or null", &v[k - 1], &null[k - 1])
                          : k == RD_OTHER && rd_skip(r);
        if (!ok)
            return false;
    }
    if (!rd_required(r, base, keys, seen, 15))
        return false;
    if (count && (null[0] || null[2]))
        return rd_path_key(r, null[0] ? "min_ns" : "max_ns"),
               rd_fail(r, "null with a count of %llu", (unsigned long long)count);
    if (!count)
        return true;
    for (int i = 0; i < 3; i++)
        if (v[i] < 0) /* a step back counts as instant: never below 0 */
            return rd_path_key(r, keys[i + 1]),
                   rd_fail(r, "%lld is not a latency (0 ns up)", (long long)v[i]);
    if (v[0] > v[2] || (!null[1] && (v[1] < v[0] || v[1] > v[2])))
        return rd_fail(r, "min_ns, median_ns and max_ns are not in order");
    *into =
        (struct ib_latency){ .count = count, .min_ns = v[0], .median_ns = v[1], .max_ns = v[2] };
    return true;
}

static bool by_message_read(struct rd *r, const struct rs_member *mb, void *obj,
                            struct ms_scratch *scratch)
{
    (void)scratch;
    return ms_read_count_map(r, (uint64_t *)((char *)obj + mb->at), IB_CM_MSG_COUNT,
                             cm_message_index, "a CM message");
}

static bool (*const codec_readers[RS_CODEC_COUNT])(struct rd *, const struct rs_member *, void *,
                                                   struct ms_scratch *) = {
    [RS_CODEC_IP_VERSION] = ip_version_read,
    [RS_CODEC_ADDRESSES] = addresses_read,
    [RS_CODEC_DESTINATION] = destination_read,
    [RS_CODEC_HOPS] = hops_read,
    [RS_CODEC_LINKTYPE] = linktype_read,
    [RS_CODEC_ERROR] = error_read,
    [RS_CODEC_REJECT_REASONS] = reject_reasons_read,
    [RS_CODEC_BY_MESSAGE] = by_message_read,
    [RS_CODEC_LATENCY] = latency_read,
};

static void uint_to(void *p, size_t size, uint64_t v)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* The bool (or bit) a row's `has` names: set when its value was there
 * (not null).  Objects are read into zeroed memory, and two members may
 * share the bool (frames' first_time and last_time): a null leaves it. */
static void set_has(const struct rs_member *mb, char *obj, bool there)
{
    if (mb->has && there && mb->has_bit)
        *(uint8_t *)(obj + mb->has - 1) |= mb->has_bit;
    else if (mb->has && there)
        memcpy(obj + mb->has - 1, &there, sizeof there);
}

static bool uint_read(struct rd *r, const struct rs_member *mb, char *obj)
{
    uint64_t v = 0;
    bool null = false;
    bool ok = mb->has ? rd_uint_or_null(r, mb->max, mb->noun, &v, &null)
                      : rd_uint(r, mb->max, mb->noun, &v);
    if (ok) {
        uint_to(obj + mb->at, mb->size, v);
        set_has(mb, obj, !null);
    }
    return ok;
}

static bool int_read(struct rd *r, const struct rs_member *mb, char *obj)
{
    int64_t v = 0;
    bool null = false;
    if (!rd_int(r, mb->noun ? mb->noun : "a time in ns", &v, mb->has ? &null : NULL))
        return false;
    memcpy(obj + mb->at, &v, sizeof v);
    set_has(mb, obj, !null);
    return true;
}

static bool time_read(struct rd *r, const struct rs_member *mb, char *obj)
{
    int64_t v = 0;
    bool null = false;
    if (!rd_time(r, &v, mb->has ? &null : NULL))
        return false;
    if (!null)
        memcpy(obj + mb->at, &v, sizeof v);
    set_has(mb, obj, !null);
    return true;
}

static bool real_read(struct rd *r, const struct rs_member *mb, char *obj)
{
    double v = 0;
    bool null = false;
    bool ok = mb->has ? rd_real_or_null(r, mb->lo, mb->hi, mb->noun, &v, &null)
                      : rd_real(r, mb->lo, mb->hi, mb->noun, &v);
    if (!ok)
        return false;
    memcpy(obj + mb->at, &v, sizeof v);
    set_has(mb, obj, !null);
    return true;
}

/* A string kept: a copy the caller owns. */
static bool string_read(struct rd *r, const struct rs_member *mb, char *obj)
{
    const char *s = NULL;
    if (!rd_string(r, mb->nullable, &s))
        return false;
    char *copy = s ? strdup(s) : NULL;
    if (s && !copy)
        return rd_fail(r, "out of memory");
    memcpy(obj + mb->at, &copy, sizeof copy);
    return true;
}

/* One of the names of the row's enum; the refusal names the value read
 * and, unless the row words it, the names. */
static bool enum_read(struct rd *r, const struct rs_member *mb, char *obj)
{
    const struct rs_names *names = mb->names;
    enum jp_type t;
    if (!jp_value(r->jp, &t))
        return false;
    if (t == JP_NULL && mb->nullable)
        return true; /* its `has` stays false */
    unsigned v = names->count;
    for (unsigned e = 0; t == JP_STRING && !names->by_name && e < names->count; e++)
        if (strcmp(names->name(e), r->jp->text) == 0)
            v = e;
    if (t == JP_STRING && names->by_name)
        v = names->by_name(r->jp->text);
    if (v < names->count) {
        uint_to(obj + mb->at, mb->size, v);
        set_has(mb, obj, true);
        return true;
    }
    if (mb->noun)
        return rd_not(r, t, mb->noun);
    char list[112] = "one of ";
    size_t len = strlen(list);
    for (unsigned e = 0; e < names->count && len < sizeof list; e++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s\"%s\"", e ? ", " : "",
                                names->name(e));
    return rd_not(r, t, list);
}

static bool index_read(struct rd *r, const struct rs_member *mb, const struct ms_scratch *scratch)
{
    uint64_t v;
    if (!rd_count(r, &v))
        return false;
    return v == scratch->index || rd_fail(r, "%llu is not %s (%llu)", (unsigned long long)v,
                                          mb->noun, (unsigned long long)scratch->index);
}

static bool object_read(struct rd *r, const struct rs_member *mb, char *obj,
                        struct ms_scratch *scratch)
{
    char noun[64];
    uint64_t seen = 0;
    snprintf(noun, sizeof noun, "an object (%s)", mb->key);
    if (!rd_open(r, JP_OBJECT, noun))
        return false;
    set_has(mb, obj, true);
    return ms_read_members(r, mb->object, obj + mb->at, scratch, &seen);
}

/* An object whose table the members read before it choose (a finding's
 * kind its details'). */
static bool variant_read(struct rd *r, const struct rs_member *mb, char *obj,
                         struct ms_scratch *scratch)
{
    uint64_t seen = 0;
    char noun[64];
    snprintf(noun, sizeof noun, "an object of %s", mb->key);
    if (!rd_open(r, JP_OBJECT, noun))
        return false;
    bool ok = ms_read_members(r, mb->variant(obj), obj + mb->at, scratch, &seen);
    scratch->variant_seen = seen;
    return ok;
}

/* An array of objects of one table (RS_LIST), into a new array whose
 * pointer and count are set as each is read: the caller's to free, whether
 * or not it succeeds. */
static bool list_read(struct rd *r, const struct rs_member *mb, char *obj,
                      const struct ms_scratch *scratch)
{
    size_t list = r->path_len, cap = 0;
    bool more;
    char noun[64];
    snprintf(noun, sizeof noun, "an array (%s)", mb->key);
    if (!rd_open(r, JP_ARRAY, noun))
        return false;
    char *items = NULL;
    for (uint32_t i = 0; rd_item(r, list, i, &more) && more; i++) {
        if (i == mb->max)
            return rd_fail(r, "past the %llu items of %s a report keeps",
                           (unsigned long long)mb->max, mb->key);
        if (i == cap) {
            cap = cap ? cap * 2 : 16;
            if (!(items = realloc(items, cap * mb->size)))
                return rd_fail(r, "out of memory");
            memcpy(obj + mb->at, &items, sizeof items);
        }
        char *item = items + (size_t)i * mb->size;
        uint64_t seen = 0;
        memset(item, 0, mb->size);
        if (!rd_open(r, JP_OBJECT, "an object") ||
            !ms_read_members(r, mb->object, item,
                             &(struct ms_scratch){ .index = i,
                                                   .codec = scratch->codec,
                                                   .codec_ctx = scratch->codec_ctx },
                             &seen))
            return false;
        uint32_t n = i + 1;
        memcpy(obj + mb->aux, &n, sizeof n);
    }
    return !r->jp->error[0];
}

static bool capture_read(struct rd *r, const struct rs_member *mb, char *obj)
{
    uint32_t c;
    if (!rd_capture(r, &c))
        return false;
    uint_to(obj + mb->at, mb->size, c);
    return true;
}

static bool codec_read(struct rd *r, const struct rs_member *mb, char *obj,
                       struct ms_scratch *scratch)
{
    if (codec_readers[mb->codec])
        return codec_readers[mb->codec](r, mb, obj, scratch);
    if (scratch->codec)
        return scratch->codec(r, mb, obj, scratch);
    return rd_skip(r); /* a codec without a reader: a record's, which no merge keeps */
}

static bool member_read(struct rd *r, const struct rs_member *mb, char *obj,
                        struct ms_scratch *scratch)
{
    void *p = obj + mb->at;
    uint16_t ps;
    if (mb->fabric) /* the merge correlates no captures */
        return rd_skip(r);
    switch (mb->kind) {
    case RS_UINT: return uint_read(r, mb, obj);
    case RS_INT: return int_read(r, mb, obj);
    case RS_TIME: return time_read(r, mb, obj);
    case RS_BOOL: return rd_bool(r, p);
    case RS_FRAME: return rd_frame(r, p);
    case RS_ENDPOINT: return rd_endpoint(r, p);
    case RS_IP: return rd_ip(r, (uint8_t *)obj + mb->aux, p);
    case RS_PORT_SPACE:
        if (!rd_port_space(r, &ps))
            return false;
        uint_to(p, 2, ps);
        return true;
    case RS_REAL: return real_read(r, mb, obj);
    case RS_STRING: return string_read(r, mb, obj);
    case RS_HEX64: return hex64_read(r, mb, obj);
    case RS_ENUM: return enum_read(r, mb, obj);
    case RS_TEXT: /* worded again */ return rd_string(r, mb->nullable, &(const char *){ NULL });
    case RS_INDEX: return index_read(r, mb, scratch);
    case RS_CAPTURE: return capture_read(r, mb, obj);
    case RS_FRAME_NUMBER: return rd_frame_number(r, p);
    case RS_OBJECT: return object_read(r, mb, obj, scratch);
    case RS_VARIANT: return variant_read(r, mb, obj, scratch);
    case RS_RECORDS: /* records of a run, not merged */
        return rd_open(r, JP_ARRAY, "an array (list)") && jp_skip(r->jp, JP_ARRAY);
    case RS_LIST: return list_read(r, mb, obj, scratch);
    case RS_CODEC: return codec_read(r, mb, obj, scratch);
    }
    return false;
}

/* The row of the key just read, o->count for none. */
static size_t row_of(const struct rs_object *o, const char *key)
{
    size_t i = 0;
    while (i < o->count && strcmp(o->members[i].key, key) != 0)
        i++;
    return i;
}

/* The members a report must have: all but the optional ones and those
 * written only with captures correlated, and a conditional one only when
 * what was read says it is there (present). */
static bool required_read(struct rd *r, const struct rs_object *o, const void *obj, uint64_t seen)
{
    for (size_t i = 0; i < o->count; i++) {
        const struct rs_member *mb = &o->members[i];
        if (mb->optional || mb->fabric || (seen & UINT64_C(1) << i) ||
            (mb->present && !mb->present(obj)))
            continue;
        rd_path_key(r, mb->key);
        return rd_fail(r, "missing");
    }
    return true;
}

/* One member, by its row: a variant after the member that chooses its
 * table; a row that marks a bool sets it. */
static bool row_read(struct rd *r, const struct rs_object *o, size_t i, char *obj,
                     struct ms_scratch *scratch, uint64_t seen)
{
    const struct rs_member *mb = &o->members[i];
    bool yes = true;
    if (mb->after && !(seen & UINT64_C(1) << row_of(o, mb->after)))
        return rd_fail(r, "given before %s", mb->after);
    if (!member_read(r, mb, obj, scratch))
        return false;
    if (mb->marks)
        memcpy(obj + mb->marks - 1, &yes, sizeof yes);
    return true;
}

bool ms_read_members(struct rd *r, const struct rs_object *o, void *obj, struct ms_scratch *scratch,
                     uint64_t *seen)
{
    size_t base = r->path_len;
    bool more;
    if (o->count > 64) /* *seen has a bit per row */
        return rd_fail(r, "%s: a table of more than 64 members", o->name);
    while (rd_path_back(r, base), jp_member(r->jp, &more) && more) {
        rd_path_key(r, r->jp->text);
        size_t i = row_of(o, r->jp->text);
        if (i == o->count) {
            if (!rd_skip(r))
                return false;
            continue;
        }
        if (*seen & UINT64_C(1) << i)
            return rd_fail(r, "given twice");
        if (!row_read(r, o, i, obj, scratch, *seen))
            return false;
        *seen |= UINT64_C(1) << i;
    }
    if (r->jp->error[0])
        return false;
    rd_path_back(r, base);
    return required_read(r, o, obj, *seen);
}

const char *ms_key_at(const struct rs_object *o, size_t at)
{
    for (size_t i = 0; i < o->count; i++)
        if (o->members[i].at == at)
            return o->members[i].key;
    return "?";
}

bool ms_given(const struct rs_object *o, uint64_t seen, const char *key)
{
    size_t i = row_of(o, key);
    return i < o->count && (seen & UINT64_C(1) << i);
}

uint64_t ms_optional(const struct rs_object *o)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < o->count; i++)
        if (o->members[i].optional)
            bits |= UINT64_C(1) << i;
    return bits;
}

void ms_add_counts(const struct rs_object *o, void *into, const void *from)
{
    for (size_t i = 0; i < o->count; i++) {
        const struct rs_member *mb = &o->members[i];
        for (size_t k = 0; mb->sums && k < mb->size / sizeof(uint64_t); k++) {
            uint64_t a, b;
            size_t at = mb->at + k * sizeof a;
            memcpy(&a, (char *)into + at, sizeof a);
            memcpy(&b, (const char *)from + at, sizeof b);
            merge_add(&a, b);
            memcpy((char *)into + at, &a, sizeof a);
        }
    }
}
