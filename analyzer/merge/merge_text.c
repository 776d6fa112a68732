/* merge_text.c - the merged fabric report as text, 80 columns (merge.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "merge.h"
#include "text_wrap.h"

#define WIDTH 80

static void section(FILE *out, const char *title)
{
    fprintf(out, "\n%s\n", title);
}

/* "2:12": the capture (numbered across the fabric) and its frame. */
static void frame_of(const json_t *ref, char *buf, size_t size)
{
    if (!json_is_object(ref) || !merge_int(ref, "frame"))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%" JSON_INTEGER_FORMAT ":%" JSON_INTEGER_FORMAT,
                 merge_int(ref, "capture"), merge_int(ref, "frame"));
}

void merge_write_text(FILE *out, const json_t *fabric)
{
    const json_t *hosts = json_object_get(fabric, "hosts");
    const json_t *sources = json_object_get(fabric, "sources");
    const json_t *findings = json_object_get(fabric, "findings");
    const json_t *chains = json_object_get(fabric, "redirect_chains");
    const json_t *frames = json_object_get(fabric, "frames");
    const json_t *conns = json_object_get(fabric, "connections");
    fprintf(out, "ibscope %s fabric report: %zu hosts\n", merge_str(fabric, "version"),
            json_array_size(hosts));
    /* The host column: as wide as the longest label, within reason. */
    int hw = 4;
    size_t i;
    json_t *h;
    json_array_foreach((json_t *)hosts, i, h) {
        int len = (int)strlen(merge_str(h, "host"));
        hw = len > hw ? (len > 24 ? 24 : len) : hw;
    }

    section(out, "Hosts");
    fprintf(out, "  %-*s %8s %10s %8s %9s  %s\n", hw, "host", "captures", "frames", "sources",
            "findings", "pool");
    json_array_foreach((json_t *)hosts, i, h) {
        const char *name = merge_str(h, "host");
        json_int_t nframes = 0;
        size_t j;
        json_t *c;
        json_array_foreach(json_object_get(fabric, "captures"), j, c)
            if (strcmp(merge_str(c, "host"), name) == 0)
                nframes = merge_add(nframes, merge_int(c, "frames"));
        const json_t *pool = json_object_get(h, "pool");
        fprintf(out, "  %-*s %8" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT " %8"
                     JSON_INTEGER_FORMAT " %9" JSON_INTEGER_FORMAT "  %" JSON_INTEGER_FORMAT
                     "-%" JSON_INTEGER_FORMAT "\n",
                hw, name, merge_int(h, "captures"), nframes, merge_count_host(sources, name, NULL),
                merge_count_host(findings, name, NULL), merge_int(pool, "low"), merge_int(pool, "high"));
    }
    fputs("  Frames are written capture:frame, captures numbered across the fabric.  Each\n"
          "  host's capture is seen on its own: a source captured on two hosts is two\n"
          "  sources here.\n",
          out);

    section(out, "Summary");
    fprintf(out, "  frames %" JSON_INTEGER_FORMAT ", InfiniBand %" JSON_INTEGER_FORMAT
                 "\n  from %s\n  to   %s\n",
            merge_int(frames, "total"), merge_int(frames, "ib"), merge_str(frames, "first_time"),
            merge_str(frames, "last_time"));
    fprintf(out, "  connections: requests %" JSON_INTEGER_FORMAT ", established %"
                 JSON_INTEGER_FORMAT ", rejected %" JSON_INTEGER_FORMAT ",\n  closed %"
                 JSON_INTEGER_FORMAT ", retransmissions %" JSON_INTEGER_FORMAT "\n",
            merge_int(conns, "requests"), merge_int(conns, "established"), merge_int(conns, "rejected"),
            merge_int(conns, "closed"), merge_int(conns, "retransmissions"));
    fprintf(out, "  findings %zu, redirect chains %zu\n", json_array_size(findings),
            json_array_size(chains));

    section(out, "Sources nearest exhaustion (share of each host's own pool)");
    const json_t *near = json_object_get(fabric, "nearest_exhaustion");
    if (!json_array_size(near))
        fputs("  no IP CM connection requests\n", out);
    else
        fprintf(out, "  %-*s %-16s %-5s %6s %7s %9s %8s\n", hw, "host", "source", "space",
                "peak", "pool%", "frame", "per dest");
    json_t *s;
    json_array_foreach((json_t *)near, i, s) {
        char fr[48];
        frame_of(json_object_get(s, "peak_frame"), fr, sizeof fr);
        fprintf(out, "  %-*s %-16s %-5s %6" JSON_INTEGER_FORMAT " %6.1f%s %9s %8"
                     JSON_INTEGER_FORMAT "\n",
                hw, merge_str(s, "host"), merge_str(s, "ip"), merge_str(s, "port_space"),
                merge_int(s, "peak_ports_in_use"),
                json_number_value(json_object_get(s, "pool_utilization")),
                json_is_true(json_object_get(s, "exhausted")) ? "!" : " ", fr,
                merge_int(s, "peak_ports_per_destination"));
    }
    if (json_array_size(sources) > json_array_size(near))
        fprintf(out, "  (the %zu of %zu sources with the most of their pool in use)\n",
                json_array_size(near), json_array_size(sources));

    section(out, "Findings by kind");
    const json_t *counts = json_object_get(fabric, "finding_counts");
    const char *kind;
    json_t *n;
    bool any = false;
    json_object_foreach((json_t *)counts, kind, n) {
        if (!json_integer_value(n))
            continue;
        any = true;
        fprintf(out, "  %-22s %8" JSON_INTEGER_FORMAT "  ", kind, json_integer_value(n));
        const char *sep = "";
        json_array_foreach((json_t *)hosts, i, h) {
            json_int_t c = merge_count_host(findings, merge_str(h, "host"), kind);
            if (c) {
                fprintf(out, "%s%s %" JSON_INTEGER_FORMAT, sep, merge_str(h, "host"), c);
                sep = ", ";
            }
        }
        fputc('\n', out);
    }
    if (!any)
        fputs("  none\n", out);

    if (json_array_size(chains)) {
        section(out, "Redirect chains");
        json_t *c;
        json_array_foreach((json_t *)chains, i, c) {
            char fr[48];
            frame_of(json_object_get(c, "first_request"), fr, sizeof fr);
            json_int_t hops = merge_chain_hops(c);
            fprintf(out, "  chain %" JSON_INTEGER_FORMAT " (%s): %s, request frame %s, %"
                         JSON_INTEGER_FORMAT " redirect%s, %s\n",
                    merge_int(c, "chain"), merge_str(c, "host"), merge_str(c, "mgmt_class_name"),
                    fr, hops, hops == 1 ? "" : "s", ib_chain_end_name(merge_chain_end(c)));
        }
    }

    section(out, "Findings, in time order");
    if (!json_array_size(findings))
        fputs("  none\n", out);
    json_t *f;
    json_array_foreach((json_t *)findings, i, f) {
        char head[96];
        int len = snprintf(head, sizeof head, "  %-*s %" JSON_INTEGER_FORMAT ":%-6"
                           JSON_INTEGER_FORMAT " %-8s ",
                           hw, merge_str(f, "host"), merge_int(f, "capture"), merge_int(f, "frame"),
                           merge_str(f, "severity"));
        fputs(head, out);
        text_wrap(out, merge_str(f, "message"), len > 0 ? (size_t)len : 0, 8, WIDTH);
    }
}
