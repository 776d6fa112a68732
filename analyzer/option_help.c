/* option_help.c - --help and --list-options, written from a command's table. */
#include "option_help.h"

#include <string.h>

#include "option_table.h"
#include "output_file.h"
#include "printable.h"

/* The column the help of an option starts in, and the widest label that
 * leaves it two spaces before it; a wider label pushes its first line right. */
#define HELP_COLUMN 26

/* "  -o, --output FILE" and the first line of the option's help. */
static void write_label(FILE *out, const struct opt *o)
{
    int n = fprintf(out, "  ");
    if (o->letter)
        n += fprintf(out, "-%c, ", o->letter);
    n += fprintf(out, "--%s", o->name);
    if (o->value)
        n += fprintf(out, " %s", o->value);
    fprintf(out, "%*s", n <= HELP_COLUMN - 2 ? HELP_COLUMN - n : 2, "");
}

/* The help's lines, the first after the label, the others indented to it. */
static void write_help(FILE *out, const struct opt *o)
{
    bool first = true;
    if (o->choices) {
        char list[128];
        fprintf(out, "%s (default %s)\n", opt_choice_list(o, list, sizeof list), o->choices[0]);
        first = false;
    }
    for (const char *line = o->help; line && *line;) {
        size_t len = strcspn(line, "\n");
        fprintf(out, "%*s%.*s\n", first ? 0 : HELP_COLUMN, "", (int)len, line);
        first = false;
        line += len + (line[len] == '\n');
    }
    if (first)
        fputc('\n', out);
}

void opt_help(FILE *out, const struct opt_command *cmd)
{
    fputs(cmd->usage, out);
    const char *group = NULL;
    for (size_t i = 0; i < cmd->count; i++) {
        const struct opt *o = &cmd->opts[i];
        if (!o->group)
            continue;
        if (!group || strcmp(group, o->group) != 0)
            fprintf(out, "\n%s:\n", o->group);
        group = o->group;
        write_label(out, o);
        write_help(out, o);
    }
    if (cmd->epilogue)
        cmd->epilogue(out);
}

int opt_show_help(const struct opt_command *cmd)
{
    struct output_file out;
    if (!output_open_or_say(&out, NULL))
        return 2;
    opt_help(out.fp, cmd);
    return output_commit_or_say(&out, NULL) ? 0 : 2;
}

int opt_usage_error(const char *err)
{
    /* The message quotes what was typed: a value may hold ESC. */
    char shown[PRINTABLE_MAX];
    printable(err, shown, sizeof shown);
    fprintf(stderr, "ibscope: %s\n", shown);
    return 2;
}

int opt_parse_in_out(const struct opt_command *cmd, int argc, char **argv, char *paths[2],
                     unsigned *flags, const char *needs)
{
    struct opt_parser p;
    struct opt_found f;
    enum opt_step step;
    char err[OPT_ERR_MAX];
    int n = 0;
    *flags = 0;
    opt_parser_init(&p, cmd, argc, argv);
    while ((step = opt_next(&p, &f, err)) != OPT_STEP_END) {
        if (step == OPT_STEP_ERROR)
            return opt_usage_error(err);
        if (step == OPT_STEP_OPTION)
            *flags |= 1u << f.opt->id;
        else if (n++ < 2)
            paths[n - 1] = f.value;
    }
    if (*flags & 1u << OPT_HELP) {
        int status = opt_show_help(cmd);
        return status ? status : -1;
    }
    return n == 2 ? 0 : opt_usage_error(needs);
}

void opt_list(FILE *out, const struct opt_command *cmd)
{
    for (size_t i = 0; i < cmd->count; i++) {
        const struct opt *o = &cmd->opts[i];
        fprintf(out, "%s\t--%s\t", cmd->name ? cmd->name : "ibscope", o->name);
        if (o->letter)
            fprintf(out, "-%c", o->letter);
        fprintf(out, "\t%s\t", o->value ? o->value : "");
        for (int c = 0; o->choices && o->choices[c]; c++)
            fprintf(out, "%s%s", c ? "," : "", o->choices[c]);
        fprintf(out, "\t%s\n", o->group ? o->group : "");
    }
}
