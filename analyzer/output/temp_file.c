/* temp_file.c - unlinked scratch files in $TMPDIR, else /tmp. */
#include "temp_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "printable.h"

/* Said once a run: scratch files went to /tmp for want of $TMPDIR. */
static bool fell_back;

const char *temp_dir(void)
{
    const char *d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

static FILE *scratch_in(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/ibscope-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path);
    FILE *f = fdopen(fd, "w+");
    if (!f) {
        int err = errno;
        close(fd);
        errno = err;
    }
    return f;
}

/* A $TMPDIR where no file can be made (missing, not a folder, read-only)
 * is a setting gone stale, not a reason to fail the run: /tmp serves, and
 * the user is told.  A $TMPDIR that fills up fails as any output does. */
FILE *temp_file(void)
{
    FILE *f = scratch_in(temp_dir());
    if (f || strcmp(temp_dir(), "/tmp") == 0)
        return f;
    int err = errno;
    f = scratch_in("/tmp");
    if (!f) {
        errno = err;
        return NULL;
    }
    if (!fell_back) {
        char dir[PRINTABLE_MAX];
        printable(temp_dir(), dir, sizeof dir);
        fprintf(stderr, "ibscope: TMPDIR %s: %s; scratch files go to /tmp\n", dir, strerror(err));
        fell_back = true;
    }
    return f;
}
