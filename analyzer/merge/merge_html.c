/* merge_html.c - the merged fabric report as one page (merge.h), in the
 * HTML report's frame (html_writer.h): the hosts, totals, the sources
 * nearest exhaustion as bars against their pool, findings per kind and
 * host, the redirect chains, the findings in time order.  Each figure
 * carries its numbers as data-* attributes, as the single report's do.
 */
#include <stdbool.h>
#include <string.h>

#include "finding.h"
#include "html_writer.h"
#include "merge.h"



static void write_hosts(FILE *out, const json_t *fabric)
{
    const json_t *findings = json_object_get(fabric, "findings");
    const json_t *sources = json_object_get(fabric, "sources");
    fputs("<section id=\"hosts\"><h2>Hosts</h2><table><thead><tr><th data-sort=\"s\">host</th>"
          "<th class=\"n\" data-sort=\"n\">captures</th><th class=\"n\" data-sort=\"n\">"
          "sources</th><th class=\"n\" data-sort=\"n\">findings</th><th>pool</th></tr></thead>"
          "<tbody>\n",
          out);
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(fabric, "hosts"), i, h) {
        const char *name = merge_str(h, "host");
        const json_t *pool = json_object_get(h, "pool");
        json_int_t nf = merge_count_host(findings, name, NULL);
        fputs("<tr data-host=\"", out);
        html_text(out, name);
        fprintf(out, "\" data-findings=\"%" JSON_INTEGER_FORMAT "\"><td>", nf);
        html_text(out, name);
        fprintf(out, "</td><td class=\"n\">%" JSON_INTEGER_FORMAT "</td><td class=\"n\">%"
                     JSON_INTEGER_FORMAT "</td><td class=\"n\">%" JSON_INTEGER_FORMAT "</td><td>%"
                     JSON_INTEGER_FORMAT "-%" JSON_INTEGER_FORMAT "</td></tr>\n",
                merge_int(h, "captures"), merge_count_host(sources, name, NULL), nf, merge_int(pool, "low"),
                merge_int(pool, "high"));
    }
    const json_t *fr = json_object_get(fabric, "frames");
    const json_t *c = json_object_get(fabric, "connections");
    fputs("</tbody></table><p>", out);
    html_textf(out, "%" JSON_INTEGER_FORMAT " frames (%" JSON_INTEGER_FORMAT
                    " InfiniBand) from %s to %s; %" JSON_INTEGER_FORMAT
                    " connection requests, %" JSON_INTEGER_FORMAT " established, %"
                    JSON_INTEGER_FORMAT " rejected.",
               merge_int(fr, "total"), merge_int(fr, "ib"), merge_str(fr, "first_time"),
               merge_str(fr, "last_time"), merge_int(c, "requests"), merge_int(c, "established"),
               merge_int(c, "rejected"));
    fputs(" A merge sees each host's capture on its own: a source captured on two hosts is "
          "two sources here, and what one host's traffic did to another's is not seen.</p>"
          "</section>\n",
          out);
}

static void write_nearest(FILE *out, const json_t *fabric)
{
    const json_t *near = json_object_get(fabric, "nearest_exhaustion");
    fputs("<section id=\"nearest\"><h2>Sources nearest exhaustion</h2>\n", out);
    size_t n = json_array_size(near);
    if (!n) {
        fputs("<p>No IP CM connection requests.</p></section>\n", out);
        return;
    }
    double row = 24, height = 30 + n * row;
    fprintf(out, "<figure><svg viewBox=\"0 0 1060 %.0f\" role=\"img\" aria-labelledby=\"nt nd\">"
                 "<title id=\"nt\">Sources nearest exhaustion</title><desc id=\"nd\">The %zu "
                 "sources with the largest share of their host's port pool in use at their "
                 "peak, one port per connection.</desc>\n",
            height, n);
    size_t i;
    json_t *s;
    json_array_foreach((json_t *)near, i, s) {
        double pct = json_number_value(json_object_get(s, "pool_utilization"));
        double y = 10 + i * row, w = 480 * (pct > 100 ? 100 : pct) / 100;
        const json_t *pf = json_object_get(s, "peak_frame");
        fputs("<g data-host=\"", out);
        html_text(out, merge_str(s, "host"));
        fputs("\" data-source=\"", out);
        html_textf(out, "%s %s", merge_str(s, "ip"), merge_str(s, "port_space"));
        fprintf(out, "\" data-peak=\"%" JSON_INTEGER_FORMAT "\" data-pool-pct=\"%.2f\">"
                     "<text x=\"290\" y=\"%.1f\" text-anchor=\"end\">",
                merge_int(s, "peak_ports_in_use"), pct, y + 14);
        html_textf(out, "%s: %s %s", merge_str(s, "host"), merge_str(s, "ip"), merge_str(s, "port_space"));
        fprintf(out, "</text><rect x=\"300\" y=\"%.1f\" width=\"480\" height=\"18\" "
                     "class=\"above\"/><rect class=\"bar%s\" x=\"300\" y=\"%.1f\" width=\"%.1f\" "
                     "height=\"18\"/><text x=\"%.1f\" y=\"%.1f\">",
                y, json_is_true(json_object_get(s, "exhausted")) ? " rejected" : "", y,
                w < 1 ? 1 : w, 788.0, y + 14);
        html_textf(out, "%" JSON_INTEGER_FORMAT " (%.1f%%) frame %" JSON_INTEGER_FORMAT ":%"
                        JSON_INTEGER_FORMAT "%s",
                   merge_int(s, "peak_ports_in_use"), pct, merge_int(pf, "capture"),
                   merge_int(pf, "frame"),
                   json_is_true(json_object_get(s, "exhausted")) ? " \xe2\x9c\x97 exhausted" : "");
        fputs("</text></g>\n", out);
    }
    fputs("</svg><figcaption>Peak ports in use, one port per connection, as a share of each "
          "host's own pool (the light bar is the whole pool); \xe2\x9c\x97 marks an exhausted "
          "pool. Frames are written capture:frame, captures numbered across the fabric."
          "</figcaption></figure></section>\n",
          out);
}

static void write_kinds(FILE *out, const json_t *fabric)
{
    const json_t *hosts = json_object_get(fabric, "hosts");
    const json_t *findings = json_object_get(fabric, "findings");
    fputs("<section id=\"kinds-by-host\"><h2>Findings by kind and host</h2>\n<table id=\"kinds\">"
          "<thead><tr><th>kind</th><th class=\"n\">all</th>",
          out);
    size_t i;
    json_t *h;
    json_array_foreach((json_t *)hosts, i, h) {
        fputs("<th class=\"n\">", out);
        html_text(out, merge_str(h, "host"));
        fputs("</th>", out);
    }
    fputs("</tr></thead><tbody>\n", out);
    const char *kind;
    json_t *n;
    bool any = false;
    json_object_foreach(json_object_get(fabric, "finding_counts"), kind, n) {
        if (!json_integer_value(n))
            continue;
        any = true;
        enum ib_finding_kind k = ib_finding_kind_by_name(kind);
        enum ib_severity sev = ib_finding_kind_severity(k);
        fprintf(out, "<tr class=\"sev-%s\" data-kind=\"", ib_severity_name(sev));
        html_text(out, kind);
        fprintf(out, "\" data-count=\"%" JSON_INTEGER_FORMAT "\"><td>%s ", json_integer_value(n),
                html_severity_mark(sev));
        html_text(out, kind);
        fprintf(out, "</td><td class=\"n\">%" JSON_INTEGER_FORMAT "</td>", json_integer_value(n));
        json_array_foreach((json_t *)hosts, i, h)
            fprintf(out, "<td class=\"n\">%" JSON_INTEGER_FORMAT "</td>",
                    merge_count_host(findings, merge_str(h, "host"), kind));
        fputs("</tr>\n", out);
    }
    if (!any)
        fputs("<tr><td colspan=\"2\">no findings</td></tr>\n", out);
    fputs("</tbody></table></section>\n", out);
}

static void write_chains(FILE *out, const json_t *fabric)
{
    const json_t *chains = json_object_get(fabric, "redirect_chains");
    if (!json_array_size(chains))
        return;
    fputs("<section id=\"chains\"><h2>Redirect chains</h2><table><thead><tr><th>chain</th>"
          "<th>host</th><th>class</th><th class=\"n\">redirects</th><th>end</th></tr></thead>"
          "<tbody>\n",
          out);
    size_t i;
    json_t *c;
    json_array_foreach((json_t *)chains, i, c) {
        json_int_t hops = merge_chain_hops(c);
        enum ib_chain_end end = merge_chain_end(c);
        fprintf(out, "<tr data-chain=\"%" JSON_INTEGER_FORMAT "\" data-hops=\"%" JSON_INTEGER_FORMAT
                     "\"><td class=\"n\">%" JSON_INTEGER_FORMAT "</td><td>",
                merge_int(c, "chain"), hops, merge_int(c, "chain"));
        html_text(out, merge_str(c, "host"));
        fputs("</td><td>", out);
        html_text(out, merge_str(c, "mgmt_class_name"));
        fprintf(out, "</td><td class=\"n\">%" JSON_INTEGER_FORMAT "</td><td%s>%s</td></tr>\n",
                hops, end != IB_CHAIN_ANSWERED ? " class=\"sev-warning\"" : "",
                ib_chain_end_name(end));
    }
    fputs("</tbody></table></section>\n", out);
}

static void write_findings(FILE *out, const json_t *fabric)
{
    const json_t *findings = json_object_get(fabric, "findings");
    size_t n = json_array_size(findings);
    fputs("<section id=\"findings\"><h2>Findings, in time order</h2>\n", out);
    if (!n) {
        fputs("<p>No findings.</p></section>\n", out);
        return;
    }
    fputs("<input id=\"filter\" type=\"search\" placeholder=\"filter the table\" hidden "
          "aria-label=\"filter the findings\">\n<table id=\"findings-table\"><thead><tr>"
          "<th data-sort=\"s\">host</th><th class=\"n\" data-sort=\"n\">frame</th>"
          "<th data-sort=\"s\">time</th><th data-sort=\"s\">kind</th><th data-sort=\"s\">"
          "severity</th><th data-sort=\"s\">message</th></tr></thead><tbody>\n",
          out);
    size_t i;
    json_t *f;
    json_array_foreach((json_t *)findings, i, f) {
        if (i >= HTML_FINDINGS_LISTED)
            break;
        const char *sev = merge_str(f, "severity");
        fputs("<tr class=\"sev-", out);
        html_text(out, sev);
        fputs("\" data-kind=\"", out);
        html_text(out, merge_str(f, "kind"));
        fputs("\"><td>", out);
        html_text(out, merge_str(f, "host"));
        fprintf(out, "</td><td class=\"n\" data-v=\"%zu\">%" JSON_INTEGER_FORMAT ":%"
                     JSON_INTEGER_FORMAT "</td><td>",
                i, merge_int(f, "capture"), merge_int(f, "frame"));
        html_text(out, merge_str(f, "time"));
        fputs("</td><td>", out);
        html_text(out, merge_str(f, "kind"));
        fputs("</td><td class=\"sev\">", out);
        html_text(out, sev);
        fputs("</td><td>", out);
        html_text(out, merge_str(f, "message"));
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    if (n > HTML_FINDINGS_LISTED)
        fprintf(out, "<p>The table lists the first %d findings of %zu; the JSON merge lists "
                     "every one.</p>\n",
                HTML_FINDINGS_LISTED, n);
    fputs("</section>\n", out);
}

void merge_write_html(FILE *out, const json_t *fabric)
{
    const char *version = merge_str(fabric, "version");
    html_page_begin(out, "ibscope fabric report", version);
    fputs("<header><h1>ibscope fabric report</h1><p>", out);
    html_textf(out, "ibscope %s, %zu hosts merged.", version,
               json_array_size(json_object_get(fabric, "hosts")));
    fputs("</p></header>\n", out);
    write_hosts(out, fabric);
    write_nearest(out, fabric);
    write_kinds(out, fabric);
    write_chains(out, fabric);
    write_findings(out, fabric);
    html_page_end(out);
}
