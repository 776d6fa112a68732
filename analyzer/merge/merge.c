/* merge.c - per-host JSON reports checked and combined into the fabric
 * document (merge.h); the command around it is merge_cli.c. */
#include "merge.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The keys every report has, and their types. */
static const struct {
    const char *key;
    json_type type;
} report_keys[] = {
    {"captures", JSON_ARRAY},      {"frames", JSON_OBJECT},   {"pool", JSON_OBJECT},
    {"connections", JSON_OBJECT},  {"sources", JSON_ARRAY},   {"redirect_chains", JSON_ARRAY},
    {"crc", JSON_OBJECT},          {"finding_counts", JSON_OBJECT},
    {"limits", JSON_OBJECT},       {"findings", JSON_ARRAY},
};

/* Each chain's "end", where it has one, is a name of the engine's. */
static const char *check_chain_ends(const json_t *chains, char *buf, size_t size)
{
    size_t i;
    json_t *c;
    json_array_foreach((json_t *)chains, i, c) {
        json_t *end = json_object_get(c, "end");
        if (!end || ib_chain_end_by_name(json_string_value(end)) != IB_CHAIN_END_COUNT)
            continue;
        size_t len = (size_t)snprintf(buf, size, "not an ibscope report (redirect_chains[%zu]: "
                                                 "\"end\" is none of ", i);
        for (int e = 0; e < IB_CHAIN_END_COUNT && len < size; e++)
            len += (size_t)snprintf(buf + len, size - len, "%s\"%s\"", e ? ", " : "",
                                    ib_chain_end_name((enum ib_chain_end)e));
        if (len < size)
            snprintf(buf + len, size - len, ")");
        return buf;
    }
    return NULL;
}

const char *merge_check_report(const json_t *doc, const char *version, char *buf,
                               size_t size)
{
    const char *made_by = json_string_value(json_object_get(doc, "version"));
    if (!json_is_object(doc) || !made_by)
        return "not an ibscope report (no \"version\")";
    if (json_object_get(doc, "hosts"))
        return "already a merged report: merge the hosts' own reports";
    if (strcmp(made_by, version) != 0) {
        snprintf(buf, size, "made by ibscope %.40s, this is %s: analyse the captures again "
                            "with this version",
                 made_by, version);
        return buf;
    }
    for (size_t i = 0; i < sizeof report_keys / sizeof report_keys[0]; i++) {
        json_t *v = json_object_get(doc, report_keys[i].key);
        if (!v || json_typeof(v) != report_keys[i].type) {
            snprintf(buf, size, "not an ibscope report (\"%s\" missing or of the wrong type)",
                     report_keys[i].key);
            return buf;
        }
    }
    return check_chain_ends(json_object_get(doc, "redirect_chains"), buf, size);
}

/* n + offset for a number a report can hold (captures and chains are
 * counted in 32 bits); anything else is left as it is. */
static json_int_t renumbered(json_int_t n, json_int_t offset)
{
    return n >= 0 && n <= UINT32_MAX ? n + offset : n;
}

/* Every "capture" and "related_capture" number under v, plus offset (and
 * "index", the captures' own number, where index_too). */
static void shift_captures(json_t *v, json_int_t offset, bool index_too)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
            shift_captures(e, offset, index_too);
    } else if (json_is_object(v)) {
        const char *key;
        json_t *e;
        json_object_foreach(v, key, e) {
            if (json_is_integer(e) && (strcmp(key, "capture") == 0 ||
                                       strcmp(key, "related_capture") == 0 ||
                                       (index_too && strcmp(key, "index") == 0)))
                json_integer_set(e, renumbered(json_integer_value(e), offset));
            else
                shift_captures(e, offset, index_too);
        }
    }
}

json_int_t merge_add(json_int_t a, json_int_t b)
{
    json_int_t sum;
    if (!__builtin_add_overflow(a, b, &sum))
        return sum;
#if JSON_INTEGER_IS_LONG_LONG
    return b > 0 ? LLONG_MAX : LLONG_MIN;
#else
    return b > 0 ? LONG_MAX : LONG_MIN;
#endif
}

json_int_t merge_chain_hops(const json_t *chain)
{
    return merge_add((json_int_t)json_array_size(json_object_get(chain, "hops")),
                     merge_int(chain, "hops_dropped"));
}

enum ib_chain_end merge_chain_end(const json_t *chain)
{
    enum ib_chain_end end = ib_chain_end_by_name(json_string_value(json_object_get(chain, "end")));
    if (end != IB_CHAIN_END_COUNT)
        return end;
    /* A report from before "end" existed: the views' old reading of it. */
    return json_is_true(json_object_get(chain, "loop"))                 ? IB_CHAIN_LOOP
           : merge_int(json_object_get(chain, "final_answer"), "frame") ? IB_CHAIN_ANSWERED
           : json_is_true(json_object_get(chain, "followed"))           ? IB_CHAIN_NO_ANSWER
                                                                        : IB_CHAIN_NOT_FOLLOWED;
}

json_int_t merge_int(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

const char *merge_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

json_int_t merge_count_host(const json_t *list, const char *host, const char *kind)
{
    json_int_t n = 0;
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)list, i, e)
        if (strcmp(merge_str(e, "host"), host) == 0 &&
            (!kind || strcmp(merge_str(e, "kind"), kind) == 0))
            n++;
    return n;
}

/* Adds every integer member of from into the same member of into. */
static void add_counts(json_t *into, const json_t *from)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)from, key, v) {
        if (!json_is_integer(v))
            continue;
        json_t *have = json_object_get(into, key);
        if (json_is_integer(have))
            json_integer_set(have, merge_add(json_integer_value(have), json_integer_value(v)));
        else
            json_object_set_new(into, key, json_integer(json_integer_value(v)));
    }
}

/* Latencies: counts add and the extremes hold; a median of medians is not
 * a median, so the merged one is null. */
static void merge_latency(json_t *into, const json_t *from)
{
    if (!json_is_object(from) || !merge_int(from, "count"))
        return;
    json_int_t n = merge_int(into, "count"), m = merge_int(from, "count");
    json_int_t lo = merge_int(from, "min_ns"), hi = merge_int(from, "max_ns");
    if (n) {
        lo = merge_int(into, "min_ns") < lo ? merge_int(into, "min_ns") : lo;
        hi = merge_int(into, "max_ns") > hi ? merge_int(into, "max_ns") : hi;
    }
    json_object_set_new(into, "count", json_integer(merge_add(n, m)));
    json_object_set_new(into, "min_ns", json_integer(lo));
    json_object_set_new(into, "median_ns", json_null());
    json_object_set_new(into, "max_ns", json_integer(hi));
}

static void merge_connections(json_t *into, const json_t *from)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)from, key, v) {
        if (json_is_integer(v)) {
            json_t *have = json_object_get(into, key);
            json_int_t sum = merge_add(json_integer_value(v), json_integer_value(have));
            json_object_set_new(into, key, json_integer(sum));
        } else if (strcmp(key, "reject_reasons") == 0) {
            json_t *r = json_object_get(into, key);
            if (!r)
                json_object_set_new(into, key, r = json_object());
            add_counts(r, v);
        } else if (json_is_object(v)) {
            json_t *l = json_object_get(into, key);
            if (!l)
                json_object_set_new(into, key, l = json_pack("{sI}", "count", (json_int_t)0));
            merge_latency(l, v);
        }
    }
}

/* Labels each element of a report's array with its host and appends it. */
static void append_labelled(json_t *into, json_t *from, const char *host)
{
    size_t i;
    json_t *e;
    json_array_foreach(from, i, e) {
        if (json_is_object(e))
            json_object_set_new(e, "host", json_string(host));
        json_array_append(into, e);
    }
}

/* Findings of all hosts in time order (RFC 3339 UTC strings sort as
 * times); a host's own order is kept for equal times. */
static int by_time(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    const char *tx = json_string_value(json_object_get(x, "time"));
    const char *ty = json_string_value(json_object_get(y, "time"));
    int c = strcmp(tx ? tx : "", ty ? ty : "");
    if (c)
        return c;
    json_int_t ox = merge_int(x, "_order"), oy = merge_int(y, "_order");
    return ox < oy ? -1 : ox > oy;
}

static void sort_findings(json_t *findings)
{
    size_t n = json_array_size(findings);
    json_t **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return; /* host by host, then */
    for (size_t i = 0; i < n; i++) {
        v[i] = json_incref(json_array_get(findings, i));
        json_object_set_new(v[i], "_order", json_integer((json_int_t)i));
    }
    qsort(v, n, sizeof *v, by_time);
    json_array_clear(findings);
    for (size_t i = 0; i < n; i++) {
        json_object_del(v[i], "_order");
        json_array_append_new(findings, v[i]);
    }
    free(v);
}

/* A source's share of its own host's pool, in percent. */
static double utilization(const json_t *s)
{
    return json_number_value(json_object_get(s, "pool_utilization"));
}

static int by_utilization(const void *a, const void *b)
{
    double x = utilization(*(json_t *const *)a), y = utilization(*(json_t *const *)b);
    if (x != y)
        return x < y ? 1 : -1;
    json_int_t px = merge_int(*(json_t *const *)a, "peak_ports_in_use");
    json_int_t py = merge_int(*(json_t *const *)b, "peak_ports_in_use");
    return px < py ? 1 : px > py ? -1 : 0;
}

static json_t *nearest_exhaustion(const json_t *sources)
{
    size_t n = json_array_size(sources);
    json_t **v = malloc((n ? n : 1) * sizeof *v);
    json_t *out = json_array();
    if (!v)
        return out;
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(sources, i);
    qsort(v, n, sizeof *v, by_utilization);
    for (size_t i = 0; i < n && i < MERGE_NEAREST; i++)
        json_array_append(out, v[i]);
    free(v);
    return out;
}

json_t *merge_combine(json_t **reports, char **hosts, size_t count, const char *version)
{
    json_t *fabric = json_object();
    json_t *hostlist = json_array(), *captures = json_array(), *sources = json_array();
    json_t *chains = json_array(), *findings = json_array(), *crc = json_array();
    json_t *frames = json_object(), *connections = json_object(), *counts = json_object();
    json_t *limits = json_object(), *pools = json_array();
    const char *first_time = NULL, *last_time = NULL;
    json_int_t capture_base = 0, chain_base = 0;
    bool crc_checked = true;
    for (size_t r = 0; r < count; r++) {
        json_t *rep = reports[r];
        shift_captures(json_object_get(rep, "captures"), capture_base, true);
        shift_captures(json_object_get(rep, "sources"), capture_base, false);
        shift_captures(json_object_get(rep, "redirect_chains"), capture_base, false);
        shift_captures(json_object_get(rep, "findings"), capture_base, false);
        shift_captures(json_object_get(rep, "crc"), capture_base, false);
        /* Chains are numbered across the fabric; findings name theirs. */
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(rep, "redirect_chains"), i, e)
            json_object_set_new(e, "chain", json_integer(renumbered(merge_int(e, "chain"), chain_base)));
        json_array_foreach(json_object_get(rep, "findings"), i, e) {
            json_t *d = json_object_get(e, "details");
            if (json_is_integer(json_object_get(d, "chain")))
                json_object_set_new(d, "chain", json_integer(renumbered(merge_int(d, "chain"), chain_base)));
        }
        json_t *caps = json_object_get(rep, "captures");
        json_t *pool = json_object_get(rep, "pool");
        json_array_append_new(hostlist,
                              json_pack("{ss sI sI sO}", "host", hosts[r], "first_capture",
                                        capture_base, "captures", (json_int_t)json_array_size(caps),
                                        "pool", pool));
        json_array_append(pools, pool);
        append_labelled(captures, caps, hosts[r]);
        append_labelled(sources, json_object_get(rep, "sources"), hosts[r]);
        append_labelled(chains, json_object_get(rep, "redirect_chains"), hosts[r]);
        append_labelled(findings, json_object_get(rep, "findings"), hosts[r]);
        json_t *rc = json_object_get(rep, "crc");
        crc_checked &= json_is_true(json_object_get(rc, "checked"));
        append_labelled(crc, json_object_get(rc, "captures"), hosts[r]);
        json_t *fr = json_object_get(rep, "frames");
        add_counts(frames, fr);
        const char *t0 = json_string_value(json_object_get(fr, "first_time"));
        const char *t1 = json_string_value(json_object_get(fr, "last_time"));
        if (t0 && (!first_time || strcmp(t0, first_time) < 0))
            first_time = t0;
        if (t1 && (!last_time || strcmp(t1, last_time) > 0))
            last_time = t1;
        merge_connections(connections, json_object_get(rep, "connections"));
        add_counts(counts, json_object_get(rep, "finding_counts"));
        add_counts(limits, json_object_get(rep, "limits"));
        capture_base += (json_int_t)json_array_size(caps);
        chain_base += (json_int_t)json_array_size(json_object_get(rep, "redirect_chains"));
    }
    json_object_set_new(frames, "first_time", first_time ? json_string(first_time) : json_null());
    json_object_set_new(frames, "last_time", last_time ? json_string(last_time) : json_null());
    sort_findings(findings);
    json_object_set_new(fabric, "version", json_string(version));
    json_object_set_new(fabric, "hosts", hostlist);
    json_object_set_new(fabric, "captures", captures);
    json_object_set_new(fabric, "frames", frames);
    json_object_set_new(fabric, "pools", pools);
    json_object_set_new(fabric, "connections", connections);
    json_object_set_new(fabric, "nearest_exhaustion", nearest_exhaustion(sources));
    json_object_set_new(fabric, "sources", sources);
    json_object_set_new(fabric, "redirect_chains", chains);
    json_object_set_new(fabric, "crc", json_pack("{sb so}", "checked", crc_checked,
                                                "captures", crc));
    json_object_set_new(fabric, "finding_counts", counts);
    json_object_set_new(fabric, "limits", limits);
    json_object_set_new(fabric, "findings", findings);
    return fabric;
}

void merge_write_json(FILE *out, const json_t *fabric)
{
    json_dumpf(fabric, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
}

