/* analyze.h - the analysis run: captures in, one report out.
 *
 * Reads every capture in time order, decodes each frame with the core,
 * feeds the engine, streams findings and connection records to the chosen
 * renderer and renders the report at the end. */
#ifndef IBSCOPE_ANALYZE_H
#define IBSCOPE_ANALYZE_H

#include "options.h"

/* Returns the exit status: 0 done, 1 a --fail-on finding occurred, 2 an
 * input or output error (which overrides 1). */
int analyze_run(const struct options *opts, const char *version);

#endif
