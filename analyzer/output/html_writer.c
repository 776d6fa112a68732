/* html_writer.c - escaping and plot axes for the HTML report (html_writer.h). */
#include "html_writer.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            /* A control (ESC from a file name) is shown, not passed on raw:
             * \xNN, as the text report and error lines show it. */
            if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
                fprintf(out, "\\x%02X", (unsigned char)*s);
            else
                fputc(*s, out);
        }
    }
}

void html_textf(FILE *out, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    html_text(out, buf);
}

/* Differences in double: a chart's edge may lie past the times a report
 * holds (a projection), and t_max - t_min would overflow an int64_t. */
double plot_x(const struct plot *p, int64_t t)
{
    double span = (double)p->t_max - (double)p->t_min;
    if (span <= 0)
        return p->x;
    double f = ((double)t - (double)p->t_min) / span;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return p->x + f * p->w;
}

double plot_y(const struct plot *p, double v)
{
    if (p->v_max <= 0)
        return p->y + p->h;
    double f = v / p->v_max;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return p->y + p->h - f * p->h;
}

/* A round step near span / 5: 1, 2 or 5 times a power of ten. */
static double tick_step(double span)
{
    if (span <= 0)
        return 1;
    double raw = span / 5, p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void plot_axes(FILE *out, const struct plot *p, const char *value_label)
{
    double bottom = p->y + p->h;
    fprintf(out,
            "<g class=\"axis\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
            p->x, bottom, p->x + p->w, bottom, p->x, p->y, p->x, bottom);
    double span = ((double)p->t_max - (double)p->t_min) / 1e9;
    double step = tick_step(span);
    for (double s = 0; s <= span * 1.0001 && span > 0; s += step) {
        double x = p->x + s / span * p->w;
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>",
                x, bottom, x, bottom + 4, x, bottom + 15, s);
    }
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">s</text>", p->x + p->w,
            bottom + 27);
    double vstep = tick_step(p->v_max);
    if (vstep < 1)
        vstep = 1;
    for (double v = 0; v <= p->v_max * 1.0001 && p->v_max > 0; v += vstep) {
        double y = plot_y(p, v);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>",
                p->x - 4, y, p->x, y, p->x - 6, y + 4, v);
    }
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">", p->x + 4, p->y - 6);
    html_text(out, value_label);
    fputs("</text></g>\n", out);
}

static const char page_style[] =
    ":root{--fg:#1b1b1b;--bg:#fff;--muted:#5a5a5a;--grid:#c8c8c8;--one:#1f5fa8;"
    "--dest:#8a3b00;--warn:#b3261e;--band:rgba(31,95,168,.18);--above:rgba(179,38,30,.12);"
    "--error:#b3261e;--warning:#9a5b00;--note:#1f5fa8;--chat:#5a5a5a;--ok:#2e6b2e}"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--bg:#161616;--muted:#a8a8a8;"
    "--grid:#4a4a4a;--one:#7fb2ff;--dest:#ffb27a;--warn:#ff8a80;--band:rgba(127,178,255,.22);"
    "--above:rgba(255,138,128,.16);--error:#ff8a80;--warning:#ffc46b;--note:#7fb2ff;"
    "--chat:#b0b0b0;--ok:#8fd18f}}"
    "body{font:15px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);"
    "margin:0 auto;max-width:1100px;padding:1em 1.5em}"
    "h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;border-bottom:1px solid var(--grid);"
    "padding-bottom:.2em;margin-top:1.8em}"
    "table{border-collapse:collapse;margin:.5em 0}th,td{padding:.2em .7em;text-align:left;"
    "border-bottom:1px solid var(--grid);vertical-align:top}td.n,th.n{text-align:right;"
    "font-variant-numeric:tabular-nums}th{cursor:default}th[data-sort]{cursor:pointer}"
    "td.sev{white-space:nowrap}.host{color:var(--muted);font-size:.92em}figure{margin:1em "
    "0;break-inside:avoid}figcaption{color:var(--muted);font-size:.92em}"
    "svg{max-width:100%;height:auto;font:11px system-ui,sans-serif}"
    "svg text{fill:var(--fg)}.axis line{stroke:var(--grid)}"
    ".sev-error{color:var(--error)}.sev-warning{color:var(--warning)}"
    ".sev-note{color:var(--note)}.sev-chat{color:var(--chat)}"
    ".pool{stroke:var(--fg);stroke-dasharray:6 3}.threshold{stroke:var(--warn);"
    "stroke-dasharray:2 3}.above{fill:var(--above)}.band{fill:var(--band)}"
    ".one{stroke:var(--one);fill:none;stroke-width:1.6}"
    ".dest{stroke:var(--dest);fill:none;stroke-width:1.6;stroke-dasharray:5 2}"
    ".peak-one{fill:var(--one)}.peak-dest{fill:var(--dest)}"
    ".projection{stroke:var(--fg);fill:none;stroke-width:1.4;stroke-dasharray:8 3 2 3}"
    ".lane rect{opacity:.85}.lane-error rect{fill:var(--error)}"
    ".lane-warning rect{fill:var(--warning)}.lane-note rect{fill:var(--note)}"
    ".lane-chat rect{fill:var(--chat)}"
    ".node rect{fill:var(--bg);stroke:var(--fg)}.node.bad rect{stroke:var(--warn);"
    "stroke-width:2.5;stroke-dasharray:4 2}.edge{stroke:var(--fg);fill:none}"
    ".edge.bad{stroke:var(--warn);stroke-width:2;stroke-dasharray:5 3}"
    ".end{fill:var(--muted)}.end.bad{fill:var(--warn)}"
    ".bar{fill:var(--one)}.bar.rejected{fill:var(--warn)}.hist{fill:var(--one)}"
    ".hist.rtu{fill:var(--dest)}"
    ".tr-request{fill:var(--one)}.tr-resend{stroke:var(--warn);stroke-width:1.8;fill:none}"
    ".tr-ack{fill:var(--ok)}.tr-response{fill:none;stroke:var(--ok);stroke-width:1.4}"
    ".tr-nak{fill:var(--error)}.tr-rnr_nak{fill:var(--warning)}.tr-label{font-size:10px}"
    ".tl-transport_retransmission{fill:var(--one)}.tl-nak{fill:var(--error)}"
    ".tl-rnr_nak{fill:var(--warning)}#filter{margin:.4em 0;padding:.2em .4em;width:20em}"
    /* A setting or a row a finding points at: a triangle and an outline
     * beside the colour, so it reads in grayscale. */
    "td.mismatch{color:var(--warning);font-weight:600;outline:2px dashed var(--warning);"
    "outline-offset:-3px}tr.mark td{color:var(--warning)}.wide{overflow-x:auto}"
    /* The wire audit's wide tables: smaller, each cell on one line. */
    "table.dense{font-size:.86em}table.dense th,table.dense td{padding:.2em .45em}"
    "table.dense td{white-space:nowrap}"
    ".cg-ce rect{fill:var(--warning)}.cg-cnp rect{fill:var(--one)}"
    ".cg-paused rect{fill:var(--dest)}svg text.cg-total{fill:var(--muted)}"
    "svg .cg-storm{fill:var(--warning)}"
    /* Sections off screen are laid out when scrolled to: a page with
     * thousands of rows opens fast. */
    "section{content-visibility:auto;contain-intrinsic-size:auto 900px}"
    "@media print{section{content-visibility:visible}"
    "body{max-width:none;font-size:11px}#filter{display:none}"
    "h2{break-after:avoid}}";

/* Sorting on a header click, numbers as numbers; filtering by text. */
static const char page_script[] =
    "document.querySelectorAll('th[data-sort]').forEach(function(th){"
    "th.addEventListener('click',function(){var t=th.closest('table'),"
    "i=Array.prototype.indexOf.call(th.parentNode.children,th),"
    "num=th.dataset.sort==='n',up=th.dataset.dir!=='up';th.dataset.dir=up?'up':'down';"
    "var rows=Array.prototype.slice.call(t.tBodies[0].rows);rows.sort(function(a,b){"
    "var x=a.cells[i].dataset.v||a.cells[i].textContent,y=b.cells[i].dataset.v||"
    "b.cells[i].textContent;var c=num?(parseFloat(x)-parseFloat(y)):x.localeCompare(y);"
    "return up?c:-c;});rows.forEach(function(r){t.tBodies[0].appendChild(r);});});});"
    "var f=document.getElementById('filter');if(f){f.hidden=false;"
    "f.addEventListener('input',function(){var q=f.value.toLowerCase();"
    "document.querySelectorAll('#findings-table tbody tr').forEach(function(r){"
    "r.hidden=q&&r.textContent.toLowerCase().indexOf(q)<0;});});}";

void html_page_begin(FILE *out, const char *title, const char *version)
{
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta name=\"color-scheme\" content=\"light dark\">"
            "<meta name=\"generator\" content=\"ibscope %s\"><title>",
            version);
    html_text(out, title);
    fprintf(out, "</title><style>%s</style></head><body>\n", page_style);
    /* The arrow heads the chains' edges use. */
    fputs("<svg width=\"0\" height=\"0\" aria-hidden=\"true\" style=\"position:absolute\"><defs>"
          "<marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
          "markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" fill=\"currentColor\"/>"
          "</marker><marker id=\"arrow-bad\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
          "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" "
          "fill=\"#b3261e\"/></marker></defs></svg>\n",
          out);
}

void html_page_end(FILE *out)
{
    fprintf(out, "<script>%s</script>\n</body></html>\n", page_script);
}
