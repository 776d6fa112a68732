/* temp_file.c - unlinked scratch files in $TMPDIR. */
#include "temp_file.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

const char *temp_dir(void)
{
    const char *d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

FILE *temp_file(void)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/ibscope-XXXXXX", temp_dir()) >= (int)sizeof path) {
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
