/* extract.h - `ibscope extract --mgmt IN OUT`: only the management frames
 * (CM and MADs) of a capture, what a correlation of several hosts' captures
 * needs (docs/merge.md), so that each host's capture shrinks before it is
 * brought to one machine.  Frames, link type and timestamps are kept as
 * they were. */
#ifndef IBSCOPE_EXTRACT_H
#define IBSCOPE_EXTRACT_H

/* argv[0] is "extract"; returns the exit status (0, or 2 with a one-line
 * error on standard error). */
int extract_main(int argc, char **argv);

#endif
