/* convert.h - `ibscope convert IN OUT`: rewrites a native InfiniBand capture
 * (link type 247, or 147 as rdmasniff-era tools wrote it) as link type 197
 * ERF type 21, which Wireshark 4.0 opens, keeping timestamps and bytes. */
#ifndef IBSCOPE_CONVERT_H
#define IBSCOPE_CONVERT_H

/* argv[0] is "convert"; returns the exit status (0, or 2 with a one-line
 * error on standard error). */
int convert_main(int argc, char **argv);

#endif
