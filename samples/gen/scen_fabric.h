/* scen_fabric.h - the exchanges of ibscope-gen fabric (fabric.h): each
 * writes OUTDIR/truth.pcap through g, and a.pcap, b.pcap (c.pcap) and
 * truth.tsv beside it.  0, or -1 said on stderr. */
#ifndef IBSCOPE_GEN_SCEN_FABRIC_H
#define IBSCOPE_GEN_SCEN_FABRIC_H

#include "gen.h"

int story_fabric_two(gen_t *g, const char *outdir);
int story_fabric_three(gen_t *g, const char *outdir);

#endif
