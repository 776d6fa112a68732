/* cli_options.h - ibscope-gen's options, one table for --help and
 * --list-options. */
#ifndef IBSCOPE_GEN_CLI_OPTIONS_H
#define IBSCOPE_GEN_CLI_OPTIONS_H

#include <stddef.h>

typedef struct gen_option {
    const char *command; /* "ibscope-gen", or the subcommand that takes it */
    const char *name;    /* "--pool" */
    const char *letter;  /* "-h", or "" */
    const char *value;   /* the value's name, "LO-HI", or "" for a flag */
    const char *choices; /* the values it takes, "197,247,1", or "" for any */
    const char *group;   /* what --help lists it under: "ramp options", "usage" (the
                          * usage lines), or "" (not listed: for tools) */
    const char *help;    /* --help's item, a line break a new line of it; NULL when
                          * --help gives it no item of its own */
} gen_option_t;

extern const gen_option_t gen_options[];
extern const size_t n_gen_options;

#endif
