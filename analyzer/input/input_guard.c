/* input_guard.c - refuses an output that is an input, and inputs given twice. */
#include "input_guard.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "printable.h"

static bool is_stdio(const char *path)
{
    return !path || strcmp(path, "-") == 0;
}

/* The file behind a path, or behind standard input/output for "-". */
static bool identify(const char *path, int std_fd, struct stat *st)
{
    return is_stdio(path) ? fstat(std_fd, st) == 0 : stat(path, st) == 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static bool check_output(char *const *inputs, size_t count, const char *output, const char *kind)
{
    struct stat out, in;
    if (!identify(output, STDOUT_FILENO, &out) || !S_ISREG(out.st_mode))
        return true; /* not there yet, or a terminal, pipe or device */
    char o[PRINTABLE_MAX], i[PRINTABLE_MAX];
    printable(is_stdio(output) ? "standard output" : output, o, sizeof o);
    for (size_t k = 0; k < count; k++) {
        if (!identify(inputs[k], STDIN_FILENO, &in) || !same_file(&out, &in))
            continue;
        printable(is_stdio(inputs[k]) ? "standard input" : inputs[k], i, sizeof i);
        fprintf(stderr,
                "ibscope: %s: is the same file as the input %s; refusing to "
                "overwrite a %s\n",
                o, i, kind);
        return false;
    }
    return true;
}

bool input_guard_check(char *const *inputs, size_t count, const char *output, const char *kind,
                       const char *twice)
{
    bool ok = check_output(inputs, count, output, kind);
    size_t stdin_at = count;
    for (size_t k = 0; k < count && ok; k++) {
        char a[PRINTABLE_MAX], b[PRINTABLE_MAX];
        if (strcmp(inputs[k], "-") == 0) {
            if (stdin_at < count) {
                fprintf(stderr,
                        "ibscope: -: standard input is given twice (inputs %zu and "
                        "%zu); it can be read only once\n",
                        stdin_at + 1, k + 1);
                ok = false;
            }
            stdin_at = k;
        }
        struct stat sk, sj;
        if (!twice || !identify(inputs[k], STDIN_FILENO, &sk))
            continue;
        for (size_t j = 0; j < k && ok; j++) {
            if (strcmp(inputs[j], "-") == 0 && strcmp(inputs[k], "-") == 0)
                continue; /* said above */
            if (!identify(inputs[j], STDIN_FILENO, &sj) || !same_file(&sk, &sj))
                continue;
            printable(inputs[k], b, sizeof b);
            printable(inputs[j], a, sizeof a);
            fprintf(stderr, "ibscope: %s: is the same file as %s (inputs %zu and %zu); %s\n", b, a,
                    j + 1, k + 1, twice);
            ok = false;
        }
    }
    return ok;
}
