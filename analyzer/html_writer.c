/* html_writer.c - escaping and plot axes for the HTML report (html_writer.h). */
#include "html_writer.h"

#include <math.h>
#include <stdarg.h>

void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
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

double plot_x(const struct plot *p, int64_t t)
{
    double span = (double)(p->t_max - p->t_min);
    if (span <= 0)
        return p->x;
    double f = (double)(t - p->t_min) / span;
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
    fprintf(out, "<g class=\"axis\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
            p->x, bottom, p->x + p->w, bottom, p->x, p->y, p->x, bottom);
    double span = (double)(p->t_max - p->t_min) / 1e9;
    double step = tick_step(span);
    for (double s = 0; s <= span * 1.0001 && span > 0; s += step) {
        double x = p->x + s / span * p->w;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
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
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>",
                p->x - 4, y, p->x, y, p->x - 6, y + 4, v);
    }
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">", p->x + 4, p->y - 6);
    html_text(out, value_label);
    fputs("</text></g>\n", out);
}
