/* wire.h - ibscope-gen wire: one capture per misconfiguration the wire audit
 * checks (issue 38), and truth.tsv: exactly the findings its contract
 * (samples/gen/wire_contract.md) gives each capture, named by the case as it
 * plays them, never by an analyzer.
 *
 * The cases are RC traffic (rc.h) between hosts whose configuration
 * (host_wire_t: DSCP, ECN, TTL, VLAN priority, GIDs) is wrong in one way
 * each, with CNPs and PFC frames where the case needs them.  RoCEv2 gets
 * every case; native IB the ones that apply to it (path MTU, link-local GIDs
 * routed), with a clean control case on both.
 */
#ifndef IBSCOPE_GEN_WIRE_H
#define IBSCOPE_GEN_WIRE_H

#include <stddef.h>

#include "rc.h"

extern const rc_case_t wire_cases_roce[];
extern const size_t n_wire_cases_roce;
extern const rc_case_t wire_cases_native[];
extern const size_t n_wire_cases_native;

/* OUTDIR/<case>.pcap for each case of the link type's set and
 * OUTDIR/truth.tsv; link is LINK_ETH (RoCEv2) or LINK_LRH. 0, or -1 said. */
int wire_write(const char *outdir, link_t link);

#endif
