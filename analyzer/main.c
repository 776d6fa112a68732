/* main.c - ibscope's command line: dispatches to a subcommand or the
 * analysis.  Everything else lives in the files it calls. */
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "convert.h"
#include "decode.h"
#include "doctor.h"
#include "extract.h"
#include "merge.h"
#include "option_help.h"
#include "option_table.h"
#include "options.h"
#include "output_file.h"
#include "printable.h"
#include "report_schema.h"
#include "run.h"

#ifndef IBSCOPE_VERSION
#define IBSCOPE_VERSION "0.0.0"
#endif

/* --version, --list-options, --list-kinds or --list-report-keys on standard output. */
static int show(const struct options *opts)
{
    struct output_file out;
    if (!output_open_or_say(&out, NULL))
        return 2;
    if (opts->version) {
        fprintf(out.fp, "ibscope %s\n", IBSCOPE_VERSION);
    } else if (opts->list_kinds) {
        options_list_kinds(out.fp);
    } else if (opts->list_report_keys) {
        rs_list(out.fp);
    } else {
        opt_list(out.fp, &ibscope_command);
        for (size_t i = 0; i < ibscope_subcommand_count; i++)
            opt_list(out.fp, ibscope_subcommands[i]);
    }
    return output_commit_or_say(&out, NULL) ? 0 : 2;
}

int main(int argc, char **argv)
{
    printable_init();
    /* Subcommands take the rest of the line; a capture named like one can
     * be given as ./convert. */
    const char *sub = argc >= 2 ? argv[1] : "";
    if (strcmp(sub, convert_command.name) == 0)
        return convert_main(argc - 1, argv + 1);
    if (strcmp(sub, decode_command.name) == 0)
        return decode_main(argc - 1, argv + 1);
    if (strcmp(sub, extract_command.name) == 0)
        return extract_main(argc - 1, argv + 1);
    if (strcmp(sub, doctor_command.name) == 0)
        return doctor_main(argc - 1, argv + 1);
    if (strcmp(sub, merge_command.name) == 0)
        return merge_main(argc - 1, argv + 1, IBSCOPE_VERSION);

    struct options opts;
    char err[OPT_ERR_MAX];
    if (options_parse(&opts, argc, argv, err) != OPT_OK)
        return opt_usage_error(err);
    if (opts.help)
        return opt_show_help(&ibscope_command);
    if (opts.version || opts.list_options || opts.list_kinds || opts.list_report_keys)
        return show(&opts);
    if (opts.live)
        return run_live(&opts, IBSCOPE_VERSION);
    return analyze_run(&opts, IBSCOPE_VERSION);
}
