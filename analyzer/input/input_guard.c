/* input_guard.c - refuses an output that is an input, and inputs given twice. */
#include "input_guard.h"

#include <stdio.h>
#include <stdlib.h>
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

/* An input's file, for sorting: equal files end up side by side. */
struct ident {
    dev_t dev;
    ino_t ino;
    size_t index;
};

static bool same_ident(const struct ident *x, const struct ident *y)
{
    return x->dev == y->dev && x->ino == y->ino;
}

static int by_file(const void *a, const void *b)
{
    const struct ident *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static bool is_dash(const char *path)
{
    return strcmp(path, "-") == 0;
}

/* In one group of inputs that are the same file (id[g..end), in input
 * order), the first that is a file an earlier one is: its place, and the
 * earlier one's in *j; end when none is ("-" beside "-" is standard input
 * given twice, said apart). */
static size_t repeat_in_group(char *const *inputs, const struct ident *id, size_t g, size_t end,
                              size_t *j)
{
    size_t file = g; /* the first that is not "-", the earlier file of a "-" */
    while (file < end && is_dash(inputs[id[file].index]))
        file++;
    for (size_t m = g + 1; m < end; m++) {
        size_t first = is_dash(inputs[id[m].index]) ? file : g;
        if (first < m) {
            *j = first;
            return m;
        }
    }
    return end;
}

/* The first input (in order) that is a file an earlier one is: *k, and the
 * first of those earlier ones, *j (*k = count for none).  Each input is
 * stat'ed once and the list sorted by device and inode: 10,000 inputs cost
 * 10,000 stat() calls, not 50 million.  False when out of memory. */
static bool first_same_file(char *const *inputs, size_t count, size_t *j, size_t *k)
{
    struct ident *id = malloc((count ? count : 1) * sizeof *id);
    size_t n = 0;
    *k = count;
    if (!id)
        return false;
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (identify(inputs[i], STDIN_FILENO, &st))
            id[n++] = (struct ident){ st.st_dev, st.st_ino, i };
    }
    qsort(id, n, sizeof *id, by_file);
    for (size_t g = 0, end; g < n; g = end) {
        for (end = g + 1; end < n && same_ident(&id[g], &id[end]);)
            end++;
        size_t at, m = repeat_in_group(inputs, id, g, end, &at);
        if (m < end && id[m].index < *k) {
            *k = id[m].index;
            *j = id[at].index;
        }
    }
    free(id);
    return true;
}

bool input_guard_check(char *const *inputs, size_t count, const char *output, const char *kind,
                       const char *twice)
{
    if (!check_output(inputs, count, output, kind))
        return false;
    size_t first_dash = count, second_dash = count, j = 0, k = count;
    for (size_t i = 0; i < count && second_dash == count; i++)
        if (is_dash(inputs[i]))
            *(first_dash == count ? &first_dash : &second_dash) = i;
    if (twice && !first_same_file(inputs, count, &j, &k)) {
        fputs("ibscope: out of memory\n", stderr);
        return false;
    }
    if (second_dash < count && second_dash <= k) { /* said first at the same input */
        fprintf(stderr,
                "ibscope: -: standard input is given twice (inputs %zu and "
                "%zu); it can be read only once\n",
                first_dash + 1, second_dash + 1);
        return false;
    }
    if (k < count) {
        char a[PRINTABLE_MAX], b[PRINTABLE_MAX];
        printable(inputs[k], b, sizeof b);
        printable(inputs[j], a, sizeof a);
        fprintf(stderr, "ibscope: %s: is the same file as %s (inputs %zu and %zu); %s\n", b, a,
                j + 1, k + 1, twice);
        return false;
    }
    return true;
}
