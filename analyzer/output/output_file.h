/* output_file.h - where everything ibscope writes goes: a report, a
 * converted capture, decode's fields, --help; either the file that was
 * there before, or a complete new one.
 *
 * A regular file is written to a temporary file beside it
 * (".NAME.ibscope-XXXXXX"; a long NAME is cut and a hash of it added, so
 * that the name fits), created 0600 and locked (flock) for as long as the
 * run lives.  When every write succeeded it is fsync'd, given its mode (the
 * old file's, or what the umask gives a new one) and renamed over NAME.  As
 * with the shell's >, a symlink is followed (a dangling one to the file it
 * names), and a file the user may not write is refused.  A temporary whose
 * lock is free belongs to a run that is gone (SIGKILL): the next run for the
 * same NAME removes it.  A device or a FIFO is written in place, standard
 * output as it is.
 *
 * Every stream is ours: its writes keep the errno of the first one that
 * failed, and output_commit, the one place an output is finished, returns
 * it, so that a full disk is "No space left on device" and a closed
 * standard output "Bad file descriptor", whatever the format.
 *
 * Signals (one policy for every command): SIGINT, SIGTERM and SIGHUP that
 * were ignored when ibscope started stay ignored (nohup).  Before the
 * commit, a signal removes the temporary file and ends the process as it
 * would have (exit status 130, 143, 129 in a shell); NAME is unchanged.
 * Once the output is complete and in place they are ignored, so the exit
 * status is the run's own: it never says "killed" over a finished report.
 */
#ifndef IBSCOPE_OUTPUT_FILE_H
#define IBSCOPE_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

enum output_kind {
    OUTPUT_STDOUT,   /* standard output, as it is */
    OUTPUT_IN_PLACE, /* a device or a FIFO, opened and written */
    OUTPUT_ATOMIC,   /* a regular file: temporary, then rename */
};

struct output_sink;

/* Opened by output_open, finished by output_commit or output_abort; not to
 * be copied in between. */
struct output_file {
    const char *path; /* as given, for messages; "standard output" for none */
    FILE *fp;         /* where to write; NULL after output_commit/abort */
    enum output_kind kind;
    char *target; /* the file renamed over (symlinks resolved) */
    char *tmp_path;
    int fd;      /* fp's descriptor; an atomic one holds the lock */
    mode_t mode; /* what the file gets at the rename */
    struct output_sink *sink;
};

/* Opens the output: path NULL or "-" is standard output.  Returns 0, or an
 * errno value (nothing was created). */
int output_open(struct output_file *o, const char *path);
/* output_open, and on failure the one line "ibscope: PATH: reason" on
 * stderr; true when open. */
bool output_open_or_say(struct output_file *o, const char *path);

/* The signals that end a run (SIGINT, SIGTERM, SIGHUP): handler for each
 * that is not ignored, without SA_RESTART, so a blocking call returns
 * EINTR. */
void output_catch_end_signals(void (*handler)(int));

/* Flushes, syncs, closes the stream and puts the new file in place.  A
 * pcap dumper opened on o->fp is that same FILE: commit closes it, so
 * pcap_dump_close must not be called.  Returns 0, or the errno of the
 * first failure (the old file is then kept, the temporary removed). */
int output_commit(struct output_file *o);
/* output_commit, and on failure the one line "ibscope: PATH: reason" on
 * stderr; for a file, "; no WHAT written (a file already there is
 * unchanged)" follows when what is given.  True when committed. */
bool output_commit_or_say(struct output_file *o, const char *what);

/* Gives up: the temporary file is removed, the old file kept. */
void output_abort(struct output_file *o);

#endif
