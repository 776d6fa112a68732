/* output_file.c - every output: our own streams, atomic files (temporary,
 * lock, fsync, rename), one signal policy. */
#define _GNU_SOURCE /* fopencookie, O_PATH, AT_EACCESS */
#include "output_file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "printable.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif
#define SYMLINK_HOPS 40 /* Linux's limit on links followed in one path */

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

/* A signal ignored when ibscope started (nohup, a job in the background
 * of a script) stays ignored: ibscope itself ignores them only once its
 * output is complete, and opens no output after that. */
static void set_end_signals(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < END_SIGNALS; i++) {
        struct sigaction now;
        if (sigaction(end_signals[i], NULL, &now) == 0 && now.sa_handler == SIG_IGN)
            continue;
        sigaction(end_signals[i], &sa, NULL);
    }
}

void output_catch_end_signals(void (*handler)(int))
{
    set_end_signals(handler);
}

static void arm(const char *tmp)
{
    snprintf(pending_tmp, sizeof pending_tmp, "%s", tmp);
    pending_armed = 1;
    set_end_signals(on_signal);
}

static void disarm(void)
{
    pending_armed = 0;
}

static void block_end_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < END_SIGNALS; i++)
        sigaddset(&set, end_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

/* ---- where the file goes ---- */

/* "dir/" of "dir/name" ("" for "name"). */
static size_t dir_len_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* The path a symlink points to, taken from the link's folder. */
static char *follow_link(const char *link)
{
    char to[PATH_MAX];
    ssize_t n = readlink(link, to, sizeof to);
    if (n < 0)
        return NULL;
    if ((size_t)n == sizeof to) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    to[n] = '\0';
    size_t dir = to[0] == '/' ? 0 : dir_len_of(link);
    char *next = malloc(dir + (size_t)n + 1);
    if (!next)
        return NULL;
    memcpy(next, link, dir);
    memcpy(next + dir, to, (size_t)n + 1);
    return next;
}

/* The file the shell's > would write through path: *exists and st say
 * whether it is there.  A dangling symlink leads to the file it would
 * create. */
static int resolve(const char *path, char **target, struct stat *st, bool *exists)
{
    /* The kernel judges the links first: under fs.protected_symlinks it
     * does not follow a link in a sticky folder (/tmp) that someone else
     * owns, and neither do we.  O_PATH opens nothing. */
    int probe = open(path, O_PATH | O_CLOEXEC);
    if (probe >= 0)
        close(probe);
    else if (errno != ENOENT)
        return errno;
    *exists = stat(path, st) == 0;
    if (*exists) {
        if (S_ISDIR(st->st_mode))
            return EISDIR;
        *target = S_ISREG(st->st_mode) ? realpath(path, NULL) : strdup(path);
        return *target ? 0 : errno;
    }
    if (errno != ENOENT)
        return errno;
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat lst;
        if (lstat(cur, &lst) != 0 || !S_ISLNK(lst.st_mode))
            break; /* not there: the file to create */
        if (hops == SYMLINK_HOPS) {
            free(cur);
            return ELOOP;
        }
        char *next = follow_link(cur);
        free(cur);
        cur = next;
    }
    if (!cur)
        return errno ? errno : ENOMEM;
    *target = cur;
    return 0;
}

/* Whether the shell's > could write the file: where it could not (a
 * read-only file, someone else's, a read-only file system), a rename
 * would replace it all the same, so it is refused. */
static int may_replace(const char *target, const struct stat *st)
{
    if (faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0)
        return errno;
    /* In a sticky folder only its owner may rename over a file: said now,
     * not after the whole run. */
    size_t dir = dir_len_of(target);
    char *folder = dir ? strndup(target, dir) : strdup(".");
    struct stat fs;
    int err = 0;
    if (folder && stat(folder, &fs) == 0 && (fs.st_mode & S_ISVTX) && geteuid() != 0 &&
        st->st_uid != geteuid() && fs.st_uid != geteuid())
        err = EPERM;
    free(folder);
    return err;
}

/* ---- the temporary file ---- */

#define TEMP_TAG    ".ibscope-"
#define TEMP_RANDOM 6 /* mkstemp's XXXXXX */
#define HASH_DIGITS 16

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return h;
}

/* ".NAME.ibscope-" for the output NAME in folder dir: the temporary's name
 * without its random part.  When that would be longer than the folder's
 * longest name, NAME is cut (at a character, not inside one) and a hash
 * of all of it keeps outputs apart: ".NAMESTART~0123456789abcdef.ibscope-". */
static char *temp_prefix(const char *dir, const char *base)
{
    long name_max = pathconf(*dir ? dir : ".", _PC_NAME_MAX);
    if (name_max <= 0)
        name_max = NAME_MAX;
    size_t len = strlen(base);
    size_t fixed = 1 + strlen(TEMP_TAG) + TEMP_RANDOM;
    char *p;
    if (fixed + len <= (size_t)name_max) {
        if ((p = malloc(len + fixed)))
            snprintf(p, len + fixed, ".%s" TEMP_TAG, base);
        return p;
    }
    fixed += 1 + HASH_DIGITS;
    size_t keep = (size_t)name_max > fixed ? (size_t)name_max - fixed : 0;
    while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80)
        keep--;
    size_t n = keep + fixed;
    if ((p = malloc(n)))
        snprintf(p, n, ".%.*s~%016llx" TEMP_TAG, (int)keep, base,
                 (unsigned long long)name_hash(base));
    return p;
}

/* Removes the temporaries an earlier run for the same output left behind
 * when it died (SIGKILL, a crash, a power cut).  A live run holds an flock
 * on its temporary; the kernel drops it when the process ends, however it
 * ends, so a lock taken here means nobody is writing the file.  Only the
 * user's own regular files are touched. */
static void remove_stale(const char *dir, const char *prefix)
{
    DIR *d = opendir(*dir ? dir : ".");
    if (!d)
        return;
    size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *rnd = e->d_name + plen;
        if (strncmp(e->d_name, prefix, plen) != 0 || strlen(rnd) != TEMP_RANDOM)
            continue;
        bool random_part = true;
        for (int i = 0; i < TEMP_RANDOM; i++)
            random_part &= isalnum((unsigned char)rnd[i]) != 0;
        struct stat before, opened;
        if (!random_part || fstatat(dirfd(d), e->d_name, &before, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(before.st_mode) || before.st_uid != geteuid())
            continue;
        int fd =
            openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            continue;
        /* The lock is held while the name goes: a run that had just made
         * the file sees it unlinked when it gets the lock, and makes another. */
        if (fstat(fd, &opened) == 0 && opened.st_ino == before.st_ino &&
            opened.st_dev == before.st_dev && opened.st_nlink == 1 &&
            flock(fd, LOCK_EX | LOCK_NB) == 0)
            unlinkat(dirfd(d), e->d_name, 0);
        close(fd);
    }
    closedir(d);
}

/* mkstemp, and the lock held until the rename. */
static int create_temporary(struct output_file *o)
{
    size_t len = strlen(o->tmp_path);
    for (int tries = 0; tries < 8; tries++) {
        memset(o->tmp_path + len - TEMP_RANDOM, 'X', TEMP_RANDOM);
        int fd = mkstemp(o->tmp_path); /* 0600 until the rename */
        if (fd < 0)
            return errno;
        struct stat st;
        /* A file system without locks leaves the temporary unlocked (never
         * removed by a later run); EINTR here is a signal that ends us. */
        if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0 || st.st_nlink > 0) {
            o->fd = fd;
            return 0;
        }
        close(fd); /* taken for stale between mkstemp and flock: again */
    }
    return EAGAIN;
}

/* The new file's mode: the old one's (less set-id bits, which the kernel
 * drops on a write by anyone but root), or what the shell's umask gives. */
static mode_t new_file_mode(const struct stat *old, bool exists)
{
    if (exists)
        return old->st_mode & 01777;
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
    size_t dir_len = dir_len_of(o->target);
    const char *base = o->target + dir_len;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return EISDIR; /* "name/" through a dangling link, as the shell says */
    char *dir = strndup(o->target, dir_len);
    char *prefix = dir ? temp_prefix(dir, base) : NULL;
    int err = ENOMEM;
    if (prefix && (o->tmp_path = malloc(dir_len + strlen(prefix) + TEMP_RANDOM + 1))) {
        remove_stale(dir, prefix);
        snprintf(o->tmp_path, dir_len + strlen(prefix) + TEMP_RANDOM + 1, "%s%sXXXXXX", dir,
                 prefix);
        err = create_temporary(o);
    }
    free(prefix);
    free(dir);
    if (err)
        return err;
    arm(o->tmp_path);
    /* Another's file keeps its owner where we may give it (root). */
    if (exists && (st->st_uid != geteuid() || st->st_gid != getegid()) &&
        fchown(o->fd, st->st_uid, st->st_gid) != 0 && fchown(o->fd, (uid_t)-1, st->st_gid) != 0) {
        /* not ours to give: the new file is the user's, as the rename makes it */
    }
    return 0;
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
        bool exists = false;
        err = path[0] ? resolve(path, &o->target, &st, &exists) : ENOENT;
        if (!err && exists && !S_ISREG(st.st_mode)) {
            /* A device or a FIFO: there is nothing to replace. */
            o->kind = OUTPUT_IN_PLACE;
            o->fd = open(o->target, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
            err = o->fd < 0 ? errno : 0;
        } else if (!err) {
            if (!exists || !(err = may_replace(o->target, &st)))
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
        unlink(o->tmp_path); /* still locked: no other run takes it meanwhile */
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

/* The rename, with the end signals held back: one arriving meanwhile finds
 * either the old file (and ends the run) or the new one in place (and is
 * ignored), never a new report with a "killed" exit status. */
static int put_in_place(struct output_file *o)
{
    sigset_t old;
    block_end_signals(&old);
    int err = rename(o->tmp_path, o->target) == 0 ? 0 : errno;
    if (!err) {
        disarm();
        set_end_signals(SIG_IGN);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

int output_commit(struct output_file *o)
{
    int err = close_stream(o);
    if (o->kind == OUTPUT_ATOMIC) {
        if (!err && fchmod(o->fd, o->mode) != 0)
            err = errno;
        if (!err && fsync(o->fd) != 0)
            err = errno;
        if (!err)
            err = put_in_place(o);
        if (err) {
            output_abort(o);
            return err;
        }
        sync_folder_of(o->target);
    } else {
        if (o->kind == OUTPUT_IN_PLACE && close(o->fd) != 0 && !err)
            err = errno;
        o->fd = -1;
        if (!err) /* all written: from here on the run ends as it ends */
            set_end_signals(SIG_IGN);
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
