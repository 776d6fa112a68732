/* temp_file.h - the renderers' scratch files, in $TMPDIR (else /tmp).
 *
 * A report with --frames or --connections streams its rows into scratch
 * files while the capture is read (hundreds of megabytes on a big run);
 * they are unlinked at once, so nothing is left behind whatever happens.
 * tmpfile(3) ignores TMPDIR, which on many machines is where the room is.
 */
#ifndef IBSCOPE_TEMP_FILE_H
#define IBSCOPE_TEMP_FILE_H

#include <stdio.h>

/* A new, already unlinked scratch file open for reading and writing;
 * NULL with errno set on failure. */
FILE *temp_file(void);

/* The folder temp_file uses, for messages. */
const char *temp_dir(void);

#endif
