/* report_csv_values.c - the report's members as CSV cells (report_csv_values.h). */
#include "report_csv_values.h"

#include <inttypes.h>
#include <string.h>

#include "csv_field.h"
#include "ipcm.h"
#include "report_format.h"

bool cv_cell(const struct rs_member *mb)
{
    return mb->kind != RS_ENDPOINT && mb->kind != RS_OBJECT && mb->kind != RS_VARIANT &&
           mb->kind != RS_RECORDS &&
           (mb->kind != RS_CODEC || mb->codec == RS_CODEC_REJECT_REASON ||
            mb->codec == RS_CODEC_SETUP_NS || mb->codec == RS_CODEC_SEEN_AT);
}

/* The codecs a CSV shows: a connection's reject reason, its setup latency,
 * the captures that showed it (separated by ';'). */
static void codec_cell(FILE *out, const struct rs_member *mb, const void *obj)
{
    const struct ib_connection_record *rec = obj;
    int64_t lat;
    bool first = true;
    switch (mb->codec) {
    case RS_CODEC_REJECT_REASON:
        if (rec->rej.frame != 0)
            fprintf(out, "%u", (unsigned)rec->reject_reason);
        break;
    case RS_CODEC_SETUP_NS:
        if (report_connection_latency(rec, &lat))
            fprintf(out, "%" PRId64, lat);
        break;
    case RS_CODEC_SEEN_AT:
        for (unsigned i = 0; i < 64; i++)
            if (rec->seen_at & (1ull << i)) {
                fprintf(out, "%s%u", first ? "" : ";", i);
                first = false;
            }
        break;
    default: break;
    }
}

/* A number with the row's decimals (trim: no trailing zeros). */
static void real_cell(FILE *out, const struct rs_member *mb, const void *p)
{
    double v;
    char b[512]; /* DBL_MAX with 17 decimals */
    memcpy(&v, p, sizeof v);
    int n = snprintf(b, sizeof b, "%.*f", mb->decimals, v);
    if (mb->trim && n > 0 && (size_t)n < sizeof b && strchr(b, '.')) {
        while (b[n - 1] == '0')
            b[--n] = '\0';
        if (b[n - 1] == '.')
            b[--n] = '\0';
    }
    fputs(b, out);
}

/* A frame number; "capture:frame" when several captures were given. */
static void frame_cell(FILE *out, const struct report_model *m, const struct ib_frame_ref *f)
{
    char buf[32];
    if (f->frame != 0) {
        fmt_frame(f, m->capture_count, buf, sizeof(buf));
        fputs(buf, out);
    }
}

void cv_member(FILE *out, const struct report_model *m, const struct rs_member *mb,
               const void *object, const struct rs_place *at)
{
    const char *obj = object;
    const void *p = obj + mb->at;
    char b[RS_TEXT_MAX];
    int64_t i64;
    const char *name;
    if (!rs_has(mb, obj) || (mb->present && !mb->present(obj)))
        return;
    switch (mb->kind) {
    case RS_UINT:
    case RS_CAPTURE:
    case RS_FRAME_NUMBER: fprintf(out, "%" PRIu64, rs_uint_at(p, mb->size)); break;
    case RS_INT: memcpy(&i64, p, sizeof i64), fprintf(out, "%" PRId64, i64); break;
    case RS_TIME:
        memcpy(&i64, p, sizeof i64), fmt_time_rfc3339(i64, b, sizeof b), fputs(b, out);
        break;
    case RS_BOOL: fputs(*(const bool *)p ? "true" : "false", out); break;
    case RS_FRAME: frame_cell(out, m, p); break;
    case RS_IP:
        ib_format_ip(*(const uint8_t *)(obj + mb->aux), p, b, sizeof b), fputs(b, out);
        break;
    case RS_PORT_SPACE: fmt_port_space((uint16_t)rs_uint_at(p, 2), b), fputs(b, out); break;
    case RS_REAL: real_cell(out, mb, p); break;
    case RS_STRING: csv_field(out, *(const char *const *)p); break;
    case RS_HEX64: fprintf(out, "0x%016" PRIx64, rs_uint_at(p, 8)); break;
    case RS_ENUM:
        name = mb->names->name((unsigned)rs_uint_at(p, mb->size));
        if (name)
            fputs(name, out);
        else
            fprintf(out, "%" PRIu64, rs_uint_at(p, mb->size));
        break;
    case RS_TEXT: csv_field(out, mb->text(obj, b, sizeof b)); break;
    case RS_INDEX: fprintf(out, "%" PRIu64, at->index); break;
    case RS_CODEC: codec_cell(out, mb, obj); break;
    default: break; /* not a scalar: not a column */
    }
}
