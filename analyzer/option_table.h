/* option_table.h - the options of ibscope and of each subcommand: one table
 * per command (option_table.c), read by the parser, --help and
 * `ibscope --list-options` (every command's), and through the latter by the
 * manual page's tests, the completion and the tests.
 *
 * A new option is one line in its command's table and one case where the
 * command takes it; a new subcommand is its ids here, its table in
 * ibscope_subcommands, and its line in main.c.  The completion follows by
 * itself; the tests then ask ibscope(1) to document it.
 */
#ifndef IBSCOPE_OPTION_TABLE_H
#define IBSCOPE_OPTION_TABLE_H

#include "option_parse.h"

/* What every command has, with the same number. */
enum { OPT_HELP, OPT_OWN };

/* ibscope itself (options.c). */
enum ibscope_opt {
    IO_FORMAT = OPT_OWN,
    IO_OUTPUT,
    IO_POOL,
    IO_THRESHOLD,
    IO_HORIZON,
    IO_CNP_WINDOW,
    IO_PFC_STORM,
    IO_FAIL_ON,
    IO_FRAMES,
    IO_CONNECTIONS,
    IO_NO_PROGRESS,
    IO_ALLOW_DUPLICATES,
    IO_NO_CRC,
    IO_SINGLE_THREAD,
    IO_ROCEV2_PORT,
    IO_HOST,
    IO_VERSION,
    IO_LIST_OPTIONS,
    IO_LIST_KINDS,
    IO_LIST_REPORT_KEYS,
    IO_LIVE,
    IO_FILTER,
    IO_DURATION,
    IO_COUNT,
    IO_WRITE
};
/* The --help heading of the options that only --live takes. */
extern const char ibscope_live_group[];

/* ibscope merge (merge_cli.c); its formats in --format's order. */
enum merge_opt { MO_FORMAT = OPT_OWN, MO_OUTPUT };
enum merge_format { MERGE_TEXT, MERGE_JSON, MERGE_CSV, MERGE_HTML };

/* ibscope decode (decode.c). */
enum decode_opt { DO_ROCEV2_PORT = OPT_OWN };

/* ibscope extract (extract.c). */
enum extract_opt { EO_MGMT = OPT_OWN };

extern const struct opt_command ibscope_command, convert_command, decode_command, merge_command,
    extract_command, doctor_command;

/* The subcommands (for --list-options). */
extern const struct opt_command *const ibscope_subcommands[];
extern const size_t ibscope_subcommand_count;

#endif
