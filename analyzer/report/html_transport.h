/* html_transport.h - the HTML report's RC queue pairs: the timeline of
 * NAKs, RNR NAKs and retransmissions, and a sequence chart per traced
 * queue pair (qps[].trace, qp_trace.h). */
#ifndef IBSCOPE_HTML_TRANSPORT_H
#define IBSCOPE_HTML_TRANSPORT_H

#include <stdio.h>

#include "report_model.h"
#include "time_series.h"

/* Sequence charts drawn at most: the first traced queue pairs of qps[]
 * (problems first); the page says how many more there were. */
#define HTML_QPS_CHARTED 10

/* Before a finding is counted in kinds[] (by kind): the timeline's kinds
 * start their series together, so that their columns line up. */
void html_transport_finding(struct series kinds[IB_FIND_COUNT], const struct ib_finding *f);

/* The section, when the report has queue pairs or transport findings.
 * kinds[] are widened alike for the timeline. */
void html_transport_section(FILE *out, const struct report_model *m,
                            struct series kinds[IB_FIND_COUNT]);

#endif
