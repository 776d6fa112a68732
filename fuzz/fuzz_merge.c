/* fuzz_merge.c - `ibscope merge` on hostile report text.
 *
 * The input is read as a report by the merge's own reader (json_pull.c,
 * merge_read.c), its version taken whatever it is.  A report that passes
 * is read again as a second host, and the fabric rendered by every
 * renderer (text, CSV, HTML) to /dev/null: whatever the values inside,
 * nothing may read out of bounds or crash, and a refusal must say why.
 * The JSON rendering is read back by the same pull reader: whatever a
 * report held, the merge must write JSON (no member without its value).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_target.h"
#include "json_pull.h"
#include "merge.h"

/* The merge's JSON, in memory, read back token by token to its end. */
static void json_round_trip(struct merge *mg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    int err = merge_render(mg, &report_json, out);
    if (fclose(out) != 0 || err)
        fuzz_fail("merge: the JSON rendering failed (%d)", err);
    FILE *in = fmemopen(text, len, "r");
    if (!in)
        abort();
    static struct json_pull jp; /* 80 KB: not on the stack */
    enum jp_type t;
    jp_init(&jp, in);
    if (!jp_value(&jp, &t) || t != JP_OBJECT || !jp_skip(&jp, t) || !jp_finish(&jp))
        fuzz_fail("merge: its JSON does not read back: %s", jp.error);
    fclose(in);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct report_renderer *const views[] = { &report_text, &report_csv,
                                                           &report_html };
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    struct merge *mg = merge_new("fuzz", true);
    if (!mg)
        abort();
    char why[384] = "";
    bool ok = true;
    for (int host = 0; host < 2 && ok; host++) {
        /* fmemopen refuses an empty buffer: an empty file, then */
        FILE *in = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
        if (!in)
            abort();
        ok = merge_read(mg, in, host ? "host-b" : "host-a", why, sizeof why);
        fclose(in);
        if (!ok && (!why[0] || strchr(why, '\n')))
            abort(); /* a refusal is one line */
    }
    for (size_t v = 0; ok && v < sizeof views / sizeof views[0]; v++)
        merge_render(mg, views[v], sink);
    if (ok)
        json_round_trip(mg);
    merge_free(mg);
    return 0;
}
