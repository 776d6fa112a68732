/* merge_cli.c - the `ibscope merge` command: its options, reading each
 * report file (one-line errors naming it), the output (merge.h).  jansson
 * reads the documents: a JSON parser is not worth writing again, and
 * jansson is small, well kept and in Debian.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "input_guard.h"
#include "merge.h"
#include "output_file.h"
#include "printable.h"

enum merge_format { MERGE_TEXT, MERGE_JSON, MERGE_CSV, MERGE_HTML };
static const char *const merge_format_names[] = {"text", "json", "csv", "html"};

static void usage(FILE *out)
{
    fputs("Usage: ibscope merge [--format text|json|csv|html] [-o FILE] REPORT.json...\n"
          "Combines JSON reports (ibscope --format json), one per host, into one view of\n"
          "the fabric: every source, finding and chain labelled with its host (the\n"
          "report's file name without .json), totals, and the sources nearest\n"
          "exhaustion.  Reports must come from this version of ibscope.\n",
          out);
}

static int say(const char *file, const char *msg)
{
    char path[PRINTABLE_MAX];
    printable(file, path, sizeof path);
    fprintf(stderr, "ibscope: %s: %s\n", path, msg);
    return 2;
}

/* "node17" for ".../node17.json". */
static char *host_label(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    char *label = malloc(n + 1);
    if (label) {
        memcpy(label, base, n);
        label[n] = '\0';
    }
    return label;
}

/* The report in path, or NULL after its one-line error. */
static json_t *read_report(const char *path, const char *version)
{
    json_error_t err;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        say(path, strerror(errno));
        return NULL;
    }
    json_t *doc = json_loadf(f, JSON_REJECT_DUPLICATES, &err);
    if (f != stdin)
        fclose(f);
    char msg[256];
    if (!doc) {
        if (strstr(err.text, "end of file expected"))
            snprintf(msg, sizeof msg, "not a JSON report (a JSON Lines report? merge reads "
                                      "--format json reports)");
        else
            snprintf(msg, sizeof msg, "not a JSON report: %s at line %d", err.text, err.line);
        say(path, msg);
        return NULL;
    }
    const char *why = merge_check_report(doc, version, msg, sizeof msg);
    if (why) {
        say(path, why);
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int merge_main(int argc, char **argv, const char *version)
{
    enum merge_format format = MERGE_TEXT;
    const char *out_path = NULL;
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    size_t n = 0;
    if (!inputs)
        return say("merge", "out of memory");
    bool only_files = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_files && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            free(inputs);
            struct output_file out;
            if (!output_open_or_say(&out, NULL))
                return 2;
            usage(out.fp);
            return output_commit_or_say(&out, NULL) ? 0 : 2;
        } else if (!only_files && strcmp(a, "--") == 0) {
            only_files = true;
        } else if (!only_files && strcmp(a, "--format") == 0) {
            if (++i >= argc) {
                free(inputs);
                return say("merge", "--format needs a value: text, json, csv or html");
            }
            bool known = false;
            for (int f = 0; f < 4; f++)
                if (strcmp(argv[i], merge_format_names[f]) == 0) {
                    format = (enum merge_format)f;
                    known = true;
                }
            if (!known) {
                free(inputs);
                return say("merge", "--format takes text, json, csv or html");
            }
        } else if (!only_files && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
            if (++i >= argc) {
                free(inputs);
                return say("merge", "-o needs a file name");
            }
            out_path = argv[i];
        } else if (!only_files && a[0] == '-' && a[1] != '\0') {
            char msg[96];
            snprintf(msg, sizeof msg, "unknown option (ibscope merge --help lists them)");
            free(inputs);
            return say(a, msg);
        } else {
            inputs[n++] = argv[i];
        }
    }
    if (n == 0) {
        free(inputs);
        fputs("ibscope: merge: no reports given (ibscope merge --help)\n", stderr);
        return 2;
    }
    /* The output must be no input; a report given twice is caught below,
     * as two reports of one host. */
    if (!input_guard_check(inputs, n, out_path, true)) {
        free(inputs);
        return 2;
    }
    json_t **reports = calloc(n, sizeof *reports);
    char **hosts = calloc(n, sizeof *hosts);
    int status = 0;
    for (size_t i = 0; i < n && reports && hosts && !status; i++) {
        hosts[i] = host_label(inputs[i]);
        json_t *as_json = hosts[i] ? json_string(hosts[i]) : NULL;
        if (hosts[i] && !as_json) {
            status = say(inputs[i], "the file name is not UTF-8, and the host label is made "
                                    "of it: rename the report");
            break;
        }
        json_decref(as_json);
        reports[i] = read_report(inputs[i], version);
        if (!reports[i] || !hosts[i])
            status = 2;
        for (size_t j = 0; j < i && !status; j++)
            if (strcmp(hosts[i], hosts[j]) == 0) {
                char msg[160];
                snprintf(msg, sizeof msg, "host label \"%.60s\" already taken by another "
                                          "report: name each host's report after it",
                         hosts[i]);
                status = say(inputs[i], msg);
            }
    }
    if (!reports || !hosts)
        status = say("merge", "out of memory");
    json_t *fabric = status ? NULL : merge_combine(reports, hosts, n, version);
    struct output_file out;
    if (fabric && output_open_or_say(&out, out_path)) {
        switch (format) {
        case MERGE_JSON: merge_write_json(out.fp, fabric); break;
        case MERGE_CSV: merge_write_csv(out.fp, fabric); break;
        case MERGE_HTML: merge_write_html(out.fp, fabric); break;
        default: merge_write_text(out.fp, fabric); break;
        }
        if (!output_commit_or_say(&out, "report"))
            status = 2;
    } else if (fabric) {
        status = 2;
    }
    json_decref(fabric);
    for (size_t i = 0; i < n && reports && hosts; i++) {
        json_decref(reports[i]);
        free(hosts[i]);
    }
    free(reports);
    free(hosts);
    free(inputs);
    return status;
}
