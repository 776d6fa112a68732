/* replay_main.c - runs a fuzz target's LLVMFuzzerTestOneInput on saved inputs, without libFuzzer.
 *
 * Usage: replay PATH...  Each PATH is a file or a directory whose regular
 * files (not recursively, in name order) are replayed.  Exit 0 when every
 * input ran, 1 when a path could not be read; a broken invariant aborts.
 */
#include "fuzz_target.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long replayed;

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len, fp);
        if (len < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int failed = ferror(fp) || !buf;
    fclose(fp);
    if (failed) {
        fprintf(stderr, "replay: %s: read error\n", path);
        free(buf);
        return 1;
    }
    /* An exact-size copy, so that ASan catches reads past the input. */
    uint8_t *input = malloc(len ? len : 1);
    if (!input) {
        free(buf);
        return 1;
    }
    memcpy(input, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(input, len);
    free(input);
    replayed++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.')
            continue; /* ., .., .gitkeep */
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **more = realloc(names, cap * sizeof *names);
            if (!more) {
                rc = 1;
                break;
            }
            names = more;
        }
        size_t need = strlen(dir) + strlen(ent->d_name) + 2;
        names[n] = malloc(need);
        if (!names[n]) {
            rc = 1;
            break;
        }
        snprintf(names[n], need, "%s/%s", dir, ent->d_name);
        n++;
    }
    closedir(d);
    if (names)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            rc = replay_file(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            rc = replay_dir(argv[i]);
        } else {
            rc = replay_file(argv[i]);
        }
    }
    printf("replay: %lu inputs\n", replayed);
    if (rc == 0 && replayed == 0) {
        fprintf(stderr, "replay: no input: nothing tested\n");
        rc = 1;
    }
    return rc;
}
