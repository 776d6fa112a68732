/* merge_cli.c - the `ibscope merge` command: its options, reading each
 * report file (one-line errors naming it), the output (merge.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input_guard.h"
#include "merge.h"
#include "output_file.h"
#include "printable.h"
#include "temp_file.h"

enum merge_format { MERGE_TEXT, MERGE_JSON, MERGE_CSV, MERGE_HTML };
static const char *const merge_format_names[] = {"text", "json", "csv", "html"};

struct merge_args {
    enum merge_format format;
    const char *out_path;
    char **inputs;
    size_t count;
};

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

/* Reads the report in path into mg, as host's; false after its one-line
 * error. */
static bool read_report(struct merge *mg, const char *path, const char *host)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        say(path, "is a directory");
        return false;
    }
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        say(path, strerror(errno));
        return false;
    }
    char why[320];
    bool ok = merge_read(mg, f, host, why, sizeof why);
    if (f != stdin)
        fclose(f);
    if (!ok)
        say(path, why);
    return ok;
}

/* The command line: a format, -o, the reports; 0 to go on, else the exit
 * status (after --help or a one-line error). */
static int parse_args(int argc, char **argv, struct merge_args *a)
{
    bool only_files = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!only_files && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
            struct output_file out;
            if (!output_open_or_say(&out, NULL))
                return 2;
            usage(out.fp);
            return output_commit_or_say(&out, NULL) ? -1 : 2;
        } else if (!only_files && strcmp(arg, "--") == 0) {
            only_files = true;
        } else if (!only_files && strcmp(arg, "--format") == 0) {
            if (++i >= argc)
                return say("merge", "--format needs a value: text, json, csv or html");
            int f = 0;
            while (f < 4 && strcmp(argv[i], merge_format_names[f]) != 0)
                f++;
            if (f == 4)
                return say("merge", "--format takes text, json, csv or html");
            a->format = (enum merge_format)f;
        } else if (!only_files && (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0)) {
            if (++i >= argc)
                return say("merge", "-o needs a file name");
            a->out_path = argv[i];
        } else if (!only_files && arg[0] == '-' && arg[1] != '\0') {
            return say(arg, "unknown option (ibscope merge --help lists them)");
        } else {
            a->inputs[a->count++] = argv[i];
        }
    }
    if (a->count == 0) {
        fputs("ibscope: merge: no reports given (ibscope merge --help)\n", stderr);
        return 2;
    }
    return 0;
}

/* Each report read into mg under its host label; false after a one-line
 * error. */
static bool read_reports(struct merge *mg, const struct merge_args *a, char **hosts)
{
    for (size_t i = 0; i < a->count; i++) {
        if (!(hosts[i] = host_label(a->inputs[i])))
            return say("merge", "out of memory"), false;
        if (!utf8_valid(hosts[i]))
            return say(a->inputs[i], "the file name is not UTF-8, and the host label is made "
                                     "of it: rename the report"), false;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(hosts[i], hosts[j]) != 0)
                continue;
            char msg[160];
            snprintf(msg, sizeof msg, "host label \"%.60s\" already taken by another report: "
                                      "name each host's report after it", hosts[i]);
            return say(a->inputs[i], msg), false;
        }
        if (!read_report(mg, a->inputs[i], hosts[i]))
            return false;
    }
    return true;
}

static const struct report_renderer *renderer_of(enum merge_format f)
{
    return f == MERGE_JSON ? &report_json : f == MERGE_CSV ? &report_csv
         : f == MERGE_HTML ? &report_html : &report_text;
}

/* The fabric rendered into -o (or standard output), committed. */
static int write_fabric(struct merge *mg, const struct merge_args *a)
{
    struct output_file out;
    if (!output_open_or_say(&out, a->out_path))
        return 2;
    int err = merge_render(mg, renderer_of(a->format), out.fp);
    /* A renderer's error with a failed output is the output's (said by the
     * commit, with the errno of its first failed write), as in run_end. */
    if (err && !ferror(out.fp)) {
        char where[PRINTABLE_MAX];
        printable(temp_dir(), where, sizeof where);
        fprintf(stderr, "ibscope: merge: scratch file in %s: %s; nothing written\n", where,
                strerror(err));
        output_abort(&out);
        return 2;
    }
    return output_commit_or_say(&out, "report") ? 0 : 2;
}

int merge_main(int argc, char **argv, const char *version)
{
    struct merge_args a = {.format = MERGE_TEXT};
    a.inputs = calloc((size_t)argc, sizeof *a.inputs);
    char **hosts = calloc((size_t)argc, sizeof *hosts);
    struct merge *mg = merge_new(version, false);
    int status = !a.inputs || !hosts || !mg ? say("merge", "out of memory")
                                            : parse_args(argc, argv, &a);
    /* The output must be no input, and no report may be given twice. */
    if (!status && !input_guard_check(a.inputs, a.count, a.out_path,
                                         "its host would be merged twice"))
        status = 2;
    if (!status)
        status = read_reports(mg, &a, hosts) ? write_fabric(mg, &a) : 2;
    for (size_t i = 0; hosts && i < a.count; i++)
        free(hosts[i]);
    free(hosts);
    free(a.inputs);
    merge_free(mg);
    return status < 0 ? 0 : status;
}
