/* option_help.h - what a command's option table (option_parse.h) says to
 * people (--help) and to tools (--list-options). */
#ifndef IBSCOPE_OPTION_HELP_H
#define IBSCOPE_OPTION_HELP_H

#include <stdio.h>

#include "option_parse.h"

/* The command's usage lines, then its options under their headings, one
 * per line ("  -o, --output FILE       write the report to FILE"); an
 * option with choices has them, and its default, first. */
void opt_help(FILE *out, const struct opt_command *cmd);

/* One line per option, the hidden ones too, six fields separated by tabs
 * (an empty field is empty):
 *   merge  --output  -o  FILE  CHOICES  GROUP
 * the command ("ibscope" for ibscope itself), the long name, the short one,
 * the value's name (empty for a flag), the choices separated by commas,
 * and the --help heading (empty: for tools, not in --help).  ibscope(1)
 * documents it for tools. */
void opt_list(FILE *out, const struct opt_command *cmd);

/* --help (the usage, the options, the epilogue) on standard output; the
 * exit status: 0, or 2 after a one-line error (output_file.h). */
int opt_show_help(const struct opt_command *cmd);

/* A usage mistake (err, from the parser or the command) as one line on
 * standard error, "ibscope: " first and made printable; returns 2, the
 * exit status. */
int opt_usage_error(const char *err);

/* A command of flags and two operands (IN OUT: convert, extract): the
 * operands into paths, each flag met as bit (1 << its id) in *flags.  0 to
 * go on; -1 after --help (exit 0); else the exit status, after `needs` (the
 * line for a wrong number of operands) or the parser's error. */
int opt_parse_in_out(const struct opt_command *cmd, int argc, char **argv, char *paths[2],
                     unsigned *flags, const char *needs);

#endif
