/* qp_trace.h - the frames of the queue pairs with problems, for their
 * sequence charts (qps[].trace, the HTML report).
 *
 * A view of the engine's per-frame output, kept beside the engine, not in
 * it: each frame the engine links to a queue pair (links.qp) is written to
 * a ring of the last QP_TRACE_RING such frames, one write a frame.  A
 * queue pair's first transport finding starts its trace with what the ring
 * still holds of it, and from then on each of its frames is a point, up to
 * REPORT_TRACE_POINTS_MAX; at most REPORT_TRACED_QPS_MAX queue pairs are
 * traced.  What the caps leave out is counted (the report's limits).
 */
#ifndef IBSCOPE_QP_TRACE_H
#define IBSCOPE_QP_TRACE_H

#include "report_model.h"

#define REPORT_TRACED_QPS_MAX   16
#define REPORT_TRACE_POINTS_MAX 1024
#define QP_TRACE_RING           4096 /* frames of context: 128 KiB */

struct qp_trace;

/* NULL when out of memory. */
struct qp_trace *qp_trace_new(void);
void qp_trace_free(struct qp_trace *t);

/* A frame the engine linked to queue pair qp (links.has_qp). */
void qp_trace_frame(struct qp_trace *t, struct ib_frame_ref at, const struct ib_packet *pkt,
                    uint32_t qp);
/* A finding of the engine's, after its frame's qp_trace_frame: a transport
 * one starts its queue pair's trace and labels its frame's point. */
void qp_trace_finding(struct qp_trace *t, const struct ib_finding *f);

/* The caps' counts into the model's limits, and t as where report_qp finds
 * the traces (t must outlive the renderers). */
void qp_trace_report(const struct qp_trace *t, struct report_model *m);
/* q's trace, when it has one (the points stay t's). */
void qp_trace_fill(const struct qp_trace *t, struct report_qp *q);

#endif
