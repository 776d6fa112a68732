/* option_parse.h - a command's options as one table, and the one parser over it.
 *
 * Every command (ibscope itself and each subcommand) describes its options
 * in a table (option_table.c): one line per option.  The parser walks a
 * command line over that table, the --help text and the --list-options
 * lines are written from it (option_help.h), and the manual page, the bash
 * completion and the tests read the latter.
 *
 * The rules, the same for every command:
 *   --name VALUE, --name=VALUE, -x VALUE and -xVALUE give a value; the
 *   value is the next word whatever it looks like ("-o --frames" writes to
 *   a file named --frames); a flag given a value (--frames=x) is refused;
 *   short flags are not grouped (-hV is unknown); long names are never
 *   abbreviated;
 *   "-" is an operand, "--" ends the options, and options and operands may
 *   come in any order;
 *   an option that takes one value may be given once (OPT_REPEATS lifts it);
 *   an option with choices takes one of them, and defaults to the first.
 * The parser prints nothing: a mistake is one line in err, the command
 * prefixes "ibscope: " and exits 2.
 */
#ifndef IBSCOPE_OPTION_PARSE_H
#define IBSCOPE_OPTION_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define OPT_ERR_MAX 256
/* The most options one command has: the parser keeps one bit each. */
#define OPT_MAX 32
/* "--" and the longest option name, for messages. */
#define OPT_SAID_MAX 32

enum opt_flag {
    OPT_REPEATS = 1u << 0, /* a valued option that may be given again (adds up) */
};

struct opt {
    int id;                     /* the command's own number for it (option_table.h) */
    char letter;                /* 'o' for -o; 0: none */
    const char *name;           /* "output" for --output */
    const char *value;          /* "FILE": takes a value so named; NULL: a flag */
    const char *const *choices; /* NULL-ended values it takes, default first; NULL: any */
    unsigned flags;             /* enum opt_flag */
    const char *group; /* the --help heading it is under; NULL: not in --help (for tools) */
    const char *help;  /* --help's words, '\n' between lines */
};

struct opt_command {
    const char *name;  /* "merge"; NULL for ibscope itself */
    const char *usage; /* --help's lines before the options */
    const struct opt *opts;
    size_t count;
    void (*epilogue)(FILE *out); /* --help's lines after the options; NULL: none */
};

/* One walk over a command line. */
struct opt_parser {
    const struct opt_command *cmd;
    int argc;
    char **argv;
    int next;           /* the next word of argv */
    bool operands_only; /* after "--" */
    bool seen[OPT_MAX]; /* the options met, by index in the table */
};

/* What one step found. */
struct opt_found {
    const struct opt *opt;   /* NULL: an operand */
    char *value;             /* the option's value (NULL for a flag), or the operand */
    int choice;              /* the value's index in opt->choices; -1 when none */
    char said[OPT_SAID_MAX]; /* "-o" or "--output", as it was given, for messages */
};

enum opt_step { OPT_STEP_OPTION, OPT_STEP_OPERAND, OPT_STEP_END, OPT_STEP_ERROR };

/* argv[0] is the command's own word ("ibscope", "merge"); the walk starts
 * after it. */
void opt_parser_init(struct opt_parser *p, const struct opt_command *cmd, int argc, char **argv);

/* The next option or operand into f; OPT_STEP_ERROR with err one line
 * ("merge: unknown option '--x' (try ibscope merge --help)"), quoting what
 * was typed as it was (the caller makes it printable). */
enum opt_step opt_next(struct opt_parser *p, struct opt_found *f, char err[OPT_ERR_MAX]);

/* "text, json or csv" of an option's choices, into buf. */
const char *opt_choice_list(const struct opt *o, char *buf, size_t size);

#endif
