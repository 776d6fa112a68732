/* test_option_parse.c - the option parser (analyzer/option_parse.c) on
 * hand-worked command lines over a table of its own, and the rules every
 * command's real table (analyzer/option_table.c) must keep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "option_parse.h"
#include "option_table.h"
#include "options.h"

enum { T_FLAG, T_OUT, T_COLOR, T_TAG };
static const char *const colors[] = { "red", "green", "blue", NULL };
static const struct opt test_opts[] = {
    { T_FLAG, 'f', "flag", NULL, NULL, 0, "Options", "a flag" },
    { T_OUT, 'o', "out", "FILE", NULL, 0, "Options", "a file" },
    { T_COLOR, 0, "color", "COLOR", colors, 0, "Options", NULL },
    { T_TAG, 't', "tag", "TAG", NULL, OPT_REPEATS, NULL, NULL },
};
static const struct opt_command test_cmd = { "test", "Usage: test\n", test_opts, 4, NULL };

/* One step's outcome, written out: "option --out=a.txt", "operand x",
 * "end", "error <message>". */
static const char *step_text(struct opt_parser *p, char *buf, size_t size)
{
    struct opt_found f;
    char err[OPT_ERR_MAX];
    switch (opt_next(p, &f, err)) {
    case OPT_STEP_OPTION:
        snprintf(buf, size, "option %s%s%s", f.said, f.value ? "=" : "", f.value ? f.value : "");
        break;
    case OPT_STEP_OPERAND: snprintf(buf, size, "operand %s", f.value); break;
    case OPT_STEP_END: snprintf(buf, size, "end"); break;
    case OPT_STEP_ERROR: snprintf(buf, size, "error %s", err); break;
    }
    return buf;
}

/* Walks words (NULL-ended, after "test") and checks each step against want
 * (NULL-ended; the walk stops at the first error). */
static void walk(const char *const *words, const char *const *want)
{
    char *argv[16] = { (char *)"test" };
    char storage[16][64];
    int argc = 1;
    for (; words[argc - 1]; argc++) {
        snprintf(storage[argc], sizeof storage[argc], "%s", words[argc - 1]);
        argv[argc] = storage[argc];
    }
    struct opt_parser p;
    opt_parser_init(&p, &test_cmd, argc, argv);
    char got[OPT_ERR_MAX + 16];
    for (int i = 0; want[i]; i++)
        assert_string_equal(step_text(&p, got, sizeof got), want[i]);
}

#define WALK(...) walk((const char *const[]){ __VA_ARGS__ }
#define WANT(...) , (const char *const[]){ __VA_ARGS__, NULL })

static void test_values(void **state)
{
    (void)state;
    /* --x=v, --x v, -x v, -xv: the same value; the short form is said short */
    WALK("--out=a", NULL) WANT("option --out=a", "end");
    WALK("--out", "b", NULL) WANT("option --out=b", "end");
    WALK("-o", "c", NULL) WANT("option -o=c", "end");
    WALK("-od", NULL) WANT("option -o=d", "end");
    /* an empty value is a value; "=" inside the value stays */
    WALK("--out=", "x", NULL) WANT("option --out=", "operand x", "end");
    WALK("--out=a=b", NULL) WANT("option --out=a=b", "end");
    /* a value that looks like an option is the value */
    WALK("--out", "--flag", "-", NULL) WANT("option --out=--flag", "operand -", "end");
    WALK("-o", "--", "x", NULL) WANT("option -o=--", "operand x", "end");
}

static void test_operands(void **state)
{
    (void)state;
    /* options and operands in any order; "-" is an operand; "--" ends the
     * options, and a second "--" is an operand */
    WALK("a", "-f", "-", "b", "--", "--flag", "--", "-o", NULL)
    WANT("operand a", "option -f", "operand -", "operand b", "operand --flag", "operand --",
         "operand -o", "end");
    WALK(NULL) WANT("end");
}

static void test_mistakes(void **state)
{
    (void)state;
    WALK("--out", NULL) WANT("error test: --out needs a value");
    WALK("x", "-o", NULL) WANT("operand x", "error test: -o needs a value");
    WALK("--bogus", NULL) WANT("error test: unknown option '--bogus' (try ibscope test --help)");
    WALK("-x", NULL) WANT("error test: unknown option '-x' (try ibscope test --help)");
    /* no abbreviation, no grouping of short flags, a flag takes no value */
    WALK("--fla", NULL) WANT("error test: unknown option '--fla' (try ibscope test --help)");
    WALK("--flagx", NULL) WANT("error test: unknown option '--flagx' (try ibscope test --help)");
    WALK("-ff", NULL) WANT("error test: unknown option '-ff' (try ibscope test --help)");
    WALK("--flag=1", NULL) WANT("error test: --flag takes no value");
    WALK("--flag=", NULL) WANT("error test: --flag takes no value");
    /* a flag given twice is no mistake; a valued option given twice is */
    WALK("-f", "--flag", NULL) WANT("option -f", "option --flag", "end");
    WALK("-oa", "--out=b", NULL)
    WANT("option -o=a", "error test: --out is given twice; it takes one value");
    WALK("-ta", "--tag", "b", NULL) WANT("option -t=a", "option --tag=b", "end");
}

static void test_choices(void **state)
{
    (void)state;
    WALK("--color=green", NULL) WANT("option --color=green", "end");
    WALK("--color", "pink", NULL) WANT("error test: --color: 'pink' is not red, green or blue");
    WALK("--color", NULL) WANT("error test: --color needs a value: red, green or blue");
    char *argv[] = { (char *)"test", (char *)"--color", (char *)"blue" };
    struct opt_parser p;
    struct opt_found f;
    char err[OPT_ERR_MAX];
    opt_parser_init(&p, &test_cmd, 3, argv);
    assert_int_equal(opt_next(&p, &f, err), OPT_STEP_OPTION);
    assert_int_equal(f.opt->id, T_COLOR);
    assert_int_equal(f.choice, 2);
}

/* The rules each real table keeps: unique names and letters, within
 * OPT_MAX, --help everywhere, words for every option --help lists. */
static void check_table(const struct opt_command *cmd)
{
    bool has_help = false;
    assert_true(cmd->count <= OPT_MAX);
    for (size_t i = 0; i < cmd->count; i++) {
        const struct opt *o = &cmd->opts[i];
        has_help |= o->id == OPT_HELP && strcmp(o->name, "help") == 0 && o->letter == 'h';
        if (o->group && !o->help && !o->choices)
            fail_msg("--%s is in --help with no words", o->name);
        if (o->choices && !o->value)
            fail_msg("--%s has choices but takes no value", o->name);
        if (strlen(o->name) + 3 > OPT_SAID_MAX)
            fail_msg("--%s is longer than OPT_SAID_MAX", o->name);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(o->name, cmd->opts[j].name) == 0 || o->id == cmd->opts[j].id ||
                (o->letter && o->letter == cmd->opts[j].letter))
                fail_msg("--%s and --%s share a name, letter or id", o->name, cmd->opts[j].name);
        }
    }
    assert_true(has_help);
}

/* In every real table, --name=V and --name V give the same, and a flag
 * given a value is refused in one line. */
static void check_forms(const struct opt_command *cmd)
{
    for (size_t i = 0; i < cmd->count; i++) {
        const struct opt *o = &cmd->opts[i];
        char glued[64], name[64], value[] = "v";
        snprintf(glued, sizeof glued, "--%s=%s", o->name, o->choices ? o->choices[0] : "v");
        snprintf(name, sizeof name, "--%s", o->name);
        char *one[] = { (char *)"x", glued };
        char *two[] = { (char *)"x", name, o->choices ? (char *)o->choices[0] : value };
        struct opt_parser p1, p2;
        struct opt_found f1, f2;
        char err[OPT_ERR_MAX];
        opt_parser_init(&p1, cmd, 2, one);
        opt_parser_init(&p2, cmd, 3, two);
        enum opt_step s1 = opt_next(&p1, &f1, err);
        if (!o->value) {
            assert_int_equal(s1, OPT_STEP_ERROR);
            assert_non_null(strstr(err, "takes no value"));
            assert_null(strchr(err, '\n'));
            continue;
        }
        assert_int_equal(s1, OPT_STEP_OPTION);
        assert_int_equal(opt_next(&p2, &f2, err), OPT_STEP_OPTION);
        assert_ptr_equal(f1.opt, o);
        assert_ptr_equal(f2.opt, o);
        assert_string_equal(f1.value, f2.value);
        assert_int_equal(f1.choice, f2.choice);
    }
}

static void test_real_tables(void **state)
{
    (void)state;
    check_table(&ibscope_command);
    check_forms(&ibscope_command);
    for (size_t i = 0; i < ibscope_subcommand_count; i++) {
        check_table(ibscope_subcommands[i]);
        check_forms(ibscope_subcommands[i]);
    }
}

/* ibscope's own line through options_parse: the forms agree, the messages
 * are those the tests and docs show. */
static void test_ibscope_line(void **state)
{
    (void)state;
    struct options o;
    char err[OPT_ERR_MAX];
    char *a[] = { (char *)"ibscope",      (char *)"--pool=100-200", (char *)"-oout",
                  (char *)"--format=csv", (char *)"x.pcap",         (char *)"--fail-on=malformed",
                  (char *)"--fail-on",    (char *)"redirect_loop" };
    assert_int_equal(options_parse(&o, 8, a, err), OPT_OK);
    assert_int_equal(o.pool_low, 100);
    assert_int_equal(o.pool_high, 200);
    assert_string_equal(o.output, "out");
    assert_int_equal(o.format, FORMAT_CSV);
    assert_true(o.fail_on[IB_FIND_MALFORMED] && o.fail_on[IB_FIND_REDIRECT_LOOP]);
    assert_int_equal(o.capture_count, 1);
    assert_string_equal(o.captures[0], "x.pcap");
    char *b[] = { (char *)"ibscope", (char *)"-w", (char *)"f", (char *)"x.pcap" };
    assert_int_equal(options_parse(&o, 4, b, err), OPT_USAGE);
    assert_string_equal(err, "-w is for --live only");
    char *c[] = { (char *)"ibscope", (char *)"--output=", (char *)"x.pcap" };
    assert_int_equal(options_parse(&o, 3, c, err), OPT_USAGE);
    assert_string_equal(err, "--output: the file name is empty");
    /* --help says an option's default is its first choice: so it is */
    char *e[] = { (char *)"ibscope", (char *)"x.pcap" };
    assert_int_equal(options_parse(&o, 2, e, err), OPT_OK);
    assert_int_equal(o.format, 0);
    char *d[] = { (char *)"ibscope", (char *)"--list-options" };
    assert_int_equal(options_parse(&o, 2, d, err), OPT_OK);
    assert_true(o.list_options);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),      cmocka_unit_test(test_operands),
        cmocka_unit_test(test_mistakes),    cmocka_unit_test(test_choices),
        cmocka_unit_test(test_real_tables), cmocka_unit_test(test_ibscope_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
