/* output_file.c - atomic report files: temporary, fsync, rename. */
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "printable.h"

/* The temporary file a signal must remove.  Only one output is open at a
 * time; the handler reads this and nothing else. */
static char pending_tmp[PATH_MAX];
static volatile sig_atomic_t pending_armed;

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
    if (pending_armed)
        unlink(pending_tmp);
    /* End as the signal would have: the shell then sees 128 + sig. */
    signal(sig, SIG_DFL);
    raise(sig);
}

void output_catch_end_signals(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        sigaction(cleanup_signals[i], &sa, NULL);
}

static void arm(const char *tmp)
{
    snprintf(pending_tmp, sizeof pending_tmp, "%s", tmp);
    pending_armed = 1;
    output_catch_end_signals(on_signal);
}

static void disarm(void)
{
    pending_armed = 0;
}

/* The new file gets the old one's permissions, or those fopen would give. */
static mode_t new_file_mode(const struct stat *old, bool exists)
{
    if (exists)
        return old->st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* "dir/name" -> "dir/.name.ibscope-XXXXXX" (mkstemp's template). */
static char *temp_name_beside(const char *target)
{
    const char *slash = strrchr(target, '/');
    size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = target + dir_len;
    size_t n = dir_len + strlen(base) + sizeof(".ibscope-XXXXXX") + 1;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%s.ibscope-XXXXXX", (int)dir_len, target, base);
    return t;
}

int output_open(struct output_file *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || strcmp(path, "-") == 0) {
        o->path = "standard output";
        o->fp = stdout;
        return 0;
    }
    o->path = path;
    if (path[0] == '\0')
        return ENOENT;
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return EISDIR;
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device or a FIFO: there is nothing to replace. */
        o->fp = fopen(path, "w");
        return o->fp ? 0 : errno;
    }
    /* Through a symlink, the file it names is replaced, not the link. */
    o->target = exists ? realpath(path, NULL) : strdup(path);
    o->tmp_path = o->target ? temp_name_beside(o->target) : NULL;
    if (!o->tmp_path) {
        free(o->target);
        o->target = NULL;
        return ENOMEM;
    }
    o->fd = mkstemp(o->tmp_path);
    if (o->fd < 0) {
        int err = errno;
        free(o->tmp_path);
        free(o->target);
        o->tmp_path = o->target = NULL;
        return err;
    }
    arm(o->tmp_path);
    o->atomic = true;
    if (fchmod(o->fd, new_file_mode(&st, exists)) != 0 || !(o->fp = fdopen(o->fd, "w"))) {
        int err = errno;
        output_abort(o);
        return err;
    }
    return 0;
}

static void release(struct output_file *o)
{
    free(o->tmp_path);
    free(o->target);
    o->tmp_path = o->target = NULL;
    o->fd = -1;
    o->fp = NULL;
}

void output_abort(struct output_file *o)
{
    if (o->fp && o->fp != stdout)
        fclose(o->fp);
    else if (o->atomic && o->fd >= 0)
        close(o->fd); /* fdopen failed: the descriptor has no stream to close it */
    if (o->atomic) {
        unlink(o->tmp_path);
        disarm();
    }
    release(o);
}

/* Makes the rename itself durable; a folder that cannot be synced is not
 * an error worth losing a finished report over. */
static void sync_folder_of(const char *target)
{
    const char *slash = strrchr(target, '/');
    char *dir = slash ? strndup(target, (size_t)(slash - target) + 1) : strdup(".");
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

int output_commit(struct output_file *o)
{
    int err = 0;
    if (o->fp) {
        errno = 0;
        if (fflush(o->fp) != 0)
            err = errno ? errno : EIO;
        else if (ferror(o->fp))
            err = EIO; /* an earlier write failed */
    }
    if (!o->atomic) {
        if (o->fp && o->fp != stdout && fclose(o->fp) != 0 && !err)
            err = errno;
        release(o);
        return err;
    }
    if (!err && o->fp && fsync(o->fd) != 0)
        err = errno;
    if (o->fp) {
        if (fclose(o->fp) != 0 && !err)
            err = errno;
        o->fp = NULL;
        o->fd = -1; /* closed with its stream */
    }
    if (!err && rename(o->tmp_path, o->target) != 0)
        err = errno;
    if (err) {
        output_abort(o);
        return err;
    }
    disarm();
    sync_folder_of(o->target);
    release(o);
    return 0;
}

bool output_open_or_say(struct output_file *o, const char *path)
{
    int err = output_open(o, path);
    if (err) {
        char where[PRINTABLE_MAX];
        printable(path, where, sizeof where);
        fprintf(stderr, "ibscope: %s: %s\n", where, strerror(err));
    }
    return err == 0;
}
