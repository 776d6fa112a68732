/* input_guard.h - inputs are sacred: no output may be an input, and no
 * input is read twice unless asked for.
 *
 * Files are compared by identity (device and inode, after symlinks), so a
 * symlink, a hard link or "./a.pcap" beside "a.pcap" is caught; "-" is
 * whatever standard input is, and a missing -o is whatever standard output
 * is (ibscope a.pcap >> a.pcap).  Paths that cannot be stat'ed are left to
 * the reader, which reports them.
 */
#ifndef IBSCOPE_INPUT_GUARD_H
#define IBSCOPE_INPUT_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* output: NULL or "-" for standard output.  kind: what the inputs are, for
 * the message ("capture", "report").  twice: what reading an input twice
 * would do, for the message ("its frames would be read twice"); NULL allows
 * it.  Writes one line per collision to standard error, naming both
 * arguments; true when there is none. */
bool input_guard_check(char *const *inputs, size_t count, const char *output, const char *kind,
                       const char *twice);

#endif
