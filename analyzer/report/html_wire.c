/* html_wire.c - the HTML report's wire settings (html_wire.h).
 *
 * A row per direction: what its data packets carried, a setting that
 * changed as its values with their packets ("26×1000, 0×3", the text
 * report's words).  A cell is marked where one of the audit's findings
 * points at it, so that the page shows what the findings table says, not
 * a rule of its own: each finding names its frame and the destination QP,
 * which find its direction (the mark's why is in the cell's tooltip).
 * Marked cells carry a triangle beside the colour, so they read in
 * grayscale, and data-mismatch with the finding's kind for the tests. */
#include "html_wire.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_writer.h"
#include "report_format.h"
#include "wire_class.h"

#define WARN_MARK "\xe2\x96\xb2" /* the warning's triangle: every audit finding is one */

/* The table's setting cells, in the reports' order: the first
 * IB_WIRE_FIELD_COUNT are the settings (enum ib_wire_field), then the CM's
 * path MTU and the largest payload. */
enum { CELL_MTU = IB_WIRE_FIELD_COUNT, CELL_PAYLOAD, CELLS };

static const struct cell_kind {
    const char *key, *header; /* data-setting (the JSON's key), the column's */
    int marked_by;            /* the finding kind that marks it, -1: none */
    const char *why;
} cells[CELLS] = {
    [IB_WIRE_DSCP] = { "dscp", "DSCP", IB_FIND_ASYMMETRIC_CLASS,
                       "the other direction's first packet has another DSCP" },
    [IB_WIRE_ECN] = { "ecn", "ECN", IB_FIND_NOT_ECT,
                      "Not-ECT data where the capture has ECN-capable data" },
    [IB_WIRE_PRIORITY] = { "priority", "priority", IB_FIND_ASYMMETRIC_CLASS,
                           "the other direction's first packet has another priority" },
    [IB_WIRE_VERSION] = { "version", "version", IB_FIND_ROCE_VERSION_MIX,
                          "RoCEv1 and RoCEv2 in one conversation" },
    [IB_WIRE_GID_KIND] = { "gid_kind", "GID kind", -1, NULL },
    [CELL_MTU] = { "path_mtu", "path MTU", IB_FIND_MTU_EXCEEDED,
                   "a full packet needs more than the 1500-byte link carries" },
    [CELL_PAYLOAD] = { "max_payload", "largest payload", IB_FIND_MTU_EXCEEDED,
                       "a payload above the path MTU" },
};

/* A finding that marks a cell: its frame, what the cell is. */
struct wire_mark {
    struct ib_frame_ref at, related;
    uint32_t dest_qp; /* 0 for mtu_exceeded's link form: a CM REQ */
    uint8_t cell;
    uint8_t value; /* roce_version_mix: the frame's version (IB_WIRE_ROCEV1, _ROCEV2) */
};

struct html_wire {
    struct wire_mark *marks;
    size_t count;
    uint64_t dropped; /* past HTML_WIRE_MARKS */
};

struct html_wire *html_wire_new(void)
{
    struct html_wire *w = calloc(1, sizeof *w);
    if (w && !(w->marks = calloc(HTML_WIRE_MARKS, sizeof *w->marks))) {
        free(w);
        return NULL;
    }
    return w;
}

void html_wire_free(struct html_wire *w)
{
    if (w)
        free(w->marks);
    free(w);
}

void html_wire_finding(struct html_wire *w, const struct ib_finding *f)
{
    struct wire_mark k = { f->at, f->related, f->data.dest_qp, 0, f->data.value };
    switch (f->kind) {
    case IB_FIND_ASYMMETRIC_CLASS: k.cell = f->data.class_field; break;
    case IB_FIND_NOT_ECT: k.cell = IB_WIRE_ECN; break;
    case IB_FIND_ROCE_VERSION_MIX: k.cell = IB_WIRE_VERSION; break;
    case IB_FIND_MTU_EXCEEDED:
        k.cell = f->related.frame ? CELL_PAYLOAD : CELL_MTU;
        k.dest_qp = k.cell == CELL_MTU ? 0 : k.dest_qp; /* a REQ's: sorted by its frame */
        break;
    default: return;
    }
    if (w->count == HTML_WIRE_MARKS)
        w->dropped++;
    else
        w->marks[w->count++] = k;
}

/* ---- which direction a finding points at ---- */

/* The marks by destination QP, then mtu_exceeded's link form (no QP) by
 * its REQ's frame: each direction finds its own by two searches. */
static int mark_order(const void *a, const void *b)
{
    const struct wire_mark *x = a, *y = b;
    bool lx = x->cell == CELL_MTU, ly = y->cell == CELL_MTU;
    if (lx != ly)
        return lx ? 1 : -1;
    if (x->dest_qp != y->dest_qp)
        return x->dest_qp < y->dest_qp ? -1 : 1;
    if (x->at.capture != y->at.capture)
        return x->at.capture < y->at.capture ? -1 : 1;
    return x->at.frame < y->at.frame ? -1 : x->at.frame > y->at.frame;
}

/* The first mark not before key. */
static size_t lower_bound(const struct html_wire *hw, const struct wire_mark *key)
{
    size_t lo = 0, hi = hw->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mark_order(&hw->marks[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool same_frame(const struct ib_frame_ref *a, const struct ib_frame_ref *b)
{
    return a->capture == b->capture && a->frame == b->frame;
}

/* Whether the direction's setting had the value (or values not kept). */
static bool carried(const struct report_wire *w, unsigned field, uint8_t value)
{
    const struct ib_wire_mix *mix = &w->dir.fields[field];
    for (uint32_t i = 0; i < mix->count; i++)
        if (w->values[field][i].known && w->values[field][i].value == value)
            return true;
    return mix->other != 0;
}

/* Whether mark k (of the direction's destination QP) is on a packet of
 * direction i: asymmetric_class is on its first packet; mtu_exceeded's
 * path form on a packet of the connection its REQ set up; not_ect and
 * roce_version_mix on a packet of the direction to that QP that carried
 * the value by then (on the same host, in a merge). */
static bool mark_fits(const struct report_model *m, const struct report_wire *w, size_t i,
                      const struct wire_mark *k)
{
    const struct ib_wire_direction *d = &w->dir;
    switch (k->cell) {
    case IB_WIRE_DSCP:
    case IB_WIRE_PRIORITY: return same_frame(&d->first, &k->at);
    case CELL_PAYLOAD: return d->has_pair && same_frame(&d->req, &k->related);
    default: break;
    }
    if (m->host_count && report_capture_host(m, k->at.capture) != &m->hosts[m->wire_host[i]])
        return false;
    if (d->packets == 0 || d->first.time_ns > k->at.time_ns)
        return false;
    return k->cell == IB_WIRE_ECN ? carried(w, IB_WIRE_ECN, IB_ECN_NOT_ECT)
                                  : carried(w, IB_WIRE_VERSION, k->value);
}

/* Direction i's marked cells into bits[] (asymmetric_class marks the
 * other direction's cell too: the two differ from each other). */
static void mark_direction(const struct report_model *m, const struct html_wire *hw,
                           const struct report_wire *w, size_t i, uint8_t *bits)
{
    const struct ib_wire_direction *d = &w->dir;
    struct wire_mark key = { .dest_qp = d->qpn };
    for (size_t j = lower_bound(hw, &key);
         j < hw->count && hw->marks[j].cell != CELL_MTU && hw->marks[j].dest_qp == d->qpn; j++) {
        const struct wire_mark *k = &hw->marks[j];
        if (!mark_fits(m, w, i, k))
            continue;
        bits[i] |= (uint8_t)(1u << k->cell);
        if (k->cell == IB_WIRE_DSCP || k->cell == IB_WIRE_PRIORITY)
            if (d->has_pair && d->pair < m->wire_count)
                bits[d->pair] |= (uint8_t)(1u << k->cell);
    }
    if (!d->has_pair)
        return;
    key = (struct wire_mark){ .at = d->req, .cell = CELL_MTU };
    for (size_t j = lower_bound(hw, &key); j < hw->count && same_frame(&hw->marks[j].at, &d->req);
         j++)
        bits[i] |= 1u << CELL_MTU;
}

/* Each direction's marked cells, a bit per cell; NULL: out of memory. */
static uint8_t *mark_cells(const struct report_model *m, struct html_wire *hw)
{
    uint8_t *bits = calloc(m->wire_count ? m->wire_count : 1, 1);
    if (!bits || !hw->count)
        return bits;
    qsort(hw->marks, hw->count, sizeof *hw->marks, mark_order);
    struct report_wire buf;
    for (size_t i = 0; i < m->wire_count; i++)
        mark_direction(m, hw, report_wire(m, i, &buf), i, bits);
    return bits;
}

/* ---- the table ---- */

/* One setting's cell: what it shows in data-value too, a marked one with
 * the finding's kind and why. */
static void setting_cell(FILE *out, unsigned cell, const char *text, uint8_t bits)
{
    const struct cell_kind *c = &cells[cell];
    bool marked = bits >> cell & 1, number = cell >= CELL_MTU;
    fprintf(out, "<td data-setting=\"%s\" data-value=\"", c->key);
    html_text(out, text);
    fputs("\"", out);
    if (marked) {
        const char *kind = ib_finding_kind_name((enum ib_finding_kind)c->marked_by);
        fprintf(out, " class=\"%smismatch\" data-mismatch=\"%s\" title=\"%s: %s\">" WARN_MARK " ",
                number ? "n " : "", kind, kind, c->why);
    } else {
        fputs(number ? " class=\"n\">" : ">", out);
    }
    /* A mix's values one a line: the table stays narrow. */
    char value[WIRE_VALUES_BUF];
    for (const char *at = text, *sep; *at; at = sep ? sep + 2 : at + strlen(at)) {
        sep = strstr(at, ", ");
        size_t len = sep ? (size_t)(sep - at) : strlen(at);
        snprintf(value, sizeof value, "%.*s", (int)len, at);
        html_text(out, value);
        if (sep)
            fputs("<br>", out);
    }
    fputs("</td>", out);
}

static void wire_row(FILE *out, const struct report_model *m, const struct report_wire *w, size_t i,
                     uint8_t bits)
{
    const struct ib_wire_direction *d = &w->dir;
    char src[64], dst[64], pair[16] = "-", text[WIRE_VALUES_BUF];
    fmt_node(&d->src, src, sizeof src);
    fmt_node(&d->dst, dst, sizeof dst);
    if (d->has_pair)
        snprintf(pair, sizeof pair, "%" PRIu32, d->pair);
    fprintf(out,
            "<tr data-dir=\"%zu\" data-pair=\"%s\" data-qpn=\"%" PRIu32 "\" data-packets=\"%" PRIu64
            "\"><td class=\"n\">%zu</td>",
            i, d->has_pair ? pair : "", d->qpn, d->packets, i);
    if (m->host_count) {
        fputs("<td>", out);
        html_text(out, m->hosts[m->wire_host[i]].name);
        fputs("</td>", out);
    }
    /* Two lines: a GID is long, and the settings need the room. */
    fputs("<td class=\"ends\">", out);
    html_text(out, src);
    fputs("<br>\xe2\x86\x92 ", out);
    html_text(out, dst);
    fprintf(out,
            "</td><td>0x%06" PRIx32 "</td><td class=\"n\">%s</td><td class=\"n\">%" PRIu64 "</td>",
            d->qpn, pair, d->packets);
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++) {
        fmt_wire_values(f, &d->fields[f], w->values[f], text, sizeof text);
        setting_cell(out, f, text, bits);
    }
    snprintf(text, sizeof text, "-");
    if (d->has_pair)
        snprintf(text, sizeof text, "%" PRIu32, d->path_mtu);
    setting_cell(out, CELL_MTU, text, bits);
    snprintf(text, sizeof text, "%" PRIu32, d->max_payload);
    setting_cell(out, CELL_PAYLOAD, text, bits);
    fputs("</tr>\n", out);
}

/* What is listed: directions that carried data or have a marked cell. */
struct wire_listing {
    size_t shown, marked;      /* directions to show, of them marked */
    size_t marked_slots, rest; /* rows for the marked, for the others */
};

static void listing_of(const struct report_model *m, const uint8_t *bits, struct wire_listing *l)
{
    struct report_wire buf;
    memset(l, 0, sizeof *l);
    for (size_t i = 0; i < m->wire_count; i++) {
        if (bits[i])
            l->marked++;
        if (bits[i] || report_wire(m, i, &buf)->dir.packets)
            l->shown++;
    }
    l->marked_slots = l->marked < HTML_WIRE_LISTED ? l->marked : HTML_WIRE_LISTED;
    l->rest = HTML_WIRE_LISTED - l->marked_slots;
}

static void write_head(FILE *out, const struct report_model *m)
{
    fputs("<div class=\"wide\"><table id=\"settings-table\" class=\"dense\"><thead><tr><th "
          "class=\"n\">#</th>",
          out);
    if (m->host_count)
        fputs("<th>host</th>", out);
    fputs("<th>source \xe2\x86\x92 destination</th><th>QPN</th><th class=\"n\">pair</th>"
          "<th class=\"n\">packets</th>",
          out);
    for (unsigned c = 0; c < CELLS; c++)
        fprintf(out, "<th%s>%s</th>", c >= CELL_MTU ? " class=\"n\"" : "", cells[c].header);
    fputs("</tr></thead><tbody>\n", out);
}

static void write_rows(FILE *out, const struct report_model *m, const uint8_t *bits,
                       const struct wire_listing *l, size_t *listed)
{
    struct report_wire buf;
    size_t marked = 0, rest = 0;
    for (size_t i = 0; i < m->wire_count; i++) {
        if (bits[i] ? marked == l->marked_slots : rest == l->rest)
            continue;
        const struct report_wire *w = report_wire(m, i, &buf);
        if (!bits[i] && !w->dir.packets)
            continue;
        wire_row(out, m, w, i, bits[i]);
        *(bits[i] ? &marked : &rest) += 1;
    }
    *listed = marked + rest;
}

static void write_notes(FILE *out, const struct wire_listing *l, size_t listed,
                        const struct html_wire *hw)
{
    const char *which = !l->marked                    ? "the first in order"
                        : l->marked > l->marked_slots ? "the first with a marked setting"
                                                      : "every one with a marked setting, then "
                                                        "the others in order";
    if (l->shown > listed)
        fprintf(out,
                "<p id=\"settings-left-out\" data-not-listed=\"%zu\">%zu of %zu directions are "
                "listed: %s. The JSON report's settings[] has every one.</p>\n",
                l->shown - listed, listed, l->shown, which);
    if (hw->dropped)
        fprintf(out,
                "<p id=\"settings-marks-dropped\" data-marks-dropped=\"%" PRIu64 "\">Settings are "
                "marked by the first %d findings of these kinds; %" PRIu64 " more are counted "
                "in the summary, not marked here.</p>\n",
                hw->dropped, HTML_WIRE_MARKS, hw->dropped);
}

void html_wire_section(FILE *out, const struct report_model *m, struct html_wire *hw)
{
    if (!m->wire_count)
        return;
    uint8_t *bits = mark_cells(m, hw);
    struct wire_listing l;
    if (!bits) {
        fputs("<section id=\"settings\"><h2>Wire settings</h2><p>Out of memory for the table."
              "</p></section>\n",
              out);
        return;
    }
    listing_of(m, bits, &l);
    if (l.shown) {
        size_t listed;
        fputs("<section id=\"settings\"><h2>Wire settings</h2>\n<p>What each direction's data "
              "packets carried (a setting that changed: each value with its packets). " WARN_MARK
              " marks a setting a finding points at: asymmetric_class (DSCP or "
              "priority unlike the other direction's), not_ect (ECN), roce_version_mix "
              "(version), mtu_exceeded (path MTU, largest payload); the tooltip says why.</p>\n",
              out);
        write_head(out, m);
        write_rows(out, m, bits, &l, &listed);
        fputs("</tbody></table></div>\n", out);
        write_notes(out, &l, listed, hw);
        fputs("</section>\n", out);
    }
    free(bits);
}
