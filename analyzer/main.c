/* main.c - ibscope's command line: dispatches to a subcommand or the
 * analysis.  Everything else lives in the files it calls. */
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "convert.h"
#include "decode.h"
#include "live.h"
#include "merge.h"
#include "options.h"
#include "output_file.h"
#include "printable.h"

#ifndef IBSCOPE_VERSION
#define IBSCOPE_VERSION "0.0.0"
#endif

int main(int argc, char **argv)
{
    printable_init();
    /* Subcommands take the rest of the line; a capture named like one can
     * be given as ./convert. */
    if (argc >= 2 && strcmp(argv[1], "convert") == 0)
        return convert_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "decode") == 0)
        return decode_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "merge") == 0)
        return merge_main(argc - 1, argv + 1, IBSCOPE_VERSION);

    struct options opts;
    char err[OPT_ERR_MAX];
    if (options_parse(&opts, argc, argv, err) != OPT_OK) {
        /* The message quotes what was typed: a value may hold ESC. */
        char shown[PRINTABLE_MAX];
        printable(err, shown, sizeof shown);
        fprintf(stderr, "ibscope: %s\n", shown);
        return 2;
    }
    if (opts.help || opts.version) {
        struct output_file out;
        if (!output_open_or_say(&out, NULL))
            return 2;
        if (opts.help)
            options_usage(out.fp);
        else
            fprintf(out.fp, "ibscope %s\n", IBSCOPE_VERSION);
        return output_commit_or_say(&out, NULL) ? 0 : 2;
    }
    if (opts.live)
        return live_run(&opts, IBSCOPE_VERSION);
    return analyze_run(&opts, IBSCOPE_VERSION);
}
