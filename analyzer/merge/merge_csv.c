/* merge_csv.c - the merged fabric report as CSV (RFC 4180, merge.h): a row
 * per finding, then a row per source, in the same columns. */
#include <string.h>

#include "csv_field.h"
#include "merge.h"

#define CRLF "\r\n"

static const char header[] =
    "record,host,capture,capture_path,frame,time,kind,severity,related_capture,related_frame,"
    "message,ip,port_space,connections,peak_ports_in_use,pool_utilization,"
    "peak_ports_per_destination,exhausted" CRLF;

/* A member as its JSON text (numbers, booleans), nothing for null. */
static void value(FILE *out, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (json_is_string(v))
        csv_field(out, json_string_value(v));
    else if (json_is_integer(v))
        fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        fprintf(out, "%.2f", json_real_value(v));
    else if (json_is_boolean(v))
        fputs(json_is_true(v) ? "true" : "false", out);
}

static const char *capture_path(const json_t *fabric, const json_t *capture)
{
    const json_t *c = json_array_get(json_object_get(fabric, "captures"),
                                     (size_t)json_integer_value(capture));
    return json_string_value(json_object_get(c, "path"));
}

void merge_write_csv(FILE *out, const json_t *fabric)
{
    fputs(header, out);
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(fabric, "findings"), i, f) {
        fputs("finding,", out);
        value(out, f, "host");
        fputc(',', out);
        value(out, f, "capture");
        fputc(',', out);
        csv_field(out, capture_path(fabric, json_object_get(f, "capture")));
        const char *keys[] = {"frame", "time", "kind", "severity", "related_capture",
                              "related_frame", "message"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            fputc(',', out);
            value(out, f, keys[k]);
        }
        fputs(",,,,,,," CRLF, out);
    }
    json_t *s;
    json_array_foreach(json_object_get(fabric, "sources"), i, s) {
        fputs("source,", out);
        value(out, s, "host");
        fputs(",,,,,,,,,", out);
        const char *keys[] = {"ip", "port_space", "connections", "peak_ports_in_use",
                              "pool_utilization", "peak_ports_per_destination", "exhausted"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            fputc(',', out);
            value(out, s, keys[k]);
        }
        fputs(CRLF, out);
    }
}
