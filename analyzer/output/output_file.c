/* output_file.c - every output: our own streams, atomic files (temporary,
 * fsync, rename); signals clean up. */
#define _GNU_SOURCE /* fopencookie */
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "printable.h"

/* ---- streams that remember why a write failed ---- */

struct output_sink {
    int fd;
    int error; /* errno of the first failed write; nothing is written after it */
};

static void wait_writable(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLOUT };
    poll(&p, 1, -1);
}

/* stdio's write: all of buf, or the error kept.  A signal (EINTR) or a
 * non-blocking descriptor left by the parent (EAGAIN) is no failure. */
static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
    struct output_sink *s = cookie;
    size_t done = 0;
    while (done < size && !s->error) {
        ssize_t n = write(s->fd, buf + done, size - done);
        if (n > 0)
            done += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            wait_writable(s->fd);
        else
            s->error = n < 0 ? errno : EIO;
    }
    return (ssize_t)done; /* short: stdio marks the stream (ferror) */
}

static int open_stream(struct output_file *o)
{
    o->sink = calloc(1, sizeof *o->sink);
    if (!o->sink)
        return ENOMEM;
    o->sink->fd = o->fd;
    cookie_io_functions_t io = { NULL, sink_write, NULL, NULL }; /* fd closed by us */
    o->fp = fopencookie(o->sink, "w", io);
    if (!o->fp)
        return errno ? errno : ENOMEM;
    /* stdio would line-buffer a terminal; a cookie stream cannot tell. */
    if (isatty(o->fd))
        setvbuf(o->fp, NULL, _IOLBF, BUFSIZ);
    return 0;
}

/* Closes the stream; the first write error, else fclose's. */
static int close_stream(struct output_file *o)
{
    if (!o->fp)
        return 0;
    errno = 0;
    int rc = fclose(o->fp);
    o->fp = NULL;
    if (o->sink->error)
        return o->sink->error;
    return rc == 0 ? 0 : errno ? errno : EIO;
}

/* ---- signals ---- */

/* The temporary file a signal must remove.  Only one output is open at a
 * time; the handler reads this and nothing else. */
static char pending_tmp[PATH_MAX];
static volatile sig_atomic_t pending_armed;

static const int end_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define END_SIGNALS (sizeof end_signals / sizeof end_signals[0])

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
    for (size_t i = 0; i < END_SIGNALS; i++)
        sigaction(end_signals[i], &sa, NULL);
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

/* ---- where the file goes ---- */

/* "dir/" of "dir/name" ("" for "name"). */
static size_t dir_len_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* ---- the temporary file ---- */

/* "dir/name" -> "dir/.name.ibscope-XXXXXX" (mkstemp's template). */
static char *temp_name_beside(const char *target)
{
    size_t dir_len = dir_len_of(target);
    const char *base = target + dir_len;
    size_t n = dir_len + strlen(base) + sizeof(".ibscope-XXXXXX") + 1;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%s.ibscope-XXXXXX", (int)dir_len, target, base);
    return t;
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

static void release(struct output_file *o)
{
    if (o->kind != OUTPUT_STDOUT && o->fd >= 0)
        close(o->fd);
    free(o->tmp_path);
    free(o->target);
    free(o->sink);
    o->tmp_path = o->target = NULL;
    o->sink = NULL;
    o->fd = -1;
    o->fp = NULL;
}

static int open_atomic(struct output_file *o, const struct stat *st, bool exists)
{
    o->kind = OUTPUT_ATOMIC;
    o->mode = new_file_mode(st, exists);
    o->tmp_path = temp_name_beside(o->target);
    if (!o->tmp_path)
        return ENOMEM;
    o->fd = mkstemp(o->tmp_path);
    if (o->fd < 0)
        return errno;
    arm(o->tmp_path);
    return fchmod(o->fd, o->mode) == 0 ? 0 : errno;
}

int output_open(struct output_file *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    int err;
    if (!path || strcmp(path, "-") == 0) {
        o->path = "standard output";
        o->kind = OUTPUT_STDOUT;
        o->fd = STDOUT_FILENO;
        err = open_stream(o);
    } else {
        o->path = path;
        struct stat st;
        bool exists = path[0] && stat(path, &st) == 0;
        err = !path[0] ? ENOENT : exists && S_ISDIR(st.st_mode) ? EISDIR : 0;
        /* Through a symlink, the file it names is replaced, not the link. */
        if (!err && !(o->target = exists && S_ISREG(st.st_mode) ? realpath(path, NULL)
                                                                : strdup(path)))
            err = errno ? errno : ENOMEM;
        if (!err && exists && !S_ISREG(st.st_mode)) {
            /* A device or a FIFO: there is nothing to replace. */
            o->kind = OUTPUT_IN_PLACE;
            o->fd = open(o->target, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
            err = o->fd < 0 ? errno : 0;
        } else if (!err) {
            err = open_atomic(o, &st, exists);
        }
        if (!err)
            err = open_stream(o);
    }
    if (err)
        output_abort(o);
    return err;
}

void output_abort(struct output_file *o)
{
    close_stream(o);
    if (o->kind == OUTPUT_ATOMIC && o->tmp_path && o->fd >= 0) {
        unlink(o->tmp_path);
        disarm();
    }
    release(o);
}

/* Makes the rename itself durable; a folder that cannot be synced is not
 * an error worth losing a finished report over. */
static void sync_folder_of(const char *target)
{
    size_t dir_len = dir_len_of(target);
    char *dir = dir_len ? strndup(target, dir_len) : strdup(".");
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

int output_commit(struct output_file *o)
{
    int err = close_stream(o);
    if (o->kind == OUTPUT_ATOMIC) {
        if (!err && fsync(o->fd) != 0)
            err = errno;
        if (!err && rename(o->tmp_path, o->target) != 0)
            err = errno;
        if (err) {
            output_abort(o);
            return err;
        }
        disarm();
        sync_folder_of(o->target);
    } else {
        if (o->kind == OUTPUT_IN_PLACE && close(o->fd) != 0 && !err)
            err = errno;
        o->fd = -1;
    }
    release(o);
    return err;
}

static void say(const char *path, int err, const char *what)
{
    char where[PRINTABLE_MAX];
    printable(path, where, sizeof where);
    if (what)
        fprintf(stderr, "ibscope: %s: %s; no %s written (a file already there is unchanged)\n",
                where, strerror(err), what);
    else
        fprintf(stderr, "ibscope: %s: %s\n", where, strerror(err));
}

bool output_open_or_say(struct output_file *o, const char *path)
{
    int err = output_open(o, path);
    if (err)
        say(path && strcmp(path, "-") != 0 ? path : "standard output", err, NULL);
    return err == 0;
}

bool output_commit_or_say(struct output_file *o, const char *what)
{
    const char *path = o->path;
    bool atomic = o->kind == OUTPUT_ATOMIC;
    int err = output_commit(o);
    if (err)
        say(path, err, atomic ? what : NULL);
    return err == 0;
}
