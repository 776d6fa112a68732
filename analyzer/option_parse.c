/* option_parse.c - walks a command line over its command's option table
 * (the rules are in option_parse.h). */
#include "option_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void opt_parser_init(struct opt_parser *p, const struct opt_command *cmd, int argc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    p->next = 1;
}

const char *opt_choice_list(const struct opt *o, char *buf, size_t size)
{
    size_t n = 0, count = 0;
    buf[0] = '\0';
    while (o->choices && o->choices[count])
        count++;
    for (size_t i = 0; i < count && n < size; i++) {
        int w = snprintf(buf + n, size - n, "%s%s",
                         i == 0           ? ""
                         : i + 1 == count ? " or "
                                          : ", ",
                         o->choices[i]);
        n += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* One line into err, after the subcommand's name ("merge: "); false, for
 * the callers' returns. */
static bool refuse(const struct opt_parser *p, char err[OPT_ERR_MAX], const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool refuse(const struct opt_parser *p, char err[OPT_ERR_MAX], const char *fmt, ...)
{
    int n = p->cmd->name ? snprintf(err, OPT_ERR_MAX, "%s: ", p->cmd->name) : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, OPT_ERR_MAX - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* The table's option that arg names ("--name", "--name=v", "-x", "-xv"),
 * with *attached the value glued to it (NULL when none). */
static const struct opt *lookup(const struct opt_command *cmd, const char *arg,
                                const char **attached)
{
    *attached = NULL;
    if (arg[1] == '-') {
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        for (size_t i = 0; i < cmd->count; i++)
            if (strncmp(cmd->opts[i].name, name, len) == 0 && cmd->opts[i].name[len] == '\0') {
                *attached = eq ? eq + 1 : NULL;
                return &cmd->opts[i];
            }
        return NULL;
    }
    for (size_t i = 0; i < cmd->count; i++)
        if (cmd->opts[i].letter == arg[1]) {
            /* -xVALUE for a valued option; a flag's letter stands alone */
            if (arg[2] && !cmd->opts[i].value)
                return NULL;
            *attached = arg[2] ? arg + 2 : NULL;
            return &cmd->opts[i];
        }
    return NULL;
}

/* The value of f's option: glued on, or the next word; false with err. */
static bool take_value(struct opt_parser *p, struct opt_found *f, const char *attached,
                       char err[OPT_ERR_MAX])
{
    const struct opt *o = f->opt;
    size_t index = (size_t)(o - p->cmd->opts);
    if (p->seen[index] && !(o->flags & OPT_REPEATS))
        return refuse(p, err, "%s is given twice; it takes one value", f->said);
    p->seen[index] = true;
    if (attached)
        f->value = (char *)attached; /* inside an argv word, which is not const */
    else if (p->next < p->argc)
        f->value = p->argv[p->next++];
    char list[128];
    opt_choice_list(o, list, sizeof list);
    if (!f->value)
        return o->choices ? refuse(p, err, "%s needs a value: %s", f->said, list)
                          : refuse(p, err, "%s needs a value", f->said);
    if (!o->choices)
        return true;
    for (int c = 0; o->choices[c]; c++)
        if (strcmp(o->choices[c], f->value) == 0)
            return f->choice = c, true;
    return refuse(p, err, "%s: '%.64s' is not %s", f->said, f->value, list);
}

enum opt_step opt_next(struct opt_parser *p, struct opt_found *f, char err[OPT_ERR_MAX])
{
    memset(f, 0, sizeof *f);
    f->choice = -1;
    err[0] = '\0';
    for (;;) {
        if (p->next >= p->argc)
            return OPT_STEP_END;
        char *arg = p->argv[p->next++];
        if (p->operands_only || arg[0] != '-' || arg[1] == '\0') {
            f->value = arg;
            return OPT_STEP_OPERAND;
        }
        if (strcmp(arg, "--") != 0)
            break;
        p->operands_only = true;
    }
    const char *arg = p->argv[p->next - 1], *attached;
    if (!(f->opt = lookup(p->cmd, arg, &attached))) {
        refuse(p, err, "unknown option '%.64s' (try %s%s%s--help)", arg,
               p->cmd->name ? "ibscope " : "", p->cmd->name ? p->cmd->name : "",
               p->cmd->name ? " " : "");
        return OPT_STEP_ERROR;
    }
    if (arg[1] == '-')
        snprintf(f->said, sizeof f->said, "--%s", f->opt->name);
    else
        snprintf(f->said, sizeof f->said, "-%c", f->opt->letter);
    if (!f->opt->value) {
        if (!attached)
            return OPT_STEP_OPTION;
        refuse(p, err, "%s takes no value", f->said);
        return OPT_STEP_ERROR;
    }
    return take_value(p, f, attached, err) ? OPT_STEP_OPTION : OPT_STEP_ERROR;
}
