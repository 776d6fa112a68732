/* fuzz_merge.c - `ibscope merge` on hostile report text.
 *
 * The input is read as a JSON document (jansson) and checked as a report,
 * with its own "version" taken as this one's so that the check can pass.
 * A document that passes is merged with a copy of itself, as two hosts, and
 * the fabric written in every format (text, JSON, CSV, HTML) to /dev/null:
 * whatever the values inside (strings for numbers, negative or huge capture
 * numbers, missing members), nothing may read out of bounds or crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    json_error_t err;
    json_t *a = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &err);
    if (!a)
        return 0;
    const char *version = json_string_value(json_object_get(a, "version"));
    char why[256];
    if (!version || merge_check_report(a, version, why, sizeof why)) {
        json_decref(a);
        return 0;
    }
    char *own = strdup(version);
    json_t *b = json_deep_copy(a);
    if (!own || !b)
        abort();
    json_t *reports[2] = {a, b};
    char h1[] = "host-a", h2[] = "host-b";
    char *hosts[2] = {h1, h2};
    json_t *fabric = merge_combine(reports, hosts, 2, own);
    merge_write_text(sink, fabric);
    merge_write_json(sink, fabric);
    merge_write_csv(sink, fabric);
    merge_write_html(sink, fabric);
    json_decref(fabric);
    json_decref(a);
    json_decref(b);
    free(own);
    return 0;
}
