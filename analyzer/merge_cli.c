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
#include "option_help.h"
#include "option_table.h"
#include "output_file.h"
#include "printable.h"
#include "temp_file.h"

struct merge_args {
    enum merge_format format;
    const char *out_path;
    char **inputs;
    size_t count;
};

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
        file_problem(path, "is a directory");
        return false;
    }
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        file_problem(path, strerror(errno));
        return false;
    }
    char why[320];
    bool ok = merge_read(mg, f, host, why, sizeof why);
    if (f != stdin)
        fclose(f);
    if (!ok)
        file_problem(path, why);
    return ok;
}

/* -o '' refused, as the analysis words it. */
static int empty_name(const char *said)
{
    char msg[OPT_SAID_MAX + 32];
    snprintf(msg, sizeof msg, "%s: the file name is empty", said);
    return file_problem("merge", msg);
}

/* The command line over merge's option table: a format, -o, the reports;
 * 0 to go on, else the exit status (after --help or a one-line error). */
static int parse_args(int argc, char **argv, struct merge_args *a)
{
    struct opt_parser p;
    struct opt_found f;
    enum opt_step step;
    char err[OPT_ERR_MAX];
    bool help = false;
    opt_parser_init(&p, &merge_command, argc, argv);
    while ((step = opt_next(&p, &f, err)) != OPT_STEP_END) {
        if (step == OPT_STEP_ERROR)
            return opt_usage_error(err);
        if (step == OPT_STEP_OPERAND)
            a->inputs[a->count++] = f.value;
        else if (f.opt->id == OPT_HELP)
            help = true;
        else if (f.opt->id == MO_FORMAT)
            a->format = (enum merge_format)f.choice;
        else if (*f.value) /* MO_OUTPUT */
            a->out_path = f.value;
        else
            return empty_name(f.said);
    }
    if (help) {
        int status = opt_show_help(&merge_command);
        return status ? status : -1;
    }
    if (a->count == 0)
        return opt_usage_error("merge: no reports given (try ibscope merge --help)");
    return 0;
}

/* Each report read into mg under its host label; false after a one-line
 * error. */
static bool read_reports(struct merge *mg, const struct merge_args *a, char **hosts)
{
    for (size_t i = 0; i < a->count; i++) {
        if (!(hosts[i] = host_label(a->inputs[i])))
            return file_problem("merge", "out of memory"), false;
        if (!utf8_valid(hosts[i]))
            return file_problem(a->inputs[i],
                                "the file name is not UTF-8, and the host label is made "
                                "of it: rename the report"),
                   false;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(hosts[i], hosts[j]) != 0)
                continue;
            char msg[160];
            snprintf(msg, sizeof msg,
                     "host label \"%.60s\" already taken by another report: "
                     "name each host's report after it",
                     hosts[i]);
            return file_problem(a->inputs[i], msg), false;
        }
        if (!read_report(mg, a->inputs[i], hosts[i]))
            return false;
    }
    return true;
}

static const struct report_renderer *renderer_of(enum merge_format f)
{
    return f == MERGE_JSON   ? &report_json
           : f == MERGE_CSV  ? &report_csv
           : f == MERGE_HTML ? &report_html
                             : &report_text;
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
    struct merge_args a = { .format = MERGE_TEXT };
    a.inputs = calloc((size_t)argc, sizeof *a.inputs);
    char **hosts = calloc((size_t)argc, sizeof *hosts);
    struct merge *mg = merge_new(version, false);
    int status = !a.inputs || !hosts || !mg ? file_problem("merge", "out of memory")
                                            : parse_args(argc, argv, &a);
    /* The output must be no input, and no report may be given twice. */
    if (!status && !input_guard_check(a.inputs, a.count, a.out_path, "report",
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
